//! The embedded MQTT broker of the local platform (rmqtt, on the caller's tokio
//! runtime). It enforces the same per-device rule as the hosted IoT policy and
//! hands every accepted device publish, last wills included, to the platform
//! through an mpsc channel.
//!
//! rmqtt decides nothing on its own here: four hooks call our code.
//! - ClientAuthenticate: username/password -> [`DeviceIdentity`] through the
//!   [`DeviceAuthenticator`]; anonymous and bad credentials are refused, and so
//!   is a last will on any topic but the device's own availability topic
//!   (rmqtt never ACL-checks the will, it publishes it as the broker).
//! - ClientSubscribeCheckAcl: [`may_subscribe`] against the identity bound
//!   to the session.
//! - MessagePublishCheckAcl: [`may_publish`], then hands the publish to ingest.
//!   rmqtt sends a QoS 1 PUBACK only after this hook returns, so for QoS 1 the
//!   hook waits for the message's [`Receipt`]: the PUBACK means the message is
//!   stored, so an acknowledged message is never lost. When it is not stored
//!   (the store kept failing, the platform is stopping) the connection is
//!   closed without a PUBACK and the device sends the message again.
//! - MessagePublish: forwards last wills (rmqtt runs no ACL check on them).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use alyt_domain::{Clock, SystemClock};
use async_trait::async_trait;
use bytes::Bytes;
use rmqtt::codec::types::{Publish as CodecPublish, QoS};
use rmqtt::codec::v5::SubscribeAckReason;
use rmqtt::context::ServerContext;
use rmqtt::hook::{Handler, HookResult, Parameter, ReturnType, Type};
use rmqtt::net::Builder;
use rmqtt::server::MqttServer;
use rmqtt::session::Session;
use rmqtt::types::{
    AuthResult, ClientId, ConnectInfo, From as MsgFrom, FromType, Id, LastWill, Publish,
    PublishAclResult, SubscribeAclResult,
};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::inbox::Inbox;
pub use crate::plane::{Delivery, DeviceAuthenticator, InboundMessage, Receipt};
use crate::plane::{DevicePublisher, PublishError, PublishPacket, publish_digest};
use crate::topic::{Channel, DeviceIdentity, may_publish, may_subscribe, may_will, parse_topic};

#[derive(Clone)]
pub struct BrokerConfig {
    /// Where to listen; port 0 picks a free port (see [`Broker::local_addr`]).
    pub addr: SocketAddr,
    /// Stamps [`InboundMessage::received_at`].
    pub clock: Arc<dyn Clock>,
    /// Where a QoS 1 publish is made durable before its PUBACK. Without
    /// one the PUBACK waits until ingest has handled the message.
    pub inbox: Option<Arc<Inbox>>,
}

impl std::fmt::Debug for BrokerConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BrokerConfig")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl BrokerConfig {
    pub fn new(addr: SocketAddr) -> Self {
        Self {
            addr,
            clock: Arc::new(SystemClock),
            inbox: None,
        }
    }

    pub fn with_inbox(mut self, inbox: Arc<Inbox>) -> Self {
        self.inbox = Some(inbox);
        self
    }

    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }
}

#[derive(Debug, thiserror::Error)]
pub enum BrokerError {
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    /// No session holds a subscription on the topic: the device is not
    /// connected (or has not subscribed yet). The command stays pending.
    #[error("no device session is subscribed to {topic}")]
    NotSubscribed { topic: String },
    #[error("could not deliver to {topic}: {reason}")]
    Undelivered { topic: String, reason: String },
}

/// Counters for what the broker refused; read with [`Broker::stats`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BrokerStats {
    pub connections_refused: u64,
    pub publishes_denied: u64,
    pub subscriptions_denied: u64,
    pub inbound_forwarded: u64,
}

/// A running broker. Stop it with [`Broker::shutdown`]; dropping it only
/// stops accepting new connections.
pub struct Broker {
    /// The address actually bound (the real port when the config asked for 0).
    pub local_addr: SocketAddr,
    scx: ServerContext,
    state: Arc<HookState>,
    platform: Id,
    server: JoinHandle<()>,
    /// Ends the broker's own runtime (dropping it does too).
    _runtime: RuntimeStop,
}

/// Keeps the broker's runtime thread running until it is dropped.
struct RuntimeStop(Option<tokio::sync::oneshot::Sender<()>>);

