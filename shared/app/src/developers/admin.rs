//! The platform staff's operations on developers: who may (platform OWNER
//! and STAFF change, SUPPORT reads too; anyone else is answered as if there
//! were no such operation), the developer list, the quota defaults, a
//! developer's effective quotas and quota override, verifying a developer by
//! hand, and LIVE keys.

use alyt_domain::access::{Denied, KeyKind, PlatformRole, Principal, Scope};
use alyt_domain::ids::{ConnectorId, DeveloperId};
use alyt_domain::quota::{QuotaKind, QuotaSource, QuotaValue};
use alyt_domain::secret::{random_token, sha256_hex};
use alyt_domain::submission::ReviewState;
use alyt_store::repo::developers::{
    DeveloperRecord, DeveloperStatus, Developers, KeyRecord, all_developers,
};
use alyt_store::repo::identity::Users;
use alyt_store::repo::integrations::Integrations;
use alyt_store::repo::submissions::Versions;
use alyt_store::repo::tokens::{OneTimeTokens, Purpose};
use alyt_store::repo::usage::{EffectiveQuota, EffectiveQuotas, Quotas};
use alyt_store::{PageKey, StoreError};
use serde::Serialize;
use serde_json::json;
use time::OffsetDateTime;

use super::keys::{NewSecret, check_key_fields, issue_key};
use super::sandbox::{Verification, verify_and_provision};
use crate::paging::Paging;
use crate::quota::forget_cached;
use crate::{App, Error};

/// Platform roles that may read the admin views.
pub const READERS: [PlatformRole; 3] = [
    PlatformRole::Owner,
    PlatformRole::Staff,
    PlatformRole::Support,
];
/// Platform roles that may change quotas, verify developers and review.
pub const WRITERS: [PlatformRole; 2] = [PlatformRole::Owner, PlatformRole::Staff];

/// The caller must be platform staff with one of `roles`; anyone else gets
/// exactly the answer of a path with no operation.
pub fn staff(caller: &Principal, roles: &[PlatformRole]) -> Result<PlatformRole, Error> {
    caller
        .require_platform(roles)
        .map_err(|denied| match denied {
            Denied::Role => Error::forbidden(format!(
                "your platform role does not allow this; it needs {}",
                roles
                    .iter()
                    .map(|r| format!("{r:?}").to_uppercase())
                    .collect::<Vec<_>>()
                    .join(" or ")
            )),
            // Exactly the answer of a path with no operation.
            _ => Error::not_found("no operation at this path"),
        })
}

fn no_such_developer() -> Error {
    Error::not_found("no such developer")
}

/// A developer id from a path (a malformed one answers as a missing
/// developer).
pub fn developer_id(text: &str) -> Result<DeveloperId, Error> {
    text.parse().map_err(|_| no_such_developer())
}

/// Every developer, newest first (platform OWNER, STAFF or SUPPORT): one
/// page, its size checked, then its cursor within the developer list.
pub async fn developers_page(
    app: &App,
    caller: &Principal,
    paging: &Paging,
) -> Result<(Vec<DeveloperRecord>, Option<PageKey>), Error> {
    staff(caller, &READERS)?;
    let limit = paging.limit()?;
    let after = paging.after_within(&all_developers())?;
    Developers(&*app.store)
        .admin_page(limit, after)
        .await
        .map_err(|e| match e {
            StoreError::Invalid(_) => {
                Error::validation("cursor", "the cursor is not one this list handed out")
            }
            other => other.into(),
        })
}

/// The platform default of every kind, each exactly a Quota default value.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct QuotaDefaults {
    #[serde(rename = "REQUESTS")]
    #[cfg_attr(feature = "openapi", schema(rename = "REQUESTS"))]
    pub requests: QuotaValue,
    #[serde(rename = "VIRTUAL_DEVICES")]
    #[cfg_attr(feature = "openapi", schema(rename = "VIRTUAL_DEVICES"))]
    pub virtual_devices: QuotaValue,
    #[serde(rename = "MQTT_MESSAGES")]
    #[cfg_attr(feature = "openapi", schema(rename = "MQTT_MESSAGES"))]
    pub mqtt_messages: QuotaValue,
}

