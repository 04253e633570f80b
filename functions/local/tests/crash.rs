//! Acknowledged means stored, against the real `alyt` binary: devices of
//! one's own publish telemetry at QoS 1 in bursts while the process is
//! killed with SIGKILL inside the bursts and stopped once with SIGTERM,
//! restarted each time on the same data directory and ports; then the
//! platform's own records are counted (the telemetry history, the event
//! stream read from the start, a webhook receiver). And a SIGTERM with an
//! event stream open ends the process in time, ends the stream, says what it
//! drained, and frees the directory for the next start.
//!
//! The devices are plain rumqttc clients that behave as a careful device
//! does: a message counts as delivered once its PUBACK arrived, and one
//! that had no PUBACK when the connection dropped is sent again after the
//! reconnect as the retransmit it is (same packet id), even when the
//! restarted broker had no session for it (rumqttc would drop it). Half the
//! devices set DUP on it, as MQTT asks; the others do not, as rumqttc's own
//! retransmits never do.
//! Every message carries its sequence number (`{"metrics":{"seq":N}}`), and
//! the packet id of message N is N + 1: each device's packet ids are never
//! reused within the test, so a PUBACK names exactly one message.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use rumqttc::{AsyncClient, Event, EventLoop, MqttOptions, Outgoing, Packet, QoS, Request};
use serde_json::{Value, json};

/// Devices publishing at once.
const DEVICES: usize = 5;
/// Messages per device in one burst, published back to back.
const BURST: u64 = 20;
/// Bursts between two kills; the last of them is the one the kill lands in.
const BURSTS_PER_ROUND: usize = 4;
const BURST_EVERY: Duration = Duration::from_millis(250);
/// Kills with SIGKILL, then one stop with SIGTERM.
const KILLS: usize = 5;
/// Accepted by the local platform's bot check.
const BOT_TOKEN: &str = "XXXX.DUMMY.TOKEN.XXXX";
const PASSWORD: &str = "plum tractor season 42";
/// A delivery claimed by a worker that died is sent again when its lease
/// (60 s) ends: how long after the last kill the receiver may wait for it.
const WEBHOOK_SETTLE: Duration = Duration::from_secs(75);

// ---- the process ------------------------------------------------------------

/// How every start of one platform is configured.
struct Setup {
    dir: PathBuf,
    http: SocketAddr,
    mqtt: SocketAddr,
}

impl Setup {
    /// A fresh data directory and two free loopback ports, kept for every
    /// restart (devices and the webhook settings point at them).
    fn new(dir: &Path) -> Self {
        Self {
            dir: dir.to_path_buf(),
            http: free_port(),
            mqtt: free_port(),
        }
    }

    fn base(&self) -> String {
        format!("http://{}/v1", self.http)
    }

