//! The simulator on the local platform: a verified developer's sandbox holds
//! five virtual devices that are real MQTT clients of the embedded broker;
//! commands reach them, scenarios show through platform events, quotas bound
//! them, and a restart resumes every scenario.
//!
//! Time-driven rules use the test platform's fast simulator timings
//! (`SimulatorConfig::fast`: heartbeat and telemetry every second, a 3 s
//! heartbeat window swept every second, FLAPPING every 3 s; SLOW keeps the
//! spec's 5 s), never long sleeps.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use alyt_domain::ids::TenantId;
use alyt_events::{EventEnvelope, EventKind, EventLog};
use alyt_store::repo::tenancy::Tenancy;
use alyt_tests::TestPlatform;
use alyt_tests::developers::{self, DeveloperSession};
use serde_json::{Value, json};

use crate::device_plane::{Registered, owner_token, try_connect};
use crate::rooms::play;
use rumqttc::QoS;

pub(crate) fn fast(config: &mut alyt_local::Config) {
    config.simulator = alyt_local::SimulatorConfig::fast();
    config.heartbeat_sweep_every = Duration::from_secs(1);
}

/// A verified developer and its sandbox's virtual devices by profile.
pub(crate) struct Sandbox {
    pub(crate) dev: DeveloperSession,
    pub(crate) tenant: String,
    pub(crate) devices: BTreeMap<String, Value>,
}

impl Sandbox {
    pub(crate) fn id(&self, profile: &str) -> String {
        self.devices[profile]["device"]["id"]
            .as_str()
            .unwrap()
            .to_owned()
    }
}

async fn list(t: &TestPlatform, dev: &DeveloperSession, tenant: &str) -> Vec<Value> {
    let (status, body) = t
        .get_json(
            &format!("/developers/simulator/devices?tenantId={tenant}"),
            Some(&dev.access_token),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    body["items"].as_array().unwrap().clone()
}

pub(crate) async fn sandbox(t: &TestPlatform, email: &str) -> Sandbox {
    let dev = developers::sign_up_and_verify(t, email).await;
    sandbox_of(t, dev).await
}

async fn sandbox_of(t: &TestPlatform, dev: DeveloperSession) -> Sandbox {
    let tenant = dev.sandbox_tenant_id.clone();
    let devices = list(t, &dev, &tenant)
        .await
        .into_iter()
        .map(|d| (d["profile"].as_str().unwrap().to_owned(), d))
        .collect();
    Sandbox {
        dev,
        tenant,
        devices,
    }
}

/// Every event of the tenant so far (all pages).
async fn events(t: &TestPlatform, tenant: &str) -> Vec<EventEnvelope> {
    let log = EventLog::new(
        t.platform.store(),
        std::sync::Arc::new(alyt_domain::SystemClock),
    );
    let tenant: TenantId = tenant.parse().unwrap();
    let mut all = Vec::new();
    let mut after = None;
    loop {
        let page = log
            .read_after(tenant, after.as_ref(), None, 1000)
            .await
            .unwrap();
        if page.events.is_empty() {
            return all;
        }
        after = page.position.clone();
        all.extend(page.events);
    }
}

fn of_device<'a>(
    events: &'a [EventEnvelope],
    kind: EventKind,
    device: &'a str,
) -> impl Iterator<Item = &'a EventEnvelope> + 'a {
    events
        .iter()
        .filter(move |e| e.kind == kind && e.data["deviceId"] == device)
}

