//! Platform staff operations on developers (under /v1/developers/admin): the
//! developer list, the quota defaults, a developer's effective quotas and its
//! quota override, verifying
//! a developer by hand, and issuing a LIVE key (by hand, for now, once the
//! developer's connector is approved).
//!
//! Who: platform OWNER and STAFF may do everything; SUPPORT may read (the list
//! and the defaults) but not change a quota, verify a developer or issue a
//! LIVE key (403). Anyone
//! who is not platform staff (households, tenant roles, developer keys) gets the
//! 404 of a path that does not exist: the admin surface is invisible to them.
//! The caller is checked before the body is read, so a bad body does not reveal
//! the operation either.

use crate::routing::{Operations, operations};
use alyt_domain::access::{PlatformRole, Principal, Scope};
use alyt_domain::ids::DeveloperId;
use alyt_domain::quota::{QuotaKind, QuotaValue, QuotaWindow};
use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::Deserialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::account::DeveloperView;
use super::keys::{KeyWithSecret, app_secret};
use super::quota::{EffectiveQuotaView, QuotaResponse};
use super::session::{Body, Params};
use crate::auth::Caller;
use crate::conventions::list::{ListResponse, PageParams, listed};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{
    BadPage, BodyNotJson, NoSuchDeveloperForStaff, NoValidToken, NotPlatformStaff,
};
use crate::{ApiError, AppState};
use alyt_app::developers::admin::{self, NewLiveKey};

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(list_developers))
        .merge(operations!(get_quota_defaults))
        .merge(operations!(get_developer_quota))
        .merge(operations!(put_developer_quota))
        .merge(operations!(verify_developer))
        .merge(operations!(issue_live_key))
}

/// Platform roles that may read the admin views.
pub use alyt_app::developers::admin::READERS;
/// Platform roles that may change quotas and verify developers.
pub use alyt_app::developers::admin::WRITERS;

/// The caller must be platform staff with one of `roles`.
pub(super) fn staff(caller: &Principal, roles: &[PlatformRole]) -> Result<PlatformRole, ApiError> {
    Ok(alyt_app::developers::admin::staff(caller, roles)?)
}

// ---------------------------------------------------------------------------
// GET /developers/admin/developers

/// Every developer, newest first (platform OWNER, STAFF or SUPPORT).
#[utoipa::path(
    get,
    path = "/v1/developers/admin/developers",
    tag = "developers",
    operation_id = "listAdminDevelopers",
    extensions(("x-session-only" = json!(true))),
    security(("bearer" = [])),
    params(PageParams),
    responses(
        (status = 200, description = "A page of developers, newest first", body = ListResponse<DeveloperView>),
        BadPage,
        NoValidToken,
        NotPlatformStaff,
    )
)]
pub async fn list_developers(
    State(state): State<AppState>,
    Caller(caller): Caller,
    page: Result<Params<PageParams>, ApiError>,
) -> Result<Json<ListResponse<DeveloperView>>, ApiError> {
    staff(&caller, &READERS)?;
    let Params(page) = page?;
    let found = admin::developers_page(&state, &caller, &page.paging()).await?;
    Ok(listed(found, DeveloperView::from))
}

// ---------------------------------------------------------------------------
// GET /developers/admin/quota-defaults

pub use alyt_app::developers::admin::QuotaDefaults;

/// The quota defaults that apply to every developer without an override
/// (platform OWNER, STAFF or SUPPORT). Unless the platform configured others:
/// REQUESTS 100000 a day with a burst of 600 a minute, VIRTUAL_DEVICES 20
/// (devices held at once), MQTT_MESSAGES 1000000 a day.
#[utoipa::path(
    get,
    path = "/v1/developers/admin/quota-defaults",
    tag = "developers",
    operation_id = "getAdminQuotaDefaults",
    extensions(("x-session-only" = json!(true))),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The default per kind", body = QuotaDefaults),
        NoValidToken,
        NotPlatformStaff,
    )
)]
pub async fn get_quota_defaults(
    State(state): State<AppState>,
    Caller(caller): Caller,
) -> Result<Json<QuotaDefaults>, ApiError> {
    Ok(Json(admin::quota_defaults(&state, &caller).await?))
}

