//! The embedded broker against a real MQTT client (rumqttc) and, where a
//! client library would refuse to send something, hand-written packets.
//!
//! Every wait is bounded. "Nothing got through" is shown by ordering rather
//! than by sleeping: the broker forwards a connection's messages in order, and
//! a refused message is fully processed (its PUBACK sent, or the connection
//! closed) before the test sends a marker that must be the next thing to arrive.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use alyt_device::inbox::Inbox;
use alyt_device::{
    Broker, BrokerConfig, BrokerError, Channel, Delivery, DeviceAuthenticator, DeviceIdentity,
    InboundMessage, start_broker,
};
use alyt_domain::ManualClock;
use async_trait::async_trait;
use bytes::Bytes;
use rumqttc::{
    AsyncClient, ConnectReturnCode, ConnectionError, Event, LastWill, MqttOptions, Outgoing,
    Packet, QoS, SubscribeReasonCode,
};
use time::macros::datetime;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::timeout;

const WAIT: Duration = Duration::from_secs(5);

// Short names for the ids in this file's topics: `at("alyt/t1/p1/dev-a/x")`
// spells them as the platform does. A device's MQTT client id is its device
// id (`DEV_A`, `DEV_B`).
const NAMED: [(&str, &str); 5] = [
    ("t1", "0190d0f0-0000-7000-8000-0000000000a1"),
    ("t2", "0190d0f0-0000-7000-8000-0000000000a2"),
    ("p1", "0190d0f0-0000-7000-8000-0000000000b1"),
    ("dev-a", DEV_A),
    ("dev-b", DEV_B),
];
const DEV_A: &str = "0190d0f0-0000-7000-8000-0000000000da";
const DEV_B: &str = "0190d0f0-0000-7000-8000-0000000000db";

fn at(template: &str) -> String {
    template
        .split('/')
        .map(
            |level| match NAMED.iter().find(|(name, _)| *name == level) {
                Some((_, id)) => id,
                None => level,
            },
        )
        .collect::<Vec<_>>()
        .join("/")
}

fn identity(device: &str) -> DeviceIdentity {
    DeviceIdentity::new(
        NAMED[0].1.parse().unwrap(),
        NAMED[2].1.parse().unwrap(),
        device.parse().unwrap(),
    )
}

fn dev_a() -> DeviceIdentity {
    identity(DEV_A)
}

fn dev_b() -> DeviceIdentity {
    identity(DEV_B)
}

/// username -> (password, identity). It ignores the client id on purpose: the
/// broker must not rely on it.
struct TestAuth(HashMap<&'static str, (&'static str, DeviceIdentity)>);

#[async_trait]
impl DeviceAuthenticator for TestAuth {
    async fn authenticate(
        &self,
        _client_id: &str,
        username: &str,
        password: &[u8],
    ) -> Option<DeviceIdentity> {
        let (expected, identity) = self.0.get(username)?;
        (expected.as_bytes() == password).then_some(*identity)
    }
}

fn auth() -> Arc<TestAuth> {
    Arc::new(TestAuth(HashMap::from([
        ("user-a", ("pass-a", dev_a())),
        ("user-b", ("pass-b", dev_b())),
    ])))
}

fn loopback() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 0))
}

async fn start() -> (Broker, mpsc::Receiver<InboundMessage>) {
    start_on(loopback()).await
}

async fn start_on(addr: SocketAddr) -> (Broker, mpsc::Receiver<InboundMessage>) {
    let (tx, rx) = mpsc::channel(64);
    let broker = start_broker(BrokerConfig::new(addr), auth(), tx)
        .await
        .expect("broker starts");
    assert_ne!(broker.local_addr.port(), 0);
    (broker, handled_at_once(rx))
}

/// Stands in for ingest, which stores a message before the broker sends
/// its PUBACK: takes each delivery as handled at once and passes the
/// message on.
fn handled_at_once(mut deliveries: mpsc::Receiver<Delivery>) -> mpsc::Receiver<InboundMessage> {
    let (tx, rx) = mpsc::channel(deliveries.max_capacity());
    tokio::spawn(async move {
        while let Some(Delivery { message, receipt }) = deliveries.recv().await {
            receipt.handled();
            if tx.send(message).await.is_err() {
                break;
            }
        }
    });
    rx
}

async fn next_inbound(rx: &mut mpsc::Receiver<InboundMessage>) -> InboundMessage {
    timeout(WAIT, rx.recv())
        .await
        .expect("an inbound message in time")
        .expect("inbound channel open")
}

/// Sends a marker on the device's own status topic and checks that it is the
/// very next inbound message: whatever was refused before it never arrived.
async fn assert_nothing_before_marker(
    broker: &Broker,
    rx: &mut mpsc::Receiver<InboundMessage>,
    marker: &str,
) {
    let mut device = Device::connect(broker, "marker", Some(("user-a", "pass-a")), None)
        .await
        .expect("marker device connects");
    assert!(
        device
            .publish(&dev_a().topic(Channel::Status), marker)
            .await
    );
    let got = next_inbound(rx).await;
    assert_eq!(
        (got.identity, got.topic.as_str(), &got.payload[..]),
        (
            dev_a(),
            dev_a().topic(Channel::Status).as_str(),
            marker.as_bytes()
        ),
        "something arrived before the marker"
    );
    device.disconnect().await;
}

