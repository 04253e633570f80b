//! A home's routines (the body's rules are `alyt_domain::routine`,
//! the records `repo::routines`).
//!
//! * `POST /v1/properties/{propertyId}/routines?tenantId` `{ name, enabled?,
//!   triggers?, do }`: 201 with the routine. Every step's target is checked
//!   against the home: a thing step's thing is in it and its command passes
//!   the thing's own descriptors; a room step's room is one of its rooms; a
//!   music step's speaker is a SPEAKER endpoint placed in one of its rooms.
//!   Problems name the field (`do[2].speakerId`).
//! * `GET /v1/properties/{propertyId}/routines?tenantId`: the home's
//!   routines, oldest first, paginated.
//! * `GET /v1/routines/{routineId}?tenantId`, `PATCH` (any of `name`,
//!   `enabled`, `triggers`, `do`; the result is checked whole, as on
//!   create), `DELETE` (204).
//!
//! A routine with a time trigger is due at its next occurrence in the
//! home's timezone while enabled (`nextDue`); the runner starts it then
//! (`alyt_app::routines::runner`), and `runs.rs` runs one by hand and reads
//! the history.
//!
//! Who: the rule of rooms. Creating, changing and deleting configure the
//! home (the household's OWNER, tenant ADMIN/INSTALLER, platform OWNER/STAFF,
//! a DEV key in its sandbox; keys need `rooms:write`); reading needs sight
//! of the home (any member, a guest in its pinned home, SUPPORT; keys need
//! `things:read`). A foreign or missing home or routine is 404. Saving a
//! routine with a security step also needs the authority to change the
//! home's mode (a household owner; never a key): 403 otherwise. The person
//! who saved it is kept, and each run checks that person's authority
//! again.
//!
//! Store calls: create 1 get (the home) + 1 get per step target + 1 put;
//! list 1 get + 1 index query; get 2 gets; change 2 gets + the step targets
//! + 1 conditional put; delete 2 gets + 1 conditional delete.

use crate::conventions::responses::{
    BadTenantOrRoutine, BadTenantPage, KeyWithoutThingsRead, MayNotConfigureHome,
    MayNotSaveRoutine, NoSuchHome, NoSuchRoutine, RoutineChanged,
};
use crate::routing::{Operations, operations};
use alyt_domain::ids::{PropertyId, RoutineId};
use alyt_store::repo::routines::RoutineRecord;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::auth::Caller;
use crate::conventions::extract::{ApiJson, ApiPath, ApiQuery};
use crate::conventions::list::{ListResponse, PageParams, listed};
use crate::conventions::problem::{NoValidToken, Problem};
use crate::groups::devices::{TenantPageQuery, TenantParam};
use crate::{ApiError, AppState};

pub use alyt_app::routines::runner;
use alyt_app::routines::saved;
pub mod runs;

pub fn routes() -> Operations {
    Operations::new().merge(operations!(
        create_routine,
        list_routines,
        get_routine,
        change_routine,
        delete_routine
    ))
}

/// A routine as the household reads it.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Routine {
    pub id: RoutineId,
    pub property_id: PropertyId,
    pub name: String,
    pub enabled: bool,
    /// `{ kind: 'manual' }` or `{ kind: 'time', at: 'HH:MM', days: ['mon', …] }`.
    #[schema(value_type = Vec<alyt_domain::routine::Trigger>)]
    pub triggers: Value,
    /// The steps in order: `thing`, `room`, `delay`, `music`, `security`.
    #[serde(rename = "do")]
    #[schema(value_type = Vec<alyt_domain::routine::Step>)]
    pub steps: Value,
    /// When a time trigger fires next (null: disabled or no time trigger).
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime, required = true)]
    pub next_due: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: OffsetDateTime,
}

