//! Guest stays over HTTP, on a platform whose clock the test moves: a
//! booking system (a DEV key with guests:write) puts a stay by reservation
//! key; the guest accepts the mailed link; their claims name the home only
//! inside the stay, to the second; the stay sweep checks them in and out
//! once (guest.* on the event stream), signs them out, tells the household
//! and writes an audit entry; the household can check a guest out now; a
//! returning guest needs a new stay.

use std::sync::Arc;
use std::time::Duration;

use alyt_domain::ManualClock;
use alyt_local::InjectedClock;
use alyt_tests::TestPlatform;
use alyt_tests::developers::{
    DeveloperSession, accept_mailed_invitation, create_key, login, mails_to, sandbox_home,
    sign_up_and_verify, token_of,
};
use alyt_tests::principals::{PASSWORD, seed_account};
use alyt_tests::webhooks::SseReader;
use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

const GUEST_PASSWORD: &str = "lantern pebble orchard";

fn text(at: OffsetDateTime) -> String {
    at.format(&Rfc3339).unwrap()
}

/// A platform on a frozen clock the test moves, with a quick stay sweep.
async fn platform() -> (TestPlatform, Arc<ManualClock>) {
    let start = OffsetDateTime::now_utc().replace_nanosecond(0).unwrap();
    let clock = Arc::new(ManualClock::new(start));
    let injected = clock.clone();
    let t = TestPlatform::start_with_config(move |config| {
        config.clock = Some(InjectedClock(injected));
        config.stay_sweep_every = Duration::from_millis(50);
    })
    .await;
    (t, clock)
}

struct Sandbox {
    dev: DeveloperSession,
    tenant: String,
    client: String,
    home: String,
}

impl Sandbox {
    fn guest(&self, key: &str) -> String {
        format!(
            "/tenants/{}/clients/{}/guests/{key}",
            self.tenant, self.client
        )
    }

    fn audit(&self) -> String {
        format!("/tenants/{}/clients/{}/audit", self.tenant, self.client)
    }

    fn members(&self) -> String {
        format!("/tenants/{}/clients/{}/members", self.tenant, self.client)
    }
}

async fn sandbox(t: &TestPlatform, email: &str) -> Sandbox {
    let dev = sign_up_and_verify(t, email).await;
    let home = sandbox_home(t, &dev).await;
    Sandbox {
        tenant: dev.sandbox_tenant_id.clone(),
        client: home.client_id,
        home: home.property_id,
        dev,
    }
}

async fn put(t: &TestPlatform, path: &str, token: &str, body: Value) -> (u16, Value) {
    t.send_json("PUT", path, Some(token), Some(body)).await
}