/// A rumqttc client whose event loop runs in its own task; aborting the task
/// drops the socket without DISCONNECT.
struct Device {
    client: AsyncClient,
    events: mpsc::UnboundedReceiver<Result<Event, ConnectionError>>,
    task: JoinHandle<()>,
}

impl Device {
    async fn connect(
        broker: &Broker,
        client_id: &str,
        credentials: Option<(&str, &str)>,
        will: Option<LastWill>,
    ) -> Result<Device, ConnectReturnCode> {
        let addr = broker.local_addr;
        let mut options = MqttOptions::new(client_id, addr.ip().to_string(), addr.port());
        options.set_keep_alive(Duration::from_secs(30));
        if let Some((user, pass)) = credentials {
            options.set_credentials(user, pass);
        }
        if let Some(will) = will {
            options.set_last_will(will);
        }
        let (client, mut eventloop) = AsyncClient::new(options, 16);
        let (tx, mut events) = mpsc::unbounded_channel();
        let task = tokio::spawn(async move {
            loop {
                let event = eventloop.poll().await;
                let failed = event.is_err();
                if tx.send(event).is_err() || failed {
                    break; // no reconnects: each test decides what happens next
                }
            }
        });
        loop {
            match timeout(WAIT, events.recv()).await.expect("CONNACK in time") {
                Some(Ok(Event::Incoming(Packet::ConnAck(_)))) => {
                    return Ok(Device {
                        client,
                        events,
                        task,
                    });
                }
                Some(Ok(_)) => continue,
                Some(Err(ConnectionError::ConnectionRefused(code))) => return Err(code),
                other => panic!("unexpected connection outcome: {other:?}"),
            }
        }
    }

    /// Publishes at QoS 1 without rumqttc's topic validation. True when the
    /// broker acknowledged it, false when it closed the connection instead.
    async fn publish(&mut self, topic: &str, payload: &str) -> bool {
        self.client
            .publish_bytes(
                topic,
                QoS::AtLeastOnce,
                false,
                Bytes::copy_from_slice(payload.as_bytes()),
            )
            .await
            .expect("request queued");
        loop {
            match self.next_event().await {
                Ok(Event::Incoming(Packet::PubAck(_))) => return true,
                Ok(_) => continue,
                Err(_) => return false,
            }
        }
    }

    async fn subscribe(&mut self, filter: &str) -> Vec<SubscribeReasonCode> {
        self.client
            .subscribe(filter, QoS::AtLeastOnce)
            .await
            .expect("request queued");
        loop {
            match self.next_event().await {
                Ok(Event::Incoming(Packet::SubAck(ack))) => return ack.return_codes,
                Ok(_) => continue,
                Err(e) => panic!("connection lost while subscribing to {filter}: {e}"),
            }
        }
    }

    async fn next_publish(&mut self) -> rumqttc::Publish {
        loop {
            match self.next_event().await {
                Ok(Event::Incoming(Packet::Publish(p))) => return p,
                Ok(_) => continue,
                Err(e) => panic!("connection lost while waiting for a publish: {e}"),
            }
        }
    }

    async fn next_event(&mut self) -> Result<Event, ConnectionError> {
        timeout(WAIT, self.events.recv())
            .await
            .expect("an MQTT event in time")
            .expect("event loop task alive")
    }

    /// Clean DISCONNECT, then close the socket. rumqttc keeps the socket open
    /// after sending DISCONNECT, and rmqtt waits for the client to close it.
    async fn disconnect(mut self) {
        let _ = self.client.disconnect().await;
        loop {
            match self.next_event().await {
                Ok(Event::Outgoing(Outgoing::Disconnect)) | Err(_) => break,
                Ok(_) => continue,
            }
        }
        self.drop_socket().await;
    }

    /// Drops the TCP connection without DISCONNECT, like a device losing power.
    async fn drop_socket(self) {
        self.task.abort();
        let _ = self.task.await;
    }
}

fn connect_refused(result: Result<Device, ConnectReturnCode>) -> ConnectReturnCode {
    match result {
        Ok(_) => panic!("the connection was accepted"),
        Err(code) => code,
    }
}

