//! Webhook delivery end to end on the embedded store, a ManualClock and a
//! loopback receiver that verifies every signature: the repository's keys and
//! conditions, the exact retry schedule, nothing lost while a receiver is down
//! or an endpoint disabled, the 50th-failure disable, two workers racing, and
//! SSRF targets refused before any connection.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use alyt_domain::ids::{TenantId, WebhookId};
use alyt_domain::{Clock, ManualClock};
use alyt_events::delivery::{self, DeliveryReport};
use alyt_events::outbound::{OutboundRequest, Refusal, SendResult};
use alyt_events::webhook::{DISABLE_AFTER, LEASE, MAX_ATTEMPTS, retry_schedule};
use alyt_events::{EventEnvelope, EventKind, EventLog, HttpSender, OutboundPolicy, WebhookSender};
use alyt_events::{signature, webhook};
use alyt_store::Store;
use alyt_store::conformance::start_time;
use alyt_store::repo::webhooks::{
    DeliveryStatus, EndpointStatus, HISTORY, Queued, RowWrite, WebhookEndpointRecord, WebhookRoute,
    Webhooks,
};
use alyt_store::sqlite::SqliteStore;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::post;
use axum::serve::ListenerExt;
use serde_json::json;
use time::{Duration, OffsetDateTime};

// ---------------------------------------------------------------- receiver

/// One request the receiver saw.
#[derive(Debug, Clone)]
struct Seen {
    event_id: String,
    kind_header: String,
    delivery_header: String,
    content_type: String,
    verified: bool,
    answered: u16,
}

struct ReceiverState {
    secret: Mutex<String>,
    clock: Arc<ManualClock>,
    answer: Mutex<u16>,
    redirect_to: Mutex<String>,
    seen: Mutex<Vec<Seen>>,
    redirects: AtomicUsize,
    connections: AtomicUsize,
}

#[derive(Clone)]
struct Receiver {
    addr: SocketAddr,
    state: Arc<ReceiverState>,
}

impl Receiver {
    async fn start(clock: Arc<ManualClock>, secret: &str, addr: SocketAddr) -> Receiver {
        let state = Arc::new(ReceiverState {
            secret: Mutex::new(secret.to_owned()),
            clock,
            answer: Mutex::new(200),
            redirect_to: Mutex::new(String::new()),
            seen: Mutex::new(Vec::new()),
            redirects: AtomicUsize::new(0),
            connections: AtomicUsize::new(0),
        });
        Self::serve(state, addr).await
    }

    /// (Re)starts serving `state` on `addr` (port 0: any).
    async fn serve(state: Arc<ReceiverState>, addr: SocketAddr) -> Receiver {
        let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
        let addr = listener.local_addr().unwrap();
        let counter = state.clone();
        let listener = listener.tap_io(move |_| {
            counter.connections.fetch_add(1, Ordering::SeqCst);
        });
        let app = axum::Router::new()
            .route("/hook", post(hook))
            .route("/redirect", post(redirect))
            .with_state(state.clone());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Receiver { addr, state }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    fn answer(&self, status: u16) {
        *self.state.answer.lock().unwrap() = status;
    }

    fn seen(&self) -> Vec<Seen> {
        self.state.seen.lock().unwrap().clone()
    }

    fn connections(&self) -> usize {
        self.state.connections.load(Ordering::SeqCst)
    }

    /// 2xx answers per envelope id.
    fn delivered_by_event(&self) -> HashMap<String, usize> {
        let mut counts = HashMap::new();
        for s in self.seen() {
            if (200..300).contains(&s.answered) {
                *counts.entry(s.event_id).or_default() += 1;
            }
        }
        counts
    }
}

async fn hook(
    State(state): State<Arc<ReceiverState>>,
    headers: HeaderMap,
    body: Bytes,
) -> impl IntoResponse {
    let get = |name: &str| {
        headers
            .get(name)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .unwrap_or_default()
    };
    let verified = signature::verify(
        state.secret.lock().unwrap().as_bytes(),
        get("x-svc-signature").as_bytes(),
        &body,
        state.clock.now().unix_timestamp(),
    )
    .is_ok();
    let envelope: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    let answered = *state.answer.lock().unwrap();
    state.seen.lock().unwrap().push(Seen {
        event_id: envelope["id"].as_str().unwrap_or_default().to_owned(),
        kind_header: get("x-svc-event"),
        delivery_header: get("x-svc-delivery"),
        content_type: get("content-type"),
        verified,
        answered,
    });
    StatusCode::from_u16(answered).unwrap()
}

async fn redirect(State(state): State<Arc<ReceiverState>>) -> impl IntoResponse {
    state.redirects.fetch_add(1, Ordering::SeqCst);
    let to = state.redirect_to.lock().unwrap().clone();
    (StatusCode::FOUND, [(header::LOCATION, to)])
}

// ---------------------------------------------------------------- setup

struct World {
    clock: Arc<ManualClock>,
    store: Arc<dyn Store>,
    log: EventLog,
    sender: Arc<dyn WebhookSender>,
    tenant: TenantId,
}

impl World {
    fn new() -> World {
        let clock = Arc::new(ManualClock::new(start_time()));
        let store: Arc<dyn Store> = Arc::new(SqliteStore::in_memory(clock.clone()).unwrap());
        World {
            log: EventLog::new(store.clone(), clock.clone()),
            clock,
            store,
            sender: Arc::new(HttpSender::new().unwrap()),
            tenant: TenantId::new(),
        }
    }

