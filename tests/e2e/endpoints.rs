//! Endpoints end to end: a developer's connector (served by the virtual LAN
//! bridge of `alyt-connectors` on a loopback socket: the provider side, which
//! no real LAN hardware can play here) installed in the developer's sandbox
//! home; the endpoints rendered as things in room views and the overview,
//! commanded with the state the connector read back stored, presented as a
//! light or a switch, refreshed per endpoint and per home (unreachable things
//! reported failed), moved by a person and never moved back by discovery,
//! room actions over devices and endpoints together, and who may do what.

use alyt_connectors::DiscoveredThing;
use alyt_connectors::bridge::{RunningBridge, VirtualBridge};
use alyt_domain::device::{DeviceCapability, Lenient};
use alyt_tests::TestPlatform;
use alyt_tests::developers::{DeveloperSession, create_key, issue_live_key, sign_up_and_verify};
use alyt_tests::principals::{Principals, Who};
use alyt_tests::webhooks::Receiver;
use serde_json::{Value, json};

pub(crate) const PAIRING_CODE: &str = "4711";

/// A sandbox with the bridge installed in its home.
pub(crate) struct Installed {
    pub(crate) developer: DeveloperSession,
    pub(crate) tenant: String,
    pub(crate) property: String,
    pub(crate) integration: String,
    pub(crate) connector: String,
    pub(crate) bridge: VirtualBridge,
    pub(crate) _running: RunningBridge,
}

impl Installed {
    pub(crate) fn token(&self) -> &str {
        &self.developer.access_token
    }
}

/// A developer's connector served by a fresh virtual bridge, not installed.
pub(crate) struct Served {
    pub(crate) developer: DeveloperSession,
    pub(crate) connector: String,
    pub(crate) bridge: VirtualBridge,
    pub(crate) running: RunningBridge,
}

/// Signs a developer up and creates a connector served by a fresh virtual
/// bridge.
pub(crate) async fn serve_bridge(t: &TestPlatform, email: &str) -> Served {
    let developer = sign_up_and_verify(t, email).await;
    let slug = format!("bridge-{}", email.split('@').next().unwrap());
    serve_bridge_as(t, developer, &slug).await
}

/// A connector `slug` of `developer` served by a fresh virtual bridge.
pub(crate) async fn serve_bridge_as(
    t: &TestPlatform,
    developer: DeveloperSession,
    slug: &str,
) -> Served {
    serve_as(t, developer, slug, |token| {
        VirtualBridge::new(token, PAIRING_CODE)
    })
    .await
}

/// A connector `slug` of `developer` served by the bridge `make` builds for
/// the connector's runtime token (pairing with [`PAIRING_CODE`]).
pub(crate) async fn serve_as(
    t: &TestPlatform,
    developer: DeveloperSession,
    slug: &str,
    make: impl FnOnce(&str) -> VirtualBridge,
) -> Served {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let (status, created) = t
        .post_json(
            "/developers/connectors",
            Some(&developer.access_token),
            json!({ "slug": slug, "name": "Virtual bridge", "serverUrl": url }),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let runtime_token = created["runtimeToken"].as_str().unwrap();
    let bridge = make(runtime_token);
    listener.set_nonblocking(true).unwrap();
    let running = bridge
        .serve_listener(tokio::net::TcpListener::from_std(listener).unwrap())
        .unwrap();
    Served {
        developer,
        connector: created["connector"]["id"].as_str().unwrap().to_owned(),
        bridge,
        running,
    }
}

/// Installs a served connector in the developer's sandbox home (challenge,
/// then the code).
pub(crate) async fn install(t: &TestPlatform, served: Served) -> Installed {
    let (status, homes) = t
        .get_json(
            &format!(
                "/properties?tenantId={}",
                served.developer.sandbox_tenant_id
            ),
            Some(&served.developer.access_token),
        )
        .await;
    assert_eq!(status, 200, "{homes}");
    let property = homes["items"][0]["id"].as_str().unwrap().to_owned();
    install_into(t, served, property).await
}

/// Installs a served connector in `property`, a home of the developer's
/// sandbox.
pub(crate) async fn install_into(t: &TestPlatform, served: Served, property: String) -> Installed {
    let Served {
        developer,
        connector,
        bridge,
        running,
    } = served;
    let token = developer.access_token.clone();
    let tenant = developer.sandbox_tenant_id.clone();

    let (status, answer) = t
        .post_json(
            "/integrations",
            Some(&token),
            json!({
                "tenantId": tenant,
                "propertyId": property,
                "connectorId": connector,
                "input": { "host": "192.168.1.20" },
            }),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["status"], "challenge", "{answer}");
    let (status, answer) = t
        .post_json(
            "/integrations/challenge",
            Some(&token),
            json!({ "token": answer["token"], "input": { "pairingCode": PAIRING_CODE } }),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["status"], "connected", "{answer}");
    assert_eq!(answer["things"], 4, "{answer}");
    Installed {
        developer,
        tenant,
        property,
        integration: answer["integrationId"].as_str().unwrap().to_owned(),
        connector,
        bridge,
        _running: running,
    }
}

/// A developer with the virtual bridge installed in its sandbox home.
pub(crate) async fn install_bridge(t: &TestPlatform, email: &str) -> Installed {
    let served = serve_bridge(t, email).await;
    install(t, served).await
}

/// The installed endpoints by name.
pub(crate) async fn endpoints_by_name(t: &TestPlatform, i: &Installed) -> Value {
    let (status, page) = t
        .get_json(
            &format!(
                "/integrations/{}/endpoints?tenantId={}",
                i.integration, i.tenant
            ),
            Some(i.token()),
        )
        .await;
    assert_eq!(status, 200, "{page}");
    let mut by_name = serde_json::Map::new();
    for endpoint in page["items"].as_array().unwrap() {
        by_name.insert(
            endpoint["name"].as_str().unwrap().to_owned(),
            endpoint.clone(),
        );
    }
    Value::Object(by_name)
}

fn id_of<'a>(endpoints: &'a Value, name: &str) -> &'a str {
    endpoints[name]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("no endpoint {name:?} in {endpoints}"))
}

