//! The developer event stream on the local platform, read as a raw
//! server-sent event stream (what an EventSource sees): events of the
//! caller's sandbox in id order, filtered by kind, resumed after a
//! disconnect with Last-Event-ID (or after=) with no gap and no duplicate,
//! keepalive comments, and the connection's time limit (shortened here).

use std::sync::Arc;
use std::time::Duration;

use alyt_domain::SystemClock;
use alyt_domain::ids::{PropertyId, TenantId};
use alyt_events::stream::StreamLimits;
use alyt_events::{EventKind, EventLog};
use alyt_store::repo::events::Events;
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

/// A tenant beyond one head's write rate has its log grown to shards, each
/// home's events in its home's shard: the stream still delivers every event
/// once, in id order (each home's in the order it happened), and resumes
/// after Last-Event-ID across the shards.
#[tokio::test]
async fn a_tenant_log_in_shards_streams_every_home_in_order_and_resumes() {
    let t = TestPlatform::start_with_config(|c| c.webhooks.stream = fast_limits()).await;
    let dev = sign_up_and_verify(&t, "stream-shards@example.com").await;
    let (_, key) = create_key(&t, &dev, &["events:read"]).await;
    let tenant: TenantId = dev.sandbox_tenant_id.parse().unwrap();
    let store = t.platform.store();
    Events(store.as_ref()).grow(tenant, 4).await.unwrap();
    let log = EventLog::new(store.clone(), Arc::new(SystemClock));
    let homes: Vec<PropertyId> = (0..6).map(|_| PropertyId::new()).collect();
    let record_round = |n: u32| {
        let (log, homes) = (log.clone(), homes.clone());
        async move {
            let mut ids = Vec::new();
            for (h, home) in homes.iter().enumerate() {
                let data = json!({ "home": h, "n": n });
                let event = log
                    .record_about(tenant, Some(*home), EventKind::SubmissionState, data)
                    .await
                    .unwrap();
                ids.push(event.id.to_string());
            }
            ids
        }
    };
    let filter = "?events=submission.state";
    let mut stream = open(&t, &key, filter, None).await;
    stream.next(Duration::from_secs(5)).await.unwrap();
    let mut recorded = Vec::new();
    for n in 0..3 {
        recorded.extend(record_round(n).await);
    }
    let got = stream.events(18, Duration::from_secs(10)).await;
    let ids: Vec<&str> = got.iter().map(|(_, id, _)| id.as_str()).collect();
    assert_eq!(ids, recorded.iter().map(String::as_str).collect::<Vec<_>>());
    for h in 0..6 {
        let rounds: Vec<u64> = got
            .iter()
            .filter(|(_, _, d)| d["data"]["home"] == h)
            .map(|(_, _, d)| d["data"]["n"].as_u64().unwrap())
            .collect();
        assert_eq!(rounds, [0, 1, 2], "home {h} in order");
    }
    let mut shards_used = 0;
    for k in 0..4 {
        let partition = alyt_store::shard_partition(&format!("EVENTS#{tenant}"), k);
        let mut holds_one = false;
        for (_, id, _) in &got {
            let key = alyt_store::Key::new(partition.as_str(), id.as_str());
            holds_one |= store.get(&key).await.unwrap().is_some();
        }
        shards_used += u32::from(holds_one);
    }
    assert!(
        shards_used >= 2,
        "six homes spread over the shards ({shards_used} used)"
    );
    drop(stream);

    // Two more rounds while away; resuming after the first round's last
    // event gets the second and third rounds' rest and the new ones, once.
    for n in 3..5 {
        recorded.extend(record_round(n).await);
    }
    let mut resumed = open(&t, &key, filter, Some(&recorded[5])).await;
    let got = resumed.events(24, Duration::from_secs(10)).await;
    let ids: Vec<&str> = got.iter().map(|(_, id, _)| id.as_str()).collect();
    assert_eq!(
        ids,
        recorded[6..].iter().map(String::as_str).collect::<Vec<_>>()
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

/// A household's stream of one home: the events about that home's things,
/// in order and resumable, to anyone who sees the home (a guest too); not
/// another home's devices, not people's or developers' events, and not to
/// a household the home is not theirs.
#[tokio::test]
async fn a_home_stream_carries_that_homes_things_only_to_those_who_see_it() {
    use alyt_domain::access::HouseholdRole;
    use alyt_store::repo::tenancy::{NewHome, Tenancy, new_home_writes};
    use alyt_tests::principals::{PASSWORD, seed_account, seed_person};

    let t = TestPlatform::start_with_config(|c| c.webhooks.stream = fast_limits()).await;
    let first = t.platform.first_start.clone().unwrap();
    let (tenant, home) = (first.tenant_id.to_string(), first.property_id.to_string());
    // A second household of the same tenant, with its own home and owner.
    let neighbour = seed_account(&t, "neighbour@example.com", None, None).await;
    let (second, writes) = new_home_writes(NewHome {
        tenant_id: first.tenant_id,
        household: "Next door",
        household_email: None,
        home: "Next door's home",
        timezone: "UTC",
        rooms: &["Hall"],
        owner: neighbour.id,
        now: time::OffsetDateTime::now_utc(),
    })
    .unwrap();
    Tenancy(&*t.platform.store())
        .create_all(writes)
        .await
        .unwrap();
    let (email, password) = t.owner();
    let owner = t.household_login(&email, &password).await["accessToken"]
        .as_str()
        .unwrap()
        .to_owned();
    let register = |property: String, serial: &'static str| {
        let (t, owner, tenant) = (&t, owner.clone(), tenant.clone());
        async move {
            let (status, device) = t
                .post_json(
                    "/devices/register",
                    Some(&owner),
                    json!({ "tenantId": tenant, "propertyId": property, "name": serial,
                            "kind": "OTHER", "capabilities": ["LIGHT"], "serial": serial }),
                )
                .await;
            assert_eq!(status, 201, "{device}");
            device["device"]["id"].as_str().unwrap().to_owned()
        }
    };
    let ours = register(home.clone(), "SN-HOME-STREAM-1").await;
    let theirs = register(second.property.id.to_string(), "SN-HOME-STREAM-2").await;

    let guest = seed_person(
        &t,
        "stream-guest@example.com",
        None,
        None,
        Some(HouseholdRole::Guest),
    )
    .await;
    let path = |after: &str| format!("/properties/{home}/events/stream?tenantId={tenant}{after}");
    let open = |token: String, query: String, last: Option<String>| {
        let t = &t;
        async move {
            let mut request = t.http.get(t.url(&query)).bearer_auth(token);
            if let Some(id) = last {
                request = request.header("last-event-id", id);
            }
            let response = request.send().await.unwrap();
            assert_eq!(response.status(), 200);
            SseReader::new(response)
        }
    };
    let mut stream = open(guest.clone(), path(""), None).await;

    let log = EventLog::new(t.platform.store(), Arc::new(SystemClock));
    let result = |device: &str, n: u32| {
        json!({ "deviceId": device, "commandId": format!("cmd-{n}"), "command": "set",
                "status": "ok", "at": "2026-11-27T12:00:00Z" })
    };
    let mut heard = Vec::new();
    for n in 0..2 {
        let event = log
            .record(first.tenant_id, EventKind::CommandResult, result(&ours, n))
            .await
            .unwrap();
        heard.push(event.id.to_string());
        // Another home's device, a device that does not exist, and a kind
        // that is about people: none of them is this home's.
        log.record(
            first.tenant_id,
            EventKind::CommandResult,
            result(&theirs, n),
        )
        .await
        .unwrap();
        let nowhere = alyt_domain::ids::DeviceId::new().to_string();
        log.record(
            first.tenant_id,
            EventKind::CommandResult,
            result(&nowhere, n),
        )
        .await
        .unwrap();
        log.record(
            first.tenant_id,
            EventKind::GuestInvited,
            json!({ "deviceId": ours }),
        )
        .await
        .unwrap();
    }
    let got = stream.events(3, Duration::from_secs(5)).await;
    let ids: Vec<&str> = got.iter().map(|(_, id, _)| id.as_str()).collect();
    assert_eq!(ids, heard.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(got.iter().all(
        |(kind, _, data)| kind == "command.result" && data["data"]["deviceId"] == ours.as_str()
    ));
    drop(stream);

    // Resumed after the first: exactly the second.
    let mut resumed = open(owner.clone(), path(""), Some(heard[0].clone())).await;
    let got = resumed.events(2, Duration::from_secs(3)).await;
    assert_eq!(
        got.iter().map(|(_, id, _)| id.clone()).collect::<Vec<_>>(),
        [heard[1].clone()]
    );

    // The neighbours' owner does not see this home: it answers as missing.
    let neighbour = t.household_login("neighbour@example.com", PASSWORD).await["accessToken"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, problem) = t.get_json(&path(""), Some(&neighbour)).await;
    assert_eq!(status, 404, "{problem}");
    // A home's stream has only a home's kinds.
    let (status, problem) = t
        .get_json(&path("&events=guest.invited"), Some(&owner))
        .await;
    assert_eq!(status, 400, "{problem}");
    assert_eq!(problem["field"], "events");
    let (status, _) = t.get_json(&path(""), None).await;
    assert_eq!(status, 401);

    // A session's stream ends when its access token does (here in 2 s,
    // before the 8 s connection limit): the reconnect is checked against
    // fresh claims, so a guest whose stay ended hears no more.
    let short = alyt_tests::principals::expiring_in(&t, &guest, 2).await;
    let opened = std::time::Instant::now();
    let mut ending = open(short, path(""), None).await;
    let mut blocks = Vec::new();
    while let Some(block) = ending.next(Duration::from_secs(7)).await {
        blocks.extend(block);
    }
    assert!(ending.closed, "the server closed the stream");
    assert!(
        opened.elapsed() < Duration::from_secs(6),
        "{:?}",
        opened.elapsed()
    );
    assert!(
        blocks
            .iter()
            .any(|s| matches!(s, Sse::Comment(c) if c.contains("reconnect"))),
        "{blocks:?}"
    );
}

/// A stop does not wait for open streams. Stopping the platform tells each open
/// stream it is going (a comment, then the end), so the stop finishes at once
/// and the client resumes with Last-Event-ID; before, the process stayed up
/// until the last stream client left.
#[tokio::test]
async fn a_stop_ends_open_streams_and_does_not_wait_for_them() {
    let t = TestPlatform::start().await;
    let dev = sign_up_and_verify(&t, "stream-stop@example.com").await;
    let (_, key) = create_key(&t, &dev, &["events:read"]).await;
    let mut reader = open(&t, &key, "", None).await;
    let first = reader
        .next(Duration::from_secs(5))
        .await
        .expect("connected");
    assert!(
        first
            .iter()
            .any(|s| matches!(s, Sse::Comment(c) if c == "connected")),
        "{first:?}"
    );
    // The stream would last an hour: the stop must not wait for it (the
    // bound here is a hang check, far above the stop's own 10 s limit).
    let restarted = tokio::time::timeout(Duration::from_secs(30), t.restart())
        .await
        .expect("the stop did not wait for the open stream");
    let mut said = Vec::new();
    while let Some(block) = reader.next(Duration::from_secs(5)).await {
        said.extend(block);
    }
    assert!(reader.closed, "the stream ended: {said:?}");
    assert!(
        said.iter()
            .any(|s| matches!(s, Sse::Comment(c) if c.contains("the platform is stopping"))),
        "{said:?}"
    );
    // It serves again on the same data.
    let response = restarted
        .http
        .get(restarted.url("/capabilities"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}
