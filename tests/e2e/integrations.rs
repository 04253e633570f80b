//! Integrations end to end: a developer's connector (its server is the
//! virtual LAN bridge of `alyt-connectors`, served on a loopback socket: the
//! local platform allows private networks), its runtime token shown once,
//! the connect challenge answered once, discovery into the sandbox home's
//! rooms (rooms created once, things placed by name), rediscovery that keeps
//! what a person changed, an integration's endpoints paged, and who may do
//! what: a key without `integrations:write`, a foreign developer's
//! connector, a household of another tenant, and a connector server that is
//! down (502 without its address).

use std::collections::BTreeMap;
use std::time::Duration;

use alyt_connectors::bridge::{PAIRING_PROMPT, RunningBridge, VirtualBridge};
use alyt_tests::TestPlatform;
use alyt_tests::developers::{DeveloperSession, create_key, sandbox_home, sign_up_and_verify};
use alyt_tests::principals::{Principals, Who};
use serde_json::{Value, json};

const PAIRING_CODE: &str = "4711";

/// A connector of `dev` whose server is a fresh virtual bridge.
pub(crate) struct Served {
    pub(crate) connector: Value,
    runtime_token: String,
    pub(crate) bridge: VirtualBridge,
    pub(crate) running: RunningBridge,
}

/// Creates connector `slug` for a bridge on a loopback port bound first (the
/// bridge needs the runtime token the platform issues for that URL).
pub(crate) async fn serve_connector(
    t: &TestPlatform,
    dev: &DeveloperSession,
    slug: &str,
) -> Served {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let (status, created) = t
        .post_json(
            "/developers/connectors",
            Some(&dev.access_token),
            json!({ "slug": slug, "name": "Virtual bridge", "serverUrl": url }),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let runtime_token = created["runtimeToken"].as_str().unwrap().to_owned();
    let bridge = VirtualBridge::new(runtime_token.clone(), PAIRING_CODE);
    let running = bridge.serve_listener(listener).unwrap();
    Served {
        connector: created["connector"].clone(),
        runtime_token,
        bridge,
        running,
    }
}

/// The home's rooms: name -> id.
async fn rooms(
    t: &TestPlatform,
    token: &str,
    tenant: &str,
    home: &str,
) -> BTreeMap<String, String> {
    let (status, page) = t
        .get_json(
            &format!("/rooms?tenantId={tenant}&propertyId={home}&limit=200"),
            Some(token),
        )
        .await;
    assert_eq!(status, 200, "{page}");
    let mut by_name = BTreeMap::new();
    for room in page["items"].as_array().unwrap() {
        let previous = by_name.insert(
            room["name"].as_str().unwrap().to_owned(),
            room["id"].as_str().unwrap().to_owned(),
        );
        assert!(previous.is_none(), "one room per name: {page}");
    }
    by_name
}

async fn connect(
    t: &TestPlatform,
    token: &str,
    tenant: &str,
    home: &str,
    connector: &Value,
) -> (u16, Value) {
    t.post_json(
        "/integrations",
        Some(token),
        json!({
            "tenantId": tenant,
            "propertyId": home,
            "connectorId": connector["id"],
            "input": { "host": "192.168.1.20" },
        }),
    )
    .await
}

async fn answer(t: &TestPlatform, token: &str, challenge: &str, code: &str) -> (u16, Value) {
    t.post_json(
        "/integrations/challenge",
        Some(token),
        json!({ "token": challenge, "input": { "pairingCode": code } }),
    )
    .await
}

/// Connects through the challenge; answers the integration id.
pub(crate) async fn install(
    t: &TestPlatform,
    dev: &DeveloperSession,
    home: &str,
    connector: &Value,
) -> String {
    let token = &dev.access_token;
    let (status, challenge) = connect(t, token, &dev.sandbox_tenant_id, home, connector).await;
    assert_eq!(
        (status, challenge["status"].as_str()),
        (200, Some("challenge")),
        "{challenge}"
    );
    let (status, connected) =
        answer(t, token, challenge["token"].as_str().unwrap(), PAIRING_CODE).await;
    assert_eq!(
        (status, connected["status"].as_str()),
        (200, Some("connected")),
        "{connected}"
    );
    connected["integrationId"].as_str().unwrap().to_owned()
}

/// Every endpoint of an integration, by external id, following the cursor
/// with pages of `limit`.
async fn endpoints(
    t: &TestPlatform,
    token: &str,
    tenant: &str,
    integration: &str,
    limit: u32,
) -> BTreeMap<String, Value> {
    let mut all = BTreeMap::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut path =
            format!("/integrations/{integration}/endpoints?tenantId={tenant}&limit={limit}");
        if let Some(c) = &cursor {
            path.push_str(&format!("&cursor={c}"));
        }
        let (status, page) = t.get_json(&path, Some(token)).await;
        assert_eq!(status, 200, "{page}");
        let items = page["items"].as_array().unwrap();
        assert!(items.len() <= limit as usize, "{page}");
        for e in items {
            all.insert(e["externalId"].as_str().unwrap().to_owned(), e.clone());
        }
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return all,
        }
    }
}

