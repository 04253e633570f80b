//! The command bridge: hands accepted command rows to devices through a
//! [`DevicePublisher`].
//!
//! [`send_new`] is the API's path for a command it accepted: it names the
//! command from the clock, writes the row `sent` (one conditional put) and
//! then publishes it, so the happy path costs one write; only a refused
//! publish costs a second (the row goes back to `pending`). [`deliver`]
//! publishes a row the sweep found and stores the outcome (`sent`, or
//! `pending` with one more attempt). [`sweep`] runs every [`SWEEP_INTERVAL`]
//! (locally a task of the `alyt` process; hosted, `functions/sweeps` loops
//! inside each scheduled invocation) over the rows due by now: it retries
//! every pending row, publishes again a sent row no response answered
//! within `REDELIVER_AFTER` (which also covers a crash between
//! `send_new`'s write and its publish), and gives up on rows whose device
//! has no property (no topic) or that were already acknowledged.
//!
//! Every state move is a conditional write on the row as read, so writers
//! racing on the same row (a sweep, a response) store one outcome; the
//! loser's outcome is dropped (a device may then see the command twice,
//! which the commandId lets it recognise).

use std::sync::Arc;

use alyt_domain::Clock;
use alyt_domain::device::{
    AcceptedCommand, CommandEvent, CommandId, CommandRow, SweepAction, sweep_action,
};
use alyt_domain::ids::{DeviceId, PropertyId, TenantId};
use alyt_store::repo::commands::{Commands, StoredCommand, pending_partitions};
use alyt_store::repo::devices::Devices;
use alyt_store::{Store, StoreError};

use crate::channels::{CommandMessage, encode_command};
use crate::plane::{DevicePublisher, PublishError};
use crate::topic::DeviceIdentity;

/// How often the bridge sweep runs.
pub const SWEEP_INTERVAL: std::time::Duration = std::time::Duration::from_secs(2);
/// Pending rows read per sweep page.
const SWEEP_PAGE: u32 = 100;
/// Pages per sweep at most (the next sweep continues).
const SWEEP_PAGES: usize = 10;

/// What one sweep did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SweepReport {
    /// Rows published and marked sent.
    pub sent: u32,
    /// Rows whose publish failed (still pending, one more attempt).
    pub failed: u32,
    /// Rows given up on.
    pub undeliverable: u32,
    /// Rows another writer moved first.
    pub raced: u32,
}

/// The commands-channel payload of a row: `{ commandId, command, payload }`.
pub fn command_payload(row: &CommandRow) -> Result<Vec<u8>, PublishError> {
    encode_command(&CommandMessage {
        command_id: row.command_id,
        command: row.command.clone(),
        payload: row.payload.clone(),
    })
    .map_err(|e| PublishError::Failed(e.detail))
}

/// What [`send_new`] or [`deliver`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct Delivery {
    /// The row as stored afterwards (re-read when another writer moved it
    /// first).
    pub row: CommandRow,
    pub published: Result<(), PublishError>,
    /// Whether this call's outcome is the one stored.
    pub stored: bool,
}

/// Publishes a row the sweep is due to (pending, or sent and unanswered)
/// to `identity` and stores the outcome.
pub async fn deliver(
    store: &dyn Store,
    publisher: &dyn DevicePublisher,
    clock: &dyn Clock,
    tenant: TenantId,
    row: &CommandRow,
    identity: &DeviceIdentity,
) -> Result<Delivery, StoreError> {
    let published = publish_row(publisher, identity, row).await;
    let event = match &published {
        Ok(()) => CommandEvent::Published,
        Err(_) => CommandEvent::PublishFailed,
    };
    let Some(next) = row.apply(&event, clock.now()) else {
        return Ok(Delivery {
            row: row.clone(),
            published,
            stored: false,
        });
    };
    store_move(&Commands(store), tenant, row, next, published).await
}

/// Publishes `row` on its device's commands channel.
async fn publish_row(
    publisher: &dyn DevicePublisher,
    identity: &DeviceIdentity,
    row: &CommandRow,
) -> Result<(), PublishError> {
    publisher.publish(identity, command_payload(row)?).await
}

/// Stores the move of `current` to `next` after a publish; when another
/// writer moved the row first, answers the row as stored now.
async fn store_move(
    commands: &Commands<'_>,
    tenant: TenantId,
    current: &CommandRow,
    next: CommandRow,
    published: Result<(), PublishError>,
) -> Result<Delivery, StoreError> {
    if commands.transition(tenant, current, &next).await? {
        return Ok(Delivery {
            row: next,
            published,
            stored: true,
        });
    }
    let row = commands
        .get(current.device_id, current.command_id)
        .await?
        .map(|s| s.row)
        .unwrap_or(next);
    Ok(Delivery {
        row,
        published,
        stored: false,
    })
}

