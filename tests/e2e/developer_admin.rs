//! Platform staff operations on developers over HTTP: the paginated developer
//! list, the quota defaults, quota overrides, verifying a developer by hand and
//! issuing LIVE keys, and who may call them.

use std::collections::BTreeSet;

use alyt_domain::ids::{DeveloperId, UserId};
use alyt_store::repo::developers::{DeveloperRecord, DeveloperStatus, DeveloperType, Developers};
use alyt_store::repo::identity::UserRecord;
use alyt_tests::TestPlatform;
use alyt_tests::developers::{
    DeveloperSession, PASSWORD, app_token, approve_connector, bearer, create_connector, create_key,
    get_me, issue_live_key, login, newest_link, review, sign_up, sign_up_and_verify,
    submit_version,
};
use alyt_tests::principals::{Principals, Who};
use serde_json::{Value, json};

async fn call(
    t: &TestPlatform,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> (u16, Value) {
    let url = t.url(path);
    let mut request = match method {
        "GET" => t.http.get(&url),
        "PUT" => t.http.put(&url),
        "POST" => t.http.post(&url),
        "DELETE" => t.http.delete(&url),
        other => panic!("method {other}"),
    };
    if let Some(token) = token {
        request = request.header("authorization", bearer(token));
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let body = response.json().await.unwrap_or(Value::Null);
    (status, body)
}

/// Seeds a developer (and its user) straight into the store.
async fn seed_developer(
    t: &TestPlatform,
    email: &str,
    status: DeveloperStatus,
    created_at: time::OffsetDateTime,
) -> DeveloperId {
    let store = t.platform.store();
    let user = UserRecord {
        name: None,
        id: UserId::new(),
        email: email.into(),
        password_hash: "not-a-real-hash".into(),
        email_verified_at: None,
        platform_role: None,
        tenants: Default::default(),
        developer_id: None,
        mfa: None,
        units: None,
        created_at,
    };
    let developer = DeveloperRecord {
        id: DeveloperId::new(),
        user_id: user.id,
        email: email.into(),
        kind: DeveloperType::Brand,
        display_name: format!("Seeded {email}"),
        organisation: Some("Seed Co".into()),
        website: None,
        status,
        sandbox_tenant_id: None,
        verified_at: None,
        mfa_enabled_at: None,
        created_at,
    };
    let user = UserRecord {
        name: None,
        developer_id: Some(developer.id),
        ..user
    };
    Developers(&*store)
        .sign_up(&user, &developer)
        .await
        .expect("seed developer");
    developer.id
}

fn staff_token(principals: &Principals) -> String {
    principals.token(Who::PlatformStaff).unwrap().to_owned()
}

/// A connector of `dev` with a version staff approved: what a LIVE key is
/// issued for.
async fn approved_connector(t: &TestPlatform, staff: &str, dev: &DeveloperSession) -> String {
    // The random end of the id (a UUIDv7 starts with the time).
    let slug = format!("lights-{}", &dev.developer_id[dev.developer_id.len() - 8..]);
    let connector = create_connector(t, dev, &slug, "http://127.0.0.1:9/").await;
    approve_connector(t, staff, dev, &connector).await;
    connector
}

#[tokio::test]
async fn the_developer_list_pages_newest_first_and_shows_everyone_once() {
    let t = TestPlatform::start().await;
    let principals = Principals::seed(&t).await;
    let staff = staff_token(&principals);

    // Seven seeded a second apart an hour ago, the harness developer, and one
    // signed up (newest) and verified.
    let base = time::OffsetDateTime::now_utc() - time::Duration::hours(1);
    let mut expected = Vec::new();
    for i in 0..7 {
        let at = base + time::Duration::seconds(i);
        let status = if i % 2 == 0 {
            DeveloperStatus::PendingEmail
        } else {
            DeveloperStatus::Active
        };
        expected.push(seed_developer(&t, &format!("seed{i}@example.com"), status, at).await);
    }
    expected.push(principals.developer.developer_id.parse().unwrap());
    let dev = sign_up_and_verify(&t, "newest@example.com").await;
    expected.push(dev.developer_id.parse().unwrap());
    expected.reverse();

    let mut seen: Vec<Value> = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let path = match &cursor {
            Some(c) => format!("/developers/admin/developers?limit=3&cursor={c}"),
            None => "/developers/admin/developers?limit=3".to_owned(),
        };
        let (status, page) = call(&t, "GET", &path, Some(&staff), None).await;
        assert_eq!(status, 200, "{page}");
        let items = page["items"].as_array().unwrap();
        assert!(items.len() <= 3);
        seen.extend(items.iter().cloned());
        pages += 1;
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
        assert!(pages < 10, "the list does not end");
    }
    assert_eq!(pages, 3);
    let ids: Vec<DeveloperId> = seen
        .iter()
        .map(|d| d["id"].as_str().unwrap().parse().unwrap())
        .collect();
    let unique: BTreeSet<_> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "every developer once");
    assert_eq!(unique, expected.iter().collect(), "every developer");
    // Newest first. The two signed up just now may share a second, within
    // which the index orders by the RFC 3339 text (see the report), so their
    // order is checked to the second; the seeded ones are seconds apart.
    assert_eq!(ids[2..], expected[2..], "the seeded ones, newest first");
    let seconds: Vec<i64> = seen
        .iter()
        .map(|d| {
            time::OffsetDateTime::parse(
                d["createdAt"].as_str().unwrap(),
                &time::format_description::well_known::Rfc3339,
            )
            .unwrap()
            .unix_timestamp()
        })
        .collect();
    assert!(seconds.windows(2).all(|w| w[0] >= w[1]), "{seconds:?}");

    // Each item is exactly the spec's Developer admin list item.
    let newest = seen
        .iter()
        .find(|d| d["email"] == "newest@example.com")
        .unwrap();
    let mut fields: Vec<&str> = newest
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    fields.sort();
    assert_eq!(
        fields,
        [
            "createdAt",
            "displayName",
            "email",
            "id",
            "mfaEnabledAt",
            "organisation",
            "sandboxTenantId",
            "status",
            "type",
            "userId",
            "verifiedAt",
            "website"
        ]
    );
    assert_eq!(newest["email"], "newest@example.com");
    assert_eq!(newest["status"], "ACTIVE");
    assert_eq!(newest["sandboxTenantId"], dev.sandbox_tenant_id.as_str());
    assert_eq!(newest["userId"], dev.user_id.as_str());
    let oldest = seen.last().unwrap();
    assert_eq!(oldest["email"], "seed0@example.com");
    assert_eq!(oldest["status"], "PENDING_EMAIL");
    assert_eq!(oldest["type"], "BRAND");
    assert_eq!(oldest["organisation"], "Seed Co");
    assert_eq!(oldest["sandboxTenantId"], Value::Null);
    assert_eq!(oldest["verifiedAt"], Value::Null);

    // The default page holds them all; bad paging is a 400 naming the parameter.
    let (_, all) = call(
        &t,
        "GET",
        "/developers/admin/developers",
        Some(&staff),
        None,
    )
    .await;
    assert_eq!(all["items"].as_array().unwrap().len(), 9);
    assert_eq!(all["nextCursor"], Value::Null);
    for (query, field) in [
        ("?limit=0", "limit"),
        ("?limit=201", "limit"),
        ("?limit=abc", "limit"),
        ("?cursor=garbage", "cursor"),
    ] {
        let (status, body) = call(
            &t,
            "GET",
            &format!("/developers/admin/developers{query}"),
            Some(&staff),
            None,
        )
        .await;
        assert_eq!(
            (status, body["field"].as_str()),
            (400, Some(field)),
            "{query}: {body}"
        );
    }
    // A cursor of another list (a developer's key list) is refused too.
    let _ = create_key(&t, &dev, &["devices:read"]).await;
    let _ = create_key(&t, &dev, &["devices:read"]).await;
    let (_, keys) = call(
        &t,
        "GET",
        "/developers/keys?limit=1",
        Some(&dev.access_token),
        None,
    )
    .await;
    let foreign = keys["nextCursor"].as_str().unwrap();
    let (status, body) = call(
        &t,
        "GET",
        &format!("/developers/admin/developers?cursor={foreign}"),
        Some(&staff),
        None,
    )
    .await;
    assert_eq!(
        (status, body["field"].as_str()),
        (400, Some("cursor")),
        "{body}"
    );
}

