//! The network condition over HTTP (Authentication 8): the household's
//! network controller (the virtual bridge, watching phones) is connected to
//! the sandbox home; a member given `requireNetwork` with their phone is in
//! claims only while the controller sees that phone on the network, judged
//! at every sign-in and refresh (off, stale and back on); the outcome is
//! stored ("last seen home"), shown in the people list and in `/auth/me`;
//! an owner is never given the condition; a home without a signal refuses
//! it; a conditional member mints no widget token.

use alyt_tests::TestPlatform;
use alyt_tests::developers::{sandbox_home, sign_up_and_verify};
use alyt_tests::principals::{PASSWORD, seed_account};
use serde_json::{Value, json};

use crate::integrations::{install, serve_connector};

async fn refresh(t: &TestPlatform, refresh_token: &str) -> (String, String) {
    let (status, pair) = t
        .post_json(
            "/auth/refresh",
            None,
            json!({ "refreshToken": refresh_token }),
        )
        .await;
    assert_eq!(status, 200, "{pair}");
    (
        pair["accessToken"].as_str().unwrap().to_owned(),
        pair["refreshToken"].as_str().unwrap().to_owned(),
    )
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

    // Without a network controller there is no signal to prove presence by.
    let (status, refused) = t
        .post_json(
            &format!("{people}/invitations"),
            Some(&admin),
            json!({ "email": "nora.net@example.com", "role": "MEMBER", "requireNetwork": true }),
        )
        .await;
    assert_eq!(status, 400, "{refused}");
    assert!(
        refused["detail"]
            .as_str()
            .unwrap()
            .contains("connect the network controller or wait for the hub link"),
        "{refused}"
    );

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

    for (body, field) in [
        (
            json!({ "email": "nora.net@example.com", "role": "MEMBER", "requireNetwork": true }),
            "phoneThingId",
        ),
        (
            json!({ "email": "nora.net@example.com", "role": "OWNER", "requireNetwork": true, "phoneThingId": phone_id }),
            "requireNetwork",
        ),
        (
            json!({ "email": "nora.net@example.com", "role": "MEMBER", "requireNetwork": true, "phoneThingId": "0190b5a0-0000-7000-8000-0000000000aa" }),
            "phoneThingId",
        ),
    ] {
        let (status, problem) = t
            .post_json(&format!("{people}/invitations"), Some(&admin), body.clone())
            .await;
        assert_eq!(
            (status, problem["field"].as_str()),
            (400, Some(field)),
            "{body} -> {problem}"
        );
    }
    let (status, added) = t
        .post_json(
            &format!("{people}/invitations"),
            Some(&admin),
            json!({ "email": "nora.net@example.com", "role": "MEMBER", "requireNetwork": true, "phoneThingId": phone_id }),
        )
        .await;
    assert_eq!(status, 201, "{added}");
    assert_eq!(added["status"], "added");
    assert_eq!(added["member"]["networkCondition"]["requireNetwork"], true);
    assert_eq!(added["member"]["phone"]["name"], "Nora's phone");

    // Her phone is on the network: the household is in her claims.
    let pair = t.household_login("nora.net@example.com", PASSWORD).await;
    let access = pair["accessToken"].as_str().unwrap().to_owned();
    let refresh_token = pair["refreshToken"].as_str().unwrap().to_owned();
    assert_eq!(
        clients(&t, &access).await[&home.client_id]["role"],
        "MEMBER"
    );
    let (_, me) = t.get_json("/auth/me", Some(&access)).await;
    assert_eq!(me["homes"][0]["status"], "active", "{me}");

    // She leaves: the next refresh drops the household, and says why.
    assert!(
        served
            .bridge
            .set_phone("phone-nora", false, time::OffsetDateTime::now_utc())
    );
    let (access, refresh_token) = refresh(&t, &refresh_token).await;
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

    // A controller that has not seen the phone for long is no signal.
    let long_ago = time::OffsetDateTime::now_utc() - time::Duration::minutes(30);
    served.bridge.set_phone("phone-nora", true, long_ago);
    let (access, refresh_token) = refresh(&t, &refresh_token).await;
    assert!(clients(&t, &access).await.get(&home.client_id).is_none());
    // A controller that does not answer is no signal either.
    served
        .bridge
        .set_phone("phone-nora", true, time::OffsetDateTime::now_utc());
    served.bridge.set_reachable("phone-nora", false);
    let (access, refresh_token) = refresh(&t, &refresh_token).await;
    assert!(clients(&t, &access).await.get(&home.client_id).is_none());

    // Back home: in again, and the household sees when.
    served.bridge.set_reachable("phone-nora", true);
    let (access, _) = refresh(&t, &refresh_token).await;
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
    let (status, refused) = t
        .post_json(
            &format!(
                "/properties/{}/widget-tokens?tenantId={tenant}",
                home.property_id
            ),
            Some(&access),
            json!({ "name": "Phone" }),
        )
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

    // The condition goes away with a change to OWNER (an owner never has it).
    let user = nora["userId"].as_str().unwrap();
    let (status, refused) = t
        .send_json(
            "PATCH",
            &format!("{people}/members/{user}"),
            Some(&admin),
            Some(json!({ "role": "OWNER", "requireNetwork": true })),
        )
        .await;
    assert_eq!(
        (status, refused["field"].as_str()),
        (400, Some("requireNetwork"))
    );
    let (status, owner) = t
        .send_json(
            "PATCH",
            &format!("{people}/members/{user}"),
            Some(&admin),
            Some(json!({ "role": "OWNER" })),
        )
        .await;
    assert_eq!(status, 200, "{owner}");
    assert_eq!(owner["networkCondition"], Value::Null);
}