    /// Starts `alyt` and waits until it says it serves.
    async fn start(&self) -> Alyt {
        let mut child = Command::new(env!("CARGO_BIN_EXE_alyt"))
            .env("ALYT_DATA_DIR", &self.dir)
            .env("ALYT_HTTP_ADDR", self.http.to_string())
            .env("ALYT_MQTT_ADDR", self.mqtt.to_string())
            // Only the test's own devices publish.
            .env("ALYT_SIMULATOR", "off")
            .env("ALYT_OWNER_EMAIL", "owner@crash.example")
            .env("ALYT_OWNER_PASSWORD", PASSWORD)
            // The counting reads many pages.
            .env("ALYT_RATE_LIMIT_QUOTA", "1000000")
            // The webhook receiver is on loopback.
            .env("ALYT_WEBHOOKS_PRIVATE_NETWORKS", "on")
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .env_remove("ALYT_STOP_SECONDS")
            // A process killed mid-write could leave a torn line in the
            // store-calls log tests/run checks the template with; the other
            // tests reach the same calls.
            .env_remove("ALYT_STORE_CALLS_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("alyt starts");
        let output = Arc::new(Mutex::new(Vec::new()));
        for pipe in [
            Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
            Box::new(child.stderr.take().unwrap()),
        ] {
            let output = output.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                    output.lock().unwrap().push(line);
                }
            });
        }
        let mut alyt = Alyt {
            child,
            output,
            started: Instant::now(),
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if alyt.printed(|l| l.trim() == "Press Ctrl-C to stop.") {
                return alyt;
            }
            if let Some(status) = alyt.child.try_wait().unwrap() {
                panic!(
                    "alyt exited at start ({status}):\n{}",
                    alyt.lines().join("\n")
                );
            }
            assert!(
                Instant::now() < deadline,
                "alyt did not start within 30 s:\n{}",
                alyt.lines().join("\n")
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

fn free_port() -> SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
}

/// A running `alyt`; killed when dropped, so a failing test leaves no process.
struct Alyt {
    child: Child,
    /// Everything it printed, stdout and stderr (the log), line by line.
    output: Arc<Mutex<Vec<String>>>,
    started: Instant,
}

impl Alyt {
    fn lines(&self) -> Vec<String> {
        self.output.lock().unwrap().clone()
    }

    fn printed(&self, what: impl Fn(&str) -> bool) -> bool {
        self.output.lock().unwrap().iter().any(|l| what(l))
    }

    fn signal(&self, signal: libc::c_int) {
        let pid = libc::pid_t::try_from(self.child.id()).unwrap();
        // SAFETY: kill(2) on the pid of our own child, which has not been
        // reaped (so the pid cannot have been reused).
        let sent = unsafe { libc::kill(pid, signal) };
        assert_eq!(sent, 0, "kill({pid}, {signal})");
    }

    /// Waits for the process to end, at most `within`.
    async fn exited(&mut self, within: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + within;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

impl Drop for Alyt {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ---- the API ----------------------------------------------------------------

async fn call(
    http: &reqwest::Client,
    method: reqwest::Method,
    url: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> (u16, Value) {
    let mut request = http.request(method, url);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.expect("the request is answered");
    let status = response.status().as_u16();
    let bytes = response.bytes().await.unwrap_or_default();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

/// A verified developer: its sandbox tenant and home, and a DEV key.
struct Developer {
    session: String,
    tenant: String,
    home: String,
    key: String,
}

/// Signs a developer up, follows the verification link from the local
/// outbox, and makes a DEV key with `scopes`.
async fn developer(
    setup: &Setup,
    http: &reqwest::Client,
    email: &str,
    scopes: &[&str],
) -> Developer {
    let base = setup.base();
    let (status, body) = call(
        http,
        reqwest::Method::POST,
        &format!("{base}/developers/auth/signup"),
        None,
        Some(json!({
            "email": email, "password": PASSWORD, "displayName": "Crash Tester",
            "type": "INDIVIDUAL", "botToken": BOT_TOKEN,
        })),
    )
    .await;
    assert_eq!(status, 202, "{body}");
    let link = verification_link(&setup.dir, email).await;
    let (status, tokens) = call(http, reqwest::Method::GET, &link, None, None).await;
    assert_eq!(status, 200, "{tokens}");
    let session = tokens["accessToken"].as_str().unwrap().to_owned();
    let (status, me) = call(
        http,
        reqwest::Method::GET,
        &format!("{base}/developers/me"),
        Some(&session),
        None,
    )
    .await;
    assert_eq!(status, 200, "{me}");
    let tenant = me["sandboxTenantId"]
        .as_str()
        .expect("a sandbox")
        .to_owned();
    let (status, homes) = call(
        http,
        reqwest::Method::GET,
        &format!("{base}/properties?tenantId={tenant}"),
        Some(&session),
        None,
    )
    .await;
    assert_eq!(status, 200, "{homes}");
    let home = homes["items"][0]["id"].as_str().unwrap().to_owned();
    let (status, key) = call(
        http,
        reqwest::Method::POST,
        &format!("{base}/developers/keys"),
        Some(&session),
        Some(json!({ "name": "crash test", "scopes": scopes })),
    )
    .await;
    assert_eq!(status, 201, "{key}");
    Developer {
        session,
        tenant,
        home,
        key: key["secret"].as_str().unwrap().to_owned(),
    }
}

/// The verification link mailed to `to` (the local outbox, `.eml` files).
async fn verification_link(dir: &Path, to: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let mails = std::fs::read_dir(dir.join("outbox"))
            .into_iter()
            .flatten()
            .filter_map(|e| std::fs::read_to_string(e.ok()?.path()).ok());
        for mail in mails {
            if !mail.contains(&format!("To: {to}")) {
                continue;
            }
            let body = mail.replace("=\r\n", "").replace("\r\n", "\n");
            if let Some(link) = body
                .split_whitespace()
                .find(|w| w.starts_with("http") && w.contains("verify-email"))
            {
                return link.to_owned();
            }
        }
        assert!(Instant::now() < deadline, "no verification mail to {to}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A device registered in the sandbox, with its broker credentials.
#[derive(Clone)]
struct Registered {
    id: String,
    prefix: String,
    username: String,
    password: String,
}

async fn register(setup: &Setup, http: &reqwest::Client, dev: &Developer, n: usize) -> Registered {
    let (status, body) = call(
        http,
        reqwest::Method::POST,
        &format!("{}/devices/register", setup.base()),
        Some(&dev.key),
        Some(json!({
            "tenantId": dev.tenant, "propertyId": dev.home, "name": format!("Crash meter {n}"),
            "kind": "OTHER", "capabilities": ["SENSOR"], "serial": format!("SN-CRASH-{n:04}"),
        })),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    Registered {
        id: body["device"]["id"].as_str().unwrap().to_owned(),
        prefix: body["topicPrefix"].as_str().unwrap().to_owned(),
        username: body["credentials"]["username"].as_str().unwrap().to_owned(),
        password: body["credentials"]["password"].as_str().unwrap().to_owned(),
    }
}

/// Every value of the device's `seq` series, oldest first, page by page.
async fn stored_seqs(
    setup: &Setup,
    http: &reqwest::Client,
    dev: &Developer,
    device: &str,
) -> Vec<u64> {
    let mut seqs = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut url = format!(
            "{}/devices/{device}/telemetry?tenantId={}&metric=seq&order=asc&limit=200",
            setup.base(),
            dev.tenant
        );
        if let Some(cursor) = &cursor {
            url.push_str(&format!("&cursor={cursor}"));
        }
        let (status, page) = call(http, reqwest::Method::GET, &url, Some(&dev.key), None).await;
        assert_eq!(status, 200, "{page}");
        for point in page["items"].as_array().unwrap() {
            seqs.push(point["value"].as_f64().unwrap() as u64);
        }
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return seqs,
        }
    }
}

/// A `text/event-stream` response read block by block (an event or comments).
struct SseReader {
    response: reqwest::Response,
    buffer: String,
    closed: bool,
}

/// One server-sent block: its comments and, when it is an event, its id and data.
#[derive(Debug, Default)]
struct Block {
    comments: Vec<String>,
    id: Option<String>,
    data: Option<Value>,
}

impl SseReader {
    async fn open(url: &str, token: &str) -> SseReader {
        let response = reqwest::Client::new()
            .get(url)
            .bearer_auth(token)
            .header("accept", "text/event-stream")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "the stream opens");
        SseReader {
            response,
            buffer: String::new(),
            closed: false,
        }
    }

    /// The next block; `None` once the server closed the stream or `within` passed.
    async fn next(&mut self, within: Duration) -> Option<Block> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let text: String = self.buffer.drain(..end + 2).collect();
                let mut block = Block::default();
                for line in text.lines() {
                    if let Some(comment) = line.strip_prefix(':') {
                        block.comments.push(comment.trim().to_owned());
                    } else if let Some(id) = line.strip_prefix("id: ") {
                        block.id = Some(id.to_owned());
                    } else if let Some(data) = line.strip_prefix("data: ") {
                        block.data = serde_json::from_str(data).ok();
                    }
                }
                return Some(block);
            }
            if self.closed {
                return None;
            }
            match tokio::time::timeout_at(deadline, self.response.chunk()).await {
                Err(_) => return None,
                Ok(Ok(Some(bytes))) => self.buffer.push_str(&String::from_utf8_lossy(&bytes)),
                Ok(_) => self.closed = true,
            }
        }
    }
}

// ---- the webhook receiver -----------------------------------------------------

/// A loopback receiver answering 200 to every delivery, keeping each
/// envelope it was sent (duplicates included).
#[derive(Clone, Default)]
struct Receiver {
    seen: Arc<Mutex<Vec<Value>>>,
}

impl Receiver {
    async fn start(&self) -> SocketAddr {
        async fn hook(State(seen): State<Arc<Mutex<Vec<Value>>>>, body: Bytes) -> StatusCode {
            let envelope = serde_json::from_slice(&body).unwrap_or(Value::Null);
            seen.lock().unwrap().push(envelope);
            StatusCode::OK
        }
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let app = axum::Router::new()
            .route("/hook", axum::routing::post(hook))
            .with_state(self.seen.clone());
        tokio::spawn(async move { axum::serve(listener, app).await });
        addr
    }

    /// Deliveries per envelope id.
    fn by_id(&self) -> HashMap<String, usize> {
        let mut counts = HashMap::new();
        for envelope in self.seen.lock().unwrap().iter() {
            if let Some(id) = envelope["id"].as_str() {
                *counts.entry(id.to_owned()).or_default() += 1;
            }
        }
        counts
    }
}

// ---- the devices ------------------------------------------------------------

/// What one device did, by sequence number (message N has packet id N + 1).
#[derive(Debug, Default)]
struct DeviceLog {
    /// Messages handed to the client: sequence numbers 0..published.
    published: u64,
    /// Sent on the wire at least once.
    sent: BTreeSet<u64>,
    /// PUBACKed: the platform has promised to keep them.
    acked: BTreeSet<u64>,
    /// Sent again after a reconnect (at least once).
    resent: BTreeSet<u64>,
    /// CONNACKs received.
    connects: u64,
    /// A PUBACK for a message already acknowledged, or a retransmit whose
    /// packet id was not its sequence number + 1: the test's own
    /// bookkeeping went wrong.
    bookkeeping_errors: Vec<String>,
}

struct Device {
    registered: Registered,
    client: AsyncClient,
    log: Arc<Mutex<DeviceLog>>,
}

impl Device {
    /// Connects, and reconnects after every drop unless `paused`; a
    /// message sent again carries DUP when `dup`.
    fn connect(
        mqtt: SocketAddr,
        registered: Registered,
        dup: bool,
        paused: Arc<AtomicBool>,
    ) -> Device {
        let mut options =
            MqttOptions::new(&registered.username, mqtt.ip().to_string(), mqtt.port());
        options.set_credentials(&registered.username, &registered.password);
        options.set_clean_session(false);
        options.set_keep_alive(Duration::from_secs(5));
        // Packet ids are never reused within the test (see the module doc).
        options.set_inflight(u16::MAX);
        let (client, eventloop) = AsyncClient::new(options, 100_000);
        let log = Arc::new(Mutex::new(DeviceLog::default()));
        tokio::spawn(drive(eventloop, log.clone(), dup, paused));
        Device {
            registered,
            client,
            log,
        }
    }

    /// Publishes the next `n` messages back to back (queued to the client).
    async fn burst(&self, n: u64) {
        let topic = format!("{}/telemetry", self.registered.prefix);
        for _ in 0..n {
            let seq = {
                let mut log = self.log.lock().unwrap();
                log.published += 1;
                log.published - 1
            };
            let payload = json!({ "metrics": { "seq": seq } }).to_string();
            self.client
                .publish(&topic, QoS::AtLeastOnce, false, payload)
                .await
                .unwrap();
        }
    }
}

fn seq_of(publish: &rumqttc::Publish) -> Option<u64> {
    let body: Value = serde_json::from_slice(&publish.payload).ok()?;
    body["metrics"]["seq"].as_u64()
}

/// Drives one device's connection for the whole test, reconnecting after
/// every drop (once `paused` is false).
async fn drive(
    mut eventloop: EventLoop,
    log: Arc<Mutex<DeviceLog>>,
    dup: bool,
    paused: Arc<AtomicBool>,
) {
    // What was not acknowledged (or not yet sent) when the connection dropped.
    let mut unfinished: Vec<Request> = Vec::new();
    loop {
        match eventloop.poll().await {
            Ok(Event::Incoming(Packet::ConnAck(_))) => {
                // rumqttc drops what it holds when the broker has no session
                // (a restarted broker never has): the device sends it again.
                eventloop.pending.extend(unfinished.drain(..));
                log.lock().unwrap().connects += 1;
            }
            Ok(Event::Incoming(Packet::PubAck(ack))) => {
                let seq = u64::from(ack.pkid) - 1;
                let mut log = log.lock().unwrap();
                if !log.acked.insert(seq) {
                    log.bookkeeping_errors
                        .push(format!("a second PUBACK for message {seq}"));
                }
            }
            Ok(Event::Outgoing(Outgoing::Publish(pkid))) => {
                log.lock().unwrap().sent.insert(u64::from(pkid) - 1);
            }
            Ok(_) => {}
            Err(_) => {
                // rumqttc moved the unacknowledged publishes (packet id set)
                // and the queued ones (packet id 0, in order) to `pending`.
                {
                    let mut log = log.lock().unwrap();
                    for request in eventloop.pending.drain(..) {
                        let Request::Publish(mut publish) = request else {
                            continue;
                        };
                        if publish.pkid != 0 {
                            if seq_of(&publish).map(|s| s + 1) != Some(u64::from(publish.pkid)) {
                                log.bookkeeping_errors.push(format!(
                                    "packet id {} carries {:?}",
                                    publish.pkid,
                                    seq_of(&publish)
                                ));
                            }
                            publish.dup = dup;
                            log.resent.insert(u64::from(publish.pkid) - 1);
                        }
                        unfinished.push(Request::Publish(publish));
                    }
                }
                tokio::time::sleep(Duration::from_millis(25)).await;
                while paused.load(Ordering::SeqCst) {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
            }
        }
    }
}

/// A small xorshift for the kill delays, seeded from the clock or from
/// `ALYT_KILL_SEED` (the seed is printed, so a run's delays can be replayed).
struct Jitter(u64);

impl Jitter {
    fn new() -> Jitter {
        let seed = match std::env::var("ALYT_KILL_SEED") {
            Ok(seed) => seed.parse().expect("ALYT_KILL_SEED is a number"),
            Err(_) => std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64,
        } | 1;
        println!("kill delays from ALYT_KILL_SEED={seed}");
        Jitter(seed)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Totals over the devices: (published, sent, acked, connects).
fn totals(devices: &[Device]) -> (u64, u64, u64, u64) {
    devices.iter().fold((0, 0, 0, 0), |acc, d| {
        let log = d.log.lock().unwrap();
        (
            acc.0 + log.published,
            acc.1 + log.sent.len() as u64,
            acc.2 + log.acked.len() as u64,
            acc.3 + log.connects,
        )
    })
}

/// Waits until every device has connected `at_least` times in all.
async fn until_connected(devices: &[Device], at_least: u64) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while totals(devices).3 < at_least {
        assert!(
            Instant::now() < deadline,
            "the devices did not reconnect within 20 s"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Acknowledged means stored: whatever the platform acknowledged survives a
/// crash and a stop, stored once, announced once, delivered by webhook.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn acknowledged_telemetry_survives_kills_and_a_stop_stored_once_and_announced_once() {
    let test_started = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let setup = Setup::new(dir.path());
    let http = reqwest::Client::new();
    let mut alyt = setup.start().await;
    let mut starts = 1;

    let dev = developer(
        &setup,
        &http,
        "crash@example.com",
        &[
            "devices:read",
            "devices:write",
            "telemetry:read",
            "events:read",
            "webhooks:write",
        ],
    )
    .await;
    let receiver = Receiver::default();
    let hook = receiver.start().await;
    let (status, body) = call(
        &http,
        reqwest::Method::POST,
        &format!("{}/developers/webhooks", setup.base()),
        Some(&dev.key),
        Some(json!({ "url": format!("http://{hook}/hook"), "events": ["device.telemetry"] })),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let paused = Arc::new(AtomicBool::new(false));
    let mut devices = Vec::new();
    for n in 0..DEVICES {
        let registered = register(&setup, &http, &dev, n).await;
        devices.push(Device::connect(
            setup.mqtt,
            registered,
            n % 2 == 0,
            paused.clone(),
        ));
    }
    until_connected(&devices, DEVICES as u64).await;
    println!(
        "set up in {:.1} s: {DEVICES} devices, {BURST} messages a burst, a burst every {} ms",
        test_started.elapsed().as_secs_f64(),
        BURST_EVERY.as_millis()
    );

    // Bursts, the last of each round cut by the signal 0-40 ms after it began.
    let mut jitter = Jitter::new();
    let mut last_kill = Instant::now();
    // Per signal: what it was, and each device's acknowledged messages when
    // the process had ended (to tell which signal lost a message).
    let mut kills: Vec<(String, Vec<BTreeSet<u64>>)> = Vec::new();
    // Acknowledged messages the restarts after a SIGKILL found in the inbox.
    let mut inbox_read_back = 0u64;
    for round in 0..=KILLS {
        for burst in 0..BURSTS_PER_ROUND {
            for device in &devices {
                device.burst(BURST).await;
            }
            if burst + 1 < BURSTS_PER_ROUND {
                tokio::time::sleep(BURST_EVERY).await;
            }
        }
        let after = Duration::from_millis(jitter.below(41));
        tokio::time::sleep(after).await;
        let (signal, name) = if round < KILLS {
            (libc::SIGKILL, "SIGKILL")
        } else {
            (libc::SIGTERM, "SIGTERM")
        };
        let up = alyt.started.elapsed();
        alyt.signal(signal);
        // The devices stay away until the restarted platform was read.
        paused.store(true, Ordering::SeqCst);
        let (published, sent, acked, _) = totals(&devices);
        last_kill = Instant::now();
        let status = alyt
            .exited(Duration::from_secs(20))
            .await
            .unwrap_or_else(|| panic!("alyt did not end within 20 s of {name}"));
        let (_, _, acked_by_exit, _) = totals(&devices);
        let what = format!(
            "{name} {} ms into a burst, {:.1} s after start: {acked} acked so far, {} sent and not acked \
             (in flight), {} not yet sent; {} more acked before it exited ({status}, {} ms after the signal)",
            after.as_millis(),
            up.as_secs_f64(),
            sent - acked,
            published - sent,
            acked_by_exit - acked,
            last_kill.elapsed().as_millis(),
        );
        println!("{what}");
        let acked_at_exit: Vec<BTreeSet<u64>> = devices
            .iter()
            .map(|d| d.log.lock().unwrap().acked.clone())
            .collect();
        if round == KILLS {
            let stop_lines: Vec<String> = alyt
                .lines()
                .into_iter()
                .filter(|l| l.contains("drain") || l.to_lowercase().contains("stop"))
                .collect();
            println!("  the stop said: {stop_lines:#?}");
        }
        drop(alyt);
        let restart = Instant::now();
        alyt = setup.start().await;
        let serving = restart.elapsed();
        // What the platform holds before any device is back: what it
        // acknowledged must all be there, and what it stored without the
        // acknowledgement reaching the device will be sent again and must
        // be recognised (counted at the end as stored twice if it is not).
        let (mut stored_unacked, mut without_dup, mut acked_missing) = (0, 0, 0);
        for (n, (device, acked)) in devices.iter().zip(&acked_at_exit).enumerate() {
            let stored: BTreeSet<u64> = stored_seqs(&setup, &http, &dev, &device.registered.id)
                .await
                .into_iter()
                .collect();
            let unacked = stored.difference(acked).count();
            stored_unacked += unacked;
            if n % 2 == 1 {
                without_dup += unacked;
            }
            acked_missing += acked.difference(&stored).count();
        }
        // What the restart read back from the broker's inbox.
        let inbox_line = alyt
            .lines()
            .into_iter()
            .find(|l| l.contains("inbox's acknowledged device messages"));
        let field = |name: &str| -> u64 {
            inbox_line
                .as_deref()
                .and_then(|l| l.split_whitespace().find_map(|w| w.strip_prefix(name)))
                .and_then(|v| v.parse().ok())
                .unwrap_or(0)
        };
        let (read_back, already) = (field("read_back="), field("already_stored="));
        if signal == libc::SIGKILL {
            inbox_read_back += read_back;
        }
        paused.store(false, Ordering::SeqCst);
        starts += 1;
        until_connected(&devices, (DEVICES * starts) as u64).await;
        let what = format!(
            "{what}\n  restarted: serving after {} ms, the devices back after {} ms; it held {stored_unacked} \
             messages whose PUBACK never reached the device (each to be recognised when sent again, \
             {without_dup} of them without DUP) and lacked {acked_missing} it had acknowledged; its inbox \
             held {read_back} acknowledged messages, {already} of them stored already",
            serving.as_millis(),
            restart.elapsed().as_millis()
        );
        println!("{}", what.lines().skip(1).collect::<Vec<_>>().join("\n"));
        kills.push((what, acked_at_exit));
    }
    for burst in 0..2 {
        for device in &devices {
            device.burst(BURST).await;
        }
        if burst == 0 {
            tokio::time::sleep(BURST_EVERY).await;
        }
    }

    // Settle: every device has its every message acknowledged.
    let phase = Instant::now();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (published, _, acked, _) = totals(&devices);
        if acked == published || Instant::now() >= deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // The platform's records, read through its API.
    let mut stored: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    let settle = Instant::now() + Duration::from_secs(10);
    loop {
        stored.clear();
        for device in &devices {
            let seqs = stored_seqs(&setup, &http, &dev, &device.registered.id).await;
            stored.insert(device.registered.id.clone(), seqs);
        }
        let all_acked_in = devices.iter().all(|d| {
            let have: BTreeSet<u64> = stored[&d.registered.id].iter().copied().collect();
            d.log.lock().unwrap().acked.is_subset(&have)
        });
        // Acknowledged means stored: waiting here only forgives a platform
        // that stores after it acknowledges (counted below all the same if
        // it never does).
        if all_acked_in || Instant::now() >= settle {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let stored_points: usize = stored.values().map(Vec::len).sum();
    println!(
        "settled and read the telemetry history in {:.1} s",
        phase.elapsed().as_secs_f64()
    );
    let phase = Instant::now();

    // The event log from the start: every device.telemetry of these devices.
    let ours: BTreeSet<&str> = devices.iter().map(|d| d.registered.id.as_str()).collect();
    let mut events: Vec<(String, String, u64)> = Vec::new(); // (event id, device, seq)
    let mut stream = SseReader::open(
        &format!(
            "{}/developers/events/stream?events=device.telemetry",
            setup.base()
        ),
        &dev.key,
    )
    .await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let quiet = if events.len() >= stored_points {
            Duration::from_millis(1500)
        } else {
            deadline.saturating_duration_since(tokio::time::Instant::now())
        };
        let Some(block) = stream.next(quiet).await else {
            break;
        };
        if let (Some(id), Some(data)) = (block.id, block.data) {
            let device = data["data"]["deviceId"].as_str().unwrap_or_default();
            if ours.contains(device) {
                let seq = data["data"]["metrics"]["seq"].as_f64().unwrap() as u64;
                events.push((id, device.to_owned(), seq));
            }
        }
    }
    drop(stream);
    println!(
        "read the event stream from the start in {:.1} s",
        phase.elapsed().as_secs_f64()
    );
    let phase = Instant::now();

    // Every event reached the webhook receiver (waiting out a delivery lease
    // a kill left behind).
    let webhook_deadline = last_kill + WEBHOOK_SETTLE;
    let undelivered = loop {
        let delivered = receiver.by_id();
        let missing: Vec<&String> = events
            .iter()
            .map(|(id, _, _)| id)
            .filter(|id| !delivered.contains_key(*id))
            .collect();
        if missing.is_empty() || Instant::now() >= webhook_deadline {
            break missing.len();
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let delivered = receiver.by_id();
    let webhook_duplicates: usize = delivered.values().map(|n| n - 1).sum();
    println!(
        "waited {:.1} s for the webhook receiver",
        phase.elapsed().as_secs_f64()
    );

    // Counting.
    let mut acked_not_stored = 0;
    let mut stored_twice = 0;
    let mut never_acked = 0;
    let mut events_missing = 0;
    let mut events_doubled = 0;
    let mut bookkeeping = Vec::new();
    let mut retransmits = 0;
    let mut acked_total = 0;
    let mut published_total = 0;
    let mut lost_at = vec![0usize; kills.len() + 1];
    for (n, device) in devices.iter().enumerate() {
        let id = device.registered.id.as_str();
        let log = device.log.lock().unwrap();
        let mut stored_count: BTreeMap<u64, usize> = BTreeMap::new();
        for seq in &stored[id] {
            *stored_count.entry(*seq).or_default() += 1;
        }
        let mut event_count: BTreeMap<u64, usize> = BTreeMap::new();
        for (_, _, seq) in events.iter().filter(|(_, d, _)| d == id) {
            *event_count.entry(*seq).or_default() += 1;
        }
        let lost: Vec<u64> = log
            .acked
            .iter()
            .copied()
            .filter(|seq| !stored_count.contains_key(seq))
            .collect();
        if !lost.is_empty() {
            println!("device {n} ({id}): acknowledged, not stored: {lost:?}");
        }
        acked_not_stored += lost.len();
        for seq in &lost {
            // Lost by the first signal it was acknowledged before (the
            // last slot: acknowledged after the last start).
            let at = kills
                .iter()
                .position(|(_, acked)| acked[n].contains(seq))
                .unwrap_or(kills.len());
            lost_at[at] += 1;
        }
        let twice: Vec<(u64, usize)> = stored_count
            .iter()
            .filter(|(_, n)| **n > 1)
            .map(|(s, n)| (*s, *n))
            .collect();
        if !twice.is_empty() {
            println!(
                "device {n} ({id}, resends {}): stored more than once (seq, times): {twice:?}",
                if n % 2 == 0 {
                    "with DUP"
                } else {
                    "without DUP"
                }
            );
        }
        stored_twice += twice.iter().map(|(_, n)| n - 1).sum::<usize>();
        never_acked += (0..log.published)
            .filter(|s| !log.acked.contains(s))
            .count();
        for (seq, n) in &stored_count {
            let e = event_count.get(seq).copied().unwrap_or(0);
            events_missing += n.saturating_sub(e);
            events_doubled += e.saturating_sub(*n);
        }
        events_doubled += event_count
            .iter()
            .filter(|(seq, _)| !stored_count.contains_key(seq))
            .map(|(_, n)| n)
            .sum::<usize>();
        bookkeeping.extend(log.bookkeeping_errors.iter().cloned());
        retransmits += log.resent.len();
        acked_total += log.acked.len();
        published_total += log.published;
    }
    for ((what, _), lost) in kills.iter().zip(&lost_at) {
        println!("{what}\n  acknowledged by then and never stored: {lost}");
    }
    if lost_at[kills.len()] > 0 {
        println!(
            "acknowledged after the last start and never stored: {}",
            lost_at[kills.len()]
        );
    }
    println!(
        "after {} starts in {:.1} s: {published_total} published, {acked_total} acked, \
         {retransmits} of them sent again after a reconnect; {stored_points} points stored, \
         {} events, {} webhook deliveries ({webhook_duplicates} duplicates)\n\
         acknowledged but not stored: {acked_not_stored}\n\
         stored twice: {stored_twice}\n\
         events missing: {events_missing}, doubled: {events_doubled}\n\
         webhook events never delivered: {undelivered}\n\
         never acknowledged after settling: {never_acked}",
        starts,
        test_started.elapsed().as_secs_f64(),
        events.len(),
        delivered.values().sum::<usize>(),
    );
    assert!(
        bookkeeping.is_empty(),
        "the test's bookkeeping: {bookkeeping:?}"
    );
    assert_eq!(acked_not_stored, 0, "acknowledged but not stored");
    assert_eq!(stored_twice, 0, "stored twice");
    assert_eq!(events_missing, 0, "stored points without their event");
    assert_eq!(
        events_doubled, 0,
        "events doubled or without a stored point"
    );
    assert_eq!(undelivered, 0, "webhook events never delivered");
    assert_eq!(never_acked, 0, "messages never acknowledged after settling");
    // A kill inside a burst leaves the inbox's last segment behind: the
    // restarts went through reading it back.
    assert!(
        inbox_read_back > 0,
        "no restart after a SIGKILL read acknowledged messages back from the inbox"
    );
}

/// A graceful stop ends: SIGTERM with an event stream open ends the process
/// within the stop's bound (ALYT_STOP_SECONDS, 10 s) with status 0; the
/// stream is told and closed, the log says what was drained, and the next
/// start on the same directory works.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_with_a_stream_open_stops_in_time_and_the_next_start_works() {
    let dir = tempfile::tempdir().unwrap();
    let setup = Setup::new(dir.path());
    let http = reqwest::Client::new();
    let mut alyt = setup.start().await;
    let dev = developer(&setup, &http, "sigterm@example.com", &["events:read"]).await;
    let mut stream = SseReader::open(
        &format!("{}/developers/events/stream", setup.base()),
        &dev.session,
    )
    .await;
    let first = stream
        .next(Duration::from_secs(5))
        .await
        .expect("connected");
    assert!(first.comments.iter().any(|c| c == "connected"), "{first:?}");

    let printed_before = alyt.lines().len();
    let signalled = Instant::now();
    alyt.signal(libc::SIGTERM);
    let status = alyt
        .exited(alyt_local::STOP_WITHIN + Duration::from_secs(2))
        .await
        .unwrap_or_else(|| {
            panic!(
                "alyt did not exit within {:?} of SIGTERM with a stream open:\n{}",
                alyt_local::STOP_WITHIN,
                alyt.lines()[printed_before..].join("\n")
            )
        });
    let took = signalled.elapsed();
    // The pipes are read by threads: give them the last lines.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let said = alyt.lines()[printed_before..].to_vec();
    println!(
        "SIGTERM: exited {status} after {} ms; it said:\n{}",
        took.as_millis(),
        said.join("\n")
    );
    assert!(status.success(), "exit status 0, got {status}");
    assert!(said.iter().any(|l| l.trim() == "Stopped."), "{said:#?}");
    assert!(
        said.iter().any(|l| l.contains("drained")),
        "the log says what it drained: {said:#?}"
    );

    let mut comments = Vec::new();
    while let Some(block) = stream.next(Duration::from_secs(5)).await {
        comments.extend(block.comments);
    }
    assert!(stream.closed, "the stream ended: {comments:?}");
    assert!(
        comments
            .iter()
            .any(|c| c.contains("the platform is stopping")),
        "{comments:?}"
    );

    // The directory is free again: the next start works and serves.
    drop(alyt);
    let mut again = setup.start().await;
    let (status, _) = call(
        &http,
        reqwest::Method::GET,
        &format!("{}/capabilities", setup.base()),
        None,
        None,
    )
    .await;
    assert_eq!(status, 200);
    again.signal(libc::SIGTERM);
    let status = again
        .exited(alyt_local::STOP_WITHIN + Duration::from_secs(2))
        .await
        .expect("the second start stops too");
    assert!(status.success(), "{status}");
}
