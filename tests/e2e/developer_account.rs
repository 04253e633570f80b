//! Developer sign-up, verification, sessions and MFA over HTTP.

use alyt_store::repo::tenancy::Tenancy;
use alyt_tests::TestPlatform;
use alyt_tests::developers::{
    self, PASSWORD, bearer, fresh_code, get_me, jwt_payload, login, mails_to, newest_link,
    post_json, sign_up, sign_up_and_verify, sign_up_body, token_of, wait_for_link,
};
use serde_json::{Value, json};

async fn problem(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let body: Value = response.json().await.unwrap();
    (status, body)
}

async fn status_of_me(t: &TestPlatform, access_token: &str) -> u16 {
    t.http
        .get(t.url("/developers/me"))
        .header("authorization", bearer(access_token))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test]
async fn the_posted_token_verifies_like_the_link_and_only_once() {
    let t = TestPlatform::start().await;
    let email = "posted@example.com";
    assert_eq!(sign_up(&t, email, PASSWORD).await.status(), 202);
    let link = newest_link(&t, email, "verify-email").expect("a verification mail");
    let token = token_of(&link);

    // An app that reads the token from the link and posts it.
    let response = post_json(
        &t,
        "/developers/auth/verify-email",
        &json!({ "token": token }),
    )
    .await;
    assert_eq!(response.status(), 200);
    let session: Value = response.json().await.unwrap();
    assert_eq!(session["kind"], "developer");
    let me = get_me(&t, session["accessToken"].as_str().unwrap()).await;
    assert_eq!(me["status"], "ACTIVE");
    assert_eq!(me["email"], email);
    assert!(me["verifiedAt"].is_string());
    assert!(me["sandboxTenantId"].is_string(), "{me}");

    // Spent: the link and the posted token both answer 410 now.
    assert_eq!(t.http.get(&link).send().await.unwrap().status(), 410);
    let again = post_json(
        &t,
        "/developers/auth/verify-email",
        &json!({ "token": token }),
    )
    .await;
    assert_eq!(again.status(), 410);
}