impl Drop for RuntimeStop {
    fn drop(&mut self) {
        if let Some(stop) = self.0.take() {
            let _ = stop.send(());
        }
    }
}

/// Where the identity lives on an rmqtt session (its extra attributes).
const IDENTITY_ATTR: &str = "alyt.identity";

/// Identities authenticated but not yet attached to their session are dropped
/// after this long (the connection failed between CONNECT and CONNACK).
const PENDING_TTL: Duration = Duration::from_secs(60);

/// Starts the broker and returns once it listens. It runs on a runtime of
/// its own (one thread), so acknowledging a device's publish never waits
/// behind the platform's HTTP, ingest and stream tasks; the handle works
/// from any runtime.
pub async fn start_broker(
    config: BrokerConfig,
    authenticator: Arc<dyn DeviceAuthenticator>,
    inbound: mpsc::Sender<Delivery>,
) -> Result<Broker, BrokerError> {
    let addr = config.addr;
    let (started_tx, started_rx) = tokio::sync::oneshot::channel();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    std::thread::Builder::new()
        .name("alyt-mqtt".into())
        .spawn(move || {
            let runtime = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(runtime) => runtime,
                Err(source) => {
                    let _ = started_tx.send(Err(BrokerError::Bind { addr, source }));
                    return;
                }
            };
            runtime.block_on(async move {
                let started = start_here(config, authenticator, inbound).await;
                let failed = started.is_err();
                let _ = started_tx.send(started);
                if !failed {
                    let _ = stop_rx.await;
                }
            });
        })
        .map_err(|source| BrokerError::Bind { addr, source })?;
    let mut broker = started_rx.await.map_err(|_| BrokerError::Bind {
        addr,
        source: std::io::Error::other("the broker's thread stopped while starting"),
    })??;
    broker._runtime = RuntimeStop(Some(stop_tx));
    Ok(broker)
}

/// Starts the broker on the current runtime.
async fn start_here(
    config: BrokerConfig,
    authenticator: Arc<dyn DeviceAuthenticator>,
    inbound: mpsc::Sender<Delivery>,
) -> Result<Broker, BrokerError> {
    let bind_error = |source| BrokerError::Bind {
        addr: config.addr,
        source,
    };
    // The busy check refuses CONNECTs while the host's load average is high
    // (a 2-core machine running cargo qualifies) and spawns a CPU sampler
    // that never stops.
    let scx = ServerContext::new().busy_check_enable(false).build().await;

    let mut listener = listener_config(config.addr)
        .bind()
        .map_err(|e| bind_error(io_error(e)))?;
    let local_addr = listener.local_addr().map_err(|e| bind_error(io_error(e)))?;
    // rmqtt keeps the configured address (port 0) in the session ids and keys
    // its listener table by port; give it the real one.
    listener.cfg = Arc::new(Builder {
        laddr: local_addr,
        ..(*listener.cfg).clone()
    });
    let listener = listener.tcp().map_err(|e| bind_error(io_error(e)))?;

    let state = Arc::new(HookState {
        scx: scx.clone(),
        authenticator,
        inbound,
        clock: config.clock,
        inbox: config.inbox,
        pending: Mutex::new(HashMap::new()),
        retransmits: Mutex::new(RecentPublishes::default()),
        stopping: AtomicBool::new(false),
        awaiting: AtomicUsize::new(0),
        settled: tokio::sync::Notify::new(),
        closing: tokio::sync::watch::Sender::new(false),
        stats: Counters::default(),
    });
    let register = scx.extends.hook_mgr().register();
    for typ in [
        Type::ClientAuthenticate,
        Type::ClientConnected,
        Type::ClientSubscribeCheckAcl,
        Type::MessagePublishCheckAcl,
        Type::MessagePublish,
    ] {
        register.add(typ, Box::new(Hooks(state.clone()))).await;
    }
    // Registered handlers stay disabled until start(); without it every
    // check falls back to rmqtt's default, which is "allow".
    register.start().await;

    let server = MqttServer::new(scx.clone()).listener(listener).build();
    // run(), not start(): start() exits the process when the server fails.
    let server = tokio::spawn(async move {
        if let Err(e) = server.run().await {
            tracing::error!(error = %e, "the MQTT broker stopped");
        }
    });
    tracing::info!(%local_addr, "MQTT broker listening");

    let platform = Id::new(
        scx.node.id(),
        0,
        Some(local_addr),
        None,
        ClientId::from_static("alyt-platform"),
        None,
    );
    Ok(Broker {
        local_addr,
        scx,
        state,
        platform,
        server,
        _runtime: RuntimeStop(None),
    })
}

