//! Developer quotas and usage over HTTP: the effective quota (default or staff
//! override), keyed requests counted per developer, per key and per minute,
//! refusal with 429 once the ceiling or the burst is spent, and GET /usage.

use alyt_domain::ids::DeveloperId;
use alyt_domain::quota::QuotaKind;
use alyt_store::repo::usage::Usage;
use alyt_tests::TestPlatform;
use alyt_tests::developers::{DeveloperSession, app_token, bearer, create_key, sign_up_and_verify};
use alyt_tests::principals::{Principals, Who};
use serde_json::{Value, json};

/// GET with a bearer token: status, Retry-After (seconds) and JSON body.
async fn get(t: &TestPlatform, path: &str, token: Option<&str>) -> (u16, Option<u64>, Value) {
    let mut request = t.http.get(t.url(path));
    if let Some(token) = token {
        request = request.header("authorization", bearer(token));
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().parse().unwrap());
    (
        status,
        retry_after,
        response.json().await.unwrap_or(Value::Null),
    )
}

async fn set_quota(t: &TestPlatform, staff: &str, dev: &DeveloperSession, quota: Value) {
    let response = t
        .http
        .put(t.url(&format!(
            "/developers/admin/developers/{}/quota",
            dev.developer_id
        )))
        .header("authorization", bearer(staff))
        .json(&quota)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "{}", response.text().await.unwrap());
}

/// The UTC day key of now, as the platform computes it.
fn today() -> String {
    alyt_domain::quota::QuotaWindow::Day.key(time::OffsetDateTime::now_utc())
}

/// Waits, when the current minute is nearly over, for the next one to begin,
/// so a test of the per-minute burst runs inside one minute.
async fn at_start_of_a_minute() {
    let second = time::OffsetDateTime::now_utc().second();
    if second >= 45 {
        tokio::time::sleep(std::time::Duration::from_secs(u64::from(61 - second))).await;
    }
}

