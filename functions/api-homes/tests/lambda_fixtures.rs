//! The sample API Gateway events in events/ fed through the Lambda handler of
//! each group (lambda_http's adapter, as `lambda_http::run` uses it) with the
//! DynamoDB store on moto, compared with what the local platform answers over
//! HTTP for the same request. Only the Lambda runtime API itself (the polling
//! loop) is not exercised: it needs AWS's runtime endpoint.

use std::path::PathBuf;
use std::sync::Arc;

use alyt_api::Group;
use alyt_api::ports::{NoBotCheck, NoMailer};
use alyt_domain::{Clock, SystemClock};
use lambda_http::request::LambdaRequest;
use lambda_http::{Adapter, Context, LambdaEvent, Service};
use serde_json::Value;

fn fixture(name: &str) -> LambdaRequest {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../events")
        .join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).expect("the fixture is an API Gateway v2 event")
}

struct Answer {
    status: u16,
    headers: Value,
    body: Value,
}

async fn through_lambda(group: Group, event: &str) -> Answer {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let store = alyt_aws::testing::fresh_table(clock.clone()).await;
    let state = alyt_lambda_http::state_with(
        Arc::new(store),
        clock,
        Arc::new(NoMailer),
        Arc::new(NoBotCheck),
        "",
    )
    .await
    .unwrap();
    let router = alyt_lambda_http::router(state, &[group]);
    let mut handler = Adapter::from(router);
    let response = handler
        .call(LambdaEvent::new(fixture(event), Context::default()))
        .await
        .unwrap();
    let response = serde_json::to_value(response).unwrap();
    assert_eq!(response["isBase64Encoded"], false);
    Answer {
        status: response["statusCode"].as_u64().unwrap() as u16,
        headers: response["headers"].clone(),
        body: serde_json::from_str(response["body"].as_str().unwrap()).unwrap(),
    }
}

async fn through_local_server(path: &str) -> Answer {
    let dir = tempfile::tempdir().unwrap();
    let platform = alyt_local::spawn(alyt_local::Config::for_tests(dir.path().to_path_buf()))
        .await
        .unwrap();
    let response = reqwest::get(format!("http://{}{path}", platform.http_addr))
        .await
        .unwrap();
    let status = response.status().as_u16();
    let mut headers = serde_json::Map::new();
    for (name, value) in response.headers() {
        headers.insert(name.to_string(), Value::from(value.to_str().unwrap()));
    }
    let body = response.json().await.unwrap();
    platform.shutdown().await;
    Answer {
        status,
        headers: Value::Object(headers),
        body,
    }
}

fn without_request_id(mut body: Value) -> Value {
    if let Some(map) = body.as_object_mut() {
        map.remove("requestId");
    }
    body
}

/// The same policy and remaining count; the seconds to the window's reset
/// may differ by the second that passed between the two requests (60 -> 1
/// across a window boundary).
fn same_rate_limit(lambda: &Value, local: &Value) {
    let parts = |field: &Value| {
        let field = field.as_str().expect("a RateLimit field").to_owned();
        let (rest, reset) = field.rsplit_once(";t=").expect("t= in the field");
        (
            rest.to_owned(),
            reset.parse::<i64>().expect("t is a number"),
        )
    };
    let (lambda_rest, lambda_reset) = parts(lambda);
    let (local_rest, local_reset) = parts(local);
    assert_eq!(lambda_rest, local_rest, "RateLimit name and remaining");
    let apart = (lambda_reset - local_reset).rem_euclid(60);
    assert!(
        [0, 1, 59].contains(&apart),
        "RateLimit reset {lambda_reset} (Lambda) against {local_reset} (local)"
    );
}

#[tokio::test]
async fn capabilities_event_answers_as_the_local_server_does() {
    let lambda = through_lambda(Group::Homes, "api-homes/get-capabilities.json").await;
    let local = through_local_server("/v1/capabilities").await;
    assert_eq!(lambda.status, 200);
    assert_eq!(lambda.status, local.status);
    assert_eq!(lambda.body, local.body);
    assert!(
        lambda.body["items"]
            .as_array()
            .is_some_and(|i| !i.is_empty())
    );
    for header in ["content-type", "ratelimit-policy"] {
        assert_eq!(lambda.headers[header], local.headers[header], "{header}");
    }
    same_rate_limit(&lambda.headers["ratelimit"], &local.headers["ratelimit"]);
    assert!(lambda.headers["x-request-id"].is_string());
}