/// Polls the tenant's events until `found` picks one, or panics after `secs`.
async fn wait_for_event(
    t: &TestPlatform,
    tenant: &str,
    secs: u64,
    what: &str,
    found: impl Fn(&EventEnvelope) -> bool,
) -> EventEnvelope {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(event) = events(t, tenant).await.into_iter().find(|e| found(e)) {
            return event;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out after {secs} s waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn device_row(t: &TestPlatform, token: &str, tenant: &str, device: &str) -> Value {
    let (status, body) = t
        .get_json(&format!("/devices/{device}?tenantId={tenant}"), Some(token))
        .await;
    assert_eq!(status, 200, "{body}");
    body
}

pub(crate) async fn set_scenario(
    t: &TestPlatform,
    s: &Sandbox,
    profile: &str,
    body: Value,
) -> (u16, Value) {
    let mut body = body;
    body["tenantId"] = s.tenant.clone().into();
    t.post_json(
        &format!("/developers/simulator/devices/{}/scenario", s.id(profile)),
        Some(&s.dev.access_token),
        body,
    )
    .await
}

async fn command(t: &TestPlatform, token: &str, s: &Sandbox, profile: &str, body: Value) -> Value {
    let (status, row) = t
        .post_json(
            &format!("/devices/{}/commands?tenantId={}", s.id(profile), s.tenant),
            Some(token),
            body,
        )
        .await;
    assert_eq!(status, 202, "{row}");
    row
}

pub(crate) async fn wait_all_online(t: &TestPlatform, s: &Sandbox) {
    for profile in ["HUB", "SPEAKER", "LIGHT", "SENSOR", "THERMOSTAT"] {
        let id = s.id(profile);
        wait_for_event(t, &s.tenant, 20, &format!("{profile} online"), |e| {
            e.kind == EventKind::DeviceOnline && e.data["deviceId"] == id.as_str()
        })
        .await;
    }
}

#[tokio::test]
async fn a_verified_developer_gets_five_virtual_devices_that_come_online() {
    let t = TestPlatform::start_with(fast).await;
    let s = sandbox(&t, "sim-five@example.com").await;
    let profiles: BTreeSet<&str> = s.devices.keys().map(String::as_str).collect();
    assert_eq!(
        profiles,
        BTreeSet::from(["HUB", "LIGHT", "SENSOR", "SPEAKER", "THERMOSTAT"])
    );
    let models: BTreeMap<&str, &str> = s
        .devices
        .iter()
        .map(|(p, d)| (p.as_str(), d["model"].as_str().unwrap()))
        .collect();
    assert_eq!(models["LIGHT"], "ALSIML");
    assert_eq!(models["HUB"], "ALSIMH");
    for d in s.devices.values() {
        assert_eq!(
            d["scenario"],
            json!({ "scenario": "NORMAL", "until": null, "effective": "NORMAL" })
        );
    }

    // The rooms a fresh sandbox puts them in.
    let store = t.platform.store();
    let property = s.devices["HUB"]["device"]["propertyId"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let rooms: BTreeMap<String, String> = Tenancy(&*store)
        .rooms(property)
        .await
        .unwrap()
        .into_iter()
        .map(|r| (r.id.to_string(), r.name))
        .collect();
    let room_of = |profile: &str| {
        let id = s.devices[profile]["device"]["roomId"].as_str().unwrap();
        rooms[id].clone()
    };
    assert_eq!(room_of("HUB"), "Living Room");
    assert_eq!(room_of("SPEAKER"), "Living Room");
    assert_eq!(room_of("LIGHT"), "Kitchen");
    assert_eq!(room_of("SENSOR"), "Bedroom");
    assert_eq!(room_of("THERMOSTAT"), "Office");

    // Real MQTT clients: each comes online (device.online) and its row says so.
    wait_all_online(&t, &s).await;
    for profile in s.devices.keys() {
        let row = device_row(&t, &s.dev.access_token, &s.tenant, &s.id(profile)).await;
        assert_eq!(row["status"], "ONLINE", "{profile}: {row}");
    }
    // The VIRTUAL_DEVICES standing count is five.
    let (status, usage) = t
        .get_json("/developers/usage", Some(&s.dev.access_token))
        .await;
    assert_eq!(status, 200, "{usage}");
    assert_eq!(usage["quotas"]["VIRTUAL_DEVICES"]["count"], 5, "{usage}");
}

#[tokio::test]
async fn the_light_obeys_a_dev_key_and_reports_its_new_state() {
    let t = TestPlatform::start_with(fast).await;
    let s = sandbox(&t, "sim-light@example.com").await;
    let (_, key) = developers::create_key(&t, &s.dev, &["devices:commands", "devices:read"]).await;
    wait_all_online(&t, &s).await;
    let light = s.id("LIGHT");
    let before = device_row(&t, &key, &s.tenant, &light).await;
    assert_eq!(
        before["reported"]["payload"]["light"]["power"], false,
        "{before}"
    );

    let sent_at = tokio::time::Instant::now();
    command(
        &t,
        &key,
        &s,
        "LIGHT",
        json!({ "command": "set", "payload": { "capability": "light", "key": "power", "value": true } }),
    )
    .await;
    loop {
        let row = device_row(&t, &key, &s.tenant, &light).await;
        if row["reported"]["payload"]["light"]["power"] == true {
            break;
        }
        assert!(
            sent_at.elapsed() < Duration::from_secs(5),
            "the light did not report power on: {row}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let result = wait_for_event(&t, &s.tenant, 5, "command.result ok", |e| {
        e.kind == EventKind::CommandResult && e.data["deviceId"] == light.as_str()
    })
    .await;
    assert_eq!(result.data["status"], "ok");
}

#[tokio::test]
async fn offline_flapping_and_unknown_commands_show_through_events() {
    let t = TestPlatform::start_with(fast).await;
    let s = sandbox(&t, "sim-scenarios@example.com").await;
    let (_, key) = developers::create_key(&t, &s.dev, &["devices:commands"]).await;
    wait_all_online(&t, &s).await;

    // OFFLINE: silent with the socket open, so the heartbeat window decides.
    let (status, body) = set_scenario(&t, &s, "SENSOR", json!({ "scenario": "OFFLINE" })).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["scenario"]["effective"], "OFFLINE");
    // FLAPPING: the connection drops without DISCONNECT, the will fires.
    let (status, _) = set_scenario(&t, &s, "SPEAKER", json!({ "scenario": "FLAPPING" })).await;
    assert_eq!(status, 200);
    // An unknown command is answered 'rejected'.
    command(&t, &key, &s, "HUB", json!({ "command": "dance" })).await;

    let sensor = s.id("SENSOR");
    let offline = wait_for_event(&t, &s.tenant, 15, "sensor offline 'heartbeat'", |e| {
        e.kind == EventKind::DeviceOffline && e.data["deviceId"] == sensor.as_str()
    })
    .await;
    assert_eq!(offline.data["reason"], "heartbeat");

    let speaker = s.id("SPEAKER");
    let will = wait_for_event(&t, &s.tenant, 15, "speaker offline 'last-will'", |e| {
        e.kind == EventKind::DeviceOffline && e.data["deviceId"] == speaker.as_str()
    })
    .await;
    assert_eq!(will.data["reason"], "last-will");
    // ... and it comes back after each drop.
    wait_for_event(&t, &s.tenant, 10, "speaker back online", |e| {
        e.kind == EventKind::DeviceOnline
            && e.data["deviceId"] == speaker.as_str()
            && e.id > will.id
    })
    .await;

    let hub = s.id("HUB");
    let rejected = wait_for_event(&t, &s.tenant, 5, "hub command.result", |e| {
        e.kind == EventKind::CommandResult && e.data["deviceId"] == hub.as_str()
    })
    .await;
    assert_eq!(rejected.data["status"], "rejected");
    assert_eq!(rejected.data["command"], "dance");
}

#[tokio::test]
async fn slow_answers_after_five_seconds_and_timed_scenarios_revert() {
    let t = TestPlatform::start_with(fast).await;
    let s = sandbox(&t, "sim-slow@example.com").await;
    let (_, key) = developers::create_key(&t, &s.dev, &["devices:commands"]).await;
    wait_all_online(&t, &s).await;

    let (status, body) = set_scenario(
        &t,
        &s,
        "THERMOSTAT",
        json!({ "scenario": "SLOW", "seconds": 30 }),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(body["scenario"]["until"].is_string(), "{body}");
    let sent = tokio::time::Instant::now();
    command(
        &t,
        &key,
        &s,
        "THERMOSTAT",
        json!({ "command": "set", "payload": { "capability": "thermostat", "key": "setpoint", "value": 22 } }),
    )
    .await;
    let thermostat = s.id("THERMOSTAT");
    let result = wait_for_event(&t, &s.tenant, 12, "a slow command.result", |e| {
        e.kind == EventKind::CommandResult && e.data["deviceId"] == thermostat.as_str()
    })
    .await;
    let took = sent.elapsed();
    assert_eq!(result.data["status"], "ok");
    assert!(
        took >= Duration::from_millis(4500) && took < Duration::from_secs(10),
        "SLOW answered after {took:?}"
    );

    // LOW_BATTERY for two seconds: the sensor reports 8 %, then NORMAL again.
    let (status, body) = set_scenario(
        &t,
        &s,
        "SENSOR",
        json!({ "scenario": "LOW_BATTERY", "seconds": 2 }),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let sensor = s.id("SENSOR");
    wait_for_event(&t, &s.tenant, 5, "battery at 8 %", |e| {
        e.kind == EventKind::DeviceTelemetry
            && e.data["deviceId"] == sensor.as_str()
            && e.data["metrics"]["battery"] == 8.0
    })
    .await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let listed = list(&t, &s.dev, &s.tenant).await;
    let sensor_view = listed
        .iter()
        .find(|d| d["device"]["id"] == sensor.as_str())
        .unwrap();
    assert_eq!(sensor_view["scenario"]["scenario"], "LOW_BATTERY");
    assert_eq!(sensor_view["scenario"]["effective"], "NORMAL");

    // Bad bodies name their field.
    let (status, body) = set_scenario(&t, &s, "SENSOR", json!({ "scenario": "DANCING" })).await;
    assert_eq!(status, 400, "{body}");
    let (status, body) = set_scenario(
        &t,
        &s,
        "SENSOR",
        json!({ "scenario": "BURST", "seconds": 0 }),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["field"], "seconds");
}

#[tokio::test]
async fn burst_runs_twenty_a_second_until_the_mqtt_quota_is_spent() {
    // Spec timings: besides the burst only a few reports a minute.
    let t = TestPlatform::start().await;
    let email = "sim-burst@example.com";
    let response = developers::sign_up(&t, email, developers::PASSWORD).await;
    assert_eq!(response.status(), 202);
    // Staff give the developer a small MQTT_MESSAGES budget before its
    // sandbox exists.
    let owner = owner_token(&t).await;
    let (status, page) = t
        .get_json("/developers/admin/developers", Some(&owner))
        .await;
    assert_eq!(status, 200, "{page}");
    let developer = page["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["email"] == email)
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let response = t
        .http
        .put(t.url(&format!("/developers/admin/developers/{developer}/quota")))
        .bearer_auth(&owner)
        .json(&json!({ "kind": "MQTT_MESSAGES", "ceiling": 150, "window": "day" }))
        .send()
        .await
        .unwrap();
    assert!(
        response.status().is_success(),
        "{}",
        response.text().await.unwrap()
    );
    let link = developers::newest_link(&t, email, "verify-email").unwrap();
    let response = t.http.get(&link).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let tokens: Value = response.json().await.unwrap();
    let access = tokens["accessToken"].as_str().unwrap().to_owned();
    let me = developers::get_me(&t, &access).await;
    let dev = DeveloperSession {
        email: email.into(),
        password: developers::PASSWORD.into(),
        access_token: access,
        refresh_token: String::new(),
        developer_id: developer,
        user_id: me["userId"].as_str().unwrap().to_owned(),
        sandbox_tenant_id: me["sandboxTenantId"].as_str().unwrap().to_owned(),
    };
    let s = sandbox_of(&t, dev).await;
    wait_all_online(&t, &s).await;

    let (status, _) = set_scenario(&t, &s, "LIGHT", json!({ "scenario": "BURST" })).await;
    assert_eq!(status, 200);
    let light = s.id("LIGHT");
    // The quota ends the burst: the light goes silent.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let mut last = 0;
    let mut quiet_since = tokio::time::Instant::now();
    loop {
        let count = of_device(
            &events(&t, &s.tenant).await,
            EventKind::DeviceTelemetry,
            &light,
        )
        .count();
        if count != last {
            last = count;
            quiet_since = tokio::time::Instant::now();
        } else if count > 50 && quiet_since.elapsed() > Duration::from_secs(3) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the burst never stopped ({count} so far)"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let all = events(&t, &s.tenant).await;
    let burst: Vec<&EventEnvelope> = of_device(&all, EventKind::DeviceTelemetry, &light).collect();
    // About twenty a second while it lasted.
    let first = burst.first().unwrap().created_at;
    let end = burst.last().unwrap().created_at;
    let seconds = (end - first).as_seconds_f64().max(0.001);
    let rate = (burst.len() - 1) as f64 / seconds;
    assert!(
        (12.0..=26.0).contains(&rate),
        "BURST ran at {rate:.1} messages/s ({} in {seconds:.2} s)",
        burst.len()
    );
    // And it stopped because the budget was spent: MQTT_MESSAGES at its ceiling.
    let (_, usage) = t
        .get_json("/developers/usage", Some(&s.dev.access_token))
        .await;
    assert_eq!(usage["quotas"]["MQTT_MESSAGES"]["count"], 150, "{usage}");
    assert!(burst.len() < 150);
}

#[tokio::test]
async fn only_a_sandbox_admin_creates_virtual_devices_up_to_the_ceiling() {
    let t = TestPlatform::start().await;
    let s = sandbox(&t, "sim-create@example.com").await;
    let property = s.devices["HUB"]["device"]["propertyId"]
        .as_str()
        .unwrap()
        .to_owned();
    let create = |token: String, tenant: String, property: String, profile: &'static str| {
        let t = &t;
        async move {
            t.post_json(
                "/developers/simulator/devices",
                Some(&token),
                json!({ "tenantId": tenant, "propertyId": property, "profile": profile, "name": "Extra" }),
            )
            .await
        }
    };
    let (status, made) = create(
        s.dev.access_token.clone(),
        s.tenant.clone(),
        property.clone(),
        "LIGHT",
    )
    .await;
    assert_eq!(status, 201, "{made}");
    assert_eq!(made["profile"], "LIGHT");
    assert_eq!(made["device"]["name"], "Extra");
    assert_eq!(made["device"]["status"], "PROVISIONING");

    // A key needs simulator:write.
    let (_, weak) = developers::create_key(&t, &s.dev, &["devices:read"]).await;
    let (status, body) = create(weak, s.tenant.clone(), property.clone(), "LIGHT").await;
    assert_eq!(status, 403, "{body}");
    let (_, key) = developers::create_key(&t, &s.dev, &["simulator:write"]).await;
    // Not a profile.
    let (status, body) = create(key.clone(), s.tenant.clone(), property.clone(), "TOASTER").await;
    assert_eq!(status, 400, "{body}");
    // A real tenant's ADMIN (the platform owner's demo tenant) holds none.
    let first = t.platform.first_start.as_ref().unwrap();
    let owner = owner_token(&t).await;
    let (status, body) = create(
        owner,
        first.tenant_id.to_string(),
        first.property_id.to_string(),
        "LIGHT",
    )
    .await;
    assert_eq!(status, 403, "{body}");
    // The developer's key cannot reach that tenant: it does not exist for it.
    let (status, _) = create(
        key.clone(),
        first.tenant_id.to_string(),
        first.property_id.to_string(),
        "LIGHT",
    )
    .await;
    assert_eq!(status, 404);

    // The ceiling: staff lower VIRTUAL_DEVICES to 7; the sandbox holds 6.
    let owner = owner_token(&t).await;
    let response = t
        .http
        .put(t.url(&format!(
            "/developers/admin/developers/{}/quota",
            s.dev.developer_id
        )))
        .bearer_auth(&owner)
        .json(&json!({ "kind": "VIRTUAL_DEVICES", "ceiling": 7, "window": "month" }))
        .send()
        .await
        .unwrap();
    assert!(
        response.status().is_success(),
        "{}",
        response.text().await.unwrap()
    );
    let (status, seventh) = create(key.clone(), s.tenant.clone(), property.clone(), "SENSOR").await;
    assert_eq!(status, 201, "{seventh}");
    let (status, refused) = create(key.clone(), s.tenant.clone(), property.clone(), "SENSOR").await;
    assert_eq!(status, 409, "{refused}");
    assert_eq!(refused["quota"], "VIRTUAL_DEVICES");

    // Deleting one gives its place back; the device is gone like any device.
    let id = seventh["device"]["id"].as_str().unwrap();
    let response = t
        .http
        .delete(t.url(&format!(
            "/developers/simulator/devices/{id}?tenantId={}",
            s.tenant
        )))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 204);
    let (status, _) = t
        .get_json(
            &format!("/devices/{id}?tenantId={}", s.tenant),
            Some(&s.dev.access_token),
        )
        .await;
    assert_eq!(status, 404);
    let (status, again) = create(key.clone(), s.tenant.clone(), property.clone(), "SENSOR").await;
    assert_eq!(status, 201, "{again}");
    let id = again["device"]["id"].as_str().unwrap();
    // The simulator owns a virtual device's board and password.
    for path in ["units", "credentials"] {
        let (status, body) = t
            .post_json(
                &format!("/devices/{id}/{path}?tenantId={}", s.tenant),
                Some(&s.dev.access_token),
                json!({ "serial": "SN-VIRTUAL-NEW" }),
            )
            .await;
        assert_eq!(status, 409, "{path}: {body}");
    }
    // A device deleted through the device API gives its place back too, and
    // leaves the simulator's list at once.
    let response = t
        .http
        .delete(t.url(&format!("/devices/{id}?tenantId={}", s.tenant)))
        .bearer_auth(&s.dev.access_token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 204);
    assert_eq!(list(&t, &s.dev, &s.tenant).await.len(), 6);
    let (status, body) = create(key, s.tenant.clone(), property, "SENSOR").await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(list(&t, &s.dev, &s.tenant).await.len(), 7);
}

#[tokio::test]
async fn after_a_restart_every_device_resumes_in_its_last_scenario() {
    let t = TestPlatform::start_with(fast).await;
    let s = sandbox(&t, "sim-restart@example.com").await;
    wait_all_online(&t, &s).await;
    let (status, _) = set_scenario(&t, &s, "SENSOR", json!({ "scenario": "OFFLINE" })).await;
    assert_eq!(status, 200);
    let (status, _) = set_scenario(
        &t,
        &s,
        "THERMOSTAT",
        json!({ "scenario": "SLOW", "seconds": 1 }),
    )
    .await;
    assert_eq!(status, 200);
    let sensor = s.id("SENSOR");
    let first_offline = wait_for_event(&t, &s.tenant, 15, "sensor offline", |e| {
        e.kind == EventKind::DeviceOffline && e.data["deviceId"] == sensor.as_str()
    })
    .await;
    tokio::time::sleep(Duration::from_secs(1)).await;

    let t = t.restart().await;
    let listed = list(&t, &s.dev, &s.tenant).await;
    let view =
        |id: &str| listed.iter().find(|d| d["device"]["id"] == id).unwrap()["scenario"].clone();
    assert_eq!(view(&sensor)["effective"], "OFFLINE");
    // A timed scenario that ended while down reads NORMAL.
    assert_eq!(view(&s.id("THERMOSTAT"))["effective"], "NORMAL");

    // The devices come back: the light reports again ...
    let light = s.id("LIGHT");
    let since = first_offline.id.clone();
    wait_for_event(
        &t,
        &s.tenant,
        15,
        "light telemetry after the restart",
        |e| {
            e.kind == EventKind::DeviceTelemetry
                && e.data["deviceId"] == light.as_str()
                && e.id > since
        },
    )
    .await;
    // ... and the sensor, OFFLINE again, stays silent: it reports nothing
    // after the restart (its connect announcement excepted) and its row
    // stays OFFLINE.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let after: Vec<EventEnvelope> = events(&t, &s.tenant)
        .await
        .into_iter()
        .filter(|e| e.id > since && e.data["deviceId"] == sensor.as_str())
        .collect();
    assert!(
        after.iter().all(|e| e.kind != EventKind::DeviceTelemetry),
        "the OFFLINE sensor published telemetry after the restart: {after:?}"
    );
    let row = device_row(&t, &s.dev.access_token, &s.tenant, &sensor).await;
    assert_eq!(row["status"], "OFFLINE", "{row}");
}

#[tokio::test]
async fn sensor_error_faults_the_status_and_stops_the_failed_metric() {
    let t = TestPlatform::start_with(fast).await;
    let s = sandbox(&t, "sim-fault@example.com").await;
    wait_all_online(&t, &s).await;
    let sensor = s.id("SENSOR");
    let (status, body) =
        set_scenario(&t, &s, "SENSOR", json!({ "scenario": "SENSOR_ERROR" })).await;
    assert_eq!(status, 200, "{body}");

    // The status report carries the fault; the device row shows it.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let row = device_row(&t, &s.dev.access_token, &s.tenant, &sensor).await;
        if row["reported"]["payload"]["fault"] == "sensor_error" {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no sensor_error fault reported: {row}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // From then on telemetry keeps coming without the failed metric.
    let faulted = wait_for_event(&t, &s.tenant, 10, "telemetry while faulted", |e| {
        e.kind == EventKind::DeviceTelemetry
            && e.data["deviceId"] == sensor.as_str()
            && e.data["metrics"].get("humidity").is_some()
            && e.data["metrics"].get("temperature").is_none()
    })
    .await;
    let later = wait_for_event(&t, &s.tenant, 10, "more telemetry while faulted", |e| {
        e.kind == EventKind::DeviceTelemetry
            && e.data["deviceId"] == sensor.as_str()
            && e.id > faulted.id
    })
    .await;
    assert!(
        later.data["metrics"].get("temperature").is_none(),
        "the failed metric stays away: {}",
        later.data
    );
}

#[tokio::test]
async fn verification_succeeds_with_the_simulator_down_and_the_devices_come_up_when_it_returns() {
    let mut t = TestPlatform::start_with(|config| {
        fast(config);
        config.simulator.enabled = false;
    })
    .await;
    let s = sandbox(&t, "sim-down@example.com").await;
    // Verified, with the five devices registered but nobody playing them.
    assert_eq!(s.devices.len(), 5, "{:?}", s.devices.keys());
    tokio::time::sleep(Duration::from_secs(2)).await;
    for profile in ["HUB", "SPEAKER", "LIGHT", "SENSOR", "THERMOSTAT"] {
        let row = device_row(&t, &s.dev.access_token, &s.tenant, &s.id(profile)).await;
        assert_eq!(row["status"], "PROVISIONING", "{profile}: {row}");
    }
    // The simulator returns: every device comes online.
    t.configure = fast;
    let t = t.restart().await;
    wait_all_online(&t, &s).await;
}

/// Polls the hub's reported voice state until `check` holds (10 s at most).
async fn hub_voice_until(
    t: &TestPlatform,
    s: &Sandbox,
    what: &str,
    check: impl Fn(&Value) -> bool,
) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let row = device_row(t, &s.dev.access_token, &s.tenant, &s.id("HUB")).await;
        let voice = &row["reported"]["payload"]["voice"];
        if check(voice) {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the hub never reported {what}: {voice}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_room_that_stops_listening_mutes_its_virtual_hub() {
    let t = TestPlatform::start_with(fast).await;
    let s = sandbox(&t, "sim-listening@example.com").await;
    let hub = s.id("HUB");
    wait_for_event(&t, &s.tenant, 20, "the hub online", |e| {
        e.kind == EventKind::DeviceOnline && e.data["deviceId"] == hub.as_str()
    })
    .await;
    let room = s.devices["HUB"]["device"]["roomId"]
        .as_str()
        .expect("the hub stands in the Living Room")
        .to_owned();
    let listening = |value: bool| {
        let path = format!("/rooms/{room}?tenantId={}", s.tenant);
        let token = s.dev.access_token.clone();
        let t = &t;
        async move {
            let (status, view) = t
                .send_json(
                    "PATCH",
                    &path,
                    Some(&token),
                    Some(json!({ "listening": value })),
                )
                .await;
            assert_eq!(status, 200, "{view}");
        }
    };
    listening(false).await;
    hub_voice_until(&t, &s, "muted", |v| {
        v["listening"] == false && v["micMuted"] == true
    })
    .await;
    listening(true).await;
    hub_voice_until(&t, &s, "unmuted", |v| {
        v["listening"] == true && v["micMuted"] == false
    })
    .await;
}

#[tokio::test]
async fn the_virtual_hub_pairs_a_child_that_speaks_through_it() {
    let t = TestPlatform::start_with(fast).await;
    let s = sandbox(&t, "sim-pairing@example.com").await;
    let hub = s.id("HUB");
    wait_for_event(&t, &s.tenant, 20, "the hub online", |e| {
        e.kind == EventKind::DeviceOnline && e.data["deviceId"] == hub.as_str()
    })
    .await;
    let token = s.dev.access_token.clone();
    let children = || {
        let t = &t;
        let (token, tenant, hub) = (token.clone(), s.tenant.clone(), hub.clone());
        async move {
            let (_, devices) = t
                .get_json(
                    &format!("/devices?tenantId={tenant}&limit=200"),
                    Some(&token),
                )
                .await;
            devices["items"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["parentDeviceId"] == hub.as_str())
                .cloned()
                .collect::<Vec<Value>>()
        }
    };
    for paired in 1..=2 {
        command(
            &t,
            &token,
            &s,
            "HUB",
            json!({ "command": "press", "payload": { "capability": "hub", "key": "pair" } }),
        )
        .await;
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while children().await.len() < paired {
            assert!(
                tokio::time::Instant::now() < deadline,
                "child {paired} never paired"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    let children = children().await;
    assert_eq!(children.len(), 2, "{children:?}");
    for child in &children {
        assert_eq!(child["protocol"], "ZIGBEE", "{child}");
        assert_eq!(child["thing"]["category"], "light", "{child}");
        // In its hub's home and room, with no board or login of its own.
        assert_eq!(
            child["propertyId"],
            s.devices["HUB"]["device"]["propertyId"]
        );
        assert_eq!(child["roomId"], s.devices["HUB"]["device"]["roomId"]);
        assert_eq!(child["currentUnitId"], Value::Null);
    }
    assert_ne!(children[0]["protocolId"], children[1]["protocolId"]);
}

/// A virtual device detached from the simulator is spoken for by a test
/// client with the credential the detach answers (once): the simulator lets
/// go and does not take the session back, and the client's commands and
/// reports are the device's; attached again, the client's credential is
/// refused and the simulator drives the device again.
#[tokio::test]
async fn a_detached_virtual_device_is_driven_by_a_test_client_then_given_back() {
    let t = TestPlatform::start_with(fast).await;
    let s = sandbox(&t, "sim-detach@example.com").await;
    let (_, key) = developers::create_key(&t, &s.dev, &["devices:commands", "devices:read"]).await;
    wait_all_online(&t, &s).await;
    let light = s.id("LIGHT");
    let path = |action: &str| {
        format!(
            "/developers/simulator/devices/{light}/{action}?tenantId={}",
            s.tenant
        )
    };
    let (status, problem) = t
        .post_json(&path("attach"), Some(&s.dev.access_token), json!({}))
        .await;
    assert_eq!(status, 409, "attached already: {problem}");

    let (status, detached) = t
        .post_json(&path("detach"), Some(&s.dev.access_token), json!({}))
        .await;
    assert_eq!(status, 200, "{detached}");
    assert!(
        detached["virtualDevice"]["detachedAt"].is_string(),
        "{detached}"
    );
    let answer = &detached["credentials"];
    assert_eq!(answer["connection"]["clientId"], light.as_str(), "{answer}");
    let own = Registered {
        tenant: s.tenant.clone(),
        device: light.clone(),
        prefix: answer["topicPrefix"].as_str().unwrap().to_owned(),
        username: answer["credentials"]["username"]
            .as_str()
            .unwrap()
            .to_owned(),
        password: answer["credentials"]["password"]
            .as_str()
            .unwrap()
            .to_owned(),
    };
    let (status, problem) = t
        .post_json(&path("detach"), Some(&s.dev.access_token), json!({}))
        .await;
    assert_eq!(status, 409, "detached already: {problem}");

    // The test client is the device now: it hears the command and reports.
    let mut client = play(&t, &own).await;
    command(
        &t,
        &key,
        &s,
        "LIGHT",
        json!({ "command": "set", "payload": { "capability": "light", "key": "brightness", "value": 33 } }),
    )
    .await;
    let heard = tokio::time::timeout(Duration::from_secs(5), client.commands.recv())
        .await
        .expect("the command reaches the test client")
        .unwrap();
    assert_eq!(heard["payload"]["value"], 33, "{heard}");
    client
        .client
        .publish(
            format!("{}/status", own.prefix),
            QoS::AtLeastOnce,
            false,
            r#"{"light":{"power":true,"brightness":33}}"#,
        )
        .await
        .unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let row = device_row(&t, &key, &s.tenant, &light).await;
        if row["reported"]["payload"]["light"]["brightness"] == 33 {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "{row}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The fast simulator reports every second: three seconds later the
    // report is still the client's (the simulator does not speak for it).
    tokio::time::sleep(Duration::from_secs(3)).await;
    let row = device_row(&t, &key, &s.tenant, &light).await;
    assert_eq!(
        row["reported"]["payload"]["light"]["brightness"], 33,
        "{row}"
    );

    // Attached again: the client's credential no longer logs in, and the
    // simulator reports for the device again.
    let (status, attached) = t
        .post_json(&path("attach"), Some(&s.dev.access_token), json!({}))
        .await;
    assert_eq!(status, 200, "{attached}");
    assert_eq!(attached["detachedAt"], Value::Null, "{attached}");
    client.driver.abort();
    assert!(
        try_connect(&t, &own.username, &own.password, &own.prefix)
            .await
            .is_none(),
        "the detach's credential is refused once attached"
    );
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let row = device_row(&t, &key, &s.tenant, &light).await;
        if row["reported"]["payload"]["light"]["brightness"] != 33 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the simulator did not report for the device again: {row}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// A sandbox's scripts: stored once checked (each refusal names its field
/// under `script.`), listed, read and removed by its developer.
#[tokio::test]
async fn scripts_are_checked_stored_listed_and_removed() {
    let t = TestPlatform::start_with(fast).await;
    let s = sandbox(&t, "sim-scripts@example.com").await;
    let token = &s.dev.access_token;
    let script = json!({
        "name": "a door at night",
        "roles": [{ "name": "door", "profile": "SENSOR" }, { "name": "lamp", "profile": "LIGHT" }],
        "steps": [
            { "atMs": 1000, "role": "door", "action": "scenario", "scenario": "BURST" },
            { "atMs": 2000, "role": "lamp", "action": "telemetry",
              "payload": { "metric": "watts", "value": 9.5, "payload": null } }
        ],
        "durationMs": 10000
    });
    for (bad, field) in [
        (json!({ "name": "x" }), "script"),
        (
            json!({ "name": "x", "roles": [{ "name": "a", "profile": "TOASTER" }], "durationMs": 10 }),
            "script.roles[0].profile",
        ),
        (
            json!({ "name": "x", "roles": [{ "name": "a", "profile": "LIGHT" }], "durationMs": 10,
                 "steps": [{ "atMs": 1, "role": "a", "action": "event", "payload": 7 }] }),
            "script.steps[0].payload",
        ),
        // Two roles in BURST for an hour: 144,000 messages, past a run's bound.
        (
            json!({ "name": "x", "roles": [{ "name": "a", "profile": "SENSOR" }, { "name": "b", "profile": "SENSOR" }],
                 "durationMs": 3600000,
                 "steps": [{ "atMs": 0, "role": "a", "action": "scenario", "scenario": "BURST" },
                           { "atMs": 0, "role": "b", "action": "scenario", "scenario": "BURST" }] }),
            "script",
        ),
    ] {
        let (status, problem) = t
            .post_json(
                "/developers/simulator/scripts",
                Some(token),
                json!({ "tenantId": s.tenant, "script": bad }),
            )
            .await;
        assert_eq!(status, 400, "{problem}");
        assert_eq!(problem["field"], field, "{problem}");
    }
    let (status, created) = t
        .post_json(
            "/developers/simulator/scripts",
            Some(token),
            json!({ "tenantId": s.tenant, "script": script }),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["name"], "a door at night");
    assert_eq!(created["script"], script);
    let id = created["id"].as_str().unwrap().to_owned();

    let (status, list) = t
        .get_json(
            &format!("/developers/simulator/scripts?tenantId={}", s.tenant),
            Some(token),
        )
        .await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["items"].as_array().unwrap().len(), 1, "{list}");
    assert_eq!(list["items"][0]["id"], id.as_str());
    let one = format!("/developers/simulator/scripts/{id}?tenantId={}", s.tenant);
    let (status, read) = t.get_json(&one, Some(token)).await;
    assert_eq!((status, &read), (200, &created));
    let (status, _) = t.send_json("DELETE", &one, Some(token), None).await;
    assert_eq!(status, 204);
    let (status, _) = t.get_json(&one, Some(token)).await;
    assert_eq!(status, 404);
    // The virtual devices' list is unchanged by scripts in the same partition.
    assert_eq!(list_len(&t, &s).await, 5);
}

async fn list_len(t: &TestPlatform, s: &Sandbox) -> usize {
    list(t, &s.dev, &s.tenant).await.len()
}

/// Starts a run; the answer's status and body.
async fn start_run(t: &TestPlatform, s: &Sandbox, body: Value) -> (u16, Value) {
    let mut body = body;
    body["tenantId"] = json!(s.tenant);
    t.post_json(
        "/developers/simulator/runs",
        Some(&s.dev.access_token),
        body,
    )
    .await
}

/// Stores a script in the sandbox; its id.
async fn store_script(t: &TestPlatform, s: &Sandbox, script: Value) -> String {
    let (status, stored) = t
        .post_json(
            "/developers/simulator/scripts",
            Some(&s.dev.access_token),
            json!({ "tenantId": s.tenant, "script": script }),
        )
        .await;
    assert_eq!(status, 201, "{stored}");
    stored["id"].as_str().unwrap().to_owned()
}

/// Polls a run until a player plays it and has sent something.
async fn run_until_playing(t: &TestPlatform, s: &Sandbox, run: &str) -> Value {
    let path = format!("/developers/simulator/runs/{run}?tenantId={}", s.tenant);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (_, read) = t.get_json(&path, Some(&s.dev.access_token)).await;
        if read["status"] == "RUNNING" && read["played"].as_u64() > Some(0) {
            assert!(read["startedAt"].is_string(), "{read}");
            return read;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "not playing: {read}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Polls a run until it has ended; its last reading.
async fn run_until_ended(t: &TestPlatform, s: &Sandbox, run: &str, secs: u64) -> Value {
    let path = format!("/developers/simulator/runs/{run}?tenantId={}", s.tenant);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    loop {
        let (status, read) = t.get_json(&path, Some(&s.dev.access_token)).await;
        assert_eq!(status, 200, "{read}");
        if !matches!(read["status"].as_str(), Some("PENDING" | "RUNNING")) {
            return read;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "still going: {read}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The readings the platform stored from the run's devices while it
/// played: each device's metrics in order (the receive time aside).
async fn readings_during(t: &TestPlatform, s: &Sandbox, run: &Value) -> Vec<(String, Value)> {
    let parse = |field: &str| {
        time::OffsetDateTime::parse(
            run[field].as_str().unwrap(),
            &time::format_description::well_known::Rfc3339,
        )
        .unwrap()
    };
    let (from, to) = (parse("startedAt"), parse("endedAt"));
    let devices: Vec<&str> = run["devices"]
        .as_object()
        .unwrap()
        .values()
        .map(|d| d.as_str().unwrap())
        .collect();
    events(t, &s.tenant)
        .await
        .into_iter()
        .filter(|e| {
            e.kind == EventKind::DeviceTelemetry
                && (from..=to).contains(&e.created_at)
                && devices.iter().any(|d| e.data["deviceId"] == *d)
        })
        .map(|e| {
            (
                e.data["deviceId"].as_str().unwrap().to_owned(),
                e.data["metrics"].clone(),
            )
        })
        .collect()
}

/// A stored script played three times against two virtual devices: twice
/// with one seed (the same traffic: the same digest, and the platform
/// stored the same readings, byte for byte, the seed-drawn BURST readings
/// included), once with another (other readings). While a run holds its
/// devices they cannot be given to another run, detached or deleted; each
/// refusal names its field.
#[tokio::test]
async fn a_script_run_plays_the_same_traffic_for_the_same_seed() {
    let t = TestPlatform::start_with(fast).await;
    let s = sandbox(&t, "sim-runs@example.com").await;
    let token = &s.dev.access_token;
    wait_all_online(&t, &s).await;
    let script = json!({
        "name": "door, lamp and a burst",
        "roles": [{ "name": "sensor", "profile": "SENSOR" }, { "name": "lamp", "profile": "LIGHT" }],
        "steps": [
            { "atMs": 300, "role": "lamp", "action": "telemetry",
              "payload": { "metric": "watts", "value": 9.5, "payload": null } },
            { "atMs": 500, "role": "sensor", "action": "event",
              "payload": { "kind": "contact", "action": "opened" } },
            { "atMs": 800, "role": "sensor", "action": "scenario", "scenario": "BURST" },
            { "atMs": 1800, "role": "sensor", "action": "scenario", "scenario": "NORMAL" },
            { "atMs": 2000, "role": "lamp", "action": "disconnect" },
            { "atMs": 2400, "role": "lamp", "action": "reconnect" },
            { "atMs": 2800, "role": "lamp", "action": "telemetry",
              "payload": { "metric": "watts", "value": 0, "payload": null } }
        ],
        "durationMs": 3800
    });
    let (status, stored) = t
        .post_json(
            "/developers/simulator/scripts",
            Some(token),
            json!({ "tenantId": s.tenant, "script": script }),
        )
        .await;
    assert_eq!(status, 201, "{stored}");
    let script_id = stored["id"].as_str().unwrap().to_owned();
    let (sensor, lamp) = (s.id("SENSOR"), s.id("LIGHT"));
    let devices = json!({ "sensor": sensor, "lamp": lamp });

    for (body, field) in [
        (
            json!({ "scriptId": script_id, "devices": { "sensor": sensor } }),
            "devices.lamp",
        ),
        (
            json!({ "scriptId": script_id, "devices": { "sensor": sensor, "lamp": sensor } }),
            "devices.lamp",
        ),
        (
            json!({ "scriptId": script_id, "devices": { "sensor": sensor, "lamp": s.id("HUB") } }),
            "devices.lamp",
        ),
        (
            json!({ "scriptId": script_id, "devices": { "sensor": sensor, "lamp": lamp, "fan": lamp } }),
            "devices.fan",
        ),
        (
            json!({ "scriptId": uuid::Uuid::now_v7(), "devices": devices }),
            "scriptId",
        ),
        (
            json!({ "scriptId": script_id, "devices": devices, "seed": 1u64 << 53 }),
            "seed",
        ),
    ] {
        let (status, problem) = start_run(&t, &s, body).await;
        assert_eq!(
            (status, problem["field"].as_str()),
            (400, Some(field)),
            "{problem}"
        );
    }

    let mut runs = Vec::new();
    for seed in [42, 42, 43] {
        let (status, started) = start_run(
            &t,
            &s,
            json!({ "scriptId": script_id, "devices": devices, "seed": seed }),
        )
        .await;
        assert_eq!(status, 202, "{started}");
        assert_eq!(started["seed"], seed, "{started}");
        assert!(started["total"].as_u64().unwrap() > 20, "{started}");
        let id = started["id"].as_str().unwrap().to_owned();
        if runs.is_empty() {
            // Held: not for another run, not detachable, not deletable.
            let (status, problem) =
                start_run(&t, &s, json!({ "scriptId": script_id, "devices": devices })).await;
            assert_eq!(status, 409, "{problem}");
            assert_eq!(problem["field"], "devices.sensor", "{problem}");
            let device_path = |tail: &str| {
                format!(
                    "/developers/simulator/devices/{lamp}{tail}?tenantId={}",
                    s.tenant
                )
            };
            let (status, problem) = t
                .post_json(&device_path("/detach"), Some(token), json!({}))
                .await;
            assert_eq!(status, 409, "{problem}");
            let (status, problem) = t
                .send_json("DELETE", &device_path(""), Some(token), None)
                .await;
            assert_eq!(status, 409, "{problem}");
            let listed = list(&t, &s.dev, &s.tenant).await;
            let held = listed
                .iter()
                .find(|d| d["device"]["id"] == lamp.as_str())
                .unwrap();
            assert_eq!(held["runId"], id.as_str(), "{held}");
        }
        let ended = run_until_ended(&t, &s, &id, 30).await;
        assert_eq!(ended["status"], "DONE", "{ended}");
        assert_eq!(ended["played"], ended["total"], "{ended}");
        assert_eq!(ended["reason"], Value::Null, "{ended}");
        runs.push(ended);
    }
    let (first, second, other) = (&runs[0], &runs[1], &runs[2]);
    assert_eq!(first["trafficSha256"], second["trafficSha256"]);
    assert_ne!(first["trafficSha256"], other["trafficSha256"]);

    let (a, b, c) = (
        readings_during(&t, &s, first).await,
        readings_during(&t, &s, second).await,
        readings_during(&t, &s, other).await,
    );
    assert!(
        a.iter().filter(|(d, _)| *d == sensor).count() >= 15,
        "the BURST second's readings: {a:?}"
    );
    assert!(
        a.iter().any(|(d, m)| *d == lamp && m["watts"] == 9.5),
        "{a:?}"
    );
    assert_eq!(a, b, "one seed, the same readings stored, in order");
    assert_ne!(a, c, "another seed, other readings");

    let (status, listed) = t
        .get_json(
            &format!("/developers/simulator/runs?tenantId={}", s.tenant),
            Some(token),
        )
        .await;
    assert_eq!(status, 200, "{listed}");
    assert_eq!(listed["items"].as_array().unwrap().len(), 3, "{listed}");
    // Given back: the simulator runs the devices again.
    let listed = list(&t, &s.dev, &s.tenant).await;
    assert!(listed.iter().all(|d| d["runId"].is_null()), "{listed:?}");

    // A run the sandbox's MQTT_MESSAGES cannot hold whole is refused.
    let owner = owner_token(&t).await;
    let (status, page) = t
        .get_json("/developers/admin/developers", Some(&owner))
        .await;
    assert_eq!(status, 200, "{page}");
    let developer = page["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["email"] == "sim-runs@example.com")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let response = t
        .http
        .put(t.url(&format!("/developers/admin/developers/{developer}/quota")))
        .bearer_auth(&owner)
        .json(&json!({ "kind": "MQTT_MESSAGES", "ceiling": 10, "window": "day" }))
        .send()
        .await
        .unwrap();
    assert!(response.status().is_success());
    let (status, problem) =
        start_run(&t, &s, json!({ "scriptId": script_id, "devices": devices })).await;
    assert_eq!(status, 429, "{problem}");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("MQTT_MESSAGES"),
        "{problem}"
    );
}

/// A run answers commands as its script says (here `busy`, after 200 ms),
/// is stopped by its developer (STOPPED at once, a second stop is a
/// conflict), and its device goes back to the simulator, which answers
/// `ok` again.
#[tokio::test]
async fn a_run_answers_commands_as_scripted_and_is_stopped() {
    let t = TestPlatform::start_with(fast).await;
    let s = sandbox(&t, "sim-run-stop@example.com").await;
    let token = &s.dev.access_token;
    let (_, key) = developers::create_key(&t, &s.dev, &["devices:commands"]).await;
    wait_all_online(&t, &s).await;
    let script = store_script(
        &t,
        &s,
        json!({
            "name": "a busy lamp",
            "roles": [{ "name": "lamp", "profile": "LIGHT" }],
            "steps": [{ "atMs": 0, "role": "lamp", "action": "answerCommands", "status": "busy", "delayMs": 200 }],
            "durationMs": 60000
        }),
    )
    .await;
    let lamp = s.id("LIGHT");
    let (status, started) = start_run(
        &t,
        &s,
        json!({ "scriptId": script, "devices": { "lamp": lamp } }),
    )
    .await;
    assert_eq!(status, 202, "{started}");
    assert!(
        started["seed"].as_u64().is_some(),
        "a random seed, named: {started}"
    );
    let run = started["id"].as_str().unwrap().to_owned();
    run_until_playing(&t, &s, &run).await;

    let asked = command(
        &t,
        &key,
        &s,
        "LIGHT",
        json!({ "command": "set",
        "payload": { "capability": "light", "key": "power", "value": true } }),
    )
    .await;
    let asked_id = asked["commandId"].as_str().unwrap().to_owned();
    let busy = wait_for_event(&t, &s.tenant, 10, "the run's answer", |e| {
        e.kind == EventKind::CommandResult && e.data["commandId"] == asked_id.as_str()
    })
    .await;
    assert_eq!(busy.data["status"], "busy", "{:?}", busy.data);

    let stop = format!(
        "/developers/simulator/runs/{run}/stop?tenantId={}",
        s.tenant
    );
    let (status, stopped) = t.post_json(&stop, Some(token), json!({})).await;
    assert_eq!(status, 200, "{stopped}");
    assert_eq!(stopped["status"], "STOPPED", "{stopped}");
    assert!(stopped["endedAt"].is_string(), "{stopped}");
    let (status, problem) = t.post_json(&stop, Some(token), json!({})).await;
    assert_eq!(status, 409, "{problem}");

    // The simulator has the lamp again: it answers `ok`.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    loop {
        let asked = command(
            &t,
            &key,
            &s,
            "LIGHT",
            json!({ "command": "set",
            "payload": { "capability": "light", "key": "power", "value": false } }),
        )
        .await;
        let asked_id = asked["commandId"].as_str().unwrap().to_owned();
        let answered = tokio::time::timeout(
            Duration::from_secs(3),
            wait_for_event(&t, &s.tenant, 3, "the simulator's answer", |e| {
                e.kind == EventKind::CommandResult && e.data["commandId"] == asked_id.as_str()
            }),
        )
        .await;
        if let Ok(answer) = answered
            && answer.data["status"] == "ok"
        {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the simulator did not take the lamp back"
        );
    }
}

/// A run cut by a restart cannot be resumed identically: it ends STOPPED
/// saying why (a graceful stop; after a crash the next start ends it
/// FAILED: `alyt-simulator-runner`'s tests), and its device is the
/// simulator's again once the platform is back.
#[tokio::test]
async fn a_run_cut_by_a_restart_ends_saying_so_and_gives_its_device_back() {
    let t = TestPlatform::start_with(fast).await;
    let s = sandbox(&t, "sim-run-restart@example.com").await;
    wait_all_online(&t, &s).await;
    let script = store_script(
        &t,
        &s,
        json!({
            "name": "a long quiet minute",
            "roles": [{ "name": "lamp", "profile": "LIGHT" }],
            "durationMs": 60000
        }),
    )
    .await;
    let lamp = s.id("LIGHT");
    let (status, started) = start_run(
        &t,
        &s,
        json!({ "scriptId": script, "devices": { "lamp": lamp } }),
    )
    .await;
    assert_eq!(status, 202, "{started}");
    run_until_playing(&t, &s, started["id"].as_str().unwrap()).await;

    let t = t.restart().await;
    let ended = run_until_ended(&t, &s, started["id"].as_str().unwrap(), 15).await;
    assert_eq!(ended["status"], "STOPPED", "{ended}");
    assert!(
        ended["reason"].as_str().unwrap().contains("shut down"),
        "{ended}"
    );
    let listed = list(&t, &s.dev, &s.tenant).await;
    let back = listed
        .iter()
        .find(|d| d["device"]["id"] == lamp.as_str())
        .unwrap();
    assert_eq!(back["runId"], Value::Null, "{back}");
    let light = lamp.clone();
    let since = ended["endedAt"].as_str().unwrap().to_owned();
    let since = time::OffsetDateTime::parse(&since, &time::format_description::well_known::Rfc3339)
        .unwrap();
    wait_for_event(
        &t,
        &s.tenant,
        15,
        "the light's telemetry from the simulator",
        |e| {
            e.kind == EventKind::DeviceTelemetry
                && e.data["deviceId"] == light.as_str()
                && e.created_at > since
        },
    )
    .await;
}
