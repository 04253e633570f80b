//! The connector descriptor a developer submits (with its connect fields,
//! pairing and pairing vendors), read from untrusted JSON and checked against
//! every rule a descriptor has. A problem names the field by its path
//! (`descriptor.connect.fields[2].kind`). No I/O.
//!
//! Objects are closed (an unknown field is refused). `brings` names device
//! categories; a category this build does not know is refused in a
//! submission (the catalogue shows only what the spec lists), while readers
//! of catalogue data keep such values as [`Brings::Unknown`] (drawn with the
//! `other` icon by clients).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A problem with a submitted descriptor: the field's path and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {detail}")]
pub struct DescriptorProblem {
    pub field: String,
    pub detail: String,
}

fn problem(field: impl Into<String>, detail: impl Into<String>) -> DescriptorProblem {
    DescriptorProblem {
        field: field.into(),
        detail: detail.into(),
    }
}

/// How a connector reaches its things.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Connectivity {
    Local,
    Cloud,
    CloudThenLocal,
}

/// A device category a connector brings (spec's closed list), or one this
/// build does not know (kept as given).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Brings {
    Known(crate::capability::ThingCategory),
    Unknown(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ConnectMethod {
    Discover,
    Form,
    SignIn,
    Oauth,
    Pair,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FieldKind {
    Text,
    Password,
    Email,
    Select,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FieldOption {
    pub value: String,
    pub label: String,
}

/// A field of the connect form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConnectField {
    pub key: String,
    pub label: String,
    pub kind: FieldKind,
    pub secret: bool,
    pub required: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Vec<FieldOption>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Connect {
    pub method: ConnectMethod,
    pub fields: Vec<ConnectField>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Discovery {
    pub verb: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Disconnect {
    pub consequence: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VendorSource {
    pub url: String,
    /// YYYY-MM-DD.
    pub verified_at: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VendorAction {
    pub id: String,
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    pub fields: Vec<ConnectField>,
    pub done: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PairingVendor {
    pub id: String,
    pub name: String,
    pub devices: String,
    pub match_vendors: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fresh: Option<String>,
    pub reset: Vec<String>,
    pub pair: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actions: Option<Vec<VendorAction>>,
    pub source: VendorSource,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Pairing {
    pub join_seconds: u32,
    pub intro: String,
    pub vendors: Vec<PairingVendor>,
    pub supported: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BuiltIn {
    pub reason: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AuthorKind {
    Svc,
    Brand,
    Maker,
    Company,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DescriptorAuthor {
    pub kind: AuthorKind,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DescriptorSource {
    BuiltIn,
    Installed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    Public,
    Tenant,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VerificationLevel {
    Proven,
    Declared,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Verification {
    pub level: VerificationLevel,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The spec's connector descriptor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConnectorDescriptor {
    pub kind: String,
    pub name: String,
    pub icon: String,
    pub promise: String,
    pub connectivity: Connectivity,
    pub brings: Vec<Brings>,
    pub connect: Connect,
    pub discovery: Option<Discovery>,
    pub disconnect: Disconnect,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docs_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pairing: Option<Pairing>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub built_in: Option<BuiltIn>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires: Option<Vec<String>>,
    pub author: DescriptorAuthor,
    pub version: String,
    pub source: DescriptorSource,
    pub visibility: Visibility,
    pub verification: Verification,
    pub listed: bool,
}

/// Reads and checks a submitted descriptor (`root` names it in problems:
/// `descriptor`).
pub fn parse_descriptor(
    value: &Value,
    root: &str,
) -> Result<ConnectorDescriptor, DescriptorProblem> {
    let descriptor: ConnectorDescriptor = serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let field = if path == "." {
            root.to_owned()
        } else {
            format!("{root}.{path}")
        };
        problem(field, e.into_inner().to_string())
    })?;
    check(&descriptor, root)?;
    Ok(descriptor)
}

const TEXT_MAX: usize = 500;

fn text(field: String, value: &str, max: usize) -> Result<(), DescriptorProblem> {
    if value.trim().is_empty() {
        return Err(problem(field, "must not be empty"));
    }
    if value.chars().count() > max || value.chars().any(|c| c.is_control() && c != '\n') {
        return Err(problem(
            field,
            format!("at most {max} characters, no control characters"),
        ));
    }
    Ok(())
}

/// `kind`: 2-40 of A-Z, 0-9 and underscore.
fn kind_ok(kind: &str) -> bool {
    (2..=40).contains(&kind.len())
        && kind
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// A vendor or action id: a lowercase letter, then 1-40 lowercase letters,
/// digits or hyphens.
fn id_ok(id: &str) -> bool {
    let bytes = id.as_bytes();
    (2..=41).contains(&bytes.len())
        && bytes[0].is_ascii_lowercase()
        && bytes[1..]
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
}

/// A kebab-case icon token (the capability catalogue's rule).
fn token_ok(token: &str) -> bool {
    token.len() <= 64 && crate::capability::is_kebab_token(token)
}

fn uri_ok(url: &str) -> bool {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    rest.is_some_and(|r| {
        let host = r.split(['/', '?', '#']).next().unwrap_or("");
        !host.is_empty() && !r.contains(char::is_whitespace) && url.len() <= 2048
    })
}

fn date_ok(date: &str) -> bool {
    let format = time::macros::format_description!("[year]-[month]-[day]");
    date.len() == 10 && time::Date::parse(date, &format).is_ok()
}

fn check_fields(fields: &[ConnectField], at: &str) -> Result<(), DescriptorProblem> {
    let mut keys = std::collections::BTreeSet::new();
    for (i, field) in fields.iter().enumerate() {
        let here = format!("{at}[{i}]");
        text(format!("{here}.key"), &field.key, 64)?;
        if !keys.insert(field.key.as_str()) {
            return Err(problem(
                format!("{here}.key"),
                "keys are unique within a form",
            ));
        }
        text(format!("{here}.label"), &field.label, 120)?;
        match (&field.kind, &field.options) {
            (FieldKind::Select, None) => {
                return Err(problem(
                    format!("{here}.options"),
                    "a select field has options",
                ));
            }
            (FieldKind::Select, Some(options)) if options.is_empty() => {
                return Err(problem(
                    format!("{here}.options"),
                    "a select field has options",
                ));
            }
            (_, Some(options)) => {
                for (j, option) in options.iter().enumerate() {
                    text(format!("{here}.options[{j}].value"), &option.value, 120)?;
                    text(format!("{here}.options[{j}].label"), &option.label, 120)?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn check(d: &ConnectorDescriptor, root: &str) -> Result<(), DescriptorProblem> {
    if !kind_ok(&d.kind) {
        return Err(problem(
            format!("{root}.kind"),
            "2 to 40 capital letters, digits or underscores",
        ));
    }
    text(format!("{root}.name"), &d.name, 80)?;
    if !token_ok(&d.icon) {
        return Err(problem(format!("{root}.icon"), "a kebab-case icon token"));
    }
    text(format!("{root}.promise"), &d.promise, TEXT_MAX)?;
    if d.brings.is_empty() {
        return Err(problem(
            format!("{root}.brings"),
            "names at least one category",
        ));
    }
    for (i, brings) in d.brings.iter().enumerate() {
        if let Brings::Unknown(other) = brings {
            return Err(problem(
                format!("{root}.brings[{i}]"),
                format!(
                    "unknown category {other:?}: light, switch, thermostat, lock, cover, fan, camera, speaker, vacuum, irrigation, hub, voice, energy, button, sensor, appliance or other"
                ),
            ));
        }
    }
    check_fields(&d.connect.fields, &format!("{root}.connect.fields"))?;
    if let Some(help) = &d.connect.help {
        text(format!("{root}.connect.help"), help, TEXT_MAX)?;
    }
    if let Some(discovery) = &d.discovery {
        text(format!("{root}.discovery.verb"), &discovery.verb, 80)?;
    }
    text(
        format!("{root}.disconnect.consequence"),
        &d.disconnect.consequence,
        TEXT_MAX,
    )?;
    if let Some(url) = &d.docs_url
        && !uri_ok(url)
    {
        return Err(problem(format!("{root}.docsUrl"), "an http(s) URI"));
    }
    if let Some(pairing) = &d.pairing {
        let at = format!("{root}.pairing");
        text(format!("{at}.intro"), &pairing.intro, TEXT_MAX)?;
        if pairing.vendors.is_empty() {
            return Err(problem(format!("{at}.vendors"), "at least one vendor"));
        }
        for (i, vendor) in pairing.vendors.iter().enumerate() {
            let here = format!("{at}.vendors[{i}]");
            if !id_ok(&vendor.id) {
                return Err(problem(
                    format!("{here}.id"),
                    "a lowercase letter, then 1 to 40 lowercase letters, digits or hyphens",
                ));
            }
            text(format!("{here}.name"), &vendor.name, 80)?;
            text(format!("{here}.devices"), &vendor.devices, TEXT_MAX)?;
            if !uri_ok(&vendor.source.url) {
                return Err(problem(format!("{here}.source.url"), "an http(s) URI"));
            }
            if !date_ok(&vendor.source.verified_at) {
                return Err(problem(
                    format!("{here}.source.verifiedAt"),
                    "a date as YYYY-MM-DD",
                ));
            }
            for (j, action) in vendor.actions.iter().flatten().enumerate() {
                let there = format!("{here}.actions[{j}]");
                if !id_ok(&action.id) {
                    return Err(problem(
                        format!("{there}.id"),
                        "a lowercase letter, then 1 to 40 lowercase letters, digits or hyphens",
                    ));
                }
                text(format!("{there}.label"), &action.label, 120)?;
                check_fields(&action.fields, &format!("{there}.fields"))?;
                text(format!("{there}.done"), &action.done, TEXT_MAX)?;
            }
        }
    }
    text(format!("{root}.author.name"), &d.author.name, 120)?;
    if let Some(url) = &d.author.url
        && !uri_ok(url)
    {
        return Err(problem(format!("{root}.author.url"), "an http(s) URI"));
    }
    text(format!("{root}.version"), &d.version, 40)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    fn good() -> Value {
        json!({
            "kind": "ACME_BRIDGE",
            "name": "Acme bridge",
            "icon": "lightbulb-group",
            "promise": "Your Acme lights, in every room",
            "connectivity": "cloud-then-local",
            "brings": ["light", "switch"],
            "connect": {
                "method": "form",
                "fields": [
                    { "key": "host", "label": "Bridge address", "kind": "text", "secret": false, "required": true },
                    { "key": "region", "label": "Region", "kind": "select", "secret": false, "required": true,
                      "options": [{ "value": "eu", "label": "Europe" }] }
                ]
            },
            "discovery": { "verb": "Search for lights" },
            "disconnect": { "consequence": "The lights leave your rooms." },
            "docsUrl": "https://acme.example/docs",
            "pairing": {
                "joinSeconds": 60,
                "intro": "Put the bulb in pairing mode",
                "vendors": [{
                    "id": "acme", "name": "Acme", "devices": "All Acme bulbs", "matchVendors": ["Acme"],
                    "reset": ["Switch it off and on five times"], "pair": ["Wait for the blink"],
                    "source": { "url": "https://acme.example/pairing", "verifiedAt": "2026-11-01" }
                }],
                "supported": true
            },
            "author": { "kind": "brand", "name": "Acme Inc." },
            "version": "1.0.0",
            "source": "installed",
            "visibility": "public",
            "verification": { "level": "declared" },
            "listed": true
        })
    }

    fn field_of(value: Value) -> String {
        parse_descriptor(&value, "descriptor").unwrap_err().field
    }

    #[test]
    fn a_complete_descriptor_reads_and_round_trips() {
        let d = parse_descriptor(&good(), "descriptor").unwrap();
        assert_eq!(d.kind, "ACME_BRIDGE");
        assert_eq!(serde_json::to_value(&d).unwrap(), good());
    }

    #[test]
    fn every_problem_names_its_field() {
        let with = |path: &[&str], value: Value| {
            let mut v = good();
            let mut at = &mut v;
            for (i, step) in path.iter().enumerate() {
                if i + 1 == path.len() {
                    at[*step] = value.clone();
                } else {
                    at = match step.parse::<usize>() {
                        Ok(n) => &mut at[n],
                        Err(_) => &mut at[*step],
                    };
                }
            }
            v
        };
        assert_eq!(field_of(with(&["kind"], json!("acme"))), "descriptor.kind");
        assert_eq!(field_of(with(&["kind"], json!("A"))), "descriptor.kind");
        assert_eq!(
            field_of(with(&["connectivity"], json!("mesh"))),
            "descriptor.connectivity"
        );
        assert_eq!(
            field_of(with(&["brings"], json!(["light", "teleporter"]))),
            "descriptor.brings[1]"
        );
        assert_eq!(field_of(with(&["brings"], json!([]))), "descriptor.brings");
        assert_eq!(
            field_of(with(&["connect", "fields", "1", "kind"], json!("slider"))),
            "descriptor.connect.fields[1].kind"
        );
        assert_eq!(
            field_of(with(&["connect", "fields", "1", "options"], json!([]))),
            "descriptor.connect.fields[1].options"
        );
        assert_eq!(
            field_of(with(&["docsUrl"], json!("acme docs"))),
            "descriptor.docsUrl"
        );
        assert_eq!(
            field_of(with(&["pairing", "vendors"], json!([]))),
            "descriptor.pairing.vendors"
        );
        assert_eq!(
            field_of(with(&["pairing", "vendors", "0", "id"], json!("Acme"))),
            "descriptor.pairing.vendors[0].id"
        );
        assert_eq!(
            field_of(with(
                &["pairing", "vendors", "0", "source", "verifiedAt"],
                json!("01/11/2026")
            )),
            "descriptor.pairing.vendors[0].source.verifiedAt"
        );
        assert_eq!(
            field_of(with(
                &["pairing", "vendors", "0", "source", "verifiedAt"],
                json!("2026-02-30")
            )),
            "descriptor.pairing.vendors[0].source.verifiedAt"
        );
        assert_eq!(
            field_of(with(&["surprise"], json!(1))),
            "descriptor.surprise"
        );
        assert_eq!(
            field_of(with(&["author", "kind"], json!("person"))),
            "descriptor.author.kind"
        );
        assert_eq!(
            field_of(with(&["icon"], json!("Light Bulb"))),
            "descriptor.icon"
        );
        assert_eq!(field_of(with(&["name"], json!(" "))), "descriptor.name");
    }

    #[test]
    fn catalogue_readers_keep_an_unknown_category() {
        let brings: Brings = serde_json::from_value(json!("teleporter")).unwrap();
        assert_eq!(brings, Brings::Unknown("teleporter".into()));
        let known: Brings = serde_json::from_value(json!("light")).unwrap();
        assert!(matches!(known, Brings::Known(_)));
    }

    proptest! {
        /// Any JSON at all is read or refused with a field, never a panic.
        #[test]
        fn any_json_is_read_or_refused(noise in proptest::collection::vec(any::<u8>(), 0..200)) {
            if let Ok(value) = serde_json::from_slice::<Value>(&noise) {
                let _ = parse_descriptor(&value, "descriptor");
            }
        }

        #[test]
        fn kinds_and_ids_follow_their_patterns(kind in "[A-Z0-9_]{2,40}", id in "[a-z][a-z0-9-]{1,40}") {
            prop_assert!(kind_ok(&kind));
            prop_assert!(id_ok(&id));
        }
    }
}