// ---------------------------------------------------------------------------
// GET /developers/admin/developers/{developerId}/quota

/// The developer's effective quota of every kind, as `GET /developers/quota`
/// answers the developer: each kind's override when staff set one, else the
/// platform default (platform OWNER, STAFF or SUPPORT).
#[utoipa::path(
    get,
    path = "/v1/developers/admin/developers/{developerId}/quota",
    tag = "developers",
    operation_id = "getAdminDeveloperQuota",
    extensions(("x-session-only" = json!(true))),
    security(("bearer" = [])),
    params(("developerId" = DeveloperId, Path, description = "The developer")),
    responses(
        (status = 200, description = "The effective quota per kind", body = QuotaResponse),
        NoValidToken,
        NoSuchDeveloperForStaff,
    )
)]
pub async fn get_developer_quota(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(developer_id_text): Path<String>,
) -> Result<Json<QuotaResponse>, ApiError> {
    let quotas = admin::developer_quotas(&state, &caller, &developer_id_text).await?;
    Ok(Json((&quotas).into()))
}

// ---------------------------------------------------------------------------
// PUT /developers/admin/developers/{developerId}/quota

/// A quota override for one developer: the kind and a Quota default value.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PutQuotaRequest {
    pub kind: QuotaKind,
    /// Uses allowed per window, 0 to 2^53 - 1 (0 refuses every use).
    #[schema(minimum = 0, maximum = 9007199254740991_u64)]
    pub ceiling: u64,
    pub window: QuotaWindow,
    /// At most this many uses a minute (>= 1); leave out for no burst limit.
    /// Not for VIRTUAL_DEVICES, which is a standing count.
    #[serde(default)]
    #[schema(required = false, minimum = 1)]
    pub burst_per_minute: Option<u32>,
}

/// Sets the developer's quota of one kind, replacing any earlier override;
/// answers the new effective value (platform OWNER or STAFF). Keyed requests
/// of the developer see it at once on this instance and within a minute on
/// every other.
#[utoipa::path(
    put,
    path = "/v1/developers/admin/developers/{developerId}/quota",
    tag = "developers",
    operation_id = "putAdminDeveloperQuota",
    extensions(("x-session-only" = json!(true))),
    security(("bearer" = [])),
    params(("developerId" = DeveloperId, Path, description = "The developer")),
    request_body = PutQuotaRequest,
    responses(
        (status = 200, description = "The new effective quota of that kind", body = EffectiveQuotaView),
        (status = 400, description = "Unknown kind or window, negative ceiling, burstPerMinute below 1", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        (status = 403, description = "SUPPORT may not change quotas", body = Problem, content_type = "application/problem+json"),
        NoSuchDeveloperForStaff,
        BodyNotJson,
    )
)]
pub async fn put_developer_quota(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(developer_id_text): Path<String>,
    body: Result<Body<PutQuotaRequest>, ApiError>,
) -> Result<Json<EffectiveQuotaView>, ApiError> {
    staff(&caller, &WRITERS)?;
    let Body(request) = body?;
    let value = QuotaValue {
        ceiling: request.ceiling,
        window: request.window,
        burst_per_minute: request.burst_per_minute,
    };
    let id = &developer_id_text;
    let effective = admin::put_developer_quota(&state, &caller, id, request.kind, value).await?;
    Ok(Json((&effective).into()))
}

// ---------------------------------------------------------------------------
// POST /developers/admin/developers/{developerId}/verify

