//! The first start's simulated demo: a new owner's demo home has things to
//! control in its rooms, driven by the simulator (the home is the owner's own
//! developer sandbox, since only a sandbox holds virtual devices); the light
//! switches in the first minute; the home arms with the virtual motion sensor
//! and door contact, the sensor's BURST trips the alarm, and the owner turns it
//! off. And a home with nothing to watch is not ready, for the same reason
//! arming is refused.

use std::time::Duration;

use alyt_tests::TestPlatform;
use serde_json::{Value, json};
use uuid::Uuid;

use crate::device_plane::owner_token;
use crate::simulator::fast;

struct Demo {
    token: String,
    tenant: String,
    property: String,
}

async fn demo(t: &TestPlatform) -> Demo {
    let token = owner_token(t).await;
    let (code, me) = t.get_json("/auth/me", Some(&token)).await;
    assert_eq!(code, 200, "{me}");
    let tenant = me["homes"][0]["tenantId"].as_str().unwrap().to_owned();
    let (code, homes) = t
        .get_json(&format!("/properties?tenantId={tenant}"), Some(&token))
        .await;
    assert_eq!(code, 200, "{homes}");
    let property = homes["items"][0]["id"].as_str().unwrap().to_owned();
    Demo {
        token,
        tenant,
        property,
    }
}

