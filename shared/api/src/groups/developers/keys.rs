//! Developer keys (DEV/LIVE), rotation, revocation, the app token exchange and
//! a diagnostics operation telling a caller who it is.
//!
//! A key's secret is `svc_dev_<43 random base64url characters>` (256 bits),
//! DEV and LIVE alike (the kind is the key record's, never the secret's
//! text), shown once at creation and at each rotation and stored only as its
//! SHA-256.
//! The key id is also the App ID: `POST /v1/developers/apps/token` exchanges App
//! ID + secret for a five-minute app token, which authenticates exactly as the
//! key itself. Keys are managed only by the signed-in developer; a key cannot
//! manage keys. LIVE keys are issued by platform staff after a connector's
//! approval (see [`super::admin`]), with the same checks of name, scopes and
//! expiry and the same limit ([`check_key_fields`], [`issue_key`]); the
//! developer then lists, rotates and revokes them here like DEV keys.

use crate::routing::{Operations, operations};
use alyt_domain::access::{KeyKind, Scope};
use alyt_domain::ids::{DeveloperId, KeyId};
use alyt_store::repo::developers::KeyRecord;
use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::session::{Body, Params};
use crate::auth::Caller;
use crate::auth::caller::KEY_PREFIX;
use crate::auth::jwt::APP_TOKEN_SECONDS;
use crate::conventions::list::{ListResponse, PageParams, listed};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{BadPage, CalledWithKey, NoDeveloperSession, NoSuchKey};
use crate::{ApiError, AppState};
use alyt_app::developers::keys::{self, NewKey, NewSecret, WhoAmI};
use alyt_domain::secret::random_token;

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(list_keys, create_key))
        .merge(operations!(rotate_key))
        .merge(operations!(revoke_key))
        .merge(operations!(app_token))
        .merge(operations!(whoami))
}

/// Random characters of the secret shown in the key's prefix, after
/// `svc_dev_`: 12 characters in all.
pub const PREFIX_RANDOM_CHARS: usize = 4;
pub use alyt_app::developers::keys::{KeyFields, MAX_LIVE_KEYS, NAME_MAX_CHARS};

/// A new secret, of the one form every kind shares, and the prefix shown for
/// recognition.
pub fn new_secret() -> (String, String) {
    let secret = format!("{KEY_PREFIX}{}", random_token());
    let prefix = secret[..KEY_PREFIX.len() + PREFIX_RANDOM_CHARS].to_owned();
    (secret, prefix)
}

/// [`new_secret`] as the application takes it.
pub(super) fn app_secret() -> NewSecret {
    let (secret, prefix) = new_secret();
    NewSecret { secret, prefix }
}

/// Checks the name, scopes and expiry of a new key, DEV or LIVE (an unknown
/// scope is refused earlier, when the body is read, naming `scopes[i]`); a
/// wrong one is a 400 naming its field.
pub fn check_key_fields(
    name: &str,
    scopes: &[Scope],
    expires_at: Option<OffsetDateTime>,
    now: OffsetDateTime,
) -> Result<KeyFields, ApiError> {
    Ok(keys::check_key_fields(name, scopes, expires_at, now)?)
}

/// Creates a key of `kind` for the developer (whose status the caller
/// checked) and answers it with its secret, unless the developer already holds
/// [`MAX_LIVE_KEYS`] keys that are not revoked (409).
pub async fn issue_key(
    state: &AppState,
    developer: DeveloperId,
    kind: KeyKind,
    fields: KeyFields,
    definition_id: Option<String>,
) -> Result<KeyWithSecret, ApiError> {
    let (key, secret) =
        keys::issue_key(state, developer, kind, fields, definition_id, app_secret).await?;
    Ok(KeyWithSecret {
        key: key.into(),
        secret,
    })
}

