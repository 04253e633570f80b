//! IoT Core device certificates and command publishing against moto (5.2.5
//! implements every control-plane call used here and data-plane Publish).
//!
//! Not covered because moto lacks them or cannot show them: the data plane's
//! DeleteConnection (IotDataPublisher::disconnect; moto has no such route),
//! the device policy's effect (moto does not evaluate IoT policies or run an
//! MQTT broker), and the asynchronous detachment that the delete retries wait
//! out on IoT Core (moto detaches at once). Nor can it make CreateThing fail
//! (moto overwrites a thing of the same name where IoT Core refuses other
//! attributes), so the undo that keeps a pre-existing thing is untested here.

use alyt_aws::iot::{PROPERTY_ATTRIBUTE, TENANT_ATTRIBUTE};
use alyt_aws::{IotCredentials, IotDataPublisher};
use alyt_device::credentials::{DeviceCredentialIssuer, DeviceCredentials};
use alyt_device::{DeviceIdentity, DevicePublisher};
use alyt_domain::ids::{DeviceId, PropertyId, TenantId};
use aws_sdk_iot::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_iot::error::ProvideErrorMetadata;
use aws_sdk_iot::types::CertificateStatus;

/// Held by every test that makes certificates: one of them counts the
/// certificates moto holds, which the others would change under it.
static CERTIFICATES: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const DATA_ENDPOINT: &str = "a1b2c3d4e5f6g7-ats.iot.us-east-1.amazonaws.com";

fn credentials() -> Credentials {
    Credentials::new("testing", "testing", None, None, "alyt-tests")
}

/// A control-plane client on moto (one per test: each test has its runtime).
async fn iot_client() -> aws_sdk_iot::Client {
    let server = alyt_aws::testing::moto().await;
    aws_sdk_iot::Client::from_conf(
        aws_sdk_iot::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .http_client(alyt_aws::https_client())
            .region(Region::new("us-east-1"))
            .credentials_provider(credentials())
            .endpoint_url(server.endpoint())
            .build(),
    )
}

async fn data_client() -> aws_sdk_iotdataplane::Client {
    let server = alyt_aws::testing::moto().await;
    aws_sdk_iotdataplane::Client::from_conf(
        aws_sdk_iotdataplane::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .http_client(alyt_aws::https_client())
            .region(Region::new("us-east-1"))
            .credentials_provider(credentials())
            .endpoint_url(server.endpoint())
            .build(),
    )
}

/// A device policy of its own (moto's state is shared by the whole binary).
async fn policy(client: &aws_sdk_iot::Client) -> String {
    let name = format!("alyt-device-{}", DeviceId::new());
    client
        .create_policy()
        .policy_name(&name)
        .policy_document(
            r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iot:Connect","Resource":"*"}]}"#,
        )
        .send()
        .await
        .unwrap();
    name
}

async fn issuer() -> (IotCredentials, String) {
    let client = iot_client().await;
    let policy = policy(&client).await;
    (
        IotCredentials::new(client, policy.clone(), Some(DATA_ENDPOINT.into())),
        policy,
    )
}

async fn certificate_exists(client: &aws_sdk_iot::Client, id: &str) -> bool {
    match client
        .describe_certificate()
        .certificate_id(id)
        .send()
        .await
    {
        Ok(_) => true,
        Err(e) if e.code() == Some("ResourceNotFoundException") => false,
        Err(e) => panic!("DescribeCertificate: {e:?}"),
    }
}

async fn thing_exists(client: &aws_sdk_iot::Client, name: &str) -> bool {
    match client.describe_thing().thing_name(name).send().await {
        Ok(_) => true,
        Err(e) if e.code() == Some("ResourceNotFoundException") => false,
        Err(e) => panic!("DescribeThing: {e:?}"),
    }
}