async fn overview(t: &TestPlatform, i: &Installed) -> Value {
    let (status, overview) = t
        .get_json(
            &format!("/properties/{}/overview?tenantId={}", i.property, i.tenant),
            Some(i.token()),
        )
        .await;
    assert_eq!(status, 200, "{overview}");
    overview
}

fn room<'a>(overview: &'a Value, name: &str) -> &'a Value {
    overview["rooms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no room {name:?} in {overview}"))
}

fn action_value(room: &Value, action: &str) -> Value {
    room["actionValues"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["action"] == action)
        .map_or(Value::Null, |v| v["value"].clone())
}

/// Creates a room in the sandbox home; returns its id.
async fn new_room(t: &TestPlatform, i: &Installed, name: &str) -> String {
    let (status, room) = t
        .post_json(
            "/rooms",
            Some(i.token()),
            json!({ "tenantId": i.tenant, "propertyId": i.property, "name": name }),
        )
        .await;
    assert_eq!(status, 201, "{room}");
    room["id"].as_str().unwrap().to_owned()
}

/// `PATCH /endpoints/{endpoint}` as the developer.
pub(crate) async fn patch(
    t: &TestPlatform,
    i: &Installed,
    endpoint: &str,
    body: Value,
) -> (u16, Value) {
    t.send_json(
        "PATCH",
        &format!("/endpoints/{endpoint}?tenantId={}", i.tenant),
        Some(i.token()),
        Some(body),
    )
    .await
}

/// Places an endpoint in a room as a person.
async fn move_to(t: &TestPlatform, i: &Installed, endpoint: &str, room: &str) {
    let (status, thing) = patch(t, i, endpoint, json!({ "roomId": room })).await;
    assert_eq!(status, 200, "{thing}");
    assert_eq!(thing["roomId"], room);
}

async fn command(t: &TestPlatform, i: &Installed, endpoint: &str, body: Value) -> (u16, Value) {
    t.post_json(
        &format!("/endpoints/{endpoint}/commands?tenantId={}", i.tenant),
        Some(i.token()),
        body,
    )
    .await
}

async fn get_thing(t: &TestPlatform, i: &Installed, endpoint: &str) -> Value {
    let (status, thing) = t
        .get_json(
            &format!("/endpoints/{endpoint}?tenantId={}", i.tenant),
            Some(i.token()),
        )
        .await;
    assert_eq!(status, 200, "{thing}");
    thing
}

