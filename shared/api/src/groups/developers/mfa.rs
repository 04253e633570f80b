//! TOTP for developer accounts (RFC 6238: HMAC-SHA1, 6 digits, 30 s steps, one
//! step of skew). Setup stores a pending secret; enable proves a code from it;
//! from then on sign-in needs a code, and disable needs a fresh one. A code is
//! accepted once: the last accepted step is stored with a conditional write.

use crate::routing::{Operations, operations};
use alyt_app::ErrorKind;
use alyt_store::repo::developers::Developers;
use alyt_store::repo::identity::{MfaRecord, UserRecord, Users};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::session::{Body, SignedIn, active_developer, developer_session};
use crate::auth::{Caller, totp};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{
    BadCode, CalledWithKey, NoDeveloperSession, TooManyWrongCodes,
};
use crate::{ApiError, AppState, Client};

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(mfa_setup))
        .merge(operations!(mfa_enable))
        .merge(operations!(mfa_disable))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MfaSetup {
    /// The shared secret, base32 (for typing into an authenticator app).
    pub secret: String,
    /// The same secret as an `otpauth://totp/...` URI (for a QR code).
    pub otpauth_uri: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MfaCodeRequest {
    /// The current 6-digit code of the authenticator app.
    #[schema(pattern = "^[0-9]{6}$")]
    pub code: String,
}

fn six_digits(code: &str) -> Result<(), ApiError> {
    if code.len() == 6 && code.bytes().all(|b| b.is_ascii_digit()) {
        Ok(())
    } else {
        Err(ApiError::validation("code", "code must be 6 digits"))
    }
}

async fn signed_in_user(
    state: &AppState,
    caller: &Caller,
) -> Result<(SignedIn, UserRecord), ApiError> {
    let me = developer_session(caller)?;
    active_developer(state, &me).await?;
    let user = Users(&*state.store)
        .get(me.user)
        .await?
        .ok_or_else(|| ApiError::unauthorized("the account no longer exists"))?;
    Ok((me, user))
}

/// Checks `code` against `secret` and spends its step. A wrong or reused code
/// is a 400 on `code` here (the caller is signed in; the session is fine);
/// attempts count towards the TOTP limit of the account and address (then 429).
async fn prove(
    state: &AppState,
    user: &UserRecord,
    secret: &str,
    code: &str,
    client: Option<std::net::IpAddr>,
) -> Result<(), ApiError> {
    six_digits(code)?;
    totp::verify(state, user, secret, code, client)
        .await
        .map_err(|e| match e.kind {
            ErrorKind::Unauthorized | ErrorKind::Invalid | ErrorKind::BadRequest => {
                ApiError::validation(
                    "code",
                    "the code is wrong or was already used; wait for the next one",
                )
            }
            _ => e.into(),
        })
}

fn enabled(user: &UserRecord) -> Option<&MfaRecord> {
    user.mfa.as_ref().filter(|m| m.enabled_at.is_some())
}

/// Starts enrolling TOTP: a new secret, pending until a code from it is proved
/// with mfa/enable. Running it again replaces a pending secret.
#[utoipa::path(
    post,
    path = "/v1/developers/auth/mfa/setup",
    tag = "developers",
    operation_id = "developerMfaSetup",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The new secret (pending until enabled)", body = MfaSetup),
        NoDeveloperSession,
        CalledWithKey,
        (status = 409, description = "MFA is already on (disable it first)", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn mfa_setup(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<MfaSetup>, ApiError> {
    let (me, user) = signed_in_user(&state, &caller).await?;
    if enabled(&user).is_some() {
        return Err(ApiError::conflict(
            "MFA is already on; disable it before setting up a new secret",
        ));
    }
    let secret = totp::new_secret();
    let otpauth_uri = totp::otpauth_uri(&secret, &user.email)
        .ok_or_else(|| ApiError::internal("a fresh TOTP secret did not encode"))?;
    let pending = MfaRecord {
        secret_base32: secret.clone(),
        enabled_at: None,
    };
    Developers(&*state.store)
        .set_mfa(me.user, me.developer, Some(&pending))
        .await?;
    Ok(Json(MfaSetup {
        secret,
        otpauth_uri,
    }))
}

/// Turns MFA on by proving a code from the pending secret. From then on
/// sign-in needs `totp`.
#[utoipa::path(
    post,
    path = "/v1/developers/auth/mfa/enable",
    tag = "developers",
    operation_id = "developerMfaEnable",
    security(("bearer" = [])),
    request_body = MfaCodeRequest,
    responses(
        (status = 204, description = "MFA is on"),
        BadCode,
        NoDeveloperSession,
        CalledWithKey,
        (status = 409, description = "No pending secret (run setup), or MFA is already on", body = Problem, content_type = "application/problem+json"),
        TooManyWrongCodes,
    )
)]
pub async fn mfa_enable(
    State(state): State<AppState>,
    caller: Caller,
    Client(client): Client,
    Body(request): Body<MfaCodeRequest>,
) -> Result<StatusCode, ApiError> {
    six_digits(&request.code)?;
    let (me, user) = signed_in_user(&state, &caller).await?;
    let pending = match &user.mfa {
        Some(m) if m.enabled_at.is_some() => {
            return Err(ApiError::conflict("MFA is already on"));
        }
        Some(m) => m.clone(),
        None => {
            return Err(ApiError::conflict(
                "there is no pending secret; run mfa/setup first",
            ));
        }
    };
    prove(&state, &user, &pending.secret_base32, &request.code, client).await?;
    let on = MfaRecord {
        enabled_at: Some(state.clock.now()),
        ..pending
    };
    Developers(&*state.store)
        .set_mfa(me.user, me.developer, Some(&on))
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Turns MFA off; needs a fresh code from the enabled secret.
#[utoipa::path(
    post,
    path = "/v1/developers/auth/mfa/disable",
    tag = "developers",
    operation_id = "developerMfaDisable",
    security(("bearer" = [])),
    request_body = MfaCodeRequest,
    responses(
        (status = 204, description = "MFA is off"),
        BadCode,
        NoDeveloperSession,
        CalledWithKey,
        (status = 409, description = "MFA is not on", body = Problem, content_type = "application/problem+json"),
        TooManyWrongCodes,
    )
)]
pub async fn mfa_disable(
    State(state): State<AppState>,
    caller: Caller,
    Client(client): Client,
    Body(request): Body<MfaCodeRequest>,
) -> Result<StatusCode, ApiError> {
    six_digits(&request.code)?;
    let (me, user) = signed_in_user(&state, &caller).await?;
    let Some(mfa) = enabled(&user).cloned() else {
        return Err(ApiError::conflict("MFA is not on"));
    };
    prove(&state, &user, &mfa.secret_base32, &request.code, client).await?;
    Developers(&*state.store)
        .set_mfa(me.user, me.developer, None)
        .await?;
    Ok(StatusCode::NO_CONTENT)
}
