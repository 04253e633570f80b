//! The household authentication group (spec part A, under /v1/auth): sign-in,
//! refresh-token rotation, the Me response and password reset by mail (the
//! asking and the reset itself, shared with the developers' twins); and the
//! invitee's side of invitations (`GET /auth/invitations/{token}`,
//! `POST …/accept`), whose code is the people group's
//! ([`super::people::invitations`]).

use crate::routing::{Operations, operations};
use alyt_domain::access::{Claims, HouseholdRole, Persona, Principal, SessionKind};
use alyt_domain::ids::{ClientId, PropertyId, TenantId};
use alyt_domain::membership::GrantStatus;
use alyt_domain::password::check_password;
use alyt_domain::presence::NEEDS_NETWORK;
use alyt_mail::reset::ResetMails;
use alyt_store::repo::identity::{Sessions, Users, email_key};
use alyt_store::repo::limits::Limits;
use alyt_store::repo::resets::{ResetRequests, ResetSide};
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
use crate::conventions::responses::{NoEmail, NoHouseholdSession, TooManyFailedAttempts};
use crate::{ApiError, AppState, Client};

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
        NoHouseholdSession,
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
        NoHouseholdSession,
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

/// Shared by the household and developer forgot-password operations: records
/// that `side` asked for a reset of `email`'s account, within the address's
/// mail budget.
pub async fn ask_for_reset(state: &AppState, email: &str, side: ResetSide) -> Result<(), ApiError> {
    // The request never tells a known address from an unknown one, by its
    // answer or by its work: for any address it reads the email guard, counts
    // the address's reset mails (10 per 15 minutes, whichever side asked) and
    // records a reset request naming the account or none: three store calls
    // (get, update, put), no mail. The link is issued and mailed after the
    // response by ResetMails::deliver: locally by a task of this process,
    // started here for every request alike; hosted by the sweeps function
    // every 2 s (a Lambda is frozen once it has answered, so work left
    // running after the response would not be done).
    let email = email_key(email);
    if email.is_empty() {
        return Err(ApiError::validation("email", "email must not be empty"));
    }
    let account = Users(&*state.store).id_by_email(&email).await?;
    // Bound the mails one address receives (silently: the answer never changes).
    if within_mail_budget(state, &format!("reset-mail:{email}")).await? {
        ResetRequests(&*state.store)
            .enqueue(side, account, state.clock.unix_seconds())
            .await?;
        if state.deliver_after_response {
            let mails = reset_mails(state);
            tokio::spawn(async move {
                if let Err(e) = mails.deliver().await {
                    tracing::warn!(error = %e, "reset mails wait for the next pass");
                }
            });
        }
    }
    Ok(())
}

/// The reset mails of the API's own process (the local platform delivers
/// them after the response; hosted, the sweeps function builds its own).
pub fn reset_mails(state: &AppState) -> ResetMails {
    ResetMails {
        store: state.store.clone(),
        clock: state.clock.clone(),
        mailer: state.mailer.clone(),
        public_url: state.public_url.clone(),
    }
}

/// Reset mails one address may get in [`RESET_MAIL_WINDOW_SECONDS`].
pub const RESET_MAILS: i64 = 10;
pub const RESET_MAIL_WINDOW_SECONDS: i64 = 15 * 60;

/// Counts one reset mail for `subject` and says whether it is within the
/// budget (one update that answers the new count, so parallel requests
/// cannot all pass).
async fn within_mail_budget(state: &AppState, subject: &str) -> Result<bool, ApiError> {
    let now = state.clock.unix_seconds();
    let window = now - now.rem_euclid(RESET_MAIL_WINDOW_SECONDS);
    let sent = Limits(&*state.store)
        .add_in_window(
            &sha256_hex(subject),
            window,
            1,
            window + 2 * RESET_MAIL_WINDOW_SECONDS,
        )
        .await?;
    Ok(sent <= RESET_MAILS)
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

#[cfg(test)]
mod tests {
    use super::*;
    use alyt_domain::ManualClock;
    use alyt_store::counting::CountingStore;
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