    fn now(&self) -> OffsetDateTime {
        self.clock.now()
    }

    fn repo(&self) -> Webhooks<'_> {
        Webhooks(self.store.as_ref())
    }

    async fn endpoint(&self, url: &str, events: &[EventKind]) -> WebhookEndpointRecord {
        // Bound to a live key of an active developer: nothing is sent otherwise.
        let key = alyt_store::fixtures::active_developer_key(self.store.as_ref(), self.now())
            .await
            .unwrap();
        let record = WebhookEndpointRecord {
            id: WebhookId::new(),
            developer_id: key.developer_id,
            key_id: key.id,
            route: WebhookRoute::Tenant {
                tenant_id: self.tenant,
            },
            url: url.to_owned(),
            events: events.iter().map(|k| k.as_str().to_owned()).collect(),
            description: Some("test".into()),
            secret: signature::generate_secret(),
            previous_secret: None,
            previous_secret_until: None,
            event_bridge: None,
            status: EndpointStatus::Active,
            consecutive_failures: 0,
            disabled_at: None,
            disabled_reason: None,
            created_at: self.now(),
        };
        self.repo().create_endpoint(&record).await.unwrap();
        record
    }

    /// Records an event and fans it out to the tenant's endpoints.
    async fn event(&self, kind: EventKind) -> EventEnvelope {
        let event = self
            .log
            .record(self.tenant, kind, json!({ "deviceId": "d1", "at": "now" }))
            .await
            .unwrap();
        let endpoints = delivery::endpoints_for(self.store.as_ref(), self.tenant, &[])
            .await
            .unwrap();
        delivery::enqueue(self.store.as_ref(), &endpoints, &event, self.now())
            .await
            .unwrap();
        event
    }

    async fn run(&self, policy: OutboundPolicy) -> DeliveryReport {
        delivery::deliver_due(
            self.store.clone(),
            self.clock.clone(),
            self.sender.clone(),
            Arc::new(alyt_events::bus::NoEventBus),
            policy,
            self.now(),
            100,
        )
        .await
        .unwrap()
    }

    async fn row(
        &self,
        endpoint: &WebhookEndpointRecord,
        event: &EventEnvelope,
    ) -> alyt_store::repo::webhooks::DeliveryRecord {
        self.repo()
            .delivery(endpoint.id, event.id.as_str())
            .await
            .unwrap()
            .unwrap()
    }

    async fn endpoint_now(&self, endpoint: &WebhookEndpointRecord) -> WebhookEndpointRecord {
        self.repo()
            .endpoint(endpoint.developer_id, endpoint.id)
            .await
            .unwrap()
            .unwrap()
    }
}

fn loopback() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

/// A port nothing listens on (bound, then released).
async fn closed_port() -> SocketAddr {
    let listener = tokio::net::TcpListener::bind(loopback()).await.unwrap();
    listener.local_addr().unwrap()
}

/// Times of the first attempt and every retry of a series started at `t0`.
fn expected_attempt_times(t0: OffsetDateTime, attempts: usize) -> Vec<OffsetDateTime> {
    let mut at = t0;
    let mut times = vec![t0];
    for delay in retry_schedule().into_iter().take(attempts - 1) {
        at += delay;
        times.push(at);
    }
    times
}

// ---------------------------------------------------------------- repository

/// Every row due at `at`, across the shards.
async fn due_now(w: &World, at: OffsetDateTime) -> Vec<alyt_store::repo::webhooks::DeliveryRecord> {
    let mut all = Vec::new();
    for shard in 0..alyt_store::repo::webhooks::DUE_SHARDS {
        all.extend(w.repo().due(shard, at, 100).await.unwrap());
    }
    all
}

