//! The command bridge and command responses on the embedded store with a
//! clock the test moves and a publisher the test controls.

use std::sync::{Arc, Mutex};

use alyt_device::bridge::{SweepReport, send_new, sweep};
use alyt_device::ingest::{Ingest, NoSecurity, Outcome};
use alyt_device::{Channel, DeviceIdentity, DevicePublisher, InboundMessage, PublishError};
use alyt_domain::device::{
    AcceptedCommand, CommandEvent, CommandId, CommandRow, CommandState, DeviceStatus, Lenient,
    MAX_PUBLISHES, REDELIVER_AFTER, UndeliverableReason,
};
use alyt_domain::ids::{PropertyId, TenantId};
use alyt_domain::{Clock, ManualClock};
use alyt_events::{EventKind, EventLog};
use alyt_store::Store;
use alyt_store::conformance::start_time;
use alyt_store::counting::CountingStore;
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
        status: Lenient::Known(DeviceStatus::Online),
        ..alyt_store::fixtures::device(TenantId::new(), property, start_time())
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

    /// Stores `device` and a pending row for it, accepted a millisecond
    /// after the previous one.
    async fn add(&self, device: &DeviceRecord) -> CommandRow {
        self.store
            .put(device_item(device).unwrap(), None)
            .await
            .unwrap();
        self.clock.advance(Duration::milliseconds(1));
        let row = CommandRow::accept(
            CommandId::at(self.clock.now()),
            device.id,
            brightness(),
            self.clock.now(),
        );
        Commands(&*self.store)
            .create(device.tenant_id, &row)
            .await
            .unwrap();
        row
    }

    /// What the API does with an accepted command (`send_new`), on `store`.
    async fn send(
        &self,
        store: &dyn Store,
        device: &DeviceRecord,
    ) -> alyt_device::bridge::Delivery {
        send_new(
            store,
            &*self.publisher,
            &*self.clock,
            device.tenant_id,
            device.id,
            device.property_id,
            brightness(),
        )
        .await
        .unwrap()
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

    /// The rows the sweep would look at by `at`.
    async fn due_by(&self, at: time::OffsetDateTime) -> usize {
        let mut count = 0;
        for partition in alyt_store::repo::commands::pending_partitions() {
            count += Commands(&*self.store)
                .due(&partition, at, 100, None)
                .await
                .unwrap()
                .0
                .len();
        }
        count
    }

    /// The rows due now.
    async fn pending(&self) -> usize {
        self.due_by(self.clock.now()).await
    }

    /// Every row the sweep will ever look at again.
    async fn indexed(&self) -> usize {
        self.due_by(self.clock.now() + Duration::days(365)).await
    }

    fn published(&self) -> Vec<(DeviceIdentity, Value)> {
        self.publisher.sent.lock().unwrap().clone()
    }
}

fn brightness() -> AcceptedCommand {
    AcceptedCommand {
        command: "set".into(),
        payload: json!({ "capability": "light", "key": "brightness", "value": 70 })
            .as_object()
            .cloned(),
    }
}

