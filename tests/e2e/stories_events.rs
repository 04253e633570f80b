//! Stories of events leaving the platform: on the event stream and to a
//! developer's webhook receiver. Each runs on the local platform (by
//! default) and on the hosted stack in the emulated AWS region
//! (`ALYT_E2E_TARGET=emulated`; see `alyt_tests::region`), where the stream
//! is the stream function's URL (the API answers 421 naming it) and the
//! receiver is a loopback server the webhooks worker reaches (the emulator
//! opens the hosted outbound policy to 127.0.0.1 for it).

use std::sync::Arc;
use std::time::Duration;

use alyt_tests::Target;
use alyt_tests::developers::{DeveloperSession, create_key, sandbox_home, sign_up_and_verify};
use alyt_tests::household::{fresh_address, until};
use alyt_tests::region::Story;
use alyt_tests::webhooks::{Receiver, open_stream};
use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// Hosted: a sandbox device's telemetry (the simulator task through IoT
/// Core, the topic rule and its queue) is stored by `IngestFunction` as its
/// points; the table's stream brings the new point back to the same
/// function, whose telemetry sequencer appends `device.telemetry` to the
/// tenant's log as a page; `StreamFunction` streams it. Locally the store's
/// feed and the sequencer task do the same. Virtual devices report every
/// 20 s.
#[tokio::test]
async fn a_sandbox_devices_telemetry_reaches_the_event_stream_through_the_sequencer() {
    let t = Story::start().await;
    let dev = sign_up_and_verify(&t, &fresh_address("telemetry")).await;
    let (_, key) = create_key(&t, &dev, &["devices:read", "events:read"]).await;
    let tenant = dev.sandbox_tenant_id.clone();
    let (mut stream, _) = open_stream(
        &t,
        "/developers/events/stream?events=device.telemetry",
        &key,
    )
    .await;
    let readings = stream.events(2, Duration::from_secs(90)).await;
    assert_eq!(
        readings.len(),
        2,
        "two device.telemetry events on the stream within 90 s: {readings:?}"
    );
    for (kind, id, envelope) in &readings {
        assert_eq!(kind, "device.telemetry");
        assert_eq!(envelope["id"], id.as_str());
        assert_eq!(envelope["tenantId"], tenant.as_str());
        assert!(envelope["data"]["deviceId"].is_string(), "{envelope}");
        let metrics = envelope["data"]["metrics"].as_object().unwrap();
        assert!(!metrics.is_empty(), "{envelope}");
        assert!(metrics.values().all(Value::is_number), "{envelope}");
    }
    assert!(readings[0].1 < readings[1].1, "in id order");
}

