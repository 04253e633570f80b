//! Developer keys, rotation, revocation and app tokens over HTTP.

use alyt_tests::TestPlatform;
use alyt_tests::developers::{
    DeveloperSession, app_token, bearer, create_key, create_key_response, jwt_payload,
    sign_up_and_verify,
};
use serde_json::{Value, json};

async fn get(t: &TestPlatform, path: &str, token: &str) -> reqwest::Response {
    t.http
        .get(t.url(path))
        .header("authorization", bearer(token))
        .send()
        .await
        .unwrap()
}

async fn whoami(t: &TestPlatform, token: &str) -> (u16, Value) {
    let response = get(t, "/developers/whoami", token).await;
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

async fn post_keys(t: &TestPlatform, token: &str, body: Value) -> (u16, Value) {
    let response = t
        .http
        .post(t.url("/developers/keys"))
        .header("authorization", bearer(token))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

async fn rotate(t: &TestPlatform, dev: &DeveloperSession, key_id: &str) -> reqwest::Response {
    t.http
        .post(t.url(&format!("/developers/keys/{key_id}/rotate")))
        .header("authorization", dev.bearer())
        .send()
        .await
        .unwrap()
}

async fn revoke(t: &TestPlatform, dev: &DeveloperSession, key_id: &str) -> reqwest::Response {
    t.http
        .delete(t.url(&format!("/developers/keys/{key_id}")))
        .header("authorization", dev.bearer())
        .send()
        .await
        .unwrap()
}

async fn list(t: &TestPlatform, dev: &DeveloperSession, query: &str) -> (String, Value) {
    let response = get(t, &format!("/developers/keys{query}"), &dev.access_token).await;
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap();
    (text, body)
}

#[tokio::test]
async fn a_key_shows_its_secret_once_and_authenticates_as_itself() {
    let t = TestPlatform::start().await;
    let dev = sign_up_and_verify(&t, "ken@example.com").await;

    let created =
        create_key_response(&t, &dev, &["devices:read", "events:read", "devices:read"]).await;
    let secret = created["secret"].as_str().unwrap().to_owned();
    let key_id = created["id"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("svc_dev_"), "{secret}");
    assert_eq!(secret.len(), "svc_dev_".len() + 43);
    assert_eq!(created["prefix"], secret[..12]);
    assert_eq!(created["kind"], "DEV");
    assert_eq!(created["name"], "test key");
    assert_eq!(created["scopes"], json!(["devices:read", "events:read"]));
    for null in [
        "definitionId",
        "expiresAt",
        "lastUsedAt",
        "revokedAt",
        "rotatedFromId",
    ] {
        assert_eq!(created[null], Value::Null, "{null}");
    }
    assert!(created["createdAt"].is_string());

    // The list never shows the secret.
    let (text, listed) = list(&t, &dev, "").await;
    assert!(!text.contains(&secret));
    assert!(!text.contains(&secret[12..]));
    assert_eq!(listed["nextCursor"], Value::Null);
    let items = listed["items"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    let mut expected = created.clone();
    expected.as_object_mut().unwrap().remove("secret");
    assert_eq!(items[0], expected);

    // The secret is a bearer token: it acts as the key, in the sandbox.
    let (status, who) = whoami(&t, &secret).await;
    assert_eq!(status, 200, "{who}");
    assert_eq!(who["kind"], "key");
    assert_eq!(who["keyId"], key_id.as_str());
    assert_eq!(who["keyKind"], "DEV");
    assert_eq!(who["developerId"], dev.developer_id.as_str());
    assert_eq!(who["userId"], Value::Null);
    assert_eq!(who["scopes"], json!(["devices:read", "events:read"]));
    assert_eq!(who["tenants"], json!([dev.sandbox_tenant_id]));

    // Use is recorded (to the minute).
    let (_, listed) = list(&t, &dev, "").await;
    assert!(listed["items"][0]["lastUsedAt"].is_string());

    // Keys cannot manage keys or the account.
    assert_eq!(get(&t, "/developers/keys", &secret).await.status(), 403);
    assert_eq!(get(&t, "/developers/me", &secret).await.status(), 403);
    let (status, _) = post_keys(
        &t,
        &secret,
        json!({ "name": "x", "scopes": ["devices:read"] }),
    )
    .await;
    assert_eq!(status, 403);
    let response = t
        .http
        .post(t.url(&format!("/developers/keys/{key_id}/rotate")))
        .header("authorization", bearer(&secret))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);

    // A secret that was never issued is a 401.
    let (status, _) = whoami(&t, "svc_dev_notarealsecretnotarealsecretnotarealsec").await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn rotation_keeps_the_id_and_stops_the_old_secret_and_revocation_stops_all() {
    let t = TestPlatform::start().await;
    let dev = sign_up_and_verify(&t, "margaret@example.com").await;
    let (key_id, old_secret) = create_key(&t, &dev, &["devices:commands"]).await;

    let response = rotate(&t, &dev, &key_id).await;
    assert_eq!(response.status(), 200);
    let rotated: Value = response.json().await.unwrap();
    let new_secret = rotated["secret"].as_str().unwrap().to_owned();
    assert_eq!(rotated["id"], key_id.as_str());
    assert_ne!(new_secret, old_secret);
    assert!(new_secret.starts_with("svc_dev_"));
    assert_eq!(rotated["prefix"], new_secret[..12]);
    assert_eq!(rotated["scopes"], json!(["devices:commands"]));

    assert_eq!(whoami(&t, &old_secret).await.0, 401);
    let (status, who) = whoami(&t, &new_secret).await;
    assert_eq!(status, 200);
    assert_eq!(who["keyId"], key_id.as_str());
    // The list shows the new prefix and never the secret.
    let (text, listed) = list(&t, &dev, "").await;
    assert!(!text.contains(&new_secret));
    assert_eq!(listed["items"][0]["prefix"], new_secret[..12]);

    // Revocation (DELETE): the secret stops; the key stays listed as revoked.
    assert_eq!(revoke(&t, &dev, &key_id).await.status(), 204);
    assert_eq!(whoami(&t, &new_secret).await.0, 401);
    let (_, listed) = list(&t, &dev, "").await;
    assert!(listed["items"][0]["revokedAt"].is_string());
    // Revoking again is a no-op; a revoked key cannot be rotated.
    assert_eq!(revoke(&t, &dev, &key_id).await.status(), 204);
    assert_eq!(rotate(&t, &dev, &key_id).await.status(), 409);
}

#[tokio::test]
async fn another_developers_key_is_not_found() {
    let t = TestPlatform::start().await;
    let alice = sign_up_and_verify(&t, "alice@example.com").await;
    let bob = sign_up_and_verify(&t, "bob@example.com").await;
    let (alice_key, alice_secret) = create_key(&t, &alice, &["things:read"]).await;

    let unknown = "0190a0a0-0000-7000-8000-000000000000";
    let mut answers = Vec::new();
    for id in [alice_key.as_str(), unknown, "not-a-uuid"] {
        let response = rotate(&t, &bob, id).await;
        assert_eq!(response.status(), 404, "{id}");
        let body: Value = response.json().await.unwrap();
        answers.push(body["detail"].clone());
        assert_eq!(revoke(&t, &bob, id).await.status(), 404, "{id}");
    }
    assert!(answers.windows(2).all(|w| w[0] == w[1]), "{answers:?}");
    // Bob's list does not show it, and Alice's key still works.
    let (_, listed) = list(&t, &bob, "").await;
    assert_eq!(listed["items"], json!([]));
    assert_eq!(whoami(&t, &alice_secret).await.0, 200);
    // Keys reach only their own developer's sandbox.
    let (_, who) = whoami(&t, &alice_secret).await;
    assert_eq!(who["tenants"], json!([alice.sandbox_tenant_id]));
    assert_ne!(alice.sandbox_tenant_id, bob.sandbox_tenant_id);
}

#[tokio::test]
async fn bad_key_requests_are_400_naming_the_field() {
    let t = TestPlatform::start().await;
    let dev = sign_up_and_verify(&t, "lynn@example.com").await;
    let token = dev.access_token.clone();

    let (status, body) = post_keys(
        &t,
        &token,
        json!({ "name": "ci", "scopes": ["devices:read", "devices:delete"] }),
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(body["field"], "scopes[1]");
    assert!(
        body["detail"].as_str().unwrap().contains("devices:delete"),
        "{body}"
    );

    let past = "2001-01-01T00:00:00Z";
    let cases: Vec<(Value, &str)> = vec![
        (json!({ "name": "", "scopes": ["devices:read"] }), "name"),
        (json!({ "name": "   ", "scopes": ["devices:read"] }), "name"),
        (
            json!({ "name": "x".repeat(81), "scopes": ["devices:read"] }),
            "name",
        ),
        (json!({ "name": 5, "scopes": ["devices:read"] }), "name"),
        (json!({ "scopes": ["devices:read"] }), "name"),
        (json!({ "name": "ci" }), "scopes"),
        (json!({ "name": "ci", "scopes": [] }), "scopes"),
        (json!({ "name": "ci", "scopes": "devices:read" }), "scopes"),
        (json!({ "name": "ci", "scopes": [7] }), "scopes[0]"),
        (
            json!({ "name": "ci", "scopes": ["devices:read"], "expiresAt": past }),
            "expiresAt",
        ),
        (
            json!({ "name": "ci", "scopes": ["devices:read"], "expiresAt": "tomorrow" }),
            "expiresAt",
        ),
        (
            json!({ "name": "ci", "scopes": ["devices:read"], "kind": "SECRET" }),
            "kind",
        ),
        (
            json!({ "name": "ci", "scopes": ["devices:read"], "owner": "me" }),
            "owner",
        ),
    ];
    for (body, field) in cases {
        let (status, problem) = post_keys(&t, &token, body.clone()).await;
        assert_eq!(status, 400, "{body}: {problem}");
        assert_eq!(problem["field"], field, "{body}: {problem}");
    }
    // LIVE keys are not issued here.
    let (status, body) = post_keys(
        &t,
        &token,
        json!({ "name": "ci", "scopes": ["devices:read"], "kind": "LIVE" }),
    )
    .await;
    assert_eq!(status, 403, "{body}");
    // A future expiry is fine and shown.
    let (status, body) = post_keys(
        &t,
        &token,
        json!({ "name": "ci", "scopes": ["guests:write"], "expiresAt": "2999-01-01T00:00:00Z" }),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["expiresAt"], "2999-01-01T00:00:00Z");
    // Nothing else was created.
    let (_, listed) = list(&t, &dev, "").await;
    assert_eq!(listed["items"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn the_key_list_pages_with_a_cursor() {
    let t = TestPlatform::start().await;
    let dev = sign_up_and_verify(&t, "sophie@example.com").await;
    let mut ids = Vec::new();
    for _ in 0..3 {
        ids.push(create_key(&t, &dev, &["devices:read"]).await.0);
    }
    let (_, first) = list(&t, &dev, "?limit=2").await;
    let cursor = first["nextCursor"]
        .as_str()
        .expect("a next page")
        .to_owned();
    let (_, second) = list(&t, &dev, &format!("?limit=2&cursor={cursor}")).await;
    assert_eq!(second["nextCursor"], Value::Null);
    let seen: Vec<&str> = first["items"]
        .as_array()
        .unwrap()
        .iter()
        .chain(second["items"].as_array().unwrap())
        .map(|k| k["id"].as_str().unwrap())
        .collect();
    assert_eq!(seen, ids, "oldest first, each once");
    // Bad paging parameters are 400s.
    for (query, field) in [("?limit=0", "limit"), ("?cursor=garbage", "cursor")] {
        let response = get(&t, &format!("/developers/keys{query}"), &dev.access_token).await;
        assert_eq!(response.status(), 400, "{query}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["field"], field);
    }
    // Another developer's cursor reads nothing of theirs.
    let other = sign_up_and_verify(&t, "other@example.com").await;
    let response = get(
        &t,
        &format!("/developers/keys?cursor={cursor}"),
        &other.access_token,
    )
    .await;
    assert_eq!(response.status(), 400);
}

#[tokio::test]
async fn app_tokens_last_five_minutes_and_act_as_the_key() {
    let t = TestPlatform::start().await;
    let dev = sign_up_and_verify(&t, "grace.h@example.com").await;
    let (key_id, secret) = create_key(&t, &dev, &["things:read", "things:control"]).await;
    let (other_id, _) = create_key(&t, &dev, &["things:read"]).await;

    let response = app_token(&t, &key_id, &secret).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["tokenType"], "Bearer");
    assert_eq!(body["expiresIn"], 300);
    let token = body["accessToken"].as_str().unwrap().to_owned();
    let claims = jwt_payload(&token);
    assert_eq!(
        claims["exp"].as_i64().unwrap() - claims["iat"].as_i64().unwrap(),
        300
    );
    assert_eq!(claims["aud"], "alyt:app");
    assert_eq!(claims["sub"], key_id.as_str());
    assert!(!token.contains(&secret));

    // The app token is the same principal as the key.
    let (status, via_token) = whoami(&t, &token).await;
    assert_eq!(status, 200);
    let (_, via_secret) = whoami(&t, &secret).await;
    assert_eq!(via_token, via_secret);
    assert_eq!(via_token["kind"], "key");
    // And, like the key, it cannot manage keys.
    assert_eq!(get(&t, "/developers/keys", &token).await.status(), 403);

    // Wrong pairs: all the same 401.
    let mut answers = Vec::new();
    for (id, presented) in [
        (
            key_id.as_str(),
            "svc_dev_wrongwrongwrongwrongwrongwrongwrongwron",
        ),
        (other_id.as_str(), secret.as_str()),
        ("0190a0a0-0000-7000-8000-000000000000", secret.as_str()),
        (key_id.as_str(), ""),
    ] {
        let response = app_token(&t, id, presented).await;
        assert_eq!(response.status(), 401, "{id}");
        let body: Value = response.json().await.unwrap();
        answers.push((body["type"].clone(), body["detail"].clone()));
    }
    assert!(answers.windows(2).all(|w| w[0] == w[1]), "{answers:?}");
    // Malformed requests are 400s naming the field.
    let response = t
        .http
        .post(t.url("/developers/apps/token"))
        .json(&json!({ "appId": "nope", "appSecret": secret }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["field"], "appId");
    let response = t
        .http
        .post(t.url("/developers/apps/token"))
        .json(&json!({ "appId": key_id }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["field"], "appSecret");

    // Rotation: the old secret no longer exchanges; the new one does, same App ID.
    let rotated: Value = rotate(&t, &dev, &key_id).await.json().await.unwrap();
    let new_secret = rotated["secret"].as_str().unwrap();
    assert_eq!(app_token(&t, &key_id, &secret).await.status(), 401);
    let response = app_token(&t, &key_id, new_secret).await;
    assert_eq!(response.status(), 200);

    // Revocation stops the key's app tokens at once, and the exchange.
    assert_eq!(revoke(&t, &dev, &key_id).await.status(), 204);
    assert_eq!(whoami(&t, &token).await.0, 401);
    assert_eq!(app_token(&t, &key_id, new_secret).await.status(), 401);
}
