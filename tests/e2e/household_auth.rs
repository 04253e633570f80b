//! Household sign-in, refresh-token rotation with reuse detection, the Me
//! response and password reset (by mail, and with a token issued directly),
//! over HTTP against the local platform.

use alyt_store::repo::identity::Users;
use alyt_store::repo::tokens::{OneTimeTokens, Purpose};
use alyt_tests::developers::{mails_to, outbox, token_of, wait_for_link};
use alyt_tests::{TestPlatform, without_request_id};
use serde_json::json;

#[tokio::test]
async fn the_first_owner_signs_in_and_sees_claims_and_homes() {
    let t = TestPlatform::start().await;
    let (email, password) = t.owner();
    let pair = t.household_login(&email, &password).await;
    assert_eq!(pair["expiresIn"], 900);
    assert!(pair["refreshToken"].as_str().unwrap().starts_with("rt_"));
    let access = pair["accessToken"].as_str().unwrap();

    let (status, me) = t.get_json("/auth/me", Some(access)).await;
    assert_eq!(status, 200, "{me}");
    let first = t.platform.first_start.as_ref().unwrap();
    assert_eq!(me["persona"], "platform");
    assert_eq!(me["claims"]["email"], email.as_str());
    assert_eq!(me["claims"]["platformRole"], "OWNER");
    assert_eq!(
        me["claims"]["tenants"][first.tenant_id.to_string()],
        "ADMIN"
    );
    let grant = &me["claims"]["clients"][first.client_id.to_string()];
    assert_eq!(grant["role"], "OWNER");
    assert_eq!(grant["tenantId"], first.tenant_id.to_string());
    assert_eq!(me["preferences"], json!({ "units": null }));
    assert_eq!(me["homes"].as_array().unwrap().len(), 1);
    assert_eq!(me["homes"][0]["status"], "active");
    let exp = me["claims"]["exp"].as_i64().unwrap();
    let iat = me["claims"]["iat"].as_i64().unwrap();
    assert_eq!(exp - iat, 900);
}

#[tokio::test]
async fn unknown_email_and_wrong_password_answer_alike_then_429() {
    let t = TestPlatform::start().await;
    let (email, _) = t.owner();
    let (s1, wrong_password) = t
        .post_json(
            "/auth/login",
            None,
            json!({ "email": email, "password": "not the password" }),
        )
        .await;
    let (s2, unknown) = t
        .post_json(
            "/auth/login",
            None,
            json!({ "email": "nobody@example.com", "password": "not the password" }),
        )
        .await;
    assert_eq!((s1, s2), (401, 401));
    assert_eq!(
        without_request_id(wrong_password),
        without_request_id(unknown)
    );

    for _ in 0..9 {
        let (status, _) = t
            .post_json(
                "/auth/login",
                None,
                json!({ "email": email, "password": "still wrong" }),
            )
            .await;
        assert_eq!(status, 401);
    }
    let response = t
        .http
        .post(t.url("/auth/login"))
        .json(&json!({ "email": email, "password": "still wrong" }))
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.status(),
        429,
        "the 11th failure in the window is refused"
    );
    assert!(response.headers().contains_key("retry-after"));
    let problem: serde_json::Value = response.json().await.unwrap();
    assert_eq!(
        problem["type"], "urn:alyt:problem:too-many-attempts",
        "{problem}"
    );
    assert!(
        problem["detail"]
            .as_str()
            .is_some_and(|d| d.contains("from this address")),
        "says which limit: {problem}"
    );
    // Even the right password waits out the window: guessing cannot continue.
    let (_, password) = t.owner();
    let (status, _) = t
        .post_json(
            "/auth/login",
            None,
            json!({ "email": email, "password": password }),
        )
        .await;
    assert_eq!(status, 429);
}

