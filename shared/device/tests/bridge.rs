//! The command bridge and command responses on the embedded store with a
//! clock the test moves and a publisher the test controls.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use alyt_device::bridge::{SweepReport, sweep};
use alyt_device::ingest::{Ingest, Outcome};
use alyt_device::{Channel, DeviceIdentity, DevicePublisher, InboundMessage, PublishError};
use alyt_domain::device::{
    AcceptedCommand, CommandId, CommandRow, CommandState, DEFAULT_HEARTBEAT_WINDOW_SECONDS,
    DeviceCapability, DeviceKind, DeviceStatus, FirmwareChannel, Lenient, UndeliverableReason,
};
use alyt_domain::ids::{DeviceId, PropertyId, TenantId};
use alyt_domain::{Clock, ManualClock};
use alyt_events::{EventKind, EventLog};
use alyt_store::Store;
use alyt_store::conformance::start_time;
use alyt_store::repo::commands::Commands;
use alyt_store::repo::devices::{DeviceRecord, device_item};
use alyt_store::sqlite::SqliteStore;
use bytes::Bytes;
use serde_json::{Value, json};
use time::Duration;

/// Records what it is asked to publish; fails while `down`.
#[derive(Default)]
struct FakePublisher {
    down: Mutex<bool>,
    sent: Mutex<Vec<(DeviceIdentity, Value)>>,
}

#[async_trait::async_trait]
impl DevicePublisher for FakePublisher {
    async fn publish(
        &self,
        identity: &DeviceIdentity,
        payload: Vec<u8>,
    ) -> Result<(), PublishError> {
        if *self.down.lock().unwrap() {
            return Err(PublishError::NotSubscribed);
        }
        let payload = serde_json::from_slice(&payload).unwrap();
        self.sent.lock().unwrap().push((*identity, payload));
        Ok(())
    }
}

struct World {
    store: Arc<SqliteStore>,
    clock: Arc<ManualClock>,
    publisher: Arc<FakePublisher>,
    events: EventLog,
}

fn device(property: Option<PropertyId>) -> DeviceRecord {
    DeviceRecord {
        id: DeviceId::new(),
        tenant_id: TenantId::new(),
        property_id: property,
        room_id: None,
        name: "Kitchen light".into(),
        kind: Lenient::Known(DeviceKind::Other),
        capabilities: BTreeSet::from([Lenient::Known(DeviceCapability::Light)]),
        features: vec![],
        current_unit_id: None,
        parent_device_id: None,
        protocol: None,
        protocol_id: None,
        firmware_channel: Lenient::Known(FirmwareChannel::Stable),
        status: Lenient::Known(DeviceStatus::Online),
        last_seen: None,
        deleted_at: None,
        created_at: start_time(),
        updated_at: start_time(),
        settings: None,
        heartbeat_window_seconds: DEFAULT_HEARTBEAT_WINDOW_SECONDS,
        is_virtual: false,
    }
}

impl World {
    fn new() -> Self {
        let clock = Arc::new(ManualClock::new(start_time()));
        let store = Arc::new(SqliteStore::in_memory(clock.clone()).unwrap());
        let events = EventLog::new(store.clone(), clock.clone());
        Self {
            store,
            clock,
            publisher: Arc::default(),
            events,
        }
    }

    async fn add(&self, device: &DeviceRecord) -> CommandRow {
        self.store
            .put(device_item(device).unwrap(), None)
            .await
            .unwrap();
        let commands = Commands(&*self.store);
        let id = commands.next_id(device.id).await.unwrap();
        let row = CommandRow::accept(
            id,
            device.id,
            AcceptedCommand {
                command: "set".into(),
                payload: json!({ "capability": "light", "key": "brightness", "value": 70 })
                    .as_object()
                    .cloned(),
            },
            self.clock.now(),
        );
        commands.create(device.tenant_id, &row).await.unwrap();
        row
    }

    async fn row(&self, row: &CommandRow) -> CommandRow {
        Commands(&*self.store)
            .get(row.device_id, row.command_id)
            .await
            .unwrap()
            .unwrap()
            .row
    }

    async fn sweep(&self) -> SweepReport {
        sweep(
            self.store.clone(),
            self.publisher.clone(),
            self.clock.clone(),
        )
        .await
        .unwrap()
    }

    async fn pending(&self) -> usize {
        let mut count = 0;
        for partition in alyt_store::repo::commands::pending_partitions() {
            count += Commands(&*self.store)
                .pending(&partition, 100, None)
                .await
                .unwrap()
                .0
                .len();
        }
        count
    }
}

