//! Rooms (part of the homes group).
//!
//! * `GET /v1/rooms?tenantId&propertyId`: a home's rooms as resolved views,
//!   oldest first, paginated.
//! * `GET /v1/rooms/suggestions`: names (with their derived icons) for the
//!   add-a-room flow; discovery names rooms from the same list
//!   (`alyt_domain::room::ROOM_SUGGESTIONS`). One page.
//! * `POST /v1/rooms?tenantId` `{ propertyId, name, icon? }`: 201 with the
//!   view. `icon` must be a token of the room-icon set; without one the view
//!   derives it from the name.
//! * `GET/PATCH/DELETE /v1/rooms/{roomId}?tenantId`: the view; PATCH takes
//!   `name`, `icon` (null: derived again), `listening`, `chosenActions`
//!   (null: the defaults), `quietHoursStart`/`quietHoursEnd` (whole hours
//!   0-23 in the home's time zone, both or neither); DELETE leaves the
//!   members in the house with no room (each member is moved first, then the
//!   room is deleted, so a failure leaves a room to delete again).
//! * `POST /v1/rooms/{roomId}/merge?tenantId` `{ from: [roomId] }`: the room
//!   in the path is kept; each room of `from`, in order, has its members
//!   moved to it and is then removed. Every `from` room is checked first (400
//!   naming `from[i]` when it is not a room of the same home); if a step
//!   fails, that room is reported in `failed` and later rooms are not
//!   processed (`notProcessed`).
//! * `POST /v1/rooms/{roomId}/actions` (run-action request): see
//!   `run_on_members`.
//!
//! The operations that write take the tenant as the `tenantId` query
//! parameter like every household operation; create, merge and the actions
//! also take it in the body, as they first did (`conventions::tenant`).
//!
//! Who (one rule, [`Principal::home_access`](alyt_domain::access::Principal::home_access), applied by [`crate::access`]): any member
//! of the household sees its homes and controls their rooms, a GUEST only
//! its pinned home (its claims name the home only during the stay); only
//! the household's OWNER configures a room (create, rename, icon, tile
//! actions, quiet hours, delete, merge), and so do tenant ADMIN/INSTALLER,
//! keys bound to the tenant and platform OWNER/STAFF; platform SUPPORT sees
//! and changes nothing. Setting `listening` is control, not configuration: a
//! PATCH of `listening` alone needs control. Keys need `things:read` to
//! read, `things:control` to control and `rooms:write` to configure (403).
//! A room or home of another tenant answers exactly like a missing one
//! (404).
//!
//! Listening: the room's flag is what voice-capable members should do. When
//! a PATCH or a listening action changes it, each voice member the platform
//! reaches directly is sent `set voice.listening <flag>` through the device
//! command path; when the flag does not change nothing is sent. That command
//! is what moves a voice member's mute switch (`voice.micMuted`): a hub mutes
//! when its room stops listening and unmutes when it listens again, unless a
//! person muted it by hand since (the hub keeps that rule, as the virtual hub
//! does). A change of the physical switch is only ever reported back: the
//! platform never re-sends `listening` because of a report, so a person's
//! switch is never overridden.
//!
//! Store calls (besides authenticating the caller), with n the home's live
//! devices and k the room's members: room view (GET) 3 gets (room ref, then
//! room and home together) + 1 gsi1 query per 1,000 devices of the home + 1
//! batch get per 50 members (none for an empty room); the list 1 get + 1
//! query of rooms + 1 gsi1 query + 1 batch get per 50 members of the listed
//! rooms. Never a read per member. Writes: PATCH 1 conditional put (+ the
//! command path per voice member when listening changes); DELETE 1
//! conditional put per member + 1 transaction; an action the command path
//! per commanded member (1 update, 1 put, 1 conditional put).

use crate::routing::{Operations, operations};
use alyt_app::rooms::{self, RoomChange};
use alyt_domain::ids::{PropertyId, RoomId, TenantId};
use alyt_domain::room::{self, ActionRef, ActionValue, AvailableAction, ROOM_SUGGESTIONS};
use alyt_store::repo::rooms::RoomRecord;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

