//! The ingest pipeline: every accepted device message, from the embedded
//! broker's queue locally or from SQS batches hosted, goes through [`Ingest::handle`].
//!
//! Each message is decoded against its channel's schema (anything else is
//! dropped and counted, never an error that stops the pipeline, and so is a
//! message whose writes the store refuses as invalid), then applied
//! in ONE transaction with a dedupe guard on its message id and the platform
//! events it causes: a message delivered twice makes one state change and one
//! event, and an event exists exactly when its change does.
//!
//! Telemetry with numbers is the exception, for its cost and rate
//! ([`Ingest::apply_telemetry`]): its points (the first its guard) and a
//! feed item, from which the telemetry sequencer (`crate::sequencer`)
//! raises its `device.telemetry`, exactly once; the device is written when
//! its status moves or its `lastSeen` is due.
//!
//! Channels: status (reported payload, features, lastSeen, back online),
//! availability (online; offline and the last will: OFFLINE 'last-will'),
//! telemetry (time series points, device.telemetry by the sequencer), events (the device
//! log, and what the event tells the home's security, handed to the
//! [`SecurityFeed`] port with the device as read for the message: a
//! detection before the transaction, a lock's move or a hub's report after
//! it), alerts (the device log, a tenant notification and
//! notification.raised) and command responses (the command row answered,
//! command.result; a duplicate or an unknown commandId changes nothing).
//! Every report but an offline one counts as hearing from the device.
//!
//! What the platform never stores (PIN values, credentials, private media
//! URLs) is taken out of the free-form objects first, by the same rule a
//! connector's endpoint state goes through.
//!
//! Each channel has its planner (`status`, `telemetry`, `response`, …): a
//! pure function from the message and the device as read to the writes of
//! the change, the events it raises and its liveness move (`Heard`); one
//! place (`Ingest::transaction`) assembles them with the dedupe guard and
//! the device write.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use alyt_domain::Clock;
use alyt_domain::device::{
    CommandEvent, DeviceCapability, DeviceOfflineData, DeviceOnlineData, DeviceStatus,
    DeviceTelemetryData, FirmwareChannel, Lenient, Transition, last_seen_after, last_seen_due,
    on_last_will_sent, on_report_sent,
};
use alyt_domain::ids::{DeviceId, TenantId};
use alyt_domain::notification::alert_text;
use alyt_domain::security::Signal;
use alyt_domain::security::hub::HubReport;
use alyt_domain::security::machine::LockEvent;
use alyt_events::{EventLog, PlatformEvent};
use alyt_store::repo::commands::{Commands, StoredCommand, transition_write};
use alyt_store::repo::devices::{
    DeviceRecord, ReportedRecord, child_guard, device_item, paired_child_writes, reported_key,
};
use alyt_store::repo::events::{Events, shard_of};
use alyt_store::repo::feed::{FedTelemetry, feed_item, guard_point, guarded_shard};
use alyt_store::repo::history::{DeviceLogEntry, LogChannel, device_log_item, telemetry_item};
use alyt_store::repo::messages::{PublishedRecord, dedupe_guard, last_published, published_write};
use alyt_store::repo::notifications::{KIND_DEVICE_ALERT, NotificationRecord, notification_item};
use alyt_store::repo::tenancy::{HomeAddressRecord, home_address_write};
use alyt_store::{Condition, Durability, Item, Key, Store, StoreError, TxWrite};
use async_trait::async_trait;
use serde_json::{Value, json};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::channels::{
    Availability, ChannelMessage, CommandResponse, JsonObject, SecurityEvent, StatusReport,
    Telemetry, decode_inbound,
};
use crate::meter::MessageMeter;
use crate::pairing::{ChildPairing, child_pairing};
use crate::plane::{InboundMessage, publish_digest};
use crate::topic::DeviceIdentity;

pub use alyt_store::repo::history::TELEMETRY_RETENTION_DAYS;
/// Attempts when a concurrent change to the same device wins the race.
const ATTEMPTS: usize = 4;
/// The reason a message is dropped when the store says the writes it makes
/// are invalid (past one of DynamoDB's limits, which both stores keep): the
/// same message would fail the same way on every retry, so it is never
/// retried.
pub const UNSTORABLE: &str = "unstorable";

/// What happened to one message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Applied,
    /// Seen before (same message id): nothing changed.
    Duplicate,
    /// Failed its channel's schema, or the store refused what it would
    /// write ([`UNSTORABLE`]); counted under this reason.
    Rejected(&'static str),
    /// For a device that does not exist (deleted, or never registered).
    UnknownDevice,
    /// Decoded, but nothing stores this channel yet.
    Ignored,
    /// A virtual device's message past its developer's `MQTT_MESSAGES`
    /// quota: dropped.
    OverQuota,
}

/// Counters for the dropped-messages metric and the logs.
#[derive(Debug, Default)]
pub struct IngestStats {
    pub applied: AtomicU64,
    pub duplicates: AtomicU64,
    pub unknown_devices: AtomicU64,
    pub over_quota: AtomicU64,
    rejected: Mutex<BTreeMap<&'static str, u64>>,
}

