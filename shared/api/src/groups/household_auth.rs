//! The household authentication group (under /v1/auth): sign-in,
//! refresh-token rotation, the Me response and password reset by mail (the
//! asking and the reset itself, shared with the developers' twins); and the
//! invitee's side of invitations (`GET /auth/invitations/{token}`,
//! `POST …/accept`), whose code is the people group's
//! ([`super::people::invitations`]). The use cases are
//! [`alyt_app::auth::account`]'s.

use crate::routing::{Operations, operations};
use alyt_app::auth::account;
use alyt_domain::access::SessionKind;
use alyt_store::repo::resets::ResetSide;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::auth::Caller;
use crate::auth::sessions::{self, TokenPair};
use crate::conventions::extract::ApiJson;
use crate::conventions::problem::Problem;
use crate::conventions::responses::{NoEmail, NoHouseholdSession, TooManyFailedAttempts};
use crate::{ApiError, AppState, Client};

pub use alyt_app::auth::account::{
    MeHome, MeResponse, Preferences, RESET_MAIL_WINDOW_SECONDS, RESET_MAILS, ask_for_reset,
    dead_link, reset_mails, reset_with_token,
};
pub use alyt_mail::reset::ResetPayload;

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(login))
        .merge(operations!(refresh))
        .merge(operations!(me))
        .merge(operations!(logout))
        .merge(operations!(forgot_password))
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
        TooManyFailedAttempts,
    )
)]
pub async fn login(
    State(state): State<AppState>,
    Client(client): Client,
    ApiJson(request): ApiJson<LoginRequest>,
) -> Result<Json<TokenPair>, ApiError> {
    let pair = account::sign_in(
        &state,
        &*state.tokens,
        &request.email,
        request.password,
        request.totp.as_deref(),
        client,
    )
    .await?;
    Ok(Json(pair))
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

/// Signs this household session out: its refresh token family is revoked,
/// so neither the refresh token nor an access token of the session works
/// any more (other sessions of the person stay signed in).
#[utoipa::path(
    post,
    path = "/v1/auth/logout",
    tag = "auth",
    operation_id = "logout",
    extensions(("x-session-only" = json!(true))),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Signed out"),
        NoHouseholdSession,
        (status = 403, description = "Not a household session (a developer's signs out at /v1/developers/auth/logout; a key or a widget has no session)", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn logout(
    State(state): State<AppState>,
    Caller(caller): Caller,
) -> Result<StatusCode, ApiError> {
    account::sign_out(&state, &caller).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The signed-in person: claims, landing console, preferences and homes.
#[utoipa::path(
    get,
    path = "/v1/auth/me",
    tag = "auth",
    operation_id = "getMe",
    extensions(("x-session-only" = json!(true))),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The signed-in person", body = MeResponse),
        NoHouseholdSession,
    )
)]
pub async fn me(
    State(state): State<AppState>,
    Caller(caller): Caller,
) -> Result<Json<MeResponse>, ApiError> {
    Ok(Json(account::me(&state, &caller).await?))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ForgotPasswordRequest {
    pub email: String,
}

/// Mails a password-reset link (valid one hour, once) when the address has
/// an account. The answer is the same either way.
#[utoipa::path(
    post,
    path = "/v1/auth/forgot-password",
    tag = "auth",
    operation_id = "forgotPassword",
    request_body = ForgotPasswordRequest,
    responses(
        (status = 202, description = "If the address has an account, a reset link is on its way"),
        NoEmail,
    )
)]
pub async fn forgot_password(
    State(state): State<AppState>,
    ApiJson(request): ApiJson<ForgotPasswordRequest>,
) -> Result<StatusCode, ApiError> {
    ask_for_reset(&state, &request.email, ResetSide::Household).await?;
    Ok(StatusCode::ACCEPTED)
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResetPasswordRequest {
    /// The token from the reset link (at least 16 characters).
    #[schema(min_length = 16)]
    pub token: String,
    pub password: String,
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

#[cfg(test)]
mod tests {
    use super::*;
    use alyt_domain::ManualClock;
    use alyt_store::counting::CountingStore;
    use alyt_store::repo::resets::ResetRequests;
    use alyt_store::sqlite::SqliteStore;
    use std::sync::Arc;

    /// A known and an unknown address cost the same store calls on either
    /// side, and the request sends no mail (it leaves after the response).
    #[tokio::test]
    async fn forgot_password_does_the_same_work_for_known_and_unknown_addresses() {
        let clock = Arc::new(ManualClock::new(
            time::macros::datetime!(2026-01-01 0:00 UTC),
        ));
        let store = Arc::new(CountingStore::new(
            SqliteStore::in_memory(clock.clone()).unwrap(),
        ));
        let state = AppState::build(
            crate::Adapters {
                store: store.clone(),
                clock,
                mailer: Arc::new(crate::ports::NoMailer),
                bot_check: Arc::new(crate::ports::NoBotCheck),
                publisher: Arc::new(alyt_device::NoPublisher),
                credentials: Arc::new(crate::ports::PasswordCredentials),
            },
            crate::Settings {
                rate_limit: Default::default(),
                public_url: "http://127.0.0.1/v1".into(),
                ..Default::default()
            },
        )
        .await
        .unwrap();
        crate::bootstrap::ensure_first_owner(
            &state,
            "owner@alyt.local",
            Some("plum tractor season 42".into()),
            crate::bootstrap::DemoHome::Empty,
        )
        .await
        .unwrap();
        store.take();
        let household = |email: &str| {
            let request = ForgotPasswordRequest {
                email: email.to_owned(),
            };
            forgot_password(State(state.clone()), ApiJson(request))
        };
        let mut work = Vec::new();
        for email in ["Owner@alyt.local", "nobody@example.com"] {
            assert_eq!(household(email).await.unwrap(), StatusCode::ACCEPTED);
            work.push(store.take());
            ask_for_reset(&state, email, ResetSide::Developer)
                .await
                .unwrap();
            work.push(store.take());
        }
        let expected: std::collections::BTreeMap<_, _> = [("get", 1), ("put", 1), ("update", 1)]
            .into_iter()
            .collect();
        for calls in work {
            assert_eq!(calls, expected);
        }
        let pending = ResetRequests(&*state.store).pending(10).await.unwrap();
        let sides: Vec<_> = pending.iter().map(|r| r.side).collect();
        assert_eq!(
            sides,
            [
                ResetSide::Household,
                ResetSide::Developer,
                ResetSide::Household,
                ResetSide::Developer
            ]
        );
    }
}
