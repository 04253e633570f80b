//! Developer sign-up, email verification (with sandbox provisioning), sessions,
//! password changes and the developer's own record. MFA is in [`super::mfa`].
//!
//! Sign-up answers the same whether or not the address has an account, so it
//! cannot be used to find out who is registered: a new address gets a
//! verification link, a verified account gets a "you already have an account"
//! mail. A repeated sign-up of an address nobody verified yet replaces the
//! pending password and profile and sends a new link; each link is bound to the
//! password it was issued with, so only the newest link works (whoever signed up
//! first cannot make the owner of the address activate a password they chose).

use crate::routing::{Operations, operations};
use alyt_app::developers::account;
use alyt_store::repo::developers::{DeveloperRecord, DeveloperStatus, DeveloperType};
use alyt_store::repo::resets::ResetSide;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::{Extension, Json};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

use super::session::{Body, DeveloperSession, Params};
use crate::auth::{Caller, sessions};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{
    AccountSuspended, CalledWithKey, LinkSpent, NoDeveloperSession, NoEmail, NoToken,
    TooManyFailedAttempts,
};
use crate::groups::household_auth::{
    ForgotPasswordRequest, LoginRequest, RefreshRequest, ResetPasswordRequest, ask_for_reset,
    reset_with_token,
};
use crate::{ApiError, AppState, Client, ClientAddr};

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(sign_up))
        .merge(operations!(verify_email, verify_email_link))
        .merge(operations!(login))
        .merge(operations!(refresh))
        .merge(operations!(logout))
        .merge(operations!(change_password))
        .merge(operations!(forgot_password))
        .merge(operations!(reset_password))
        .merge(operations!(get_me))
}

pub use alyt_app::developers::account::VERIFY_EMAIL_SECONDS;
pub use alyt_mail::reset::RESET_PASSWORD_SECONDS;

// ---------------------------------------------------------------------------
// Sign-up

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SignUpRequest {
    /// The address the verification link goes to.
    #[schema(format = Email, max_length = 254)]
    pub email: String,
    /// 12 to 128 characters; not a common or trivial password and not containing
    /// the address.
    #[schema(min_length = 12, max_length = 128)]
    pub password: String,
    #[schema(min_length = 1, max_length = 80)]
    pub display_name: String,
    #[serde(rename = "type")]
    pub kind: DeveloperType,
    /// The bot-check response token (Cloudflare Turnstile). The local platform
    /// accepts Turnstile's test token `XXXX.DUMMY.TOKEN.XXXX`.
    pub bot_token: String,
    #[serde(default)]
    #[schema(max_length = 120)]
    pub organisation: Option<String>,
    /// An http(s) URL.
    #[serde(default)]
    #[schema(max_length = 2048)]
    pub website: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SignUpStatus {
    PendingEmail,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignUpAccepted {
    /// Always PENDING_EMAIL: the next step is the link in the mail.
    pub status: SignUpStatus,
}

/// Signs a developer up: checks the bot token, the address and the password
/// policy, and mails a verification link (valid 24 hours, once). The answer is
/// the same whether or not the address already has an account (that one gets a
/// mail saying so instead).
#[utoipa::path(
    post,
    path = "/v1/developers/auth/signup",
    tag = "developers",
    operation_id = "developerSignUp",
    request_body = SignUpRequest,
    responses(
        (status = 202, description = "Check your mail for the verification link", body = SignUpAccepted),
        (status = 400, description = "A field is wrong (named in `field`), or the bot check failed (`botToken`)", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "The mail could not be sent; sign up again to get a new link", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn sign_up(
    State(state): State<AppState>,
    client: Option<Extension<ClientAddr>>,
    Body(request): Body<SignUpRequest>,
) -> Result<(StatusCode, Json<SignUpAccepted>), ApiError> {
    let sign_up = account::SignUp {
        email: request.email,
        password: request.password,
        display_name: request.display_name,
        kind: request.kind,
        bot_token: request.bot_token,
        organisation: request.organisation,
        website: request.website,
    };
    let remote = client.map(|Extension(ClientAddr(ip))| ip);
    account::sign_up(&state, sign_up, remote).await?;
    Ok((
        StatusCode::ACCEPTED,
        Json(SignUpAccepted {
            status: SignUpStatus::PendingEmail,
        }),
    ))
}

// ---------------------------------------------------------------------------
// Email verification

#[derive(Deserialize, ToSchema, IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct VerifyEmailRequest {
    /// The token from the verification link.
    pub token: String,
}

/// Verifies the address with the token from the mailed link: the developer
/// becomes ACTIVE, the sandbox tenant is provisioned (once) and the answer is a
/// developer session. A link works once; unknown, spent and expired links all
/// get the same 410.
#[utoipa::path(
    post,
    path = "/v1/developers/auth/verify-email",
    tag = "developers",
    operation_id = "developerVerifyEmail",
    request_body = VerifyEmailRequest,
    responses(
        (status = 200, description = "Verified and signed in", body = DeveloperSession),
        NoToken,
        AccountSuspended,
        LinkSpent,
    )
)]
pub async fn verify_email(
    State(state): State<AppState>,
    Body(request): Body<VerifyEmailRequest>,
) -> Result<Json<DeveloperSession>, ApiError> {
    let pair = account::verify_email(&state, &*state.tokens, &request.token).await?;
    Ok(Json(pair.into()))
}

/// The link in the mail. A browser (`Accept: text/html`) is sent to the
/// console's page, which verifies when the person presses its button (a
/// mail scanner that fetches links verifies nothing, and nobody lands on
/// JSON); any other client is verified as by the POST.
#[utoipa::path(
    get,
    path = "/v1/developers/auth/verify-email",
    tag = "developers",
    operation_id = "developerVerifyEmailLink",
    params(VerifyEmailRequest),
    responses(
        (status = 200, description = "Verified and signed in", body = DeveloperSession),
        (status = 303, description = "A browser: `location` is the console's page for this link (`/#/developer/verify?token=...`), which verifies with the POST"),
        NoToken,
        AccountSuspended,
        LinkSpent,
    )
)]
pub async fn verify_email_link(
    State(state): State<AppState>,
    Params(request): Params<VerifyEmailRequest>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    // Only a token of the form the platform issues (URL-safe base64) is put
    // in a page address; anything else is answered as a dead link below.
    let issued_form = !request.token.is_empty()
        && request.token.len() <= 128
        && request
            .token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if wants_a_page(&headers) && issued_form {
        // The token rides in the fragment, which browsers never send on.
        let page = format!("/#/developer/verify?token={}", request.token);
        return Ok(Redirect::to(&page).into_response());
    }
    let pair = account::verify_email(&state, &*state.tokens, &request.token).await?;
    Ok(Json(DeveloperSession::from(pair)).into_response())
}

