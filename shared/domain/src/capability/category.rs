//! Thing categories: the closed set of a thing's `category`.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The category a thing is shown as; decides its default icon.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum ThingCategory {
    Light,
    Switch,
    Thermostat,
    Lock,
    Cover,
    Fan,
    Camera,
    Speaker,
    Vacuum,
    Irrigation,
    Hub,
    Voice,
    Energy,
    Button,
    Sensor,
    Appliance,
    Other,
}

impl ThingCategory {
    /// All categories, in the spec's order.
    pub const ALL: [ThingCategory; 17] = [
        ThingCategory::Light,
        ThingCategory::Switch,
        ThingCategory::Thermostat,
        ThingCategory::Lock,
        ThingCategory::Cover,
        ThingCategory::Fan,
        ThingCategory::Camera,
        ThingCategory::Speaker,
        ThingCategory::Vacuum,
        ThingCategory::Irrigation,
        ThingCategory::Hub,
        ThingCategory::Voice,
        ThingCategory::Energy,
        ThingCategory::Button,
        ThingCategory::Sensor,
        ThingCategory::Appliance,
        ThingCategory::Other,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            ThingCategory::Light => "light",
            ThingCategory::Switch => "switch",
            ThingCategory::Thermostat => "thermostat",
            ThingCategory::Lock => "lock",
            ThingCategory::Cover => "cover",
            ThingCategory::Fan => "fan",
            ThingCategory::Camera => "camera",
            ThingCategory::Speaker => "speaker",
            ThingCategory::Vacuum => "vacuum",
            ThingCategory::Irrigation => "irrigation",
            ThingCategory::Hub => "hub",
            ThingCategory::Voice => "voice",
            ThingCategory::Energy => "energy",
            ThingCategory::Button => "button",
            ThingCategory::Sensor => "sensor",
            ThingCategory::Appliance => "appliance",
            ThingCategory::Other => "other",
        }
    }

    /// Reads a wire name.
    pub fn from_wire(name: &str) -> Option<ThingCategory> {
        ThingCategory::ALL.into_iter().find(|c| c.as_str() == name)
    }

    /// The default icon (a kebab-case token) of a thing of this category.
    /// Clients fall back to it for icon tokens they do not know.
    pub fn icon(self) -> &'static str {
        match self {
            ThingCategory::Light => "lightbulb",
            ThingCategory::Switch => "power-socket",
            ThingCategory::Thermostat => "thermostat",
            ThingCategory::Lock => "lock",
            ThingCategory::Cover => "blinds",
            ThingCategory::Fan => "fan",
            ThingCategory::Camera => "cctv",
            ThingCategory::Speaker => "speaker",
            ThingCategory::Vacuum => "robot-vacuum",
            ThingCategory::Irrigation => "sprinkler",
            ThingCategory::Hub => "hub",
            ThingCategory::Voice => "microphone",
            ThingCategory::Energy => "lightning-bolt",
            ThingCategory::Button => "gesture-tap-button",
            ThingCategory::Sensor => "motion-sensor",
            ThingCategory::Appliance => "coffee-maker",
            ThingCategory::Other => "devices",
        }
    }

    /// The catalogue capabilities a thing of this category typically
    /// carries, most characteristic first. Every id is in the catalogue.
    pub fn capability_ids(self) -> &'static [&'static str] {
        match self {
            ThingCategory::Light => &["light"],
            ThingCategory::Switch => &["switch", "energy"],
            ThingCategory::Thermostat => &["thermostat"],
            ThingCategory::Lock => &["lock", "battery"],
            ThingCategory::Cover => &["cover"],
            ThingCategory::Fan => &["fan"],
            ThingCategory::Camera => &["camera"],
            ThingCategory::Speaker => &["media_player"],
            ThingCategory::Vacuum => &["vacuum", "battery"],
            ThingCategory::Irrigation => &["irrigation"],
            ThingCategory::Hub => &["hub", "voice", "network"],
            ThingCategory::Voice => &["voice", "audio_out"],
            ThingCategory::Energy => &["energy"],
            ThingCategory::Button => &["button", "battery"],
            ThingCategory::Sensor => &[
                "sensor",
                "sensor.temperature",
                "sensor.humidity",
                "sensor.motion",
                "sensor.contact",
                "sensor.vibration",
                "battery",
            ],
            ThingCategory::Appliance => &["coffee_machine"],
            ThingCategory::Other => &["generic"],
        }
    }
}

impl fmt::Display for ThingCategory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
