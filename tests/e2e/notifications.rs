//! A household's notifications: a device publishes on its alerts channel,
//! and the household reads the notification (newest first, paginated); a
//! guest, a key without notifications:read and another tenant do not.

use std::time::Duration;

use alyt_tests::TestPlatform;
use alyt_tests::developers::create_key;
use alyt_tests::principals::{Principals, Who};
use rumqttc::QoS;
use serde_json::Value;

use crate::device_plane::{connect, owner_token, register_light};

async fn list_until(t: &TestPlatform, token: &str, path: &str, count: usize) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (status, body) = t.get_json(path, Some(token)).await;
        assert_eq!(status, 200, "{body}");
        if body["items"].as_array().unwrap().len() >= count {
            return body;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "only {body} after 10 s"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn device_alerts_are_listed_for_the_household_newest_first() {
    let t = TestPlatform::start().await;
    let principals = Principals::seed(&t).await;
    let owner = owner_token(&t).await;
    let d = register_light(&t, &owner).await;
    let first = t.platform.first_start.as_ref().unwrap();
    let (tenant, home) = (first.tenant_id.to_string(), first.property_id.to_string());
    let (client, driver) = connect(&t, &d).await;
    for (condition, message) in [
        ("overheat", "The lamp is too hot"),
        ("flicker", "The lamp flickers"),
    ] {
        client
            .publish(
                format!("{}/alerts", d.prefix),
                QoS::AtLeastOnce,
                false,
                format!(r#"{{"condition":"{condition}","message":"{message}"}}"#),
            )
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    let member = principals.token(Who::HouseholdMember).unwrap();
    let all = list_until(&t, member, &format!("/notifications?tenantId={tenant}"), 2).await;
    let items = all["items"].as_array().unwrap();
    assert_eq!(items.len(), 2, "{all}");
    assert_eq!(
        items[0]["title"], "Kitchen light: flicker",
        "newest first: {all}"
    );
    assert_eq!(items[1]["title"], "Kitchen light: overheat");
    assert_eq!(items[1]["body"], "The lamp is too hot");
    assert_eq!(items[0]["kind"], "device.alert");
    assert_eq!(items[0]["deviceId"], d.device.as_str());
    assert_eq!(items[0]["propertyId"], home.as_str());
    assert_eq!(items[0]["tenantId"], tenant.as_str());

    // One home, one page at a time.
    let path = format!("/notifications?tenantId={tenant}&propertyId={home}&limit=1");
    let (status, page) = t.get_json(&path, Some(&owner)).await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["items"][0]["title"], "Kitchen light: flicker");
    let cursor = page["nextCursor"].as_str().unwrap().to_owned();
    let (_, next) = t
        .get_json(&format!("{path}&cursor={cursor}"), Some(&owner))
        .await;
    assert_eq!(
        next["items"][0]["title"], "Kitchen light: overheat",
        "{next}"
    );
    // A cursor of the tenant list does not page the home list.
    let (_, tenant_page) = t
        .get_json(
            &format!("/notifications?tenantId={tenant}&limit=1"),
            Some(&owner),
        )
        .await;
    let tenant_cursor = tenant_page["nextCursor"].as_str().unwrap().to_owned();
    let (status, problem) = t
        .get_json(&format!("{path}&cursor={tenant_cursor}"), Some(&owner))
        .await;
    assert_eq!(status, 400);
    assert_eq!(problem["field"], "cursor");

    // A guest controls the home but does not read its notifications.
    let guest = principals.token(Who::HouseholdGuest).unwrap();
    let (status, _) = t
        .get_json(&format!("/notifications?tenantId={tenant}"), Some(guest))
        .await;
    assert_eq!(status, 403);
    // A key needs notifications:read (before anything else is looked at).
    let (_, reader) = create_key(&t, &principals.developer, &["devices:read"]).await;
    let (status, _) = t
        .get_json(&format!("/notifications?tenantId={tenant}"), Some(&reader))
        .await;
    assert_eq!(status, 403);
    // The developer's sandbox session sees nothing of this tenant: 404.
    let (status, _) = t
        .get_json(
            &format!("/notifications?tenantId={tenant}"),
            Some(&principals.developer.access_token),
        )
        .await;
    assert_eq!(status, 404);
    // An unknown home of the tenant is missing too.
    let (status, _) = t
        .get_json(
            &format!(
                "/notifications?tenantId={tenant}&propertyId=0190b5a0-0000-7000-8000-000000000000"
            ),
            Some(&owner),
        )
        .await;
    assert_eq!(status, 404);
    driver.abort();
}
