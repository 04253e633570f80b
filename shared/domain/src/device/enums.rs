//! The device enums (a device row's, a firmware release's, liveness and
//! offline reasons) with their exact wire names.

use std::collections::BTreeSet;

/// A closed enum with fixed wire names; what [`super::Lenient`] reads.
pub trait WireEnum: Copy + Eq + 'static {
    /// Every value, in the spec's order.
    const ALL: &'static [Self];

    /// The wire name.
    fn as_str(self) -> &'static str;

    /// The value with this wire name (exact, case-sensitive).
    fn from_wire(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| v.as_str() == name)
    }
}

/// A wire name that is not one of the closed set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} {value:?}; expected one of {expected}")]
pub struct UnknownValue {
    pub what: &'static str,
    pub value: String,
    pub expected: String,
}

macro_rules! wire_enum {
    (
        $(#[$meta:meta])*
        $name:ident ($what:literal) {
            $( $(#[$vmeta:meta])* $variant:ident = $wire:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(
            Debug,
            Clone,
            Copy,
            PartialEq,
            Eq,
            Hash,
            PartialOrd,
            Ord,
            ::serde::Serialize,
            ::serde::Deserialize,
        )]
        pub enum $name {
            $( $(#[$vmeta])* #[serde(rename = $wire)] $variant, )+
        }

        impl $name {
            /// Every value, in the spec's order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The wire name.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $wire,)+
                }
            }

            /// The value with this wire name (exact, case-sensitive).
            pub fn from_wire(name: &str) -> Option<Self> {
                match name {
                    $($wire => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl $crate::device::WireEnum for $name {
            const ALL: &'static [Self] = $name::ALL;
            fn as_str(self) -> &'static str {
                $name::as_str(self)
            }
            fn from_wire(name: &str) -> Option<Self> {
                $name::from_wire(name)
            }
        }

        // Hand-written: the derive does not see `serde(rename)` through the
        // macro's literal fragments.
        #[cfg(feature = "openapi")]
        impl ::utoipa::PartialSchema for $name {
            fn schema() -> ::utoipa::openapi::RefOr<::utoipa::openapi::schema::Schema> {
                ::utoipa::openapi::ObjectBuilder::new()
                    .schema_type(::utoipa::openapi::schema::Type::String)
                    .enum_values(Some($name::ALL.iter().map(|v| v.as_str())))
                    .into()
            }
        }

        #[cfg(feature = "openapi")]
        impl ::utoipa::ToSchema for $name {}

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = $crate::device::UnknownValue;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                $name::from_wire(s).ok_or_else(|| $crate::device::UnknownValue {
                    what: $what,
                    value: s.to_owned(),
                    expected: $name::ALL
                        .iter()
                        .map(|v| v.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                })
            }
        }
    };
}
pub(crate) use wire_enum;

wire_enum! {
    /// What a device is (also the `kind` of a firmware release, which never
    /// uses `AGENT`).
    DeviceKind ("device kind") {
        VoiceSatellite = "VOICE_SATELLITE",
        Hub = "HUB",
        Sensor = "SENSOR",
        Agent = "AGENT",
        Other = "OTHER",
    }
}

wire_enum! {
    /// What a device can do; a device has a set of these. The lower-cased
    /// value is the id of its capability descriptor and the key of its
    /// settings (`MEDIA_PLAYER` -> `media_player`), see
    /// [`DeviceCapability::catalogue_ids`].
    DeviceCapability ("device capability") {
        Voice = "VOICE",
        AudioOut = "AUDIO_OUT",
        Hub = "HUB",
        Sensor = "SENSOR",
        CoffeeMachine = "COFFEE_MACHINE",
        Network = "NETWORK",
        Light = "LIGHT",
        Switch = "SWITCH",
        Thermostat = "THERMOSTAT",
        Lock = "LOCK",
        Cover = "COVER",
        Fan = "FAN",
        Camera = "CAMERA",
        MediaPlayer = "MEDIA_PLAYER",
        Energy = "ENERGY",
        Button = "BUTTON",
        Vacuum = "VACUUM",
        Irrigation = "IRRIGATION",
        Battery = "BATTERY",
    }
}

wire_enum! {
    /// The radio protocol of a child device acquired through a hub.
    Protocol ("protocol") {
        Matter = "MATTER",
        Zigbee = "ZIGBEE",
        Thread = "THREAD",
    }
}

wire_enum! {
    /// Which firmware releases a device follows.
    FirmwareChannel ("firmware channel") {
        Stable = "STABLE",
        Beta = "BETA",
    }
}

wire_enum! {
    /// The stored status of a device.
    DeviceStatus ("device status") {
        Provisioning = "PROVISIONING",
        Online = "ONLINE",
        Offline = "OFFLINE",
        Disabled = "DISABLED",
        AwaitingReplacement = "AWAITING_REPLACEMENT",
    }
}

wire_enum! {
    /// The judged liveness of a device (see [`super::liveness`]).
    LivenessState ("liveness state") {
        Online = "online",
        /// Stored ONLINE, but silent for longer than the heartbeat window and
        /// not yet marked OFFLINE by the heartbeat sweep.
        NotHeardFrom = "not_heard_from",
        Offline = "offline",
        Provisioning = "provisioning",
        Disabled = "disabled",
        AwaitingReplacement = "awaiting_replacement",
    }
}

wire_enum! {
    /// Why a device went offline (`device.offline` data).
    OfflineReason ("offline reason") {
        /// The broker fired the device's last will: its connection dropped.
        LastWill = "last-will",
        /// The device stayed silent past its heartbeat window with its socket
        /// held open.
        Heartbeat = "heartbeat",
    }
}

/// The sensor kind descriptors a `SENSOR` device may bring, besides the
/// generic `sensor` descriptor (fault, report interval).
pub const SENSOR_KIND_IDS: [&str; 5] = [
    "sensor.temperature",
    "sensor.humidity",
    "sensor.motion",
    "sensor.contact",
    "sensor.vibration",
];

const SENSOR_IDS: [&str; 6] = [
    "sensor",
    "sensor.temperature",
    "sensor.humidity",
    "sensor.motion",
    "sensor.contact",
    "sensor.vibration",
];

impl DeviceCapability {
    /// Every capability descriptor id of the built-in catalogue this
    /// capability may bring. The first is always the lower-cased capability
    /// (the settings key, see [`DeviceCapability::descriptor_id`]).
    ///
    /// `SENSOR` brings the generic `sensor` descriptor plus every sensor kind
    /// ([`SENSOR_KIND_IDS`]): which kinds a given device actually shows is
    /// decided by what it reports, see [`descriptor_ids_for`]. Every other
    /// capability brings exactly its own descriptor.
    pub fn catalogue_ids(self) -> &'static [&'static str] {
        match self {
            DeviceCapability::Voice => &["voice"],
            DeviceCapability::AudioOut => &["audio_out"],
            DeviceCapability::Hub => &["hub"],
            DeviceCapability::Sensor => &SENSOR_IDS,
            DeviceCapability::CoffeeMachine => &["coffee_machine"],
            DeviceCapability::Network => &["network"],
            DeviceCapability::Light => &["light"],
            DeviceCapability::Switch => &["switch"],
            DeviceCapability::Thermostat => &["thermostat"],
            DeviceCapability::Lock => &["lock"],
            DeviceCapability::Cover => &["cover"],
            DeviceCapability::Fan => &["fan"],
            DeviceCapability::Camera => &["camera"],
            DeviceCapability::MediaPlayer => &["media_player"],
            DeviceCapability::Energy => &["energy"],
            DeviceCapability::Button => &["button"],
            DeviceCapability::Vacuum => &["vacuum"],
            DeviceCapability::Irrigation => &["irrigation"],
            DeviceCapability::Battery => &["battery"],
        }
    }

    /// The lower-cased capability: the id of its main descriptor and its key
    /// in `settings.byCapability`.
    pub fn descriptor_id(self) -> &'static str {
        self.catalogue_ids()[0]
    }

    /// The capability that brings the descriptor `id` (`sensor.motion` ->
    /// `SENSOR`), if any.
    pub fn from_descriptor_id(id: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .copied()
            .find(|c| c.catalogue_ids().contains(&id))
    }
}

/// The descriptor ids a device with `capabilities` shows, in capability
/// order, without duplicates.
///
/// Every capability brings its own descriptor. A `SENSOR` device also brings
/// each sensor kind (`sensor.<kind>`) that it reports, where reporting means
/// either of:
/// * `features` names the kind (`temperature`) or its id
///   (`sensor.temperature`): the device declares it;
/// * the reported status payload holds state for it: a top-level key
///   `sensor.<kind>`, or an object under `sensor` with the key `<kind>`.
///
/// A sensor kind nobody reports is left out (a contact sensor is not drawn
/// with a temperature row). Catalogue ids that are not sensor kinds are
/// never filtered.
pub fn descriptor_ids_for(
    capabilities: impl IntoIterator<Item = DeviceCapability>,
    features: &[String],
    reported: Option<&serde_json::Value>,
) -> Vec<&'static str> {
    let capabilities: BTreeSet<DeviceCapability> = capabilities.into_iter().collect();
    let mut ids = Vec::new();
    for capability in capabilities {
        for &id in capability.catalogue_ids() {
            let include = match id.strip_prefix("sensor.") {
                Some(kind) => sensor_kind_reported(id, kind, features, reported),
                None => true,
            };
            if include && !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    ids
}

fn sensor_kind_reported(
    id: &str,
    kind: &str,
    features: &[String],
    reported: Option<&serde_json::Value>,
) -> bool {
    if features.iter().any(|f| f == kind || f == id) {
        return true;
    }
    let Some(serde_json::Value::Object(reported)) = reported else {
        return false;
    };
    reported.contains_key(id)
        || reported
            .get("sensor")
            .and_then(serde_json::Value::as_object)
            .is_some_and(|sensor| sensor.contains_key(kind))
}

#[cfg(test)]
mod tests {
    use std::fmt;
    use std::str::FromStr;

    use serde::{Deserialize, Serialize};

    use super::*;
    use crate::capability;

    fn round_trips<T>()
    where
        T: WireEnum + fmt::Debug + Serialize + for<'de> Deserialize<'de> + FromStr,
    {
        for &value in T::ALL {
            let json = serde_json::to_string(&value).unwrap();
            assert_eq!(json, format!("\"{}\"", value.as_str()));
            assert_eq!(serde_json::from_str::<T>(&json).unwrap(), value);
            assert_eq!(T::from_wire(value.as_str()), Some(value));
            assert!(value.as_str().parse::<T>().is_ok());
        }
        assert_eq!(T::from_wire("nope"), None);
        assert!("nope".parse::<T>().is_err());
    }

    #[test]
    fn wire_names_are_the_specs() {
        round_trips::<DeviceKind>();
        round_trips::<DeviceCapability>();
        round_trips::<Protocol>();
        round_trips::<FirmwareChannel>();
        round_trips::<DeviceStatus>();
        round_trips::<LivenessState>();
        round_trips::<OfflineReason>();
        let names = |all: &[&str]| all.join(",");
        assert_eq!(
            names(
                &DeviceKind::ALL
                    .iter()
                    .map(|v| v.as_str())
                    .collect::<Vec<_>>()
            ),
            "VOICE_SATELLITE,HUB,SENSOR,AGENT,OTHER"
        );
        assert_eq!(
            names(
                &DeviceCapability::ALL
                    .iter()
                    .map(|v| v.as_str())
                    .collect::<Vec<_>>()
            ),
            "VOICE,AUDIO_OUT,HUB,SENSOR,COFFEE_MACHINE,NETWORK,LIGHT,SWITCH,THERMOSTAT,LOCK,\
             COVER,FAN,CAMERA,MEDIA_PLAYER,ENERGY,BUTTON,VACUUM,IRRIGATION,BATTERY"
        );
        assert_eq!(
            names(
                &DeviceStatus::ALL
                    .iter()
                    .map(|v| v.as_str())
                    .collect::<Vec<_>>()
            ),
            "PROVISIONING,ONLINE,OFFLINE,DISABLED,AWAITING_REPLACEMENT"
        );
        assert_eq!(
            names(
                &LivenessState::ALL
                    .iter()
                    .map(|v| v.as_str())
                    .collect::<Vec<_>>()
            ),
            "online,not_heard_from,offline,provisioning,disabled,awaiting_replacement"
        );
        assert_eq!(OfflineReason::LastWill.as_str(), "last-will");
        assert_eq!(Protocol::ALL.len(), 3);
        assert_eq!(FirmwareChannel::ALL.len(), 2);
        let err = "online".parse::<DeviceStatus>().unwrap_err();
        assert!(err.to_string().contains("PROVISIONING, ONLINE"), "{err}");
    }

    #[test]
    fn the_openapi_schema_lists_the_wire_names() {
        use utoipa::PartialSchema;
        let schema = serde_json::to_value(OfflineReason::schema()).unwrap();
        assert_eq!(
            schema["enum"],
            serde_json::json!(["last-will", "heartbeat"])
        );
        let schema = serde_json::to_value(DeviceKind::schema()).unwrap();
        assert_eq!(
            schema["enum"],
            serde_json::json!(["VOICE_SATELLITE", "HUB", "SENSOR", "AGENT", "OTHER"])
        );
    }

    #[test]
    fn every_capability_maps_to_catalogue_descriptors() {
        for &capability in DeviceCapability::ALL {
            assert_eq!(
                capability.descriptor_id(),
                capability.as_str().to_ascii_lowercase()
            );
            for id in capability.catalogue_ids() {
                assert!(capability::find(id).is_some(), "{capability}: {id}");
                assert_eq!(DeviceCapability::from_descriptor_id(id), Some(capability));
            }
        }
        // SENSOR brings exactly the sensor descriptors of the catalogue.
        let sensors: Vec<&str> = capability::catalogue()
            .items
            .iter()
            .map(|d| d.id.as_str())
            .filter(|id| *id == "sensor" || id.starts_with("sensor."))
            .collect();
        assert_eq!(sensors, DeviceCapability::Sensor.catalogue_ids());
        // Every descriptor but `generic` (things of category other) is
        // reachable from a device capability.
        for descriptor in &capability::catalogue().items {
            let reachable = DeviceCapability::from_descriptor_id(&descriptor.id).is_some();
            assert_eq!(reachable, descriptor.id != "generic", "{}", descriptor.id);
        }
        assert_eq!(DeviceCapability::from_descriptor_id("generic"), None);
    }

    #[test]
    fn sensor_kinds_follow_what_the_device_reports() {
        let caps = [DeviceCapability::Sensor, DeviceCapability::Battery];
        assert_eq!(descriptor_ids_for(caps, &[], None), ["sensor", "battery"]);
        let features = vec!["temperature".to_owned(), "sensor.humidity".to_owned()];
        assert_eq!(
            descriptor_ids_for(caps, &features, None),
            ["sensor", "sensor.temperature", "sensor.humidity", "battery"]
        );
        let reported = serde_json::json!({
            "sensor.contact": { "open": false },
            "sensor": { "vibration": { "vibration": false } },
            "sensor.nonsense": {}
        });
        assert_eq!(
            descriptor_ids_for([DeviceCapability::Sensor], &[], Some(&reported)),
            ["sensor", "sensor.contact", "sensor.vibration"]
        );
        // Non-sensor capabilities are never filtered; order is capability order.
        assert_eq!(
            descriptor_ids_for(
                [DeviceCapability::Hub, DeviceCapability::Voice],
                &[],
                Some(&serde_json::json!("not an object"))
            ),
            ["voice", "hub"]
        );
    }
}