/// A key as the spec's Key object; never the secret.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = Key)]
pub struct KeyView {
    /// Also the App ID for the app token exchange.
    pub id: KeyId,
    pub kind: KeyKind,
    pub name: String,
    /// The first characters of the secret, for recognition.
    pub prefix: String,
    pub scopes: Vec<Scope>,
    /// The connector definition of a LIVE key.
    #[schema(required = true)]
    pub definition_id: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    #[schema(required = true)]
    pub expires_at: Option<OffsetDateTime>,
    /// To the minute.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    #[schema(required = true)]
    pub last_used_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    #[schema(required = true)]
    pub revoked_at: Option<OffsetDateTime>,
    /// Rotation keeps the key's id (the App ID), so this stays null for keys
    /// created here.
    #[schema(required = true)]
    pub rotated_from_id: Option<KeyId>,
}

impl From<KeyRecord> for KeyView {
    fn from(k: KeyRecord) -> Self {
        Self {
            id: k.id,
            kind: k.kind,
            name: k.name,
            prefix: k.prefix,
            scopes: k.scopes,
            definition_id: k.definition_id,
            created_at: k.created_at,
            expires_at: k.expires_at,
            last_used_at: k.last_used_at,
            revoked_at: k.revoked_at,
            rotated_from_id: k.rotated_from_id,
        }
    }
}

/// A key with its secret: the answer of create and rotate, the only times the
/// secret is shown.
#[derive(Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct KeyWithSecret {
    #[serde(flatten)]
    pub key: KeyView,
    /// Shown once; stored only as a hash. Use it as `Authorization: Bearer
    /// <secret>` or exchange it for an app token.
    pub secret: String,
}

