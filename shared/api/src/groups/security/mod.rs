//! Home security over HTTP: one home's status, its mode, its
//! settings and selections, its incidents. The rules are
//! `alyt_domain::security`; the records `repo::security`.
//!
//! * `GET /v1/home-security/{propertyId}?tenantId`: the status. A hub-run
//!   home's hub is judged against the configuration its things need now;
//!   when they changed while Off, the read notes the new configuration for
//!   the timers to send (`hub::note_read`).
//! * `POST /v1/home-security/{propertyId}/mode` `{ tenantId, mode,
//!   requestId, revision, generation, bypass[] }`: arm, change or Off. A
//!   repeated request (same id, same body) answers what the first got; the
//!   same id with another body is 409 `request-id-reused`. Refusals are 409
//!   with what to do (`security-refused`); the state is unchanged.
//! * `PATCH /v1/home-security/{propertyId}/settings` (owner; Off and
//!   restoration complete, else 409), `PUT
//!   /v1/home-security/{propertyId}/devices/{kind}/{id}` `{ selection }`:
//!   each bumps the revision the next arming must carry.
//! * `GET …/incidents` (newest first), `POST …/incidents/{number}/acknowledge`
//!   (one resident; separate from Off).
//!
//! Who (`Principal::security_access`): household members
//! control the mode and acknowledge; the household's owners also
//! configure; the tenant's roles, guests and platform staff only read;
//! keys, widgets and connector credentials have no access at all (403).
//!
//! The platform offers no emergency dispatch and shares no evidence.
//!
//! Time: the exit and entry countdowns end when the home is next read or
//! changed, and on their own on the household timers' beat (the
//! `security-timers` pass of `alyt_app::passes`).

mod authority;
mod delegations;

use std::collections::BTreeSet;

use alyt_domain::ids::{PropertyId, TenantId};
use alyt_domain::room::{PinnedThing, PinnedThingKind};
use alyt_domain::secret::sha256_hex;
use alyt_domain::security::enrolment::Selection;
use alyt_domain::security::{Deterrent, Location, Mode};
use alyt_security::KeepError;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::auth::Caller;
use crate::conventions::extract::{ApiJson, ApiPath, ApiQuery, PathText};
use crate::conventions::list::{ListResponse, PageParams, listed};
use crate::conventions::problem::{NoValidToken, Problem};
use crate::conventions::responses::{
    BadTenantOrProperty, BadTenantPage, FieldWrong, HomeArmed, NoSuchHome, NotHouseholdOwner,
};
use crate::groups::devices::TenantPageQuery;
use crate::groups::devices::TenantParam;
use crate::routing::{Operations, operations};
use crate::{ApiError, AppState};

use alyt_app::security::incidents;
use alyt_app::security::mode::{self, ModeOrder, Repeatable};
use alyt_app::security::settings::{self, SettingsChange};
pub use alyt_app::security::status::*;

impl From<KeepError> for ApiError {
    fn from(e: KeepError) -> Self {
        alyt_app::Error::from(e).into()
    }
}

pub fn routes() -> Operations {
    operations!(
        get_security,
        request_mode,
        change_security_settings,
        select_security_thing,
        list_incidents,
        acknowledge_incident
    )
    .merge(authority::routes())
    .merge(delegations::routes())
}

/// A home's security status: modes, countdowns, readiness per mode with
/// what blocks it, every thing security uses, the open incident.
#[utoipa::path(
    get,
    path = "/v1/home-security/{propertyId}",
    tag = "security",
    operation_id = "getHomeSecurity",
    extensions(("x-session-only" = json!(true))),
    params(("propertyId" = PropertyId, Path, description = "The home"), TenantParam),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The status (the platform offers no emergency dispatch and shares no evidence)", body = SecurityStatus),
        BadTenantOrProperty,
        NoValidToken,
        (status = 403, description = "A key, a widget or a connector credential: no home-security access", body = Problem, content_type = "application/problem+json"),
        NoSuchHome,
    )
)]
pub async fn get_security(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(property_id): ApiPath<PropertyId>,
    ApiQuery(query): ApiQuery<TenantParam>,
) -> Result<Json<SecurityStatus>, ApiError> {
    let shown = read_status(&state, &caller, query.tenant_id, property_id).await?;
    Ok(Json(shown))
}

// ---------------------------------------------------------------------------
// The mode

/// A mode request.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModeBody {
    #[schema(value_type = String)]
    pub tenant_id: TenantId,
    pub mode: Mode,
    /// A UUID per request: a repeat with the same body answers the same;
    /// the same id with another body is refused.
    pub request_id: Uuid,
    /// The configuration revision the person reviewed (any value for Off).
    pub revision: u64,
    /// The generation the person read (Off with an older one is refused: it
    /// cannot end a newer armed period).
    pub generation: u64,
    /// Things whose signals this armed period leaves out.
    #[serde(default)]
    pub bypass: Vec<PinnedThing>,
}

