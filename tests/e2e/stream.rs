//! The developer event stream on the local platform, read as a raw
//! server-sent event stream (what an EventSource sees): events of the
//! caller's sandbox in id order, filtered by kind, resumed after a
//! disconnect with Last-Event-ID (or after=) with no gap and no duplicate,
//! keepalive comments, and the connection's time limit (shortened here).

use std::sync::Arc;
use std::time::Duration;

use alyt_domain::SystemClock;
use alyt_domain::ids::TenantId;
use alyt_events::stream::StreamLimits;
use alyt_events::{EventKind, EventLog};
use alyt_tests::TestPlatform;
use alyt_tests::developers::{create_key, sign_up_and_verify};
use alyt_tests::webhooks::{Sse, SseReader};
use serde_json::json;

fn fast_limits() -> StreamLimits {
    StreamLimits {
        keepalive: Duration::from_secs(1),
        max_duration: Duration::from_secs(8),
        ..StreamLimits::LOCAL
    }
}

async fn open(
    t: &TestPlatform,
    token: &str,
    query: &str,
    last_event_id: Option<&str>,
) -> SseReader {
    let mut request = t
        .http
        .get(t.url(&format!("/developers/events/stream{query}")))
        .bearer_auth(token)
        .header("accept", "text/event-stream");
    if let Some(id) = last_event_id {
        request = request.header("last-event-id", id);
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    SseReader::new(response)
}

async fn record(t: &TestPlatform, tenant: &str, kind: EventKind, n: u32) -> String {
    let log = EventLog::new(t.platform.store(), Arc::new(SystemClock));
    let tenant: TenantId = tenant.parse().unwrap();
    let recorded = log.record(tenant, kind, json!({ "n": n })).await.unwrap();
    recorded.id.to_string()
}

#[tokio::test]
async fn the_stream_delivers_in_order_resumes_without_gap_or_duplicate_and_filters() {
    let t = TestPlatform::start_with_config(|c| c.webhooks.stream = fast_limits()).await;
    let dev = sign_up_and_verify(&t, "stream@example.com").await;
    let (_, key) = create_key(&t, &dev, &["events:read"]).await;
    let sandbox = dev.sandbox_tenant_id.clone();
    // Kinds the sandbox's virtual devices never raise, so the test owns them.
    let filter = "?events=submission.state";

    let mut stream = open(&t, &key, filter, None).await;
    let first_block = stream.next(Duration::from_secs(5)).await.unwrap();
    assert!(first_block.contains(&Sse::Retry(1000)), "{first_block:?}");

    let mut recorded = Vec::new();
    for n in 0..3 {
        recorded.push(record(&t, &sandbox, EventKind::SubmissionState, n).await);
        record(&t, &sandbox, EventKind::GuestInvited, n).await;
    }
    let got = stream.events(3, Duration::from_secs(10)).await;
    let ids: Vec<&str> = got.iter().map(|(_, id, _)| id.as_str()).collect();
    assert_eq!(ids, recorded.iter().map(String::as_str).collect::<Vec<_>>());
    for (n, (kind, id, data)) in got.iter().enumerate() {
        assert_eq!(kind, "submission.state");
        assert_eq!(data["id"], id.as_str());
        assert_eq!(data["type"], "submission.state");
        assert_eq!(data["tenantId"], sandbox.as_str());
        assert_eq!(data["data"]["n"], n as u64);
    }
    // Quiet: keepalive comments keep the connection alive.
    let quiet = stream.next(Duration::from_secs(3)).await.unwrap();
    assert!(
        quiet
            .iter()
            .any(|s| matches!(s, Sse::Comment(c) if c == "keepalive")),
        "{quiet:?}"
    );
    drop(stream);

    // Disconnected: two more happen. The reconnect (the URL it began with, as
    // EventSource does, plus Last-Event-ID) gets exactly those two.
    for n in 3..5 {
        recorded.push(record(&t, &sandbox, EventKind::SubmissionState, n).await);
    }
    let last = recorded[2].clone();
    let mut resumed = open(
        &t,
        &key,
        &format!("{filter}&after={}", recorded[0]),
        Some(&last),
    )
    .await;
    let got = resumed.events(3, Duration::from_secs(4)).await;
    let ids: Vec<&str> = got.iter().map(|(_, id, _)| id.as_str()).collect();
    assert_eq!(
        ids,
        [recorded[3].as_str(), recorded[4].as_str()],
        "no gap, no duplicate"
    );
    drop(resumed);

    // after= alone resumes the same way.
    let mut after = open(
        &t,
        &dev.access_token,
        &format!("{filter}&after={}", recorded[1]),
        None,
    )
    .await;
    let got = after.events(3, Duration::from_secs(10)).await;
    let ids: Vec<&str> = got.iter().map(|(_, id, _)| id.as_str()).collect();
    assert_eq!(
        ids,
        &recorded[2..5]
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()[..]
    );

    // Another filter hears only its kind.
    let mut guests = open(&t, &key, "?events=guest.invited", None).await;
    let got = guests.events(3, Duration::from_secs(10)).await;
    assert_eq!(got.len(), 3);
    assert!(got.iter().all(|(kind, _, _)| kind == "guest.invited"));

    // The connection ends at its time limit with a comment saying so.
    let mut blocks = Vec::new();
    while let Some(block) = after.next(Duration::from_secs(12)).await {
        blocks.extend(block);
    }
    assert!(after.closed, "the server closed the stream");
    assert!(
        blocks
            .iter()
            .any(|s| matches!(s, Sse::Comment(c) if c.contains("reconnect with Last-Event-ID"))),
        "{blocks:?}"
    );
}

#[tokio::test]
async fn the_stream_needs_events_read_and_refuses_bad_parameters() {
    let t = TestPlatform::start().await;
    let dev = sign_up_and_verify(&t, "stream-authz@example.com").await;
    let (_, reader) = create_key(&t, &dev, &["devices:read"]).await;
    let (status, problem) = t.get_json("/developers/events/stream", Some(&reader)).await;
    assert_eq!(status, 403, "{problem}");
    let (status, _) = t.get_json("/developers/events/stream", None).await;
    assert_eq!(status, 401);
    // A household session hears no developer stream.
    let (email, password) = t.owner();
    let household = t.household_login(&email, &password).await;
    let (status, _) = t
        .get_json(
            "/developers/events/stream",
            household["accessToken"].as_str(),
        )
        .await;
    assert_eq!(status, 401);
    let (_, key) = create_key(&t, &dev, &["events:read"]).await;
    for (query, field) in [
        ("?events=device.exploded", "events"),
        ("?after=yesterday", "after"),
    ] {
        let (status, problem) = t
            .get_json(&format!("/developers/events/stream{query}"), Some(&key))
            .await;
        assert_eq!(status, 400, "{problem}");
        assert_eq!(problem["field"], field);
    }
    let response = t
        .http
        .get(t.url("/developers/events/stream"))
        .bearer_auth(&key)
        .header("last-event-id", "nope")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
}