use crate::auth::Caller;
use crate::conventions::extract::{ApiJson, ApiPath, ApiQuery};
use crate::conventions::list::{ListResponse, PageParams, listed};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{
    BadPropertyPage, BadTenantOrRoom, KeyWithoutThingsRead, MayNotConfigureHome,
    MayNotConfigureRoom, MayNotControlThings, NoSuchProperty, NoSuchRoom, NoValidToken,
};
use crate::conventions::tenant::TenantQuery;
use crate::groups::devices::{Device, TenantParam, Thing};
use crate::groups::homes::endpoints::{Endpoint, endpoint_object};
use crate::{ApiError, AppState};

pub use alyt_app::rooms::{ActionResult, AppliedThing, MergeFailure, ThingOutcome};
use alyt_app::rooms::{MemberThing, Source, as_members};

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(list_rooms, create_room))
        .merge(operations!(room_suggestions))
        .merge(operations!(get_room, patch_room, delete_room))
        .merge(operations!(merge_rooms))
        .merge(operations!(run_room_action))
}

// ---------------------------------------------------------------------------
// Members and the resolved view

/// The resolved room view (spec: Room and overview).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RoomView {
    pub id: RoomId,
    pub tenant_id: TenantId,
    pub property_id: PropertyId,
    pub name: String,
    /// A token of the room-icon set; derived from the name unless chosen.
    pub icon: String,
    /// Whether voice-capable things in the room listen for the wake word.
    pub listening: bool,
    /// At most two, resolved: the chosen ones the room still serves, or the
    /// defaults in the order lights, volume, thermostat, listening.
    pub primary_actions: Vec<ActionRef>,
    /// As stored; null means the defaults.
    #[schema(required = true)]
    pub chosen_actions: Option<Vec<ActionRef>>,
    /// What the members offer.
    pub available_actions: Vec<AvailableAction>,
    /// Computed here: toggle = any member on, lock = all locked, number =
    /// the maximum, listening = the room flag.
    pub action_values: Vec<ActionValue>,
    #[schema(required = true)]
    pub quiet_hours_start: Option<i64>,
    #[schema(required = true)]
    pub quiet_hours_end: Option<i64>,
    /// The members' Thing views.
    pub things: Vec<Thing>,
    /// The member devices' rows.
    pub devices: Vec<Device>,
    /// The member endpoints' objects.
    pub endpoints: Vec<Endpoint>,
}

/// The view of `room` with these members.
pub(crate) fn room_view(room: &RoomRecord, members: &[MemberThing]) -> RoomView {
    let as_members = as_members(members);
    let available = room::available_actions(&as_members);
    let primary = room::resolve_primary(room.chosen_actions.as_deref(), &available);
    let values = room::action_values(&available, &as_members, room.listening);
    RoomView {
        id: room.id,
        tenant_id: room.tenant_id,
        property_id: room.property_id,
        name: room.name.clone(),
        icon: room::resolved_icon(room.icon.as_deref(), &room.name),
        listening: room.listening,
        primary_actions: primary,
        chosen_actions: room.chosen_actions.clone(),
        available_actions: available,
        action_values: values,
        quiet_hours_start: room.quiet_hours_start,
        quiet_hours_end: room.quiet_hours_end,
        things: members.iter().map(|m| m.thing.clone()).collect(),
        devices: members
            .iter()
            .filter_map(|m| match &m.source {
                Source::Device { row, .. } => Some((**row).clone()),
                Source::Endpoint(_) => None,
            })
            .collect(),
        endpoints: members
            .iter()
            .filter_map(|m| match &m.source {
                Source::Endpoint(record) => Some(endpoint_object(record)),
                Source::Device { .. } => None,
            })
            .collect(),
    }
}

// ---------------------------------------------------------------------------
// List, suggestions, create

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct RoomListQuery {
    pub tenant_id: TenantId,
    pub property_id: PropertyId,
    /// Items per page, 1 to 200 (default 50).
    pub limit: Option<u32>,
    /// The `nextCursor` of the previous page.
    pub cursor: Option<String>,
}