/// Guesses sent all at once are counted before any password is checked, so
/// thirty parallel wrong passwords from one address get at most ten checks;
/// the owner signing in from another address is not locked out.
#[tokio::test]
async fn parallel_guesses_are_checked_at_most_the_limit_and_the_owner_still_signs_in() {
    let t = TestPlatform::start().await;
    let (email, password) = t.owner();
    let mut guesses = tokio::task::JoinSet::new();
    for n in 0..30 {
        let request = t
            .http
            .post(t.url("/auth/login"))
            .json(&json!({ "email": email, "password": format!("guess number {n}") }));
        guesses.spawn(async move { request.send().await.unwrap().status().as_u16() });
    }
    let mut statuses = guesses.join_all().await;
    statuses.sort();
    let checked = statuses.iter().filter(|s| **s == 401).count();
    let refused = statuses.iter().filter(|s| **s == 429).count();
    assert_eq!((checked, refused), (10, 20), "{statuses:?}");

    // From the guessing address even the right password waits...
    let (status, _) = t
        .post_json(
            "/auth/login",
            None,
            json!({ "email": email, "password": password }),
        )
        .await;
    assert_eq!(status, 429);
    // ...while the owner, elsewhere, signs in.
    let elsewhere = reqwest::Client::builder()
        .local_address(std::net::IpAddr::from([127, 0, 0, 2]))
        .build()
        .unwrap();
    let response = elsewhere
        .post(t.url("/auth/login"))
        .json(&json!({ "email": email, "password": password }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn bad_login_bodies_are_400s() {
    let t = TestPlatform::start().await;
    let (status, body) = t
        .post_json("/auth/login", None, json!({ "email": "a@example.com" }))
        .await;
    assert_eq!(status, 400);
    assert!(
        body["detail"].as_str().unwrap().contains("password"),
        "{body}"
    );
    let (status, body) = t
        .post_json("/auth/login", None, json!({ "email": 5, "password": "x" }))
        .await;
    assert_eq!(status, 400);
    assert_eq!(body["field"], "email");
}

#[tokio::test]
async fn refresh_rotates_and_reuse_revokes_the_whole_session() {
    let t = TestPlatform::start().await;
    let (email, password) = t.owner();
    let first = t.household_login(&email, &password).await;
    let r1 = first["refreshToken"].as_str().unwrap().to_owned();

    let (status, second) = t
        .post_json("/auth/refresh", None, json!({ "refreshToken": r1 }))
        .await;
    assert_eq!(status, 200, "{second}");
    let r2 = second["refreshToken"].as_str().unwrap().to_owned();
    let a2 = second["accessToken"].as_str().unwrap().to_owned();
    assert_ne!(r1, r2);
    assert_eq!(t.get_json("/auth/me", Some(&a2)).await.0, 200);

    // r1 again: reuse. The session dies: r2 and the access token with it.
    let (status, _) = t
        .post_json("/auth/refresh", None, json!({ "refreshToken": r1 }))
        .await;
    assert_eq!(status, 401);
    let (status, _) = t
        .post_json("/auth/refresh", None, json!({ "refreshToken": r2 }))
        .await;
    assert_eq!(
        status, 401,
        "the newest token of a revoked session is dead too"
    );
    assert_eq!(t.get_json("/auth/me", Some(&a2)).await.0, 401);
    // Another sign-in is unaffected.
    let other = t.household_login(&email, &password).await;
    assert_eq!(
        t.get_json("/auth/me", other["accessToken"].as_str())
            .await
            .0,
        200
    );
}

#[tokio::test]
async fn concurrent_refreshes_of_one_token_have_exactly_one_success() {
    let t = TestPlatform::start().await;
    let (email, password) = t.owner();
    let pair = t.household_login(&email, &password).await;
    let token = pair["refreshToken"].as_str().unwrap().to_owned();
    let attempts = (0..8).map(|_| {
        let request = t
            .http
            .post(t.url("/auth/refresh"))
            .json(&json!({ "refreshToken": token }));
        async move { request.send().await.unwrap().status().as_u16() }
    });
    let statuses = futures_join_all(attempts).await;
    assert_eq!(
        statuses.iter().filter(|s| **s == 200).count(),
        1,
        "{statuses:?}"
    );
    assert!(
        statuses.iter().all(|s| *s == 200 || *s == 401),
        "{statuses:?}"
    );
}

async fn futures_join_all<F: std::future::Future<Output = u16> + Send + 'static>(
    futures: impl Iterator<Item = F>,
) -> Vec<u16> {
    let handles: Vec<_> = futures.map(tokio::spawn).collect();
    let mut out = Vec::new();
    for handle in handles {
        out.push(handle.await.unwrap());
    }
    out
}

#[tokio::test]
async fn tokens_that_are_garbage_expired_or_missing_are_401() {
    use alyt_api::auth::TokenSigner;
    use alyt_domain::access::Claims;
    use alyt_tests::principals::signed_by_platform;

    let t = TestPlatform::start().await;
    let response = t.http.get(t.url("/auth/me")).send().await.unwrap();
    assert_eq!(response.status(), 401);
    assert_eq!(
        response.headers()["www-authenticate"],
        "Bearer realm=\"alyt\""
    );
    assert_eq!(t.get_json("/auth/me", Some("garbage")).await.0, 401);
    assert_eq!(
        t.get_json("/auth/me", Some("svc_dev_unknownkey")).await.0,
        401
    );

    // A correctly signed token that has expired, of the live session of
    // this sign-in (its jti), so only the expiry can fail the token.
    let signer = TokenSigner::load(&*t.platform.store()).await.unwrap();
    let (email, password) = t.owner();
    let pair = t.household_login(&email, &password).await;
    let access = pair["accessToken"].as_str().unwrap();
    let (_, me) = t.get_json("/auth/me", Some(access)).await;
    let mut claims: Claims = serde_json::from_value(me["claims"].clone()).unwrap();
    claims.iat -= 3600;
    claims.exp = claims.iat + 900;
    let fresh = signer.issue_session(&claims_now(&claims));
    assert_eq!(
        t.get_json("/auth/me", Some(&fresh)).await.0,
        200,
        "the same session with a live exp works"
    );
    let expired = signer.issue_session(&claims);
    assert_eq!(t.get_json("/auth/me", Some(&expired)).await.0, 401);
    // The same session's token claiming the developer audience tokens once
    // carried: a token does not say its kind, and carries nothing but the
    // spec's claims.
    let mut wrong_kind = serde_json::to_value(claims_now(&claims)).unwrap();
    wrong_kind["aud"] = "alyt:developer".into();
    let wrong_kind = signed_by_platform(&t, access, &wrong_kind).await;
    assert_eq!(t.get_json("/auth/me", Some(&wrong_kind)).await.0, 401);
}

/// The spec's Claims object, and nothing else (Objects are closed).
const SPEC_CLAIMS: [&str; 7] = ["sub", "email", "tenants", "clients", "iat", "exp", "jti"];

fn claim_names(token: &str) -> std::collections::BTreeSet<String> {
    let payload = alyt_tests::developers::jwt_payload(token);
    payload.as_object().unwrap().keys().cloned().collect()
}

#[tokio::test]
async fn an_access_token_carries_only_the_spec_claims_and_its_session_says_its_kind() {
    use alyt_tests::developers::sign_up_and_verify;

    let t = TestPlatform::start().await;
    let spec = |extra: &[&str]| -> std::collections::BTreeSet<String> {
        SPEC_CLAIMS
            .iter()
            .chain(extra)
            .map(|k| k.to_string())
            .collect()
    };

    // The platform owner (who has a platform role) and a developer.
    let (email, password) = t.owner();
    let household = t.household_login(&email, &password).await;
    let household = household["accessToken"].as_str().unwrap().to_owned();
    assert_eq!(claim_names(&household), spec(&["platformRole"]));
    let developer = sign_up_and_verify(&t, "ada.l@example.com").await;
    assert_eq!(claim_names(&developer.access_token), spec(&[]));

    // jti is the session: what the Me response shows is the token's.
    let (status, me) = t.get_json("/auth/me", Some(&household)).await;
    assert_eq!(status, 200);
    assert_eq!(
        me["claims"]["jti"],
        alyt_tests::developers::jwt_payload(&household)["jti"]
    );

    // Each kind where it belongs, and nowhere else.
    assert_eq!(
        t.get_json("/developers/me", Some(&developer.access_token))
            .await
            .0,
        200
    );
    assert_eq!(t.get_json("/developers/me", Some(&household)).await.0, 401);
    assert_eq!(
        t.get_json("/auth/me", Some(&developer.access_token))
            .await
            .0,
        401
    );
}

#[tokio::test]
async fn a_developer_session_from_before_sessions_named_their_developer_still_works() {
    use alyt_domain::ids::SessionId;
    use alyt_store::{Key, UpdateAction};
    use alyt_tests::developers::{jwt_payload, sign_up_and_verify};

    let t = TestPlatform::start().await;
    let developer = sign_up_and_verify(&t, "grace.h@example.com").await;
    let session: SessionId = jwt_payload(&developer.access_token)["jti"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let store = t.platform.store();
    let record = alyt_store::repo::identity::Sessions(&*store)
        .get(session)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        record.developer.map(|d| d.to_string()),
        Some(developer.developer_id.clone())
    );
    // The record as it was written before: no developer.
    store
        .update(
            &Key::new(format!("SESSION#{session}"), "SESSION"),
            vec![UpdateAction::Remove("developer".into())],
            None,
        )
        .await
        .unwrap();
    let (status, me) = t
        .get_json("/developers/me", Some(&developer.access_token))
        .await;
    assert_eq!(status, 200, "{me}");
    assert_eq!(me["id"], developer.developer_id.as_str());
}

fn claims_now(claims: &alyt_domain::access::Claims) -> alyt_domain::access::Claims {
    let mut fresh = claims.clone();
    fresh.iat = time::OffsetDateTime::now_utc().unix_timestamp();
    fresh.exp = fresh.iat + 900;
    fresh
}

#[tokio::test]
async fn reset_password_is_single_use_and_signs_out_everywhere() {
    let t = TestPlatform::start().await;
    let (email, password) = t.owner();
    let session = t.household_login(&email, &password).await;
    let store = t.platform.store();
    let user = Users(&*store).find_by_email(&email).await.unwrap().unwrap();
    // The token a reset mail carries, issued directly (the mail's own way is
    // a_household_person_resets_the_password_with_the_mailed_token).
    let token = alyt_domain::secret::random_token();
    OneTimeTokens(&*store)
        .issue(
            Purpose::ResetPassword,
            &alyt_domain::secret::sha256_hex(&token),
            &json!({ "userId": user.id }),
            time::OffsetDateTime::now_utc().unix_timestamp() + 3600,
        )
        .await
        .unwrap();

    let (status, body) = t
        .post_json(
            "/auth/reset-password",
            None,
            json!({ "token": "short", "password": "x" }),
        )
        .await;
    assert_eq!((status, body["field"].as_str()), (400, Some("token")));
    let (status, dead) = t
        .post_json(
            "/auth/reset-password",
            None,
            json!({ "token": "0123456789abcdef-unknown", "password": "plum tractor season" }),
        )
        .await;
    assert_eq!(status, 410);
    // A refused password does not spend the link.
    let (status, body) = t
        .post_json(
            "/auth/reset-password",
            None,
            json!({ "token": token, "password": "short" }),
        )
        .await;
    assert_eq!((status, body["field"].as_str()), (400, Some("password")));
    let (status, _) = t
        .post_json(
            "/auth/reset-password",
            None,
            json!({ "token": token, "password": "plum tractor season" }),
        )
        .await;
    assert_eq!(status, 204);
    let (status, spent) = t
        .post_json(
            "/auth/reset-password",
            None,
            json!({ "token": token, "password": "another good phrase" }),
        )
        .await;
    assert_eq!(status, 410);
    assert_eq!(
        without_request_id(spent),
        without_request_id(dead),
        "every dead link answers alike"
    );

    assert_eq!(
        t.get_json("/auth/me", session["accessToken"].as_str())
            .await
            .0,
        401,
        "signed out everywhere"
    );
    let (status, _) = t
        .post_json(
            "/auth/login",
            None,
            json!({ "email": email, "password": password }),
        )
        .await;
    assert_eq!(status, 401, "the old password is gone");
    t.household_login(&email, "plum tractor season").await;
}

/// A household person who forgot the password asks by address: the mail
/// (for the Alyt account, not a developer one) carries a token that the
/// household reset takes once; every older session is signed out and the new
/// password signs in. An unknown address gets the same 202 and no mail, and
/// the developers' twin sends a household-only account nothing.
#[tokio::test]
async fn a_household_person_resets_the_password_with_the_mailed_token() {
    let t = TestPlatform::start().await;
    let (email, password) = t.owner();
    let session = t.household_login(&email, &password).await;
    let mails_before = outbox(&t).len();

    let (status, unknown) = t
        .post_json(
            "/auth/forgot-password",
            None,
            json!({ "email": "nobody@example.com" }),
        )
        .await;
    assert_eq!(status, 202);
    let (status, _) = t
        .post_json(
            "/developers/auth/forgot-password",
            None,
            json!({ "email": email }),
        )
        .await;
    assert_eq!(status, 202, "the developers' twin answers alike");
    let (status, known) = t
        .post_json(
            "/auth/forgot-password",
            None,
            json!({ "email": email.to_uppercase() }),
        )
        .await;
    assert_eq!(status, 202);
    assert_eq!(known, unknown, "the answer never tells who has an account");

    let link = wait_for_link(&t, &email, "/reset-password?token=")
        .await
        .expect("a reset mail");
    // The console's reset page, beside the API.
    assert!(
        link.starts_with(&format!(
            "{}/reset-password?token=",
            t.url("").trim_end_matches("/v1")
        )),
        "{link}"
    );
    // Only the household request of a known address sent anything.
    assert_eq!(outbox(&t).len(), mails_before + 1);
    let mails = mails_to(&t, &email);
    let mail = mails.last().unwrap();
    assert_eq!(mail.subject, "Reset your Alyt password");
    assert!(mail.body.contains("your Alyt account"), "{}", mail.body);
    assert!(
        mail.body
            .contains(&format!("POST {}", t.url("/auth/reset-password"))),
        "{}",
        mail.body
    );
    assert!(
        !mail.body.to_lowercase().contains("developer"),
        "{}",
        mail.body
    );

    let token = token_of(&link);
    let (status, _) = t
        .post_json(
            "/auth/reset-password",
            None,
            json!({ "token": token, "password": "plum tractor season" }),
        )
        .await;
    assert_eq!(status, 204);
    assert_eq!(
        t.get_json("/auth/me", session["accessToken"].as_str())
            .await
            .0,
        401,
        "signed out everywhere"
    );
    let (status, _) = t
        .post_json(
            "/auth/refresh",
            None,
            json!({ "refreshToken": session["refreshToken"] }),
        )
        .await;
    assert_eq!(status, 401);
    let (status, _) = t
        .post_json(
            "/auth/login",
            None,
            json!({ "email": email, "password": password }),
        )
        .await;
    assert_eq!(status, 401, "the old password is gone");
    t.household_login(&email, "plum tractor season").await;
    // Once only.
    let (status, _) = t
        .post_json(
            "/auth/reset-password",
            None,
            json!({ "token": token, "password": "another good phrase" }),
        )
        .await;
    assert_eq!(status, 410);
}

#[tokio::test]
async fn forgot_password_without_an_email_is_a_400() {
    let t = TestPlatform::start().await;
    let (status, body) = t
        .post_json("/auth/forgot-password", None, json!({ "email": "  " }))
        .await;
    assert_eq!((status, body["field"].as_str()), (400, Some("email")));
    let (status, _) = t.post_json("/auth/forgot-password", None, json!({})).await;
    assert_eq!(status, 400);
}

/// A client whose requests leave from loopback address 127.0.1.`n`.
fn from_address(n: u8) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(std::net::IpAddr::from([127, 0, 1, n]))
        .build()
        .unwrap()
}

async fn login_from(t: &TestPlatform, n: u8, email: &str, password: &str) -> u16 {
    from_address(n)
        .post(t.url("/auth/login"))
        .json(&json!({ "email": email, "password": password }))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

/// A botnet spreads a hundred wrong passwords for the platform owner over
/// twenty-five addresses: the account is capped across them, so even the
/// right password from a fresh address waits, until the owner asks for a
/// reset mail as a household person, resets and signs in at once.
#[tokio::test]
async fn guesses_spread_over_many_addresses_lock_the_owner_out_until_a_household_reset_by_mail() {
    let t = TestPlatform::start().await;
    let (email, password) = t.owner();
    let mut guesses = tokio::task::JoinSet::new();
    for n in 1..=25u8 {
        let (url, email) = (t.url("/auth/login"), email.clone());
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
    assert_eq!(
        login_from(&t, 100, &email, &password).await,
        429,
        "the right password waits too"
    );

    let (status, _) = t
        .post_json("/auth/forgot-password", None, json!({ "email": email }))
        .await;
    assert_eq!(status, 202);
    let link = wait_for_link(&t, &email, "/reset-password?token=")
        .await
        .expect("a reset mail");
    let (status, _) = t
        .post_json(
            "/auth/reset-password",
            None,
            json!({ "token": token_of(&link), "password": "plum tractor season" }),
        )
        .await;
    assert_eq!(status, 204, "the token is not held back by the cap");
    // Signed in at once, from the fresh address and from one the guesses
    // came from.
    assert_eq!(
        login_from(&t, 100, &email, "plum tractor season").await,
        200
    );
    assert_eq!(login_from(&t, 1, &email, "plum tractor season").await, 200);
}

/// A household person signs out for real: the session's refresh family is
/// revoked, so its access and refresh tokens stop working at once, while
/// another session of the same person stays signed in.
#[tokio::test]
async fn logout_revokes_the_session_and_only_that_one() {
    let t = TestPlatform::start().await;
    let (email, password) = t.owner();
    let here = t.household_login(&email, &password).await;
    let elsewhere = t.household_login(&email, &password).await;
    let access = here["accessToken"].as_str().unwrap();
    assert_eq!(t.get_json("/auth/me", Some(access)).await.0, 200);

    let (status, _) = t.post_json("/auth/logout", Some(access), json!({})).await;
    assert_eq!(status, 204);
    assert_eq!(t.get_json("/auth/me", Some(access)).await.0, 401);
    let (status, _) = t
        .post_json(
            "/auth/refresh",
            None,
            json!({ "refreshToken": here["refreshToken"] }),
        )
        .await;
    assert_eq!(status, 401);
    assert_eq!(
        t.get_json("/auth/me", elsewhere["accessToken"].as_str())
            .await
            .0,
        200
    );
    // Again with the dead token: 401, not an error.
    let (status, _) = t.post_json("/auth/logout", Some(access), json!({})).await;
    assert_eq!(status, 401);
}
