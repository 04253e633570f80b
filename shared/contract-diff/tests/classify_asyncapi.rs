//! The AsyncAPI classifier on the broker's own committed document, changed
//! on purpose in each way that makes a major, minor or patch change.

use alyt_contract_diff::{Change, check_version, classify_asyncapi};
use serde_json::{Value, json};

fn broker() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../api/contract/asyncapi.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn payload<'a>(doc: &'a mut Value, message: &str) -> &'a mut Value {
    &mut doc["components"]["messages"][message]["payload"]
}

fn change(old: &Value, new: &Value) -> Change {
    let report = classify_asyncapi(old, new);
    println!("{report:?}");
    report.change()
}

#[test]
fn the_same_document_is_no_change_and_prose_a_patch() {
    let old = broker();
    assert_eq!(change(&old, &old), Change::None);
    let mut new = old.clone();
    new["components"]["messages"]["telemetry"]["summary"] = json!("Readings, told differently.");
    assert_eq!(change(&old, &new), Change::Patch);
}

#[test]
fn a_channel_or_operation_removed_or_moved_is_major() {
    let old = broker();
    let mut removed = old.clone();
    removed["channels"]
        .as_object_mut()
        .unwrap()
        .remove("alerts");
    removed["operations"]
        .as_object_mut()
        .unwrap()
        .remove("sendAlerts");
    assert_eq!(change(&old, &removed), Change::Major);

    let mut moved = old.clone();
    moved["channels"]["telemetry"]["address"] = json!("alyt/{tenantId}/{deviceId}/telemetry");
    assert_eq!(change(&old, &moved), Change::Major);

    let mut turned = old.clone();
    turned["operations"]["receiveCommands"]["action"] = json!("send");
    assert_eq!(change(&old, &turned), Change::Major);
}

/// What a device sends is compared as a request: accepting less of it is
/// major. What the platform sends (commands) as an answer: a field devices
/// read, removed, is major.
#[test]
fn payloads_are_compared_from_the_side_that_reads_them() {
    let old = broker();
    let mut tighter = old.clone();
    payload(&mut tighter, "telemetry")["oneOf"][0]["properties"]["metric"]["maxLength"] = json!(16);
    assert_eq!(change(&old, &tighter), Change::Major);

    let mut looser = old.clone();
    payload(&mut looser, "telemetry")["oneOf"][0]["properties"]["metric"]["maxLength"] = json!(128);
    assert_eq!(change(&old, &looser), Change::Minor);

    let mut fewer = old.clone();
    let command = payload(&mut fewer, "commands");
    command["properties"]
        .as_object_mut()
        .unwrap()
        .remove("commandId");
    command["required"] = json!(["command", "payload"]);
    assert_eq!(change(&old, &fewer), Change::Major);
}

#[test]
fn a_channel_added_is_minor_and_the_version_moves_with_it() {
    let old = broker();
    let mut new = old.clone();
    new["channels"]["diagnostics"] = old["channels"]["events"].clone();
    new["channels"]["diagnostics"]["address"] =
        json!("alyt/{tenantId}/{propertyId}/{deviceId}/diagnostics");
    new["operations"]["sendDiagnostics"] = json!({
        "action": "send",
        "channel": { "$ref": "#/channels/diagnostics" },
    });
    let report = classify_asyncapi(&old, &new);
    assert_eq!(report.change(), Change::Minor, "{report:?}");
    new["info"]["version"] = json!("0.1.1");
    assert!(check_version(&old, &new, &report).is_err());
    new["info"]["version"] = json!("0.2.0");
    assert!(check_version(&old, &new, &report).is_ok());
}
