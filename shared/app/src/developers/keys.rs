//! Developer keys (DEV and LIVE): issuing one with its checked fields and
//! the limit, rotating, revoking, and finding the key of an App ID and
//! secret for the app token exchange. A key's secret is made by the HTTP
//! layer (its form is the caller extractor's); it is stored here only as
//! its SHA-256. Keys are managed only by the signed-in developer; a key
//! cannot manage keys.

use std::collections::BTreeSet;

use alyt_domain::access::{KeyKind, Principal, Scope, SessionKind};
use alyt_domain::ids::{DeveloperId, KeyId, TenantId, UserId};
use alyt_domain::secret::{constant_time_eq, sha256_hex};
use alyt_store::PageKey;
use alyt_store::repo::developers::{DeveloperStatus, Developers, KeyRecord, developer_keys};
use serde::Serialize;
use time::OffsetDateTime;

use super::{active_developer, developer_session};
use crate::paging::Paging;
use crate::{App, Error};

pub const NAME_MAX_CHARS: usize = 80;
/// Keys (DEV and LIVE together) a developer may hold that are not revoked.
pub const MAX_LIVE_KEYS: usize = 50;

/// A new secret as the HTTP layer made it, and the prefix shown for
/// recognition.
#[derive(Clone)]
pub struct NewSecret {
    pub secret: String,
    pub prefix: String,
}

/// The fields of a new key, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyFields {
    /// Trimmed, 1 to [`NAME_MAX_CHARS`] characters, no control characters.
    pub name: String,
    /// At least one, each once, in the closed set's order.
    pub scopes: Vec<Scope>,
    /// In the future, or never.
    pub expires_at: Option<OffsetDateTime>,
}

/// Checks the name, scopes and expiry of a new key, DEV or LIVE; a wrong
/// one is refused naming its field.
pub fn check_key_fields(
    name: &str,
    scopes: &[Scope],
    expires_at: Option<OffsetDateTime>,
    now: OffsetDateTime,
) -> Result<KeyFields, Error> {
    let name = name.trim();
    if name.is_empty()
        || name.chars().count() > NAME_MAX_CHARS
        || name.chars().any(char::is_control)
    {
        return Err(Error::validation(
            "name",
            format!("name must have 1 to {NAME_MAX_CHARS} characters"),
        ));
    }
    let scopes: BTreeSet<Scope> = scopes.iter().copied().collect();
    if scopes.is_empty() {
        return Err(Error::validation(
            "scopes",
            "scopes must name at least one scope",
        ));
    }
    if expires_at.is_some_and(|e| e <= now) {
        return Err(Error::validation(
            "expiresAt",
            "expiresAt must be in the future",
        ));
    }
    Ok(KeyFields {
        name: name.to_owned(),
        scopes: scopes.into_iter().collect(),
        expires_at,
    })
}

/// Creates a key of `kind` for the developer (whose status the caller
/// checked) with `secret` (answered with it), unless the developer already holds
/// [`MAX_LIVE_KEYS`] keys that are not revoked (a conflict).
pub async fn issue_key(
    app: &App,
    developer: DeveloperId,
    kind: KeyKind,
    fields: KeyFields,
    definition_id: Option<String>,
    secret: impl FnOnce() -> NewSecret,
) -> Result<(KeyRecord, String), Error> {
    let developers = Developers(&*app.store);
    let held = developers
        .keys(developer)
        .await?
        .iter()
        .filter(|k| k.revoked_at.is_none())
        .count();
    if held >= MAX_LIVE_KEYS {
        return Err(Error::conflict(format!(
            "a developer holds at most {MAX_LIVE_KEYS} keys that are not revoked; revoke one first"
        )));
    }
    let NewSecret { secret, prefix } = secret();
    let key = KeyRecord {
        id: KeyId::new(),
        developer_id: developer,
        kind,
        name: fields.name,
        prefix,
        scopes: fields.scopes,
        definition_id,
        created_at: app.clock.now(),
        expires_at: fields.expires_at,
        last_used_at: None,
        revoked_at: None,
        rotated_from_id: None,
        secret_hash: sha256_hex(&secret),
    };
    developers.create_key(&key).await?;
    Ok((key, secret))
}

