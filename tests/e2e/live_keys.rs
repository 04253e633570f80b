//! A LIVE key acts only for its own installed connector, seen from outside
//! with real objects: one tenant (a developer's sandbox) holds two
//! households; the first installed the key's connector, the second another
//! connector. The key reads, refreshes and commands the endpoints of its own
//! connector's integration, and nothing else: not the other integration or
//! its endpoints, no device, no home, room, person or notification of either
//! household, however many scopes it holds; its event stream and its
//! webhook endpoint hear only the events about its own integration.

use std::time::Duration;

use alyt_domain::ids::UserId;
use alyt_store::repo::tenancy::{NewHome, Tenancy, new_home_writes};
use alyt_tests::TestPlatform;
use alyt_tests::developers::issue_live_key;
use alyt_tests::webhooks::{Receiver, SseReader};
use serde_json::{Value, json};

use crate::endpoints::{endpoints_by_name, install, install_into, serve_bridge, serve_bridge_as};

const ON: &str = r#"{"command":"set","payload":{"capability":"light","key":"power","value":true}}"#;

#[tokio::test]
async fn a_live_key_reaches_only_its_connectors_integrations_and_their_endpoints() {
    let t = TestPlatform::start().await;
    // Household A (the sandbox's own) installs the key's connector.
    let mine = install(&t, serve_bridge(&t, "live-reach@example.com").await).await;
    let tenant = mine.tenant.clone();
    let developer = mine.developer.clone();
    // Household B in the same tenant, seeded as the tenant's operator would
    // (no operation creates households), installs another connector.
    let now = time::OffsetDateTime::now_utc();
    let (second, writes) = new_home_writes(NewHome {
        tenant_id: tenant.parse().unwrap(),
        household: "Second household",
        household_email: None,
        home: "Second home",
        timezone: "UTC",
        rooms: &["Hall", "Kitchen"],
        owner: developer.user_id.parse::<UserId>().unwrap(),
        now,
    })
    .unwrap();
    Tenancy(&*t.platform.store())
        .create_all(writes)
        .await
        .expect("seed the second household");
    let other_served = serve_bridge_as(&t, developer.clone(), "live-reach-other").await;
    let other = install_into(&t, other_served, second.property.id.to_string()).await;

    let (owner_email, owner_password) = t.owner();
    let staff = t.household_login(&owner_email, &owner_password).await["accessToken"]
        .as_str()
        .unwrap()
        .to_owned();
    let every_scope: Vec<&str> = alyt_domain::access::Scope::ALL
        .iter()
        .map(|s| s.as_str())
        .collect();
    alyt_tests::developers::approve_connector(&t, &staff, &developer, &mine.connector).await;
    let live = issue_live_key(
        &t,
        &staff,
        &developer.developer_id,
        &every_scope,
        &mine.connector,
    )
    .await;
    let key = live["secret"].as_str().unwrap().to_owned();
    // The one form of every key's secret: what follows proves the record,
    // not the text, makes it LIVE.
    assert!(key.starts_with("svc_dev_"), "{key}");

    let my_endpoints = endpoints_by_name(&t, &mine).await;
    let lamp = my_endpoints["Hall lamp"]["id"].as_str().unwrap().to_owned();
    let other_endpoints = endpoints_by_name(&t, &other).await;
    let other_lamp = other_endpoints["Hall lamp"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (_, devices) = t
        .get_json(
            &format!("/devices?tenantId={tenant}"),
            Some(&developer.access_token),
        )
        .await;
    let device = devices["items"][0]["id"].as_str().unwrap().to_owned();
    let (_, rooms) = t
        .get_json(
            &format!("/rooms?tenantId={tenant}&propertyId={}", mine.property),
            Some(&developer.access_token),
        )
        .await;
    let room = rooms["items"][0]["id"].as_str().unwrap().to_owned();
    let household_a = alyt_tests::developers::sandbox_home(&t, &developer)
        .await
        .client_id;

    // The integration list names its own integration only.
    let (status, list) = t
        .get_json(&format!("/integrations?tenantId={tenant}"), Some(&key))
        .await;
    assert_eq!(status, 200, "{list}");
    let ids: Vec<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [mine.integration.as_str()], "{list}");

    let q = format!("tenantId={tenant}");
    let cases: Vec<(&str, String, Option<Value>, u16)> = vec![
        // Its own integration and endpoints: read, refresh, command.
        (
            "GET",
            format!("/integrations/{}?{q}", mine.integration),
            None,
            200,
        ),
        (
            "GET",
            format!("/integrations/{}/endpoints?{q}", mine.integration),
            None,
            200,
        ),
        ("GET", format!("/endpoints/{lamp}?{q}"), None, 200),
        (
            "POST",
            format!("/endpoints/{lamp}/refresh?{q}"),
            Some(json!({})),
            200,
        ),
        (
            "POST",
            format!("/endpoints/{lamp}/commands?{q}"),
            Some(serde_json::from_str(ON).unwrap()),
            200,
        ),
        // ... but never configures them.
        (
            "PATCH",
            format!("/endpoints/{lamp}?{q}"),
            Some(json!({ "presentedAs": "switch" })),
            403,
        ),
        (
            "DELETE",
            format!("/integrations/{}?{q}", mine.integration),
            None,
            403,
        ),
        (
            "POST",
            format!("/integrations/{}/discover", mine.integration),
            Some(json!({ "tenantId": tenant, "propertyId": mine.property })),
            403,
        ),
        (
            "POST",
            "/integrations".into(),
            Some(
                json!({ "tenantId": tenant, "propertyId": second.property.id, "connectorId": mine.connector, "input": {} }),
            ),
            403,
        ),
        // Another integration of the same tenant, and its endpoints, do not exist for it.
        (
            "GET",
            format!("/integrations/{}?{q}", other.integration),
            None,
            404,
        ),
        (
            "GET",
            format!("/integrations/{}/endpoints?{q}", other.integration),
            None,
            404,
        ),
        ("GET", format!("/endpoints/{other_lamp}?{q}"), None, 404),
        (
            "POST",
            format!("/endpoints/{other_lamp}/refresh?{q}"),
            Some(json!({})),
            404,
        ),
        (
            "POST",
            format!("/endpoints/{other_lamp}/commands?{q}"),
            Some(serde_json::from_str(ON).unwrap()),
            404,
        ),
        // No device, home, room, person or notification of either household.
        ("GET", format!("/devices?{q}"), None, 403),
        ("GET", format!("/devices/{device}?{q}"), None, 403),
        (
            "POST",
            format!("/devices/{device}/commands?{q}"),
            Some(json!({ "command": "identify", "payload": null })),
            403,
        ),
        (
            "GET",
            format!("/developers/simulator/devices?{q}"),
            None,
            403,
        ),
        ("GET", format!("/properties?{q}"), None, 403),
        (
            "GET",
            format!("/properties/{}/overview?{q}", mine.property),
            None,
            403,
        ),
        (
            "GET",
            format!("/properties/{}/overview?{q}", second.property.id),
            None,
            403,
        ),
        (
            "POST",
            format!("/properties/{}/refresh?{q}", mine.property),
            Some(json!({})),
            403,
        ),
        (
            "POST",
            format!("/properties/{}/actions", second.property.id),
            Some(
                json!({ "tenantId": tenant, "capability": "light", "action": "lights", "value": true }),
            ),
            403,
        ),
        (
            "GET",
            format!("/rooms?{q}&propertyId={}", mine.property),
            None,
            403,
        ),
        ("GET", format!("/rooms/{room}?{q}"), None, 403),
        (
            "POST",
            format!("/rooms/{room}/actions"),
            Some(
                json!({ "tenantId": tenant, "capability": "light", "action": "lights", "value": true }),
            ),
            403,
        ),
        ("GET", format!("/notifications?{q}"), None, 403),
        (
            "GET",
            format!("/tenants/{tenant}/clients/{household_a}/members"),
            None,
            403,
        ),
        (
            "GET",
            format!("/tenants/{tenant}/clients/{}/members", second.client.id),
            None,
            403,
        ),
    ];
    let mut failures = Vec::new();
    for (method, path, body, expected) in cases {
        let (status, answer) = t.send_json(method, &path, Some(&key), body).await;
        if status != expected {
            failures.push(format!(
                "{method} {path}: got {status}, expected {expected}: {answer}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "LIVE key reach:\n{}",
        failures.join("\n")
    );

    // Events: a webhook bound to the key and the key's stream hear the
    // state of its own lamp, never the other lamp's, nor the virtual
    // devices' traffic of the same tenant.
    let receiver = Receiver::start(std::sync::Arc::new(alyt_domain::SystemClock)).await;
    let (status, hook) = t
        .post_json(
            "/developers/webhooks",
            Some(&key),
            json!({ "url": receiver.url(), "events": ["thing.state", "device.telemetry", "device.online", "notification.raised"] }),
        )
        .await;
    assert_eq!(status, 201, "{hook}");
    receiver.set_secret(hook["secret"].as_str().unwrap());
    let response = t
        .http
        .get(t.url("/developers/events/stream"))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let mut stream = SseReader::new(response);
    // The other household's lamp changes first, then the key's own.
    for (endpoint, value) in [(&other_lamp, true), (&lamp, false)] {
        let (status, answer) = t
            .post_json(
                &format!("/endpoints/{endpoint}/commands?{q}"),
                Some(&developer.access_token),
                json!({ "command": "set", "payload": { "capability": "light", "key": "power", "value": value } }),
            )
            .await;
        assert_eq!(status, 200, "{answer}");
    }
    // From the start of the log: every event it hears is about its own
    // integration, up to the lamp going off.
    let mut heard = Vec::new();
    while !heard.iter().any(|(_, _, e): &(String, String, Value)| {
        e["data"]["endpointId"] == lamp.as_str() && e["data"]["state"]["light"]["power"] == false
    }) {
        let next = stream.events(1, Duration::from_secs(15)).await;
        assert!(
            !next.is_empty(),
            "the stream heard its own lamp go off: {heard:?}"
        );
        heard.extend(next);
    }
    for (kind, _, envelope) in &heard {
        assert_eq!(kind, "thing.state", "{envelope}");
        assert_eq!(
            envelope["data"]["integrationId"],
            mine.integration.as_str(),
            "{envelope}"
        );
    }
    receiver
        .until(Duration::from_secs(15), |s| {
            s.iter()
                .any(|x| x.envelope["data"]["endpointId"] == lamp.as_str())
        })
        .await;
    // A moment more for anything that should not come.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let seen = receiver.seen();
    for delivery in &seen {
        assert!(delivery.verified);
        assert_eq!(
            delivery.event_header, "thing.state",
            "{:?}",
            delivery.envelope
        );
        assert_eq!(
            delivery.envelope["data"]["integrationId"],
            mine.integration.as_str(),
            "{:?}",
            delivery.envelope
        );
    }
    let more = stream.events(5, Duration::from_secs(2)).await;
    assert!(
        more.iter()
            .all(|(_, _, e)| e["data"]["integrationId"] == mine.integration.as_str()),
        "{more:?}"
    );
}