#[tokio::test]
async fn a_device_reports_on_each_of_its_channels() {
    let clock = Arc::new(ManualClock::new(datetime!(2030-01-02 03:04:05 UTC)));
    let (tx, rx) = mpsc::channel(64);
    let broker = start_broker(
        BrokerConfig::new(loopback()).with_clock(clock.clone()),
        auth(),
        tx,
    )
    .await
    .unwrap();
    let mut rx = handled_at_once(rx);
    let mut device = Device::connect(&broker, DEV_A, Some(("user-a", "pass-a")), None)
        .await
        .expect("valid credentials connect");

    let channels = [
        Channel::Status,
        Channel::Telemetry,
        Channel::Events,
        Channel::Alerts,
        Channel::Availability,
        Channel::Response,
    ];
    for channel in channels {
        let topic = dev_a().topic(channel);
        assert!(device.publish(&topic, channel.as_str()).await);
        let got = next_inbound(&mut rx).await;
        assert_eq!(got.identity, dev_a());
        assert_eq!(got.channel, channel);
        assert_eq!(got.topic, topic);
        assert_eq!(&got.payload[..], channel.as_str().as_bytes());
        assert!(!got.retained && !got.last_will);
        assert_eq!(got.received_at, datetime!(2030-01-02 03:04:05 UTC));
    }

    device
        .client
        .publish(
            dev_a().topic(Channel::Status),
            QoS::AtMostOnce,
            true,
            "kept",
        )
        .await
        .unwrap();
    let got = next_inbound(&mut rx).await;
    assert!(got.retained, "the retain flag is passed on");

    assert_eq!(broker.stats().inbound_forwarded, 7);
    assert_eq!(broker.stats().publishes_denied, 0);
    device.disconnect().await;
    broker.shutdown().await;
}

