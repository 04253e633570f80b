//! The network condition over HTTP: the household's network controller (the
//! virtual bridge, watching phones) is connected to the sandbox home; a member
//! given `requireNetwork` with their phone is in claims only while the
//! controller sees that phone on the network, judged at every sign-in and
//! refresh (off, stale, unreachable and back on); with no phone signal the
//! caller's address (as the socket showed it) against the home's (a hub's
//! broker connection showed it) decides; the outcome is stored ("last seen
//! home"), shown in the people list and in `/auth/me`; an owner is never given
//! the condition; a home without any signal refuses it; a conditional member
//! mints no widget token.

use alyt_tests::TestPlatform;
use alyt_tests::developers::{accept_mailed_invitation, sandbox_home, sign_up_and_verify};
use alyt_tests::principals::{PASSWORD, seed_account};
use serde_json::{Value, json};

use crate::integrations::{install, serve_connector};

/// An HTTP client whose requests come from 127.0.0.2: not the address a
/// local hub's broker connection shows (127.0.0.1).
fn away_from_home() -> reqwest::Client {
    reqwest::Client::builder()
        .local_address("127.0.0.2".parse::<std::net::IpAddr>().unwrap())
        .build()
        .unwrap()
}

async fn post(http: &reqwest::Client, t: &TestPlatform, path: &str, body: Value) -> Value {
    let response = http.post(t.url(path)).json(&body).send().await.unwrap();
    assert_eq!(response.status(), 200, "{path}");
    response.json().await.unwrap()
}

fn pair_of(pair: &Value) -> (String, String) {
    (
        pair["accessToken"].as_str().unwrap().to_owned(),
        pair["refreshToken"].as_str().unwrap().to_owned(),
    )
}

/// Signs in from `http`'s address: (access, refresh).
async fn sign_in(http: &reqwest::Client, t: &TestPlatform, email: &str) -> (String, String) {
    let body = json!({ "email": email, "password": PASSWORD });
    pair_of(&post(http, t, "/auth/login", body).await)
}

async fn refresh(http: &reqwest::Client, t: &TestPlatform, token: &str) -> (String, String) {
    let body = json!({ "refreshToken": token });
    pair_of(&post(http, t, "/auth/refresh", body).await)
}

async fn clients(t: &TestPlatform, access: &str) -> Value {
    let (_, me) = t.get_json("/auth/me", Some(access)).await;
    me["claims"]["clients"].clone()
}