/// A DEV key as a developer asks for one.
#[derive(Debug, Clone)]
pub struct NewKey {
    pub name: String,
    pub scopes: Vec<Scope>,
    pub expires_at: Option<OffsetDateTime>,
    /// A LIVE key was asked for (refused: staff issue those).
    pub live: bool,
}

/// Creates a DEV key acting in the signed-in developer's sandbox.
pub async fn create_key(
    app: &App,
    caller: &Principal,
    new: NewKey,
    secret: impl FnOnce() -> NewSecret,
) -> Result<(KeyRecord, String), Error> {
    let me = developer_session(caller)?;
    if new.live {
        return Err(Error::forbidden(
            "LIVE keys are issued by platform staff once a connector is approved",
        )
        .with_field("kind"));
    }
    let fields = check_key_fields(&new.name, &new.scopes, new.expires_at, app.clock.now())?;
    active_developer(app, &me).await?;
    issue_key(app, me.developer, KeyKind::Dev, fields, None, secret).await
}

fn no_such_key() -> Error {
    Error::not_found("no such key")
}

/// The caller's own key by the id in the path; another developer's key and
/// a malformed id answer as a missing one.
async fn own_key(app: &App, developer: DeveloperId, key_id: &str) -> Result<KeyRecord, Error> {
    let id: KeyId = key_id.parse().map_err(|_| no_such_key())?;
    Developers(&*app.store)
        .key(developer, id)
        .await?
        .ok_or_else(no_such_key)
}

/// Gives the signed-in developer's key `secret`; the old secret stops
/// working at once. A revoked or expired key is a conflict.
pub async fn rotate_key(
    app: &App,
    caller: &Principal,
    key_id: &str,
    secret: impl FnOnce() -> NewSecret,
) -> Result<(KeyRecord, String), Error> {
    let me = developer_session(caller)?;
    active_developer(app, &me).await?;
    let key = own_key(app, me.developer, key_id).await?;
    if key.revoked_at.is_some() {
        return Err(Error::conflict("the key is revoked"));
    }
    if key.expires_at.is_some_and(|e| e <= app.clock.now()) {
        return Err(Error::conflict("the key has expired; create a new one"));
    }
    let NewSecret { secret, prefix } = secret();
    let rotated = Developers(&*app.store)
        .rotate_secret(&key, &sha256_hex(&secret), &prefix)
        .await
        .map_err(|e| {
            if e.is_condition_failure() {
                Error::conflict("the key was rotated or revoked meanwhile; retry")
            } else {
                e.into()
            }
        })?;
    Ok((rotated, secret))
}

/// Revokes the signed-in developer's key (a revoked one stays so) and
/// disables its webhook endpoints.
pub async fn revoke_key(app: &App, caller: &Principal, key_id: &str) -> Result<(), Error> {
    let me = developer_session(caller)?;
    let key = own_key(app, me.developer, key_id).await?;
    let now = app.clock.now();
    if key.revoked_at.is_none() {
        Developers(&*app.store).revoke_key(&key, now).await?;
    }
    // Its webhook endpoints stop with it (also when a first attempt failed
    // after the revoke: the worker would catch them anyway).
    alyt_events::binding::disable_bound_to(
        &*app.store,
        &key,
        alyt_store::repo::webhooks::DisabledReason::KeyRevoked,
        now,
    )
    .await?;
    Ok(())
}

fn wrong_app_credentials() -> Error {
    Error::unauthorized("the App ID or the App secret is wrong")
}