impl From<&RoutineRecord> for Routine {
    fn from(r: &RoutineRecord) -> Self {
        Self {
            id: r.id,
            property_id: r.property_id,
            name: r.body.name.clone(),
            enabled: r.body.enabled,
            triggers: serde_json::to_value(&r.body.triggers).unwrap_or_default(),
            steps: serde_json::to_value(&r.body.steps).unwrap_or_default(),
            next_due: r.next_due,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

/// The body of a new routine (and, every field optional, of a change).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RoutineRequest {
    /// 1-80 characters.
    #[schema(min_length = 1, max_length = 80)]
    pub name: String,
    /// Default true.
    pub enabled: Option<bool>,
    /// At most 10; none means manual only.
    #[schema(value_type = Option<Vec<alyt_domain::routine::Trigger>>)]
    pub triggers: Option<Value>,
    /// 1-50 steps; delays add up to at most 3600 seconds.
    #[serde(rename = "do")]
    #[schema(value_type = Vec<alyt_domain::routine::Step>)]
    pub steps: Value,
}

/// Creates a routine in a home.
#[utoipa::path(
    post,
    path = "/v1/properties/{propertyId}/routines",
    tag = "homes",
    operation_id = "createRoutine",
    params(("propertyId" = PropertyId, Path, description = "The home"), TenantParam),
    request_body = RoutineRequest,
    security(("bearer" = ["rooms:write"])),
    responses(
        (status = 201, description = "The routine", body = Routine),
        (status = 400, description = "A field is wrong, named by its path: name, triggers[i]…, do[i]… (a thing, room or speaker not in this home; a command the thing refuses)", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        MayNotSaveRoutine,
        NoSuchHome,
    )
)]
pub async fn create_routine(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(property_id): ApiPath<PropertyId>,
    ApiQuery(query): ApiQuery<TenantParam>,
    ApiJson(body): ApiJson<Value>,
) -> Result<(StatusCode, Json<Routine>), ApiError> {
    let record = saved::create(&state, &caller, query.tenant_id, property_id, &body).await?;
    Ok((StatusCode::CREATED, Json(Routine::from(&record))))
}

/// A home's routines, oldest first.
#[utoipa::path(
    get,
    path = "/v1/properties/{propertyId}/routines",
    tag = "homes",
    operation_id = "listRoutines",
    params(("propertyId" = PropertyId, Path, description = "The home"), TenantPageQuery),
    security(("bearer" = ["things:read"])),
    responses(
        (status = 200, description = "One page of routines", body = ListResponse<Routine>),
        BadTenantPage,
        NoValidToken,
        KeyWithoutThingsRead,
        NoSuchHome,
    )
)]
pub async fn list_routines(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(property_id): ApiPath<PropertyId>,
    ApiQuery(query): ApiQuery<TenantPageQuery>,
) -> Result<Json<ListResponse<Routine>>, ApiError> {
    let paging = PageParams::new(query.limit, query.cursor).paging();
    let found = saved::page(&state, &caller, query.tenant_id, property_id, &paging).await?;
    Ok(listed(found, |r| Routine::from(&r)))
}

/// One routine.
#[utoipa::path(
    get,
    path = "/v1/routines/{routineId}",
    tag = "homes",
    operation_id = "getRoutine",
    params(("routineId" = RoutineId, Path, description = "The routine"), TenantParam),
    security(("bearer" = ["things:read"])),
    responses(
        (status = 200, description = "The routine", body = Routine),
        BadTenantOrRoutine,
        NoValidToken,
        KeyWithoutThingsRead,
        NoSuchRoutine,
    )
)]
pub async fn get_routine(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(id): ApiPath<RoutineId>,
    ApiQuery(query): ApiQuery<TenantParam>,
) -> Result<Json<Routine>, ApiError> {
    let routine = saved::get(&state, &caller, query.tenant_id, id).await?;
    Ok(Json(Routine::from(&routine)))
}

/// Changes a routine: any of name, enabled, triggers and do; the result is
/// checked whole.
#[utoipa::path(
    patch,
    path = "/v1/routines/{routineId}",
    tag = "homes",
    operation_id = "changeRoutine",
    params(("routineId" = RoutineId, Path, description = "The routine"), TenantParam),
    request_body(content = Object, description = "Any of `name`, `enabled`, `triggers`, `do`"),
    security(("bearer" = ["rooms:write"])),
    responses(
        (status = 200, description = "The routine as changed", body = Routine),
        (status = 400, description = "A field is wrong, named by its path (as on create), or an unknown field", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        MayNotSaveRoutine,
        NoSuchRoutine,
        RoutineChanged,
    )
)]
pub async fn change_routine(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(id): ApiPath<RoutineId>,
    ApiQuery(query): ApiQuery<TenantParam>,
    ApiJson(patch): ApiJson<Value>,
) -> Result<Json<Routine>, ApiError> {
    let changed = saved::change(&state, &caller, query.tenant_id, id, patch).await?;
    Ok(Json(Routine::from(&changed)))
}

/// Deletes a routine.
#[utoipa::path(
    delete,
    path = "/v1/routines/{routineId}",
    tag = "homes",
    operation_id = "deleteRoutine",
    params(("routineId" = RoutineId, Path, description = "The routine"), TenantParam),
    security(("bearer" = ["rooms:write"])),
    responses(
        (status = 204, description = "Deleted"),
        BadTenantOrRoutine,
        NoValidToken,
        MayNotConfigureHome,
        NoSuchRoutine,
        RoutineChanged,
    )
)]
pub async fn delete_routine(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(id): ApiPath<RoutineId>,
    ApiQuery(query): ApiQuery<TenantParam>,
) -> Result<StatusCode, ApiError> {
    saved::delete(&state, &caller, query.tenant_id, id).await?;
    Ok(StatusCode::NO_CONTENT)
}
