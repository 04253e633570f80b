//! What a home has for security, as it is now: every thing's families
//! (`alyt_domain::security::enrolment`), the household's selection, the
//! signals enrolled, and whether each is ready to arm (disabled, unknown,
//! unavailable, open). Read from the home's things (devices and
//! endpoints) in one query.
//!
//! A hub-run home's hub is judged against the configuration built from
//! these things now ([`Inventory::hub_wanted`]), not against the one it
//! was last sent: a thing discovered after the hub acknowledged counts for
//! the next arming decision, by whatever path it came (a connector's
//! discovery, a registration, the hub's own pairing), and the limits are
//! checked on every arming.

use std::collections::{BTreeMap, BTreeSet};

use alyt_domain::ids::{PropertyId, RoomId};
use alyt_domain::room::PinnedThingKind;
use alyt_domain::security::enrolment::{Families, Selection, families};
use alyt_domain::security::hub::{HubConfig, HubDetector, HubOutput, Wanted, arming_check};
use alyt_domain::security::machine::{ArmingChecks, BlockReason, Blocker};
use alyt_domain::security::{Enrolled, Mode, Settings, Signal, SignalRef};
use alyt_store::repo::integrations::Integrations;
use alyt_store::repo::security::SecurityRecord;
use serde_json::{Map, Value};
use uuid::Uuid;

use crate::{App, Error};

/// One thing security has a use for.
#[derive(Debug, Clone)]
pub struct SecurityThing {
    pub id: Uuid,
    pub kind: PinnedThingKind,
    pub name: String,
    pub room_id: Option<RoomId>,
    pub families: Families,
    pub selection: Selection,
    /// Enrolled signals and whether each is ready (`None`) or why not.
    pub signals: BTreeMap<Signal, Option<BlockReason>>,
}

/// The home's things that matter to security.
#[derive(Debug, Clone)]
pub struct Inventory {
    pub things: Vec<SecurityThing>,
    /// A hub-run home's hub: whether it is connected now (none: the
    /// platform runs the home).
    pub hub_connected: Option<bool>,
    /// A hub-run home: the configuration its hub is to hold now, built
    /// from these things.
    pub hub_wanted: Option<Wanted>,
    /// Whether the hub may take an arming now (always for a platform-run
    /// home); `Err`: what is missing.
    pub hub_check: Result<(), String>,
}

/// Whether one signal is ready, from the thing's reachability and state.
fn readiness(
    signal: Signal,
    reachable: Option<bool>,
    enabled: bool,
    state: &Map<String, Value>,
) -> Option<BlockReason> {
    if !enabled {
        return Some(BlockReason::Disabled);
    }
    match reachable {
        Some(false) => return Some(BlockReason::Unavailable),
        None => return Some(BlockReason::Unknown),
        Some(true) => {}
    }
    let (capability, key) = signal.state_key();
    let value = state.get(capability).and_then(|c| c.get(key));
    match (signal, value) {
        // A camera's detection needs no reading to be armed.
        (Signal::Camera, _) => None,
        (_, None) => Some(BlockReason::Unknown),
        (Signal::Contact, Some(Value::Bool(true))) => Some(BlockReason::Open),
        _ => None,
    }
}

/// The home's security inventory.
pub async fn inventory(
    app: &App,
    record: &SecurityRecord,
    property: PropertyId,
) -> Result<Inventory, Error> {
    let things = Integrations(&*app.store)
        .home_things(record.tenant_id, property)
        .await?;
    let hub_connected = record.settings.hub_device_id.map(|hub| {
        things.devices.iter().any(|d| {
            d.id.0 == hub
                && d.deleted_at.is_none()
                && d.status.known() == Some(alyt_domain::device::DeviceStatus::Online)
        })
    });
    let mut inventory = Inventory {
        things: Vec::new(),
        hub_connected,
        hub_wanted: None,
        hub_check: Ok(()),
    };
    let mut add = |id: Uuid,
                   kind,
                   name: &str,
                   room_id,
                   families: Families,
                   reachable: Option<bool>,
                   enabled: bool,
                   thing_state: &Map<String, Value>| {
        if !families.any() {
            return;
        }
        let selection = record.selections.get(&id).copied().unwrap_or_default();
        let signals = families
            .enrolled(selection)
            .into_iter()
            .map(|s| (s, readiness(s, reachable, enabled, thing_state)))
            .collect();
        inventory.things.push(SecurityThing {
            id,
            kind,
            name: name.to_owned(),
            room_id,
            families,
            selection,
            signals,
        });
    };
    for device in &things.devices {
        let found = families(&device.known_capabilities(), &device.features);
        let online = match device.status.known() {
            Some(alyt_domain::device::DeviceStatus::Online) => Some(true),
            Some(_) => Some(false),
            None => None,
        };
        let enabled = device.settings.as_ref().is_none_or(|s| s.enabled)
            && device.status.known() != Some(alyt_domain::device::DeviceStatus::Disabled);
        // Devices report detection as events; their last state is not kept
        // per signal, so a device that is online reads as ready.
        let mut assumed = Map::new();
        for signal in [Signal::Motion, Signal::Contact, Signal::Vibration] {
            let (capability, key) = signal.state_key();
            assumed.insert(capability.into(), serde_json::json!({ key: false }));
        }
        add(
            device.id.0,
            PinnedThingKind::Device,
            &device.name,
            device.room_id,
            found,
            online,
            enabled,
            &assumed,
        );
    }
    for endpoint in &things.endpoints {
        let capabilities = endpoint.known_capabilities();
        let found = families(&capabilities, &endpoint.features);
        let reachable = endpoint.checked_at.map(|_| endpoint.reachable);
        add(
            endpoint.id.0,
            PinnedThingKind::Endpoint,
            &endpoint.name,
            endpoint.room_id,
            found,
            reachable,
            endpoint.enabled,
            &endpoint.state,
        );
    }
    if let (Some(hub), Some(connected)) = (record.settings.hub_device_id, hub_connected) {
        let wanted = inventory
            .hub_config(&record.settings, record.state.revision)
            .wanted();
        let sync = record.hub.as_ref().filter(|s| s.device_id == hub);
        inventory.hub_check = arming_check(
            sync,
            connected,
            &wanted,
            record.state.generation,
            record.state.arming_or_armed(),
        );
        inventory.hub_wanted = Some(wanted);
    }
    Ok(inventory)
}

