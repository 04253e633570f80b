//! Widget tokens: what a
//! phone's home-screen widget uses. A household person (owner, member, or a
//! guest inside the stay) mints one for one home; it is shown once and kept
//! only as its SHA-256; it reads and controls that home's things and nothing
//! else ([`Principal::Widget`]); it dies with the person's removal and at
//! the guest's check-out, and stops working while its person's grant does
//! not hold (checked on every use). A member under the network condition
//! cannot mint one, and a token's person who is given the condition later
//! loses every widget token at once (a token presented while its grant is
//! conditional is refused besides). A token lives 90 days
//! ([`alyt_store::repo::widgets::LIFETIME`]), shown as `expiresAt`.
//!
//! * `POST /v1/properties/{propertyId}/widget-tokens?tenantId` `{ name }`:
//!   201 with the token (once).
//! * `GET /v1/properties/{propertyId}/widget-tokens?tenantId`: the caller's
//!   own tokens for the home (never the token itself).
//! * `DELETE /v1/properties/{propertyId}/widget-tokens/{tokenId}?tenantId`.

use alyt_domain::access::Surface;
use alyt_domain::ids::{PropertyId, WidgetTokenId};
use alyt_store::repo::widgets::WidgetTokenRecord;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::auth::Caller;
use crate::conventions::extract::{ApiJson, ApiPath, ApiQuery};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{
    MalformedIdOrTenant, NoSuchHomeOfCaller, NoValidToken, NotHouseholdSession,
};
use crate::groups::devices::TenantParam;
use crate::routing::{Operations, operations};
use crate::{ApiError, AppState};
use alyt_app::widgets;

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(create_widget_token, list_widget_tokens))
        .merge(operations!(revoke_widget_token))
}

/// A widget token as its person sees it (the token itself only once).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WidgetToken {
    pub id: WidgetTokenId,
    pub name: String,
    pub surface: Surface,
    pub property_id: PropertyId,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    /// When the token stops working (90 days after it was minted); mint a
    /// new one before then.
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub expires_at: OffsetDateTime,
    /// The bearer token (`wt_…`), in the create response only: keep it in
    /// the widget; it is never shown again.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub token: Option<String>,
}

impl From<&WidgetTokenRecord> for WidgetToken {
    fn from(r: &WidgetTokenRecord) -> Self {
        Self {
            id: r.id,
            name: r.name.clone(),
            surface: r.surface,
            property_id: r.property_id,
            created_at: r.created_at,
            expires_at: r.expires_at(),
            token: None,
        }
    }
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateWidgetTokenRequest {
    /// What the widget is called ("Kitchen phone"), 1-80 characters.
    pub name: String,
    /// `phone` (default) or `tv`: a TV can be given control of the home's
    /// security by its person (`PUT /home-security/{propertyId}/delegations/{tokenId}`).
    #[serde(default)]
    pub surface: Surface,
}

/// The list of a person's widget tokens for a home.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WidgetTokenList {
    pub items: Vec<WidgetToken>,
    /// Always null: a person holds at most 20 tokens per household.
    #[schema(required = true)]
    pub next_cursor: Option<String>,
}

/// Mints a widget token for one home.
#[utoipa::path(
    post,
    path = "/v1/properties/{propertyId}/widget-tokens",
    tag = "homes",
    operation_id = "createWidgetToken",
    extensions(("x-session-only" = json!(true))),
    params(("propertyId" = PropertyId, Path, description = "The home"), TenantParam),
    request_body = CreateWidgetTokenRequest,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "The token, shown this once", body = WidgetToken),
        (status = 400, description = "A malformed id, tenantId or name", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        (status = 403, description = "Not a household session (a key, a widget, a developer), or a member under the network condition", body = Problem, content_type = "application/problem+json"),
        NoSuchHomeOfCaller,
        (status = 409, description = "The person already holds 20 tokens in this household", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn create_widget_token(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(property): ApiPath<PropertyId>,
    ApiQuery(query): ApiQuery<TenantParam>,
    ApiJson(request): ApiJson<CreateWidgetTokenRequest>,
) -> Result<(StatusCode, Json<WidgetToken>), ApiError> {
    let (record, token) = widgets::mint(
        &state,
        &caller,
        query.tenant_id,
        property,
        &request.name,
        request.surface,
    )
    .await?;
    let mut shown = WidgetToken::from(&record);
    shown.token = Some(token);
    Ok((StatusCode::CREATED, Json(shown)))
}

/// The caller's widget tokens for a home.
#[utoipa::path(
    get,
    path = "/v1/properties/{propertyId}/widget-tokens",
    tag = "homes",
    operation_id = "listWidgetTokens",
    extensions(("x-session-only" = json!(true))),
    params(("propertyId" = PropertyId, Path, description = "The home"), TenantParam),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller's tokens for the home (without the tokens themselves)", body = WidgetTokenList),
        MalformedIdOrTenant,
        NoValidToken,
        NotHouseholdSession,
        NoSuchHomeOfCaller,
    )
)]
pub async fn list_widget_tokens(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(property): ApiPath<PropertyId>,
    ApiQuery(query): ApiQuery<TenantParam>,
) -> Result<Json<WidgetTokenList>, ApiError> {
    let tokens = widgets::tokens(&state, &caller, query.tenant_id, property).await?;
    Ok(Json(WidgetTokenList {
        items: tokens.iter().map(WidgetToken::from).collect(),
        next_cursor: None,
    }))
}

/// Revokes one of the caller's widget tokens.
#[utoipa::path(
    delete,
    path = "/v1/properties/{propertyId}/widget-tokens/{tokenId}",
    tag = "homes",
    operation_id = "revokeWidgetToken",
    extensions(("x-session-only" = json!(true))),
    params(
        ("propertyId" = PropertyId, Path, description = "The home"),
        ("tokenId" = WidgetTokenId, Path, description = "The token"),
        TenantParam,
    ),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Revoked: the widget is signed out"),
        MalformedIdOrTenant,
        NoValidToken,
        NotHouseholdSession,
        (status = 404, description = "No such home or token among the caller's", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn revoke_widget_token(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath((property, token_id)): ApiPath<(PropertyId, WidgetTokenId)>,
    ApiQuery(query): ApiQuery<TenantParam>,
) -> Result<StatusCode, ApiError> {
    widgets::revoke(&state, &caller, query.tenant_id, property, token_id).await?;
    Ok(StatusCode::NO_CONTENT)
}