#[tokio::test]
async fn sign_up_mails_a_link_that_verifies_once_and_provisions_the_sandbox() {
    let t = TestPlatform::start().await;
    let email = "ada@example.com";
    let response = sign_up(&t, email, PASSWORD).await;
    assert_eq!(response.status(), 202);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body, json!({ "status": "PENDING_EMAIL" }));

    let link = newest_link(&t, email, "verify-email").expect("a verification mail");
    assert!(
        link.starts_with(&t.url("/developers/auth/verify-email?token=")),
        "{link}"
    );
    assert!(token_of(&link).len() >= 43, "at least 256 bits");

    // Clicking the link verifies and signs in.
    let response = t.http.get(&link).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let session: Value = response.json().await.unwrap();
    assert_eq!(session["kind"], "developer");
    assert!(session["expiresIn"].as_i64().unwrap() > 0);
    let access = session["accessToken"].as_str().unwrap();
    assert!(session["refreshToken"].as_str().unwrap().len() > 20);

    let me = get_me(&t, access).await;
    assert_eq!(me["status"], "ACTIVE");
    assert_eq!(me["email"], email);
    assert_eq!(me["type"], "INDIVIDUAL");
    assert_eq!(me["displayName"], "Test Developer");
    assert_eq!(me["organisation"], Value::Null);
    assert_eq!(me["website"], Value::Null);
    assert_eq!(me["mfaEnabledAt"], Value::Null);
    assert!(me["verifiedAt"].is_string());
    assert!(me["createdAt"].is_string());
    let mut fields: Vec<&str> = me.as_object().unwrap().keys().map(String::as_str).collect();
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
    let sandbox = me["sandboxTenantId"].as_str().expect("a sandbox tenant");

    // The session's claims: ADMIN of the sandbox tenant, OWNER of its household.
    let claims = jwt_payload(access);
    assert_eq!(claims["tenants"][sandbox], "ADMIN");
    let clients = claims["clients"].as_object().unwrap();
    assert_eq!(clients.len(), 1);
    let grant = clients.values().next().unwrap();
    assert_eq!(grant["role"], "OWNER");
    assert_eq!(grant["tenantId"], sandbox);

    // Beneath the API: one sandbox tenant in the X band, one home, four rooms.
    let store = t.platform.store();
    let tenancy = Tenancy(&*store);
    let tenant = tenancy
        .tenant(sandbox.parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    assert!(tenant.sandbox);
    assert_eq!(tenant.code.len(), 8);
    assert!(tenant.code.starts_with('X'), "{}", tenant.code);
    assert!(
        tenant.code[1..]
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
    );
    let (homes, _) = tenancy.properties(tenant.id, 10, None).await.unwrap();
    assert_eq!(homes.len(), 1);
    assert_eq!(homes[0].name, "Sandbox home");
    assert_eq!(homes[0].timezone, "UTC");
    let mut rooms: Vec<String> = tenancy
        .rooms(homes[0].id)
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.name)
        .collect();
    rooms.sort();
    assert_eq!(rooms, ["Bedroom", "Kitchen", "Living Room", "Office"]);

    // The link works once; a spent link and a garbage token get the same 410.
    let (status, spent) = problem(t.http.get(&link).send().await.unwrap()).await;
    assert_eq!(status, 410);
    let (status, again) = problem(
        post_json(
            &t,
            "/developers/auth/verify-email",
            &json!({ "token": token_of(&link) }),
        )
        .await,
    )
    .await;
    assert_eq!(status, 410);
    let (status, garbage) = problem(
        post_json(
            &t,
            "/developers/auth/verify-email",
            &json!({ "token": "garbage-token-that-was-never-issued" }),
        )
        .await,
    )
    .await;
    assert_eq!(status, 410);
    for other in [&again, &garbage] {
        assert_eq!(other["detail"], spent["detail"]);
        assert_eq!(other["type"], spent["type"]);
    }
    // Still exactly one sandbox.
    assert_eq!(get_me(&t, access).await["sandboxTenantId"], sandbox);

    // A missing token is a 400 naming it.
    let (status, body) = problem(
        t.http
            .get(t.url("/developers/auth/verify-email"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!((status, body["field"].as_str()), (400, Some("token")));

    // The session is a developer session: whoami says so.
    let who: Value = t
        .http
        .get(t.url("/developers/whoami"))
        .header("authorization", bearer(access))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(who["kind"], "session");
    assert_eq!(who["developerId"], me["id"]);
    assert_eq!(who["tenants"], json!([sandbox]));
}

#[tokio::test]
async fn bad_sign_ups_are_400_naming_the_field() {
    let t = TestPlatform::start().await;
    let good = sign_up_body("grace@example.com", PASSWORD);
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
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "short password",
            with("password", json!("short")),
            "password",
        ),
        (
            "common password",
            with("password", json!("Password1234")),
            "password",
        ),
        (
            "trivial password",
            with("password", json!("aaaaaaaaaaaaaaaa")),
            "password",
        ),
        (
            "password with the address",
            with("password", json!("my grace password")),
            "password",
        ),
        ("bad email", with("email", json!("not-an-address")), "email"),
        (
            "email without domain dot",
            with("email", json!("grace@localhost")),
            "email",
        ),
        (
            "wrong bot token",
            with("botToken", json!("not-a-human")),
            "botToken",
        ),
        ("missing password", without("password"), "password"),
        ("missing email", without("email"), "email"),
        ("missing displayName", without("displayName"), "displayName"),
        ("missing type", without("type"), "type"),
        ("missing botToken", without("botToken"), "botToken"),
        ("email of the wrong type", with("email", json!(42)), "email"),
        (
            "displayName of the wrong type",
            with("displayName", json!(["x"])),
            "displayName",
        ),
        ("unknown type", with("type", json!("ROBOT")), "type"),
        (
            "empty displayName",
            with("displayName", json!("  ")),
            "displayName",
        ),
        (
            "long displayName",
            with("displayName", json!("x".repeat(81))),
            "displayName",
        ),
        (
            "bad website",
            with("website", json!("example.com")),
            "website",
        ),
        (
            "organisation of the wrong type",
            with("organisation", json!(7)),
            "organisation",
        ),
        ("unknown field", with("admin", json!(true)), "admin"),
    ];
    for (case, body, field) in cases {
        let (status, problem) =
            problem(post_json(&t, "/developers/auth/signup", &body).await).await;
        assert_eq!(status, 400, "{case}: {problem}");
        assert_eq!(problem["field"], field, "{case}: {problem}");
        assert!(!problem["detail"].as_str().unwrap().is_empty(), "{case}");
    }
    // The policy message is in the detail.
    let (_, weak) = problem(
        post_json(
            &t,
            "/developers/auth/signup",
            &with("password", json!("short")),
        )
        .await,
    )
    .await;
    assert!(
        weak["detail"].as_str().unwrap().contains("at least 12"),
        "{weak}"
    );
    // Not JSON at all, and JSON that is not an object.
    let response = t
        .http
        .post(t.url("/developers/auth/signup"))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    let (status, _) = problem(post_json(&t, "/developers/auth/signup", &json!([1, 2])).await).await;
    assert_eq!(status, 400);
    // Nothing of the above was created or mailed.
    assert!(developers::outbox(&t).is_empty());
}

