//! What a device reported over time, read back through the API: telemetry
//! series, the events and alerts it published, and the notification an
//! alert raises.

use std::time::Duration;

use alyt_events::EventKind;
use alyt_tests::TestPlatform;
use rumqttc::QoS;
use serde_json::Value;

use crate::device_plane::{connect, events_of, owner_token, register_light};

async fn list_until(t: &TestPlatform, token: &str, path: &str, count: usize) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (status, body) = t.get_json(path, Some(token)).await;
        assert_eq!(status, 200, "{path}: {body}");
        if body["items"].as_array().unwrap().len() >= count {
            return body;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {count} items at {path}: {body}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn telemetry_events_and_alerts_are_readable_and_an_alert_notifies() {
    let t = TestPlatform::start().await;
    let token = owner_token(&t).await;
    let d = register_light(&t, &token).await;
    let (client, driver) = connect(&t, &d).await;
    for payload in [
        r#"{"metrics":{"watts":7.5}}"#,
        r#"{"metric":"watts","value":9,"payload":null}"#,
        r#"{"metrics":{"watts":11}}"#,
    ] {
        client
            .publish(
                format!("{}/telemetry", d.prefix),
                QoS::AtLeastOnce,
                false,
                payload,
            )
            .await
            .unwrap();
        // Distinct timestamps keep the expected order unambiguous.
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    client
        .publish(
            format!("{}/events", d.prefix),
            QoS::AtLeastOnce,
            false,
            r#"{"button":"double-press"}"#,
        )
        .await
        .unwrap();
    client
        .publish(
            format!("{}/alerts", d.prefix),
            QoS::AtLeastOnce,
            false,
            r#"{"condition":"overheat","message":"The lamp is too hot"}"#,
        )
        .await
        .unwrap();

    let base = format!("/devices/{}", d.device);
    let tenant = &d.tenant;
    let newest = list_until(
        &t,
        &token,
        &format!("{base}/telemetry?tenantId={tenant}&metric=watts"),
        3,
    )
    .await;
    let values: Vec<f64> = newest["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["value"].as_f64().unwrap())
        .collect();
    assert_eq!(values, [11.0, 9.0, 7.5], "newest first");
    assert_eq!(newest["items"][0]["metric"], "watts");

    // Oldest first, two a page, the cursor carries on.
    let (_, first) = t
        .get_json(
            &format!("{base}/telemetry?tenantId={tenant}&metric=watts&order=asc&limit=2"),
            Some(&token),
        )
        .await;
    assert_eq!(first["items"][0]["value"], 7.5);
    let cursor = first["nextCursor"].as_str().expect("a second page");
    let (_, second) = t
        .get_json(
            &format!(
                "{base}/telemetry?tenantId={tenant}&metric=watts&order=asc&limit=2&cursor={cursor}"
            ),
            Some(&token),
        )
        .await;
    assert_eq!(second["items"].as_array().unwrap().len(), 1);
    assert_eq!(second["items"][0]["value"], 11.0);
    // A cursor of one series is not valid for another.
    let (status, body) = t
        .get_json(
            &format!("{base}/telemetry?tenantId={tenant}&metric=power&cursor={cursor}"),
            Some(&token),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["field"], "cursor");
    // A range after everything is empty; a reversed range is refused.
    let (_, later) = t
        .get_json(
            &format!("{base}/telemetry?tenantId={tenant}&metric=watts&from=2999-01-01T00:00:00Z"),
            Some(&token),
        )
        .await;
    assert_eq!(later["items"], Value::Array(vec![]));
    let (status, body) = t
        .get_json(
            &format!(
                "{base}/telemetry?tenantId={tenant}&metric=watts&from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z"
            ),
            Some(&token),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(body["field"], "to");
    let (status, body) = t
        .get_json(&format!("{base}/telemetry?tenantId={tenant}"), Some(&token))
        .await;
    assert_eq!(status, 400, "metric is required: {body}");

    let events = list_until(&t, &token, &format!("{base}/events?tenantId={tenant}"), 1).await;
    assert_eq!(events["items"][0]["payload"]["button"], "double-press");
    let alerts = list_until(&t, &token, &format!("{base}/alerts?tenantId={tenant}"), 1).await;
    assert_eq!(alerts["items"].as_array().unwrap().len(), 1);
    assert_eq!(alerts["items"][0]["payload"]["condition"], "overheat");

    let raised: Vec<Value> = events_of(&t, tenant)
        .await
        .into_iter()
        .filter(|(kind, _)| *kind == EventKind::NotificationRaised)
        .map(|(_, data)| data)
        .collect();
    assert_eq!(raised.len(), 1, "{raised:?}");
    assert_eq!(raised[0]["title"], "Kitchen light: overheat");
    assert_eq!(raised[0]["body"], "The lamp is too hot");
    assert_eq!(raised[0]["deviceId"], d.device.as_str());
    driver.abort();
}

/// Never stored (PIN values, private media URLs) holds on the device path
/// as on a connector's: a device that puts a keypad code and signed or
/// credential-bearing camera links in its status, an event and an alert
/// leaves none of them in its reported payload, its history, the
/// notification or any event, and everything else it said is kept.
#[tokio::test]
async fn a_pin_and_a_private_media_url_a_device_sends_are_never_stored() {
    const SECRETS: [&str; 5] = [
        "pin-7c1d9e",
        "token-3f8a2b",
        "hunter2-e5b6",
        "sig-9d0c4a",
        "code-1a2b3c",
    ];
    let t = TestPlatform::start().await;
    let token = owner_token(&t).await;
    let d = register_light(&t, &token).await;
    let (client, driver) = connect(&t, &d).await;
    for (channel, payload) in [
        (
            "status",
            r#"{"light":{"power":true},"lock":{"locked":false,"PIN":"pin-7c1d9e"},
                "camera":{"snapshotUrl":"https://cam.example/s.jpg?token=token-3f8a2b",
                          "stream":"rtsp://admin:hunter2-e5b6@10.0.0.9/live",
                          "help":"https://cam.example/help"}}"#,
        ),
        (
            "events",
            r#"{"button":"press","keypadCode":"code-1a2b3c",
                "clips":["https://cdn.example/c.mp4?X-Amz-Signature=sig-9d0c4a"]}"#,
        ),
        (
            "alerts",
            r#"{"condition":"tamper","pin":"pin-7c1d9e",
                "snapshot":"rtsps://viewer:hunter2-e5b6@cam.local/x"}"#,
        ),
    ] {
        client
            .publish(
                format!("{}/{channel}", d.prefix),
                QoS::AtLeastOnce,
                false,
                payload,
            )
            .await
            .unwrap();
    }

    let base = format!("/devices/{}", d.device);
    let tenant = &d.tenant;
    let events = list_until(&t, &token, &format!("{base}/events?tenantId={tenant}"), 1).await;
    let alerts = list_until(&t, &token, &format!("{base}/alerts?tenantId={tenant}"), 1).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let device = loop {
        let (status, device) = t
            .get_json(&format!("{base}?tenantId={tenant}"), Some(&token))
            .await;
        assert_eq!(status, 200, "{device}");
        if !device["reported"].is_null() {
            break device;
        }
        assert!(tokio::time::Instant::now() < deadline, "{device}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let notifications =
        list_until(&t, &token, &format!("/notifications?tenantId={tenant}"), 1).await;
    let raised: Vec<Value> = events_of(&t, tenant)
        .await
        .into_iter()
        .map(|(_, data)| data)
        .collect();

    // What is not secret is kept.
    let reported = &device["reported"]["payload"];
    assert_eq!(reported["light"]["power"], true, "{device}");
    assert_eq!(reported["lock"]["locked"], false, "{device}");
    assert_eq!(reported["camera"]["help"], "https://cam.example/help");
    assert_eq!(events["items"][0]["payload"]["button"], "press");
    assert_eq!(alerts["items"][0]["payload"]["condition"], "tamper");
    let read = [
        ("the device", device.to_string()),
        ("its events", events.to_string()),
        ("its alerts", alerts.to_string()),
        ("the notifications", notifications.to_string()),
        ("the events raised", Value::Array(raised).to_string()),
    ];
    for (what, text) in &read {
        for secret in SECRETS {
            assert!(!text.contains(secret), "{what} kept {secret}: {text}");
        }
    }
    driver.abort();
}