/// The live key of an active developer whose App ID and secret these are;
/// every mismatch is the same refusal.
pub async fn app_key(app: &App, app_id: KeyId, app_secret: &str) -> Result<KeyRecord, Error> {
    let presented = sha256_hex(app_secret);
    let developers = Developers(&*app.store);
    let key = developers
        .key_by_secret_hash(&presented)
        .await?
        .ok_or_else(wrong_app_credentials)?;
    // The lookup found the key by the secret's hash; it must be the App ID's key
    // and its current hash (compared in constant time).
    if key.id != app_id || !constant_time_eq(key.secret_hash.as_bytes(), presented.as_bytes()) {
        return Err(wrong_app_credentials());
    }
    let now = app.clock.now();
    if key.revoked_at.is_some() || key.expires_at.is_some_and(|e| e <= now) {
        return Err(wrong_app_credentials());
    }
    let active = developers
        .get(key.developer_id)
        .await?
        .is_some_and(|d| d.status == DeveloperStatus::Active);
    if !active {
        return Err(wrong_app_credentials());
    }
    Ok(key)
}

/// One page of the signed-in developer's keys, oldest first; a use this
/// process counted and has not written yet shows at once.
pub async fn keys_page(
    app: &App,
    caller: &Principal,
    paging: &Paging,
) -> Result<(Vec<KeyRecord>, Option<PageKey>), Error> {
    let me = developer_session(caller)?;
    let limit = paging.limit()?;
    let after = paging.after_within(&developer_keys(me.developer))?;
    let (keys, next) = Developers(&*app.store)
        .keys_page(me.developer, limit, after)
        .await
        .map_err(|e| match e {
            alyt_store::StoreError::Invalid(_) => {
                Error::validation("cursor", "the cursor is not one this list handed out")
            }
            other => other.into(),
        })?;
    let keys = keys
        .into_iter()
        .map(|mut key| {
            let unwritten = app.meter.unwritten_key_use(key.developer_id, key.id);
            key.last_used_at = key.last_used_at.max(unwritten);
            key
        })
        .collect();
    Ok((keys, next))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum CallerKind {
    /// A signed-in developer.
    Session,
    /// A developer key, presented directly or through an app token.
    Key,
}

/// Who the caller is, as the platform sees it.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct WhoAmI {
    pub kind: CallerKind,
    pub developer_id: DeveloperId,
    /// Sessions only.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub user_id: Option<UserId>,
    /// Keys only: the key (App ID).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub key_id: Option<KeyId>,
    /// Keys only.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub key_kind: Option<KeyKind>,
    /// Keys only: the key's scopes (a session acts by its roles, not scopes).
    pub scopes: Vec<Scope>,
    /// LIVE keys only: the connector definition the key was issued for.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub definition_id: Option<String>,
    /// The tenants the caller reaches: a DEV key its sandbox; a LIVE key the
    /// tenants that installed its connector (none yet: approval alone grants
    /// no household access); a session the tenants of its claims.
    pub tenants: Vec<TenantId>,
}

/// The caller as `whoami` describes it (a LIVE key's definition id read
/// from its key record); a household session is not a developer caller.
pub async fn who_is(app: &App, caller: Principal) -> Result<WhoAmI, Error> {
    match caller {
        Principal::Key {
            key_id,
            developer,
            kind,
            scopes,
            tenants,
            ..
        } => {
            let definition_id = match kind {
                KeyKind::Dev => None,
                KeyKind::Live => Developers(&*app.store)
                    .key(developer, key_id)
                    .await?
                    .and_then(|k| k.definition_id),
            };
            Ok(WhoAmI {
                kind: CallerKind::Key,
                developer_id: developer,
                user_id: None,
                key_id: Some(key_id),
                key_kind: Some(kind),
                scopes: scopes.into_iter().collect(),
                definition_id,
                tenants: tenants.into_iter().collect(),
            })
        }
        Principal::Person {
            claims,
            kind: SessionKind::Developer,
            developer: Some(developer),
            ..
        } => Ok(WhoAmI {
            kind: CallerKind::Session,
            developer_id: developer,
            user_id: Some(claims.sub),
            key_id: None,
            key_kind: None,
            scopes: Vec::new(),
            definition_id: None,
            tenants: claims.tenants.keys().copied().collect(),
        }),
        Principal::Person { .. } | Principal::Widget { .. } | Principal::Routine { .. } => Err(
            Error::unauthorized("this operation needs a developer session, a key or an app token"),
        ),
    }
}