#[tokio::test]
async fn repository_keys_conditions_and_the_last_fifty() {
    let w = World::new();
    let endpoint = w
        .endpoint("https://example.com/hook", &[EventKind::DeviceOnline])
        .await;
    let repo = w.repo();

    // Lookups: by developer, by route, by key; the secret never shows in Debug.
    assert_eq!(
        repo.list_endpoints(endpoint.developer_id).await.unwrap(),
        vec![endpoint.clone()]
    );
    assert!(!format!("{endpoint:?}").contains(&endpoint.secret));
    let other_tenant = WebhookRoute::Tenant {
        tenant_id: TenantId::new(),
    };
    assert!(repo.routed(&other_tenant).await.unwrap().is_empty());
    // A LIVE key's endpoint is routed by its connector: a tenant hears it
    // only when it installed that connector.
    let live = WebhookEndpointRecord {
        id: WebhookId::new(),
        route: WebhookRoute::Connector {
            definition_id: "acme-lights".into(),
        },
        ..endpoint.clone()
    };
    repo.create_endpoint(&live).await.unwrap();
    let ids = |list: Vec<WebhookEndpointRecord>| list.into_iter().map(|e| e.id).collect::<Vec<_>>();
    let plain = delivery::endpoints_for(w.store.as_ref(), w.tenant, &[])
        .await
        .unwrap();
    assert_eq!(ids(plain), vec![endpoint.id]);
    let installed = delivery::endpoints_for(w.store.as_ref(), w.tenant, &["acme-lights".into()])
        .await
        .unwrap();
    assert_eq!(ids(installed), vec![endpoint.id, live.id]);
    assert!(
        repo.delete_endpoint(live.developer_id, live.id)
            .await
            .unwrap()
    );

    // Fan-out: the filter and the tenant decide; twice is once.
    let telemetry = w.event(EventKind::DeviceTelemetry).await;
    assert!(
        repo.delivery(endpoint.id, telemetry.id.as_str())
            .await
            .unwrap()
            .is_none()
    );
    let event = w.event(EventKind::DeviceOnline).await;
    let again = delivery::enqueue(
        w.store.as_ref(),
        std::slice::from_ref(&endpoint),
        &event,
        w.now(),
    )
    .await
    .unwrap();
    assert_eq!(again.duplicates, vec![endpoint.id]);
    let foreign = EventEnvelope {
        tenant_id: TenantId::new(),
        ..event.clone()
    };
    let report = delivery::enqueue(
        w.store.as_ref(),
        std::slice::from_ref(&endpoint),
        &foreign,
        w.now(),
    )
    .await
    .unwrap();
    assert!(
        report.queued.is_empty() && report.duplicates.is_empty(),
        "another tenant's event"
    );

    // The row carries the exact body, and only waiting rows are due.
    let row = w.row(&endpoint, &event).await;
    assert_eq!(row.status, DeliveryStatus::Pending);
    assert_eq!(row.payload, serde_json::to_string(&event).unwrap());
    assert_eq!(due_now(&w, w.now()).await.len(), 1);
    assert!(
        due_now(&w, w.now() - Duration::microseconds(1))
            .await
            .is_empty()
    );

    // A claim is a conditional write: of two workers holding the same read,
    // exactly one wins.
    let claimed = webhook::claim(&row, w.now()).unwrap();
    assert_eq!(
        repo.replace(&row, &claimed).await.unwrap(),
        RowWrite::Written
    );
    assert_eq!(repo.replace(&row, &claimed).await.unwrap(), RowWrite::Stale);
    assert!(due_now(&w, w.now()).await.is_empty(), "leased");
    assert_eq!(
        due_now(&w, w.now() + LEASE).await.len(),
        1,
        "the lease ends"
    );

    // A hold needs a disabled endpoint.
    let held = webhook::hold(&claimed, w.now());
    assert_eq!(
        repo.hold(&claimed, &held).await.unwrap(),
        RowWrite::EndpointChanged
    );

    // One disable wins; enable resets.
    let e = (endpoint.developer_id, endpoint.id);
    assert!(
        repo.disable_if_failing(e.0, e.1, 1, w.now())
            .await
            .unwrap()
            .is_none(),
        "no failures yet"
    );
    w.store
        .update(
            &alyt_store::repo::webhooks::endpoint_key(e.0, e.1),
            vec![alyt_store::UpdateAction::Add(
                "consecutiveFailures".into(),
                3,
            )],
            None,
        )
        .await
        .unwrap();
    let disabled = repo
        .disable_if_failing(e.0, e.1, 3, w.now())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (disabled.status, disabled.disabled_at),
        (EndpointStatus::Disabled, Some(w.now()))
    );
    assert!(
        repo.disable_if_failing(e.0, e.1, 3, w.now())
            .await
            .unwrap()
            .is_none()
    );
    assert_eq!(repo.hold(&claimed, &held).await.unwrap(), RowWrite::Written);
    assert_eq!(
        repo.held(endpoint.id, 10, None).await.unwrap().0,
        vec![held]
    );
    assert!(
        due_now(&w, w.now() + LEASE).await.is_empty(),
        "held rows are not due"
    );
    let enabled = repo.enable(e.0, e.1).await.unwrap().unwrap();
    assert_eq!(
        (
            enabled.status,
            enabled.consecutive_failures,
            enabled.disabled_at
        ),
        (EndpointStatus::Active, 0, None)
    );
    assert!(
        repo.enable(e.0, e.1).await.unwrap().is_none(),
        "already active"
    );

    // The log: the newest fifty, newest first, in one query.
    for _ in 0..60 {
        w.clock.advance(Duration::milliseconds(5));
        w.event(EventKind::DeviceOnline).await;
    }
    let recent = repo.recent_deliveries(endpoint.id, 100).await.unwrap();
    assert_eq!(recent.len(), HISTORY as usize);
    assert!(recent.windows(2).all(|p| p[0].event_id > p[1].event_id));

    // Removing the endpoint fails its waiting rows at the next run.
    assert!(repo.delete_endpoint(e.0, e.1).await.unwrap());
    let report = w.run(OutboundPolicy::HOSTED).await;
    assert_eq!((report.attempted, report.failed), (0, 60));
}

