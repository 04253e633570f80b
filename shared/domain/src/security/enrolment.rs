//! Which things take part in home security, and as what: by capabilities and
//! supported feature aliases only, never by names or addresses.
//!
//! * Detectors: motion, contact and vibration sensors (`sensor.vibration`
//!   stays distinct; a generic detected or presence flag is not motion), and
//!   a camera's own detection (a camera without a detection feature stays a
//!   camera).
//! * Access devices: locks (a lock with an external keypad can prompt to
//!   arm and disarm with a verified code; it never detects).
//! * Outputs: lights and speakers (restored after an alarm); sirens are
//!   outputs only.
//!
//! Every capability of a combined device is kept: a lock with a contact
//! sensor is both an access device and a contact detector.
//!
//! Selection per thing: `auto` follows the capabilities, `include` is the
//! manual fallback (it also takes detection the features only hint at, a
//! camera's motion without a detection feature), `exclude` leaves the thing
//! out and survives rediscovery (it is stored by thing, not derived).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::Signal;
use crate::device::DeviceCapability;

/// Feature aliases of each detection signal.
const MOTION: &[&str] = &["motion", "sensor.motion", "pir", "occupancy"];
const CONTACT: &[&str] = &["contact", "sensor.contact", "door", "window", "opening"];
const VIBRATION: &[&str] = &["vibration", "sensor.vibration", "glass-break"];
/// Features that give a camera its own detection.
const CAMERA_DETECTION: &[&str] = &["motion", "person", "detection", "camera.detection"];
/// A lock with an external keypad.
const KEYPAD: &[&str] = &["keypad", "lock.keypad"];
/// A siren (on a switch or an audio output).
const SIREN: &[&str] = &["siren", "alarm.siren"];

/// A household's choice for one thing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Selection {
    #[default]
    Auto,
    Include,
    Exclude,
}

/// An output home security may drive (its native state saved first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Output {
    Siren,
    Light,
    Speaker,
}

/// What a thing is to home security.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Families {
    /// Detection signals its capabilities and features give it.
    pub signals: BTreeSet<Signal>,
    /// Signals only a manual `include` enrols (a camera without a
    /// detection feature).
    pub includable: BTreeSet<Signal>,
    /// A lock (an access device).
    pub lock: bool,
    /// The lock has an external keypad.
    pub keypad: bool,
    pub camera: bool,
    pub outputs: BTreeSet<Output>,
}

impl Families {
    /// Whether security has any use for the thing.
    pub fn any(&self) -> bool {
        !self.signals.is_empty()
            || !self.includable.is_empty()
            || self.lock
            || self.camera
            || !self.outputs.is_empty()
    }

    /// The detection signals enrolled under `selection`.
    pub fn enrolled(&self, selection: Selection) -> BTreeSet<Signal> {
        match selection {
            Selection::Auto => self.signals.clone(),
            Selection::Include => self.signals.union(&self.includable).copied().collect(),
            Selection::Exclude => BTreeSet::new(),
        }
    }
}

fn has(features: &[String], aliases: &[&str]) -> bool {
    features
        .iter()
        .any(|f| aliases.iter().any(|a| f.eq_ignore_ascii_case(a)))
}

/// Whether `feature` names an external keypad.
pub fn is_keypad(feature: &str) -> bool {
    has(&[feature.to_owned()], KEYPAD)
}

/// The features a device has after its own status report declared
/// `reported`: what it reports, except the keypad. A keypad code turns a
/// home Off, so whether a lock has a keypad is what its owner registered
/// (or its hub paired it with), kept from `stored`; a device claiming a
/// keypad for itself later gains none, and one leaving it out loses none.
pub fn reported_features(stored: &[String], reported: &[String]) -> Vec<String> {
    let mut features: Vec<String> = reported.iter().filter(|f| !is_keypad(f)).cloned().collect();
    features.extend(stored.iter().filter(|f| is_keypad(f)).cloned());
    features
}

/// Whether the thing is a siren: home security's output only (commanded
/// directly only by whoever controls the home's security, never by a room
/// action).
pub fn is_siren(capabilities: &BTreeSet<DeviceCapability>, features: &[String]) -> bool {
    families(capabilities, features)
        .outputs
        .contains(&Output::Siren)
}