#[tokio::test]
async fn a_registered_address_gets_the_same_answer_and_a_notice_instead() {
    let t = TestPlatform::start().await;
    let dev = sign_up_and_verify(&t, "alan@example.com").await;

    // Again, with other case and another password: the same 202.
    let response = sign_up(&t, "Alan@Example.com", "another long passphrase").await;
    assert_eq!(response.status(), 202);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body, json!({ "status": "PENDING_EMAIL" }));
    let mails = mails_to(&t, "alan@example.com");
    assert_eq!(mails.len(), 2, "the verification and the notice");
    let notice = mails.last().unwrap();
    assert!(
        notice.subject.contains("already have"),
        "{}",
        notice.subject
    );
    assert!(notice.link("verify-email").is_none());

    // No second account: the first password still signs in, the second does not.
    assert_eq!(login(&t, &dev.email, PASSWORD, None).await.status(), 200);
    assert_eq!(
        login(&t, &dev.email, "another long passphrase", None)
            .await
            .status(),
        401
    );
    assert_eq!(
        get_me(&t, &dev.access_token).await["id"],
        dev.developer_id.as_str()
    );
}

#[tokio::test]
async fn signing_up_again_before_verifying_replaces_the_pending_sign_up() {
    let t = TestPlatform::start().await;
    let email = "joan@example.com";
    assert_eq!(
        sign_up(&t, email, "first long passphrase").await.status(),
        202
    );
    let first = newest_link(&t, email, "verify-email").unwrap();
    // Before verification sign-in is refused with 403 (the password was right).
    let (status, body) = problem(login(&t, email, "first long passphrase", None).await).await;
    assert_eq!(status, 403, "{body}");
    assert!(
        body["detail"].as_str().unwrap().contains("verify"),
        "{body}"
    );

    assert_eq!(
        sign_up(&t, email, "second long passphrase").await.status(),
        202
    );
    let second = newest_link(&t, email, "verify-email").unwrap();
    assert_ne!(first, second);
    // Only the newest link works, and it activates the newest password.
    assert_eq!(t.http.get(&first).send().await.unwrap().status(), 410);
    assert_eq!(t.http.get(&second).send().await.unwrap().status(), 200);
    assert_eq!(
        login(&t, email, "first long passphrase", None)
            .await
            .status(),
        401
    );
    assert_eq!(
        login(&t, email, "second long passphrase", None)
            .await
            .status(),
        200
    );
}