#[tokio::test]
async fn a_held_row_written_after_a_reenable_is_written_pending() {
    let w = World::new();
    let mut endpoint = w
        .endpoint("https://example.com/hook", &[EventKind::DeviceOnline])
        .await;
    // The caller read the endpoint as disabled, but it was re-enabled since.
    endpoint.status = EndpointStatus::Disabled;
    let event = w
        .log
        .record(w.tenant, EventKind::DeviceOnline, json!({}))
        .await
        .unwrap();
    let queued = delivery::enqueue_to(w.store.as_ref(), &endpoint, &event, w.now())
        .await
        .unwrap();
    assert_eq!(queued, Queued::Queued);
    assert_eq!(
        w.row(&endpoint, &event).await.status,
        DeliveryStatus::Pending
    );
}

// ---------------------------------------------------------------- delivery

#[tokio::test]
async fn receiver_down_then_up_nothing_lost_and_the_retry_times_are_exact() {
    let w = World::new();
    let addr = closed_port().await;
    let endpoint = w
        .endpoint(
            &format!("http://{addr}/hook"),
            &[EventKind::DeviceOnline, EventKind::DeviceOffline],
        )
        .await;
    let t0 = w.now();
    let events = vec![
        w.event(EventKind::DeviceOnline).await,
        w.event(EventKind::DeviceOffline).await,
        w.event(EventKind::DeviceOnline).await,
    ];
    w.event(EventKind::DeviceTelemetry).await; // not subscribed
    let series: Vec<_> = {
        let mut ids = Vec::new();
        for e in &events {
            ids.push(w.row(&endpoint, e).await.id);
        }
        ids
    };

    // Down: six attempts each, exactly on schedule; nothing runs early.
    let expected = expected_attempt_times(t0, 6);
    for (n, at) in expected.iter().enumerate() {
        if n > 0 {
            w.clock.set(*at - Duration::seconds(1));
            assert_eq!(
                w.run(OutboundPolicy::LOCAL).await.attempted,
                0,
                "early at {n}"
            );
        }
        w.clock.set(*at);
        let report = w.run(OutboundPolicy::LOCAL).await;
        assert_eq!((report.attempted, report.retrying), (3, 3), "attempt {n}");
        for e in &events {
            let row = w.row(&endpoint, e).await;
            assert_eq!(row.status, DeliveryStatus::Retrying);
            assert_eq!(row.attempts as usize, n + 1);
            assert_eq!(row.last_attempt_at, Some(*at));
            assert_eq!(row.next_attempt_at, Some(*at + retry_schedule()[n]));
            assert!(
                row.last_error
                    .as_deref()
                    .unwrap()
                    .starts_with("connection failed")
            );
        }
    }
    assert_eq!(w.endpoint_now(&endpoint).await.consecutive_failures, 18);

    // Up on the same address: the next attempt delivers each event once.
    let receiver = Receiver::start(w.clock.clone(), &endpoint.secret, addr).await;
    w.clock.set(expected[5] + retry_schedule()[5]);
    let report = w.run(OutboundPolicy::LOCAL).await;
    assert_eq!((report.attempted, report.delivered), (3, 3));
    let seen = receiver.seen();
    assert_eq!(seen.len(), 3);
    assert!(
        seen.iter()
            .all(|s| s.verified && s.content_type == "application/json")
    );
    let counts = receiver.delivered_by_event();
    for (e, series) in events.iter().zip(&series) {
        assert_eq!(counts.get(e.id.as_str()), Some(&1), "{}", e.id);
        let s = seen.iter().find(|s| s.event_id == e.id.as_str()).unwrap();
        assert_eq!(s.kind_header, e.kind.as_str());
        assert_eq!(s.delivery_header, series.to_string(), "one id per series");
        let row = w.row(&endpoint, e).await;
        assert_eq!(
            (row.status, row.attempts, row.last_response_code),
            (DeliveryStatus::Delivered, 7, Some(200))
        );
        // The stored signature is the one that was sent, over the stored body.
        let sig = row.signature.unwrap();
        assert!(
            signature::verify(
                endpoint.secret.as_bytes(),
                sig.as_bytes(),
                row.payload.as_bytes(),
                w.now().unix_timestamp()
            )
            .is_ok()
        );
    }
    assert_eq!(
        w.endpoint_now(&endpoint).await.consecutive_failures,
        0,
        "a success resets"
    );

    // Nothing is sent twice.
    w.clock.advance(Duration::days(1));
    assert_eq!(w.run(OutboundPolicy::LOCAL).await.attempted, 0);
    assert_eq!(receiver.seen().len(), 3);
}