#[tokio::test]
async fn a_conditional_member_is_in_claims_only_while_the_home_sees_their_phone() {
    let t = TestPlatform::start().await;
    let dev = sign_up_and_verify(&t, "network-dev@example.com").await;
    let home = sandbox_home(&t, &dev).await;
    let tenant = dev.sandbox_tenant_id.clone();
    let people = format!("/tenants/{tenant}/clients/{}", home.client_id);
    let admin = dev.access_token.clone();
    seed_account(&t, "nora.net@example.com", None, None).await;

    // The household connects its network controller, which watches phones.
    let served = serve_connector(&t, &dev, "home-router").await;
    served.bridge.add_phone("phone-nora", "Nora's phone", true);
    served.bridge.add_phone("phone-guest", "Guest phone", false);
    install(&t, &dev, &home.property_id, &served.connector).await;
    let (status, phones) = t
        .get_json(&format!("{people}/members/phones"), Some(&admin))
        .await;
    assert_eq!(status, 200, "{phones}");
    let phone = phones["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "Nora's phone")
        .expect("the phone is listed")
        .clone();
    assert_eq!(phone["connected"], true);
    assert_eq!(phones["items"].as_array().unwrap().len(), 2, "{phones}");
    let phone_id = phone["thingId"].as_str().unwrap().to_owned();

    let invite = format!("{people}/invitations");
    for (body, field) in [
        (
            json!({ "email": "nora.net@example.com", "role": "OWNER", "requireNetwork": true, "phoneThingId": phone_id }),
            "requireNetwork",
        ),
        (
            json!({ "email": "nora.net@example.com", "role": "MEMBER", "requireNetwork": true, "phoneThingId": "0190b5a0-0000-7000-8000-0000000000aa" }),
            "phoneThingId",
        ),
        (
            json!({ "email": "nora.net@example.com", "role": "MEMBER", "phoneThingId": phone_id }),
            "phoneThingId",
        ),
    ] {
        let (status, problem) = t.post_json(&invite, Some(&admin), body.clone()).await;
        assert_eq!(
            (status, problem["field"].as_str()),
            (400, Some(field)),
            "{body} -> {problem}"
        );
    }
    let body = json!({ "email": "nora.net@example.com", "role": "MEMBER", "requireNetwork": true, "phoneThingId": phone_id });
    let (status, invited) = t.post_json(&invite, Some(&admin), body).await;
    assert_eq!(status, 201, "{invited}");
    // A sandbox invites her verified account like any address; she
    // accepts the link with her password, and the condition comes along.
    assert_eq!(invited["status"], "invited");
    assert_eq!(invited["invitation"]["requireNetwork"], true);
    let (status, accepted) =
        accept_mailed_invitation(&t, "nora.net@example.com", json!({ "password": PASSWORD })).await;
    assert_eq!(status, 200, "{accepted}");
    let (_, listed) = t.get_json(&format!("{people}/members"), Some(&admin)).await;
    let added = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["email"] == "nora.net@example.com")
        .expect("she is a member")
        .clone();
    assert_eq!(added["networkCondition"]["requireNetwork"], true, "{added}");
    assert_eq!(added["phone"]["name"], "Nora's phone");

    // Her phone is on the network: the household is in her claims (she
    // signs in from an address that is not the home's: the phone decides).
    let away = away_from_home();
    let (access, refresh_token) = sign_in(&away, &t, "nora.net@example.com").await;
    assert_eq!(
        clients(&t, &access).await[&home.client_id]["role"],
        "MEMBER"
    );
    let (_, me) = t.get_json("/auth/me", Some(&access)).await;
    assert_eq!(me["homes"][0]["status"], "active", "{me}");

    // She leaves: the next refresh drops the household, and says why.
    let now = time::OffsetDateTime::now_utc();
    assert!(served.bridge.set_phone("phone-nora", false, now));
    let (access, refresh_token) = refresh(&away, &t, &refresh_token).await;
    assert!(clients(&t, &access).await.get(&home.client_id).is_none());
    let (_, me) = t.get_json("/auth/me", Some(&access)).await;
    assert_eq!(me["homes"][0]["status"], "needs-network", "{me}");
    assert!(
        me["homes"][0]["message"]
            .as_str()
            .unwrap()
            .contains("home's network"),
        "{me}"
    );

    // A controller that has not seen the phone for long is no signal, nor
    // one that does not answer; away from the home's address she is out.
    served
        .bridge
        .set_phone("phone-nora", true, now - time::Duration::minutes(30));
    let (access, refresh_token) = refresh(&away, &t, &refresh_token).await;
    assert!(clients(&t, &access).await.get(&home.client_id).is_none());
    served.bridge.set_phone("phone-nora", true, now);
    served.bridge.set_reachable("phone-nora", false);
    let (access, refresh_token) = refresh(&away, &t, &refresh_token).await;
    assert!(clients(&t, &access).await.get(&home.client_id).is_none());
    // No phone signal, but at the home's address (the sandbox's virtual hub
    // showed it): the second signal lets her in.
    let (at_home, _) = sign_in(&t.http, &t, "nora.net@example.com").await;
    assert_eq!(
        clients(&t, &at_home).await[&home.client_id]["role"],
        "MEMBER"
    );

    // Back home: in again, and the household sees when.
    served.bridge.set_reachable("phone-nora", true);
    let (access, _) = refresh(&away, &t, &refresh_token).await;
    assert_eq!(
        clients(&t, &access).await[&home.client_id]["role"],
        "MEMBER"
    );
    let (_, listed) = t.get_json(&format!("{people}/members"), Some(&admin)).await;
    let nora = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["email"] == "nora.net@example.com")
        .unwrap()
        .clone();
    assert_eq!(nora["networkCondition"]["met"], true, "{nora}");
    assert!(nora["networkCondition"]["checkedAt"].is_string(), "{nora}");
    assert!(nora["lastSeen"].is_string(), "{nora}");
    assert_eq!(nora["phone"]["thingId"], phone_id.as_str());
    assert_eq!(nora["status"], "active");

    // A conditional member mints no widget token.
    let widgets = format!(
        "/properties/{}/widget-tokens?tenantId={tenant}",
        home.property_id
    );
    let (status, refused) = t
        .post_json(&widgets, Some(&access), json!({ "name": "Phone" }))
        .await;
    assert_eq!(status, 403, "{refused}");

    // The internal presence check: platform staff only.
    let presence = format!(
        "/properties/{}/presence?tenantId={tenant}&endpointId={phone_id}",
        home.property_id
    );
    let (email, password) = t.owner();
    let staff = t.household_login(&email, &password).await["accessToken"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, check) = t.get_json(&presence, Some(&staff)).await;
    assert_eq!(status, 200, "{check}");
    assert_eq!(check["present"], true);
    assert_eq!(check["signal"], "network-controller");
    assert_eq!(t.get_json(&presence, Some(&admin)).await.0, 404);

    // An owner never has the condition: refused with it, dropped without.
    let user = nora["userId"].as_str().unwrap();
    let member = format!("{people}/members/{user}");
    let body = json!({ "role": "OWNER", "requireNetwork": true });
    let (status, refused) = t
        .send_json("PATCH", &member, Some(&admin), Some(body))
        .await;
    assert_eq!(
        (status, refused["field"].as_str()),
        (400, Some("requireNetwork"))
    );
    let body = json!({ "role": "OWNER" });
    let (status, owner) = t
        .send_json("PATCH", &member, Some(&admin), Some(body))
        .await;
    assert_eq!(status, 200, "{owner}");
    assert_eq!(owner["networkCondition"], Value::Null);
}

