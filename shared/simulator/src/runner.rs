//! The runner: every virtual device as a real MQTT client of the broker.
//!
//! One tokio task per device owns a rumqttc client (client id = username =
//! device id, the caller's password) with a retained `offline` last will on
//! its availability topic. On each connect it subscribes to its commands
//! topic and publishes retained `online` and a status report; then the
//! [`VirtualDevice`] decides what goes out and when. rumqttc's event loop
//! runs in a task of its own, so dropping the connection without DISCONNECT
//! (FLAPPING) is aborting that task, exactly what a device losing power
//! does, and keepalive pings go on however quiet the device is (OFFLINE).
//!
//! A broker that cannot be reached (the platform may start after the
//! runner) is retried with exponential backoff and jitter. Before each
//! publish the task asks the [`MessageBudget`] (at most once per
//! `budget_cache`) whether the tenant's MQTT_MESSAGES quota is spent; while
//! it is, the device publishes nothing and keeps its socket.
//!
//! [`Simulator`] is the handle the platform keeps: add or replace a device,
//! set a scenario, remove a device (clean DISCONNECT), shut down.
//! Passwords are never logged ([`VirtualDeviceSpec`]'s Debug hides it).

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use alyt_device::{Channel, ChannelMessage, DeviceIdentity, encode};
use alyt_domain::ids::{DeviceId, PropertyId, TenantId};
use alyt_domain::{Clock, SystemClock};
use async_trait::async_trait;
use rumqttc::{
    AsyncClient, ConnectionError, Event, LastWill, MqttOptions, Outgoing, Packet, QoS,
    SubscribeReasonCode,
};
use tokio::sync::{Mutex, mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tracing::Instrument;

use crate::device::{Output, Timing, VirtualDevice};
use crate::profile::Profile;
use crate::scenario::{Scenario, ScenarioSetting};

/// The tenant's MQTT_MESSAGES quota, implemented by the platform.
#[async_trait]
pub trait MessageBudget: Send + Sync + 'static {
    /// Counts `published` messages that one of the tenant's virtual devices
    /// sent since its previous call, and answers whether the tenant's
    /// budget is spent. Called at most once per
    /// [`RunnerConfig::budget_cache`] per device, and only when the device
    /// has something to publish. An implementation that cannot tell (store
    /// down) should answer `false` rather than silence every sandbox.
    async fn spent(&self, tenant: TenantId, published: u64) -> bool;
}

/// A budget that is never spent (tests, demos).
#[derive(Debug, Clone, Copy, Default)]
pub struct Unlimited;

#[async_trait]
impl MessageBudget for Unlimited {
    async fn spent(&self, _: TenantId, _: u64) -> bool {
        false
    }
}

/// Where the broker is and how the devices behave.
#[derive(Clone)]
pub struct RunnerConfig {
    pub broker_host: String,
    pub broker_port: u16,
    /// Report periods and scenario timings.
    pub timing: Timing,
    /// MQTT keepalive. Pings go on in every scenario.
    pub keep_alive: Duration,
    /// How long a FLAPPING device stays away before it reconnects.
    pub flap_down: Duration,
    /// How long an answer of the [`MessageBudget`] is trusted.
    pub budget_cache: Duration,
    /// First and longest wait between connection attempts.
    pub reconnect_min: Duration,
    pub reconnect_max: Duration,
    /// Time for scenario ends (`until`) and uptime. It must move with real
    /// time: the tasks sleep on tokio's timer until the next thing is due.
    pub clock: Arc<dyn Clock>,
    /// Appended to every device's MQTT username (never to its client id):
    /// IoT Core picks a custom authorizer by
    /// `?x-amz-customauthorizer-name=<name>`. Empty: the username is the
    /// device id, as the embedded broker expects.
    pub username_suffix: String,
    /// TLS to the broker (feature `tls`); `None` is plain TCP.
    #[cfg(feature = "tls")]
    pub tls: Option<BrokerTls>,
}

