//! The hosted token keys in Secrets Manager (moto, the real client): a
//! rotation as an operator makes it (a new value put) is followed by every
//! signer, tokens of the key before it still verify, and those of the key
//! before that do not.

use std::sync::Arc;

use alyt_api::auth::jwt::{TokenError, TokenSigner};
use alyt_aws::secrets::Secrets;
use alyt_domain::access::Claims;
use alyt_domain::ids::{KeyId, SessionId, UserId};
use alyt_domain::{Clock, ManualClock};
use alyt_lambda_http::token_keys::{SecretsManagerSigningKeys, kid_of};

async fn client() -> aws_sdk_secretsmanager::Client {
    alyt_aws::testing::moto().await.secrets_client()
}

fn random_key() -> String {
    format!("{}{}", KeyId::new(), KeyId::new())
}

async fn key_secret(client: &aws_sdk_secretsmanager::Client, value: &str) -> String {
    client
        .create_secret()
        .name(format!("alyt-test-token-key-{}", KeyId::new()))
        .secret_string(value)
        .send()
        .await
        .unwrap()
        .arn()
        .unwrap()
        .to_owned()
}

async fn rotate(client: &aws_sdk_secretsmanager::Client, arn: &str) -> String {
    client
        .put_secret_value()
        .secret_id(arn)
        .secret_string(random_key())
        .send()
        .await
        .unwrap()
        .version_id()
        .unwrap()
        .to_owned()
}

async fn signer(
    client: &aws_sdk_secretsmanager::Client,
    arn: &str,
    clock: &ManualClock,
) -> TokenSigner {
    let source = SecretsManagerSigningKeys::new(Secrets::new(client.clone()), arn.to_owned());
    TokenSigner::from_source(Arc::new(source), clock.unix_seconds())
        .await
        .unwrap()
}

/// A session token (they last 15 minutes, so one outlives a refresh).
fn token(signer: &TokenSigner, clock: &ManualClock) -> String {
    let now = clock.unix_seconds();
    signer.issue_session(&Claims {
        sub: UserId::new(),
        email: "a@example.com".into(),
        platform_role: None,
        tenants: Default::default(),
        clients: Default::default(),
        iat: now,
        exp: now + alyt_api::auth::jwt::SESSION_TOKEN_SECONDS,
        jti: SessionId::new().to_string(),
    })
}

fn kid(token: &str) -> String {
    use base64::Engine;
    let header = token.split('.').next().unwrap();
    let header = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(header)
        .unwrap();
    let header: serde_json::Value = serde_json::from_slice(&header).unwrap();
    header["kid"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_rotation_is_followed_and_the_previous_key_still_verifies() {
    let client = client().await;
    let clock = ManualClock::new(time::macros::datetime!(2026-06-01 12:00 UTC));
    let arn = key_secret(&client, &random_key()).await;
    let signer = signer(&client, &arn, &clock).await;
    let before = token(&signer, &clock);
    assert!(kid(&before).starts_with("sm-"));

    let second = rotate(&client, &arn).await;
    // Within the refresh interval the signer still signs with what it holds.
    assert_eq!(kid(&token(&signer, &clock)), kid(&before));
    clock.advance(time::Duration::minutes(5));
    assert!(signer.verify_fresh(&before, &clock).await.is_ok());
    let after = token(&signer, &clock);
    assert_eq!(
        kid(&after),
        kid_of(&second),
        "new tokens use the new version"
    );

    rotate(&client, &arn).await;
    clock.advance(time::Duration::minutes(5));
    signer.keep_fresh(clock.unix_seconds()).await;
    let refused = signer.verify(&before, &clock);
    assert_eq!(refused, Err(TokenError::Invalid), "two rotations later");
    assert!(
        signer.verify(&after, &clock).is_ok(),
        "the previous version"
    );
}

#[tokio::test]
async fn a_token_of_a_version_another_instance_saw_first_verifies_at_once() {
    let client = client().await;
    let clock = ManualClock::new(time::macros::datetime!(2026-06-01 12:00 UTC));
    let arn = key_secret(&client, &random_key()).await;
    let slow = signer(&client, &arn, &clock).await;
    rotate(&client, &arn).await;
    let quick = signer(&client, &arn, &clock).await;
    assert!(
        slow.verify_fresh(&token(&quick, &clock), &clock)
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn a_key_too_short_to_sign_with_is_refused() {
    let client = client().await;
    let clock = ManualClock::new(time::macros::datetime!(2026-06-01 12:00 UTC));
    let arn = key_secret(&client, "short").await;
    let source = SecretsManagerSigningKeys::new(Secrets::new(client.clone()), arn);
    let refused = TokenSigner::from_source(Arc::new(source), clock.unix_seconds()).await;
    assert!(refused.is_err());
}
