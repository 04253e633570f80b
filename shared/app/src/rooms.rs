//! Rooms: a room's members as things, reading rooms with their members,
//! configuring them (create, rename, icon, tile actions, quiet hours,
//! delete, merge) and room actions: one action fanned out over the members
//! as they are now, one command per member through its command path
//! (devices: the broker; endpoints: their connector). A room's request and
//! a routine's room step run the same [`apply_room_action`].
//!
//! Who: the rule of rooms ([`crate::access`]): any member of the household
//! sees its homes and controls their rooms, a GUEST only its pinned home;
//! configuring a room needs the household's OWNER (or tenant
//! ADMIN/INSTALLER, keys bound to the tenant, platform OWNER/STAFF);
//! setting `listening` alone is control. Keys need `things:read` to read,
//! `things:control` to control and `rooms:write` to configure. A room or
//! home of another tenant answers exactly like a missing one.

use std::collections::BTreeMap;

use alyt_domain::access::{HomeAccess, Principal};
use alyt_domain::capability::RoomActionPrimitive;
use alyt_domain::device::{CommandId, CommandRequest};
use alyt_domain::ids::{IntegrationId, PropertyId, RoomId, TenantId};
use alyt_domain::room::{
    self, ActionRef, ActionValue, AvailableAction, Member, MemberPlan, ROOM_ICONS,
};
use alyt_store::repo::devices::{DeviceRecord, Devices};
use alyt_store::repo::integrations::{EndpointRecord, HomeThings, Integrations};
use alyt_store::repo::rooms::{RoomRecord, Rooms, home_rooms};
use alyt_store::repo::tenancy::PropertyRecord;
use alyt_store::{PageKey, Store};
use serde::Serialize;
use serde_json::Value;
use uuid::Uuid;

use crate::access::{home_for, no_such_room, room_for, room_reached, tenant_gate};
use crate::endpoints::Installed;
use crate::paging::Paging;
use crate::things::{Device, Thing, device_row, endpoint_thing};
use crate::{App, Error};

/// Where a member comes from: a device (its record, for commands, and its
/// row) or an endpoint (its record, for connector calls).
pub enum Source {
    Device {
        record: Box<DeviceRecord>,
        row: Box<Device>,
    },
    Endpoint(Box<EndpointRecord>),
}

/// A member of a room or home: its Thing view and where it comes from.
pub struct MemberThing {
    pub thing: Thing,
    pub source: Source,
}

impl MemberThing {
    pub fn as_member(&self) -> Member<'_> {
        Member {
            capabilities: &self.thing.capabilities,
            state: &self.thing.state,
        }
    }
}

/// The live things of a home (of this tenant; deleted devices are out of
/// the index): one gsi1 query per 1,000 devices and endpoints.
pub async fn home_things(
    store: &dyn Store,
    tenant: TenantId,
    property: PropertyId,
) -> Result<HomeThings, Error> {
    Ok(Integrations(store).home_things(tenant, property).await?)
}

/// Members for these things, devices first, each in id order: one batch
/// get per 50 devices (endpoints need no read).
pub async fn member_things(app: &App, things: HomeThings) -> Result<Vec<MemberThing>, Error> {
    let views = Devices(&*app.store).views(things.devices.clone()).await?;
    Ok(members_from_views(app, things, views))
}

/// Members for these things from their devices' views (in the devices' order).
pub fn members_from_views(
    app: &App,
    things: HomeThings,
    views: Vec<alyt_store::repo::devices::DeviceView>,
) -> Vec<MemberThing> {
    let now = app.clock.now();
    let devices = things.devices.into_iter().zip(views).map(|(record, view)| {
        let row = device_row(view, now);
        MemberThing {
            thing: row.thing.clone(),
            source: Source::Device {
                record: Box::new(record),
                row: Box::new(row),
            },
        }
    });
    let endpoints = things.endpoints.into_iter().map(|record| MemberThing {
        thing: endpoint_thing(&record, now),
        source: Source::Endpoint(Box::new(record)),
    });
    devices.chain(endpoints).collect()
}