/// Hosted: the developers group (sign-up, a key, the sandbox's virtual
/// devices, the stream's 421) in `ApiDevelopersFunction`; the simulator
/// task (`SimulatorService`), whose virtual light connects to IoT Core
/// through `DeviceAuthorizer` (`DeviceAuthorizerFunction`); the command in
/// `ApiHomesFunction`, published through the IoT data plane; the light's
/// answer through `DeviceTelemetryRule` and its queue into
/// `IngestFunction`, which records `command.result`; the event stream in
/// `StreamFunction` behind its function URL, streamed as it is written.
#[tokio::test]
async fn a_command_to_the_sandbox_light_comes_back_as_a_command_result_on_the_event_stream() {
    let t = Story::start().await;
    let dev = sign_up_and_verify(&t, &fresh_address("light")).await;
    let (_, key) = create_key(
        &t,
        &dev,
        &["devices:commands", "devices:read", "events:read"],
    )
    .await;
    let tenant = dev.sandbox_tenant_id.clone();
    let (status, devices) = t
        .get_json(
            &format!("/developers/simulator/devices?tenantId={tenant}"),
            Some(&dev.access_token),
        )
        .await;
    assert_eq!(status, 200, "{devices}");
    let light = devices["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["profile"] == "LIGHT")
        .unwrap_or_else(|| panic!("a virtual light: {devices}"))["device"]["id"]
        .as_str()
        .unwrap()
        .to_owned();

    // The simulator brings it online (hosted: at its next poll of the
    // table, every 15 s, then through the custom authorizer).
    let device_path = format!("/devices/{light}?tenantId={tenant}");
    until(
        &t,
        &device_path,
        &key,
        Duration::from_secs(40),
        "the light online",
        |row| row["status"] == "ONLINE",
    )
    .await;

    let (mut stream, served_at) =
        open_stream(&t, "/developers/events/stream?events=command.result", &key).await;
    if let Some(stream_url) = t.stream_url() {
        assert!(
            served_at.starts_with(stream_url),
            "the API's 421 leads to the stream function's URL {stream_url}: {served_at}"
        );
    }
    let (status, row) = t
        .post_json(
            &format!("/devices/{light}/commands?tenantId={tenant}"),
            Some(&key),
            json!({ "command": "set", "payload": { "capability": "light", "key": "power", "value": true } }),
        )
        .await;
    assert_eq!(status, 202, "{row}");
    let command = row["commandId"].as_str().unwrap().to_owned();

    let results = stream.events(1, Duration::from_secs(30)).await;
    let (kind, id, envelope) = results
        .first()
        .unwrap_or_else(|| panic!("no command.result on the stream within 30 s"));
    assert_eq!(kind, "command.result");
    assert_eq!(envelope["id"], id.as_str());
    assert_eq!(envelope["tenantId"], tenant.as_str());
    assert_eq!(envelope["data"]["deviceId"], light.as_str());
    assert_eq!(envelope["data"]["commandId"], command.as_str());
    assert_eq!(envelope["data"]["status"], "ok", "{envelope}");
    // And the light reports what it obeyed.
    until(
        &t,
        &device_path,
        &key,
        Duration::from_secs(15),
        "the light's reported power",
        |row| row["reported"]["payload"]["light"]["power"] == true,
    )
    .await;
}

/// A webhook endpoint on `receiver` for `events`, registered with the
/// developer's session and bound to a new DEV key (an endpoint delivers
/// for a key); the receiver checks signatures against its secret.
async fn register_endpoint(
    t: &Story,
    dev: &DeveloperSession,
    receiver: &Receiver,
    events: &[&str],
) -> (String, String) {
    create_key(t, dev, &["webhooks:write"]).await;
    let (status, body) = t
        .post_json(
            "/developers/webhooks",
            Some(&dev.access_token),
            json!({ "url": receiver.url(), "events": events, "description": "story receiver" }),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let secret = body["secret"].as_str().unwrap().to_owned();
    receiver.set_secret(&secret);
    (body["id"].as_str().unwrap().to_owned(), secret)
}

async fn ping(t: &Story, dev: &DeveloperSession, endpoint: &str) -> String {
    let (status, body) = t
        .post_json(
            &format!("/developers/webhooks/{endpoint}/test"),
            Some(&dev.access_token),
            json!({}),
        )
        .await;
    assert_eq!(status, 202, "{body}");
    body["eventId"].as_str().unwrap().to_owned()
}

/// The endpoint's delivery row for `event`.
async fn delivery(t: &Story, dev: &DeveloperSession, endpoint: &str, event: &str) -> Value {
    let (status, log) = t
        .get_json(
            &format!("/developers/webhooks/{endpoint}/deliveries"),
            Some(&dev.access_token),
        )
        .await;
    assert_eq!(status, 200, "{log}");
    log["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["eventId"] == event)
        .unwrap_or_else(|| panic!("no delivery of {event}: {log}"))
        .clone()
}

fn rfc3339(row: &Value, field: &str) -> time::OffsetDateTime {
    time::OffsetDateTime::parse(
        row[field].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap()
}

/// Hosted: the endpoint registered and the ping recorded in
/// `ApiDevelopersFunction`; the event sent, signed, by `WebhooksFunction`
/// (woken by the table's stream, `NewEvents`, or its `EveryMinute` loop).
#[tokio::test]
async fn a_webhook_endpoint_receives_an_event_signed_with_its_secret() {
    let t = Story::start().await;
    let dev = sign_up_and_verify(&t, &fresh_address("hook")).await;
    let receiver = Receiver::start(Arc::new(alyt_domain::SystemClock)).await;
    let (endpoint, secret) = register_endpoint(&t, &dev, &receiver, &["webhook.ping"]).await;

    let event = ping(&t, &dev, &endpoint).await;
    let seen = receiver
        .until(Duration::from_secs(20), |seen| {
            seen.iter().any(|s| s.envelope["id"] == event.as_str())
        })
        .await;
    let hit = seen
        .iter()
        .find(|s| s.envelope["id"] == event.as_str())
        .unwrap();
    assert_eq!(hit.event_header, "webhook.ping");
    assert_eq!(hit.envelope["type"], "webhook.ping");
    assert_eq!(hit.envelope["tenantId"], dev.sandbox_tenant_id.as_str());
    assert_eq!(hit.envelope["data"]["endpointId"], endpoint.as_str());
    // The signature is the secret's, over this very body, and no other's.
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    let verify = |secret: &str| {
        alyt_events::signature::verify(
            secret.as_bytes(),
            hit.signature_header.as_bytes(),
            hit.body.as_bytes(),
            now,
        )
    };
    assert!(hit.verified, "{hit:?}");
    assert!(verify(&secret).is_ok(), "{}", hit.signature_header);
    assert!(verify("whsec_someone-else").is_err());

    let row = delivery(&t, &dev, &endpoint, &event).await;
    assert_eq!(row["status"], "delivered", "{row}");
    assert_eq!(row["attempts"], 1);
    assert_eq!(row["responseCode"], 200);
    assert_eq!(row["id"], hit.delivery_header.as_str());
    assert_eq!(row["signature"], hit.signature_header.as_str());
}

/// Hosted: `WebhooksFunction`'s first attempt on the table's stream
/// (`NewEvents`) fails at the receiver; its scheduled loop (`EveryMinute`,
/// a pass a second) finds the retry due 30 s later, on the wall clock the
/// hosted worker reads, and delivers it; the delivery log is read through
/// `ApiDevelopersFunction`.
#[tokio::test]
async fn a_delivery_the_receiver_fails_is_retried_and_delivered() {
    let t = Story::start().await;
    let dev = sign_up_and_verify(&t, &fresh_address("retry")).await;
    let receiver = Receiver::start(Arc::new(alyt_domain::SystemClock)).await;
    let (endpoint, _) = register_endpoint(&t, &dev, &receiver, &["webhook.ping"]).await;
    receiver.answer(500);

    let event = ping(&t, &dev, &endpoint).await;
    receiver
        .until(Duration::from_secs(20), |seen| {
            seen.iter().any(|s| s.answered == 500)
        })
        .await;
    receiver.answer(200);
    let row = delivery(&t, &dev, &endpoint, &event).await;
    assert_eq!(row["status"], "retrying", "{row}");
    assert_eq!(row["attempts"], 1);
    assert_eq!(row["responseCode"], 500);
    assert_eq!(
        rfc3339(&row, "nextAttemptAt") - rfc3339(&row, "lastAttemptAt"),
        time::Duration::seconds(30),
        "{row}"
    );

    // The retry schedule's first step is 30 s: delivered soon after.
    let seen = receiver
        .until(Duration::from_secs(50), |seen| {
            seen.iter().any(|s| s.answered == 200)
        })
        .await;
    assert_eq!(seen.len(), 2, "one failure, one delivery: {seen:?}");
    assert!(
        seen.iter()
            .all(|s| s.verified && s.envelope["id"] == event.as_str())
    );
    assert_eq!(
        seen[0].delivery_header, seen[1].delivery_header,
        "one delivery id for every attempt of the event"
    );
    let row = delivery(&t, &dev, &endpoint, &event).await;
    assert_eq!(row["status"], "delivered", "{row}");
    assert_eq!(row["attempts"], 2);
    assert_eq!(row["responseCode"], 200);
}

/// Hosted: ApiPeopleFunction (the sandbox home's guest stay by reservation
/// key, opened with the developer's key), SweepsFunction (the stay sweep on
/// its schedule, which checks the guest in at the stay's start and out at
/// its end) and StreamFunction (the booking system hearing each of them).
#[tokio::test]
async fn a_booked_guest_is_checked_in_and_out_by_the_stay_sweep_and_the_booking_system_hears_it() {
    let t = Story::start_with(|config| config.stay_sweep_every = Duration::from_millis(200)).await;
    let dev = sign_up_and_verify(&t, &fresh_address("booking")).await;
    let home = sandbox_home(&t, &dev).await;
    let (_, key) = create_key(&t, &dev, &["guests:write", "events:read"]).await;
    let (mut stream, _) = open_stream(
        &t,
        "/developers/events/stream?events=guest.invited,guest.checked_in,guest.checked_out",
        &key,
    )
    .await;

    let now = OffsetDateTime::now_utc().replace_nanosecond(0).unwrap();
    let at = |seconds| {
        (now + time::Duration::seconds(seconds))
            .format(&Rfc3339)
            .unwrap()
    };
    let (status, opened) = t
        .send_json(
            "PUT",
            &format!(
                "/tenants/{}/clients/{}/guests/BK-STORY-1",
                dev.sandbox_tenant_id, home.client_id
            ),
            Some(&key),
            Some(json!({
                "email": fresh_address("guest"),
                "name": "Vera",
                "propertyId": home.property_id,
                "checkIn": at(4),
                "checkOut": at(10),
            })),
        )
        .await;
    assert_eq!(status, 201, "{opened}");

    // Hosted, the sweep runs every 30 s (its schedule sped up twice).
    let heard = stream.events(3, Duration::from_secs(100)).await;
    let kinds: Vec<&str> = heard.iter().map(|(kind, _, _)| kind.as_str()).collect();
    assert_eq!(
        kinds,
        ["guest.invited", "guest.checked_in", "guest.checked_out"],
        "{heard:?}"
    );
    for (_, _, envelope) in &heard {
        assert_eq!(
            envelope["data"]["reservationKey"], "BK-STORY-1",
            "{envelope}"
        );
        assert_eq!(envelope["data"]["propertyId"], home.property_id.as_str());
    }
}

/// Hosted: a script stored and run through `ApiDevelopersFunction`; the
/// simulator task's conductor takes the run at its next poll (after its
/// fleet let go of the light), plays it as the light through IoT Core and
/// `DeviceAuthorizer`, writes its end, and the fleet takes the light back
/// at the poll after.
#[tokio::test]
async fn a_script_run_is_played_as_the_sandbox_light_and_gives_it_back() {
    let t = Story::start().await;
    let dev = sign_up_and_verify(&t, &fresh_address("script")).await;
    let (_, key) = create_key(&t, &dev, &["devices:read", "telemetry:read"]).await;
    let tenant = dev.sandbox_tenant_id.clone();
    let token = dev.access_token.clone();
    let (status, devices) = t
        .get_json(
            &format!("/developers/simulator/devices?tenantId={tenant}"),
            Some(&token),
        )
        .await;
    assert_eq!(status, 200, "{devices}");
    let light = devices["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["profile"] == "LIGHT")
        .unwrap_or_else(|| panic!("a virtual light: {devices}"))["device"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let device_path = format!("/devices/{light}?tenantId={tenant}");
    until(
        &t,
        &device_path,
        &key,
        Duration::from_secs(40),
        "the light online",
        |row| row["status"] == "ONLINE",
    )
    .await;

    let (status, stored) = t
        .post_json(
            "/developers/simulator/scripts",
            Some(&token),
            json!({ "tenantId": tenant, "script": {
                "name": "a lamp's reading",
                "roles": [{ "name": "lamp", "profile": "LIGHT" }],
                "steps": [{ "atMs": 500, "role": "lamp", "action": "telemetry",
                            "payload": { "metric": "watts", "value": 7.25, "payload": null } }],
                "durationMs": 2000
            } }),
        )
        .await;
    assert_eq!(status, 201, "{stored}");
    let (status, started) = t
        .post_json(
            "/developers/simulator/runs",
            Some(&token),
            json!({ "tenantId": tenant, "scriptId": stored["id"], "devices": { "lamp": light }, "seed": 5 }),
        )
        .await;
    assert_eq!(status, 202, "{started}");
    let run = format!(
        "/developers/simulator/runs/{}?tenantId={tenant}",
        started["id"].as_str().unwrap()
    );
    // Hosted the runner polls every 15 s: taken at one poll, given back at
    // the next.
    let ended = until(
        &t,
        &run,
        &token,
        Duration::from_secs(60),
        "the run's end",
        |r| !matches!(r["status"].as_str(), Some("PENDING" | "RUNNING")),
    )
    .await;
    assert_eq!(ended["status"], "DONE", "{ended}");
    assert_eq!(ended["played"], ended["total"], "{ended}");
    // Played is sent, not yet stored: hosted the reading still goes
    // through the rule, its queue and ingest.
    until(
        &t,
        &format!("/devices/{light}/telemetry?tenantId={tenant}&metric=watts"),
        &key,
        Duration::from_secs(30),
        "the run's reading stored",
        |readings| readings.to_string().contains("7.25"),
    )
    .await;
    let (status, listed) = t
        .get_json(
            &format!("/developers/simulator/devices?tenantId={tenant}"),
            Some(&token),
        )
        .await;
    assert_eq!(status, 200, "{listed}");
    let back = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["device"]["id"] == light.as_str())
        .unwrap();
    assert_eq!(back["runId"], Value::Null, "{back}");
}
