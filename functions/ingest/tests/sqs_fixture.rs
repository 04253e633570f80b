//! events/ingest/sqs-batch.json (an SQS batch as the IoT topic rule fills it)
//! through the ingest handler on DynamoDB (moto): a redelivered message changes
//! nothing twice, unreadable records are dropped, and store failures come back
//! as batch item failures for SQS to retry. events/ingest/sqs-batch-poison.json:
//! messages that can never be stored (100 readings, a number DynamoDB cannot
//! hold) are dropped and counted, never retried, and the next one is stored.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

use alyt_aws::sqs_ingest::{dropped_metric_lines, handle_batch, handle_batch_counting};
use alyt_device::ingest::Ingest;
use alyt_device::sequencer::{FeedRecord, LOCAL_FEED_SHARD, Sequencer};
use alyt_domain::device::{DeviceStatus, Lenient};
use alyt_domain::{Clock, ManualClock, SystemClock};
use alyt_events::{EventKind, EventLog};
use alyt_security::HomeSecurity;
use alyt_store::Store;
use alyt_store::repo::devices::{DeviceRecord, device_item, device_key};
use alyt_store::repo::feed::FeedReader;
use alyt_store::repo::history::{History, Range};
use aws_lambda_events::event::sqs::SqsEvent;
use base64::Engine;

const TENANT: &str = "0190b5a0-1111-7000-8000-000000000001";
const PROPERTY: &str = "0190b5a0-2222-7000-8000-000000000002";
const DEVICE: &str = "0190b5a0-3333-7000-8000-000000000003";

fn fixture(name: &str) -> SqsEvent {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../events/ingest")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn batch() -> SqsEvent {
    fixture("sqs-batch.json")
}

fn device() -> DeviceRecord {
    let now = time::OffsetDateTime::now_utc();
    let home = Some(PROPERTY.parse().unwrap());
    DeviceRecord {
        id: DEVICE.parse().unwrap(),
        heartbeat_window_seconds: 90,
        ..alyt_store::fixtures::device(TENANT.parse().unwrap(), home, now)
    }
}

#[tokio::test]
async fn the_batch_applies_once_and_drops_what_cannot_be_read() {
    // The fixture's time: a report arriving months after it was sent would
    // not bring the device online (liveness is judged by when it was sent).
    let clock: Arc<dyn Clock> = Arc::new(ManualClock::new(
        alyt_store::conformance::start_time() + time::Duration::seconds(5),
    ));
    let store = Arc::new(alyt_aws::testing::fresh_table(clock.clone()).await);
    store
        .put(device_item(&device()).unwrap(), None)
        .await
        .unwrap();
    let events = EventLog::new(store.clone(), clock.clone());
    let ingest = Ingest::new(
        store.clone(),
        clock.clone(),
        events.clone(),
        Arc::new(HomeSecurity::new(store.clone(), clock.clone())),
    );

    let response = handle_batch(&ingest, batch()).await;
    assert!(
        response.batch_item_failures.is_empty(),
        "{:?}",
        response.batch_item_failures
    );

    let stored: DeviceRecord = store
        .get(&device_key(
            TENANT.parse().unwrap(),
            DEVICE.parse().unwrap(),
        ))
        .await
        .unwrap()
        .unwrap()
        .to_record()
        .unwrap();
    assert_eq!(stored.status, Lenient::Known(DeviceStatus::Online));
    let stats = ingest.stats();
    assert_eq!(stats.applied.load(std::sync::atomic::Ordering::Relaxed), 1);
    assert_eq!(
        stats.duplicates.load(std::sync::atomic::Ordering::Relaxed),
        1
    );
    assert_eq!(stats.rejected().values().sum::<u64>(), 1);

    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let page = events
        .read_after(TENANT.parse().unwrap(), None, None, 100)
        .await
        .unwrap();
    let kinds: Vec<EventKind> = page.events.iter().map(|e| e.kind).collect();
    assert_eq!(kinds, [EventKind::DeviceOnline], "one message, one event");
}

#[tokio::test]
async fn store_failures_are_returned_for_retry() {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let store = Arc::new(alyt_aws::testing::fresh_table(clock.clone()).await);
    // The table disappears: every store call fails.
    store
        .client()
        .delete_table()
        .table_name(store.table())
        .send()
        .await
        .unwrap();
    let events = EventLog::new(store.clone(), clock.clone());
    let ingest = Ingest::new(
        store.clone(),
        clock.clone(),
        events,
        Arc::new(HomeSecurity::new(store.clone(), clock)),
    );
    let response = handle_batch(&ingest, batch()).await;
    let failed: Vec<&str> = response
        .batch_item_failures
        .iter()
        .map(|f| f.item_identifier.as_str())
        .collect();
    // The two readable status records are retried; the unreadable body and
    // the schema-invalid payload never reach the store and are not.
    assert_eq!(failed, ["sqs-1", "sqs-2"]);
}