/// Names a freshly accepted command and sends it to `device`: the row is
/// written `sent` (conditioned on its absence; another id is tried when the
/// one made from the clock is taken), then published. When the publish
/// fails the row goes back to `pending` for the sweep; when the process
/// stops between the write and the publish, the sweep publishes the `sent`
/// row again once it is due. A device without a property has no topic: its
/// row is written `pending` and the sweep marks it undeliverable.
///
/// Store calls: one put, and one conditional put when the publish failed.
pub async fn send_new(
    store: &dyn Store,
    publisher: &dyn DevicePublisher,
    clock: &dyn Clock,
    tenant: TenantId,
    device: DeviceId,
    property: Option<PropertyId>,
    accepted: AcceptedCommand,
) -> Result<Delivery, StoreError> {
    const ID_TRIES: usize = 3;
    let commands = Commands(store);
    let now = clock.now();
    let mut tries = 0;
    let (accepted_row, written) = loop {
        let row = CommandRow::accept(CommandId::at(now), device, accepted.clone(), now);
        // Written as it will be once published (or pending without a topic).
        let written = match property {
            Some(_) => row
                .apply(&CommandEvent::Published, now)
                .unwrap_or_else(|| row.clone()),
            None => row.clone(),
        };
        match commands.create(tenant, &written).await {
            Ok(()) => break (row, written),
            Err(e) if e.is_condition_failure() && tries + 1 < ID_TRIES => tries += 1,
            Err(e) => return Err(e),
        }
    };
    let Some(property) = property else {
        return Ok(Delivery {
            row: written,
            published: Err(PublishError::Failed("the device has no property".into())),
            stored: true,
        });
    };
    let identity = DeviceIdentity::new(tenant, property, device);
    let published = publish_row(publisher, &identity, &written).await;
    if published.is_ok() {
        return Ok(Delivery {
            row: written,
            published,
            stored: true,
        });
    }
    // Back to pending with the attempt counted, unless a response (or
    // anything else) moved the row meanwhile.
    let failed = accepted_row
        .apply(&CommandEvent::PublishFailed, clock.now())
        .unwrap_or(accepted_row);
    store_move(&commands, tenant, &written, failed, published).await
}

/// One pass over the rows due by now (gsi3), oldest due first.
pub async fn sweep(
    store: Arc<dyn Store>,
    publisher: Arc<dyn DevicePublisher>,
    clock: Arc<dyn Clock>,
) -> Result<SweepReport, StoreError> {
    let mut report = SweepReport::default();
    let commands = Commands(&*store);
    let devices = Devices(&*store);
    let now = clock.now();
    for partition in pending_partitions() {
        let mut after = None;
        for _ in 0..SWEEP_PAGES {
            let (rows, next) = commands.due(&partition, now, SWEEP_PAGE, after).await?;
            for StoredCommand { tenant_id, row } in rows {
                let device = devices
                    .get(tenant_id, row.device_id)
                    .await?
                    .filter(|d| d.deleted_at.is_none());
                let property = device.as_ref().and_then(|d| d.property_id);
                // A response already on record for a row still pending.
                let acknowledged = row.result_status.is_some();
                match sweep_action(&row, property.is_some(), acknowledged, now) {
                    SweepAction::Skip => {}
                    SweepAction::GiveUp(reason) => {
                        let Some(next) =
                            row.apply(&CommandEvent::Undeliverable(reason), clock.now())
                        else {
                            continue;
                        };
                        if commands.transition(tenant_id, &row, &next).await? {
                            report.undeliverable += 1;
                        } else {
                            report.raced += 1;
                        }
                    }
                    SweepAction::Publish => {
                        let Some(property) = property else { continue };
                        let identity = DeviceIdentity::new(tenant_id, property, row.device_id);
                        let delivery =
                            deliver(&*store, &*publisher, &*clock, tenant_id, &row, &identity)
                                .await?;
                        if !delivery.stored {
                            report.raced += 1;
                        } else if delivery.published.is_ok() {
                            report.sent += 1;
                        } else {
                            tracing::debug!(device = %row.device_id, command = %row.command_id, "command not delivered; stays pending");
                            report.failed += 1;
                        }
                    }
                }
            }
            match next {
                Some(n) => after = Some(n),
                None => break,
            }
        }
    }
    Ok(report)
}