#[tokio::test]
async fn the_sweep_publishes_pending_rows_and_marks_them_sent() {
    let w = World::new();
    let d = device(Some(PropertyId::new()));
    let row = w.add(&d).await;
    assert_eq!(row.command_id, CommandId::new(1).unwrap());
    assert_eq!(w.add(&d).await.command_id, CommandId::new(2).unwrap());
    assert_eq!(w.pending().await, 2);

    w.clock.advance(Duration::seconds(2));
    let report = w.sweep().await;
    assert_eq!(report.sent, 2, "{report:?}");
    let sent = w.row(&row).await;
    assert_eq!(sent.state(), Some(CommandState::Sent));
    assert_eq!(sent.attempts, 1);
    assert_eq!(sent.sent_at, Some(w.clock.now()));
    assert_eq!(w.pending().await, 0, "sent rows leave the index");
    let published = w.publisher.sent.lock().unwrap().clone();
    assert_eq!(published[0].0.device_id, d.id);
    assert_eq!(published[0].0.property_id, d.property_id.unwrap());
    assert_eq!(
        published[0].1,
        json!({ "commandId": "1", "command": "set",
                "payload": { "capability": "light", "key": "brightness", "value": 70 } })
    );
    // Nothing left to do.
    assert_eq!(w.sweep().await, SweepReport::default());

    // History: newest first.
    let (history, _) = Commands(&*w.store).history(d.id, 10, None).await.unwrap();
    let ids: Vec<u64> = history.iter().map(|s| s.row.command_id.get()).collect();
    assert_eq!(ids, [2, 1]);
}

#[tokio::test]
async fn a_failed_publish_stays_pending_with_one_more_attempt() {
    let w = World::new();
    let row = w.add(&device(Some(PropertyId::new()))).await;
    *w.publisher.down.lock().unwrap() = true;
    assert_eq!(w.sweep().await.failed, 1);
    assert_eq!(w.sweep().await.failed, 1);
    let still = w.row(&row).await;
    assert_eq!(still.state(), Some(CommandState::Pending));
    assert_eq!(still.attempts, 2);
    assert_eq!(w.pending().await, 1);

    *w.publisher.down.lock().unwrap() = false;
    assert_eq!(w.sweep().await.sent, 1);
    let sent = w.row(&row).await;
    assert_eq!(sent.state(), Some(CommandState::Sent));
    assert_eq!(sent.attempts, 3);
}

#[tokio::test]
async fn a_device_without_a_property_makes_the_row_undeliverable() {
    let w = World::new();
    let row = w.add(&device(None)).await;
    assert_eq!(w.sweep().await.undeliverable, 1);
    let dead = w.row(&row).await;
    assert_eq!(dead.state(), Some(CommandState::Undeliverable));
    assert_eq!(
        dead.undeliverable_reason,
        Some(UndeliverableReason::NoProperty.into())
    );
    assert_eq!(dead.attempts, 0);
    assert!(w.publisher.sent.lock().unwrap().is_empty());
    assert_eq!(w.pending().await, 0);
}

#[tokio::test]
async fn a_response_answers_the_row_once_with_command_result() {
    let w = World::new();
    let d = device(Some(PropertyId::new()));
    let row = w.add(&d).await;
    w.sweep().await;
    let ingest = Ingest::new(w.store.clone(), w.clock.clone(), w.events.clone());
    let message = |id: &str, body: &str| InboundMessage {
        message_id: id.into(),
        identity: DeviceIdentity::new(d.tenant_id, d.property_id.unwrap(), d.id),
        channel: Channel::Response,
        topic: "alyt/x/y/z/response".into(),
        payload: Bytes::from(body.to_owned()),
        retained: false,
        last_will: false,
        received_at: w.clock.now(),
    };
    let ok = r#"{"commandId":"1","command":"set","status":"ok"}"#;
    assert_eq!(
        ingest.handle(&message("m1", ok)).await.unwrap(),
        Outcome::Applied
    );
    // The same message again, another response to the same command, and an
    // unknown commandId change nothing (a redelivery finds the row answered: nothing to write).
    assert_eq!(
        ingest.handle(&message("m1", ok)).await.unwrap(),
        Outcome::Ignored
    );
    let again = r#"{"commandId":"1","command":"set","status":"rejected"}"#;
    assert_eq!(
        ingest.handle(&message("m2", again)).await.unwrap(),
        Outcome::Ignored
    );
    let unknown = r#"{"commandId":"99","command":"set","status":"ok"}"#;
    assert_eq!(
        ingest.handle(&message("m3", unknown)).await.unwrap(),
        Outcome::Ignored
    );

    let answered = w.row(&row).await;
    assert_eq!(answered.state(), Some(CommandState::Answered));
    assert_eq!(answered.result_status.as_deref(), Some("ok"));
    w.clock.advance(Duration::milliseconds(1));
    let page = w
        .events
        .read_after(d.tenant_id, None, None, 100)
        .await
        .unwrap();
    let results: Vec<&Value> = page
        .events
        .iter()
        .filter(|e| e.kind == EventKind::CommandResult)
        .map(|e| &e.data)
        .collect();
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["commandId"], "1");
    assert_eq!(results[0]["status"], "ok");
    assert_eq!(results[0]["command"], "set");
    assert_eq!(results[0]["deviceId"], d.id.to_string());
}