impl Inventory {
    /// What an arming decision needs: the enrolled signals with their
    /// place, and those not ready.
    pub fn checks(&self, settings: &Settings) -> ArmingChecks {
        let mut enrolled = Vec::new();
        let mut blocking = Vec::new();
        for thing in &self.things {
            let sleeping = thing
                .room_id
                .is_some_and(|r| settings.sleeping_rooms.contains(&r.0));
            for (signal, ready) in &thing.signals {
                let signal_ref = SignalRef {
                    thing_id: thing.id,
                    signal: *signal,
                };
                enrolled.push(Enrolled {
                    signal: signal_ref,
                    in_sleeping_room: sleeping,
                    entry: *signal == Signal::Contact,
                });
                if let Some(why) = ready {
                    blocking.push(Blocker {
                        signal: signal_ref,
                        why: *why,
                    });
                }
            }
        }
        ArmingChecks {
            enrolled,
            blocking,
            hub: self.hub_check.clone(),
        }
    }

    /// The signals of `things` (a bypass names things).
    pub fn signals_of(&self, things: &BTreeSet<Uuid>) -> BTreeSet<SignalRef> {
        self.things
            .iter()
            .filter(|t| things.contains(&t.id))
            .flat_map(|t| {
                t.signals.keys().map(|s| SignalRef {
                    thing_id: t.id,
                    signal: *s,
                })
            })
            .collect()
    }

    pub fn thing(&self, id: Uuid) -> Option<&SecurityThing> {
        self.things.iter().find(|t| t.id == id)
    }

    /// A hub-run home's hub acknowledged the configuration the home needs
    /// now (`record`'s hub, which these things were read for).
    pub fn hub_acknowledged(&self, record: &SecurityRecord) -> bool {
        match (&self.hub_wanted, &record.hub) {
            (Some(wanted), Some(sync)) => {
                record.settings.hub_device_id == Some(sync.device_id) && sync.holds(wanted)
            }
            _ => false,
        }
    }
}

impl Inventory {
    /// The hub's configuration for what security uses now (detectors with
    /// the modes that watch them, outputs, keypad locks that disarm even when
    /// excluded, the delays).
    pub fn hub_config(&self, settings: &Settings, revision: u64) -> HubConfig {
        let checks = self.checks(settings);
        let detectors = checks
            .enrolled
            .iter()
            .map(|e| HubDetector {
                thing_id: e.signal.thing_id,
                signal: e.signal.signal,
                modes: [Mode::Away, Mode::Home, Mode::Sleep]
                    .into_iter()
                    .filter(|m| e.watched_in(*m))
                    .collect(),
                entry: e.entry,
            })
            .collect();
        let mut outputs = Vec::new();
        let mut disarmers = Vec::new();
        for thing in &self.things {
            // Every keypad lock disarms, even one excluded from detection.
            if thing.families.keypad {
                disarmers.push(thing.id);
            }
            if thing.selection == alyt_domain::security::enrolment::Selection::Exclude {
                continue;
            }
            for output in &thing.families.outputs {
                // The hub decides night itself: its lights are all listed.
                if settings.drives(*output, thing.room_id.map(|r| r.0), true) {
                    outputs.push(HubOutput {
                        thing_id: thing.id,
                        output: *output,
                    });
                }
            }
        }
        HubConfig {
            revision,
            exit_delay_seconds: settings.exit_delay_seconds,
            entry_delay_seconds: settings.entry_delay_seconds,
            detectors,
            outputs,
            disarmers,
        }
    }
}