fn listener_config(addr: SocketAddr) -> Builder {
    Builder::new()
        .name("alyt/devices")
        .laddr(addr)
        // Defaults are nodelay=false (Nagle + delayed ACK: ~40 ms per small
        // packet), allow_anonymous=true and no SO_REUSEADDR (a restart on the
        // same port fails with EADDRINUSE while old sockets sit in TIME_WAIT).
        .nodelay(true)
        .allow_anonymous(false)
        .reuseaddr(Some(true))
        // As IoT Core: QoS 0/1 only, 128 KiB payloads (+ room for the header).
        .max_qos_allowed(QoS::AtLeastOnce)
        .max_packet_size(128 * 1024 + 1024)
        .max_clientid_len(128)
        .handshake_timeout(Duration::from_secs(10))
}

/// rmqtt reports errors as anyhow; keep the io::Error (EADDRINUSE, ...) when
/// there is one.
fn io_error(e: rmqtt::Error) -> std::io::Error {
    e.downcast::<std::io::Error>()
        .unwrap_or_else(|e| std::io::Error::other(e.to_string()))
}

/// A cloneable handle that publishes to devices through a running broker
/// (the local [`DevicePublisher`] adapter). Publishing after the broker
/// stopped finds no session and fails with [`PublishError::NotSubscribed`].
#[derive(Clone)]
pub struct BrokerPublisher {
    scx: ServerContext,
    platform: Id,
}

#[async_trait]
impl DevicePublisher for BrokerPublisher {
    async fn publish(
        &self,
        identity: &DeviceIdentity,
        payload: Vec<u8>,
    ) -> Result<(), PublishError> {
        match self.publish_to_device(identity, payload, true).await {
            Ok(()) => Ok(()),
            Err(BrokerError::NotSubscribed { .. }) => Err(PublishError::NotSubscribed),
            Err(e) => Err(PublishError::Failed(e.to_string())),
        }
    }

    async fn disconnect(&self, identity: &DeviceIdentity) -> Result<(), PublishError> {
        self.kick(identity).await
    }
}

impl Broker {
    /// Publishes a command to the device's `commands` topic (see
    /// [`BrokerPublisher::publish_to_device`]).
    pub async fn publish_to_device(
        &self,
        identity: &DeviceIdentity,
        payload: impl Into<Bytes>,
        at_least_once: bool,
    ) -> Result<(), BrokerError> {
        self.publisher()
            .publish_to_device(identity, payload, at_least_once)
            .await
    }

    /// A handle publishing through this broker.
    pub fn publisher(&self) -> BrokerPublisher {
        BrokerPublisher {
            scx: self.scx.clone(),
            platform: self.platform.clone(),
        }
    }
}

impl BrokerPublisher {
    /// Closes the device's session (its credential was revoked). The client
    /// id of a device is its device id, so the session is found by that.
    pub async fn kick(&self, identity: &DeviceIdentity) -> Result<(), PublishError> {
        let shared = self.scx.extends.shared().await;
        if !shared.exist(&identity.device_id.to_string()) {
            return Ok(());
        }
        let id = Id::new(
            self.platform.node_id,
            0,
            None,
            None,
            ClientId::from(identity.device_id.to_string()),
            None,
        );
        shared
            .entry(id)
            .kick(true, true, true)
            .await
            .map(|_| ())
            .map_err(|e| PublishError::Failed(e.to_string()))
    }

