//! Integrations, connectors and endpoints: the pure rules. No I/O.
//!
//! * [`connector`]: the wire types of the connector protocol (what the
//!   platform sends a connector server and accepts back).
//! * [`EndpointKind`], [`PresentedAs`] and the presentation rule
//!   ([`Presentation`]): an endpoint that is a switch may be shown as a light
//!   (a plug powering a lamp) and a light as a switch; that changes its
//!   category, icon, descriptors, state keys and therefore which room actions
//!   (automation targets: `lights` vs `switches`) include it. Commands to the
//!   shown capability are sent to the connector as the native one.
//! * [`placement`]: where discovery puts a thing (rooms by name, never moving
//!   what a person placed, never renaming a room).
//! * [`music`]: the protocol's music calls and what a speaker may play.
//! * [`ThingStateData`]: the data of the `thing.state` event.

pub mod connector;
pub mod descriptor;
pub mod music;
pub mod placement;

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use time::OffsetDateTime;

use crate::capability::{self, ThingDescriptor};
use crate::device::{DeviceCapability, Liveness, LivenessState, descriptor_ids_for, wire_enum};
use crate::ids::{EndpointId, IntegrationId};

wire_enum! {
    /// What an endpoint is (its `kind`).
    EndpointKind ("endpoint kind") {
        Speaker = "SPEAKER",
        Light = "LIGHT",
        Sensor = "SENSOR",
        Other = "OTHER",
    }
}

/// What an endpoint is shown as (spec: Endpoint `presentedAs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum PresentedAs {
    Light,
    Switch,
}

impl PresentedAs {
    pub fn as_str(self) -> &'static str {
        match self {
            PresentedAs::Light => "light",
            PresentedAs::Switch => "switch",
        }
    }

    /// Reads a stored value; anything else (a newer build's value) reads as
    /// not presented, never failing the read.
    pub fn from_stored(raw: Option<&str>) -> Option<PresentedAs> {
        match raw {
            Some("light") => Some(PresentedAs::Light),
            Some("switch") => Some(PresentedAs::Switch),
            _ => None,
        }
    }

    fn capability(self) -> DeviceCapability {
        match self {
            PresentedAs::Light => DeviceCapability::Light,
            PresentedAs::Switch => DeviceCapability::Switch,
        }
    }
}

/// Whether an endpoint with these capabilities may be presented as a light
/// or a switch: it must be one of the two.
pub fn presentable(capabilities: &BTreeSet<DeviceCapability>) -> bool {
    capabilities.contains(&DeviceCapability::Light)
        || capabilities.contains(&DeviceCapability::Switch)
}

/// A presentation that changes something: the native capability is shown as
/// another one. `None` when the endpoint is not presented, or is presented as
/// what it already is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Presentation {
    pub native: DeviceCapability,
    pub shown: DeviceCapability,
}

impl Presentation {
    pub fn of(
        capabilities: &BTreeSet<DeviceCapability>,
        presented_as: Option<PresentedAs>,
    ) -> Option<Presentation> {
        let shown = presented_as?.capability();
        if capabilities.contains(&shown) {
            return None;
        }
        let native = [DeviceCapability::Light, DeviceCapability::Switch]
            .into_iter()
            .find(|c| capabilities.contains(c))?;
        Some(Presentation { native, shown })
    }

    fn native_id(self) -> &'static str {
        self.native.catalogue_ids()[0]
    }

    fn shown_id(self) -> &'static str {
        self.shown.catalogue_ids()[0]
    }

    /// The capability a command names, as the connector knows it.
    pub fn to_native(self, capability: &str) -> &str {
        if capability == self.shown_id() {
            self.native_id()
        } else {
            capability
        }
    }
}

/// The capabilities an endpoint is drawn with (the native one swapped for
/// the shown one when presented).
pub fn shown_capabilities(
    capabilities: &BTreeSet<DeviceCapability>,
    presentation: Option<Presentation>,
) -> BTreeSet<DeviceCapability> {
    let mut shown = capabilities.clone();
    if let Some(p) = presentation {
        shown.remove(&p.native);
        shown.insert(p.shown);
    }
    shown
}