#[tokio::test]
async fn a_device_receives_the_commands_the_platform_publishes() {
    let (broker, _rx) = start().await;
    let mut device = Device::connect(&broker, DEV_A, Some(("user-a", "pass-a")), None)
        .await
        .unwrap();

    // Nobody listens yet: the caller learns it (the command stays pending).
    assert!(matches!(
        broker.publish_to_device(&dev_a(), "early", true).await,
        Err(BrokerError::NotSubscribed { .. })
    ));

    let codes = device.subscribe(&dev_a().topic(Channel::Commands)).await;
    assert_eq!(codes, [SubscribeReasonCode::Success(QoS::AtLeastOnce)]);

    broker
        .publish_to_device(&dev_a(), r#"{"command":"press"}"#, true)
        .await
        .expect("a subscribed device takes the command");
    let p = device.next_publish().await;
    assert_eq!(p.topic, dev_a().topic(Channel::Commands));
    assert_eq!(&p.payload[..], br#"{"command":"press"}"#);
    assert_eq!(p.qos, QoS::AtLeastOnce);

    broker
        .publish_to_device(&dev_a(), "qos0", false)
        .await
        .unwrap();
    let p = device.next_publish().await;
    assert_eq!((&p.payload[..], p.qos), (&b"qos0"[..], QoS::AtMostOnce));

    device.disconnect().await;
    broker.shutdown().await;
}

#[tokio::test]
async fn bad_credentials_and_anonymous_connections_are_refused() {
    let (broker, mut rx) = start().await;

    let code =
        connect_refused(Device::connect(&broker, DEV_A, Some(("user-a", "wrong")), None).await);
    assert_eq!(code, ConnectReturnCode::BadUserNamePassword);
    let code =
        connect_refused(Device::connect(&broker, "x", Some(("nobody", "pass-a")), None).await);
    assert_eq!(code, ConnectReturnCode::BadUserNamePassword);
    let code = connect_refused(Device::connect(&broker, DEV_A, None, None).await);
    assert_eq!(code, ConnectReturnCode::NotAuthorized);

    // A client that does not wait for CONNACK: CONNECT and PUBLISH in one write.
    for connect in [
        raw::connect("anon", None, None),
        raw::connect(DEV_A, Some(("user-a", "wrong")), None),
    ] {
        let mut stream = TcpStream::connect(broker.local_addr).await.unwrap();
        let mut bytes = connect;
        bytes.extend(raw::publish_qos0(
            &dev_a().topic(Channel::Status),
            b"sneaky",
        ));
        stream.write_all(&bytes).await.unwrap();
        let connack = raw::read_until_closed(&mut stream).await;
        assert_eq!(connack[..3], [0x20, 0x02, 0x00], "a CONNACK first");
        assert_ne!(connack[3], 0x00, "and a refusal");
    }

    assert_nothing_before_marker(&broker, &mut rx, "after-refusals").await;
    assert_eq!(broker.stats().connections_refused, 5);
    broker.shutdown().await;
}

#[tokio::test]
async fn a_device_cannot_reach_outside_its_subtree() {
    let (broker, mut rx) = start().await;
    let mut a = Device::connect(&broker, DEV_A, Some(("user-a", "pass-a")), None)
        .await
        .unwrap();
    let mut b = Device::connect(&broker, DEV_B, Some(("user-b", "pass-b")), None)
        .await
        .unwrap();

    // Publishing: another device's topics, its own commands, wildcards, NUL,
    // extra or empty levels. Each is refused; the connection may survive or
    // not (rmqtt closes it on a malformed topic), so each gets a fresh one.
    let a_prefix = dev_a().topic_prefix();
    for topic in [
        dev_b().topic(Channel::Status),
        dev_b().topic(Channel::Availability),
        dev_a().topic(Channel::Commands),
        format!("{a_prefix}/status/extra"),
        format!("{a_prefix}/nope"),
        at("alyt/t2/p1/dev-a/status"),
        at("alyt/t1/p1/+/status"),
        format!("{a_prefix}/#"),
        format!("{a_prefix}/+"),
        "alyt/#".to_owned(),
        format!("{a_prefix}/status\0"),
        at("alyt/t1//dev-a/status"),
    ] {
        let mut rogue = Device::connect(&broker, "rogue-a", Some(("user-a", "pass-a")), None)
            .await
            .unwrap();
        rogue.publish(&topic, "stolen").await;
        rogue.drop_socket().await;
    }
    assert_nothing_before_marker(&broker, &mut rx, "after-bad-publishes").await;
    assert!(broker.stats().publishes_denied >= 7);

    // Subscribing: only the own commands topic is granted.
    for filter in [
        "alyt/#",
        "#",
        &at("alyt/t1/p1/dev-b/commands"),
        &at("alyt/t1/p1/+/commands"),
        &at("alyt/t1/p1/dev-a/#"),
        &at("alyt/t1/p1/dev-b/status"),
    ] {
        assert_eq!(
            a.subscribe(filter).await,
            [SubscribeReasonCode::Failure],
            "{filter}"
        );
    }
    assert_eq!(
        a.subscribe(&dev_a().topic(Channel::Commands)).await,
        [SubscribeReasonCode::Success(QoS::AtLeastOnce)]
    );
    assert_eq!(
        b.subscribe(&dev_b().topic(Channel::Commands)).await,
        [SubscribeReasonCode::Success(QoS::AtLeastOnce)]
    );

    // The platform writes to B, then to A: A's first message must be its own.
    broker
        .publish_to_device(&dev_b(), "for-b", true)
        .await
        .unwrap();
    broker
        .publish_to_device(&dev_a(), "for-a", true)
        .await
        .unwrap();
    let p = a.next_publish().await;
    assert_eq!(
        (p.topic.as_str(), &p.payload[..]),
        (dev_a().topic(Channel::Commands).as_str(), &b"for-a"[..])
    );
    let p = b.next_publish().await;
    assert_eq!(&p.payload[..], b"for-b");

    // A device's own publishes never reach anyone's subscription either.
    assert!(a.publish(&dev_a().topic(Channel::Status), "own").await);
    assert_eq!(next_inbound(&mut rx).await.payload, "own");
    broker
        .publish_to_device(&dev_a(), "second", true)
        .await
        .unwrap();
    assert_eq!(&a.next_publish().await.payload[..], b"second");

    assert_eq!(broker.stats().subscriptions_denied, 6);
    a.disconnect().await;
    b.disconnect().await;
    broker.shutdown().await;
}

#[tokio::test]
async fn client_ids_with_wildcards_or_slashes_do_not_widen_the_subtree() {
    let (broker, mut rx) = start().await;
    let mut b = Device::connect(&broker, DEV_B, Some(("user-b", "pass-b")), None)
        .await
        .unwrap();
    b.subscribe(&dev_b().topic(Channel::Commands)).await;

    for client_id in [
        "+",
        "#",
        "alyt/+/#",
        &at("alyt/t1/p1/dev-b"),
        &at("dev-a/../dev-b"),
        "/",
    ] {
        let mut a = Device::connect(&broker, client_id, Some(("user-a", "pass-a")), None)
            .await
            .unwrap_or_else(|code| panic!("{client_id}: {code:?}"));
        assert_eq!(
            a.subscribe(&at("alyt/t1/p1/dev-b/commands")).await,
            [SubscribeReasonCode::Failure],
            "{client_id}"
        );
        assert_eq!(
            a.subscribe(&dev_a().topic(Channel::Commands)).await,
            [SubscribeReasonCode::Success(QoS::AtLeastOnce)]
        );
        assert!(a.publish(&dev_b().topic(Channel::Status), client_id).await);
        // Its own topic works, and the message carries the credential's identity.
        assert!(a.publish(&dev_a().topic(Channel::Status), client_id).await);
        let got = next_inbound(&mut rx).await;
        assert_eq!(
            (got.identity, got.topic, &got.payload[..]),
            (
                dev_a(),
                dev_a().topic(Channel::Status),
                client_id.as_bytes()
            ),
            "{client_id}"
        );

        broker
            .publish_to_device(&dev_b(), "for-b", true)
            .await
            .unwrap();
        broker
            .publish_to_device(&dev_a(), "for-a", true)
            .await
            .unwrap();
        assert_eq!(&a.next_publish().await.payload[..], b"for-a", "{client_id}");
        assert_eq!(&b.next_publish().await.payload[..], b"for-b");
        a.disconnect().await;
    }
    b.disconnect().await;
    broker.shutdown().await;
}

#[tokio::test]
async fn another_device_cannot_take_over_a_session_by_its_client_id() {
    let (broker, mut rx) = start().await;
    let mut a = Device::connect(&broker, "shared-id", Some(("user-a", "pass-a")), None)
        .await
        .unwrap();
    a.subscribe(&dev_a().topic(Channel::Commands)).await;

    let code = connect_refused(
        Device::connect(&broker, "shared-id", Some(("user-b", "pass-b")), None).await,
    );
    assert_eq!(code, ConnectReturnCode::NotAuthorized);

    // A was not kicked.
    broker
        .publish_to_device(&dev_a(), "still-here", true)
        .await
        .unwrap();
    assert_eq!(&a.next_publish().await.payload[..], b"still-here");
    assert!(a.publish(&dev_a().topic(Channel::Status), "ok").await);
    assert_eq!(next_inbound(&mut rx).await.payload, "ok");

    // The same device may take its own session over (a reconnect after a
    // half-open socket).
    let again = Device::connect(&broker, "shared-id", Some(("user-a", "pass-a")), None)
        .await
        .expect("the same identity reconnects");
    again.disconnect().await;
    a.drop_socket().await;
    broker.shutdown().await;
}

#[tokio::test]
async fn the_last_will_reports_offline_when_the_socket_drops() {
    let (broker, mut rx) = start().await;
    let availability = dev_a().topic(Channel::Availability);
    let will = || LastWill::new(&availability, "offline", QoS::AtLeastOnce, false);

    let device = Device::connect(&broker, DEV_A, Some(("user-a", "pass-a")), Some(will()))
        .await
        .unwrap();
    device.drop_socket().await;
    let got = next_inbound(&mut rx).await;
    assert_eq!(got.identity, dev_a());
    assert_eq!(got.channel, Channel::Availability);
    assert_eq!(got.topic, availability);
    assert_eq!(&got.payload[..], b"offline");
    assert!(got.last_will);

    // A clean DISCONNECT discards the will.
    let device = Device::connect(&broker, DEV_A, Some(("user-a", "pass-a")), Some(will()))
        .await
        .unwrap();
    device.disconnect().await;
    assert_nothing_before_marker(&broker, &mut rx, "after-clean-disconnect").await;

    // A will anywhere else would be published by the broker unchecked: refuse.
    for topic in [
        dev_a().topic(Channel::Status),
        dev_a().topic(Channel::Commands),
        dev_b().topic(Channel::Availability),
        at("alyt/t1/p1/+/availability"),
        "elsewhere".to_owned(),
    ] {
        let will = LastWill::new(&topic, "offline", QoS::AtLeastOnce, false);
        let code = connect_refused(
            Device::connect(&broker, DEV_A, Some(("user-a", "pass-a")), Some(will)).await,
        );
        assert_eq!(code, ConnectReturnCode::NotAuthorized, "{topic}");
    }
    assert_nothing_before_marker(&broker, &mut rx, "after-bad-wills").await;
    broker.shutdown().await;
}

#[tokio::test]
async fn brokers_are_independent_and_a_port_is_reusable_after_shutdown() {
    let (first, mut first_rx) = start().await;
    let (second, mut second_rx) = start().await;

    let mut on_first = Device::connect(&first, DEV_A, Some(("user-a", "pass-a")), None)
        .await
        .unwrap();
    assert!(on_first.publish(&dev_a().topic(Channel::Status), "1").await);
    assert_eq!(next_inbound(&mut first_rx).await.payload, "1");
    assert_nothing_before_marker(&second, &mut second_rx, "second").await;

    // Shutdown closes the device's connection and the listener.
    let will = LastWill::new(
        dev_a().topic(Channel::Availability),
        "offline",
        QoS::AtLeastOnce,
        false,
    );
    let mut with_will = Device::connect(&first, "dev-a-2", Some(("user-a", "pass-a")), Some(will))
        .await
        .unwrap();
    let addr = first.local_addr;
    timeout(WAIT, first.shutdown())
        .await
        .expect("shutdown in time");
    assert!(on_first.next_event().await.is_err(), "connection closed");
    assert!(with_will.next_event().await.is_err(), "connection closed");
    assert!(TcpStream::connect(addr).await.is_err(), "listener closed");
    // The platform stopping is not the device failing: no will is forwarded.
    assert!(first_rx.try_recv().is_err());

    // The same port binds again at once (SO_REUSEADDR).
    let (again, mut again_rx) = start_on(addr).await;
    assert_eq!(again.local_addr, addr);
    assert_nothing_before_marker(&again, &mut again_rx, "restarted").await;
    again.shutdown().await;
    second.shutdown().await;
}

/// A device whose client keeps its unacknowledged publishes across
/// reconnects (rumqttc resends them, same packet id, without DUP).
fn keeping_options(broker_addr: SocketAddr) -> MqttOptions {
    let mut options = MqttOptions::new(DEV_A, broker_addr.ip().to_string(), broker_addr.port());
    options.set_keep_alive(Duration::from_secs(30));
    options.set_credentials("user-a", "pass-a");
    options.set_clean_session(false);
    options
}

/// Polls until a PUBACK, or the connection fails (`None`).
async fn puback_or_failure(events: &mut rumqttc::EventLoop) -> Option<u16> {
    loop {
        match timeout(WAIT, events.poll())
            .await
            .expect("an MQTT event in time")
        {
            Ok(Event::Incoming(Packet::PubAck(ack))) => return Some(ack.pkid),
            Ok(_) => continue,
            Err(_) => return None,
        }
    }
}

/// A broker whose deliveries the test answers itself, and device A's
/// client (not yet connected: its event loop is polled by the test).
async fn start_with_a_keeping_device() -> (
    Broker,
    mpsc::Receiver<Delivery>,
    AsyncClient,
    rumqttc::EventLoop,
) {
    start_with_a_keeping_device_on(BrokerConfig::new(loopback())).await
}

async fn start_with_a_keeping_device_on(
    config: BrokerConfig,
) -> (
    Broker,
    mpsc::Receiver<Delivery>,
    AsyncClient,
    rumqttc::EventLoop,
) {
    let (tx, rx) = mpsc::channel(64);
    let broker = start_broker(config, auth(), tx).await.unwrap();
    let (client, events) = AsyncClient::new(keeping_options(broker.local_addr), 16);
    (broker, rx, client, events)
}

async fn next_delivery(rx: &mut mpsc::Receiver<Delivery>) -> Delivery {
    timeout(WAIT, rx.recv())
        .await
        .expect("a delivery in time")
        .expect("inbound channel open")
}

#[tokio::test]
async fn a_qos1_publish_is_acknowledged_only_once_ingest_has_handled_it() {
    let (broker, mut rx, client, mut events) = start_with_a_keeping_device().await;
    client
        .publish(
            dev_a().topic(Channel::Telemetry),
            QoS::AtLeastOnce,
            false,
            "one",
        )
        .await
        .unwrap();
    let pump = tokio::spawn(async move {
        let ack = puback_or_failure(&mut events).await;
        (ack, events)
    });
    let delivery = next_delivery(&mut rx).await;
    let packet = delivery
        .message
        .packet
        .expect("a QoS 1 publish has its packet");
    assert!(packet.maybe_resent, "the first use of the packet id here");
    // No PUBACK while the message is unanswered (given a generous moment).
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!pump.is_finished(), "acknowledged before it was handled");
    delivery.receipt.handled();
    let (ack, mut events) = pump.await.unwrap();
    assert_eq!(ack, Some(packet.id), "the PUBACK once handled");

    // A QoS 0 publish is not waited on: it reaches ingest with no packet.
    client
        .publish(
            dev_a().topic(Channel::Telemetry),
            QoS::AtMostOnce,
            false,
            "zero",
        )
        .await
        .unwrap();
    let pump = tokio::spawn(async move { while events.poll().await.is_ok() {} });
    let zero = next_delivery(&mut rx).await;
    assert_eq!(
        (&zero.message.payload[..], zero.message.packet),
        (&b"zero"[..], None)
    );
    pump.abort();
    broker.shutdown().await;
}

/// With the platform's inbox the PUBACK comes once the publish is in it,
/// before ingest has handled it; what a crash then would leave is the
/// message, with the id ingest deduplicates on, until ingest handles it.
#[tokio::test]
async fn with_an_inbox_a_qos1_publish_is_acknowledged_once_kept_there_until_handled() {
    let dir = tempfile::tempdir().unwrap();
    let (inbox, _) = Inbox::open(dir.path()).unwrap();
    let (broker, mut rx, client, mut events) =
        start_with_a_keeping_device_on(BrokerConfig::new(loopback()).with_inbox(inbox.clone()))
            .await;
    client
        .publish(
            dev_a().topic(Channel::Telemetry),
            QoS::AtLeastOnce,
            false,
            "one",
        )
        .await
        .unwrap();
    let ack = puback_or_failure(&mut events).await;
    let delivery = next_delivery(&mut rx).await;
    assert_eq!(
        ack,
        delivery.message.packet.map(|p| p.id),
        "acknowledged while ingest still holds it"
    );
    let (_, after_a_crash) = Inbox::open(dir.path()).unwrap();
    assert_eq!(
        after_a_crash.messages,
        std::slice::from_ref(&delivery.message)
    );
    assert_eq!(inbox.unsettled(), 1);

    delivery.receipt.handled();
    assert_eq!(inbox.unsettled(), 0);
    broker.shutdown().await;
    assert_eq!(inbox.close(), 0);
    let (_, after_a_stop) = Inbox::open(dir.path()).unwrap();
    assert!(
        after_a_stop.messages.is_empty(),
        "nothing left once handled"
    );
}

#[tokio::test]
async fn a_publish_not_stored_gets_no_puback_and_its_resend_keeps_its_message_id() {
    let (broker, mut rx, client, mut events) = start_with_a_keeping_device().await;
    client
        .publish(
            dev_a().topic(Channel::Events),
            QoS::AtLeastOnce,
            false,
            "kept",
        )
        .await
        .unwrap();
    let pump = tokio::spawn(async move {
        let first = puback_or_failure(&mut events).await;
        (first, events)
    });
    // Ingest gives up on it (the store kept failing): the receipt goes
    // unanswered, and the broker closes the connection instead of acking.
    let first = next_delivery(&mut rx).await;
    drop(first.receipt);
    let (ack, mut events) = pump.await.unwrap();
    assert_eq!(ack, None, "no PUBACK for a message that was not stored");

    // The client reconnects and sends it again; ingest must see the same
    // message id, so that a copy stored meanwhile counts once.
    let pump = tokio::spawn(async move { puback_or_failure(&mut events).await });
    let again = next_delivery(&mut rx).await;
    assert_eq!(&again.message.payload[..], b"kept");
    assert_eq!(again.message.message_id, first.message.message_id);
    assert!(!again.message.packet.unwrap().maybe_resent);
    again.receipt.handled();
    assert!(pump.await.unwrap().is_some(), "acknowledged once handled");
    broker.shutdown().await;
}

#[tokio::test]
async fn a_stop_lets_a_publish_being_stored_finish_and_refuses_new_ones() {
    let (broker, mut rx, client, mut events) = start_with_a_keeping_device().await;
    client
        .publish(
            dev_a().topic(Channel::Telemetry),
            QoS::AtLeastOnce,
            false,
            "in-flight",
        )
        .await
        .unwrap();
    let pump = tokio::spawn(async move { puback_or_failure(&mut events).await });
    let mut other = Device::connect(&broker, DEV_B, Some(("user-b", "pass-b")), None)
        .await
        .unwrap();
    let delivery = next_delivery(&mut rx).await;
    let stop = tokio::spawn(broker.shutdown());
    // The stop waits for the message being stored, then acks it.
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        !stop.is_finished(),
        "the stop waits for the publish in flight"
    );
    // Meanwhile a new publish is held, then refused once the stop is done
    // with those being stored: no PUBACK, and ingest never sees it (the
    // device keeps it for the next run).
    let late = tokio::spawn(async move {
        other
            .publish(&dev_b().topic(Channel::Telemetry), "late")
            .await
    });
    delivery.receipt.handled();
    assert!(pump.await.unwrap().is_some(), "its PUBACK still went out");
    assert!(
        !late.await.unwrap(),
        "a publish during the stop is not acknowledged"
    );
    timeout(WAIT, stop).await.expect("the stop ends").unwrap();
    assert!(
        rx.try_recv().is_err(),
        "the refused publish never reached ingest"
    );
}

