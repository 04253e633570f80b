//! The command bridge: hands accepted command rows to devices through a
//! [`DevicePublisher`] (spec: States and transitions > Command delivery).
//!
//! [`deliver`] publishes one pending row and stores the outcome (`sent`, or
//! still `pending` with one more attempt); the API calls it right after
//! accepting a command. [`sweep`] runs every [`SWEEP_INTERVAL`] (locally a
//! task of the `alyt` process; hosted, `functions/sweeps` loops inside each
//! scheduled invocation) and retries every pending row, giving up on rows
//! whose device has no property (no topic) or that were already
//! acknowledged.
//!
//! Every state move is a conditional write on the row as read, so the
//! immediate publish and a sweep racing on the same row store one outcome;
//! the loser's outcome is dropped (a device may then see the command twice,
//! which the commandId lets it recognise).

use std::sync::Arc;

use alyt_domain::Clock;
use alyt_domain::device::{CommandEvent, CommandRow, SweepAction, sweep_action};
use alyt_domain::ids::TenantId;
use alyt_store::repo::commands::{Commands, StoredCommand, pending_partitions};
use alyt_store::repo::devices::Devices;
use alyt_store::{Store, StoreError};

use crate::channels::{CommandMessage, encode_command};
use crate::plane::{DevicePublisher, PublishError};
use crate::topic::DeviceIdentity;

/// How often the bridge sweep runs (spec: every 2 seconds).
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

/// What [`deliver`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct Delivery {
    /// The row as stored afterwards (re-read when another writer moved it
    /// first).
    pub row: CommandRow,
    pub published: Result<(), PublishError>,
    /// Whether this call's outcome is the one stored.
    pub stored: bool,
}

/// Publishes a pending row to `identity` and stores the outcome.
pub async fn deliver(
    store: &dyn Store,
    publisher: &dyn DevicePublisher,
    clock: &dyn Clock,
    tenant: TenantId,
    row: &CommandRow,
    identity: &DeviceIdentity,
) -> Result<Delivery, StoreError> {
    let published = match command_payload(row) {
        Ok(payload) => publisher.publish(identity, payload).await,
        Err(e) => Err(e),
    };
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
    let commands = Commands(store);
    if commands.transition(tenant, row, &next).await? {
        return Ok(Delivery {
            row: next,
            published,
            stored: true,
        });
    }
    let current = commands
        .get(row.device_id, row.command_id)
        .await?
        .map(|s| s.row)
        .unwrap_or(next);
    Ok(Delivery {
        row: current,
        published,
        stored: false,
    })
}

/// One pass over the pending rows (gsi3), oldest first.
pub async fn sweep(
    store: Arc<dyn Store>,
    publisher: Arc<dyn DevicePublisher>,
    clock: Arc<dyn Clock>,
) -> Result<SweepReport, StoreError> {
    let mut report = SweepReport::default();
    let commands = Commands(&*store);
    let devices = Devices(&*store);
    for partition in pending_partitions() {
        let mut after = None;
        for _ in 0..SWEEP_PAGES {
            let (rows, next) = commands.pending(&partition, SWEEP_PAGE, after).await?;
            for StoredCommand { tenant_id, row } in rows {
                let device = devices
                    .get(tenant_id, row.device_id)
                    .await?
                    .filter(|d| d.deleted_at.is_none());
                let property = device.as_ref().and_then(|d| d.property_id);
                // A response already on record for a row still pending.
                let acknowledged = row.result_status.is_some();
                match sweep_action(&row, property.is_some(), acknowledged) {
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
