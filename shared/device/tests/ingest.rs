//! The ingest pipeline on the embedded store with a clock the test moves.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use alyt_device::ingest::{Detection, Ingest, NoSecurity, Outcome, SecurityFeed};
use alyt_device::sequencer::{FeedRecord, Sequenced, Sequencer};
use alyt_device::{Channel, DeviceIdentity, InboundMessage, PublishPacket};
use alyt_domain::device::{DeviceCapability, DeviceStatus, Lenient};
use alyt_domain::ids::{DeviceId, PropertyId, TenantId};
use alyt_domain::security::hub::HubReport;
use alyt_domain::security::machine::LockEvent;
use alyt_domain::{Clock, ManualClock};
use alyt_events::{EventKind, EventLog};
use alyt_store::conformance::start_time;
use alyt_store::counting::CountingStore;
use alyt_store::repo::devices::{DeviceRecord, device_item, device_key, reported_key};
use alyt_store::repo::feed::FeedReader;
use alyt_store::repo::messages::PUBLISHED_KEPT;
use alyt_store::sqlite::SqliteStore;
use alyt_store::{Query, Store, StoreError};
use async_trait::async_trait;
use bytes::Bytes;
use time::Duration;

struct World {
    store: Arc<SqliteStore>,
    clock: Arc<ManualClock>,
    events: EventLog,
    ingest: Ingest,
    sequencer: Sequencer,
    device: DeviceRecord,
}

async fn world() -> World {
    let clock = Arc::new(ManualClock::new(start_time()));
    let store = Arc::new(SqliteStore::in_memory(clock.clone()).unwrap());
    let events = EventLog::new(store.clone(), clock.clone());
    let ingest = Ingest::new(
        store.clone(),
        clock.clone(),
        events.clone(),
        Arc::new(NoSecurity),
    );
    let device =
        alyt_store::fixtures::device(TenantId::new(), Some(PropertyId::new()), start_time());
    store
        .put(device_item(&device).unwrap(), None)
        .await
        .unwrap();
    World {
        sequencer: Sequencer::new(store.clone(), clock.clone(), events.clone()),
        store,
        clock,
        events,
        ingest,
        device,
    }
}