/// The descriptors of an endpoint: the catalogue's for its shown
/// capabilities; a presented capability keeps only the controls the native
/// one has (a plug shown as a light offers power, not brightness).
pub fn endpoint_descriptors(
    capabilities: &BTreeSet<DeviceCapability>,
    features: &[String],
    state: &Map<String, Value>,
    presentation: Option<Presentation>,
) -> Vec<ThingDescriptor> {
    let shown = shown_capabilities(capabilities, presentation);
    let reported = Value::Object(state.clone());
    descriptor_ids_for(shown.iter().copied(), features, Some(&reported))
        .into_iter()
        .filter_map(capability::find)
        .map(|descriptor| match presentation {
            Some(p) if descriptor.id == p.shown_id() => {
                let native = capability::find(p.native_id());
                let mut descriptor = descriptor.clone();
                descriptor
                    .controls
                    .retain(|c| native.is_some_and(|n| n.control(&c.key).is_some()));
                descriptor
                    .room_actions
                    .retain(|a| descriptor.controls.iter().any(|c| c.key == a.control_key));
                ThingDescriptor::Made(descriptor)
            }
            _ => ThingDescriptor::Catalogue(descriptor),
        })
        .collect()
}

/// The thing state of an endpoint: `capabilityId.controlKey` entries from
/// the connector's `{ capability: { key: value } }`, the native capability
/// renamed to the shown one when presented.
pub fn endpoint_state(
    state: &Map<String, Value>,
    presentation: Option<Presentation>,
) -> BTreeMap<String, Value> {
    let mut flat = BTreeMap::new();
    for (capability, value) in state {
        let Value::Object(controls) = value else {
            continue;
        };
        if !capability::is_valid_capability_id(capability) {
            continue;
        }
        let shown = match presentation {
            Some(p) if capability == p.native_id() => p.shown_id(),
            Some(p) if capability == p.shown_id() => continue,
            _ => capability.as_str(),
        };
        for (key, value) in controls {
            flat.insert(format!("{shown}.{key}"), value.clone());
        }
    }
    flat
}

/// `thing.state` (spec: Events): an endpoint's state changed. `{ endpointId,
/// integrationId, kind, state (by capability, as the connector reported
/// it), at }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ThingStateData {
    pub endpoint_id: EndpointId,
    pub integration_id: IntegrationId,
    pub kind: EndpointKind,
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub state: Map<String, Value>,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub at: OffsetDateTime,
}

/// An endpoint read successfully within this long is online; older reads
/// judge it not heard from.
pub const ENDPOINT_LIVENESS_WINDOW_SECONDS: u32 = 600;

/// The liveness of an endpoint from its last check: `None` when it was never
/// checked (spec: null means not yet checked, never drawn as offline);
/// offline when the last check failed; online when the last successful read
/// is recent; not heard from otherwise.
pub fn endpoint_liveness(
    checked_at: Option<OffsetDateTime>,
    reachable: bool,
    last_seen: Option<OffsetDateTime>,
    now: OffsetDateTime,
) -> Option<Liveness> {
    checked_at?;
    let since = last_seen.map(|seen| (now - seen).whole_seconds().max(0) as u64);
    let state = match (reachable, since) {
        (false, _) => LivenessState::Offline,
        (true, Some(s)) if s <= u64::from(ENDPOINT_LIVENESS_WINDOW_SECONDS) => {
            LivenessState::Online
        }
        _ => LivenessState::NotHeardFrom,
    };
    Some(Liveness {
        state,
        last_seen,
        seconds_since_last_seen: since,
        window_seconds: ENDPOINT_LIVENESS_WINDOW_SECONDS,
    })
}