/// The hooks do not depend on the protocol version; MQTT 5 also reports the
/// refusals as reason codes.
#[tokio::test]
async fn mqtt5_devices_get_the_same_rules() {
    use rumqttc::v5::mqttbytes::QoS as QoS5;
    use rumqttc::v5::mqttbytes::v5::{
        ConnectReturnCode as Code5, LastWill as Will5, Packet as Packet5, PubAckReason,
        SubscribeReasonCode as Sub5,
    };
    use rumqttc::v5::{AsyncClient as Client5, ConnectionError as Error5, Event as Event5};

    let (broker, mut rx) = start().await;
    let connect = |user: &str, pass: &str, will: Option<Will5>| {
        let addr = broker.local_addr;
        let mut options = rumqttc::v5::MqttOptions::new("v5", addr.ip().to_string(), addr.port());
        options.set_credentials(user, pass);
        if let Some(will) = will {
            options.set_last_will(will);
        }
        let (client, mut eventloop) = Client5::new(options, 16);
        let (tx, events) = mpsc::unbounded_channel::<Result<Event5, Error5>>();
        let task = tokio::spawn(async move {
            loop {
                let event = eventloop.poll().await;
                let failed = event.is_err();
                if tx.send(event).is_err() || failed {
                    break;
                }
            }
        });
        (client, events, task)
    };
    async fn next_packet(
        events: &mut mpsc::UnboundedReceiver<Result<Event5, Error5>>,
    ) -> Result<Packet5, Error5> {
        loop {
            match timeout(WAIT, events.recv())
                .await
                .expect("in time")
                .expect("open")
            {
                Ok(Event5::Incoming(packet)) => return Ok(packet),
                Ok(Event5::Outgoing(_)) => continue,
                Err(e) => return Err(e),
            }
        }
    }

    let (_, mut events, _task) = connect("user-a", "wrong", None);
    assert!(matches!(
        next_packet(&mut events).await,
        Err(Error5::ConnectionRefused(Code5::BadUserNamePassword))
    ));
    let will = Will5::new(
        dev_b().topic(Channel::Availability),
        "offline",
        QoS5::AtLeastOnce,
        false,
        None,
    );
    let (_, mut events, _task) = connect("user-a", "pass-a", Some(will));
    assert!(matches!(
        next_packet(&mut events).await,
        Err(Error5::ConnectionRefused(Code5::NotAuthorized))
    ));

    let will = Will5::new(
        dev_a().topic(Channel::Availability),
        "offline",
        QoS5::AtLeastOnce,
        false,
        None,
    );
    let (client, mut events, task) = connect("user-a", "pass-a", Some(will));
    assert!(matches!(
        next_packet(&mut events).await,
        Ok(Packet5::ConnAck(_))
    ));

    let publish = |topic: String| {
        let client = client.clone();
        async move {
            client
                .publish_bytes(topic, QoS5::AtLeastOnce, false, Bytes::from_static(b"v5"))
                .await
                .unwrap()
        }
    };
    publish(dev_b().topic(Channel::Status)).await;
    match next_packet(&mut events).await {
        Ok(Packet5::PubAck(ack)) => assert_eq!(ack.reason, PubAckReason::NotAuthorized),
        other => panic!("{other:?}"),
    }
    publish(dev_a().topic(Channel::Telemetry)).await;
    match next_packet(&mut events).await {
        Ok(Packet5::PubAck(ack)) => assert_eq!(ack.reason, PubAckReason::Success),
        other => panic!("{other:?}"),
    }
    let got = next_inbound(&mut rx).await;
    assert_eq!((got.identity, got.channel), (dev_a(), Channel::Telemetry));

    for (filter, expected) in [
        ("alyt/#".to_owned(), Sub5::NotAuthorized),
        (dev_b().topic(Channel::Commands), Sub5::NotAuthorized),
        (
            dev_a().topic(Channel::Commands),
            Sub5::Success(QoS5::AtLeastOnce),
        ),
    ] {
        client.subscribe(&filter, QoS5::AtLeastOnce).await.unwrap();
        match next_packet(&mut events).await {
            Ok(Packet5::SubAck(ack)) => assert_eq!(ack.return_codes, [expected], "{filter}"),
            other => panic!("{other:?}"),
        }
    }
    broker.publish_to_device(&dev_b(), "for-b", true).await.ok();
    broker
        .publish_to_device(&dev_a(), "for-a", true)
        .await
        .unwrap();
    match next_packet(&mut events).await {
        Ok(Packet5::Publish(p)) => assert_eq!(&p.payload[..], b"for-a"),
        other => panic!("{other:?}"),
    }

    task.abort();
    let _ = task.await;
    let got = next_inbound(&mut rx).await;
    assert_eq!((got.channel, got.last_will), (Channel::Availability, true));
    broker.shutdown().await;
}