    /// Publishes a command to the device's `commands` topic, as the platform
    /// (no client connection, no ACL). `Ok` means a session took it: an online
    /// device, or a persistent session that queues it until the device is
    /// back. [`BrokerError::NotSubscribed`] when nobody listens.
    pub async fn publish_to_device(
        &self,
        identity: &DeviceIdentity,
        payload: impl Into<Bytes>,
        at_least_once: bool,
    ) -> Result<(), BrokerError> {
        let topic = identity.topic(Channel::Commands);
        let publish = Publish::from(CodecPublish {
            dup: false,
            retain: false,
            qos: if at_least_once {
                QoS::AtLeastOnce
            } else {
                QoS::AtMostOnce
            },
            topic: topic.clone().into(),
            packet_id: None,
            payload: payload.into(),
            properties: None,
        })
        // The message expiry check measures age from create_time.
        .create_time(rmqtt::utils::timestamp_millis());
        let from = MsgFrom::from_system(self.platform.clone());
        // Shared::forwards rather than SessionState::forwards: same routing
        // (we use neither retain storage nor the message store) but it tells
        // how many sessions took the message.
        let forwarded = self
            .scx
            .extends
            .shared()
            .await
            .forwards(None, from, publish)
            .await;
        match forwarded {
            Ok(0) => Err(BrokerError::NotSubscribed { topic }),
            Ok(_) => Ok(()),
            Err((n, _)) if n > 0 => Ok(()),
            Err((_, errors)) => Err(BrokerError::Undelivered {
                topic,
                reason: errors
                    .into_iter()
                    .map(|(_, _, _, reason)| reason.to_string())
                    .collect::<Vec<_>>()
                    .join("; "),
            }),
        }
    }
}

impl Broker {
    pub fn stats(&self) -> BrokerStats {
        self.state.stats.snapshot()
    }

    /// Stops accepting connections and publishes, lets the publishes ingest
    /// is storing get their PUBACK (bounded by [`SETTLE_WAIT`]; ingest must
    /// still run), then closes every device session. A publish refused
    /// meanwhile gets no PUBACK: its device sends it again to the next run.
    /// Last wills that fire while closing are not forwarded: the devices did
    /// not fail, the platform is stopping.
    pub async fn shutdown(mut self) -> BrokerStop {
        self.state.stopping.store(true, Ordering::SeqCst);
        let being_stored = self.state.awaiting.load(Ordering::SeqCst);
        let settled = tokio::time::timeout(SETTLE_WAIT, async {
            loop {
                let notified = self.state.settled.notified();
                if self.state.awaiting.load(Ordering::SeqCst) == 0 {
                    break;
                }
                notified.await;
            }
        })
        .await
        .is_ok();
        // rmqtt writes a PUBACK after the publish hook returns and tells
        // nobody when it has; closing the sessions at once would cut off
        // the ones just answered (their devices would send them again).
        tokio::time::sleep(PUBACK_GRACE).await;
        self.state.closing.send_replace(true);
        // Only now: aborting the server ends its connections' tasks too.
        self.server.abort();
        // The listener socket closes when the aborted task drops it.
        let _ = (&mut self.server).await;

        let ids: Vec<Id> = {
            let shared = self.scx.extends.shared().await;
            shared.iter().map(|entry| entry.id()).collect()
        };
        let mut sessions_closed = 0;
        for id in ids {
            let entry = self.scx.extends.shared().await.entry(id);
            let Ok(mut entry) = entry.try_lock().await else {
                continue; // a handshake holds it; that session ends with the runtime
            };
            // An admin kick with clean start ends the session for good (no
            // offline session left waiting for its expiry).
            match entry.kick(true, true, true).await {
                Ok(_) => sessions_closed += 1,
                Err(e) => tracing::debug!(error = %e, "kick at broker shutdown"),
            }
        }
        lock(&self.state.pending).clear();
        let stop = BrokerStop {
            sessions_closed,
            publishes_let_finish: being_stored,
            all_finished: settled,
        };
        tracing::info!(local_addr = %self.local_addr, ?stop, "MQTT broker stopped");
        stop
    }
}

/// What a broker's stop did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BrokerStop {
    pub sessions_closed: usize,
    /// QoS 1 publishes ingest was storing when the stop began, let finish.
    pub publishes_let_finish: usize,
    /// False when some were still unanswered after [`SETTLE_WAIT`].
    pub all_finished: bool,
}

impl Drop for Broker {
    fn drop(&mut self) {
        self.server.abort();
    }
}

#[derive(Default)]
struct Counters {
    connections_refused: AtomicU64,
    publishes_denied: AtomicU64,
    subscriptions_denied: AtomicU64,
    inbound_forwarded: AtomicU64,
}

impl Counters {
    fn snapshot(&self) -> BrokerStats {
        BrokerStats {
            connections_refused: self.connections_refused.load(Ordering::Relaxed),
            publishes_denied: self.publishes_denied.load(Ordering::Relaxed),
            subscriptions_denied: self.subscriptions_denied.load(Ordering::Relaxed),
            inbound_forwarded: self.inbound_forwarded.load(Ordering::Relaxed),
        }
    }
}

