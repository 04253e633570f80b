//! A device after registration, over real HTTP and a real MQTT client:
//! credential rotation, a warranty replacement (a new board of the same
//! device) and deletion (a hub takes its children with it).

use std::time::Duration;

use alyt_tests::TestPlatform;
use reqwest::StatusCode;
use rumqttc::QoS;
use serde_json::{Value, json};

use crate::device_plane::{Registered, owner_token, register_light, try_connect, until};

async fn post(t: &TestPlatform, token: &str, path: &str, body: Value) -> (u16, Value) {
    t.post_json(path, Some(token), body).await
}

async fn delete(t: &TestPlatform, token: &str, path: &str) -> u16 {
    t.http
        .delete(t.url(path))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

fn with_credentials(d: &Registered, body: &Value) -> Registered {
    Registered {
        tenant: d.tenant.clone(),
        device: d.device.clone(),
        prefix: body["topicPrefix"].as_str().unwrap().to_owned(),
        username: body["credentials"]["username"].as_str().unwrap().to_owned(),
        password: body["credentials"]["password"].as_str().unwrap().to_owned(),
    }
}

async fn logs_in(t: &TestPlatform, d: &Registered) -> bool {
    match try_connect(t, &d.username, &d.password, &d.prefix).await {
        Some((client, driver)) => {
            let _ = client.disconnect().await;
            tokio::time::sleep(Duration::from_millis(50)).await;
            driver.abort();
            true
        }
        None => false,
    }
}

#[tokio::test]
async fn rotating_credentials_locks_out_the_old_secret_and_closes_its_session() {
    let t = TestPlatform::start().await;
    let token = owner_token(&t).await;
    let old = register_light(&t, &token).await;
    let (client, driver) = try_connect(&t, &old.username, &old.password, &old.prefix)
        .await
        .expect("the first credentials log in");
    client
        .publish(
            format!("{}/status", old.prefix),
            QoS::AtLeastOnce,
            false,
            r#"{"light":{"power":true}}"#,
        )
        .await
        .unwrap();
    until(&t, &token, &old, "the first report", |d| {
        d["status"] == "ONLINE"
    })
    .await;

    let (status, body) = post(
        &t,
        &token,
        &format!(
            "/devices/{}/credentials?tenantId={}",
            old.device, old.tenant
        ),
        json!({}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["credentials"]["kind"], "password");
    assert_eq!(body["device"]["id"], old.device.as_str());
    let new = with_credentials(&old, &body);
    assert_ne!(new.password, old.password);

    // The open session was closed by the platform: the will fires.
    until(&t, &token, &old, "the old session to be closed", |d| {
        d["status"] == "OFFLINE"
    })
    .await;
    driver.abort();
    assert!(!logs_in(&t, &old).await, "the old password is refused");
    assert!(logs_in(&t, &new).await, "the new password logs in");
}

#[tokio::test]
async fn a_warranty_replacement_is_a_new_unit_of_the_same_device() {
    let t = TestPlatform::start().await;
    let token = owner_token(&t).await;
    let old = register_light(&t, &token).await;
    let path = format!("/devices/{}/units?tenantId={}", old.device, old.tenant);

    let (status, body) = post(&t, &token, &path, json!({ "serial": "" })).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["field"], "serial");
    // The old board's serial is its own: it cannot come back as a new board.
    let (status, body) = post(&t, &token, &path, json!({ "serial": "SN-PLANE-0001" })).await;
    assert_eq!(status, 409, "{body}");

    let (status, body) = post(
        &t,
        &token,
        &path,
        json!({ "serial": "SN-PLANE-0002", "model": "L2", "macAddress": "aa-bb-cc-dd-ee-ff" }),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let row = &body["device"];
    assert_eq!(row["id"], old.device.as_str(), "the same device");
    assert_eq!(row["status"], "PROVISIONING");
    assert_eq!(row["currentUnit"]["serial"], "SN-PLANE-0002");
    assert_eq!(row["currentUnit"]["macAddress"], "AA:BB:CC:DD:EE:FF");
    assert_eq!(row["currentUnitId"], row["currentUnit"]["id"]);
    let new = with_credentials(&old, &body);

    assert!(!logs_in(&t, &old).await, "the old board is locked out");
    let (client, driver) = try_connect(&t, &new.username, &new.password, &new.prefix)
        .await
        .expect("the new board logs in");
    client
        .publish(
            format!("{}/status", new.prefix),
            QoS::AtLeastOnce,
            false,
            r#"{"light":{"power":false}}"#,
        )
        .await
        .unwrap();
    until(&t, &token, &new, "the new board's report", |d| {
        d["status"] == "ONLINE" && d["currentUnit"]["serial"] == "SN-PLANE-0002"
    })
    .await;
    driver.abort();

    // The new serial is taken now, by this device.
    let first = t.platform.first_start.as_ref().unwrap();
    let (status, _) = post(
        &t,
        &token,
        "/devices/register",
        json!({
            "tenantId": first.tenant_id, "propertyId": first.property_id,
            "name": "Copy", "kind": "OTHER", "capabilities": ["LIGHT"], "serial": "SN-PLANE-0002",
        }),
    )
    .await;
    assert_eq!(status, 409);
}

#[tokio::test]
async fn deleting_a_hub_deletes_its_children_and_frees_its_serial() {
    let t = TestPlatform::start().await;
    let token = owner_token(&t).await;
    let first = t.platform.first_start.as_ref().unwrap();
    let register = |body: Value| {
        let t = &t;
        let token = &token;
        async move {
            let (status, body) = post(t, token, "/devices/register", body).await;
            assert_eq!(status, 201, "{body}");
            body
        }
    };
    let hub = register(json!({
        "tenantId": first.tenant_id, "propertyId": first.property_id,
        "name": "Hub", "kind": "HUB", "capabilities": ["HUB"], "serial": "SN-HUB-1",
    }))
    .await;
    let hub_id = hub["device"]["id"].as_str().unwrap().to_owned();
    // The hub pairs a child and reports it; the child has no login of its own.
    let hub_login = Registered {
        tenant: first.tenant_id.to_string(),
        device: hub_id.clone(),
        prefix: hub["topicPrefix"].as_str().unwrap().to_owned(),
        username: hub["credentials"]["username"].as_str().unwrap().to_owned(),
        password: hub["credentials"]["password"].as_str().unwrap().to_owned(),
    };
    let (client, driver) = crate::device_plane::connect(&t, &hub_login).await;
    client
        .publish(
            format!("{}/events", hub_login.prefix),
            rumqttc::QoS::AtLeastOnce,
            false,
            json!({
                "type": "child.paired", "protocol": "ZIGBEE", "protocolId": "0x4a21",
                "name": "Door sensor", "kind": "SENSOR", "capabilities": ["SENSOR"],
            })
            .to_string(),
        )
        .await
        .unwrap();
    let tenant = first.tenant_id;
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    let child_id = loop {
        let (_, list) = t
            .get_json(
                &format!("/devices?tenantId={tenant}&limit=200"),
                Some(&token),
            )
            .await;
        let child = list["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["parentDeviceId"] == hub_id.as_str())
            .map(|d| d["id"].as_str().unwrap().to_owned());
        if let Some(child) = child {
            break child;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the hub's child: {list}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    driver.abort();
    let other = register(json!({
        "tenantId": first.tenant_id, "propertyId": first.property_id,
        "name": "Lamp", "kind": "OTHER", "capabilities": ["LIGHT"], "serial": "SN-LAMP-1",
    }))
    .await;
    let other_id = other["device"]["id"].as_str().unwrap().to_owned();
    let child_login = Registered {
        tenant: first.tenant_id.to_string(),
        device: child_id.clone(),
        prefix: format!("alyt/{tenant}/{}/{child_id}", first.property_id),
        username: child_id.clone(),
        password: hub_login.password.clone(),
    };
    assert!(!logs_in(&t, &child_login).await, "a child has no login");

    assert_eq!(
        delete(&t, &token, &format!("/devices/{hub_id}?tenantId={tenant}")).await,
        StatusCode::NO_CONTENT.as_u16()
    );
    for gone in [&hub_id, &child_id] {
        let (status, _) = t
            .get_json(&format!("/devices/{gone}?tenantId={tenant}"), Some(&token))
            .await;
        assert_eq!(status, 404, "{gone} is gone");
    }
    let (_, list) = t
        .get_json(
            &format!("/devices?tenantId={tenant}&limit=200"),
            Some(&token),
        )
        .await;
    let ids: Vec<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&other_id.as_str()), "other devices stay");
    assert!(!ids.contains(&hub_id.as_str()) && !ids.contains(&child_id.as_str()));
    // Deleting again finds nothing.
    assert_eq!(
        delete(&t, &token, &format!("/devices/{hub_id}?tenantId={tenant}")).await,
        404
    );
    // The boards can be registered again (e.g. sold on).
    register(json!({
        "tenantId": first.tenant_id, "propertyId": first.property_id,
        "name": "Hub again", "kind": "HUB", "capabilities": ["HUB"], "serial": "SN-HUB-1",
    }))
    .await;
}
