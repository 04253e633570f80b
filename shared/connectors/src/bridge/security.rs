//! Things for home security on the bridge (one of each eligible family), so
//! arming, readiness and selections are tested for real: a motion sensor, a
//! door contact, a window's vibration sensor, a camera with detection and one
//! without, a lock with an external keypad and a siren.
//! [`VirtualBridge::add_security_things`] adds them; their state changes
//! with [`VirtualBridge::set_state`] (a door opened:
//! `set_state("door-front", "sensor.contact", "open", true)`).

use alyt_domain::device::{DeviceCapability, Lenient};
use alyt_domain::integration::EndpointKind;
use serde_json::json;

use alyt_domain::security::Deterrent;
use alyt_domain::security::outputs::Sound;

use super::{Bridge, NOT_RESPONDING, UNKNOWN_THING, VirtualBridge, capabilities, object, write};
use crate::{AuthorityAnswer, AuthorityCall, DiscoveredThing, SoundAnswer, SoundCall};

fn thing(
    external_id: &str,
    kind: EndpointKind,
    name: &str,
    room: &str,
    set: &[DeviceCapability],
    features: &[&str],
    state: serde_json::Value,
) -> DiscoveredThing {
    DiscoveredThing {
        external_id: external_id.into(),
        kind: Lenient::Known(kind),
        name: name.into(),
        room: Some(room.into()),
        address: None,
        capability_set: capabilities(set),
        capabilities: None,
        features: features.iter().map(|f| f.to_string()).collect(),
        state: object(state),
    }
}

/// The security things: their external ids are `motion-hall`,
/// `door-front`, `window-bedroom`, `camera-garden` (detects people),
/// `camera-garage` (no detection), `lock-front` (external keypad) and
/// `siren-hall`.
pub fn security_things() -> Vec<DiscoveredThing> {
    use DeviceCapability as C;
    use EndpointKind::{Other, Sensor};
    vec![
        thing(
            "motion-hall",
            Sensor,
            "Hall motion",
            "Hall",
            &[C::Sensor],
            &["motion"],
            json!({ "sensor.motion": { "motion": false } }),
        ),
        thing(
            "door-front",
            Sensor,
            "Front door",
            "Hall",
            &[C::Sensor],
            &["contact"],
            json!({ "sensor.contact": { "open": false } }),
        ),
        thing(
            "window-bedroom",
            Sensor,
            "Bedroom window",
            "Bedroom",
            &[C::Sensor],
            &["vibration"],
            json!({ "sensor.vibration": { "vibration": false } }),
        ),
        thing(
            "camera-garden",
            Other,
            "Garden camera",
            "Garden",
            &[C::Camera],
            &["person"],
            json!({ "camera": { "streaming": true, "privacy": false } }),
        ),
        thing(
            "camera-garage",
            Other,
            "Garage camera",
            "Garden",
            &[C::Camera],
            &[],
            json!({ "camera": { "streaming": true, "privacy": false } }),
        ),
        thing(
            "lock-front",
            Other,
            "Front lock",
            "Hall",
            &[C::Lock],
            &["keypad"],
            json!({ "lock": { "locked": true, "jammed": false } }),
        ),
        thing(
            "siren-hall",
            Other,
            "Hall siren",
            "Hall",
            &[C::Switch],
            &["siren"],
            json!({ "switch": { "power": false } }),
        ),
    ]
}

impl VirtualBridge {
    /// A lock is moved: `action` is how (`keypad-unlock`, `inside-unlock`,
    /// `ambiguous-unlock`, `outside-key`, `remote-unlock`, `failed-code`,
    /// `keypad-lock`), reported as `lock.lastAction` with `lock.actionAt`;
    /// `lock.locked` follows. False for an unknown id.
    pub fn move_lock(&self, external_id: &str, action: &str) -> bool {
        let locked = match action {
            "keypad-lock" => Some(true),
            "failed-code" => None,
            _ => Some(false),
        };
        let at = time::OffsetDateTime::now_utc()
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default();
        let known = self.set_state(external_id, "lock", "lastAction", json!(action))
            && self.set_state(external_id, "lock", "actionAt", json!(at));
        if let (true, Some(locked)) = (known, locked) {
            self.set_state(external_id, "lock", "locked", json!(locked));
        }
        known
    }

