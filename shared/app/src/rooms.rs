//! A room's members as things, and room actions: one action fanned out
//! over the members as they are now, one command per member through its
//! command path (devices: the broker; endpoints: their connector). A room's
//! request and a routine's room step run the same [`apply_room_action`].

use std::collections::BTreeMap;

use alyt_domain::capability::RoomActionPrimitive;
use alyt_domain::device::{CommandId, CommandRequest};
use alyt_domain::ids::{IntegrationId, PropertyId, RoomId, TenantId};
use alyt_domain::room::{self, ActionRef, ActionValue, AvailableAction, Member, MemberPlan};
use alyt_store::Store;
use alyt_store::repo::devices::{DeviceRecord, Devices};
use alyt_store::repo::integrations::{EndpointRecord, HomeThings, Integrations};
use alyt_store::repo::rooms::{RoomRecord, Rooms};
use serde::Serialize;
use serde_json::Value;
use uuid::Uuid;

use crate::access::no_such_room;
use crate::endpoints::Installed;
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
