//! Invitations over HTTP, as a household and the people it invites meet
//! them: the owner invites an address; the person opens the mailed link
//! (from the local outbox; it opens the console's page), sees what they are
//! invited to, accepts with a name and a password (or their account's
//! password and TOTP code) and is signed in with the household in their
//! claims. Every dead link answers the same 410; of twenty accepts of one
//! link at once exactly one succeeds; an address with a verified account is
//! added at once.

use std::sync::Arc;
use std::time::Duration;

use alyt_local::InjectedClock;
use alyt_store::repo::identity::{MfaRecord, UserRecord, Users};
use alyt_tests::developers::{current_step, mails_to, token_of, totp_at_step};
use alyt_tests::principals::{PASSWORD, seed_account};
use alyt_tests::webhooks::OffsetClock;
use alyt_tests::{TestPlatform, without_request_id};
use serde_json::{Value, json};

const NEW_PASSWORD: &str = "orange kettle harbour";

struct Household {
    tenant: String,
    client: String,
    home: String,
}

fn demo(t: &TestPlatform) -> Household {
    let first = t.platform.first_start.as_ref().unwrap();
    Household {
        tenant: first.tenant_id.to_string(),
        client: first.client_id.to_string(),
        home: first.property_id.to_string(),
    }
}

impl Household {
    fn invitations(&self) -> String {
        format!(
            "/tenants/{}/clients/{}/invitations",
            self.tenant, self.client
        )
    }

    fn members(&self) -> String {
        format!("/tenants/{}/clients/{}/members", self.tenant, self.client)
    }
}

async fn owner_token(t: &TestPlatform) -> String {
    let (email, password) = t.owner();
    t.household_login(&email, &password).await["accessToken"]
        .as_str()
        .unwrap()
        .to_owned()
}

async fn invite(t: &TestPlatform, house: &Household, owner: &str, body: Value) -> (u16, Value) {
    t.post_json(&house.invitations(), Some(owner), body).await
}

/// The token of the newest invitation link mailed to `to`.
fn link_token(t: &TestPlatform, to: &str) -> String {
    let mail = mails_to(t, to);
    let link = mail
        .iter()
        .rev()
        .find_map(|m| m.link("/invitation?token="))
        .expect("an invitation mail with its link");
    token_of(&link)
}

async fn open(t: &TestPlatform, token: &str) -> (u16, Value) {
    t.get_json(&format!("/auth/invitations/{token}"), None)
        .await
}

async fn accept(t: &TestPlatform, token: &str, body: Value) -> (u16, Value) {
    t.post_json(&format!("/auth/invitations/{token}/accept"), None, body)
        .await
}

/// The problem body of a dead link, without what differs per request.
fn dead(body: Value) -> Value {
    without_request_id(body)
}

