//! A home at a glance: its rooms with their members, the all-the-house tile
//! (the default actions over every thing of the home) and the things
//! without a room; an action over every thing of the home; and a refresh
//! that asks each connector of the home for its things' state.
//!
//! Who: as rooms ([`crate::access::access_to`]): seeing needs any
//! membership (`things:read` for keys), an action or a refresh control
//! (`things:control`).

use std::collections::{BTreeMap, BTreeSet};

use alyt_domain::access::{HomeAccess, Principal};
use alyt_domain::ids::{IntegrationId, PropertyId, RoomId, TenantId};
use alyt_domain::room::{self, ActionRef, ActionValue, Member};
use alyt_store::repo::integrations::EndpointRecord;
use alyt_store::repo::rooms::{RoomRecord, Rooms};
use alyt_store::repo::tenancy::PropertyRecord;
use serde::Serialize;
use serde_json::Value;

use crate::access::home_for;
use crate::endpoints::{ReadOutcome, installed, read_and_store};
use crate::rooms::{
    ActionResult, MemberThing, ThingOutcome, home_things, member_things, run_on_members,
    send_listening, set_listening, skip_unchanged, unchanged_reason, value_for,
};
use crate::{App, Error};

/// The all-the-house tile.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct House {
    pub primary_actions: Vec<ActionRef>,
    pub action_values: Vec<ActionValue>,
}

/// Everything of a home, read in four calls for up to 50 devices.
pub struct HomeRead {
    pub rooms: Vec<RoomRecord>,
    pub by_room: BTreeMap<RoomId, Vec<MemberThing>>,
    pub unassigned: Vec<MemberThing>,
}

impl HomeRead {
    fn members(&self) -> impl Iterator<Item = &MemberThing> {
        self.by_room.values().flatten().chain(&self.unassigned)
    }

    /// The members of `room` (none when it has none).
    pub fn in_room(&self, room: RoomId) -> &[MemberThing] {
        self.by_room.get(&room).map_or(&[][..], Vec::as_slice)
    }
}

/// The home's rooms and devices (rooms and devices read together, then one
/// batch get per 50 devices).
pub async fn read_home(app: &App, property: &PropertyRecord) -> Result<HomeRead, Error> {
    let rooms_repo = Rooms(&*app.store);
    let (rooms, things) = tokio::try_join!(
        async { Ok::<_, Error>(rooms_repo.all(property.id).await?) },
        home_things(&*app.store, property.tenant_id, property.id)
    )?;
    let known: BTreeSet<RoomId> = rooms.iter().map(|r| r.id).collect();
    let mut by_room: BTreeMap<RoomId, Vec<MemberThing>> = BTreeMap::new();
    let mut unassigned = Vec::new();
    for member in member_things(app, things).await? {
        match member.thing.room_id.filter(|r| known.contains(r)) {
            Some(room) => by_room.entry(room).or_default().push(member),
            None => unassigned.push(member),
        }
    }
    Ok(HomeRead {
        rooms,
        by_room,
        unassigned,
    })
}

/// The house tile, what the home's things offer and the house's listening
/// value, computed once.
pub struct HouseRead {
    pub tile: House,
    pub available: Vec<room::AvailableAction>,
    pub listening: bool,
}

/// The house tile and the house's listening value: true when a room with a
/// voice member listens (or an unassigned voice thing reports listening).
pub fn house(home: &HomeRead) -> HouseRead {
    let members: Vec<Member<'_>> = home.members().map(MemberThing::as_member).collect();
    let offers_voice = |m: &MemberThing| {
        m.as_member()
            .offers(room::VOICE_CAPABILITY, room::LISTENING_ACTION)
            .is_some()
    };
    let listening = home.rooms.iter().any(|r| {
        r.listening
            && home
                .by_room
                .get(&r.id)
                .is_some_and(|ms| ms.iter().any(offers_voice))
    }) || home.unassigned.iter().any(|m| {
        offers_voice(m)
            && m.thing
                .state
                .get("voice.listening")
                .and_then(Value::as_bool)
                .unwrap_or(true)
    });
    let available = room::available_actions(&members);
    let primary_actions = room::resolve_primary(None, &available);
    let action_values = room::action_values(&available, &members, listening);
    HouseRead {
        tile: House {
            primary_actions,
            action_values,
        },
        available,
        listening,
    }
}

