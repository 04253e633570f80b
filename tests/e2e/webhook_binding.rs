//! A webhook endpoint speaks for the key it is bound to, seen from outside:
//! a key binds endpoints only to itself and manages only its own; when the
//! key is revoked or expires, or the developer is suspended, the endpoint is
//! disabled with the reason and nothing more reaches the receiver, not even
//! what was already queued.

use std::sync::Arc;
use std::time::Duration;

use alyt_domain::ids::DeveloperId;
use alyt_store::repo::developers::{DeveloperStatus, Developers};
use alyt_tests::TestPlatform;
use alyt_tests::developers::{
    DeveloperSession, approve_connector, create_connector, create_key, issue_live_key,
    sign_up_and_verify,
};
use alyt_tests::webhooks::{OffsetClock, Receiver};
use serde_json::{Value, json};

async fn create(
    t: &TestPlatform,
    token: &str,
    receiver: &Receiver,
    key_id: Option<&str>,
) -> (u16, Value) {
    let mut body = json!({ "url": receiver.url(), "events": ["webhook.ping"] });
    if let Some(key_id) = key_id {
        body["keyId"] = json!(key_id);
    }
    t.post_json("/developers/webhooks", Some(token), body).await
}

async fn listed(t: &TestPlatform, token: &str) -> Vec<Value> {
    let (status, list) = t.get_json("/developers/webhooks", Some(token)).await;
    assert_eq!(status, 200, "{list}");
    list["items"].as_array().unwrap().clone()
}

fn ids(items: &[Value]) -> Vec<&str> {
    items.iter().map(|e| e["id"].as_str().unwrap()).collect()
}

async fn ping(t: &TestPlatform, token: &str, endpoint: &str) -> (u16, Value) {
    t.post_json(
        &format!("/developers/webhooks/{endpoint}/test"),
        Some(token),
        json!({}),
    )
    .await
}

#[tokio::test]
async fn a_key_binds_webhooks_only_to_itself_and_manages_only_its_own() {
    let t = TestPlatform::start().await;
    let dev = sign_up_and_verify(&t, "binding-keys@example.com").await;
    let (key_a, secret_a) = create_key(&t, &dev, &["webhooks:write"]).await;
    let (key_b, secret_b) = create_key(&t, &dev, &["webhooks:write"]).await;
    let (owner_email, owner_password) = t.owner();
    let staff = t.household_login(&owner_email, &owner_password).await["accessToken"]
        .as_str()
        .unwrap()
        .to_owned();
    let connector = create_connector(&t, &dev, "binding-connector", "http://127.0.0.1:9/").await;
    approve_connector(&t, &staff, &dev, &connector).await;
    let live = issue_live_key(
        &t,
        &staff,
        &dev.developer_id,
        &["webhooks:write"],
        &connector,
    )
    .await;
    let live_id = live["id"].as_str().unwrap();
    let receiver = Receiver::start(Arc::new(alyt_domain::SystemClock)).await;

    // A key naming another key (the LIVE one above all) is refused.
    for other in [live_id, key_b.as_str()] {
        let (status, problem) = create(&t, &secret_a, &receiver, Some(other)).await;
        assert_eq!(status, 403, "{problem}");
    }
    // Without keyId, or naming itself, a key binds the endpoint to itself.
    let (status, mine) = create(&t, &secret_a, &receiver, None).await;
    assert_eq!(status, 201, "{mine}");
    assert_eq!(mine["keyId"], key_a.as_str());
    let (status, mine_named) = create(&t, &secret_a, &receiver, Some(&key_a)).await;
    assert_eq!(status, 201, "{mine_named}");
    // The developer's session binds to any of its keys, the LIVE one too.
    let (status, theirs) = create(&t, &dev.access_token, &receiver, Some(&key_b)).await;
    assert_eq!(status, 201, "{theirs}");
    let (status, on_live) = create(&t, &dev.access_token, &receiver, Some(live_id)).await;
    assert_eq!(status, 201, "{on_live}");
    assert_eq!(on_live["keyId"], live_id);

    // Each key sees its own; the session sees them all.
    let (a1, a2) = (
        mine["id"].as_str().unwrap(),
        mine_named["id"].as_str().unwrap(),
    );
    let b = theirs["id"].as_str().unwrap();
    assert_eq!(ids(&listed(&t, &secret_a).await), [a1, a2]);
    assert_eq!(ids(&listed(&t, &secret_b).await), [b]);
    assert_eq!(listed(&t, &dev.access_token).await.len(), 4);

    // Another key's endpoint answers to a key exactly like a missing one.
    let missing = "0190b5a0-0000-7000-8000-000000000000";
    for id in [b, on_live["id"].as_str().unwrap(), missing] {
        let mut answers = Vec::new();
        for (method, path) in [
            ("POST", format!("/developers/webhooks/{id}/test")),
            ("GET", format!("/developers/webhooks/{id}/deliveries")),
            ("POST", format!("/developers/webhooks/{id}/enable")),
            ("DELETE", format!("/developers/webhooks/{id}")),
        ] {
            let (status, body) = t.send_json(method, &path, Some(&secret_a), None).await;
            assert_eq!(status, 404, "{method} {path}: {body}");
            answers.push(alyt_tests::without_request_id(body));
        }
        assert!(answers.iter().all(|a| *a == answers[0]), "{answers:?}");
    }
    // Key B's endpoint is still there, and B manages it.
    let (status, _) = ping(&t, &secret_b, b).await;
    assert_eq!(status, 202);
}