#[tokio::test]
async fn messages_that_can_never_be_stored_are_dropped_and_counted_and_the_next_is_stored() {
    // The fixture's time: its readings are within their retention.
    let clock: Arc<dyn Clock> = Arc::new(ManualClock::new(
        alyt_store::conformance::start_time() + time::Duration::seconds(5),
    ));
    let store = Arc::new(alyt_aws::testing::fresh_table(clock.clone()).await);
    store
        .put(device_item(&device()).unwrap(), None)
        .await
        .unwrap();
    let events = EventLog::new(store.clone(), clock.clone());
    let ingest = Ingest::new(
        store.clone(),
        clock.clone(),
        events,
        Arc::new(HomeSecurity::new(store.clone(), clock.clone())),
    );

    // sqs-p1: 100 readings; sqs-p2: a value past DynamoDB's number range;
    // sqs-p3: one good reading.
    let response = handle_batch(&ingest, fixture("sqs-batch-poison.json")).await;
    assert!(
        response.batch_item_failures.is_empty(),
        "nothing is worth a retry: {:?}",
        response.batch_item_failures
    );
    let stats = ingest.stats();
    assert_eq!(stats.applied.load(std::sync::atomic::Ordering::Relaxed), 1);
    assert_eq!(
        stats.rejected(),
        BTreeMap::from([("bad_length", 1), ("unstorable", 1)])
    );

    let device_id = DEVICE.parse().unwrap();
    let history = History(&*store);
    let (points, _) = history
        .telemetry(device_id, "temperature", Range::default(), true, 10, None)
        .await
        .unwrap();
    assert_eq!(
        points.iter().map(|p| p.value).collect::<Vec<_>>(),
        [Some(21.5)]
    );
    for dropped in ["m0", "m99", "energy"] {
        let (points, _) = history
            .telemetry(device_id, dropped, Range::default(), true, 10, None)
            .await
            .unwrap();
        assert!(points.is_empty(), "{dropped}: {points:?}");
    }
}

#[tokio::test]
async fn what_a_batch_dropped_is_counted_by_reason_as_the_dropped_messages_metric() {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let store = Arc::new(alyt_aws::testing::fresh_table(clock.clone()).await);
    store
        .put(device_item(&device()).unwrap(), None)
        .await
        .unwrap();
    let events = EventLog::new(store.clone(), clock.clone());
    let ingest = Ingest::new(
        store.clone(),
        clock.clone(),
        events,
        Arc::new(HomeSecurity::new(store.clone(), clock.clone())),
    );

    // One unreadable body and one payload its schema refuses.
    let (_, dropped) = handle_batch_counting(&ingest, batch()).await;
    let refused: Vec<(&str, i64)> = ingest
        .stats()
        .rejected()
        .into_iter()
        .map(|(reason, n)| (reason, n as i64))
        .collect();
    assert_eq!(refused.len(), 1, "{refused:?}");
    let mut expected: BTreeMap<&str, i64> = refused.into_iter().collect();
    expected.insert(alyt_aws::sqs_ingest::UNREADABLE, 1);
    assert_eq!(dropped, expected);

    let lines = dropped_metric_lines("prod", &dropped, 1_700_000_000_000);
    assert_eq!(lines.len(), 2);
    for (line, (reason, count)) in lines.iter().zip(&dropped) {
        let parsed: serde_json::Value = serde_json::from_str(line).unwrap();
        let directive = &parsed["_aws"]["CloudWatchMetrics"][0];
        assert_eq!(directive["Namespace"], "Alyt");
        assert_eq!(
            directive["Dimensions"],
            serde_json::json!([["Stage", "Reason"]])
        );
        assert_eq!(directive["Metrics"][0]["Name"], "IngestDroppedMessages");
        assert_eq!(parsed["Stage"], "prod");
        assert_eq!(parsed["Reason"], *reason);
        assert_eq!(parsed["IngestDroppedMessages"], *count);
    }
}

/// Raises the telemetry events of everything `table`'s stream holds, as the
/// sequencer's stream mapping would: moto's stream records in Lambda's
/// windowed batches of `batch`, through the same decoding the function
/// uses. Run again, or with another `batch`, it raises nothing twice.
async fn sequence_stream(table: &alyt_aws::DynamoStore, sequencer: &Sequencer, batch: usize) {
    let moto = alyt_aws::testing::moto().await;
    for payload in moto.stream_batches(table.table(), batch).await {
        alyt_aws::table_stream::sequence(sequencer, &payload)
            .await
            .unwrap();
    }
}