#[tokio::test]
async fn login_answers_alike_for_unknown_and_wrong_and_locks_after_ten_failures() {
    let t = TestPlatform::start().await;
    let dev = sign_up_and_verify(&t, "edsger@example.com").await;

    let response = login(&t, &dev.email, PASSWORD, None).await;
    assert_eq!(response.status(), 200);
    let session: Value = response.json().await.unwrap();
    assert_eq!(session["kind"], "developer");
    // A session token says nothing of its kind: its session does.
    let claims = jwt_payload(session["accessToken"].as_str().unwrap());
    assert!(claims.get("aud").is_none(), "{claims}");

    let (status, wrong) =
        problem(login(&t, &dev.email, "not the password at all", None).await).await;
    assert_eq!(status, 401);
    let (status, unknown) = problem(login(&t, "nobody@example.com", PASSWORD, None).await).await;
    assert_eq!(status, 401);
    assert_eq!(wrong["detail"], unknown["detail"]);
    assert_eq!(wrong["type"], unknown["type"]);
    assert_eq!(wrong["title"], unknown["title"]);

    // Missing and wrong-typed fields are 400s naming them.
    let (status, body) =
        problem(post_json(&t, "/developers/auth/login", &json!({ "email": dev.email })).await)
            .await;
    assert_eq!((status, body["field"].as_str()), (400, Some("password")));
    let (status, body) = problem(
        post_json(
            &t,
            "/developers/auth/login",
            &json!({ "email": dev.email, "password": 12 }),
        )
        .await,
    )
    .await;
    assert_eq!((status, body["field"].as_str()), (400, Some("password")));

    // One failure so far; nine more are still answered 401, the eleventh is 429.
    for _ in 0..9 {
        assert_eq!(
            login(&t, &dev.email, "not the password at all", None)
                .await
                .status(),
            401
        );
    }
    let response = login(&t, &dev.email, "not the password at all", None).await;
    assert_eq!(response.status(), 429);
    let retry_after: u64 = response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=900).contains(&retry_after));
    // Locked for the window, even with the right password; other addresses are not.
    assert_eq!(login(&t, &dev.email, PASSWORD, None).await.status(), 429);
    assert_eq!(
        login(&t, "someone.else@example.com", PASSWORD, None)
            .await
            .status(),
        401
    );
}

#[tokio::test]
async fn refresh_rotates_and_reuse_revokes_the_session() {
    let t = TestPlatform::start().await;
    let dev = sign_up_and_verify(&t, "barbara@example.com").await;
    let refresh = |token: String| {
        let t = &t;
        async move {
            post_json(
                t,
                "/developers/auth/refresh",
                &json!({ "refreshToken": token }),
            )
            .await
        }
    };

    let response = refresh(dev.refresh_token.clone()).await;
    assert_eq!(response.status(), 200);
    let second: Value = response.json().await.unwrap();
    assert_eq!(second["kind"], "developer");
    let second_refresh = second["refreshToken"].as_str().unwrap().to_owned();
    let second_access = second["accessToken"].as_str().unwrap().to_owned();
    assert_ne!(second_refresh, dev.refresh_token);
    assert_eq!(status_of_me(&t, &second_access).await, 200);

    // Reusing the rotated token: 401, and the whole session is revoked.
    assert_eq!(refresh(dev.refresh_token.clone()).await.status(), 401);
    assert_eq!(refresh(second_refresh).await.status(), 401);
    assert_eq!(status_of_me(&t, &second_access).await, 401);
    assert_eq!(status_of_me(&t, &dev.access_token).await, 401);

    // Garbage and missing refresh tokens.
    assert_eq!(refresh("rt_garbage".into()).await.status(), 401);
    let (status, body) = problem(post_json(&t, "/developers/auth/refresh", &json!({})).await).await;
    assert_eq!(
        (status, body["field"].as_str()),
        (400, Some("refreshToken"))
    );
}

