//! Home security: one authority per home arms, detects, alarms and restores.
//! Plain data and rules, no I/O.
//!
//! * [`Mode`]: Away (every selected detection signal), Home (the selected
//!   contact and vibration perimeter), Sleep (the selected signals outside
//!   the sleeping rooms), Off.
//! * [`machine`]: the home's security state and every move of the state
//!   table: arming with the reviewed revision and generation, the exit
//!   countdown (only from Off), changes between armed modes (at once),
//!   refusals that keep everything as it was, Off that waits for nothing
//!   and cannot be sent by a stale generation, the keypad and inside
//!   unlocks that disarm (and the unlocks that never do), detection with
//!   duplicates removed and nothing from before a signal's start, entry
//!   delays, alarms, acknowledgement, the restoration that blocks arming,
//!   and the switch of authority.

pub mod enrolment;
pub mod hub;
pub mod machine;
pub mod outputs;

use serde::{Deserialize, Serialize};

/// A home's security mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Off,
    Away,
    Home,
    Sleep,
}

impl Mode {
    pub fn is_armed(self) -> bool {
        self != Mode::Off
    }
}

/// What a detector senses: the device families that detect (motion,
/// contact, vibration, a camera's own detection).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Signal {
    Motion,
    Contact,
    /// `sensor.vibration`: kept distinct from motion.
    Vibration,
    /// A camera's own detection (a camera without one is no detector).
    Camera,
}

impl Signal {
    /// Where a thing's state says the signal detects (`true` there: it
    /// detects; a contact that is open).
    pub fn state_key(self) -> (&'static str, &'static str) {
        match self {
            Signal::Motion => ("sensor.motion", "motion"),
            Signal::Contact => ("sensor.contact", "open"),
            Signal::Vibration => ("sensor.vibration", "vibration"),
            Signal::Camera => ("camera", "motion"),
        }
    }

    /// Home mode watches the perimeter: contact and vibration.
    pub fn is_perimeter(self) -> bool {
        matches!(self, Signal::Contact | Signal::Vibration)
    }
}

/// One detection signal of one thing (a combined device has several).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignalRef {
    pub thing_id: uuid::Uuid,
    pub signal: Signal,
}

/// A detection signal as enrolled for arming: whether the household
/// selected it and where it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Enrolled {
    pub signal: SignalRef,
    /// In one of the home's chosen sleeping rooms.
    pub in_sleeping_room: bool,
    /// An entry (a door contact): an entry delay applies before its alarm.
    pub entry: bool,
}

impl Enrolled {
    /// Whether `mode` watches this signal.
    pub fn watched_in(&self, mode: Mode) -> bool {
        match mode {
            Mode::Off => false,
            Mode::Away => true,
            Mode::Home => self.signal.signal.is_perimeter(),
            Mode::Sleep => !self.in_sleeping_room,
        }
    }
}

/// The longest exit or entry delay.
pub const MAX_DELAY_SECONDS: u32 = 300;

/// A home's security settings (changed by an owner while Off, with
/// restoration complete).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// The exit countdown when arming from Off.
    pub exit_delay_seconds: u32,
    /// The delay before an entry (a door contact) sounds the alarm.
    pub entry_delay_seconds: u32,
    /// Rooms Sleep mode leaves unwatched.
    #[serde(default)]
    pub sleeping_rooms: std::collections::BTreeSet<uuid::Uuid>,
    /// Rooms whose lights flash in an alarm (between sunset and sunrise).
    #[serde(default)]
    pub night_light_rooms: std::collections::BTreeSet<uuid::Uuid>,
    /// Rooms whose speakers sound the alarm.
    #[serde(default)]
    pub speaker_alarm_rooms: std::collections::BTreeSet<uuid::Uuid>,
    /// Where the home is, for its night lights' sunset and sunrise (none:
    /// the home's own coordinates, if it has them).
    #[serde(default)]
    pub location: Option<Location>,
    /// The hub that runs the home's protection (none: the platform's own
    /// engine). Arming then needs the hub ([`hub::arming_check`]).
    #[serde(default)]
    pub hub_device_id: Option<uuid::Uuid>,
    /// The fixed recording the speaker alarm alternates with the siren.
    #[serde(default)]
    pub deterrent: Deterrent,
}