impl RunnerConfig {
    pub fn new(broker_host: impl Into<String>, broker_port: u16) -> Self {
        Self {
            broker_host: broker_host.into(),
            broker_port,
            timing: Timing::default(),
            keep_alive: Duration::from_secs(30),
            flap_down: Duration::from_secs(1),
            budget_cache: Duration::from_secs(1),
            reconnect_min: Duration::from_millis(250),
            reconnect_max: Duration::from_secs(30),
            clock: Arc::new(SystemClock),
            username_suffix: String::new(),
            #[cfg(feature = "tls")]
            tls: None,
        }
    }

    /// IoT Core through a custom authorizer: `endpoint` (the account's
    /// `iot:Data-ATS` host) on port 443 with TLS (the platform's root
    /// certificates) and ALPN `mqtt`, every username suffixed with the
    /// authorizer's name.
    ///
    /// Not exercised by any test here (there is no IoT Core to reach); the
    /// runner tests cover the plain-TCP path with the embedded broker.
    #[cfg(feature = "tls")]
    pub fn iot_core(endpoint: impl Into<String>, authorizer: &str) -> Result<Self, String> {
        let mut config = Self::new(endpoint, 443);
        config.username_suffix = format!("?x-amz-customauthorizer-name={authorizer}");
        config.tls = Some(BrokerTls::platform_roots(&[b"mqtt"])?);
        Ok(config)
    }
}

/// A TLS client configuration for the broker connections (feature `tls`):
/// rustls with the ring provider, trusting the platform's root
/// certificates (`SSL_CERT_FILE`/`SSL_CERT_DIR` or the system store).
#[cfg(feature = "tls")]
#[derive(Clone)]
pub struct BrokerTls(Arc<rustls::ClientConfig>);

#[cfg(feature = "tls")]
impl BrokerTls {
    /// Loads the platform's root certificates once; every connection
    /// shares the result. `alpn` is offered in the handshake (IoT Core on
    /// port 443 needs `mqtt`). An error when no root certificate loads.
    pub fn platform_roots(alpn: &[&[u8]]) -> Result<Self, String> {
        let found = rustls_native_certs::load_native_certs();
        let mut roots = rustls::RootCertStore::empty();
        let (added, _ignored) = roots.add_parsable_certificates(found.certs);
        if added == 0 {
            return Err(format!(
                "no root certificate could be loaded from the platform ({} errors)",
                found.errors.len()
            ));
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_root_certificates(roots)
            .with_no_client_auth();
        config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
        Ok(Self(Arc::new(config)))
    }
}

impl fmt::Debug for RunnerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunnerConfig")
            .field("broker_host", &self.broker_host)
            .field("broker_port", &self.broker_port)
            .field("timing", &self.timing)
            .field("keep_alive", &self.keep_alive)
            .field("flap_down", &self.flap_down)
            .field("budget_cache", &self.budget_cache)
            .field("username_suffix", &self.username_suffix)
            .finish_non_exhaustive()
    }
}

/// One virtual device to run, as the platform registered it.
#[derive(Clone)]
pub struct VirtualDeviceSpec {
    pub device_id: DeviceId,
    pub tenant_id: TenantId,
    pub property_id: PropertyId,
    pub profile: Profile,
    /// The broker password (see [`crate::device_password`]).
    pub password: String,
    /// The stored scenario; a passed `until` means NORMAL.
    pub scenario: ScenarioSetting,
    /// Fixes the telemetry values; `None` draws a random seed.
    pub seed: Option<u64>,
}

impl VirtualDeviceSpec {
    /// The spec of a stored virtual device, its broker password derived from
    /// `simulator_key`; `None` for a profile this build does not know.
    pub fn of_record(
        record: &alyt_store::repo::simulator::VirtualDeviceRecord,
        simulator_key: &[u8],
    ) -> Option<Self> {
        let (profile, scenario) = crate::runner_setting(record)?;
        Some(Self {
            device_id: record.device_id,
            tenant_id: record.tenant_id,
            property_id: record.property_id,
            profile,
            password: crate::device_password(simulator_key, record.device_id),
            scenario,
            seed: Some(record.seed()),
        })
    }
}

