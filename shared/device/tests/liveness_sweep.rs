//! The heartbeat sweep on the embedded store with a clock the test moves.

use std::sync::{Arc, Mutex};

use alyt_device::ingest::{Ingest, NoSecurity, Outcome};
use alyt_device::liveness_sweep::{LivenessSweep, SweepReport};
use alyt_device::{Channel, DeviceIdentity, InboundMessage};
use alyt_domain::device::DeviceStatus;
use alyt_domain::ids::{DeviceId, PropertyId, TenantId};
use alyt_domain::{Clock, ManualClock};
use alyt_events::{EventEnvelope, EventKind, EventLog};
use alyt_store::conformance::start_time;
use alyt_store::repo::devices::{DeviceRecord, device_item, device_key};
use alyt_store::sqlite::SqliteStore;
use alyt_store::{Condition, Item, Key, Page, Query, Store, StoreError, TxWrite, UpdateAction};
use async_trait::async_trait;
use bytes::Bytes;
use time::Duration;

const WINDOW: u32 = 90;

/// The embedded store, with a hook run once just before the next
/// transaction (to make a report land between the sweep's read and write).
struct Hooked {
    inner: Arc<SqliteStore>,
    before_transact: Mutex<Option<(Ingest, InboundMessage)>>,
}

#[async_trait]
impl Store for Hooked {
    async fn get(&self, key: &Key) -> Result<Option<Item>, StoreError> {
        self.inner.get(key).await
    }
    async fn batch_get(&self, keys: &[Key]) -> Result<Vec<Item>, StoreError> {
        self.inner.batch_get(keys).await
    }
    async fn put(&self, item: Item, condition: Option<Condition>) -> Result<(), StoreError> {
        self.inner.put(item, condition).await
    }
    async fn update(
        &self,
        key: &Key,
        actions: Vec<UpdateAction>,
        condition: Option<Condition>,
    ) -> Result<Item, StoreError> {
        self.inner.update(key, actions, condition).await
    }
    async fn delete(
        &self,
        key: &Key,
        condition: Option<Condition>,
    ) -> Result<Option<Item>, StoreError> {
        self.inner.delete(key, condition).await
    }
    async fn query(&self, query: Query) -> Result<Page, StoreError> {
        self.inner.query(query).await
    }
    async fn transact(&self, writes: Vec<TxWrite>) -> Result<(), StoreError> {
        let hook = self
            .before_transact
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some((ingest, message)) = hook {
            assert_eq!(ingest.handle(&message).await.unwrap(), Outcome::Applied);
        }
        self.inner.transact(writes).await
    }
}

struct World {
    store: Arc<Hooked>,
    clock: Arc<ManualClock>,
    events: EventLog,
    /// Ingest on the plain store (so the hook does not fire for it).
    ingest: Ingest,
    sweep: LivenessSweep,
    tenant: TenantId,
    property: PropertyId,
}

async fn world() -> World {
    let clock = Arc::new(ManualClock::new(start_time()));
    let inner = Arc::new(SqliteStore::in_memory(clock.clone()).unwrap());
    let store = Arc::new(Hooked {
        inner: inner.clone(),
        before_transact: Mutex::new(None),
    });
    let events = EventLog::new(inner.clone(), clock.clone());
    let ingest = Ingest::new(inner, clock.clone(), events.clone(), Arc::new(NoSecurity));
    let sweep = LivenessSweep::new(store.clone(), clock.clone(), events.clone());
    World {
        store,
        clock,
        events,
        ingest,
        sweep,
        tenant: TenantId::new(),
        property: PropertyId::new(),
    }
}

impl World {
    /// A registered device (PROVISIONING, never heard from).
    async fn device(&self, name: &str) -> DeviceId {
        let device = DeviceRecord {
            name: name.into(),
            heartbeat_window_seconds: WINDOW,
            ..alyt_store::fixtures::device(self.tenant, Some(self.property), self.clock.now())
        };
        self.store
            .put(device_item(&device).unwrap(), None)
            .await
            .unwrap();
        device.id
    }