#[tokio::test]
async fn logout_and_change_password_end_sessions() {
    let t = TestPlatform::start().await;
    let dev = sign_up_and_verify(&t, "radia@example.com").await;

    // Logout ends this session only.
    let other: Value = login(&t, &dev.email, PASSWORD, None)
        .await
        .json()
        .await
        .unwrap();
    let other_access = other["accessToken"].as_str().unwrap().to_owned();
    let response = t
        .http
        .post(t.url("/developers/auth/logout"))
        .header("authorization", dev.bearer())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 204);
    assert_eq!(status_of_me(&t, &dev.access_token).await, 401);
    assert_eq!(
        post_json(
            &t,
            "/developers/auth/refresh",
            &json!({ "refreshToken": dev.refresh_token })
        )
        .await
        .status(),
        401
    );
    assert_eq!(status_of_me(&t, &other_access).await, 200);
    // Without a token: 401.
    let response = t
        .http
        .post(t.url("/developers/auth/logout"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);

    // Change password: wrong current, refused new, then done.
    let change = |body: Value| {
        let t = &t;
        let auth = bearer(&other_access);
        async move {
            t.http
                .post(t.url("/developers/auth/change-password"))
                .header("authorization", auth)
                .json(&body)
                .send()
                .await
                .unwrap()
        }
    };
    let (status, body) = problem(
        change(json!({ "currentPassword": "wrong wrong wrong", "newPassword": "brand new passphrase" }))
            .await,
    )
    .await;
    assert_eq!(
        (status, body["field"].as_str()),
        (400, Some("currentPassword"))
    );
    let (status, body) =
        problem(change(json!({ "currentPassword": PASSWORD, "newPassword": "short" })).await).await;
    assert_eq!((status, body["field"].as_str()), (400, Some("newPassword")));
    let (status, body) = problem(change(json!({ "currentPassword": PASSWORD })).await).await;
    assert_eq!((status, body["field"].as_str()), (400, Some("newPassword")));

    let third: Value = login(&t, &dev.email, PASSWORD, None)
        .await
        .json()
        .await
        .unwrap();
    let third_access = third["accessToken"].as_str().unwrap().to_owned();
    let response =
        change(json!({ "currentPassword": PASSWORD, "newPassword": "brand new passphrase" })).await;
    assert_eq!(response.status(), 200);
    let fresh: Value = response.json().await.unwrap();
    assert_eq!(fresh["kind"], "developer");
    // Every older session is signed out; the fresh one works.
    assert_eq!(status_of_me(&t, &other_access).await, 401);
    assert_eq!(status_of_me(&t, &third_access).await, 401);
    assert_eq!(
        status_of_me(&t, fresh["accessToken"].as_str().unwrap()).await,
        200
    );
    assert_eq!(login(&t, &dev.email, PASSWORD, None).await.status(), 401);
    assert_eq!(
        login(&t, &dev.email, "brand new passphrase", None)
            .await
            .status(),
        200
    );
}

#[tokio::test]
async fn forgot_and_reset_password_through_the_mailed_link_once() {
    let t = TestPlatform::start().await;
    let dev = sign_up_and_verify(&t, "frances@example.com").await;
    let mails_before = developers::outbox(&t).len();

    // An unknown address: the same 202, and no mail.
    let response = post_json(
        &t,
        "/developers/auth/forgot-password",
        &json!({ "email": "nobody@example.com" }),
    )
    .await;
    assert_eq!(response.status(), 202);

    // A known one: the mail leaves after the response and lands in the outbox.
    let response = post_json(
        &t,
        "/developers/auth/forgot-password",
        &json!({ "email": "Frances@example.com" }),
    )
    .await;
    assert_eq!(response.status(), 202);
    let link = wait_for_link(&t, &dev.email, "reset-password")
        .await
        .expect("a reset mail");
    // The unknown address's request sent nothing: one mail in all.
    assert_eq!(developers::outbox(&t).len(), mails_before + 1);
    // The console's reset page, beside the API, for a developer.
    assert!(
        link.starts_with(&format!(
            "{}/reset-password?token=",
            t.url("").trim_end_matches("/v1")
        )) && link.ends_with("&side=developer"),
        "{link}"
    );
    let token = token_of(&link);
    let reset = |body: Value| {
        let t = &t;
        async move { post_json(t, "/developers/auth/reset-password", &body).await }
    };

    // Too short a token; a refused password (the link is not spent by it).
    let (status, body) =
        problem(reset(json!({ "token": "short", "password": "brand new passphrase" })).await).await;
    assert_eq!((status, body["field"].as_str()), (400, Some("token")));
    let (status, body) = problem(reset(json!({ "token": token, "password": "short" })).await).await;
    assert_eq!((status, body["field"].as_str()), (400, Some("password")));

    let response = reset(json!({ "token": token, "password": "brand new passphrase" })).await;
    assert_eq!(response.status(), 204);
    // Sessions from before are signed out; the old password is gone.
    assert_eq!(status_of_me(&t, &dev.access_token).await, 401);
    assert_eq!(login(&t, &dev.email, PASSWORD, None).await.status(), 401);
    assert_eq!(
        login(&t, &dev.email, "brand new passphrase", None)
            .await
            .status(),
        200
    );
    // Once only: the same link again, and an unknown token, are the same 410.
    let (status, spent) =
        problem(reset(json!({ "token": token, "password": "another new passphrase" })).await).await;
    assert_eq!(status, 410);
    let (status, unknown) = problem(
        reset(
            json!({ "token": "0123456789abcdef0123456789", "password": "another new passphrase" }),
        )
        .await,
    )
    .await;
    assert_eq!(status, 410);
    assert_eq!(spent["detail"], unknown["detail"]);
}