/// A home's rooms as resolved views, oldest first.
#[utoipa::path(
    get,
    path = "/v1/rooms",
    tag = "homes",
    operation_id = "listRooms",
    params(RoomListQuery),
    security(("bearer" = ["things:read"])),
    responses(
        (status = 200, description = "One page of room views", body = ListResponse<RoomView>),
        BadPropertyPage,
        NoValidToken,
        KeyWithoutThingsRead,
        NoSuchProperty,
    )
)]
pub async fn list_rooms(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiQuery(query): ApiQuery<RoomListQuery>,
) -> Result<Json<ListResponse<RoomView>>, ApiError> {
    let paging = PageParams::new(query.limit, query.cursor).paging();
    let found =
        rooms::rooms_page(&state, &caller, query.tenant_id, query.property_id, &paging).await?;
    Ok(listed(found, |(room, members)| room_view(&room, &members)))
}

/// A name the add-a-room flow offers.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RoomSuggestion {
    pub name: String,
    /// The icon a room of this name gets.
    pub icon: String,
}

/// Names for the add-a-room flow (the list discovery names rooms from).
/// Always one page.
#[utoipa::path(
    get,
    path = "/v1/rooms/suggestions",
    tag = "homes",
    operation_id = "listRoomSuggestions",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The suggestions (one page)", body = ListResponse<RoomSuggestion>),
        NoValidToken,
    )
)]
pub async fn room_suggestions(Caller(_caller): Caller) -> Json<ListResponse<RoomSuggestion>> {
    Json(ListResponse {
        items: ROOM_SUGGESTIONS
            .iter()
            .map(|name| RoomSuggestion {
                name: (*name).to_owned(),
                icon: room::default_icon(name).to_owned(),
            })
            .collect(),
        next_cursor: None,
    })
}

/// The body of `POST /v1/rooms`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateRoomRequest {
    /// The tenant; may come as the `tenantId` query parameter instead (like
    /// every household operation). When both are given they must agree.
    #[serde(default)]
    pub tenant_id: Option<TenantId>,
    pub property_id: PropertyId,
    #[schema(min_length = 1, max_length = 80)]
    pub name: String,
    /// A token of the room-icon set; derived from the name when left out.
    #[serde(default)]
    #[schema(nullable = false)]
    pub icon: Option<String>,
}

/// Creates a room in a home (configuration).
#[utoipa::path(
    post,
    path = "/v1/rooms",
    tag = "homes",
    operation_id = "createRoom",
    params(TenantQuery),
    request_body = CreateRoomRequest,
    security(("bearer" = ["rooms:write"])),
    responses(
        (status = 201, description = "The new room's view", body = RoomView),
        (status = 400, description = "A field is wrong (named in `field`): tenantId (missing, or the query's and the body's differ), name, icon", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        MayNotConfigureHome,
        NoSuchProperty,
    )
)]
pub async fn create_room(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiQuery(query): ApiQuery<TenantQuery>,
    ApiJson(body): ApiJson<CreateRoomRequest>,
) -> Result<(StatusCode, Json<RoomView>), ApiError> {
    let tenant = query.or_body(body.tenant_id)?;
    let record = rooms::create_room(
        &state,
        &caller,
        tenant,
        body.property_id,
        &body.name,
        body.icon,
    )
    .await?;
    Ok((StatusCode::CREATED, Json(room_view(&record, &[]))))
}

// ---------------------------------------------------------------------------
// One room

/// One room's resolved view.
#[utoipa::path(
    get,
    path = "/v1/rooms/{roomId}",
    tag = "homes",
    operation_id = "getRoom",
    params(("roomId" = RoomId, Path, description = "The room"), TenantParam),
    security(("bearer" = ["things:read"])),
    responses(
        (status = 200, description = "The resolved room view", body = RoomView),
        BadTenantOrRoom,
        NoValidToken,
        KeyWithoutThingsRead,
        NoSuchRoom,
    )
)]
pub async fn get_room(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(room_id): ApiPath<RoomId>,
    ApiQuery(query): ApiQuery<TenantParam>,
) -> Result<Json<RoomView>, ApiError> {
    let (room, members) = rooms::seen_room(&state, &caller, query.tenant_id, room_id).await?;
    Ok(Json(room_view(&room, &members)))
}