/// Hand-encoded MQTT 3.1.1 packets, for what a client library will not send.
mod raw {
    use super::*;

    fn remaining_length(mut n: usize, out: &mut Vec<u8>) {
        loop {
            let mut byte = (n % 128) as u8;
            n /= 128;
            if n > 0 {
                byte |= 0x80;
            }
            out.push(byte);
            if n == 0 {
                break;
            }
        }
    }

    fn string(s: &[u8], out: &mut Vec<u8>) {
        out.extend((s.len() as u16).to_be_bytes());
        out.extend(s);
    }

    fn packet(first: u8, body: Vec<u8>) -> Vec<u8> {
        let mut out = vec![first];
        remaining_length(body.len(), &mut out);
        out.extend(body);
        out
    }

    pub fn connect(
        client_id: &str,
        credentials: Option<(&str, &str)>,
        will: Option<(&str, &str)>,
    ) -> Vec<u8> {
        let mut flags = 0x02; // clean session
        if will.is_some() {
            flags |= 0x04 | 0x08; // will, QoS 1
        }
        if credentials.is_some() {
            flags |= 0x80 | 0x40;
        }
        let mut body = Vec::new();
        string(b"MQTT", &mut body);
        body.extend([0x04, flags, 0x00, 0x3c]);
        string(client_id.as_bytes(), &mut body);
        if let Some((topic, message)) = will {
            string(topic.as_bytes(), &mut body);
            string(message.as_bytes(), &mut body);
        }
        if let Some((user, pass)) = credentials {
            string(user.as_bytes(), &mut body);
            string(pass.as_bytes(), &mut body);
        }
        packet(0x10, body)
    }

    pub fn publish_qos0(topic: &str, payload: &[u8]) -> Vec<u8> {
        let mut body = Vec::new();
        string(topic.as_bytes(), &mut body);
        body.extend(payload);
        packet(0x30, body)
    }

    /// Everything the broker sends until it closes the connection.
    pub async fn read_until_closed(stream: &mut TcpStream) -> Vec<u8> {
        let mut all = Vec::new();
        timeout(WAIT, stream.read_to_end(&mut all))
            .await
            .expect("the broker closes the connection in time")
            .ok();
        all
    }
}
