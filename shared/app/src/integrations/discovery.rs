//! Discovery: asking an integration's connector what it has and storing it
//! as endpoints of the integration's home.

use std::collections::{BTreeMap, BTreeSet};

use alyt_connectors::{DiscoveredThing, IntegrationCall, MAX_DISCOVERED_THINGS};
use alyt_domain::access::Principal;
use alyt_domain::ids::{EndpointId, IntegrationId, PropertyId, RoomId, TenantId};
use alyt_domain::integration::check_external_id;
use alyt_domain::integration::placement::{Placement, Synonyms, place};
use alyt_domain::room;
use alyt_events::PlatformEvent;
use alyt_store::TxWrite;
use alyt_store::repo::integrations::{
    EndpointRecord, IntegrationRecord, Integrations, PlacedBy, endpoint_write,
};
use alyt_store::repo::rooms::{RoomRecord, Rooms};
use serde::Serialize;
use serde_json::Map;
use time::OffsetDateTime;

use super::{Need, integration_for, server};
use crate::endpoints::{Installed, connector_problem};
use crate::{App, Error};

/// Endpoints written per transaction in discovery (each may bring its
/// `thing.state` event: 100 writes at most).
const ENDPOINTS_PER_TRANSACTION: usize = alyt_store::MAX_TRANSACTION_OPS / 2;
/// A discovered thing whose state and detail take more than this (as JSON)
/// is skipped: an endpoint must fit in one store item.
const MAX_THING_BYTES: usize = 64 * 1024;
/// What one discovery did.
#[derive(Debug, Clone, Default, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct DiscoveryResult {
    /// Things the connector reported and the platform took.
    pub things: u32,
    /// New endpoints.
    pub created: u32,
    /// Endpoints seen before, refreshed (kind, address, capabilities,
    /// features, state; never their name, room or presentation).
    pub updated: u32,
    /// Rooms discovery created (the names the connector gave).
    pub rooms_created: Vec<String>,
    /// Always false: discovery has finished when this answers.
    pub discovering: bool,
}

/// A thing to store and the room it goes to if it has none yet.
struct Planned {
    thing: DiscoveredThing,
    id: EndpointId,
    room: Option<RoomId>,
}

/// A discovered thing fit to store, or why not: an external id the domain
/// refuses (an address), or too much state for one item. The name is
/// trimmed and bounded (the external id when empty).
fn usable(mut thing: DiscoveredThing) -> Option<DiscoveredThing> {
    check_external_id(&thing.external_id).ok()?;
    // Never stored: PINs, credentials, private media URLs.
    alyt_domain::never_stored::strip_secrets(&mut thing.state);
    if let Some(detail) = thing.capabilities.as_mut() {
        alyt_domain::never_stored::strip_secrets(detail);
    }
    let bytes = serde_json::to_vec(&(&thing.state, &thing.capabilities, &thing.features))
        .map_or(usize::MAX, |v| v.len());
    if bytes > MAX_THING_BYTES {
        return None;
    }
    let name = thing.name.trim();
    let name = if name.is_empty() {
        thing.external_id.as_str()
    } else {
        name
    };
    thing.name = name
        .chars()
        .filter(|c| !c.is_control())
        .take(room::ROOM_NAME_MAX_CHARS)
        .collect();
    Some(thing)
}

/// The endpoint `stored` (or a new one) after `planned` was discovered at
/// `now`: detail and state refreshed, the check recorded as a successful
/// read; name, room and presentation kept. An endpoint without a room that
/// no person placed goes to `planned.room`. The bool: its state changed.
fn merged(
    integration: &IntegrationRecord,
    stored: Option<&EndpointRecord>,
    planned: &Planned,
    now: OffsetDateTime,
) -> (EndpointRecord, bool) {
    let thing = &planned.thing;
    let mut next = match stored {
        Some(stored) => stored.clone(),
        None => EndpointRecord {
            id: planned.id,
            tenant_id: integration.tenant_id,
            integration_id: integration.id,
            property_id: integration.property_id,
            room_id: None,
            placed_by: None,
            kind: thing.kind.clone(),
            external_id: thing.external_id.clone(),
            name: thing.name.clone(),
            address: None,
            capabilities: None,
            capability_set: Vec::new(),
            features: Vec::new(),
            presented_as: None,
            enabled: true,
            state: Map::new(),
            state_updated_at: None,
            last_seen: None,
            checked_at: None,
            reachable: false,
            created_at: now,
            updated_at: now,
            rev: 0,
        },
    };
    if next.room_id.is_none()
        && next.placed_by != Some(PlacedBy::Person)
        && let Some(room) = planned.room
    {
        next.room_id = Some(room);
        next.placed_by = Some(PlacedBy::Discovery);
    }
    next.kind = thing.kind.clone();
    next.address = thing.address.clone();
    next.capabilities = thing.capabilities.clone();
    next.capability_set = thing.capability_set.clone();
    next.features = thing.features.clone();
    let changed = next.state != thing.state;
    if changed || next.state_updated_at.is_none() {
        next.state = thing.state.clone();
        next.state_updated_at = Some(now);
    }
    next.checked_at = Some(now);
    next.last_seen = Some(now);
    next.reachable = true;
    next.updated_at = now;
    (next, changed && stored.is_some())
}