    fn message(&self, device: DeviceId, channel: Channel, payload: &str) -> InboundMessage {
        InboundMessage {
            message_id: next_id(),
            identity: DeviceIdentity::new(self.tenant, self.property, device),
            channel,
            topic: format!("alyt/x/y/z/{}", channel.as_str()),
            payload: Bytes::from(payload.to_owned()),
            retained: false,
            last_will: false,
            received_at: self.clock.now(),
            source_address: None,
            packet: None,
        }
    }

    fn status(&self, device: DeviceId) -> InboundMessage {
        self.message(device, Channel::Status, r#"{"light":{"power":true}}"#)
    }

    /// A status report now (brings the device ONLINE).
    async fn report(&self, device: DeviceId) {
        let message = self.status(device);
        assert_eq!(
            self.ingest.handle(&message).await.unwrap(),
            Outcome::Applied
        );
    }

    async fn read(&self, device: DeviceId) -> DeviceRecord {
        self.store
            .get(&device_key(self.tenant, device))
            .await
            .unwrap()
            .unwrap()
            .to_record()
            .unwrap()
    }

    async fn status_of(&self, device: DeviceId) -> DeviceStatus {
        self.read(device).await.status.known().unwrap()
    }

    async fn events(&self) -> Vec<EventEnvelope> {
        self.clock.advance(Duration::milliseconds(1));
        self.events
            .read_after(self.tenant, None, None, 1000)
            .await
            .unwrap()
            .events
    }

    async fn offline_events_of(&self, device: DeviceId) -> Vec<EventEnvelope> {
        self.events()
            .await
            .into_iter()
            .filter(|e| {
                e.kind == EventKind::DeviceOffline && e.data["deviceId"] == device.to_string()
            })
            .collect()
    }
}

fn next_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    format!("sweep-msg-{}", N.fetch_add(1, Ordering::Relaxed))
}

#[tokio::test]
async fn a_device_silent_past_its_window_goes_offline_once_with_reason_heartbeat() {
    let w = world().await;
    let silent = w.device("Kitchen light").await;
    w.report(silent).await;
    assert_eq!(w.status_of(silent).await, DeviceStatus::Online);

    // Exactly at the window: still online.
    w.clock.advance(Duration::seconds(i64::from(WINDOW)));
    let report = w.sweep.run().await.unwrap();
    assert_eq!(report.marked_offline, 0);
    assert_eq!(w.status_of(silent).await, DeviceStatus::Online);

    w.clock.advance(Duration::seconds(1));
    let report = w.sweep.run().await.unwrap();
    assert_eq!(
        report,
        SweepReport {
            checked: 1,
            marked_offline: 1,
            raced: 0
        }
    );
    assert_eq!(w.status_of(silent).await, DeviceStatus::Offline);
    let offline = w.offline_events_of(silent).await;
    assert_eq!(offline.len(), 1);
    assert_eq!(offline[0].data["reason"], "heartbeat");
    assert_eq!(offline[0].data["name"], "Kitchen light");
    assert_eq!(offline[0].tenant_id, w.tenant);

    // A second sweep finds nothing to do: the device left the index.
    let again = w.sweep.run().await.unwrap();
    assert_eq!(again, SweepReport::default());
    assert_eq!(w.offline_events_of(silent).await.len(), 1);

    // A report brings it back online (and into the index).
    w.report(silent).await;
    assert_eq!(w.status_of(silent).await, DeviceStatus::Online);
    let kinds: Vec<EventKind> = w.events().await.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [
            EventKind::DeviceOnline,
            EventKind::DeviceOffline,
            EventKind::DeviceOnline
        ]
    );
}