/// A home whose hub is connected (from this machine's loopback address,
/// 127.0.0.1, which the home's address becomes) and a member of it, Mia,
/// given the network condition without a phone: the hub link decides.
/// Answers the household's client id and the connected hub, which the
/// caller keeps while it signs in.
async fn a_hub_home_with_a_conditional_member(t: &TestPlatform) -> (String, crate::rooms::Played) {
    let first = t.platform.first_start.as_ref().unwrap();
    let (tenant, client) = (first.tenant_id.to_string(), first.client_id.to_string());
    let (email, password) = t.owner();
    let owner = t.household_login(&email, &password).await["accessToken"]
        .as_str()
        .unwrap()
        .to_owned();
    let people = format!("/tenants/{tenant}/clients/{client}");
    let mia = seed_account(t, "mia.hub@example.com", None, None).await;
    let (status, granted) = t
        .post_json(
            &format!("{people}/members"),
            Some(&owner),
            json!({ "userId": mia.id, "role": "MEMBER" }),
        )
        .await;
    assert_eq!(status, 201, "{granted}");
    let condition = json!({ "requireNetwork": true });
    let member = format!("{people}/members/{}", mia.id);
    let (status, refused) = t
        .send_json("PATCH", &member, Some(&owner), Some(condition.clone()))
        .await;
    assert_eq!(status, 400, "no signal before the hub connects: {refused}");

    // The home's hub connects (from this machine's loopback address).
    let device = crate::device_plane::connect_demo_hub(t, &owner).await;
    let store = t.platform.store();
    let known = alyt_store::repo::tenancy::Tenancy(&*store)
        .home_address(first.property_id)
        .await
        .unwrap();
    let known = known.expect("the hub's connection showed the home's address");
    assert!(!known.hash.contains("127.0.0.1"), "kept hashed");

    let (status, changed) = t
        .send_json("PATCH", &member, Some(&owner), Some(condition))
        .await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(changed["networkCondition"]["requireNetwork"], true);
    assert_eq!(changed["phone"], Value::Null);
    (client, device)
}