fn bump(counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::Relaxed);
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

struct HookState {
    scx: ServerContext,
    authenticator: Arc<dyn DeviceAuthenticator>,
    inbound: mpsc::Sender<Delivery>,
    clock: Arc<dyn Clock>,
    inbox: Option<Arc<Inbox>>,
    /// Authenticated identities waiting for their session to exist: rmqtt
    /// authenticates before it builds the session, and its AuthInfo has no
    /// room for our data.
    pending: Mutex<HashMap<Id, (Instant, DeviceIdentity)>>,
    /// The message ids of recent QoS 1/2 publishes by client and packet id.
    retransmits: Mutex<RecentPublishes>,
    stopping: AtomicBool,
    /// QoS 1 publishes handed to ingest and not yet answered; `settled`
    /// wakes the stop when one is.
    awaiting: AtomicUsize,
    settled: tokio::sync::Notify,
    /// Set once the stop has let the publishes being stored finish: a
    /// publish held since the stop began is refused then.
    closing: tokio::sync::watch::Sender<bool>,
    stats: Counters,
}

/// How long a QoS 1 publish waits for ingest to store it before its
/// connection is closed (ingest retries a failing store for ~1.5 s).
const STORE_WAIT: Duration = Duration::from_secs(10);
/// How long a stop lets the publishes being stored finish.
pub const SETTLE_WAIT: Duration = Duration::from_secs(5);
/// How long a stop gives the PUBACKs just answered to go out.
const PUBACK_GRACE: Duration = Duration::from_millis(50);

/// How long a publish's packet id keeps its message id for a retransmit.
const RETRANSMIT_TTL: Duration = Duration::from_secs(10 * 60);
/// Publishes remembered before the oldest are forgotten.
const RETRANSMIT_CAPACITY: usize = 100_000;

/// A device that did not get its PUBACK sends the same publish again, with
/// the same packet id, on the same connection or the next one. The
/// retransmit must carry the message id of the first delivery, since ingest
/// deduplicates on it: so one state change and one platform event, as SQS
/// duplicates get hosted. A packet id is free for a new message only after
/// its acknowledgement, so a publish on a packet id whose last message was
/// not acknowledged is that message again. After the PUBACK, one marked
/// DUP with the same content is too (the PUBACK was lost); one unmarked
/// with the same content on a later connection may be (rumqttc never sets
/// DUP), which ingest settles against the store. Content is compared, not
/// the flag trusted alone.
#[derive(Default)]
struct RecentPublishes {
    by_packet: HashMap<(String, u16), Recent>,
}

struct Recent {
    at: Instant,
    message_id: String,
    /// When the platform first received it: a resend is the same message,
    /// received then (its points are keyed by it).
    received_at: time::OffsetDateTime,
    digest: String,
    /// The connection it came on (remote address and connect time).
    connection: Connection,
    acknowledged: bool,
}

type Connection = (Option<SocketAddr>, i64);

/// What the broker's bookkeeping makes of one publish.
struct Identified {
    message_id: String,
    received_at: time::OffsetDateTime,
    /// See [`PublishPacket::maybe_resent`].
    maybe_resent: bool,
}

impl RecentPublishes {
    fn identify(
        &mut self,
        client: &str,
        packet: u16,
        publish: (&str, bool, Connection),
        now: Instant,
        received_at: time::OffsetDateTime,
    ) -> Identified {
        let (digest, dup, connection) = publish;
        let key = (client.to_owned(), packet);
        let known = self
            .by_packet
            .get_mut(&key)
            .filter(|recent| now.duration_since(recent.at) < RETRANSMIT_TTL);
        let maybe_resent = match known {
            Some(recent) if recent.digest == digest => {
                if !recent.acknowledged || dup {
                    // Its PUBACK, if any, goes out on this connection.
                    recent.connection = connection;
                    return Identified {
                        message_id: recent.message_id.clone(),
                        received_at: recent.received_at,
                        maybe_resent: false,
                    };
                }
                recent.connection != connection
            }
            Some(_) => false,
            None => true,
        };
        if self.by_packet.len() >= RETRANSMIT_CAPACITY {
            self.by_packet
                .retain(|_, recent| now.duration_since(recent.at) < RETRANSMIT_TTL);
            if self.by_packet.len() >= RETRANSMIT_CAPACITY {
                self.by_packet.clear();
            }
        }
        let message_id = new_message_id();
        self.by_packet.insert(
            key,
            Recent {
                at: now,
                message_id: message_id.clone(),
                received_at,
                digest: digest.to_owned(),
                connection,
                acknowledged: false,
            },
        );
        Identified {
            message_id,
            received_at,
            maybe_resent,
        }
    }

