//! The virtual-device profiles: what each device is (kind, capabilities, model
//! code), which capability descriptors it shows, what it reports and which
//! commands it honours.
//!
//! | profile | model | capabilities | telemetry | commands |
//! |---|---|---|---|---|
//! | HUB | ALSIMH | VOICE, HUB | uptime, wakeWords, rssi | identify, reboot, set voice.listening (also moves the mute switch: off mutes, on unmutes what the room muted), press hub.pair (a Zigbee bulb joins: a `child.paired` event) |
//! | SPEAKER | ALSIMS | MEDIA_PLAYER | volume, playing | play, pause, next, set media_player.volume / muted |
//! | LIGHT | ALSIML | LIGHT | power, brightness, watts | set light.power / brightness / colorTemp |
//! | SENSOR | ALSIMN | SENSOR, BATTERY | temperature, humidity, battery | none |
//! | THERMOSTAT | ALSIMT | THERMOSTAT | setpoint, ambient, heating | set thermostat.setpoint / mode |
//! | MOTION | ALSIMM | SENSOR, BATTERY | motion, battery | none |
//! | CONTACT | ALSIMC | SENSOR, BATTERY | open, battery | none |
//! | LOCK | ALSIMK | LOCK, BATTERY (an external keypad) | locked, battery | set lock.locked |
//!
//! The last three are home security's detectors and access device, beyond the
//! five of a fresh sandbox, so a demo home can be armed and tripped: in BURST a
//! detector detects once a second (someone walking about, a door opened and
//! closed) and the lock is opened and locked again at its keypad, each also an
//! event home security reads; a lock opened by command reports a remote unlock.
//!
//! State is nested by capability id with the catalogue's control keys
//! (`light.brightness`, `voice.listening`, `sensor.temperature.temperature`);
//! booleans in telemetry are 0/1, since a telemetry value is a number.

use std::fmt;
use std::str::FromStr;

use alyt_domain::capability::{self, CapabilityDescriptor};
use alyt_domain::device::{DeviceCapability, DeviceKind};
use serde::{Deserialize, Serialize};

/// A virtual-device profile: the kind of device the simulator plays, with
/// its capabilities and the telemetry it reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Profile {
    Hub,
    Speaker,
    Light,
    Sensor,
    Thermostat,
    Motion,
    Contact,
    Lock,
}

/// The devices of a fresh sandbox and the room each goes in.
pub const SANDBOX_DEVICES: [(Profile, &str); 5] = [
    (Profile::Hub, "Living Room"),
    (Profile::Speaker, "Living Room"),
    (Profile::Light, "Kitchen"),
    (Profile::Sensor, "Bedroom"),
    (Profile::Thermostat, "Office"),
];

/// The firmware every virtual device reports.
pub const FIRMWARE: &str = "1.0.0-sim";

impl Profile {
    pub const ALL: [Profile; 8] = [
        Profile::Hub,
        Profile::Speaker,
        Profile::Light,
        Profile::Sensor,
        Profile::Thermostat,
        Profile::Motion,
        Profile::Contact,
        Profile::Lock,
    ];

