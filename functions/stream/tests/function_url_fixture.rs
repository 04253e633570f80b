//! The hosted event stream driven by the function-URL event in
//! events/stream/ (lambda_http's conversion of the event into a request, as
//! `run_with_streaming_response` does it), over the DynamoDB store on moto:
//! a DEV key hears its sandbox's events as server-sent events, a missing
//! token is a 401 problem, and a key without `events:read` a 403. Only the
//! Lambda runtime API (the polling loop and the streamed invoke response)
//! is not exercised: it needs AWS's runtime endpoint.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use alyt_api::AppState;
use alyt_api::groups::developers::keys::{KeyFields, issue_key};
use alyt_api::ports::{NoBotCheck, NoMailer};
use alyt_domain::access::{KeyKind, Scope};
use alyt_domain::ids::{DeveloperId, TenantId, UserId};
use alyt_domain::{Clock, SystemClock};
use alyt_events::{EventKind, EventLog};
use alyt_store::Store;
use alyt_store::repo::developers::{
    DeveloperRecord, DeveloperStatus, DeveloperType, developer_item,
};
use http_body_util::BodyExt;
use lambda_http::request::LambdaRequest;
use tower::ServiceExt;

fn fixture() -> serde_json::Value {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../events/stream/get-stream.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The fixture as lambda_http turns it into a request, with `token` (or
/// none) as the bearer.
fn request(token: Option<&str>) -> http::Request<lambda_http::Body> {
    let mut event = fixture();
    let headers = event["headers"].as_object_mut().unwrap();
    match token {
        Some(token) => {
            headers.insert("authorization".into(), format!("Bearer {token}").into());
        }
        None => {
            headers.remove("authorization");
        }
    }
    let event: LambdaRequest = serde_json::from_value(event).expect("a function-URL event");
    event.into()
}

struct Hosted {
    state: AppState,
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    sandbox: TenantId,
    developer: DeveloperId,
}

async fn hosted() -> Hosted {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let store: Arc<dyn Store> = Arc::new(alyt_aws::testing::fresh_table(clock.clone()).await);
    let state = alyt_lambda_http::state_with(
        store.clone(),
        clock.clone(),
        Arc::new(NoMailer),
        Arc::new(NoBotCheck),
        "",
    )
    .await
    .unwrap();
    let sandbox = TenantId::new();
    let developer = DeveloperRecord {
        id: DeveloperId::new(),
        user_id: UserId::new(),
        email: "stream@example.com".into(),
        kind: DeveloperType::Individual,
        display_name: "Stream".into(),
        organisation: None,
        website: None,
        status: DeveloperStatus::Active,
        sandbox_tenant_id: Some(sandbox),
        verified_at: Some(clock.now()),
        mfa_enabled_at: None,
        created_at: clock.now(),
    };
    store
        .put(developer_item(&developer).unwrap(), None)
        .await
        .unwrap();
    Hosted {
        state,
        store,
        clock,
        sandbox,
        developer: developer.id,
    }
}

async fn key(h: &Hosted, scopes: &[Scope]) -> String {
    issue_key(
        &h.state,
        h.developer,
        KeyKind::Dev,
        KeyFields {
            name: "stream".into(),
            scopes: scopes.to_vec(),
            expires_at: None,
        },
        None,
    )
    .await
    .unwrap()
    .secret
}

#[tokio::test]
async fn a_dev_key_hears_its_sandbox_as_server_sent_events() {
    let h = hosted().await;
    let secret = key(&h, &[Scope::EventsRead]).await;
    let log = EventLog::new(h.store.clone(), h.clock.clone());
    let recorded = log
        .record(
            h.sandbox,
            EventKind::WebhookPing,
            serde_json::json!({ "endpointId": "fixture", "at": "2026-11-22T02:00:00Z" }),
        )
        .await
        .unwrap();

    let response = alyt_stream::app(h.state.clone())
        .oneshot(request(Some(&secret)))
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    // Read until the event arrives (the hosted stream polls).
    let mut body = response.into_body();
    let mut text = String::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while !text.contains("\n\n") || !text.contains("event: webhook.ping") {
        let frame = tokio::time::timeout_at(deadline, body.frame())
            .await
            .expect("the event within 20 s")
            .expect("the stream stays open")
            .unwrap();
        if let Ok(data) = frame.into_data() {
            text.push_str(&String::from_utf8_lossy(&data));
        }
    }
    assert!(
        text.contains(&format!("id: {}", recorded.id.as_str())),
        "{text}"
    );
    let data = text
        .lines()
        .find_map(|l| l.strip_prefix("data: "))
        .expect("a data line");
    let envelope: serde_json::Value = serde_json::from_str(data).unwrap();
    assert_eq!(envelope["type"], "webhook.ping");
    assert_eq!(envelope["tenantId"], h.sandbox.to_string());
}

#[tokio::test]
async fn the_stream_refuses_missing_tokens_and_keys_without_events_read() {
    let h = hosted().await;
    let response = alyt_stream::app(h.state.clone())
        .oneshot(request(None))
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    let body = response.into_body().collect().await.unwrap().to_bytes();
    let problem: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(problem["status"], 401);

    let without_scope = key(&h, &[Scope::ThingsRead]).await;
    let response = alyt_stream::app(h.state.clone())
        .oneshot(request(Some(&without_scope)))
        .await
        .unwrap();
    assert_eq!(response.status(), 403);
}

/// Reads `body` until an event frame arrives (the hosted stream polls).
async fn first_event(body: axum::body::Body) -> String {
    let mut body = body;
    let mut text = String::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while !text.contains("event: ") || !text.ends_with("\n\n") {
        let frame = tokio::time::timeout_at(deadline, body.frame())
            .await
            .expect("an event within 20 s")
            .expect("the stream stays open")
            .unwrap();
        if let Ok(data) = frame.into_data() {
            text.push_str(&String::from_utf8_lossy(&data));
        }
    }
    text
}

/// A home's stream on the same function URL, over moto: it reads the event
/// log and the device each event is about, and sends only the home's.
#[tokio::test]
async fn a_home_stream_sends_its_devices_events_on_the_function_url() {
    use alyt_store::repo::devices::{DeviceRecord, device_item};
    use alyt_store::repo::tenancy::{NewHome, Tenancy, new_home_writes};

    let h = hosted().await;
    let secret = key(&h, &[Scope::ThingsRead]).await;
    let (home, writes) = new_home_writes(NewHome {
        tenant_id: h.sandbox,
        household: "Sandbox household",
        household_email: None,
        home: "Sandbox home",
        timezone: "UTC",
        rooms: &["Kitchen"],
        owner: UserId::new(),
        now: h.clock.now(),
    })
    .unwrap();
    Tenancy(&*h.store).create_all(writes).await.unwrap();
    let now = "2026-11-27T12:00:00Z";
    let device: DeviceRecord = serde_json::from_value(serde_json::json!({
        "id": alyt_domain::ids::DeviceId::new(), "tenantId": h.sandbox,
        "propertyId": home.property.id, "roomId": null, "name": "Kitchen light",
        "kind": "OTHER", "capabilities": ["LIGHT"], "currentUnitId": null,
        "parentDeviceId": null, "protocol": null, "protocolId": null,
        "firmwareChannel": "STABLE", "status": "ONLINE", "createdAt": now, "updatedAt": now,
    }))
    .unwrap();
    h.store
        .put(device_item(&device).unwrap(), None)
        .await
        .unwrap();
    let log = EventLog::new(h.store.clone(), h.clock.clone());
    let online = |id: String| serde_json::json!({ "deviceId": id, "name": "light", "at": now });
    log.record(
        h.sandbox,
        EventKind::DeviceOnline,
        online(alyt_domain::ids::DeviceId::new().to_string()),
    )
    .await
    .unwrap();
    let ours = log
        .record(
            h.sandbox,
            EventKind::DeviceOnline,
            online(device.id.to_string()),
        )
        .await
        .unwrap();

    let mut event = fixture();
    let path = format!("/v1/properties/{}/events/stream", home.property.id);
    event["rawPath"] = path.clone().into();
    event["requestContext"]["http"]["path"] = path.into();
    event["rawQueryString"] = format!("tenantId={}", h.sandbox).into();
    event["queryStringParameters"] = serde_json::json!({ "tenantId": h.sandbox.to_string() });
    event["headers"]["authorization"] = format!("Bearer {secret}").into();
    let event: LambdaRequest = serde_json::from_value(event).unwrap();
    let request: http::Request<lambda_http::Body> = event.into();
    let response = alyt_stream::app(h.state.clone())
        .oneshot(request)
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let text = first_event(response.into_body()).await;
    // The first event sent is the home's device's (the unknown device's,
    // recorded before it, is not the home's).
    assert!(
        text.contains(&format!("id: {}", ours.id.as_str())),
        "{text}"
    );
    assert_eq!(text.matches("event: device.online").count(), 1, "{text}");
}