/// The writes storing `endpoints` (each with the revision it was read at,
/// `None` for new) and a `thing.state` event for each whose state changed.
fn discovery_writes(
    app: &App,
    tenant: TenantId,
    endpoints: &[(EndpointRecord, Option<u64>, bool)],
) -> Result<Vec<TxWrite>, Error> {
    let mut writes = Vec::with_capacity(endpoints.len() * 2);
    for (endpoint, read_rev, changed) in endpoints {
        writes.push(endpoint_write(endpoint, *read_rev)?);
        if *changed {
            let event = PlatformEvent::ThingState(endpoint.thing_state(endpoint.updated_at));
            writes.extend(app.event_writes(tenant, Some(endpoint.property_id), vec![event])?);
        }
    }
    Ok(writes)
}

/// Stores one planned thing on its own, re-reading the endpoint when it
/// changed meanwhile (a person placed or renamed it): up to 4 times, then
/// 409. True when it was created.
async fn store_one(
    app: &App,
    integration: &IntegrationRecord,
    planned: &Planned,
) -> Result<bool, Error> {
    let repo = Integrations(&*app.store);
    for _ in 0..4 {
        let stored = repo.endpoint(integration.tenant_id, planned.id).await?;
        let now = app.clock.now();
        let (next, changed) = merged(integration, stored.as_ref(), planned, now);
        let read_rev = stored.as_ref().map(|s| s.rev);
        let writes = discovery_writes(app, integration.tenant_id, &[(next, read_rev, changed)])?;
        match repo.write(writes).await {
            Ok(()) => return Ok(stored.is_none()),
            Err(e) if e.is_condition_failure() => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(Error::conflict(
        "an endpoint kept changing during discovery; try again",
    ))
}

/// Runs discovery of `installed` into its home:
///
/// * asks the connector (`v1/discover`; 502 when it cannot answer) and takes
///   at most [`MAX_DISCOVERED_THINGS`] things, skipping those with an
///   external id the platform refuses (an IP address, empty, too long), too
///   much state, or an id already seen in the same answer (logged as a
///   count, never the things);
/// * a new thing becomes an endpoint (id [`EndpointRecord::id_for`], stable
///   across rediscoveries) with the state the connector answered, judged
///   seen now;
/// * a thing seen before keeps its name, room and presentation (rediscovery
///   never renames or moves); its kind, address, capabilities, features and
///   state are refreshed, a state change recorded as a `thing.state` event in
///   the same transaction;
/// * a thing without a room that no person placed is placed by
///   [`place`]: the room the connector names (found by folded name with its
///   synonyms, or created once per discovery), else an existing room whose
///   name is inside the thing's name; rooms are never renamed;
/// * things the connector no longer reports stay as they are.
///
/// Then the integration's `discoveredAt` is recorded.
pub async fn discover_into(app: &App, installed: &Installed) -> Result<DiscoveryResult, Error> {
    let integration = &installed.integration;
    let connector = &installed.connector;
    let call = IntegrationCall {
        integration_id: integration.id.to_string(),
        tenant_id: integration.tenant_id.to_string(),
        config: integration.config.clone(),
    };
    let answer = app
        .connectors
        .discover(&server(app, connector), &call)
        .await
        .map_err(|e| {
            tracing::warn!(connector = %connector.id, integration = %integration.id, error = %e, "discovery failed");
            Error::bad_gateway(connector_problem(connector, &e))
        })?;
    let reported = answer.things.len();
    if reported > MAX_DISCOVERED_THINGS {
        tracing::warn!(integration = %integration.id, reported, taken = MAX_DISCOVERED_THINGS, "the connector reported more things than discovery takes");
    }
    let mut seen = BTreeSet::new();
    let things: Vec<DiscoveredThing> = answer
        .things
        .into_iter()
        .take(MAX_DISCOVERED_THINGS)
        .filter_map(usable)
        .filter(|t| seen.insert(t.external_id.clone()))
        .collect();
    let skipped = reported.min(MAX_DISCOVERED_THINGS) - things.len();
    if skipped > 0 {
        tracing::warn!(integration = %integration.id, skipped, "discovered things skipped (invalid or repeated external id, or too large)");
    }

    let repo = Integrations(&*app.store);
    let rooms_repo = Rooms(&*app.store);
    let (existing, home_rooms) = tokio::try_join!(
        repo.endpoints_all(integration.id),
        rooms_repo.all(integration.property_id)
    )?;
    let existing: BTreeMap<EndpointId, EndpointRecord> =
        existing.into_iter().map(|e| (e.id, e)).collect();
    let mut rooms: Vec<(RoomId, String)> = home_rooms.into_iter().map(|r| (r.id, r.name)).collect();
    let synonyms = Synonyms::new(
        answer
            .room_synonyms
            .iter()
            .map(|(from, to)| (from.as_str(), to.as_str())),
    );

    let mut result = DiscoveryResult::default();
    let mut planned = Vec::with_capacity(things.len());
    for thing in things {
        let id = EndpointRecord::id_for(integration.id, &thing.external_id);
        let stored = existing.get(&id);
        let placed =
            stored.is_some_and(|e| e.room_id.is_some() || e.placed_by == Some(PlacedBy::Person));
        let name = stored.map_or(thing.name.as_str(), |e| e.name.as_str());
        let room = match place(placed, thing.room.as_deref(), name, &rooms, &synonyms) {
            Placement::Keep => None,
            Placement::Existing(room) => Some(room),
            Placement::Create(wanted) => match room::check_name(&wanted) {
                Ok(wanted) => {
                    let now = app.clock.now();
                    let created = RoomRecord::new(
                        integration.tenant_id,
                        integration.property_id,
                        &wanted,
                        now,
                    );
                    rooms_repo.create(&created).await?;
                    tracing::info!(integration = %integration.id, room = %created.id, "discovery created a room");
                    rooms.push((created.id, created.name.clone()));
                    result.rooms_created.push(created.name);
                    Some(created.id)
                }
                Err(_) => None,
            },
        };
        planned.push(Planned { thing, id, room });
    }

    for chunk in planned.chunks(ENDPOINTS_PER_TRANSACTION) {
        let now = app.clock.now();
        let batch: Vec<(EndpointRecord, Option<u64>, bool)> = chunk
            .iter()
            .map(|p| {
                let stored = existing.get(&p.id);
                let (next, changed) = merged(integration, stored, p, now);
                (next, stored.map(|s| s.rev), changed)
            })
            .collect();
        let writes = discovery_writes(app, integration.tenant_id, &batch)?;
        match repo.write(writes).await {
            Ok(()) => {
                for p in chunk {
                    if existing.contains_key(&p.id) {
                        result.updated += 1;
                    } else {
                        result.created += 1;
                    }
                }
            }
            // Something in the chunk changed meanwhile: each on its own.
            Err(e) if e.is_condition_failure() => {
                for p in chunk {
                    if store_one(app, integration, p).await? {
                        result.created += 1;
                    } else {
                        result.updated += 1;
                    }
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
    result.things = result.created + result.updated;

    let mut discovered = integration.clone();
    discovered.discovered_at = Some(app.clock.now());
    match repo.replace(&discovered).await {
        Ok(()) => {}
        Err(e) if e.is_condition_failure() => {
            return Err(Error::conflict(
                "the integration was removed during discovery",
            ));
        }
        Err(e) => return Err(e.into()),
    }
    tracing::info!(
        integration = %integration.id,
        things = result.things,
        created = result.created,
        updated = result.updated,
        rooms_created = result.rooms_created.len(),
        "discovery done"
    );
    Ok(result)
}

/// Discovers integration `id` of `tenant` into its home, when the caller
/// configures the home. `property_id` must be that home: an integration
/// belongs to one home.
pub async fn discover(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    id: IntegrationId,
    property_id: PropertyId,
) -> Result<DiscoveryResult, Error> {
    let (integration, _) = integration_for(app, caller, tenant, id, Need::Configure).await?;
    if property_id != integration.property_id {
        return Err(Error::validation(
            "propertyId",
            "propertyId must be the integration's home: an integration belongs to one home",
        ));
    }
    let connector = Integrations(&*app.store)
        .connector(integration.connector_id)
        .await?
        .ok_or_else(|| Error::conflict("the integration's connector no longer exists"))?;
    let installed = Installed {
        integration,
        connector,
    };
    discover_into(app, &installed).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use alyt_domain::device::{DeviceCapability, Lenient};
    use alyt_domain::ids::ConnectorId;
    use alyt_domain::integration::EndpointKind;
    use serde_json::json;

    fn thing(external_id: &str, name: &str) -> DiscoveredThing {
        DiscoveredThing {
            external_id: external_id.into(),
            kind: Lenient::Known(EndpointKind::Light),
            name: name.into(),
            room: None,
            address: None,
            capability_set: vec![Lenient::Known(DeviceCapability::Light)],
            capabilities: None,
            features: vec![],
            state: json!({ "light": { "power": true } })
                .as_object()
                .cloned()
                .unwrap(),
        }
    }

    fn integration() -> IntegrationRecord {
        IntegrationRecord {
            id: IntegrationId::new(),
            tenant_id: TenantId::new(),
            property_id: PropertyId::new(),
            connector_id: ConnectorId::new(),
            name: "Bridge".into(),
            config: Map::new(),
            created_at: OffsetDateTime::UNIX_EPOCH,
            discovered_at: None,
            version_id: None,
            account: None,
        }
    }

    #[test]
    fn unusable_things_are_skipped_and_names_bounded() {
        assert!(usable(thing("192.168.1.20", "Lamp")).is_none());
        assert!(usable(thing("", "Lamp")).is_none());
        let mut huge = thing("big", "Lamp");
        huge.state
            .insert("x".into(), json!("y".repeat(MAX_THING_BYTES)));
        assert!(usable(huge).is_none());
        assert_eq!(usable(thing("lamp-1", "  ")).unwrap().name, "lamp-1");
        let long = usable(thing("lamp-1", &"n".repeat(200))).unwrap();
        assert_eq!(long.name.chars().count(), room::ROOM_NAME_MAX_CHARS);
    }

    #[test]
    fn rediscovery_keeps_name_room_and_presentation_and_refreshes_the_rest() {
        let integration = integration();
        let now = OffsetDateTime::UNIX_EPOCH + time::Duration::days(1);
        let room = RoomId::new();
        let planned = Planned {
            thing: thing("lamp-1", "Lamp"),
            id: EndpointRecord::id_for(integration.id, "lamp-1"),
            room: Some(room),
        };
        let (created, changed) = merged(&integration, None, &planned, now);
        assert!(!changed, "a new endpoint reports no change");
        assert_eq!(created.room_id, Some(room));
        assert_eq!(created.placed_by, Some(PlacedBy::Discovery));
        assert_eq!(created.state_updated_at, Some(now));
        assert!(created.reachable);

        let mut person = created.clone();
        person.name = "Desk lamp".into();
        person.room_id = None;
        person.placed_by = Some(PlacedBy::Person);
        person.presented_as = Some("switch".into());
        let mut again = planned;
        again.thing.name = "Renamed by the bridge".into();
        again.thing.state = json!({ "light": { "power": false } })
            .as_object()
            .cloned()
            .unwrap();
        again.thing.address = Some("lamp.local".into());
        let later = now + time::Duration::hours(1);
        let (next, changed) = merged(&integration, Some(&person), &again, later);
        assert!(changed);
        assert_eq!(next.name, "Desk lamp");
        assert_eq!(next.room_id, None, "a person's choice of no room stays");
        assert_eq!(next.presented_as.as_deref(), Some("switch"));
        assert_eq!(next.address.as_deref(), Some("lamp.local"));
        assert_eq!(next.state_updated_at, Some(later));
        assert_eq!(next.created_at, created.created_at);
    }
}