/// Ingest on `store` with home security, and the event log it records in.
fn ingest_on(store: Arc<dyn Store>, clock: Arc<dyn Clock>) -> (Ingest, EventLog) {
    let events = EventLog::new(store.clone(), clock.clone());
    let security = Arc::new(HomeSecurity::new(store.clone(), clock.clone()));
    (Ingest::new(store, clock, events.clone(), security), events)
}

/// `count` devices in the fixtures' home (ids `…{series}{n:02x}`) with
/// `status`, stored, never heard from (so a report stores `lastSeen`); their
/// ids.
async fn devices_with(
    store: &dyn Store,
    status: DeviceStatus,
    series: u64,
    count: u64,
) -> Vec<String> {
    let mut devices = Vec::new();
    for n in 0..count {
        let id = format!("0190b5a0-3333-7000-8000-{:012x}", 0x100 * series + n);
        let mut record = device();
        record.id = id.parse().unwrap();
        record.status = Lenient::Known(status);
        record.last_seen = None;
        store
            .put(device_item(&record).unwrap(), None)
            .await
            .unwrap();
        devices.push(id);
    }
    devices
}

/// When this run's messages were received (Unix ms): the same in a
/// redelivery, as SQS keeps a body, and recent, since a point is kept for 30
/// days from then.
fn received_at() -> u64 {
    static AT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *AT.get_or_init(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64
    })
}

/// An SQS record as the IoT topic rule fills it: a telemetry message of
/// `device` (in the fixtures' home).
fn telemetry_record(sqs_id: &str, message_id: &str, device: &str) -> serde_json::Value {
    let payload = r#"{"metrics":{"temperature":21.5}}"#;
    let body = serde_json::json!({
        "messageId": message_id,
        "topic": format!("alyt/{TENANT}/{PROPERTY}/{device}/telemetry"),
        "payload": base64::engine::general_purpose::STANDARD.encode(payload),
        "receivedAt": received_at(),
    });
    serde_json::json!({
        "messageId": sqs_id,
        "receiptHandle": "handle",
        "body": body.to_string(),
        "attributes": { "ApproximateReceiveCount": "1" },
        "messageAttributes": {},
        "eventSource": "aws:sqs",
        "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:alyt-ingest",
        "awsRegion": "us-east-1"
    })
}

/// Eight ingest invocations at once, each with a batch of five telemetry
/// messages of one home's devices, on DynamoDB (moto). moto serves one
/// request at a time and never reports TransactionConflict, so the
/// conformance suite's `Contended` stands in for DynamoDB's conflicts: a
/// transaction touching an item another one holds is cancelled. Ingest
/// retries a conflict after a jittered pause; a message still refused comes
/// back as a batch item failure, and SQS's redelivery applies it, once:
/// every message raised exactly one event.
#[tokio::test]
async fn concurrent_invocations_conflicting_on_one_home_apply_every_message_once() {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let table = Arc::new(alyt_aws::testing::fresh_table(clock.clone()).await);
    // Offline: each one's first report brings it online, in a transaction
    // that moves the home's log head, which the others move at once too.
    let devices = devices_with(table.as_ref(), DeviceStatus::Offline, 1, 8).await;
    let contended = Arc::new(alyt_store::conformance::Contended::new(
        table.clone() as Arc<dyn Store>
    ));
    let (ingest, events) = ingest_on(contended.clone(), clock.clone());
    let ingest = Arc::new(ingest);
    // Invocation i carries message j of device (i + j) % 8: every device's
    // messages are spread over invocations running at once.
    let batch = |i: usize, only: Option<&BTreeSet<String>>| -> SqsEvent {
        let records: Vec<serde_json::Value> = (0..5)
            .map(|j| {
                let sqs_id = format!("sqs-{i}-{j}");
                telemetry_record(&sqs_id, &format!("msg-{i}-{j}"), &devices[(i + j) % 8])
            })
            .filter(|r| only.is_none_or(|o| o.contains(r["messageId"].as_str().unwrap())))
            .collect();
        serde_json::from_value(serde_json::json!({ "Records": records })).unwrap()
    };
    let mut pending: Vec<Option<BTreeSet<String>>> = vec![None; 8];
    let mut redeliveries = 0;
    for round in 0..10 {
        let runs: Vec<_> = pending
            .iter()
            .enumerate()
            .filter(|(_, only)| only.as_ref().is_none_or(|o| !o.is_empty()))
            .map(|(i, only)| {
                let (ingest, event) = (ingest.clone(), batch(i, only.as_ref()));
                tokio::spawn(async move { (i, handle_batch(&ingest, event).await) })
            })
            .collect();
        if runs.is_empty() {
            break;
        }
        for run in runs {
            let (i, response) = run.await.unwrap();
            let failed: BTreeSet<String> = response
                .batch_item_failures
                .into_iter()
                .map(|f| f.item_identifier)
                .collect();
            redeliveries += failed.len();
            pending[i] = Some(failed);
        }
        assert!(round < 9, "messages still failing after nine redeliveries");
    }
    assert!(contended.conflicts() > 0, "the invocations did conflict");
    eprintln!(
        "{} conflicts, {redeliveries} messages redelivered",
        contended.conflicts()
    );
    let sequencer = Sequencer::new(table.clone(), clock.clone(), events.clone());
    sequence_stream(&table, &sequencer, 7).await;

    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let page = events
        .read_after(TENANT.parse().unwrap(), None, None, 1000)
        .await
        .unwrap();
    let telemetry = page
        .events
        .iter()
        .filter(|e| e.kind == EventKind::DeviceTelemetry)
        .count();
    assert_eq!(
        telemetry,
        40,
        "one event per message ({} conflicts, {redeliveries} redelivered)",
        contended.conflicts()
    );
}

