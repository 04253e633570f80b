//! PATCH /v1/devices/{deviceId}/settings: settings per capability, checked
//! against the capabilities the device reports, and who may change them.

use alyt_tests::principals::{Principals, Who};
use alyt_tests::{TestPlatform, without_request_id};
use serde_json::{Value, json};

const MISSING: &str = "0190b5a0-0000-7000-8000-000000000000";

fn ids(t: &TestPlatform) -> (String, String) {
    let first = t.platform.first_start.as_ref().unwrap();
    (first.tenant_id.to_string(), first.property_id.to_string())
}

async fn owner_token(t: &TestPlatform) -> String {
    let (email, password) = t.owner();
    t.household_login(&email, &password).await["accessToken"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Registers a LIGHT + ENERGY device in the first home; its id.
async fn register(t: &TestPlatform, token: &str, serial: &str) -> String {
    let (tenant, property) = ids(t);
    let (status, body) = t
        .post_json(
            "/devices/register",
            Some(token),
            json!({
                "tenantId": tenant,
                "propertyId": property,
                "name": "Desk lamp",
                "kind": "OTHER",
                "capabilities": ["LIGHT", "ENERGY"],
                "serial": serial,
            }),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    body["device"]["id"].as_str().unwrap().to_owned()
}

async fn patch(
    t: &TestPlatform,
    token: Option<&str>,
    device: &str,
    tenant: &str,
    body: Value,
) -> (u16, Value) {
    let mut request = t
        .http
        .patch(t.url(&format!("/devices/{device}/settings?tenantId={tenant}")))
        .json(&body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn settings_merge_per_capability_and_show_on_the_row() {
    let t = TestPlatform::start().await;
    let owner = owner_token(&t).await;
    let (tenant, _) = ids(&t);
    let device = register(&t, &owner, "SN-SETTINGS-1").await;

    let (status, row) = patch(
        &t,
        Some(&owner),
        &device,
        &tenant,
        json!({ "byCapability": { "light": { "defaultBrightness": 60, "fade": true } } }),
    )
    .await;
    assert_eq!(status, 200, "{row}");
    let settings = &row["settings"];
    assert_eq!(settings["deviceId"], device.as_str());
    assert_eq!(settings["enabled"], true);
    assert_eq!(
        settings["byCapability"],
        json!({ "light": { "defaultBrightness": 60, "fade": true } })
    );
    assert!(settings["updatedAt"].is_string());
    assert_eq!(row["updatedAt"], settings["updatedAt"]);
    assert_eq!(row["thing"]["settings"], settings["byCapability"]);

    // A second patch merges: other capabilities and other keys stay; null removes.
    let (status, row) = patch(
        &t,
        Some(&owner),
        &device,
        &tenant,
        json!({
            "byCapability": {
                "energy": { "reportEverySeconds": 60 },
                "light": { "fade": null, "defaultBrightness": 80 },
            },
            "enabled": false,
        }),
    )
    .await;
    assert_eq!(status, 200, "{row}");
    assert_eq!(
        row["settings"]["byCapability"],
        json!({
            "light": { "defaultBrightness": 80 },
            "energy": { "reportEverySeconds": 60 },
        })
    );
    assert_eq!(row["settings"]["enabled"], false);

    // And it is stored: GET shows the same.
    let (status, read) = t
        .get_json(
            &format!("/devices/{device}?tenantId={tenant}"),
            Some(&owner),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(read["settings"], row["settings"]);
}

#[tokio::test]
async fn a_capability_the_device_lacks_or_a_non_object_is_400_and_changes_nothing() {
    let t = TestPlatform::start().await;
    let owner = owner_token(&t).await;
    let (tenant, _) = ids(&t);
    let device = register(&t, &owner, "SN-SETTINGS-2").await;

    for (body, field) in [
        (
            json!({ "byCapability": { "thermostat": { "eco": true } } }),
            "byCapability.thermostat",
        ),
        (
            json!({ "byCapability": { "LIGHT": {} } }),
            "byCapability.LIGHT",
        ),
        (
            json!({ "byCapability": { "hologram": {} } }),
            "byCapability.hologram",
        ),
        (
            json!({ "byCapability": { "light": 5 } }),
            "byCapability.light",
        ),
        (
            json!({ "byCapability": { "light": [1] } }),
            "byCapability.light",
        ),
        (
            json!({ "byCapability": { "light": { "a": 1 }, "fan": {} } }),
            "byCapability.fan",
        ),
    ] {
        let (status, problem) = patch(&t, Some(&owner), &device, &tenant, body.clone()).await;
        assert_eq!(status, 400, "{body}: {problem}");
        assert_eq!(problem["field"], field, "{body}: {problem}");
    }
    for body in [
        json!({}),
        json!({ "byCapability": [] }),
        json!({ "byCapability": {}, "x": 1 }),
    ] {
        let (status, problem) = patch(&t, Some(&owner), &device, &tenant, body.clone()).await;
        assert_eq!(status, 400, "{body}: {problem}");
    }
    let (_, read) = t
        .get_json(
            &format!("/devices/{device}?tenantId={tenant}"),
            Some(&owner),
        )
        .await;
    assert_eq!(read["settings"], Value::Null);
}

#[tokio::test]
async fn who_may_change_settings() {
    let t = TestPlatform::start().await;
    let principals = Principals::seed(&t).await;
    let owner = owner_token(&t).await;
    let (tenant, _) = ids(&t);
    let device = register(&t, &owner, "SN-SETTINGS-3").await;
    let body = json!({ "byCapability": { "light": { "n": 1 } } });

    let mut failures = Vec::new();
    for who in Who::ALL {
        let expected = match who {
            Who::Anonymous
            | Who::Garbage
            | Who::ExpiredToken
            | Who::WrongKindToken
            | Who::RevokedKey => 401,
            Who::PlatformOwner
            | Who::PlatformStaff
            | Who::TenantAdmin
            | Who::TenantInstaller
            | Who::HouseholdOwner => 200,
            Who::PlatformSupport | Who::HouseholdMember | Who::HouseholdGuest => 403,
            // The developer and its keys reach only their sandbox: the demo
            // tenant's device does not exist for them.
            Who::DeveloperSession | Who::DevKey | Who::LiveKey => 404,
            // Away from the home, the household is not theirs now.
            Who::ConditionalMember => 404,
            // A widget controls things; settings are not control.
            Who::WidgetToken => 403,
        };
        let token = principals.token(who);
        let (status, answer) = patch(&t, token, &device, &tenant, body.clone()).await;
        if status != expected {
            failures.push(format!(
                "{who:?}: got {status}, expected {expected}: {answer}"
            ));
        }
        if expected == 404 {
            // Exactly like a device that does not exist.
            let (missing_status, missing) = patch(&t, token, MISSING, &tenant, body.clone()).await;
            if (status, without_request_id(answer)) != (missing_status, without_request_id(missing))
            {
                failures.push(format!(
                    "{who:?}: a foreign device answers unlike a missing one"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
