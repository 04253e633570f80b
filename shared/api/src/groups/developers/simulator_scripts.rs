//! Simulation scripts of a sandbox (under /v1/developers/simulator/scripts):
//! written, listed, read and removed; who may as for virtual devices
//! ([`super::simulator`]). The use cases are
//! [`alyt_app::developers::scripts`]'s; the script's rules are
//! [`alyt_simulator::script`]'s.

use alyt_domain::ids::TenantId;
use alyt_store::repo::simulator::ScriptRecord;
use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::simulator::VirtualDeviceTenant;
use crate::auth::Caller;
use crate::conventions::extract::{ApiJson, ApiQuery};
use crate::conventions::list::{ListResponse, TenantPage, listed};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{BadTenantPage, MayNotSimulate, NoSuchTenant, NoValidToken};
use crate::routing::{Operations, operations};
use crate::{ApiError, AppState};
use alyt_app::developers::scripts;

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(list_scripts, create_script))
        .merge(operations!(get_script, delete_script))
}

/// A stored script.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SimulationScript {
    pub id: uuid::Uuid,
    pub name: String,
    /// The script as written (see `CreateScriptRequest.script`).
    #[schema(value_type = Object)]
    pub script: serde_json::Value,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
}

impl From<ScriptRecord> for SimulationScript {
    fn from(r: ScriptRecord) -> Self {
        Self {
            id: r.id,
            name: r.name,
            script: r.script,
            created_at: r.created_at,
        }
    }
}

/// The body of `POST /v1/developers/simulator/scripts`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateScriptRequest {
    /// The developer's sandbox tenant.
    pub tenant_id: TenantId,
    /// `{ name, roles: [{ name, profile }] (1 to 20; profile LIGHT,
    /// SENSOR, ...), steps: [{ atMs, role, action: scenario|telemetry|event|
    /// alert|disconnect|reconnect, scenario? (NORMAL, BURST, ...), payload?
    /// (the channel's payload, as the broker contract's examples) }] (at
    /// most 1000), durationMs (1 to 3600000) }`.
    #[schema(value_type = Object)]
    pub script: serde_json::Value,
}

/// The sandbox's scripts, oldest first.
#[utoipa::path(
    get,
    path = "/v1/developers/simulator/scripts",
    tag = "simulator",
    operation_id = "listSimulationScripts",
    params(TenantPage),
    security(("bearer" = ["simulator:write"])),
    responses(
        (status = 200, description = "One page of scripts", body = ListResponse<SimulationScript>),
        BadTenantPage,
        NoValidToken,
        (status = 403, description = "A key without simulator:write", body = Problem, content_type = "application/problem+json"),
        NoSuchTenant,
    )
)]
pub async fn list_scripts(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiQuery(query): ApiQuery<TenantPage>,
) -> Result<Json<ListResponse<SimulationScript>>, ApiError> {
    let paging = query.page().paging();
    let found = scripts::scripts_page(&state, &caller, query.tenant_id, &paging).await?;
    Ok(listed(found, SimulationScript::from))
}

/// Stores a script in the sandbox, checked first: each refusal names its
/// field (`script.steps[3].payload`).
#[utoipa::path(
    post,
    path = "/v1/developers/simulator/scripts",
    tag = "simulator",
    operation_id = "createSimulationScript",
    request_body = CreateScriptRequest,
    security(("bearer" = ["simulator:write"])),
    responses(
        (status = 201, description = "Stored", body = SimulationScript),
        (status = 400, description = "A field of the script is wrong (named in `field`)", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        MayNotSimulate,
        NoSuchTenant,
        (status = 409, description = "The sandbox holds 50 scripts already", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn create_script(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiJson(body): ApiJson<CreateScriptRequest>,
) -> Result<(StatusCode, Json<SimulationScript>), ApiError> {
    let created = scripts::create_script(&state, &caller, body.tenant_id, body.script).await?;
    Ok((StatusCode::CREATED, Json(created.into())))
}

/// One script of the sandbox.
#[utoipa::path(
    get,
    path = "/v1/developers/simulator/scripts/{scriptId}",
    tag = "simulator",
    operation_id = "getSimulationScript",
    params(("scriptId" = uuid::Uuid, Path, description = "The script"), VirtualDeviceTenant),
    security(("bearer" = ["simulator:write"])),
    responses(
        (status = 200, description = "The script", body = SimulationScript),
        NoValidToken,
        (status = 403, description = "A key without simulator:write", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tenant or script", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn get_script(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(id): Path<String>,
    ApiQuery(query): ApiQuery<VirtualDeviceTenant>,
) -> Result<Json<SimulationScript>, ApiError> {
    let found = scripts::script(&state, &caller, query.tenant_id, &id).await?;
    Ok(Json(found.into()))
}

/// Removes a script.
#[utoipa::path(
    delete,
    path = "/v1/developers/simulator/scripts/{scriptId}",
    tag = "simulator",
    operation_id = "deleteSimulationScript",
    params(("scriptId" = uuid::Uuid, Path, description = "The script"), VirtualDeviceTenant),
    security(("bearer" = ["simulator:write"])),
    responses(
        (status = 204, description = "Removed"),
        NoValidToken,
        MayNotSimulate,
        (status = 404, description = "No such tenant or script", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn delete_script(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(id): Path<String>,
    ApiQuery(query): ApiQuery<VirtualDeviceTenant>,
) -> Result<StatusCode, ApiError> {
    scripts::delete_script(&state, &caller, query.tenant_id, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}