    /// The wire name (`HUB`, `SPEAKER`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Hub => "HUB",
            Profile::Speaker => "SPEAKER",
            Profile::Light => "LIGHT",
            Profile::Sensor => "SENSOR",
            Profile::Thermostat => "THERMOSTAT",
            Profile::Motion => "MOTION",
            Profile::Contact => "CONTACT",
            Profile::Lock => "LOCK",
        }
    }

    /// The model code of the device's unit.
    pub fn model(self) -> &'static str {
        match self {
            Profile::Hub => "ALSIMH",
            Profile::Speaker => "ALSIMS",
            Profile::Light => "ALSIML",
            Profile::Sensor => "ALSIMN",
            Profile::Thermostat => "ALSIMT",
            Profile::Motion => "ALSIMM",
            Profile::Contact => "ALSIMC",
            Profile::Lock => "ALSIMK",
        }
    }

    /// The device kind of the registered row. The device enum has no
    /// speaker, light or thermostat kind: their capabilities say what they
    /// are, so they are `OTHER`.
    pub fn kind(self) -> DeviceKind {
        match self {
            Profile::Hub => DeviceKind::Hub,
            Profile::Sensor | Profile::Motion | Profile::Contact => DeviceKind::Sensor,
            Profile::Speaker | Profile::Light | Profile::Thermostat | Profile::Lock => {
                DeviceKind::Other
            }
        }
    }

    /// The device capabilities.
    pub fn capabilities(self) -> &'static [DeviceCapability] {
        match self {
            Profile::Hub => &[DeviceCapability::Voice, DeviceCapability::Hub],
            Profile::Speaker => &[DeviceCapability::MediaPlayer],
            Profile::Light => &[DeviceCapability::Light],
            Profile::Sensor | Profile::Motion | Profile::Contact => {
                &[DeviceCapability::Sensor, DeviceCapability::Battery]
            }
            Profile::Thermostat => &[DeviceCapability::Thermostat],
            Profile::Lock => &[DeviceCapability::Lock, DeviceCapability::Battery],
        }
    }

    /// The features the device declares in its status reports. The light
    /// honours colour temperature (`light.colorTemp` requires it) but not
    /// colour; the sensors name the kinds they measure or detect; the lock
    /// has an external keypad (a registration feature: home security takes
    /// a keypad only from the registration, never from a status report).
    pub fn features(self) -> &'static [&'static str] {
        match self {
            Profile::Light => &["color_temp"],
            Profile::Sensor => &["temperature", "humidity"],
            Profile::Motion => &["motion"],
            Profile::Contact => &["contact"],
            Profile::Lock => &["keypad"],
            Profile::Hub | Profile::Speaker | Profile::Thermostat => &[],
        }
    }

    /// [`Profile::features`] as owned strings (what a status report carries).
    pub fn feature_list(self) -> Vec<String> {
        self.features().iter().map(|f| (*f).to_owned()).collect()
    }

    /// The built-in descriptors the device shows: those of its capabilities,
    /// with only the sensor kinds it measures.
    pub fn descriptors(self) -> Vec<&'static CapabilityDescriptor> {
        let features = self.feature_list();
        let state = serde_json::Value::Object(self.initial_state());
        alyt_domain::device::descriptor_ids_for(
            self.capabilities().iter().copied(),
            &features,
            Some(&state),
        )
        .into_iter()
        .filter_map(capability::find)
        .collect()
    }

    /// The telemetry metric names, in their fixed order.
    pub fn metrics(self) -> &'static [&'static str] {
        match self {
            Profile::Hub => &["uptime", "wakeWords", "rssi"],
            Profile::Speaker => &["volume", "playing"],
            Profile::Light => &["power", "brightness", "watts"],
            Profile::Sensor => &["temperature", "humidity", "battery"],
            Profile::Thermostat => &["setpoint", "ambient", "heating"],
            Profile::Motion => &["motion", "battery"],
            Profile::Contact => &["open", "battery"],
            Profile::Lock => &["locked", "battery"],
        }
    }

    /// Where a metric lives in the state: `(capability id, control key)`.
    pub fn metric_control(self, metric: &str) -> Option<(&'static str, &'static str)> {
        let found = match (self, metric) {
            (Profile::Hub, "uptime") => ("hub", "uptime"),
            (Profile::Hub, "wakeWords") => ("voice", "wakeWords"),
            (Profile::Hub, "rssi") => ("hub", "rssi"),
            (Profile::Speaker, "volume") => ("media_player", "volume"),
            (Profile::Speaker, "playing") => ("media_player", "playing"),
            (Profile::Light, "power") => ("light", "power"),
            (Profile::Light, "brightness") => ("light", "brightness"),
            (Profile::Light, "watts") => ("light", "watts"),
            (Profile::Sensor, "temperature") => ("sensor.temperature", "temperature"),
            (Profile::Sensor, "humidity") => ("sensor.humidity", "humidity"),
            (Profile::Sensor, "battery") => ("battery", "level"),
            (Profile::Thermostat, "setpoint") => ("thermostat", "setpoint"),
            (Profile::Thermostat, "ambient") => ("thermostat", "ambient"),
            (Profile::Thermostat, "heating") => ("thermostat", "heating"),
            (Profile::Motion, "motion") => ("sensor.motion", "motion"),
            (Profile::Contact, "open") => ("sensor.contact", "open"),
            (Profile::Lock, "locked") => ("lock", "locked"),
            (Profile::Motion | Profile::Contact | Profile::Lock, "battery") => ("battery", "level"),
            _ => return None,
        };
        Some(found)
    }

    /// The metric that stops in the SENSOR_ERROR scenario: the reading of
    /// the part that "failed" (the radio, the amplifier's level sensor, the
    /// power meter, the thermometer).
    pub fn failing_metric(self) -> &'static str {
        match self {
            Profile::Hub => "rssi",
            Profile::Speaker => "volume",
            Profile::Light => "watts",
            Profile::Sensor => "temperature",
            Profile::Thermostat => "ambient",
            Profile::Motion => "motion",
            Profile::Contact => "open",
            Profile::Lock => "battery",
        }
    }

    /// Whether the device has a battery (the LOW_BATTERY scenario changes
    /// nothing on a mains-powered profile).
    pub fn has_battery(self) -> bool {
        self.capabilities().contains(&DeviceCapability::Battery)
    }

    /// The verbs of the flat command form the device honours, as the
    /// momentary control each one presses.
    pub fn flat_verb(self, verb: &str) -> Option<(&'static str, &'static str)> {
        match (self, verb) {
            (Profile::Hub, "identify") => Some(("hub", "identify")),
            (Profile::Hub, "reboot") => Some(("hub", "reboot")),
            (Profile::Speaker, "play") => Some(("media_player", "play")),
            (Profile::Speaker, "pause") => Some(("media_player", "pause")),
            (Profile::Speaker, "next") => Some(("media_player", "next")),
            _ => None,
        }
    }

    /// A default display name for a device of this profile.
    pub fn default_name(self) -> &'static str {
        match self {
            Profile::Hub => "Virtual hub",
            Profile::Speaker => "Virtual speaker",
            Profile::Light => "Virtual light",
            Profile::Sensor => "Virtual sensor",
            Profile::Thermostat => "Virtual thermostat",
            Profile::Motion => "Virtual motion sensor",
            Profile::Contact => "Virtual door contact",
            Profile::Lock => "Virtual keypad lock",
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A profile name that is not one of [`Profile::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown profile {0:?}; the profiles are HUB, SPEAKER, LIGHT, SENSOR, THERMOSTAT, MOTION, CONTACT, LOCK"
)]
pub struct UnknownProfile(pub String);

impl FromStr for Profile {
    type Err = UnknownProfile;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Profile::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| UnknownProfile(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_are_spec_h_and_the_security_devices() {
        let table: Vec<(&str, &str, Vec<&str>)> = Profile::ALL
            .into_iter()
            .map(|p| {
                (
                    p.as_str(),
                    p.model(),
                    p.capabilities().iter().map(|c| c.as_str()).collect(),
                )
            })
            .collect();
        assert_eq!(
            table,
            vec![
                ("HUB", "ALSIMH", vec!["VOICE", "HUB"]),
                ("SPEAKER", "ALSIMS", vec!["MEDIA_PLAYER"]),
                ("LIGHT", "ALSIML", vec!["LIGHT"]),
                ("SENSOR", "ALSIMN", vec!["SENSOR", "BATTERY"]),
                ("THERMOSTAT", "ALSIMT", vec!["THERMOSTAT"]),
                ("MOTION", "ALSIMM", vec!["SENSOR", "BATTERY"]),
                ("CONTACT", "ALSIMC", vec!["SENSOR", "BATTERY"]),
                ("LOCK", "ALSIMK", vec!["LOCK", "BATTERY"]),
            ]
        );
        for p in Profile::ALL {
            assert_eq!(p.as_str().parse::<Profile>(), Ok(p));
            assert_eq!(serde_json::to_value(p).unwrap(), p.as_str());
        }
        assert!("hub".parse::<Profile>().is_err());
    }

    #[test]
    fn every_metric_and_state_key_is_a_catalogue_control() {
        for p in Profile::ALL {
            let descriptors = p.descriptors();
            let control = |cap: &str, key: &str| {
                descriptors
                    .iter()
                    .find(|d| d.id == cap)
                    .and_then(|d| d.control(key))
                    .is_some()
            };
            for metric in p.metrics() {
                let (cap, key) = p.metric_control(metric).expect("mapped");
                assert!(control(cap, key), "{p} {metric} -> {cap}.{key}");
            }
            assert!(p.metrics().contains(&p.failing_metric()));
            for (cap, controls) in p.initial_state() {
                let controls = controls.as_object().expect("nested by capability");
                for key in controls.keys() {
                    assert!(control(&cap, key), "{p} state {cap}.{key}");
                }
            }
        }
    }

    #[test]
    fn the_sensor_shows_only_the_kinds_it_measures() {
        let ids: Vec<&str> = Profile::Sensor
            .descriptors()
            .iter()
            .map(|d| d.id.as_str())
            .collect();
        assert_eq!(
            ids,
            ["sensor", "sensor.temperature", "sensor.humidity", "battery"]
        );
    }
}