/// An external id: 1-200 characters and not an IP address (spec: provider
/// ids are stable; addresses change).
pub fn check_external_id(id: &str) -> Result<(), &'static str> {
    let chars = id.chars().count();
    if chars == 0 || chars > 200 {
        return Err("externalId must be 1 to 200 characters");
    }
    if id.trim().parse::<std::net::IpAddr>().is_ok() {
        return Err("externalId must be the provider's stable id, not an IP address");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn set(caps: &[DeviceCapability]) -> BTreeSet<DeviceCapability> {
        caps.iter().copied().collect()
    }

    #[test]
    fn a_plug_shown_as_a_light_offers_lights_and_power_only() {
        let caps = set(&[DeviceCapability::Switch]);
        let p = Presentation::of(&caps, Some(PresentedAs::Light)).unwrap();
        let state = json!({ "switch": { "power": true } });
        let state = state.as_object().unwrap();
        let descriptors = endpoint_descriptors(&caps, &[], state, Some(p));
        assert_eq!(descriptors.len(), 1);
        let light = &descriptors[0];
        assert_eq!(light.id, "light");
        assert_eq!(
            light
                .controls
                .iter()
                .map(|c| c.key.as_str())
                .collect::<Vec<_>>(),
            ["power"]
        );
        assert_eq!(light.room_actions[0].action, "lights");
        let flat = endpoint_state(state, Some(p));
        assert_eq!(flat.get("light.power"), Some(&json!(true)));
        assert!(!flat.contains_key("switch.power"));
        assert_eq!(p.to_native("light"), "switch");
        assert_eq!(p.to_native("energy"), "energy");
    }

    #[test]
    fn presenting_a_thing_as_what_it_is_changes_nothing() {
        let caps = set(&[DeviceCapability::Light]);
        assert_eq!(Presentation::of(&caps, Some(PresentedAs::Light)), None);
        assert_eq!(Presentation::of(&caps, None), None);
        let speaker = set(&[DeviceCapability::MediaPlayer]);
        assert!(!presentable(&speaker));
        assert_eq!(Presentation::of(&speaker, Some(PresentedAs::Light)), None);
    }

    #[test]
    fn a_light_shown_as_a_switch_joins_the_switches() {
        let caps = set(&[DeviceCapability::Light]);
        let p = Presentation::of(&caps, Some(PresentedAs::Switch)).unwrap();
        let state = json!({ "light": { "power": false, "brightness": 40 } });
        let descriptors = endpoint_descriptors(&caps, &[], state.as_object().unwrap(), Some(p));
        assert_eq!(descriptors[0].id, "switch");
        assert_eq!(descriptors[0].room_actions[0].action, "switches");
        let flat = endpoint_state(state.as_object().unwrap(), Some(p));
        assert_eq!(flat.get("switch.power"), Some(&json!(false)));
        assert_eq!(p.to_native("switch"), "light");
    }

    #[test]
    fn liveness_is_null_until_checked_and_offline_only_after_a_failed_check() {
        let now = OffsetDateTime::UNIX_EPOCH + time::Duration::days(1);
        assert_eq!(endpoint_liveness(None, false, None, now), None);
        let failed = endpoint_liveness(Some(now), false, None, now).unwrap();
        assert_eq!(failed.state, LivenessState::Offline);
        let fresh = endpoint_liveness(Some(now), true, Some(now), now).unwrap();
        assert_eq!(fresh.state, LivenessState::Online);
        let old = now - time::Duration::hours(1);
        let stale = endpoint_liveness(Some(old), true, Some(old), now).unwrap();
        assert_eq!(stale.state, LivenessState::NotHeardFrom);
        assert_eq!(stale.seconds_since_last_seen, Some(3600));
    }

    #[test]
    fn external_ids_are_never_addresses() {
        assert!(check_external_id("hue-1a2b").is_ok());
        assert!(check_external_id("192.168.1.20").is_err());
        assert!(check_external_id("fe80::1").is_err());
        assert!(check_external_id("").is_err());
    }
}
