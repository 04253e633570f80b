//! A hub-run home's configuration and mode, sent over the hub's broker
//! channels (the rules and limits are `alyt_domain::security::hub`).
//!
//! * [`Inventory::hub_config`]: the home's [`HubConfig`] from what security uses now
//!   (detectors with the modes that watch them, outputs, keypad locks that
//!   disarm even when excluded, the delays). The inventory builds it on
//!   every read, so the status and every arming judge the hub against the
//!   configuration the home needs now: a thing discovered after the hub
//!   acknowledged makes it unacknowledged, and a home pushed over a limit
//!   is refused at its next arming, not only when the hub was assigned.
//! * [`note`]: a household read or arming that finds the configuration
//!   changed records it as the one to send (due at once); [`sync`], on the
//!   timers' beat, sends it in `security.config` chunks on the hub's
//!   commands channel, again when the hub has not acknowledged it within
//!   `PUSH_AGAIN`, and compares an idle home's things again every
//!   `CHECK_AGAIN` (things found by a path nobody reads after). A
//!   configuration over a limit is not sent; the status says why and
//!   arming is refused.
//! * While a mode is active or outputs wait to be restored nothing is
//!   built or sent: the armed period's configuration stays frozen, and
//!   things found meanwhile count from the next arming after Off.
//! * [`send_mode`]: a mode change (`security.mode { mode, generation }`),
//!   so the hub's protection state follows the home's generation.
//! * The hub answers with events (`security.config { revision, digest }`,
//!   `security.state { generation, mode, ready }`) that ingest records
//!   through `alyt_security::HomeSecurity::hub_report`.
//!
//! Arming a hub-run home needs the hub connected, the configuration the
//! home needs now within the limits and acknowledged, and the hub's
//! protection state at the home's generation and ready
//! (`alyt_domain::security::hub::arming_check`, through the inventory):
//! there is no fallback to the platform's engine. Off is sent too, but
//! never waits.

use alyt_device::channels::{CommandMessage, encode_command};
use alyt_device::topic::DeviceIdentity;
use alyt_domain::device::CommandId;
use alyt_domain::ids::DeviceId;
use alyt_domain::security::hub::{CONFIG_COMMAND, HubSync, MODE_COMMAND};
use alyt_security::Decision;
use alyt_store::StoreError;
use alyt_store::repo::security::{Security, SecurityRecord};
use alyt_store::repo::tenancy::{PropertyRecord, Tenancy};
use serde_json::json;
use time::OffsetDateTime;

use super::inventory::{Inventory, inventory};
use super::{keeper, update};
use crate::{App, Error};

/// Publishes one command to the hub (not a household command: no row).
async fn publish(
    app: &App,
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
    app.publisher
        .publish(&identity, bytes)
        .await
        .map_err(|e| e.to_string())
}

/// Records in `record` (a draft a household read or arming holds) that
/// its hub is to hold the configuration built from `things` now, when that
/// is not the one it was to hold: due at once for the timers to send. Only
/// while the home is Off with restoration complete. True when it changed.
pub fn note(record: &mut SecurityRecord, things: &Inventory, now: OffsetDateTime) -> bool {
    let (Some(hub), Some(wanted)) = (record.settings.hub_device_id, &things.hub_wanted) else {
        return false;
    };
    if !record.state.reconfigurable() {
        return false;
    }
    let mut sync = record
        .hub
        .clone()
        .filter(|h| h.device_id == hub)
        .unwrap_or_else(|| HubSync::new(hub));
    // A comparison that changed nothing is not worth a write.
    if !sync.rebuilt(wanted, now) {
        return false;
    }
    record.hub = Some(sync);
    true
}

/// [`note`] for a read: stored when it changed something, over the record
/// `things` were read for (a record that moved meanwhile is compared again
/// by its next reader or the timers).
pub async fn note_read(
    app: &App,
    home: &PropertyRecord,
    record: &SecurityRecord,
    things: &Inventory,
) -> Result<(), Error> {
    if !note(&mut record.clone(), things, app.clock.now()) {
        return Ok(());
    }
    keeper(app)
        .rewrite(home, |mut draft| {
            let same = draft.read.as_ref().is_some_and(|r| r.rev == record.rev);
            let noted = same && note(&mut draft.next, things, draft.now);
            std::future::ready(Ok::<_, Error>((draft, Decision::write_if(noted, ()))))
        })
        .await?;
    Ok(())
}