    /// The PUBACK of the message is going out.
    fn acknowledged(&mut self, client: &str, packet: u16, message_id: &str) {
        if let Some(recent) = self.by_packet.get_mut(&(client.to_owned(), packet))
            && recent.message_id == message_id
        {
            recent.acknowledged = true;
        }
    }
}

struct Hooks(Arc<HookState>);

#[async_trait]
impl Handler for Hooks {
    async fn hook(&self, param: &Parameter, acc: Option<HookResult>) -> ReturnType {
        let state = &self.0;
        match param {
            Parameter::ClientAuthenticate(connect) => {
                let result = state.authenticate(connect).await;
                if !matches!(result, AuthResult::Allow(..)) {
                    bump(&state.stats.connections_refused);
                }
                (false, Some(HookResult::AuthResult(result)))
            }
            Parameter::ClientConnected(session) => {
                state.attach_identity(session).await;
                (true, acc)
            }
            Parameter::ClientSubscribeCheckAcl(session, subscribe) => {
                let allowed = identity_of(session)
                    .await
                    .is_some_and(|id| may_subscribe(&id, &subscribe.topic_filter));
                let result = if allowed {
                    SubscribeAclResult::new_success(subscribe.opts.qos(), None)
                } else {
                    bump(&state.stats.subscriptions_denied);
                    tracing::warn!(client = %session.id, filter = %subscribe.topic_filter, "subscription denied");
                    SubscribeAclResult::new_failure(SubscribeAckReason::NotAuthorized)
                };
                (false, Some(HookResult::SubscribeAclResult(result)))
            }
            Parameter::MessagePublishCheckAcl(session, publish) => {
                let identity = identity_of(session)
                    .await
                    .filter(|id| may_publish(id, &publish.topic));
                let result = match identity {
                    Some(identity) => state.take(session, identity, publish).await,
                    None => {
                        bump(&state.stats.publishes_denied);
                        tracing::warn!(client = %session.id, topic = %publish.topic, "publish denied");
                        // Drop the message but keep the connection: a device with
                        // one wrong topic keeps reporting on the right ones.
                        PublishAclResult::rejected(false, None)
                    }
                };
                (false, Some(HookResult::PublishAclResult(result)))
            }
            Parameter::MessagePublish(Some(session), from, publish)
                if matches!(from.typ(), FromType::LastWill) =>
            {
                state.forward_will(session, publish).await;
                (true, acc)
            }
            _ => (true, acc),
        }
    }
}

impl HookState {
    async fn authenticate(&self, connect: &ConnectInfo) -> AuthResult {
        let Some(username) = connect.username() else {
            return AuthResult::NotAuthorized; // anonymous
        };
        let Some(password) = connect.password() else {
            return AuthResult::BadUsernameOrPassword;
        };
        let Some(identity) = self
            .authenticator
            .authenticate(connect.client_id(), username, password)
            .await
        else {
            tracing::info!(client = %connect.id(), "device authentication failed");
            return AuthResult::BadUsernameOrPassword;
        };
        // rmqtt publishes the will itself, without any ACL check.
        if let Some(will) = connect.last_will() {
            let topic = match will {
                LastWill::V3(will) => &will.topic,
                LastWill::V5(will) => &will.topic,
            };
            if !may_will(&identity, topic) {
                tracing::warn!(client = %connect.id(), %topic, "last will outside the device's availability topic");
                return AuthResult::NotAuthorized;
            }
        }
        // Sessions are keyed by client id: a connection with another device's
        // client id would kick that device and, with clean_session=false, take
        // over its subscriptions. Only the same identity may take a session over.
        let existing = self
            .scx
            .extends
            .shared()
            .await
            .entry(connect.id().clone())
            .session();
        if let Some(existing) = existing
            && identity_of(&existing).await.as_ref() != Some(&identity)
        {
            tracing::warn!(client = %connect.id(), "client id held by another device's session");
            return AuthResult::NotAuthorized;
        }

        let now = Instant::now();
        let mut pending = lock(&self.pending);
        pending.retain(|_, (at, _)| now.duration_since(*at) < PENDING_TTL);
        pending.insert(connect.id().clone(), (now, identity));
        AuthResult::Allow(false, None)
    }