/// Arms, changes or turns off a home's security.
#[utoipa::path(
    post,
    path = "/v1/home-security/{propertyId}/mode",
    tag = "security",
    operation_id = "setHomeSecurityMode",
    extensions(("x-session-only" = json!(true))),
    params(("propertyId" = PropertyId, Path, description = "The home")),
    request_body = ModeBody,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The status after the request (a repeat answers the same)", body = SecurityStatus),
        FieldWrong,
        NoValidToken,
        (status = 403, description = "Not a member of the household, or a key, widget or connector credential", body = Problem, content_type = "application/problem+json"),
        NoSuchHome,
        (status = 409, description = "Refused with what to do (`security-refused`: stale revision or generation, signals not ready, restoration pending, another authority), or a request id used for another body (`request-id-reused`); nothing changed", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn request_mode(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(property_id): ApiPath<PropertyId>,
    ApiJson(body): ApiJson<ModeBody>,
) -> Result<Response, ApiError> {
    let order = ModeOrder {
        mode: body.mode,
        seen: Some((body.revision, body.generation)),
        bypass: body.bypass.clone(),
    };
    let request = Repeatable {
        request_id: body.request_id,
        fingerprint: body.fingerprint(),
        render: kept_answer,
    };
    let answer = mode::request_mode(
        &state,
        &caller,
        body.tenant_id,
        property_id,
        &order,
        &request,
    )
    .await?;
    if answer.fingerprint != request.fingerprint {
        return Err(ApiError::conflict_typed(
            "request-id-reused",
            "this requestId was used for another request; use a new UUID for a new request",
        ));
    }
    Ok(answer_response(answer.status, answer.answer))
}

/// A mode request's answer as it is kept for its repeats: the status, or
/// the problem of its refusal.
fn kept_answer(outcome: &Result<SecurityStatus, alyt_app::Error>) -> (u16, Value) {
    match outcome {
        Ok(shown) => (200, serde_json::to_value(shown).unwrap_or_default()),
        Err(e) => {
            let problem = ApiError::from(e.clone());
            (problem.status.as_u16(), problem.body_json())
        }
    }
}

impl ModeBody {
    /// What tells a repeat from another request under the same id: the
    /// body in a canonical form (the bypass sorted, once each).
    fn fingerprint(&self) -> String {
        let mut bypass: Vec<PinnedThing> = self.bypass.clone();
        bypass.sort_by_key(|t| t.id);
        bypass.dedup();
        let canonical = serde_json::json!({
            "tenantId": self.tenant_id, "mode": self.mode, "revision": self.revision,
            "generation": self.generation, "bypass": bypass,
        });
        sha256_hex(canonical.to_string())
    }
}

fn answer_response(status: u16, answer: Value) -> Response {
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    if code.is_success() {
        (code, Json(answer)).into_response()
    } else {
        (
            code,
            [(axum::http::header::CONTENT_TYPE, "application/problem+json")],
            Json(answer),
        )
            .into_response()
    }
}

// ---------------------------------------------------------------------------
// Settings and selections

/// A change of settings: any of the fields.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SettingsPatch {
    #[schema(value_type = String)]
    pub tenant_id: TenantId,
    pub exit_delay_seconds: Option<u32>,
    pub entry_delay_seconds: Option<u32>,
    #[schema(value_type = Option<Vec<String>>)]
    pub sleeping_rooms: Option<BTreeSet<Uuid>>,
    #[schema(value_type = Option<Vec<String>>)]
    pub night_light_rooms: Option<BTreeSet<Uuid>>,
    #[schema(value_type = Option<Vec<String>>)]
    pub speaker_alarm_rooms: Option<BTreeSet<Uuid>>,
    /// The hub that runs the home's protection (a HUB device of this home;
    /// null: the platform's own engine).
    #[serde(default, deserialize_with = "crate::conventions::extract::present")]
    #[schema(value_type = Option<String>)]
    pub hub_device_id: Option<Option<Uuid>>,
    /// `voice` (default) or `dog`: the fixed recording the speaker alarm
    /// alternates with the siren.
    pub deterrent: Option<Deterrent>,
    /// The home's location for night lights (null: forget it).
    #[serde(default, deserialize_with = "crate::conventions::extract::present")]
    #[schema(value_type = Option<Location>)]
    pub location: Option<Option<Location>>,
}

/// Changes a home's security settings (owners; Off with restoration
/// complete).
#[utoipa::path(
    patch,
    path = "/v1/home-security/{propertyId}/settings",
    tag = "security",
    operation_id = "changeHomeSecuritySettings",
    extensions(("x-session-only" = json!(true))),
    params(("propertyId" = PropertyId, Path, description = "The home")),
    request_body = SettingsPatch,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The status with the new settings and revision", body = SecurityStatus),
        (status = 400, description = "A field is wrong (named): delays 0-300 s, rooms of this home", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        NotHouseholdOwner,
        NoSuchHome,
        HomeArmed,
    )
)]
pub async fn change_security_settings(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(property_id): ApiPath<PropertyId>,
    ApiJson(patch): ApiJson<SettingsPatch>,
) -> Result<Json<SecurityStatus>, ApiError> {
    let change = SettingsChange {
        exit_delay_seconds: patch.exit_delay_seconds,
        entry_delay_seconds: patch.entry_delay_seconds,
        sleeping_rooms: patch.sleeping_rooms,
        night_light_rooms: patch.night_light_rooms,
        speaker_alarm_rooms: patch.speaker_alarm_rooms,
        hub_device_id: patch.hub_device_id,
        deterrent: patch.deterrent,
        location: patch.location,
    };
    let shown = settings::change(&state, &caller, patch.tenant_id, property_id, change).await?;
    Ok(Json(shown))
}

