//! The household authentication group (spec part A, under /v1/auth): sign-in,
//! refresh-token rotation, the Me response and password reset; and the
//! invitee's side of invitations (`GET /auth/invitations/{token}`,
//! `POST …/accept`), whose code is the people group's
//! ([`super::people::invitations`]).

use crate::routing::{Operations, operations};
use alyt_domain::access::{Claims, HouseholdRole, Persona, Principal, SessionKind};
use alyt_domain::ids::{ClientId, PropertyId, TenantId};
use alyt_domain::membership::GrantStatus;
use alyt_domain::password::check_password;
use alyt_domain::presence::NEEDS_NETWORK;
use alyt_store::repo::identity::{Sessions, Users};
use alyt_store::repo::tenancy::Tenancy;
use alyt_store::repo::tokens::{OneTimeTokens, Purpose};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::auth::secrets::{hash_password_blocking, sha256_hex};
use crate::auth::sessions::{self, TokenPair};
use crate::auth::{Caller, attempts, credentials};
use crate::conventions::extract::ApiJson;
use crate::conventions::problem::Problem;
use crate::{ApiError, AppState, Client};

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(login))
        .merge(operations!(refresh))
        .merge(operations!(me))
        .merge(operations!(logout))
        .merge(operations!(reset_password))
        .merge(super::people::invitations::public_routes())
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LoginRequest {
    pub email: String,
    pub password: String,
    /// The current TOTP code, for accounts with MFA on.
    #[serde(default)]
    pub totp: Option<String>,
}