impl fmt::Debug for VirtualDeviceSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VirtualDeviceSpec")
            .field("device_id", &self.device_id)
            .field("tenant_id", &self.tenant_id)
            .field("property_id", &self.property_id)
            .field("profile", &self.profile)
            .field("password", &"<hidden>")
            .field("scenario", &self.scenario)
            .field("seed", &self.seed)
            .finish()
    }
}

impl VirtualDeviceSpec {
    /// Its topics' owner.
    pub fn identity(&self) -> DeviceIdentity {
        DeviceIdentity::new(self.tenant_id, self.property_id, self.device_id)
    }
}

/// What a running device is doing, for listings and tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceSnapshot {
    pub device_id: DeviceId,
    pub tenant_id: TenantId,
    pub profile: Profile,
    /// The scenario as set, and the one in effect now.
    pub setting: ScenarioSetting,
    pub scenario: Scenario,
    /// A broker session is up.
    pub connected: bool,
    /// The tenant's message budget is spent: the device publishes nothing.
    pub silenced: bool,
    /// Connections made (a FLAPPING device counts each return).
    pub connects: u64,
    /// Messages handed to the client.
    pub published: u64,
    /// Messages dropped because the client's queue was full.
    pub dropped: u64,
    /// Keepalive answers from the broker.
    pub pings: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimulatorError {
    #[error("no virtual device {0} is running")]
    UnknownDevice(DeviceId),
}

enum Control {
    SetScenario(ScenarioSetting, oneshot::Sender<()>),
    Stop,
}

struct Running {
    control: mpsc::UnboundedSender<Control>,
    snapshot: watch::Receiver<DeviceSnapshot>,
    task: JoinHandle<()>,
}

impl Running {
    /// Asks the task for a clean DISCONNECT and waits for it to end.
    async fn stop(mut self) {
        let _ = self.control.send(Control::Stop);
        if tokio::time::timeout(STOP_WAIT, &mut self.task)
            .await
            .is_err()
        {
            self.task.abort();
        }
    }
}

/// How long a device gets to disconnect cleanly.
const STOP_WAIT: Duration = Duration::from_secs(5);
/// Requests a client may queue; past it a message is dropped (counted).
const CLIENT_QUEUE: usize = 256;

/// The fleet of virtual devices. Cheap to clone; every clone controls the
/// same devices. Dropping the last clone stops them all (cleanly).
#[derive(Clone)]
pub struct Simulator {
    inner: Arc<Inner>,
}

struct Inner {
    config: RunnerConfig,
    budget: Arc<dyn MessageBudget>,
    devices: Mutex<HashMap<DeviceId, Running>>,
}

impl Simulator {
    /// A fleet with no devices yet. Needs a tokio runtime.
    pub fn new(config: RunnerConfig, budget: Arc<dyn MessageBudget>) -> Self {
        Self {
            inner: Arc::new(Inner {
                config,
                budget,
                devices: Mutex::new(HashMap::new()),
            }),
        }
    }

    pub fn config(&self) -> &RunnerConfig {
        &self.inner.config
    }

    /// Starts a device, or replaces the one with the same id (which first
    /// disconnects cleanly). Returns at once: the device connects, retrying
    /// until the broker answers.
    pub async fn upsert(&self, spec: VirtualDeviceSpec) {
        let mut devices = self.inner.devices.lock().await;
        if let Some(old) = devices.remove(&spec.device_id) {
            old.stop().await;
        }
        let id = spec.device_id;
        devices.insert(id, spawn_device(&self.inner, spec));
    }

