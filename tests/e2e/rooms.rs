//! Rooms end to end: the add-a-room flow, the resolved view, who may
//! configure and control, delete and merge, room actions with devices
//! played by real MQTT clients (aggregates, applied/skipped/failed, the
//! listening flag muting the hub), foreign and guest refusals, and stored
//! data this build does not know.

use std::time::Duration;

use alyt_tests::principals::{Principals, Who};
use alyt_tests::{Target, TestPlatform};
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::device_plane::Registered;

pub(crate) struct Home {
    pub(crate) tenant: String,
    pub(crate) property: String,
}

pub(crate) fn demo_home(t: &TestPlatform) -> Home {
    let first = t.platform.first_start.as_ref().unwrap();
    Home {
        tenant: first.tenant_id.to_string(),
        property: first.property_id.to_string(),
    }
}

/// Creates a room; panics unless 201.
pub(crate) async fn create_room(t: &impl Target, token: &str, home: &Home, name: &str) -> Value {
    let (status, room) = t
        .post_json(
            "/rooms",
            Some(token),
            json!({ "tenantId": home.tenant, "propertyId": home.property, "name": name }),
        )
        .await;
    assert_eq!(status, 201, "{room}");
    room
}

/// Creates a room; returns its id.
pub(crate) async fn create_room_id(
    t: &TestPlatform,
    token: &str,
    home: &Home,
    name: &str,
) -> String {
    create_room(t, token, home, name).await["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

pub(crate) async fn get_room(t: &impl Target, token: &str, home: &Home, room: &str) -> Value {
    let (status, view) = t
        .get_json(
            &format!("/rooms/{room}?tenantId={}", home.tenant),
            Some(token),
        )
        .await;
    assert_eq!(status, 200, "{view}");
    view
}

/// Registers a device in `room` (None: no room); `extra` is merged into the
/// body.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn register(
    t: &TestPlatform,
    token: &str,
    home: &Home,
    room: Option<&str>,
    name: &str,
    kind: &str,
    capabilities: &[&str],
    extra: Value,
) -> Registered {
    let serial = format!("SN-{}", uuid_like());
    let mut body = json!({
        "tenantId": home.tenant,
        "propertyId": home.property,
        "name": name,
        "kind": kind,
        "capabilities": capabilities,
        "serial": serial,
    });
    if let Some(room) = room {
        body["roomId"] = json!(room);
    }
    if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
        body.extend(extra.clone());
    }
    let (status, answer) = t.post_json("/devices/register", Some(token), body).await;
    assert_eq!(status, 201, "{answer}");
    Registered {
        tenant: home.tenant.clone(),
        device: answer["device"]["id"].as_str().unwrap().to_owned(),
        prefix: answer["topicPrefix"].as_str().unwrap().to_owned(),
        username: answer["credentials"]["username"]
            .as_str()
            .unwrap()
            .to_owned(),
        password: answer["credentials"]["password"]
            .as_str()
            .unwrap()
            .to_owned(),
    }
}

fn uuid_like() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{nanos:x}-{}", NEXT.fetch_add(1, Ordering::SeqCst))
}

/// A device connected and subscribed to its commands.
pub(crate) struct Played {
    pub(crate) client: AsyncClient,
    pub(crate) commands: mpsc::UnboundedReceiver<Value>,
    pub(crate) driver: tokio::task::JoinHandle<()>,
    pub(crate) prefix: String,
}

