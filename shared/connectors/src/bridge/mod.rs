//! A reference connector server: [`VirtualBridge`], an in-memory LAN bridge
//! (think of a lighting hub on a household's network) speaking the connector
//! protocol of `PROTOCOL.md`. Tests serve it on a loopback socket and drive
//! the platform's client against it; developers can read it as a worked
//! example of a connector server.
//!
//! What it does, as a real bridge would:
//! * Every call needs `Authorization: Bearer <runtime token>` (401 otherwise).
//! * `v1/connect` pairs in two steps: the first call (with `host`) answers a
//!   challenge asking for the code the bridge shows after its link button is
//!   pressed; the answer (challenge token + `pairingCode`) connects with the
//!   config `{ host, bridgeKey }`, where `bridgeKey` is a fresh secret. A
//!   challenge is good for one answer.
//! * Every later call must carry a config with a `bridgeKey` the bridge
//!   issued and has not forgotten (`v1/disconnect` forgets it): 403 otherwise.
//! * Things have state keyed by capability, with the catalogue's control keys
//!   (`light.power`, `light.brightness`, `switch.power`, `energy.power`,
//!   `media_player.volume`, `sensor.motion.motion`, ...). `set` commands are
//!   applied the way the hardware does: light brightness is quantised to
//!   multiples of 10 (set 47, read back 50) and a plug's `energy.power`
//!   (watts) follows its `switch.power` (0 off, 60 on); a speaker's
//!   `media_player.source` is set by playing, and only a local system's
//!   speaker takes `null` (stop and drop the source). The answer carries
//!   the state read back, which may differ from what was asked.
//!
//! ```no_run
//! use alyt_connectors::bridge::VirtualBridge;
//! use alyt_connectors::{ConnectorClient, ConnectorServer, HttpConnectorClient, OutboundPolicy};
//!
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! let bridge = VirtualBridge::new("rt_secret", "1234");
//! let running = bridge.serve("127.0.0.1:0").await?;
//! let server = ConnectorServer {
//!     base_url: running.url().to_owned(),
//!     runtime_token: "rt_secret".into(),
//!     // Loopback needs the local policy; the hosted one refuses it.
//!     policy: OutboundPolicy::LOCAL,
//! };
//! let client = HttpConnectorClient::new()?;
//! bridge.set_reachable("plug-kitchen", false);
//! let call = alyt_connectors::ConnectCall {
//!     integration_id: "int_1".into(),
//!     tenant_id: "ten_1".into(),
//!     input: [("host".to_owned(), "192.168.1.20".to_owned())].into(),
//!     challenge_token: None,
//! };
//! // A challenge: press the link button, then answer with `pairingCode`.
//! let answer = client.connect(&server, &call).await?;
//! # Ok(()) }
//! ```
//!
//! The bridge also plays the household's network controller: it can watch
//! phones ([`phone`], [`VirtualBridge::add_phone`],
//! [`VirtualBridge::set_phone`]), which the platform uses to judge a
//! person's network condition.
//!
//! Speakers play music, and a bridge can be a streaming-provider account
//! instead ([`VirtualBridge::streaming`]): see [`music`].
//!
//! Test handles: [`VirtualBridge::set_reachable`],
//! [`VirtualBridge::set_state`] (a physical change), [`VirtualBridge::add_thing`],
//! [`VirtualBridge::remove_thing`], [`VirtualBridge::thing_state`],
//! [`VirtualBridge::calls`], [`VirtualBridge::set_slow`].

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use alyt_domain::device::{DeviceCapability, Lenient};
use alyt_domain::integration::EndpointKind;
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use rand::RngCore;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use subtle::ConstantTimeEq;
use tokio::net::{TcpListener, ToSocketAddrs};

use crate::{
    AUTHORITY_PATH, AuthorityCall, COMMAND_PATH, CONNECT_PATH, CommandAnswer, CommandCall,
    ConnectAnswer, ConnectCall, ConnectField, ConnectFieldKind, DISCONNECT_PATH, DISCOVER_PATH,
    DiscoverAnswer, DiscoveredThing, FAVOURITES_PATH, FavouritesCall, IntegrationCall, PLAY_PATH,
    PlayCall, READ_PATH, REFRESH_PATH, ReadAnswer, ReadCall, SEARCH_PATH, SOUND_PATH, SearchCall,
    SoundCall, ThingRead,
};

