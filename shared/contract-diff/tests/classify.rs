//! The classifier on the API's own committed contract, changed on purpose in
//! each way that makes a major, minor or patch change, and the version check
//! that CI applies to it.

use alyt_contract_diff::{Change, check_version, classify};
use serde_json::{Value, json};

fn contract() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../api/contract/openapi.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn with_version(mut doc: Value, version: &str) -> Value {
    doc["info"]["version"] = json!(version);
    doc
}

/// A schema the contract defines, by name.
fn schema<'a>(doc: &'a mut Value, name: &str) -> &'a mut Value {
    &mut doc["components"]["schemas"][name]
}

#[test]
fn the_same_document_is_no_change_and_keeps_its_version() {
    let old = contract();
    let report = classify(&old, &old);
    assert_eq!(report.change(), Change::None);
    assert!(check_version(&old, &old, &report).is_ok());
    let bumped = with_version(old.clone(), "99.0.0");
    assert!(check_version(&old, &bumped, &classify(&old, &bumped)).is_err());
}

#[test]
fn prose_only_is_a_patch() {
    let old = contract();
    let mut new = old.clone();
    new["paths"]["/v1/devices"]["get"]["summary"] = json!("Every device, told differently.");
    schema(&mut new, "Problem")["properties"]["detail"]["description"] = json!("Reworded.");
    let report = classify(&old, &new);
    assert_eq!(report.change(), Change::Patch, "{report:?}");
}

/// A list's item type written inline where it was named (or the reverse)
/// is the same wire shape: a patch. Naming a different type is not.
#[test]
fn naming_a_schema_instead_of_repeating_it_is_a_patch() {
    let old = contract();
    let device = schema(&mut old.clone(), "Device").clone();
    let mut inline = old.clone();
    schema(&mut inline, "ListResponse_Device")["properties"]["items"]["items"] = device;
    assert_eq!(
        schema(&mut old.clone(), "ListResponse_Device")["properties"]["items"]["items"]["$ref"],
        "#/components/schemas/Device",
        "the contract names list items"
    );
    let report = classify(&inline, &old);
    assert_eq!(report.change(), Change::Patch, "{report:?}");
    assert_eq!(classify(&old, &inline).change(), Change::Patch);

    let mut other = old.clone();
    schema(&mut other, "ListResponse_Device")["properties"]["items"]["items"] =
        json!({ "$ref": "#/components/schemas/Member" });
    assert!(classify(&old, &other).change() > Change::Patch);
}

#[test]
fn a_field_named_like_prose_is_still_a_field() {
    let old = contract();
    let mut new = old.clone();
    let endpoint = schema(&mut new, "WebhookEndpoint");
    endpoint["properties"]
        .as_object_mut()
        .unwrap()
        .remove("description")
        .expect("WebhookEndpoint has a description field");
    let report = classify(&old, &new);
    assert_eq!(report.change(), Change::Major, "{report:?}");
}

#[test]
fn an_added_operation_is_minor() {
    let old = contract();
    let mut new = old.clone();
    new["paths"]["/v1/devices/{deviceId}/wink"] = json!({
        "post": { "operationId": "winkDevice", "responses": { "204": { "description": "Winked" } } }
    });
    let report = classify(&old, &new);
    assert_eq!(report.change(), Change::Minor, "{report:?}");
    let wrong = with_version(new.clone(), "0.3.1");
    let old = with_version(old, "0.3.0");
    let error = check_version(&old, &wrong, &report).unwrap_err();
    assert!(error.contains("must be 0.4.0"), "{error}");
    assert!(check_version(&old, &with_version(new, "0.4.0"), &report).is_ok());
}

