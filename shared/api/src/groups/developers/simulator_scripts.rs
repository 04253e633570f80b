//! Simulation scripts of a sandbox (under /v1/developers/simulator/scripts)
//! and their runs (…/runs): written, listed, read and removed, started and
//! stopped; who may as for virtual devices ([`super::simulator`]). The
//! sample library (…/sample-scripts) is public. The use cases are
//! [`alyt_app::developers::scripts`]'s; the script's rules are
//! [`alyt_simulator::script`]'s.

use std::collections::BTreeMap;

use alyt_domain::ids::{DeviceId, TenantId};
use alyt_store::repo::simulator::{RunRecord, ScriptRecord, run_status};
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
use crate::conventions::responses::{
    BadTenantPage, KeyWithoutSimulatorWrite, MayNotSimulate, NoSuchRun, NoSuchScript, NoSuchTenant,
    NoValidToken,
};
use crate::routing::{Operations, operations};
use crate::{ApiError, AppState};
use alyt_app::developers::scripts;

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(list_scripts, create_script))
        .merge(operations!(get_script, delete_script))
        .merge(operations!(list_runs, start_run))
        .merge(operations!(get_run))
        .merge(operations!(stop_run))
        .merge(operations!(list_sample_scripts))
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
    /// alert|disconnect|reconnect|answerCommands, scenario? (NORMAL, BURST,
    /// ...), payload? (the channel's payload, as the broker contract's
    /// examples), status? and delayMs? (answerCommands: the response status
    /// from then on, 1 to 32 characters, none for no answer, after 0 to
    /// 60000 ms; until the first such step a role answers `ok` at once) }]
    /// (at most 1000), durationMs (1 to 3600000) }`. The sample scripts
    /// (`GET /v1/developers/simulator/sample-scripts`) show each action.
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
        KeyWithoutSimulatorWrite,
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
        (status = 400, description = "A field of the script is wrong (named in `field`), or a run of it would send more than 100000 messages (`script`)", body = Problem, content_type = "application/problem+json"),
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
        KeyWithoutSimulatorWrite,
        NoSuchScript,
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
        NoSuchScript,
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

/// Where a run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ScriptRunStatus {
    /// Created; a player takes it at once locally, within a poll hosted.
    Pending,
    /// Playing.
    Running,
    /// Every message was sent and the script's duration passed.
    Done,
    /// Stopped by its developer.
    Stopped,
    /// Ended early: `reason` says why.
    Failed,
}

impl ScriptRunStatus {
    fn of(status: &str) -> Self {
        match status {
            run_status::PENDING => Self::Pending,
            run_status::RUNNING => Self::Running,
            run_status::DONE => Self::Done,
            run_status::STOPPED => Self::Stopped,
            _ => Self::Failed,
        }
    }
}

/// A run of a script: what it plays, on which devices, and how far it got.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScriptRun {
    pub id: uuid::Uuid,
    pub script_id: uuid::Uuid,
    pub script_name: String,
    /// The seed: a run of the same script with this seed sends the same
    /// traffic, byte for byte.
    pub seed: u64,
    /// Each role and the virtual device that plays it.
    pub devices: BTreeMap<String, DeviceId>,
    pub status: ScriptRunStatus,
    /// Messages the run publishes in all (answers to commands aside).
    pub total: u64,
    /// Messages published so far (written at most once a second while it
    /// plays).
    pub played: u64,
    /// SHA-256 (hex) of the traffic the run plays (every message's offset,
    /// role, channel and bytes, every connect and disconnect): equal for two
    /// runs of one script with one seed.
    pub traffic_sha256: String,
    pub duration_ms: u64,
    /// Why it failed or ended early; null while it plays or when it ended
    /// DONE.
    #[schema(required = true)]
    pub reason: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    /// When a player took it; null while PENDING.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime, required = true)]
    pub started_at: Option<OffsetDateTime>,
    /// null until it ends.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime, required = true)]
    pub ended_at: Option<OffsetDateTime>,
}

impl From<RunRecord> for ScriptRun {
    fn from(r: RunRecord) -> Self {
        Self {
            id: r.id,
            script_id: r.script_id,
            seed: r.seed(),
            script_name: r.script_name,
            devices: r.devices,
            status: ScriptRunStatus::of(&r.status),
            total: r.total,
            played: r.played,
            traffic_sha256: r.traffic_sha256,
            duration_ms: r.duration_ms,
            reason: r.reason,
            created_at: r.created_at,
            started_at: r.started_at,
            ended_at: r.ended_at,
        }
    }
}

/// The body of `POST /v1/developers/simulator/runs`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StartRunRequest {
    /// The developer's sandbox tenant.
    pub tenant_id: TenantId,
    /// A script stored in the sandbox.
    pub script_id: String,
    /// Each role of the script and the virtual device of its profile that
    /// plays it (neither detached nor in another run). The devices leave
    /// the simulator for the run and come back at its end.
    pub devices: BTreeMap<String, String>,
    /// 0 to 2^53 - 1; absent: a random seed, named in the answer.
    #[serde(default)]
    pub seed: Option<u64>,
}

