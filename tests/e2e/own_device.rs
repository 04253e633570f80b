//! A device of one's own, connected the way the registration answer says,
//! with mosquitto's command-line clients (tests/run installs them): the
//! answer's `publish` example stores a reading, its `subscribe` example
//! hears a command sent through the API, and once the credential is
//! replaced the old examples are refused and the new ones work.

use std::process::Stdio;
use std::time::Duration;

use alyt_tests::TestPlatform;
use serde_json::{Value, json};
use tokio::process::Command;

use crate::device_plane::owner_token;

/// Runs one of the answer's shell examples; its exit status and output.
async fn run(example: &str, extra: &str) -> (bool, String) {
    let output = tokio::time::timeout(
        Duration::from_secs(30),
        Command::new("sh")
            .arg("-c")
            .arg(format!("{example} {extra}"))
            .stdin(Stdio::null())
            .output(),
    )
    .await
    .expect("the example ends within 30 s")
    .expect("sh runs (mosquitto-clients is installed by tests/run)");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

async fn readings(t: &TestPlatform, token: &str, device: &str, tenant: &str) -> Vec<f64> {
    let (status, body) = t
        .get_json(
            &format!("/devices/{device}/telemetry?tenantId={tenant}&metric=temperature"),
            Some(token),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["value"].as_f64().unwrap())
        .collect()
}

/// Waits until the stored readings are `expected` (newest first).
async fn readings_until(
    t: &TestPlatform,
    token: &str,
    device: &str,
    tenant: &str,
    expected: &[f64],
) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let got = readings(t, token, device, tenant).await;
        if got == expected {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "readings: {got:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn the_registration_answer_connects_a_device_with_mosquittos_clients() {
    let t = TestPlatform::start().await;
    let token = owner_token(&t).await;
    let first = t.platform.first_start.as_ref().unwrap();
    let tenant = first.tenant_id.to_string();
    let (status, registered) = t
        .post_json(
            "/devices/register",
            Some(&token),
            json!({
                "tenantId": first.tenant_id,
                "propertyId": first.property_id,
                "name": "ESP32 thermometer",
                "kind": "OTHER",
                "capabilities": ["LIGHT"],
                "serial": "SN-OWN-0001",
            }),
        )
        .await;
    assert_eq!(status, 201, "{registered}");
    let device = registered["device"]["id"].as_str().unwrap().to_owned();
    let connection = &registered["connection"];
    assert_eq!(connection["host"], "127.0.0.1", "{connection}");
    assert_eq!(
        connection["port"],
        t.platform.mqtt_addr.port(),
        "{connection}"
    );
    assert_eq!(connection["protocol"], "mqtt");
    assert_eq!(connection["clientId"], device.as_str());
    let publish = connection["examples"]["publish"]
        .as_str()
        .unwrap()
        .to_owned();
    let subscribe = connection["examples"]["subscribe"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        publish.contains(registered["credentials"]["password"].as_str().unwrap()),
        "the example carries the credential shown once: {publish}"
    );

    // Publish a reading as pasted: it is stored.
    let (ok, out) = run(&publish, "").await;
    assert!(ok, "{publish}: {out}");
    readings_until(&t, &token, &device, &tenant, &[21.5]).await;

    // Listen as pasted (for one message), then send a command through the API.
    let listening = tokio::spawn({
        let subscribe = subscribe.clone();
        async move { run(&subscribe, "-C 1 -W 20").await }
    });
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let sent = loop {
        let (status, row) = t
            .post_json(
                &format!("/devices/{device}/commands?tenantId={tenant}"),
                Some(&token),
                json!({ "command": "set", "payload": { "capability": "light", "key": "power", "value": true } }),
            )
            .await;
        assert_eq!(status, 202, "{row}");
        // Sent once the subscriber's session is there; queued before.
        if listening.is_finished() || tokio::time::Instant::now() > deadline {
            break row;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    let (ok, out) = listening.await.unwrap();
    assert!(ok, "{subscribe}: {out}");
    let line = out.lines().next().unwrap_or_default();
    let (topic, body) = line.split_once(' ').unwrap_or_default();
    assert!(topic.ends_with(&format!("{device}/commands")), "{line}");
    let command: Value = serde_json::from_str(body).unwrap();
    assert_eq!(command["command"], "set", "{line}");
    assert!(sent["commandId"].is_string(), "{sent}");

    // A new credential: the old examples are refused, the new ones work.
    let (status, rotated) = t
        .post_json(
            &format!("/devices/{device}/credentials?tenantId={tenant}"),
            Some(&token),
            json!({}),
        )
        .await;
    assert_eq!(status, 201, "{rotated}");
    let (ok, out) = run(&publish, "").await;
    assert!(!ok, "the old credential is refused: {out}");
    assert!(out.contains("bad user name or password"), "{out}");
    let new_publish = rotated["connection"]["examples"]["publish"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_ne!(new_publish, publish);
    // Another value: the same content on the same packet id from a new
    // connection within ten minutes counts as a resend (the broker's
    // retransmit rule), and mosquitto_pub always starts at packet id 1.
    let (ok, out) = run(&new_publish.replace("21.5", "22.5"), "").await;
    assert!(ok, "{new_publish}: {out}");
    readings_until(&t, &token, &device, &tenant, &[22.5, 21.5]).await;
}
