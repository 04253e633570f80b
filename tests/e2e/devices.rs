//! Devices: POST /v1/devices/register, GET /v1/devices and
//! GET /v1/devices/{id}, and the issued credentials against the embedded
//! broker with a real MQTT client.

use std::collections::BTreeSet;
use std::time::Duration;

use alyt_domain::ids::PropertyId;
use alyt_store::repo::tenancy::Tenancy;
use alyt_tests::developers::{create_key, sign_up_and_verify};
use alyt_tests::principals::{Principals, Who};
use alyt_tests::{TestPlatform, without_request_id};
use rumqttc::{
    AsyncClient, ConnectReturnCode, ConnectionError, Event, MqttOptions, Packet, QoS,
    SubscribeReasonCode,
};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::timeout;

const WAIT: Duration = Duration::from_secs(10);
const MISSING: &str = "0190b5a0-0000-7000-8000-000000000000";

/// Every field of the spec's device row.
const DEVICE_FIELDS: [&str; 23] = [
    "id",
    "tenantId",
    "propertyId",
    "roomId",
    "name",
    "kind",
    "capabilities",
    "features",
    "currentUnitId",
    "parentDeviceId",
    "protocol",
    "protocolId",
    "firmwareChannel",
    "status",
    "lastSeen",
    "deletedAt",
    "createdAt",
    "updatedAt",
    "settings",
    "currentUnit",
    "reported",
    "liveness",
    "thing",
];

const THING_FIELDS: [&str; 13] = [
    "id",
    "kind",
    "name",
    "roomId",
    "category",
    "icon",
    "capabilities",
    "state",
    "stateUpdatedAt",
    "liveness",
    "settings",
    "presentedAs",
    "presentable",
];

fn keys(value: &Value) -> BTreeSet<&str> {
    value
        .as_object()
        .unwrap_or_else(|| panic!("an object: {value}"))
        .keys()
        .map(String::as_str)
        .collect()
}

fn ids(t: &TestPlatform) -> (String, String) {
    let first = t.platform.first_start.as_ref().unwrap();
    (first.tenant_id.to_string(), first.property_id.to_string())
}