#[tokio::test]
async fn a_developer_creates_connectors_and_sees_the_runtime_token_once() {
    let t = TestPlatform::start().await;
    let dev = sign_up_and_verify(&t, "connector-dev@example.com").await;
    let token = dev.access_token.as_str();
    let (status, created) = t
        .post_json(
            "/developers/connectors",
            Some(token),
            json!({ "slug": "lan-bridge", "name": " LAN bridge ", "serverUrl": "http://127.0.0.1:9/" }),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let runtime_token = created["runtimeToken"].as_str().unwrap();
    assert!(runtime_token.starts_with("svc_rt_"), "{created}");
    assert!(runtime_token.len() >= "svc_rt_".len() + 43, "{created}");
    let connector = &created["connector"];
    assert_eq!(connector["slug"], "lan-bridge");
    assert_eq!(connector["name"], "LAN bridge");
    assert_eq!(connector["serverUrl"], "http://127.0.0.1:9/");
    assert_eq!(connector["published"], false);
    assert_eq!(connector["sandboxTenantId"], dev.sandbox_tenant_id.as_str());
    assert!(connector.get("runtimeToken").is_none(), "{connector}");

    // Listed, never with the token.
    let (status, list) = t.get_json("/developers/connectors", Some(token)).await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["items"].as_array().unwrap().len(), 1, "{list}");
    assert_eq!(list["items"][0]["id"], connector["id"]);
    assert!(!list.to_string().contains(runtime_token), "{list}");

    // A taken slug; fields the platform refuses.
    let again =
        json!({ "slug": "lan-bridge", "name": "Other", "serverUrl": "http://127.0.0.1:9/" });
    let (status, problem) = t
        .post_json("/developers/connectors", Some(token), again)
        .await;
    assert_eq!(
        (status, problem["field"].as_str()),
        (409, Some("slug")),
        "{problem}"
    );
    for (body, field) in [
        (
            json!({ "slug": "x", "name": "n", "serverUrl": "http://127.0.0.1:9/" }),
            "slug",
        ),
        (
            json!({ "slug": "Lan_Bridge", "name": "n", "serverUrl": "http://127.0.0.1:9/" }),
            "slug",
        ),
        (
            json!({ "slug": "ok-slug", "name": " ", "serverUrl": "http://127.0.0.1:9/" }),
            "name",
        ),
        (
            json!({ "slug": "ok-slug", "name": "n", "serverUrl": "ftp://example.com/" }),
            "serverUrl",
        ),
        (
            json!({ "slug": "ok-slug", "name": "n", "serverUrl": "http://user:pw@example.com/" }),
            "serverUrl",
        ),
        (
            json!({ "slug": "ok-slug", "name": "n", "serverUrl": "not a url" }),
            "serverUrl",
        ),
        (
            json!({ "slug": "ok-slug", "name": "n", "serverUrl": "http://169.254.169.254/" }),
            "serverUrl",
        ),
    ] {
        let (status, problem) = t
            .post_json("/developers/connectors", Some(token), body)
            .await;
        assert_eq!(
            (status, problem["field"].as_str()),
            (400, Some(field)),
            "{problem}"
        );
    }

    // Keys: integrations:write creates, integrations:read lists, others are
    // refused; a household session is not a developer.
    let (_, writer) = create_key(&t, &dev, &["integrations:write"]).await;
    let (_, reader) = create_key(&t, &dev, &["integrations:read"]).await;
    let by_key = json!({ "slug": "keyed", "name": "Keyed", "serverUrl": "http://127.0.0.1:9/" });
    let (status, problem) = t
        .post_json("/developers/connectors", Some(&reader), by_key.clone())
        .await;
    assert_eq!(status, 403, "{problem}");
    let (status, created) = t
        .post_json("/developers/connectors", Some(&writer), by_key)
        .await;
    assert_eq!(status, 201, "{created}");
    let (status, problem) = t.get_json("/developers/connectors", Some(&writer)).await;
    assert_eq!(status, 403, "{problem}");
    let (status, list) = t
        .get_json("/developers/connectors?limit=1", Some(&reader))
        .await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(
        list["items"][0]["slug"], "lan-bridge",
        "oldest first: {list}"
    );
    let cursor = list["nextCursor"].as_str().expect("a second page");
    let (status, rest) = t
        .get_json(
            &format!("/developers/connectors?limit=1&cursor={cursor}"),
            Some(token),
        )
        .await;
    assert_eq!(status, 200, "{rest}");
    assert_eq!(rest["items"][0]["slug"], "keyed");
    assert_eq!(rest["nextCursor"], Value::Null);

    let (email, password) = t.owner();
    let household = t.household_login(&email, &password).await;
    let (status, _) = t
        .get_json("/developers/connectors", household["accessToken"].as_str())
        .await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn connecting_the_bridge_places_its_things_and_rediscovery_keeps_what_a_person_changed() {
    let t = TestPlatform::start().await;
    let dev = sign_up_and_verify(&t, "bridge-dev@example.com").await;
    let token = dev.access_token.as_str();
    let tenant = dev.sandbox_tenant_id.as_str();
    let home = sandbox_home(&t, &dev).await.property_id;
    let served = serve_connector(&t, &dev, "lan-virtual-bridge").await;
    let before = rooms(&t, token, tenant, &home).await;
    assert!(
        before.contains_key("Living Room") && !before.contains_key("Hall"),
        "{before:?}"
    );

    // Connect: the bridge asks for the code its link button shows.
    let (status, challenge) = connect(&t, token, tenant, &home, &served.connector).await;
    assert_eq!(status, 200, "{challenge}");
    assert_eq!(challenge["status"], "challenge");
    assert_eq!(challenge["prompt"], PAIRING_PROMPT);
    assert_eq!(challenge["fields"][0]["key"], "pairingCode");
    assert_eq!(challenge["fields"][0]["secret"], true);
    let our_token = challenge["token"].as_str().unwrap();
    let (status, connected) = answer(&t, token, our_token, PAIRING_CODE).await;
    assert_eq!(status, 200, "{connected}");
    assert_eq!(connected["status"], "connected", "{connected}");
    assert_eq!(connected["things"], 4, "{connected}");
    assert_eq!(connected["discovering"], false);
    let integration = connected["integrationId"].as_str().unwrap().to_owned();

    // The token answers once, and a token never issued reads the same.
    let (status, reused) = answer(&t, token, our_token, PAIRING_CODE).await;
    assert_eq!(status, 410, "{reused}");
    let (status, unknown) = answer(&t, token, "never-issued", PAIRING_CODE).await;
    assert_eq!(status, 410, "{unknown}");
    assert_eq!(reused["detail"], unknown["detail"]);

    // The integration, never its config (the bridge key).
    let (status, list) = t
        .get_json(&format!("/integrations?tenantId={tenant}"), Some(token))
        .await;
    assert_eq!(status, 200, "{list}");
    let items = list["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{list}");
    assert_eq!(items[0]["id"], integration.as_str());
    assert_eq!(items[0]["propertyId"], home.as_str());
    assert_eq!(items[0]["connectorId"], served.connector["id"]);
    assert_eq!(items[0]["name"], "Virtual bridge");
    assert!(items[0]["discoveredAt"].is_string(), "{list}");
    assert!(!list.to_string().contains("bk_"), "{list}");
    let (status, one) = t
        .get_json(
            &format!("/integrations/{integration}?tenantId={tenant}"),
            Some(token),
        )
        .await;
    assert_eq!(status, 200, "{one}");
    assert_eq!(one, items[0]);

    // The four things, with their kinds, placed by the bridge's room names:
    // Hall and Garden created once, the speaker and the plug into the
    // sandbox's Living Room and Kitchen by their names.
    let after = rooms(&t, token, tenant, &home).await;
    assert_eq!(after.len(), before.len() + 2, "{after:?}");
    let found = endpoints(&t, token, tenant, &integration, 3).await;
    assert_eq!(found.len(), 4, "{found:?}");
    for (external, kind, room) in [
        ("lamp-hall", "LIGHT", "Hall"),
        ("plug-kitchen", "OTHER", "Kitchen"),
        ("speaker-living", "SPEAKER", "Living Room"),
        ("sensor-porch", "SENSOR", "Garden"),
    ] {
        let e = &found[external];
        assert_eq!(e["kind"], kind, "{e}");
        assert_eq!(
            e["roomId"],
            after[room].as_str(),
            "{external} in {room}: {e}"
        );
        assert_eq!(e["integrationId"], integration.as_str());
        assert_eq!(e["tenantId"], tenant);
        assert!(e["lastSeen"].is_string(), "{e}");
    }
    assert_eq!(found["speaker-living"]["name"], "Living room speaker");
    assert_eq!(found["plug-kitchen"]["state"]["switch"]["power"], false);
    assert_eq!(
        found["speaker-living"]["capabilities"]["music"]["sourceModes"][0],
        "library"
    );

    // A cursor of another list is refused.
    let (_, first) = t
        .get_json(
            &format!("/integrations/{integration}/endpoints?tenantId={tenant}&limit=1"),
            Some(token),
        )
        .await;
    let cursor = first["nextCursor"].as_str().unwrap();
    let (status, problem) = t
        .get_json(
            &format!("/rooms?tenantId={tenant}&propertyId={home}&cursor={cursor}"),
            Some(token),
        )
        .await;
    assert_eq!(status, 400, "{problem}");
    let (_, rooms_page) = t
        .get_json(
            &format!("/rooms?tenantId={tenant}&propertyId={home}&limit=1"),
            Some(token),
        )
        .await;
    let foreign = rooms_page["nextCursor"].as_str().unwrap();
    let (status, problem) = t
        .get_json(
            &format!("/integrations/{integration}/endpoints?tenantId={tenant}&cursor={foreign}"),
            Some(token),
        )
        .await;
    assert_eq!(
        (status, problem["field"].as_str()),
        (400, Some("cursor")),
        "{problem}"
    );

    // A person moves the speaker to the Bedroom and renames it; the lamp is
    // taken out of any room; the plug is switched on at the wall.
    let speaker = found["speaker-living"]["id"].as_str().unwrap();
    let (status, thing) = t
        .send_json(
            "PATCH",
            &format!("/endpoints/{speaker}?tenantId={tenant}"),
            Some(token),
            Some(json!({ "roomId": after["Bedroom"], "name": "Den speaker" })),
        )
        .await;
    assert_eq!(status, 200, "{thing}");
    let lamp = found["lamp-hall"]["id"].as_str().unwrap();
    let (status, thing) = t
        .send_json(
            "PATCH",
            &format!("/endpoints/{lamp}?tenantId={tenant}"),
            Some(token),
            Some(json!({ "roomId": null })),
        )
        .await;
    assert_eq!(status, 200, "{thing}");
    assert!(
        served
            .bridge
            .set_state("plug-kitchen", "switch", "power", json!(true))
    );

    // Rediscovery: nothing renamed, nothing moved, no room created again;
    // the plug's new state is taken.
    let (status, discovered) = t
        .post_json(
            &format!("/integrations/{integration}/discover"),
            Some(token),
            json!({ "tenantId": tenant, "propertyId": home }),
        )
        .await;
    assert_eq!(status, 200, "{discovered}");
    assert_eq!(
        discovered,
        json!({ "things": 4, "created": 0, "updated": 4, "roomsCreated": [], "discovering": false })
    );
    assert_eq!(rooms(&t, token, tenant, &home).await, after);
    let again = endpoints(&t, token, tenant, &integration, 50).await;
    assert_eq!(again["speaker-living"]["name"], "Den speaker");
    assert_eq!(again["speaker-living"]["roomId"], after["Bedroom"].as_str());
    assert_eq!(
        again["lamp-hall"]["roomId"],
        Value::Null,
        "a person's 'no room' stays"
    );
    assert_eq!(again["plug-kitchen"]["state"]["switch"]["power"], true);
    assert_eq!(again["plug-kitchen"]["state"]["energy"]["power"], 60);
    assert_eq!(served.bridge.calls().get("v1/discover"), Some(&2));

    // An integration belongs to one home.
    let (status, problem) = t
        .post_json(
            &format!("/integrations/{integration}/discover"),
            Some(token),
            json!({ "tenantId": tenant, "propertyId": "0190a4c2-3f5e-7000-8000-000000000001" }),
        )
        .await;
    assert_eq!(
        (status, problem["field"].as_str()),
        (400, Some("propertyId")),
        "{problem}"
    );

    // A wrong code is the connector's rejection, not an error.
    let (_, challenge) = connect(&t, token, tenant, &home, &served.connector).await;
    let (status, rejected) = answer(&t, token, challenge["token"].as_str().unwrap(), "0000").await;
    assert_eq!(status, 200, "{rejected}");
    assert_eq!(
        rejected,
        json!({ "status": "rejected", "reason": "wrong pairing code" })
    );

    // Keys: without integrations:write a key cannot connect, discover or
    // remove; with integrations:read it reads.
    let (_, reader) = create_key(&t, &dev, &["integrations:read", "things:read"]).await;
    let (status, problem) = connect(&t, &reader, tenant, &home, &served.connector).await;
    assert_eq!(status, 403, "{problem}");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("integrations:write"),
        "{problem}"
    );
    let (status, _) = t
        .post_json(
            &format!("/integrations/{integration}/discover"),
            Some(&reader),
            json!({ "tenantId": tenant, "propertyId": home }),
        )
        .await;
    assert_eq!(status, 403);
    let (status, _) = t
        .send_json(
            "DELETE",
            &format!("/integrations/{integration}?tenantId={tenant}"),
            Some(&reader),
            None,
        )
        .await;
    assert_eq!(status, 403);
    assert_eq!(
        endpoints(&t, &reader, tenant, &integration, 50).await.len(),
        4
    );
    let (_, other) = create_key(&t, &dev, &["things:read"]).await;
    let (status, _) = t
        .get_json(&format!("/integrations?tenantId={tenant}"), Some(&other))
        .await;
    assert_eq!(status, 403);

    // Removal: the connector is told, the endpoints go.
    let (status, _) = t
        .send_json(
            "DELETE",
            &format!("/integrations/{integration}?tenantId={tenant}"),
            Some(token),
            None,
        )
        .await;
    assert_eq!(status, 204);
    assert_eq!(served.bridge.calls().get("v1/disconnect"), Some(&1));
    let (status, _) = t
        .get_json(
            &format!("/integrations/{integration}?tenantId={tenant}"),
            Some(token),
        )
        .await;
    assert_eq!(status, 404);
    let (status, _) = t
        .get_json(
            &format!("/endpoints/{speaker}?tenantId={tenant}"),
            Some(token),
        )
        .await;
    assert_eq!(status, 404);
    drop(served.running);
}

