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
use alyt_domain::password::check_password;
use alyt_store::repo::CreateError;
use alyt_store::repo::developers::{DeveloperRecord, DeveloperStatus, DeveloperType, Developers};
use alyt_store::repo::identity::{Sessions, UserRecord, Users};
use alyt_store::repo::resets::ResetSide;
use alyt_store::repo::tokens::{OneTimeTokens, Purpose};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::{Extension, Json};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

use super::sandbox::{self, Verification};
use super::session::{self, Body, DeveloperSession, Params, developer_session};
use crate::auth::secrets::{
    hash_password_blocking, random_token, sha256_hex, verify_password_blocking,
};
use crate::auth::{Caller, attempts, credentials, sessions, totp};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{
    AccountSuspended, CalledWithKey, LinkSpent, NoDeveloperSession, NoEmail, NoToken,
    TooManyFailedAttempts,
};
use crate::conventions::text::{checked_email, optional_text, required_text};
use crate::groups::household_auth::{
    ForgotPasswordRequest, LoginRequest, RefreshRequest, ResetPasswordRequest, ask_for_reset,
    dead_link, reset_with_token,
};
use crate::ports::Email;
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

/// A verification link is valid for a day; a reset link for an hour.
pub const VERIFY_EMAIL_SECONDS: i64 = 24 * 3600;
pub use alyt_mail::reset::RESET_PASSWORD_SECONDS;
const DISPLAY_NAME_MAX: usize = 80;
const ORGANISATION_MAX: usize = 120;
const WEBSITE_MAX: usize = 2048;

// ---------------------------------------------------------------------------
// Validation

fn checked_website(value: Option<&str>) -> Result<Option<String>, ApiError> {
    let website = optional_text("website", value, WEBSITE_MAX)?;
    if let Some(w) = &website {
        let rest = w
            .strip_prefix("https://")
            .or_else(|| w.strip_prefix("http://"));
        if rest.is_none_or(|r| r.is_empty() || r.contains(char::is_whitespace)) {
            return Err(ApiError::validation(
                "website",
                "website must be an http(s) URL like https://example.com",
            ));
        }
    }
    Ok(website)
}

fn policy(field: &str, password: &str, email: &str) -> Result<(), ApiError> {
    check_password(password, email)
        .map_err(|rejected| ApiError::validation(field, rejected.to_string()))
}

async fn send(state: &AppState, email: Email) -> Result<(), ApiError> {
    state.mailer.send(email).await.map_err(|e| {
        tracing::warn!(error = %e, "mail could not be sent");
        ApiError::unavailable("the email could not be sent; try again shortly")
    })
}

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

/// What a verification link carries (stored with the token's hash).
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct VerifyPayload {
    developer_id: alyt_domain::ids::DeveloperId,
    user_id: alyt_domain::ids::UserId,
    /// SHA-256 of the password hash the link was issued with: a later sign-up of
    /// the same pending address kills the link.
    password_fingerprint: String,
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
    let sign_up = checked_sign_up(&request)?;
    // Last: a bot-check token is spent when checked, and a refused field above
    // should not cost the person a new challenge.
    let remote = client.map(|Extension(ClientAddr(ip))| ip);
    if !state.bot_check.verify(&request.bot_token, remote).await {
        return Err(ApiError::validation(
            "botToken",
            "the bot check failed; solve the challenge again",
        ));
    }
    register_developer(&state, sign_up, request.password).await?;
    Ok((
        StatusCode::ACCEPTED,
        Json(SignUpAccepted {
            status: SignUpStatus::PendingEmail,
        }),
    ))
}

/// A sign-up whose fields passed their checks (the password is checked
/// against the policy but kept apart, to be hashed).
struct CheckedSignUp {
    email: String,
    kind: DeveloperType,
    display_name: String,
    organisation: Option<String>,
    website: Option<String>,
}

fn checked_sign_up(request: &SignUpRequest) -> Result<CheckedSignUp, ApiError> {
    let email = checked_email(&request.email)?;
    let display_name = required_text("displayName", &request.display_name, DISPLAY_NAME_MAX)?;
    let organisation = optional_text(
        "organisation",
        request.organisation.as_deref(),
        ORGANISATION_MAX,
    )?;
    let website = checked_website(request.website.as_deref())?;
    policy("password", &request.password, &email)?;
    Ok(CheckedSignUp {
        email,
        kind: request.kind,
        display_name,
        organisation,
        website,
    })
}