/// Lists the developer's keys, DEV and LIVE (revoked ones included), oldest
/// first. Session only.
#[utoipa::path(
    get,
    path = "/v1/developers/keys",
    tag = "developers",
    operation_id = "listDeveloperKeys",
    extensions(("x-session-only" = json!(true))),
    security(("bearer" = [])),
    params(PageParams),
    responses(
        (status = 200, description = "The keys; never their secrets", body = ListResponse<KeyView>),
        BadPage,
        NoDeveloperSession,
        CalledWithKey,
    )
)]
pub async fn list_keys(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Params(page): Params<PageParams>,
) -> Result<Json<ListResponse<KeyView>>, ApiError> {
    let found = keys::keys_page(&state, &caller, &page.paging()).await?;
    Ok(listed(found, KeyView::from))
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum CreatableKind {
    #[default]
    Dev,
    /// Refused here: LIVE keys are issued by platform staff after approval.
    Live,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateKeyRequest {
    #[schema(min_length = 1, max_length = 80)]
    pub name: String,
    /// At least one scope of the closed set.
    pub scopes: Vec<Scope>,
    /// When the key stops working; must be in the future. Null: never.
    #[serde(default, with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub expires_at: Option<OffsetDateTime>,
    /// DEV (the default). LIVE keys cannot be created here.
    #[serde(default)]
    pub kind: CreatableKind,
}

/// Creates a DEV key acting in the developer's sandbox with the given scopes.
/// The answer carries the secret, shown this once. Session only.
#[utoipa::path(
    post,
    path = "/v1/developers/keys",
    tag = "developers",
    operation_id = "createDeveloperKey",
    extensions(("x-session-only" = json!(true))),
    security(("bearer" = [])),
    request_body = CreateKeyRequest,
    responses(
        (status = 201, description = "The key and its secret (shown once)", body = KeyWithSecret),
        (status = 400, description = "A field is wrong: name, scopes (an unknown scope is named), expiresAt", body = Problem, content_type = "application/problem+json"),
        NoDeveloperSession,
        (status = 403, description = "Called with a key, or a LIVE key was asked for", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Too many keys that are not revoked", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn create_key(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Body(request): Body<CreateKeyRequest>,
) -> Result<(StatusCode, Json<KeyWithSecret>), ApiError> {
    let new = NewKey {
        name: request.name,
        scopes: request.scopes,
        expires_at: request.expires_at,
        live: request.kind == CreatableKind::Live,
    };
    let (key, secret) = keys::create_key(&state, &caller, new, app_secret).await?;
    let created = KeyWithSecret {
        key: key.into(),
        secret,
    };
    Ok((StatusCode::CREATED, Json(created)))
}

/// Gives the key a new secret, shown this once; the old secret stops working at
/// once. The key id, which is the App ID, stays, and so does its kind; the new
/// secret is `svc_dev_…` whatever the kind (a LIVE key's `svc_live_…` secret
/// from before becomes one too). App tokens already issued name
/// the key, not the secret, and run out within their five minutes (revoke the
/// key to stop them at once). Session only.
#[utoipa::path(
    post,
    path = "/v1/developers/keys/{keyId}/rotate",
    tag = "developers",
    operation_id = "rotateDeveloperKey",
    extensions(("x-session-only" = json!(true))),
    security(("bearer" = [])),
    params(("keyId" = KeyId, Path, description = "The key (App ID)")),
    responses(
        (status = 200, description = "The key with its new secret (shown once)", body = KeyWithSecret),
        NoDeveloperSession,
        CalledWithKey,
        NoSuchKey,
        (status = 409, description = "The key is revoked or expired", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn rotate_key(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(key_id): Path<String>,
) -> Result<Json<KeyWithSecret>, ApiError> {
    let (rotated, secret) = keys::rotate_key(&state, &caller, &key_id, app_secret).await?;
    Ok(Json(KeyWithSecret {
        key: rotated.into(),
        secret,
    }))
}

/// Revokes the key: its secret and the app tokens issued for it stop working
/// at once, and its webhook endpoints are disabled (`key_revoked`): nothing
/// more is sent for them, deliveries already queued included. The key stays
/// listed with `revokedAt`. Revoking a revoked key is a no-op. (Revocation
/// is the DELETE of the key.) Session only.
#[utoipa::path(
    delete,
    path = "/v1/developers/keys/{keyId}",
    tag = "developers",
    operation_id = "revokeDeveloperKey",
    extensions(("x-session-only" = json!(true))),
    security(("bearer" = [])),
    params(("keyId" = KeyId, Path, description = "The key (App ID)")),
    responses(
        (status = 204, description = "Revoked"),
        NoDeveloperSession,
        CalledWithKey,
        NoSuchKey,
    )
)]
pub async fn revoke_key(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(key_id): Path<String>,
) -> Result<StatusCode, ApiError> {
    keys::revoke_key(&state, &caller, &key_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AppTokenRequest {
    /// The App ID: the key's id.
    pub app_id: KeyId,
    /// The App secret: the key's secret.
    pub app_secret: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
pub enum TokenType {
    Bearer,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AppToken {
    /// Authenticates as the key (same scopes and tenants) for five minutes.
    pub access_token: String,
    pub token_type: TokenType,
    /// Always 300.
    pub expires_in: i64,
}

/// Exchanges an App ID and App secret for an access token valid five minutes
/// (spec: Authentication 3). A wrong pair, a revoked or expired key and a key
/// of a developer who is not active all get the same 401. No bearer token.
#[utoipa::path(
    post,
    path = "/v1/developers/apps/token",
    tag = "developers",
    operation_id = "exchangeAppToken",
    request_body = AppTokenRequest,
    responses(
        (status = 200, description = "An app token", body = AppToken),
        (status = 400, description = "A field is missing or malformed", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Wrong App ID or App secret, or the key is no longer valid", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn app_token(
    State(state): State<AppState>,
    Body(request): Body<AppTokenRequest>,
) -> Result<Json<AppToken>, ApiError> {
    Ok(Json(
        exchange_app_secret(&state, request.app_id, &request.app_secret).await?,
    ))
}

/// A five-minute app token for a live key of an active developer whose App
/// ID and secret match; every mismatch is the same 401.
async fn exchange_app_secret(
    state: &AppState,
    app_id: KeyId,
    app_secret: &str,
) -> Result<AppToken, ApiError> {
    let key = keys::app_key(state, app_id, app_secret).await?;
    let now = state.clock.now();
    Ok(AppToken {
        access_token: state
            .tokens
            .issue_app(key.id, key.developer_id, now.unix_timestamp()),
        token_type: TokenType::Bearer,
        expires_in: APP_TOKEN_SECONDS,
    })
}

/// Diagnostics: who the caller is (a developer session, or a key presented
/// directly or as an app token), with a key's scopes, tenants and (LIVE)
/// connector definition. Needs no scope; answers 401 to household sessions.
#[utoipa::path(
    get,
    path = "/v1/developers/whoami",
    tag = "developers",
    operation_id = "developerWhoAmI",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller", body = WhoAmI),
        (status = 401, description = "No valid developer session, key or app token", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn whoami(
    State(state): State<AppState>,
    Caller(caller): Caller,
) -> Result<Json<WhoAmI>, ApiError> {
    Ok(Json(keys::who_is(&state, caller).await?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alyt_domain::secret::sha256_hex;
    use proptest::prelude::*;

    proptest! {
        /// Secrets: `svc_dev_` + 43 base64url characters (256 bits), whatever
        /// the kind; the prefix is the secret's first 12 characters; secrets
        /// never repeat.
        #[test]
        fn every_secret_has_the_one_key_form_and_its_prefix(_round in 0..64u8) {
            let (secret, prefix) = new_secret();
            prop_assert!(secret.starts_with("svc_dev_"));
            let random = &secret["svc_dev_".len()..];
            prop_assert_eq!(random.len(), 43);
            prop_assert!(random.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
            prop_assert_eq!(prefix.len(), 12);
            prop_assert!(secret.starts_with(&prefix));
            prop_assert_ne!(secret, new_secret().0);
        }
    }

    #[test]
    fn key_fields_are_checked_alike_for_every_kind() {
        let now = time::macros::datetime!(2026-06-01 12:00 UTC);
        let ok = check_key_fields(
            "  ci  ",
            &[Scope::EventsRead, Scope::DevicesRead, Scope::EventsRead],
            None,
            now,
        )
        .unwrap();
        assert_eq!(ok.name, "ci");
        assert_eq!(ok.scopes, [Scope::DevicesRead, Scope::EventsRead]);
        let field = |name: &str, scopes: &[Scope], expires: Option<OffsetDateTime>| {
            check_key_fields(name, scopes, expires, now)
                .unwrap_err()
                .field
        };
        let one = [Scope::DevicesRead];
        assert_eq!(field("", &one, None).as_deref(), Some("name"));
        assert_eq!(field(&"x".repeat(81), &one, None).as_deref(), Some("name"));
        assert_eq!(field("a\u{7}b", &one, None).as_deref(), Some("name"));
        assert_eq!(field("ci", &[], None).as_deref(), Some("scopes"));
        assert_eq!(field("ci", &one, Some(now)).as_deref(), Some("expiresAt"));
        assert!(
            check_key_fields(
                &"x".repeat(80),
                &one,
                Some(now + time::Duration::SECOND),
                now
            )
            .is_ok()
        );
    }

    #[test]
    fn create_requests_name_unknown_scopes() {
        let Err(e) = crate::conventions::extract::parse_json::<CreateKeyRequest>(
            br#"{"name":"ci","scopes":["devices:read","devices:delete"]}"#,
        ) else {
            panic!("an unknown scope must be refused");
        };
        assert_eq!(e.status, StatusCode::BAD_REQUEST);
        assert_eq!(e.field.as_deref(), Some("scopes[1]"));
        assert!(e.detail.contains("devices:delete"), "{}", e.detail);
    }

    #[test]
    fn key_views_never_carry_the_secret() {
        let (secret, prefix) = new_secret();
        let record = KeyRecord {
            id: KeyId::new(),
            developer_id: DeveloperId::new(),
            kind: KeyKind::Dev,
            name: "ci".into(),
            prefix,
            scopes: vec![Scope::DevicesRead],
            definition_id: None,
            created_at: time::macros::datetime!(2026-06-01 12:00 UTC),
            expires_at: None,
            last_used_at: None,
            revoked_at: None,
            rotated_from_id: None,
            secret_hash: sha256_hex(&secret),
        };
        let json = serde_json::to_value(KeyView::from(record.clone())).unwrap();
        let mut fields: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        fields.sort();
        assert_eq!(
            fields,
            [
                "createdAt",
                "definitionId",
                "expiresAt",
                "id",
                "kind",
                "lastUsedAt",
                "name",
                "prefix",
                "revokedAt",
                "rotatedFromId",
                "scopes"
            ]
        );
        let text = json.to_string();
        assert!(!text.contains(&secret) && !text.contains(&record.secret_hash));
    }
}