#[tokio::test]
async fn twenty_attempts_on_the_pinned_schedule_then_failed() {
    let w = World::new();
    let receiver = Receiver::start(w.clock.clone(), "", loopback()).await;
    receiver.answer(503);
    let endpoint = w
        .endpoint(&receiver.url("/hook"), &[EventKind::CommandResult])
        .await;
    *receiver.state.secret.lock().unwrap() = endpoint.secret.clone();
    let t0 = w.now();
    let event = w.event(EventKind::CommandResult).await;

    let mut attempts = Vec::new();
    loop {
        let row = w.row(&endpoint, &event).await;
        let Some(next) = row.next_attempt_at else {
            break;
        };
        w.clock.set(next);
        w.run(OutboundPolicy::LOCAL).await;
        attempts.push(next);
    }
    assert_eq!(attempts, expected_attempt_times(t0, MAX_ATTEMPTS as usize));
    assert_eq!(
        *attempts.last().unwrap() - t0,
        Duration::hours(13) + Duration::minutes(3) + Duration::seconds(30)
    );
    let row = w.row(&endpoint, &event).await;
    assert_eq!(
        (row.status, row.attempts, row.last_response_code),
        (DeliveryStatus::Failed, MAX_ATTEMPTS, Some(503))
    );
    let seen = receiver.seen();
    assert_eq!(seen.len(), MAX_ATTEMPTS as usize);
    assert!(
        seen.iter()
            .all(|s| s.verified && s.delivery_header == row.id.to_string())
    );
    let health = w.endpoint_now(&endpoint).await;
    assert_eq!(
        (health.status, health.consecutive_failures),
        (EndpointStatus::Active, 20)
    );
    w.clock.advance(Duration::days(2));
    assert_eq!(w.run(OutboundPolicy::LOCAL).await.attempted, 0);
}