/// The second signal: a hub's broker connection shows the home's internet
/// address; without a phone signal, a caller whose address (as the socket
/// showed it, never a header) is the home's is in claims, another is not.
#[tokio::test]
async fn without_a_phone_the_hub_link_decides_by_the_callers_address() {
    let t = TestPlatform::start().await;
    let (client, device) = a_hub_home_with_a_conditional_member(&t).await;

    // From the home's address: in. From another address: out, whatever
    // X-Forwarded-For says.
    let pair = t.household_login("mia.hub@example.com", PASSWORD).await;
    let access = pair["accessToken"].as_str().unwrap();
    assert_eq!(clients(&t, access).await[&client]["role"], "MEMBER");
    let elsewhere = reqwest::Client::builder()
        .local_address("127.0.0.2".parse::<std::net::IpAddr>().unwrap())
        .build()
        .unwrap();
    let response = elsewhere
        .post(t.url("/auth/login"))
        .header("x-forwarded-for", "127.0.0.1")
        .json(&json!({ "email": "mia.hub@example.com", "password": PASSWORD }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let pair: Value = response.json().await.unwrap();
    let access = pair["accessToken"].as_str().unwrap();
    assert!(clients(&t, access).await.get(&client).is_none());
    drop(device);
}

/// Mia's claims when she signs in with `http`, sending `forwarded` as
/// X-Forwarded-For.
async fn claims_from(t: &TestPlatform, http: reqwest::Client, forwarded: &str) -> Value {
    let login = json!({ "email": "mia.hub@example.com", "password": PASSWORD });
    let response = http
        .post(t.url("/auth/login"))
        .header("x-forwarded-for", forwarded)
        .json(&login)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let pair: Value = response.json().await.unwrap();
    clients(t, pair["accessToken"].as_str().unwrap()).await
}

/// Behind a reverse proxy the operator named (`ALYT_TRUSTED_PROXIES`), the
/// caller's address is the right-most X-Forwarded-For hop the proxies did
/// not add; a hop the caller wrote left of it, and the header of anyone not
/// a trusted proxy, decide nothing.
#[tokio::test]
async fn behind_a_trusted_proxy_the_forwarded_hop_is_the_callers_address() {
    let t = TestPlatform::start_with(|config| {
        config.trusted_proxies = "127.0.0.2, 10.0.0.0/8".parse().unwrap();
    })
    .await;
    let (client, device) = a_hub_home_with_a_conditional_member(&t).await;
    let from = |address: &str| {
        reqwest::Client::builder()
            .local_address(address.parse::<std::net::IpAddr>().unwrap())
            .build()
            .unwrap()
    };
    // Through the proxy (127.0.0.2), from the home's address: in; the hop
    // the caller forged left of it and the proxies' own hops count for nothing.
    let claims = claims_from(&t, from("127.0.0.2"), "198.51.100.7, 127.0.0.1, 10.1.2.3").await;
    assert_eq!(claims[&client]["role"], "MEMBER", "{claims}");
    // Through the proxy from elsewhere, however the caller forges the left.
    let claims = claims_from(&t, from("127.0.0.2"), "127.0.0.1, 198.51.100.7").await;
    assert!(claims.get(&client).is_none(), "{claims}");
    // Not through a trusted proxy: the header is not read.
    let claims = claims_from(&t, from("127.0.0.3"), "127.0.0.1").await;
    assert!(claims.get(&client).is_none(), "{claims}");
    drop(device);
}
