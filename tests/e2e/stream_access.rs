//! Who may keep an event stream open, and for how long: a caller holds a
//! bounded number of streams at once (429 with the RateLimit fields of the
//! `streams` policy), an open stream ends within seconds of its credential
//! losing the right (a revoked or rotated key, a suspended developer, a
//! revoked widget, a person removed from the home), and a home's stream never
//! replays what happened before the caller's access to the home began.

use std::sync::Arc;
use std::time::Duration;

use alyt_domain::SystemClock;
use alyt_events::stream::StreamLimits;
use alyt_events::{EventKind, EventLog};
use alyt_tests::TestPlatform;
use alyt_tests::developers::{create_key, sign_up_and_verify};
use alyt_tests::principals::{PASSWORD, seed_account};
use alyt_tests::webhooks::{Sse, SseReader};
use serde_json::{Value, json};

/// Two streams per caller, rechecked every half second.
fn tight_limits() -> StreamLimits {
    StreamLimits {
        keepalive: Duration::from_secs(1),
        per_caller: 2,
        recheck: Duration::from_millis(500),
        ..StreamLimits::LOCAL
    }
}

async fn start() -> TestPlatform {
    TestPlatform::start_with_config(|c| c.webhooks.stream = tight_limits()).await
}

async fn request(t: &TestPlatform, path: &str, token: &str) -> reqwest::Response {
    t.http
        .get(t.url(path))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
}

async fn open(t: &TestPlatform, path: &str, token: &str) -> SseReader {
    let response = request(t, path, token).await;
    assert_eq!(response.status(), 200, "{path}");
    SseReader::new(response)
}

/// Reads until the server closes the stream (true) or `within` passes.
async fn ends_within(stream: &mut SseReader, within: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        if left.is_zero() {
            return false;
        }
        if stream.next(left).await.is_none() {
            return stream.closed;
        }
    }
}

/// The last comment before the end (why the stream closed).
async fn closing_comment(stream: &mut SseReader, within: Duration) -> Option<String> {
    let mut last = None;
    while let Some(block) = stream.next(within).await {
        for item in block {
            if let Sse::Comment(text) = item {
                last = Some(text);
            }
        }
    }
    stream.closed.then_some(last).flatten()
}

const DEVELOPER_STREAM: &str = "/developers/events/stream";

#[tokio::test]
async fn a_caller_holds_at_most_its_cap_of_streams_and_a_closed_one_frees_its_slot() {
    let t = start().await;
    let dev = sign_up_and_verify(&t, "stream-cap@example.com").await;
    let (_, key) = create_key(&t, &dev, &["events:read"]).await;
    let first = open(&t, DEVELOPER_STREAM, &key).await;
    let _second = open(&t, DEVELOPER_STREAM, &key).await;

    let refused = request(&t, DEVELOPER_STREAM, &key).await;
    assert_eq!(refused.status(), 429);
    let header = |name: &str| {
        refused.headers()[name]
            .to_str()
            .unwrap_or_default()
            .to_owned()
    };
    assert!(
        header("ratelimit-policy").contains("\"streams\";q=2"),
        "{}",
        header("ratelimit-policy")
    );
    assert!(
        header("ratelimit").contains("\"streams\";r=0;t="),
        "{}",
        header("ratelimit")
    );
    assert!(header("retry-after").parse::<u64>().unwrap() >= 1);
    let problem: Value = refused.json().await.unwrap();
    assert_eq!(problem["status"], 429, "{problem}");
    assert!(
        problem["type"]
            .as_str()
            .unwrap()
            .ends_with("too-many-streams")
    );

    // Another key and the developer's own session are other callers.
    let (_, other_key) = create_key(&t, &dev, &["events:read"]).await;
    let _third = open(&t, DEVELOPER_STREAM, &other_key).await;
    let _session = open(&t, DEVELOPER_STREAM, &dev.access_token).await;

    // A stream the client closes gives its slot back.
    drop(first);
    let mut reopened = None;
    for _ in 0..40 {
        let response = request(&t, DEVELOPER_STREAM, &key).await;
        if response.status() == 200 {
            reopened = Some(response);
            break;
        }
        assert_eq!(response.status(), 429);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        reopened.is_some(),
        "the closed stream's slot was never freed"
    );
}

