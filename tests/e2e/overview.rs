//! A home at a glance end to end: the overview (rooms, the house tile,
//! unassigned things) following what a light played by a real MQTT client
//! reports, a property action fanned out over the home, and the dashboard
//! pins (40 kept, 41 refused, writing is the owner's).

use std::time::Duration;

use alyt_tests::TestPlatform;
use alyt_tests::principals::{Principals, Who};
use serde_json::{Value, json};

use crate::rooms::{demo_home, play, register};

/// Pin `i`: a thing (checked for shape), or the home's routine `routine`.
fn pin(i: usize, routine: &str) -> Value {
    if i.is_multiple_of(2) {
        json!({ "kind": "thing", "thing": { "kind": "device", "id": format!("0190b5a0-0000-7000-8000-{i:012}") } })
    } else {
        json!({ "kind": "routine", "routineId": routine })
    }
}

#[tokio::test]
async fn the_overview_follows_reports_and_a_property_action_reaches_the_home() {
    let t = TestPlatform::start().await;
    let p = Principals::seed(&t).await;
    let home = demo_home(&t);
    let admin = p.token(Who::TenantAdmin).unwrap();
    let member = p.token(Who::HouseholdMember).unwrap();
    let path = format!(
        "/properties/{}/overview?tenantId={}",
        home.property, home.tenant
    );

    let (status, overview) = t.get_json(&path, Some(member)).await;
    assert_eq!(status, 200, "{overview}");
    assert_eq!(overview["property"]["id"], json!(home.property));
    assert_eq!(overview["property"]["name"], "Demo home");
    assert_eq!(overview["property"]["timezone"], "UTC");
    let rooms: Vec<&str> = overview["rooms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(rooms, ["Living Room", "Kitchen", "Bedroom", "Office"]);
    assert_eq!(overview["house"]["primaryActions"], json!([]));
    assert_eq!(overview["unassigned"], json!([]));
    let kitchen = overview["rooms"][1]["id"].as_str().unwrap().to_owned();

    let light = register(
        &t,
        admin,
        &home,
        Some(&kitchen),
        "Kitchen light",
        "OTHER",
        &["LIGHT"],
        json!({}),
    )
    .await;
    register(
        &t,
        admin,
        &home,
        None,
        "Thermostat",
        "OTHER",
        &["THERMOSTAT"],
        json!({}),
    )
    .await;
    let mut device = play(&t, &light).await;
    device
        .report(json!({ "light": { "power": true, "brightness": 40 } }))
        .await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let overview = loop {
        let (_, overview) = t.get_json(&path, Some(member)).await;
        let house_lights = overview["house"]["actionValues"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["action"] == "lights")
            .map(|v| v["value"].clone());
        if house_lights == Some(json!(true)) {
            break overview;
        }
        assert!(tokio::time::Instant::now() < deadline, "{overview}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(
        overview["house"]["primaryActions"],
        json!([{ "capability": "light", "action": "lights" }, { "capability": "thermostat", "action": "thermostat" }])
    );
    let kitchen_view = &overview["rooms"][1];
    assert_eq!(kitchen_view["things"][0]["name"], "Kitchen light");
    assert_eq!(kitchen_view["actionValues"][0]["value"], true);
    assert_eq!(kitchen_view["icon"], "stove");
    let unassigned: Vec<&str> = overview["unassigned"]
        .as_array()
        .unwrap()
        .iter()
        .map(|th| th["name"].as_str().unwrap())
        .collect();
    assert_eq!(unassigned, ["Thermostat"]);

    // Everything off, house-wide: the light is commanded, the thermostat
    // skipped.
    let (status, result) = t
        .post_json(
            &format!("/properties/{}/actions", home.property),
            Some(member),
            json!({ "tenantId": home.tenant, "capability": "light", "action": "lights", "value": false }),
        )
        .await;
    assert_eq!(status, 200, "{result}");
    assert_eq!(result["applied"][0]["name"], "Kitchen light");
    assert_eq!(result["skipped"][0]["name"], "Thermostat");
    assert_eq!(result["failed"], json!([]));
    let command = device
        .next_command(Duration::from_secs(5))
        .await
        .expect("the command");
    assert_eq!(command["payload"]["value"], false);
    // A slider action without a value is refused naming it.
    let (status, problem) = t
        .post_json(
            &format!("/properties/{}/actions", home.property),
            Some(member),
            json!({ "tenantId": home.tenant, "capability": "thermostat", "action": "thermostat" }),
        )
        .await;
    assert_eq!(
        (status, &problem["field"]),
        (400, &json!("value")),
        "{problem}"
    );
    device.driver.abort();
}

#[tokio::test]
async fn dashboard_pins_are_forty_at_most_and_the_owners_to_change() {
    let t = TestPlatform::start().await;
    let p = Principals::seed(&t).await;
    let home = demo_home(&t);
    let owner = p.token(Who::HouseholdOwner).unwrap();
    let member = p.token(Who::HouseholdMember).unwrap();
    let path = format!(
        "/properties/{}/dashboard?tenantId={}",
        home.property, home.tenant
    );
    let (status, empty) = t.get_json(&path, Some(member)).await;
    assert_eq!(status, 200, "{empty}");
    assert_eq!(empty, json!({ "propertyId": home.property, "pins": [] }));
    let (status, routine) = t
        .post_json(
            &format!(
                "/properties/{}/routines?tenantId={}",
                home.property, home.tenant
            ),
            Some(owner),
            json!({ "name": "Pinned", "do": [{ "kind": "delay", "seconds": 1 }] }),
        )
        .await;
    assert_eq!(status, 201, "{routine}");
    let routine = routine["id"].as_str().unwrap().to_owned();
    let pin = |i: usize| pin(i, &routine);

    // A routine pin must name a routine of this home.
    let (status, problem) = t
        .send_json(
            "PUT",
            &path,
            Some(owner),
            Some(json!({ "pins": [pin(0), pin(1), pin(2), pin(3), {
                "kind": "routine", "routineId": "0190b5a0-0000-7000-8000-00000000beef"
            }] })),
        )
        .await;
    assert_eq!(status, 400, "{problem}");
    assert_eq!(problem["field"], "pins[4].routineId");

    let forty: Vec<Value> = (0..40).map(pin).collect();
    let (status, saved) = t
        .send_json("PUT", &path, Some(owner), Some(json!({ "pins": forty })))
        .await;
    assert_eq!(status, 200, "{saved}");
    assert_eq!(saved["pins"].as_array().unwrap().len(), 40);
    let forty_one: Vec<Value> = (0..41).map(pin).collect();
    let (status, problem) = t
        .send_json(
            "PUT",
            &path,
            Some(owner),
            Some(json!({ "pins": forty_one })),
        )
        .await;
    assert_eq!(status, 400, "{problem}");
    assert_eq!(problem["field"], "pins");
    let (status, problem) = t
        .send_json(
            "PUT",
            &path,
            Some(owner),
            Some(json!({ "pins": [{ "kind": "scene", "sceneId": "x" }] })),
        )
        .await;
    assert_eq!(status, 400, "{problem}");
    assert!(
        problem["field"].as_str().unwrap().starts_with("pins"),
        "{problem}"
    );
    let (status, _) = t
        .send_json("PUT", &path, Some(member), Some(json!({ "pins": [] })))
        .await;
    assert_eq!(status, 403, "changing the dashboard is configuration");
    let (_, read) = t.get_json(&path, Some(member)).await;
    assert_eq!(read["pins"], json!((0..40).map(pin).collect::<Vec<_>>()));
}
