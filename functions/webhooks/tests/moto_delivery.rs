//! The hosted webhook worker's code path on DynamoDB (moto): an endpoint is
//! followed, an event is recorded, the stream fixture's trigger runs one pass
//! and the receiver gets the event once, signed; a receiver that answers 500
//! leaves the row retrying with one attempt, and a pass before its retry time
//! sends nothing (the schedule itself is pinned with an injected clock in
//! alyt-events' tests). This exercises the webhook repository's conditional claims and due
//! index on the DynamoDB adapter.
//!
//! Test double: the outbound policy is the local one (http to 127.0.0.1),
//! because the receiver is a loopback server; the hosted policy refuses
//! loopback by design (covered by the outbound tests in alyt-events).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use alyt_domain::ids::{TenantId, WebhookId};
use alyt_domain::{Clock, SystemClock};
use alyt_events::DisabledEndpoint;
use alyt_events::dispatch::follow_tenant;
use alyt_events::worker::{DisabledNotice, Worker};
use alyt_events::{EventKind, EventLog, HttpSender, OutboundPolicy, signature};
use alyt_store::Store;
use alyt_store::repo::developers::DeveloperRecord;
use alyt_store::repo::webhooks::{
    DeliveryStatus, EndpointStatus, WebhookEndpointRecord, WebhookRoute, Webhooks,
};
use alyt_webhooks::{Trigger, on_new_events, on_schedule, trigger_of};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use serde_json::json;

struct NoNotice;

#[async_trait::async_trait]
impl DisabledNotice for NoNotice {
    async fn endpoint_disabled(
        &self,
        _developer: &DeveloperRecord,
        _disabled: &DisabledEndpoint,
        _description: Option<&str>,
    ) -> Result<(), String> {
        Ok(())
    }
}

#[derive(Default)]
struct Received {
    answer: Mutex<u16>,
    /// (event id, signature verified) per request answered 2xx.
    delivered: Mutex<Vec<(String, bool)>>,
    requests: Mutex<usize>,
    secret: Mutex<String>,
}

async fn hook(State(r): State<Arc<Received>>, headers: HeaderMap, body: Bytes) -> StatusCode {
    *r.requests.lock().unwrap() += 1;
    let answer = *r.answer.lock().unwrap();
    if (200..300).contains(&answer) {
        let header = headers
            .get("x-svc-signature")
            .map(|v| v.as_bytes().to_vec())
            .unwrap_or_default();
        let now = SystemClock.now().unix_timestamp();
        let verified =
            signature::verify(r.secret.lock().unwrap().as_bytes(), &header, &body, now).is_ok();
        let envelope: serde_json::Value = serde_json::from_slice(&body).unwrap();
        r.delivered
            .lock()
            .unwrap()
            .push((envelope["id"].as_str().unwrap().to_owned(), verified));
    }
    StatusCode::from_u16(answer).unwrap()
}

fn fixture(name: &str) -> serde_json::Value {
    let path = format!("{}/events/webhooks/{name}", env!("ALYT_REPO_ROOT"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[tokio::test]
async fn the_hosted_worker_delivers_on_dynamodb_and_retries_a_failed_attempt() {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let store: Arc<dyn Store> = Arc::new(alyt_aws::testing::fresh_table(clock.clone()).await);

    let received = Arc::new(Received::default());
    *received.answer.lock().unwrap() = 200;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = axum::Router::new()
        .route("/hook", post(hook))
        .with_state(received.clone());
    tokio::spawn(async move { axum::serve(listener, app).await });

    let tenant = TenantId::new();
    // Bound to a live key of an active developer: nothing is sent otherwise.
    let key = alyt_store::fixtures::active_developer_key(store.as_ref(), clock.now())
        .await
        .unwrap();
    let endpoint = WebhookEndpointRecord {
        id: WebhookId::new(),
        developer_id: key.developer_id,
        key_id: key.id,
        route: WebhookRoute::Tenant { tenant_id: tenant },
        url: format!("http://{addr}/hook"),
        events: vec![EventKind::DeviceOnline.as_str().to_owned()],
        description: None,
        secret: signature::generate_secret(),
        previous_secret: None,
        previous_secret_until: None,
        event_bridge: None,
        status: EndpointStatus::Active,
        consecutive_failures: 0,
        disabled_at: None,
        disabled_reason: None,
        created_at: clock.now() - time::Duration::seconds(1),
    };
    *received.secret.lock().unwrap() = endpoint.secret.clone();
    Webhooks(store.as_ref())
        .create_endpoint(&endpoint)
        .await
        .unwrap();
    follow_tenant(store.as_ref(), tenant, endpoint.created_at)
        .await
        .unwrap();

    let log = EventLog::new(store.clone(), clock.clone());
    let worker = Worker {
        store: store.clone(),
        clock: clock.clone(),
        log: log.clone(),
        sender: Arc::new(HttpSender::new().unwrap()),
        bus: Arc::new(alyt_events::bus::NoEventBus),
        policy: OutboundPolicy::LOCAL,
        notice: Arc::new(NoNotice),
    };

    // A new event; the table's stream announces it.
    let first = log
        .record(tenant, EventKind::DeviceOnline, json!({ "deviceId": "d1" }))
        .await
        .unwrap();
    let Trigger::NewEvents(n) = trigger_of(&fixture("dynamodb-stream.json")) else {
        panic!("the stream fixture is a stream batch");
    };
    assert!(n > 0);
    let totals = on_new_events(&worker).await;
    assert_eq!(totals.failed_passes, 0, "{totals:?}");
    assert_eq!(
        *received.delivered.lock().unwrap(),
        [(first.id.as_str().to_owned(), true)],
        "delivered once, signed"
    );

    // The receiver fails: the attempt is recorded and the row retries.
    *received.answer.lock().unwrap() = 500;
    let second = log
        .record(tenant, EventKind::DeviceOnline, json!({ "deviceId": "d2" }))
        .await
        .unwrap();
    let totals = on_new_events(&worker).await;
    assert_eq!(totals.retrying, 1, "{totals:?}");
    let row = Webhooks(store.as_ref())
        .delivery(endpoint.id, second.id.as_str())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.status, DeliveryStatus::Retrying);
    assert_eq!(row.attempts, 1);
    // Not due before its retry time: a pass now sends nothing.
    let before = *received.requests.lock().unwrap();
    on_schedule(&worker, Duration::ZERO).await;
    assert_eq!(*received.requests.lock().unwrap(), before);
    assert_eq!(received.delivered.lock().unwrap().len(), 1);
}