#[tokio::test]
async fn a_developer_stream_ends_when_its_key_is_revoked_or_rotated_or_its_developer_suspended() {
    let t = start().await;
    let dev = sign_up_and_verify(&t, "stream-revoke@example.com").await;
    let session = Some(dev.access_token.as_str());

    let (revoked_id, revoked) = create_key(&t, &dev, &["events:read"]).await;
    let mut stream = open(&t, DEVELOPER_STREAM, &revoked).await;
    assert!(!ends_within(&mut stream, Duration::from_secs(2)).await);
    let (status, _) = t
        .send_json(
            "DELETE",
            &format!("/developers/keys/{revoked_id}"),
            session,
            None,
        )
        .await;
    assert_eq!(status, 204);
    let why = closing_comment(&mut stream, Duration::from_secs(4)).await;
    assert!(why.is_some_and(|w| w.contains("no longer allows")));

    let (rotated_id, rotated) = create_key(&t, &dev, &["events:read"]).await;
    let mut stream = open(&t, DEVELOPER_STREAM, &rotated).await;
    let (status, _) = t
        .post_json(
            &format!("/developers/keys/{rotated_id}/rotate"),
            session,
            json!({}),
        )
        .await;
    assert_eq!(status, 200);
    assert!(ends_within(&mut stream, Duration::from_secs(4)).await);

    let (_, kept) = create_key(&t, &dev, &["events:read"]).await;
    let mut stream = open(&t, DEVELOPER_STREAM, &kept).await;
    let store = t.platform.store();
    let developers = alyt_store::repo::developers::Developers(&*store);
    let mut record = developers
        .get(dev.developer_id.parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    record.status = alyt_store::repo::developers::DeveloperStatus::Suspended;
    developers.save(&record).await.unwrap();
    assert!(ends_within(&mut stream, Duration::from_secs(4)).await);
}

struct DemoHome {
    tenant: String,
    client: String,
    property: String,
}

impl DemoHome {
    fn of(t: &TestPlatform) -> Self {
        let first = t.platform.first_start.as_ref().unwrap();
        Self {
            tenant: first.tenant_id.to_string(),
            client: first.client_id.to_string(),
            property: first.property_id.to_string(),
        }
    }

    fn stream(&self, query: &str) -> String {
        format!(
            "/properties/{}/events/stream?tenantId={}{query}",
            self.property, self.tenant
        )
    }

    fn members(&self) -> String {
        format!("/tenants/{}/clients/{}/members", self.tenant, self.client)
    }
}

/// A new member of the demo household, signed in: (user id, access token).
async fn new_member(
    t: &TestPlatform,
    home: &DemoHome,
    owner: &str,
    email: &str,
) -> (String, String) {
    let user = seed_account(t, email, None, None).await;
    let (status, granted) = t
        .post_json(
            &home.members(),
            Some(owner),
            json!({ "userId": user.id, "role": "MEMBER" }),
        )
        .await;
    assert_eq!(status, 201, "{granted}");
    let pair = t.household_login(email, PASSWORD).await;
    (
        user.id.to_string(),
        pair["accessToken"].as_str().unwrap().to_owned(),
    )
}

#[tokio::test]
async fn a_home_stream_ends_when_its_widget_is_revoked_or_its_person_leaves_the_home() {
    let t = start().await;
    let home = DemoHome::of(&t);
    let owner = crate::device_plane::owner_token(&t).await;
    let (ines, ines_token) = new_member(&t, &home, &owner, "ines.stream@example.com").await;
    let widgets = format!(
        "/properties/{}/widget-tokens?tenantId={}",
        home.property, home.tenant
    );
    let (status, minted) = t
        .post_json(
            &widgets,
            Some(&ines_token),
            json!({ "name": "Hall tablet" }),
        )
        .await;
    assert_eq!(status, 201, "{minted}");
    let widget = minted["token"].as_str().unwrap();
    let mut by_widget = open(&t, &home.stream(""), widget).await;
    assert!(!ends_within(&mut by_widget, Duration::from_secs(2)).await);
    let revoke = format!(
        "/properties/{}/widget-tokens/{}?tenantId={}",
        home.property,
        minted["id"].as_str().unwrap(),
        home.tenant
    );
    let (status, _) = t
        .send_json("DELETE", &revoke, Some(&ines_token), None)
        .await;
    assert_eq!(status, 204);
    assert!(ends_within(&mut by_widget, Duration::from_secs(4)).await);

    let mut by_session = open(&t, &home.stream(""), &ines_token).await;
    assert!(!ends_within(&mut by_session, Duration::from_secs(2)).await);
    let (status, _) = t
        .send_json(
            "DELETE",
            &format!("{}/{ines}", home.members()),
            Some(&owner),
            None,
        )
        .await;
    assert_eq!(status, 204);
    assert!(ends_within(&mut by_session, Duration::from_secs(4)).await);
}

#[tokio::test]
async fn a_new_members_home_stream_starts_when_their_access_began() {
    let t = start().await;
    let home = DemoHome::of(&t);
    let owner = crate::device_plane::owner_token(&t).await;
    let light = crate::device_plane::register_light(&t, &owner).await;
    let log = EventLog::new(t.platform.store(), Arc::new(SystemClock));
    let tenant = home.tenant.parse().unwrap();
    let result = |n: u32| {
        json!({ "deviceId": light.device, "commandId": format!("{n}"), "command": "set",
                "status": "ok", "at": "2026-11-28T12:00:00Z" })
    };
    let mut before = Vec::new();
    for n in 0..3 {
        let event = log
            .record(tenant, EventKind::CommandResult, result(n))
            .await
            .unwrap();
        before.push(event.id.to_string());
    }
    // The owner, whose access is older, hears them from the start.
    let mut owners = open(&t, &home.stream(""), &owner).await;
    let heard = owners.events(3, Duration::from_secs(5)).await;
    assert_eq!(
        heard
            .iter()
            .map(|(_, id, _)| id.clone())
            .collect::<Vec<_>>(),
        before
    );

    tokio::time::sleep(Duration::from_millis(5)).await;
    let (_, member) = new_member(&t, &home, &owner, "noor.stream@example.com").await;
    let mut fresh = open(&t, &home.stream(""), &member).await;
    // A cursor from before the grant does not reach back either.
    let mut cursored = open(&t, &home.stream(&format!("&after={}", before[0])), &member).await;
    let after = log
        .record(tenant, EventKind::CommandResult, result(9))
        .await
        .unwrap()
        .id
        .to_string();
    for stream in [&mut fresh, &mut cursored] {
        let heard = stream.events(2, Duration::from_secs(3)).await;
        let ids: Vec<&str> = heard.iter().map(|(_, id, _)| id.as_str()).collect();
        assert_eq!(ids, [after.as_str()]);
    }
}