/// A thing's selection.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SelectionBody {
    #[schema(value_type = String)]
    pub tenant_id: TenantId,
    /// `auto` follows the capabilities, `include` is the manual fallback,
    /// `exclude` leaves the thing out (and survives rediscovery).
    pub selection: Selection,
}

/// Chooses whether a thing takes part in security (owners; Off with
/// restoration complete).
#[utoipa::path(
    put,
    path = "/v1/home-security/{propertyId}/devices/{kind}/{thingId}",
    tag = "security",
    operation_id = "selectHomeSecurityThing",
    extensions(("x-session-only" = json!(true))),
    params(
        ("propertyId" = PropertyId, Path, description = "The home"),
        ("kind" = String, Path, description = "`device` or `endpoint`"),
        ("thingId" = String, Path, description = "The thing"),
    ),
    request_body = SelectionBody,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The status with the selection and a new revision", body = SecurityStatus),
        FieldWrong,
        NoValidToken,
        NotHouseholdOwner,
        (status = 404, description = "No such home, or no such thing of use to security in it", body = Problem, content_type = "application/problem+json"),
        HomeArmed,
    )
)]
pub async fn select_security_thing(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath((property_id, PathText(kind), PathText(thing))): ApiPath<(
        PropertyId,
        PathText,
        PathText,
    )>,
    ApiJson(body): ApiJson<SelectionBody>,
) -> Result<Json<SecurityStatus>, ApiError> {
    let thing_id: Uuid = thing
        .parse()
        .map_err(|_| ApiError::validation("thingId", "thingId must be a UUID"))?;
    let kind = match kind.as_str() {
        "device" => PinnedThingKind::Device,
        "endpoint" => PinnedThingKind::Endpoint,
        _ => return Err(ApiError::validation("kind", "device or endpoint")),
    };
    let thing = PinnedThing { kind, id: thing_id };
    let shown = settings::select(
        &state,
        &caller,
        body.tenant_id,
        property_id,
        thing,
        body.selection,
    )
    .await?;
    Ok(Json(shown))
}

// ---------------------------------------------------------------------------
// Incidents

/// A home's incidents, newest first.
#[utoipa::path(
    get,
    path = "/v1/home-security/{propertyId}/incidents",
    tag = "security",
    operation_id = "listHomeSecurityIncidents",
    extensions(("x-session-only" = json!(true))),
    params(("propertyId" = PropertyId, Path, description = "The home"), TenantPageQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "One page of incidents", body = ListResponse<IncidentView>),
        BadTenantPage,
        NoValidToken,
        (status = 403, description = "A key, a widget or a connector credential", body = Problem, content_type = "application/problem+json"),
        NoSuchHome,
    )
)]
pub async fn list_incidents(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(property_id): ApiPath<PropertyId>,
    ApiQuery(query): ApiQuery<TenantPageQuery>,
) -> Result<Json<ListResponse<IncidentView>>, ApiError> {
    let paging = PageParams::new(query.limit, query.cursor).paging();
    let found = incidents_page(&state, &caller, query.tenant_id, property_id, &paging).await?;
    Ok(listed(found, |incident| incident))
}

/// The body of an acknowledgement.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AcknowledgeBody {
    #[schema(value_type = String)]
    pub tenant_id: TenantId,
}

/// A resident acknowledges the latest incident (separate from Off; one
/// resident's, for good).
#[utoipa::path(
    post,
    path = "/v1/home-security/{propertyId}/incidents/{number}/acknowledge",
    tag = "security",
    operation_id = "acknowledgeHomeSecurityIncident",
    extensions(("x-session-only" = json!(true))),
    params(
        ("propertyId" = PropertyId, Path, description = "The home"),
        ("number" = u64, Path, description = "The incident's number"),
    ),
    request_body = AcknowledgeBody,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The incident, acknowledged", body = IncidentView),
        FieldWrong,
        NoValidToken,
        (status = 403, description = "Not a member of the household (or a key, widget or connector credential)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such home, or not its latest incident", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Another resident acknowledged it", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn acknowledge_incident(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath((property_id, PathText(number))): ApiPath<(PropertyId, PathText)>,
    ApiJson(body): ApiJson<AcknowledgeBody>,
) -> Result<Json<IncidentView>, ApiError> {
    let number: u64 = number
        .parse()
        .map_err(|_| ApiError::validation("number", "an incident number"))?;
    let incident =
        incidents::acknowledge(&state, &caller, body.tenant_id, property_id, number).await?;
    Ok(Json(IncidentView::from(&incident)))
}