#[tokio::test]
async fn unknown_route_event_is_the_same_json_404() {
    let lambda = through_lambda(Group::Homes, "api-homes/get-unknown-route.json").await;
    let local = through_local_server("/v1/no-such-route").await;
    assert_eq!(lambda.status, 404);
    assert_eq!(lambda.status, local.status);
    assert_eq!(lambda.headers["content-type"], "application/problem+json");
    assert_eq!(
        lambda.headers["content-type"],
        local.headers["content-type"]
    );
    assert_eq!(
        lambda.body["requestId"], lambda.headers["x-request-id"],
        "the problem body names the request id"
    );
    assert_eq!(
        without_request_id(lambda.body),
        without_request_id(local.body)
    );
}

async fn post_to_local_server(path: &str, body: &str) -> Answer {
    let dir = tempfile::tempdir().unwrap();
    let platform = alyt_local::spawn(alyt_local::Config::for_tests(dir.path().to_path_buf()))
        .await
        .unwrap();
    let response = reqwest::Client::new()
        .post(format!("http://{}{path}", platform.http_addr))
        .header("content-type", "application/json")
        .body(body.to_owned())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let mut headers = serde_json::Map::new();
    for (name, value) in response.headers() {
        headers.insert(name.to_string(), Value::from(value.to_str().unwrap()));
    }
    let body = response.json().await.unwrap();
    platform.shutdown().await;
    Answer {
        status,
        headers: Value::Object(headers),
        body,
    }
}

#[tokio::test]
async fn login_event_for_an_unknown_account_is_the_same_401() {
    let lambda = through_lambda(Group::Auth, "api-auth/post-login-unknown-user.json").await;
    let local = post_to_local_server(
        "/v1/auth/login",
        r#"{"email":"nobody@example.com","password":"wrong password here"}"#,
    )
    .await;
    assert_same_401(lambda, local);
}

/// The people group's route (`ANY /v1/tenants/{proxy+}`) reaches its router:
/// without a token the members list is the platform's 401 problem.
#[tokio::test]
async fn members_event_without_a_token_is_the_same_401() {
    let lambda = through_lambda(Group::People, "api-people/get-members-no-token.json").await;
    let local = through_local_server(
        "/v1/tenants/0190b5a0-0000-7000-8000-0000000000a1/clients/0190b5a0-0000-7000-8000-0000000000c1/members?limit=10",
    )
    .await;
    assert_same_401(lambda, local);
}

/// The security group's route (`ANY /v1/home-security/{proxy+}`) reaches its
/// own function's router: without a token a home's security status is the
/// platform's 401 problem, as locally.
#[tokio::test]
async fn home_security_event_without_a_token_is_the_same_401() {
    let lambda = through_lambda(Group::Security, "api-security/get-status-no-token.json").await;
    let local = through_local_server(
        "/v1/home-security/0190b5a0-0000-7000-8000-0000000000d1?tenantId=0190b5a0-0000-7000-8000-0000000000a1",
    )
    .await;
    assert_same_401(lambda, local);
}

/// Home security left the homes function: its router answers the same
/// path with the platform's 404 (API Gateway never sends it there).
#[tokio::test]
async fn the_homes_function_no_longer_serves_home_security() {
    let lambda = through_lambda(Group::Homes, "api-security/get-status-no-token.json").await;
    assert_eq!(lambda.status, 404);
    assert_eq!(lambda.headers["content-type"], "application/problem+json");
}

/// Both runtimes refused alike: 401, the same challenge and problem body.
fn assert_same_401(lambda: Answer, local: Answer) {
    assert_eq!(lambda.status, 401);
    assert_eq!(lambda.status, local.status);
    assert_eq!(
        lambda.headers["www-authenticate"],
        local.headers["www-authenticate"]
    );
    assert_eq!(
        without_request_id(lambda.body),
        without_request_id(local.body)
    );
}