pub(crate) async fn play(t: &TestPlatform, d: &Registered) -> Played {
    let addr = t.platform.mqtt_addr;
    let mut options = MqttOptions::new(&d.username, addr.ip().to_string(), addr.port());
    options.set_credentials(&d.username, &d.password);
    options.set_keep_alive(Duration::from_secs(30));
    let (client, mut events) = AsyncClient::new(options, 20);
    let (tx, commands) = mpsc::unbounded_channel();
    let (subscribed_tx, subscribed_rx) = tokio::sync::oneshot::channel();
    let mut subscribed_tx = Some(subscribed_tx);
    let driver = tokio::spawn(async move {
        loop {
            match events.poll().await {
                Ok(Event::Incoming(Packet::SubAck(_))) => {
                    if let Some(done) = subscribed_tx.take() {
                        let _ = done.send(());
                    }
                }
                Ok(Event::Incoming(Packet::Publish(p))) => {
                    if let Ok(v) = serde_json::from_slice::<Value>(&p.payload) {
                        let _ = tx.send(v);
                    }
                }
                Ok(_) => {}
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
    });
    client
        .subscribe(format!("{}/commands", d.prefix), QoS::AtLeastOnce)
        .await
        .unwrap();
    tokio::time::timeout(Duration::from_secs(10), subscribed_rx)
        .await
        .expect("SUBACK within 10 s")
        .unwrap();
    Played {
        client,
        commands,
        driver,
        prefix: d.prefix.clone(),
    }
}

impl Played {
    pub(crate) async fn report(&self, status: Value) {
        self.client
            .publish(
                format!("{}/status", self.prefix),
                QoS::AtLeastOnce,
                false,
                status.to_string(),
            )
            .await
            .unwrap();
    }

    /// Publishes on the device's events channel.
    pub(crate) async fn event(&self, fields: Value) {
        self.client
            .publish(
                format!("{}/events", self.prefix),
                QoS::AtLeastOnce,
                false,
                fields.to_string(),
            )
            .await
            .unwrap();
    }

    pub(crate) async fn answer(&self, command: &Value) {
        let response = json!({ "commandId": command["commandId"], "command": command["command"], "status": "ok" });
        self.client
            .publish(
                format!("{}/response", self.prefix),
                QoS::AtLeastOnce,
                false,
                response.to_string(),
            )
            .await
            .unwrap();
    }

    pub(crate) async fn next_command(&mut self, within: Duration) -> Option<Value> {
        tokio::time::timeout(within, self.commands.recv())
            .await
            .ok()
            .flatten()
    }
}

/// Polls the room view until `check` holds (ingest is asynchronous), for
/// the target's [`Target::device_patience`].
pub(crate) async fn room_until(
    t: &impl Target,
    token: &str,
    home: &Home,
    room: &str,
    what: &str,
    check: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = tokio::time::Instant::now() + t.device_patience();
    loop {
        let view = get_room(t, token, home, room).await;
        if check(&view) {
            return view;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}: {view}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

pub(crate) fn value_of<'a>(view: &'a Value, action: &str) -> &'a Value {
    view["actionValues"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["action"] == action)
        .map(|v| &v["value"])
        .unwrap_or(&Value::Null)
}

fn names(list: &Value) -> Vec<String> {
    let mut names: Vec<String> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["name"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn rooms_are_added_resolved_configured_by_owners_deleted_and_merged() {
    let t = TestPlatform::start().await;
    let p = Principals::seed(&t).await;
    let home = demo_home(&t);
    let owner = p.token(Who::HouseholdOwner).unwrap();
    let member = p.token(Who::HouseholdMember).unwrap();
    let guest = p.token(Who::HouseholdGuest).unwrap();

    // The add-a-room flow offers names with their icons.
    let (status, suggestions) = t.get_json("/rooms/suggestions", Some(member)).await;
    assert_eq!(status, 200, "{suggestions}");
    let items = suggestions["items"].as_array().unwrap();
    assert!(items.len() >= 10);
    assert!(
        items
            .iter()
            .any(|s| s["name"] == "Kitchen" && s["icon"] == "stove")
    );
    assert!(suggestions["nextCursor"].is_null());

    // Only configuring roles create rooms; the icon derives from the name.
    let room = create_room(&t, owner, &home, "Guest Bathroom").await;
    assert_eq!(room["icon"], "shower");
    assert_eq!(room["listening"], true);
    assert_eq!(room["chosenActions"], Value::Null);
    assert_eq!(room["primaryActions"], json!([]));
    assert_eq!(room["quietHoursStart"], Value::Null);
    assert_eq!(room["things"], json!([]));
    assert_eq!(room["devices"], json!([]));
    assert_eq!(room["endpoints"], json!([]));
    let id = room["id"].as_str().unwrap().to_owned();
    for who in [member, guest] {
        let (status, problem) = t
            .post_json(
                "/rooms",
                Some(who),
                json!({ "tenantId": home.tenant, "propertyId": home.property, "name": "Den" }),
            )
            .await;
        assert_eq!(status, 403, "{problem}");
    }
    for (body, field) in [
        (json!({ "name": "  " }), "name"),
        (json!({ "name": "Den", "icon": "rocket" }), "icon"),
        (json!({ "name": "Den", "colour": "red" }), "colour"),
    ] {
        let mut body = body;
        body["tenantId"] = json!(home.tenant);
        body["propertyId"] = json!(home.property);
        let (status, problem) = t.post_json("/rooms", Some(owner), body).await;
        assert_eq!(status, 400, "{problem}");
        assert_eq!(problem["field"], field, "{problem}");
    }

    // Everyone in the house sees it, a guest in its pinned home too.
    for who in [owner, member, guest] {
        assert_eq!(
            get_room(&t, who, &home, &id).await["name"],
            "Guest Bathroom"
        );
    }
    let (status, page) = t
        .get_json(
            &format!(
                "/rooms?tenantId={}&propertyId={}&limit=2",
                home.tenant, home.property
            ),
            Some(member),
        )
        .await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["items"].as_array().unwrap().len(), 2);
    assert_eq!(page["items"][0]["name"], "Living Room");
    assert_eq!(page["items"][0]["icon"], "sofa");
    let cursor = page["nextCursor"].as_str().unwrap().to_owned();
    let mut seen = 2;
    let mut cursor = Some(cursor);
    while let Some(c) = cursor {
        let (_, page) = t
            .get_json(
                &format!(
                    "/rooms?tenantId={}&propertyId={}&limit=2&cursor={c}",
                    home.tenant, home.property
                ),
                Some(member),
            )
            .await;
        seen += page["items"].as_array().unwrap().len();
        cursor = page["nextCursor"].as_str().map(str::to_owned);
    }
    assert_eq!(seen, 5, "four bootstrap rooms and the new one");

    // Configuration is the owner's; listening alone is control.
    let patch = |who: &str, body: Value| {
        let path = format!("/rooms/{id}?tenantId={}", home.tenant);
        let who = who.to_owned();
        let t = &t;
        async move { t.send_json("PATCH", &path, Some(&who), Some(body)).await }
    };
    let (status, view) = patch(
        owner,
        json!({ "name": "Wellness", "icon": "pool", "quietHoursStart": 22, "quietHoursEnd": 7,
                "chosenActions": [{ "capability": "thermostat", "action": "thermostat" }] }),
    )
    .await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(
        (
            &view["name"],
            &view["icon"],
            &view["quietHoursStart"],
            &view["quietHoursEnd"]
        ),
        (&json!("Wellness"), &json!("pool"), &json!(22), &json!(7))
    );
    assert_eq!(
        view["chosenActions"],
        json!([{ "capability": "thermostat", "action": "thermostat" }])
    );
    assert_eq!(view["primaryActions"], json!([]), "not served: dropped");
    let (status, view) = patch(owner, json!({ "icon": null })).await;
    assert_eq!(status, 200);
    assert_eq!(view["icon"], "home", "derived from 'Wellness' again");
    for (body, field) in [
        (json!({ "quietHoursStart": null }), "quietHoursStart"),
        (json!({ "quietHoursEnd": 24 }), "quietHoursEnd"),
        (
            json!({ "chosenActions": [{ "capability": "Light!", "action": "lights" }] }),
            "chosenActions[0]",
        ),
        (json!({ "icon": "rocket" }), "icon"),
    ] {
        let (status, problem) = patch(owner, body.clone()).await;
        assert_eq!(status, 400, "{body}: {problem}");
        assert_eq!(problem["field"], field, "{body}: {problem}");
    }
    let (status, _) = patch(member, json!({ "name": "Mine" })).await;
    assert_eq!(status, 403);
    let (status, view) = patch(member, json!({ "listening": false })).await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["listening"], false);
    let (status, view) = patch(guest, json!({ "listening": true })).await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["listening"], true);

    // Delete: the members stay in the house with no room.
    let admin = p.token(Who::TenantAdmin).unwrap();
    let lamp = register(
        &t,
        admin,
        &home,
        Some(&id),
        "Spa lamp",
        "OTHER",
        &["LIGHT"],
        json!({}),
    )
    .await;
    assert_eq!(
        get_room(&t, owner, &home, &id).await["things"][0]["name"],
        "Spa lamp"
    );
    let (status, _) = t
        .send_json(
            "DELETE",
            &format!("/rooms/{id}?tenantId={}", home.tenant),
            Some(member),
            None,
        )
        .await;
    assert_eq!(status, 403);
    let (status, _) = t
        .send_json(
            "DELETE",
            &format!("/rooms/{id}?tenantId={}", home.tenant),
            Some(owner),
            None,
        )
        .await;
    assert_eq!(status, 204);
    let (status, _) = t
        .get_json(
            &format!("/rooms/{id}?tenantId={}", home.tenant),
            Some(owner),
        )
        .await;
    assert_eq!(status, 404);
    let (_, row) = t
        .get_json(
            &format!("/devices/{}?tenantId={}", lamp.device, home.tenant),
            Some(owner),
        )
        .await;
    assert_eq!(row["roomId"], Value::Null);
    assert_eq!(row["propertyId"], json!(home.property));

    // Merge: one room kept, every member moved, the others removed.
    let kept = create_room_id(&t, owner, &home, "Lounge").await;
    let b = create_room_id(&t, owner, &home, "Lounge 2").await;
    let c = create_room_id(&t, owner, &home, "lounge").await;
    register(
        &t,
        admin,
        &home,
        Some(&b),
        "Lamp B",
        "OTHER",
        &["LIGHT"],
        json!({}),
    )
    .await;
    register(
        &t,
        admin,
        &home,
        Some(&c),
        "Lamp C1",
        "OTHER",
        &["LIGHT"],
        json!({}),
    )
    .await;
    register(
        &t,
        admin,
        &home,
        Some(&c),
        "Lamp C2",
        "OTHER",
        &["LIGHT"],
        json!({}),
    )
    .await;
    let merge = |from: Value| {
        let path = format!("/rooms/{kept}/merge");
        let body = json!({ "tenantId": home.tenant, "from": from });
        let t = &t;
        async move { t.post_json(&path, Some(owner), body).await }
    };
    for (from, field) in [
        (json!([]), "from"),
        (json!([kept]), "from[0]"),
        (json!([b, b]), "from[1]"),
        (
            json!([b, "0190b5a0-0000-7000-8000-0000000000aa"]),
            "from[1]",
        ),
    ] {
        let (status, problem) = merge(from.clone()).await;
        assert_eq!(status, 400, "{from}: {problem}");
        assert_eq!(problem["field"], field, "{from}: {problem}");
    }
    let (status, merged) = merge(json!([b, c])).await;
    assert_eq!(status, 200, "{merged}");
    assert_eq!(merged["merged"], json!([b, c]));
    assert_eq!(merged["failed"], Value::Null);
    assert_eq!(merged["notProcessed"], json!([]));
    assert_eq!(
        names(&merged["room"]["things"]),
        ["Lamp B", "Lamp C1", "Lamp C2"]
    );
    for gone in [&b, &c] {
        let (status, _) = t
            .get_json(
                &format!("/rooms/{gone}?tenantId={}", home.tenant),
                Some(owner),
            )
            .await;
        assert_eq!(status, 404);
    }
    let (status, _) = t
        .post_json(
            &format!("/rooms/{kept}/merge"),
            Some(member),
            json!({ "tenantId": home.tenant, "from": [id] }),
        )
        .await;
    assert_eq!(status, 403, "merging is configuration");
}

#[tokio::test]
async fn aggregates_follow_reports_and_a_room_action_answers_per_thing() {
    let t = TestPlatform::start().await;
    let p = Principals::seed(&t).await;
    let home = demo_home(&t);
    let admin = p.token(Who::TenantAdmin).unwrap();
    let member = p.token(Who::HouseholdMember).unwrap();
    let room = create_room_id(&t, admin, &home, "Kitchen 2").await;

    let ceiling = register(
        &t,
        admin,
        &home,
        Some(&room),
        "Ceiling",
        "OTHER",
        &["LIGHT"],
        json!({}),
    )
    .await;
    let counter = register(
        &t,
        admin,
        &home,
        Some(&room),
        "Counter",
        "OTHER",
        &["LIGHT"],
        json!({}),
    )
    .await;
    let sensor = register(
        &t,
        admin,
        &home,
        Some(&room),
        "Sensor",
        "SENSOR",
        &["SENSOR", "BATTERY"],
        json!({}),
    )
    .await;
    // A hub in the room pairs a Zigbee bulb, which joins the hub's room and
    // is reached only through the hub's radio.
    let hub = register(
        &t,
        admin,
        &home,
        Some(&room),
        "Hub",
        "HUB",
        &["HUB"],
        json!({}),
    )
    .await;
    let hub_device = play(&t, &hub).await;
    hub_device
        .event(json!({
            "type": "child.paired", "protocol": "ZIGBEE", "protocolId": "0x00158d0001",
            "name": "Zigbee bulb", "kind": "OTHER", "capabilities": ["LIGHT"],
        }))
        .await;
    room_until(&t, member, &home, &room, "the paired bulb", |v| {
        v["things"]
            .as_array()
            .unwrap()
            .iter()
            .any(|th| th["name"] == "Zigbee bulb")
    })
    .await;
    let _ = &sensor;

    let view = get_room(&t, member, &home, &room).await;
    assert_eq!(view["things"].as_array().unwrap().len(), 5);
    assert_eq!(
        view["primaryActions"],
        json!([{ "capability": "light", "action": "lights" }])
    );
    let lights = view["actionValues"][0].clone();
    assert_eq!(lights["action"], "lights");
    assert_eq!(lights["members"], 3);
    assert_eq!(lights["value"], Value::Null, "nobody reported yet");

    let mut ceiling_device = play(&t, &ceiling).await;
    let counter_device = play(&t, &counter).await;
    ceiling_device
        .report(json!({ "light": { "power": false, "brightness": 30 } }))
        .await;
    counter_device
        .report(json!({ "light": { "power": false, "brightness": 80 } }))
        .await;
    room_until(&t, member, &home, &room, "both lights off", |v| {
        value_of(v, "lights") == &json!(false)
    })
    .await;
    // A light turns on: the room is on.
    ceiling_device
        .report(json!({ "light": { "power": true, "brightness": 30 } }))
        .await;
    room_until(&t, member, &home, &room, "a light on", |v| {
        value_of(v, "lights") == &json!(true)
    })
    .await;

    // Turn the lights off: applied to the two lights, the hub and the
    // sensor skipped, the hub's radio child failed.
    let (status, result) = t
        .post_json(
            &format!("/rooms/{room}/actions"),
            Some(member),
            json!({ "tenantId": home.tenant, "capability": "light", "action": "lights", "value": false }),
        )
        .await;
    assert_eq!(status, 200, "{result}");
    assert_eq!(result["value"], false);
    assert_eq!(names(&result["applied"]), ["Ceiling", "Counter"]);
    assert_eq!(names(&result["skipped"]), ["Hub", "Sensor"]);
    assert_eq!(names(&result["failed"]), ["Zigbee bulb"]);
    assert!(
        result["failed"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("hub radio"),
        "{result}"
    );
    assert!(result["failed"][0]["thingId"].is_string());
    let command = ceiling_device
        .next_command(Duration::from_secs(5))
        .await
        .expect("the command");
    assert_eq!(
        command["payload"],
        json!({ "capability": "light", "key": "power", "value": false })
    );
    // The stored state is what the light reports back.
    assert_eq!(
        value_of(&get_room(&t, member, &home, &room).await, "lights"),
        &json!(true)
    );
    ceiling_device.answer(&command).await;
    ceiling_device
        .report(json!({ "light": { "power": false, "brightness": 30 } }))
        .await;
    room_until(&t, member, &home, &room, "lights off again", |v| {
        value_of(v, "lights") == &json!(false)
    })
    .await;

    // A toggle without a value flips the room; a value the descriptors
    // refuse fails per thing; a slider action needs a value.
    let (_, result) = t
        .post_json(
            &format!("/rooms/{room}/actions"),
            Some(member),
            json!({ "tenantId": home.tenant, "capability": "light", "action": "lights" }),
        )
        .await;
    assert_eq!(result["value"], true, "{result}");
    let (status, result) = t
        .post_json(
            &format!("/rooms/{room}/actions"),
            Some(member),
            json!({ "tenantId": home.tenant, "capability": "light", "action": "lights", "value": "on" }),
        )
        .await;
    assert_eq!(status, 400, "{result}");
    assert_eq!(result["field"], "value");
    let (status, result) = t
        .post_json(
            &format!("/rooms/{room}/actions"),
            Some(member),
            json!({ "tenantId": home.tenant, "capability": "Light", "action": "lights" }),
        )
        .await;
    assert_eq!(
        (status, &result["field"]),
        (400, &json!("capability")),
        "{result}"
    );

    // Platform SUPPORT sees the room but controls nothing.
    let support = p.token(Who::PlatformSupport).unwrap();
    get_room(&t, support, &home, &room).await;
    let (status, _) = t
        .post_json(
            &format!("/rooms/{room}/actions"),
            Some(support),
            json!({ "tenantId": home.tenant, "capability": "light", "action": "lights", "value": true }),
        )
        .await;
    assert_eq!(status, 403);
    ceiling_device.driver.abort();
    counter_device.driver.abort();
}

#[tokio::test]
async fn listening_false_mutes_the_hub_and_a_physical_switch_is_never_overridden() {
    let t = TestPlatform::start().await;
    let p = Principals::seed(&t).await;
    let home = demo_home(&t);
    let admin = p.token(Who::TenantAdmin).unwrap();
    let guest = p.token(Who::HouseholdGuest).unwrap();
    let room = create_room_id(&t, admin, &home, "Living 2").await;
    let hub = register(
        &t,
        admin,
        &home,
        Some(&room),
        "Hub",
        "HUB",
        &["HUB", "VOICE"],
        json!({}),
    )
    .await;
    let lamp = register(
        &t,
        admin,
        &home,
        Some(&room),
        "Lamp",
        "OTHER",
        &["LIGHT"],
        json!({}),
    )
    .await;
    let _ = lamp;
    let mut device = play(&t, &hub).await;
    device
        .report(json!({ "voice": { "listening": true, "micMuted": false } }))
        .await;
    room_until(&t, guest, &home, &room, "the hub's report", |v| {
        v["things"]
            .as_array()
            .unwrap()
            .iter()
            .any(|th| th["state"]["voice.micMuted"] == false)
    })
    .await;
    let view = get_room(&t, guest, &home, &room).await;
    assert_eq!(
        view["primaryActions"],
        json!([{ "capability": "light", "action": "lights" }, { "capability": "voice", "action": "listening" }])
    );
    assert_eq!(value_of(&view, "listening"), &json!(true));

    // A guest in its home turns listening off: the room flag changes and
    // the hub is told.
    let listening = |value: bool| {
        let path = format!("/rooms/{room}/actions");
        let body = json!({ "tenantId": home.tenant, "capability": "voice", "action": "listening", "value": value });
        let t = &t;
        async move { t.post_json(&path, Some(guest), body).await }
    };
    let (status, result) = listening(false).await;
    assert_eq!(status, 200, "{result}");
    assert_eq!(names(&result["applied"]), ["Hub"]);
    assert_eq!(names(&result["skipped"]), ["Lamp"]);
    let command = device
        .next_command(Duration::from_secs(5))
        .await
        .expect("the mute command");
    assert_eq!(command["command"], "set");
    assert_eq!(
        command["payload"],
        json!({ "capability": "voice", "key": "listening", "value": false })
    );
    // The hub mutes and says so.
    device.answer(&command).await;
    device
        .report(json!({ "voice": { "listening": false, "micMuted": true } }))
        .await;
    let view = room_until(&t, guest, &home, &room, "the hub muted", |v| {
        v["things"]
            .as_array()
            .unwrap()
            .iter()
            .any(|th| th["state"]["voice.micMuted"] == true)
    })
    .await;
    assert_eq!(view["listening"], false);
    assert_eq!(value_of(&view, "listening"), &json!(false));

    // The same choice again commands nothing.
    let (_, result) = listening(false).await;
    assert_eq!(result["applied"], json!([]), "{result}");
    assert!(
        result["skipped"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["name"] == "Hub" && s["reason"].as_str().unwrap().contains("already false"))
    );
    assert!(
        device
            .next_command(Duration::from_millis(600))
            .await
            .is_none()
    );

    // Someone flips the hub's physical switch: reported back, never
    // overridden (no command follows), and the room's choice stands.
    device
        .report(json!({ "voice": { "listening": false, "micMuted": false } }))
        .await;
    let view = room_until(&t, guest, &home, &room, "the switch flipped", |v| {
        v["things"]
            .as_array()
            .unwrap()
            .iter()
            .any(|th| th["state"]["voice.micMuted"] == false)
    })
    .await;
    assert_eq!(view["listening"], false);
    assert!(
        device
            .next_command(Duration::from_millis(600))
            .await
            .is_none()
    );

    // Back on through PATCH (control): the hub is told once.
    let (status, view) = t
        .send_json(
            "PATCH",
            &format!("/rooms/{room}?tenantId={}", home.tenant),
            Some(guest),
            Some(json!({ "listening": true })),
        )
        .await;
    assert_eq!(status, 200, "{view}");
    let command = device
        .next_command(Duration::from_secs(5))
        .await
        .expect("the unmute command");
    assert_eq!(command["payload"]["value"], true);
    device.driver.abort();
}

#[tokio::test]
async fn guests_outside_their_home_and_foreign_tenants_find_no_room() {
    let t = TestPlatform::start().await;
    let p = Principals::seed(&t).await;
    let home = demo_home(&t);
    let first = t.platform.first_start.as_ref().unwrap();
    // A second home of the same household: the guest is pinned to the first.
    let now = time::OffsetDateTime::now_utc();
    let cabin = alyt_store::repo::tenancy::PropertyRecord {
        id: alyt_domain::ids::PropertyId::new(),
        tenant_id: first.tenant_id,
        client_id: first.client_id,
        name: "Cabin".into(),
        timezone: "UTC".into(),
        address: None,
        latitude: None,
        longitude: None,
        created_at: now,
        updated_at: now,
    };
    let store = t.platform.store();
    store
        .transact(vec![
            alyt_store::repo::tenancy::property_write(&cabin).unwrap(),
        ])
        .await
        .unwrap();
    let cabin_home = Home {
        tenant: home.tenant.clone(),
        property: cabin.id.to_string(),
    };
    let owner = p.token(Who::HouseholdOwner).unwrap();
    let guest = p.token(Who::HouseholdGuest).unwrap();
    let member = p.token(Who::HouseholdMember).unwrap();
    let room = create_room_id(&t, owner, &cabin_home, "Loft").await;
    get_room(&t, member, &cabin_home, &room).await;
    let missing = "0190b5a0-0000-7000-8000-0000000000ab";
    let (_, missing_answer) = t
        .get_json(
            &format!("/rooms/{missing}?tenantId={}", home.tenant),
            Some(guest),
        )
        .await;
    let (status, answer) = t
        .get_json(
            &format!("/rooms/{room}?tenantId={}", home.tenant),
            Some(guest),
        )
        .await;
    assert_eq!(status, 404, "{answer}");
    assert_eq!(
        alyt_tests::without_request_id(answer),
        alyt_tests::without_request_id(missing_answer.clone())
    );
    let (status, _) = t
        .post_json(
            &format!("/rooms/{room}/actions"),
            Some(guest),
            json!({ "tenantId": home.tenant, "capability": "light", "action": "lights", "value": true }),
        )
        .await;
    assert_eq!(status, 404);
    let (status, _) = t
        .get_json(
            &format!("/properties/{}/overview?tenantId={}", cabin.id, home.tenant),
            Some(guest),
        )
        .await;
    assert_eq!(status, 404);
    let (status, _) = t
        .get_json(
            &format!("/rooms?tenantId={}&propertyId={}", home.tenant, cabin.id),
            Some(guest),
        )
        .await;
    assert_eq!(status, 404);

    // A room of the developer's sandbox tenant, read by the demo household.
    let dev = &p.developer;
    let (_, homes) = t
        .get_json(
            &format!("/properties?tenantId={}", dev.sandbox_tenant_id),
            Some(&dev.access_token),
        )
        .await;
    let sandbox_home = homes["items"][0]["id"].as_str().unwrap().to_owned();
    let (status, rooms) = t
        .get_json(
            &format!(
                "/rooms?tenantId={}&propertyId={sandbox_home}",
                dev.sandbox_tenant_id
            ),
            Some(&dev.access_token),
        )
        .await;
    assert_eq!(status, 200, "{rooms}");
    let foreign = rooms["items"][0]["id"].as_str().unwrap().to_owned();
    for tenant in [&dev.sandbox_tenant_id, &home.tenant] {
        let (status, answer) = t
            .get_json(&format!("/rooms/{foreign}?tenantId={tenant}"), Some(owner))
            .await;
        assert_eq!(status, 404, "{answer}");
        let (_, missing_here) = t
            .get_json(&format!("/rooms/{missing}?tenantId={tenant}"), Some(owner))
            .await;
        assert_eq!(
            alyt_tests::without_request_id(answer),
            alyt_tests::without_request_id(missing_here)
        );
    }
}

#[tokio::test]
async fn stored_values_this_build_does_not_know_do_not_break_a_read() {
    use alyt_store::{Index, Item, Key};
    let t = TestPlatform::start().await;
    let token = crate::device_plane::owner_token(&t).await;
    let home = demo_home(&t);
    let room = create_room_id(&t, &token, &home, "Lab").await;
    let store = t.platform.store();
    // A device written by a newer build: unknown kind, capability, status,
    // protocol and extra attributes.
    let id = "0190b5a0-0000-7000-8000-00000000f001";
    let item = Item::new(Key::new(
        format!("TENANT#{}", home.tenant),
        format!("DEVICE#{id}"),
    ))
    .with(Index::Gsi1.pk_attr(), format!("PROPERTY#{}", home.property))
    .with(Index::Gsi1.sk_attr(), format!("DEVICE#{id}"))
    .with("id", id)
    .with("tenantId", home.tenant.clone())
    .with("propertyId", home.property.clone())
    .with("roomId", room.clone())
    .with("name", "Future lamp")
    .with("kind", "TELEPORTER")
    .with("capabilities", json!(["FORCE_FIELD", "LIGHT"]))
    .with("features", json!([]))
    .with("currentUnitId", Value::Null)
    .with("parentDeviceId", Value::Null)
    .with("protocol", "WARP")
    .with("protocolId", "w-1")
    .with("firmwareChannel", "NIGHTLY")
    .with("status", "PHASED")
    .with("createdAt", "2025-01-01T00:00:00Z")
    .with("updatedAt", "2025-01-01T00:00:00Z")
    .with("hologram", json!({ "x": 1 }));
    store.put(item, None).await.unwrap();
    // The room row gains attributes and an icon token of a newer build, and
    // a chosen action this build does not know.
    let key =
        alyt_store::repo::rooms::room_key(home.property.parse().unwrap(), room.parse().unwrap());
    let mut stored = store.get(&key).await.unwrap().unwrap();
    stored.set("icon", "spaceship-bay");
    stored.set("chosenActions", json!([{ "capability": "teleport", "action": "beam" }, { "capability": "light", "action": "lights" }]));
    stored.set("mood", "calm");
    store.put(stored, None).await.unwrap();

    let view = get_room(&t, &token, &home, &room).await;
    assert_eq!(view["icon"], "spaceship-bay");
    assert_eq!(view["things"][0]["name"], "Future lamp");
    assert_eq!(view["devices"][0]["kind"], "TELEPORTER", "kept as stored");
    assert_eq!(
        view["things"][0]["category"], "light",
        "from what this build knows"
    );
    assert_eq!(
        view["primaryActions"],
        json!([{ "capability": "light", "action": "lights" }])
    );
    assert_eq!(
        view["chosenActions"][0]["capability"], "teleport",
        "as stored"
    );
    let (status, overview) = t
        .get_json(
            &format!(
                "/properties/{}/overview?tenantId={}",
                home.property, home.tenant
            ),
            Some(&token),
        )
        .await;
    assert_eq!(status, 200, "{overview}");
    // A dashboard pin kind of a newer build is dropped, the others read.
    store
        .put(
            Item::new(alyt_store::repo::rooms::dashboard_key(home.property.parse().unwrap()))
                .with("propertyId", home.property.clone())
                .with("tenantId", home.tenant.clone())
                .with("updatedAt", "2025-01-01T00:00:00Z")
                .with(
                    "pins",
                    json!([{ "kind": "scene", "sceneId": "s1" },
                           { "kind": "routine", "routineId": "0190b5a0-0000-7000-8000-0000000000cc" }]),
                ),
            None,
        )
        .await
        .unwrap();
    let (status, dashboard) = t
        .get_json(
            &format!(
                "/properties/{}/dashboard?tenantId={}",
                home.property, home.tenant
            ),
            Some(&token),
        )
        .await;
    assert_eq!(status, 200, "{dashboard}");
    assert_eq!(dashboard["pins"].as_array().unwrap().len(), 1);
    tokio::time::sleep(Duration::from_millis(10)).await;
}

#[tokio::test]
async fn actions_take_the_tenant_from_the_query_or_the_body() {
    let t = TestPlatform::start().await;
    let (email, password) = t.owner();
    let owner = t.household_login(&email, &password).await["accessToken"]
        .as_str()
        .unwrap()
        .to_owned();
    let home = demo_home(&t);
    let room = create_room_id(&t, &owner, &home, "Study").await;
    let listening = json!({ "capability": "voice", "action": "listening", "value": false });
    let with_tenant = |tenant: &str| {
        let mut body = listening.clone();
        body["tenantId"] = json!(tenant);
        body
    };
    let other_tenant = "0190b5a0-0000-7000-8000-000000000000";
    for target in [
        format!("/rooms/{room}/actions"),
        format!("/properties/{}/actions", home.property),
    ] {
        let query = format!("{target}?tenantId={}", home.tenant);
        // The spec's body { capability, action, value } with ?tenantId=.
        let (status, answer) = t.post_json(&query, Some(&owner), listening.clone()).await;
        assert_eq!(status, 200, "{target} with the query: {answer}");
        // The run-action request with tenantId in the body, alone or agreeing.
        for path in [&target, &query] {
            let (status, answer) = t
                .post_json(path, Some(&owner), with_tenant(&home.tenant))
                .await;
            assert_eq!(status, 200, "{path}: {answer}");
        }
        // Disagreeing, or named nowhere: 400 naming tenantId.
        for (path, body) in [
            (&query, with_tenant(other_tenant)),
            (&target, listening.clone()),
        ] {
            let (status, problem) = t.post_json(path, Some(&owner), body).await;
            assert_eq!(status, 400, "{path}: {problem}");
            assert_eq!(problem["field"], "tenantId", "{problem}");
        }
    }
}
