//! The runner against the real embedded broker: virtual devices log in with
//! their derived passwords, and the test watches what the broker accepts
//! through its inbound queue (the same messages the platform's ingest
//! gets, last wills marked). Commands go in as the platform sends them,
//! through the broker's publisher.
//!
//! Timings are shortened through `RunnerConfig` (the defaults are covered by
//! the unit tests), so every wait here is a second or two.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use alyt_device::channels::{decode_response, decode_status, decode_telemetry};
use alyt_device::{
    Availability, Broker, BrokerConfig, Channel, CommandMessage, Delivery, DeviceAuthenticator,
    DeviceIdentity, InboundMessage, start_broker,
};
use alyt_domain::device::CommandId;
use alyt_domain::ids::{DeviceId, PropertyId, TenantId};
use alyt_domain::{Clock, SystemClock};
use alyt_simulator::{
    MessageBudget, Profile, RunnerConfig, Scenario, ScenarioSetting, Simulator, Timing, Unlimited,
    VirtualDeviceSpec, device_password,
};
use async_trait::async_trait;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::time::{Instant, timeout, timeout_at};

const KEY: &[u8] = b"simulator test key";
const WAIT: Duration = Duration::from_secs(5);

/// Device id -> (derived password, identity), as the platform registers them.
struct Registered(Mutex<HashMap<String, (String, DeviceIdentity)>>);

#[async_trait]
impl DeviceAuthenticator for Registered {
    async fn authenticate(
        &self,
        client_id: &str,
        username: &str,
        password: &[u8],
    ) -> Option<DeviceIdentity> {
        let devices = self.0.lock().unwrap();
        let (expected, identity) = devices.get(username)?;
        (client_id == username && expected.as_bytes() == password).then_some(*identity)
    }
}

fn fast_timing() -> Timing {
    Timing {
        heartbeat: Duration::from_millis(400),
        telemetry: Duration::from_millis(200),
        slow_delay: Duration::from_secs(1),
        flap_period: Duration::from_secs(1),
        ..Timing::default()
    }
}

fn config(port: u16) -> RunnerConfig {
    RunnerConfig {
        timing: fast_timing(),
        keep_alive: Duration::from_secs(1),
        flap_down: Duration::from_millis(200),
        budget_cache: Duration::from_millis(100),
        reconnect_min: Duration::from_millis(50),
        reconnect_max: Duration::from_millis(400),
        ..RunnerConfig::new("127.0.0.1", port)
    }
}

struct Harness {
    broker: Option<Broker>,
    sim: Simulator,
    registered: Arc<Registered>,
    rx: mpsc::Receiver<InboundMessage>,
    backlog: VecDeque<Seen>,
    tenant: TenantId,
    property: PropertyId,
}

/// What arrived, and when.
struct Seen {
    at: Instant,
    message: InboundMessage,
}

impl Harness {
    async fn start(budget: Arc<dyn MessageBudget>) -> Harness {
        let registered = Arc::new(Registered(Mutex::new(HashMap::new())));
        let (tx, rx) = mpsc::channel(4096);
        let broker = start_broker(
            BrokerConfig::new(SocketAddr::from(([127, 0, 0, 1], 0))),
            registered.clone(),
            tx,
        )
        .await
        .expect("broker starts");
        let sim = Simulator::new(config(broker.local_addr.port()), budget);
        Harness {
            broker: Some(broker),
            sim,
            registered,
            rx: handled_at_once(rx),
            backlog: VecDeque::new(),
            tenant: TenantId::new(),
            property: PropertyId::new(),
        }
    }

    fn broker(&self) -> &Broker {
        self.broker.as_ref().expect("broker running")
    }

    /// Registers a device with the broker's authenticator (as the platform
    /// does) and returns its spec.
    fn register(
        &self,
        profile: Profile,
        scenario: Scenario,
        seed: Option<u64>,
    ) -> VirtualDeviceSpec {
        let device_id = DeviceId::new();
        let spec = VirtualDeviceSpec {
            device_id,
            tenant_id: self.tenant,
            property_id: self.property,
            profile,
            password: device_password(KEY, device_id),
            scenario: ScenarioSetting::permanent(scenario),
            seed,
        };
        self.registered.0.lock().unwrap().insert(
            device_id.to_string(),
            (spec.password.clone(), spec.identity()),
        );
        spec
    }

    async fn run(&self, profile: Profile, scenario: Scenario) -> VirtualDeviceSpec {
        let spec = self.register(profile, scenario, Some(1));
        self.sim.upsert(spec.clone()).await;
        spec
    }