/// The deterrent recordings a speaker alarm can play (fixed recordings,
/// never the household's own audio).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Deterrent {
    /// A spoken warning ("This property is protected; leave now"), never a
    /// claim that help is on its way: the platform dispatches no one.
    #[default]
    Voice,
    /// A large dog barking.
    Dog,
}

impl Settings {
    /// Whether an alarm drives `output` of a thing in `room`: every siren;
    /// the lights of the night-light rooms (when `night`); the speakers of
    /// the speaker-alarm rooms.
    pub fn drives(&self, output: enrolment::Output, room: Option<uuid::Uuid>, night: bool) -> bool {
        let in_rooms = |rooms: &std::collections::BTreeSet<uuid::Uuid>| {
            room.is_some_and(|r| rooms.contains(&r))
        };
        match output {
            enrolment::Output::Siren => true,
            enrolment::Output::Light => night && in_rooms(&self.night_light_rooms),
            enrolment::Output::Speaker => in_rooms(&self.speaker_alarm_rooms),
        }
    }
}

/// Where a lock's move came from (kept with every keypad disarm: a code
/// that turns a home Off is answered for by the thing that reported it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum LockSource {
    /// A device of the home, over its own broker channels.
    #[serde(rename_all = "camelCase")]
    Device { device_id: uuid::Uuid },
    /// An endpoint of a connector's integration in the home.
    #[serde(rename_all = "camelCase")]
    Endpoint {
        connector_id: uuid::Uuid,
        integration_id: uuid::Uuid,
    },
}

/// A verified keypad code that turned a home Off, as the incident history
/// keeps it (numbered with the home's incidents).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KeypadDisarm {
    pub number: u64,
    /// The armed period it ended.
    pub generation: u64,
    /// The lock whose keypad it was.
    pub lock: uuid::Uuid,
    pub source: LockSource,
    #[serde(with = "time::serde::rfc3339")]
    pub at: time::OffsetDateTime,
}

/// A TV's delegated control of a home's security (a TV has none without an
/// explicit, current delegation): given by the TV token's own person, until a
/// time; it holds only while that person still controls the home's security.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Delegation {
    /// The person whose TV it is (and who delegated).
    pub user_id: uuid::Uuid,
    #[serde(with = "time::serde::rfc3339")]
    pub until: time::OffsetDateTime,
}

/// The longest a delegation lasts.
pub const MAX_DELEGATION: time::Duration = time::Duration::days(30);

/// A place on Earth.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Location {
    /// -90 to 90.
    pub latitude: f64,
    /// -180 to 180.
    pub longitude: f64,
}

// Coordinates from JSON are finite numbers: equality is total for them.
impl Eq for Location {}

impl Location {
    /// Within the globe's bounds.
    pub fn is_valid(&self) -> bool {
        (-90.0..=90.0).contains(&self.latitude) && (-180.0..=180.0).contains(&self.longitude)
    }
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            exit_delay_seconds: 30,
            entry_delay_seconds: 30,
            sleeping_rooms: Default::default(),
            night_light_rooms: Default::default(),
            speaker_alarm_rooms: Default::default(),
            location: None,
            hub_device_id: None,
            deterrent: Deterrent::Voice,
        }
    }
}

impl Settings {
    pub fn timing(&self) -> machine::Timing {
        machine::Timing {
            exit_delay: time::Duration::seconds(i64::from(self.exit_delay_seconds)),
            entry_delay: time::Duration::seconds(i64::from(self.entry_delay_seconds)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_stored_with_the_retired_keypad_locks_still_read() {
        // Every keypad lock disarms now; records written while a household
        // could narrow that keep their old field, which is ignored.
        let stored = serde_json::json!({
            "exitDelaySeconds": 20,
            "entryDelaySeconds": 10,
            "keypadLocks": ["0190b5a0-0000-7000-8000-00000000e001"],
        });
        let settings: Settings = serde_json::from_value(stored).unwrap();
        assert_eq!(settings.exit_delay_seconds, 20);
        assert!(
            serde_json::to_value(&settings)
                .unwrap()
                .get("keypadLocks")
                .is_none()
        );
    }
}