#[tokio::test]
async fn issue_makes_an_active_certificate_on_the_devices_thing_with_the_policy() {
    let _serial = CERTIFICATES.lock().await;
    let (issuer, policy) = issuer().await;
    let client = issuer.client().clone();
    let (tenant, property, device) = (TenantId::new(), PropertyId::new(), DeviceId::new());

    let issued = issuer.issue(tenant, property, device).await.unwrap();
    let DeviceCredentials::Certificate {
        client_id,
        certificate_id,
        certificate_pem,
        private_key,
        endpoint,
    } = &issued.shown
    else {
        panic!("a certificate, not {:?}", issued.shown);
    };
    assert_eq!(
        client_id,
        &device.to_string(),
        "the client id is the thing name"
    );
    assert!(certificate_pem.contains("BEGIN CERTIFICATE"));
    assert!(private_key.contains("PRIVATE KEY"));
    assert_eq!(endpoint.as_deref(), Some(DATA_ENDPOINT));
    assert_eq!(issued.certificate_id.as_ref(), Some(certificate_id));
    assert!(issued.secret_hash.is_empty(), "nothing secret is kept");

    let described = client
        .describe_certificate()
        .certificate_id(certificate_id)
        .send()
        .await
        .unwrap();
    let description = described.certificate_description().unwrap();
    assert_eq!(description.status(), Some(&CertificateStatus::Active));
    let arn = description.certificate_arn().unwrap();

    let thing = client
        .describe_thing()
        .thing_name(device.to_string())
        .send()
        .await
        .unwrap();
    let attributes = thing.attributes().unwrap();
    assert_eq!(attributes[TENANT_ATTRIBUTE], tenant.to_string());
    assert_eq!(attributes[PROPERTY_ATTRIBUTE], property.to_string());

    let principals = client
        .list_thing_principals()
        .thing_name(device.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(principals.principals(), [arn.to_owned()]);

    let policies = client
        .list_attached_policies()
        .target(arn)
        .send()
        .await
        .unwrap();
    let names: Vec<_> = policies
        .policies()
        .iter()
        .filter_map(|p| p.policy_name())
        .collect();
    assert_eq!(names, [policy.as_str()]);
}

#[tokio::test]
async fn rotation_revokes_the_old_certificate_and_keeps_the_new_one_on_the_thing() {
    let _serial = CERTIFICATES.lock().await;
    let (issuer, _) = issuer().await;
    let client = issuer.client().clone();
    let (tenant, property, device) = (TenantId::new(), PropertyId::new(), DeviceId::new());
    let old = issuer.issue(tenant, property, device).await.unwrap();
    let old_id = old.certificate_id.unwrap();
    // A second certificate for the same device (rotation, a new board).
    let new = issuer.issue(tenant, property, device).await.unwrap();
    let new_id = new.certificate_id.unwrap();
    assert_ne!(old_id, new_id);

    issuer.revoke(device, Some(&old_id)).await.unwrap();
    assert!(!certificate_exists(&client, &old_id).await);
    assert!(
        certificate_exists(&client, &new_id).await,
        "the new one stays"
    );
    assert!(
        thing_exists(&client, &device.to_string()).await,
        "so does the thing"
    );
    // Again, and without an id: nothing more is removed.
    issuer.revoke(device, Some(&old_id)).await.unwrap();
    issuer.revoke(device, None).await.unwrap();
    assert!(certificate_exists(&client, &new_id).await);
}

#[tokio::test]
async fn retire_removes_every_certificate_and_the_thing_and_may_be_repeated() {
    let _serial = CERTIFICATES.lock().await;
    let (issuer, _) = issuer().await;
    let client = issuer.client().clone();
    let device = DeviceId::new();
    let issued = issuer
        .issue(TenantId::new(), PropertyId::new(), device)
        .await
        .unwrap();
    let certificate_id = issued.certificate_id.unwrap();

    // Without the recorded id: whatever is attached to the device's thing.
    issuer.retire(device, None).await.unwrap();
    assert!(!certificate_exists(&client, &certificate_id).await);
    assert!(!thing_exists(&client, &device.to_string()).await);
    issuer.retire(device, Some(&certificate_id)).await.unwrap();
    issuer.retire(device, None).await.unwrap();
}

#[tokio::test]
async fn a_failed_issue_leaves_no_certificate_or_thing_behind() {
    let _serial = CERTIFICATES.lock().await;
    let client = iot_client().await;
    // AttachPolicy, the last step, fails: the policy does not exist.
    let issuer = IotCredentials::new(client.clone(), "alyt-no-such-policy", None);
    let device = DeviceId::new();
    let before = client.list_certificates().send().await.unwrap();

    let error = issuer
        .issue(TenantId::new(), PropertyId::new(), device)
        .await
        .unwrap_err();
    assert_eq!(
        error.0, "IoT Core AttachPolicy failed",
        "names the step only"
    );

    assert!(!thing_exists(&client, &device.to_string()).await);
    let after = client.list_certificates().send().await.unwrap();
    assert_eq!(
        after.certificates().len(),
        before.certificates().len(),
        "the certificate made for it was deleted"
    );
}

#[tokio::test]
async fn commands_are_published_on_the_devices_commands_topic() {
    let publisher = IotDataPublisher::new(data_client().await);
    let identity = DeviceIdentity::new(TenantId::new(), PropertyId::new(), DeviceId::new());
    publisher
        .publish(
            &identity,
            br#"{"commandId":"1","command":"identify","payload":null}"#.to_vec(),
        )
        .await
        .unwrap();
}