impl IngestStats {
    /// Dropped messages by reason: a channel's [`RejectReason`](crate::channels::RejectReason)
    /// label, or [`UNSTORABLE`].
    pub fn rejected(&self) -> BTreeMap<&'static str, u64> {
        self.rejected
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// Where ingest hands what devices' `events` tell their home's security
/// ([`SecurityEvent`], read from the event's fields), with the device as
/// the message's own path read it. alyt-security's `HomeSecurity` is the
/// platform's; [`NoSecurity`] hears nothing. What is a detector, a lock or
/// a home's hub, and what follows, is security's to decide.
#[async_trait]
pub trait SecurityFeed: Send + Sync {
    /// A detection by `device`, before the message's own transaction, once
    /// per handling. An error fails the message, which comes again: the
    /// event id makes a repeat count once.
    async fn detected(&self, device: &DeviceRecord, detection: Detection)
    -> Result<(), StoreError>;

    /// A lock's move, once the message's transaction made it (once).
    async fn lock_moved(&self, device: &DeviceRecord, action: LockEvent) -> Result<(), StoreError>;

    /// A hub's report, once the message's transaction made it; `hub` is
    /// who sent it (its home as its credential names it).
    async fn hub_reported(&self, hub: DeviceIdentity, report: HubReport) -> Result<(), StoreError>;
}

/// A detection as home security takes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detection {
    pub signal: Signal,
    /// Stable across repeats: the device's own event id (scoped to the
    /// device), else the message's id.
    pub event_id: String,
    /// When it happened: as the device said, else when the message arrived.
    pub occurred_at: OffsetDateTime,
}

/// A [`SecurityFeed`] that hears nothing (ingest where no home security
/// runs, e.g. tests of the device plane alone).
#[derive(Debug, Default, Clone, Copy)]
pub struct NoSecurity;

#[async_trait]
impl SecurityFeed for NoSecurity {
    async fn detected(&self, _: &DeviceRecord, _: Detection) -> Result<(), StoreError> {
        Ok(())
    }

    async fn lock_moved(&self, _: &DeviceRecord, _: LockEvent) -> Result<(), StoreError> {
        Ok(())
    }

    async fn hub_reported(&self, _: DeviceIdentity, _: HubReport) -> Result<(), StoreError> {
        Ok(())
    }
}

/// Why a message was not applied: its own reads and writes failed (an
/// invalid one drops it as [`UNSTORABLE`]), or home security could not take
/// its detection (always worth a retry, never dropped).
enum NotApplied {
    Store(StoreError),
    Security(StoreError),
}

impl From<StoreError> for NotApplied {
    fn from(e: StoreError) -> Self {
        Self::Store(e)
    }
}

#[derive(Clone)]
pub struct Ingest {
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    events: EventLog,
    security: Arc<dyn SecurityFeed>,
    meter: MessageMeter,
    stats: Arc<IngestStats>,
    /// Each device's latest stored publishes as last committed (local
    /// runtime: one ingest applies a device's messages, one at a time).
    published: Arc<Mutex<HashMap<DeviceId, PublishedRecord>>>,
    /// Each tenant's log shard count as read, and when.
    shard_counts: Arc<Mutex<HashMap<TenantId, (std::time::Instant, u32)>>>,
}

/// How long a tenant's log shard count is used as read (the DynamoDB
/// adapter keeps it as long): a message's feed shard may lag a grow by
/// that much, which moves where its events are paged, not whether.
const SHARDS_KNOWN_FOR: std::time::Duration = std::time::Duration::from_secs(60);
/// Tenants whose shard counts are kept before the memory starts again.
const SHARD_COUNTS_KEPT: usize = 10_000;

/// Devices whose latest publishes are kept in memory before the cache
/// starts again (it is read back from the store on demand).
const PUBLISHED_CACHED: usize = 100_000;

fn device_key(tenant: TenantId, id: DeviceId) -> Key {
    alyt_store::repo::devices::device_key(tenant, id)
}

impl Ingest {
    /// Ingest over `store`, handing what device events tell home security to
    /// `security` ([`NoSecurity`] where none runs).
    pub fn new(
        store: Arc<dyn Store>,
        clock: Arc<dyn Clock>,
        events: EventLog,
        security: Arc<dyn SecurityFeed>,
    ) -> Self {
        Self {
            meter: MessageMeter::new(store.clone(), clock.clone()),
            store,
            clock,
            events,
            security,
            stats: Arc::default(),
            published: Arc::default(),
            shard_counts: Arc::default(),
        }
    }

    /// The same ingest counting messages in `usage` (the process's one
    /// usage meter).
    pub fn counting_in(mut self, usage: alyt_store::meter::UsageMeter) -> Self {
        self.meter = MessageMeter::counting_in(self.store.clone(), self.clock.clone(), usage);
        self
    }

    /// The `MQTT_MESSAGES` meter this ingest admits virtual devices' messages
    /// with (the simulator asks the same one whether a budget is spent).
    pub fn meter(&self) -> MessageMeter {
        self.meter.clone()
    }

    pub fn stats(&self) -> Arc<IngestStats> {
        self.stats.clone()
    }

