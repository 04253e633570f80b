//! Router tests of the conventions every operation shares, in process (no socket):
//! problem bodies, JSON and query rejections, 404/405, panics, body limits,
//! request ids and the RateLimit fields.

use std::sync::Arc;

use alyt_api::conventions::extract::{ApiJson, ApiQuery};
use alyt_api::conventions::ratelimit::{RateLimitPolicy, SecuredOperations};
use alyt_api::ports::{NoBotCheck, NoMailer};
use alyt_api::{Adapters, ApiError, AppState, ClientAddr, Settings, with_conventions};
use alyt_domain::{Clock, ManualClock};
use alyt_store::sqlite::SqliteStore;
use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::routing::{get, post};
use http_body_util::BodyExt;
use serde::Deserialize;
use serde_json::{Value, json};
use tower::ServiceExt;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Command {
    command: String,
    payload: Payload,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Payload {
    key: String,
    value: u8,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Listing {
    limit: Option<u32>,
    tenant_id: uuid::Uuid,
}

async fn app(quota: u32) -> Router {
    let clock: Arc<dyn Clock> = Arc::new(ManualClock::new(
        time::macros::datetime!(2026-01-01 0:00 UTC),
    ));
    let state = AppState::build(
        Adapters {
            store: Arc::new(SqliteStore::in_memory(clock.clone()).unwrap()),
            clock,
            mailer: Arc::new(NoMailer),
            bot_check: Arc::new(NoBotCheck),
            publisher: Arc::new(alyt_device::NoPublisher),
            credentials: std::sync::Arc::new(alyt_api::ports::PasswordCredentials),
        },
        Settings {
            rate_limit: RateLimitPolicy {
                name: "default".into(),
                quota,
                window_seconds: 60,
            },
            public_url: "http://127.0.0.1/v1".into(),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let routes = Router::new()
        .route(
            "/v1/commands",
            post(|ApiJson(_): ApiJson<Command>| async { "ok" }),
        )
        .route(
            "/v1/listing",
            get(|ApiQuery(_): ApiQuery<Listing>| async { "ok" }),
        )
        .route(
            "/v1/conflict",
            get(|| async { Err::<(), _>(ApiError::conflict("taken")) }),
        )
        .route("/v1/panic", get(panics));
    // No contract: every route is public, charged to the address.
    with_conventions(routes, SecuredOperations::default(), state)
}

async fn panics() -> &'static str {
    panic!("boom")
}

struct Answer {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    body: Value,
}

async fn send(app: &Router, request: Request<Body>) -> Answer {
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    Answer {
        status,
        headers,
        body,
    }
}

fn post_json(path: &str, body: &str) -> Request<Body> {
    Request::post(path)
        .header("content-type", "application/json")
        .body(Body::from(body.to_owned()))
        .unwrap()
}

fn assert_problem(a: &Answer, status: u16, slug: &str) {
    assert_eq!(a.status.as_u16(), status, "{:?}", a.body);
    assert_eq!(a.headers["content-type"], "application/problem+json");
    assert_eq!(a.body["status"], status);
    assert_eq!(a.body["type"], format!("urn:alyt:problem:{slug}"));
    assert!(a.body["title"].as_str().is_some_and(|t| !t.is_empty()));
    assert!(a.body["detail"].as_str().is_some_and(|t| !t.is_empty()));
    let id = a.headers["x-request-id"].to_str().unwrap();
    assert_eq!(
        a.body["requestId"], id,
        "the body names the request id of the header"
    );
    assert!(
        a.headers.contains_key("ratelimit"),
        "errors carry the RateLimit fields too"
    );
    assert!(a.headers.contains_key("ratelimit-policy"));
}

#[tokio::test]
async fn accepted_body_passes() {
    let a = send(
        &app(100).await,
        post_json(
            "/v1/commands",
            r#"{"command":"set","payload":{"key":"power","value":1}}"#,
        ),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK);
}

#[tokio::test]
async fn malformed_json_is_a_400_saying_so() {
    let a = send(
        &app(100).await,
        post_json("/v1/commands", r#"{"command": "set", "#),
    )
    .await;
    assert_problem(&a, 400, "bad-request");
    assert!(
        a.body["detail"]
            .as_str()
            .unwrap()
            .contains("not valid JSON"),
        "{}",
        a.body
    );
}

#[tokio::test]
async fn wrong_type_names_the_nested_field() {
    let a = send(
        &app(100).await,
        post_json(
            "/v1/commands",
            r#"{"command":"set","payload":{"key":"power","value":"high"}}"#,
        ),
    )
    .await;
    assert_problem(&a, 400, "validation");
    assert_eq!(a.body["field"], "payload.value");
    assert!(
        a.body["detail"].as_str().unwrap().contains("invalid type"),
        "{}",
        a.body
    );

    let a = send(
        &app(100).await,
        post_json(
            "/v1/commands",
            r#"{"command":"set","payload":{"key":"power","value":300}}"#,
        ),
    )
    .await;
    assert_eq!(a.body["field"], "payload.value");
}

#[tokio::test]
async fn missing_and_unknown_fields_are_400s() {
    let a = send(
        &app(100).await,
        post_json("/v1/commands", r#"{"payload":{"key":"power","value":1}}"#),
    )
    .await;
    assert_problem(&a, 400, "validation");
    assert!(
        a.body["detail"]
            .as_str()
            .unwrap()
            .contains("missing field `command`"),
        "{}",
        a.body
    );

    let a = send(
        &app(100).await,
        post_json(
            "/v1/commands",
            r#"{"command":"set","payload":{"key":"k","value":1},"extra":true}"#,
        ),
    )
    .await;
    assert_problem(&a, 400, "validation");
    assert!(
        a.body["detail"]
            .as_str()
            .unwrap()
            .contains("unknown field `extra`"),
        "{}",
        a.body
    );

    let a = send(&app(100).await, post_json("/v1/commands", "[]")).await;
    assert_problem(&a, 400, "validation");
}

#[tokio::test]
async fn trailing_garbage_is_rejected() {
    let a = send(
        &app(100).await,
        post_json(
            "/v1/commands",
            r#"{"command":"set","payload":{"key":"k","value":1}} x"#,
        ),
    )
    .await;
    assert_problem(&a, 400, "bad-request");
}

#[tokio::test]
async fn non_json_content_type_is_415() {
    let request = Request::post("/v1/commands")
        .header("content-type", "text/plain")
        .body(Body::from("hello"))
        .unwrap();
    let a = send(&app(100).await, request).await;
    assert_problem(&a, 415, "unsupported-media-type");
    let no_type = Request::post("/v1/commands")
        .body(Body::from("{}"))
        .unwrap();
    assert_problem(
        &send(&app(100).await, no_type).await,
        415,
        "unsupported-media-type",
    );
}

#[tokio::test]
async fn oversized_body_is_413() {
    let big = format!(
        r#"{{"command":"{}"}}"#,
        "x".repeat(alyt_api::app::MAX_BODY_BYTES + 10)
    );
    let a = send(&app(100).await, post_json("/v1/commands", &big)).await;
    assert_problem(&a, 413, "payload-too-large");
}

#[tokio::test]
async fn bad_query_parameters_name_the_parameter() {
    let a = send(
        &app(100).await,
        Request::get("/v1/listing?tenant_id=nope")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_problem(&a, 400, "validation");
    assert_eq!(a.body["field"], "tenant_id");

    let a = send(
        &app(100).await,
        Request::get("/v1/listing?limit=ten&tenant_id=6f1c9b8e-33c5-4d59-9a52-3c1a3d0c2f10")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(a.body["field"], "limit");

    let a = send(
        &app(100).await,
        Request::get("/v1/listing").body(Body::empty()).unwrap(),
    )
    .await;
    assert_problem(&a, 400, "validation");
}

#[tokio::test]
async fn unknown_route_and_wrong_method_are_json() {
    let a = send(
        &app(100).await,
        Request::get("/v1/nothing-here")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_problem(&a, 404, "not-found");
    let a = send(
        &app(100).await,
        Request::delete("/v1/commands").body(Body::empty()).unwrap(),
    )
    .await;
    assert_problem(&a, 405, "method-not-allowed");
}

#[tokio::test]
async fn a_panicking_handler_is_a_500_problem_and_the_server_lives_on() {
    let app = app(100).await;
    let a = send(&app, Request::get("/v1/panic").body(Body::empty()).unwrap()).await;
    assert_problem(&a, 500, "internal");
    assert!(
        !a.body["detail"].as_str().unwrap().contains("boom"),
        "panic text is not leaked"
    );
    let after = send(
        &app,
        Request::get("/v1/conflict").body(Body::empty()).unwrap(),
    )
    .await;
    assert_problem(&after, 409, "conflict");
}

#[tokio::test]
async fn request_ids_are_made_or_kept() {
    let app = app(100).await;
    let a = send(
        &app,
        Request::get("/v1/conflict").body(Body::empty()).unwrap(),
    )
    .await;
    let made = a.headers["x-request-id"].to_str().unwrap();
    assert!(uuid::Uuid::parse_str(made).is_ok());
    let request = Request::get("/v1/conflict")
        .header("x-request-id", "client-chosen-id-123")
        .body(Body::empty())
        .unwrap();
    let a = send(&app, request).await;
    assert_eq!(a.headers["x-request-id"], "client-chosen-id-123");
    assert_eq!(a.body["requestId"], "client-chosen-id-123");
    // A hostile id (header injection material, too long) is replaced.
    let request = Request::get("/v1/conflict")
        .header("x-request-id", "bad id with spaces")
        .body(Body::empty())
        .unwrap();
    let a = send(&app, request).await;
    assert_ne!(a.headers["x-request-id"], "bad id with spaces");
}

#[tokio::test]
async fn rate_limit_fields_count_down_then_429_with_retry_after() {
    let app = app(3).await;
    let client_a = ClientAddr("192.0.2.1".parse().unwrap());
    // An operation that does not authenticate counts against the client
    // address, whatever Authorization header comes with it.
    let mut n = 0;
    let mut get = || {
        n += 1;
        Request::get("/v1/listing?tenant_id=6f1c9b8e-33c5-4d59-9a52-3c1a3d0c2f10")
            .header("authorization", format!("Bearer made-up-{n}"))
            .extension(client_a)
            .body(Body::empty())
            .unwrap()
    };
    let mut remaining = Vec::new();
    for _ in 0..3 {
        let a = send(&app, get()).await;
        assert_eq!(a.status, StatusCode::OK);
        assert_eq!(a.headers["ratelimit-policy"], r#""default";q=3;w=60"#);
        remaining.push(a.headers["ratelimit"].to_str().unwrap().to_owned());
    }
    assert_eq!(
        remaining,
        [
            r#""default";r=2;t=60"#,
            r#""default";r=1;t=60"#,
            r#""default";r=0;t=60"#
        ]
    );
    let a = send(&app, get()).await;
    assert_problem(&a, 429, "rate-limited");
    assert_eq!(a.headers["retry-after"], "60");
    assert_eq!(a.headers["ratelimit"], r#""default";r=0;t=60"#);

    // Another address is counted on its own.
    let other = Request::get("/v1/conflict")
        .extension(ClientAddr("192.0.2.2".parse().unwrap()))
        .body(Body::empty())
        .unwrap();
    assert_eq!(send(&app, other).await.status, StatusCode::CONFLICT);
    let _ = json!({});
}