/// The quota defaults that apply to every developer without an override
/// (platform OWNER, STAFF or SUPPORT); a kind the platform configured no
/// default for has its documented one.
pub async fn quota_defaults(app: &App, caller: &Principal) -> Result<QuotaDefaults, Error> {
    staff(caller, &READERS)?;
    let defaults = Quotas(&*app.store).defaults().await?;
    let of = |kind: QuotaKind| {
        defaults
            .iter()
            .find(|(k, _)| *k == kind)
            .map_or(kind.documented_default(), |(_, v)| *v)
    };
    Ok(QuotaDefaults {
        requests: of(QuotaKind::Requests),
        virtual_devices: of(QuotaKind::VirtualDevices),
        mqtt_messages: of(QuotaKind::MqttMessages),
    })
}

/// The developer's effective quota of every kind (platform OWNER, STAFF or
/// SUPPORT): each kind's override when staff set one, else the platform
/// default.
pub async fn developer_quotas(
    app: &App,
    caller: &Principal,
    developer: &str,
) -> Result<EffectiveQuotas, Error> {
    staff(caller, &READERS)?;
    let id = developer_id(developer)?;
    Developers(&*app.store)
        .get(id)
        .await?
        .ok_or_else(no_such_developer)?;
    Ok(Quotas(&*app.store).effective(id).await?)
}

/// Sets the developer's override of one quota (platform OWNER or STAFF):
/// the value checked for its kind, then the developer found; the cached
/// quotas of this process are dropped. The quota now in effect.
pub async fn put_developer_quota(
    app: &App,
    caller: &Principal,
    developer: &str,
    kind: QuotaKind,
    value: QuotaValue,
) -> Result<EffectiveQuota, Error> {
    staff(caller, &WRITERS)?;
    value
        .validate(kind)
        .map_err(|e| Error::validation(e.field, e.message))?;
    let id = developer_id(developer)?;
    Developers(&*app.store)
        .get(id)
        .await?
        .ok_or_else(no_such_developer)?;
    Quotas(&*app.store)
        .set_override(id, kind, value, caller.user_id(), app.clock.now())
        .await?;
    forget_cached(app, id);
    Ok(EffectiveQuota {
        kind,
        value,
        source: QuotaSource::Override,
    })
}

/// Characters of a LIVE key's definition id.
pub const DEFINITION_ID_MAX_CHARS: usize = 120;

/// A LIVE key as staff ask for one.
#[derive(Debug, Clone)]
pub struct NewLiveKey {
    pub name: String,
    pub scopes: Vec<Scope>,
    pub expires_at: Option<OffsetDateTime>,
    /// The connector the key acts for.
    pub definition_id: String,
}