/// Polls `read` until `done` holds (10 s at most).
async fn until<F, Fut>(what: &str, read: F, done: impl Fn(&Value) -> bool) -> Value
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Value>,
{
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let value = read().await;
        if done(&value) {
            return value;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}: {value}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn security(t: &TestPlatform, d: &Demo) -> Value {
    let (code, body) = t
        .get_json(
            &format!("/home-security/{}?tenantId={}", d.property, d.tenant),
            Some(&d.token),
        )
        .await;
    assert_eq!(code, 200, "{body}");
    body
}

async fn request_mode(t: &TestPlatform, d: &Demo, mode: &str) -> (u16, Value) {
    let s = security(t, d).await;
    t.post_json(
        &format!("/home-security/{}/mode", d.property),
        Some(&d.token),
        json!({
            "tenantId": d.tenant,
            "mode": mode,
            "requestId": Uuid::new_v4(),
            "revision": s["revision"],
            "generation": s["generation"],
        }),
    )
    .await
}

#[tokio::test]
async fn a_new_owners_demo_home_has_things_to_switch_and_to_arm_with() {
    let t = TestPlatform::start_with_config(|config| {
        fast(config);
        config.demo = alyt_api::bootstrap::DemoHome::Simulated;
    })
    .await;
    let d = demo(&t).await;

    // Things in every room, each shown from its descriptors.
    let (code, overview) = t
        .get_json(
            &format!("/properties/{}/overview?tenantId={}", d.property, d.tenant),
            Some(&d.token),
        )
        .await;
    assert_eq!(code, 200, "{overview}");
    let mut placed: Vec<(String, String)> = Vec::new();
    for room in overview["rooms"].as_array().unwrap() {
        let (code, view) = t
            .get_json(
                &format!(
                    "/rooms/{}?tenantId={}",
                    room["id"].as_str().unwrap(),
                    d.tenant
                ),
                Some(&d.token),
            )
            .await;
        assert_eq!(code, 200, "{view}");
        for thing in view["things"].as_array().unwrap() {
            placed.push((
                room["name"].as_str().unwrap().to_owned(),
                thing["name"].as_str().unwrap().to_owned(),
            ));
        }
    }
    placed.sort();
    let expected: Vec<(String, String)> = [
        ("Bedroom", "Bedroom climate"),
        ("Kitchen", "Kitchen light"),
        ("Living Room", "Front door"),
        ("Living Room", "Front door lock"),
        ("Living Room", "Living room hub"),
        ("Living Room", "Living room motion"),
        ("Living Room", "Living room speaker"),
        ("Office", "Office thermostat"),
    ]
    .iter()
    .map(|(r, n)| ((*r).to_owned(), (*n).to_owned()))
    .collect();
    assert_eq!(placed, expected);

    // The light switches: the command reaches the virtual light, which
    // reports its new state.
    let (code, devices) = t
        .get_json(&format!("/devices?tenantId={}", d.tenant), Some(&d.token))
        .await;
    assert_eq!(code, 200, "{devices}");
    let id_of = |name: &str| {
        devices["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {devices}"))["id"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let light = id_of("Kitchen light");
    let device = |id: String| {
        let t = &t;
        let d = &d;
        async move {
            t.get_json(
                &format!("/devices/{id}?tenantId={}", d.tenant),
                Some(&d.token),
            )
            .await
            .1
        }
    };
    until(
        "the light online",
        || device(light.clone()),
        |v| v["status"] == "ONLINE",
    )
    .await;
    let (code, accepted) = t
        .post_json(
            &format!("/devices/{light}/commands?tenantId={}", d.tenant),
            Some(&d.token),
            json!({ "command": "set", "payload": { "capability": "light", "key": "power", "value": true } }),
        )
        .await;
    assert_eq!(code, 202, "{accepted}");
    until(
        "the light on",
        || device(light.clone()),
        |v| {
            v["thing"]["state"]["light.power"] == true
                || v["reported"]["payload"]["light"]["power"] == true
        },
    )
    .await;

    // Security: the motion sensor and the door contact are watched, the
    // lock has its keypad; Away is ready once they are online.
    let s = until(
        "away ready",
        || security(&t, &d),
        |s| s["readiness"]["away"]["ready"] == true,
    )
    .await;
    assert!(s["readiness"]["away"]["why"].is_null(), "{s}");
    let by_name = |s: &Value, name: &str| {
        s["things"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no {name} in {s}"))
    };
    assert_eq!(
        by_name(&s, "Living room motion")["enrolled"],
        json!(["motion"])
    );
    assert_eq!(by_name(&s, "Front door")["enrolled"], json!(["contact"]));
    assert_eq!(by_name(&s, "Front door lock")["keypad"], true);

    let (code, body) = t
        .send_json(
            "PATCH",
            &format!("/home-security/{}/settings", d.property),
            Some(&d.token),
            Some(json!({ "tenantId": d.tenant, "exitDelaySeconds": 1 })),
        )
        .await;
    assert_eq!(code, 200, "{body}");
    let (code, body) = request_mode(&t, &d, "away").await;
    assert_eq!(code, 200, "{body}");
    until(
        "armed away",
        || security(&t, &d),
        |s| s["confirmedMode"] == "away",
    )
    .await;

    // Someone walks about: the motion sensor's BURST trips the alarm.
    let motion = id_of("Living room motion");
    let (code, body) = t
        .post_json(
            &format!("/developers/simulator/devices/{motion}/scenario"),
            Some(&d.token),
            json!({ "tenantId": d.tenant, "scenario": "BURST", "seconds": 3 }),
        )
        .await;
    assert!(
        code < 300,
        "the owner sets the demo's scenario: {code} {body}"
    );
    let s = until(
        "an incident",
        || security(&t, &d),
        |s| !s["incident"].is_null(),
    )
    .await;
    assert_eq!(s["confirmedMode"], "away", "{s}");

    // The owner turns it off.
    let (code, body) = request_mode(&t, &d, "off").await;
    assert_eq!(code, 200, "{body}");
    let s = security(&t, &d).await;
    assert_eq!(s["confirmedMode"], "off", "{s}");
}

#[tokio::test]
async fn a_home_with_nothing_to_watch_is_not_ready_for_the_reason_arming_is_refused() {
    let t = TestPlatform::start().await;
    let d = demo(&t).await;
    let s = security(&t, &d).await;
    for mode in ["away", "home", "sleep"] {
        let readiness = &s["readiness"][mode];
        assert_eq!(readiness["ready"], false, "{mode}: {s}");
        assert_eq!(
            readiness["why"], "no selected signal is watched in this mode",
            "{mode}: {s}"
        );
    }
    let (code, refused) = request_mode(&t, &d, "away").await;
    assert_eq!(code, 409, "{refused}");
    assert!(
        refused["detail"]
            .as_str()
            .unwrap()
            .contains("no selected signal is watched in this mode"),
        "{refused}"
    );
}