pub fn as_members(members: &[MemberThing]) -> Vec<Member<'_>> {
    members.iter().map(MemberThing::as_member).collect()
}

/// The things of `room` among a home's things.
pub fn in_room(things: &HomeThings, room: RoomId) -> HomeThings {
    HomeThings {
        devices: things
            .devices
            .iter()
            .filter(|d| d.room_id == Some(room))
            .cloned()
            .collect(),
        endpoints: things
            .endpoints
            .iter()
            .filter(|e| e.room_id == Some(room))
            .cloned()
            .collect(),
    }
}

/// Writes `change(room)` conditioned on the room's rev, reading it again
/// when it changed in between (at most four tries). Answers the stored room
/// and the one it replaced.
pub async fn rewrite_room(
    app: &App,
    mut room: RoomRecord,
    change: impl Fn(&RoomRecord) -> Result<RoomRecord, Error>,
) -> Result<(RoomRecord, RoomRecord), Error> {
    let rooms = Rooms(&*app.store);
    for _ in 0..4 {
        let mut next = change(&room)?;
        if next == room {
            return Ok((room.clone(), room));
        }
        if rooms.replace(&next, room.rev).await? {
            next.rev = room.rev + 1;
            return Ok((next, room));
        }
        room = rooms
            .get(room.property_id, room.id)
            .await?
            .ok_or_else(no_such_room)?;
    }
    Err(Error::conflict("the room kept changing; try again"))
}

/// A thing the action reached.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AppliedThing {
    pub thing_id: Uuid,
    pub name: String,
    /// The command sent to a device (see its command history); absent for
    /// an endpoint, whose connector applied it at once.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub command_id: Option<CommandId>,
}

/// A thing the action skipped or failed on.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ThingOutcome {
    pub thing_id: Uuid,
    pub name: String,
    pub reason: String,
}

/// Per-thing outcome of a room or property action.
#[derive(Debug, Clone, Default, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ActionResult {
    pub capability: String,
    pub action: String,
    /// The value sent (null when no member offers the action).
    pub value: Value,
    /// Devices: commands accepted and published (the state changes when
    /// the device reports back). Endpoints: applied by the connector (the
    /// state it read back is stored).
    pub applied: Vec<AppliedThing>,
    /// Things that do not offer the action, or for listening whose room
    /// already had that choice.
    pub skipped: Vec<ThingOutcome>,
    /// Things the command could not be sent to, with the reason.
    pub failed: Vec<ThingOutcome>,
}

impl ActionResult {
    pub fn new(action: &ActionRef, value: &Value) -> Self {
        Self {
            capability: action.capability.clone(),
            action: action.action.clone(),
            value: value.clone(),
            ..Self::default()
        }
    }

    pub fn outcome(member: &MemberThing, reason: impl Into<String>) -> ThingOutcome {
        ThingOutcome {
            thing_id: member.thing.id,
            name: member.thing.name.clone(),
            reason: reason.into(),
        }
    }
}

pub const RADIO_ONLY: &str =
    "reachable only through a hub radio; the platform cannot command it directly";

/// The installed connectors met during one action, read once each.
#[derive(Default)]
pub struct ConnectorCache(BTreeMap<IntegrationId, Result<Installed, String>>);

impl ConnectorCache {
    pub async fn get(
        &mut self,
        app: &App,
        tenant: TenantId,
        integration: IntegrationId,
    ) -> Result<Installed, String> {
        if let Some(found) = self.0.get(&integration) {
            return found.clone();
        }
        let found = crate::endpoints::installed(app, tenant, integration)
            .await
            .map_err(|e| e.detail);
        self.0.insert(integration, found.clone());
        found
    }
}