/// Creates the pending developer and mails the verification link; an address
/// with an account gets either a fresh link (its sign-up is still pending) or
/// a mail saying it is registered. The same outcome either way, so the answer
/// tells nobody whether the address is known.
async fn register_developer(
    state: &AppState,
    sign_up: CheckedSignUp,
    password: String,
) -> Result<(), ApiError> {
    // Hashed either way, so a known address answers in the same time.
    let password_hash = hash_password_blocking(password).await;
    let CheckedSignUp {
        email,
        kind,
        display_name,
        organisation,
        website,
    } = sign_up;
    let now = state.clock.now();
    let developers = Developers(&*state.store);
    if let Some(existing) = Users(&*state.store).find_by_email(&email).await? {
        let pending = match existing.developer_id {
            Some(id) => developers
                .get(id)
                .await?
                .filter(|d| d.status == DeveloperStatus::PendingEmail),
            None => None,
        };
        match pending {
            // Nobody proved the address yet: this sign-up replaces the pending one.
            Some(pending) => {
                let developer = DeveloperRecord {
                    kind,
                    display_name,
                    organisation,
                    website,
                    ..pending
                };
                if developers
                    .replace_pending(existing.id, &password_hash, &developer)
                    .await?
                {
                    send_verification(state, &developer, &password_hash).await?;
                }
            }
            None => send(state, already_registered(state, &existing.email)).await?,
        }
        return Ok(());
    }

    let user = UserRecord {
        name: None,
        id: alyt_domain::ids::UserId::new(),
        email: email.clone(),
        password_hash: password_hash.clone(),
        email_verified_at: None,
        platform_role: None,
        tenants: Default::default(),
        developer_id: None,
        mfa: None,
        units: None,
        created_at: now,
    };
    let developer = DeveloperRecord {
        id: alyt_domain::ids::DeveloperId::new(),
        user_id: user.id,
        email,
        kind,
        display_name,
        organisation,
        website,
        status: DeveloperStatus::PendingEmail,
        sandbox_tenant_id: None,
        verified_at: None,
        mfa_enabled_at: None,
        created_at: now,
    };
    let user = UserRecord {
        name: None,
        developer_id: Some(developer.id),
        ..user
    };
    match developers.sign_up(&user, &developer).await {
        Ok(()) => send_verification(state, &developer, &password_hash).await,
        // A concurrent sign-up of the same address won; it sends its own mail.
        Err(CreateError::Taken(_)) => Ok(()),
        Err(CreateError::Store(e)) => Err(e.into()),
    }
}

async fn send_verification(
    state: &AppState,
    developer: &DeveloperRecord,
    password_hash: &str,
) -> Result<(), ApiError> {
    let token = random_token();
    let payload = VerifyPayload {
        developer_id: developer.id,
        user_id: developer.user_id,
        password_fingerprint: sha256_hex(password_hash),
    };
    OneTimeTokens(&*state.store)
        .issue(
            Purpose::VerifyEmail,
            &sha256_hex(&token),
            &payload,
            state.clock.unix_seconds() + VERIFY_EMAIL_SECONDS,
        )
        .await?;
    let link = format!(
        "{}/developers/auth/verify-email?token={token}",
        state.public_url
    );
    send(
        state,
        Email {
            to: developer.email.clone(),
            subject: "Verify your email address for Alyt developers".into(),
            text: format!(
                "Hello {name},\n\nconfirm your address to activate your Alyt developer account and your sandbox:\n\n{link}\n\nThe link works once, for 24 hours. If you did not sign up, ignore this message.\n",
                name = developer.display_name
            ),
            link: Some(link),
        },
    )
    .await
}

fn already_registered(state: &AppState, to: &str) -> Email {
    Email {
        to: to.to_owned(),
        subject: "You already have an Alyt account".into(),
        text: format!(
            "Someone (probably you) tried to sign up for Alyt developers with this address, which already has an account.\n\nSign in with your password, or if you forgot it, ask for a reset with POST {}/developers/auth/forgot-password.\n\nIf it was not you, ignore this message: nothing changed.\n",
            state.public_url
        ),
        link: None,
    }
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
    verify(&state, &request.token).await.map(Json)
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
    verify(&state, &request.token)
        .await
        .map(|session| Json(session).into_response())
}

/// Whether the caller is a browser opening a page (it names HTML among what
/// it accepts); API clients send no `Accept` or ask for JSON.
fn wants_a_page(headers: &HeaderMap) -> bool {
    headers
        .get(axum::http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains("text/html"))
}