    /// Sets a device's scenario; returns once the device applied it (and
    /// published what the change causes).
    pub async fn set_scenario(
        &self,
        device: DeviceId,
        setting: ScenarioSetting,
    ) -> Result<(), SimulatorError> {
        let (ack, applied) = oneshot::channel();
        {
            let devices = self.inner.devices.lock().await;
            let running = devices
                .get(&device)
                .ok_or(SimulatorError::UnknownDevice(device))?;
            running
                .control
                .send(Control::SetScenario(setting, ack))
                .map_err(|_| SimulatorError::UnknownDevice(device))?;
        }
        applied
            .await
            .map_err(|_| SimulatorError::UnknownDevice(device))
    }

    /// Stops a device with a clean DISCONNECT (no last will). False when it
    /// was not running.
    pub async fn remove(&self, device: DeviceId) -> bool {
        let running = self.inner.devices.lock().await.remove(&device);
        match running {
            Some(running) => {
                running.stop().await;
                true
            }
            None => false,
        }
    }

    /// Stops every device cleanly.
    pub async fn shutdown(&self) {
        let all: Vec<Running> = self
            .inner
            .devices
            .lock()
            .await
            .drain()
            .map(|(_, r)| r)
            .collect();
        // Ask all first so they disconnect in parallel.
        for running in &all {
            let _ = running.control.send(Control::Stop);
        }
        for running in all {
            running.stop().await;
        }
    }

    pub async fn snapshot(&self, device: DeviceId) -> Option<DeviceSnapshot> {
        let devices = self.inner.devices.lock().await;
        devices.get(&device).map(|r| r.snapshot.borrow().clone())
    }

    /// Every running device, in no particular order.
    pub async fn snapshots(&self) -> Vec<DeviceSnapshot> {
        let devices = self.inner.devices.lock().await;
        devices
            .values()
            .map(|r| r.snapshot.borrow().clone())
            .collect()
    }
}

fn spawn_device(inner: &Inner, spec: VirtualDeviceSpec) -> Running {
    let (control, control_rx) = mpsc::unbounded_channel();
    let now = inner.config.clock.now();
    let device = VirtualDevice::new(
        spec.profile,
        spec.scenario,
        spec.seed.unwrap_or_else(rand::random),
        inner.config.timing,
        now,
    );
    let (snapshot_tx, snapshot) = watch::channel(DeviceSnapshot {
        device_id: spec.device_id,
        tenant_id: spec.tenant_id,
        profile: spec.profile,
        setting: spec.scenario,
        scenario: device.scenario(),
        connected: false,
        silenced: false,
        connects: 0,
        published: 0,
        dropped: 0,
        pings: 0,
    });
    let span =
        tracing::info_span!("virtual_device", device = %spec.device_id, profile = %spec.profile);
    let task = DeviceTask {
        identity: spec.identity(),
        spec,
        config: inner.config.clone(),
        budget: inner.budget.clone(),
        device,
        control: control_rx,
        snapshot: snapshot_tx,
        gate: Gate::default(),
    };
    let task = tokio::spawn(task.run().instrument(span));
    Running {
        control,
        snapshot,
        task,
    }
}

/// The cached answer of the budget and what was published since asking.
#[derive(Default)]
struct Gate {
    answer: Option<(Instant, bool)>,
    unreported: u64,
}

/// How a connected session ended.
enum SessionEnd {
    /// Asked to stop (or the handle is gone): DISCONNECT cleanly.
    Stop,
    /// The connection failed.
    Lost(ConnectionError),
    /// FLAPPING: drop the socket, come back after `flap_down`.
    Flap,
}

struct DeviceTask {
    spec: VirtualDeviceSpec,
    identity: DeviceIdentity,
    config: RunnerConfig,
    budget: Arc<dyn MessageBudget>,
    device: VirtualDevice,
    control: mpsc::UnboundedReceiver<Control>,
    snapshot: watch::Sender<DeviceSnapshot>,
    gate: Gate,
}