#[tokio::test]
async fn discovered_endpoints_render_as_things_in_their_rooms() {
    let t = TestPlatform::start().await;
    let i = install_bridge(&t, "endpoints-render@example.com").await;
    let endpoints = endpoints_by_name(&t, &i).await;

    let lamp = get_thing(&t, &i, id_of(&endpoints, "Hall lamp")).await;
    assert_eq!(lamp["kind"], "endpoint");
    assert_eq!(lamp["category"], "light");
    assert_eq!(lamp["state"]["light.power"], false);
    assert_eq!(lamp["state"]["light.brightness"], 100);
    assert_eq!(lamp["capabilities"][0]["id"], "light");
    // Read at discovery: checked, so not null, and online.
    assert_eq!(lamp["liveness"]["state"], "online", "{lamp}");
    assert_eq!(lamp["presentable"], true);
    assert_eq!(lamp["presentedAs"], Value::Null);

    let speaker = get_thing(&t, &i, id_of(&endpoints, "Living room speaker")).await;
    assert_eq!(speaker["category"], "speaker");
    assert_eq!(speaker["presentable"], false);

    // Placement by name: the provider's rooms are created once ("Hall",
    // "Garden"); things without one go to the room whose name is inside
    // theirs (the sandbox's "Living Room", "Kitchen").
    let overview = overview(&t, &i).await;
    let in_room = |room_name: &str| -> Vec<String> {
        room(&overview, room_name)["endpoints"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(in_room("Hall"), ["Hall lamp"]);
    assert_eq!(in_room("Garden"), ["Porch sensor"]);
    assert_eq!(in_room("Living Room"), ["Living room speaker"]);
    assert_eq!(in_room("Kitchen"), ["Kitchen plug"]);
    let hall = room(&overview, "Hall");
    assert_eq!(hall["things"][0]["kind"], "endpoint");
    assert_eq!(
        hall["endpoints"][0]["integrationId"],
        i.integration.as_str()
    );
    assert_eq!(hall["endpoints"][0]["externalId"], "lamp-hall");
    assert_eq!(action_value(hall, "lights"), false);
}

#[tokio::test]
async fn a_command_stores_what_the_connector_read_back() {
    let t = TestPlatform::start().await;
    let i = install_bridge(&t, "endpoints-command@example.com").await;
    let endpoints = endpoints_by_name(&t, &i).await;
    let lamp = id_of(&endpoints, "Hall lamp");

    let (status, answer) = command(
        &t,
        &i,
        lamp,
        json!({ "command": "set", "payload": { "capability": "light", "key": "power", "value": true } }),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["status"], "applied");
    assert_eq!(answer["thing"]["state"]["light.power"], true);

    // The bridge quantises brightness: 47 is asked, 50 is what it reads back
    // and what the platform stores.
    let (status, answer) = command(
        &t,
        &i,
        lamp,
        json!({ "command": "set", "payload": { "capability": "light", "key": "brightness", "value": 47 } }),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["thing"]["state"]["light.brightness"], 50);
    assert_eq!(
        get_thing(&t, &i, lamp).await["state"]["light.brightness"],
        50
    );
    assert_eq!(
        i.bridge.thing_state("lamp-hall").unwrap()["light"]["brightness"],
        50
    );

    // Validated against the thing's descriptors before the connector is
    // asked: the field at fault is named.
    let calls_before = i.bridge.calls();
    let (status, problem) = command(
        &t,
        &i,
        lamp,
        json!({ "command": "set", "payload": { "capability": "light", "key": "brightness", "value": "bright" } }),
    )
    .await;
    assert_eq!(status, 400, "{problem}");
    assert_eq!(problem["field"], "payload.value");
    let (status, problem) = command(
        &t,
        &i,
        lamp,
        json!({ "command": "set", "payload": { "capability": "lock", "key": "locked", "value": true } }),
    )
    .await;
    assert_eq!(status, 400, "{problem}");
    assert_eq!(problem["field"], "payload.capability");
    assert_eq!(
        i.bridge.calls(),
        calls_before,
        "nothing invalid reaches the connector"
    );

    // An unreachable thing: 502, and it is judged offline afterwards.
    i.bridge.set_reachable("lamp-hall", false);
    let (status, problem) = command(
        &t,
        &i,
        lamp,
        json!({ "command": "set", "payload": { "capability": "light", "key": "power", "value": false } }),
    )
    .await;
    assert_eq!(status, 502, "{problem}");
    assert!(
        problem["detail"].as_str().unwrap().contains("Hall lamp"),
        "{problem}"
    );
    let lamp_now = get_thing(&t, &i, lamp).await;
    assert_eq!(lamp_now["liveness"]["state"], "offline");
    assert_eq!(
        lamp_now["state"]["light.power"], true,
        "the last read state stays"
    );
}

#[tokio::test]
async fn a_plug_presented_as_a_light_joins_the_lights_action() {
    let t = TestPlatform::start().await;
    let i = install_bridge(&t, "endpoints-present@example.com").await;
    let endpoints = endpoints_by_name(&t, &i).await;
    let plug = id_of(&endpoints, "Kitchen plug");

    let before = get_thing(&t, &i, plug).await;
    assert_eq!(before["category"], "switch");
    // In a room of its own (the sandbox kitchen has a virtual light).
    let pantry = new_room(&t, &i, "Pantry").await;
    move_to(&t, &i, plug, &pantry).await;
    let pantry_view = room(&overview(&t, &i).await, "Pantry").clone();
    assert_eq!(
        action_value(&pantry_view, "lights"),
        Value::Null,
        "no light yet"
    );
    assert_eq!(action_value(&pantry_view, "switches"), false);

    let (status, thing) = patch(&t, &i, plug, json!({ "presentedAs": "light" })).await;
    assert_eq!(status, 200, "{thing}");
    assert_eq!(thing["category"], "light");
    assert_eq!(thing["presentedAs"], "light");
    assert_ne!(thing["icon"], before["icon"]);
    assert_eq!(thing["capabilities"][0]["id"], "light");
    assert_eq!(thing["state"]["light.power"], false);

    // The pantry's lights action now reaches the plug; the bridge is told
    // `switch.power` (what the plug natively is).
    let (status, result) = t
        .post_json(
            &format!("/rooms/{pantry}/actions"),
            Some(i.token()),
            json!({ "tenantId": i.tenant, "capability": "light", "action": "lights", "value": true }),
        )
        .await;
    assert_eq!(status, 200, "{result}");
    let applied: Vec<&str> = result["applied"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(applied, ["Kitchen plug"], "{result}");
    assert_eq!(
        i.bridge.thing_state("plug-kitchen").unwrap()["switch"]["power"],
        true
    );
    let pantry_view = room(&overview(&t, &i).await, "Pantry").clone();
    assert_eq!(action_value(&pantry_view, "lights"), true);
    assert_eq!(
        action_value(&pantry_view, "switches"),
        Value::Null,
        "no longer a switch"
    );

    // Back to what it is; a speaker cannot be presented as a light.
    let (status, thing) = patch(&t, &i, plug, json!({ "presentedAs": null })).await;
    assert_eq!(status, 200, "{thing}");
    assert_eq!(thing["category"], "switch");
    assert_eq!(thing["state"]["switch.power"], true);
    let speaker = id_of(&endpoints, "Living room speaker");
    let (status, problem) = patch(&t, &i, speaker, json!({ "presentedAs": "light" })).await;
    assert_eq!(status, 400, "{problem}");
    assert_eq!(problem["field"], "presentedAs");
}

#[tokio::test]
async fn a_property_refresh_reads_every_connector_and_reports_what_failed() {
    let t = TestPlatform::start().await;
    let i = install_bridge(&t, "endpoints-refresh@example.com").await;
    let endpoints = endpoints_by_name(&t, &i).await;

    // Someone switches the hall lamp on by hand; the porch sensor drops off
    // the network.
    i.bridge
        .set_state("lamp-hall", "light", "power", json!(true));
    i.bridge.set_reachable("sensor-porch", false);

    let (status, refreshed) = t
        .post_json(
            &format!("/properties/{}/refresh?tenantId={}", i.property, i.tenant),
            Some(i.token()),
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{refreshed}");
    let hall = room(&refreshed, "Hall");
    assert_eq!(hall["things"][0]["state"]["light.power"], true);
    assert_eq!(
        action_value(hall, "lights"),
        true,
        "aggregates follow the read"
    );
    let failed = refreshed["failed"].as_array().unwrap();
    assert_eq!(failed.len(), 1, "{refreshed}");
    assert_eq!(failed[0]["name"], "Porch sensor");
    assert_eq!(failed[0]["thingId"], id_of(&endpoints, "Porch sensor"));
    assert!(
        failed[0]["reason"]
            .as_str()
            .unwrap()
            .contains("not responding")
    );
    let sensor = get_thing(&t, &i, id_of(&endpoints, "Porch sensor")).await;
    assert_eq!(sensor["liveness"]["state"], "offline");

    // One endpoint: 502 while it is away, the thing once it is back.
    let path = format!(
        "/endpoints/{}/refresh?tenantId={}",
        id_of(&endpoints, "Porch sensor"),
        i.tenant
    );
    let (status, problem) = t.post_json(&path, Some(i.token()), json!({})).await;
    assert_eq!(status, 502, "{problem}");
    i.bridge.set_reachable("sensor-porch", true);
    i.bridge
        .set_state("sensor-porch", "sensor.motion", "motion", json!(true));
    let (status, thing) = t.post_json(&path, Some(i.token()), json!({})).await;
    assert_eq!(status, 200, "{thing}");
    assert_eq!(thing["liveness"]["state"], "online");
    assert_eq!(thing["state"]["sensor.motion.motion"], true);
}

#[tokio::test]
async fn room_actions_report_unreachable_endpoints_failed() {
    let t = TestPlatform::start().await;
    let i = install_bridge(&t, "endpoints-action@example.com").await;
    let endpoints = endpoints_by_name(&t, &i).await;
    i.bridge.set_reachable("lamp-hall", false);
    let hall = room(&overview(&t, &i).await, "Hall")["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, result) = t
        .post_json(
            &format!("/rooms/{hall}/actions"),
            Some(i.token()),
            json!({ "tenantId": i.tenant, "capability": "light", "action": "lights", "value": true }),
        )
        .await;
    assert_eq!(status, 200, "{result}");
    assert_eq!(result["applied"], json!([]));
    assert_eq!(
        result["failed"][0]["thingId"],
        id_of(&endpoints, "Hall lamp")
    );
    assert_eq!(result["failed"][0]["name"], "Hall lamp");
    assert!(
        result["failed"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("not responding"),
        "{result}"
    );
}

#[tokio::test]
async fn discovery_never_moves_or_renames_what_a_person_changed() {
    let t = TestPlatform::start().await;
    let i = install_bridge(&t, "endpoints-placed@example.com").await;
    let endpoints = endpoints_by_name(&t, &i).await;
    let lamp = id_of(&endpoints, "Hall lamp");
    let office = new_room(&t, &i, "Study").await;
    let (status, thing) = patch(
        &t,
        &i,
        lamp,
        json!({ "roomId": office, "name": "Reading lamp" }),
    )
    .await;
    assert_eq!(status, 200, "{thing}");
    assert_eq!(thing["roomId"], office.as_str());

    // The provider renames the thing and names another room for it.
    let mut renamed = alyt_connectors::bridge::default_things()
        .into_iter()
        .find(|t| t.external_id == "lamp-hall")
        .unwrap();
    renamed.name = "Hallway lamp".into();
    renamed.room = Some("Hallway".into());
    i.bridge.add_thing(renamed);
    let (status, found) = t
        .post_json(
            &format!("/integrations/{}/discover", i.integration),
            Some(i.token()),
            json!({ "tenantId": i.tenant, "propertyId": i.property }),
        )
        .await;
    assert_eq!(status, 200, "{found}");
    let thing = get_thing(&t, &i, lamp).await;
    assert_eq!(thing["name"], "Reading lamp");
    assert_eq!(thing["roomId"], office.as_str());

    // A room a person deletes leaves its endpoints unassigned, and they stay
    // so through rediscovery.
    let (status, _) = t
        .send_json(
            "DELETE",
            &format!("/rooms/{office}?tenantId={}", i.tenant),
            Some(i.token()),
            None,
        )
        .await;
    assert_eq!(status, 204);
    let (status, _) = t
        .post_json(
            &format!("/integrations/{}/discover", i.integration),
            Some(i.token()),
            json!({ "tenantId": i.tenant, "propertyId": i.property }),
        )
        .await;
    assert_eq!(status, 200);
    let overview = overview(&t, &i).await;
    let unassigned: Vec<&str> = overview["unassigned"]
        .as_array()
        .unwrap()
        .iter()
        .map(|thing| thing["name"].as_str().unwrap())
        .collect();
    assert_eq!(unassigned, ["Reading lamp"], "{overview}");
}

#[tokio::test]
async fn an_unknown_kind_or_capability_from_a_connector_never_breaks_a_read() {
    let t = TestPlatform::start().await;
    let i = install_bridge(&t, "endpoints-lenient@example.com").await;
    i.bridge.add_thing(DiscoveredThing {
        external_id: "robot-1".into(),
        kind: Lenient::Unknown("ROBOT".into()),
        name: "Lawn robot".into(),
        room: None,
        address: None,
        capability_set: vec![
            Lenient::Unknown("TELEPORTER".into()),
            Lenient::Known(DeviceCapability::Battery),
        ],
        capabilities: None,
        features: vec![],
        state: serde_json::from_value(
            json!({ "battery": { "level": 80 }, "teleporter": { "armed": true } }),
        )
        .unwrap(),
    });
    let (status, found) = t
        .post_json(
            &format!("/integrations/{}/discover", i.integration),
            Some(i.token()),
            json!({ "tenantId": i.tenant, "propertyId": i.property }),
        )
        .await;
    assert_eq!(status, 200, "{found}");
    let endpoints = endpoints_by_name(&t, &i).await;
    let robot = &endpoints["Lawn robot"];
    assert_eq!(robot["kind"], "OTHER", "{robot}");
    assert_eq!(robot["capabilitySet"], json!(["BATTERY"]));
    let thing = get_thing(&t, &i, robot["id"].as_str().unwrap()).await;
    assert_eq!(thing["category"], "other");
    assert_eq!(
        overview(&t, &i).await["unassigned"][0]["name"],
        "Lawn robot"
    );
}

#[tokio::test]
async fn endpoints_answer_only_to_who_may_use_them() {
    let t = TestPlatform::start().await;
    let i = install_bridge(&t, "endpoints-authz@example.com").await;
    let endpoints = endpoints_by_name(&t, &i).await;
    let lamp = id_of(&endpoints, "Hall lamp");
    let on = json!({ "command": "set", "payload": { "capability": "light", "key": "power", "value": true } });

    // Another developer (another tenant) sees nothing: 404 like a missing one.
    let other = sign_up_and_verify(&t, "endpoints-other@example.com").await;
    for path in [
        format!("/endpoints/{lamp}?tenantId={}", i.tenant),
        format!("/endpoints/{lamp}?tenantId={}", other.sandbox_tenant_id),
    ] {
        let (status, problem) = t.get_json(&path, Some(&other.access_token)).await;
        assert_eq!(status, 404, "{path}: {problem}");
    }
    let (status, _) = t
        .post_json(
            &format!("/endpoints/{lamp}/commands?tenantId={}", i.tenant),
            Some(&other.access_token),
            on.clone(),
        )
        .await;
    assert_eq!(status, 404);

    // A key that may only read: reads, but neither commands nor refreshes.
    let (_, read_only) = create_key(&t, &i.developer, &["things:read"]).await;
    let (status, _) = t
        .get_json(
            &format!("/endpoints/{lamp}?tenantId={}", i.tenant),
            Some(&read_only),
        )
        .await;
    assert_eq!(status, 200);
    for path in [
        format!("/endpoints/{lamp}/commands?tenantId={}", i.tenant),
        format!("/endpoints/{lamp}/refresh?tenantId={}", i.tenant),
    ] {
        let (status, problem) = t.post_json(&path, Some(&read_only), on.clone()).await;
        assert_eq!(status, 403, "{path}: {problem}");
    }
    let (status, _) = t
        .send_json(
            "PATCH",
            &format!("/endpoints/{lamp}?tenantId={}", i.tenant),
            Some(&read_only),
            Some(json!({ "presentedAs": "switch" })),
        )
        .await;
    assert_eq!(status, 403);
    // A key with control commands it.
    let (_, control) = create_key(&t, &i.developer, &["things:control"]).await;
    let (status, answer) = t
        .post_json(
            &format!("/endpoints/{lamp}/commands?tenantId={}", i.tenant),
            Some(&control),
            on,
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    // A malformed id is a 400 naming it.
    let (status, problem) = t
        .get_json(
            &format!("/endpoints/not-a-uuid?tenantId={}", i.tenant),
            Some(i.token()),
        )
        .await;
    assert_eq!(status, 400, "{problem}");
    assert_eq!(problem["field"], "endpointId");
}

/// A webhook receiver registered for `thing.state` with the LIVE key
/// `live_key_id` by `token`.
async fn live_receiver(t: &TestPlatform, token: &str, live_key_id: &Value) -> Receiver {
    let receiver = Receiver::start(std::sync::Arc::new(alyt_domain::SystemClock)).await;
    let (status, created) = t
        .post_json(
            "/developers/webhooks",
            Some(token),
            json!({ "url": receiver.url(), "events": ["thing.state"], "keyId": live_key_id }),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    receiver.set_secret(created["secret"].as_str().unwrap());
    receiver
}

/// What the receiver got about `endpoint` (within 15 s), and that delivery.
async fn state_of(
    receiver: &Receiver,
    endpoint: &str,
) -> (Vec<alyt_tests::webhooks::Seen>, alyt_tests::webhooks::Seen) {
    let seen = receiver
        .until(std::time::Duration::from_secs(15), |s| {
            s.iter()
                .any(|x| x.envelope["data"]["endpointId"] == endpoint)
        })
        .await;
    let hit = seen
        .iter()
        .find(|x| x.envelope["data"]["endpointId"] == endpoint)
        .cloned()
        .expect("a thing.state delivery for the endpoint");
    assert!(hit.verified, "signed with the endpoint's secret");
    (seen, hit)
}

#[tokio::test]
async fn a_live_key_hears_the_tenants_that_installed_its_connector() {
    let t = TestPlatform::start().await;
    let principals = Principals::seed(&t).await;
    let staff = principals.token(Who::PlatformStaff).unwrap().to_owned();
    let i = install_bridge(&t, "endpoints-live@example.com").await;
    let endpoints = endpoints_by_name(&t, &i).await;

    // Issued for the installed connector: it reaches the sandbox that
    // installed it, and nothing else.
    alyt_tests::developers::approve_connector(&t, &staff, &i.developer, &i.connector).await;
    let live = issue_live_key(
        &t,
        &staff,
        &i.developer.developer_id,
        &["webhooks:write", "events:read", "things:read"],
        &i.connector,
    )
    .await;
    let live_secret = live["secret"].as_str().unwrap().to_owned();
    let (status, who) = t.get_json("/developers/whoami", Some(&live_secret)).await;
    assert_eq!(status, 200, "{who}");
    assert_eq!(who["tenants"], json!([i.tenant]));
    let (status, _) = t
        .get_json(
            &format!(
                "/endpoints/{}?tenantId={}",
                id_of(&endpoints, "Hall lamp"),
                i.tenant
            ),
            Some(&live_secret),
        )
        .await;
    assert_eq!(status, 200, "the key acts in the installing tenant");

    // Another developer's connector cannot be named for this developer.
    let other = install_bridge(&t, "endpoints-live-other@example.com").await;
    let response = t
        .http
        .post(t.url(&format!(
            "/developers/admin/developers/{}/live-keys",
            i.developer.developer_id
        )))
        .bearer_auth(&staff)
        .json(&json!({ "name": "x", "scopes": ["events:read"], "definitionId": other.connector }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);

    // A webhook endpoint bound to the LIVE key receives the installing
    // tenant's events, signed.
    let receiver = live_receiver(&t, i.token(), &live["id"]).await;
    let (status, answer) = command(
        &t,
        &i,
        id_of(&endpoints, "Hall lamp"),
        json!({ "command": "set", "payload": { "capability": "light", "key": "power", "value": true } }),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    let lamp = id_of(&endpoints, "Hall lamp").to_owned();
    let (seen, hit) = state_of(&receiver, &lamp).await;
    assert_eq!(hit.event_header, "thing.state");
    assert_eq!(hit.envelope["tenantId"], i.tenant.as_str());
    assert_eq!(
        hit.envelope["data"]["integrationId"],
        i.integration.as_str()
    );
    assert_eq!(hit.envelope["data"]["kind"], "LIGHT");
    assert_eq!(hit.envelope["data"]["state"]["light"]["power"], true);
    assert!(
        seen.iter()
            .all(|s| s.envelope["tenantId"] == i.tenant.as_str())
    );

    // The key's event stream hears the installing tenant too, from the
    // event the webhook got on.
    let response = t
        .http
        .get(t.url(&format!(
            "/developers/events/stream?events=thing.state&after={}",
            hit.envelope["id"].as_str().unwrap()
        )))
        .bearer_auth(&live_secret)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let mut stream = alyt_tests::webhooks::SseReader::new(response);
    let (status, _) = command(
        &t,
        &i,
        &lamp,
        json!({ "command": "set", "payload": { "capability": "light", "key": "power", "value": false } }),
    )
    .await;
    assert_eq!(status, 200);
    let events = stream.events(1, std::time::Duration::from_secs(15)).await;
    assert_eq!(events.len(), 1, "the stream heard the change");
    let (kind, _, envelope) = &events[0];
    assert_eq!(kind, "thing.state");
    assert_eq!(envelope["tenantId"], i.tenant.as_str());
    assert_eq!(envelope["data"]["state"]["light"]["power"], false);
    drop(stream);

    // Removing the integration ends the key's reach.
    let (status, _) = t
        .send_json(
            "DELETE",
            &format!("/integrations/{}?tenantId={}", i.integration, i.tenant),
            Some(i.token()),
            None,
        )
        .await;
    assert_eq!(status, 204);
    let (_, who) = t.get_json("/developers/whoami", Some(&live_secret)).await;
    assert_eq!(who["tenants"], json!([]));
}

#[tokio::test]
async fn a_live_webhook_made_before_the_installation_hears_the_installing_tenant() {
    let t = TestPlatform::start().await;
    let principals = Principals::seed(&t).await;
    let staff = principals.token(Who::PlatformStaff).unwrap().to_owned();
    let served = serve_bridge(&t, "endpoints-live-first@example.com").await;
    alyt_tests::developers::approve_connector(&t, &staff, &served.developer, &served.connector)
        .await;
    let live = issue_live_key(
        &t,
        &staff,
        &served.developer.developer_id,
        &["webhooks:write"],
        &served.connector,
    )
    .await;
    let receiver = live_receiver(&t, &served.developer.access_token, &live["id"]).await;

    // Installed afterwards: the tenant is followed from the installation on.
    let i = install(&t, served).await;
    let endpoints = endpoints_by_name(&t, &i).await;
    let plug = id_of(&endpoints, "Kitchen plug").to_owned();
    let (status, answer) = command(
        &t,
        &i,
        &plug,
        json!({ "command": "set", "payload": { "capability": "switch", "key": "power", "value": true } }),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    let (_, hit) = state_of(&receiver, &plug).await;
    assert_eq!(hit.envelope["tenantId"], i.tenant.as_str());
    assert_eq!(hit.envelope["data"]["state"]["switch"]["power"], true);
    assert_eq!(
        hit.envelope["data"]["state"]["energy"]["power"], 60,
        "read back"
    );
}

/// Household operations take `tenantId` as a query parameter: discover
/// with its `{ propertyId }` body, connecting a connector, creating and
/// merging rooms. The body's `tenantId` they took first still works; the
/// two must agree, and one of them must be there.
#[tokio::test]
async fn discover_connect_and_rooms_take_the_tenant_from_the_query() {
    let t = TestPlatform::start().await;
    let i = install_bridge(&t, "tenant-query@example.com").await;
    let tenant = i.tenant.as_str();
    let discover = format!("/integrations/{}/discover", i.integration);

    let (status, found) = t
        .post_json(
            &format!("{discover}?tenantId={tenant}"),
            Some(i.token()),
            json!({ "propertyId": i.property }),
        )
        .await;
    assert_eq!(status, 200, "{found}");
    assert_eq!(found["things"], 4, "{found}");
    let (status, found) = t
        .post_json(
            &discover,
            Some(i.token()),
            json!({ "tenantId": tenant, "propertyId": i.property }),
        )
        .await;
    assert_eq!(status, 200, "the body's tenantId still works: {found}");
    let other = "0190b5a0-0000-7000-8000-000000000001";
    for (path, body) in [
        (
            format!("{discover}?tenantId={tenant}"),
            json!({ "tenantId": other, "propertyId": i.property }),
        ),
        (discover.clone(), json!({ "propertyId": i.property })),
    ] {
        let (status, problem) = t.post_json(&path, Some(i.token()), body).await;
        assert_eq!(
            (status, &problem["field"]),
            (400, &json!("tenantId")),
            "{problem}"
        );
    }

    let (status, answer) = t
        .post_json(
            &format!("/integrations?tenantId={tenant}"),
            Some(i.token()),
            json!({ "propertyId": i.property, "connectorId": i.connector, "input": { "host": "192.168.1.21" } }),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["status"], "challenge", "{answer}");

    let mut rooms = Vec::new();
    for name in ["Attic", "Loft"] {
        let (status, room) = t
            .post_json(
                &format!("/rooms?tenantId={tenant}"),
                Some(i.token()),
                json!({ "propertyId": i.property, "name": name }),
            )
            .await;
        assert_eq!(status, 201, "{room}");
        rooms.push(room["id"].as_str().unwrap().to_owned());
    }
    let (status, merged) = t
        .post_json(
            &format!("/rooms/{}/merge?tenantId={tenant}", rooms[0]),
            Some(i.token()),
            json!({ "from": [rooms[1]] }),
        )
        .await;
    assert_eq!(status, 200, "{merged}");
    assert_eq!(merged["merged"], json!([rooms[1]]), "{merged}");
}

/// A household turns an endpoint off (`PATCH {enabled: false}`): it shows
/// as disabled, takes no command (409, nothing reaches the connector),
/// room actions skip it, rediscovery keeps it off; on again, it obeys.
#[tokio::test]
async fn a_disabled_endpoint_takes_no_commands_until_it_is_enabled_again() {
    let t = TestPlatform::start().await;
    let i = install_bridge(&t, "endpoints-disabled@example.com").await;
    let endpoints = endpoints_by_name(&t, &i).await;
    let lamp = id_of(&endpoints, "Hall lamp");
    assert_eq!(endpoints["Hall lamp"]["enabled"], true);
    assert_eq!(get_thing(&t, &i, lamp).await["settings"]["enabled"], true);
    let power = |on: bool| json!({ "command": "set", "payload": { "capability": "light", "key": "power", "value": on } });

    let (status, thing) = patch(&t, &i, lamp, json!({ "enabled": false })).await;
    assert_eq!(status, 200, "{thing}");
    assert_eq!(thing["settings"]["enabled"], false);
    assert_eq!(thing["name"], "Hall lamp", "nothing else changed");
    assert_eq!(
        endpoints_by_name(&t, &i).await["Hall lamp"]["enabled"],
        false
    );

    let calls_before = i.bridge.calls();
    let (status, problem) = command(&t, &i, lamp, power(true)).await;
    assert_eq!(status, 409, "{problem}");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("Hall lamp is disabled"),
        "{problem}"
    );
    let hall = endpoints["Hall lamp"]["roomId"].as_str().unwrap();
    let (status, result) = t
        .post_json(
            &format!("/rooms/{hall}/actions"),
            Some(i.token()),
            json!({ "tenantId": i.tenant, "capability": "light", "action": "lights", "value": true }),
        )
        .await;
    assert_eq!(status, 200, "{result}");
    assert_eq!(result["applied"], json!([]), "{result}");
    assert_eq!(
        result["skipped"],
        json!([{ "thingId": lamp, "name": "Hall lamp", "reason": "the thing is disabled" }])
    );
    assert_eq!(
        i.bridge.calls().get("v1/command"),
        calls_before.get("v1/command"),
        "no command reached the bridge"
    );
    assert_eq!(
        i.bridge.thing_state("lamp-hall").unwrap()["light"]["power"],
        false
    );

    // Rediscovery keeps the household's choice.
    let (status, found) = t
        .post_json(
            &format!("/integrations/{}/discover", i.integration),
            Some(i.token()),
            json!({ "tenantId": i.tenant, "propertyId": i.property }),
        )
        .await;
    assert_eq!(status, 200, "{found}");
    assert_eq!(get_thing(&t, &i, lamp).await["settings"]["enabled"], false);

    // A bad body is a 400 naming the field, and changes nothing.
    for body in [
        json!({ "enabled": null }),
        json!({ "enabled": "no" }),
        json!({ "enabled": 1 }),
    ] {
        let (status, problem) = patch(&t, &i, lamp, body.clone()).await;
        assert_eq!(status, 400, "{body}: {problem}");
        assert_eq!(problem["field"], "enabled", "{body}: {problem}");
    }

    // On again, together with another change.
    let (status, thing) = patch(
        &t,
        &i,
        lamp,
        json!({ "enabled": true, "name": "Hall light" }),
    )
    .await;
    assert_eq!(status, 200, "{thing}");
    assert_eq!(
        (
            thing["settings"]["enabled"].as_bool(),
            thing["name"].as_str()
        ),
        (Some(true), Some("Hall light"))
    );
    let (status, answer) = command(&t, &i, lamp, power(true)).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["thing"]["state"]["light.power"], true);
}