/// A developer whose DEV key (with `webhooks:write`) has an endpoint on a
/// receiver that answers 503, with two pings queued for retry.
async fn failing_endpoint(
    t: &TestPlatform,
    email: &str,
    receiver: &Receiver,
    key_body: Value,
) -> (DeveloperSession, String, String, String) {
    let dev = sign_up_and_verify(t, email).await;
    let response = t
        .http
        .post(t.url("/developers/keys"))
        .bearer_auth(&dev.access_token)
        .json(&key_body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    let key: Value = response.json().await.unwrap();
    let (key_id, secret) = (
        key["id"].as_str().unwrap().to_owned(),
        key["secret"].as_str().unwrap().to_owned(),
    );
    let (status, created) = create(t, &secret, receiver, None).await;
    assert_eq!(status, 201, "{created}");
    receiver.set_secret(created["secret"].as_str().unwrap());
    let endpoint = created["id"].as_str().unwrap().to_owned();
    receiver.answer(503);
    for n in 1..=2 {
        let (status, _) = ping(t, &secret, &endpoint).await;
        assert_eq!(status, 202);
        receiver
            .until(Duration::from_secs(10), |s| s.len() == n)
            .await;
    }
    (dev, key_id, secret, endpoint)
}

/// The endpoint as the developer's session lists it.
async fn endpoint_view(t: &TestPlatform, dev: &DeveloperSession, endpoint: &str) -> Value {
    listed(t, &dev.access_token)
        .await
        .into_iter()
        .find(|e| e["id"] == endpoint)
        .expect("listed")
}

/// What the receiver gets after the retry time has come and gone twice.
async fn after_the_retries(clock: &OffsetClock, receiver: &Receiver) -> usize {
    receiver.answer(200);
    for _ in 0..2 {
        clock.advance(Duration::from_secs(120));
        tokio::time::sleep(Duration::from_millis(1500)).await;
    }
    receiver.seen().len()
}

async fn deliveries_of(t: &TestPlatform, dev: &DeveloperSession, endpoint: &str) -> Vec<Value> {
    let (status, body) = t
        .get_json(
            &format!("/developers/webhooks/{endpoint}/deliveries"),
            Some(&dev.access_token),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    body["items"].as_array().unwrap().clone()
}

/// A platform whose webhook worker runs on a clock the test moves, and a
/// receiver on the same clock.
async fn with_delivery_clock() -> (TestPlatform, Arc<OffsetClock>, Receiver) {
    let clock = Arc::new(OffsetClock::default());
    let delivery_clock = clock.clone();
    let t = TestPlatform::start_with_config(move |config| {
        config.webhooks.clock = Some(delivery_clock);
    })
    .await;
    let receiver = Receiver::start(clock.clone()).await;
    (t, clock, receiver)
}

#[tokio::test]
async fn revoking_the_key_stops_its_webhooks_queued_deliveries_included() {
    let (t, clock, receiver) = with_delivery_clock().await;
    let (dev, key_id, _, endpoint) = failing_endpoint(
        &t,
        "binding-revoke@example.com",
        &receiver,
        json!({ "name": "hooks", "scopes": ["webhooks:write"] }),
    )
    .await;

    let (status, _) = t
        .send_json(
            "DELETE",
            &format!("/developers/keys/{key_id}"),
            Some(&dev.access_token),
            None,
        )
        .await;
    assert_eq!(status, 204);
    let view = endpoint_view(&t, &dev, &endpoint).await;
    assert_eq!(view["status"], "disabled", "{view}");
    assert_eq!(view["disabledReason"], "key_revoked", "{view}");

    // The two retries come due with the receiver back: nothing is sent.
    assert_eq!(after_the_retries(&clock, &receiver).await, 2);
    let log = deliveries_of(&t, &dev, &endpoint).await;
    assert!(log.iter().all(|d| d["status"] == "held"), "{log:?}");
    // A new ping is held too, and the endpoint cannot be re-enabled.
    let (status, queued) = ping(&t, &dev.access_token, &endpoint).await;
    assert_eq!(status, 202);
    assert_eq!(queued["status"], "held", "{queued}");
    let (status, problem) = t
        .post_json(
            &format!("/developers/webhooks/{endpoint}/enable"),
            Some(&dev.access_token),
            json!({}),
        )
        .await;
    assert_eq!(status, 409, "{problem}");
    assert_eq!(receiver.seen().len(), 2);
}

#[tokio::test]
async fn an_expired_key_stops_its_webhooks_before_the_next_send() {
    let (t, clock, receiver) = with_delivery_clock().await;
    // The key expires a minute from now: before the second retry.
    let expires = time::OffsetDateTime::now_utc() + time::Duration::seconds(60);
    let expires = expires
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    let (dev, _, _, endpoint) = failing_endpoint(
        &t,
        "binding-expiry@example.com",
        &receiver,
        json!({ "name": "hooks", "scopes": ["webhooks:write"], "expiresAt": expires }),
    )
    .await;
    // Nothing noticed the expiry yet: the worker checks it right before the
    // retry (the delivery clock is past it by then) and holds the rows.
    assert_eq!(after_the_retries(&clock, &receiver).await, 2);
    let log = deliveries_of(&t, &dev, &endpoint).await;
    assert!(log.iter().all(|d| d["status"] == "held"), "{log:?}");
    let view = endpoint_view(&t, &dev, &endpoint).await;
    assert_eq!(view["status"], "disabled", "{view}");
    assert_eq!(view["disabledReason"], "key_expired", "{view}");
}

#[tokio::test]
async fn a_suspended_developer_gets_no_more_webhooks_and_cannot_refresh() {
    let (t, clock, receiver) = with_delivery_clock().await;
    let (dev, _, _, endpoint) = failing_endpoint(
        &t,
        "binding-suspended@example.com",
        &receiver,
        json!({ "name": "hooks", "scopes": ["webhooks:write"] }),
    )
    .await;
    // Staff suspend the account. No operation suspends yet, so the test
    // writes the status through the repository, as an operator would.
    let store = t.platform.store();
    let developers = Developers(&*store);
    let id: DeveloperId = dev.developer_id.parse().unwrap();
    let mut record = developers.get(id).await.unwrap().unwrap();
    record.status = DeveloperStatus::Suspended;
    developers.save(&record).await.unwrap();

    assert_eq!(after_the_retries(&clock, &receiver).await, 2);
    let (status, _) = t
        .post_json(
            "/developers/auth/refresh",
            None,
            json!({ "refreshToken": dev.refresh_token }),
        )
        .await;
    assert_eq!(
        status, 401,
        "a suspended developer's refresh token stops working"
    );

    // Reinstated, the developer sees why and re-enables: what was held is sent.
    record.status = DeveloperStatus::Active;
    developers.save(&record).await.unwrap();
    let again: Value = alyt_tests::developers::login(&t, &dev.email, &dev.password, None)
        .await
        .json()
        .await
        .unwrap();
    let token = again["accessToken"].as_str().unwrap().to_owned();
    let view = listed(&t, &token)
        .await
        .into_iter()
        .find(|e| e["id"] == endpoint.as_str())
        .unwrap();
    assert_eq!(view["disabledReason"], "developer_suspended", "{view}");
    let (status, enabled) = t
        .post_json(
            &format!("/developers/webhooks/{endpoint}/enable"),
            Some(&token),
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{enabled}");
    receiver
        .until(Duration::from_secs(10), |s| {
            s.iter().filter(|x| x.answered == 200).count() == 2
        })
        .await;
}
