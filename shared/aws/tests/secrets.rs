//! Run-time secrets through the real Secrets Manager client, against moto.

use alyt_aws::secrets::Secrets;
async fn client() -> aws_sdk_secretsmanager::Client {
    alyt_aws::testing::moto().await.secrets_client()
}

/// A secret of its own (moto's state is shared by the whole binary).
async fn secret(client: &aws_sdk_secretsmanager::Client, value: &str) -> String {
    client
        .create_secret()
        .name(format!("alyt-test-{}", uuid::Uuid::new_v4()))
        .secret_string(value)
        .send()
        .await
        .unwrap()
        .arn()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn a_secret_never_rotated_has_a_current_value_and_no_previous() {
    let client = client().await;
    let arn = secret(&client, "first value").await;
    let versions = Secrets::new(client).versions(&arn).await.unwrap();
    assert_eq!(versions.current.value, b"first value");
    assert!(!versions.current.version_id.is_empty());
    assert_eq!(versions.previous, None);
}

#[tokio::test]
async fn putting_a_value_makes_it_current_and_the_old_one_previous() {
    let client = client().await;
    let arn = secret(&client, "first value").await;
    let secrets = Secrets::new(client.clone());
    let first = secrets.current(&arn).await.unwrap();

    client
        .put_secret_value()
        .secret_id(&arn)
        .secret_string("second value")
        .send()
        .await
        .unwrap();
    let versions = secrets.versions(&arn).await.unwrap();
    assert_eq!(versions.current.value, b"second value");
    assert_ne!(versions.current.version_id, first.version_id);
    assert_eq!(versions.previous, Some(first));
}

#[tokio::test]
async fn a_missing_secret_is_an_error_naming_it() {
    let client = client().await;
    let error = Secrets::new(client)
        .current("alyt-test-no-such-secret")
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("alyt-test-no-such-secret"),
        "{error}"
    );
}

#[tokio::test]
async fn a_cached_secret_is_read_again_only_after_its_interval() {
    use alyt_aws::secrets::CachedSecret;
    use std::time::Duration;
    let client = client().await;
    let arn = secret(&client, "first value").await;
    let rotate = |value: &'static str| {
        let (client, arn) = (client.clone(), arn.clone());
        async move {
            client
                .put_secret_value()
                .secret_id(arn)
                .secret_string(value)
                .send()
                .await
                .unwrap();
        }
    };

    let held_long = CachedSecret::new(
        Secrets::new(client.clone()),
        arn.clone(),
        Duration::from_secs(3600),
    );
    assert_eq!(held_long.current().await.unwrap().value, b"first value");
    rotate("second value").await;
    assert_eq!(held_long.current().await.unwrap().value, b"first value");

    let read_each_time =
        CachedSecret::new(Secrets::new(client.clone()), arn.clone(), Duration::ZERO);
    assert_eq!(
        read_each_time.current().await.unwrap().value,
        b"second value"
    );
    rotate("third value").await;
    assert_eq!(
        read_each_time.current().await.unwrap().value,
        b"third value"
    );
}
