//! Webhooks on the local platform, seen from outside: a developer registers
//! an endpoint on a loopback receiver (which verifies every signature and
//! counts deliveries by envelope id), a test ping and a device's event reach
//! it, a receiver that is down loses nothing and is retried on the spec's
//! schedule (an injected delivery clock), fifty failures disable the endpoint
//! (mail + notification) and a re-enable sends what was held; an endpoint
//! is edited (URL, filter) and disabled by hand like the fifty failures do.

use std::sync::Arc;
use std::time::Duration;

use alyt_domain::ids::TenantId;
use alyt_events::{EventKind, EventLog};
use alyt_tests::TestPlatform;
use alyt_tests::developers::{self, DeveloperSession, create_key, sign_up_and_verify};
use alyt_tests::webhooks::{OffsetClock, Receiver};
use rumqttc::QoS;
use serde_json::{Value, json};

use crate::device_plane::{Registered, connect};

async fn create_endpoint(
    t: &TestPlatform,
    token: &str,
    receiver: &Receiver,
    events: &[&str],
) -> (String, String) {
    let (status, body) = t
        .post_json(
            "/developers/webhooks",
            Some(token),
            json!({ "url": receiver.url(), "events": events, "description": "test receiver" }),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let secret = body["secret"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("whsec_"), "{body}");
    receiver.set_secret(&secret);
    (body["id"].as_str().unwrap().to_owned(), secret)
}

async fn deliveries(t: &TestPlatform, token: &str, endpoint: &str) -> Vec<Value> {
    let (status, body) = t
        .get_json(
            &format!("/developers/webhooks/{endpoint}/deliveries"),
            Some(token),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["nextCursor"], Value::Null);
    body["items"].as_array().unwrap().clone()
}

async fn ping(t: &TestPlatform, token: &str, endpoint: &str) -> String {
    let (status, body) = t
        .post_json(
            &format!("/developers/webhooks/{endpoint}/test"),
            Some(token),
            json!({}),
        )
        .await;
    assert_eq!(status, 202, "{body}");
    body["eventId"].as_str().unwrap().to_owned()
}

/// Whether Stripe's Python library (`stripe.WebhookSignature.verify_header`,
/// installed by tests/run in the test venv) accepts the delivery, with its
/// default five-minute tolerance.
fn stripe_verifies(body: &str, header: &str, secret: &str) -> bool {
    let venv = std::env::var("ALYT_VENV")
        .unwrap_or_else(|_| format!("{}/target/alyt-venv", env!("ALYT_REPO_ROOT")));
    let output = std::process::Command::new(format!("{venv}/bin/python"))
        .args([
            "-c",
            "import sys, stripe\n\
             stripe.WebhookSignature.verify_header(sys.argv[1], sys.argv[2], sys.argv[3], 300)\n\
             print('verified')",
            body,
            header,
            secret,
        ])
        .output()
        .expect("the test venv's python runs (tests/run installs it)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        eprintln!("stripe: {}", String::from_utf8_lossy(&output.stderr));
    }
    output.status.success() && stdout.trim() == "verified"
}

/// Records an event of `kind` in the tenant's log, as the platform does
/// (the dispatcher fans it out to the endpoints); answers its id.
async fn record(t: &TestPlatform, tenant: &str, kind: EventKind) -> String {
    let log = EventLog::new(t.platform.store(), Arc::new(alyt_domain::SystemClock));
    let tenant: TenantId = tenant.parse().unwrap();
    let recorded = log.record(tenant, kind, json!({})).await.unwrap();
    recorded.id.to_string()
}

async fn patch(t: &TestPlatform, token: &str, endpoint: &str, body: Value) -> (u16, Value) {
    t.send_json(
        "PATCH",
        &format!("/developers/webhooks/{endpoint}"),
        Some(token),
        Some(body),
    )
    .await
}

async fn developer(t: &TestPlatform, email: &str) -> (DeveloperSession, String) {
    let dev = sign_up_and_verify(t, email).await;
    let (_, key) = create_key(t, &dev, &["webhooks:write", "events:read"]).await;
    (dev, key)
}

#[tokio::test]
async fn a_ping_reaches_the_receiver_signed_and_shows_in_the_delivery_log() {
    let t = TestPlatform::start().await;
    let (dev, key) = developer(&t, "hooks-ping@example.com").await;
    let receiver = Receiver::start(Arc::new(alyt_domain::SystemClock)).await;
    // A key with webhooks:write registers; the default binding is the newest DEV key.
    let (endpoint, secret) = create_endpoint(&t, &key, &receiver, &["device.online"]).await;

    // Listed without the secret, to the session as to the key.
    for token in [dev.access_token.as_str(), key.as_str()] {
        let (status, list) = t.get_json("/developers/webhooks", Some(token)).await;
        assert_eq!(status, 200, "{list}");
        let items = list["items"].as_array().unwrap();
        assert_eq!(items.len(), 1);
        assert_eq!(items[0]["id"], endpoint.as_str());
        assert_eq!(items[0]["status"], "active");
        assert_eq!(items[0]["events"], json!(["device.online"]));
        assert!(items[0].get("secret").is_none());
        assert!(!list.to_string().contains(&secret));
    }

    let event_id = ping(&t, &dev.access_token, &endpoint).await;
    let seen = receiver
        .until(Duration::from_secs(10), |s| !s.is_empty())
        .await;
    let first = &seen[0];
    assert!(first.verified, "the signature verifies: {first:?}");
    assert_eq!(first.event_header, "webhook.ping");
    assert_eq!(first.envelope["id"], event_id.as_str());
    assert_eq!(first.envelope["type"], "webhook.ping");
    assert_eq!(first.envelope["tenantId"], dev.sandbox_tenant_id.as_str());
    assert_eq!(first.envelope["data"]["endpointId"], endpoint.as_str());
    assert!(first.signature_header.starts_with("t="));
    assert!(
        stripe_verifies(&first.body, &first.signature_header, &secret),
        "Stripe's own library accepts the signature"
    );

    // The log shows it delivered, with the exact signed payload.
    let log = deliveries(&t, &dev.access_token, &endpoint).await;
    let row = log
        .iter()
        .find(|d| d["eventId"] == event_id.as_str())
        .unwrap();
    assert_eq!(row["status"], "delivered", "{row}");
    assert_eq!(row["attempts"], 1);
    assert_eq!(row["responseCode"], 200);
    assert_eq!(row["eventType"], "webhook.ping");
    assert_eq!(row["id"], first.delivery_header.as_str());
    assert_eq!(row["payload"], first.body.as_str());
    assert_eq!(row["signature"], first.signature_header.as_str());
    assert_eq!(receiver.delivered_by_event()[&event_id], 1);
}

#[tokio::test]
async fn a_device_coming_online_in_the_sandbox_reaches_the_receiver() {
    let t = TestPlatform::start().await;
    let (dev, _) = developer(&t, "hooks-device@example.com").await;
    let receiver = Receiver::start(Arc::new(alyt_domain::SystemClock)).await;
    let (_endpoint, _) =
        create_endpoint(&t, &dev.access_token, &receiver, &["device.online"]).await;

    // The developer registers a device in its sandbox and it reports over MQTT.
    let sandbox = dev.sandbox_tenant_id.clone();
    let (_, homes) = t
        .get_json(
            &format!("/properties?tenantId={sandbox}"),
            Some(&dev.access_token),
        )
        .await;
    let home = homes["items"][0]["id"].as_str().unwrap().to_owned();
    let (status, body) = t
        .post_json(
            "/devices/register",
            Some(&dev.access_token),
            json!({
                "tenantId": sandbox, "propertyId": home, "name": "Hook lamp",
                "kind": "OTHER", "capabilities": ["LIGHT"], "serial": "SN-HOOK-0001",
            }),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let d = Registered {
        tenant: sandbox.clone(),
        device: body["device"]["id"].as_str().unwrap().to_owned(),
        prefix: body["topicPrefix"].as_str().unwrap().to_owned(),
        username: body["credentials"]["username"].as_str().unwrap().to_owned(),
        password: body["credentials"]["password"].as_str().unwrap().to_owned(),
    };
    let (client, driver) = connect(&t, &d).await;
    client
        .publish(
            format!("{}/availability", d.prefix),
            QoS::AtLeastOnce,
            true,
            "online",
        )
        .await
        .unwrap();

    let device = d.device.clone();
    let seen = receiver
        .until(Duration::from_secs(15), |s| {
            s.iter()
                .any(|x| x.envelope["data"]["deviceId"] == device.as_str())
        })
        .await;
    let hit = seen
        .iter()
        .find(|x| x.envelope["data"]["deviceId"] == device.as_str())
        .unwrap();
    assert!(hit.verified);
    assert_eq!(hit.event_header, "device.online");
    assert_eq!(hit.envelope["type"], "device.online");
    assert_eq!(hit.envelope["tenantId"], sandbox.as_str());
    // Every request the receiver got verified, and only the subscribed kind came.
    assert!(
        seen.iter()
            .all(|s| s.verified && s.event_header == "device.online")
    );
    driver.abort();
}

#[tokio::test]
async fn a_receiver_that_is_down_loses_nothing_and_is_retried_on_schedule() {
    let clock = Arc::new(OffsetClock::default());
    let delivery_clock = clock.clone();
    let t = TestPlatform::start_with_config(move |config| {
        config.webhooks.clock = Some(delivery_clock);
    })
    .await;
    let (dev, key) = developer(&t, "hooks-down@example.com").await;
    let receiver = Receiver::start(clock.clone()).await;
    let (endpoint, _) = create_endpoint(&t, &key, &receiver, &["webhook.ping"]).await;
    receiver.answer(503);

    let first = ping(&t, &key, &endpoint).await;
    receiver
        .until(Duration::from_secs(10), |s| s.len() == 1)
        .await;
    let second = ping(&t, &key, &endpoint).await;
    receiver
        .until(Duration::from_secs(10), |s| s.len() == 2)
        .await;

    // What the developer sees: retrying, one attempt, the answer, the next time.
    let log = deliveries(&t, &key, &endpoint).await;
    assert_eq!(log.len(), 2);
    for row in &log {
        assert_eq!(row["status"], "retrying", "{row}");
        assert_eq!(row["attempts"], 1);
        assert_eq!(row["responseCode"], 503);
        let last = time::OffsetDateTime::parse(
            row["lastAttemptAt"].as_str().unwrap(),
            &time::format_description::well_known::Rfc3339,
        )
        .unwrap();
        let next = time::OffsetDateTime::parse(
            row["nextAttemptAt"].as_str().unwrap(),
            &time::format_description::well_known::Rfc3339,
        )
        .unwrap();
        assert_eq!(next - last, time::Duration::seconds(30), "{row}");
    }

    // 27 s later (and a moment of real time) nothing is due yet ...
    clock.advance(Duration::from_secs(27));
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert_eq!(receiver.seen().len(), 2, "no retry before 30 s");
    // ... at 30 s both are retried (still failing), next after 1 more minute.
    clock.advance(Duration::from_secs(4));
    receiver
        .until(Duration::from_secs(10), |s| s.len() == 4)
        .await;
    let log = deliveries(&t, &key, &endpoint).await;
    for row in &log {
        assert_eq!(row["attempts"], 2, "{row}");
    }
    let last = |row: &Value, field: &str| {
        time::OffsetDateTime::parse(
            row[field].as_str().unwrap(),
            &time::format_description::well_known::Rfc3339,
        )
        .unwrap()
    };
    assert_eq!(
        last(&log[0], "nextAttemptAt") - last(&log[0], "lastAttemptAt"),
        time::Duration::minutes(1)
    );

    // The receiver comes back: the third attempt delivers both, once each.
    receiver.answer(200);
    clock.advance(Duration::from_secs(61));
    receiver
        .until(Duration::from_secs(10), |s| {
            s.iter().filter(|x| x.answered == 200).count() == 2
        })
        .await;
    let counts = receiver.delivered_by_event();
    assert_eq!(counts.get(&first), Some(&1));
    assert_eq!(counts.get(&second), Some(&1));
    assert!(receiver.seen().iter().all(|s| s.verified));
    // One delivery id per series: every attempt of an event carried the same one.
    for event in [&first, &second] {
        let ids: std::collections::BTreeSet<String> = receiver
            .seen()
            .iter()
            .filter(|s| s.envelope["id"] == event.as_str())
            .map(|s| s.delivery_header.clone())
            .collect();
        assert_eq!(ids.len(), 1, "{ids:?}");
    }
    let log = deliveries(&t, &dev.access_token, &endpoint).await;
    assert!(
        log.iter()
            .all(|r| r["status"] == "delivered" && r["attempts"] == 3)
    );
}

#[tokio::test]
async fn fifty_failures_disable_the_endpoint_and_a_re_enable_sends_what_was_held() {
    let t = TestPlatform::start().await;
    let (dev, key) = developer(&t, "hooks-disable@example.com").await;
    let receiver = Receiver::start(Arc::new(alyt_domain::SystemClock)).await;
    let (endpoint, _) = create_endpoint(&t, &key, &receiver, &["webhook.ping"]).await;
    receiver.answer(500);

    let mut events = Vec::new();
    for _ in 0..50 {
        events.push(ping(&t, &key, &endpoint).await);
    }
    receiver
        .until(Duration::from_secs(30), |s| s.len() >= 50)
        .await;
    // Disabled at the 50th consecutive failure: the developer is mailed ...
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let mail = loop {
        let mails = developers::mails_to(&t, &dev.email);
        if let Some(m) = mails.iter().find(|m| m.subject.contains("disabled")) {
            break m.clone();
        }
        assert!(tokio::time::Instant::now() < deadline, "no disabled mail");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(mail.body.contains(&endpoint), "{}", mail.body);
    assert!(!mail.body.contains("whsec_"));
    let (_, list) = t.get_json("/developers/webhooks", Some(&key)).await;
    assert_eq!(list["items"][0]["status"], "disabled", "{list}");
    assert_eq!(list["items"][0]["consecutiveFailures"], 50);
    // ... and the sandbox tenant gets a webhook.disabled notification (the
    // mail and the notification are written one after the other: wait).
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (status, notes) = t
            .get_json(
                &format!("/notifications?tenantId={}", dev.sandbox_tenant_id),
                Some(&dev.access_token),
            )
            .await;
        assert_eq!(status, 200, "{notes}");
        let items = notes["items"].as_array().unwrap();
        if items.iter().any(|n| n["kind"] == "webhook.disabled") {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no webhook.disabled notification: {notes}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // While disabled, a new ping is held: visible, not sent.
    let held = ping(&t, &key, &endpoint).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let log = deliveries(&t, &key, &endpoint).await;
    let row = log.iter().find(|r| r["eventId"] == held.as_str()).unwrap();
    assert_eq!(row["status"], "held", "{row}");
    assert_eq!(receiver.seen().len(), 50, "nothing is sent while disabled");

    // Re-enable with the receiver fixed: the held ping (and what was held
    // after the disable) is sent; every event arrives at least once.
    receiver.answer(200);
    let (status, enabled) = t
        .post_json(
            &format!("/developers/webhooks/{endpoint}/enable"),
            Some(&key),
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{enabled}");
    assert_eq!(enabled["endpoint"]["status"], "active");
    assert!(enabled["requeued"].as_u64().unwrap() >= 1, "{enabled}");
    receiver
        .until(Duration::from_secs(15), |s| {
            s.iter()
                .any(|x| x.answered == 200 && x.envelope["id"] == held.as_str())
        })
        .await;
    assert!(receiver.seen().iter().all(|s| s.verified));
}

#[tokio::test]
async fn an_edited_endpoint_delivers_to_its_new_url_and_filter_and_disabling_holds_until_enabled() {
    let t = TestPlatform::start().await;
    let (dev, key) = developer(&t, "hooks-edit@example.com").await;
    let sandbox = dev.sandbox_tenant_id.clone();
    let old = Receiver::start(Arc::new(alyt_domain::SystemClock)).await;
    let new = Receiver::start(Arc::new(alyt_domain::SystemClock)).await;
    // Kinds the sandbox's virtual devices never raise, so the test owns them.
    let (endpoint, secret) = create_endpoint(&t, &key, &old, &["submission.state"]).await;
    let first = record(&t, &sandbox, EventKind::SubmissionState).await;
    old.until(Duration::from_secs(10), |s| {
        s.iter().any(|x| x.envelope["id"] == first.as_str())
    })
    .await;

    // The session edits the URL and the filter, and drops the description;
    // the secret stays (the new receiver verifies with the one issued).
    new.set_secret(&secret);
    let (status, edited) = patch(
        &t,
        &dev.access_token,
        &endpoint,
        json!({ "url": new.url(), "events": ["guest.invited"], "description": null }),
    )
    .await;
    assert_eq!(status, 200, "{edited}");
    assert_eq!(edited["id"], endpoint.as_str());
    assert_eq!(edited["url"], new.url().as_str());
    assert_eq!(edited["events"], json!(["guest.invited"]));
    assert_eq!(edited["description"], Value::Null);
    assert_eq!(edited["status"], "active");
    assert!(edited.get("secret").is_none(), "{edited}");
    // A key edits too; a field left out keeps its value.
    let (status, described) =
        patch(&t, &key, &endpoint, json!({ "description": "the new one" })).await;
    assert_eq!(status, 200, "{described}");
    assert_eq!(described["description"], "the new one");
    assert_eq!(described["url"], new.url().as_str());
    assert_eq!(described["events"], json!(["guest.invited"]));
    let (_, list) = t.get_json("/developers/webhooks", Some(&key)).await;
    assert_eq!(list["items"][0], described, "{list}");

    // Only the kind of the new filter reaches the new URL; the old one hears nothing more.
    let ignored = record(&t, &sandbox, EventKind::SubmissionState).await;
    let invited = record(&t, &sandbox, EventKind::GuestInvited).await;
    let seen = new
        .until(Duration::from_secs(10), |s| {
            s.iter().any(|x| x.envelope["id"] == invited.as_str())
        })
        .await;
    assert!(
        seen.iter().all(|x| x.verified),
        "signed with the same secret"
    );
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(
        new.seen().iter().all(|x| x.event_header == "guest.invited"),
        "{:?}",
        new.seen()
    );
    assert_eq!(old.seen().len(), 1, "nothing more goes to the old URL");
    let log = deliveries(&t, &key, &endpoint).await;
    assert!(
        log.iter().all(|r| r["eventId"] != ignored.as_str()),
        "{log:?}"
    );

    // Disabled by hand: the state the fifty failures leave, reason manual.
    let (status, disabled) = t
        .post_json(
            &format!("/developers/webhooks/{endpoint}/disable"),
            Some(&dev.access_token),
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{disabled}");
    assert_eq!(disabled["status"], "disabled");
    assert_eq!(disabled["disabledReason"], "manual");
    assert!(disabled["disabledAt"].is_string(), "{disabled}");
    // Disabling again changes nothing.
    let (status, again) = t
        .post_json(
            &format!("/developers/webhooks/{endpoint}/disable"),
            Some(&key),
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(again, disabled);
    let (_, list) = t.get_json("/developers/webhooks", Some(&key)).await;
    assert_eq!(list["items"][0]["disabledReason"], "manual", "{list}");

    // A new event is held: in the log, not sent.
    let while_disabled = record(&t, &sandbox, EventKind::GuestInvited).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let log = deliveries(&t, &key, &endpoint).await;
        if let Some(row) = log.iter().find(|r| r["eventId"] == while_disabled.as_str()) {
            assert_eq!(row["status"], "held", "{row}");
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no held row: {log:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(
        new.seen()
            .iter()
            .all(|x| x.envelope["id"] != while_disabled.as_str()),
        "nothing is sent while disabled"
    );

    // Enabled again: the held event is sent, and so is the next one.
    let (status, enabled) = t
        .post_json(
            &format!("/developers/webhooks/{endpoint}/enable"),
            Some(&key),
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{enabled}");
    assert_eq!(enabled["endpoint"]["status"], "active");
    assert_eq!(enabled["endpoint"]["disabledReason"], Value::Null);
    assert_eq!(enabled["requeued"], 1, "{enabled}");
    let after = record(&t, &sandbox, EventKind::GuestInvited).await;
    new.until(Duration::from_secs(15), |s| {
        [&while_disabled, &after].iter().all(|id| {
            s.iter()
                .any(|x| x.answered == 200 && x.envelope["id"] == id.as_str())
        })
    })
    .await;
    assert!(new.seen().iter().all(|s| s.verified));
}

#[tokio::test]
async fn endpoints_are_checked_and_private_to_their_developer() {
    let t = TestPlatform::start().await;
    let (dev, key) = developer(&t, "hooks-owner@example.com").await;
    let (other, other_key) = developer(&t, "hooks-other@example.com").await;
    let receiver = Receiver::start(Arc::new(alyt_domain::SystemClock)).await;
    let (endpoint, _) = create_endpoint(&t, &key, &receiver, &["device.online"]).await;

    // Fields at fault are named.
    for (body, field) in [
        (
            json!({ "url": "ftp://example.com/x", "events": ["device.online"] }),
            "url",
        ),
        (
            json!({ "url": "not a url", "events": ["device.online"] }),
            "url",
        ),
        (json!({ "url": receiver.url(), "events": [] }), "events"),
        (
            json!({ "url": receiver.url(), "events": ["device.exploded"] }),
            "events[0]",
        ),
        (json!({ "events": ["device.online"] }), "url"),
        (
            json!({ "url": receiver.url(), "events": ["device.online"], "keyId": "0190b5a0-0000-7000-8000-000000000000" }),
            "keyId",
        ),
    ] {
        // A key names no other key (403, below): the session names the
        // missing one.
        let token = if field == "keyId" {
            &dev.access_token
        } else {
            &key
        };
        let (status, problem) = t.post_json("/developers/webhooks", Some(token), body).await;
        assert_eq!(status, 400, "{problem}");
        assert_eq!(problem["field"], field, "{problem}");
    }

    // An edit is checked like a new endpoint, and a refused one changes nothing.
    let (_, before) = t.get_json("/developers/webhooks", Some(&key)).await;
    for (body, field) in [
        (json!({ "url": "ftp://example.com/x" }), "url"),
        (json!({ "url": "not a url" }), "url"),
        (json!({ "events": [] }), "events"),
        (json!({ "events": ["device.exploded"] }), "events[0]"),
        (json!({ "description": "x".repeat(201) }), "description"),
        (
            json!({ "keyId": "0190b5a0-0000-7000-8000-000000000000" }),
            "keyId",
        ),
        (
            json!({ "url": receiver.url(), "secret": "whsec_mine" }),
            "secret",
        ),
    ] {
        let (status, problem) = patch(&t, &key, &endpoint, body).await;
        assert_eq!(status, 400, "{problem}");
        assert_eq!(problem["field"], field, "{problem}");
    }
    let (_, after) = t.get_json("/developers/webhooks", Some(&key)).await;
    assert_eq!(after, before);

    // A key without webhooks:write is refused.
    let (_, reader) = create_key(&t, &dev, &["devices:read"]).await;
    let (status, _) = t.get_json("/developers/webhooks", Some(&reader)).await;
    assert_eq!(status, 403);
    let (status, _) = patch(&t, &reader, &endpoint, json!({ "description": "x" })).await;
    assert_eq!(status, 403);

    // Another developer sees nothing of it: 404 like a missing endpoint.
    let (_, list) = t.get_json("/developers/webhooks", Some(&other_key)).await;
    assert_eq!(list["items"], json!([]));
    let missing = "0190b5a0-0000-7000-8000-000000000000";
    for id in [endpoint.as_str(), missing] {
        for (method, path) in [
            ("POST", format!("/developers/webhooks/{id}/test")),
            ("GET", format!("/developers/webhooks/{id}/deliveries")),
            ("POST", format!("/developers/webhooks/{id}/enable")),
            ("POST", format!("/developers/webhooks/{id}/disable")),
            ("DELETE", format!("/developers/webhooks/{id}")),
        ] {
            let response = t
                .http
                .request(method.parse().unwrap(), t.url(&path))
                .bearer_auth(&other.access_token)
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 404, "{method} {path}");
            let body: Value = response.json().await.unwrap();
            assert_eq!(body["detail"], "no such webhook endpoint");
        }
        // An edit of it, by the other developer's session or key, is the same 404.
        for token in [other.access_token.as_str(), other_key.as_str()] {
            let (status, problem) =
                patch(&t, token, id, json!({ "url": "http://127.0.0.1:9/taken" })).await;
            assert_eq!(status, 404, "{problem}");
            assert_eq!(problem["detail"], "no such webhook endpoint");
        }
    }
    // ... and it is unchanged.
    let (_, list) = t.get_json("/developers/webhooks", Some(&key)).await;
    assert_eq!(list["items"][0]["url"], receiver.url().as_str(), "{list}");

    // Lists are paginated; the owner removes the endpoint.
    let (second, _) = create_endpoint(&t, &key, &receiver, &["device.offline"]).await;
    let (_, page) = t.get_json("/developers/webhooks?limit=1", Some(&key)).await;
    assert_eq!(page["items"].as_array().unwrap().len(), 1);
    let cursor = page["nextCursor"].as_str().unwrap();
    let (_, rest) = t
        .get_json(
            &format!("/developers/webhooks?limit=1&cursor={cursor}"),
            Some(&key),
        )
        .await;
    assert_eq!(rest["items"][0]["id"], second.as_str(), "{rest}");
    assert_eq!(rest["nextCursor"], Value::Null);
    let response = t
        .http
        .delete(t.url(&format!("/developers/webhooks/{endpoint}")))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 204);
    let (_, list) = t.get_json("/developers/webhooks", Some(&key)).await;
    assert_eq!(list["items"].as_array().unwrap().len(), 1);
}

/// A rotated secret is shown once; for the grace period each delivery is
/// signed with the new secret and the replaced one (Stripe's library
/// accepts it with either), and after it with the new one only. A grace
/// period past the limit is refused, naming the field.
#[tokio::test]
async fn a_rotated_secret_signs_beside_the_old_one_for_the_grace_period_then_alone() {
    let t = TestPlatform::start().await;
    let (dev, key) = developer(&t, "hooks-rotate@example.com").await;
    let receiver = Receiver::start(Arc::new(alyt_domain::SystemClock)).await;
    let (endpoint, old) = create_endpoint(&t, &key, &receiver, &["device.online"]).await;
    let rotate = |body: Value| {
        let path = format!("/developers/webhooks/{endpoint}/rotate-secret");
        let key = key.clone();
        let t = &t;
        async move { t.post_json(&path, Some(&key), body).await }
    };

    let (status, problem) = rotate(json!({ "graceSeconds": 604_801 })).await;
    assert_eq!(status, 400, "{problem}");
    assert_eq!(problem["field"], "graceSeconds");

    let (status, rotated) = rotate(json!({ "graceSeconds": 3 })).await;
    assert_eq!(status, 200, "{rotated}");
    let new = rotated["secret"].as_str().unwrap().to_owned();
    assert!(new.starts_with("whsec_") && new != old, "{rotated}");
    assert!(
        rotated["endpoint"]["secretGraceEndsAt"].is_string(),
        "{rotated}"
    );
    receiver.set_secret(&new);
    // Shown once: the endpoint's reads never carry it.
    let (_, list) = t.get_json("/developers/webhooks", Some(&key)).await;
    assert!(!list.to_string().contains(&new), "{list}");

    ping(&t, &dev.access_token, &endpoint).await;
    let seen = receiver
        .until(Duration::from_secs(10), |s| !s.is_empty())
        .await;
    let during = &seen[0];
    assert_eq!(
        during.signature_header.matches("v1=").count(),
        2,
        "{}",
        during.signature_header
    );
    assert!(stripe_verifies(
        &during.body,
        &during.signature_header,
        &new
    ));
    assert!(stripe_verifies(
        &during.body,
        &during.signature_header,
        &old
    ));

    tokio::time::sleep(Duration::from_millis(3_200)).await;
    let second = ping(&t, &dev.access_token, &endpoint).await;
    let seen = receiver
        .until(Duration::from_secs(10), |s| {
            s.iter().any(|d| d.envelope["id"] == second.as_str())
        })
        .await;
    // Found by its event: the first ping may be delivered again meanwhile
    // (at least once).
    let after = seen
        .iter()
        .find(|d| d.envelope["id"] == second.as_str())
        .unwrap();
    assert_eq!(
        after.signature_header.matches("v1=").count(),
        1,
        "{}",
        after.signature_header
    );
    assert!(stripe_verifies(&after.body, &after.signature_header, &new));
    assert!(!stripe_verifies(&after.body, &after.signature_header, &old));

    // No body: the default grace period of a day.
    let (status, again) = t
        .post_json(
            &format!("/developers/webhooks/{endpoint}/rotate-secret"),
            Some(&key),
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{again}");
    let ends: time::OffsetDateTime = time::OffsetDateTime::parse(
        again["endpoint"]["secretGraceEndsAt"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    let in_a_day = time::OffsetDateTime::now_utc() + time::Duration::days(1);
    assert!(
        (ends - in_a_day).abs() < time::Duration::minutes(1),
        "{again}"
    );
}

/// A logged delivery replayed is sent again: the same event (id and body),
/// signed at a new time, verified by Stripe's library, and the log counts
/// the attempt. A delivery the log does not have is a 404; a disabled
/// endpoint refuses a replay (409).
#[tokio::test]
async fn a_replayed_delivery_arrives_again_as_the_same_event_signed_anew() {
    let t = TestPlatform::start().await;
    let (dev, key) = developer(&t, "hooks-replay@example.com").await;
    let receiver = Receiver::start(Arc::new(alyt_domain::SystemClock)).await;
    let (endpoint, secret) = create_endpoint(&t, &key, &receiver, &["device.online"]).await;
    let event = ping(&t, &dev.access_token, &endpoint).await;
    let first = receiver
        .until(Duration::from_secs(10), |s| !s.is_empty())
        .await[0]
        .clone();
    let logged = deliveries(&t, &key, &endpoint).await;
    let row = logged
        .iter()
        .find(|d| d["eventId"] == event.as_str())
        .unwrap();
    assert_eq!(row["status"], "delivered", "{row}");
    let delivery = row["id"].as_str().unwrap().to_owned();

    // A second apart, so the new signature's time differs.
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    let replay = format!("/developers/webhooks/{endpoint}/deliveries/{delivery}/replay");
    let (status, queued) = t.post_json(&replay, Some(&key), json!({})).await;
    assert_eq!(status, 202, "{queued}");
    assert_eq!(queued["status"], "pending", "{queued}");
    // The replay is the delivery signed at another time than the first.
    let resent = |d: &alyt_tests::webhooks::Seen| d.signature_header != first.signature_header;
    let seen = receiver
        .until(Duration::from_secs(10), |s| s.iter().any(resent))
        .await;
    let again = seen.iter().find(|d| resent(d)).unwrap();
    assert_eq!(again.envelope["id"], event.as_str());
    assert_eq!(again.body, first.body, "the same event, byte for byte");
    assert_eq!(again.delivery_header, first.delivery_header);
    assert_ne!(
        again.signature_header, first.signature_header,
        "signed anew"
    );
    assert!(stripe_verifies(
        &again.body,
        &again.signature_header,
        &secret
    ));
    let logged = deliveries(&t, &key, &endpoint).await;
    let row = logged
        .iter()
        .find(|d| d["id"] == delivery.as_str())
        .unwrap();
    assert_eq!(row["status"], "delivered", "{row}");
    assert_eq!(row["attempts"], 2, "{row}");

    let unknown = format!(
        "/developers/webhooks/{endpoint}/deliveries/0190b5a0-0000-7000-8000-00000000e002/replay"
    );
    let (status, problem) = t.post_json(&unknown, Some(&key), json!({})).await;
    assert_eq!(status, 404, "{problem}");
    let (status, _) = t
        .post_json(
            &format!("/developers/webhooks/{endpoint}/disable"),
            Some(&key),
            json!({}),
        )
        .await;
    assert_eq!(status, 200);
    let (status, problem) = t.post_json(&replay, Some(&key), json!({})).await;
    assert_eq!(status, 409, "{problem}");
}

/// The ids of the events a receiver got with a 2xx, in the order it got them.
fn delivered_in_order(receiver: &Receiver) -> Vec<String> {
    receiver
        .seen()
        .iter()
        .filter(|s| s.answered == 200)
        .map(|s| s.envelope["id"].as_str().unwrap().to_owned())
        .collect()
}

/// Reads the endpoint's latest recovery until it is done.
async fn recovery_done(t: &TestPlatform, token: &str, endpoint: &str) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    loop {
        let (status, recovery) = t
            .get_json(
                &format!("/developers/webhooks/{endpoint}/recovery"),
                Some(token),
            )
            .await;
        assert_eq!(status, 200, "{recovery}");
        if recovery["status"] == "done" {
            return recovery;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the recovery did not end: {recovery}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A receiver that was down for a while: a recovery since before it went
/// down sends every event it missed once, in order, at once (not at their
/// next retry, 30 s away), and leaves alone what it got; its progress reads
/// done with the counts. A range is one of `since` or `fromEventId`, each
/// refusal naming its field.
#[tokio::test]
async fn a_recovery_sends_a_receiver_that_was_down_every_missed_event_once_in_order() {
    let t = TestPlatform::start().await;
    let (dev, key) = developer(&t, "hooks-recover@example.com").await;
    let sandbox = dev.sandbox_tenant_id.clone();
    let receiver = Receiver::start(Arc::new(alyt_domain::SystemClock)).await;
    // A kind the sandbox's virtual devices never raise, so the test owns them.
    let (endpoint, _) = create_endpoint(&t, &key, &receiver, &["submission.state"]).await;
    let since = time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    let (status, missing) = t
        .get_json(
            &format!("/developers/webhooks/{endpoint}/recovery"),
            Some(&key),
        )
        .await;
    assert_eq!(status, 404, "never recovered: {missing}");

    let got = record(&t, &sandbox, EventKind::SubmissionState).await;
    receiver
        .until(Duration::from_secs(10), |s| s.len() == 1)
        .await;
    receiver.answer(503);
    let mut missed = Vec::new();
    for _ in 0..5 {
        missed.push(record(&t, &sandbox, EventKind::SubmissionState).await);
    }
    receiver
        .until(Duration::from_secs(10), |s| s.len() == 6)
        .await;
    receiver.answer(200);

    let recover = format!("/developers/webhooks/{endpoint}/recover");
    for (body, field) in [
        (json!({}), "since"),
        (json!({ "since": "2999-01-01T00:00:00Z" }), "since"),
        (json!({ "since": since, "fromEventId": got }), "since"),
        (json!({ "fromEventId": "yesterday" }), "fromEventId"),
        (
            json!({ "fromEventId": got, "toEventId": "0000000000000001-00000000" }),
            "toEventId",
        ),
    ] {
        let (status, problem) = t.post_json(&recover, Some(&key), body.clone()).await;
        assert_eq!(status, 400, "{body}: {problem}");
        assert_eq!(problem["field"], field, "{body}: {problem}");
    }
    let (status, started) = t
        .post_json(&recover, Some(&key), json!({ "since": since }))
        .await;
    assert_eq!(status, 202, "{started}");
    assert_eq!(started["endpointId"], endpoint.as_str());

    receiver
        .until(Duration::from_secs(10), |s| {
            s.iter().filter(|x| x.answered == 200).count() == 6
        })
        .await;
    let mut expected = vec![got.clone()];
    expected.extend(missed.iter().cloned());
    assert_eq!(delivered_in_order(&receiver), expected);
    assert!(receiver.seen().iter().all(|s| s.verified));
    let done = recovery_done(&t, &key, &endpoint).await;
    assert_eq!(
        (&done["matched"], &done["queued"], &done["skipped"]),
        (&json!(6), &json!(5), &json!(1)),
        "{done}"
    );
    assert!(done["finishedAt"].is_string(), "{done}");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        delivered_in_order(&receiver),
        expected,
        "nothing arrives twice"
    );
    let log = deliveries(&t, &key, &endpoint).await;
    assert!(log.iter().all(|r| r["status"] == "delivered"), "{log:?}");
}

/// A disabled endpoint is not recovered (409) but re-enabled with
/// `recover: true`: what was held is requeued, and what was waiting for a
/// retry when it was disabled is sent at once too, each once.
#[tokio::test]
async fn a_re_enable_with_recover_sends_everything_the_endpoint_missed() {
    let t = TestPlatform::start().await;
    let (dev, key) = developer(&t, "hooks-enable-recover@example.com").await;
    let sandbox = dev.sandbox_tenant_id.clone();
    let receiver = Receiver::start(Arc::new(alyt_domain::SystemClock)).await;
    let (endpoint, _) = create_endpoint(&t, &key, &receiver, &["submission.state"]).await;
    receiver.answer(503);
    let retrying = record(&t, &sandbox, EventKind::SubmissionState).await;
    receiver
        .until(Duration::from_secs(10), |s| s.len() == 1)
        .await;
    let (status, disabled) = t
        .post_json(
            &format!("/developers/webhooks/{endpoint}/disable"),
            Some(&key),
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{disabled}");
    let held = record(&t, &sandbox, EventKind::SubmissionState).await;
    let (status, problem) = t
        .post_json(
            &format!("/developers/webhooks/{endpoint}/recover"),
            Some(&key),
            json!({ "fromEventId": retrying }),
        )
        .await;
    assert_eq!(
        status, 409,
        "a disabled endpoint is enabled first: {problem}"
    );

    receiver.answer(200);
    let enable = format!("/developers/webhooks/{endpoint}/enable");
    let (status, problem) = t
        .post_json(&enable, Some(&key), json!({ "recover": "yes" }))
        .await;
    assert_eq!(status, 400, "{problem}");
    assert_eq!(problem["field"], "recover", "{problem}");
    let (status, enabled) = t
        .post_json(&enable, Some(&key), json!({ "recover": true }))
        .await;
    assert_eq!(status, 200, "{enabled}");
    assert_eq!(enabled["endpoint"]["status"], "active", "{enabled}");
    assert_eq!(enabled["requeued"], 1, "{enabled}");
    assert_eq!(enabled["recovery"]["status"], "running", "{enabled}");

    receiver
        .until(Duration::from_secs(10), |s| {
            s.iter().filter(|x| x.answered == 200).count() == 2
        })
        .await;
    let counts = receiver.delivered_by_event();
    assert_eq!(counts.get(&retrying), Some(&1), "{counts:?}");
    assert_eq!(counts.get(&held), Some(&1), "{counts:?}");
    let done = recovery_done(&t, &key, &endpoint).await;
    assert_eq!(done["matched"], 2, "{done}");
    // Without `recover`, a re-enable starts no recovery.
    let (_, again) = t.post_json(&enable, Some(&key), json!({})).await;
    assert_eq!(again["recovery"], Value::Null, "{again}");
}

/// An EventBridge destination on the local platform, its EventBridge being
/// moto's (`ALYT_EVENTBRIDGE_ENDPOINT_URL`): created with a test event on
/// the developer's bus, then every event of its filter put there with the
/// envelope as `detail`, logged like a webhook's delivery. A bus that does
/// not exist, or malformed fields, refuse the destination naming the field.
#[tokio::test]
async fn an_eventbridge_destination_puts_events_on_the_developers_bus() {
    use alyt_aws::testing::{MOTO_ACCOUNT, MOTO_REGION};
    let moto = alyt_aws::testing::moto().await;
    let endpoint_url = moto.endpoint().to_owned();
    let t = TestPlatform::start_with_config(move |config| {
        config.webhooks.event_bridge_endpoint = Some(endpoint_url);
    })
    .await;
    let (dev, key) = developer(&t, "hooks-eventbridge@example.com").await;
    let (bus, queue) = moto.bus_with_queue().await;
    let create = |event_bridge: Value| json!({ "kind": "eventbridge", "eventBridge": event_bridge, "events": ["submission.state"] });

    for (body, field) in [
        (
            json!({ "kind": "eventbridge", "events": ["submission.state"] }),
            "eventBridge",
        ),
        (
            create(json!({ "accountId": "42", "region": MOTO_REGION, "eventBusArn": bus })),
            "eventBridge.accountId",
        ),
        (
            create(json!({ "accountId": MOTO_ACCOUNT, "region": "eu-west-1", "eventBusArn": bus })),
            "eventBridge.eventBusArn",
        ),
        (
            json!({ "url": "http://127.0.0.1:9/hook", "eventBridge": { "accountId": MOTO_ACCOUNT, "region": MOTO_REGION, "eventBusArn": bus }, "events": ["submission.state"] }),
            "url",
        ),
        (
            json!({ "kind": "webhook", "url": "http://127.0.0.1:9/hook", "eventBridge": { "accountId": MOTO_ACCOUNT, "region": MOTO_REGION, "eventBusArn": bus }, "events": ["submission.state"] }),
            "eventBridge",
        ),
    ] {
        let (status, problem) = t
            .post_json("/developers/webhooks", Some(&key), body.clone())
            .await;
        assert_eq!(status, 400, "{body}: {problem}");
        assert_eq!(problem["field"], field, "{body}: {problem}");
    }
    let missing = format!("arn:aws:events:{MOTO_REGION}:{MOTO_ACCOUNT}:event-bus/no-such-bus");
    let (status, problem) = t
        .post_json(
            "/developers/webhooks",
            Some(&key),
            create(
                json!({ "accountId": MOTO_ACCOUNT, "region": MOTO_REGION, "eventBusArn": missing }),
            ),
        )
        .await;
    assert_eq!(status, 400, "{problem}");
    assert_eq!(problem["field"], "eventBridge", "{problem}");
    assert_eq!(
        problem["detail"],
        "the bus refused the test event: ResourceNotFoundException: Event bus no-such-bus does not exist.",
        "the bus's refusal, as the service said it: {problem}"
    );

    let (status, created) = t
        .post_json(
            "/developers/webhooks",
            Some(&key),
            create(json!({ "accountId": MOTO_ACCOUNT, "region": MOTO_REGION, "eventBusArn": bus })),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["kind"], "eventbridge", "{created}");
    assert_eq!(created["url"], bus.as_str(), "{created}");
    assert_eq!(created["eventBridge"]["eventBusArn"], bus.as_str());
    assert_eq!(created["eventBridge"]["eventSourceName"], Value::Null);
    let destination = created["id"].as_str().unwrap().to_owned();
    let verified = moto.received(&queue).await;
    assert_eq!(verified.len(), 1, "the test event: {verified:?}");
    assert_eq!(verified[0]["detail-type"], "webhook.ping");
    assert_eq!(
        verified[0]["detail"]["data"]["endpointId"],
        destination.as_str()
    );

    let event = record(&t, &dev.sandbox_tenant_id, EventKind::SubmissionState).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let entry = loop {
        if let Some(entry) = moto.received(&queue).await.into_iter().next() {
            break entry;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "nothing reached the bus"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(entry["source"], "alyt", "{entry}");
    assert_eq!(entry["detail-type"], "submission.state", "{entry}");
    assert_eq!(entry["detail"]["id"], event.as_str(), "{entry}");
    assert_eq!(entry["detail"]["type"], "submission.state", "{entry}");
    let log = deliveries(&t, &key, &destination).await;
    let row = log.iter().find(|r| r["eventId"] == event.as_str()).unwrap();
    assert_eq!(row["status"], "delivered", "{row}");
    assert_eq!(row["responseCode"], 200, "{row}");

    let (status, problem) = patch(
        &t,
        &key,
        &destination,
        json!({ "url": "https://example.com/hook" }),
    )
    .await;
    assert_eq!(status, 400, "{problem}");
    assert_eq!(problem["field"], "url", "{problem}");
}

/// Without an EventBridge endpoint the local platform refuses an
/// EventBridge destination, saying how to configure one.
#[tokio::test]
async fn without_an_eventbridge_endpoint_a_destination_is_refused_saying_so() {
    let t = TestPlatform::start().await;
    let (_, key) = developer(&t, "hooks-no-eventbridge@example.com").await;
    let body = json!({
        "kind": "eventbridge",
        "eventBridge": {
            "accountId": "123456789012",
            "region": "eu-west-1",
            "eventSourceName": "aws.partner/alyt/dev/home"
        },
        "events": ["submission.state"]
    });
    let (status, problem) = t.post_json("/developers/webhooks", Some(&key), body).await;
    assert_eq!(status, 400, "{problem}");
    assert_eq!(problem["field"], "eventBridge", "{problem}");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("ALYT_EVENTBRIDGE_ENDPOINT_URL"),
        "{problem}"
    );
}