#[tokio::test]
async fn staff_may_do_everything_support_may_read_everyone_else_sees_nothing() {
    let t = TestPlatform::start().await;
    let principals = Principals::seed(&t).await;
    let target = principals.developer.developer_id.clone();
    let quota = json!({ "kind": "REQUESTS", "ceiling": 500, "window": "day" });

    let reads = [
        "/developers/admin/developers",
        "/developers/admin/quota-defaults",
    ];
    let put_path = format!("/developers/admin/developers/{target}/quota");
    let verify_path = format!("/developers/admin/developers/{target}/verify");

    // (caller, token, read status, write status)
    let mut callers: Vec<(String, Option<String>, u16, u16)> = Vec::new();
    for who in Who::ALL {
        let (read, write) = match who {
            Who::Anonymous
            | Who::Garbage
            | Who::ExpiredToken
            | Who::WrongKindToken
            | Who::RevokedKey => (401, 401),
            Who::PlatformOwner | Who::PlatformStaff => (200, 200),
            Who::PlatformSupport => (200, 403),
            _ => (404, 404),
        };
        callers.push((
            format!("{who:?}"),
            principals.token(who).map(str::to_owned),
            read,
            write,
        ));
    }
    // Developer sessions and keys are outsiders here too (404).
    let key = principals.token(Who::DevKey);
    let not_a_path = call(&t, "GET", "/developers/admin/nothing-here", key, None).await;
    assert_eq!(not_a_path.0, 404);
    let mut failures = Vec::new();
    for (name, token, read, write) in &callers {
        for path in reads {
            let (status, body) = call(&t, "GET", path, token.as_deref(), None).await;
            if status != *read {
                failures.push(format!("GET {path} as {name}: {status} {body}"));
            }
            if status == 404 {
                // Exactly as a path that does not exist.
                assert_eq!(body["detail"], not_a_path.1["detail"], "{name}");
            }
        }
        // A bad body does not tell outsiders the operation exists.
        let bad = json!({ "kind": "NOPE" });
        let (status, _) = call(&t, "PUT", &put_path, token.as_deref(), Some(bad)).await;
        let expected_bad = if *write == 200 { 400 } else { *write };
        if status != expected_bad {
            failures.push(format!("PUT bad body as {name}: {status}"));
        }
        let (status, body) =
            call(&t, "PUT", &put_path, token.as_deref(), Some(quota.clone())).await;
        if status != *write {
            failures.push(format!("PUT quota as {name}: {status} {body}"));
        }
        let (status, body) = call(&t, "POST", &verify_path, token.as_deref(), None).await;
        if status != *write {
            failures.push(format!("POST verify as {name}: {status} {body}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[tokio::test]
async fn quota_defaults_are_the_documented_ones() {
    let t = TestPlatform::start().await;
    let principals = Principals::seed(&t).await;
    let (status, defaults) = call(
        &t,
        "GET",
        "/developers/admin/quota-defaults",
        principals.token(Who::PlatformSupport),
        None,
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        defaults,
        json!({
            "REQUESTS": { "ceiling": 100000, "window": "day", "burstPerMinute": 600 },
            "VIRTUAL_DEVICES": { "ceiling": 20, "window": "month" },
            "MQTT_MESSAGES": { "ceiling": 1000000, "window": "day" },
        })
    );

    // A configured platform default replaces the documented one.
    alyt_store::repo::usage::Quotas(&*t.platform.store())
        .set_default(
            alyt_domain::quota::QuotaKind::MqttMessages,
            alyt_domain::quota::QuotaValue {
                ceiling: 5000,
                window: alyt_domain::quota::QuotaWindow::Month,
                burst_per_minute: Some(100),
            },
            time::OffsetDateTime::now_utc(),
        )
        .await
        .unwrap();
    let (_, defaults) = call(
        &t,
        "GET",
        "/developers/admin/quota-defaults",
        principals.token(Who::PlatformOwner),
        None,
    )
    .await;
    assert_eq!(
        defaults["MQTT_MESSAGES"],
        json!({ "ceiling": 5000, "window": "month", "burstPerMinute": 100 })
    );
}

#[tokio::test]
async fn bad_quota_overrides_are_400_naming_the_field() {
    let t = TestPlatform::start().await;
    let principals = Principals::seed(&t).await;
    let staff = staff_token(&principals);
    let dev = sign_up_and_verify(&t, "limits@example.com").await;
    let path = format!("/developers/admin/developers/{}/quota", dev.developer_id);

    let cases = [
        (
            json!({ "kind": "TOASTERS", "ceiling": 1, "window": "day" }),
            "kind",
        ),
        (
            json!({ "kind": "requests", "ceiling": 1, "window": "day" }),
            "kind",
        ),
        (json!({ "ceiling": 1, "window": "day" }), "kind"),
        (
            json!({ "kind": "REQUESTS", "ceiling": -1, "window": "day" }),
            "ceiling",
        ),
        (
            json!({ "kind": "REQUESTS", "ceiling": 1.5, "window": "day" }),
            "ceiling",
        ),
        (
            json!({ "kind": "REQUESTS", "ceiling": "10", "window": "day" }),
            "ceiling",
        ),
        (json!({ "kind": "REQUESTS", "window": "day" }), "ceiling"),
        (
            json!({ "kind": "REQUESTS", "ceiling": 9007199254740992_u64, "window": "day" }),
            "ceiling",
        ),
        (
            json!({ "kind": "REQUESTS", "ceiling": 1, "window": "week" }),
            "window",
        ),
        (json!({ "kind": "REQUESTS", "ceiling": 1 }), "window"),
        (
            json!({ "kind": "REQUESTS", "ceiling": 1, "window": "day", "burstPerMinute": 0 }),
            "burstPerMinute",
        ),
        (
            json!({ "kind": "REQUESTS", "ceiling": 1, "window": "day", "burstPerMinute": -2 }),
            "burstPerMinute",
        ),
        (
            json!({ "kind": "VIRTUAL_DEVICES", "ceiling": 5, "window": "month", "burstPerMinute": 3 }),
            "burstPerMinute",
        ),
        (
            json!({ "kind": "REQUESTS", "ceiling": 1, "window": "day", "developerId": "x" }),
            "developerId",
        ),
    ];
    for (body, field) in cases {
        let (status, problem) = call(&t, "PUT", &path, Some(&staff), Some(body.clone())).await;
        assert_eq!(status, 400, "{body}: {problem}");
        assert_eq!(problem["field"], field, "{body}: {problem}");
        assert_eq!(problem["status"], 400);
    }
    // Not JSON at all.
    let response = t
        .http
        .put(t.url(&path))
        .header("authorization", bearer(&staff))
        .body("ceiling=1")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 415);
    // Unknown and malformed developers are 404 with a valid body.
    let good = json!({ "kind": "REQUESTS", "ceiling": 1, "window": "day" });
    for id in ["0190a0a0-0000-7000-8000-000000000000", "not-a-uuid"] {
        let (status, _) = call(
            &t,
            "PUT",
            &format!("/developers/admin/developers/{id}/quota"),
            Some(&staff),
            Some(good.clone()),
        )
        .await;
        assert_eq!(status, 404, "{id}");
    }
    // Nothing of the above changed the developer's quota.
    let (_, quota) = call(
        &t,
        "GET",
        "/developers/quota",
        Some(&dev.access_token),
        None,
    )
    .await;
    assert_eq!(quota["REQUESTS"]["source"], "default");
    // A good one answers the new effective value; a ceiling of 0 is allowed.
    let (status, body) = call(
        &t,
        "PUT",
        &path,
        Some(&staff),
        Some(json!({ "kind": "MQTT_MESSAGES", "ceiling": 0, "window": "month", "burstPerMinute": null })),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!({ "kind": "MQTT_MESSAGES", "ceiling": 0, "window": "month", "source": "override" })
    );
}

#[tokio::test]
async fn staff_verify_a_pending_developer_like_the_link_does() {
    let t = TestPlatform::start().await;
    let principals = Principals::seed(&t).await;
    let staff = staff_token(&principals);
    let email = "pending@example.com";
    assert_eq!(sign_up(&t, email, PASSWORD).await.status(), 202);
    // Not verified yet: sign-in is refused.
    assert_eq!(login(&t, email, PASSWORD, None).await.status(), 403);

    let (_, list) = call(
        &t,
        "GET",
        "/developers/admin/developers",
        Some(&staff),
        None,
    )
    .await;
    let pending = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["email"] == email)
        .expect("listed")
        .clone();
    assert_eq!(pending["status"], "PENDING_EMAIL");
    assert_eq!(pending["sandboxTenantId"], Value::Null);
    let id = pending["id"].as_str().unwrap();
    let path = format!("/developers/admin/developers/{id}/verify");

    // SUPPORT may not.
    let (status, _) = call(
        &t,
        "POST",
        &path,
        principals.token(Who::PlatformSupport),
        None,
    )
    .await;
    assert_eq!(status, 403);

    let (status, verified) = call(&t, "POST", &path, Some(&staff), None).await;
    assert_eq!(status, 200, "{verified}");
    assert_eq!(verified["id"], id);
    assert_eq!(verified["status"], "ACTIVE");
    assert!(verified["verifiedAt"].is_string());
    let sandbox = verified["sandboxTenantId"]
        .as_str()
        .expect("a sandbox")
        .to_owned();

    // The developer signs in and is the sandbox's ADMIN, as after the link.
    let response = login(&t, email, PASSWORD, None).await;
    assert_eq!(response.status(), 200);
    let session: Value = response.json().await.unwrap();
    let access = session["accessToken"].as_str().unwrap();
    let me = get_me(&t, access).await;
    assert_eq!(me["sandboxTenantId"], sandbox.as_str());
    let claims = alyt_tests::developers::jwt_payload(access);
    assert_eq!(claims["tenants"][&sandbox], "ADMIN");
    let rooms = alyt_store::repo::tenancy::Tenancy(&*t.platform.store())
        .properties(sandbox.parse().unwrap(), 10, None)
        .await
        .unwrap()
        .0;
    assert_eq!(rooms.len(), 1, "one sandbox home");

    // Verifying again changes nothing, and the mailed link still signs in
    // once without a second sandbox.
    let (status, again) = call(&t, "POST", &path, Some(&staff), None).await;
    assert_eq!(status, 200);
    assert_eq!(again, verified);
    let link = newest_link(&t, email, "verify-email").unwrap();
    assert_eq!(t.http.get(&link).send().await.unwrap().status(), 200);
    assert_eq!(
        get_me(&t, access).await["sandboxTenantId"],
        sandbox.as_str()
    );

    // A suspended developer is not reactivated; an unknown one is 404.
    let suspended = seed_developer(
        &t,
        "suspended@example.com",
        DeveloperStatus::Suspended,
        time::OffsetDateTime::now_utc(),
    )
    .await;
    let (status, body) = call(
        &t,
        "POST",
        &format!("/developers/admin/developers/{suspended}/verify"),
        Some(&staff),
        None,
    )
    .await;
    assert_eq!(status, 409, "{body}");
    let stored = Developers(&*t.platform.store())
        .get(suspended)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.status, DeveloperStatus::Suspended);
    for unknown in ["0190a0a0-0000-7000-8000-000000000000", "nope"] {
        let (status, _) = call(
            &t,
            "POST",
            &format!("/developers/admin/developers/{unknown}/verify"),
            Some(&staff),
            None,
        )
        .await;
        assert_eq!(status, 404, "{unknown}");
    }
}

fn live_keys_path(developer_id: &str) -> String {
    format!("/developers/admin/developers/{developer_id}/live-keys")
}

/// The fields of the spec's Key object, sorted.
const KEY_FIELDS: [&str; 11] = [
    "createdAt",
    "definitionId",
    "expiresAt",
    "id",
    "kind",
    "lastUsedAt",
    "name",
    "prefix",
    "revokedAt",
    "rotatedFromId",
    "scopes",
];

fn sorted_fields(value: &Value) -> Vec<String> {
    let mut fields: Vec<String> = value.as_object().unwrap().keys().cloned().collect();
    fields.sort();
    fields
}

#[tokio::test]
async fn staff_issue_a_live_key_shown_once_that_reaches_no_household() {
    let t = TestPlatform::start().await;
    let principals = Principals::seed(&t).await;
    let staff = staff_token(&principals);
    let dev = sign_up_and_verify(&t, "live@example.com").await;
    let connector = approved_connector(&t, &staff, &dev).await;

    let (status, created) = call(
        &t,
        "POST",
        &live_keys_path(&dev.developer_id),
        Some(&staff),
        Some(json!({
            "name": "  Acme lights  ",
            "scopes": ["things:read", "things:control", "things:read"],
            "definitionId": connector,
            "expiresAt": "2999-01-01T00:00:00Z",
        })),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let mut with_secret: Vec<String> = KEY_FIELDS.iter().map(|f| f.to_string()).collect();
    with_secret.push("secret".into());
    with_secret.sort();
    assert_eq!(sorted_fields(&created), with_secret);
    let secret = created["secret"].as_str().unwrap().to_owned();
    let key_id = created["id"].as_str().unwrap().to_owned();
    // The one form of every key: the record, not the text, makes it LIVE.
    assert!(secret.starts_with("svc_dev_"), "{secret}");
    assert_eq!(secret.len(), "svc_dev_".len() + 43);
    assert_eq!(created["prefix"], secret[..12]);
    assert_eq!(created["kind"], "LIVE");
    assert_eq!(created["name"], "Acme lights");
    assert_eq!(created["definitionId"], connector.as_str());
    assert_eq!(created["scopes"], json!(["things:read", "things:control"]));
    assert_eq!(created["expiresAt"], "2999-01-01T00:00:00Z");
    for null in ["lastUsedAt", "revokedAt", "rotatedFromId"] {
        assert_eq!(created[null], Value::Null, "{null}");
    }

    // Stored only as its SHA-256.
    let stored = Developers(&*t.platform.store())
        .key(dev.developer_id.parse().unwrap(), key_id.parse().unwrap())
        .await
        .unwrap()
        .expect("stored");
    assert_eq!(stored.secret_hash, alyt_domain::secret::sha256_hex(&secret));
    let stored_json = serde_json::to_string(&stored).unwrap();
    assert!(!stored_json.contains(&secret[12..]), "{stored_json}");

    // The developer sees it among its keys, never its secret again.
    let (status, listed) = call(&t, "GET", "/developers/keys", Some(&dev.access_token), None).await;
    assert_eq!(status, 200);
    assert!(!listed.to_string().contains(&secret[12..]));
    let items = listed["items"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    let mut expected = created.clone();
    expected.as_object_mut().unwrap().remove("secret");
    assert_eq!(items[0], expected);
    // Nor does the admin list show it.
    let (_, developers) = call(
        &t,
        "GET",
        "/developers/admin/developers",
        Some(&staff),
        None,
    )
    .await;
    assert!(!developers.to_string().contains(&secret[12..]));

    // It authenticates as a LIVE key of its connector, reaching no tenant:
    // approval alone grants no household access (not even the sandbox).
    let (status, who) = call(&t, "GET", "/developers/whoami", Some(&secret), None).await;
    assert_eq!(status, 200, "{who}");
    assert_eq!(who["kind"], "key");
    assert_eq!(who["keyKind"], "LIVE");
    assert_eq!(who["keyId"], key_id.as_str());
    assert_eq!(who["developerId"], dev.developer_id.as_str());
    assert_eq!(who["definitionId"], connector.as_str());
    assert_eq!(who["scopes"], json!(["things:read", "things:control"]));
    assert_eq!(who["tenants"], json!([]));
    // A DEV key of the same developer reaches the sandbox, and names no definition.
    let (_, dev_secret) = create_key(&t, &dev, &["things:read"]).await;
    let (_, dev_who) = call(&t, "GET", "/developers/whoami", Some(&dev_secret), None).await;
    assert_eq!(dev_who["tenants"], json!([dev.sandbox_tenant_id]));
    assert_eq!(dev_who["definitionId"], Value::Null);
    // Through an app token it is the same principal.
    let response = app_token(&t, &key_id, &secret).await;
    assert_eq!(response.status(), 200);
    let token: Value = response.json().await.unwrap();
    let (_, via_token) = call(
        &t,
        "GET",
        "/developers/whoami",
        token["accessToken"].as_str(),
        None,
    )
    .await;
    assert_eq!(via_token, who);
    // Like every key, it manages no keys, and the admin surface is not there.
    let (status, _) = call(&t, "GET", "/developers/keys", Some(&secret), None).await;
    assert_eq!(status, 403);
    let (status, _) = call(
        &t,
        "POST",
        &live_keys_path(&dev.developer_id),
        Some(&secret),
        Some(json!({ "name": "x", "scopes": ["things:read"], "definitionId": connector })),
    )
    .await;
    assert_eq!(status, 404);

    // The developer rotates it: same id, kind and definition, the same form.
    let (status, rotated) = call(
        &t,
        "POST",
        &format!("/developers/keys/{key_id}/rotate"),
        Some(&dev.access_token),
        None,
    )
    .await;
    assert_eq!(status, 200, "{rotated}");
    let new_secret = rotated["secret"].as_str().unwrap().to_owned();
    assert!(new_secret.starts_with("svc_dev_"), "{new_secret}");
    assert_eq!(new_secret.len(), "svc_dev_".len() + 43);
    assert_ne!(new_secret, secret);
    assert_eq!(rotated["prefix"], new_secret[..12]);
    assert_eq!(rotated["id"], key_id.as_str());
    assert_eq!(rotated["kind"], "LIVE");
    assert_eq!(rotated["definitionId"], connector.as_str());
    let (status, _) = call(&t, "GET", "/developers/whoami", Some(&secret), None).await;
    assert_eq!(status, 401, "the old secret stops");
    let (status, who) = call(&t, "GET", "/developers/whoami", Some(&new_secret), None).await;
    assert_eq!(status, 200);
    assert_eq!(who["keyKind"], "LIVE");
    assert_eq!(who["tenants"], json!([]));

    // And revokes it.
    let (status, _) = call(
        &t,
        "DELETE",
        &format!("/developers/keys/{key_id}"),
        Some(&dev.access_token),
        None,
    )
    .await;
    assert_eq!(status, 204);
    let (status, _) = call(&t, "GET", "/developers/whoami", Some(&new_secret), None).await;
    assert_eq!(status, 401);
    let (_, listed) = call(&t, "GET", "/developers/keys", Some(&dev.access_token), None).await;
    let live = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["id"] == key_id.as_str())
        .unwrap()
        .clone();
    assert_eq!(live["kind"], "LIVE");
    assert!(live["revokedAt"].is_string());

    // The platform OWNER may issue too; no expiry is null.
    let by_owner = issue_live_key(
        &t,
        principals.token(Who::PlatformOwner).unwrap(),
        &dev.developer_id,
        &["events:read"],
        &connector,
    )
    .await;
    assert_eq!(by_owner["kind"], "LIVE");
    assert_eq!(by_owner["expiresAt"], Value::Null);
    assert_ne!(by_owner["id"], key_id.as_str());
}

/// A LIVE key issued while LIVE secrets were `svc_live_…` (a local database
/// from before) keeps working, looked up by its hash with its record's kind,
/// and its rotation gives it the one form.
#[tokio::test]
async fn a_live_key_from_before_the_one_form_keeps_its_svc_live_secret_until_rotated() {
    let t = TestPlatform::start().await;
    let (email, password) = t.owner();
    let staff = t.household_login(&email, &password).await["accessToken"]
        .as_str()
        .unwrap()
        .to_owned();
    let dev = sign_up_and_verify(&t, "legacy-live@example.com").await;
    let connector = approved_connector(&t, &staff, &dev).await;
    let issued = issue_live_key(&t, &staff, &dev.developer_id, &["things:read"], &connector).await;
    let key_id = issued["id"].as_str().unwrap().to_owned();
    // What such a database holds: the key's record with the hash of an old-form secret.
    let developers = Developers(&*t.platform.store());
    let record = developers
        .key(dev.developer_id.parse().unwrap(), key_id.parse().unwrap())
        .await
        .unwrap()
        .expect("stored");
    let legacy = format!("svc_live_{}", "L".repeat(43));
    developers
        .rotate_secret(
            &record,
            &alyt_domain::secret::sha256_hex(&legacy),
            &legacy[..13],
        )
        .await
        .unwrap();

    let (status, who) = call(&t, "GET", "/developers/whoami", Some(&legacy), None).await;
    assert_eq!(status, 200, "{who}");
    assert_eq!(who["keyKind"], "LIVE");
    assert_eq!(who["keyId"], key_id.as_str());
    assert_eq!(who["definitionId"], connector.as_str());
    // An old-form text names no key by itself.
    let unknown = format!("svc_live_{}", "U".repeat(43));
    assert_eq!(
        call(&t, "GET", "/developers/whoami", Some(&unknown), None)
            .await
            .0,
        401
    );

    let (status, rotated) = call(
        &t,
        "POST",
        &format!("/developers/keys/{key_id}/rotate"),
        Some(&dev.access_token),
        None,
    )
    .await;
    assert_eq!(status, 200, "{rotated}");
    let fresh = rotated["secret"].as_str().unwrap();
    assert!(fresh.starts_with("svc_dev_"), "{fresh}");
    assert_eq!(rotated["kind"], "LIVE");
    assert_eq!(
        call(&t, "GET", "/developers/whoami", Some(&legacy), None)
            .await
            .0,
        401
    );
    let (_, who) = call(&t, "GET", "/developers/whoami", Some(fresh), None).await;
    assert_eq!(who["keyKind"], "LIVE");
}

#[tokio::test]
async fn only_platform_owner_and_staff_issue_live_keys() {
    let t = TestPlatform::start().await;
    let principals = Principals::seed(&t).await;
    let target = principals.developer.developer_id.clone();
    let path = live_keys_path(&target);
    let acme = approved_connector(&t, &staff_token(&principals), &principals.developer).await;
    let good = json!({ "name": "connector", "scopes": ["things:read"], "definitionId": acme });
    let bad = json!({ "name": "connector", "scopes": ["nope"], "definitionId": acme });

    let not_a_path = call(
        &t,
        "GET",
        "/developers/admin/nothing-here",
        principals.token(Who::DevKey),
        None,
    )
    .await;
    assert_eq!(not_a_path.0, 404);
    let live_secret = issue_live_key(
        &t,
        &staff_token(&principals),
        &target,
        &["things:read"],
        &acme,
    )
    .await["secret"]
        .as_str()
        .unwrap()
        .to_owned();

    let mut callers: Vec<(String, Option<String>, u16)> = Who::ALL
        .iter()
        .map(|&who| {
            let expected = match who {
                Who::Anonymous
                | Who::Garbage
                | Who::ExpiredToken
                | Who::WrongKindToken
                | Who::RevokedKey => 401,
                Who::PlatformOwner | Who::PlatformStaff => 201,
                Who::PlatformSupport => 403,
                _ => 404,
            };
            (
                format!("{who:?}"),
                principals.token(who).map(str::to_owned),
                expected,
            )
        })
        .collect();
    callers.push(("LiveKey".into(), Some(live_secret), 404));

    let mut failures = Vec::new();
    for (name, token, expected) in &callers {
        // The caller is checked before the body: a bad body tells outsiders nothing.
        let (status, body) = call(&t, "POST", &path, token.as_deref(), Some(bad.clone())).await;
        let expected_bad = if *expected == 201 { 400 } else { *expected };
        if status != expected_bad {
            failures.push(format!("bad body as {name}: {status} {body}"));
        }
        let (status, body) = call(&t, "POST", &path, token.as_deref(), Some(good.clone())).await;
        if status != *expected {
            failures.push(format!("good body as {name}: {status} {body}"));
        }
        if status == 404 && body["detail"] != not_a_path.1["detail"] {
            failures.push(format!("404 as {name} differs from no path: {body}"));
        }
        if status == 201
            && body["secret"]
                .as_str()
                .is_none_or(|s| !s.starts_with("svc_dev_") || body["kind"] != "LIVE")
        {
            failures.push(format!("201 as {name} without a LIVE key: {body}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Exactly the staff-issued keys exist: the harness's own LIVE key, the
    // first one here, then OWNER's and STAFF's.
    let (_, listed) = call(
        &t,
        "GET",
        "/developers/keys",
        Some(&principals.developer.access_token),
        None,
    )
    .await;
    let live = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["kind"] == "LIVE")
        .count();
    assert_eq!(live, 4, "{listed}");
}

#[tokio::test]
async fn bad_live_key_requests_are_400_naming_the_field() {
    let t = TestPlatform::start().await;
    let principals = Principals::seed(&t).await;
    let staff = staff_token(&principals);
    let dev = sign_up_and_verify(&t, "picky@example.com").await;
    let path = live_keys_path(&dev.developer_id);
    let acme = approved_connector(&t, &staff, &dev).await;
    let others = approved_connector(&t, &staff, &principals.developer).await;

    let good = json!({ "name": "ci", "scopes": ["things:read"], "definitionId": acme });
    let with = |field: &str, value: Value| {
        let mut body = good.clone();
        body[field] = value;
        body
    };
    let without = |field: &str| {
        let mut body = good.clone();
        body.as_object_mut().unwrap().remove(field);
        body
    };
    let cases: Vec<(Value, &str)> = vec![
        (with("name", json!("")), "name"),
        (with("name", json!("   ")), "name"),
        (with("name", json!("x".repeat(81))), "name"),
        (with("name", json!(5)), "name"),
        (without("name"), "name"),
        (without("scopes"), "scopes"),
        (with("scopes", json!([])), "scopes"),
        (with("scopes", json!("things:read")), "scopes"),
        (with("scopes", json!([7])), "scopes[0]"),
        (
            with("scopes", json!(["things:read", "things:delete"])),
            "scopes[1]",
        ),
        (without("definitionId"), "definitionId"),
        (with("definitionId", json!("")), "definitionId"),
        (with("definitionId", json!("   ")), "definitionId"),
        (with("definitionId", json!("d".repeat(121))), "definitionId"),
        (with("definitionId", json!(42)), "definitionId"),
        (with("definitionId", Value::Null), "definitionId"),
        // Not a connector, no connector, or another developer's.
        (with("definitionId", json!("acme-lights")), "definitionId"),
        (
            with(
                "definitionId",
                json!("0190a0a0-0000-7000-8000-000000000000"),
            ),
            "definitionId",
        ),
        (with("definitionId", json!(others)), "definitionId"),
        (
            with("expiresAt", json!("2001-01-01T00:00:00Z")),
            "expiresAt",
        ),
        (with("expiresAt", json!("tomorrow")), "expiresAt"),
        (with("kind", json!("LIVE")), "kind"),
        (with("developerId", json!(dev.developer_id)), "developerId"),
    ];
    for (body, field) in cases {
        let (status, problem) = call(&t, "POST", &path, Some(&staff), Some(body.clone())).await;
        assert_eq!(status, 400, "{body}: {problem}");
        assert_eq!(problem["field"], field, "{body}: {problem}");
        assert_eq!(problem["status"], 400);
    }
    // An unknown scope is named.
    let (_, problem) = call(
        &t,
        "POST",
        &path,
        Some(&staff),
        Some(with("scopes", json!(["things:delete"]))),
    )
    .await;
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("things:delete"),
        "{problem}"
    );
    // Not JSON at all.
    let response = t
        .http
        .post(t.url(&path))
        .header("authorization", bearer(&staff))
        .body("name=ci")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 415);
    // Nothing was issued.
    let (_, listed) = call(&t, "GET", "/developers/keys", Some(&dev.access_token), None).await;
    assert_eq!(listed["items"], json!([]));

    // A connector of the developer with no approved version is 409: a
    // draft, a submission waiting and a rejected one alike.
    let unreviewed = create_connector(&t, &dev, "unreviewed", "http://127.0.0.1:9/").await;
    let unreviewed_body = with("definitionId", json!(unreviewed));
    let issue_unreviewed = || {
        call(
            &t,
            "POST",
            &path,
            Some(&staff),
            Some(unreviewed_body.clone()),
        )
    };
    let (status, body) = issue_unreviewed().await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["field"], "definitionId");
    let version = submit_version(&t, &dev, &unreviewed, "1.0.0").await["versionId"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        issue_unreviewed().await.0,
        409,
        "submitted, not yet approved"
    );
    let (status, body) = review(&t, &staff, &version, "reject", Some("It calls home.")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(issue_unreviewed().await.0, 409, "rejected");
    // Nothing was issued.
    let (_, listed) = call(&t, "GET", "/developers/keys", Some(&dev.access_token), None).await;
    assert_eq!(listed["items"], json!([]));

    // The approved connector's id is fine, trimmed.
    let (status, body) = call(
        &t,
        "POST",
        &path,
        Some(&staff),
        Some(with("definitionId", json!(format!(" {acme} ")))),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["definitionId"], acme.as_str());

    // Unknown and malformed developers are 404; one that is not ACTIVE is 409.
    for id in ["0190a0a0-0000-7000-8000-000000000000", "not-a-uuid"] {
        let (status, _) = call(
            &t,
            "POST",
            &live_keys_path(id),
            Some(&staff),
            Some(good.clone()),
        )
        .await;
        assert_eq!(status, 404, "{id}");
    }
    for (email, status) in [
        ("pending-live@example.com", DeveloperStatus::PendingEmail),
        ("suspended-live@example.com", DeveloperStatus::Suspended),
    ] {
        let id = seed_developer(&t, email, status, time::OffsetDateTime::now_utc()).await;
        let (answer, body) = call(
            &t,
            "POST",
            &live_keys_path(&id.to_string()),
            Some(&staff),
            Some(good.clone()),
        )
        .await;
        assert_eq!(answer, 409, "{status:?}: {body}");
        let keys = Developers(&*t.platform.store()).keys(id).await.unwrap();
        assert!(keys.is_empty(), "{status:?}");
    }
}

#[tokio::test]
async fn live_keys_count_towards_the_key_limit() {
    let t = TestPlatform::start().await;
    let principals = Principals::seed(&t).await;
    let staff = staff_token(&principals);
    let dev = sign_up_and_verify(&t, "many@example.com").await;
    let path = live_keys_path(&dev.developer_id);
    let acme = approved_connector(&t, &staff, &dev).await;
    let good = json!({ "name": "ci", "scopes": ["things:read"], "definitionId": acme });

    let limit = alyt_api::groups::developers::keys::MAX_LIVE_KEYS;
    let mut first = None;
    for _ in 0..limit - 1 {
        let (id, _) = create_key(&t, &dev, &["devices:read"]).await;
        first.get_or_insert(id);
    }
    let (status, body) = call(&t, "POST", &path, Some(&staff), Some(good.clone())).await;
    assert_eq!(status, 201, "the last one allowed: {body}");
    let (status, body) = call(&t, "POST", &path, Some(&staff), Some(good.clone())).await;
    assert_eq!(status, 409, "{body}");
    let (status, _) = call(
        &t,
        "POST",
        "/developers/keys",
        Some(&dev.access_token),
        Some(json!({ "name": "dev", "scopes": ["devices:read"] })),
    )
    .await;
    assert_eq!(status, 409, "a LIVE key counts against DEV keys too");
    // A revoked key frees a place.
    let (status, _) = call(
        &t,
        "DELETE",
        &format!("/developers/keys/{}", first.unwrap()),
        Some(&dev.access_token),
        None,
    )
    .await;
    assert_eq!(status, 204);
    let (status, body) = call(&t, "POST", &path, Some(&staff), Some(good)).await;
    assert_eq!(status, 201, "{body}");
}
