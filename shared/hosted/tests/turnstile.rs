//! The Turnstile bot check against a loopback stand-in of the siteverify
//! endpoint. A test double by necessity: Cloudflare cannot be reached from
//! here. The stand-in answers like siteverify (form in, `{ success }` out) and
//! records what it was sent.

use std::sync::{Arc, Mutex};

use alyt_app::ports::BotCheck;
use alyt_hosted::turnstile::{Turnstile, TurnstileSecret};
use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};

type Seen = Arc<Mutex<Vec<Vec<(String, String)>>>>;

async fn stand_in(answer: Value, status: u16) -> (String, Seen) {
    let seen: Seen = Arc::default();
    let app = Router::new()
        .route(
            "/siteverify",
            post(move |State(seen): State<Seen>, body: String| {
                let answer = answer.clone();
                let form: Vec<(String, String)> = form_urlencoded::parse(body.as_bytes())
                    .map(|(k, v)| (k.into_owned(), v.into_owned()))
                    .collect();
                async move {
                    seen.lock().unwrap().push(form);
                    (
                        axum::http::StatusCode::from_u16(status).unwrap(),
                        Json(answer),
                    )
                }
            }),
        )
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}/siteverify"), seen)
}

#[tokio::test]
async fn a_passing_verdict_is_a_human_and_the_secret_token_and_ip_are_sent() {
    let (url, seen) = stand_in(json!({ "success": true }), 200).await;
    let check = Turnstile::with_endpoint(TurnstileSecret::Fixed("secret-1".into()), url);
    assert!(
        check
            .verify("token-1", Some("198.51.100.23".parse().unwrap()))
            .await
    );
    let forms = seen.lock().unwrap().clone();
    assert_eq!(
        forms,
        [vec![
            ("secret".to_owned(), "secret-1".to_owned()),
            ("response".to_owned(), "token-1".to_owned()),
            ("remoteip".to_owned(), "198.51.100.23".to_owned()),
        ]]
    );
}

#[tokio::test]
async fn failures_errors_and_silence_all_fail_closed() {
    let (url, _) = stand_in(
        json!({ "success": false, "error-codes": ["invalid-input-response"] }),
        200,
    )
    .await;
    assert!(
        !Turnstile::with_endpoint(TurnstileSecret::Fixed("s".into()), url)
            .verify("t", None)
            .await
    );
    let (url, _) = stand_in(json!({ "oops": true }), 500).await;
    assert!(
        !Turnstile::with_endpoint(TurnstileSecret::Fixed("s".into()), url)
            .verify("t", None)
            .await
    );
    // Nothing listens here.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    assert!(
        !Turnstile::with_endpoint(
            TurnstileSecret::Fixed("s".into()),
            format!("http://{closed}/siteverify")
        )
        .verify("t", None)
        .await
    );
    let (url, seen) = stand_in(json!({ "success": true }), 200).await;
    assert!(
        !Turnstile::with_endpoint(TurnstileSecret::Fixed("s".into()), url)
            .verify("", None)
            .await,
        "an empty token is never sent"
    );
    assert!(seen.lock().unwrap().is_empty());
}

/// The secret as the template gives it: a Secrets Manager secret (on moto,
/// through the real client), read when a check needs it.
async fn stored_secret(value: Option<&str>) -> TurnstileSecret {
    let client = alyt_aws::testing::moto().await.secrets_client();
    let name = format!("alyt-test-turnstile-{}", std::process::id());
    let id = match value {
        Some(value) => client
            .create_secret()
            .name(format!("{name}-{}", value.len()))
            .secret_string(value)
            .send()
            .await
            .unwrap()
            .arn()
            .unwrap()
            .to_owned(),
        None => format!("{name}-missing"),
    };
    TurnstileSecret::Stored(alyt_aws::secrets::CachedSecret::new(
        alyt_aws::secrets::Secrets::new(client),
        id,
        std::time::Duration::from_secs(300),
    ))
}

#[tokio::test]
async fn a_secret_kept_in_secrets_manager_is_the_one_sent() {
    let (url, seen) = stand_in(json!({ "success": true }), 200).await;
    let check = Turnstile::with_endpoint(stored_secret(Some("stored-secret-1")).await, url);
    assert!(check.verify("token-1", None).await);
    let forms = seen.lock().unwrap().clone();
    assert_eq!(
        forms[0][0],
        ("secret".to_owned(), "stored-secret-1".to_owned())
    );
}

#[tokio::test]
async fn a_secret_that_cannot_be_read_fails_closed_without_asking() {
    let (url, seen) = stand_in(json!({ "success": true }), 200).await;
    let check = Turnstile::with_endpoint(stored_secret(None).await, url);
    assert!(!check.verify("token-1", None).await);
    assert!(seen.lock().unwrap().is_empty(), "siteverify was not asked");
}