#[tokio::test]
async fn a_device_that_reported_within_its_window_stays_online() {
    let w = world().await;
    let chatty = w.device("Sensor").await;
    let silent = w.device("Speaker").await;
    w.report(chatty).await;
    w.report(silent).await;
    for _ in 0..4 {
        w.clock.advance(Duration::seconds(30));
        w.report(chatty).await;
    }
    let report = w.sweep.run().await.unwrap();
    assert_eq!(report.marked_offline, 1);
    assert_eq!(w.status_of(chatty).await, DeviceStatus::Online);
    assert_eq!(w.status_of(silent).await, DeviceStatus::Offline);
    assert!(w.offline_events_of(chatty).await.is_empty());
}

#[tokio::test]
async fn devices_not_online_are_untouched() {
    let w = world().await;
    // OFFLINE through its last will.
    let gone = w.device("Hub").await;
    w.report(gone).await;
    let mut will = w.message(gone, Channel::Availability, r#""offline""#);
    will.last_will = true;
    assert_eq!(w.ingest.handle(&will).await.unwrap(), Outcome::Applied);
    assert_eq!(w.status_of(gone).await, DeviceStatus::Offline);
    // Registered, never heard from.
    let provisioning = w.device("New light").await;
    let before_gone = w.read(gone).await;
    let before_provisioning = w.read(provisioning).await;

    w.clock.advance(Duration::hours(2));
    let report = w.sweep.run().await.unwrap();
    assert_eq!(report, SweepReport::default());
    assert_eq!(w.read(gone).await, before_gone);
    assert_eq!(w.read(provisioning).await, before_provisioning);
    let offline = w.offline_events_of(gone).await;
    assert_eq!(offline.len(), 1);
    assert_eq!(offline[0].data["reason"], "last-will");
}

#[tokio::test]
async fn each_device_is_judged_with_its_own_window() {
    let w = world().await;
    let slow = w.device("Battery sensor").await;
    w.report(slow).await;
    // A longer window than the default, set on the stored device.
    let mut record = w.read(slow).await;
    record.heartbeat_window_seconds = 600;
    w.store
        .put(device_item(&record).unwrap(), None)
        .await
        .unwrap();
    w.clock.advance(Duration::seconds(300));
    let report = w.sweep.run().await.unwrap();
    assert_eq!(report.checked, 1);
    assert_eq!(report.marked_offline, 0);
    assert_eq!(w.status_of(slow).await, DeviceStatus::Online);
    w.clock.advance(Duration::seconds(301));
    assert_eq!(w.sweep.run().await.unwrap().marked_offline, 1);
    assert_eq!(w.status_of(slow).await, DeviceStatus::Offline);
}

#[tokio::test]
async fn a_report_racing_the_sweep_wins() {
    let w = world().await;
    let device = w.device("Thermostat").await;
    w.report(device).await;
    w.clock.advance(Duration::seconds(i64::from(WINDOW) + 10));
    // The sweep reads the silent device; a report lands before its write.
    let late = w.status(device);
    *w.store.before_transact.lock().unwrap() = Some((w.ingest.clone(), late));
    let report = w.sweep.run().await.unwrap();
    assert_eq!(
        report,
        SweepReport {
            checked: 1,
            marked_offline: 0,
            raced: 1
        }
    );
    assert_eq!(w.status_of(device).await, DeviceStatus::Online);
    assert_eq!(w.read(device).await.last_seen, Some(w.clock.now()));
    assert!(w.offline_events_of(device).await.is_empty());
    // And the next sweep leaves it alone too: it is within its window.
    assert_eq!(w.sweep.run().await.unwrap(), SweepReport::default());
}

#[tokio::test]
async fn many_devices_across_shards_are_all_swept() {
    let w = world().await;
    let mut ids = Vec::new();
    for n in 0..40 {
        let id = w.device(&format!("light {n}")).await;
        w.report(id).await;
        ids.push(id);
    }
    w.clock.advance(Duration::seconds(i64::from(WINDOW) + 1));
    let report = w.sweep.run().await.unwrap();
    assert_eq!(report.checked, 40);
    assert_eq!(report.marked_offline, 40);
    for id in ids {
        assert_eq!(w.status_of(id).await, DeviceStatus::Offline);
    }
}