/// Signs a person in. An unknown email and a wrong password get the same answer
/// in about the same time.
#[utoipa::path(
    post,
    path = "/v1/auth/login",
    tag = "auth",
    operation_id = "login",
    request_body = LoginRequest,
    responses(
        (status = 200, description = "Signed in", body = TokenPair),
        (status = 401, description = "Wrong email or password, or a TOTP code is needed", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many failed attempts", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn login(
    State(state): State<AppState>,
    Client(client): Client,
    ApiJson(request): ApiJson<LoginRequest>,
) -> Result<Json<TokenPair>, ApiError> {
    let (user, attempt) =
        credentials::check(&state, "login", &request.email, request.password, client).await?;
    attempt.succeeded(&state).await?;
    if user.mfa.as_ref().is_some_and(|m| m.enabled_at.is_some()) {
        crate::auth::totp::require_code(&state, &user, request.totp.as_deref(), client).await?;
    }
    Ok(Json(
        sessions::start(&state, &user, SessionKind::Household, client).await?,
    ))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RefreshRequest {
    pub refresh_token: String,
}

/// Rotates the refresh token. Presenting a token that was already rotated
/// revokes the whole sign-in (and its access tokens).
#[utoipa::path(
    post,
    path = "/v1/auth/refresh",
    tag = "auth",
    operation_id = "refresh",
    request_body = RefreshRequest,
    responses(
        (status = 200, description = "A new token pair", body = TokenPair),
        (status = 401, description = "Unknown, rotated or revoked refresh token", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn refresh(
    State(state): State<AppState>,
    Client(client): Client,
    ApiJson(request): ApiJson<RefreshRequest>,
) -> Result<Json<TokenPair>, ApiError> {
    Ok(Json(
        sessions::refresh(
            &state,
            &request.refresh_token,
            SessionKind::Household,
            client,
        )
        .await?,
    ))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Preferences {
    /// 'metric' or 'imperial'; null when the person has not chosen.
    #[schema(required = true)]
    pub units: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MeHome {
    pub client_id: ClientId,
    pub tenant_id: TenantId,
    #[schema(required = true)]
    pub property_id: Option<PropertyId>,
    pub role: HouseholdRole,
    /// End of a guest's stay.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    #[schema(required = true)]
    pub until: Option<OffsetDateTime>,
    /// `active`, `upcoming`, `ended`, or `needs-network` when the network
    /// condition was not met at the last check.
    pub status: GrantStatus,
    /// Why the home is not in the claims, for `needs-network`; null
    /// otherwise.
    #[schema(required = true)]
    pub message: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MeResponse {
    pub claims: Claims,
    pub persona: Persona,
    pub preferences: Preferences,
    /// One entry per grant the person holds, open or not.
    pub homes: Vec<MeHome>,
}

/// Signs this household session out: its refresh token family is revoked,
/// so neither the refresh token nor an access token of the session works
/// any more (other sessions of the person stay signed in).
#[utoipa::path(
    post,
    path = "/v1/auth/logout",
    tag = "auth",
    operation_id = "logout",
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Signed out"),
        (status = 401, description = "No valid household session", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not a household session (a developer's signs out at /v1/developers/auth/logout; a key or a widget has no session)", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn logout(
    State(state): State<AppState>,
    Caller(caller): Caller,
) -> Result<StatusCode, ApiError> {
    let Principal::Person {
        kind: SessionKind::Household,
        session,
        ..
    } = caller
    else {
        return Err(ApiError::forbidden(
            "only a household session signs out here (developers: /v1/developers/auth/logout)",
        ));
    };
    Sessions(&*state.store).revoke(session).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The signed-in person: claims, landing console, preferences and homes.
#[utoipa::path(
    get,
    path = "/v1/auth/me",
    tag = "auth",
    operation_id = "getMe",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The signed-in person", body = MeResponse),
        (status = 401, description = "No valid household session", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn me(
    State(state): State<AppState>,
    Caller(caller): Caller,
) -> Result<Json<MeResponse>, ApiError> {
    let Principal::Person {
        claims,
        kind: SessionKind::Household,
        ..
    } = caller
    else {
        return Err(ApiError::unauthorized(
            "this operation needs a household session (sign in with /v1/auth/login)",
        ));
    };
    Ok(Json(me_of(&state, claims).await?))
}

/// The signed-in person: their claims, persona, preferences and the homes
/// they hold (each grant with its status now).
async fn me_of(state: &AppState, claims: Claims) -> Result<MeResponse, ApiError> {
    let user = Users(&*state.store)
        .get(claims.sub)
        .await?
        .ok_or_else(|| ApiError::unauthorized("the account no longer exists"))?;
    let now = state.clock.now();
    let homes = Tenancy(&*state.store)
        .grants_of(user.id)
        .await?
        .into_iter()
        .map(|g| {
            let status = GrantStatus::at(g.starts_at, g.ends_at, now);
            let unmet = g.network.as_ref().is_some_and(|n| n.met == Some(false));
            let (status, message) = if status == GrantStatus::Active && unmet {
                (GrantStatus::NeedsNetwork, Some(NEEDS_NETWORK.to_owned()))
            } else {
                (status, None)
            };
            MeHome {
                client_id: g.client_id,
                tenant_id: g.tenant_id,
                property_id: g.property_id,
                role: g.role,
                until: g.ends_at,
                status,
                message,
            }
        })
        .collect();
    Ok(MeResponse {
        persona: claims.persona(),
        claims,
        preferences: Preferences { units: user.units },
        homes,
    })
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResetPasswordRequest {
    /// The token from the reset link (at least 16 characters).
    #[schema(min_length = 16)]
    pub token: String,
    pub password: String,
}

/// The one-time reset payload.
pub use alyt_mail::reset::ResetPayload;

/// The answer for every dead link: unknown, spent or expired look the same.
pub fn dead_link() -> ApiError {
    ApiError::gone("this link is no longer valid; ask for a new one")
}

/// Sets a new password with a reset token (valid once); signs the person out
/// everywhere.
#[utoipa::path(
    post,
    path = "/v1/auth/reset-password",
    tag = "auth",
    operation_id = "resetPassword",
    request_body = ResetPasswordRequest,
    responses(
        (status = 204, description = "Password changed; every session signed out"),
        (status = 400, description = "Token too short or password refused by the policy", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "Unknown, spent or expired token", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn reset_password(
    State(state): State<AppState>,
    ApiJson(request): ApiJson<ResetPasswordRequest>,
) -> Result<StatusCode, ApiError> {
    reset_with_token(&state, &request.token, request.password).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Shared by the household and developer reset operations. A completed reset
/// starts the account's failed-attempt counters over ([`attempts::restart`]);
/// the link itself is never counted by them.
pub async fn reset_with_token(
    state: &AppState,
    token: &str,
    password: String,
) -> Result<(), ApiError> {
    if token.chars().count() < 16 {
        return Err(ApiError::validation(
            "token",
            "the token has at least 16 characters",
        ));
    }
    // Check the password before spending the token, so a refused password can
    // be corrected with the same link.
    let tokens = OneTimeTokens(&*state.store);
    let hash = sha256_hex(token);
    let users = Users(&*state.store);
    let now = state.clock.unix_seconds();
    let payload: ResetPayload = tokens
        .peek(Purpose::ResetPassword, &hash, now)
        .await?
        .ok_or_else(dead_link)?;
    let user = users.get(payload.user_id).await?.ok_or_else(dead_link)?;
    check_password(&password, &user.email)
        .map_err(|rejected| ApiError::validation("password", rejected.to_string()))?;
    let spent: Option<ResetPayload> = tokens.consume(Purpose::ResetPassword, &hash, now).await?;
    if spent.is_none() {
        return Err(dead_link());
    }
    // The mailbox is proven: guesses against the old password, from however
    // many addresses, stop keeping the owner out.
    attempts::restart(state, &user.email).await?;
    let phc = hash_password_blocking(password).await;
    users.set_password(user.id, &phc).await?;
    Sessions(&*state.store).revoke_all_of(user.id).await?;
    Ok(())
}
