//! The platform staff's operations on developers: who may (platform OWNER
//! and STAFF change, SUPPORT reads too), a developer's quota override, and
//! LIVE keys.

use alyt_domain::access::{Denied, KeyKind, PlatformRole, Principal, Scope};
use alyt_domain::ids::{ConnectorId, DeveloperId};
use alyt_domain::quota::{QuotaKind, QuotaSource, QuotaValue};
use alyt_domain::submission::ReviewState;
use alyt_store::repo::developers::{DeveloperStatus, Developers, KeyRecord};
use alyt_store::repo::integrations::Integrations;
use alyt_store::repo::submissions::Versions;
use alyt_store::repo::usage::{EffectiveQuota, Quotas};
use time::OffsetDateTime;

use super::keys::{NewSecret, check_key_fields, issue_key};
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