async fn staff(t: &TestPlatform) -> String {
    Principals::seed(t)
        .await
        .token(Who::PlatformStaff)
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn the_quota_is_the_default_until_staff_override_it() {
    let t = TestPlatform::start().await;
    let staff = staff(&t).await;
    let dev = sign_up_and_verify(&t, "quota@example.com").await;
    let (_, key) = create_key(&t, &dev, &["devices:read"]).await;

    let defaults = json!({
        "REQUESTS": { "kind": "REQUESTS", "ceiling": 100000, "window": "day", "burstPerMinute": 600, "source": "default" },
        "VIRTUAL_DEVICES": { "kind": "VIRTUAL_DEVICES", "ceiling": 20, "window": "month", "source": "default" },
        "MQTT_MESSAGES": { "kind": "MQTT_MESSAGES", "ceiling": 1000000, "window": "day", "source": "default" },
    });
    // A session and any key of the developer (whatever its scopes) may read it.
    for token in [&dev.access_token, &key] {
        let (status, _, quota) = get(&t, "/developers/quota", Some(token)).await;
        assert_eq!(status, 200, "{quota}");
        assert_eq!(quota, defaults);
    }

    set_quota(
        &t,
        &staff,
        &dev,
        json!({ "kind": "REQUESTS", "ceiling": 5000, "window": "month", "burstPerMinute": 50 }),
    )
    .await;
    set_quota(
        &t,
        &staff,
        &dev,
        json!({ "kind": "VIRTUAL_DEVICES", "ceiling": 3, "window": "month" }),
    )
    .await;
    let (_, _, quota) = get(&t, "/developers/quota", Some(&dev.access_token)).await;
    assert_eq!(
        quota["REQUESTS"],
        json!({ "kind": "REQUESTS", "ceiling": 5000, "window": "month", "burstPerMinute": 50, "source": "override" })
    );
    assert_eq!(
        quota["VIRTUAL_DEVICES"],
        json!({ "kind": "VIRTUAL_DEVICES", "ceiling": 3, "window": "month", "source": "override" })
    );
    assert_eq!(quota["MQTT_MESSAGES"], defaults["MQTT_MESSAGES"]);
    // A second override of the same kind replaces the first (the burst goes).
    set_quota(
        &t,
        &staff,
        &dev,
        json!({ "kind": "REQUESTS", "ceiling": 7000, "window": "day" }),
    )
    .await;
    let (_, _, quota) = get(&t, "/developers/quota", Some(&key)).await;
    assert_eq!(
        quota["REQUESTS"],
        json!({ "kind": "REQUESTS", "ceiling": 7000, "window": "day", "source": "override" })
    );
    // Staff read the same view of the developer (the staff console shows it).
    let admin_path = format!("/developers/admin/developers/{}/quota", dev.developer_id);
    let (status, _, seen) = get(&t, &admin_path, Some(&staff)).await;
    assert_eq!(status, 200, "{seen}");
    assert_eq!(seen, quota);
    let (status, _, _) = get(
        &t,
        "/developers/admin/developers/0190a0a0-0000-7000-8000-000000000000/quota",
        Some(&staff),
    )
    .await;
    assert_eq!(status, 404);

    // Another developer keeps the defaults.
    let other = sign_up_and_verify(&t, "other-quota@example.com").await;
    let (_, _, quota) = get(&t, "/developers/quota", Some(&other.access_token)).await;
    assert_eq!(quota, defaults);
}

#[tokio::test]
async fn quota_and_usage_are_for_developers_only() {
    let t = TestPlatform::start().await;
    let principals = Principals::seed(&t).await;
    for path in ["/developers/quota", "/developers/usage"] {
        for who in Who::ALL {
            // Household and staff sessions are the wrong kind of token.
            let expected = match who {
                Who::DeveloperSession | Who::DevKey | Who::LiveKey => 200,
                _ => 401,
            };
            let (status, _, body) = get(&t, path, principals.token(who)).await;
            assert_eq!(status, expected, "{path} as {who:?}: {body}");
        }
    }
}

#[tokio::test]
async fn the_fourth_request_over_a_ceiling_of_three_is_refused_until_the_day_turns() {
    let t = TestPlatform::start().await;
    let staff = staff(&t).await;
    let dev = sign_up_and_verify(&t, "ceiling@example.com").await;
    let (key_id, key) = create_key(&t, &dev, &["devices:read"]).await;
    set_quota(
        &t,
        &staff,
        &dev,
        json!({ "kind": "REQUESTS", "ceiling": 3, "window": "day" }),
    )
    .await;

    for n in 1..=3 {
        let (status, _, body) = get(&t, "/developers/whoami", Some(&key)).await;
        assert_eq!(status, 200, "request {n}: {body}");
    }
    let (status, retry_after, problem) = get(&t, "/developers/whoami", Some(&key)).await;
    assert_eq!(status, 429, "{problem}");
    let retry_after = retry_after.expect("Retry-After");
    assert!((1..=86_400).contains(&retry_after), "{retry_after}");
    assert_eq!(problem["type"], "urn:alyt:problem:quota-exceeded");
    assert_eq!(problem["status"], 429);
    assert_eq!(problem["quota"], "REQUESTS");
    let detail = problem["detail"].as_str().unwrap();
    assert!(
        detail.contains("REQUESTS") && detail.contains("3 per day"),
        "{detail}"
    );
    // Every keyed operation is refused, reads of the quota included.
    let (status, _, _) = get(&t, "/developers/quota", Some(&key)).await;
    assert_eq!(status, 429);

    // Sessions are not counted and still work; usage shows the served requests.
    let (status, _, usage) = get(&t, "/developers/usage", Some(&dev.access_token)).await;
    assert_eq!(status, 200, "{usage}");
    let requests = &usage["quotas"]["REQUESTS"];
    assert_eq!(requests["count"], 3);
    assert_eq!(requests["ceiling"], 3);
    assert_eq!(requests["window"], "day");
    assert_eq!(requests["windowKey"], today());
    assert_eq!(requests["source"], "override");
    let resets_at = time::OffsetDateTime::parse(
        requests["resetsAt"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    assert_eq!(
        (resets_at.hour(), resets_at.minute(), resets_at.second()),
        (0, 0, 0)
    );
    let left = (resets_at - time::OffsetDateTime::now_utc()).whole_seconds();
    assert!((0..=86_400).contains(&left));
    assert!(requests.get("burstPerMinute").is_none());
    assert_eq!(usage["day"], today());
    assert_eq!(
        usage["keys"],
        json!([{ "keyId": key_id, "name": "test key", "requests": 3 }])
    );

    // Raising the ceiling serves the key again at once.
    set_quota(
        &t,
        &staff,
        &dev,
        json!({ "kind": "REQUESTS", "ceiling": 4, "window": "day" }),
    )
    .await;
    let (status, _, _) = get(&t, "/developers/whoami", Some(&key)).await;
    assert_eq!(status, 200);
    let (status, _, _) = get(&t, "/developers/whoami", Some(&key)).await;
    assert_eq!(status, 429);

    // A ceiling of 0 refuses every keyed request.
    set_quota(
        &t,
        &staff,
        &dev,
        json!({ "kind": "REQUESTS", "ceiling": 0, "window": "month" }),
    )
    .await;
    let (status, retry_after, problem) = get(&t, "/developers/whoami", Some(&key)).await;
    assert_eq!(status, 429, "{problem}");
    assert!(retry_after.unwrap() <= 31 * 86_400);
    let (_, _, usage) = get(&t, "/developers/usage", Some(&dev.access_token)).await;
    assert_eq!(
        usage["quotas"]["REQUESTS"]["count"], 0,
        "a fresh month window"
    );
    assert_eq!(usage["keys"][0]["requests"], 4, "the day's served requests");
}

#[tokio::test]
async fn the_burst_limit_refuses_within_the_minute() {
    let t = TestPlatform::start().await;
    let staff = staff(&t).await;
    let dev = sign_up_and_verify(&t, "burst@example.com").await;
    let (_, key) = create_key(&t, &dev, &["devices:read"]).await;
    set_quota(
        &t,
        &staff,
        &dev,
        json!({ "kind": "REQUESTS", "ceiling": 1000, "window": "day", "burstPerMinute": 2 }),
    )
    .await;

    at_start_of_a_minute().await;
    for n in 1..=2 {
        let (status, _, body) = get(&t, "/developers/whoami", Some(&key)).await;
        assert_eq!(status, 200, "request {n}: {body}");
    }
    let (status, retry_after, problem) = get(&t, "/developers/whoami", Some(&key)).await;
    assert_eq!(status, 429, "{problem}");
    assert!((1..=60).contains(&retry_after.unwrap()));
    assert_eq!(problem["type"], "urn:alyt:problem:quota-exceeded");
    assert_eq!(problem["quota"], "REQUESTS");
    assert!(
        problem["detail"].as_str().unwrap().contains("2 per minute"),
        "{problem}"
    );

    // The refused request is not counted.
    let (_, _, usage) = get(&t, "/developers/usage", Some(&dev.access_token)).await;
    let requests = &usage["quotas"]["REQUESTS"];
    assert_eq!(requests["count"], 2, "{usage}");
    assert_eq!(requests["burstPerMinute"], 2);
    assert_eq!(requests["burstCount"], 2);
    assert_eq!(usage["keys"][0]["requests"], 2);
}

#[tokio::test]
async fn usage_counts_per_key_and_app_tokens_count_as_their_key() {
    // The sandbox's virtual devices stay off, so no MQTT message counts
    // against MQTT_MESSAGES while the request counts are checked (their
    // metering is tested in tests/e2e/simulator.rs and the ingest tests).
    // Usage is written only at the clean stop below (no flush on a beat), so
    // the restart shows that the stop writes it.
    let t = TestPlatform::start_with(|config| {
        config.simulator.enabled = false;
        config.usage_flush_every = std::time::Duration::from_secs(3600);
    })
    .await;
    let dev = sign_up_and_verify(&t, "usage@example.com").await;
    let (first_id, first) = create_key(&t, &dev, &["devices:read"]).await;
    let (second_id, second) = create_key(&t, &dev, &["events:read"]).await;
    let (idle_id, _) = create_key(&t, &dev, &["events:read"]).await;
    let (revoked_id, revoked) = create_key(&t, &dev, &["events:read"]).await;
    let (unused_revoked_id, _) = create_key(&t, &dev, &["events:read"]).await;

    // Nothing yet.
    let (_, _, usage) = get(&t, "/developers/usage", Some(&dev.access_token)).await;
    assert_eq!(usage["quotas"]["REQUESTS"]["count"], 0);
    assert_eq!(usage["quotas"]["REQUESTS"]["burstPerMinute"], 600);
    assert_eq!(usage["quotas"]["REQUESTS"]["burstCount"], 0);
    assert!(
        usage["keys"]
            .as_array()
            .unwrap()
            .iter()
            .all(|k| k["requests"] == 0)
    );

    at_start_of_a_minute().await;
    for _ in 0..3 {
        assert_eq!(get(&t, "/developers/whoami", Some(&first)).await.0, 200);
    }
    // The exchange is not a keyed request; the app token's requests are the key's.
    let exchanged: Value = app_token(&t, &second_id, &second)
        .await
        .json()
        .await
        .unwrap();
    let app = exchanged["accessToken"].as_str().unwrap();
    assert_eq!(get(&t, "/developers/whoami", Some(app)).await.0, 200);
    assert_eq!(get(&t, "/developers/whoami", Some(&second)).await.0, 200);
    assert_eq!(get(&t, "/developers/whoami", Some(&revoked)).await.0, 200);
    // Unauthenticated attempts with a dead secret count for nobody.
    assert_eq!(
        get(
            &t,
            "/developers/whoami",
            Some("svc_dev_deaddeaddeaddeaddeaddeaddeaddeaddeaddea")
        )
        .await
        .0,
        401
    );
    for id in [&revoked_id, &unused_revoked_id] {
        let response = t
            .http
            .delete(t.url(&format!("/developers/keys/{id}")))
            .header("authorization", dev.bearer())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 204);
    }

    // The simulator reports the virtual devices it holds (a standing count).
    let developer: DeveloperId = dev.developer_id.parse().unwrap();
    Usage(&*t.platform.store())
        .set_count(developer, QuotaKind::VirtualDevices, 5)
        .await
        .unwrap();

    // Read with a key: this request counts too (3 + 2 + 1 + 1).
    let (status, _, usage) = get(&t, "/developers/usage", Some(&first)).await;
    assert_eq!(status, 200, "{usage}");
    assert_eq!(usage["quotas"]["REQUESTS"]["count"], 7);
    assert_eq!(usage["quotas"]["REQUESTS"]["burstCount"], 7);
    let counts: Vec<(String, u64)> = usage["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            (
                k["keyId"].as_str().unwrap().to_owned(),
                k["requests"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        counts,
        [
            (first_id.clone(), 4),
            (second_id.clone(), 2),
            (idle_id, 0),
            (revoked_id.clone(), 1),
            // A revoked key that made no request today is left out.
        ]
    );
    assert_eq!(
        usage["quotas"]["VIRTUAL_DEVICES"],
        json!({
            "count": 5, "ceiling": 20, "window": "month",
            "windowKey": null, "resetsAt": null, "source": "default"
        })
    );
    let mqtt = &usage["quotas"]["MQTT_MESSAGES"];
    assert_eq!(mqtt["count"], 0);
    assert_eq!(mqtt["ceiling"], 1_000_000);
    assert_eq!(mqtt["windowKey"], today());
    assert!(usage["at"].is_string());

    // Counts live in memory until a flush; a clean stop writes them, so
    // after a restart the store holds every served request (7, and this
    // read with the session counts nothing).
    let t = t.restart().await;
    let (status, _, usage) = get(&t, "/developers/usage", Some(&dev.access_token)).await;
    assert_eq!(status, 200, "{usage}");
    assert_eq!(usage["quotas"]["REQUESTS"]["count"], 7);
    let requests_of = |id: &str| {
        usage["keys"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["keyId"] == id)
            .map(|k| k["requests"].clone())
    };
    assert_eq!(requests_of(&first_id), Some(json!(4)));
    assert_eq!(requests_of(&second_id), Some(json!(2)));
    assert_eq!(requests_of(&revoked_id), Some(json!(1)));

    // Another developer's usage is its own.
    let other = sign_up_and_verify(&t, "usage-other@example.com").await;
    let (_, _, theirs) = get(&t, "/developers/usage", Some(&other.access_token)).await;
    assert_eq!(theirs["quotas"]["REQUESTS"]["count"], 0);
    // Its own fresh sandbox: the five provisioned virtual devices.
    assert_eq!(theirs["quotas"]["VIRTUAL_DEVICES"]["count"], 5);
    assert_eq!(theirs["keys"], json!([]));
}