async fn owner_token(t: &TestPlatform) -> String {
    let (email, password) = t.owner();
    t.household_login(&email, &password).await["accessToken"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn light(tenant: &str, property: &str, serial: &str) -> Value {
    json!({
        "tenantId": tenant,
        "propertyId": property,
        "name": "Kitchen light",
        "kind": "OTHER",
        "capabilities": ["LIGHT"],
        "serial": serial,
        "model": "ALSIML",
        "firmware": "1.0.3",
        "macAddress": "aa-bb-cc-dd-ee-0f",
    })
}

/// A rumqttc client whose event loop runs in its own task.
struct Mqtt {
    client: AsyncClient,
    events: mpsc::UnboundedReceiver<Result<Event, ConnectionError>>,
    task: JoinHandle<()>,
}

impl Mqtt {
    /// Connects; `Err` with the refusal when the broker says no.
    async fn connect(
        t: &TestPlatform,
        client_id: &str,
        username: &str,
        password: &str,
    ) -> Result<Mqtt, String> {
        let addr = t.platform.mqtt_addr;
        let mut options = MqttOptions::new(client_id, addr.ip().to_string(), addr.port());
        options.set_credentials(username, password);
        options.set_keep_alive(Duration::from_secs(30));
        let (client, mut eventloop) = AsyncClient::new(options, 16);
        let (tx, mut events) = mpsc::unbounded_channel();
        let task = tokio::spawn(async move {
            loop {
                let event = eventloop.poll().await;
                let failed = event.is_err();
                if tx.send(event).is_err() || failed {
                    break;
                }
            }
        });
        loop {
            match timeout(WAIT, events.recv()).await.expect("CONNACK in time") {
                Some(Ok(Event::Incoming(Packet::ConnAck(ack)))) => {
                    return if ack.code == ConnectReturnCode::Success {
                        Ok(Mqtt {
                            client,
                            events,
                            task,
                        })
                    } else {
                        Err(format!("{:?}", ack.code))
                    };
                }
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(e.to_string()),
                None => return Err("event loop ended".into()),
            }
        }
    }

    async fn next_event(&mut self) -> Result<Event, ConnectionError> {
        timeout(WAIT, self.events.recv())
            .await
            .expect("an MQTT event in time")
            .expect("event loop alive")
    }

    /// QoS 1 publish; true when the broker acknowledged it.
    async fn publish(&mut self, topic: &str, payload: Value) -> bool {
        self.client
            .publish(topic, QoS::AtLeastOnce, false, payload.to_string())
            .await
            .expect("queued");
        loop {
            match self.next_event().await {
                Ok(Event::Incoming(Packet::PubAck(_))) => return true,
                Ok(_) => continue,
                Err(_) => return false,
            }
        }
    }

    async fn subscribe(&mut self, filter: &str) -> Vec<SubscribeReasonCode> {
        self.client
            .subscribe(filter, QoS::AtLeastOnce)
            .await
            .expect("queued");
        loop {
            match self.next_event().await {
                Ok(Event::Incoming(Packet::SubAck(ack))) => return ack.return_codes,
                Ok(_) => continue,
                Err(e) => panic!("connection lost while subscribing to {filter}: {e}"),
            }
        }
    }

    /// No publish arrives within `within` (the connection may stay or go).
    async fn receives_nothing(&mut self, within: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            match tokio::time::timeout_at(deadline, self.events.recv()).await {
                Err(_) => return true,
                Ok(Some(Ok(Event::Incoming(Packet::Publish(p))))) => {
                    eprintln!("unexpected publish on {}", p.topic);
                    return false;
                }
                Ok(Some(Ok(_))) => continue,
                Ok(Some(Err(_)) | None) => return true,
            }
        }
    }

    async fn close(self) {
        let _ = self.client.disconnect().await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        self.task.abort();
        let _ = self.task.await;
    }
}

async fn register(t: &TestPlatform, token: &str, body: Value) -> (u16, Value) {
    t.post_json("/devices/register", Some(token), body).await
}

#[tokio::test]
async fn a_registered_device_is_listed_with_every_field_and_logs_in_to_the_broker() {
    let t = TestPlatform::start().await;
    let owner = owner_token(&t).await;
    let (tenant, property) = ids(&t);

    let (status, created) = register(&t, &owner, light(&tenant, &property, "SN-E2E-0001")).await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(
        keys(&created),
        BTreeSet::from(["device", "credentials", "topicPrefix", "connection"])
    );
    let device = &created["device"];
    let id = device["id"].as_str().unwrap().to_owned();
    assert_eq!(keys(device), BTreeSet::from(DEVICE_FIELDS));
    let credentials = &created["credentials"];
    assert_eq!(
        keys(credentials),
        BTreeSet::from(["kind", "clientId", "username", "password"])
    );
    assert_eq!(credentials["kind"], "password");
    assert_eq!(credentials["clientId"], id.as_str());
    assert_eq!(credentials["username"], id.as_str());
    let password = credentials["password"].as_str().unwrap().to_owned();
    assert_eq!(password.len(), 43, "256 random bits, base64url");
    let prefix = format!("alyt/{tenant}/{property}/{id}");
    assert_eq!(created["topicPrefix"], prefix.as_str());

    // The row: every field, as registered; never heard from -> provisioning.
    assert_eq!(device["tenantId"], tenant.as_str());
    assert_eq!(device["propertyId"], property.as_str());
    assert!(device["roomId"].is_null());
    assert_eq!(device["name"], "Kitchen light");
    assert_eq!(device["kind"], "OTHER");
    assert_eq!(device["capabilities"], json!(["LIGHT"]));
    assert_eq!(device["features"], json!([]));
    assert_eq!(device["status"], "PROVISIONING");
    assert_eq!(device["firmwareChannel"], "STABLE");
    for null in [
        "parentDeviceId",
        "protocol",
        "protocolId",
        "lastSeen",
        "deletedAt",
        "settings",
        "reported",
    ] {
        assert!(device[null].is_null(), "{null}: {device}");
    }
    let unit = &device["currentUnit"];
    assert_eq!(
        keys(unit),
        BTreeSet::from([
            "id",
            "deviceId",
            "serial",
            "model",
            "firmware",
            "macAddress",
            "installedAt",
            "removedAt",
            "removedReason"
        ])
    );
    assert_eq!(unit["id"], device["currentUnitId"]);
    assert_eq!(unit["deviceId"], id.as_str());
    assert_eq!(unit["serial"], "SN-E2E-0001");
    assert_eq!(unit["model"], "ALSIML");
    assert_eq!(unit["macAddress"], "AA:BB:CC:DD:EE:0F");
    assert!(unit["removedAt"].is_null());
    assert_eq!(
        device["liveness"],
        json!({ "state": "provisioning", "lastSeen": null, "secondsSinceLastSeen": null, "windowSeconds": 90 })
    );
    let thing = &device["thing"];
    assert_eq!(keys(thing), BTreeSet::from(THING_FIELDS));
    assert_eq!(thing["id"], id.as_str());
    assert_eq!(thing["kind"], "device");
    assert_eq!(thing["name"], "Kitchen light");
    assert_eq!(thing["category"], "light");
    assert_eq!(thing["icon"], "lightbulb");
    assert_eq!(thing["capabilities"][0]["id"], "light");
    assert_eq!(thing["capabilities"].as_array().unwrap().len(), 1);
    assert!(thing["capabilities"][0]["controls"].is_array());
    assert_eq!(thing["state"], json!({}));
    assert!(thing["stateUpdatedAt"].is_null());
    assert_eq!(thing["liveness"], device["liveness"]);
    assert_eq!(thing["settings"], json!({}));
    assert!(thing["presentedAs"].is_null());
    assert_eq!(thing["presentable"], false);

    // The same row from the list and from the single read.
    let (status, list) = t
        .get_json(&format!("/devices?tenantId={tenant}"), Some(&owner))
        .await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(keys(&list), BTreeSet::from(["items", "nextCursor"]));
    assert_eq!(list["items"].as_array().unwrap().len(), 1);
    assert_eq!(list["items"][0], *device);
    assert!(list["nextCursor"].is_null());
    let (status, one) = t
        .get_json(&format!("/devices/{id}?tenantId={tenant}"), Some(&owner))
        .await;
    assert_eq!(status, 200, "{one}");
    assert_eq!(one, *device);
    let (status, by_property) = t
        .get_json(
            &format!("/devices?tenantId={tenant}&propertyId={property}&limit=5"),
            Some(&owner),
        )
        .await;
    assert_eq!((status, &by_property["items"][0]["id"]), (200, &json!(id)));
    let (_, other_home) = t
        .get_json(
            &format!("/devices?tenantId={tenant}&propertyId={MISSING}"),
            Some(&owner),
        )
        .await;
    assert_eq!(other_home["items"], json!([]));

    // The same serial again: 409, whatever else differs.
    let mut again = light(&tenant, &property, "SN-E2E-0001");
    again["name"] = "Another".into();
    let (status, problem) = register(&t, &owner, again).await;
    assert_eq!(status, 409, "{problem}");
    assert_eq!(problem["field"], "serial");

    // A second device, to show the first cannot reach it.
    let (status, second) = register(&t, &owner, light(&tenant, &property, "SN-E2E-0002")).await;
    assert_eq!(status, 201, "{second}");
    let second_id = second["device"]["id"].as_str().unwrap().to_owned();
    let second_password = second["credentials"]["password"]
        .as_str()
        .unwrap()
        .to_owned();

    // The broker: wrong password, another client id, another device's
    // password and unknown usernames are refused.
    for (client_id, username, pass) in [
        (id.as_str(), id.as_str(), "wrong password"),
        ("someone-else", id.as_str(), password.as_str()),
        (id.as_str(), id.as_str(), second_password.as_str()),
        (MISSING, MISSING, password.as_str()),
    ] {
        assert!(
            Mqtt::connect(&t, client_id, username, pass).await.is_err(),
            "{client_id}/{username} must be refused"
        );
    }

    // The issued credentials log in; the device reaches its own subtree only.
    let mut a = Mqtt::connect(&t, &id, &id, &password)
        .await
        .expect("the issued credentials log in");
    let mut b = Mqtt::connect(&t, &second_id, &second_id, &second_password)
        .await
        .expect("the second device logs in");
    assert_eq!(
        a.subscribe(&format!("{prefix}/commands")).await,
        [SubscribeReasonCode::Success(QoS::AtLeastOnce)]
    );
    let second_prefix = format!("alyt/{tenant}/{property}/{second_id}");
    assert_eq!(
        b.subscribe(&format!("{second_prefix}/commands")).await,
        [SubscribeReasonCode::Success(QoS::AtLeastOnce)]
    );
    for filter in ["alyt/#", &format!("{second_prefix}/commands")] {
        assert_eq!(
            a.subscribe(filter).await,
            [SubscribeReasonCode::Failure],
            "{filter}"
        );
    }
    assert!(
        a.publish(
            &format!("{prefix}/status"),
            json!({ "light": { "on": true } })
        )
        .await,
        "a status report on its own topic is accepted"
    );
    // Publishing onto the other device's (or its own) commands topic gets
    // nothing through.
    a.publish(
        &format!("{second_prefix}/commands"),
        json!({ "command": "set" }),
    )
    .await;
    assert!(b.receives_nothing(Duration::from_millis(500)).await);
    let mut a = match Mqtt::connect(&t, &id, &id, &password).await {
        Ok(again) => {
            a.close().await;
            again
        }
        Err(e) => panic!("reconnect: {e}"),
    };
    assert_eq!(
        a.subscribe(&format!("{prefix}/commands")).await,
        [SubscribeReasonCode::Success(QoS::AtLeastOnce)]
    );
    a.publish(&format!("{prefix}/commands"), json!({ "command": "set" }))
        .await;
    assert!(a.receives_nothing(Duration::from_millis(500)).await);
    a.close().await;
    b.close().await;
}

#[tokio::test]
async fn bad_registrations_are_refused_naming_the_field() {
    let t = TestPlatform::start().await;
    let owner = owner_token(&t).await;
    let (tenant, property) = ids(&t);
    let base = light(&tenant, &property, "SN-BAD-0001");
    let with = |field: &str, value: Value| {
        let mut body = base.clone();
        body[field] = value;
        body
    };
    let without = |field: &str| {
        let mut body = base.clone();
        body.as_object_mut().unwrap().remove(field);
        body
    };
    let rooms = Tenancy(&*t.platform.store())
        .rooms(property.parse::<PropertyId>().unwrap())
        .await
        .unwrap();
    let cases: Vec<(Value, &str)> = vec![
        (with("name", json!("")), "name"),
        (with("name", json!("   ")), "name"),
        (with("name", json!("x".repeat(121))), "name"),
        (with("kind", json!("ROBOT")), "kind"),
        (with("capabilities", json!([])), "capabilities"),
        (
            with("capabilities", json!(["LIGHT", "LASER"])),
            "capabilities[1]",
        ),
        (with("serial", json!("")), "serial"),
        (with("serial", json!("S".repeat(65))), "serial"),
        (with("serial", json!("SN\u{1}")), "serial"),
        (with("macAddress", json!("aa:bb")), "macAddress"),
        (with("model", json!("")), "model"),
        (with("tenantId", json!("not-a-uuid")), "tenantId"),
        (with("roomId", json!(MISSING)), "roomId"),
        // A hub's child never registers here: its hub pairs it.
        (with("parentDeviceId", json!(MISSING)), "parentDeviceId"),
        (
            {
                let mut body = with("parentDeviceId", json!(MISSING));
                body["protocol"] = "ZIGBEE".into();
                body["protocolId"] = "0x0011".into();
                body
            },
            "parentDeviceId",
        ),
        (with("protocolId", json!("0x0011")), "protocolId"),
    ];
    for (body, field) in cases {
        let (status, problem) = register(&t, &owner, body.clone()).await;
        assert_eq!(status, 400, "{body}: {problem}");
        assert_eq!(problem["field"], field, "{body}: {problem}");
    }
    // Missing and unknown fields are named in the detail.
    for (body, named) in [
        (without("serial"), "serial"),
        (without("name"), "name"),
        (with("colour", json!("red")), "colour"),
    ] {
        let (status, problem) = register(&t, &owner, body).await;
        assert_eq!(status, 400, "{problem}");
        assert!(
            problem["detail"].as_str().unwrap().contains(named),
            "{problem}"
        );
    }
    // A real room of the home is accepted.
    let (status, created) = register(&t, &owner, with("roomId", json!(rooms[0].id))).await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["device"]["roomId"], json!(rooms[0].id));
    assert_eq!(created["device"]["thing"]["roomId"], json!(rooms[0].id));

    // A property that does not exist answers 404.
    let (status, problem) = register(&t, &owner, with("propertyId", json!(MISSING))).await;
    assert_eq!(status, 404, "{problem}");
}

