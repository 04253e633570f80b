//! Children of a hub (devices on its radio: Zigbee, Thread, Matter) are not
//! registered with a serial and never get a broker credential: the hub pairs
//! them and tells the platform on its `events` channel, then speaks for them.
//!
//! ```json
//! { "type": "child.paired", "protocol": "ZIGBEE", "protocolId": "0x00158d0001",
//!   "name": "Zigbee bulb", "kind": "OTHER", "capabilities": ["LIGHT"],
//!   "features": [] }
//! ```
//!
//! `protocol` and `protocolId` (1-128 printable characters, unique per hub) are
//! required; `name` (1-120 characters) defaults to "`<protocol>` device",
//! `kind` to OTHER; `capabilities` lists at least one known capability;
//! `features` (optional: at most 64 of 1-64 printable characters) is the
//! child's capability descriptor at pairing, e.g. `keypad` for a lock with a
//! keypad: like a registration's, it is taken once, here, and never from a
//! later status report of the device itself, so a device cannot make itself a
//! trusted keypad. The event is logged like any other; a pairing that names a
//! `protocolId` the hub already has changes nothing (pairing is idempotent),
//! and one that is malformed is logged only.

use std::collections::BTreeSet;

use alyt_domain::device::{DeviceCapability, DeviceKind, Protocol};
use serde_json::Value;

use crate::channels::{FEATURE_MAX_CHARS, JsonObject, MAX_FEATURES};

/// The `type` of a pairing event.
pub const CHILD_PAIRED: &str = "child.paired";
pub const PROTOCOL_ID_MAX_CHARS: usize = 128;
pub const NAME_MAX_CHARS: usize = 120;

/// A child a hub reported, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildPairing {
    pub protocol: Protocol,
    pub protocol_id: String,
    pub name: String,
    pub kind: DeviceKind,
    pub capabilities: BTreeSet<DeviceCapability>,
    /// The features it was paired with (its descriptor, e.g. `keypad`).
    pub features: Vec<String>,
}

/// The pairing an event reports: `None` when the event is not a pairing,
/// `Some(Err(why))` when it is one that cannot be used.
pub fn child_pairing(fields: &JsonObject) -> Option<Result<ChildPairing, String>> {
    if fields.get("type").and_then(Value::as_str) != Some(CHILD_PAIRED) {
        return None;
    }
    Some(check(fields))
}

fn check(fields: &JsonObject) -> Result<ChildPairing, String> {
    let text = |name: &str| fields.get(name).and_then(Value::as_str);
    let protocol = text("protocol")
        .and_then(Protocol::from_wire)
        .ok_or_else(|| {
            format!(
                "protocol must be one of {}",
                Protocol::ALL
                    .iter()
                    .map(|p| p.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })?;
    let protocol_id = text("protocolId")
        .filter(|id| {
            let chars = id.chars().count();
            (1..=PROTOCOL_ID_MAX_CHARS).contains(&chars) && !id.chars().any(char::is_control)
        })
        .ok_or("protocolId must be 1 to 128 printable characters")?
        .to_owned();
    let name = match text("name").map(str::trim) {
        None | Some("") => format!("{} device", protocol.as_str()),
        Some(name)
            if name.chars().count() <= NAME_MAX_CHARS && !name.chars().any(char::is_control) =>
        {
            name.to_owned()
        }
        Some(_) => return Err("name must have at most 120 printable characters".into()),
    };
    let kind = match text("kind") {
        None => DeviceKind::Other,
        Some(kind) => DeviceKind::from_wire(kind).ok_or("kind is not a device kind")?,
    };
    let capabilities: BTreeSet<DeviceCapability> = fields
        .get("capabilities")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .map(|c| c.as_str().and_then(DeviceCapability::from_wire))
                .collect::<Option<_>>()
        })
        .and_then(|known: Option<BTreeSet<_>>| known.filter(|set| !set.is_empty()))
        .ok_or("capabilities must list at least one known capability")?;
    let features = match fields.get("features") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(list)) => {
            let features: Option<Vec<String>> = list
                .iter()
                .map(|f| {
                    f.as_str()
                        .filter(|f| {
                            (1..=FEATURE_MAX_CHARS).contains(&f.chars().count())
                                && !f.chars().any(char::is_control)
                        })
                        .map(str::to_owned)
                })
                .collect();
            features
                .filter(|f| f.len() <= MAX_FEATURES)
                .ok_or("features must list at most 64 of 1 to 64 printable characters")?
        }
        Some(_) => return Err("features must be a list".into()),
    };
    Ok(ChildPairing {
        protocol,
        protocol_id,
        name,
        kind,
        capabilities,
        features,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields(value: Value) -> JsonObject {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn a_pairing_event_names_its_child() {
        let paired = child_pairing(&fields(json!({
            "type": "child.paired", "protocol": "ZIGBEE", "protocolId": "0x00158d0001",
            "capabilities": ["LIGHT"],
        })))
        .unwrap()
        .unwrap();
        assert_eq!(paired.protocol, Protocol::Zigbee);
        assert_eq!(paired.name, "ZIGBEE device");
        assert_eq!(paired.kind, DeviceKind::Other);
        assert_eq!(paired.capabilities, [DeviceCapability::Light].into());
        assert!(paired.features.is_empty());
        let lock = child_pairing(&fields(json!({
            "type": "child.paired", "protocol": "ZIGBEE", "protocolId": "0x02",
            "capabilities": ["LOCK"], "features": ["keypad"],
        })))
        .unwrap()
        .unwrap();
        assert_eq!(lock.features, ["keypad"]);
    }

    #[test]
    fn other_events_are_not_pairings_and_bad_pairings_say_why() {
        assert_eq!(
            child_pairing(&fields(json!({ "type": "button.pressed" }))),
            None
        );
        assert_eq!(child_pairing(&fields(json!({ "button": 1 }))), None);
        for bad in [
            json!({ "type": "child.paired", "protocol": "BLUETOOTH", "protocolId": "a", "capabilities": ["LIGHT"] }),
            json!({ "type": "child.paired", "protocol": "ZIGBEE", "protocolId": "", "capabilities": ["LIGHT"] }),
            json!({ "type": "child.paired", "protocol": "ZIGBEE", "protocolId": "a", "capabilities": [] }),
            json!({ "type": "child.paired", "protocol": "ZIGBEE", "protocolId": "a", "capabilities": ["LASER"] }),
            json!({ "type": "child.paired", "protocol": "ZIGBEE", "protocolId": "a", "capabilities": ["LIGHT"], "kind": "ROBOT" }),
            json!({ "type": "child.paired", "protocol": "ZIGBEE", "protocolId": "a", "capabilities": ["LOCK"], "features": "keypad" }),
            json!({ "type": "child.paired", "protocol": "ZIGBEE", "protocolId": "a", "capabilities": ["LOCK"], "features": [""] }),
            json!({ "type": "child.paired", "protocol": "ZIGBEE", "protocolId": "a", "capabilities": ["LOCK"], "features": [7] }),
            json!({ "type": "child.paired", "protocol": "ZIGBEE", "protocolId": "a", "capabilities": ["LOCK"], "features": vec!["f"; 65] }),
        ] {
            assert!(
                matches!(child_pairing(&fields(bad.clone())), Some(Err(_))),
                "{bad}"
            );
        }
    }
}