impl DeviceTask {
    async fn run(mut self) {
        let mut backoff = self.config.reconnect_min;
        loop {
            let mut link = Link::open(&self.spec, &self.identity, &self.config);
            let wait = match self.await_connack(&mut link).await {
                Ok(true) => {
                    backoff = self.config.reconnect_min;
                    let end = self.session(&mut link).await;
                    self.device.disconnected();
                    self.update(|s| s.connected = false);
                    match end {
                        SessionEnd::Stop => {
                            link.disconnect().await;
                            tracing::info!("virtual device disconnected");
                            return;
                        }
                        SessionEnd::Flap => {
                            link.drop_connection().await;
                            tracing::info!("flapping: connection dropped");
                            self.config.flap_down
                        }
                        SessionEnd::Lost(e) => {
                            link.drop_connection().await;
                            tracing::warn!(error = %e, "connection lost; reconnecting");
                            jittered(backoff)
                        }
                    }
                }
                Ok(false) => {
                    link.drop_connection().await;
                    let wait = jittered(backoff);
                    backoff = (backoff * 2).min(self.config.reconnect_max);
                    wait
                }
                Err(Stopped) => {
                    link.drop_connection().await;
                    return;
                }
            };
            if self.pause(wait).await.is_err() {
                return;
            }
        }
    }

    /// Waits for the broker's CONNACK. `Ok(false)`: the attempt failed.
    async fn await_connack(&mut self, link: &mut Link) -> Result<bool, Stopped> {
        loop {
            tokio::select! {
                event = link.events.recv() => match event {
                    Some(Ok(Event::Incoming(Packet::ConnAck(_)))) => return Ok(true),
                    Some(Ok(_)) => {}
                    Some(Err(e)) => {
                        tracing::warn!(error = %e, "cannot connect to the broker; retrying");
                        return Ok(false);
                    }
                    None => return Ok(false),
                },
                control = self.control.recv() => self.control_offline(control)?,
            }
        }
    }

    /// Sleeps while disconnected, still taking scenario changes.
    async fn pause(&mut self, wait: Duration) -> Result<(), Stopped> {
        let until = Instant::now() + wait;
        loop {
            tokio::select! {
                () = tokio::time::sleep_until(until) => return Ok(()),
                control = self.control.recv() => self.control_offline(control)?,
            }
        }
    }

    fn control_offline(&mut self, control: Option<Control>) -> Result<(), Stopped> {
        match control {
            Some(Control::SetScenario(setting, ack)) => {
                let now = self.config.clock.now();
                // Nothing to publish while disconnected; the next connect
                // reports the state.
                let _ = self.device.set_scenario(setting, now);
                self.scenario_changed(setting);
                let _ = ack.send(());
                Ok(())
            }
            Some(Control::Stop) | None => Err(Stopped),
        }
    }

    fn scenario_changed(&mut self, setting: ScenarioSetting) {
        tracing::info!(scenario = %setting.scenario, until = ?setting.until, "scenario set");
        let scenario = self.device.scenario();
        self.update(|s| {
            s.setting = setting;
            s.scenario = scenario;
        });
    }