/// The body of `PATCH /v1/rooms/{roomId}`: every field optional; a field
/// left out keeps its value.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PatchRoomRequest {
    #[serde(default)]
    #[schema(nullable = false, min_length = 1, max_length = 80)]
    pub name: Option<String>,
    /// A token of the room-icon set; null derives it from the name again.
    #[serde(default, deserialize_with = "crate::conventions::extract::present")]
    #[schema(value_type = Option<String>)]
    pub icon: Option<Option<String>>,
    /// Whether voice-capable things listen (control; the others are
    /// configuration).
    #[serde(default)]
    #[schema(nullable = false)]
    pub listening: Option<bool>,
    /// Up to 8 tile actions in order of preference (the first two the room
    /// serves are primary); null means the defaults.
    #[serde(default, deserialize_with = "crate::conventions::extract::present")]
    #[schema(value_type = Option<Vec<ActionRef>>)]
    pub chosen_actions: Option<Option<Vec<ActionRef>>>,
    /// Whole hour 0-23 (the home's time zone), with `quietHoursEnd`.
    #[serde(default, deserialize_with = "crate::conventions::extract::present")]
    #[schema(value_type = Option<i64>, minimum = 0, maximum = 23)]
    pub quiet_hours_start: Option<Option<i64>>,
    #[serde(default, deserialize_with = "crate::conventions::extract::present")]
    #[schema(value_type = Option<i64>, minimum = 0, maximum = 23)]
    pub quiet_hours_end: Option<Option<i64>>,
}

impl From<PatchRoomRequest> for RoomChange {
    fn from(body: PatchRoomRequest) -> Self {
        RoomChange {
            name: body.name,
            icon: body.icon,
            listening: body.listening,
            chosen_actions: body.chosen_actions,
            quiet_hours_start: body.quiet_hours_start,
            quiet_hours_end: body.quiet_hours_end,
        }
    }
}