/// What a thing with `capabilities` and `features` is to home security.
pub fn families(capabilities: &BTreeSet<DeviceCapability>, features: &[String]) -> Families {
    let mut families = Families::default();
    if capabilities.contains(&DeviceCapability::Sensor) {
        for (signal, aliases) in [
            (Signal::Motion, MOTION),
            (Signal::Contact, CONTACT),
            (Signal::Vibration, VIBRATION),
        ] {
            if has(features, aliases) {
                families.signals.insert(signal);
            }
        }
    }
    if capabilities.contains(&DeviceCapability::Camera) {
        families.camera = true;
        if has(features, CAMERA_DETECTION) {
            families.signals.insert(Signal::Camera);
        } else {
            families.includable.insert(Signal::Camera);
        }
    }
    if capabilities.contains(&DeviceCapability::Lock) {
        families.lock = true;
        families.keypad = has(features, KEYPAD);
        // A lock's door contact is a detector like any other.
        if has(features, CONTACT) {
            families.signals.insert(Signal::Contact);
        }
    }
    if capabilities.contains(&DeviceCapability::Light) {
        families.outputs.insert(Output::Light);
    }
    if capabilities.contains(&DeviceCapability::MediaPlayer) {
        families.outputs.insert(Output::Speaker);
    }
    let sounds = capabilities.contains(&DeviceCapability::Switch)
        || capabilities.contains(&DeviceCapability::AudioOut);
    if sounds && has(features, SIREN) {
        families.outputs.insert(Output::Siren);
    }
    families
}

#[cfg(test)]
mod tests {
    use super::*;
    use DeviceCapability as C;

    fn of(capabilities: &[DeviceCapability], features: &[&str]) -> Families {
        families(
            &capabilities.iter().copied().collect(),
            &features.iter().map(|f| f.to_string()).collect::<Vec<_>>(),
        )
    }

    #[test]
    fn a_locks_own_status_report_never_gives_or_takes_its_keypad() {
        let strings = |list: &[&str]| list.iter().map(|f| f.to_string()).collect::<Vec<_>>();
        let lock = [C::Lock, C::Sensor].into_iter().collect();
        // Registered without a keypad, the lock claims one: still none.
        let claimed = reported_features(&[], &strings(&["motion", "Keypad", "lock.keypad"]));
        assert_eq!(claimed, strings(&["motion"]));
        assert!(!families(&lock, &claimed).keypad);
        // Registered with one, the lock leaves it out: still a keypad lock.
        let kept = reported_features(&strings(&["keypad", "contact"]), &strings(&["motion"]));
        assert_eq!(kept, strings(&["motion", "keypad"]));
        assert!(families(&lock, &kept).keypad);
    }

    #[test]
    fn capabilities_and_aliases_decide_never_names() {
        assert_eq!(
            of(&[C::Sensor], &["motion"]).signals,
            [Signal::Motion].into()
        );
        assert_eq!(of(&[C::Sensor], &["PIR"]).signals, [Signal::Motion].into());
        assert_eq!(
            of(&[C::Sensor], &["door"]).signals,
            [Signal::Contact].into()
        );
        // Vibration stays distinct; a generic detected flag is not motion.
        assert_eq!(
            of(&[C::Sensor], &["sensor.vibration"]).signals,
            [Signal::Vibration].into()
        );
        assert!(
            of(&[C::Sensor], &["detected", "presence"])
                .signals
                .is_empty()
        );
        // A sensor that only measures is nothing to security.
        assert!(!of(&[C::Sensor, C::Battery], &["temperature"]).any());
        // A motion feature on a thing that is not a sensor is not a detector.
        assert!(of(&[C::Light], &["motion"]).signals.is_empty());
    }

    #[test]
    fn a_camera_without_detection_stays_a_camera_unless_included() {
        let plain = of(&[C::Camera], &[]);
        assert!(plain.camera);
        assert!(plain.enrolled(Selection::Auto).is_empty());
        assert_eq!(plain.enrolled(Selection::Include), [Signal::Camera].into());
        let detecting = of(&[C::Camera], &["person"]);
        assert_eq!(detecting.enrolled(Selection::Auto), [Signal::Camera].into());
        assert!(detecting.enrolled(Selection::Exclude).is_empty());
    }

    #[test]
    fn every_capability_of_a_combined_device_is_kept() {
        let lock = of(&[C::Lock, C::Sensor], &["keypad", "contact", "vibration"]);
        assert!(lock.lock && lock.keypad);
        assert_eq!(lock.signals, [Signal::Contact, Signal::Vibration].into());
        let siren_light = of(&[C::Switch, C::Light], &["siren"]);
        assert_eq!(siren_light.outputs, [Output::Siren, Output::Light].into());
        assert!(siren_light.signals.is_empty(), "a siren is an output only");
        assert_eq!(of(&[C::MediaPlayer], &[]).outputs, [Output::Speaker].into());
    }
}
