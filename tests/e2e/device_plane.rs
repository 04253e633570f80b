//! A device's life on the local platform with a real MQTT client: register,
//! connect, report, be read back through the API, drop off (the last will) and
//! come back, with the platform events each step records.

use std::time::Duration;

use alyt_domain::ids::TenantId;
use alyt_events::{EventKind, EventLog};
use alyt_tests::TestPlatform;
use rumqttc::{AsyncClient, Event, LastWill, MqttOptions, Packet, QoS};
use serde_json::{Value, json};

pub(crate) async fn owner_token(t: &TestPlatform) -> String {
    let (email, password) = t.owner();
    t.household_login(&email, &password).await["accessToken"]
        .as_str()
        .unwrap()
        .to_owned()
}

pub(crate) struct Registered {
    pub(crate) tenant: String,
    pub(crate) device: String,
    pub(crate) prefix: String,
    pub(crate) username: String,
    pub(crate) password: String,
}

pub(crate) async fn register_light(t: &TestPlatform, token: &str) -> Registered {
    let first = t.platform.first_start.as_ref().unwrap();
    let (status, body) = t
        .post_json(
            "/devices/register",
            Some(token),
            json!({
                "tenantId": first.tenant_id,
                "propertyId": first.property_id,
                "name": "Kitchen light",
                "kind": "OTHER",
                "capabilities": ["LIGHT"],
                "serial": "SN-PLANE-0001",
            }),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    Registered {
        tenant: first.tenant_id.to_string(),
        device: body["device"]["id"].as_str().unwrap().to_owned(),
        prefix: body["topicPrefix"].as_str().unwrap().to_owned(),
        username: body["credentials"]["username"].as_str().unwrap().to_owned(),
        password: body["credentials"]["password"].as_str().unwrap().to_owned(),
    }
}

/// Connects as the device with a retained 'offline' last will; returns the
/// client and the task driving its event loop (abort it to drop the socket).
pub(crate) async fn connect(
    t: &TestPlatform,
    d: &Registered,
) -> (AsyncClient, tokio::task::JoinHandle<()>) {
    try_connect(t, &d.username, &d.password, &d.prefix)
        .await
        .expect("the device's credentials log in")
}

/// Connects with these credentials; `None` when the broker refuses them.
pub(crate) async fn try_connect(
    t: &TestPlatform,
    username: &str,
    password: &str,
    prefix: &str,
) -> Option<(AsyncClient, tokio::task::JoinHandle<()>)> {
    let addr = t.platform.mqtt_addr;
    let mut options = MqttOptions::new(username, addr.ip().to_string(), addr.port());
    options.set_credentials(username, password);
    options.set_keep_alive(Duration::from_secs(30));
    options.set_last_will(LastWill::new(
        format!("{prefix}/availability"),
        "offline",
        QoS::AtLeastOnce,
        true,
    ));
    let (client, mut events) = AsyncClient::new(options, 20);
    let (connected_tx, connected_rx) = tokio::sync::oneshot::channel();
    let mut connected_tx = Some(connected_tx);
    let driver = tokio::spawn(async move {
        loop {
            match events.poll().await {
                Ok(Event::Incoming(Packet::ConnAck(ack))) => {
                    if let Some(tx) = connected_tx.take() {
                        let _ = tx.send(ack.code == rumqttc::ConnectReturnCode::Success);
                    }
                }
                Ok(_) => {}
                Err(rumqttc::ConnectionError::ConnectionRefused(_)) => {
                    if let Some(tx) = connected_tx.take() {
                        let _ = tx.send(false);
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
    });
    let ok = tokio::time::timeout(Duration::from_secs(10), connected_rx)
        .await
        .expect("CONNACK within 10 s")
        .unwrap();
    if ok {
        Some((client, driver))
    } else {
        driver.abort();
        None
    }
}

pub(crate) async fn device(t: &TestPlatform, token: &str, d: &Registered) -> Value {
    let (status, body) = t
        .get_json(
            &format!("/devices/{}?tenantId={}", d.device, d.tenant),
            Some(token),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    body
}

/// Polls the device until `check` holds (ingest is asynchronous), at most 10 s.
pub(crate) async fn until(
    t: &TestPlatform,
    token: &str,
    d: &Registered,
    what: &str,
    check: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let row = device(t, token, d).await;
        if check(&row) {
            return row;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}: {row}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

pub(crate) async fn events_of(t: &TestPlatform, tenant: &str) -> Vec<(EventKind, Value)> {
    // Ingest applies messages from its queue: give the last one a moment.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let log = EventLog::new(
        t.platform.store(),
        std::sync::Arc::new(alyt_domain::SystemClock),
    );
    let tenant: TenantId = tenant.parse().unwrap();
    let page = log.read_after(tenant, None, None, 1000).await.unwrap();
    page.events.into_iter().map(|e| (e.kind, e.data)).collect()
}

#[tokio::test]
async fn a_device_reports_drops_off_and_comes_back() {
    let t = TestPlatform::start().await;
    let token = owner_token(&t).await;
    let d = register_light(&t, &token).await;
    assert_eq!(
        device(&t, &token, &d).await["liveness"]["state"],
        "provisioning"
    );

    let (client, driver) = connect(&t, &d).await;
    client
        .publish(
            format!("{}/availability", d.prefix),
            QoS::AtLeastOnce,
            true,
            "online",
        )
        .await
        .unwrap();
    client
        .publish(
            format!("{}/status", d.prefix),
            QoS::AtLeastOnce,
            false,
            r#"{"light":{"power":true,"brightness":55},"features":["color_temp"]}"#,
        )
        .await
        .unwrap();
    // A payload that fails its schema is dropped and changes nothing.
    client
        .publish(
            format!("{}/telemetry", d.prefix),
            QoS::AtLeastOnce,
            false,
            "{\"metric\":\"\"}",
        )
        .await
        .unwrap();
    client
        .publish(
            format!("{}/telemetry", d.prefix),
            QoS::AtLeastOnce,
            false,
            r#"{"metrics":{"watts":6.5}}"#,
        )
        .await
        .unwrap();

    // The device row and its reported state are two reads, not one
    // snapshot: wait until both show the report.
    let row = until(&t, &token, &d, "the status report", |row| {
        row["reported"]["payload"]["light"]["brightness"] == 55 && row["features"] != json!([])
    })
    .await;
    assert_eq!(row["status"], "ONLINE");
    assert_eq!(row["liveness"]["state"], "online");
    assert_eq!(row["features"], json!(["color_temp"]));
    assert_eq!(row["thing"]["state"]["light.brightness"], 55);
    assert!(row["lastSeen"].is_string());

    // The socket drops without DISCONNECT: the broker publishes the last will.
    driver.abort();
    drop(client);
    let row = until(&t, &token, &d, "the last will", |row| {
        row["status"] == "OFFLINE"
    })
    .await;
    assert_eq!(row["liveness"]["state"], "offline");

    // Back again: any report brings it online.
    let (client, _driver) = connect(&t, &d).await;
    client
        .publish(
            format!("{}/status", d.prefix),
            QoS::AtLeastOnce,
            false,
            r#"{"light":{"power":false}}"#,
        )
        .await
        .unwrap();
    until(&t, &token, &d, "back online", |row| {
        row["status"] == "ONLINE"
    })
    .await;

    let events = events_of(&t, &d.tenant).await;
    let kinds: Vec<EventKind> = events
        .iter()
        .filter(|(k, _)| *k != EventKind::DeviceTelemetry)
        .map(|(k, _)| *k)
        .collect();
    assert_eq!(
        kinds,
        [
            EventKind::DeviceOnline,
            EventKind::DeviceOffline,
            EventKind::DeviceOnline
        ]
    );
    let offline = events
        .iter()
        .find(|(k, _)| *k == EventKind::DeviceOffline)
        .unwrap();
    assert_eq!(offline.1["reason"], "last-will");
    assert_eq!(offline.1["deviceId"], d.device.as_str());
    let telemetry: Vec<&Value> = events
        .iter()
        .filter(|(k, _)| *k == EventKind::DeviceTelemetry)
        .map(|(_, data)| data)
        .collect();
    assert_eq!(telemetry.len(), 1, "the malformed reading was dropped");
    assert_eq!(telemetry[0]["metrics"]["watts"], 6.5);
}

/// Writes one MQTT packet (3.1.1) on a raw socket.
async fn send_packet(
    socket: &mut tokio::net::TcpStream,
    write: impl FnOnce(&mut bytes::BytesMut) -> Result<usize, rumqttc::mqttbytes::Error>,
) {
    use tokio::io::AsyncWriteExt;
    let mut buffer = bytes::BytesMut::new();
    write(&mut buffer).unwrap();
    socket.write_all(&buffer).await.unwrap();
}

#[tokio::test]
async fn a_retransmitted_publish_counts_once() {
    use tokio::io::AsyncReadExt;
    let t = TestPlatform::start().await;
    let token = owner_token(&t).await;
    let d = register_light(&t, &token).await;
    // A device on a raw socket, so the test writes the retransmit itself:
    // the same QoS 1 publish again with DUP set and the same packet id, as a
    // device does when the PUBACK did not reach it.
    let mut socket = tokio::net::TcpStream::connect(t.platform.mqtt_addr)
        .await
        .unwrap();
    let mut connect = rumqttc::Connect::new(d.username.clone());
    connect.login = Some(rumqttc::Login::new(d.username.clone(), d.password.clone()));
    send_packet(&mut socket, |b| connect.write(b)).await;
    let mut connack = [0u8; 4];
    socket.read_exact(&mut connack).await.unwrap();
    assert_eq!(connack, [0x20, 2, 0, 0], "accepted");
    let reading = |value: f64, packet: u16, dup: bool| {
        let mut publish = rumqttc::Publish::new(
            format!("{}/telemetry", d.prefix),
            QoS::AtLeastOnce,
            json!({ "metric": "watts", "value": value, "payload": null }).to_string(),
        );
        publish.pkid = packet;
        publish.dup = dup;
        publish
    };
    let first = reading(7.5, 7, false);
    send_packet(&mut socket, |b| first.write(b)).await;
    let again = reading(7.5, 7, true);
    send_packet(&mut socket, |b| again.write(b)).await;
    // The next message (packet 7 acknowledged, so free again) is new.
    let next = reading(9.0, 7, false);
    send_packet(&mut socket, |b| next.write(b)).await;

    let path = format!(
        "/devices/{}/telemetry?tenantId={}&metric=watts&order=asc",
        d.device, d.tenant
    );
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let values = loop {
        let (status, page) = t.get_json(&path, Some(&token)).await;
        assert_eq!(status, 200, "{page}");
        let values: Vec<f64> = page["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["value"].as_f64().unwrap())
            .collect();
        if values.contains(&9.0) || tokio::time::Instant::now() > deadline {
            break values;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(values, [7.5, 9.0], "the retransmit is stored once");
    let telemetry: Vec<Value> = events_of(&t, &d.tenant)
        .await
        .into_iter()
        .filter(|(kind, _)| *kind == EventKind::DeviceTelemetry)
        .map(|(_, data)| data["metrics"]["watts"].clone())
        .collect();
    assert_eq!(telemetry, [json!(7.5), json!(9.0)], "one event each");
}

/// The demo home's hub, connected from this machine's loopback address: the
/// home's internet address is then known (the network condition's second
/// signal), so an owner may give a member `requireNetwork`. Keep the
/// returned device alive for as long as the hub should stay connected.
pub(crate) async fn connect_demo_hub(t: &TestPlatform, owner: &str) -> crate::rooms::Played {
    let first = t.platform.first_start.as_ref().unwrap();
    let (status, hub) = t
        .post_json(
            "/devices/register",
            Some(owner),
            json!({ "tenantId": first.tenant_id, "propertyId": first.property_id, "name": "Hub",
                    "kind": "HUB", "capabilities": ["HUB"], "serial": "SN-HUB-DEMO-1" }),
        )
        .await;
    assert_eq!(status, 201, "{hub}");
    let registered = Registered {
        tenant: first.tenant_id.to_string(),
        device: hub["device"]["id"].as_str().unwrap().to_owned(),
        prefix: hub["topicPrefix"].as_str().unwrap().to_owned(),
        username: hub["credentials"]["username"].as_str().unwrap().to_owned(),
        password: hub["credentials"]["password"].as_str().unwrap().to_owned(),
    };
    let device = crate::rooms::play(t, &registered).await;
    device
        .client
        .publish(
            format!("{}/availability", registered.prefix),
            QoS::AtLeastOnce,
            true,
            "online",
        )
        .await
        .unwrap();
    let store = t.platform.store();
    let tenancy = alyt_store::repo::tenancy::Tenancy(&*store);
    for _ in 0..200 {
        if tenancy
            .home_address(first.property_id)
            .await
            .unwrap()
            .is_some()
        {
            return device;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the hub's connection never showed the home's address");
}

/// A graceful stop stores every device message the broker acknowledged. A
/// device publishes a burst at QoS 1; as soon as the last PUBACK arrives the
/// platform is stopped and started again on its data: every acknowledged
/// message is a `device.telemetry` event, none twice. (Before, ingest left at
/// the stop signal with acknowledged messages still queued.)
#[tokio::test]
async fn a_graceful_stop_stores_every_acknowledged_message() {
    const BURST: usize = 800;
    let t = TestPlatform::start().await;
    let token = owner_token(&t).await;
    let d = register_light(&t, &token).await;
    let addr = t.platform.mqtt_addr;
    let mut options = MqttOptions::new(&d.username, addr.ip().to_string(), addr.port());
    options.set_credentials(&d.username, &d.password);
    options.set_keep_alive(Duration::from_secs(30));
    let (client, mut events) = AsyncClient::new(options, BURST);
    let (acked_tx, mut acked) = tokio::sync::watch::channel(0usize);
    let driver = tokio::spawn(async move {
        let mut count = 0;
        loop {
            match events.poll().await {
                Ok(Event::Incoming(Packet::PubAck(_))) => {
                    count += 1;
                    let _ = acked_tx.send(count);
                }
                Ok(_) => {}
                Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        }
    });
    for n in 0..BURST {
        client
            .publish(
                format!("{}/telemetry", d.prefix),
                QoS::AtLeastOnce,
                false,
                format!(r#"{{"metrics":{{"watts":{n}}}}}"#),
            )
            .await
            .unwrap();
    }
    tokio::time::timeout(Duration::from_secs(30), acked.wait_for(|n| *n == BURST))
        .await
        .expect("every message acknowledged")
        .unwrap();
    let t = t.restart().await;
    driver.abort();
    let telemetry: Vec<i64> = events_of(&t, &d.tenant)
        .await
        .into_iter()
        .filter(|(kind, _)| *kind == EventKind::DeviceTelemetry)
        .filter_map(|(_, data)| data["metrics"]["watts"].as_f64().map(|w| w as i64))
        .collect();
    let distinct: std::collections::BTreeSet<i64> = telemetry.iter().copied().collect();
    assert_eq!(telemetry.len(), distinct.len(), "none stored twice");
    assert_eq!(
        distinct.len(),
        BURST,
        "every acknowledged message is stored"
    );
}