#[tokio::test]
async fn a_developer_key_registers_into_its_sandbox() {
    let t = TestPlatform::start().await;
    let dev = sign_up_and_verify(&t, "device-dev@example.com").await;
    let sandbox = dev.sandbox_tenant_id.clone();
    let (_, read) = create_key(&t, &dev, &["tenant:read", "devices:read"]).await;
    let (_, write) = create_key(&t, &dev, &["devices:write"]).await;
    let (_, props) = t
        .get_json(&format!("/properties?tenantId={sandbox}"), Some(&read))
        .await;
    let home = props["items"][0]["id"].as_str().unwrap().to_owned();
    let (demo, demo_home) = ids(&t);

    // devices:write registers; a hub with voice is a hub.
    let hub = json!({
        "tenantId": sandbox,
        "propertyId": home,
        "name": "Sandbox hub",
        "kind": "HUB",
        "capabilities": ["VOICE", "HUB"],
        "serial": "ALSIMH-0001",
    });
    let (status, created) = register(&t, &write, hub.clone()).await;
    assert_eq!(status, 201, "{created}");
    let hub_id = created["device"]["id"].as_str().unwrap().to_owned();
    assert_eq!(created["device"]["thing"]["category"], "hub");
    assert_eq!(
        created["topicPrefix"],
        format!("alyt/{sandbox}/{home}/{hub_id}").as_str()
    );
    assert_eq!(
        created["device"]["capabilities"],
        json!(["VOICE", "HUB"]),
        "the spec's order"
    );
    let hub_password = created["credentials"]["password"].as_str().unwrap();
    let mqtt = Mqtt::connect(&t, &hub_id, &hub_id, hub_password)
        .await
        .expect("the sandbox device logs in");

    // A child comes through the hub: it pairs it and reports it on its
    // events channel; (parentDeviceId, protocolId) is unique, so the same
    // report again pairs nothing new.
    let paired = json!({
        "type": "child.paired", "protocol": "ZIGBEE", "protocolId": "0x00124b00",
        "name": "Zigbee sensor", "kind": "SENSOR", "capabilities": ["SENSOR", "BATTERY"],
    });
    for _ in 0..2 {
        mqtt.client
            .publish(
                format!("{}/events", created["topicPrefix"].as_str().unwrap()),
                QoS::AtLeastOnce,
                false,
                paired.to_string(),
            )
            .await
            .unwrap();
    }
    let children = |devices: &Value| -> Vec<Value> {
        devices["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["parentDeviceId"] == hub_id.as_str())
            .cloned()
            .collect()
    };
    let deadline = tokio::time::Instant::now() + WAIT;
    let sensor = loop {
        let (_, devices) = t
            .get_json(
                &format!("/devices?tenantId={sandbox}&limit=200"),
                Some(&read),
            )
            .await;
        if let [sensor] = children(&devices).as_slice() {
            break sensor.clone();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no child: {devices}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(sensor["protocol"], "ZIGBEE");
    assert_eq!(sensor["protocolId"], "0x00124b00");
    assert_eq!(sensor["thing"]["category"], "sensor");
    assert_eq!(sensor["currentUnitId"], Value::Null, "no board of its own");
    // The hub speaks for it: it has no broker credential of its own.
    let child_id = sensor["id"].as_str().unwrap();
    assert!(
        Mqtt::connect(&t, child_id, child_id, hub_password)
            .await
            .is_err()
    );
    // The second report has been applied (in order) by the time a third
    // message is: still one child.
    mqtt.client
        .publish(
            format!("{}/status", created["topicPrefix"].as_str().unwrap()),
            QoS::AtLeastOnce,
            false,
            json!({ "hub": { "uptime": 1 } }).to_string(),
        )
        .await
        .unwrap();
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let (_, row) = t
            .get_json(
                &format!("/devices/{hub_id}?tenantId={sandbox}"),
                Some(&read),
            )
            .await;
        if row["reported"]["payload"]["hub"]["uptime"] == 1 {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "no status: {row}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (_, devices) = t
        .get_json(
            &format!("/devices?tenantId={sandbox}&limit=200"),
            Some(&read),
        )
        .await;
    assert_eq!(children(&devices).len(), 1, "paired once");
    mqtt.close().await;

    // The key's scopes: write without read cannot list; read cannot register.
    let (status, problem) = t
        .get_json(&format!("/devices?tenantId={sandbox}"), Some(&write))
        .await;
    assert_eq!(status, 403, "{problem}");
    let mut other = hub.clone();
    other["serial"] = "ALSIMH-0002".into();
    let (status, problem) = register(&t, &read, other).await;
    assert_eq!(status, 403, "{problem}");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("devices:write")
    );
    // One device a page, cursor to cursor: the sandbox's five virtual
    // devices and the two registered here, each once.
    let mut listed: Vec<String> = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(c) => format!("/devices?tenantId={sandbox}&limit=1&cursor={c}"),
            None => format!("/devices?tenantId={sandbox}&limit=1"),
        };
        let (status, page) = t.get_json(&path, Some(&read)).await;
        assert_eq!(status, 200, "{page}");
        let items = page["items"].as_array().unwrap();
        assert!(items.len() <= 1, "{page}");
        listed.extend(items.iter().map(|d| d["id"].as_str().unwrap().to_owned()));
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    let unique: BTreeSet<&str> = listed.iter().map(String::as_str).collect();
    assert_eq!(unique.len(), listed.len(), "no device twice: {listed:?}");
    assert_eq!(listed.len(), 7, "{listed:?}");
    assert!(unique.contains(hub_id.as_str()));
    assert!(unique.contains(child_id));

    // Outside its sandbox the key finds nothing, as if the tenant did not exist.
    let mut demo_device = light(&demo, &demo_home, "SN-DEMO-0001");
    demo_device["name"] = "Not mine".into();
    let (s1, foreign) = register(&t, &write, demo_device.clone()).await;
    demo_device["tenantId"] = MISSING.into();
    let (s2, missing) = register(&t, &write, demo_device).await;
    assert_eq!((s1, s2), (404, 404));
    assert_eq!(without_request_id(foreign), without_request_id(missing));
    // And a sandbox device id under the demo tenant is a missing device.
    let (s1, foreign) = t
        .get_json(&format!("/devices/{hub_id}?tenantId={demo}"), Some(&read))
        .await;
    let (s2, missing) = t
        .get_json(&format!("/devices/{MISSING}?tenantId={demo}"), Some(&read))
        .await;
    assert_eq!((s1, s2), (404, 404));
    assert_eq!(without_request_id(foreign), without_request_id(missing));
}

#[tokio::test]
async fn household_people_read_their_homes_devices_but_cannot_register() {
    let t = TestPlatform::start().await;
    let p = Principals::seed(&t).await;
    let (tenant, property) = ids(&t);
    let owner = p.token(Who::PlatformOwner).unwrap();
    let (status, created) = register(&t, owner, light(&tenant, &property, "SN-HOME-0001")).await;
    assert_eq!(status, 201, "{created}");
    let id = created["device"]["id"].as_str().unwrap().to_owned();

    // The staff owner may register in the developer's sandbox too.
    let sandbox = p.developer.sandbox_tenant_id.clone();
    let (_, props) = t
        .get_json(
            &format!("/properties?tenantId={sandbox}"),
            Some(&p.developer.access_token),
        )
        .await;
    let sandbox_home = props["items"][0]["id"].as_str().unwrap().to_owned();
    let (status, foreign_device) =
        register(&t, owner, light(&sandbox, &sandbox_home, "SN-SANDBOX-0001")).await;
    assert_eq!(status, 201, "{foreign_device}");
    let foreign_id = foreign_device["device"]["id"].as_str().unwrap().to_owned();

    // People of the household see the tenant but hold no role that registers.
    for who in [
        Who::HouseholdOwner,
        Who::HouseholdMember,
        Who::HouseholdGuest,
    ] {
        let token = p.token(who).unwrap();
        let (status, problem) =
            register(&t, token, light(&tenant, &property, "SN-HOME-0002")).await;
        assert_eq!(status, 403, "{who:?}: {problem}");

        // ... but read the devices of their home.
        let (status, list) = t
            .get_json(&format!("/devices?tenantId={tenant}"), Some(token))
            .await;
        assert_eq!(status, 200, "{who:?}: {list}");
        let listed: Vec<&str> = list["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["id"].as_str().unwrap())
            .collect();
        assert_eq!(listed, [id.as_str()], "{who:?}");
        let (status, one) = t
            .get_json(&format!("/devices/{id}?tenantId={tenant}"), Some(token))
            .await;
        assert_eq!(status, 200, "{who:?}: {one}");
        assert_eq!(one, list["items"][0]);

        // Another tenant's device answers exactly like a missing one, under
        // either tenant id.
        let (s0, missing) = t
            .get_json(
                &format!("/devices/{MISSING}?tenantId={tenant}"),
                Some(token),
            )
            .await;
        for path in [
            format!("/devices/{foreign_id}?tenantId={tenant}"),
            format!("/devices/{foreign_id}?tenantId={sandbox}"),
        ] {
            let (status, foreign) = t.get_json(&path, Some(token)).await;
            assert_eq!((status, s0), (404, 404), "{who:?} {path}");
            assert_eq!(
                without_request_id(foreign),
                without_request_id(missing.clone()),
                "{who:?} {path}"
            );
        }
        let (status, _) = t
            .get_json(&format!("/devices?tenantId={sandbox}"), Some(token))
            .await;
        assert_eq!(status, 404, "{who:?}");
    }

    // Tenant roles register; SUPPORT reads but does not register.
    for (who, expected) in [
        (Who::TenantAdmin, 201),
        (Who::TenantInstaller, 201),
        (Who::PlatformStaff, 201),
        (Who::PlatformSupport, 403),
    ] {
        let serial = format!("SN-ROLE-{who:?}");
        let (status, body) = register(
            &t,
            p.token(who).unwrap(),
            light(&tenant, &property, &serial),
        )
        .await;
        assert_eq!(status, expected, "{who:?}: {body}");
        let (status, _) = t
            .get_json(&format!("/devices/{id}?tenantId={tenant}"), p.token(who))
            .await;
        assert_eq!(status, 200, "{who:?}");
    }
}
