//! A hub-run home's configuration and mode, sent over the hub's broker
//! channels (spec I, Limits; rules in `alyt_domain::security::hub`).
//!
//! * [`sync`]: builds the home's [`HubConfig`] from what security uses now
//!   (detectors with the modes that watch them, outputs, keypad locks that
//!   disarm even when excluded, the delays), and when it changed (or the hub
//!   has not acknowledged it within `PUSH_AGAIN`) publishes it in
//!   `security.config` chunks on the hub's commands channel. A
//!   configuration over a limit is not sent; the status says why and
//!   arming is refused.
//! * [`send_mode`]: a mode change (`security.mode { mode, generation }`),
//!   so the hub's protection state follows the home's generation.
//! * The hub answers with events (`security.config { revision, digest }`,
//!   `security.state { generation, mode, ready }`) that ingest records
//!   through `alyt_security::HomeSecurity::hub_report`.
//!
//! Arming a hub-run home needs the hub connected, the current configuration
//! acknowledged and the hub's protection state at the home's generation and
//! ready (`HubSync::arming_check`, through the inventory): there is no
//! fallback to the platform's engine. Off is sent too, but never waits.

use alyt_device::channels::{CommandMessage, encode_command};
use alyt_device::topic::DeviceIdentity;
use alyt_domain::device::CommandId;
use alyt_domain::ids::DeviceId;
use alyt_domain::security::hub::{
    CONFIG_COMMAND, HubConfig, HubDetector, HubOutput, HubSync, MODE_COMMAND,
};
use alyt_domain::security::{Mode, Settings};
use alyt_security::Decision;
use alyt_store::StoreError;
use alyt_store::repo::security::{Security, SecurityRecord};
use alyt_store::repo::tenancy::{PropertyRecord, Tenancy};
use serde_json::json;

use super::inventory::{Inventory, inventory};
use super::{keeper, update};
use crate::{ApiError, AppState};

