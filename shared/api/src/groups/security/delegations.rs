//! A TV's control of its home's security (Authentication 9: "a TV needs
//! explicit current security delegation"). A TV is a widget token minted
//! with `surface: tv`; like every widget it has no home-security access by
//! itself. Its person (who controls the home's security) delegates control
//! to it until a time (at most 30 days); it holds only while that person
//! still controls the home's security, and is checked on every use. A phone
//! widget is never delegated.
//!
//! * `PUT /v1/home-security/{propertyId}/delegations/{tokenId}` `{ tenantId,
//!   until }`: the token's person.
//! * `DELETE /v1/home-security/{propertyId}/delegations/{tokenId}?tenantId`:
//!   the token's person, or an owner.

use alyt_domain::ids::{PropertyId, TenantId, WidgetTokenId};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::auth::Caller;
use crate::conventions::extract::{ApiJson, ApiPath, ApiQuery, PathText};
use crate::conventions::problem::{NoValidToken, Problem};
use crate::conventions::responses::{MalformedId, NoSuchHome};
use crate::groups::devices::TenantParam;
use crate::routing::{Operations, operations};
use crate::{ApiError, AppState};
use alyt_app::security::delegations;

pub fn routes() -> Operations {
    operations!(delegate_security, revoke_security_delegation)
}

fn token_id(text: &str) -> Result<WidgetTokenId, ApiError> {
    text.parse::<Uuid>()
        .map(WidgetTokenId)
        .map_err(|_| ApiError::validation("tokenId", "tokenId must be a UUID"))
}

/// A delegation.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DelegationBody {
    #[schema(value_type = String)]
    pub tenant_id: TenantId,
    /// Until when the TV controls the home's security (at most 30 days
    /// ahead).
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub until: OffsetDateTime,
}

/// A TV's delegation as stored.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DelegationView {
    #[schema(value_type = String)]
    pub token_id: Uuid,
    #[schema(value_type = String)]
    pub user_id: Uuid,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub until: OffsetDateTime,
}

/// Gives one of the caller's TVs control of the home's security.
#[utoipa::path(
    put,
    path = "/v1/home-security/{propertyId}/delegations/{tokenId}",
    tag = "security",
    operation_id = "delegateHomeSecurity",
    extensions(("x-session-only" = json!(true))),
    params(
        ("propertyId" = PropertyId, Path, description = "The home"),
        ("tokenId" = String, Path, description = "The TV's widget token"),
    ),
    request_body = DelegationBody,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The delegation", body = DelegationView),
        (status = 400, description = "A field is wrong (named): until in the past or more than 30 days ahead, a phone widget (never delegated)", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        (status = 403, description = "Not a person who controls the home's security", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such home, or no TV of the caller's for it", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn delegate_security(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath((property_id, PathText(token))): ApiPath<(PropertyId, PathText)>,
    ApiJson(body): ApiJson<DelegationBody>,
) -> Result<Json<DelegationView>, ApiError> {
    let token = token_id(&token)?;
    let delegation = delegations::delegate(
        &state,
        &caller,
        body.tenant_id,
        property_id,
        token,
        body.until,
    )
    .await?;
    Ok(Json(DelegationView {
        token_id: token.0,
        user_id: delegation.user_id,
        until: delegation.until,
    }))
}

/// Ends a TV's control of the home's security.
#[utoipa::path(
    delete,
    path = "/v1/home-security/{propertyId}/delegations/{tokenId}",
    tag = "security",
    operation_id = "revokeHomeSecurityDelegation",
    extensions(("x-session-only" = json!(true))),
    params(
        ("propertyId" = PropertyId, Path, description = "The home"),
        ("tokenId" = String, Path, description = "The TV's widget token"),
        TenantParam,
    ),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Ended (or there was none)"),
        MalformedId,
        NoValidToken,
        (status = 403, description = "Neither the TV's person nor an owner", body = Problem, content_type = "application/problem+json"),
        NoSuchHome,
    )
)]
pub async fn revoke_security_delegation(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath((property_id, PathText(token))): ApiPath<(PropertyId, PathText)>,
    ApiQuery(query): ApiQuery<TenantParam>,
) -> Result<StatusCode, ApiError> {
    let token = token_id(&token)?;
    delegations::revoke(&state, &caller, query.tenant_id, property_id, token).await?;
    Ok(StatusCode::NO_CONTENT)
}