    async fn next(&mut self, deadline: Instant) -> Option<Seen> {
        let message = timeout_at(deadline, self.rx.recv()).await.ok()??;
        Some(Seen {
            at: Instant::now(),
            message,
        })
    }

    /// The first message (in arrival order) matching `what`; the others
    /// stay for later waits.
    async fn wait_for(&mut self, what: &str, matches: impl Fn(&InboundMessage) -> bool) -> Seen {
        if let Some(i) = self.backlog.iter().position(|s| matches(&s.message)) {
            return self.backlog.remove(i).unwrap();
        }
        let deadline = Instant::now() + WAIT;
        loop {
            let seen = self
                .next(deadline)
                .await
                .unwrap_or_else(|| panic!("timed out waiting for {what}"));
            if matches(&seen.message) {
                return seen;
            }
            self.backlog.push_back(seen);
        }
    }

    /// What was left waiting, then everything that arrives within `window`.
    async fn collect(&mut self, window: Duration) -> Vec<Seen> {
        let deadline = Instant::now() + window;
        let mut all: Vec<Seen> = self.backlog.drain(..).collect();
        while let Some(seen) = self.next(deadline).await {
            all.push(seen);
        }
        all
    }

    /// Publishes a command as the platform does, once the device listens.
    async fn send(&self, spec: &VirtualDeviceSpec, id: u64, command: &str, payload: Value) {
        let bytes = alyt_device::encode_command(&CommandMessage {
            command_id: CommandId::new(id).unwrap(),
            command: command.to_owned(),
            payload: payload.as_object().cloned(),
        })
        .unwrap();
        let deadline = Instant::now() + WAIT;
        while let Err(e) = self
            .broker()
            .publish_to_device(&spec.identity(), bytes.clone(), true)
            .await
        {
            assert!(Instant::now() < deadline, "device never subscribed: {e}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    async fn stop(mut self) {
        self.sim.shutdown().await;
        if let Some(broker) = self.broker.take() {
            broker.shutdown().await;
        }
    }
}

fn from(spec: &VirtualDeviceSpec, channel: Channel) -> impl Fn(&InboundMessage) -> bool {
    let identity = spec.identity();
    move |m| m.identity == identity && m.channel == channel
}

fn availability(message: &InboundMessage) -> Availability {
    alyt_device::channels::decode_availability(&message.payload).expect("availability")
}

fn state(message: &InboundMessage) -> BTreeMap<String, Value> {
    decode_status(&message.payload)
        .expect("a valid status")
        .state()
}

fn metrics(message: &InboundMessage) -> BTreeMap<String, f64> {
    decode_telemetry(&message.payload)
        .expect("valid telemetry")
        .metrics()
}

fn response(message: &InboundMessage) -> (u64, String, String) {
    let r = decode_response(&message.payload).expect("a valid response");
    (r.command_id.get(), r.command, r.status)
}

#[tokio::test]
async fn devices_log_in_announce_themselves_and_report() {
    let mut h = Harness::start(Arc::new(Unlimited)).await;
    let mut specs = Vec::new();
    for profile in Profile::ALL {
        specs.push(h.run(profile, Scenario::Normal).await);
    }
    for spec in &specs {
        let online = h
            .wait_for("availability", from(spec, Channel::Availability))
            .await
            .message;
        assert_eq!(availability(&online), Availability::Online);
        assert!(online.retained, "availability is retained");
        assert!(!online.last_will);

        let status = h.wait_for("status", from(spec, Channel::Status)).await;
        let state = state(&status.message);
        let expected: BTreeMap<String, Value> = spec
            .profile
            .initial_state()
            .into_iter()
            .flat_map(|(cap, controls)| {
                controls
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(key, v)| (format!("{cap}.{key}"), v.clone()))
                    .collect::<Vec<_>>()
            })
            .filter(|(key, _)| key != "hub.uptime")
            .collect();
        for (key, value) in expected {
            assert_eq!(state.get(&key), Some(&value), "{} {key}", spec.profile);
        }

        let telemetry = h
            .wait_for("telemetry", from(spec, Channel::Telemetry))
            .await;
        let names: Vec<String> = metrics(&telemetry.message).into_keys().collect();
        let mut expected: Vec<&str> = spec.profile.metrics().to_vec();
        expected.sort_unstable();
        assert_eq!(names, expected, "{}", spec.profile);
    }
    // The heartbeat goes on.
    let light = &specs[2];
    h.wait_for("a second status", from(light, Channel::Status))
        .await;
    let snapshot = h.sim.snapshot(light.device_id).await.unwrap();
    assert!(snapshot.connected && snapshot.connects == 1, "{snapshot:?}");
    h.stop().await;
}

#[tokio::test]
async fn commands_change_the_state_and_get_one_answer_each() {
    let mut h = Harness::start(Arc::new(Unlimited)).await;
    let light = h.run(Profile::Light, Scenario::Normal).await;
    let hub = h.run(Profile::Hub, Scenario::Normal).await;
    h.wait_for("light online", from(&light, Channel::Status))
        .await;
    h.wait_for("hub online", from(&hub, Channel::Status)).await;

    h.send(
        &light,
        1,
        "set",
        json!({ "capability": "light", "key": "brightness", "value": 40 }),
    )
    .await;
    let status = h
        .wait_for("the new brightness", |m| {
            from(&light, Channel::Status)(m) && state(m)["light.brightness"] == json!(40)
        })
        .await;
    let answer = h
        .wait_for("the answer", from(&light, Channel::Response))
        .await;
    assert!(answer.at >= status.at, "the status comes before the answer");
    assert_eq!(response(&answer.message), (1, "set".into(), "ok".into()));

    h.send(&light, 2, "dance", json!({})).await;
    let answer = h
        .wait_for("the answer", from(&light, Channel::Response))
        .await;
    assert_eq!(
        response(&answer.message),
        (2, "dance".into(), "rejected".into())
    );

    h.send(
        &light,
        3,
        "set",
        json!({ "capability": "light", "key": "brightness", "value": 400 }),
    )
    .await;
    let answer = h
        .wait_for("the answer", from(&light, Channel::Response))
        .await;
    assert_eq!(
        response(&answer.message),
        (3, "set".into(), "rejected".into())
    );

    h.send(
        &hub,
        4,
        "set",
        json!({ "capability": "voice", "key": "listening", "value": false }),
    )
    .await;
    let status = h
        .wait_for("the hub's listening", |m| {
            from(&hub, Channel::Status)(m) && state(m)["voice.listening"] == json!(false)
        })
        .await;
    // The room stopped listening: the hub mutes its mic and says so.
    assert_eq!(state(&status.message)["voice.micMuted"], json!(true));
    let answer = h
        .wait_for("the answer", from(&hub, Channel::Response))
        .await;
    assert_eq!(response(&answer.message), (4, "set".into(), "ok".into()));

    // The rejected brightness changed nothing: the next heartbeat still says 40.
    let status = h
        .wait_for("a heartbeat", from(&light, Channel::Status))
        .await;
    assert_eq!(state(&status.message)["light.brightness"], json!(40));
    h.stop().await;
}

#[tokio::test]
async fn slow_answers_after_the_delay() {
    let mut h = Harness::start(Arc::new(Unlimited)).await;
    let light = h.run(Profile::Light, Scenario::Slow).await;
    h.wait_for("online", from(&light, Channel::Status)).await;
    let sent = Instant::now();
    h.send(
        &light,
        7,
        "set",
        json!({ "capability": "light", "key": "power", "value": true }),
    )
    .await;
    let answer = h
        .wait_for("the answer", from(&light, Channel::Response))
        .await;
    assert_eq!(response(&answer.message), (7, "set".into(), "ok".into()));
    let delay = fast_timing().slow_delay;
    assert!(
        answer.at - sent >= delay,
        "answered after {:?}",
        answer.at - sent
    );
    h.stop().await;
}

#[tokio::test]
async fn flapping_fires_the_last_will_and_comes_back() {
    let mut h = Harness::start(Arc::new(Unlimited)).await;
    let light = h.run(Profile::Light, Scenario::Flapping).await;
    let first = h
        .wait_for("online", from(&light, Channel::Availability))
        .await;
    assert_eq!(availability(&first.message), Availability::Online);
    let will = h
        .wait_for("the last will", |m| {
            from(&light, Channel::Availability)(m) && m.last_will
        })
        .await;
    assert_eq!(availability(&will.message), Availability::Offline);
    assert!(will.message.retained, "the will is retained");
    let flap = fast_timing().flap_period;
    // Connected for about a flap period (the connect itself takes a moment).
    assert!(will.at - first.at >= flap - Duration::from_millis(100));
    let back = h
        .wait_for("back online", from(&light, Channel::Availability))
        .await;
    assert_eq!(availability(&back.message), Availability::Online);
    h.wait_for("the second last will", |m| {
        from(&light, Channel::Availability)(m) && m.last_will
    })
    .await;
    assert!(h.sim.snapshot(light.device_id).await.unwrap().connects >= 2);
    h.stop().await;
}

#[tokio::test]
async fn offline_is_silent_with_the_socket_open() {
    let mut h = Harness::start(Arc::new(Unlimited)).await;
    let light = h.run(Profile::Light, Scenario::Normal).await;
    h.wait_for("online", from(&light, Channel::Status)).await;
    h.sim
        .set_scenario(
            light.device_id,
            ScenarioSetting::permanent(Scenario::Offline),
        )
        .await
        .unwrap();
    // Whatever was already on its way arrives within a moment.
    h.collect(Duration::from_millis(300)).await;
    let pings = h.sim.snapshot(light.device_id).await.unwrap().pings;

    h.send(
        &light,
        1,
        "set",
        json!({ "capability": "light", "key": "power", "value": true }),
    )
    .await; // accepted by the broker: the session is still subscribed
    let heard = h.collect(Duration::from_millis(2_500)).await;
    assert!(
        heard.iter().all(|s| s.message.identity != light.identity()),
        "an OFFLINE device published: {:?}",
        heard.iter().map(|s| &s.message.topic).collect::<Vec<_>>()
    );
    let snapshot = h.sim.snapshot(light.device_id).await.unwrap();
    assert!(snapshot.connected && snapshot.connects == 1, "{snapshot:?}");
    assert!(
        snapshot.pings >= pings + 2,
        "keepalive pings go on: {snapshot:?}"
    );

    // Back to NORMAL: online again, and the command sent meanwhile was not heard.
    h.sim
        .set_scenario(
            light.device_id,
            ScenarioSetting::permanent(Scenario::Normal),
        )
        .await
        .unwrap();
    let online = h
        .wait_for("online", from(&light, Channel::Availability))
        .await;
    assert_eq!(availability(&online.message), Availability::Online);
    let status = h.wait_for("status", from(&light, Channel::Status)).await;
    assert_eq!(state(&status.message)["light.power"], json!(false));
    h.stop().await;
}

#[tokio::test]
async fn a_timed_scenario_reverts_by_itself() {
    let mut h = Harness::start(Arc::new(Unlimited)).await;
    let sensor = h.run(Profile::Sensor, Scenario::Normal).await;
    h.wait_for("online", from(&sensor, Channel::Status)).await;
    let now = SystemClock.now();
    h.sim
        .set_scenario(
            sensor.device_id,
            ScenarioSetting::for_seconds(Scenario::LowBattery, 1, now),
        )
        .await
        .unwrap();
    let low = h
        .wait_for("low battery", |m| {
            from(&sensor, Channel::Status)(m) && state(m)["battery.level"] == json!(8)
        })
        .await;
    let restored = h
        .wait_for("the battery again", |m| {
            from(&sensor, Channel::Status)(m) && state(m)["battery.level"] != json!(8)
        })
        .await;
    assert!(restored.at - low.at >= Duration::from_millis(800));
    assert_eq!(
        h.sim.snapshot(sensor.device_id).await.unwrap().scenario,
        Scenario::Normal
    );
    h.stop().await;
}

/// Counts what the tenant's devices published; spent at `limit`.
struct Budget {
    limit: u64,
    counted: AtomicU64,
    spent_at: Mutex<Option<Instant>>,
}

#[async_trait]
impl MessageBudget for Budget {
    async fn spent(&self, _tenant: TenantId, published: u64) -> bool {
        let total = self.counted.fetch_add(published, Ordering::SeqCst) + published;
        let spent = total >= self.limit;
        if spent {
            self.spent_at
                .lock()
                .unwrap()
                .get_or_insert_with(Instant::now);
        }
        spent
    }
}

#[tokio::test]
async fn burst_sends_twenty_a_second_until_the_budget_is_spent() {
    let budget = Arc::new(Budget {
        limit: 60,
        counted: AtomicU64::new(0),
        spent_at: Mutex::new(None),
    });
    let mut h = Harness::start(budget.clone()).await;
    let light = h.run(Profile::Light, Scenario::Burst).await;
    let first = h
        .wait_for("telemetry", from(&light, Channel::Telemetry))
        .await;
    let second = h.collect(Duration::from_secs(1)).await;
    let in_a_second = second
        .iter()
        .filter(|s| {
            from(&light, Channel::Telemetry)(&s.message) && s.at - first.at < Duration::from_secs(1)
        })
        .count();
    assert!(
        (14..=26).contains(&in_a_second),
        "{in_a_second} telemetry messages in a second"
    );

    // Spent after 60 messages (about three seconds): then silence.
    let deadline = Instant::now() + WAIT;
    let spent_at = loop {
        if let Some(at) = *budget.spent_at.lock().unwrap() {
            break at;
        }
        assert!(Instant::now() < deadline, "the budget was never spent");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    tokio::time::sleep_until(spent_at + Duration::from_millis(300)).await;
    h.collect(Duration::from_millis(100)).await;
    let after = h.collect(Duration::from_millis(1_500)).await;
    assert!(
        after.iter().all(|s| s.message.identity != light.identity()),
        "{} messages after the budget was spent",
        after.len()
    );
    let snapshot = h.sim.snapshot(light.device_id).await.unwrap();
    assert!(snapshot.silenced && snapshot.connected, "{snapshot:?}");
    // The budget heard about (nearly) every message the broker took.
    assert!(budget.counted.load(Ordering::SeqCst) >= 60);
    h.stop().await;
}

#[tokio::test]
async fn a_seed_gives_the_same_telemetry_twice() {
    let mut h = Harness::start(Arc::new(Unlimited)).await;
    let spec = h.register(Profile::Sensor, Scenario::Normal, Some(42));
    let mut runs = Vec::new();
    for _ in 0..2 {
        h.sim.upsert(spec.clone()).await;
        let mut values = Vec::new();
        while values.len() < 4 {
            let seen = h
                .wait_for("telemetry", from(&spec, Channel::Telemetry))
                .await;
            values.push(metrics(&seen.message));
        }
        assert!(h.sim.remove(spec.device_id).await);
        h.collect(Duration::from_millis(100)).await;
        runs.push(values);
    }
    assert_eq!(runs[0], runs[1]);

    let other = h.register(Profile::Sensor, Scenario::Normal, Some(43));
    h.sim.upsert(other.clone()).await;
    let mut values = Vec::new();
    while values.len() < 4 {
        let seen = h
            .wait_for("telemetry", from(&other, Channel::Telemetry))
            .await;
        values.push(metrics(&seen.message));
    }
    assert_ne!(values, runs[0]);
    h.stop().await;
}

#[tokio::test]
async fn removing_a_device_disconnects_it_cleanly() {
    let mut h = Harness::start(Arc::new(Unlimited)).await;
    let light = h.run(Profile::Light, Scenario::Normal).await;
    h.wait_for("online", from(&light, Channel::Status)).await;
    assert!(h.sim.remove(light.device_id).await);
    assert!(!h.sim.remove(light.device_id).await);
    assert!(h.sim.snapshot(light.device_id).await.is_none());
    let after = h.collect(Duration::from_millis(800)).await;
    assert!(
        after.iter().all(|s| !s.message.last_will),
        "a clean DISCONNECT fires no last will"
    );
    // Its session is gone: a command finds nobody.
    let bytes = alyt_device::encode_command(&CommandMessage {
        command_id: CommandId::new(1).unwrap(),
        command: "set".into(),
        payload: None,
    })
    .unwrap();
    assert!(
        h.broker()
            .publish_to_device(&light.identity(), bytes, true)
            .await
            .is_err()
    );
    h.stop().await;
}

#[tokio::test]
async fn devices_wait_for_a_broker_that_starts_later() {
    // A port with nobody listening yet.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let registered = Arc::new(Registered(Mutex::new(HashMap::new())));
    let sim = Simulator::new(config(port), Arc::new(Unlimited));
    let device_id = DeviceId::new();
    let spec = VirtualDeviceSpec {
        device_id,
        tenant_id: TenantId::new(),
        property_id: PropertyId::new(),
        profile: Profile::Thermostat,
        password: device_password(KEY, device_id),
        scenario: ScenarioSetting::default(),
        seed: None,
    };
    registered.0.lock().unwrap().insert(
        device_id.to_string(),
        (spec.password.clone(), spec.identity()),
    );
    sim.upsert(spec.clone()).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!sim.snapshot(device_id).await.unwrap().connected);

    let (tx, rx) = mpsc::channel(256);
    let broker = start_broker(
        BrokerConfig::new(SocketAddr::from(([127, 0, 0, 1], port))),
        registered,
        tx,
    )
    .await
    .expect("broker starts on the port");
    let mut rx = handled_at_once(rx);
    let online = timeout(WAIT, async {
        loop {
            let m = rx.recv().await.expect("inbound open");
            if m.identity == spec.identity() && m.channel == Channel::Availability {
                return m;
            }
        }
    })
    .await
    .expect("the device connects once the broker is up");
    assert_eq!(availability(&online), Availability::Online);
    sim.shutdown().await;
    broker.shutdown().await;
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
