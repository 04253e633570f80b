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

use std::collections::BTreeMap;

use crate::routing::{Operations, operations};
use alyt_domain::ids::{PropertyId, RoomId, TenantId};
use alyt_domain::room::{
    self, ActionRef, ActionValue, AvailableAction, ROOM_ICONS, ROOM_SUGGESTIONS,
};
use alyt_store::PageKey;
use alyt_store::repo::devices::{DeviceRecord, Devices};
use alyt_store::repo::integrations::HomeThings;
use alyt_store::repo::rooms::home_rooms;
use alyt_store::repo::rooms::{RoomRecord, Rooms};
use alyt_store::repo::tenancy::PropertyRecord;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

use crate::access::{HomeAccess, home_for, no_such_room, room_for};
use crate::auth::Caller;
use crate::conventions::extract::{ApiJson, ApiPath, ApiQuery};
use crate::conventions::list::{ListResponse, PageParams};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{
    BadPropertyPage, BadTenantOrRoom, KeyWithoutThingsRead, MayNotConfigureHome,
    MayNotConfigureRoom, MayNotControlThings, NoSuchProperty, NoSuchRoom, NoValidToken,
};
use crate::conventions::tenant::TenantQuery;
use crate::groups::devices::{Device, TenantParam, Thing};
use crate::groups::homes::endpoints::{Endpoint, endpoint_object};
use crate::{ApiError, AppState};

pub use alyt_app::rooms::{ActionResult, AppliedThing, ThingOutcome};
pub(crate) use alyt_app::rooms::{
    MemberThing, Source, apply_room_action, as_members, home_things, in_room, member_things,
    members_from_views, rewrite_room, run_on_members, send_listening, set_listening,
    skip_unchanged, unchanged_reason, value_for,
};

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

/// The view of one room read fresh: 1 gsi1 query per 1,000 things of the
/// home + 1 batch get per 50 member devices.
pub(crate) async fn read_room_view(
    state: &AppState,
    room: &RoomRecord,
) -> Result<(RoomView, Vec<MemberThing>), ApiError> {
    let things = home_things(&*state.store, room.tenant_id, room.property_id).await?;
    let members = member_things(state, in_room(&things, room.id)).await?;
    Ok((room_view(room, &members), members))
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
    let page = PageParams::new(query.limit, query.cursor);
    let limit = page.limit()?;
    let after = page.after_within(&home_rooms(query.property_id))?;
    let property = home_for(
        &state,
        &caller,
        query.tenant_id,
        query.property_id,
        HomeAccess::See,
    )
    .await?;
    let (items, next) = room_views_page(&state, &property, limit, after).await?;
    Ok(Json(ListResponse::page(items, next.as_ref())))
}