/// Whether the caller is a browser opening a page (it names HTML among what
/// it accepts); API clients send no `Accept` or ask for JSON.
fn wants_a_page(headers: &HeaderMap) -> bool {
    headers
        .get(axum::http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains("text/html"))
}

// ---------------------------------------------------------------------------
// Sessions

/// Signs a developer in. An unknown email and a wrong password get the same
/// answer in about the same time. Attempts are counted before they are
/// checked, per account and client address: ten at once, then one more after
/// 15 minutes, 30, 60, ... (429 with Retry-After meanwhile), so guesses from
/// one address never lock the owner out elsewhere. With MFA on, `totp` is
/// required.
#[utoipa::path(
    post,
    path = "/v1/developers/auth/login",
    tag = "developers",
    operation_id = "developerLogin",
    request_body = LoginRequest,
    responses(
        (status = 200, description = "Signed in", body = DeveloperSession),
        (status = 400, description = "A field is missing or malformed (a TOTP code is 6 digits)", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Wrong email or password; or a TOTP code is required (`field: totp`), wrong or already used", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "The address is not verified yet, or the account is suspended", body = Problem, content_type = "application/problem+json"),
        TooManyFailedAttempts,
    )
)]
pub async fn login(
    State(state): State<AppState>,
    Client(client): Client,
    Body(request): Body<LoginRequest>,
) -> Result<Json<DeveloperSession>, ApiError> {
    let pair = account::sign_in(
        &state,
        &*state.tokens,
        &request.email,
        request.password,
        request.totp.as_deref(),
        client,
    )
    .await?;
    Ok(Json(pair.into()))
}