    /// Applies one message. Errors are store failures worth a retry only;
    /// everything about the message itself is an [`Outcome`], including
    /// writes the store refuses as invalid ([`UNSTORABLE`]).
    pub async fn handle(&self, message: &InboundMessage) -> Result<Outcome, StoreError> {
        if self.stored_already(message).await? {
            // So that this very delivery, read back from the broker's inbox
            // after a crash, is not weighed again against a device whose
            // latest publishes have moved on.
            self.remember_handled(message).await?;
            // Stored, perhaps without its feed item (a stop between them).
            self.feed_again_if_telemetry(message).await?;
            self.stats.duplicates.fetch_add(1, Ordering::Relaxed);
            tracing::debug!(topic = %message.topic, "a publish already stored was sent again");
            return Ok(Outcome::Duplicate);
        }
        let mut decoded = match decode_inbound(message.channel, &message.payload) {
            Ok(decoded) => decoded,
            Err(rejected) => {
                let reason = rejected.reason.as_str();
                self.count_rejected(reason);
                tracing::debug!(topic = %message.topic, reason, "device message dropped");
                return Ok(Outcome::Rejected(reason));
            }
        };
        // Before anything reads it: a PIN or a private media URL must reach
        // no reported payload, device log, notification or event.
        let stripped = decoded.strip_secrets();
        if stripped > 0 {
            tracing::debug!(topic = %message.topic, stripped, "values never stored left out");
        }
        let security = match &decoded {
            ChannelMessage::Event(fields) => SecurityEvent::of(fields),
            _ => None,
        };
        let outcome = match self.apply(message, &decoded, security.as_ref()).await {
            Ok(outcome) => outcome,
            Err(NotApplied::Store(StoreError::Invalid(detail))) => {
                self.count_rejected(UNSTORABLE);
                tracing::warn!(
                    topic = %message.topic,
                    message_id = %message.message_id,
                    %detail,
                    "device message dropped: the store refuses what it would write"
                );
                return Ok(Outcome::Rejected(UNSTORABLE));
            }
            Err(NotApplied::Store(e) | NotApplied::Security(e)) => return Err(e),
        };
        match outcome {
            Outcome::Applied => self.stats.applied.fetch_add(1, Ordering::Relaxed),
            Outcome::Duplicate => self.stats.duplicates.fetch_add(1, Ordering::Relaxed),
            Outcome::UnknownDevice => self.stats.unknown_devices.fetch_add(1, Ordering::Relaxed),
            Outcome::OverQuota => self.stats.over_quota.fetch_add(1, Ordering::Relaxed),
            _ => 0,
        };
        Ok(outcome)
    }

    /// A publish the broker cannot place (see `PublishPacket::maybe_resent`)
    /// on a packet id with the content last stored on it, among its
    /// device's latest: stored before a restart or a reconnect, its PUBACK
    /// lost, and sent again. (A device that reuses one packet id and
    /// repeats a payload byte for byte across a restart or reconnect has
    /// the repeat taken for the resend: QoS 1 cannot tell them apart
    /// without a DUP flag, which rumqttc never sets.)
    async fn stored_already(&self, message: &InboundMessage) -> Result<bool, StoreError> {
        let Some(packet) = message.packet.filter(|p| p.maybe_resent) else {
            return Ok(false);
        };
        let published = self.published_of(message.identity.device_id).await?;
        Ok(published.digest_on(packet.id)
            == Some(publish_digest(&message.topic, &message.payload).as_str()))
    }