/// Changes a room; answers its view.
#[utoipa::path(
    patch,
    path = "/v1/rooms/{roomId}",
    tag = "homes",
    operation_id = "patchRoom",
    params(("roomId" = RoomId, Path, description = "The room"), TenantParam),
    request_body = PatchRoomRequest,
    security(("bearer" = ["rooms:write"])),
    responses(
        (status = 200, description = "The room's view after the change", body = RoomView),
        (status = 400, description = "A field is wrong (named in `field`): name, icon, chosenActions[i], quietHoursStart/quietHoursEnd", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        (status = 403, description = "A key without rooms:write (things:control for listening alone), or a caller who may not configure (or control) the room", body = Problem, content_type = "application/problem+json"),
        NoSuchRoom,
        (status = 409, description = "The room kept changing", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn patch_room(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(room_id): ApiPath<RoomId>,
    ApiQuery(query): ApiQuery<TenantParam>,
    ApiJson(body): ApiJson<PatchRoomRequest>,
) -> Result<Json<RoomView>, ApiError> {
    let change = RoomChange::from(body);
    let (room, members) =
        rooms::change_room(&state, &caller, query.tenant_id, room_id, &change).await?;
    Ok(Json(room_view(&room, &members)))
}

/// Deletes a room; its members stay in the house with no room.
#[utoipa::path(
    delete,
    path = "/v1/rooms/{roomId}",
    tag = "homes",
    operation_id = "deleteRoom",
    params(("roomId" = RoomId, Path, description = "The room"), TenantParam),
    security(("bearer" = ["rooms:write"])),
    responses(
        (status = 204, description = "Deleted; the members have no room"),
        BadTenantOrRoom,
        NoValidToken,
        MayNotConfigureRoom,
        NoSuchRoom,
        (status = 409, description = "A member kept changing; the room is still there", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn delete_room(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(room_id): ApiPath<RoomId>,
    ApiQuery(query): ApiQuery<TenantParam>,
) -> Result<StatusCode, ApiError> {
    rooms::delete_room(&state, &caller, query.tenant_id, room_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The body of `POST /v1/rooms/{roomId}/merge`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MergeRoomsRequest {
    /// The tenant; may come as the `tenantId` query parameter instead (like
    /// every household operation). When both are given they must agree.
    #[serde(default)]
    pub tenant_id: Option<TenantId>,
    /// Rooms of the same home merged into the room of the path, in this
    /// order (1-20, distinct, not the kept room).
    #[schema(min_items = 1, max_items = 20)]
    pub from: Vec<RoomId>,
}

/// The answer of a merge.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MergeResult {
    /// The kept room after the merge.
    pub room: RoomView,
    /// Rooms whose members moved and which are removed, in order.
    pub merged: Vec<RoomId>,
    /// The room whose step failed (its members may be partly moved; it
    /// still exists), if one did.
    #[schema(required = true)]
    pub failed: Option<MergeFailure>,
    /// Rooms after the failed one, left as they were.
    pub not_processed: Vec<RoomId>,
}

/// Merges rooms into this one: members moved, the others removed.
#[utoipa::path(
    post,
    path = "/v1/rooms/{roomId}/merge",
    tag = "homes",
    operation_id = "mergeRooms",
    params(("roomId" = RoomId, Path, description = "The room that is kept"), TenantQuery),
    request_body = MergeRoomsRequest,
    security(("bearer" = ["rooms:write"])),
    responses(
        (status = 200, description = "What was merged; a failed step stops the merge (later rooms are not processed)", body = MergeResult),
        (status = 400, description = "A field is wrong (named in `field`): from (empty, too long, repeated or naming the kept room), from[i] (not a room of the same home)", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        MayNotConfigureRoom,
        NoSuchRoom,
    )
)]
pub async fn merge_rooms(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(room_id): ApiPath<RoomId>,
    ApiQuery(query): ApiQuery<TenantQuery>,
    ApiJson(body): ApiJson<MergeRoomsRequest>,
) -> Result<Json<MergeResult>, ApiError> {
    let tenant = query.or_body(body.tenant_id)?;
    let done = rooms::merge_rooms(&state, &caller, tenant, room_id, &body.from).await?;
    Ok(Json(MergeResult {
        room: room_view(&done.room, &done.members),
        merged: done.merged,
        failed: done.failed,
        not_processed: done.not_processed,
    }))
}

// ---------------------------------------------------------------------------
// Actions

/// A run-action request (spec: Resources > Room and overview).
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunActionRequest {
    /// A capability id.
    #[schema(pattern = r"^[a-z_]+(\.[a-z_]+)?$")]
    pub capability: String,
    #[schema(min_length = 1, max_length = 80)]
    pub action: String,
    /// The value to set (a toggle or lock action without one flips the
    /// current value; an unknown one becomes true).
    #[serde(default)]
    pub value: Option<Value>,
    /// The tenant; may come as the `tenantId` query parameter instead (like
    /// every household operation). When both are given they must agree.
    #[serde(default)]
    pub tenant_id: Option<TenantId>,
}

impl RunActionRequest {
    /// The tenant the action names, from the query or the body.
    pub(crate) fn tenant(&self, query: &TenantQuery) -> Result<TenantId, ApiError> {
        query.or_body(self.tenant_id)
    }

    pub(crate) fn reference(&self) -> Result<ActionRef, ApiError> {
        let action = ActionRef::new(&self.capability, &self.action);
        action.check().map_err(|e| {
            let field = if e.starts_with("capability") {
                "capability"
            } else {
                "action"
            };
            ApiError::validation(field, e)
        })?;
        Ok(action)
    }
}

/// Runs a room action on the room's members as they are now.
#[utoipa::path(
    post,
    path = "/v1/rooms/{roomId}/actions",
    tag = "homes",
    operation_id = "runRoomAction",
    params(("roomId" = RoomId, Path, description = "The room"), TenantQuery),
    request_body = RunActionRequest,
    security(("bearer" = ["things:control"])),
    responses(
        (status = 200, description = "Per thing: applied, skipped or failed (with the reason)", body = ActionResult),
        (status = 400, description = "A field is wrong (named in `field`): capability, action, value, tenantId (missing, or the query's and the body's differ)", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        MayNotControlThings,
        NoSuchRoom,
    )
)]
pub async fn run_room_action(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(room_id): ApiPath<RoomId>,
    ApiQuery(query): ApiQuery<TenantQuery>,
    ApiJson(body): ApiJson<RunActionRequest>,
) -> Result<Json<ActionResult>, ApiError> {
    let tenant = body.tenant(&query)?;
    let action = body.reference()?;
    let result = rooms::run_room_action(
        &state,
        &caller,
        tenant,
        room_id,
        &action,
        body.value.as_ref(),
    )
    .await?;
    Ok(Json(result))
}