/// Issues a LIVE key to an active developer (platform OWNER or STAFF) for
/// one of its connectors with an approved (or published) version, with
/// `secret`; the fields are checked as a DEV key's, then the definition id,
/// then the developer.
pub async fn issue_live_key(
    app: &App,
    caller: &Principal,
    developer: &str,
    new: NewLiveKey,
    secret: impl FnOnce() -> NewSecret,
) -> Result<(KeyRecord, String), Error> {
    staff(caller, &WRITERS)?;
    let fields = check_key_fields(&new.name, &new.scopes, new.expires_at, app.clock.now())?;
    let definition_id = new.definition_id.trim();
    if definition_id.is_empty()
        || definition_id.chars().count() > DEFINITION_ID_MAX_CHARS
        || definition_id.chars().any(char::is_control)
    {
        return Err(Error::validation(
            "definitionId",
            format!("definitionId must have 1 to {DEFINITION_ID_MAX_CHARS} characters"),
        ));
    }
    let id = developer_id(developer)?;
    let developer = Developers(&*app.store)
        .get(id)
        .await?
        .ok_or_else(no_such_developer)?;
    if developer.status != DeveloperStatus::Active {
        return Err(Error::conflict(
            "the developer is not ACTIVE; LIVE keys are issued only to active developers",
        ));
    }
    // A LIVE key reaches the tenants that installed its connector: only an
    // approved connector of this developer.
    let not_theirs = || {
        Error::validation(
            "definitionId",
            "definitionId must be the id of one of the developer's connectors",
        )
    };
    let connector = definition_id
        .parse::<ConnectorId>()
        .map_err(|_| not_theirs())?;
    let connector = Integrations(&*app.store)
        .connector(connector)
        .await?
        .filter(|c| c.developer_id == developer.id)
        .ok_or_else(not_theirs)?;
    let approved = Versions(&*app.store)
        .of_connector(connector.id)
        .await?
        .iter()
        .any(|v| matches!(v.state, ReviewState::Approved | ReviewState::Published));
    if !approved {
        return Err(Error::conflict(
            "the connector has no approved version; a LIVE key is issued once staff approve one",
        )
        .with_field("definitionId"));
    }
    let definition = Some(definition_id.to_owned());
    issue_key(app, developer.id, KeyKind::Live, fields, definition, secret).await
}

/// Seconds the internal verification token of a staff verification lives (it
/// is spent in the same request).
const STAFF_VERIFY_TOKEN_SECONDS: i64 = 300;

/// Verifies a developer as the mailed link would, sandbox included
/// (platform OWNER or STAFF); an active developer with a sandbox is
/// answered as it is, a suspended one is a conflict (verifying does not lift
/// a suspension). The developer as it is now.
pub async fn verify_developer(
    app: &App,
    caller: &Principal,
    developer: &str,
) -> Result<DeveloperRecord, Error> {
    staff(caller, &WRITERS)?;
    let id = developer_id(developer)?;
    let developer = Developers(&*app.store)
        .get(id)
        .await?
        .ok_or_else(no_such_developer)?;
    match developer.status {
        DeveloperStatus::Suspended => {
            return Err(Error::conflict(
                "the developer is suspended; verifying does not lift a suspension",
            ));
        }
        DeveloperStatus::Active if developer.sandbox_tenant_id.is_some() => {
            return Ok(developer);
        }
        _ => {}
    }
    let user = Users(&*app.store)
        .get(developer.user_id)
        .await?
        .ok_or_else(|| Error::internal(format!("developer {id} has no user")))?;

    // The verification transaction spends a one-time token; make one that is
    // never sent anywhere, shaped like the mailed link's, and spend it now.
    let token = random_token();
    let hash = sha256_hex(&token);
    let tokens = OneTimeTokens(&*app.store);
    let now = app.clock.unix_seconds();
    tokens
        .issue(
            Purpose::VerifyEmail,
            &hash,
            &json!({
                "developerId": developer.id,
                "userId": user.id,
                "passwordFingerprint": sha256_hex(&user.password_hash),
            }),
            now + STAFF_VERIFY_TOKEN_SECONDS,
        )
        .await?;
    let verified = match verify_and_provision(app, &hash, &developer, &user).await {
        Ok(Verification::Verified { developer, .. }) => *developer,
        Ok(Verification::AlreadyVerified) => {
            // Verified concurrently (the link, or other staff): answer as it is now.
            let _: Option<serde_json::Value> =
                tokens.consume(Purpose::VerifyEmail, &hash, now).await?;
            Developers(&*app.store)
                .get(id)
                .await?
                .ok_or_else(no_such_developer)?
        }
        Ok(Verification::TokenDead) => {
            return Err(Error::internal(
                "the staff verification token died before it was spent",
            ));
        }
        Err(e) => {
            let _: Result<Option<serde_json::Value>, _> =
                tokens.consume(Purpose::VerifyEmail, &hash, now).await;
            return Err(e);
        }
    };
    Ok(verified)
}