pub mod music;
pub mod security;

/// The prompt of the pairing challenge.
pub const PAIRING_PROMPT: &str =
    "Press the link button on the bridge, then enter the code it shows";
/// What a thing that does not answer reads as.
pub const NOT_RESPONDING: &str = "not responding";
/// What an id the bridge does not know reads as.
pub const UNKNOWN_THING: &str = "unknown thing";
/// Calls the journal keeps ([`VirtualBridge::journal`]).
pub const JOURNAL_KEPT: usize = 1000;
/// Open pairing challenges beyond this evict an arbitrary older one.
const MAX_OPEN_CHALLENGES: usize = 64;
/// The watts a plug draws when on (its load is a 60 W lamp).
pub const PLUG_LOAD_WATTS: u64 = 60;

/// An in-memory LAN bridge speaking the connector protocol. Cheap to clone:
/// clones share the bridge, so a test keeps one to poke at the bridge it
/// serves.
#[derive(Clone)]
pub struct VirtualBridge {
    inner: Arc<Inner>,
}

struct Inner {
    runtime_token: String,
    pairing_code: String,
    state: Mutex<Bridge>,
}

struct Bridge {
    things: Vec<Thing>,
    room_synonyms: BTreeMap<String, String>,
    /// Open challenges: token -> host.
    challenges: BTreeMap<String, String>,
    /// Issued pairings: bridgeKey -> host.
    pairings: BTreeMap<String, String>,
    calls: BTreeMap<String, usize>,
    /// The last [`JOURNAL_KEPT`] calls' paths, in order of arrival.
    journal: std::collections::VecDeque<String>,
    slow: Duration,
    /// Calls slowed one by one (by path), on top of `slow`.
    slow_calls: BTreeMap<String, Duration>,
    /// Calls answered with a body that is not the protocol (by path).
    garbled: std::collections::BTreeSet<String>,
    music: music::Music,
    security: security::SecuritySystem,
}

struct Thing {
    /// What discovery answers; `state` is the thing's live state.
    info: DiscoveredThing,
    reachable: bool,
}

impl std::fmt::Debug for VirtualBridge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VirtualBridge").finish_non_exhaustive()
    }
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

fn capabilities(names: &[DeviceCapability]) -> Vec<Lenient<DeviceCapability>> {
    names.iter().copied().map(Lenient::Known).collect()
}

/// The bridge's things out of the box.
pub fn default_things() -> Vec<DiscoveredThing> {
    vec![
        DiscoveredThing {
            external_id: "lamp-hall".into(),
            kind: Lenient::Known(EndpointKind::Light),
            name: "Hall lamp".into(),
            room: Some("Hall".into()),
            address: None,
            capability_set: capabilities(&[DeviceCapability::Light]),
            capabilities: None,
            features: vec![],
            state: object(json!({ "light": { "power": false, "brightness": 100 } })),
        },
        DiscoveredThing {
            external_id: "plug-kitchen".into(),
            kind: Lenient::Known(EndpointKind::Other),
            name: "Kitchen plug".into(),
            room: None,
            address: None,
            capability_set: capabilities(&[DeviceCapability::Switch, DeviceCapability::Energy]),
            capabilities: None,
            features: vec![],
            state: object(json!({ "switch": { "power": false }, "energy": { "power": 0 } })),
        },
        DiscoveredThing {
            external_id: "speaker-living".into(),
            kind: Lenient::Known(EndpointKind::Speaker),
            name: "Living room speaker".into(),
            room: None,
            address: None,
            capability_set: capabilities(&[DeviceCapability::MediaPlayer]),
            capabilities: Some(object(json!({ "music": {
                "system": "local",
                "sourceModes": ["library", "search", "favorites"]
            } }))),
            features: vec![],
            state: object(
                json!({ "media_player": { "volume": 20, "muted": false, "playing": false } }),
            ),
        },
        DiscoveredThing {
            external_id: "sensor-porch".into(),
            kind: Lenient::Known(EndpointKind::Sensor),
            name: "Porch sensor".into(),
            room: Some("Garden".into()),
            address: None,
            capability_set: capabilities(&[DeviceCapability::Sensor]),
            capabilities: None,
            features: vec!["motion".into()],
            state: object(json!({ "sensor.motion": { "motion": false } })),
        },
    ]
}