/// One member of an action: skipped when it does not offer it, is a siren
/// or is a disabled endpoint; for a device, failed when it is a hub child
/// or the command path refuses the command (its reason), applied when the
/// command is accepted and published; for an endpoint, applied when its
/// connector applied it (the read-back stored), failed with the refusal or
/// why it was unreachable.
async fn run_one(
    app: &App,
    tenant: TenantId,
    member: &MemberThing,
    action: &ActionRef,
    value: &Value,
    connectors: &mut ConnectorCache,
    result: &mut ActionResult,
) {
    let siren = match &member.source {
        Source::Device { record, .. } => alyt_domain::security::enrolment::is_siren(
            &record.known_capabilities(),
            &record.features,
        ),
        Source::Endpoint(record) => alyt_domain::security::enrolment::is_siren(
            &record.known_capabilities(),
            &record.features,
        ),
    };
    if siren {
        result.skipped.push(ActionResult::outcome(
            member,
            "a siren is home security's output, not part of room actions",
        ));
        return;
    }
    if matches!(&member.source, Source::Endpoint(record) if !record.enabled) {
        result
            .skipped
            .push(ActionResult::outcome(member, "the thing is disabled"));
        return;
    }
    let (capability, key, value) = match room::plan_member(action, value, &member.as_member()) {
        MemberPlan::Skip(reason) => {
            result.skipped.push(ActionResult::outcome(member, reason));
            return;
        }
        MemberPlan::Set {
            capability,
            key,
            value,
        } => (capability, key, value),
    };
    let request = CommandRequest::Set {
        capability,
        key,
        value,
    };
    match &member.source {
        Source::Device { record, .. } => {
            if record.parent_device_id.is_some() {
                result
                    .failed
                    .push(ActionResult::outcome(member, RADIO_ONLY));
                return;
            }
            match crate::commands::accept_and_publish(app, tenant, record, request).await {
                Ok(row) => result.applied.push(AppliedThing {
                    thing_id: member.thing.id,
                    name: member.thing.name.clone(),
                    command_id: Some(row.command_id),
                }),
                Err(e) => result.failed.push(ActionResult::outcome(member, e.detail)),
            }
        }
        Source::Endpoint(record) => {
            let installed = match connectors.get(app, tenant, record.integration_id).await {
                Ok(installed) => installed,
                Err(why) => {
                    result.failed.push(ActionResult::outcome(member, why));
                    return;
                }
            };
            match crate::endpoints::command_endpoint(app, &installed, (**record).clone(), request)
                .await
            {
                Ok(_) => result.applied.push(AppliedThing {
                    thing_id: member.thing.id,
                    name: member.thing.name.clone(),
                    command_id: None,
                }),
                Err(failure) => result
                    .failed
                    .push(ActionResult::outcome(member, failure.reason())),
            }
        }
    }
}

/// Fans `action = value` out over `members` (resolved at run time), one
/// command per member through its command path (devices: the broker;
/// endpoints: their connector).
pub async fn run_on_members(
    app: &App,
    tenant: TenantId,
    members: &[MemberThing],
    action: &ActionRef,
    value: &Value,
    result: &mut ActionResult,
) {
    let mut connectors = ConnectorCache::default();
    for member in members {
        run_one(app, tenant, member, action, value, &mut connectors, result).await;
    }
}

/// Tells the voice members the room's listening choice (`set
/// voice.listening`); the others are skipped.
pub async fn send_listening(
    app: &App,
    tenant: TenantId,
    members: &[MemberThing],
    listening: bool,
) -> ActionResult {
    let action = ActionRef::new(room::VOICE_CAPABILITY, room::LISTENING_ACTION);
    let value = Value::Bool(listening);
    let mut result = ActionResult::new(&action, &value);
    run_on_members(app, tenant, members, &action, &value, &mut result).await;
    result
}

/// The members that offer `action` are skipped with `reason` (a listening
/// choice that did not change); the others as not offering it.
pub fn skip_unchanged(
    members: &[MemberThing],
    action: &ActionRef,
    reason: &str,
    result: &mut ActionResult,
) {
    for member in members {
        let offers = member
            .as_member()
            .offers(&action.capability, &action.action)
            .is_some();
        let why = if offers {
            reason
        } else {
            "the thing does not offer this action"
        };
        result.skipped.push(ActionResult::outcome(member, why));
    }
}

