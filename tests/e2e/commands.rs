//! Device commands end to end with a real MQTT client playing the device:
//! POST a command, receive it on the commands channel, report the change and
//! answer it; the stored state is what the device reported back. Plus the
//! validation 400s and the bridge sweep delivering a command queued while
//! the device was away.

use std::time::Duration;

use alyt_events::EventKind;
use alyt_tests::TestPlatform;
use rumqttc::QoS;
use serde_json::{Value, json};

use crate::device_plane::{Registered, events_of, owner_token, register_light, until};
use crate::rooms::{Played, play};

/// The next command the played device received.
async fn next_command(device: &mut Played, within: Duration) -> Value {
    tokio::time::timeout(within, device.commands.recv())
        .await
        .expect("a command arrives in time")
        .unwrap()
}

async fn send(t: &TestPlatform, token: &str, d: &Registered, body: Value) -> (u16, Value) {
    t.post_json(
        &format!("/devices/{}/commands?tenantId={}", d.device, d.tenant),
        Some(token),
        body,
    )
    .await
}

async fn history(t: &TestPlatform, token: &str, d: &Registered) -> Vec<Value> {
    let (status, body) = t
        .get_json(
            &format!("/devices/{}/commands?tenantId={}", d.device, d.tenant),
            Some(token),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    body["items"].as_array().unwrap().clone()
}

async fn history_until(
    t: &TestPlatform,
    token: &str,
    d: &Registered,
    what: &str,
    check: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let items = history(t, token, d).await;
        if check(&items) {
            return items;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}: {items:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_command_reaches_the_device_and_its_report_is_what_is_stored() {
    let t = TestPlatform::start().await;
    let token = owner_token(&t).await;
    let d = register_light(&t, &token).await;
    let mut device = play(&t, &d).await;

    let (status, row) = send(
        &t,
        &token,
        &d,
        json!({ "command": "set", "payload": { "capability": "light", "key": "brightness", "value": 70 } }),
    )
    .await;
    assert_eq!(status, 202, "{row}");
    let first = row["commandId"]
        .as_str()
        .expect("a decimal string")
        .to_owned();
    assert!(first.parse::<u64>().is_ok(), "{row}");
    assert_eq!(row["state"], "sent", "published at once: {row}");
    assert_eq!(row["attempts"], 1);

    let command = next_command(&mut device, Duration::from_secs(5)).await;
    assert_eq!(
        command,
        json!({ "commandId": first, "command": "set",
                "payload": { "capability": "light", "key": "brightness", "value": 70 } })
    );
    // Nothing is stored from the request itself.
    let (_, before) = t
        .get_json(
            &format!("/devices/{}?tenantId={}", d.device, d.tenant),
            Some(&token),
        )
        .await;
    assert!(before["reported"].is_null(), "{before}");

    device
        .client
        .publish(
            format!("{}/status", d.prefix),
            QoS::AtLeastOnce,
            false,
            r#"{"light":{"power":true,"brightness":70}}"#,
        )
        .await
        .unwrap();
    device
        .client
        .publish(
            format!("{}/response", d.prefix),
            QoS::AtLeastOnce,
            false,
            json!({ "commandId": first, "command": "set", "status": "ok" }).to_string(),
        )
        .await
        .unwrap();

    until(&t, &token, &d, "the reported brightness", |row| {
        row["reported"]["payload"]["light"]["brightness"] == 70
    })
    .await;
    let items = history_until(&t, &token, &d, "the answer", |items| {
        items.first().is_some_and(|r| r["state"] == "answered")
    })
    .await;
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["resultStatus"], "ok");
    assert!(items[0]["answeredAt"].is_string());

    let events = events_of(&t, &d.tenant).await;
    let results: Vec<&Value> = events
        .iter()
        .filter(|(k, _)| *k == EventKind::CommandResult)
        .map(|(_, data)| data)
        .collect();
    assert_eq!(results.len(), 1, "{events:?}");
    assert_eq!(results[0]["commandId"], first.as_str());
    assert_eq!(results[0]["deviceId"], d.device.as_str());
    assert_eq!(results[0]["command"], "set");
    assert_eq!(results[0]["status"], "ok");

    // A second command: history is newest first.
    let (status, row) = send(
        &t,
        &token,
        &d,
        json!({ "command": "set", "payload": { "capability": "light", "key": "power", "value": false } }),
    )
    .await;
    assert_eq!(status, 202, "{row}");
    let second = row["commandId"].as_str().unwrap().to_owned();
    assert!(
        second.parse::<u64>().unwrap() > first.parse::<u64>().unwrap(),
        "ids follow acceptance: {first} then {second}"
    );
    let ids: Vec<Value> = history(&t, &token, &d)
        .await
        .iter()
        .map(|r| r["commandId"].clone())
        .collect();
    assert_eq!(ids, [json!(second), json!(first)]);
    device.driver.abort();
}

#[tokio::test]
async fn invalid_commands_are_refused_naming_the_field() {
    let t = TestPlatform::start().await;
    let token = owner_token(&t).await;
    let d = register_light(&t, &token).await;
    for (body, field) in [
        (
            json!({ "command": "set", "payload": { "capability": "thermostat", "key": "brightness", "value": 70 } }),
            "payload.capability",
        ),
        (
            json!({ "command": "set", "payload": { "capability": "light", "key": "warp", "value": 70 } }),
            "payload.key",
        ),
        (
            json!({ "command": "set", "payload": { "capability": "light", "key": "brightness", "value": 170 } }),
            "payload.value",
        ),
        (
            json!({ "command": "set", "payload": { "capability": "light", "key": "brightness", "value": "70" } }),
            "payload.value",
        ),
        (json!({ "payload": {} }), "command"),
    ] {
        let (status, problem) = send(&t, &token, &d, body.clone()).await;
        assert_eq!(status, 400, "{body} -> {problem}");
        assert_eq!(problem["field"], field, "{body} -> {problem}");
    }
    assert!(history(&t, &token, &d).await.is_empty(), "nothing queued");

    // A foreign or missing device answers like GET /devices/{id}.
    let (status, _) = t
        .post_json(
            &format!(
                "/devices/0190b5a0-0000-7000-8000-00000000d001/commands?tenantId={}",
                d.tenant
            ),
            Some(&token),
            json!({ "command": "identify" }),
        )
        .await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn a_command_for_an_absent_device_waits_for_the_sweep() {
    let t = TestPlatform::start().await;
    let token = owner_token(&t).await;
    let d = register_light(&t, &token).await;

    let (status, row) = send(
        &t,
        &token,
        &d,
        json!({ "command": "set", "payload": { "capability": "light", "key": "power", "value": true } }),
    )
    .await;
    assert_eq!(status, 202, "{row}");
    assert_eq!(row["state"], "pending", "nobody listens yet: {row}");
    assert_eq!(row["attempts"], 1);

    let mut device = play(&t, &d).await;
    let command = next_command(&mut device, Duration::from_secs(8)).await;
    assert_eq!(command["commandId"], row["commandId"]);
    assert_eq!(command["payload"]["key"], "power");
    history_until(&t, &token, &d, "the sweep's delivery", |items| {
        items.first().is_some_and(|r| r["state"] == "sent")
    })
    .await;
    device.driver.abort();
}