    /// Adds [`security_things`].
    pub fn add_security_things(&self) {
        for thing in security_things() {
            self.add_thing(thing);
        }
    }

    /// Adds [`alarm_outputs`].
    pub fn add_alarm_outputs(&self) {
        for thing in alarm_outputs() {
            self.add_thing(thing);
        }
    }
}

/// Outputs with a native state worth saving, both in the Bedroom:
/// `light-bedroom` (colour, brightness, on/off) and `speaker-bedroom` (a
/// local speaker that reports its position).
pub fn alarm_outputs() -> Vec<DiscoveredThing> {
    let mut speaker =
        super::music::local_speaker("speaker-bedroom", "Bedroom speaker", Some("Bedroom"));
    speaker.state = object(json!({ "media_player": {
        "volume": 20, "muted": false, "playing": false, "position": 0
    } }));
    vec![
        thing(
            "light-bedroom",
            EndpointKind::Light,
            "Bedroom light",
            "Bedroom",
            &[DeviceCapability::Light],
            &[],
            json!({ "light": { "power": false, "brightness": 40, "color": "#ffaa00" } }),
        ),
        speaker,
    ]
}

/// The bridge as a dedicated security system (off unless
/// [`VirtualBridge::be_security_system`]): the homes its engine runs.
#[derive(Default)]
pub(super) struct SecuritySystem {
    enabled: bool,
    active: std::collections::BTreeSet<String>,
}

impl VirtualBridge {
    /// Makes the bridge a dedicated security system: it accepts
    /// `v1/security/authority` (else it answers `rejected`).
    pub fn be_security_system(&self) {
        self.lock().security.enabled = true;
    }

    /// Whether its engine runs `property_id`'s security.
    pub fn runs_security_of(&self, property_id: &str) -> bool {
        self.lock().security.active.contains(property_id)
    }
}

impl Bridge {
    /// `v1/security/authority`: takes over or gives back a home.
    pub(super) fn authority(&mut self, call: &AuthorityCall) -> AuthorityAnswer {
        let system = &mut self.security;
        if !system.enabled {
            return AuthorityAnswer::Rejected {
                reason: "this bridge is not a security system".into(),
            };
        }
        if call.active {
            system.active.insert(call.property_id.clone());
            AuthorityAnswer::Active
        } else {
            system.active.remove(&call.property_id);
            AuthorityAnswer::Inactive
        }
    }

    /// `v1/security/sound`: the speaker sounds the siren or the deterrent
    /// recording at the volume asked, unmuted, from the start.
    pub(super) fn sound(&mut self, call: &SoundCall) -> SoundAnswer {
        let Some(thing) = self.thing_mut(&call.external_id) else {
            return SoundAnswer::Failed {
                reason: UNKNOWN_THING.into(),
            };
        };
        if !thing.reachable {
            return SoundAnswer::Failed {
                reason: NOT_RESPONDING.into(),
            };
        }
        if !thing.info.state.contains_key("media_player") {
            return SoundAnswer::Rejected {
                reason: "not a speaker".into(),
            };
        }
        let source = match (call.sound, call.recording) {
            (Sound::Siren, _) => "alarm:siren",
            (Sound::Deterrent, Deterrent::Voice) => "alarm:deterrent:voice",
            (Sound::Deterrent, Deterrent::Dog) => "alarm:deterrent:dog",
        };
        let state = &mut thing.info.state;
        write(state, "media_player", "volume", json!(call.volume.min(100)));
        write(state, "media_player", "muted", json!(false));
        write(state, "media_player", "source", json!(source));
        write(state, "media_player", "playing", json!(true));
        if state
            .get("media_player")
            .is_some_and(|p| p.get("position").is_some())
        {
            write(state, "media_player", "position", json!(0));
        }
        SoundAnswer::Sounding {
            state: thing.info.state.clone(),
        }
    }
}