    /// Moves the identity onto the session. rmqtt runs this hook before the
    /// session reads its first packet, so every ACL check finds it there.
    async fn attach_identity(&self, session: &Session) {
        let identity = lock(&self.pending).remove(&session.id);
        match identity {
            Some((_, identity)) => {
                session
                    .extra_attrs
                    .write()
                    .await
                    .insert(IDENTITY_ATTR.into(), identity);
            }
            // Cannot happen with allow_anonymous=false; the ACL hooks deny
            // everything to a session without an identity anyway.
            None => tracing::error!(client = %session.id, "connected without an identity"),
        }
    }

    /// Hands a device's publish to ingest. QoS 1: waits until ingest
    /// answers its receipt, and refuses the publish, closing the connection
    /// without PUBACK, when it does not.
    async fn take(
        &self,
        session: &Session,
        identity: DeviceIdentity,
        publish: &Publish,
    ) -> PublishAclResult {
        // Closing the connection keeps the message with the device.
        let refuse = || PublishAclResult::rejected(true, None);
        if self.stopping.load(Ordering::SeqCst) {
            // Not at once: closing this connection now could cut off the
            // PUBACK of a publish still being stored on it.
            let mut closing = self.closing.subscribe();
            let _ = tokio::time::timeout(SETTLE_WAIT * 2, closing.wait_for(|c| *c)).await;
            return refuse();
        }
        let Some((_, channel)) = parse_topic(&publish.topic) else {
            return PublishAclResult::allow();
        };
        let client = &session.id.client_id;
        let now = self.clock.now();
        let (message_id, received_at, packet) = match publish.packet_id {
            Some(packet) => {
                let digest = publish_digest(&publish.topic, &publish.payload);
                let connection = (session.id.remote_addr, session.id.create_time);
                let identified = lock(&self.retransmits).identify(
                    client,
                    packet.get(),
                    (&digest, publish.dup, connection),
                    Instant::now(),
                    now,
                );
                let packet = PublishPacket {
                    id: packet.get(),
                    maybe_resent: identified.maybe_resent,
                };
                (identified.message_id, identified.received_at, Some(packet))
            }
            // QoS 0 is never retransmitted.
            None => (new_message_id(), now, None),
        };
        let message = InboundMessage {
            message_id: message_id.clone(),
            identity,
            channel,
            topic: publish.topic.to_string(),
            payload: publish.payload.clone(),
            retained: publish.retain,
            last_will: false,
            received_at,
            source_address: session.id.remote_addr.map(|a| a.ip()),
            packet,
        };
        let Some(packet) = packet else {
            self.hand_over(message, Receipt::none()).await;
            return PublishAclResult::allow();
        };
        self.awaiting.fetch_add(1, Ordering::SeqCst);
        let stored = self.store(message).await;
        self.awaiting.fetch_sub(1, Ordering::SeqCst);
        self.settled.notify_waiters();
        if !stored {
            tracing::warn!(%client, topic = %publish.topic, "a publish was not stored; the connection is closed so the device sends it again");
            return refuse();
        }
        lock(&self.retransmits).acknowledged(client, packet.id, &message_id);
        PublishAclResult::allow()
    }

    /// Makes a QoS 1 publish durable: in the inbox (then handed to ingest,
    /// which settles it), or, without an inbox or when appending fails,
    /// handed to ingest and waited on until stored. False when it is not.
    async fn store(&self, message: InboundMessage) -> bool {
        if let Some(inbox) = &self.inbox {
            match inbox.append(&message) {
                // In the inbox: durable whether or not ingest takes it now
                // (what it does not is read back at the next start). Still
                // queued before the PUBACK, so a slow ingest holds devices
                // back rather than growing the inbox without bound.
                Ok(entry) => {
                    self.hand_over(message, Receipt::settling(entry)).await;
                    return true;
                }
                Err(e) => {
                    tracing::error!(error = %e, "the broker's inbox refused a publish; the PUBACK waits on ingest")
                }
            }
        }
        let (receipt, answered) = Receipt::pair();
        self.hand_over(message, receipt).await
            && matches!(tokio::time::timeout(STORE_WAIT, answered).await, Ok(Ok(())))
    }