/// The network controller's view of a phone on the household's network (the
/// bridge also plays a home's router): a thing with the NETWORK capability
/// and the `presence` feature whose state says whether it is connected and
/// when it was last seen (`{ network: { connected, lastSeen, link } }`).
pub fn phone(
    external_id: &str,
    name: &str,
    connected: bool,
    last_seen: time::OffsetDateTime,
) -> DiscoveredThing {
    DiscoveredThing {
        external_id: external_id.into(),
        kind: Lenient::Known(EndpointKind::Other),
        name: name.into(),
        room: None,
        address: None,
        capability_set: capabilities(&[DeviceCapability::Network]),
        capabilities: None,
        features: vec!["presence".into()],
        state: object(phone_state(connected, last_seen)),
    }
}

fn phone_state(connected: bool, last_seen: time::OffsetDateTime) -> Value {
    let seen = last_seen
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default();
    json!({ "network": { "connected": connected, "lastSeen": seen, "link": "wifi" } })
}

/// The bridge's room words (`lounge` means the living room).
pub fn default_room_synonyms() -> BTreeMap<String, String> {
    BTreeMap::from([("lounge".to_owned(), "living room".to_owned())])
}

fn random_secret(prefix: &str) -> String {
    let mut bytes = [0u8; 16];
    rand::rng().fill_bytes(&mut bytes);
    format!("{prefix}{}", hex::encode(bytes))
}

fn same(a: &str, b: &str) -> bool {
    a.as_bytes().ct_eq(b.as_bytes()).into()
}

