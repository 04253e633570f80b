//! POST /v1/devices/register through the hosted state as a Lambda builds it
//! from its environment (`HttpConfig::from_env`, `DevicePlane::from_config`,
//! `group_state`), with DynamoDB and IoT Core both on moto: the device gets an
//! IoT certificate, never a password, and a command to it is published at
//! once through the IoT data plane. The same state answers the event stream's
//! path with 421 naming `ALYT_STREAM_URL` (API Gateway cannot stream). Alone
//! in its binary because it sets environment variables.

use alyt_api::Group;
use alyt_aws::lambda::{
    IOT_DATA_ENDPOINT_ENV, IOT_DATA_PLANE_URL_ENV, IOT_DEVICE_POLICY_ENV, IOT_ENDPOINT_ENV,
};
use alyt_lambda_http::{DevicePlane, HttpConfig, group_state, router};
use aws_sdk_iot::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_iot::types::CertificateStatus;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{Value, json};
use tower::ServiceExt;

const DATA_ENDPOINT: &str = "a1b2c3d4e5f6g7-ats.iot.us-east-1.amazonaws.com";
const OWNER: &str = "owner@example.com";
const PASSWORD: &str = "plum tractor season";

async fn call(
    app: &axum::Router,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Value,
) -> (StatusCode, Value) {
    let mut request = Request::builder()
        .method(method)
        .uri(path)
        .header("content-type", "application/json");
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    let response = app
        .clone()
        .oneshot(request.body(Body::from(body.to_string())).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
        .await
        .unwrap();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

#[tokio::test]
async fn registering_a_device_on_the_hosted_state_issues_an_iot_certificate() {
    let server = alyt_aws::testing::moto().await;
    let table = "alyt-iot-register";
    alyt_aws::create_table(&server.client(), table)
        .await
        .unwrap();
    let iot = aws_sdk_iot::Client::from_conf(
        aws_sdk_iot::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .http_client(alyt_aws::https_client())
            .region(Region::new("us-east-1"))
            .credentials_provider(Credentials::new("testing", "testing", None, None, "tests"))
            .endpoint_url(server.endpoint())
            .build(),
    );
    iot.create_policy()
        .policy_name("alyt-device")
        .policy_document(
            r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iot:Connect","Resource":"*"}]}"#,
        )
        .send()
        .await
        .unwrap();
    // SAFETY: the only test of this binary; no other thread reads the environment.
    unsafe {
        std::env::set_var("ALYT_TABLE", table);
        std::env::set_var(alyt_aws::ENDPOINT_ENV, server.endpoint());
        std::env::set_var(IOT_DEVICE_POLICY_ENV, "alyt-device");
        std::env::set_var(IOT_DATA_ENDPOINT_ENV, DATA_ENDPOINT);
        std::env::set_var(IOT_ENDPOINT_ENV, server.endpoint());
        std::env::set_var(IOT_DATA_PLANE_URL_ENV, server.endpoint());
        std::env::set_var("AWS_ACCESS_KEY_ID", "testing");
        std::env::set_var("AWS_SECRET_ACCESS_KEY", "testing");
        std::env::set_var("AWS_REGION", "us-east-1");
        std::env::set_var("AWS_EC2_METADATA_DISABLED", "true");
        std::env::set_var("ALYT_STREAM_URL", "https://stream.example.test/");
    }
    let config = HttpConfig::from_env().unwrap();
    config.check_for(&[Group::Homes]).unwrap();
    let aws = alyt_aws::sdk_config().await;
    let devices = DevicePlane::from_config(&config.hosted, &aws);
    let state = group_state(&config, &aws, devices).await.unwrap();
    let first = alyt_api::bootstrap::ensure_first_owner(
        &state,
        OWNER,
        Some(PASSWORD.into()),
        alyt_api::bootstrap::DemoHome::Empty,
    )
    .await
    .unwrap()
    .expect("a fresh table");
    let app = router(state, &[Group::Auth, Group::Homes, Group::Developers]);

    let (status, login) = call(
        &app,
        "POST",
        "/v1/auth/login",
        None,
        json!({ "email": OWNER, "password": PASSWORD }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{login}");
    let token = login["accessToken"].as_str().unwrap();

    // API Gateway buffers responses: the stream points to its own host.
    let (status, problem) = call(
        &app,
        "GET",
        "/v1/developers/events/stream?events=device.online",
        Some(token),
        Value::Null,
    )
    .await;
    assert_eq!(status, StatusCode::MISDIRECTED_REQUEST, "{problem}");
    assert_eq!(problem["type"], "urn:alyt:problem:misdirected");
    assert_eq!(
        problem["location"],
        "https://stream.example.test/v1/developers/events/stream?events=device.online"
    );

    let (status, registered) = call(
        &app,
        "POST",
        "/v1/devices/register",
        Some(token),
        json!({
            "tenantId": first.tenant_id,
            "propertyId": first.property_id,
            "name": "Kitchen light",
            "kind": "OTHER",
            "capabilities": ["LIGHT"],
            "serial": "IOT-0001",
        }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{registered}");
    let device_id = registered["device"]["id"].as_str().unwrap();
    let credentials = &registered["credentials"];
    assert_eq!(credentials["kind"], "certificate");
    assert!(credentials.get("password").is_none(), "{credentials}");
    assert_eq!(credentials["clientId"], device_id);
    assert_eq!(credentials["endpoint"], DATA_ENDPOINT);
    assert!(
        credentials["certificatePem"]
            .as_str()
            .unwrap()
            .contains("BEGIN CERTIFICATE")
    );
    assert!(
        credentials["privateKey"]
            .as_str()
            .unwrap()
            .contains("PRIVATE KEY")
    );
    assert_eq!(
        registered["topicPrefix"],
        format!("alyt/{}/{}/{device_id}", first.tenant_id, first.property_id)
    );

    let certificate = iot
        .describe_certificate()
        .certificate_id(credentials["certificateId"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(
        certificate.certificate_description().unwrap().status(),
        Some(&CertificateStatus::Active)
    );
    let thing = iot
        .describe_thing()
        .thing_name(device_id)
        .send()
        .await
        .unwrap();
    assert_eq!(
        thing.attributes().unwrap()["tenantId"],
        first.tenant_id.to_string()
    );

    // The same state publishes commands through the data plane at once.
    let (status, row) = call(
        &app,
        "POST",
        &format!("/v1/devices/{device_id}/commands?tenantId={}", first.tenant_id),
        Some(token),
        json!({ "command": "set", "payload": { "capability": "light", "key": "power", "value": true } }),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{row}");
    assert_eq!(row["state"], "sent", "published at once: {row}");
}