/// A client whose requests leave from loopback address 127.0.1.`n`.
fn from_address(n: u8) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(std::net::IpAddr::from([127, 0, 1, n]))
        .build()
        .unwrap()
}

async fn login_from(t: &TestPlatform, n: u8, email: &str, password: &str) -> reqwest::Response {
    from_address(n)
        .post(t.url("/developers/auth/login"))
        .json(&json!({ "email": email, "password": password }))
        .send()
        .await
        .unwrap()
}

/// A botnet spreads a hundred wrong passwords over twenty-five addresses,
/// four each (far under one address's ten): the account is capped across
/// them, so even the right password from a fresh address is refused, until
/// the owner resets it through the mailed link and signs in at once.
#[tokio::test]
async fn guesses_spread_over_many_addresses_lock_the_account_until_a_reset_by_mail() {
    let t = TestPlatform::start().await;
    let dev = sign_up_and_verify(&t, "grace@example.com").await;
    let mut guesses = tokio::task::JoinSet::new();
    for n in 1..=25u8 {
        let (url, email) = (t.url("/developers/auth/login"), dev.email.clone());
        guesses.spawn(async move {
            let client = from_address(n);
            let mut statuses = Vec::new();
            for guess in 0..4 {
                let body = json!({ "email": email, "password": format!("guess {n} {guess}") });
                let response = client.post(&url).json(&body).send().await.unwrap();
                statuses.push(response.status().as_u16());
            }
            statuses
        });
    }
    let statuses: Vec<u16> = guesses.join_all().await.concat();
    assert_eq!(statuses, vec![401; 100], "each guess was checked once");

    let response = login_from(&t, 100, &dev.email, PASSWORD).await;
    assert_eq!(response.status(), 429, "the right password waits too");
    let retry_after: u64 = response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=900).contains(&retry_after), "{retry_after}");
    let (_, body) = problem(response).await;
    assert_eq!(body["type"], "urn:alyt:problem:too-many-attempts", "{body}");
    let detail = body["detail"].as_str().unwrap();
    assert!(
        detail.contains("this account from many addresses"),
        "{detail}"
    );
    assert!(detail.contains("reset the password by mail"), "{detail}");

    let response = post_json(
        &t,
        "/developers/auth/forgot-password",
        &json!({ "email": dev.email }),
    )
    .await;
    assert_eq!(response.status(), 202);
    let link = wait_for_link(&t, &dev.email, "reset-password")
        .await
        .expect("a reset mail");
    let response = post_json(
        &t,
        "/developers/auth/reset-password",
        &json!({ "token": token_of(&link), "password": "brand new passphrase" }),
    )
    .await;
    assert_eq!(
        response.status(),
        204,
        "the link is not held back by the cap"
    );
    // Signed in at once, from the fresh address and from one the guesses
    // came from.
    let response = login_from(&t, 100, &dev.email, "brand new passphrase").await;
    assert_eq!(response.status(), 200);
    let response = login_from(&t, 1, &dev.email, "brand new passphrase").await;
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn mfa_with_totp_codes_accepted_once() {
    let t = TestPlatform::start().await;
    let dev = sign_up_and_verify(&t, "hedy@example.com").await;
    let call = |path: &'static str, body: Option<Value>| {
        let t = &t;
        let auth = dev.bearer();
        async move {
            let request = t.http.post(t.url(path)).header("authorization", auth);
            match body {
                Some(body) => request.json(&body),
                None => request,
            }
            .send()
            .await
            .unwrap()
        }
    };

    // Enabling before setup is a conflict.
    let response = call(
        "/developers/auth/mfa/enable",
        Some(json!({ "code": "123456" })),
    )
    .await;
    assert_eq!(response.status(), 409);

    let response = call("/developers/auth/mfa/setup", None).await;
    assert_eq!(response.status(), 200);
    let setup: Value = response.json().await.unwrap();
    let secret = setup["secret"].as_str().unwrap().to_owned();
    let uri = setup["otpauthUri"].as_str().unwrap();
    assert!(uri.starts_with("otpauth://totp/"), "{uri}");
    assert!(uri.contains(&format!("secret={secret}")), "{uri}");
    assert!(secret.len() >= 32, "at least 160 bits");

    // Codes are 6 digits; a wrong one is refused.
    for bad in ["12345", "1234567", "abcdef", ""] {
        let (status, body) =
            problem(call("/developers/auth/mfa/enable", Some(json!({ "code": bad }))).await).await;
        assert_eq!(
            (status, body["field"].as_str()),
            (400, Some("code")),
            "{bad}"
        );
    }
    let mut last = None;
    let good = fresh_code(&secret, &mut last).await;
    let wrong = format!("{:06}", (good.parse::<u32>().unwrap() + 1) % 1_000_000);
    let (status, body) = problem(
        call(
            "/developers/auth/mfa/enable",
            Some(json!({ "code": wrong })),
        )
        .await,
    )
    .await;
    assert_eq!((status, body["field"].as_str()), (400, Some("code")));

    let response = call("/developers/auth/mfa/enable", Some(json!({ "code": good }))).await;
    assert_eq!(response.status(), 204);
    assert!(get_me(&t, &dev.access_token).await["mfaEnabledAt"].is_string());
    // Setting up again while on is a conflict.
    assert_eq!(call("/developers/auth/mfa/setup", None).await.status(), 409);

    // Sign-in now needs the code.
    let (status, body) = problem(login(&t, &dev.email, PASSWORD, None).await).await;
    assert_eq!(status, 401);
    assert_eq!(body["field"], "totp");
    assert!(body["detail"].as_str().unwrap().contains("TOTP"), "{body}");
    // The code used to enable is spent.
    assert_eq!(
        login(&t, &dev.email, PASSWORD, Some(&good)).await.status(),
        401
    );

    let code = fresh_code(&secret, &mut last).await;
    let response = login(&t, &dev.email, PASSWORD, Some(&code)).await;
    assert_eq!(response.status(), 200);
    let session: Value = response.json().await.unwrap();
    assert_eq!(session["kind"], "developer");
    // The same code again (same step): refused, it is used once.
    let (status, body) = problem(login(&t, &dev.email, PASSWORD, Some(&code)).await).await;
    assert_eq!(status, 401);
    assert_eq!(body["field"], "totp");
    // A malformed code is a 400.
    let (status, _) = problem(login(&t, &dev.email, PASSWORD, Some("12ab")).await).await;
    assert_eq!(status, 400);

    // Disabling needs a fresh code.
    let (status, _) = problem(
        call(
            "/developers/auth/mfa/disable",
            Some(json!({ "code": code })),
        )
        .await,
    )
    .await;
    assert_eq!(status, 400);
    let fresh = fresh_code(&secret, &mut last).await;
    let response = call(
        "/developers/auth/mfa/disable",
        Some(json!({ "code": fresh })),
    )
    .await;
    assert_eq!(response.status(), 204);
    assert_eq!(
        get_me(&t, &dev.access_token).await["mfaEnabledAt"],
        Value::Null
    );
    assert_eq!(login(&t, &dev.email, PASSWORD, None).await.status(), 200);
    // Disabling again: not on.
    assert_eq!(
        call(
            "/developers/auth/mfa/disable",
            Some(json!({ "code": "000000" }))
        )
        .await
        .status(),
        409
    );
}