/// Rotates the refresh token of a developer session. Presenting a token that
/// was already rotated revokes the whole session, its access tokens included.
#[utoipa::path(
    post,
    path = "/v1/developers/auth/refresh",
    tag = "developers",
    operation_id = "developerRefresh",
    request_body = RefreshRequest,
    responses(
        (status = 200, description = "A new token pair", body = DeveloperSession),
        (status = 400, description = "No refresh token", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Unknown, rotated, revoked or expired refresh token", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn refresh(
    State(state): State<AppState>,
    Body(request): Body<RefreshRequest>,
) -> Result<Json<DeveloperSession>, ApiError> {
    let pair = sessions::refresh(
        &state,
        &request.refresh_token,
        alyt_domain::access::SessionKind::Developer,
        None,
    )
    .await?;
    Ok(Json(pair.into()))
}

/// Signs this session out: its refresh token and access tokens stop working.
#[utoipa::path(
    post,
    path = "/v1/developers/auth/logout",
    tag = "developers",
    operation_id = "developerLogout",
    extensions(("x-session-only" = json!(true))),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Signed out"),
        NoDeveloperSession,
        CalledWithKey,
    )
)]
pub async fn logout(
    State(state): State<AppState>,
    Caller(caller): Caller,
) -> Result<StatusCode, ApiError> {
    account::sign_out(&state, &caller).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ChangePasswordRequest {
    pub current_password: String,
    /// Follows the password policy (see sign-up).
    #[schema(min_length = 12, max_length = 128)]
    pub new_password: String,
}

/// Changes the password: every session of the account is signed out and a
/// fresh one is returned.
#[utoipa::path(
    post,
    path = "/v1/developers/auth/change-password",
    tag = "developers",
    operation_id = "developerChangePassword",
    extensions(("x-session-only" = json!(true))),
    security(("bearer" = [])),
    request_body = ChangePasswordRequest,
    responses(
        (status = 200, description = "Changed; a new session (all others are signed out)", body = DeveloperSession),
        (status = 400, description = "The current password is wrong (`currentPassword`) or the new one is refused by the policy (`newPassword`)", body = Problem, content_type = "application/problem+json"),
        NoDeveloperSession,
        CalledWithKey,
        (status = 429, description = "Too many wrong current passwords", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn change_password(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Client(client): Client,
    Body(request): Body<ChangePasswordRequest>,
) -> Result<Json<DeveloperSession>, ApiError> {
    let pair = account::change_password(
        &state,
        &*state.tokens,
        &caller,
        request.current_password,
        request.new_password,
        client,
    )
    .await?;
    Ok(Json(pair.into()))
}

/// Mails a password-reset link (valid one hour, once) when the address belongs
/// to a developer account. The answer is the same either way.
#[utoipa::path(
    post,
    path = "/v1/developers/auth/forgot-password",
    tag = "developers",
    operation_id = "developerForgotPassword",
    request_body = ForgotPasswordRequest,
    responses(
        (status = 202, description = "If the address has an account, a reset link is on its way"),
        NoEmail,
    )
)]
pub async fn forgot_password(
    State(state): State<AppState>,
    Body(request): Body<ForgotPasswordRequest>,
) -> Result<StatusCode, ApiError> {
    ask_for_reset(&state, &request.email, ResetSide::Developer).await?;
    Ok(StatusCode::ACCEPTED)
}

/// Sets a new password with the token of a reset link (valid once); every
/// session of the account is signed out.
#[utoipa::path(
    post,
    path = "/v1/developers/auth/reset-password",
    tag = "developers",
    operation_id = "developerResetPassword",
    request_body = ResetPasswordRequest,
    responses(
        (status = 204, description = "Password changed; every session signed out"),
        (status = 400, description = "Token shorter than 16 characters, or the password is refused by the policy", body = Problem, content_type = "application/problem+json"),
        LinkSpent,
    )
)]
pub async fn reset_password(
    State(state): State<AppState>,
    Body(request): Body<ResetPasswordRequest>,
) -> Result<StatusCode, ApiError> {
    reset_with_token(&state, &request.token, request.password).await?;
    Ok(StatusCode::NO_CONTENT)
}

// ---------------------------------------------------------------------------
// The developer record

/// A developer account, as the spec's Developer object.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = Developer)]
pub struct DeveloperView {
    pub id: alyt_domain::ids::DeveloperId,
    pub user_id: alyt_domain::ids::UserId,
    pub email: String,
    #[serde(rename = "type")]
    pub kind: DeveloperType,
    pub display_name: String,
    #[schema(required = true)]
    pub organisation: Option<String>,
    #[schema(required = true)]
    pub website: Option<String>,
    pub status: DeveloperStatus,
    #[schema(required = true)]
    pub sandbox_tenant_id: Option<alyt_domain::ids::TenantId>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    #[schema(required = true)]
    pub verified_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    #[schema(required = true)]
    pub mfa_enabled_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
}

impl From<DeveloperRecord> for DeveloperView {
    fn from(d: DeveloperRecord) -> Self {
        Self {
            id: d.id,
            user_id: d.user_id,
            email: d.email,
            kind: d.kind,
            display_name: d.display_name,
            organisation: d.organisation,
            website: d.website,
            status: d.status,
            sandbox_tenant_id: d.sandbox_tenant_id,
            verified_at: d.verified_at,
            mfa_enabled_at: d.mfa_enabled_at,
            created_at: d.created_at,
        }
    }
}

/// The signed-in developer's account. Session only (keys get 403).
#[utoipa::path(
    get,
    path = "/v1/developers/me",
    tag = "developers",
    operation_id = "getDeveloperMe",
    extensions(("x-session-only" = json!(true))),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The developer account", body = DeveloperView),
        NoDeveloperSession,
        CalledWithKey,
    )
)]
pub async fn get_me(
    State(state): State<AppState>,
    Caller(caller): Caller,
) -> Result<Json<DeveloperView>, ApiError> {
    Ok(Json(account::me(&state, &caller).await?.into()))
}