/// Builds the home's configuration from its things now and sends it to the
/// hub when it was not sent yet or not acknowledged in time (true: sent);
/// records when it compared, and forgets the hub when none is assigned.
/// Nothing while a mode is active or outputs wait to be restored (the armed
/// period's configuration stays frozen; the write that turns the home Off
/// makes it due again).
pub async fn sync(app: &App, home: &PropertyRecord) -> Result<bool, Error> {
    let Some(record) = Security(&*app.store).get(home.tenant_id, home.id).await? else {
        return Ok(false);
    };
    let Some(hub) = record.settings.hub_device_id else {
        if record.hub.is_some() {
            forget(app, home).await?;
        }
        return Ok(false);
    };
    if !record.state.reconfigurable() {
        return Ok(false);
    }
    let things = inventory(app, &record, home.id).await?;
    let config = things.hub_config(&record.settings, record.state.revision);
    let now = app.clock.now();
    let mut sync = record
        .hub
        .clone()
        .filter(|h| h.device_id == hub)
        .unwrap_or_else(|| HubSync::new(hub));
    sync.rebuilt(&config.wanted(), now);
    let send = sync.push_due().is_some_and(|due| due <= now);
    if send {
        sync.pushed_at = Some(now);
        // Within the limits: push_due is none over one.
        for chunk in config.chunks(record.state.generation).unwrap_or_default() {
            let payload = serde_json::to_value(&chunk).unwrap_or_default();
            if let Err(why) = publish(app, home, hub, CONFIG_COMMAND, payload).await {
                // Pushed again after PUSH_AGAIN.
                tracing::debug!(home = %home.id, %why, "a hub configuration chunk was not sent");
                break;
            }
        }
    }
    keeper(app)
        .rewrite(home, |mut draft| {
            // Only over the record this was built from (a change since
            // compares again).
            let same = draft.read.as_ref().is_some_and(|r| r.rev == record.rev);
            if same {
                draft.next.hub = Some(sync.clone());
            }
            std::future::ready(Ok::<_, Error>((draft, Decision::write_if(same, ()))))
        })
        .await?;
    Ok(send)
}

async fn forget(app: &App, home: &PropertyRecord) -> Result<(), Error> {
    update(app, home, |record, _, _| record.hub.take().map(|_| ())).await?;
    Ok(())
}

/// Tells a hub-run home's hub its mode and generation (best effort: the
/// hub reports its protection state, which the next arming checks).
pub async fn send_mode(app: &App, home: &PropertyRecord, record: &SecurityRecord) {
    let Some(hub) = record.settings.hub_device_id else {
        return;
    };
    let payload = json!({ "mode": record.state.requested, "generation": record.state.generation });
    if let Err(why) = publish(app, home, hub, MODE_COMMAND, payload).await {
        tracing::debug!(home = %home.id, %why, "the hub was not told its mode");
    }
}

/// Sends or compares every hub configuration that is due (not sent yet,
/// not acknowledged in time, or the home's things to compare again): how
/// many were sent.
pub async fn sync_due(app: &App, due: &[SecurityRecord]) -> Result<u32, StoreError> {
    let now = app.clock.now();
    let mut pushed = 0;
    for record in due {
        let pending = record
            .hub
            .as_ref()
            .and_then(|h| h.due(record.state.reconfigurable()))
            .is_some_and(|at| at <= now);
        if !pending {
            continue;
        }
        let Some(home) = Tenancy(&*app.store)
            .property(record.tenant_id, record.property_id)
            .await?
        else {
            continue;
        };
        match sync(app, &home).await {
            Ok(sent) => pushed += u32::from(sent),
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
    use alyt_domain::security::{Mode, Settings};

    use super::*;
    use crate::security::inventory::SecurityThing;

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
            hub_wanted: None,
            hub_check: Ok(()),
        };
        let config = inventory.hub_config(&Settings::default(), 1);
        assert_eq!(config.disarmers, vec![excluded.id, chosen.id]);
    }

    #[test]
    fn a_changed_configuration_is_noted_to_send_only_while_the_home_is_off() {
        use alyt_domain::ids::{PropertyId, TenantId};
        use alyt_domain::security::hub::Wanted;

        let now = time::OffsetDateTime::UNIX_EPOCH + time::Duration::days(1);
        let hub = uuid::Uuid::new_v4();
        let mut record = SecurityRecord::new(TenantId::new(), PropertyId::new(), now);
        record.settings.hub_device_id = Some(hub);
        let mut sync = HubSync::new(hub);
        sync.revision = 0;
        sync.digest = "held".into();
        sync.pushed_at = Some(now);
        sync.acked = Some(alyt_domain::security::hub::HubAck {
            revision: 0,
            digest: "held".into(),
            at: now,
        });
        record.hub = Some(sync);
        let things = |digest: &str| Inventory {
            things: Vec::new(),
            hub_connected: Some(true),
            hub_wanted: Some(Wanted {
                revision: 0,
                digest: Ok(digest.into()),
            }),
            hub_check: Ok(()),
        };

        assert!(
            !note(&mut record.clone(), &things("held"), now),
            "no change"
        );
        // Armed: the period's configuration stays frozen.
        let mut armed = record.clone();
        armed.state.requested = Mode::Away;
        assert!(!note(&mut armed, &things("found"), now));
        assert_eq!(armed.hub, record.hub);
        // Off: the new one is to be sent at once.
        assert!(note(&mut record, &things("found"), now));
        let noted = record.hub.as_ref().unwrap();
        assert_eq!(noted.digest, "found");
        assert!(!noted.acknowledged());
        assert_eq!(record.due(), Some(time::OffsetDateTime::UNIX_EPOCH));
    }
}