#[tokio::test]
async fn account_operations_refuse_keys_and_household_tokens() {
    let t = TestPlatform::start().await;
    let dev = sign_up_and_verify(&t, "katherine@example.com").await;
    let (_, secret) = developers::create_key(&t, &dev, &["devices:read"]).await;
    for (method, path) in [
        ("GET", "/developers/me"),
        ("POST", "/developers/auth/logout"),
        ("POST", "/developers/auth/mfa/setup"),
    ] {
        let request = match method {
            "GET" => t.http.get(t.url(path)),
            _ => t.http.post(t.url(path)),
        };
        let response = request
            .header("authorization", bearer(&secret))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 403, "{method} {path}");
    }
    // No token, a garbage token.
    assert_eq!(status_of_me(&t, "garbage").await, 401);
    let response = t.http.get(t.url("/developers/me")).send().await.unwrap();
    assert_eq!(response.status(), 401);
}

/// Clicked many times at once, a link verifies once: one session, one sandbox.
#[tokio::test]
async fn concurrent_verifications_provision_one_sandbox() {
    let t = TestPlatform::start().await;
    let email = "mary@example.com";
    assert_eq!(sign_up(&t, email, PASSWORD).await.status(), 202);
    let link = newest_link(&t, email, "verify-email").unwrap();
    let clicks = (0..6).map(|_| {
        let http = t.http.clone();
        let link = link.clone();
        tokio::spawn(async move { http.get(&link).send().await.unwrap().status().as_u16() })
    });
    let mut statuses = Vec::new();
    for click in clicks {
        statuses.push(click.await.unwrap());
    }
    statuses.sort();
    assert_eq!(statuses, [200, 410, 410, 410, 410, 410]);

    let session: Value = login(&t, email, PASSWORD, None).await.json().await.unwrap();
    let claims = jwt_payload(session["accessToken"].as_str().unwrap());
    assert_eq!(claims["tenants"].as_object().unwrap().len(), 1);
    assert_eq!(claims["clients"].as_object().unwrap().len(), 1);
}

/// A browser opening the mailed link is sent to the console's page (the
/// token in the fragment, unspent: a mail scanner fetching links verifies
/// nothing); the page's POST then verifies. A token not of the issued form
/// is never put in a page address.
#[tokio::test]
async fn a_browser_opening_the_link_lands_on_the_consoles_page_unspent() {
    let t = TestPlatform::start().await;
    let email = "browser@example.com";
    assert_eq!(sign_up(&t, email, PASSWORD).await.status(), 202);
    let link = newest_link(&t, email, "verify-email").expect("a verification mail");
    let token = token_of(&link);
    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let html = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    let response = no_redirects
        .get(&link)
        .header("accept", html)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 303);
    assert_eq!(
        response.headers()["location"],
        format!("/#/developer/verify?token={token}").as_str()
    );
    // Still unspent: the page's POST verifies.
    let response = post_json(
        &t,
        "/developers/auth/verify-email",
        &json!({ "token": token }),
    )
    .await;
    assert_eq!(response.status(), 200);
    // A made-up token is answered as a dead link, never redirected.
    let response = no_redirects
        .get(t.url("/developers/auth/verify-email?token=%0d%0aSet-Cookie:%20x"))
        .header("accept", html)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 410);
}