/// The deliberately breaking fixture: the committed contract with an
/// operation removed. Only a new major version passes.
#[test]
fn a_removed_operation_is_major_and_needs_a_major_version() {
    let old = with_version(contract(), "1.2.3");
    let mut new = old.clone();
    new["paths"]["/v1/devices"]
        .as_object_mut()
        .unwrap()
        .remove("get");
    let report = classify(&old, &new);
    assert_eq!(report.change(), Change::Major);
    assert!(
        report.findings[0]
            .what
            .contains("GET /v1/devices: operation removed"),
        "{report:?}"
    );
    for version in ["1.2.3", "1.2.4", "1.3.0", "3.0.0"] {
        let error = check_version(&old, &with_version(new.clone(), version), &report).unwrap_err();
        assert!(error.contains("must be 2.0.0"), "{version}: {error}");
    }
    assert!(check_version(&old, &with_version(new, "2.0.0"), &report).is_ok());
}

#[test]
fn a_changed_scope_is_major() {
    let old = contract();
    let mut new = old.clone();
    new["paths"]["/v1/devices"]["get"]["security"] = json!([{ "bearer": ["things:read"] }]);
    assert_eq!(classify(&old, &new).change(), Change::Major);
}

#[test]
fn a_newly_required_request_field_is_major_and_a_new_optional_one_minor() {
    let old = contract();
    let mut required = old.clone();
    let body = schema(&mut required, "CreateKeyRequest");
    body["properties"]["purpose"] = json!({ "type": "string" });
    body["required"]
        .as_array_mut()
        .unwrap()
        .push(json!("purpose"));
    let report = classify(&old, &required);
    assert_eq!(report.change(), Change::Major, "{report:?}");
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.what.contains("purpose: field added, required")),
        "{report:?}"
    );

    let mut optional = old.clone();
    schema(&mut optional, "CreateKeyRequest")["properties"]["purpose"] =
        json!({ "type": "string" });
    assert_eq!(classify(&old, &optional).change(), Change::Minor);

    // An existing optional field becoming required.
    let mut tightened = old.clone();
    let name = schema(&mut tightened, "CreateKeyRequest");
    let optional_field = name["properties"]
        .as_object()
        .unwrap()
        .keys()
        .find(|k| !name["required"].as_array().unwrap().contains(&json!(k)))
        .expect("CreateKeyRequest has an optional field")
        .clone();
    name["required"]
        .as_array_mut()
        .unwrap()
        .push(json!(optional_field));
    assert_eq!(classify(&old, &tightened).change(), Change::Major);
}

#[test]
fn answered_fields_may_grow_but_not_shrink_or_turn_null() {
    let old = contract();
    let mut added = old.clone();
    schema(&mut added, "Key")["properties"]["colour"] = json!({ "type": "string" });
    assert_eq!(classify(&old, &added).change(), Change::Minor);

    let mut nullable = old.clone();
    schema(&mut nullable, "Key")["properties"]["name"]["type"] = json!(["string", "null"]);
    assert_eq!(classify(&old, &nullable).change(), Change::Major);

    let mut optional = old.clone();
    let key = schema(&mut optional, "Key");
    key["required"]
        .as_array_mut()
        .unwrap()
        .retain(|name| name != "name");
    assert_eq!(classify(&old, &optional).change(), Change::Major);
}

#[test]
fn enum_values_answered_may_be_added_but_not_accepted_ones_removed() {
    let old = contract();
    let mut added = old.clone();
    schema(&mut added, "Scope")["enum"]
        .as_array_mut()
        .expect("Scope is an enumeration")
        .push(json!("lights:dance"));
    assert_eq!(classify(&old, &added).change(), Change::Minor);

    let mut removed = old.clone();
    schema(&mut removed, "Scope")["enum"]
        .as_array_mut()
        .unwrap()
        .retain(|s| s != "firmware:read");
    // Keys are created with scopes: a value a client could send is gone.
    assert_eq!(classify(&old, &removed).change(), Change::Major);
}

#[test]
fn a_tighter_bound_on_a_request_is_major() {
    let old = contract();
    let mut new = old.clone();
    let limit = new["paths"]["/v1/devices"]["get"]["parameters"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|p| p["name"] == "limit")
        .unwrap();
    limit["schema"]["maximum"] = json!(10);
    assert_eq!(classify(&old, &new).change(), Change::Major);
}