/// Exactly once under regrouped redelivery, on both stores: twelve
/// telemetry messages of four devices applied in batches of four, then every
/// one delivered again, shuffled into batches of five, five and two (SQS
/// regroups what it redelivers): nothing is applied twice, no event is
/// raised twice, and each device keeps one point per message.
#[tokio::test]
async fn a_redelivery_in_other_batches_raises_no_second_event_on_either_store() {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let sqlite = Arc::new(alyt_store::sqlite::SqliteStore::in_memory(clock.clone()).unwrap());
    let dynamo = Arc::new(alyt_aws::testing::fresh_table(clock.clone()).await);
    let stores: [(&str, Arc<dyn Store>); 2] = [
        ("SQLite", sqlite.clone()),
        ("DynamoDB (moto)", dynamo.clone()),
    ];
    for (name, store) in stores {
        let devices = devices_with(store.as_ref(), DeviceStatus::Online, 2, 4).await;
        let (ingest, events) = ingest_on(store.clone(), clock.clone());
        let record =
            |n: usize| telemetry_record(&format!("sqs-{n}"), &format!("m-{n}"), &devices[n % 4]);
        let batch = |ns: &[usize]| -> SqsEvent {
            let records: Vec<serde_json::Value> = ns.iter().map(|n| record(*n)).collect();
            serde_json::from_value(serde_json::json!({ "Records": records })).unwrap()
        };
        for ns in [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]] {
            let response = handle_batch(&ingest, batch(&ns)).await;
            assert!(response.batch_item_failures.is_empty(), "{name}");
        }
        for ns in [&[7, 2, 11, 0, 5][..], &[9, 1, 10, 4, 6], &[3, 8]] {
            let response = handle_batch(&ingest, batch(ns)).await;
            assert!(response.batch_item_failures.is_empty(), "{name}");
        }
        let stats = ingest.stats();
        assert_eq!(
            stats.applied.load(std::sync::atomic::Ordering::Relaxed),
            12,
            "{name}"
        );
        assert_eq!(
            stats.duplicates.load(std::sync::atomic::Ordering::Relaxed),
            12,
            "{name}"
        );
        // The sequencer, and its input delivered again in other batches.
        let sequencer = Sequencer::new(store.clone(), clock.clone(), events.clone());
        if name == "SQLite" {
            let records: Vec<FeedRecord> = sqlite
                .feed_after(0, 100)
                .await
                .unwrap()
                .into_iter()
                .map(|(sequence, item)| FeedRecord {
                    sequence: sequence.to_string(),
                    item,
                })
                .collect();
            assert_eq!(records.len(), 12, "{name}: fed once per message");
            for batch in [&records[..5], &records[3..9], &records[..], &records[8..]] {
                sequencer.apply(LOCAL_FEED_SHARD, batch).await.unwrap();
            }
            let drained = sequencer.drain(sqlite.as_ref()).await.unwrap();
            assert_eq!(drained.raised, 0, "{name}: {drained:?}");
            assert_eq!(drained.repeated, 12, "{name}: {drained:?}");
        } else {
            for batch in [5, 3, 12] {
                sequence_stream(&dynamo, &sequencer, batch).await;
            }
        }

        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        let page = events
            .read_after(TENANT.parse().unwrap(), None, None, 1000)
            .await
            .unwrap();
        let telemetry: Vec<&serde_json::Value> = page
            .events
            .iter()
            .filter(|e| e.kind == EventKind::DeviceTelemetry)
            .map(|e| &e.data)
            .collect();
        assert_eq!(telemetry.len(), 12, "{name}: one event per message");
        for id in &devices {
            let points = History(store.as_ref())
                .telemetry(
                    id.parse().unwrap(),
                    "temperature",
                    Range::default(),
                    true,
                    100,
                    None,
                )
                .await
                .unwrap();
            assert_eq!(
                points.0.len(),
                3,
                "{name}: device {id} keeps one point per message"
            );
        }
    }
}