/// The value a request sends: its own, or the flip of the current value of
/// a toggle/lock action; 400 `value` when a slider/stepper action has none,
/// or listening is not a boolean.
pub fn value_for(
    action: &ActionRef,
    requested: Option<&Value>,
    available: &[AvailableAction],
    values: &[ActionValue],
    listening: bool,
) -> Result<Value, Error> {
    if action.is_listening() {
        // The room flag, whether or not a voice member is there yet.
        let value = match requested {
            Some(v) if !v.is_null() => v.clone(),
            _ => Value::Bool(!listening),
        };
        if !value.is_boolean() {
            return Err(Error::validation(
                "value",
                room::ValueError::NotABoolean.to_string(),
            ));
        }
        return Ok(value);
    }
    let Some(offered) = available
        .iter()
        .find(|a| a.capability == action.capability && a.action == action.action)
    else {
        // Nobody offers it: every member is skipped.
        return Ok(requested.cloned().unwrap_or(Value::Null));
    };
    let current = values
        .iter()
        .find(|v| v.capability == action.capability && v.action == action.action)
        .map_or(Value::Null, |v| v.value.clone());
    let value = room::requested_value(offered.primitive, requested, &current)
        .map_err(|e| Error::validation("value", e.to_string()))?;
    let needs_bool = matches!(
        offered.primitive,
        RoomActionPrimitive::Toggle | RoomActionPrimitive::Lock
    );
    if needs_bool && !value.is_boolean() {
        return Err(Error::validation(
            "value",
            format!("a {} action takes true or false", offered.primitive),
        ));
    }
    Ok(value)
}

/// Why a listening member is skipped when the room's choice stands.
pub fn unchanged_reason(listening: bool) -> String {
    format!(
        "the room's listening is already {listening}; the platform commands only when the room's choice changes"
    )
}

/// Sets a room's listening flag; true when it changed.
pub async fn set_listening(
    app: &App,
    room: RoomRecord,
    listening: bool,
) -> Result<(RoomRecord, bool), Error> {
    let (after, before) = rewrite_room(app, room, |r| {
        let mut next = r.clone();
        next.listening = listening;
        Ok(next)
    })
    .await?;
    let changed = after.listening != before.listening;
    Ok((after, changed))
}

/// Runs `action` (with `requested`, or the flip of a toggle) on `room`'s
/// members as they are now: this operation and a routine's room step. The
/// caller has authorized the room.
pub async fn apply_room_action(
    app: &App,
    room: RoomRecord,
    action: &ActionRef,
    requested: Option<&Value>,
) -> Result<ActionResult, Error> {
    let tenant = room.tenant_id;
    let things = home_things(&*app.store, room.tenant_id, room.property_id).await?;
    let members = member_things(app, in_room(&things, room.id)).await?;
    let as_members = as_members(&members);
    let available = room::available_actions(&as_members);
    let values = room::action_values(&available, &as_members, room.listening);
    let value = value_for(action, requested, &available, &values, room.listening)?;
    let mut result = ActionResult::new(action, &value);
    if action.is_listening() {
        let listening = value.as_bool().unwrap_or(true);
        let (_, changed) = set_listening(app, room, listening).await?;
        if changed {
            run_on_members(app, tenant, &members, action, &value, &mut result).await;
        } else {
            skip_unchanged(&members, action, &unchanged_reason(listening), &mut result);
        }
    } else {
        run_on_members(app, tenant, &members, action, &value, &mut result).await;
    }
    Ok(result)
}

// ---------------------------------------------------------------------------
// Reading and configuring rooms

/// The members of one room read fresh: 1 gsi1 query per 1,000 things of the
/// home + 1 batch get per 50 member devices.
pub async fn room_members(app: &App, room: &RoomRecord) -> Result<Vec<MemberThing>, Error> {
    let things = home_things(&*app.store, room.tenant_id, room.property_id).await?;
    member_things(app, in_room(&things, room.id)).await
}