#[tokio::test]
async fn the_sweep_publishes_pending_rows_and_marks_them_sent() {
    let w = World::new();
    let d = device(Some(PropertyId::new()));
    let row = w.add(&d).await;
    let second = w.add(&d).await;
    assert!(second.command_id > row.command_id);
    assert_eq!(w.pending().await, 2);

    w.clock.advance(Duration::seconds(2));
    let report = w.sweep().await;
    assert_eq!(report.sent, 2, "{report:?}");
    let sent = w.row(&row).await;
    assert_eq!(sent.state(), Some(CommandState::Sent));
    assert_eq!(sent.attempts, 1);
    assert_eq!(sent.sent_at, Some(w.clock.now()));
    assert_eq!(w.pending().await, 0, "sent rows are not due again at once");
    let published = w.published();
    assert_eq!(published[0].0.device_id, d.id);
    assert_eq!(published[0].0.property_id, d.property_id.unwrap());
    assert_eq!(
        published[0].1,
        json!({ "commandId": row.command_id.to_string(), "command": "set",
                "payload": { "capability": "light", "key": "brightness", "value": 70 } })
    );
    // Nothing left to do.
    assert_eq!(w.sweep().await, SweepReport::default());

    // History: newest first.
    let (history, _) = Commands(&*w.store).history(d.id, 10, None).await.unwrap();
    let ids: Vec<CommandId> = history.iter().map(|s| s.row.command_id).collect();
    assert_eq!(ids, [second.command_id, row.command_id]);
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
    let ingest = Ingest::new(
        w.store.clone(),
        w.clock.clone(),
        w.events.clone(),
        Arc::new(NoSecurity),
    );
    let message = |id: &str, body: &str| InboundMessage {
        message_id: id.into(),
        identity: DeviceIdentity::new(d.tenant_id, d.property_id.unwrap(), d.id),
        channel: Channel::Response,
        topic: "alyt/x/y/z/response".into(),
        payload: Bytes::from(body.to_owned()),
        retained: false,
        last_will: false,
        received_at: w.clock.now(),
        source_address: None,
        packet: None,
    };
    let id = row.command_id;
    let ok = format!(r#"{{"commandId":"{id}","command":"set","status":"ok"}}"#);
    assert_eq!(
        ingest.handle(&message("m1", &ok)).await.unwrap(),
        Outcome::Applied
    );
    // The same message again, another response to the same command, and an
    // unknown commandId change nothing (a redelivery finds the row answered: nothing to write).
    assert_eq!(
        ingest.handle(&message("m1", &ok)).await.unwrap(),
        Outcome::Ignored
    );
    let again = format!(r#"{{"commandId":"{id}","command":"set","status":"rejected"}}"#);
    assert_eq!(
        ingest.handle(&message("m2", &again)).await.unwrap(),
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
    assert_eq!(results[0]["commandId"], id.to_string());
    // Answered: the sweep has nothing more to do with it, ever.
    assert_eq!(w.indexed().await, 0);
    assert_eq!(results[0]["status"], "ok");
    assert_eq!(results[0]["command"], "set");
    assert_eq!(results[0]["deviceId"], d.id.to_string());
}

#[tokio::test]
async fn a_new_command_is_one_write_and_one_publish() {
    let w = World::new();
    let d = device(Some(PropertyId::new()));
    w.store.put(device_item(&d).unwrap(), None).await.unwrap();
    let counted = CountingStore::new(w.store.clone());
    let delivery = w.send(&counted, &d).await;
    assert_eq!(
        counted.take(),
        [("put", 1)].into(),
        "the row, written once, already sent"
    );
    assert!(delivery.published.is_ok() && delivery.stored);
    let row = delivery.row;
    assert_eq!(row.state(), Some(CommandState::Sent));
    assert_eq!((row.attempts, row.sent_at), (1, Some(w.clock.now())));
    assert_eq!(
        w.row(&row).await,
        row,
        "what the caller got is what is stored"
    );
    let published = w.published();
    assert_eq!(published.len(), 1);
    assert_eq!(published[0].1["commandId"], row.command_id.to_string());
    // The sweep leaves it alone while its device may still answer.
    assert_eq!(w.sweep().await, SweepReport::default());
    assert_eq!(w.indexed().await, 1, "kept for a redelivery");
}

#[tokio::test]
async fn a_refused_publish_puts_a_new_command_back_to_pending() {
    let w = World::new();
    let d = device(Some(PropertyId::new()));
    w.store.put(device_item(&d).unwrap(), None).await.unwrap();
    *w.publisher.down.lock().unwrap() = true;
    let counted = CountingStore::new(w.store.clone());
    let delivery = w.send(&counted, &d).await;
    assert_eq!(counted.take(), [("put", 2)].into());
    assert!(delivery.published.is_err());
    let row = delivery.row;
    assert_eq!(row.state(), Some(CommandState::Pending));
    assert_eq!((row.attempts, row.sent_at), (1, None));
    assert_eq!(w.row(&row).await, row);
    assert_eq!(w.pending().await, 1, "due for the next sweep");

    *w.publisher.down.lock().unwrap() = false;
    assert_eq!(w.sweep().await.sent, 1);
    let sent = w.row(&row).await;
    assert_eq!((sent.state(), sent.attempts), (Some(CommandState::Sent), 2));
}

#[tokio::test]
async fn a_new_command_for_a_device_without_a_property_is_given_up_by_the_sweep() {
    let w = World::new();
    let d = device(None);
    w.store.put(device_item(&d).unwrap(), None).await.unwrap();
    let delivery = w.send(&*w.store, &d).await;
    assert_eq!(delivery.row.state(), Some(CommandState::Pending));
    assert!(w.published().is_empty());
    assert_eq!(w.sweep().await.undeliverable, 1);
    assert_eq!(
        w.row(&delivery.row).await.state(),
        Some(CommandState::Undeliverable)
    );
}

#[tokio::test]
async fn an_unanswered_sent_row_is_published_again_until_its_publishes_run_out() {
    let w = World::new();
    let d = device(Some(PropertyId::new()));
    w.store.put(device_item(&d).unwrap(), None).await.unwrap();
    let row = w.send(&*w.store, &d).await.row;

    w.clock.advance(REDELIVER_AFTER - Duration::seconds(1));
    assert_eq!(w.sweep().await, SweepReport::default(), "not due yet");
    let mut publishes = 1;
    while publishes < MAX_PUBLISHES {
        w.clock.advance(REDELIVER_AFTER);
        assert_eq!(w.sweep().await.sent, 1);
        publishes += 1;
        let again = w.row(&row).await;
        assert_eq!(again.state(), Some(CommandState::Sent));
        assert_eq!(
            (again.attempts, again.sent_at),
            (publishes, Some(w.clock.now()))
        );
    }
    let published = w.published();
    assert_eq!(published.len() as u32, MAX_PUBLISHES);
    assert!(
        published.iter().all(|(_, p)| p == &published[0].1),
        "the same command, the same commandId"
    );
    // Out of publishes: left alone (still sent; the device may answer).
    w.clock.advance(Duration::hours(1));
    assert_eq!(w.sweep().await, SweepReport::default());
    assert_eq!(w.indexed().await, 0);
    assert_eq!(w.row(&row).await.state(), Some(CommandState::Sent));
}

#[tokio::test]
async fn a_row_written_sent_but_never_published_reaches_its_device() {
    // What a crash between send_new's write and its publish leaves behind.
    let w = World::new();
    let d = device(Some(PropertyId::new()));
    w.store.put(device_item(&d).unwrap(), None).await.unwrap();
    let accepted = CommandRow::accept(
        CommandId::at(w.clock.now()),
        d.id,
        brightness(),
        w.clock.now(),
    );
    let written = accepted
        .apply(&CommandEvent::Published, w.clock.now())
        .unwrap();
    Commands(&*w.store)
        .create(d.tenant_id, &written)
        .await
        .unwrap();
    assert!(w.published().is_empty());

    w.clock.advance(REDELIVER_AFTER);
    assert_eq!(w.sweep().await.sent, 1);
    let published = w.published();
    assert_eq!(published.len(), 1);
    assert_eq!(published[0].1["commandId"], written.command_id.to_string());
    assert_eq!(w.row(&written).await.attempts, 2);
}

#[tokio::test]
async fn a_taken_command_id_is_not_overwritten() {
    let w = World::new();
    let d = device(Some(PropertyId::new()));
    let first = w.add(&d).await;
    let clash = CommandRow::accept(first.command_id, d.id, brightness(), w.clock.now());
    let e = Commands(&*w.store)
        .create(d.tenant_id, &clash)
        .await
        .unwrap_err();
    assert!(e.is_condition_failure(), "{e}");
    assert_eq!(w.row(&first).await, first);
}
