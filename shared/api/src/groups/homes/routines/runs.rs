//! Running a routine by hand and reading its runs.
//!
//! * `POST /v1/routines/{routineId}/run?tenantId`: 202 with the run. Its
//!   steps start at once and run in this request until the first wait (a
//!   delay, a music step waiting for earlier device commands) or
//!   [`INLINE_BUDGET`]; the runner's passes finish it.
//! * `GET /v1/routines/{routineId}/runs?tenantId`: the runs, newest first,
//!   paginated, each with its steps' outcomes.
//!
//! Who: running controls the home (members, a guest in its pinned home
//! during the stay, those who configure it; keys need `things:control`);
//! reading needs sight of the home (`things:read`).

use alyt_domain::device::CommandId;
use alyt_domain::ids::{PropertyId, RoutineId, UserId};
use alyt_store::repo::routines::{
    RunCause, RunRecord, RunState, StepOutcome, StepResult, ThingResult,
};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use super::runner;
use crate::auth::Caller;
use crate::conventions::extract::{ApiPath, ApiQuery};
use crate::conventions::list::{ListResponse, PageParams, listed};
use crate::conventions::problem::{NoValidToken, Problem};
use crate::conventions::responses::{
    BadTenantOrRoutine, BadTenantPage, KeyWithoutThingsRead, NoSuchRoutine,
};
use crate::groups::devices::TenantPageQuery;
use crate::groups::devices::TenantParam;
use crate::routing::{Operations, operations};
use crate::{ApiError, AppState};
use alyt_app::routines::runs;

pub fn routes() -> Operations {
    operations!(run_routine, list_routine_runs)
}

/// How long a manual run's request runs steps before it answers.
pub const INLINE_BUDGET: std::time::Duration = std::time::Duration::from_secs(8);

/// What one step did to one thing.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunThing {
    pub thing_id: Uuid,
    pub name: String,
    pub outcome: StepOutcome,
    #[schema(required = true)]
    pub reason: Option<String>,
    /// The command sent to a device: its answer is in the device's command
    /// history.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false, value_type = Option<String>)]
    pub command_id: Option<CommandId>,
}

/// One step's outcome.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunStep {
    /// Its index in `do[]`.
    pub step: u32,
    /// `thing`, `room`, `delay`, `music` or `security`.
    pub kind: String,
    /// `applied`: a device's command was accepted and published, an
    /// endpoint's connector applied it, music plays (read back), a delay
    /// passed. `failed`: with `reason`. `skipped`: nothing in a room offers
    /// the action.
    pub outcome: StepOutcome,
    #[schema(required = true)]
    pub reason: Option<String>,
    /// The thing's or room's name, the delay, the mode.
    #[schema(required = true)]
    pub detail: Option<String>,
    /// A music step: the speaker's name.
    #[schema(required = true)]
    pub speaker: Option<String>,
    /// A music step: what it plays (the step's display name).
    #[schema(required = true)]
    pub music: Option<String>,
    /// Per thing, for thing and room steps.
    pub things: Vec<RunThing>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub at: OffsetDateTime,
}

/// What started a run: `{ kind: 'manual', by }` (by: the person, null for a
/// key) or `{ kind: 'schedule', trigger, localDate }`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum RunStart {
    Manual {
        #[schema(value_type = Option<String>, required = true)]
        by: Option<UserId>,
    },
    #[serde(rename_all = "camelCase")]
    Schedule { trigger: u32, local_date: String },
}

/// One run of a routine.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RoutineRun {
    pub id: Uuid,
    pub routine_id: RoutineId,
    pub property_id: PropertyId,
    /// The routine's name when it ran.
    pub name: String,
    pub cause: RunStart,
    pub state: RunState,
    /// The outcomes so far, in step order.
    pub steps: Vec<RunStep>,
    /// Steps in the run.
    pub step_count: u32,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub started_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime, required = true)]
    pub finished_at: Option<OffsetDateTime>,
}

fn thing_view(t: &ThingResult) -> RunThing {
    RunThing {
        thing_id: t.thing_id,
        name: t.name.clone(),
        outcome: t.outcome,
        reason: t.reason.clone(),
        command_id: t.command_id,
    }
}

fn step_view(s: &StepResult) -> RunStep {
    RunStep {
        step: s.step,
        kind: s.kind.clone(),
        outcome: s.outcome,
        reason: s.reason.clone(),
        detail: s.detail.clone(),
        speaker: s.speaker.clone(),
        music: s.music.clone(),
        things: s.things.iter().map(thing_view).collect(),
        at: s.at,
    }
}

impl From<&RunRecord> for RoutineRun {
    fn from(r: &RunRecord) -> Self {
        Self {
            id: r.id,
            routine_id: r.routine_id,
            property_id: r.property_id,
            name: r.name.clone(),
            cause: match &r.cause {
                RunCause::Manual { by } => RunStart::Manual { by: *by },
                RunCause::Schedule {
                    trigger,
                    local_date,
                } => RunStart::Schedule {
                    trigger: *trigger,
                    local_date: local_date.clone(),
                },
            },
            state: r.state,
            steps: r.steps.iter().map(step_view).collect(),
            step_count: r.plan.len() as u32,
            started_at: r.started_at,
            finished_at: r.finished_at,
        }
    }
}

/// Runs a routine now.
#[utoipa::path(
    post,
    path = "/v1/routines/{routineId}/run",
    tag = "homes",
    operation_id = "runRoutine",
    params(("routineId" = RoutineId, Path, description = "The routine"), TenantParam),
    security(("bearer" = ["things:control"])),
    responses(
        (status = 202, description = "The run: its first steps done (until a wait), the rest to follow; read it in the runs", body = RoutineRun),
        BadTenantOrRoutine,
        NoValidToken,
        (status = 403, description = "A key without things:control, or a caller who only sees the home (platform SUPPORT)", body = Problem, content_type = "application/problem+json"),
        NoSuchRoutine,
        (status = 409, description = "The routine is disabled", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn run_routine(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(id): ApiPath<RoutineId>,
    ApiQuery(query): ApiQuery<TenantParam>,
) -> Result<(StatusCode, Json<RoutineRun>), ApiError> {
    let run = runner::run_now(&state, &caller, query.tenant_id, id, INLINE_BUDGET).await?;
    Ok((StatusCode::ACCEPTED, Json(RoutineRun::from(&run))))
}

/// A routine's runs, newest first.
#[utoipa::path(
    get,
    path = "/v1/routines/{routineId}/runs",
    tag = "homes",
    operation_id = "listRoutineRuns",
    params(("routineId" = RoutineId, Path, description = "The routine"), TenantPageQuery),
    security(("bearer" = ["things:read"])),
    responses(
        (status = 200, description = "One page of runs with their steps' outcomes", body = ListResponse<RoutineRun>),
        BadTenantPage,
        NoValidToken,
        KeyWithoutThingsRead,
        NoSuchRoutine,
    )
)]
pub async fn list_routine_runs(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(id): ApiPath<RoutineId>,
    ApiQuery(query): ApiQuery<TenantPageQuery>,
) -> Result<Json<ListResponse<RoutineRun>>, ApiError> {
    let paging = PageParams::new(query.limit, query.cursor).paging();
    let found = runs::runs_page(&state, &caller, query.tenant_id, id, &paging).await?;
    Ok(listed(found, |r| RoutineRun::from(&r)))
}