#[tokio::test]
async fn a_new_person_accepts_the_mailed_link_and_is_signed_in_with_the_household() {
    let t = TestPlatform::start().await;
    let house = demo(&t);
    let owner = owner_token(&t).await;

    let (status, created) = invite(
        &t,
        &house,
        &owner,
        json!({ "email": "Nora.Lind@example.com", "name": "Nora", "role": "MEMBER" }),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["status"], "invited");
    assert_eq!(created["member"], Value::Null);
    let invitation = &created["invitation"];
    assert_eq!(invitation["email"], "Nora.Lind@example.com");
    assert_eq!(invitation["name"], "Nora");
    assert_eq!(invitation["role"], "MEMBER");
    assert_eq!(invitation["state"], "waiting");
    assert_eq!(invitation["sends"], 1);
    assert!(invitation.get("tokenHash").is_none(), "{invitation}");

    // The mail carries a one-time link to the console's page.
    let mail = mails_to(&t, "Nora.Lind@example.com");
    assert_eq!(mail.len(), 1);
    assert_eq!(mail[0].subject, "You are invited to Demo household on Alyt");
    assert!(mail[0].body.contains("Hello Nora,"), "{}", mail[0].body);
    assert!(mail[0].body.contains("as a member"), "{}", mail[0].body);
    let token = link_token(&t, "nora.lind@example.com");

    // What the link shows, before and without a session.
    let (status, preview) = open(&t, &token).await;
    assert_eq!(status, 200, "{preview}");
    assert_eq!(
        preview,
        json!({
            "household": { "clientId": house.client, "name": "Demo household" },
            "home": null,
            "inviter": { "name": "o•••@alyt.local" },
            "role": "member",
            "stay": null,
            "email": "N•••@example.com",
            "hasAccount": false,
        })
    );

    // Refusals name the field and leave the link working.
    let (status, refused) = accept(&t, &token, json!({ "password": NEW_PASSWORD })).await;
    assert_eq!(
        (status, refused["field"].as_str()),
        (400, Some("name")),
        "{refused}"
    );
    let (status, refused) =
        accept(&t, &token, json!({ "name": "Nora", "password": "short" })).await;
    assert_eq!(
        (status, refused["field"].as_str()),
        (400, Some("password")),
        "{refused}"
    );
    assert_eq!(open(&t, &token).await.0, 200);

    let (status, pair) = accept(
        &t,
        &token,
        json!({ "name": "Nora Lind", "password": NEW_PASSWORD }),
    )
    .await;
    assert_eq!(status, 200, "{pair}");
    let access = pair["accessToken"].as_str().unwrap();
    assert!(pair["refreshToken"].is_string() && pair["expiresIn"].is_i64());
    let (_, me) = t.get_json("/auth/me", Some(access)).await;
    assert_eq!(me["claims"]["email"], "Nora.Lind@example.com");
    assert_eq!(me["claims"]["clients"][&house.client]["role"], "MEMBER");
    let (status, homes) = t
        .get_json(
            &format!("/properties?tenantId={}", house.tenant),
            Some(access),
        )
        .await;
    assert_eq!(status, 200, "{homes}");
    assert_eq!(homes["items"][0]["id"], house.home.as_str());

    // The link is spent: it answers like a link that never existed.
    let (status, spent) = open(&t, &token).await;
    assert_eq!(status, 410, "{spent}");
    let (status, again) =
        accept(&t, &token, json!({ "name": "X", "password": NEW_PASSWORD })).await;
    assert_eq!(status, 410);
    let (_, unknown) = open(&t, "never-issued-token-0123456789").await;
    assert_eq!(dead(spent.clone()), dead(unknown.clone()));
    assert_eq!(dead(again), dead(unknown));

    // The new account signs in with its password; the acceptance proved
    // the address.
    let pair = t
        .household_login("nora.lind@example.com", NEW_PASSWORD)
        .await;
    assert!(pair["accessToken"].is_string(), "{pair}");
    let account = Users(&*t.platform.store())
        .find_by_email("nora.lind@example.com")
        .await
        .unwrap()
        .unwrap();
    assert!(account.email_verified_at.is_some());
    assert_eq!(account.name.as_deref(), Some("Nora Lind"));

    // The household sees her, and no pending invitation any more.
    let (status, pending) = t.get_json(&house.invitations(), Some(&owner)).await;
    assert_eq!(status, 200, "{pending}");
    assert_eq!(pending["items"], json!([]));
    let (_, people) = t.get_json(&house.members(), Some(&owner)).await;
    let nora = people["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["email"] == "Nora.Lind@example.com")
        .expect("Nora is a member")
        .clone();
    assert_eq!(nora["role"], "MEMBER");
    let (_, owner_me) = t.get_json("/auth/me", Some(&owner)).await;
    assert_eq!(nora["invitedBy"], owner_me["claims"]["sub"]);
    let (_, notifications) = t
        .get_json(
            &format!("/notifications?tenantId={}", house.tenant),
            Some(&owner),
        )
        .await;
    let granted = notifications["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["kind"] == "membership.granted")
        .expect("the household is told")
        .clone();
    assert_eq!(
        granted["body"],
        "N•••@example.com accepted an invitation and joined Demo household as a member."
    );
}

#[tokio::test]
async fn the_mailed_link_opens_the_consoles_page() {
    let t = TestPlatform::start().await;
    let house = demo(&t);
    let owner = owner_token(&t).await;
    let (status, created) = invite(
        &t,
        &house,
        &owner,
        json!({ "email": "page@example.com", "role": "MEMBER" }),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let link = mails_to(&t, "page@example.com")
        .iter()
        .find_map(|m| m.link("/invitation?token="))
        .expect("an invitation mail with its link");

    // Opened exactly as the mail carries it: the console's page, under the
    // console's policy (the page reads the invitation through the API).
    let response = t.http.get(&link).send().await.expect("request sent");
    assert_eq!(response.status(), 200, "{link}");
    let headers = response.headers();
    assert_eq!(headers["content-type"], "text/html; charset=utf-8");
    let policy = headers["content-security-policy"].to_str().unwrap();
    assert!(policy.starts_with("default-src 'self'"), "{policy}");
    assert!(policy.contains("frame-ancestors 'none'"), "{policy}");
    let page = response.text().await.unwrap();
    assert!(page.contains("/console/app.js"), "{page}");
}

#[tokio::test]
async fn a_guest_invitation_shows_the_home_and_the_stay_and_pins_the_guest() {
    let t = TestPlatform::start().await;
    let house = demo(&t);
    let owner = owner_token(&t).await;
    let now = time::OffsetDateTime::now_utc();
    let ends = (now + time::Duration::days(3))
        .replace_nanosecond(0)
        .unwrap();
    let ends_text = ends
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    let (status, created) = invite(
        &t,
        &house,
        &owner,
        json!({
            "email": "guest@example.com",
            "role": "GUEST",
            "propertyId": house.home,
            "expiresAt": ends_text,
            "reservationKey": "BK-2026-0042",
        }),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["invitation"]["reservationKey"], "BK-2026-0042");
    let token = link_token(&t, "guest@example.com");
    let (_, preview) = open(&t, &token).await;
    assert_eq!(preview["role"], "guest");
    assert_eq!(preview["home"]["propertyId"], house.home.as_str());
    assert!(preview["home"]["name"].is_string(), "{preview}");
    assert_eq!(preview["stay"]["expiresAt"], ends_text.as_str());
    assert!(preview["stay"]["startsAt"].is_string(), "{preview}");

    let (status, pair) = accept(
        &t,
        &token,
        json!({ "name": "Gus", "password": NEW_PASSWORD }),
    )
    .await;
    assert_eq!(status, 200, "{pair}");
    let (_, me) = t.get_json("/auth/me", pair["accessToken"].as_str()).await;
    let grant = &me["claims"]["clients"][&house.client];
    assert_eq!(grant["role"], "GUEST", "{me}");
    assert_eq!(grant["propertyId"], house.home.as_str());
    assert_eq!(me["homes"][0]["until"], ends_text.as_str());
    let (_, people) = t.get_json(&house.members(), Some(&owner)).await;
    let gus = people["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["email"] == "guest@example.com")
        .unwrap()
        .clone();
    assert_eq!(gus["reservationKey"], "BK-2026-0042");
    assert_eq!(gus["propertyId"], house.home.as_str());
}

#[tokio::test]
async fn every_dead_link_answers_the_same_410_and_a_resend_revives_an_expired_invitation() {
    let clock = Arc::new(OffsetClock::default());
    let platform_clock = clock.clone();
    let t = TestPlatform::start_with_config(move |config| {
        config.clock = Some(InjectedClock(platform_clock));
    })
    .await;
    let house = demo(&t);
    let owner = owner_token(&t).await;

    let (_, unknown) = open(&t, "never-issued-token-0123456789").await;
    let (status, too_long) = open(&t, &"x".repeat(300)).await;
    assert_eq!(status, 410);
    assert_eq!(dead(too_long), dead(unknown.clone()));

    // Withdrawn.
    let (_, created) = invite(
        &t,
        &house,
        &owner,
        json!({ "email": "w@example.com", "role": "MEMBER" }),
    )
    .await;
    let id = created["invitation"]["id"].as_str().unwrap().to_owned();
    let token = link_token(&t, "w@example.com");
    let (status, _) = t
        .send_json(
            "DELETE",
            &format!("{}/{id}", house.invitations()),
            Some(&owner),
            None,
        )
        .await;
    assert_eq!(status, 204);
    let (status, withdrawn) = open(&t, &token).await;
    assert_eq!(status, 410);
    assert_eq!(dead(withdrawn), dead(unknown.clone()));
    let (status, _) = accept(&t, &token, json!({ "name": "W", "password": NEW_PASSWORD })).await;
    assert_eq!(status, 410);
    let (status, gone) = t
        .send_json(
            "DELETE",
            &format!("{}/{id}", house.invitations()),
            Some(&owner),
            None,
        )
        .await;
    assert_eq!(status, 404, "{gone}");

    // Expired after 7 days; the list says so; a resend sends a new link for
    // 7 more days and the old one stays dead.
    let (_, created) = invite(
        &t,
        &house,
        &owner,
        json!({ "email": "late@example.com", "role": "MEMBER" }),
    )
    .await;
    let id = created["invitation"]["id"].as_str().unwrap().to_owned();
    let first = link_token(&t, "late@example.com");
    clock.advance(Duration::from_secs(7 * 86_400 - 5));
    assert_eq!(open(&t, &first).await.0, 200, "alive until the last second");
    clock.advance(Duration::from_secs(6));
    let (status, expired) = open(&t, &first).await;
    assert_eq!(status, 410);
    assert_eq!(dead(expired), dead(unknown.clone()));
    let owner = owner_token(&t).await;
    let (_, pending) = t.get_json(&house.invitations(), Some(&owner)).await;
    assert_eq!(pending["items"][0]["state"], "link-expired", "{pending}");

    let (status, resent) = t
        .post_json(
            &format!("{}/{id}/resend", house.invitations()),
            Some(&owner),
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{resent}");
    assert_eq!(resent["sends"], 2);
    assert_eq!(resent["state"], "waiting");
    let second = link_token(&t, "late@example.com");
    assert_ne!(first, second);
    assert_eq!(open(&t, &first).await.0, 410);
    assert_eq!(open(&t, &second).await.0, 200);

    // A resend of a live link kills that link too.
    let (status, _) = t
        .post_json(
            &format!("{}/{id}/resend", house.invitations()),
            Some(&owner),
            json!({}),
        )
        .await;
    assert_eq!(status, 200);
    let (status, old) = open(&t, &second).await;
    assert_eq!(status, 410);
    assert_eq!(dead(old), dead(unknown));
    let third = link_token(&t, "late@example.com");
    let (status, pair) = accept(
        &t,
        &third,
        json!({ "name": "Late", "password": NEW_PASSWORD }),
    )
    .await;
    assert_eq!(status, 200, "{pair}");
    let (status, _) = t
        .post_json(
            &format!("{}/{id}/resend", house.invitations()),
            Some(&owner),
            json!({}),
        )
        .await;
    assert_eq!(status, 404, "an accepted invitation is no longer pending");
}

#[tokio::test]
async fn twenty_accepts_of_one_link_at_once_make_one_member() {
    let t = TestPlatform::start_with(|config| config.rate_limit.quota = 10_000).await;
    let house = demo(&t);
    let owner = owner_token(&t).await;
    let (status, _) = invite(
        &t,
        &house,
        &owner,
        json!({ "email": "race@example.com", "role": "MEMBER" }),
    )
    .await;
    assert_eq!(status, 201);
    let token = link_token(&t, "race@example.com");
    let url = t.url(&format!("/auth/invitations/{token}/accept"));
    let tasks: Vec<_> = (0..20)
        .map(|n| {
            let (http, url) = (t.http.clone(), url.clone());
            tokio::spawn(async move {
                http.post(&url)
                    .json(&json!({ "name": format!("Racer {n}"), "password": NEW_PASSWORD }))
                    .send()
                    .await
                    .unwrap()
                    .status()
                    .as_u16()
            })
        })
        .collect();
    let mut statuses = Vec::new();
    for task in tasks {
        statuses.push(task.await.unwrap());
    }
    statuses.sort();
    let mut expected = vec![410; 19];
    expected.insert(0, 200);
    assert_eq!(statuses, expected);
    let (_, people) = t.get_json(&house.members(), Some(&owner)).await;
    let racers = people["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["email"] == "race@example.com")
        .count();
    assert_eq!(racers, 1);
}

#[tokio::test]
async fn a_verified_account_is_added_at_once_and_signed_out_to_see_it() {
    let t = TestPlatform::start().await;
    let house = demo(&t);
    let owner = owner_token(&t).await;
    seed_account(&t, "ida@example.com", None, None).await;
    let pair = t.household_login("ida@example.com", PASSWORD).await;
    let refresh = pair["refreshToken"].as_str().unwrap().to_owned();

    let (status, created) = invite(
        &t,
        &house,
        &owner,
        json!({ "email": "IDA@example.com", "role": "MEMBER" }),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["status"], "added");
    assert_eq!(created["invitation"], Value::Null);
    assert_eq!(created["member"]["email"], "ida@example.com");
    assert_eq!(created["member"]["role"], "MEMBER");
    // Her sessions were signed out, so her next sign-in names the household.
    let (status, _) = t
        .post_json("/auth/refresh", None, json!({ "refreshToken": refresh }))
        .await;
    assert_eq!(status, 401);
    let pair = t.household_login("ida@example.com", PASSWORD).await;
    let (_, me) = t.get_json("/auth/me", pair["accessToken"].as_str()).await;
    assert_eq!(me["claims"]["clients"][&house.client]["role"], "MEMBER");
    let mail = mails_to(&t, "ida@example.com");
    assert_eq!(mail.len(), 1);
    assert_eq!(mail[0].subject, "You were added to Demo household");

    let (status, again) = invite(&t, &house, &owner, json!({ "email": "ida@example.com", "role": "GUEST", "propertyId": house.home, "expiresAt": "2099-01-01T00:00:00Z" })).await;
    assert_eq!(status, 409, "{again}");
    assert!(
        again["detail"]
            .as_str()
            .unwrap()
            .contains("already a member")
    );
}

/// Adding a verified account signs the person out so the grant shows at
/// once, but at most five times a day per person: a household cannot keep
/// signing someone out by adding and removing them. Past the budget the
/// grant waits for the person's next refresh.
#[tokio::test]
async fn grants_sign_a_person_out_at_most_five_times_a_day() {
    let t = TestPlatform::start().await;
    let house = demo(&t);
    let owner = owner_token(&t).await;
    let ivo = seed_account(&t, "ivo@example.com", None, None).await;
    let mut pair = t.household_login("ivo@example.com", PASSWORD).await;
    let add = json!({ "email": "ivo@example.com", "role": "MEMBER" });
    let remove = format!("{}/{}", house.members(), ivo.id);
    for round in 1..=6 {
        let (status, created) = invite(&t, &house, &owner, add.clone()).await;
        assert_eq!(
            (status, created["status"].as_str()),
            (201, Some("added")),
            "{created}"
        );
        let access = pair["accessToken"].as_str().unwrap().to_owned();
        let (status, me) = t.get_json("/auth/me", Some(&access)).await;
        if round <= 5 {
            assert_eq!(status, 401, "round {round}: signed out so the grant shows");
        } else {
            // Still signed in; the household is not in this token yet, and
            // the next refresh brings it.
            assert_eq!(status, 200, "round {round}: {me}");
            assert!(me["claims"]["clients"].get(&house.client).is_none());
            let (status, refreshed) = t
                .post_json(
                    "/auth/refresh",
                    None,
                    json!({ "refreshToken": pair["refreshToken"] }),
                )
                .await;
            assert_eq!(status, 200, "{refreshed}");
            let (_, me) = t
                .get_json("/auth/me", refreshed["accessToken"].as_str())
                .await;
            assert_eq!(me["claims"]["clients"][&house.client]["role"], "MEMBER");
            break;
        }
        let (status, _) = t.send_json("DELETE", &remove, Some(&owner), None).await;
        assert_eq!(status, 204);
        pair = t.household_login("ivo@example.com", PASSWORD).await;
    }
}

#[tokio::test]
async fn an_unverified_account_accepts_with_its_password_and_totp_and_the_link_proves_its_address()
{
    let t = TestPlatform::start().await;
    let house = demo(&t);
    let owner = owner_token(&t).await;
    let secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP".to_owned();
    let seeded = seed_account(&t, "mfa@example.com", None, None).await;
    let now = time::OffsetDateTime::now_utc();
    Users(&*t.platform.store())
        .save(&UserRecord {
            email_verified_at: None,
            mfa: Some(MfaRecord {
                secret_base32: secret.clone(),
                enabled_at: Some(now),
            }),
            ..seeded.clone()
        })
        .await
        .unwrap();

    let (status, created) = invite(
        &t,
        &house,
        &owner,
        json!({ "email": "mfa@example.com", "role": "MEMBER" }),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["status"], "invited");
    let token = link_token(&t, "mfa@example.com");
    let (_, preview) = open(&t, &token).await;
    assert_eq!(preview["hasAccount"], true);

    let (status, refused) = accept(&t, &token, json!({ "name": "M", "password": PASSWORD })).await;
    assert_eq!(
        (status, refused["field"].as_str()),
        (400, Some("name")),
        "{refused}"
    );
    let (status, _) = accept(&t, &token, json!({ "password": "not the password" })).await;
    assert_eq!(status, 401);
    let (status, needs_code) = accept(&t, &token, json!({ "password": PASSWORD })).await;
    assert_eq!(status, 401, "{needs_code}");
    let code = totp_at_step(&secret, current_step());
    let (status, pair) = accept(&t, &token, json!({ "password": PASSWORD, "totp": code })).await;
    assert_eq!(status, 200, "{pair}");
    let (_, me) = t.get_json("/auth/me", pair["accessToken"].as_str()).await;
    assert_eq!(me["claims"]["sub"], seeded.id.to_string());
    assert_eq!(me["claims"]["clients"][&house.client]["role"], "MEMBER");
    let account = Users(&*t.platform.store())
        .get(seeded.id)
        .await
        .unwrap()
        .unwrap();
    assert!(
        account.email_verified_at.is_some(),
        "the link proved the address"
    );
}

#[tokio::test]
async fn invitations_refuse_bad_input_with_the_field_and_one_pending_invitation_per_address() {
    let t = TestPlatform::start().await;
    let house = demo(&t);
    let owner = owner_token(&t).await;
    let cases = [
        (
            json!({ "email": "not-an-address", "role": "MEMBER" }),
            "email",
        ),
        (
            json!({ "email": "a@example.com", "role": "GUEST", "expiresAt": "2099-01-01T00:00:00Z" }),
            "propertyId",
        ),
        (
            json!({ "email": "a@example.com", "role": "GUEST", "propertyId": house.home }),
            "expiresAt",
        ),
        (
            json!({ "email": "a@example.com", "role": "MEMBER", "propertyId": house.home }),
            "propertyId",
        ),
        (
            json!({ "email": "a@example.com", "role": "MEMBER", "reservationKey": "BK-1" }),
            "reservationKey",
        ),
        (
            json!({ "email": "a@example.com", "role": "GUEST", "propertyId": house.home, "expiresAt": "2099-01-01T00:00:00Z", "reservationKey": "has space" }),
            "reservationKey",
        ),
        (
            json!({ "email": "a@example.com", "role": "OWNER", "requireNetwork": true }),
            "requireNetwork",
        ),
        (
            json!({ "email": "a@example.com", "role": "MEMBER", "phoneThingId": "0190b5a0-0000-7000-8000-0000000000aa" }),
            "phoneThingId",
        ),
        (
            json!({ "email": "a@example.com", "role": "MEMBER", "name": "x".repeat(101) }),
            "name",
        ),
        (
            json!({ "email": "a@example.com", "role": "GUEST", "propertyId": "0190b5a0-0000-7000-8000-0000000000aa", "expiresAt": "2099-01-01T00:00:00Z" }),
            "propertyId",
        ),
    ];
    for (body, field) in cases {
        let (status, problem) = invite(&t, &house, &owner, body.clone()).await;
        assert_eq!(
            (status, problem["field"].as_str()),
            (400, Some(field)),
            "{body} -> {problem}"
        );
    }
    let (status, problem) = invite(
        &t,
        &house,
        &owner,
        json!({ "email": "a@example.com", "role": "MEMBER", "requireNetwork": true }),
    )
    .await;
    assert_eq!(status, 400);
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("connect the network controller or wait for the hub link"),
        "{problem}"
    );
    let (status, problem) = invite(
        &t,
        &house,
        &owner,
        json!({ "email": "a@example.com", "role": "OWNER", "requireNetwork": true }),
    )
    .await;
    assert_eq!(status, 400);
    assert!(
        problem["detail"].as_str().unwrap().contains("owner"),
        "{problem}"
    );
    let (status, unknown_role) = invite(
        &t,
        &house,
        &owner,
        json!({ "email": "a@example.com", "role": "BUTLER" }),
    )
    .await;
    assert_eq!(status, 400, "{unknown_role}");

    let (status, first) = invite(
        &t,
        &house,
        &owner,
        json!({ "email": "a@example.com", "role": "MEMBER" }),
    )
    .await;
    assert_eq!(status, 201, "{first}");
    let (status, twice) = invite(
        &t,
        &house,
        &owner,
        json!({ "email": "A@Example.com", "role": "OWNER" }),
    )
    .await;
    assert_eq!(status, 409, "{twice}");
    let id = first["invitation"]["id"].as_str().unwrap();
    assert!(twice["detail"].as_str().unwrap().contains(id), "{twice}");
    assert_eq!(mails_to(&t, "a@example.com").len(), 1);
    let (status, missing) = t
        .post_json(
            &format!(
                "{}/0190b5a0-0000-7000-8000-0000000000aa/resend",
                house.invitations()
            ),
            Some(&owner),
            json!({}),
        )
        .await;
    assert_eq!(status, 404, "{missing}");
    let (_, page) = t
        .get_json(&format!("{}?limit=1", house.invitations()), Some(&owner))
        .await;
    assert_eq!(page["items"].as_array().unwrap().len(), 1);
    assert_eq!(page["nextCursor"], Value::Null);
}

/// Invitation mails have daily budgets, so nobody can use them to flood an
/// inbox with text they chose: 5 a day to one address (from every household
/// together: a sandbox cannot add a sixth) and 50 a day from one household,
/// sends and resends alike. A refusal is 429 `too-many-mails` with Retry-After,
/// sends nothing and counts nothing; the next day (UTC) the budget is back.
#[tokio::test]
async fn invitation_mails_have_a_daily_budget_per_address_and_per_household() {
    let clock = Arc::new(OffsetClock::default());
    let platform_clock = clock.clone();
    let t = TestPlatform::start_with_config(move |config| {
        config.clock = Some(InjectedClock(platform_clock));
    })
    .await;
    let house = demo(&t);
    let owner = owner_token(&t).await;
    let target = "flooded@example.com";

    let (status, created) = invite(
        &t,
        &house,
        &owner,
        json!({ "email": target, "role": "MEMBER", "name": "Buy now at spam.example" }),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let resend = format!(
        "{}/{}/resend",
        house.invitations(),
        created["invitation"]["id"].as_str().unwrap()
    );
    for _ in 0..4 {
        let (status, body) = t.post_json(&resend, Some(&owner), json!({})).await;
        assert_eq!(status, 200, "{body}");
    }
    assert_eq!(mails_to(&t, target).len(), 5);
    let response = t
        .http
        .post(t.url(&resend))
        .bearer_auth(&owner)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 429);
    let wait: u64 = response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=86_400).contains(&wait), "{wait}");
    let refused: Value = response.json().await.unwrap();
    assert!(
        refused["type"]
            .as_str()
            .unwrap()
            .ends_with("too-many-mails"),
        "{refused}"
    );
    assert!(
        refused["detail"].as_str().unwrap().contains("address"),
        "{refused}"
    );
    assert_eq!(mails_to(&t, target).len(), 5, "a refusal sends nothing");

    // Another household is held by the same address budget.
    let dev = alyt_tests::developers::sign_up_and_verify(&t, "budget-dev@example.com").await;
    let sandbox = alyt_tests::developers::sandbox_home(&t, &dev).await;
    let sandbox_invitations = format!(
        "/tenants/{}/clients/{}/invitations",
        dev.sandbox_tenant_id, sandbox.client_id
    );
    let (status, refused) = t
        .post_json(
            &sandbox_invitations,
            Some(&dev.access_token),
            json!({ "email": target, "role": "MEMBER" }),
        )
        .await;
    assert_eq!(status, 429, "{refused}");
    let (_, pending) = t
        .get_json(&sandbox_invitations, Some(&dev.access_token))
        .await;
    assert_eq!(
        pending["items"],
        json!([]),
        "a refused invitation is not kept"
    );

    // The household's budget: 50 mails a day over every address.
    for n in 0..45 {
        let (status, body) = invite(
            &t,
            &house,
            &owner,
            json!({ "email": format!("person{n}@example.com"), "role": "MEMBER" }),
        )
        .await;
        assert_eq!(status, 201, "mail {} of the household: {body}", n + 6);
    }
    let (status, refused) = invite(
        &t,
        &house,
        &owner,
        json!({ "email": "one-too-many@example.com", "role": "MEMBER" }),
    )
    .await;
    assert_eq!(status, 429, "{refused}");
    assert!(
        refused["detail"].as_str().unwrap().contains("household"),
        "{refused}"
    );
    assert!(mails_to(&t, "one-too-many@example.com").is_empty());

    // A day later both budgets are back.
    clock.advance(Duration::from_secs(86_400));
    let owner = owner_token(&t).await;
    let (status, body) = t.post_json(&resend, Some(&owner), json!({})).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = invite(
        &t,
        &house,
        &owner,
        json!({ "email": "one-too-many@example.com", "role": "MEMBER" }),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(mails_to(&t, target).len(), 6);
}