async fn wait_for_state(t: &TestPlatform, path: &str, token: &str, state: &str) -> Value {
    for _ in 0..200 {
        let (status, stay) = t.get_json(path, Some(token)).await;
        assert_eq!(status, 200, "{stay}");
        if stay["state"] == state {
            return stay;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the stay never became {state}");
}

/// The claims a fresh sign-in gives, and the seconds its token lives.
async fn sign_in_claims(t: &TestPlatform, email: &str, password: &str) -> (Value, i64) {
    let pair = t.household_login(email, password).await;
    let (_, me) = t.get_json("/auth/me", pair["accessToken"].as_str()).await;
    (me["claims"].clone(), pair["expiresIn"].as_i64().unwrap())
}

#[tokio::test]
async fn a_booked_guest_comes_and_goes_on_time_and_the_booking_system_hears_it() {
    let (t, clock) = platform().await;
    let sandbox = sandbox(&t, "booking-dev@example.com").await;
    let (_, key) = create_key(&t, &sandbox.dev, &["guests:write", "events:read"]).await;
    let response = t
        .http
        .get(t.url(
            "/developers/events/stream?events=guest.invited,guest.checked_in,guest.checked_out",
        ))
        .bearer_auth(&key)
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let mut stream = SseReader::new(response);

    let now = clock_now(&clock);
    let check_in = now + time::Duration::hours(2);
    let check_out = now + time::Duration::hours(26);
    let body = json!({
        "email": "Vera@example.com",
        "name": "Vera",
        "propertyId": sandbox.home,
        "checkIn": text(check_in),
        "checkOut": text(check_out),
    });
    let path = sandbox.guest("BK-2026-001");
    let (status, stay) = put(&t, &path, &key, body.clone()).await;
    assert_eq!(status, 201, "{stay}");
    assert_eq!(
        stay,
        json!({
            "reservationKey": "BK-2026-001",
            "state": "invited",
            "email": "Vera@example.com",
            "propertyId": sandbox.home,
            "checkIn": text(check_in),
            "checkOut": text(check_out),
            "requireNetwork": false,
        })
    );
    let invited = stream.events(1, Duration::from_secs(5)).await;
    assert_eq!(invited[0].0, "guest.invited");
    assert_eq!(invited[0].2["data"]["reservationKey"], "BK-2026-001");
    assert_eq!(invited[0].2["data"]["state"], "invited");
    assert!(
        invited[0].2["data"].get("email").is_none(),
        "no address in events"
    );

    // Idempotent by key: the same dates answer the stay as it is.
    let (status, same) = put(&t, &path, &key, body.clone()).await;
    assert_eq!((status, &same), (200, &stay));
    assert_eq!(mails_to(&t, "vera@example.com").len(), 1, "one invitation");
    // New dates move it.
    let check_out = now + time::Duration::hours(50);
    let mut moved_body = body.clone();
    moved_body["checkOut"] = text(check_out).into();
    let (status, moved) = put(&t, &path, &key, moved_body.clone()).await;
    assert_eq!(status, 200, "{moved}");
    assert_eq!(moved["checkOut"], text(check_out).as_str());

    // She accepts the link: a member of the stay, the home not yet in her
    // claims (the stay has not begun).
    let mail = mails_to(&t, "vera@example.com");
    let token = token_of(&mail[0].link("/invitation?token=").unwrap());
    let (status, preview) = t
        .get_json(&format!("/auth/invitations/{token}"), None)
        .await;
    assert_eq!(status, 200, "{preview}");
    assert_eq!(preview["stay"]["expiresAt"], text(check_out).as_str());
    let (status, pair) = t
        .post_json(
            &format!("/auth/invitations/{token}/accept"),
            None,
            json!({ "name": "Vera", "password": GUEST_PASSWORD }),
        )
        .await;
    assert_eq!(status, 200, "{pair}");
    let (_, stay) = t.get_json(&path, Some(&key)).await;
    assert_eq!(stay["state"], "member");

    // Her claims mention the home only inside the stay, to the second, and
    // a token never outlives the next start or end of the stay.
    let email = "vera@example.com";
    clock.set(check_in - time::Duration::seconds(1));
    let (claims, lives) = sign_in_claims(&t, email, GUEST_PASSWORD).await;
    assert!(claims["clients"].get(&sandbox.client).is_none(), "{claims}");
    assert_eq!(lives, 1, "the token ends when the stay begins");
    clock.set(check_in);
    let (claims, _) = sign_in_claims(&t, email, GUEST_PASSWORD).await;
    assert_eq!(claims["clients"][&sandbox.client]["role"], "GUEST");
    assert_eq!(
        claims["clients"][&sandbox.client]["propertyId"],
        sandbox.home.as_str()
    );
    let checked_in = stream.events(1, Duration::from_secs(5)).await;
    assert_eq!(checked_in[0].0, "guest.checked_in");
    clock.set(check_in + time::Duration::seconds(1));
    let (claims, _) = sign_in_claims(&t, email, GUEST_PASSWORD).await;
    assert_eq!(claims["clients"][&sandbox.client]["role"], "GUEST");
    clock.set(check_out - time::Duration::seconds(1));
    let (claims, lives) = sign_in_claims(&t, email, GUEST_PASSWORD).await;
    assert_eq!(claims["clients"][&sandbox.client]["role"], "GUEST");
    assert_eq!(lives, 1, "the token ends with the stay");
    let pair = t.household_login(email, GUEST_PASSWORD).await;
    let refresh = pair["refreshToken"].as_str().unwrap().to_owned();

    // At check-out the sweep signs her out and ends the stay.
    clock.set(check_out);
    let over = wait_for_state(&t, &path, &key, "checked-out").await;
    assert_eq!(over["reservationKey"], "BK-2026-001");
    let checked_out = stream.events(1, Duration::from_secs(5)).await;
    assert_eq!(checked_out[0].0, "guest.checked_out");
    assert_eq!(checked_out[0].2["data"]["state"], "checked-out");
    let (status, _) = t
        .post_json("/auth/refresh", None, json!({ "refreshToken": refresh }))
        .await;
    assert_eq!(status, 401, "signed out at check-out");
    clock.set(check_out + time::Duration::seconds(1));
    let (claims, _) = sign_in_claims(&t, email, GUEST_PASSWORD).await;
    assert!(claims["clients"].get(&sandbox.client).is_none(), "{claims}");

    // The household was told and the audit trail says why (the developer
    // signs in again: the clock moved past their token).
    let owner = developer_token(&t, &sandbox.dev).await;
    let (status, audit) = t.get_json(&sandbox.audit(), Some(&owner)).await;
    assert_eq!(status, 200, "{audit}");
    let entry = &audit["items"][0];
    assert_eq!(entry["kind"], "guest.checked_out");
    assert_eq!(entry["reservationKey"], "BK-2026-001");
    assert_eq!(entry["actor"], Value::Null, "the sweep acted");
    assert!(
        entry["detail"]
            .as_str()
            .unwrap()
            .contains("its check-out time passed"),
        "{entry}"
    );
    let (_, people) = t.get_json(&sandbox.members(), Some(&owner)).await;
    assert!(
        people["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["email"] != "Vera@example.com"),
        "{people}"
    );

    // A returning guest gets a new stay under the key.
    let later = check_out + time::Duration::days(30);
    let mut again = body.clone();
    again["checkIn"] = text(later).into();
    again["checkOut"] = text(later + time::Duration::days(2)).into();
    clock.set(check_out + time::Duration::days(1));
    let (status, returning) = put(&t, &path, &key, again).await;
    assert_eq!(status, 201, "{returning}");
    // A sandbox invites every address, her verified account too: she
    // accepts the new link with her password.
    assert_eq!(returning["state"], "invited", "{returning}");
    let (status, pair) = accept_mailed_invitation(
        &t,
        "vera@example.com",
        json!({ "password": GUEST_PASSWORD }),
    )
    .await;
    assert_eq!(status, 200, "{pair}");
    let (_, back) = t.get_json(&path, Some(&key)).await;
    assert_eq!(back["state"], "member");
}

async fn developer_token(t: &TestPlatform, dev: &DeveloperSession) -> String {
    let response = login(t, &dev.email, &dev.password, None).await;
    assert_eq!(response.status(), 200);
    let pair: Value = response.json().await.unwrap();
    pair["accessToken"].as_str().unwrap().to_owned()
}

fn clock_now(clock: &ManualClock) -> OffsetDateTime {
    alyt_domain::Clock::now(clock)
}

#[tokio::test]
async fn the_household_checks_a_guest_out_now_and_a_removed_guest_ends_their_stay() {
    let (t, clock) = platform().await;
    let sandbox = sandbox(&t, "host-dev@example.com").await;
    let owner = sandbox.dev.access_token.clone();
    seed_account(&t, "otto@example.com", None, None).await;
    let now = clock_now(&clock);
    let body = json!({
        "email": "otto@example.com",
        "propertyId": sandbox.home,
        "checkIn": text(now - time::Duration::hours(1)),
        "checkOut": text(now + time::Duration::days(2)),
    });
    let path = sandbox.guest("ROOM-12");
    let (status, stay) = put(&t, &path, &owner, body).await;
    assert_eq!(status, 201, "{stay}");
    // A sandbox invites a verified account like any address; it accepts
    // the link with its password.
    assert_eq!(stay["state"], "invited", "{stay}");
    let (status, pair) =
        accept_mailed_invitation(&t, "otto@example.com", json!({ "password": PASSWORD })).await;
    assert_eq!(status, 200, "{pair}");
    let (_, stay) = t.get_json(&path, Some(&owner)).await;
    assert_eq!(stay["state"], "member");
    let (claims, _) = sign_in_claims(&t, "otto@example.com", PASSWORD).await;
    assert_eq!(claims["clients"][&sandbox.client]["role"], "GUEST");

    let (status, over) = t.send_json("DELETE", &path, Some(&owner), None).await;
    assert_eq!(status, 200, "{over}");
    assert_eq!(over["state"], "checked-out");
    let (status, again) = t.send_json("DELETE", &path, Some(&owner), None).await;
    assert_eq!((status, &again), (200, &over));
    let (claims, _) = sign_in_claims(&t, "otto@example.com", PASSWORD).await;
    assert!(claims["clients"].get(&sandbox.client).is_none(), "{claims}");
    let (_, audit) = t.get_json(&sandbox.audit(), Some(&owner)).await;
    assert!(
        audit["items"][0]["detail"]
            .as_str()
            .unwrap()
            .contains("the household checked the guest out"),
        "{audit}"
    );
    assert!(audit["items"][0]["actor"].is_string());

    // A sandbox adds people by invitation only: no grant by user id.
    let ada = seed_account(&t, "ada@example.com", None, None).await;
    let (status, refused) = t
        .post_json(
            &sandbox.members(),
            Some(&owner),
            json!({ "userId": ada.id, "role": "MEMBER" }),
        )
        .await;
    assert_eq!(status, 403, "{refused}");
    assert!(
        refused["detail"].as_str().unwrap().contains("invitation"),
        "{refused}"
    );
}

/// Adding an existing account cannot be turned against that person. A real
/// household grants a verified account at once (and signs it out, so its claims
/// name the home); a sandbox never does: every address gets a link and the same
/// answer, so a developer can neither sign a person out nor learn which
/// addresses have accounts.
#[tokio::test]
async fn a_real_household_grants_a_verified_guest_at_once_and_a_sandbox_invites_every_address() {
    let (t, clock) = platform().await;
    let now = clock_now(&clock);
    let first = t.platform.first_start.as_ref().unwrap();
    let (tenant, client, home) = (first.tenant_id, first.client_id, first.property_id);
    let (email, password) = t.owner();
    let owner = t.household_login(&email, &password).await["accessToken"]
        .as_str()
        .unwrap()
        .to_owned();
    let stay_body = |email: &str| {
        json!({
            "email": email,
            "propertyId": home,
            "checkIn": text(now - time::Duration::hours(1)),
            "checkOut": text(now + time::Duration::days(1)),
        })
    };

    // The real household: Ada's verified account is a guest at once and
    // signed out, so her next sign-in names the home.
    seed_account(&t, "ada@example.com", None, None).await;
    let ada_pair = t.household_login("ada@example.com", PASSWORD).await;
    let path = format!("/tenants/{tenant}/clients/{client}/guests/REAL-1");
    let (status, stay) = put(&t, &path, &owner, stay_body("ada@example.com")).await;
    assert_eq!(
        (status, stay["state"].as_str()),
        (201, Some("member")),
        "{stay}"
    );
    let (status, _) = t
        .post_json(
            "/auth/refresh",
            None,
            json!({ "refreshToken": ada_pair["refreshToken"] }),
        )
        .await;
    assert_eq!(status, 401, "signed out so the next sign-in names the home");
    let (claims, _) = sign_in_claims(&t, "ada@example.com", PASSWORD).await;
    assert_eq!(claims["clients"][client.to_string()]["role"], "GUEST");

    // A guest granted by user id has a stay too (with a key of its own);
    // removing them from the people checks that stay out.
    let bea = seed_account(&t, "bea@example.com", None, None).await;
    let members = format!("/tenants/{tenant}/clients/{client}/members");
    let (status, member) = t
        .post_json(
            &members,
            Some(&owner),
            json!({
                "userId": bea.id,
                "role": "GUEST",
                "propertyId": home,
                "expiresAt": text(now + time::Duration::days(1)),
            }),
        )
        .await;
    assert_eq!(status, 201, "{member}");
    let key = member["reservationKey"].as_str().unwrap().to_owned();
    assert!(key.starts_with("stay-"), "{key}");
    let guest = format!("/tenants/{tenant}/clients/{client}/guests/{key}");
    let (_, stay) = t.get_json(&guest, Some(&owner)).await;
    assert_eq!(stay["state"], "member");
    let (status, _) = t
        .send_json(
            "DELETE",
            &format!("{members}/{}", bea.id),
            Some(&owner),
            None,
        )
        .await;
    assert_eq!(status, 204);
    let (_, stay) = t.get_json(&guest, Some(&owner)).await;
    assert_eq!(stay["state"], "checked-out");

    // A sandbox: Cai has a verified account, the other address has none.
    // Both get the same answer and a link; Cai stays signed in.
    let sandbox = sandbox(&t, "fair-dev@example.com").await;
    let dev = sandbox.dev.access_token.clone();
    seed_account(&t, "cai@example.com", None, None).await;
    let cai_pair = t.household_login("cai@example.com", PASSWORD).await;
    let sandbox_body = |email: &str| {
        let mut body = stay_body(email);
        body["propertyId"] = sandbox.home.clone().into();
        body
    };
    let (status, known) = put(
        &t,
        &sandbox.guest("S-1"),
        &dev,
        sandbox_body("cai@example.com"),
    )
    .await;
    assert_eq!(status, 201, "{known}");
    let (status, unknown) = put(
        &t,
        &sandbox.guest("S-2"),
        &dev,
        sandbox_body("nobody@example.com"),
    )
    .await;
    assert_eq!(status, 201, "{unknown}");
    let shape = |stay: &Value| {
        let mut stay = stay.clone();
        for varying in ["email", "reservationKey"] {
            stay.as_object_mut().unwrap().remove(varying);
        }
        stay
    };
    assert_eq!(
        shape(&known),
        shape(&unknown),
        "the same answer for every address"
    );
    assert_eq!(known["state"], "invited");
    let invitations = format!(
        "/tenants/{}/clients/{}/invitations",
        sandbox.tenant, sandbox.client
    );
    seed_account(&t, "dara@example.com", None, None).await;
    let invite = |email: &str| json!({ "email": email, "role": "MEMBER" });
    let (status, known) = t
        .post_json(&invitations, Some(&dev), invite("dara@example.com"))
        .await;
    assert_eq!(
        (status, known["status"].as_str()),
        (201, Some("invited")),
        "{known}"
    );
    let (status, unknown) = t
        .post_json(&invitations, Some(&dev), invite("nobody.else@example.com"))
        .await;
    assert_eq!(
        (status, unknown["status"].as_str()),
        (201, Some("invited")),
        "{unknown}"
    );
    assert_eq!(known["member"], Value::Null);
    assert_eq!(mails_to(&t, "cai@example.com").len(), 1);
    assert_eq!(mails_to(&t, "dara@example.com").len(), 1);
    let (status, _) = t
        .post_json(
            "/auth/refresh",
            None,
            json!({ "refreshToken": cai_pair["refreshToken"] }),
        )
        .await;
    assert_eq!(status, 200, "a sandbox signs nobody out");
}

#[tokio::test]
async fn stays_refuse_bad_input_and_a_key_needs_guests_write() {
    let (t, clock) = platform().await;
    let sandbox = sandbox(&t, "strict-dev@example.com").await;
    let owner = sandbox.dev.access_token.clone();
    let now = clock_now(&clock);
    let good = json!({
        "email": "g@example.com",
        "propertyId": sandbox.home,
        "checkIn": text(now + time::Duration::hours(1)),
        "checkOut": text(now + time::Duration::hours(5)),
    });
    let with = |field: &str, value: Value| {
        let mut body = good.clone();
        body[field] = value;
        body
    };
    let cases = [
        (sandbox.guest("has space"), good.clone(), "reservationKey"),
        (
            sandbox.guest(&"k".repeat(101)),
            good.clone(),
            "reservationKey",
        ),
        (sandbox.guest("K1"), with("email", "nope".into()), "email"),
        (
            sandbox.guest("K1"),
            with("checkOut", text(now - time::Duration::hours(1)).into()),
            "checkOut",
        ),
        (
            sandbox.guest("K1"),
            with("checkIn", text(now + time::Duration::hours(6)).into()),
            "checkIn",
        ),
        (
            sandbox.guest("K1"),
            with("propertyId", "0190b5a0-0000-7000-8000-0000000000aa".into()),
            "propertyId",
        ),
        // A phone without the condition.
        (
            sandbox.guest("K1"),
            with(
                "phoneThingId",
                "0190b5a0-0000-7000-8000-0000000000aa".into(),
            ),
            "phoneThingId",
        ),
    ];
    for (path, body, field) in cases {
        let (status, problem) = put(&t, &path, &owner, body.clone()).await;
        assert_eq!(
            (status, problem["field"].as_str()),
            (400, Some(field)),
            "{path} {body} -> {problem}"
        );
    }
    let (status, created) = put(&t, &sandbox.guest("K1"), &owner, good.clone()).await;
    assert_eq!(status, 201, "{created}");
    let (status, taken) = put(
        &t,
        &sandbox.guest("K1"),
        &owner,
        with("email", "other@example.com".into()),
    )
    .await;
    assert_eq!(status, 409, "{taken}");
    let (status, missing) = t.get_json(&sandbox.guest("NOPE"), Some(&owner)).await;
    assert_eq!(status, 404, "{missing}");

    let (_, reader) = create_key(&t, &sandbox.dev, &["devices:read"]).await;
    let (status, refused) = t.get_json(&sandbox.guest("K1"), Some(&reader)).await;
    assert_eq!(status, 403, "{refused}");
    assert!(
        refused["detail"].as_str().unwrap().contains("guests:write"),
        "{refused}"
    );
}

/// A stay the household shortens holds at once: the guest is signed out
/// when the dates move (their claims carried the old window), so when the
/// shorter stay ends no token of theirs outlives it.
#[tokio::test]
async fn a_shortened_stay_signs_the_guest_out_at_once() {
    let (t, clock) = platform().await;
    let sandbox = sandbox(&t, "shorten-dev@example.com").await;
    let owner = sandbox.dev.access_token.clone();
    seed_account(&t, "sami@example.com", None, None).await;
    let now = clock_now(&clock);
    let path = sandbox.guest("ROOM-7");
    let stay = |check_out: OffsetDateTime| {
        json!({
            "email": "sami@example.com",
            "propertyId": sandbox.home,
            "checkIn": text(now - time::Duration::hours(1)),
            "checkOut": text(check_out),
        })
    };
    let (status, opened) = put(&t, &path, &owner, stay(now + time::Duration::days(3))).await;
    assert_eq!((status, opened["state"].as_str()), (201, Some("invited")));
    let (status, accepted) =
        accept_mailed_invitation(&t, "sami@example.com", json!({ "password": PASSWORD })).await;
    assert_eq!(status, 200, "{accepted}");
    let pair = t.household_login("sami@example.com", PASSWORD).await;
    let access = pair["accessToken"].as_str().unwrap().to_owned();
    let (_, me) = t.get_json("/auth/me", Some(&access)).await;
    assert_eq!(me["claims"]["clients"][&sandbox.client]["role"], "GUEST");

    let (status, moved) = put(&t, &path, &owner, stay(now + time::Duration::minutes(2))).await;
    assert_eq!(status, 200, "{moved}");
    assert_eq!(t.get_json("/auth/me", Some(&access)).await.0, 401);
    let (status, _) = t
        .post_json(
            "/auth/refresh",
            None,
            json!({ "refreshToken": pair["refreshToken"] }),
        )
        .await;
    assert_eq!(status, 401);
    // Signed in again, inside the shorter stay: the home is there until it ends.
    let (claims, _) = sign_in_claims(&t, "sami@example.com", PASSWORD).await;
    assert_eq!(claims["clients"][&sandbox.client]["role"], "GUEST");
    clock.advance(time::Duration::minutes(3));
    let (claims, _) = sign_in_claims(&t, "sami@example.com", PASSWORD).await;
    assert!(claims["clients"].get(&sandbox.client).is_none(), "{claims}");
}

/// Errors: "Stay has ended (phone): the person sees a stay-ended message".
/// After the stay sweep checks the guest out, the phone's session answers
/// with that message (on /auth/me and on refresh), not a bare 401.
#[tokio::test]
async fn a_guest_whose_stay_ended_is_told_so_on_refresh_and_in_me() {
    let (t, clock) = platform().await;
    let sandbox = sandbox(&t, "ended-dev@example.com").await;
    let owner = sandbox.dev.access_token.clone();
    seed_account(&t, "lena@example.com", None, None).await;
    let now = clock_now(&clock);
    let path = sandbox.guest("ROOM-9");
    let body = json!({
        "email": "lena@example.com",
        "propertyId": sandbox.home,
        "checkIn": text(now - time::Duration::hours(1)),
        "checkOut": text(now + time::Duration::minutes(5)),
    });
    let (status, _) = put(&t, &path, &owner, body).await;
    assert_eq!(status, 201);
    let (status, accepted) =
        accept_mailed_invitation(&t, "lena@example.com", json!({ "password": PASSWORD })).await;
    assert_eq!(status, 200, "{accepted}");
    // Its access token ends with the stay at the latest.
    let pair = t.household_login("lena@example.com", PASSWORD).await;
    let access = pair["accessToken"].as_str().unwrap().to_owned();
    assert_eq!(t.get_json("/auth/me", Some(&access)).await.0, 200);

    clock.advance(time::Duration::minutes(6));
    wait_for_state(&t, &path, &owner, "checked-out").await;
    let (status, me) = t.get_json("/auth/me", Some(&access)).await;
    assert_eq!(status, 401, "{me}");
    assert!(me["type"].as_str().unwrap().ends_with("stay-ended"), "{me}");
    assert!(me["detail"].as_str().unwrap().contains("stay has ended"));
    let (status, refused) = t
        .post_json(
            "/auth/refresh",
            None,
            json!({ "refreshToken": pair["refreshToken"] }),
        )
        .await;
    assert_eq!(status, 401);
    assert!(refused["type"].as_str().unwrap().ends_with("stay-ended"));
    // Signing in again works (the account is theirs), without the home.
    let (claims, _) = sign_in_claims(&t, "lena@example.com", PASSWORD).await;
    assert!(claims["clients"].get(&sandbox.client).is_none(), "{claims}");
}
