//! events/iot-authorizer/mqtt-connect.json (IoT Core's custom-authorizer
//! event for an MQTT CONNECT with username/password) through the handler,
//! with the real `StoreDeviceAuthenticator` on DynamoDB (moto): the right
//! password gets the device's own subtree policy; a wrong password, an
//! unknown username and a client id other than the username are refused.

use std::path::PathBuf;
use std::sync::Arc;

use alyt_device::DeviceIdentity;
use alyt_device::credentials::StoreDeviceAuthenticator;
use alyt_domain::ManualClock;
use alyt_domain::ids::{DeviceId, PropertyId, TenantId};
use alyt_iot_authorizer::{Authorizer, AuthorizerResponse};
use alyt_store::Item;
use alyt_store::Store;
use alyt_store::repo::devices::{DeviceCredentialRecord, credential_key};
use serde_json::Value;
use sha2::{Digest, Sha256};

const ARN: &str = "arn:aws:iot:eu-west-1:123456789012";
/// The fixture's password, base64-decoded.
const PASSWORD: &str = "example-virtual-device-password";

fn fixture() -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../events/iot-authorizer/mqtt-connect.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// An authorizer on a fresh table holding the fixture device's credential.
async fn authorizer() -> (Authorizer, DeviceIdentity) {
    let clock = Arc::new(ManualClock::new(time::OffsetDateTime::now_utc()));
    let store = Arc::new(alyt_aws::testing::fresh_table(clock.clone()).await);
    let username = fixture()["protocolData"]["mqtt"]["username"]
        .as_str()
        .unwrap()
        .to_owned();
    let device: DeviceId = username.parse().unwrap();
    let (tenant, property) = (TenantId::new(), PropertyId::new());
    let credential = DeviceCredentialRecord {
        username: username.clone(),
        device_id: device,
        tenant_id: tenant,
        property_id: property,
        secret_hash: hex::encode(Sha256::digest(PASSWORD.as_bytes())),
        certificate_id: None,
        created_at: time::OffsetDateTime::now_utc(),
    };
    store
        .put(
            Item::from_record(credential_key(&username), &credential).unwrap(),
            None,
        )
        .await
        .unwrap();
    let identity = DeviceIdentity::new(tenant, property, device);
    let authorizer = Authorizer {
        authenticator: Arc::new(StoreDeviceAuthenticator::new(store)),
        arn_prefix: ARN.into(),
    };
    (authorizer, identity)
}

fn with_mqtt(field: &str, value: &str) -> Value {
    let mut event = fixture();
    event["protocolData"]["mqtt"][field] = Value::String(value.into());
    event
}

#[tokio::test]
async fn the_right_password_gets_the_device_subtree() {
    let (authorizer, identity) = authorizer().await;
    let answer = authorizer.handle(fixture()).await;
    assert_eq!(answer, AuthorizerResponse::allowed(&identity, ARN));
    assert!(answer.is_authenticated);
    let doc = answer.policy_documents[0].to_string();
    assert!(doc.contains(&format!("{ARN}:topic/{}/status", identity.topic_prefix())));
    assert!(doc.contains(&format!("{ARN}:client/{}", identity.device_id)));

    // The authorizer name IoT Core may leave on the username changes nothing.
    let suffixed = with_mqtt(
        "username",
        &format!(
            "{}?x-amz-customauthorizer-name=alyt-virtual-devices",
            identity.device_id
        ),
    );
    assert!(authorizer.handle(suffixed).await.is_authenticated);
}

#[tokio::test]
async fn anything_else_is_refused() {
    use base64::Engine;
    let (authorizer, identity) = authorizer().await;
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    let other = DeviceId::new().to_string();

    let mut unknown = with_mqtt("username", &other);
    unknown["protocolData"]["mqtt"]["clientId"] = Value::String(other.clone());

    let mut no_password = fixture();
    no_password["protocolData"]["mqtt"]
        .as_object_mut()
        .unwrap()
        .remove("password");

    for (case, event) in [
        (
            "wrong password",
            with_mqtt("password", &b64("not-the-password")),
        ),
        ("empty password", with_mqtt("password", "")),
        ("unknown username", unknown),
        (
            "client id other than the username",
            with_mqtt("clientId", &other),
        ),
        ("no password", no_password),
        (
            "not an MQTT event",
            serde_json::json!({"protocols": ["http"]}),
        ),
    ] {
        let answer = authorizer.handle(event).await;
        assert_eq!(answer, AuthorizerResponse::refused(), "{case}");
        assert!(answer.policy_documents.is_empty(), "{case}");
    }
    // The right one still works on the same table.
    assert_eq!(
        authorizer.handle(fixture()).await,
        AuthorizerResponse::allowed(&identity, ARN)
    );
}
