//! A household's people over HTTP: an owner grants a person by user id (the
//! person's next refresh names the household), lists the people, removes
//! one (their sessions end first); the household's notifications, the
//! person's mail and the sandbox's event stream announce every grant and
//! end of membership; the rules (guests pinned for a stay, nobody removes
//! themselves, the last owner stays) answer with clear 4xx.
//!
//! Accounts are seeded through the repository: the platform has no
//! household sign-up (people arrive by grant, or by invitation later).

use std::time::Duration;

use alyt_domain::access::TenantRole;
use alyt_tests::TestPlatform;
use alyt_tests::developers::{
    DeveloperSession, accept_mailed_invitation, create_key, mails_to, sandbox_home,
    sign_up_and_verify,
};
use alyt_tests::principals::{PASSWORD, seed_account};
use alyt_tests::webhooks::SseReader;
use serde_json::{Value, json};

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
    fn members(&self) -> String {
        format!("/tenants/{}/clients/{}/members", self.tenant, self.client)
    }

    fn member(&self, user: &str) -> String {
        format!("{}/{user}", self.members())
    }
}

async fn sign_in(t: &TestPlatform, email: &str, password: &str) -> (String, String) {
    let pair = t.household_login(email, password).await;
    (
        pair["accessToken"].as_str().unwrap().to_owned(),
        pair["refreshToken"].as_str().unwrap().to_owned(),
    )
}

async fn owner_token(t: &TestPlatform) -> String {
    let (email, password) = t.owner();
    sign_in(t, &email, &password).await.0
}

/// A person with an account and no household.
async fn person(t: &TestPlatform, email: &str) -> (String, String, String) {
    let user = seed_account(t, email, None, None).await;
    let (access, refresh) = sign_in(t, email, PASSWORD).await;
    (user.id.to_string(), access, refresh)
}

/// `POST …/members { userId, role }`.
async fn grant(
    t: &TestPlatform,
    house: &Household,
    token: &str,
    user: &str,
    role: &str,
) -> (u16, Value) {
    t.post_json(
        &house.members(),
        Some(token),
        json!({ "userId": user, "role": role }),
    )
    .await
}

/// The household of a developer's sandbox (and its home).
async fn sandbox_of(t: &TestPlatform, dev: &DeveloperSession) -> Household {
    let home = sandbox_home(t, dev).await;
    Household {
        tenant: dev.sandbox_tenant_id.clone(),
        client: home.client_id,
        home: home.property_id,
    }
}

async fn delete(t: &TestPlatform, path: &str, token: &str) -> (u16, Value) {
    t.send_json("DELETE", path, Some(token), None).await
}