/// A room with its members as they are now.
pub type RoomWithMembers = (RoomRecord, Vec<MemberThing>);

/// One page of the rooms of home `property` (oldest first) when the caller
/// sees it, each with its members (one batch of thing rows for every listed
/// room).
pub async fn rooms_page(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    property: PropertyId,
    paging: &Paging,
) -> Result<(Vec<RoomWithMembers>, Option<PageKey>), Error> {
    let limit = paging.limit()?;
    let after = paging.after_within(&home_rooms(property))?;
    let property = home_for(app, caller, tenant, property, HomeAccess::See).await?;
    let (rooms, next) = Rooms(&*app.store).page(property.id, limit, after).await?;
    let things = if rooms.is_empty() {
        HomeThings::default()
    } else {
        home_things(&*app.store, property.tenant_id, property.id).await?
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
    for member in member_things(app, listed).await? {
        if let Some(room) = member.thing.room_id {
            by_room.entry(room).or_default().push(member);
        }
    }
    let rooms = rooms
        .into_iter()
        .map(|room| {
            let members = by_room.remove(&room.id).unwrap_or_default();
            (room, members)
        })
        .collect();
    Ok((rooms, next))
}

/// A room's icon as asked: a token of the room-icon set, or none (derived
/// from the name).
pub fn check_icon(icon: Option<String>) -> Result<Option<String>, Error> {
    match icon {
        Some(token) if !room::is_room_icon(&token) => Err(Error::validation(
            "icon",
            format!(
                "icon must be one of the room icons: {}",
                ROOM_ICONS.join(", ")
            ),
        )),
        other => Ok(other),
    }
}

/// A room's name as asked, checked.
pub fn check_name(name: &str) -> Result<String, Error> {
    room::check_name(name).map_err(|e| Error::validation("name", e))
}

/// Creates a room named `name` (with `icon`, or the one derived from the
/// name) in home `property`, which the caller configures.
pub async fn create_room(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    property: PropertyId,
    name: &str,
    icon: Option<String>,
) -> Result<RoomRecord, Error> {
    let name = check_name(name)?;
    let icon = check_icon(icon)?;
    let property = home_for(app, caller, tenant, property, HomeAccess::Configure).await?;
    let mut record = RoomRecord::new(property.tenant_id, property.id, &name, app.clock.now());
    record.icon = icon;
    Rooms(&*app.store).create(&record).await?;
    Ok(record)
}

/// Room `room_id` with its members when the caller may see it, in three
/// store calls: where the room is, the home's things, and one batch of the
/// room, the home and the things' states. The caller's reach is decided on
/// what was read, before anything is answered.
pub async fn seen_room(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    room_id: RoomId,
) -> Result<RoomWithMembers, Error> {
    // Refused before any read: a key without the scope, another tenant.
    caller.require_scope(HomeAccess::See.scope())?;
    tenant_gate(caller, tenant, no_such_room)?;
    let at = Rooms(&*app.store)
        .locate(room_id)
        .await?
        .filter(|at| at.tenant_id == tenant)
        .ok_or_else(no_such_room)?;
    let things = home_things(&*app.store, tenant, at.property_id).await?;
    let in_room = in_room(&things, room_id);
    let (room_key, home_key) = (
        alyt_store::repo::rooms::room_key(at.property_id, room_id),
        alyt_store::repo::tenancy::property_key(tenant, at.property_id),
    );
    let (views, mut extra) = Devices(&*app.store)
        .views_and(
            in_room.devices.clone(),
            vec![room_key.clone(), home_key.clone()],
        )
        .await?;
    let room: Option<RoomRecord> = extra.remove(&room_key).map(|i| i.to_record()).transpose()?;
    let home: Option<PropertyRecord> =
        extra.remove(&home_key).map(|i| i.to_record()).transpose()?;
    let (room, _) = room_reached(caller, tenant, room, home, HomeAccess::See)?;
    let members = members_from_views(app, in_room, views);
    Ok((room, members))
}

/// A change of a room: every field optional; a field left out keeps its
/// value (`Some(None)` clears an optional one).
#[derive(Debug, Clone, Default)]
pub struct RoomChange {
    pub name: Option<String>,
    /// `Some(None)`: derived from the name again.
    pub icon: Option<Option<String>>,
    pub listening: Option<bool>,
    /// `Some(None)`: the defaults.
    pub chosen_actions: Option<Option<Vec<ActionRef>>>,
    pub quiet_hours_start: Option<Option<i64>>,
    pub quiet_hours_end: Option<Option<i64>>,
}

impl RoomChange {
    /// Whether the change is configuration (anything but `listening`).
    fn configures(&self) -> bool {
        self.name.is_some()
            || self.icon.is_some()
            || self.chosen_actions.is_some()
            || self.quiet_hours_start.is_some()
            || self.quiet_hours_end.is_some()
    }

    /// Checks the fields that need no stored room.
    fn check(&self) -> Result<(), Error> {
        if let Some(name) = &self.name {
            check_name(name)?;
        }
        if let Some(Some(icon)) = &self.icon {
            check_icon(Some(icon.clone()))?;
        }
        if let Some(Some(chosen)) = &self.chosen_actions {
            if chosen.len() > room::CHOSEN_ACTIONS_MAX {
                return Err(Error::validation(
                    "chosenActions",
                    format!("at most {} chosen actions", room::CHOSEN_ACTIONS_MAX),
                ));
            }
            for (i, action) in chosen.iter().enumerate() {
                action
                    .check()
                    .map_err(|e| Error::validation(format!("chosenActions[{i}]"), e))?;
            }
        }
        Ok(())
    }

    /// `room` with the change applied (quiet hours checked as they result).
    fn apply(&self, room: &RoomRecord) -> Result<RoomRecord, Error> {
        let mut next = room.clone();
        if let Some(name) = &self.name {
            next.name = room::check_name(name).map_err(|e| Error::validation("name", e))?;
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
            Error::validation(field, e)
        })?;
        Ok(next)
    }
}