/// One page of a home's rooms, each with the rows of its things (one batch
/// of thing rows for every listed room).
async fn room_views_page(
    state: &AppState,
    property: &PropertyRecord,
    limit: u32,
    after: Option<PageKey>,
) -> Result<(Vec<RoomView>, Option<PageKey>), ApiError> {
    let (rooms, next) = Rooms(&*state.store).page(property.id, limit, after).await?;
    let things = if rooms.is_empty() {
        HomeThings::default()
    } else {
        home_things(&*state.store, property.tenant_id, property.id).await?
    };
    let listed = |r: Option<RoomId>| r.is_some_and(|r| rooms.iter().any(|room| room.id == r));
    let listed = HomeThings {
        devices: things
            .devices
            .into_iter()
            .filter(|d| listed(d.room_id))
            .collect(),
        endpoints: things
            .endpoints
            .into_iter()
            .filter(|e| listed(e.room_id))
            .collect(),
    };
    let mut by_room: BTreeMap<RoomId, Vec<MemberThing>> = BTreeMap::new();
    for member in member_things(state, listed).await? {
        if let Some(room) = member.thing.room_id {
            by_room.entry(room).or_default().push(member);
        }
    }
    let views = rooms
        .iter()
        .map(|room| room_view(room, by_room.get(&room.id).map_or(&[][..], Vec::as_slice)))
        .collect();
    Ok((views, next))
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

fn check_icon(icon: Option<String>) -> Result<Option<String>, ApiError> {
    match icon {
        Some(token) if !room::is_room_icon(&token) => Err(ApiError::validation(
            "icon",
            format!(
                "icon must be one of the room icons: {}",
                ROOM_ICONS.join(", ")
            ),
        )),
        other => Ok(other),
    }
}

fn check_name(name: &str) -> Result<String, ApiError> {
    room::check_name(name).map_err(|e| ApiError::validation("name", e))
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
    let name = check_name(&body.name)?;
    let icon = check_icon(body.icon)?;
    let property = home_for(
        &state,
        &caller,
        tenant,
        body.property_id,
        HomeAccess::Configure,
    )
    .await?;
    let mut record = RoomRecord::new(property.tenant_id, property.id, &name, state.clock.now());
    record.icon = icon;
    Rooms(&*state.store).create(&record).await?;
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
    Ok(Json(
        seen_room_view(&state, &caller, query.tenant_id, room_id).await?,
    ))
}

/// The view of room `room_id` when the caller may see it, in three store
/// calls: where the room is, the home's things, and one batch of the room,
/// the home and the things' states. The caller's reach is decided on what
/// was read, before anything is answered.
pub(crate) async fn seen_room_view(
    state: &AppState,
    caller: &alyt_domain::access::Principal,
    tenant: TenantId,
    room_id: RoomId,
) -> Result<RoomView, ApiError> {
    // Refused before any read: a key without the scope, another tenant.
    caller.require_scope(HomeAccess::See.scope())?;
    crate::access::tenant_gate(caller, tenant, no_such_room)?;
    let at = Rooms(&*state.store)
        .locate(room_id)
        .await?
        .filter(|at| at.tenant_id == tenant)
        .ok_or_else(no_such_room)?;
    let things = home_things(&*state.store, tenant, at.property_id).await?;
    let in_room = in_room(&things, room_id);
    let (room_key, home_key) = (
        alyt_store::repo::rooms::room_key(at.property_id, room_id),
        alyt_store::repo::tenancy::property_key(tenant, at.property_id),
    );
    let (views, mut extra) = Devices(&*state.store)
        .views_and(
            in_room.devices.clone(),
            vec![room_key.clone(), home_key.clone()],
        )
        .await?;
    let room: Option<RoomRecord> = extra.remove(&room_key).map(|i| i.to_record()).transpose()?;
    let home: Option<PropertyRecord> =
        extra.remove(&home_key).map(|i| i.to_record()).transpose()?;
    let (room, _) = crate::access::room_reached(caller, tenant, room, home, HomeAccess::See)?;
    let members = members_from_views(state, in_room, views);
    Ok(room_view(&room, &members))
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

impl PatchRoomRequest {
    /// Whether the patch changes configuration (anything but `listening`).
    fn configures(&self) -> bool {
        self.name.is_some()
            || self.icon.is_some()
            || self.chosen_actions.is_some()
            || self.quiet_hours_start.is_some()
            || self.quiet_hours_end.is_some()
    }

    /// Checks the fields that need no stored room.
    fn check(&self) -> Result<(), ApiError> {
        if let Some(name) = &self.name {
            check_name(name)?;
        }
        if let Some(Some(icon)) = &self.icon {
            check_icon(Some(icon.clone()))?;
        }
        if let Some(Some(chosen)) = &self.chosen_actions {
            if chosen.len() > room::CHOSEN_ACTIONS_MAX {
                return Err(ApiError::validation(
                    "chosenActions",
                    format!("at most {} chosen actions", room::CHOSEN_ACTIONS_MAX),
                ));
            }
            for (i, action) in chosen.iter().enumerate() {
                action
                    .check()
                    .map_err(|e| ApiError::validation(format!("chosenActions[{i}]"), e))?;
            }
        }
        Ok(())
    }

    /// `room` with the patch applied (quiet hours checked as they result).
    fn apply(&self, room: &RoomRecord) -> Result<RoomRecord, alyt_app::Error> {
        let mut next = room.clone();
        if let Some(name) = &self.name {
            next.name =
                room::check_name(name).map_err(|e| alyt_app::Error::validation("name", e))?;
        }
        if let Some(icon) = &self.icon {
            next.icon = icon.clone();
        }
        if let Some(listening) = self.listening {
            next.listening = listening;
        }
        if let Some(chosen) = &self.chosen_actions {
            next.chosen_actions = chosen.clone();
        }
        if let Some(start) = self.quiet_hours_start {
            next.quiet_hours_start = start;
        }
        if let Some(end) = self.quiet_hours_end {
            next.quiet_hours_end = end;
        }
        room::check_quiet_hours(next.quiet_hours_start, next.quiet_hours_end).map_err(|e| {
            let field = if self.quiet_hours_start.is_some() {
                "quietHoursStart"
            } else {
                "quietHoursEnd"
            };
            alyt_app::Error::validation(field, e)
        })?;
        Ok(next)
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
    body.check()?;
    let needed = if body.configures() {
        HomeAccess::Configure
    } else {
        HomeAccess::Control
    };
    let (room, _) = room_for(&state, &caller, query.tenant_id, room_id, needed).await?;
    let (room, before) = rewrite_room(&state, room, |r| body.apply(r)).await?;
    let (view, members) = read_room_view(&state, &room).await?;
    if room.listening != before.listening {
        let outcome = send_listening(&state, room.tenant_id, &members, room.listening).await;
        if !outcome.failed.is_empty() {
            tracing::info!(room = %room.id, failed = outcome.failed.len(), "some voice members were not told the room's listening");
        }
    }
    Ok(Json(view))
}

/// Moves `device` to `room` (None: no room), conditioned on its
/// `updatedAt` (re-read on a race, at most four tries). A device that
/// vanished meanwhile is left alone.
pub(crate) async fn move_device(
    state: &AppState,
    mut device: DeviceRecord,
    room: Option<RoomId>,
) -> Result<(), ApiError> {
    let devices = Devices(&*state.store);
    for _ in 0..4 {
        if device.room_id == room {
            return Ok(());
        }
        let now = state.clock.now();
        let mut updated = device.clone();
        updated.room_id = room;
        updated.updated_at = now.max(device.updated_at + time::Duration::microseconds(1));
        if devices.replace(&updated, device.updated_at).await? {
            return Ok(());
        }
        match devices
            .get(device.tenant_id, device.id)
            .await?
            .filter(|d| d.deleted_at.is_none())
        {
            Some(again) => device = again,
            None => return Ok(()),
        }
    }
    Err(ApiError::conflict(format!(
        "the device {} kept changing; try again",
        device.id
    )))
}

/// Moves every member (devices and endpoints) to `room`. Endpoints are
/// marked placed by a person: discovery never moves them again.
async fn move_members(
    state: &AppState,
    members: HomeThings,
    room: Option<RoomId>,
) -> Result<(), ApiError> {
    for device in members.devices {
        move_device(state, device, room).await?;
    }
    for endpoint in members.endpoints {
        crate::groups::homes::endpoints::move_endpoint(state, endpoint, room).await?;
    }
    Ok(())
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
    let (room, _) = room_for(
        &state,
        &caller,
        query.tenant_id,
        room_id,
        HomeAccess::Configure,
    )
    .await?;
    let things = home_things(&*state.store, room.tenant_id, room.property_id).await?;
    move_members(&state, in_room(&things, room.id), None).await?;
    Rooms(&*state.store).delete(&room).await?;
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

/// A room that could not be merged.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MergeFailure {
    pub room_id: RoomId,
    pub reason: String,
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

/// Most rooms one merge takes.
const MERGE_MAX: usize = 20;

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
    check_merge_sources(room_id, &body.from)?;
    let (kept, _) = room_for(&state, &caller, tenant, room_id, HomeAccess::Configure).await?;
    Ok(Json(merge_into(&state, &kept, &body.from).await?))
}

/// 1 to MERGE_MAX rooms, each once, none of them the kept one.
fn check_merge_sources(kept: RoomId, from: &[RoomId]) -> Result<(), ApiError> {
    if from.is_empty() || from.len() > MERGE_MAX {
        return Err(ApiError::validation(
            "from",
            format!("from names 1 to {MERGE_MAX} rooms"),
        ));
    }
    for (i, id) in from.iter().enumerate() {
        if *id == kept || from[..i].contains(id) {
            return Err(ApiError::validation(
                format!("from[{i}]"),
                "from names other rooms than the kept one, each once",
            ));
        }
    }
    Ok(())
}

/// Moves the things of each room of `from` (rooms of the kept room's home,
/// 400 naming the first that is not) into `kept` and deletes that room, in
/// order; the first failure stops the merge and the rest are reported as
/// not processed.
async fn merge_into(
    state: &AppState,
    kept: &RoomRecord,
    from: &[RoomId],
) -> Result<MergeResult, ApiError> {
    let rooms = Rooms(&*state.store);
    let mut merging = Vec::with_capacity(from.len());
    for (i, id) in from.iter().enumerate() {
        let found = rooms
            .find(kept.tenant_id, *id)
            .await?
            .filter(|r| r.property_id == kept.property_id);
        match found {
            Some(room) => merging.push(room),
            None => {
                return Err(ApiError::validation(
                    format!("from[{i}]"),
                    "no such room in the kept room's home",
                ));
            }
        }
    }
    let things = home_things(&*state.store, kept.tenant_id, kept.property_id).await?;
    let mut merged = Vec::new();
    let mut failed = None;
    let mut not_processed = Vec::new();
    for room in merging {
        if failed.is_some() {
            not_processed.push(room.id);
            continue;
        }
        let step = async {
            move_members(state, in_room(&things, room.id), Some(kept.id)).await?;
            rooms.delete(&room).await?;
            Ok::<_, ApiError>(())
        };
        match step.await {
            Ok(()) => merged.push(room.id),
            Err(e) => {
                failed = Some(MergeFailure {
                    room_id: room.id,
                    reason: e.detail,
                })
            }
        }
    }
    let (view, _) = read_room_view(state, kept).await?;
    Ok(MergeResult {
        room: view,
        merged,
        failed,
        not_processed,
    })
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
    let (room, _) = room_for(&state, &caller, tenant, room_id, HomeAccess::Control).await?;
    let result = apply_room_action(&state, room, &action, body.value.as_ref()).await?;
    Ok(Json(result))
}