async fn verify(state: &AppState, token: &str) -> Result<DeveloperSession, ApiError> {
    if token.is_empty() {
        return Err(ApiError::validation("token", "token must not be empty"));
    }
    let hash = sha256_hex(token);
    let tokens = OneTimeTokens(&*state.store);
    let now = state.clock.unix_seconds();
    let payload: VerifyPayload = tokens
        .peek(Purpose::VerifyEmail, &hash, now)
        .await?
        .ok_or_else(dead_link)?;
    let developer = Developers(&*state.store)
        .get(payload.developer_id)
        .await?
        .filter(|d| d.user_id == payload.user_id)
        .ok_or_else(dead_link)?;
    let user = Users(&*state.store)
        .get(payload.user_id)
        .await?
        .ok_or_else(dead_link)?;
    if sha256_hex(&user.password_hash) != payload.password_fingerprint {
        // A newer sign-up of this pending address replaced the password.
        return Err(dead_link().into());
    }
    if developer.status == DeveloperStatus::Suspended {
        return Err(suspended());
    }
    let (developer, user) =
        match sandbox::verify_and_provision(state, &hash, &developer, &user).await? {
            Verification::Verified { user, developer } => (*developer, *user),
            Verification::TokenDead => return Err(dead_link().into()),
            // Verified before (another link, or staff): spend this link all the same.
            Verification::AlreadyVerified => {
                let spent: Option<VerifyPayload> =
                    tokens.consume(Purpose::VerifyEmail, &hash, now).await?;
                if spent.is_none() {
                    return Err(dead_link().into());
                }
                sandbox::reload(state, &developer)
                    .await?
                    .ok_or_else(dead_link)?
            }
        };
    if developer.status != DeveloperStatus::Active {
        return Err(suspended());
    }
    session::start(state, &user).await
}

fn suspended() -> ApiError {
    alyt_app::developers::account::suspended().into()
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
    let checking = DeveloperLogin {
        state: &state,
        request,
        client,
    };
    let user = alyt_app::developers::account::sign_in(&state, &checking).await?;
    Ok(Json(session::start(&state, &user).await?))
}

/// The credential work of a developer's sign-in, the HTTP layer's: the
/// password check and its failed-attempt limiter, and the TOTP code.
struct DeveloperLogin<'a> {
    state: &'a AppState,
    request: LoginRequest,
    client: Option<std::net::IpAddr>,
}

#[async_trait::async_trait]
impl alyt_app::developers::account::Credentials for DeveloperLogin<'_> {
    type Error = ApiError;
    type Attempt = attempts::Attempt;

    async fn check(&self) -> Result<(UserRecord, attempts::Attempt), ApiError> {
        let (email, password) = (&self.request.email, self.request.password.clone());
        Ok(credentials::check(self.state, "dev-login", email, password, self.client).await?)
    }

    fn wrong_credentials(&self) -> ApiError {
        credentials::wrong_credentials().into()
    }

    async fn succeeded(&self, attempt: attempts::Attempt) -> Result<(), ApiError> {
        Ok(attempt.succeeded(self.state).await?)
    }

    async fn second_factor(&self, user: &UserRecord) -> Result<(), ApiError> {
        let code = self.request.totp.as_deref();
        Ok(totp::require_code(self.state, user, code, self.client).await?)
    }
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
    let me = developer_session(&caller)?;
    Sessions(&*state.store).revoke(me.session).await?;
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
    let me = developer_session(&caller)?;
    let users = Users(&*state.store);
    let user = users
        .get(me.user)
        .await?
        .ok_or_else(|| ApiError::unauthorized("the account no longer exists"))?;
    let attempt = attempts::begin(&state, "dev-change-password", &user.email, client).await?;
    if !verify_password_blocking(request.current_password, user.password_hash.clone()).await {
        return Err(ApiError::validation(
            "currentPassword",
            "the current password is wrong",
        ));
    }
    attempt.succeeded(&state).await?;
    policy("newPassword", &request.new_password, &user.email)?;
    let phc = hash_password_blocking(request.new_password).await;
    users.set_password(user.id, &phc).await?;
    Sessions(&*state.store).revoke_all_of(user.id).await?;
    let user = UserRecord {
        name: None,
        password_hash: phc,
        ..user
    };
    Ok(Json(session::start(&state, &user).await?))
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
    let me = developer_session(&caller)?;
    let developer = Developers(&*state.store)
        .get(me.developer)
        .await?
        .filter(|d| d.user_id == me.user)
        .ok_or_else(|| ApiError::unauthorized("the developer account no longer exists"))?;
    Ok(Json(developer.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn websites_are_http_urls() {
        assert_eq!(checked_website(None).unwrap(), None);
        assert_eq!(checked_website(Some("  ")).unwrap(), None);
        assert!(checked_website(Some("https://example.com")).is_ok());
        for bad in ["example.com", "https://", "ftp://x", "javascript:alert(1)"] {
            let e = checked_website(Some(bad)).unwrap_err();
            assert_eq!(e.field.as_deref(), Some("website"), "{bad}");
        }
    }
}