fn kinds(notifications: &Value) -> Vec<(String, String)> {
    notifications["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            (
                n["kind"].as_str().unwrap().to_owned(),
                n["title"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_granted_member_sees_the_household_until_removed_and_the_household_is_told_each_time() {
    let t = TestPlatform::start().await;
    let house = demo(&t);
    let owner = owner_token(&t).await;
    let (anna, anna_token, anna_refresh) = person(&t, "anna.berg@example.com").await;
    let homes = format!("/properties?tenantId={}", house.tenant);

    // Before the grant the tenant does not exist for her.
    let (status, _) = t.get_json(&homes, Some(&anna_token)).await;
    assert_eq!(status, 404);

    let (status, member) = grant(&t, &house, &owner, &anna, "MEMBER").await;
    assert_eq!(status, 201, "{member}");
    assert_eq!(member["userId"], anna.as_str());
    assert_eq!(member["email"], "anna.berg@example.com");
    assert_eq!(member["role"], "MEMBER");
    assert_eq!(member["status"], "active");
    assert_eq!(member["propertyId"], Value::Null);
    let (_, me) = t.get_json("/auth/me", Some(&owner)).await;
    assert_eq!(member["invitedBy"], me["claims"]["sub"]);

    let (status, again) = grant(&t, &house, &owner, &anna, "OWNER").await;
    assert_eq!(status, 409, "{again}");

    // Her next refresh names the household; she sees its home.
    let (status, pair) = t
        .post_json(
            "/auth/refresh",
            None,
            json!({ "refreshToken": anna_refresh }),
        )
        .await;
    assert_eq!(status, 200, "{pair}");
    let anna_token = pair["accessToken"].as_str().unwrap().to_owned();
    let anna_refresh = pair["refreshToken"].as_str().unwrap().to_owned();
    let (_, me) = t.get_json("/auth/me", Some(&anna_token)).await;
    assert_eq!(me["claims"]["clients"][&house.client]["role"], "MEMBER");
    let (status, listed) = t.get_json(&homes, Some(&anna_token)).await;
    assert_eq!(status, 200, "{listed}");
    assert_eq!(listed["items"][0]["id"], house.home.as_str());

    // A member controls the home but does not manage its people.
    let (status, refused) = t.get_json(&house.members(), Some(&anna_token)).await;
    assert_eq!(status, 403, "{refused}");

    // The household (her included) reads the grant, with her address masked.
    let notifications = format!("/notifications?tenantId={}", house.tenant);
    let (status, hers) = t.get_json(&notifications, Some(&anna_token)).await;
    assert_eq!(status, 200, "{hers}");
    assert_eq!(
        kinds(&hers),
        vec![(
            "membership.granted".to_owned(),
            "a•••@example.com joined Demo household".to_owned()
        )]
    );
    let granted = &hers["items"][0];
    assert_eq!(granted["clientId"], house.client.as_str());
    assert_eq!(granted["propertyId"], Value::Null);
    assert!(
        !granted["body"].as_str().unwrap().contains("anna.berg"),
        "{granted}"
    );
    let mail = mails_to(&t, "anna.berg@example.com");
    assert_eq!(mail.len(), 1);
    assert_eq!(mail[0].subject, "You were added to Demo household");

    let (status, people) = t.get_json(&house.members(), Some(&owner)).await;
    assert_eq!(status, 200, "{people}");
    let roles: Vec<(&str, &str)> = people["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["email"].as_str().unwrap(), m["role"].as_str().unwrap()))
        .collect();
    assert!(
        roles.contains(&("anna.berg@example.com", "MEMBER")),
        "{people}"
    );
    assert!(roles.contains(&(t.owner().0.as_str(), "OWNER")), "{people}");
    // Every field of the people list is there, null where it does not apply.
    for member in people["items"].as_array().unwrap() {
        for field in [
            "avatar",
            "role",
            "propertyId",
            "startsAt",
            "expiresAt",
            "status",
            "networkCondition",
            "phone",
            "lastSeen",
            "reservationKey",
            "invitedBy",
        ] {
            assert!(member.get(field).is_some(), "{field} missing: {member}");
        }
    }

    // Removal: her sessions end first, then the membership.
    let (status, body) = delete(&t, &house.member(&anna), &owner).await;
    assert_eq!(status, 204, "{body}");
    let (status, _) = t.get_json("/auth/me", Some(&anna_token)).await;
    assert_eq!(status, 401, "her access token died with her session");
    let (status, _) = t
        .post_json(
            "/auth/refresh",
            None,
            json!({ "refreshToken": anna_refresh }),
        )
        .await;
    assert_eq!(status, 401);
    let (anna_token, _) = sign_in(&t, "anna.berg@example.com", PASSWORD).await;
    let (status, _) = t.get_json(&homes, Some(&anna_token)).await;
    assert_eq!(
        status, 404,
        "signed in again, she no longer reaches the home"
    );
    let (status, gone) = delete(&t, &house.member(&anna), &owner).await;
    assert_eq!(status, 404, "{gone}");

    let (_, told) = t.get_json(&notifications, Some(&owner)).await;
    assert_eq!(
        kinds(&told)[..2],
        [
            (
                "membership.ended".to_owned(),
                "a•••@example.com left Demo household".to_owned()
            ),
            (
                "membership.granted".to_owned(),
                "a•••@example.com joined Demo household".to_owned()
            ),
        ]
    );
    let mail = mails_to(&t, "anna.berg@example.com");
    assert_eq!(
        mail.last().unwrap().subject,
        "You no longer have access to Demo household"
    );
}

#[tokio::test]
async fn nobody_removes_themselves_and_the_last_owner_stays() {
    let t = TestPlatform::start().await;
    let house = demo(&t);
    // The first owner is also platform OWNER and the tenant's ADMIN.
    let staff = owner_token(&t).await;
    let (_, me) = t.get_json("/auth/me", Some(&staff)).await;
    let first_owner = me["claims"]["sub"].as_str().unwrap().to_owned();

    let (status, refused) = delete(&t, &house.member(&first_owner), &staff).await;
    assert_eq!(status, 409, "{refused}");
    assert!(
        refused["detail"].as_str().unwrap().contains("themselves"),
        "{refused}"
    );

    // A second owner removes the first; then staff cannot remove the second.
    let (ben, _, ben_refresh) = person(&t, "ben@example.com").await;
    let (status, _) = grant(&t, &house, &staff, &ben, "OWNER").await;
    assert_eq!(status, 201);
    let (_, pair) = t
        .post_json(
            "/auth/refresh",
            None,
            json!({ "refreshToken": ben_refresh }),
        )
        .await;
    let ben_token = pair["accessToken"].as_str().unwrap().to_owned();
    let (status, body) = delete(&t, &house.member(&first_owner), &ben_token).await;
    assert_eq!(status, 204, "{body}");

    let staff = owner_token(&t).await;
    let (status, refused) = delete(&t, &house.member(&ben), &staff).await;
    assert_eq!(status, 409, "{refused}");
    assert!(
        refused["detail"]
            .as_str()
            .unwrap()
            .contains("at least one owner"),
        "{refused}"
    );
    // Refused before anyone was signed out.
    let (status, _) = t.get_json("/auth/me", Some(&ben_token)).await;
    assert_eq!(status, 200);
    let (_, people) = t.get_json(&house.members(), Some(&staff)).await;
    let left: Vec<&str> = people["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["userId"].as_str().unwrap())
        .collect();
    assert_eq!(left, vec![ben.as_str()]);
}

#[tokio::test]
async fn grants_say_what_is_wrong_with_them() {
    let t = TestPlatform::start().await;
    let house = demo(&t);
    let owner = owner_token(&t).await;
    let (gus, _, _) = person(&t, "gus@example.com").await;
    let in_days = |days: i64| {
        (time::OffsetDateTime::now_utc() + time::Duration::days(days))
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap()
    };
    let dev = sign_up_and_verify(&t, "people-dev@example.com").await;
    let foreign_home = sandbox_of(&t, &dev).await.home;

    for (body, field) in [
        (
            json!({ "userId": gus, "role": "GUEST", "expiresAt": in_days(2) }),
            "propertyId",
        ),
        (
            json!({ "userId": gus, "role": "GUEST", "propertyId": house.home }),
            "expiresAt",
        ),
        (
            json!({ "userId": gus, "role": "GUEST", "propertyId": house.home, "expiresAt": in_days(-1) }),
            "expiresAt",
        ),
        (
            json!({ "userId": gus, "role": "GUEST", "propertyId": house.home,
                    "startsAt": in_days(3), "expiresAt": in_days(2) }),
            "startsAt",
        ),
        (
            json!({ "userId": gus, "role": "GUEST", "propertyId": foreign_home, "expiresAt": in_days(2) }),
            "propertyId",
        ),
        (
            json!({ "userId": gus, "role": "MEMBER", "propertyId": house.home }),
            "propertyId",
        ),
        (
            json!({ "userId": "0190b5a0-0000-7000-8000-0000000000aa", "role": "MEMBER" }),
            "userId",
        ),
    ] {
        let (status, problem) = t
            .post_json(&house.members(), Some(&owner), body.clone())
            .await;
        assert_eq!(status, 400, "{body} -> {problem}");
        assert_eq!(problem["field"], field, "{body} -> {problem}");
    }
    let (status, problem) = grant(&t, &house, &owner, &gus, "BUTLER").await;
    assert_eq!(status, 400, "{problem}");
    let (status, problem) = t
        .get_json("/tenants/not-a-uuid/clients/x/members", Some(&owner))
        .await;
    assert_eq!(status, 400, "{problem}");

    // A valid guest: pinned, upcoming, and told to that home.
    let (status, guest) = t
        .post_json(
            &house.members(),
            Some(&owner),
            json!({ "userId": gus, "role": "GUEST", "propertyId": house.home,
                    "startsAt": in_days(1), "expiresAt": in_days(3) }),
        )
        .await;
    assert_eq!(status, 201, "{guest}");
    assert_eq!(guest["status"], "upcoming");
    assert_eq!(guest["propertyId"], house.home.as_str());
    let (_, told) = t
        .get_json(
            &format!(
                "/notifications?tenantId={}&propertyId={}",
                house.tenant, house.home
            ),
            Some(&owner),
        )
        .await;
    assert_eq!(told["items"][0]["kind"], "membership.granted");
    assert!(
        told["items"][0]["body"]
            .as_str()
            .unwrap()
            .ends_with("as a guest by platform staff. Their stay is at Demo home."),
        "{told}"
    );
}

#[tokio::test]
async fn the_people_list_pages_and_its_cursor_stays_in_its_household() {
    let t = TestPlatform::start().await;
    let house = demo(&t);
    let owner = owner_token(&t).await;
    for n in 0..4 {
        let (id, _, _) = person(&t, &format!("p{n}@example.com")).await;
        let (status, _) = grant(&t, &house, &owner, &id, "MEMBER").await;
        assert_eq!(status, 201);
    }
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let path = match &cursor {
            Some(c) => format!("{}?limit=2&cursor={c}", house.members()),
            None => format!("{}?limit=2", house.members()),
        };
        let (status, page) = t.get_json(&path, Some(&owner)).await;
        assert_eq!(status, 200, "{page}");
        pages += 1;
        for m in page["items"].as_array().unwrap() {
            seen.push(m["userId"].as_str().unwrap().to_owned());
        }
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    assert_eq!(pages, 3);
    let mut unique = seen.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(
        unique.len(),
        5,
        "the owner and four members once each: {seen:?}"
    );

    // A cursor of this household does not read another one's people.
    let dev = sign_up_and_verify(&t, "cursor-dev@example.com").await;
    let sandbox = sandbox_of(&t, &dev).await;
    let (_, first_page) = t
        .get_json(&format!("{}?limit=1", house.members()), Some(&owner))
        .await;
    let cursor = first_page["nextCursor"].as_str().unwrap();
    let (status, problem) = t
        .get_json(
            &format!("{}?cursor={cursor}", sandbox.members()),
            Some(&dev.access_token),
        )
        .await;
    assert_eq!(status, 400, "{problem}");
    assert_eq!(problem["field"], "cursor");
}

/// Nothing sets a person's picture yet, so the field is null for everyone
/// and its description says so, rather than promising a picture.
#[tokio::test]
async fn an_avatar_is_null_and_the_contract_says_why() {
    let t = TestPlatform::start().await;
    let house = demo(&t);
    let owner = owner_token(&t).await;
    let (status, people) = t.get_json(&house.members(), Some(&owner)).await;
    assert_eq!(status, 200, "{people}");
    for member in people["items"].as_array().unwrap() {
        assert_eq!(member["avatar"], Value::Null, "{member}");
    }
    let (status, doc) = t.get_json("/openapi.json", None).await;
    assert_eq!(status, 200);
    let said = doc["components"]["schemas"]["Member"]["properties"]["avatar"]["description"]
        .as_str()
        .unwrap_or_default();
    assert!(said.contains("operation sets one"), "{said}");
}

/// The developer's sandbox: its household's grants and ends of membership
/// reach the DEV key's event stream as `notification.raised`.
#[tokio::test]
async fn membership_changes_reach_the_sandbox_event_stream() {
    let t = TestPlatform::start().await;
    let dev = sign_up_and_verify(&t, "stream-people@example.com").await;
    let (_, key) = create_key(&t, &dev, &["events:read"]).await;
    let sandbox = sandbox_of(&t, &dev).await;
    let response = t
        .http
        .get(t.url("/developers/events/stream?events=notification.raised"))
        .bearer_auth(&key)
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let mut stream = SseReader::new(response);

    // A tenant admin of another tenant is nobody here.
    let stranger = seed_account(&t, "stranger@example.com", None, Some(TenantRole::Admin)).await;
    let (stranger_token, _) = sign_in(&t, &stranger.email, PASSWORD).await;
    let (status, _) = t.get_json(&sandbox.members(), Some(&stranger_token)).await;
    assert_eq!(status, 404);
    let (status, _) = t.get_json(&sandbox.members(), Some(&key)).await;
    assert_eq!(status, 403, "keys do not manage people");

    // A sandbox adds people by invitation: Cleo accepts with her password.
    let (cleo, _, _) = person(&t, "cleo@example.com").await;
    let (status, body) = t
        .post_json(
            &format!(
                "/tenants/{}/clients/{}/invitations",
                sandbox.tenant, sandbox.client
            ),
            Some(&dev.access_token),
            json!({ "email": "cleo@example.com", "role": "MEMBER" }),
        )
        .await;
    assert_eq!(
        (status, body["status"].as_str()),
        (201, Some("invited")),
        "{body}"
    );
    let (status, body) =
        accept_mailed_invitation(&t, "cleo@example.com", json!({ "password": PASSWORD })).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = delete(&t, &sandbox.member(&cleo), &dev.access_token).await;
    assert_eq!(status, 204, "{body}");

    let events = stream.events(2, Duration::from_secs(15)).await;
    let heard: Vec<(&str, &str)> = events
        .iter()
        .map(|(kind, _, envelope)| {
            (
                kind.as_str(),
                envelope["data"]["kind"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        heard,
        vec![
            ("notification.raised", "membership.granted"),
            ("notification.raised", "membership.ended"),
        ],
        "{events:?}"
    );
    let granted = &events[0].2["data"];
    assert_eq!(
        granted["title"],
        "c•••@example.com joined Sandbox household"
    );
    assert_eq!(granted["deviceId"], Value::Null);
    assert!(granted["id"].is_string() && granted["at"].is_string());
}

async fn patch(t: &TestPlatform, path: &str, token: &str, body: Value) -> (u16, Value) {
    t.send_json("PATCH", path, Some(token), Some(body)).await
}

#[tokio::test]
async fn a_member_changes_level_home_and_stay_and_the_last_owner_stays() {
    let t = TestPlatform::start().await;
    let house = demo(&t);
    let owner = owner_token(&t).await;
    let (_, me) = t.get_json("/auth/me", Some(&owner)).await;
    let owner_id = me["claims"]["sub"].as_str().unwrap().to_owned();
    let (anna, _, anna_refresh) = person(&t, "anna.change@example.com").await;
    let (status, _) = grant(&t, &house, &owner, &anna, "MEMBER").await;
    assert_eq!(status, 201);
    let (_, anna_refresh) = {
        let (status, pair) = t
            .post_json(
                "/auth/refresh",
                None,
                json!({ "refreshToken": anna_refresh }),
            )
            .await;
        assert_eq!(status, 200);
        (
            pair["accessToken"].as_str().unwrap().to_owned(),
            pair["refreshToken"].as_str().unwrap().to_owned(),
        )
    };

    // Made an owner: the change applies at once (she is signed out).
    let (status, changed) =
        patch(&t, &house.member(&anna), &owner, json!({ "role": "OWNER" })).await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(changed["role"], "OWNER");
    let (status, _) = t
        .post_json(
            "/auth/refresh",
            None,
            json!({ "refreshToken": anna_refresh }),
        )
        .await;
    assert_eq!(status, 401);
    let (anna_token, _) = sign_in(&t, "anna.change@example.com", PASSWORD).await;
    let (_, her) = t.get_json("/auth/me", Some(&anna_token)).await;
    assert_eq!(her["claims"]["clients"][&house.client]["role"], "OWNER");

    // Two owners: one may step down; then the last one cannot.
    let (status, body) = patch(
        &t,
        &house.member(&owner_id),
        &anna_token,
        json!({ "role": "MEMBER" }),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let owner = owner_token(&t).await;
    let (status, refused) = patch(
        &t,
        &house.member(&anna),
        &owner,
        json!({ "role": "GUEST", "propertyId": house.home, "expiresAt": "2099-01-01T00:00:00Z" }),
    )
    .await;
    assert_eq!(status, 409, "{refused}");
    assert!(
        refused["detail"]
            .as_str()
            .unwrap()
            .contains("at least one owner"),
        "{refused}"
    );

    // The first owner back to OWNER; Anna becomes a guest with a stay of
    // her own, then her stay moves, then she becomes a resident again.
    let (status, _) = patch(
        &t,
        &house.member(&owner_id),
        &anna_token,
        json!({ "role": "OWNER" }),
    )
    .await;
    assert_eq!(status, 200);
    let owner = owner_token(&t).await;
    let (status, guest) = patch(
        &t,
        &house.member(&anna),
        &owner,
        json!({ "role": "GUEST", "propertyId": house.home, "expiresAt": "2099-01-01T00:00:00Z" }),
    )
    .await;
    assert_eq!(status, 200, "{guest}");
    assert_eq!(guest["role"], "GUEST");
    assert_eq!(guest["propertyId"], house.home.as_str());
    let key = guest["reservationKey"].as_str().unwrap().to_owned();
    let stay_path = format!(
        "/tenants/{}/clients/{}/guests/{key}",
        house.tenant, house.client
    );
    let (_, stay) = t.get_json(&stay_path, Some(&owner)).await;
    assert_eq!(stay["state"], "member");
    assert_eq!(stay["checkOut"], "2099-01-01T00:00:00Z");
    let (status, moved) = patch(
        &t,
        &house.member(&anna),
        &owner,
        json!({ "expiresAt": "2099-06-01T00:00:00Z" }),
    )
    .await;
    assert_eq!(status, 200, "{moved}");
    assert_eq!(moved["expiresAt"], "2099-06-01T00:00:00Z");
    let (_, stay) = t.get_json(&stay_path, Some(&owner)).await;
    assert_eq!(stay["checkOut"], "2099-06-01T00:00:00Z");
    let (status, resident) = patch(
        &t,
        &house.member(&anna),
        &owner,
        json!({ "role": "MEMBER" }),
    )
    .await;
    assert_eq!(status, 200, "{resident}");
    assert_eq!(resident["propertyId"], Value::Null);
    assert_eq!(resident["expiresAt"], Value::Null);
    assert_eq!(resident["reservationKey"], Value::Null);
    let (_, stay) = t.get_json(&stay_path, Some(&owner)).await;
    assert_eq!(stay["state"], "checked-out");

    // Every change is in the audit trail.
    let (_, audit) = t
        .get_json(
            &format!("/tenants/{}/clients/{}/audit", house.tenant, house.client),
            Some(&owner),
        )
        .await;
    let kinds: Vec<&str> = audit["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.iter().filter(|k| **k == "member.changed").count() >= 5,
        "{audit}"
    );
    assert!(kinds.contains(&"guest.checked_out"), "{audit}");

    // Bad input names the field; an unknown member is 404.
    for (body, field) in [
        (json!({ "role": "GUEST" }), "propertyId"),
        (
            json!({ "role": "OWNER", "expiresAt": "2099-01-01T00:00:00Z" }),
            "expiresAt",
        ),
        (json!({ "requireNetwork": true }), "requireNetwork"),
        (
            json!({ "role": "GUEST", "propertyId": house.home, "expiresAt": "2000-01-01T00:00:00Z" }),
            "expiresAt",
        ),
    ] {
        let (status, problem) = patch(&t, &house.member(&anna), &owner, body.clone()).await;
        assert_eq!(
            (status, problem["field"].as_str()),
            (400, Some(field)),
            "{body} -> {problem}"
        );
    }
    let (status, _) = patch(
        &t,
        &house.member("0190b5a0-0000-7000-8000-0000000000aa"),
        &owner,
        json!({ "role": "MEMBER" }),
    )
    .await;
    assert_eq!(status, 404);
}