/// Home `property` and everything in it, when the caller sees it.
pub async fn overview(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    property: PropertyId,
) -> Result<(PropertyRecord, HomeRead), Error> {
    let property = home_for(app, caller, tenant, property, HomeAccess::See).await?;
    let home = read_home(app, &property).await?;
    Ok((property, home))
}

/// Runs `action` (with `requested`, or the flip of a toggle) over every
/// thing of home `property`, which the caller controls.
pub async fn run_property_action(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    property: PropertyId,
    action: &ActionRef,
    requested: Option<&Value>,
) -> Result<ActionResult, Error> {
    let property = home_for(app, caller, tenant, property, HomeAccess::Control).await?;
    let home = read_home(app, &property).await?;
    let HouseRead {
        tile,
        available,
        listening,
    } = house(&home);
    let value = value_for(
        action,
        requested,
        &available,
        &tile.action_values,
        listening,
    )?;
    run_on_home(app, &property, &home, action, &value).await
}

/// Runs a checked action with its value on every thing of `home`, room by
/// room, then the things without a room; the result lists each thing as
/// applied, skipped or failed. "Listening" also sets each room's flag, and a
/// room whose flag did not change is skipped.
async fn run_on_home(
    app: &App,
    property: &PropertyRecord,
    home: &HomeRead,
    action: &ActionRef,
    value: &Value,
) -> Result<ActionResult, Error> {
    let tenant: TenantId = property.tenant_id;
    let mut result = ActionResult::new(action, value);
    if action.is_listening() {
        let flag = value.as_bool().unwrap_or(true);
        for room in home.rooms.iter().cloned() {
            let members = home.in_room(room.id);
            let (_, changed) = set_listening(app, room, flag).await?;
            if changed {
                let told = send_listening(app, tenant, members, flag).await;
                result.applied.extend(told.applied);
                result.skipped.extend(told.skipped);
                result.failed.extend(told.failed);
            } else {
                skip_unchanged(members, action, &unchanged_reason(flag), &mut result);
            }
        }
        // Things without a room have no flag to compare: told every time.
        run_on_members(app, tenant, &home.unassigned, action, value, &mut result).await;
    } else {
        for members in home.by_room.values() {
            run_on_members(app, tenant, members, action, value, &mut result).await;
        }
        run_on_members(app, tenant, &home.unassigned, action, value, &mut result).await;
    }
    Ok(result)
}

/// A home after a refresh: what it holds now, and a failed entry per thing
/// that could not be read.
pub struct Refreshed {
    pub property: PropertyRecord,
    pub home: HomeRead,
    pub failed: Vec<ThingOutcome>,
}

/// Asks each connector of home `property`, which the caller controls, for
/// the current state of its things and stores what it read.
pub async fn refresh(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    property: PropertyId,
) -> Result<Refreshed, Error> {
    let property = home_for(app, caller, tenant, property, HomeAccess::Control).await?;
    refresh_home(app, property).await
}

/// Reads every connector-backed thing of the home from its connector (one
/// call per integration, all at once, so a slow connector does not hold up
/// the others) and answers the home after the reads with a failed entry
/// per thing that could not be read.
async fn refresh_home(app: &App, property: PropertyRecord) -> Result<Refreshed, Error> {
    let things = home_things(&*app.store, property.tenant_id, property.id).await?;
    let mut by_integration: BTreeMap<IntegrationId, Vec<EndpointRecord>> = BTreeMap::new();
    for endpoint in things.endpoints {
        by_integration
            .entry(endpoint.integration_id)
            .or_default()
            .push(endpoint);
    }
    let tenant = property.tenant_id;
    let reads = by_integration
        .into_iter()
        .map(|(integration, endpoints)| async move {
            match installed(app, tenant, integration).await {
                Ok(installed) => read_and_store(app, &installed, endpoints).await,
                Err(e) => Ok(endpoints
                    .into_iter()
                    .map(|endpoint| ReadOutcome::Failed(endpoint, e.detail.clone()))
                    .collect()),
            }
        });
    let mut failed = Vec::new();
    for outcomes in futures_util::future::join_all(reads).await {
        for outcome in outcomes? {
            if let ReadOutcome::Failed(endpoint, reason) = outcome {
                failed.push(ThingOutcome {
                    thing_id: *endpoint.id.as_uuid(),
                    name: endpoint.name,
                    reason,
                });
            }
        }
    }
    let home = read_home(app, &property).await?;
    Ok(Refreshed {
        property,
        home,
        failed,
    })
}