/// Verifies a developer whose address was not confirmed (platform OWNER or
/// STAFF): PENDING_EMAIL becomes ACTIVE and the sandbox is provisioned exactly
/// as the verification link does (the same transaction, spending a one-time
/// token made for this request). An ACTIVE developer is answered as it is
/// (provisioning its sandbox if it has none); a SUSPENDED one is a 409, since
/// verifying does not lift a suspension.
#[utoipa::path(
    post,
    path = "/v1/developers/admin/developers/{developerId}/verify",
    tag = "developers",
    operation_id = "verifyAdminDeveloper",
    extensions(("x-session-only" = json!(true))),
    security(("bearer" = [])),
    params(("developerId" = DeveloperId, Path, description = "The developer")),
    responses(
        (status = 200, description = "The developer, now ACTIVE with its sandbox", body = DeveloperView),
        NoValidToken,
        (status = 403, description = "SUPPORT may not verify developers", body = Problem, content_type = "application/problem+json"),
        NoSuchDeveloperForStaff,
        (status = 409, description = "The developer is suspended", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn verify_developer(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(developer_id_text): Path<String>,
) -> Result<Json<DeveloperView>, ApiError> {
    let verified = admin::verify_developer(&state, &caller, &developer_id_text).await?;
    Ok(Json(verified.into()))
}

// ---------------------------------------------------------------------------
// POST /developers/admin/developers/{developerId}/live-keys

/// Characters a LIVE key's `definitionId` may have.
pub use alyt_app::developers::admin::DEFINITION_ID_MAX_CHARS;

/// A LIVE key to issue: the fields of a new DEV key (same rules) and the
/// approved connector definition it is for.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IssueLiveKeyRequest {
    #[schema(min_length = 1, max_length = 80)]
    pub name: String,
    /// At least one scope of the closed set.
    pub scopes: Vec<Scope>,
    /// The approved connector definition the key acts for: the id of one of
    /// the developer's connectors (surrounding spaces trimmed) with a version
    /// staff approved or published. Anything else is refused: not one of the
    /// developer's connectors 400, no approved version yet 409.
    #[schema(min_length = 1, max_length = 120)]
    pub definition_id: String,
    /// When the key stops working; must be in the future. Null: never.
    #[serde(default, with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub expires_at: Option<OffsetDateTime>,
}

/// Issues a LIVE key to an ACTIVE developer once its connector is approved
/// (platform OWNER or STAFF; issuance is manual for now). The answer carries the
/// secret, `svc_dev_…` like every key's (the key's record makes it LIVE),
/// shown this once; the developer then lists, rotates and
/// revokes the key like its DEV keys. A LIVE key acts only for the tenants that
/// installed its connector (`definitionId` = the connector's id); approval
/// alone grants no household access. Name, scopes and expiry
/// follow the rules of a DEV key, and the developer's limit of keys that are
/// not revoked counts DEV and LIVE keys together.
#[utoipa::path(
    post,
    path = "/v1/developers/admin/developers/{developerId}/live-keys",
    tag = "developers",
    operation_id = "issueAdminLiveKey",
    extensions(("x-session-only" = json!(true))),
    security(("bearer" = [])),
    params(("developerId" = DeveloperId, Path, description = "The developer")),
    request_body = IssueLiveKeyRequest,
    responses(
        (status = 201, description = "The LIVE key and its secret (shown once)", body = KeyWithSecret),
        (status = 400, description = "A field is wrong: name, scopes (an unknown scope is named), definitionId, expiresAt", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        (status = 403, description = "SUPPORT may not issue keys", body = Problem, content_type = "application/problem+json"),
        NoSuchDeveloperForStaff,
        (status = 409, description = "The developer is not ACTIVE, the connector has no approved version, or the developer holds too many keys that are not revoked", body = Problem, content_type = "application/problem+json"),
        BodyNotJson,
    )
)]
pub async fn issue_live_key(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(developer_id_text): Path<String>,
    body: Result<Body<IssueLiveKeyRequest>, ApiError>,
) -> Result<(StatusCode, Json<KeyWithSecret>), ApiError> {
    staff(&caller, &WRITERS)?;
    let Body(request) = body?;
    let new = NewLiveKey {
        name: request.name,
        scopes: request.scopes,
        expires_at: request.expires_at,
        definition_id: request.definition_id,
    };
    let (key, secret) =
        admin::issue_live_key(&state, &caller, &developer_id_text, new, app_secret).await?;
    let created = KeyWithSecret {
        key: key.into(),
        secret,
    };
    Ok((StatusCode::CREATED, Json(created)))
}
