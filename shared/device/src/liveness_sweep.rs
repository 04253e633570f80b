//! The heartbeat sweep: an ONLINE device silent past its heartbeat window, its
//! socket possibly still open, is stored OFFLINE with a `device.offline` event,
//! reason `heartbeat`.
//!
//! Finding candidates costs no scan: ONLINE devices are in the sparse gsi3
//! index `ONLINE#{shard}` / `{lastSeen}#{deviceId}` (see
//! [`alyt_store::repo::devices::ONLINE_SHARDS`] for the shard count and its
//! write ceiling). Each shard is queried for devices last seen before
//! `now - MIN_HEARTBEAT_WINDOW_SECONDS` (the smallest window any device may
//! have), and each candidate is then judged with its own window by
//! [`on_heartbeat_expired`].
//!
//! Each device goes OFFLINE in ONE transaction with its event, conditioned on
//! the `updatedAt` (and status) the sweep read: a device that reported
//! meanwhile (ingest always moves `updatedAt` forward) is left alone, and a
//! sweep racing another sweep records one event. Running it twice changes
//! nothing the second time: an OFFLINE device leaves the index.
//!
//! Runs every [`SWEEP_INTERVAL`] locally (`functions/local`); hosted, once
//! per scheduled invocation of `functions/sweeps` (every minute).

use std::sync::Arc;

use alyt_domain::Clock;
use alyt_domain::device::{DeviceOfflineData, Lenient, Transition, on_heartbeat_expired};
use alyt_events::{EventLog, PlatformEvent};
use alyt_store::repo::devices::{DeviceRecord, Devices, ONLINE_SHARDS, device_item};
use alyt_store::{Condition, Store, StoreError, TxWrite};
use serde_json::json;
use time::OffsetDateTime;

/// The smallest heartbeat window a device may have: the sweep's query bound.
/// A device with a smaller window would be marked late, never wrongly.
pub const MIN_HEARTBEAT_WINDOW_SECONDS: u32 = 30;
/// How often the local platform runs the sweep.
pub const SWEEP_INTERVAL: std::time::Duration = std::time::Duration::from_secs(5);
/// Devices read per query.
const PAGE: u32 = 100;

/// What one sweep did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SweepReport {
    /// Candidates read from the index (silent past the smallest window).
    pub checked: usize,
    /// Stored OFFLINE, each with one `device.offline` event.
    pub marked_offline: usize,
    /// Changed between the read and the write (a report won): left alone.
    pub raced: usize,
}

#[derive(Clone)]
pub struct LivenessSweep {
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    events: EventLog,
    min_window_seconds: u32,
}

impl LivenessSweep {
    pub fn new(store: Arc<dyn Store>, clock: Arc<dyn Clock>, events: EventLog) -> Self {
        Self {
            store,
            clock,
            events,
            min_window_seconds: MIN_HEARTBEAT_WINDOW_SECONDS,
        }
    }

    /// Queries for devices silent past `seconds` instead of
    /// [`MIN_HEARTBEAT_WINDOW_SECONDS`]: for a platform whose devices have
    /// shorter windows (a test platform's virtual devices).
    pub fn with_min_window(mut self, seconds: u32) -> Self {
        self.min_window_seconds = seconds;
        self
    }

    /// One pass over every shard.
    pub async fn run(&self) -> Result<SweepReport, StoreError> {
        let now = self.clock.now();
        let before = now - time::Duration::seconds(i64::from(self.min_window_seconds));
        let mut report = SweepReport::default();
        for shard in 0..ONLINE_SHARDS {
            let mut after = None;
            loop {
                let (devices, next) = Devices(self.store.as_ref())
                    .online_silent_since(shard, before, PAGE, after)
                    .await?;
                for device in devices {
                    report.checked += 1;
                    if self.expire(&device, now).await? {
                        report.marked_offline += 1;
                    } else if device.deleted_at.is_none() && expired(&device, now).is_some() {
                        report.raced += 1;
                    }
                }
                match next {
                    Some(next) => after = Some(next),
                    None => break,
                }
            }
        }
        Ok(report)
    }

    /// Stores OFFLINE with its event when `device` is past its window; false
    /// when it is not, or it changed since it was read.
    async fn expire(&self, device: &DeviceRecord, now: OffsetDateTime) -> Result<bool, StoreError> {
        if device.deleted_at.is_some() {
            return Ok(false);
        }
        let Some(transition) = expired(device, now) else {
            return Ok(false);
        };
        let Transition::Offline(reason) = transition else {
            return Ok(false);
        };
        let mut updated = device.clone();
        updated.status = Lenient::Known(transition.next_status());
        updated.updated_at = now.max(device.updated_at + time::Duration::microseconds(1));
        let event = PlatformEvent::DeviceOffline(DeviceOfflineData {
            device_id: device.id,
            name: device.name.clone(),
            at: now,
            reason,
        });
        let unchanged = Condition::eq("status", json!(device.status)).and(Condition::eq(
            "updatedAt",
            json!(rfc3339(device.updated_at)),
        ));
        let mut writes = vec![TxWrite::Put {
            item: device_item(&updated)?,
            condition: Some(unchanged),
        }];
        writes.extend(
            self.events
                .writes(device.tenant_id, device.property_id, vec![event])?,
        );
        match self.store.transact(writes).await {
            Ok(()) => Ok(true),
            Err(StoreError::TransactionCanceled { .. }) => {
                tracing::debug!(device = %device.id, "device changed during the sweep: left alone");
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }
}

fn expired(device: &DeviceRecord, now: OffsetDateTime) -> Option<Transition> {
    on_heartbeat_expired(
        device.status.known()?,
        device.last_seen,
        now,
        device.heartbeat_window_seconds,
    )
}

fn rfc3339(at: OffsetDateTime) -> String {
    at.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}