    async fn session(&mut self, link: &mut Link) -> SessionEnd {
        let commands = self.identity.topic(Channel::Commands);
        let now = self.config.clock.now();
        tracing::info!("virtual device connected");
        self.update(|s| {
            s.connected = true;
            s.connects += 1;
        });
        // Subscribe first, so a command sent once the platform sees the
        // device online finds the subscription.
        if let Err(e) = link.client.try_subscribe(&commands, QoS::AtLeastOnce) {
            tracing::warn!(error = %e, "cannot subscribe to commands");
            return SessionEnd::Lost(ConnectionError::RequestsDone);
        }
        let out = self.device.connected(now);
        if let Some(end) = self.publish(&link.client, out).await {
            return end;
        }
        loop {
            let sleep = self.until_next_wake();
            tokio::select! {
                event = link.events.recv() => {
                    let out = match event {
                        Some(Ok(Event::Incoming(Packet::Publish(message)))) if message.topic == commands => {
                            let now = self.config.clock.now();
                            tracing::debug!(bytes = message.payload.len(), "command received");
                            self.device.command_bytes(now, &message.payload)
                        }
                        Some(Ok(Event::Incoming(Packet::PingResp))) => {
                            self.update(|s| s.pings += 1);
                            continue;
                        }
                        Some(Ok(Event::Incoming(Packet::SubAck(ack)))) => {
                            if ack.return_codes.iter().any(|c| matches!(c, SubscribeReasonCode::Failure)) {
                                tracing::warn!(topic = %commands, "the broker refused the commands subscription");
                            }
                            continue;
                        }
                        Some(Ok(_)) => continue,
                        Some(Err(e)) => return SessionEnd::Lost(e),
                        None => return SessionEnd::Lost(ConnectionError::RequestsDone),
                    };
                    if let Some(end) = self.publish(&link.client, out).await {
                        return end;
                    }
                }
                control = self.control.recv() => match control {
                    Some(Control::SetScenario(setting, ack)) => {
                        let now = self.config.clock.now();
                        let out = self.device.set_scenario(setting, now);
                        self.scenario_changed(setting);
                        let end = self.publish(&link.client, out).await;
                        let _ = ack.send(());
                        if let Some(end) = end {
                            return end;
                        }
                    }
                    Some(Control::Stop) | None => return SessionEnd::Stop,
                },
                () = tokio::time::sleep(sleep) => {
                    let now = self.config.clock.now();
                    let out = self.device.tick(now);
                    if let Some(end) = self.publish(&link.client, out).await {
                        return end;
                    }
                }
            }
        }
    }

    fn until_next_wake(&self) -> Duration {
        match self.device.next_wake() {
            Some(at) => (at - self.config.clock.now())
                .try_into()
                .unwrap_or(Duration::ZERO),
            // Nothing scheduled: wake now and then anyway (cheap).
            None => Duration::from_secs(60),
        }
    }

    /// Hands the outputs to the client, each after asking the budget.
    async fn publish(&mut self, client: &AsyncClient, out: Vec<Output>) -> Option<SessionEnd> {
        // Any event may have noticed a scenario's end.
        let scenario = self.device.scenario();
        self.update(|s| s.scenario = scenario);
        for output in out {
            let (message, retain, qos) = match output {
                Output::DropConnection => return Some(SessionEnd::Flap),
                Output::Availability(a) => {
                    (ChannelMessage::Availability(a), true, QoS::AtLeastOnce)
                }
                Output::Status(s) => (ChannelMessage::Status(s), false, QoS::AtLeastOnce),
                // A lost telemetry point is one gap in a time series; QoS 0
                // keeps BURST cheap.
                Output::Telemetry(t) => (ChannelMessage::Telemetry(t), false, QoS::AtMostOnce),
                Output::Response(r) => (ChannelMessage::Response(r), false, QoS::AtLeastOnce),
                Output::Event(e) => (ChannelMessage::Event(e), false, QoS::AtLeastOnce),
            };
            if self.budget_spent().await {
                continue;
            }
            let channel = message.channel();
            let payload = match encode(&message) {
                Ok(payload) => payload,
                Err(e) => {
                    // Our own output failed its schema: a bug, not a reason to stop.
                    tracing::error!(error = %e, "virtual device built an invalid message");
                    continue;
                }
            };
            match client.try_publish(self.identity.topic(channel), qos, retain, payload) {
                Ok(()) => {
                    self.gate.unreported += 1;
                    self.update(|s| s.published += 1);
                }
                Err(e) => {
                    tracing::debug!(error = %e, %channel, "client queue full; message dropped");
                    self.update(|s| s.dropped += 1);
                }
            }
        }
        None
    }