/// Changes room `room_id`: configuration needs the caller to configure the
/// home, `listening` alone to control it. When the room's listening
/// changes, its voice members are told. Answers the room with its members.
pub async fn change_room(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    room_id: RoomId,
    change: &RoomChange,
) -> Result<RoomWithMembers, Error> {
    change.check()?;
    let needed = if change.configures() {
        HomeAccess::Configure
    } else {
        HomeAccess::Control
    };
    let (room, _) = room_for(app, caller, tenant, room_id, needed).await?;
    let (room, before) = rewrite_room(app, room, |r| change.apply(r)).await?;
    let members = room_members(app, &room).await?;
    if room.listening != before.listening {
        let outcome = send_listening(app, room.tenant_id, &members, room.listening).await;
        if !outcome.failed.is_empty() {
            tracing::info!(room = %room.id, failed = outcome.failed.len(), "some voice members were not told the room's listening");
        }
    }
    Ok((room, members))
}

/// Moves `device` to `room` (None: no room), conditioned on its
/// `updatedAt` (re-read on a race, at most four tries). A device that
/// vanished meanwhile is left alone.
pub async fn move_device(
    app: &App,
    mut device: DeviceRecord,
    room: Option<RoomId>,
) -> Result<(), Error> {
    let devices = Devices(&*app.store);
    for _ in 0..4 {
        if device.room_id == room {
            return Ok(());
        }
        let now = app.clock.now();
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
    Err(Error::conflict(format!(
        "the device {} kept changing; try again",
        device.id
    )))
}

/// Moves every member (devices and endpoints) to `room`. Endpoints are
/// marked placed by a person: discovery never moves them again.
async fn move_members(app: &App, members: HomeThings, room: Option<RoomId>) -> Result<(), Error> {
    for device in members.devices {
        move_device(app, device, room).await?;
    }
    for endpoint in members.endpoints {
        crate::endpoints::move_endpoint(app, endpoint, room).await?;
    }
    Ok(())
}

/// Deletes room `room_id`, which the caller configures; its members stay in
/// the house with no room (each is moved first, then the room is deleted,
/// so a failure leaves a room to delete again).
pub async fn delete_room(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    room_id: RoomId,
) -> Result<(), Error> {
    let (room, _) = room_for(app, caller, tenant, room_id, HomeAccess::Configure).await?;
    let things = home_things(&*app.store, room.tenant_id, room.property_id).await?;
    move_members(app, in_room(&things, room.id), None).await?;
    Rooms(&*app.store).delete(&room).await?;
    Ok(())
}

/// Most rooms one merge takes.
pub const MERGE_MAX: usize = 20;

/// A room that could not be merged.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct MergeFailure {
    pub room_id: RoomId,
    pub reason: String,
}