    /// Records that `message` was handled without a transaction of its own
    /// (its dedupe guard alone), so that handling it again changes nothing.
    async fn remember_handled(&self, message: &InboundMessage) -> Result<(), StoreError> {
        let guard = dedupe_guard(&message.message_id, self.clock.unix_seconds());
        match self
            .store
            .transact_with(vec![guard], Durability::Written)
            .await
        {
            Ok(()) | Err(StoreError::TransactionCanceled { .. }) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// A device's latest stored publishes: from memory, else the store.
    async fn published_of(&self, device: DeviceId) -> Result<PublishedRecord, StoreError> {
        if let Some(record) = self.cached_published().get(&device) {
            return Ok(record.clone());
        }
        let record = last_published(&*self.store, device)
            .await?
            .unwrap_or_default();
        self.remember_published(device, record.clone());
        Ok(record)
    }

    fn remember_published(&self, device: DeviceId, record: PublishedRecord) {
        let mut cached = self.cached_published();
        if cached.len() >= PUBLISHED_CACHED && !cached.contains_key(&device) {
            cached.clear();
        }
        cached.insert(device, record);
    }

    fn cached_published(&self) -> std::sync::MutexGuard<'_, HashMap<DeviceId, PublishedRecord>> {
        self.published.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Hands a detection to the home's security before the message's own
    /// transaction (once per handling): a detection is deduplicated by its
    /// event id (the device's own, else the message's), so a redelivery
    /// after a fault is recorded once, and a failure fails the message, so
    /// none is lost.
    async fn detected(
        &self,
        message: &InboundMessage,
        device: &DeviceRecord,
        event: &SecurityEvent,
    ) -> Result<(), StoreError> {
        let SecurityEvent::Detection { signal, id, at } = event else {
            return Ok(());
        };
        let detection = Detection {
            signal: *signal,
            event_id: match id {
                Some(id) => format!("{}:{id}", device.id),
                None => message.message_id.clone(),
            },
            occurred_at: at.unwrap_or(message.received_at),
        };
        self.security.detected(device, detection).await
    }

    /// Hands a lock's move or a hub's report to the home's security once
    /// the message's own transaction made it once: a move must never act
    /// twice (a redelivered keypad unlock must not disarm a home armed
    /// again since). Best effort: a failure is logged.
    async fn after_applied(
        &self,
        message: &InboundMessage,
        device: &DeviceRecord,
        event: &SecurityEvent,
    ) {
        match event {
            SecurityEvent::Detection { .. } => {}
            SecurityEvent::LockMove(action) => {
                if let Err(e) = self.security.lock_moved(device, *action).await {
                    tracing::warn!(device = %device.id, error = %e, "a lock's move could not be recorded");
                }
            }
            SecurityEvent::Hub(report) => {
                let hub = message.identity;
                if let Err(e) = self.security.hub_reported(hub, report.clone()).await {
                    tracing::warn!(device = %hub.device_id, error = %e, "a hub's report could not be recorded");
                }
            }
        }
    }

    fn count_rejected(&self, reason: &'static str) {
        *self
            .stats
            .rejected
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(reason)
            .or_default() += 1;
    }

    /// Applies the message (again from the read when its device moved
    /// first), handing what it tells home security to [`SecurityFeed`]
    /// with the device as read here.
    async fn apply(
        &self,
        message: &InboundMessage,
        decoded: &ChannelMessage,
        security: Option<&SecurityEvent>,
    ) -> Result<Outcome, NotApplied> {
        if let ChannelMessage::Telemetry(readings) = decoded {
            let metrics = readings.metrics();
            if !metrics.is_empty() {
                return self.apply_telemetry(message, metrics).await;
            }
        }
        let mut metered = false;
        let mut detected = false;
        for attempt in 0..ATTEMPTS {
            let Some(device) = self.device_of(message).await? else {
                return Ok(Outcome::UnknownDevice);
            };
            if let (Some(event), false) = (security, detected) {
                self.detected(message, &device, event)
                    .await
                    .map_err(NotApplied::Security)?;
                detected = true;
            }
            if device.is_virtual && !metered {
                if !self.admitted(message, &device).await? {
                    return Ok(Outcome::OverQuota);
                }
                metered = true;
            }
            // A response names the command row it answers.
            let command = match decoded {
                ChannelMessage::Response(response) => {
                    Commands(&*self.store)
                        .get(device.id, response.command_id)
                        .await?
                }
                _ => None,
            };
            // A hub reporting a child it paired: the child is created unless
            // the hub has one with this protocolId already.
            let pairing = self.new_child(decoded, &device).await?;
            let Some(mut writes) = self.plan(
                message,
                decoded,
                &device,
                command.as_ref(),
                pairing.as_ref(),
            )?
            else {
                return Ok(Outcome::Ignored);
            };
            let published = self.published_with(message, &device, &mut writes).await?;
            // Written, not synced: the broker's inbox (or its PUBACK) waits
            // on this commit, and a message must outlive the process, not a
            // power cut (ARCHITECTURE.md, "Acknowledged means stored").
            match self.store.transact_with(writes, Durability::Written).await {
                Ok(()) => {
                    if let Some(record) = published {
                        self.remember_published(device.id, record);
                    }
                    if let Some(event) = security {
                        self.after_applied(message, &device, event).await;
                    }
                    return Ok(Outcome::Applied);
                }
                Err(StoreError::TransactionCanceled { reasons }) => {
                    // Write 0 is the dedupe guard: this message was applied before.
                    if reasons.first() == Some(&alyt_store::CancelReason::ConditionFailed) {
                        return Ok(Outcome::Duplicate);
                    }
                    // Another transaction held one of its items (DynamoDB's
                    // TransactionConflict: another message of this device):
                    // spread out before trying again. Past the last attempt
                    // the message fails, and SQS delivers it again.
                    if reasons.contains(&alyt_store::CancelReason::Conflict) {
                        alyt_store::repo::conflict_pause(attempt as u32).await;
                    }
                    // The device changed under us (another message): read again.
                    continue;
                }
                Err(e) => return Err(e.into()),
            }
        }
        Err(StoreError::Unavailable(
            "the device kept changing while this message was applied".into(),
        )
        .into())
    }

    /// A telemetry message with numbers: its points, the first its guard
    /// (put on the condition that it is absent: a message delivered again
    /// stops there), then its feed item, which carries it to the telemetry
    /// sequencer (`alyt_store::repo::feed`), which raises its
    /// `device.telemetry` event from the store's feed. The device is
    /// written only when the report moves its status (in the points'
    /// transaction, with the event of the move) or its `lastSeen` is due
    /// ([`last_seen_due`]: after the feed item, alone), so a device
    /// reporting often costs two writes a message, not a transaction of
    /// five.
    async fn apply_telemetry(
        &self,
        message: &InboundMessage,
        metrics: BTreeMap<String, f64>,
    ) -> Result<Outcome, NotApplied> {
        let at = message.received_at;
        let mut metered = false;
        let mut stored = false;
        for attempt in 0..ATTEMPTS {
            let Some(device) = self.device_of(message).await? else {
                return Ok(Outcome::UnknownDevice);
            };
            if device.is_virtual && !metered {
                if !self.admitted(message, &device).await? {
                    return Ok(Outcome::OverQuota);
                }
                metered = true;
            }
            let mut updated = device.clone();
            let moved = move_liveness(&device, Heard::Report, at, self.clock.now(), &mut updated);
            let due = moved.is_some()
                || last_seen_due(device.last_seen, at, device.heartbeat_window_seconds);
            if !stored {
                let shard = self.feed_shard(&device).await?;
                let mut writes =
                    telemetry_points(&device, &metrics, &message.message_id, at, shard);
                let published = self.published_with(message, &device, &mut writes).await?;
                if moved.is_some() {
                    writes.extend(self.device_writes(&device, updated.clone(), moved.clone())?);
                }
                match self.store.transact_with(writes, Durability::Written).await {
                    Ok(()) => {
                        stored = true;
                        if let Some(record) = published {
                            self.remember_published(device.id, record);
                        }
                        self.feed(message, &device, &metrics, shard).await?;
                        if moved.is_some() || !due {
                            return Ok(Outcome::Applied);
                        }
                    }
                    Err(StoreError::TransactionCanceled { reasons }) => {
                        // Write 0 is the guard: this message was stored
                        // before, perhaps not its feed item.
                        if reasons.first() == Some(&alyt_store::CancelReason::ConditionFailed) {
                            self.feed_again(message, &device, &metrics).await?;
                            return Ok(Outcome::Duplicate);
                        }
                        if reasons.contains(&alyt_store::CancelReason::Conflict) {
                            alyt_store::repo::conflict_pause(attempt as u32).await;
                        }
                        continue;
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            // Stored. Read again after another writer's change, the device
            // may be due no more (that writer stored a later lastSeen).
            if !due {
                return Ok(Outcome::Applied);
            }
            let writes = self.device_writes(&device, updated, moved)?;
            match self.store.transact_with(writes, Durability::Written).await {
                Ok(()) => return Ok(Outcome::Applied),
                Err(StoreError::TransactionCanceled { reasons }) => {
                    if reasons.contains(&alyt_store::CancelReason::Conflict) {
                        alyt_store::repo::conflict_pause(attempt as u32).await;
                    }
                }
                Err(e) => return Err(e.into()),
            }
        }
        Err(StoreError::Unavailable(
            "the device kept changing while this message was applied".into(),
        )
        .into())
    }

    /// The feed shard of `device`'s telemetry: its home's shard of its
    /// tenant's log, the shard count as read within [`SHARDS_KNOWN_FOR`].
    async fn feed_shard(&self, device: &DeviceRecord) -> Result<u32, StoreError> {
        let tenant = device.tenant_id;
        let known = self
            .shard_counts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&tenant)
            .filter(|(read, _)| read.elapsed() < SHARDS_KNOWN_FOR)
            .map(|(_, count)| *count);
        let count = match known {
            Some(count) => count,
            None => {
                let count = Events(&*self.store).shards(tenant).await?;
                let mut counts = self.shard_counts.lock().unwrap_or_else(|e| e.into_inner());
                if counts.len() >= SHARD_COUNTS_KEPT {
                    counts.clear();
                }
                counts.insert(tenant, (std::time::Instant::now(), count));
                count
            }
        };
        Ok(shard_of(device.property_id, count))
    }

    /// Writes the message's feed item in `shard` (after its guard: the
    /// feed item carries it to the telemetry sequencer).
    async fn feed(
        &self,
        message: &InboundMessage,
        device: &DeviceRecord,
        metrics: &BTreeMap<String, f64>,
        shard: u32,
    ) -> Result<(), StoreError> {
        let fed = FedTelemetry {
            tenant_id: device.tenant_id,
            property_id: device.property_id,
            device_id: device.id,
            metrics: metrics.clone(),
            at: message.received_at,
        };
        let item = feed_item(shard, &message.message_id, &fed, self.clock.now())?;
        let write = TxWrite::Put {
            item,
            condition: None,
        };
        self.store
            .transact_with(vec![write], Durability::Written)
            .await
    }

    /// A message whose guard was stored before: its feed item again, in
    /// the shard the guard names (the first delivery may have stopped
    /// before it). Already there, it is no new item, so no second event.
    async fn feed_again(
        &self,
        message: &InboundMessage,
        device: &DeviceRecord,
        metrics: &BTreeMap<String, f64>,
    ) -> Result<(), StoreError> {
        let Some((metric, value)) = metrics.iter().next() else {
            return Ok(());
        };
        let key = telemetry_item(
            device.id,
            metric,
            Some(*value),
            message.received_at,
            &message.message_id,
        )
        .key();
        let guard = self.store.get(&key).await?;
        match guard.as_ref().and_then(guarded_shard) {
            Some(shard) => self.feed(message, device, metrics, shard).await,
            None => Ok(()),
        }
    }

    /// [`Self::feed_again`] for a telemetry message with numbers known to be
    /// stored before (a resend the broker's bookkeeping placed).
    async fn feed_again_if_telemetry(&self, message: &InboundMessage) -> Result<(), StoreError> {
        let Ok(ChannelMessage::Telemetry(readings)) =
            decode_inbound(message.channel, &message.payload)
        else {
            return Ok(());
        };
        let metrics = readings.metrics();
        match self.device_of(message).await? {
            Some(device) if !metrics.is_empty() => {
                self.feed_again(message, &device, &metrics).await
            }
            _ => Ok(()),
        }
    }

    /// The message's device, unless it is unknown or deleted (one get).
    async fn device_of(
        &self,
        message: &InboundMessage,
    ) -> Result<Option<DeviceRecord>, StoreError> {
        let key = device_key(message.identity.tenant_id, message.identity.device_id);
        Ok(self
            .store
            .get(&key)
            .await?
            .map(|i| i.to_record::<DeviceRecord>())
            .transpose()?
            .filter(|d| d.deleted_at.is_none()))
    }

    /// Whether a virtual device's message is within its developer's
    /// `MQTT_MESSAGES` quota. One past it is dropped for good: read back
    /// from the inbox after a crash, in a later quota window, it stays
    /// dropped.
    async fn admitted(
        &self,
        message: &InboundMessage,
        device: &DeviceRecord,
    ) -> Result<bool, StoreError> {
        if self.meter.admit(device.tenant_id).await? {
            return Ok(true);
        }
        self.remember_handled(message).await?;
        Ok(false)
    }

    /// A QoS 1 publish through the embedded broker joins its device's
    /// latest, in the message's transaction: its write joins `writes`, and
    /// the record comes back to be remembered once that commits.
    async fn published_with(
        &self,
        message: &InboundMessage,
        device: &DeviceRecord,
        writes: &mut Vec<TxWrite>,
    ) -> Result<Option<PublishedRecord>, StoreError> {
        let Some(packet) = message.packet else {
            return Ok(None);
        };
        let record = self
            .published_of(device.id)
            .await?
            .with(packet.id, publish_digest(&message.topic, &message.payload));
        writes.push(published_write(
            device.id,
            &record,
            self.clock.unix_seconds(),
        )?);
        Ok(Some(record))
    }

    /// The device as `updated` from `device` (as read), on the condition
    /// that it is still as read, and the event of its status move.
    fn device_writes(
        &self,
        device: &DeviceRecord,
        mut updated: DeviceRecord,
        moved: Option<PlatformEvent>,
    ) -> Result<Vec<TxWrite>, StoreError> {
        // Strictly later than what was read, so the condition below always
        // tells this write apart from the one it replaces.
        updated.updated_at = self
            .clock
            .now()
            .max(device.updated_at + time::Duration::microseconds(1));
        // Applied only if the device is exactly as read (every change bumps
        // updatedAt): two messages never interleave their transitions, and a
        // concurrent change through the API (settings, rename) is never undone.
        let unchanged = Condition::eq("updatedAt", json!(rfc3339(device.updated_at)));
        let mut writes = vec![TxWrite::Put {
            item: device_item(&updated)?,
            condition: Some(unchanged),
        }];
        if let Some(event) = moved {
            writes.extend(
                self.events
                    .writes(device.tenant_id, device.property_id, vec![event])?,
            );
        }
        Ok(writes)
    }

    /// The child a hub's event pairs, when the event is a usable pairing
    /// from a hub that has no child with its protocolId yet (one get).
    async fn new_child(
        &self,
        decoded: &ChannelMessage,
        hub: &DeviceRecord,
    ) -> Result<Option<ChildPairing>, StoreError> {
        let ChannelMessage::Event(fields) = decoded else {
            return Ok(None);
        };
        let pairing = match child_pairing(fields) {
            None => return Ok(None),
            Some(Err(why)) => {
                tracing::info!(device = %hub.id, %why, "a pairing event names no usable child");
                return Ok(None);
            }
            Some(Ok(pairing)) => pairing,
        };
        if !hub
            .capabilities
            .contains(&Lenient::Known(DeviceCapability::Hub))
        {
            tracing::info!(device = %hub.id, "a device without the HUB capability reported a pairing");
            return Ok(None);
        }
        let known = self
            .store
            .get(&child_guard(hub.id, &pairing.protocol_id))
            .await?
            .is_some();
        Ok((!known).then_some(pairing))
    }

    /// The writes for one message: what its channel plans, assembled into
    /// one transaction. `None` when the message changes nothing (a command
    /// echoed back, a response to no pending row).
    fn plan(
        &self,
        message: &InboundMessage,
        decoded: &ChannelMessage,
        device: &DeviceRecord,
        command: Option<&StoredCommand>,
        pairing: Option<&ChildPairing>,
    ) -> Result<Option<Vec<TxWrite>>, StoreError> {
        let at = message.received_at;
        let message_id = message.message_id.as_str();
        let planned = match decoded {
            ChannelMessage::Status(report) => status(device, report, at)?,
            ChannelMessage::Availability(said) => availability(*said),
            ChannelMessage::Telemetry(readings) => telemetry(device, readings, at),
            ChannelMessage::Response(answer) => match response(device, answer, command, at)? {
                Some(planned) => planned,
                None => return Ok(None),
            },
            ChannelMessage::Event(fields) => event(device, fields, pairing, message_id, at)?,
            ChannelMessage::Alert(fields) => alert(device, fields, message_id, at)?,
            ChannelMessage::Command(_) => return Ok(None),
        };
        let mut planned = planned;
        if let Some(write) = home_address(message, decoded, device)? {
            planned.writes.push(write);
        }
        self.transaction(message_id, device, planned, at).map(Some)
    }

    /// The one transaction of a message: the dedupe guard first, then the
    /// channel's writes, the device with its liveness move, and the events
    /// (the liveness event before the channel's).
    fn transaction(
        &self,
        message_id: &str,
        device: &DeviceRecord,
        planned: Planned,
        at: OffsetDateTime,
    ) -> Result<Vec<TxWrite>, StoreError> {
        let mut updated = device.clone();
        if let Some(features) = planned.features {
            updated.features = features;
        }
        if let Some(reported_at) = planned.reported_at {
            updated.reported_at = Some(reported_at);
        }
        let moved = move_liveness(device, planned.heard, at, self.clock.now(), &mut updated);
        let mut writes = vec![dedupe_guard(message_id, self.clock.unix_seconds())];
        writes.extend(planned.writes);
        writes.extend(self.device_writes(device, updated, moved)?);
        writes.extend(
            self.events
                .writes(device.tenant_id, device.property_id, planned.events)?,
        );
        Ok(writes)
    }
}

/// How a message moves its device's liveness.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Heard {
    /// The device was heard from: `lastSeen` moves, and a device not ONLINE
    /// comes online.
    Report,
    /// Its last will fired (or it said `offline`): it goes OFFLINE.
    LastWill,
}

/// What one message changes, as its channel plans it: the writes of the
/// change itself, the events it raises, its liveness move, and, for a
/// status report, the features it declares and when it was received.
struct Planned {
    writes: Vec<TxWrite>,
    events: Vec<PlatformEvent>,
    heard: Heard,
    features: Option<Vec<String>>,
    reported_at: Option<OffsetDateTime>,
}

impl Planned {
    fn heard(heard: Heard) -> Self {
        Self {
            writes: Vec::new(),
            events: Vec::new(),
            heard,
            features: None,
            reported_at: None,
        }
    }
}

/// `status`: the reported payload replaces the last one; the features it
/// declares replace the device's. A report older than the kept one
/// (delivered late) only says the device was heard: the transaction's
/// condition on the device makes that comparison hold at commit, since
/// every report writes the device too.
fn status(
    device: &DeviceRecord,
    report: &StatusReport,
    at: OffsetDateTime,
) -> Result<Planned, StoreError> {
    if device.reported_at.is_some_and(|kept| kept > at) {
        return Ok(Planned::heard(Heard::Report));
    }
    let reported = ReportedRecord {
        device_id: device.id,
        payload: Value::Object(report.payload.clone()),
        reported_at: at,
    };
    Ok(Planned {
        writes: vec![TxWrite::Put {
            item: Item::from_record(reported_key(device.id), &reported)?,
            condition: None,
        }],
        // The keypad stays as registered or paired, whatever the device says.
        features: report.features.as_ref().map(|reported| {
            alyt_domain::security::enrolment::reported_features(&device.features, reported)
        }),
        reported_at: Some(at),
        ..Planned::heard(Heard::Report)
    })
}

/// A hub coming online shows its home's internet address (the network
/// condition's second signal): kept salted and hashed, never in clear.
fn home_address(
    message: &InboundMessage,
    decoded: &ChannelMessage,
    device: &DeviceRecord,
) -> Result<Option<TxWrite>, StoreError> {
    let online = matches!(decoded, ChannelMessage::Availability(Availability::Online));
    let hub = device
        .capabilities
        .contains(&Lenient::Known(DeviceCapability::Hub));
    match (
        online && hub && !message.last_will,
        message.source_address,
        device.property_id,
    ) {
        (true, Some(address), Some(property)) => {
            let record = HomeAddressRecord::of(address, device.id, message.received_at);
            home_address_write(property, &record).map(Some)
        }
        _ => Ok(None),
    }
}

/// `availability`: online is a report; offline (also the last will) is not.
fn availability(availability: Availability) -> Planned {
    Planned::heard(match availability {
        Availability::Online => Heard::Report,
        Availability::Offline => Heard::LastWill,
    })
}

/// `telemetry` without numbers (a reading whose value is null): no point,
/// and `device.telemetry` raised with the message. Telemetry with numbers
/// is [`Ingest::apply_telemetry`]'s.
fn telemetry(device: &DeviceRecord, readings: &Telemetry, at: OffsetDateTime) -> Planned {
    let event = PlatformEvent::DeviceTelemetry(DeviceTelemetryData {
        device_id: device.id,
        metrics: readings.metrics(),
        at,
    });
    Planned {
        events: vec![event],
        ..Planned::heard(Heard::Report)
    }
}

/// A telemetry message's points, one per metric; the first (by name) is the
/// message's guard, put on the condition that it is absent, and names the
/// feed shard its feed item goes to (`alyt_store::repo::feed`).
fn telemetry_points(
    device: &DeviceRecord,
    metrics: &BTreeMap<String, f64>,
    message_id: &str,
    at: OffsetDateTime,
    feed_shard: u32,
) -> Vec<TxWrite> {
    let mut writes = Vec::with_capacity(metrics.len());
    for (metric, value) in metrics {
        let point = telemetry_item(device.id, metric, Some(*value), at, message_id);
        writes.push(match writes.is_empty() {
            true => TxWrite::Put {
                item: guard_point(point, feed_shard),
                condition: Some(Condition::item_absent()),
            },
            false => TxWrite::Put {
                item: point,
                condition: None,
            },
        });
    }
    writes
}

/// `response`: the command row it answers moves, with `command.result`
/// when the answer settles it. `None` for an unknown commandId (or another
/// tenant's row) and for a row already answered or final.
fn response(
    device: &DeviceRecord,
    answer: &CommandResponse,
    command: Option<&StoredCommand>,
    at: OffsetDateTime,
) -> Result<Option<Planned>, StoreError> {
    let Some(stored) = command.filter(|c| c.tenant_id == device.tenant_id) else {
        return Ok(None);
    };
    let answered = CommandEvent::Response {
        status: answer.status.clone(),
    };
    let Some(next) = stored.row.apply(&answered, at) else {
        return Ok(None);
    };
    // Conditional on the row as read: a concurrent sweep moving it cancels
    // the transaction and the message is applied again.
    let writes = vec![transition_write(device.tenant_id, &stored.row, &next)?];
    let events = next
        .result_data()
        .map(PlatformEvent::CommandResult)
        .into_iter()
        .collect();
    Ok(Some(Planned {
        writes,
        events,
        ..Planned::heard(Heard::Report)
    }))
}

/// `events`: the device log, and the child a hub's pairing creates.
fn event(
    device: &DeviceRecord,
    fields: &JsonObject,
    pairing: Option<&ChildPairing>,
    message_id: &str,
    at: OffsetDateTime,
) -> Result<Planned, StoreError> {
    let mut writes = vec![log_write(
        device,
        LogChannel::Event,
        fields,
        message_id,
        at,
    )?];
    if let Some(pairing) = pairing {
        writes.extend(paired_child_writes(&child_of(device, pairing, at))?);
    }
    Ok(Planned {
        writes,
        ..Planned::heard(Heard::Report)
    })
}

/// `alerts`: the device log, a tenant notification and `notification.raised`.
fn alert(
    device: &DeviceRecord,
    fields: &JsonObject,
    message_id: &str,
    at: OffsetDateTime,
) -> Result<Planned, StoreError> {
    let (title, body) = alert_text(&device.name, fields);
    let notification = NotificationRecord {
        // Derived from the message id: a redelivery cannot make a second
        // notification even past the dedupe guard's life.
        id: Uuid::new_v5(&Uuid::NAMESPACE_OID, message_id.as_bytes()),
        tenant_id: device.tenant_id,
        property_id: device.property_id,
        client_id: None,
        kind: KIND_DEVICE_ALERT.to_owned(),
        title,
        body,
        device_id: Some(device.id),
        at,
    };
    Ok(Planned {
        writes: vec![
            log_write(device, LogChannel::Alert, fields, message_id, at)?,
            TxWrite::Put {
                item: notification_item(&notification)?,
                condition: None,
            },
        ],
        events: vec![PlatformEvent::NotificationRaised(notification.raised())],
        ..Planned::heard(Heard::Report)
    })
}

/// The device log entry of an `events` or `alerts` message.
fn log_write(
    device: &DeviceRecord,
    channel: LogChannel,
    fields: &JsonObject,
    message_id: &str,
    at: OffsetDateTime,
) -> Result<TxWrite, StoreError> {
    let entry = DeviceLogEntry {
        device_id: device.id,
        channel,
        payload: Value::Object(fields.clone()),
        at,
    };
    Ok(TxWrite::Put {
        item: device_log_item(&entry, message_id)?,
        condition: None,
    })
}

/// Moves `updated` (the device as read) as `heard` says: `lastSeen` for a
/// report, and the status of a liveness transition, whose event it returns.
/// Judged by when the message was sent (`at`), so a late one (redelivered,
/// replayed) moves neither back (`alyt_domain::device::liveness`).
fn move_liveness(
    device: &DeviceRecord,
    heard: Heard,
    at: OffsetDateTime,
    now: OffsetDateTime,
    updated: &mut DeviceRecord,
) -> Option<PlatformEvent> {
    let status = device.status.known();
    let seen = device.last_seen;
    let transition = match heard {
        Heard::Report => {
            updated.last_seen = Some(last_seen_after(seen, at));
            let window = device.heartbeat_window_seconds;
            status.and_then(|s| on_report_sent(s, seen, at, now, window))
        }
        Heard::LastWill => status.and_then(|s| on_last_will_sent(s, seen, at)),
    }?;
    updated.status = Lenient::Known(transition.next_status());
    Some(match transition {
        Transition::Online => PlatformEvent::DeviceOnline(DeviceOnlineData {
            device_id: device.id,
            name: device.name.clone(),
            at,
        }),
        Transition::Offline(reason) => PlatformEvent::DeviceOffline(DeviceOfflineData {
            device_id: device.id,
            name: device.name.clone(),
            at,
            reason,
        }),
    })
}

/// The device a hub's pairing creates: in the hub's home and room, no unit,
/// no credential (the hub speaks for it).
fn child_of(hub: &DeviceRecord, pairing: &ChildPairing, at: OffsetDateTime) -> DeviceRecord {
    DeviceRecord {
        id: DeviceId::new(),
        tenant_id: hub.tenant_id,
        property_id: hub.property_id,
        client_id: hub.client_id,
        room_id: hub.room_id,
        name: pairing.name.clone(),
        kind: Lenient::Known(pairing.kind),
        capabilities: pairing
            .capabilities
            .iter()
            .copied()
            .map(Lenient::Known)
            .collect(),
        features: pairing.features.clone(),
        current_unit_id: None,
        parent_device_id: Some(hub.id),
        protocol: Some(Lenient::Known(pairing.protocol)),
        protocol_id: Some(pairing.protocol_id.clone()),
        firmware_channel: Lenient::Known(FirmwareChannel::Stable),
        status: Lenient::Known(DeviceStatus::Provisioning),
        last_seen: Some(at),
        reported_at: None,
        deleted_at: None,
        created_at: at,
        updated_at: at,
        settings: None,
        heartbeat_window_seconds: hub.heartbeat_window_seconds,
        is_virtual: hub.is_virtual,
    }
}

fn rfc3339(at: OffsetDateTime) -> String {
    at.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}