#[tokio::test]
async fn foreign_connectors_foreign_households_and_a_server_that_is_down() {
    let t = TestPlatform::start().await;
    let people = Principals::seed(&t).await;
    let dev = sign_up_and_verify(&t, "home-dev@example.com").await;
    let other = sign_up_and_verify(&t, "other-dev@example.com").await;
    let token = dev.access_token.as_str();
    let tenant = dev.sandbox_tenant_id.as_str();
    let home = sandbox_home(&t, &dev).await.property_id;
    let mine = serve_connector(&t, &dev, "my-bridge").await;
    let theirs = serve_connector(&t, &other, "their-bridge").await;

    // Another developer's unpublished connector is not installable here:
    // the same answer as a connector that does not exist.
    let (status, problem) = connect(&t, token, tenant, &home, &theirs.connector).await;
    assert_eq!(status, 404, "{problem}");
    let missing = json!({ "id": "0190a4c2-3f5e-7000-8000-000000000002" });
    let (_, none) = connect(&t, token, tenant, &home, &missing).await;
    assert_eq!(problem["detail"], none["detail"]);
    assert_eq!(
        theirs.bridge.calls().get("v1/connect"),
        None,
        "never called"
    );

    let integration = install(&t, &dev, &home, &mine.connector).await;

    // A household of another tenant (and the other developer) finds nothing.
    for outsider in [
        people.token(Who::HouseholdOwner).unwrap(),
        other.access_token.as_str(),
    ] {
        for path in [
            format!("/integrations/{integration}?tenantId={tenant}"),
            format!("/integrations/{integration}/endpoints?tenantId={tenant}"),
            format!("/integrations?tenantId={tenant}"),
        ] {
            let (status, problem) = t.get_json(&path, Some(outsider)).await;
            assert_eq!(status, 404, "{path}: {problem}");
        }
        let (status, _) = t
            .post_json(
                &format!("/integrations/{integration}/discover"),
                Some(outsider),
                json!({ "tenantId": tenant, "propertyId": home }),
            )
            .await;
        assert_eq!(status, 404);
    }
    // Its own tenant's list does not show it either.
    let first = t.platform.first_start.as_ref().unwrap();
    let (demo, demo_home) = (first.tenant_id.to_string(), first.property_id.to_string());
    let (status, list) = t
        .get_json(
            &format!("/integrations?tenantId={demo}"),
            people.token(Who::HouseholdOwner),
        )
        .await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["items"], json!([]));

    // In a real household's home: who configures it finds the sandbox
    // connector not installable there (404); a member, a guest and platform
    // SUPPORT see the home without configuring it (403).
    for (who, expected) in [
        (Who::HouseholdOwner, 404),
        (Who::TenantAdmin, 404),
        (Who::PlatformOwner, 404),
        (Who::HouseholdMember, 403),
        (Who::HouseholdGuest, 403),
        (Who::PlatformSupport, 403),
    ] {
        let (status, problem) = connect(
            &t,
            people.token(who).unwrap(),
            &demo,
            &demo_home,
            &mine.connector,
        )
        .await;
        assert_eq!(status, expected, "{who:?}: {problem}");
    }
    assert_eq!(
        mine.bridge.calls().get("v1/connect"),
        Some(&2),
        "only the install"
    );

    // The bridge goes down: discovery and connecting are 502, naming the
    // connector but never its address or token.
    let addr = mine.running.addr();
    drop(mine.running);
    for _ in 0..50 {
        if tokio::net::TcpStream::connect(addr).await.is_err() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (status, problem) = t
        .post_json(
            &format!("/integrations/{integration}/discover"),
            Some(token),
            json!({ "tenantId": tenant, "propertyId": home }),
        )
        .await;
    assert_eq!(status, 502, "{problem}");
    let (status, connecting) = connect(&t, token, tenant, &home, &mine.connector).await;
    assert_eq!(status, 502, "{connecting}");
    for body in [&problem, &connecting] {
        let text = body.to_string();
        assert!(text.contains("Virtual bridge"), "{text}");
        assert!(!text.contains(&addr.to_string()), "{text}");
        assert!(!text.contains("127.0.0.1"), "{text}");
        assert!(!text.contains(&mine.runtime_token), "{text}");
    }
    // The integration and its endpoints stay.
    assert_eq!(
        endpoints(&t, token, tenant, &integration, 50).await.len(),
        4
    );
}