/// What a merge did: the kept room after it with its members, the rooms
/// merged into it in order, the one whose step failed and those after it.
pub struct Merged {
    pub room: RoomRecord,
    pub members: Vec<MemberThing>,
    pub merged: Vec<RoomId>,
    pub failed: Option<MergeFailure>,
    pub not_processed: Vec<RoomId>,
}

/// 1 to [`MERGE_MAX`] rooms, each once, none of them the kept one.
fn check_merge_sources(kept: RoomId, from: &[RoomId]) -> Result<(), Error> {
    if from.is_empty() || from.len() > MERGE_MAX {
        return Err(Error::validation(
            "from",
            format!("from names 1 to {MERGE_MAX} rooms"),
        ));
    }
    for (i, id) in from.iter().enumerate() {
        if *id == kept || from[..i].contains(id) {
            return Err(Error::validation(
                format!("from[{i}]"),
                "from names other rooms than the kept one, each once",
            ));
        }
    }
    Ok(())
}

/// Merges the rooms of `from` into room `room_id`, which the caller
/// configures: each in order has its members moved to the kept room and is
/// then removed.
pub async fn merge_rooms(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    room_id: RoomId,
    from: &[RoomId],
) -> Result<Merged, Error> {
    check_merge_sources(room_id, from)?;
    let (kept, _) = room_for(app, caller, tenant, room_id, HomeAccess::Configure).await?;
    merge_into(app, kept, from).await
}

/// Moves the things of each room of `from` (rooms of the kept room's home,
/// a bad `from[i]` naming the first that is not) into `kept` and deletes
/// that room, in order; the first failure stops the merge and the rest are
/// reported as not processed.
async fn merge_into(app: &App, kept: RoomRecord, from: &[RoomId]) -> Result<Merged, Error> {
    let rooms = Rooms(&*app.store);
    let mut merging = Vec::with_capacity(from.len());
    for (i, id) in from.iter().enumerate() {
        let found = rooms
            .find(kept.tenant_id, *id)
            .await?
            .filter(|r| r.property_id == kept.property_id);
        match found {
            Some(room) => merging.push(room),
            None => {
                return Err(Error::validation(
                    format!("from[{i}]"),
                    "no such room in the kept room's home",
                ));
            }
        }
    }
    let things = home_things(&*app.store, kept.tenant_id, kept.property_id).await?;
    let mut merged = Vec::new();
    let mut failed = None;
    let mut not_processed = Vec::new();
    for room in merging {
        if failed.is_some() {
            not_processed.push(room.id);
            continue;
        }
        let step = async {
            move_members(app, in_room(&things, room.id), Some(kept.id)).await?;
            rooms.delete(&room).await?;
            Ok::<_, Error>(())
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
    let members = room_members(app, &kept).await?;
    Ok(Merged {
        room: kept,
        members,
        merged,
        failed,
        not_processed,
    })
}

/// Runs `action` (with `requested`, or the flip of a toggle) on the members
/// of room `room_id` as they are now, when the caller controls the room.
pub async fn run_room_action(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    room_id: RoomId,
    action: &ActionRef,
    requested: Option<&Value>,
) -> Result<ActionResult, Error> {
    let (room, _) = room_for(app, caller, tenant, room_id, HomeAccess::Control).await?;
    apply_room_action(app, room, action, requested).await
}
