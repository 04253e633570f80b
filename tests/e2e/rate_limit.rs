//! The request-rate limit over real HTTP: an authenticated request counts
//! against its key or its person, everything else against the client address,
//! so a made-up Authorization header buys no fresh quota.

use alyt_api::conventions::ratelimit::RateLimitPolicy;
use alyt_tests::TestPlatform;
use alyt_tests::developers::{bearer, create_key, sign_up_and_verify};

const QUOTA: u32 = 12;

async fn small_quota() -> TestPlatform {
    TestPlatform::start_with(|config| {
        config.rate_limit = RateLimitPolicy {
            name: "default".into(),
            quota: QUOTA,
            window_seconds: 3600,
        };
    })
    .await
}

/// `r` of a `RateLimit` field.
fn remaining(response: &reqwest::Response) -> u32 {
    let field = response.headers()["ratelimit"].to_str().unwrap();
    field
        .split("r=")
        .nth(1)
        .and_then(|r| r.split(';').next())
        .and_then(|r| r.parse().ok())
        .unwrap_or_else(|| panic!("no r= in {field}"))
}

async fn get(t: &TestPlatform, path: &str, authorization: Option<&str>) -> reqwest::Response {
    let mut request = t.http.get(t.url(path));
    if let Some(value) = authorization {
        request = request.header("authorization", value);
    }
    request.send().await.unwrap()
}

#[tokio::test]
async fn a_new_authorization_header_on_every_request_still_runs_out() {
    let t = small_quota().await;
    let mut left = Vec::new();
    for n in 0..QUOTA {
        let response = get(&t, "/auth/me", Some(&bearer(&format!("made-up-{n}")))).await;
        assert_eq!(response.status(), 401);
        left.push(remaining(&response));
    }
    assert_eq!(left, (0..QUOTA).rev().collect::<Vec<_>>());
    // The address is spent: another made-up token, a public operation with
    // one, and no token at all are 429 with Retry-After and the fields.
    for (path, authorization) in [
        ("/auth/me", Some(bearer("made-up-again"))),
        ("/capabilities", Some(bearer("made-up-public"))),
        ("/capabilities", None),
    ] {
        let response = get(&t, path, authorization.as_deref()).await;
        assert_eq!(response.status(), 429, "{path} {authorization:?}");
        assert!(response.headers().contains_key("retry-after"));
        assert_eq!(
            response.headers()["ratelimit-policy"],
            format!("\"default\";q={QUOTA};w=3600")
        );
        assert_eq!(remaining(&response), 0);
    }
}

#[tokio::test]
async fn keys_and_sessions_have_buckets_of_their_own() {
    let t = small_quota().await;
    // Sign-up, verification and sign-in are charged to the address (3 or so).
    let dev = sign_up_and_verify(&t, "rita@example.com").await;
    let (_, first) = create_key(&t, &dev, &["devices:read"]).await;
    let (_, second) = create_key(&t, &dev, &["devices:read"]).await;

    for n in 0..QUOTA {
        let response = get(&t, "/developers/whoami", Some(&bearer(&first))).await;
        assert_eq!(response.status(), 200, "request {n}");
        assert_eq!(remaining(&response), QUOTA - 1 - n);
    }
    let spent = get(&t, "/developers/whoami", Some(&bearer(&first))).await;
    assert_eq!(spent.status(), 429);
    assert!(spent.headers().contains_key("retry-after"));

    // The other key, the developer's session and the address are untouched
    // by the first key's spending.
    let other = get(&t, "/developers/whoami", Some(&bearer(&second))).await;
    assert_eq!(other.status(), 200);
    assert_eq!(remaining(&other), QUOTA - 1);
    let session = get(&t, "/developers/whoami", Some(&dev.bearer())).await;
    assert_eq!(session.status(), 200);
    let anonymous = get(&t, "/capabilities", None).await;
    assert_eq!(anonymous.status(), 200);
    assert!(
        remaining(&anonymous) >= QUOTA - 6,
        "{}",
        remaining(&anonymous)
    );

    // A second person signs in: their own bucket too.
    let (email, password) = t.owner();
    let owner = t.household_login(&email, &password).await;
    let owner_token = owner["accessToken"].as_str().unwrap();
    let me = get(&t, "/auth/me", Some(&bearer(owner_token))).await;
    assert_eq!(me.status(), 200);
    assert_eq!(remaining(&me), QUOTA - 1);
    // An operation with path parameters counts against the person too.
    let first = t.platform.first_start.as_ref().unwrap();
    let members = get(
        &t,
        &format!(
            "/tenants/{}/clients/{}/members",
            first.tenant_id, first.client_id
        ),
        Some(&bearer(owner_token)),
    )
    .await;
    assert_eq!(members.status(), 200);
    assert_eq!(remaining(&members), QUOTA - 2);
}

#[tokio::test]
async fn failed_authentication_counts_against_the_address_not_the_person() {
    let t = small_quota().await;
    let (email, password) = t.owner();
    let owner = t.household_login(&email, &password).await; // address: 1
    let token = owner["accessToken"].as_str().unwrap();
    let expired_or_wrong = bearer(&format!("{token}x"));
    for _ in 0..QUOTA - 1 {
        assert_eq!(
            get(&t, "/auth/me", Some(&expired_or_wrong)).await.status(),
            401
        );
    }
    assert_eq!(
        get(&t, "/auth/me", Some(&expired_or_wrong)).await.status(),
        429
    );
    assert_eq!(get(&t, "/capabilities", None).await.status(), 429);
    // The signed-in person behind the same address still gets through.
    let me = get(&t, "/auth/me", Some(&bearer(token))).await;
    assert_eq!(me.status(), 200);
    assert_eq!(remaining(&me), QUOTA - 1);
}