#[tokio::test]
async fn the_fiftieth_failure_disables_and_nothing_is_lost() {
    let w = World::new();
    let receiver = Receiver::start(w.clock.clone(), "", loopback()).await;
    receiver.answer(500);
    let endpoint = w
        .endpoint(&receiver.url("/hook"), &[EventKind::DeviceOnline])
        .await;
    *receiver.state.secret.lock().unwrap() = endpoint.secret.clone();
    let mut events = Vec::new();
    for _ in 0..3 {
        events.push(w.event(EventKind::DeviceOnline).await);
    }

    // Three series in step: attempts 1..16 are 48 failures, then the first two
    // 17th attempts are the 49th and 50th; the third is held, never sent.
    let mut disabled = Vec::new();
    for _ in 0..40 {
        let next = w
            .repo()
            .recent_deliveries(endpoint.id, 50)
            .await
            .unwrap()
            .iter()
            .filter_map(|r| r.next_attempt_at)
            .min();
        let Some(next) = next else { break };
        w.clock.set(next);
        disabled.extend(w.run(OutboundPolicy::LOCAL).await.disabled);
    }
    assert_eq!(receiver.seen().len(), DISABLE_AFTER as usize);
    assert_eq!(disabled.len(), 1, "reported once: {disabled:?}");
    assert_eq!(disabled[0].endpoint_id, endpoint.id);
    assert_eq!(disabled[0].developer_id, endpoint.developer_id);
    assert_eq!(disabled[0].consecutive_failures, DISABLE_AFTER);
    let state = w.endpoint_now(&endpoint).await;
    assert_eq!(
        (state.status, state.consecutive_failures),
        (EndpointStatus::Disabled, DISABLE_AFTER)
    );
    assert!(state.disabled_at.is_some());

    // Everything undelivered stays visible, held; new events are held too.
    let late = w.event(EventKind::DeviceOnline).await;
    events.push(late.clone());
    let log = w.repo().recent_deliveries(endpoint.id, 50).await.unwrap();
    assert_eq!(log.len(), 4);
    assert!(
        log.iter().all(|r| r.status == DeliveryStatus::Held),
        "{log:?}"
    );
    let attempts: Vec<u32> = log.iter().rev().map(|r| r.attempts).collect();
    assert_eq!(attempts, vec![17, 17, 16, 0]);
    w.clock.advance(Duration::days(1));
    assert_eq!(w.run(OutboundPolicy::LOCAL).await.attempted, 0);
    assert_eq!(receiver.seen().len(), DISABLE_AFTER as usize);

    // Re-enable: every held row is a new series, due at once, delivered once.
    receiver.answer(204);
    let reenabled = delivery::reenable(
        w.store.as_ref(),
        endpoint.developer_id,
        endpoint.id,
        w.now(),
    )
    .await
    .unwrap()
    .unwrap();
    assert_eq!(reenabled.requeued, 4);
    assert_eq!(reenabled.endpoint.status, EndpointStatus::Active);
    let report = w.run(OutboundPolicy::LOCAL).await;
    assert_eq!((report.attempted, report.delivered), (4, 4));
    let counts = receiver.delivered_by_event();
    for e in &events {
        assert_eq!(counts.get(e.id.as_str()), Some(&1));
    }
    assert!(receiver.seen().iter().all(|s| s.verified));
    assert!(
        delivery::reenable(
            w.store.as_ref(),
            endpoint.developer_id,
            endpoint.id,
            w.now()
        )
        .await
        .unwrap()
        .is_none(),
        "only a disabled endpoint is re-enabled"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_workers_never_send_the_same_attempt() {
    let w = World::new();
    let receiver = Receiver::start(w.clock.clone(), "", loopback()).await;
    let mut endpoints = Vec::new();
    for _ in 0..4 {
        endpoints.push(
            w.endpoint(&receiver.url("/hook"), &[EventKind::ThingState])
                .await,
        );
    }
    // (Signatures differ per endpoint; this test counts, the others verify.)
    let mut events = Vec::new();
    for _ in 0..10 {
        events.push(w.event(EventKind::ThingState).await);
    }
    let (a, b) = tokio::join!(w.run(OutboundPolicy::LOCAL), w.run(OutboundPolicy::LOCAL));
    assert_eq!(a.attempted + b.attempted, 40, "{a:?} {b:?}");
    assert_eq!(a.delivered + b.delivered, 40);
    let mut per_delivery: HashMap<String, usize> = HashMap::new();
    for s in receiver.seen() {
        *per_delivery.entry(s.delivery_header).or_default() += 1;
    }
    assert_eq!(per_delivery.len(), 40);
    assert!(per_delivery.values().all(|&n| n == 1));
}

// ---------------------------------------------------------------- SSRF

fn strict_http() -> OutboundPolicy {
    // http allowed, so the address is the only reason to refuse.
    OutboundPolicy {
        require_https: false,
        allow_private_networks: false,
    }
}

#[tokio::test]
async fn ssrf_targets_get_no_connection_unless_private_networks_are_allowed() {
    let clock = Arc::new(ManualClock::new(start_time()));
    let v4 = Receiver::start(clock.clone(), "k", loopback()).await;
    let port = v4.addr.port();
    // The same port on ::1 when free, so "localhost" reaches a receiver either way.
    let v6_addr: SocketAddr = format!("[::1]:{port}").parse().unwrap();
    let v6 = match tokio::net::TcpListener::bind(v6_addr).await {
        Ok(probe) => {
            drop(probe);
            Some(Receiver::serve(v4.state.clone(), v6_addr).await)
        }
        Err(_) => None,
    };
    let sender = HttpSender::new().unwrap();
    let request = |url: String| OutboundRequest {
        url,
        event_kind: "device.online".into(),
        delivery_id: "d".into(),
        signature: signature::sign(b"k", clock.now().unix_timestamp(), b"{}"),
        body: "{}".into(),
    };

    let reachable = [
        format!("http://127.0.0.1:{port}/hook"),
        format!("http://[::ffff:127.0.0.1]:{port}/hook"),
        format!("http://2130706433:{port}/hook"),
        format!("http://0x7f000001:{port}/hook"),
        format!("http://0177.0.0.1:{port}/hook"),
        format!("http://127.1:{port}/hook"),
        format!("http://localhost:{port}/hook"),
    ];
    let unreachable_here = [
        format!("http://10.0.0.1:{port}/hook"),
        format!("http://172.16.0.1:{port}/hook"),
        format!("http://192.168.0.1:{port}/hook"),
        format!("http://100.64.0.1:{port}/hook"),
        format!("http://169.254.1.1:{port}/hook"),
        "http://169.254.169.254/latest/meta-data/".to_owned(),
        "http://[fd00:ec2::254]/latest/meta-data/".to_owned(),
        "http://[fe80::1]/".to_owned(),
        "http://0.0.0.0/".to_owned(),
    ];
    let mut off: Vec<String> = reachable.iter().chain(&unreachable_here).cloned().collect();
    if v6.is_some() {
        off.push(format!("http://[::1]:{port}/hook"));
    }
    for url in &off {
        let result = sender.send(strict_http(), request(url.clone())).await;
        assert!(
            matches!(result, SendResult::Refused(Refusal::Address { .. })),
            "{url}: {result:?}"
        );
    }
    assert_eq!(v4.connections(), 0);
    assert_eq!(v6.as_ref().map_or(0, Receiver::connections), 0);
    assert!(v4.seen().is_empty());

    // The hosted policy refuses plain http before anything else.
    assert_eq!(
        sender
            .send(
                OutboundPolicy::HOSTED,
                request(format!("http://127.0.0.1:{port}/hook"))
            )
            .await,
        SendResult::Refused(Refusal::HttpsRequired)
    );

    // With the switch on, every loopback form connects (never any address
    // off this machine: the other private targets are only checked refused).
    let mut on: Vec<String> = reachable.to_vec();
    if v6.is_some() {
        on.push(format!("http://[::1]:{port}/hook"));
    }
    for url in &on {
        let result = sender
            .send(OutboundPolicy::LOCAL, request(url.clone()))
            .await;
        assert_eq!(result, SendResult::Answered(200), "{url}");
    }
    assert_eq!(v4.seen().len(), on.len());
    assert!(v4.seen().iter().all(|s| s.verified));
    // Metadata addresses stay refused even then.
    for url in [
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/",
    ] {
        assert!(matches!(
            sender
                .send(OutboundPolicy::LOCAL, request(url.into()))
                .await,
            SendResult::Refused(Refusal::Address { .. })
        ));
    }
}

#[tokio::test]
async fn redirects_are_never_followed() {
    let w = World::new();
    let receiver = Receiver::start(w.clock.clone(), "", loopback()).await;
    *receiver.state.redirect_to.lock().unwrap() = receiver.url("/hook");
    let endpoint = w
        .endpoint(&receiver.url("/redirect"), &[EventKind::DeviceOnline])
        .await;
    let event = w.event(EventKind::DeviceOnline).await;
    // Even with private networks allowed, a 302 to 127.0.0.1 is a failure.
    let report = w.run(OutboundPolicy::LOCAL).await;
    assert_eq!((report.attempted, report.retrying), (1, 1));
    assert_eq!(receiver.state.redirects.load(Ordering::SeqCst), 1);
    assert!(
        receiver.seen().is_empty(),
        "the redirect target saw nothing"
    );
    let row = w.row(&endpoint, &event).await;
    assert_eq!(
        (row.status, row.last_response_code),
        (DeliveryStatus::Retrying, Some(302))
    );
}

#[tokio::test]
async fn the_worker_records_a_refusal_as_a_failed_attempt() {
    let w = World::new();
    let receiver = Receiver::start(w.clock.clone(), "", loopback()).await;
    let port = receiver.addr.port();
    let endpoint = w
        .endpoint(
            &format!("http://0x7f000001:{port}/hook?token=s3cret"),
            &[EventKind::DeviceOnline],
        )
        .await;
    let event = w.event(EventKind::DeviceOnline).await;
    let report = w.run(strict_http()).await;
    assert_eq!((report.attempted, report.retrying), (1, 1));
    assert_eq!(receiver.connections(), 0);
    let row = w.row(&endpoint, &event).await;
    let error = row.last_error.unwrap();
    assert!(
        error.contains("refused by the outbound policy")
            && error.contains("127.0.0.1, a loopback address"),
        "{error}"
    );
    assert!(!error.contains("s3cret"));
    assert_eq!(row.next_attempt_at, Some(w.now() + retry_schedule()[0]));
    // The same endpoint is fine where private networks are allowed.
    w.clock.advance(retry_schedule()[0]);
    assert_eq!(w.run(OutboundPolicy::LOCAL).await.attempted, 1);
    assert_eq!(receiver.seen().len(), 1);
}

/// The hosted worker's backlog metric: how long the oldest due delivery has
/// waited; nothing due, nothing waits.
#[tokio::test]
async fn the_backlog_age_is_how_long_the_oldest_due_delivery_waited() {
    let w = World::new();
    assert_eq!(
        delivery::backlog_age(w.store.as_ref(), w.now())
            .await
            .unwrap(),
        None
    );
    let addr = closed_port().await;
    let endpoint = w
        .endpoint(&format!("http://{addr}/hook"), &[EventKind::DeviceOnline])
        .await;
    let event = w.event(EventKind::DeviceOnline).await;
    let due_at = w.row(&endpoint, &event).await.next_attempt_at.unwrap();
    w.clock.set(due_at + Duration::seconds(90));
    assert_eq!(
        delivery::backlog_age(w.store.as_ref(), w.now())
            .await
            .unwrap(),
        Some(Duration::seconds(90))
    );
    // Attempted (and failed): due again later, so nothing waits now.
    assert_eq!(w.run(OutboundPolicy::LOCAL).await.attempted, 1);
    assert_eq!(
        delivery::backlog_age(w.store.as_ref(), w.now())
            .await
            .unwrap(),
        None
    );
}

// ---------------------------------------------------------------- recovery

/// A recovery since a time sends the endpoint every event of its filter it
/// did not get (never queued, failed, waiting for a retry) once, in event
/// order, at most a batch per pass and none while the last batch waits for
/// its attempt; what was delivered is left alone; a second recovery of the
/// endpoint is refused while one runs; a restart on the same database file
/// resumes where the last batch left off.
#[tokio::test]
async fn a_recovery_sends_what_was_missed_once_in_order_and_resumes_after_a_restart() {
    use alyt_events::recovery::{self, RECOVERY_BATCH, Range};
    use alyt_store::repo::recoveries::{Recoveries, RecoveryStatus, Started};

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("alyt.db");
    let clock = Arc::new(ManualClock::new(start_time()));
    let open = |clock: Arc<ManualClock>| -> Arc<dyn Store> {
        Arc::new(SqliteStore::open(&path, clock).unwrap())
    };
    let store = open(clock.clone());
    let mut w = World {
        log: EventLog::new(store.clone(), clock.clone()),
        clock: clock.clone(),
        store,
        sender: Arc::new(HttpSender::new().unwrap()),
        tenant: TenantId::new(),
    };
    let receiver = Receiver::start(w.clock.clone(), "", loopback()).await;
    let endpoint = w
        .endpoint(&receiver.url("/hook"), &[EventKind::DeviceOnline])
        .await;
    *receiver.state.secret.lock().unwrap() = endpoint.secret.clone();
    w.clock.advance(Duration::seconds(1));
    let since = w.now();

    // Delivered already: left alone.
    let delivered = w.event(EventKind::DeviceOnline).await;
    w.run(OutboundPolicy::LOCAL).await;
    // Waiting for its retry (the receiver was down for it).
    receiver.answer(503);
    let retrying = w.event(EventKind::DeviceOnline).await;
    w.run(OutboundPolicy::LOCAL).await;
    receiver.answer(200);
    assert_eq!(
        w.row(&endpoint, &retrying).await.status,
        DeliveryStatus::Retrying
    );
    // Failed for good.
    let failed = w.event(EventKind::DeviceOnline).await;
    let row = w.row(&endpoint, &failed).await;
    let gave_up = webhook::give_up(&row, "test", w.now());
    assert_eq!(
        w.repo().replace(&row, &gave_up).await.unwrap(),
        RowWrite::Written
    );
    // Never queued (as if its row expired), among events of another kind.
    let mut missed = Vec::new();
    for n in 0..120 {
        let kind = match n % 3 {
            0 => EventKind::DeviceOffline,
            _ => EventKind::DeviceOnline,
        };
        let event = w
            .log
            .record(w.tenant, kind, json!({ "deviceId": "d1", "at": "now" }))
            .await
            .unwrap();
        if kind == EventKind::DeviceOnline {
            missed.push(event.id.to_string());
        }
    }
    w.clock.advance(Duration::seconds(1));
    let mut expected = vec![retrying.id.to_string(), failed.id.to_string()];
    expected.extend(missed.iter().cloned());
    let before = receiver.seen().len();

    let plan = recovery::plan(&endpoint, vec![w.tenant], &Range::Since(since), w.now());
    let recoveries = Recoveries(w.store.as_ref());
    assert_eq!(recoveries.start(&plan).await.unwrap(), Started::Started);
    match recoveries.start(&plan).await.unwrap() {
        Started::Running(running) => assert_eq!(running.status, RecoveryStatus::Running),
        Started::Started => panic!("two recoveries of one endpoint ran at once"),
    }

    // One batch per pass, and none while the last one waits for its attempt.
    let report = recovery::work(w.store.as_ref(), &w.log, w.now())
        .await
        .unwrap();
    assert_eq!(report.queued, RECOVERY_BATCH);
    let waiting = recovery::work(w.store.as_ref(), &w.log, w.now())
        .await
        .unwrap();
    assert_eq!(waiting.queued, 0, "the batch before was not attempted yet");
    let progress = recoveries.get(endpoint.id).await.unwrap().unwrap();
    assert_eq!(
        (progress.status, progress.queued, progress.skipped),
        (RecoveryStatus::Running, RECOVERY_BATCH, 1)
    );
    w.run(OutboundPolicy::LOCAL).await;

    // A restart: another store on the same file, another log.
    let store = open(clock.clone());
    w.log = EventLog::new(store.clone(), clock.clone());
    w.store = store;
    let recoveries = Recoveries(w.store.as_ref());
    for _ in 0..10 {
        recovery::work(w.store.as_ref(), &w.log, w.now())
            .await
            .unwrap();
        w.run(OutboundPolicy::LOCAL).await;
    }
    let done = recoveries.get(endpoint.id).await.unwrap().unwrap();
    assert_eq!(done.status, RecoveryStatus::Done, "{done:?}");
    assert_eq!(done.matched, expected.len() as u64 + 1);
    assert_eq!(done.queued, expected.len() as u64);
    assert_eq!(done.skipped, 1);
    assert!(done.finished_at.is_some());

    let recovered: Vec<String> = receiver.seen()[before..]
        .iter()
        .map(|s| s.event_id.clone())
        .collect();
    assert_eq!(
        recovered, expected,
        "every missed event once, in event order"
    );
    assert!(receiver.seen().iter().all(|s| s.verified));
    assert_eq!(
        receiver.delivered_by_event().get(delivered.id.as_str()),
        Some(&1)
    );
    assert!(recoveries.running().await.unwrap().is_empty());
    // A finished recovery makes room for the next.
    assert_eq!(recoveries.start(&plan).await.unwrap(), Started::Started);
}

/// A disabled endpoint's recovery waits for the re-enable; a removed one's
/// is cancelled.
#[tokio::test]
async fn a_recovery_waits_while_its_endpoint_is_disabled_and_ends_with_it() {
    use alyt_events::recovery::{self, Range};
    use alyt_store::repo::recoveries::{Recoveries, RecoveryStatus, Started};
    use alyt_store::repo::webhooks::DisabledReason;

    let w = World::new();
    let receiver = Receiver::start(w.clock.clone(), "", loopback()).await;
    let endpoint = w
        .endpoint(&receiver.url("/hook"), &[EventKind::DeviceOnline])
        .await;
    w.log
        .record(
            w.tenant,
            EventKind::DeviceOnline,
            json!({ "deviceId": "d1", "at": "now" }),
        )
        .await
        .unwrap();
    w.repo()
        .disable_for(
            endpoint.developer_id,
            endpoint.id,
            DisabledReason::Manual,
            w.now(),
        )
        .await
        .unwrap()
        .unwrap();
    let plan = recovery::plan(&endpoint, vec![w.tenant], &Range::Since(w.now()), w.now());
    let recoveries = Recoveries(w.store.as_ref());
    assert_eq!(recoveries.start(&plan).await.unwrap(), Started::Started);
    let report = recovery::work(w.store.as_ref(), &w.log, w.now())
        .await
        .unwrap();
    assert_eq!(report.worked, 0);
    assert_eq!(recoveries.get(endpoint.id).await.unwrap().unwrap().rev, 0);

    assert!(
        w.repo()
            .delete_endpoint(endpoint.developer_id, endpoint.id)
            .await
            .unwrap()
    );
    let report = recovery::work(w.store.as_ref(), &w.log, w.now())
        .await
        .unwrap();
    assert_eq!(report.finished, 1);
    let ended = recoveries.get(endpoint.id).await.unwrap().unwrap();
    assert_eq!(ended.status, RecoveryStatus::Cancelled);
    assert!(receiver.seen().is_empty());
}