/// The hub's configuration for what security uses now.
pub fn config_of(inventory: &Inventory, settings: &Settings, revision: u64) -> HubConfig {
    let checks = inventory.checks(settings);
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
    for thing in &inventory.things {
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

/// Publishes one command to the hub (not a household command: no row).
async fn publish(
    state: &AppState,
    home: &PropertyRecord,
    hub: uuid::Uuid,
    command: &str,
    payload: serde_json::Value,
) -> Result<(), String> {
    let command_id = CommandId::new(rand::random::<u64>() % CommandId::MAX)
        .ok_or_else(|| "no command id".to_owned())?;
    let message = CommandMessage {
        command_id,
        command: command.to_owned(),
        payload: payload.as_object().cloned(),
    };
    let bytes = encode_command(&message).map_err(|e| e.to_string())?;
    let identity = DeviceIdentity::new(home.tenant_id, home.id, DeviceId(hub));
    state
        .publisher
        .publish(&identity, bytes)
        .await
        .map_err(|e| e.to_string())
}

/// Sends the hub the home's configuration when it changed or was not
/// acknowledged in time; forgets the hub when none is assigned.
pub async fn sync(state: &AppState, home: &PropertyRecord) -> Result<(), ApiError> {
    let Some(record) = Security(&*state.store).get(home.tenant_id, home.id).await? else {
        return Ok(());
    };
    let Some(hub) = record.settings.hub_device_id else {
        if record.hub.is_some() {
            forget(state, home).await?;
        }
        return Ok(());
    };
    let things = inventory(state, &record, home.id).await?;
    let config = config_of(&things, &record.settings, record.state.revision);
    let now = state.clock.now();
    let built = config.encode().map(|bytes| HubConfig::digest(&bytes));
    let known = record.hub.clone().filter(|h| h.device_id == hub);
    let unchanged = match (&built, &known) {
        (Ok(digest), Some(sync)) => {
            sync.digest == *digest && sync.push_due().is_none_or(|due| due > now)
        }
        _ => false,
    };
    if unchanged {
        return Ok(());
    }
    let mut sync = known.unwrap_or_else(|| HubSync::new(hub));
    sync.revision = config.revision;
    match (built, config.chunks(record.state.generation)) {
        (Ok(digest), Ok(chunks)) => {
            sync.digest = digest;
            sync.error = None;
            sync.pushed_at = Some(now);
            for chunk in chunks {
                let payload = serde_json::to_value(&chunk).unwrap_or_default();
                if let Err(why) = publish(state, home, hub, CONFIG_COMMAND, payload).await {
                    // Pushed again after PUSH_AGAIN.
                    tracing::debug!(home = %home.id, %why, "a hub configuration chunk was not sent");
                    break;
                }
            }
        }
        (Err(e), _) | (_, Err(e)) => {
            sync.digest = String::new();
            sync.error = Some(e.to_string());
        }
    }
    keeper(state)
        .rewrite(home, |mut draft| {
            // Only over the record this was built from (a change since
            // pushes again).
            let same = draft.read.as_ref().is_some_and(|r| r.rev == record.rev);
            if same {
                draft.next.hub = Some(sync.clone());
            }
            std::future::ready(Ok::<_, ApiError>((draft, Decision::write_if(same, ()))))
        })
        .await?;
    Ok(())
}

async fn forget(state: &AppState, home: &PropertyRecord) -> Result<(), ApiError> {
    update(state, home, |record, _, _| record.hub.take().map(|_| ())).await?;
    Ok(())
}

/// Tells a hub-run home's hub its mode and generation (best effort: the
/// hub reports its protection state, which the next arming checks).
pub async fn send_mode(state: &AppState, home: &PropertyRecord, record: &SecurityRecord) {
    let Some(hub) = record.settings.hub_device_id else {
        return;
    };
    let payload = json!({ "mode": record.state.requested, "generation": record.state.generation });
    if let Err(why) = publish(state, home, hub, MODE_COMMAND, payload).await {
        tracing::debug!(home = %home.id, %why, "the hub was not told its mode");
    }
}

/// Pushes every hub configuration that is due (changed, or not
/// acknowledged in time).
pub async fn sync_due(state: &AppState, due: &[SecurityRecord]) -> Result<u32, StoreError> {
    let now = state.clock.now();
    let mut pushed = 0;
    for record in due {
        let pending = record
            .hub
            .as_ref()
            .and_then(HubSync::push_due)
            .is_some_and(|at| at <= now);
        if !pending {
            continue;
        }
        let Some(home) = Tenancy(&*state.store)
            .property(record.tenant_id, record.property_id)
            .await?
        else {
            continue;
        };
        match sync(state, &home).await {
            Ok(()) => pushed += 1,
            Err(e) => {
                tracing::warn!(home = %home.id, error = %e.detail, "a hub configuration could not be sent");
            }
        }
    }
    Ok(pushed)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use alyt_domain::room::PinnedThingKind;
    use alyt_domain::security::enrolment::{Families, Selection};

    use super::*;
    use crate::groups::security::inventory::SecurityThing;

    fn lock(keypad: bool, selection: Selection) -> SecurityThing {
        SecurityThing {
            id: uuid::Uuid::new_v4(),
            kind: PinnedThingKind::Endpoint,
            name: "Lock".into(),
            room_id: None,
            families: Families {
                lock: true,
                keypad,
                ..Families::default()
            },
            selection,
            signals: BTreeMap::new(),
        }
    }

    #[test]
    fn every_keypad_lock_disarms_a_hub_run_home_even_one_excluded_from_detection() {
        let excluded = lock(true, Selection::Exclude);
        let chosen = lock(true, Selection::Auto);
        let plain = lock(false, Selection::Auto);
        let inventory = Inventory {
            things: vec![excluded.clone(), chosen.clone(), plain],
            hub_connected: Some(true),
            hub_check: Ok(()),
        };
        let config = config_of(&inventory, &Settings::default(), 1);
        assert_eq!(config.disarmers, vec![excluded.id, chosen.id]);
    }
}