/// The sandbox's script runs, oldest first.
#[utoipa::path(
    get,
    path = "/v1/developers/simulator/runs",
    tag = "simulator",
    operation_id = "listScriptRuns",
    params(TenantPage),
    security(("bearer" = ["simulator:write"])),
    responses(
        (status = 200, description = "One page of runs", body = ListResponse<ScriptRun>),
        BadTenantPage,
        NoValidToken,
        KeyWithoutSimulatorWrite,
        NoSuchTenant,
    )
)]
pub async fn list_runs(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiQuery(query): ApiQuery<TenantPage>,
) -> Result<Json<ListResponse<ScriptRun>>, ApiError> {
    let paging = query.page().paging();
    let found = scripts::runs_page(&state, &caller, query.tenant_id, &paging).await?;
    Ok(listed(found, ScriptRun::from))
}

/// Plays a stored script against chosen virtual devices with a seed. The
/// devices leave the simulator for the run (a clean DISCONNECT), a player
/// sends the run's traffic at its offsets as those devices and answers
/// their commands as the script says, and the devices come back to the
/// simulator at its end. Follow it with `GET …/runs/{runId}`.
#[utoipa::path(
    post,
    path = "/v1/developers/simulator/runs",
    tag = "simulator",
    operation_id = "startScriptRun",
    request_body = StartRunRequest,
    security(("bearer" = ["simulator:write"])),
    responses(
        (status = 202, description = "Started (PENDING until a player takes it)", body = ScriptRun),
        (status = 400, description = "A field is wrong (named in `field`): scriptId, devices.{role}, seed", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        MayNotSimulate,
        NoSuchTenant,
        (status = 409, description = "A device is detached or in another run (named in `field`), or the sandbox plays 5 runs already", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "quota-exceeded: the sandbox's MQTT_MESSAGES left this window cannot hold the run's messages (Retry-After: when the window resets)", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn start_run(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiJson(body): ApiJson<StartRunRequest>,
) -> Result<(StatusCode, Json<ScriptRun>), ApiError> {
    let request = scripts::RunRequest {
        script_id: body.script_id,
        devices: body.devices,
        seed: body.seed,
    };
    let run = scripts::start_run(&state, &caller, body.tenant_id, request).await?;
    Ok((StatusCode::ACCEPTED, Json(run.into())))
}

/// One run, with its progress.
#[utoipa::path(
    get,
    path = "/v1/developers/simulator/runs/{runId}",
    tag = "simulator",
    operation_id = "getScriptRun",
    params(("runId" = uuid::Uuid, Path, description = "The run"), VirtualDeviceTenant),
    security(("bearer" = ["simulator:write"])),
    responses(
        (status = 200, description = "The run", body = ScriptRun),
        NoValidToken,
        KeyWithoutSimulatorWrite,
        NoSuchRun,
    )
)]
pub async fn get_run(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(id): Path<String>,
    ApiQuery(query): ApiQuery<VirtualDeviceTenant>,
) -> Result<Json<ScriptRun>, ApiError> {
    let found = scripts::run(&state, &caller, query.tenant_id, &id).await?;
    Ok(Json(found.into()))
}

/// Stops a run before its end: it ends STOPPED at once, its clients
/// disconnect cleanly and the devices go back to the simulator.
#[utoipa::path(
    post,
    path = "/v1/developers/simulator/runs/{runId}/stop",
    tag = "simulator",
    operation_id = "stopScriptRun",
    params(("runId" = uuid::Uuid, Path, description = "The run"), VirtualDeviceTenant),
    security(("bearer" = ["simulator:write"])),
    responses(
        (status = 200, description = "Stopped", body = ScriptRun),
        NoValidToken,
        MayNotSimulate,
        NoSuchRun,
        (status = 409, description = "The run has ended already", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn stop_run(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(id): Path<String>,
    ApiQuery(query): ApiQuery<VirtualDeviceTenant>,
) -> Result<Json<ScriptRun>, ApiError> {
    let stopped = scripts::stop_run(&state, &caller, query.tenant_id, &id).await?;
    Ok(Json(stopped.into()))
}

/// A script shipped with the platform.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SampleScript {
    pub slug: String,
    pub description: String,
    /// A script to store as it is (`POST …/scripts`) or to start from.
    #[schema(value_type = Object)]
    pub script: serde_json::Value,
}

/// The sample scripts that ship with the platform, one for each kind of
/// step: store one (`POST …/scripts` with its `script`) and run it.
#[utoipa::path(
    get,
    path = "/v1/developers/simulator/sample-scripts",
    tag = "simulator",
    operation_id = "listSampleScripts",
    responses(
        (status = 200, description = "The sample library (one page: every sample)", body = ListResponse<SampleScript>),
    )
)]
pub async fn list_sample_scripts() -> Json<ListResponse<SampleScript>> {
    let samples = alyt_simulator::script::samples()
        .into_iter()
        .map(|s| SampleScript {
            slug: s.slug,
            description: s.description,
            script: s.script,
        })
        .collect();
    Json(ListResponse {
        items: samples,
        next_cursor: None,
    })
}