    /// A last will: the broker publishes it for a connection that ended
    /// without DISCONNECT; nobody waits for an acknowledgement.
    async fn forward_will(&self, session: &Session, publish: &Publish) {
        if self.stopping.load(Ordering::SeqCst) {
            return;
        }
        let Some(identity) = identity_of(session).await else {
            return;
        };
        // Wills are checked at CONNECT (`may_will`); apply the rule again
        // rather than forward anything else.
        if !may_publish(&identity, &publish.topic) {
            return;
        }
        let Some((_, channel)) = parse_topic(&publish.topic) else {
            return;
        };
        let message = InboundMessage {
            message_id: new_message_id(),
            identity,
            channel,
            topic: publish.topic.to_string(),
            payload: publish.payload.clone(),
            retained: publish.retain,
            last_will: true,
            received_at: self.clock.now(),
            source_address: session.id.remote_addr.map(|a| a.ip()),
            packet: None,
        };
        self.hand_over(message, Receipt::none()).await;
    }

    /// Queues a message for ingest. Awaiting a full channel holds this
    /// device's session (and through TCP the device) back: backpressure
    /// rather than loss. Counted before the message is handed over, so
    /// whoever receives it sees the count. False when ingest has gone.
    async fn hand_over(&self, message: InboundMessage, receipt: Receipt) -> bool {
        match self.inbound.reserve().await {
            Ok(permit) => {
                bump(&self.stats.inbound_forwarded);
                permit.send(Delivery { message, receipt });
                true
            }
            Err(_) => {
                tracing::warn!(topic = %message.topic, "inbound receiver gone; device message not taken");
                false
            }
        }
    }
}

/// A message id the broker gives a publish: time-ordered (UUID v7), so the
/// store's dedupe guards, keyed by it, follow one another in its index (a
/// commit writes one index page for a burst of them, not one page each).
fn new_message_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

async fn identity_of(session: &Session) -> Option<DeviceIdentity> {
    session
        .extra_attrs
        .read()
        .await
        .get::<DeviceIdentity>(IDENTITY_ATTR)
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: Connection = (None, 1);
    const TWO: Connection = (None, 2);

    /// (packet, content, dup, connection) -> (same message id as the
    /// previous publish on that packet id, maybe_resent); a resend keeps
    /// when the first was received, a new message is received now.
    #[test]
    fn a_resend_keeps_its_message_id_and_an_unplaceable_one_is_left_to_the_store() {
        let mut recent = RecentPublishes::default();
        let now = Instant::now();
        let mut last: HashMap<u16, (String, time::OffsetDateTime)> = HashMap::new();
        let mut clock = time::OffsetDateTime::UNIX_EPOCH;
        let mut publish = |packet: u16, content: &str, dup: bool, connection, acked: bool| {
            clock += time::Duration::seconds(1);
            let got = recent.identify("dev", packet, (content, dup, connection), now, clock);
            let previous = last.get(&packet).cloned();
            let same = previous.as_ref().map(|(id, _)| id) == Some(&got.message_id);
            let received = match (same, previous) {
                (true, Some((_, first))) => first,
                _ => clock,
            };
            assert_eq!(got.received_at, received, "packet {packet}, {content}");
            last.insert(packet, (got.message_id.clone(), got.received_at));
            if acked {
                recent.acknowledged("dev", packet, &got.message_id);
            }
            (same, got.maybe_resent)
        };
        // First use of a packet id here: the store decides.
        assert_eq!(publish(1, "a", false, ONE, false), (false, true));
        // Not acknowledged yet: the same publish again, DUP or not, on
        // any connection; acknowledged on the second.
        assert_eq!(publish(1, "a", false, ONE, false), (true, false));
        assert_eq!(publish(1, "a", false, TWO, true), (true, false));
        // Acknowledged: DUP with the same content is the PUBACK lost ...
        assert_eq!(publish(1, "a", true, TWO, false), (true, false));
        // ... without DUP on that connection, a new message ...
        assert_eq!(publish(1, "a", false, TWO, true), (false, false));
        // ... and on a later connection, the store decides.
        assert_eq!(publish(1, "a", false, ONE, true), (false, true));
        // Other content on the packet id is always a new message.
        assert_eq!(publish(1, "b", true, TWO, true), (false, false));
    }
}