    /// The budget's answer, asked again once the cached one is older than
    /// `budget_cache` (reporting what was published meanwhile).
    async fn budget_spent(&mut self) -> bool {
        let fresh = self
            .gate
            .answer
            .filter(|(at, _)| at.elapsed() < self.config.budget_cache);
        if let Some((_, spent)) = fresh {
            return spent;
        }
        let published = std::mem::take(&mut self.gate.unreported);
        let spent = self.budget.spent(self.spec.tenant_id, published).await;
        let was = self.gate.answer.is_some_and(|(_, s)| s);
        if spent != was {
            if spent {
                tracing::info!("message budget spent: device silent");
            } else {
                tracing::info!("message budget available again");
            }
        }
        self.gate.answer = Some((Instant::now(), spent));
        self.update(|s| s.silenced = spent);
        spent
    }

    fn update(&self, change: impl FnOnce(&mut DeviceSnapshot)) {
        self.snapshot.send_modify(change);
    }
}

/// The device was asked to stop (or its handle is gone).
struct Stopped;

/// Between half and all of `wait`, so devices that lost the broker
/// together do not all knock again at the same instant.
fn jittered(wait: Duration) -> Duration {
    wait.mul_f64(rand::random_range(0.5..=1.0))
}

/// One connection attempt: the client and its event loop, which runs in a
/// task of its own and reports every event (ending at the first error:
/// reconnecting is the device task's decision).
pub(crate) struct Link {
    pub(crate) client: AsyncClient,
    pub(crate) events: mpsc::Receiver<Result<Event, ConnectionError>>,
    poller: JoinHandle<()>,
}

impl Link {
    pub(crate) fn open(
        spec: &VirtualDeviceSpec,
        identity: &DeviceIdentity,
        config: &RunnerConfig,
    ) -> Self {
        let id = spec.device_id.to_string();
        let mut options = MqttOptions::new(&id, &config.broker_host, config.broker_port);
        #[cfg(feature = "tls")]
        if let Some(tls) = &config.tls {
            options.set_transport(rumqttc::Transport::tls_with_config(
                rumqttc::TlsConfiguration::Rustls(tls.0.clone()),
            ));
        }
        options
            .set_credentials(format!("{id}{}", config.username_suffix), &spec.password)
            .set_keep_alive(config.keep_alive)
            .set_clean_session(true)
            .set_last_will(LastWill::new(
                identity.topic(Channel::Availability),
                alyt_device::Availability::Offline.as_str(),
                QoS::AtLeastOnce,
                true,
            ));
        let (client, mut eventloop) = AsyncClient::new(options, CLIENT_QUEUE);
        // Without TCP_NODELAY a command's PUBACK and its result, two small
        // writes in a row, meet Nagle and the broker's delayed ACK: the
        // result waited ~40 ms on every command.
        let mut network = eventloop.network_options();
        network.set_tcp_nodelay(true);
        eventloop.set_network_options(network);
        let (tx, events) = mpsc::channel(CLIENT_QUEUE);
        let poller = tokio::spawn(
            async move {
                loop {
                    let event = eventloop.poll().await;
                    let failed = event.is_err();
                    if tx.send(event).await.is_err() || failed {
                        break;
                    }
                }
            }
            .in_current_span(),
        );
        Self {
            client,
            events,
            poller,
        }
    }

    /// Closes the socket without DISCONNECT (the broker fires the will).
    pub(crate) async fn drop_connection(&mut self) {
        self.poller.abort();
        let _ = (&mut self.poller).await;
    }

    /// DISCONNECT after whatever is queued, then close the socket (the
    /// broker waits for the client to close it).
    pub(crate) async fn disconnect(&mut self) {
        if self.client.try_disconnect().is_ok() {
            let sent = async {
                while let Some(event) = self.events.recv().await {
                    match event {
                        Ok(Event::Outgoing(Outgoing::Disconnect)) | Err(_) => break,
                        Ok(_) => {}
                    }
                }
            };
            let _ = tokio::time::timeout(Duration::from_secs(2), sent).await;
        }
        self.drop_connection().await;
    }
}
