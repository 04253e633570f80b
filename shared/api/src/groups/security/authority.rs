//! Who runs a home's security (one authority per home): the
//! platform's built-in engine, or a dedicated security-system connector.
//!
//! `PUT /v1/home-security/{propertyId}/authority` `{ tenantId, authority:
//! builtin | connector, integrationId, reviewed }` (owners):
//! * **To a connector**: the built-in engine goes Off first (its alarm
//!   stops), its outputs are restored, and only then is the connector asked
//!   to take over (`v1/security/authority` active): two engines never run
//!   at once. When outputs are still to be restored the answer is 202 with
//!   `switchingTo` set; the output driver completes the hand-over once they
//!   are. A connector that refuses (not a security system) or does not
//!   answer leaves the home with the built-in engine, Off.
//! * **Back to the built-in engine**: only with `reviewed: true` (an
//!   explicit reviewed choice); the connector is told to stop first, and
//!   nothing changes when it cannot be told.

use alyt_domain::ids::{IntegrationId, PropertyId, TenantId};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa::ToSchema;

use super::SecurityStatus;
use crate::auth::Caller;
use crate::conventions::extract::{ApiJson, ApiPath};
use crate::conventions::problem::{NoValidToken, Problem};
use crate::conventions::responses::{FieldWrong, NotHouseholdOwner};
use crate::routing::{Operations, operations};
use crate::{ApiError, AppState};
use alyt_app::security::authority::{self, Choice};

pub fn routes() -> Operations {
    operations!(change_security_authority)
}

/// Who should run the home's security.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum AuthorityChoice {
    Builtin,
    Connector,
}

/// A change of authority.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AuthorityBody {
    #[schema(value_type = String)]
    pub tenant_id: TenantId,
    pub authority: AuthorityChoice,
    /// The security system's integration in this home (for `connector`).
    #[schema(value_type = Option<String>)]
    pub integration_id: Option<IntegrationId>,
    /// Back to the built-in engine needs an explicit reviewed choice.
    #[serde(default)]
    pub reviewed: bool,
}

/// Hands a home's security to a security-system connector, or back to the
/// built-in engine (owners).
#[utoipa::path(
    put,
    path = "/v1/home-security/{propertyId}/authority",
    tag = "security",
    operation_id = "changeHomeSecurityAuthority",
    extensions(("x-session-only" = json!(true))),
    params(("propertyId" = PropertyId, Path, description = "The home")),
    request_body = AuthorityBody,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The status under its new authority (or unchanged: it already had it)", body = SecurityStatus),
        (status = 202, description = "The built-in engine is Off; the hand-over completes once its outputs are restored (`switchingTo`)", body = SecurityStatus),
        FieldWrong,
        NoValidToken,
        NotHouseholdOwner,
        (status = 404, description = "No such home, or no such integration in it", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Refused with what to do: not reviewed, a hand-over under way, another connector runs the home, or the connector is not a security system", body = Problem, content_type = "application/problem+json"),
        (status = 502, description = "The connector could not be reached; nothing changed (or the home stays with the built-in engine, Off)", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn change_security_authority(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(property_id): ApiPath<PropertyId>,
    ApiJson(body): ApiJson<AuthorityBody>,
) -> Result<(StatusCode, Json<SecurityStatus>), ApiError> {
    let choice = match body.authority {
        AuthorityChoice::Connector => {
            let integration = body.integration_id.ok_or_else(|| {
                ApiError::validation("integrationId", "the security system's integration")
            })?;
            Choice::Connector(integration)
        }
        AuthorityChoice::Builtin if body.integration_id.is_some() => {
            return Err(ApiError::validation(
                "integrationId",
                "only for a connector",
            ));
        }
        AuthorityChoice::Builtin => Choice::BuiltIn {
            reviewed: body.reviewed,
        },
    };
    let (shown, switching) =
        authority::change(&state, &caller, body.tenant_id, property_id, choice).await?;
    let code = if switching {
        StatusCode::ACCEPTED
    } else {
        StatusCode::OK
    };
    Ok((code, Json(shown)))
}
