//! TOTP for developer accounts: setup, enable and disable
//! ([`alyt_app::developers::mfa`] holds the rules).

use crate::routing::{Operations, operations};
use alyt_app::developers::mfa::{self, MfaSetup};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa::ToSchema;

use super::session::Body;
use crate::auth::Caller;
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

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MfaCodeRequest {
    /// The current 6-digit code of the authenticator app.
    #[schema(pattern = "^[0-9]{6}$")]
    pub code: String,
}

/// Starts enrolling TOTP: a new secret, pending until a code from it is proved
/// with mfa/enable. Running it again replaces a pending secret.
#[utoipa::path(
    post,
    path = "/v1/developers/auth/mfa/setup",
    tag = "developers",
    operation_id = "developerMfaSetup",
    extensions(("x-session-only" = json!(true))),
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
    Ok(Json(mfa::setup(&state, &caller).await?))
}

/// Turns MFA on by proving a code from the pending secret. From then on
/// sign-in needs `totp`.
#[utoipa::path(
    post,
    path = "/v1/developers/auth/mfa/enable",
    tag = "developers",
    operation_id = "developerMfaEnable",
    extensions(("x-session-only" = json!(true))),
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
    mfa::enable(&state, &caller, &request.code, client).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Turns MFA off; needs a fresh code from the enabled secret.
#[utoipa::path(
    post,
    path = "/v1/developers/auth/mfa/disable",
    tag = "developers",
    operation_id = "developerMfaDisable",
    extensions(("x-session-only" = json!(true))),
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
    mfa::disable(&state, &caller, &request.code, client).await?;
    Ok(StatusCode::NO_CONTENT)
}