impl World {
    fn message(&self, channel: Channel, payload: &str) -> InboundMessage {
        InboundMessage {
            message_id: uuid_like(),
            identity: DeviceIdentity::new(
                self.device.tenant_id,
                self.device.property_id.unwrap(),
                self.device.id,
            ),
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

    async fn device(&self) -> DeviceRecord {
        self.store
            .get(&device_key(self.device.tenant_id, self.device.id))
            .await
            .unwrap()
            .unwrap()
            .to_record()
            .unwrap()
    }

    /// What the telemetry sequencer makes of the feed so far (the local
    /// platform runs it on every fed write).
    async fn sequenced(&self) -> Sequenced {
        self.sequencer.drain(self.store.as_ref()).await.unwrap()
    }

    async fn event_kinds(&self) -> Vec<EventKind> {
        self.sequenced().await;
        self.clock.advance(Duration::milliseconds(1));
        let page = self
            .events
            .read_after(self.device.tenant_id, None, None, 1000)
            .await
            .unwrap();
        page.events.iter().map(|e| e.kind).collect()
    }
}

fn uuid_like() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    format!("msg-{}", N.fetch_add(1, Ordering::Relaxed))
}

#[tokio::test]
async fn a_status_report_is_stored_once_even_when_delivered_twice() {
    let w = world().await;
    let report = w.message(
        Channel::Status,
        r#"{"light":{"power":true,"brightness":40},"features":["color_temp"]}"#,
    );
    assert_eq!(w.ingest.handle(&report).await.unwrap(), Outcome::Applied);
    assert_eq!(w.ingest.handle(&report).await.unwrap(), Outcome::Duplicate);

    let device = w.device().await;
    assert_eq!(device.status, Lenient::Known(DeviceStatus::Online));
    assert_eq!(device.last_seen, Some(start_time()));
    assert_eq!(device.features, ["color_temp"]);
    let reported = w
        .store
        .get(&reported_key(w.device.id))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(reported.get("payload").unwrap()["light"]["brightness"], 40);
    assert_eq!(
        w.event_kinds().await,
        [EventKind::DeviceOnline],
        "one state change, one event"
    );
}

#[tokio::test]
async fn the_last_will_takes_it_offline_and_any_report_brings_it_back() {
    let w = world().await;
    w.ingest
        .handle(&w.message(Channel::Availability, "online"))
        .await
        .unwrap();
    w.clock.advance(Duration::seconds(5));
    let mut will = w.message(Channel::Availability, "offline");
    will.last_will = true;
    assert_eq!(w.ingest.handle(&will).await.unwrap(), Outcome::Applied);
    assert_eq!(
        w.device().await.status,
        Lenient::Known(DeviceStatus::Offline)
    );
    // Offline again changes nothing and emits nothing.
    w.ingest
        .handle(&w.message(Channel::Availability, r#"{"status":"offline"}"#))
        .await
        .unwrap();
    w.clock.advance(Duration::seconds(5));
    w.ingest
        .handle(&w.message(Channel::Telemetry, r#"{"metrics":{"watts":4.5}}"#))
        .await
        .unwrap();
    assert_eq!(
        w.device().await.status,
        Lenient::Known(DeviceStatus::Online)
    );
    assert_eq!(
        w.event_kinds().await,
        [
            EventKind::DeviceOnline,
            EventKind::DeviceOffline,
            EventKind::DeviceOnline,
            EventKind::DeviceTelemetry
        ]
    );
    let page = w
        .events
        .read_after(w.device.tenant_id, None, None, 10)
        .await
        .unwrap();
    assert_eq!(page.events[1].data["reason"], "last-will");
}

#[tokio::test]
async fn telemetry_is_a_time_series_and_an_event() {
    let w = world().await;
    w.ingest
        .handle(&w.message(
            Channel::Telemetry,
            r#"{"metric":"temperature","value":21.5,"payload":null}"#,
        ))
        .await
        .unwrap();
    w.clock.advance(Duration::seconds(30));
    w.ingest
        .handle(&w.message(
            Channel::Telemetry,
            r#"{"metrics":{"temperature":21.75,"humidity":40}}"#,
        ))
        .await
        .unwrap();
    let series = w
        .store
        .query(Query::partition(format!(
            "TELEMETRY#{}#temperature",
            w.device.id
        )))
        .await
        .unwrap();
    let values: Vec<f64> = series
        .items
        .iter()
        .map(|i| i.get("value").unwrap().as_f64().unwrap())
        .collect();
    assert_eq!(values, [21.5, 21.75], "in time order");
    assert_eq!(w.sequenced().await.raised, 2, "an event per message");
    w.clock.advance(Duration::milliseconds(1));
    let page = w
        .events
        .read_after(w.device.tenant_id, None, None, 10)
        .await
        .unwrap();
    let telemetry: Vec<_> = page
        .events
        .iter()
        .filter(|e| e.kind == EventKind::DeviceTelemetry)
        .collect();
    assert_eq!(telemetry.len(), 2);
    assert_eq!(telemetry[1].data["metrics"]["humidity"], 40.0);
}

/// A delivery that stopped between its guard and its feed item raises its
/// event when it comes again, once, from the feed shard its guard names,
/// even when its tenant's log grew in between (an instance that reads the
/// new shard count would place a new message elsewhere).
#[tokio::test]
async fn a_message_stopped_before_its_feed_item_raises_its_event_once_when_it_comes_again() {
    let w = world().await;
    let reading = w.message(Channel::Telemetry, r#"{"metrics":{"watts":3.0}}"#);
    assert_eq!(w.ingest.handle(&reading).await.unwrap(), Outcome::Applied);
    // The stop: the feed item never made it (taken away before the
    // sequencer saw it).
    let fed = w.store.feed_after(0, 10).await.unwrap();
    assert_eq!(fed.len(), 1);
    let key = fed[0].1.key();
    w.store.trim_feed(fed[0].0).await.unwrap();
    w.store.delete(&key, None).await.unwrap();
    let home = w.device.property_id;
    let grown = (2..=128)
        .find(|n| alyt_store::repo::events::shard_of(home, *n) != 0)
        .unwrap();
    alyt_store::repo::events::Events(w.store.as_ref())
        .grow(w.device.tenant_id, grown)
        .await
        .unwrap();
    // Another instance (it reads the new count) takes the redelivery.
    let again = Ingest::new(
        w.store.clone(),
        w.clock.clone(),
        w.events.clone(),
        Arc::new(NoSecurity),
    );
    assert_eq!(again.handle(&reading).await.unwrap(), Outcome::Duplicate);
    let refed = w.store.feed_after(0, 10).await.unwrap();
    assert_eq!(refed.len(), 1, "its feed item again");
    assert_eq!(refed[0].1.key(), key, "in the shard its guard names");
    assert_eq!(again.handle(&reading).await.unwrap(), Outcome::Duplicate);
    assert_eq!(
        w.store.feed_after(0, 10).await.unwrap().len(),
        1,
        "no new item"
    );
    // Past the time a reader of a grown log waits for its idle shards.
    w.clock.advance(Duration::seconds(1));
    let telemetry = w
        .event_kinds()
        .await
        .into_iter()
        .filter(|k| *k == EventKind::DeviceTelemetry)
        .count();
    assert_eq!(telemetry, 1);
}

/// The embedded broker acknowledges a QoS 1 publish only once it is
/// stored; a platform stopped between the commit and the PUBACK meets the
/// publish again, from a broker that does not know it (a new message id).
#[tokio::test]
async fn a_publish_stored_before_a_restart_is_not_stored_again_when_resent() {
    let w = world().await;
    let on = |packet: u16, maybe_resent: bool, watts: u32| InboundMessage {
        packet: Some(PublishPacket {
            id: packet,
            maybe_resent,
        }),
        ..w.message(
            Channel::Telemetry,
            &format!(r#"{{"metrics":{{"watts":{watts}}}}}"#),
        )
    };
    assert_eq!(
        w.ingest.handle(&on(7, true, 1)).await.unwrap(),
        Outcome::Applied
    );
    // The same publish after the restart: the packet id and content of
    // the last one stored.
    let resent = on(7, true, 1);
    assert_eq!(w.ingest.handle(&resent).await.unwrap(), Outcome::Duplicate);
    // Not the same publish: other content on that packet id, the same
    // content on another, or a packet id the broker knows (its own
    // bookkeeping decided it is new).
    assert_eq!(
        w.ingest.handle(&on(7, true, 2)).await.unwrap(),
        Outcome::Applied
    );
    assert_eq!(
        w.ingest.handle(&on(8, true, 2)).await.unwrap(),
        Outcome::Applied
    );
    assert_eq!(
        w.ingest.handle(&on(8, false, 2)).await.unwrap(),
        Outcome::Applied
    );
    // What counts is the content last stored on a packet id: packet 7's
    // first content is history.
    assert_eq!(
        w.ingest.handle(&on(7, true, 1)).await.unwrap(),
        Outcome::Applied
    );
    // But that resend, handled again (read back from the broker's inbox
    // after a crash), is still the duplicate it was found to be.
    assert_eq!(w.ingest.handle(&resent).await.unwrap(), Outcome::Duplicate);

    // A crash can swallow the PUBACKs of several publishes of one device:
    // each of its latest is recognised when sent again, in a new ingest
    // (a restart) as in this one.
    for (packet, watts) in [(20, 20), (21, 21), (22, 22)] {
        assert_eq!(
            w.ingest.handle(&on(packet, true, watts)).await.unwrap(),
            Outcome::Applied
        );
    }
    let restarted = Ingest::new(
        w.store.clone(),
        w.clock.clone(),
        EventLog::new(w.store.clone(), w.clock.clone()),
        Arc::new(NoSecurity),
    );
    for (packet, watts) in [(20, 20), (21, 21), (22, 22)] {
        assert_eq!(
            restarted.handle(&on(packet, true, watts)).await.unwrap(),
            Outcome::Duplicate,
            "packet {packet} sent again after the restart"
        );
    }
    // Only the latest are kept: after as many newer ones, packet 20's
    // content is no longer taken for a resend.
    for packet in 100..100 + PUBLISHED_KEPT as u16 {
        assert_eq!(
            restarted.handle(&on(packet, true, 100)).await.unwrap(),
            Outcome::Applied
        );
    }
    assert_eq!(
        restarted.handle(&on(20, true, 20)).await.unwrap(),
        Outcome::Applied
    );

    let series = w
        .store
        .query(Query::partition(format!("TELEMETRY#{}#watts", w.device.id)))
        .await
        .unwrap();
    assert_eq!(
        series.items.len(),
        9 + PUBLISHED_KEPT,
        "one point per message stored"
    );
}

#[tokio::test]
async fn bad_payloads_are_dropped_and_counted_and_change_nothing() {
    let w = world().await;
    for (channel, payload) in [
        (
            Channel::Telemetry,
            r#"{"metric":"","value":1,"payload":null}"#,
        ),
        (Channel::Status, "[1,2,3]"),
        (Channel::Availability, "maybe"),
        (
            Channel::Response,
            r#"{"commandId":"abc","command":"set","status":"ok"}"#,
        ),
        (Channel::Status, "\u{0}\u{1} not json"),
    ] {
        let outcome = w.ingest.handle(&w.message(channel, payload)).await.unwrap();
        assert!(
            matches!(outcome, Outcome::Rejected(_)),
            "{channel:?} {payload}: {outcome:?}"
        );
    }
    let device = w.device().await;
    assert_eq!(device.status, Lenient::Known(DeviceStatus::Provisioning));
    assert_eq!(device.last_seen, None);
    assert!(w.event_kinds().await.is_empty());
    let rejected: u64 = w.ingest.stats().rejected().values().sum();
    assert_eq!(rejected, 5);
}

/// SQS redelivers, and an operator may replay a dead-letter queue: a
/// message that arrives after newer ones moves neither `lastSeen` nor the
/// status back, and a will that arrives after the device reconnected does
/// not take it offline.
#[tokio::test]
async fn late_messages_move_nothing_back() {
    let w = world().await;
    let early = w.message(Channel::Telemetry, r#"{"metrics":{"watts":1.0}}"#);
    let mut early_will = w.message(Channel::Availability, "offline");
    early_will.last_will = true;
    w.clock.advance(Duration::seconds(10));
    w.ingest
        .handle(&w.message(Channel::Availability, "online"))
        .await
        .unwrap();
    let newest = w.clock.now();

    // The older will, then the older report, arrive now.
    assert_eq!(
        w.ingest.handle(&early_will).await.unwrap(),
        Outcome::Applied
    );
    assert_eq!(w.ingest.handle(&early).await.unwrap(), Outcome::Applied);
    w.sequenced().await;
    let device = w.device().await;
    assert_eq!(device.status, Lenient::Known(DeviceStatus::Online));
    assert_eq!(device.last_seen, Some(newest));

    // Gone silent and marked offline, a report from before that comes back
    // late (older than the window by now) does not bring it online.
    let mut will = w.message(Channel::Availability, "offline");
    will.last_will = true;
    w.ingest.handle(&will).await.unwrap();
    let sent_then = w.message(Channel::Telemetry, r#"{"metrics":{"watts":2.0}}"#);
    w.clock.advance(Duration::seconds(
        i64::from(w.device.heartbeat_window_seconds) + 1,
    ));
    assert_eq!(w.ingest.handle(&sent_then).await.unwrap(), Outcome::Applied);
    assert_eq!(
        w.device().await.status,
        Lenient::Known(DeviceStatus::Offline)
    );
    assert_eq!(
        w.event_kinds().await,
        [
            EventKind::DeviceOnline,
            EventKind::DeviceTelemetry,
            EventKind::DeviceOffline,
            EventKind::DeviceTelemetry
        ],
        "every telemetry message still raises its event; no flapping"
    );
}

/// SQS does not keep order: a status report sent before the kept one but
/// delivered after it leaves the newer payload and features in place (it
/// still counts as hearing from the device), and a report newer than both
/// replaces them as usual.
#[tokio::test]
async fn a_late_status_report_does_not_replace_a_newer_one() {
    let w = world().await;
    let older = w.message(
        Channel::Status,
        r#"{"light":{"power":true,"brightness":10},"features":["color_temp"]}"#,
    );
    w.clock.advance(Duration::seconds(3));
    let newer = w.message(
        Channel::Status,
        r#"{"light":{"power":false,"brightness":90}}"#,
    );
    let newer_at = w.clock.now();
    let brightness = |w: &World| {
        let store = w.store.clone();
        let key = reported_key(w.device.id);
        async move {
            let item = store.get(&key).await.unwrap().unwrap();
            item.get("payload").unwrap()["light"]["brightness"].clone()
        }
    };

    assert_eq!(w.ingest.handle(&newer).await.unwrap(), Outcome::Applied);
    assert_eq!(w.ingest.handle(&older).await.unwrap(), Outcome::Applied);
    assert_eq!(brightness(&w).await, 90, "the newer payload is kept");
    let device = w.device().await;
    assert!(
        device.features.is_empty(),
        "the older report's features are not taken: {:?}",
        device.features
    );
    assert_eq!(device.reported_at, Some(newer_at));
    assert_eq!(device.last_seen, Some(newer_at));

    w.clock.advance(Duration::seconds(3));
    let newest = w.message(
        Channel::Status,
        r#"{"light":{"power":true,"brightness":55},"features":["color_temp"]}"#,
    );
    assert_eq!(w.ingest.handle(&newest).await.unwrap(), Outcome::Applied);
    assert_eq!(brightness(&w).await, 55);
    let device = w.device().await;
    assert_eq!(device.features, ["color_temp"]);
    assert_eq!(device.reported_at, Some(w.clock.now()));
}

#[tokio::test]
async fn messages_of_unknown_devices_change_nothing() {
    let w = world().await;
    let mut message = w.message(Channel::Status, r#"{"light":{"power":true}}"#);
    message.identity = DeviceIdentity::new(
        w.device.tenant_id,
        w.device.property_id.unwrap(),
        DeviceId::new(),
    );
    assert_eq!(
        w.ingest.handle(&message).await.unwrap(),
        Outcome::UnknownDevice
    );
    assert!(w.event_kinds().await.is_empty());
}

#[tokio::test]
async fn events_and_alerts_are_kept_and_an_alert_raises_one_notification() {
    use alyt_store::repo::history::{History, LogChannel, Range};
    use alyt_store::repo::notifications::Notifications;

    let w = world().await;
    w.ingest
        .handle(&w.message(Channel::Events, r#"{"button":"pressed"}"#))
        .await
        .unwrap();
    let alert = w.message(
        Channel::Alerts,
        r#"{"condition":"overheat","message":"The lamp is too hot"}"#,
    );
    assert_eq!(w.ingest.handle(&alert).await.unwrap(), Outcome::Applied);
    // SQS delivers the alert again: still one notification.
    assert_eq!(w.ingest.handle(&alert).await.unwrap(), Outcome::Duplicate);

    let history = History(&*w.store);
    let (events, _) = history
        .device_log(w.device.id, LogChannel::Event, Range::default(), 10, None)
        .await
        .unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].payload["button"], "pressed");
    let (alerts, _) = history
        .device_log(w.device.id, LogChannel::Alert, Range::default(), 10, None)
        .await
        .unwrap();
    assert_eq!(alerts.len(), 1);

    let (notifications, _) = Notifications(&*w.store)
        .of_property(w.device.property_id.unwrap(), 10, None)
        .await
        .unwrap();
    assert_eq!(notifications.len(), 1);
    assert_eq!(notifications[0].title, "Kitchen light: overheat");
    assert_eq!(notifications[0].body, "The lamp is too hot");

    w.clock.advance(Duration::milliseconds(1));
    let page = w
        .events
        .read_after(w.device.tenant_id, None, None, 100)
        .await
        .unwrap();
    let raised: Vec<_> = page
        .events
        .iter()
        .filter(|e| e.kind == EventKind::NotificationRaised)
        .collect();
    assert_eq!(raised.len(), 1, "one notification.raised per alert");
    assert_eq!(raised[0].data["id"], notifications[0].id.to_string());
    assert_eq!(raised[0].data["deviceId"], w.device.id.to_string());
    assert_eq!(raised[0].data["kind"], "device.alert");
    // Both reports count as hearing from the device.
    assert_eq!(w.device().await.status.known(), Some(DeviceStatus::Online));
}

#[tokio::test]
async fn a_virtual_device_stops_at_its_developers_mqtt_messages_quota() {
    use alyt_domain::ids::DeveloperId;
    use alyt_domain::quota::{QuotaKind, QuotaValue, QuotaWindow};
    use alyt_store::repo::tenancy::{TenantRecord, create_tenant_writes};
    use alyt_store::repo::usage::Quotas;

    let mut w = world().await;
    let developer = DeveloperId::new();
    let tenant = TenantRecord {
        id: w.device.tenant_id,
        name: "Sandbox".into(),
        code: "XTEST001".into(),
        sandbox: true,
        developer_id: Some(developer),
        created_at: start_time(),
    };
    w.store
        .transact(create_tenant_writes(&tenant).unwrap())
        .await
        .unwrap();
    Quotas(&*w.store)
        .set_override(
            developer,
            QuotaKind::MqttMessages,
            QuotaValue {
                ceiling: 3,
                window: QuotaWindow::Day,
                burst_per_minute: None,
            },
            None,
            start_time(),
        )
        .await
        .unwrap();
    w.device.is_virtual = true;
    w.store
        .put(device_item(&w.device).unwrap(), None)
        .await
        .unwrap();

    let meter = w.ingest.meter();
    assert!(!meter.spent(w.device.tenant_id).await.unwrap());
    let mut outcomes = Vec::new();
    for i in 0..5 {
        let payload = format!(r#"{{"metrics":{{"n":{i}}}}}"#);
        outcomes.push(
            w.ingest
                .handle(&w.message(Channel::Telemetry, &payload))
                .await
                .unwrap(),
        );
    }
    assert_eq!(
        outcomes,
        [
            Outcome::Applied,
            Outcome::Applied,
            Outcome::Applied,
            Outcome::OverQuota,
            Outcome::OverQuota
        ]
    );
    assert!(meter.spent(w.device.tenant_id).await.unwrap());
    let points = w
        .store
        .query(Query::partition(format!("TELEMETRY#{}#n", w.device.id)))
        .await
        .unwrap();
    assert_eq!(points.items.len(), 3, "nothing past the quota is stored");
    // The window resets the next day.
    w.clock.advance(Duration::days(1));
    assert!(!meter.spent(w.device.tenant_id).await.unwrap());
    assert_eq!(
        w.ingest
            .handle(&w.message(Channel::Telemetry, r#"{"metrics":{"n":9}}"#))
            .await
            .unwrap(),
        Outcome::Applied
    );
}

#[tokio::test]
async fn a_message_the_store_refuses_is_dropped_and_counted_and_never_an_error() {
    let w = world().await;
    // Valid on the channel (a finite number), but past the range of numbers
    // DynamoDB stores, so neither store takes it: retrying cannot help.
    let refused = w.message(
        Channel::Telemetry,
        r#"{"metric":"energy","value":1e300,"payload":null}"#,
    );
    assert_eq!(
        w.ingest.handle(&refused).await.unwrap(),
        Outcome::Rejected("unstorable")
    );
    let device = w.device().await;
    assert_eq!(device.status, Lenient::Known(DeviceStatus::Provisioning));
    assert!(w.event_kinds().await.is_empty());
    assert_eq!(
        w.ingest.stats().rejected(),
        std::collections::BTreeMap::from([("unstorable", 1)])
    );
    let good = w.message(Channel::Telemetry, r#"{"metrics":{"energy":1.5}}"#);
    assert_eq!(w.ingest.handle(&good).await.unwrap(), Outcome::Applied);
    let series = w
        .store
        .query(Query::partition(format!(
            "TELEMETRY#{}#energy",
            w.device.id
        )))
        .await
        .unwrap();
    assert_eq!(series.items.len(), 1);
    assert_eq!(series.items[0].get("value").unwrap().as_f64(), Some(1.5));
}

/// The devices paired under `hub` (gsi2 `PARENT#{hub}`).
async fn children_of(w: &World, hub: DeviceId) -> Vec<DeviceRecord> {
    w.store
        .query(Query::on_index(
            alyt_store::Index::Gsi2,
            format!("PARENT#{hub}"),
        ))
        .await
        .unwrap()
        .items
        .iter()
        .map(|i| i.to_record().unwrap())
        .collect()
}

#[tokio::test]
async fn a_hub_pairs_a_child_once_and_other_devices_pair_nothing() {
    let w = world().await;
    let pairing = r#"{"type":"child.paired","protocol":"ZIGBEE","protocolId":"0x0001","name":"Bulb","capabilities":["LIGHT"]}"#;
    // The kitchen light is no hub: its pairing event is only logged.
    let outcome = w
        .ingest
        .handle(&w.message(Channel::Events, pairing))
        .await
        .unwrap();
    assert_eq!(outcome, Outcome::Applied);
    assert!(children_of(&w, w.device.id).await.is_empty());

    let mut hub = w.device.clone();
    hub.capabilities
        .insert(Lenient::Known(DeviceCapability::Hub));
    hub.updated_at += Duration::seconds(10);
    w.store.put(device_item(&hub).unwrap(), None).await.unwrap();
    for _ in 0..2 {
        let outcome = w
            .ingest
            .handle(&w.message(Channel::Events, pairing))
            .await
            .unwrap();
        assert_eq!(outcome, Outcome::Applied);
    }
    let children = children_of(&w, hub.id).await;
    assert_eq!(children.len(), 1, "{children:?}");
    let child = &children[0];
    assert_eq!(child.name, "Bulb");
    assert_eq!(child.parent_device_id, Some(hub.id));
    assert_eq!(child.protocol_id.as_deref(), Some("0x0001"));
    assert_eq!(child.property_id, hub.property_id);
    assert_eq!(child.current_unit_id, None);
    assert!(child.features.is_empty());
    // A lock paired with a keypad carries it from its pairing descriptor
    // (a later status report of the device never adds one).
    let lock = r#"{"type":"child.paired","protocol":"ZIGBEE","protocolId":"0x0003","capabilities":["LOCK"],"features":["keypad"]}"#;
    let outcome = w
        .ingest
        .handle(&w.message(Channel::Events, lock))
        .await
        .unwrap();
    assert_eq!(outcome, Outcome::Applied);
    let children = children_of(&w, hub.id).await;
    let lock = children
        .iter()
        .find(|c| c.protocol_id.as_deref() == Some("0x0003"))
        .expect("the lock is paired");
    assert_eq!(lock.features, ["keypad"]);
    // A malformed pairing is logged, never an error, and pairs nothing.
    let bad =
        r#"{"type":"child.paired","protocol":"ZIGBEE","protocolId":"0x0002","capabilities":[]}"#;
    let outcome = w
        .ingest
        .handle(&w.message(Channel::Events, bad))
        .await
        .unwrap();
    assert_eq!(outcome, Outcome::Applied);
    assert_eq!(children_of(&w, hub.id).await.len(), 2);
}

/// A hub coming online shows its home's internet address (kept hashed);
/// another device's, or a last will, shows nothing.
#[tokio::test]
async fn a_hub_coming_online_records_its_homes_address() {
    use alyt_store::repo::tenancy::Tenancy;

    let mut w = world().await;
    let home = w.device.property_id.unwrap();
    let from: std::net::IpAddr = "203.0.113.7".parse().unwrap();
    let online = |w: &World| InboundMessage {
        source_address: Some(from),
        packet: None,
        ..w.message(Channel::Availability, "online")
    };
    // A light is no hub.
    w.ingest.handle(&online(&w)).await.unwrap();
    assert!(
        Tenancy(&*w.store)
            .home_address(home)
            .await
            .unwrap()
            .is_none()
    );

    w.device
        .capabilities
        .insert(Lenient::Known(DeviceCapability::Hub));
    w.store
        .put(device_item(&w.device).unwrap(), None)
        .await
        .unwrap();
    w.ingest.handle(&online(&w)).await.unwrap();
    let known = Tenancy(&*w.store)
        .home_address(home)
        .await
        .unwrap()
        .expect("the hub showed the address");
    assert!(known.matches(from));
    assert!(!known.matches("203.0.113.8".parse().unwrap()));
    assert!(
        !serde_json::to_string(&known)
            .unwrap()
            .contains("203.0.113.7")
    );
}

/// What ingest hands home security, in order; detections fail while
/// `refuse` says how (an invalid request, or the store unavailable).
#[derive(Default)]
struct Feed {
    heard: Mutex<Vec<String>>,
    refuse: Mutex<Option<bool>>,
}

impl Feed {
    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.heard.lock().unwrap())
    }
}

#[async_trait]
impl SecurityFeed for Feed {
    async fn detected(&self, device: &DeviceRecord, d: Detection) -> Result<(), StoreError> {
        if let Some(invalid) = *self.refuse.lock().unwrap() {
            return Err(if invalid {
                StoreError::Invalid("too big".into())
            } else {
                StoreError::Unavailable("security is down".into())
            });
        }
        let heard = format!(
            "{} {:?} {} {}",
            device.id, d.signal, d.event_id, d.occurred_at
        );
        self.heard.lock().unwrap().push(heard);
        Ok(())
    }

    async fn lock_moved(&self, device: &DeviceRecord, action: LockEvent) -> Result<(), StoreError> {
        let heard = format!("{} {action:?}", device.id);
        self.heard.lock().unwrap().push(heard);
        Ok(())
    }

    async fn hub_reported(&self, hub: DeviceIdentity, report: HubReport) -> Result<(), StoreError> {
        let heard = format!("{} {} {report:?}", hub.property_id, hub.device_id);
        self.heard.lock().unwrap().push(heard);
        Ok(())
    }
}

fn feeding(w: &World) -> (Ingest, Arc<Feed>, Arc<CountingStore<Arc<SqliteStore>>>) {
    let feed = Arc::new(Feed::default());
    let counted = Arc::new(CountingStore::new(w.store.clone()));
    let ingest = Ingest::new(
        counted.clone(),
        w.clock.clone(),
        w.events.clone(),
        feed.clone(),
    );
    (ingest, feed, counted)
}

#[tokio::test]
async fn what_an_event_tells_home_security_is_handed_over_with_the_device_read_once() {
    let w = world().await;
    let (ingest, feed, counted) = feeding(&w);
    let id = w.device.id;

    // A detection: before the transaction, with the device's own event id
    // and time; the device is read once for the whole message.
    let motion = w.message(
        Channel::Events,
        r#"{"type":"motion","id":"e-1","at":"2026-06-01T11:59:00Z"}"#,
    );
    counted.take();
    assert_eq!(ingest.handle(&motion).await.unwrap(), Outcome::Applied);
    assert_eq!(
        counted.take().get("get"),
        Some(&1),
        "one read of the device"
    );
    assert_eq!(
        feed.take(),
        [format!(
            "{id} Motion {id}:e-1 {}",
            time::macros::datetime!(2026-06-01 11:59 UTC)
        )]
    );
    // Handed again when it comes again (security keeps it once by its id).
    assert_eq!(ingest.handle(&motion).await.unwrap(), Outcome::Duplicate);
    assert_eq!(feed.take().len(), 1);
    // Without an id of its own: the message's id and arrival.
    let plain = w.message(Channel::Events, r#"{"type":"door","id":""}"#);
    ingest.handle(&plain).await.unwrap();
    assert_eq!(
        feed.take(),
        [format!(
            "{id} Contact {} {}",
            plain.message_id, plain.received_at
        )]
    );
    // The end of a detection, and other events, tell nothing.
    for payload in [
        r#"{"type":"motion","value":false}"#,
        r#"{"type":"lock","action":"picked"}"#,
        r#"{"type":"button","pressed":true}"#,
    ] {
        ingest
            .handle(&w.message(Channel::Events, payload))
            .await
            .unwrap();
    }
    assert_eq!(feed.take(), Vec::<String>::new());

    // A lock's move: after the transaction, once however often it comes.
    let unlock = w.message(
        Channel::Events,
        r#"{"type":"lock","action":"keypad-unlock"}"#,
    );
    counted.take();
    assert_eq!(ingest.handle(&unlock).await.unwrap(), Outcome::Applied);
    assert_eq!(
        counted.take().get("get"),
        Some(&1),
        "one read of the device"
    );
    assert_eq!(ingest.handle(&unlock).await.unwrap(), Outcome::Duplicate);
    assert_eq!(feed.take(), [format!("{id} KeypadUnlock")]);

    // A hub's report, from the home its credential names.
    let state = w.message(
        Channel::Events,
        r#"{"type":"security.state","generation":3,"mode":"away","ready":true}"#,
    );
    assert_eq!(ingest.handle(&state).await.unwrap(), Outcome::Applied);
    assert_eq!(ingest.handle(&state).await.unwrap(), Outcome::Duplicate);
    assert_eq!(
        feed.take(),
        [format!(
            "{} {id} State {{ generation: 3, mode: Away, ready: true }}",
            w.device.property_id.unwrap()
        )]
    );
}

#[tokio::test]
async fn a_detection_security_cannot_take_fails_its_message_until_it_can() {
    let w = world().await;
    let (ingest, feed, _) = feeding(&w);
    let motion = w.message(Channel::Events, r#"{"type":"vibration"}"#);
    // Even a refusal retrying cannot help is the message's failure, not a
    // message dropped as unstorable: the detection must not be lost.
    for invalid in [false, true] {
        *feed.refuse.lock().unwrap() = Some(invalid);
        let failed = ingest.handle(&motion).await;
        assert!(
            matches!(
                (invalid, &failed),
                (true, Err(StoreError::Invalid(_))) | (false, Err(StoreError::Unavailable(_)))
            ),
            "{failed:?}"
        );
        assert_eq!(w.device().await.last_seen, None, "nothing applied");
    }
    assert!(ingest.stats().rejected().is_empty());
    *feed.refuse.lock().unwrap() = None;
    assert_eq!(ingest.handle(&motion).await.unwrap(), Outcome::Applied);
    assert_eq!(feed.take().len(), 1);
    assert_eq!(w.device().await.last_seen, Some(start_time()));
}

/// A large tenant (an installer's 2,000 homes, 20,000 devices) at the
/// target rate of 5,000 telemetry messages a second, its event log in 32
/// shards, counted through ingest and the telemetry sequencer: no item takes
/// more than 300 writes a second (DynamoDB takes about 1,000 a second on one
/// item, and concurrent writers conflict on one item long before), every
/// message raises one event, and a message costs what docs/COST.md says.
/// Rates are the writes over the time the messages span at that rate (a
/// count, not a timing).
///
/// Hosted, the sequencer reads the table's stream: one stream shard per
/// table partition, each batch up to 1,000 records or one second. The test
/// feeds it the same way: the feed split by partition key over 7 stream
/// shards (the partitions ~7,000 write units a second take) and cut into
/// one-second batches. The devices are in a steady state: each reports
/// every 4 s and stores `lastSeen` at half its 90 s window, so their stored
/// `lastSeen` ages are spread over 0 to 49 s.
#[tokio::test]
async fn a_large_tenant_at_five_thousand_messages_a_second_has_no_hot_item_and_its_cost_is_counted()
{
    let counted = large_tenant(7).await;
    assert!(
        counted.cost.provisioned <= 2.50,
        "{}: over the goal of $2.50 per million",
        counted.cost
    );
}

/// The same tenant on a table the size of the whole platform at 100,000
/// messages a second: about 140 partitions, so 140 stream shards. A log
/// shard's feed is one partition, so it still arrives on one stream shard:
/// each head is moved by one sequencer batch a second, pages stay full,
/// and a message costs what it costs on a small table.
#[tokio::test]
async fn on_a_platform_sized_table_a_log_shards_feed_stays_on_one_stream_shard() {
    let counted = large_tenant(140).await;
    assert!(
        counted.hottest_head <= 2.0,
        "a head moved {:.1} times a second",
        counted.hottest_head
    );
    assert!(
        counted.cost.provisioned <= 2.50,
        "{}: over the goal of $2.50 per million",
        counted.cost
    );
}

/// What [`large_tenant`] counted.
struct Counted {
    cost: Cost,
    /// The writes a second of the most written log head.
    hottest_head: f64,
}

/// The large tenant's messages through ingest, then the sequencer fed over
/// `stream_shards` shards in one-second batches; asserts every message
/// raised one event and no item took more than 300 writes a second.
async fn large_tenant(stream_shards: u64) -> Counted {
    const HOMES: usize = 2_000;
    const DEVICES_PER_HOME: usize = 10;
    const RATE: u64 = 5_000;
    const SHARDS: u32 = 32;
    const BATCH: usize = 1_000;
    let clock = Arc::new(ManualClock::new(start_time()));
    let sqlite = Arc::new(SqliteStore::in_memory(clock.clone()).unwrap());
    let counted = Arc::new(CountingStore::new(sqlite.clone()));
    let events = EventLog::new(counted.clone(), clock.clone());
    let ingest = Ingest::new(
        counted.clone(),
        clock.clone(),
        events.clone(),
        Arc::new(NoSecurity),
    );
    let sequencer = Sequencer::new(counted.clone(), clock.clone(), events);
    let tenant = TenantId::new();
    alyt_store::repo::events::Events(sqlite.as_ref())
        .grow(tenant, SHARDS)
        .await
        .unwrap();

    let fleet = HOMES * DEVICES_PER_HOME;
    let mut devices = Vec::with_capacity(fleet);
    for _ in 0..HOMES {
        let home = PropertyId::new();
        let mut writes = Vec::new();
        for n in 0..DEVICES_PER_HOME {
            let age = Duration::milliseconds((devices.len() * 49_000 / fleet) as i64);
            let device = DeviceRecord {
                name: format!("Sensor {n}"),
                capabilities: BTreeSet::from([Lenient::Known(DeviceCapability::Sensor)]),
                status: Lenient::Known(DeviceStatus::Online),
                last_seen: Some(start_time() - age),
                ..alyt_store::fixtures::device(tenant, Some(home), start_time())
            };
            writes.push(alyt_store::TxWrite::Put {
                item: device_item(&device).unwrap(),
                condition: None,
            });
            devices.push(device);
        }
        sqlite.transact(writes).await.unwrap();
    }
    counted.take_item_writes();
    counted.take_units();

    // Each device reports once, homes interleaved as a fleet's would be.
    let step = Duration::microseconds(1_000_000 / RATE as i64);
    for (n, device) in devices.iter().enumerate() {
        clock.advance(step);
        let message = InboundMessage {
            message_id: format!("scale-{n}"),
            identity: DeviceIdentity::new(tenant, device.property_id.unwrap(), device.id),
            channel: Channel::Telemetry,
            topic: "alyt/t/p/d/telemetry".into(),
            payload: Bytes::from_static(br#"{"metrics":{"temperature":21.5}}"#),
            retained: false,
            last_will: false,
            received_at: clock.now(),
            source_address: None,
            packet: None,
        };
        assert_eq!(ingest.handle(&message).await.unwrap(), Outcome::Applied);
    }
    // The stream's batches: by partition key's shard, then by second.
    let fed = sqlite.feed_after(0, fleet as u32 + 1).await.unwrap();
    assert_eq!(fed.len(), fleet, "every message fed once");
    let mut batches: std::collections::BTreeMap<(u64, i64), Vec<FeedRecord>> = Default::default();
    for (sequence, item) in fed {
        let shard = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            item.pk().hash(&mut h);
            h.finish() % stream_shards
        };
        let second = (sequence as i64 - 1) * 1_000_000 / RATE as i64 / 1_000_000;
        batches
            .entry((shard, second))
            .or_default()
            .push(FeedRecord {
                sequence: sequence.to_string(),
                item,
            });
    }
    let mut raised = 0;
    for ((shard, _), records) in &batches {
        for batch in records.chunks(BATCH) {
            let done = sequencer
                .apply(&format!("shard-{shard}"), batch)
                .await
                .unwrap();
            raised += done.raised;
        }
    }
    assert_eq!(raised, fleet, "one event per message");

    let messages = fleet as u64;
    let seconds = messages as f64 / RATE as f64;
    let writes = counted.take_item_writes();
    let mut hottest: Vec<(&alyt_store::Key, u64)> = writes.iter().map(|(k, n)| (k, *n)).collect();
    hottest.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    eprintln!("{stream_shards} stream shards:");
    for (key, n) in hottest.iter().take(3) {
        eprintln!(
            "{:>8.1} writes/s  {} / {}",
            *n as f64 / seconds,
            key.pk,
            key.sk
        );
    }
    let (key, most) = hottest[0];
    let per_second = most as f64 / seconds;
    assert!(
        per_second <= 300.0,
        "{} / {} takes {per_second:.0} writes/s at {RATE} messages/s",
        key.pk,
        key.sk
    );
    let hottest_head = hottest
        .iter()
        .filter(|(k, _)| k.pk.starts_with("LOGHEAD#"))
        .map(|(_, n)| *n as f64 / seconds)
        .fold(0.0, f64::max);
    let cost = Cost::of(counted.take_units(), messages);
    eprintln!("{cost}");
    Counted { cost, hottest_head }
}

/// What a million telemetry messages cost hosted, from counted capacity
/// units and the list prices of docs/COST.md.
struct Cost {
    write_units: f64,
    read_units: f64,
    on_demand: f64,
    provisioned: f64,
}

impl Cost {
    /// IoT Core, its rule and SQS action, SQS's requests and the ingest
    /// Lambda, per million messages (docs/COST.md).
    const PATH_IN: f64 = 1.81;
    /// On-demand: per million write and read request units.
    const WRU: f64 = 0.625;
    const RRU: f64 = 0.125;
    /// Provisioned, per capacity unit-hour, used at autoscaling's 70%.
    const WCU_HOUR: f64 = 0.00065;
    const RCU_HOUR: f64 = 0.00013;
    const UTILISATION: f64 = 0.7;

    fn of(units: alyt_store::counting::Units, messages: u64) -> Self {
        let write_units = units.write as f64 / messages as f64;
        let read_units = units.read as f64 / messages as f64;
        // A unit-hour is 3,600 units used; a million units take 277.8.
        let per_million = |hour: f64| hour * 1e6 / 3600.0 / Self::UTILISATION;
        Self {
            write_units,
            read_units,
            on_demand: Self::PATH_IN + write_units * Self::WRU + read_units * Self::RRU,
            provisioned: Self::PATH_IN
                + write_units * per_million(Self::WCU_HOUR)
                + read_units * per_million(Self::RCU_HOUR),
        }
    }
}

impl std::fmt::Display for Cost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:.3} write units and {:.3} read units a message: ${:.2} per million on demand, ${:.2} provisioned",
            self.write_units, self.read_units, self.on_demand, self.provisioned
        )
    }
}