impl VirtualBridge {
    /// A bridge with the [`default_things`], expecting `runtime_token` on
    /// every call and showing `pairing_code` when its link button is pressed.
    pub fn new(runtime_token: impl Into<String>, pairing_code: impl Into<String>) -> Self {
        Self {
            inner: Arc::new(Inner {
                runtime_token: runtime_token.into(),
                pairing_code: pairing_code.into(),
                state: Mutex::new(Bridge {
                    things: default_things()
                        .into_iter()
                        .map(|info| Thing {
                            info,
                            reachable: true,
                        })
                        .collect(),
                    room_synonyms: default_room_synonyms(),
                    challenges: BTreeMap::new(),
                    pairings: BTreeMap::new(),
                    calls: BTreeMap::new(),
                    journal: std::collections::VecDeque::new(),
                    slow: Duration::ZERO,
                    slow_calls: BTreeMap::new(),
                    garbled: std::collections::BTreeSet::new(),
                    music: music::Music::new(),
                    security: Default::default(),
                }),
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Bridge> {
        self.inner
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    // ---- test handles --------------------------------------------------

    /// Makes a thing answer or stop answering. False for an unknown id.
    pub fn set_reachable(&self, external_id: &str, reachable: bool) -> bool {
        let mut bridge = self.lock();
        match bridge.thing_mut(external_id) {
            Some(thing) => {
                thing.reachable = reachable;
                true
            }
            None => false,
        }
    }

    /// A physical change (someone pressed the plug's button): writes
    /// `state[capability][key] = value` as given, then what follows from it
    /// (a plug's watts). False for an unknown id.
    pub fn set_state(&self, external_id: &str, capability: &str, key: &str, value: Value) -> bool {
        let mut bridge = self.lock();
        match bridge.thing_mut(external_id) {
            Some(thing) => {
                write(&mut thing.info.state, capability, key, value);
                settle(&mut thing.info.state);
                true
            }
            None => false,
        }
    }

    /// Adds a thing, or replaces the one with the same `external_id` (which
    /// keeps its place in discovery order). The thing is reachable.
    pub fn add_thing(&self, thing: DiscoveredThing) {
        let mut bridge = self.lock();
        let thing = Thing {
            info: thing,
            reachable: true,
        };
        match bridge.thing_mut(&thing.info.external_id) {
            Some(existing) => *existing = thing,
            None => bridge.things.push(thing),
        }
    }

    /// A phone joins the household's network watch ([`phone`]), seen now.
    pub fn add_phone(&self, external_id: &str, name: &str, connected: bool) {
        self.add_thing(phone(
            external_id,
            name,
            connected,
            time::OffsetDateTime::now_utc(),
        ));
    }

    /// What the network controller says of a phone: on the network or not,
    /// last seen at `last_seen`. False for an unknown id.
    pub fn set_phone(
        &self,
        external_id: &str,
        connected: bool,
        last_seen: time::OffsetDateTime,
    ) -> bool {
        let mut bridge = self.lock();
        match bridge.thing_mut(external_id) {
            Some(thing) => {
                thing.info.state = object(phone_state(connected, last_seen));
                true
            }
            None => false,
        }
    }

    /// Removes a thing (unplugged for good). False for an unknown id.
    pub fn remove_thing(&self, external_id: &str) -> bool {
        let mut bridge = self.lock();
        let before = bridge.things.len();
        bridge.things.retain(|t| t.info.external_id != external_id);
        bridge.things.len() != before
    }

    /// A thing's current state, as the hardware has it.
    pub fn thing_state(&self, external_id: &str) -> Option<Map<String, Value>> {
        self.lock()
            .things
            .iter()
            .find(|t| t.info.external_id == external_id)
            .map(|t| t.info.state.clone())
    }

    /// Requests received per protocol path (`"v1/read"` -> 2), counted on
    /// arrival, refused ones included.
    pub fn calls(&self) -> BTreeMap<String, usize> {
        self.lock().calls.clone()
    }

    /// The paths of the last [`JOURNAL_KEPT`] calls, oldest first (which
    /// call came before which).
    pub fn journal(&self) -> Vec<String> {
        self.lock().journal.iter().cloned().collect()
    }

    /// Delays every answer by `delay` (zero: answer at once).
    pub fn set_slow(&self, delay: Duration) {
        self.lock().slow = delay;
    }

    /// Answers one call (`"v1/music/play"`) with a body that is not the
    /// protocol (or answers it properly again).
    pub fn set_garbled(&self, path: &str, garbled: bool) {
        let mut bridge = self.lock();
        if garbled {
            bridge.garbled.insert(path.to_owned());
        } else {
            bridge.garbled.remove(path);
        }
    }

    /// Delays the answers to one call (`"v1/music/play"`) by `delay`.
    pub fn set_slow_call(&self, path: &str, delay: Duration) {
        self.lock().slow_calls.insert(path.to_owned(), delay);
    }

    // ---- serving --------------------------------------------------------

    /// The bridge's routes (`POST /v1/...`), to serve or to nest under a
    /// prefix.
    pub fn router(&self) -> Router {
        fn route(path: &'static str) -> axum::routing::MethodRouter<VirtualBridge> {
            post(
                move |State(bridge): State<VirtualBridge>, headers: HeaderMap, body: Bytes| async move {
                    bridge.handle(path, &headers, &body).await
                },
            )
        }
        let mut router = Router::new();
        for path in [
            CONNECT_PATH,
            DISCOVER_PATH,
            READ_PATH,
            COMMAND_PATH,
            DISCONNECT_PATH,
            FAVOURITES_PATH,
            PLAY_PATH,
            SEARCH_PATH,
            REFRESH_PATH,
            SOUND_PATH,
            AUTHORITY_PATH,
        ] {
            router = router.route(&format!("/{path}"), route(path));
        }
        router.with_state(self.clone())
    }

    /// Serves the bridge on a listener the caller bound, in a task of the
    /// current runtime, until the handle is dropped.
    pub fn serve_listener(&self, listener: TcpListener) -> std::io::Result<RunningBridge> {
        let addr = listener.local_addr()?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let router = self.router();
        tokio::spawn(async move {
            let _ = axum::serve(listener, router)
                .with_graceful_shutdown(async move {
                    let _ = stopped.await;
                })
                .await;
        });
        Ok(RunningBridge {
            addr,
            url: format!("http://{addr}"),
            _stop: stop,
        })
    }

    /// Binds `addr` (e.g. `127.0.0.1:0`) and serves the bridge there.
    pub async fn serve(&self, addr: impl ToSocketAddrs) -> std::io::Result<RunningBridge> {
        self.serve_listener(TcpListener::bind(addr).await?)
    }

    // ---- the protocol ---------------------------------------------------

    async fn handle(&self, path: &'static str, headers: &HeaderMap, body: &[u8]) -> Response {
        let (slow, garbled) = {
            let mut bridge = self.lock();
            *bridge.calls.entry(path.to_owned()).or_default() += 1;
            if bridge.journal.len() == JOURNAL_KEPT {
                bridge.journal.pop_front();
            }
            bridge.journal.push_back(path.to_owned());
            (
                bridge.slow + bridge.slow_calls.get(path).copied().unwrap_or_default(),
                bridge.garbled.contains(path),
            )
        };
        if !slow.is_zero() {
            tokio::time::sleep(slow).await;
        }
        if garbled {
            return (StatusCode::OK, "this is not the protocol").into_response();
        }
        let presented = headers
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "));
        if !presented.is_some_and(|token| same(token, &self.inner.runtime_token)) {
            return refusal(
                StatusCode::UNAUTHORIZED,
                "the runtime token is missing or wrong",
            );
        }
        match path {
            CONNECT_PATH => match parse::<ConnectCall>(body) {
                Some(call) => answer(self.lock().connect(call, &self.inner.pairing_code)),
                None => bad_body(),
            },
            DISCOVER_PATH => self.paired::<IntegrationCall>(
                body,
                |c| &c.config,
                |bridge, _| answer(bridge.discover()),
            ),
            READ_PATH => self.paired::<ReadCall>(
                body,
                |c| &c.config,
                |bridge, call| answer(bridge.read(&call.external_ids)),
            ),
            COMMAND_PATH => self.paired::<CommandCall>(
                body,
                |c| &c.config,
                |bridge, call| answer(bridge.command(call)),
            ),
            DISCONNECT_PATH => self.paired::<IntegrationCall>(
                body,
                |c| &c.config,
                |bridge, call| {
                    if let Some(key) = bridge_key(&call.config) {
                        bridge.pairings.remove(key);
                    }
                    answer(json!({}))
                },
            ),
            FAVOURITES_PATH => self.paired::<FavouritesCall>(
                body,
                |c| &c.config,
                |bridge, call| answer(bridge.favourites(call)),
            ),
            PLAY_PATH => self.paired::<PlayCall>(
                body,
                |c| &c.config,
                |bridge, call| answer(bridge.play(call)),
            ),
            SEARCH_PATH => self.paired::<SearchCall>(
                body,
                |c| &c.config,
                |bridge, call| match bridge.search(call) {
                    Some(found) => answer(found),
                    None => refusal(StatusCode::NOT_FOUND, "this bridge has no catalogue"),
                },
            ),
            REFRESH_PATH => self.paired::<IntegrationCall>(
                body,
                |c| &c.config,
                |bridge, call| match bridge.refresh(call) {
                    Some(refreshed) => answer(refreshed),
                    None => refusal(StatusCode::NOT_FOUND, "this bridge has no sessions"),
                },
            ),
            SOUND_PATH => self.paired::<SoundCall>(
                body,
                |c| &c.config,
                |bridge, call| answer(bridge.sound(call)),
            ),
            AUTHORITY_PATH => self.paired::<AuthorityCall>(
                body,
                |c| &c.config,
                |bridge, call| answer(bridge.authority(call)),
            ),
            _ => refusal(StatusCode::NOT_FOUND, "no such call"),
        }
    }

    /// Parses a call that needs a pairing, checks its `bridgeKey`, and runs
    /// `then` on the bridge.
    fn paired<C: DeserializeOwned>(
        &self,
        body: &[u8],
        config: impl Fn(&C) -> &Map<String, Value>,
        then: impl FnOnce(&mut Bridge, &C) -> Response,
    ) -> Response {
        let Some(call) = parse::<C>(body) else {
            return bad_body();
        };
        let mut bridge = self.lock();
        let known = bridge_key(config(&call)).is_some_and(|presented| {
            // Compare with every issued key, in constant time each.
            bridge
                .pairings
                .keys()
                .fold(false, |found, key| found | same(presented, key))
        });
        if !known {
            return refusal(
                StatusCode::FORBIDDEN,
                "this bridge is not paired with that config (bridgeKey missing or forgotten)",
            );
        }
        then(&mut bridge, &call)
    }
}

fn bridge_key(config: &Map<String, Value>) -> Option<&str> {
    config.get("bridgeKey").and_then(Value::as_str)
}

/// A call's body, or `None` when it is not that call's JSON (answer
/// [`bad_body`]).
fn parse<C: DeserializeOwned>(body: &[u8]) -> Option<C> {
    serde_json::from_slice(body).ok()
}

fn bad_body() -> Response {
    refusal(StatusCode::BAD_REQUEST, "the body is not this call's JSON")
}

fn answer(body: impl serde::Serialize) -> Response {
    axum::Json(body).into_response()
}

fn refusal(status: StatusCode, message: &str) -> Response {
    (status, axum::Json(json!({ "error": message }))).into_response()
}

/// `state[capability][key] = value`, creating the capability's object.
fn write(state: &mut Map<String, Value>, capability: &str, key: &str, value: Value) {
    let entry = state
        .entry(capability.to_owned())
        .or_insert_with(|| Value::Object(Map::new()));
    if !entry.is_object() {
        *entry = Value::Object(Map::new());
    }
    if let Value::Object(controls) = entry {
        controls.insert(key.to_owned(), value);
    }
}

/// What follows from a change: a plug's watts follow its power.
fn settle(state: &mut Map<String, Value>) {
    let power = state
        .get("switch")
        .and_then(|s| s.get("power"))
        .and_then(Value::as_bool);
    if let (Some(on), Some(Value::Object(energy))) = (power, state.get_mut("energy")) {
        energy.insert("power".into(), json!(if on { PLUG_LOAD_WATTS } else { 0 }));
    }
}

/// What the hardware makes of a requested value, or why it refuses it.
fn hardware_value(capability: &str, key: &str, value: &Value) -> Result<Value, String> {
    let percent = |value: &Value| {
        value
            .as_f64()
            .filter(|n| (0.0..=100.0).contains(n))
            .ok_or_else(|| format!("{capability}.{key} must be a number from 0 to 100"))
    };
    match (capability, key) {
        ("light", "power")
        | ("switch", "power")
        | ("media_player", "muted")
        | ("media_player", "playing") => value
            .as_bool()
            .map(Value::Bool)
            .ok_or_else(|| format!("{capability}.{key} must be true or false")),
        // The bridge's dimmer has ten steps.
        ("light", "brightness") => {
            percent(value).map(|n| json!(((n / 10.0).round() * 10.0) as u64))
        }
        ("media_player", "volume") => percent(value).map(|n| json!(n.round() as u64)),
        // `#rrggbb`.
        ("light", "color") => value
            .as_str()
            .filter(|c| {
                c.len() == 7 && c.starts_with('#') && c[1..].chars().all(|d| d.is_ascii_hexdigit())
            })
            .map(|c| json!(c.to_ascii_lowercase()))
            .ok_or_else(|| "light.color must be #rrggbb".to_owned()),
        // Seconds into what it plays.
        ("media_player", "position") => value
            .as_u64()
            .map(|n| json!(n))
            .ok_or_else(|| "media_player.position must be whole seconds".to_owned()),
        // The group's coordinator, or null: on its own.
        ("media_player", "group") => match value {
            Value::Null => Ok(Value::Null),
            Value::String(s) if !s.is_empty() => Ok(value.clone()),
            _ => Err("media_player.group must be a speaker's id or null".to_owned()),
        },
        _ => Err(format!("the bridge cannot set {capability}.{key}")),
    }
}

impl Bridge {
    fn thing_mut(&mut self, external_id: &str) -> Option<&mut Thing> {
        self.things
            .iter_mut()
            .find(|t| t.info.external_id == external_id)
    }

    fn connect(&mut self, call: ConnectCall, pairing_code: &str) -> ConnectAnswer {
        let rejected = |reason: &str| ConnectAnswer::Rejected {
            reason: reason.into(),
        };
        let given = |key: &str| {
            call.input
                .get(key)
                .map(|value| value.trim())
                .filter(|value| !value.is_empty())
        };
        let host = match &call.challenge_token {
            // A challenge is good for one answer, right or wrong.
            Some(token) => match self.challenges.remove(token) {
                Some(host) => host,
                None => return rejected("this pairing attempt is unknown or used; start again"),
            },
            None => match given("host") {
                Some(host) => host.to_owned(),
                None => return rejected("enter the bridge's host (its address on your network)"),
            },
        };
        match given("pairingCode") {
            None if call.challenge_token.is_none() => {
                // A real bridge has little memory: open challenges are few.
                if self.challenges.len() >= MAX_OPEN_CHALLENGES {
                    self.challenges.pop_first();
                }
                let token = random_secret("ch_");
                self.challenges.insert(token.clone(), host);
                ConnectAnswer::Challenge {
                    token,
                    prompt: PAIRING_PROMPT.into(),
                    fields: vec![ConnectField {
                        key: "pairingCode".into(),
                        label: "Pairing code".into(),
                        kind: ConnectFieldKind::Text,
                        secret: true,
                        required: true,
                        placeholder: None,
                        help: Some("Shown on the bridge after its link button is pressed".into()),
                        options: None,
                    }],
                }
            }
            None => rejected("enter the code the bridge shows"),
            Some(code) if same(code, pairing_code) => {
                let key = random_secret("bk_");
                self.pairings.insert(key.clone(), host.clone());
                let config = object(json!({ "host": host, "bridgeKey": key }));
                match self.music.provider.as_mut() {
                    Some(provider) => {
                        let (config, account) = provider.connected(config);
                        ConnectAnswer::Connected {
                            config,
                            account: Some(account),
                        }
                    }
                    None => ConnectAnswer::Connected {
                        config,
                        account: None,
                    },
                }
            }
            Some(_) => rejected("wrong pairing code"),
        }
    }

    fn discover(&self) -> DiscoverAnswer {
        DiscoverAnswer {
            things: self.things.iter().map(|t| t.info.clone()).collect(),
            room_synonyms: self.room_synonyms.clone(),
        }
    }

    fn read(&self, external_ids: &[String]) -> ReadAnswer {
        let things = external_ids
            .iter()
            .map(|id| {
                let thing = self.things.iter().find(|t| &t.info.external_id == id);
                let (state, error) = match thing {
                    None => (None, Some(UNKNOWN_THING)),
                    Some(thing) if !thing.reachable => (None, Some(NOT_RESPONDING)),
                    Some(thing) => (Some(thing.info.state.clone()), None),
                };
                ThingRead {
                    external_id: id.clone(),
                    state,
                    error: error.map(str::to_owned),
                }
            })
            .collect();
        ReadAnswer { things }
    }

    fn command(&mut self, call: &CommandCall) -> CommandAnswer {
        let Some(thing) = self.thing_mut(&call.external_id) else {
            return CommandAnswer::Failed {
                reason: UNKNOWN_THING.into(),
            };
        };
        if !thing.reachable {
            return CommandAnswer::Failed {
                reason: NOT_RESPONDING.into(),
            };
        }
        let rejected = |reason: String| CommandAnswer::Rejected { reason };
        if call.command != "set" {
            return rejected("unsupported command".into());
        }
        let payload = call.payload.as_ref();
        let text = |key: &str| payload.and_then(|p| p.get(key)).and_then(Value::as_str);
        let (Some(capability), Some(key), Some(value)) = (
            text("capability"),
            text("key"),
            payload.and_then(|p| p.get("value")),
        ) else {
            return rejected("a set needs a capability, a key and a value".into());
        };
        if !thing.info.state.contains_key(capability) {
            return rejected(format!("this thing has no {capability}"));
        }
        // A speaker's source is set by playing; a local system can also
        // drop it (null: stop and forget what played), a cloud one cannot.
        let value = if (capability, key) == ("media_player", "source") {
            let system = thing
                .info
                .capabilities
                .as_ref()
                .and_then(|c| c.get("music"))
                .and_then(|m| m.get("system"))
                .and_then(Value::as_str);
            match (value, system) {
                (Value::Null, Some("local")) => {
                    write(
                        &mut thing.info.state,
                        "media_player",
                        "playing",
                        false.into(),
                    );
                    Value::Null
                }
                (Value::Null, _) => {
                    return rejected("this speaker system cannot clear its source".into());
                }
                _ => return rejected("a speaker's source is set by playing it".into()),
            }
        } else {
            match hardware_value(capability, key, value) {
                Ok(value) => value,
                Err(reason) => return rejected(reason),
            }
        };
        write(&mut thing.info.state, capability, key, value);
        settle(&mut thing.info.state);
        CommandAnswer::Applied {
            state: thing.info.state.clone(),
        }
    }
}

/// A served bridge: its address, until dropped (then it stops accepting and
/// finishes the calls in flight).
#[derive(Debug)]
pub struct RunningBridge {
    addr: SocketAddr,
    url: String,
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl RunningBridge {
    /// `http://127.0.0.1:PORT` (no trailing slash): the connector's server URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}
