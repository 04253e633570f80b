//! What an `events` message tells its home's security, read from the
//! event's fields (still a free-form object: the device log keeps all of it).
//!
//! | `type` | fields |
//! |---|---|
//! | `motion`, `contact` (also `door`, `open`), `vibration` | `value?` (`false`: the end of a detection, nothing to tell), `id?` (the device's own event id, 1-128 bytes), `at?` (when it happened, RFC 3339) |
//! | `lock` | `action`: `keypad-unlock`, `inside-unlock`, `ambiguous-unlock`, `outside-key`, `remote-unlock`, `failed-code`, `keypad-lock` |
//! | `security.config` | `revision` (unsigned integer), `digest` (string): the configuration a hub applied |
//! | `security.state` | `generation` (unsigned integer), `mode` (`off`, `away`, `home`, `sleep`), `ready` (boolean): a hub's protection state |
//!
//! Reading never fails the message: a field of the wrong type counts as
//! absent, so a detection falls back to the message's id and arrival, and a
//! lock move or a hub report without a usable required field tells nothing.
//! Other fields are ignored.

use alyt_domain::security::Mode;
use alyt_domain::security::Signal;
use alyt_domain::security::hub::HubReport;
use alyt_domain::security::machine::LockEvent;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use time::OffsetDateTime;

use super::JsonObject;

/// The longest device event id a detection keeps (bytes).
pub const EVENT_ID_MAX_BYTES: usize = 128;

/// What one device event tells home security.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SecurityEvent {
    /// A detection began.
    Detection {
        signal: Signal,
        /// The device's own id for it, when usable.
        id: Option<String>,
        /// When it happened, when the device said.
        at: Option<OffsetDateTime>,
    },
    /// A lock moved (how it was unlocked or locked).
    LockMove(LockEvent),
    /// A hub reported what it applied or its protection state.
    Hub(HubReport),
}

impl SecurityEvent {
    /// What `fields` (an `events` message) tell home security, if anything.
    pub fn of(fields: &JsonObject) -> Option<Self> {
        Some(match Wire::deserialize(fields).ok()? {
            Wire::Motion(detection) => detection.started(Signal::Motion)?,
            Wire::Contact(detection) => detection.started(Signal::Contact)?,
            Wire::Vibration(detection) => detection.started(Signal::Vibration)?,
            Wire::Lock { action } => SecurityEvent::LockMove(action.0?),
            Wire::HubConfig { revision, digest } => SecurityEvent::Hub(HubReport::Config {
                revision: revision.0?,
                digest: digest.0?,
            }),
            Wire::HubState {
                generation,
                mode,
                ready,
            } => SecurityEvent::Hub(HubReport::State {
                generation: generation.0?,
                mode: mode.0?,
                ready: ready.0?,
            }),
        })
    }
}

/// An event's fields as home security reads them: the variant by `type`
/// (the names are `alyt_domain::security::hub`'s `CONFIG_EVENT` and
/// `STATE_EVENT` for a hub's; a test holds them equal), every field
/// [`Loose`].
#[derive(Deserialize)]
#[serde(tag = "type")]
enum Wire {
    #[serde(rename = "motion")]
    Motion(WireDetection),
    #[serde(rename = "contact", alias = "door", alias = "open")]
    Contact(WireDetection),
    #[serde(rename = "vibration")]
    Vibration(WireDetection),
    #[serde(rename = "lock")]
    Lock {
        #[serde(default)]
        action: Loose<LockEvent>,
    },
    #[serde(rename = "security.config")]
    HubConfig {
        #[serde(default)]
        revision: Loose<u64>,
        #[serde(default)]
        digest: Loose<String>,
    },
    #[serde(rename = "security.state")]
    HubState {
        #[serde(default)]
        generation: Loose<u64>,
        #[serde(default)]
        mode: Loose<Mode>,
        #[serde(default)]
        ready: Loose<bool>,
    },
}

#[derive(Deserialize)]
struct WireDetection {
    #[serde(default)]
    value: Loose<bool>,
    #[serde(default)]
    id: Loose<String>,
    #[serde(default)]
    at: Loose<Rfc3339>,
}

impl WireDetection {
    /// The detection, unless the event is the end of one.
    fn started(self, signal: Signal) -> Option<SecurityEvent> {
        if self.value.0 == Some(false) {
            return None;
        }
        Some(SecurityEvent::Detection {
            signal,
            id: self
                .id
                .0
                .filter(|id| !id.is_empty() && id.len() <= EVENT_ID_MAX_BYTES),
            at: self.at.0.map(|at| at.0),
        })
    }
}

#[derive(Deserialize)]
struct Rfc3339(#[serde(with = "time::serde::rfc3339")] OffsetDateTime);

/// A field that is `None` when absent or not of its type: a device's event
/// is never refused for a field home security cannot use.
struct Loose<T>(Option<T>);

impl<T> Default for Loose<T> {
    fn default() -> Self {
        Self(None)
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Loose<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Ok(Self(serde_json::from_value(value).ok()))
    }
}

#[cfg(test)]
mod tests {
    use alyt_domain::security::hub::{CONFIG_EVENT, STATE_EVENT};
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    fn of(value: Value) -> Option<SecurityEvent> {
        SecurityEvent::of(value.as_object().expect("an object"))
    }

    /// How ingest read these fields by hand before they were typed: the
    /// oracle the typed reading must agree with on every object.
    fn by_hand(fields: &JsonObject) -> Option<SecurityEvent> {
        let kind = fields.get("type").and_then(|t| t.as_str());
        let number = |key: &str| fields.get(key).and_then(Value::as_u64);
        let signal = match kind {
            Some("motion") => Some(Signal::Motion),
            Some("contact" | "door" | "open") => Some(Signal::Contact),
            Some("vibration") => Some(Signal::Vibration),
            _ => None,
        };
        if let Some(signal) = signal {
            if fields.get("value").and_then(|v| v.as_bool()) == Some(false) {
                return None;
            }
            return Some(SecurityEvent::Detection {
                signal,
                id: match fields.get("id").and_then(|v| v.as_str()) {
                    Some(id) if !id.is_empty() && id.len() <= 128 => Some(id.to_owned()),
                    _ => None,
                },
                at: fields.get("at").and_then(|v| v.as_str()).and_then(|t| {
                    OffsetDateTime::parse(t, &time::format_description::well_known::Rfc3339).ok()
                }),
            });
        }
        match kind {
            Some("lock") => fields
                .get("action")
                .and_then(|a| serde_json::from_value::<LockEvent>(a.clone()).ok())
                .map(SecurityEvent::LockMove),
            Some(CONFIG_EVENT) => match (
                number("revision"),
                fields.get("digest").and_then(|d| d.as_str()),
            ) {
                (Some(revision), Some(digest)) => Some(SecurityEvent::Hub(HubReport::Config {
                    revision,
                    digest: digest.to_owned(),
                })),
                _ => None,
            },
            Some(STATE_EVENT) => {
                let mode = fields
                    .get("mode")
                    .and_then(|m| serde_json::from_value(m.clone()).ok());
                let ready = fields.get("ready").and_then(Value::as_bool);
                match (number("generation"), mode, ready) {
                    (Some(generation), Some(mode), Some(ready)) => {
                        Some(SecurityEvent::Hub(HubReport::State {
                            generation,
                            mode,
                            ready,
                        }))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    #[test]
    fn a_detection_with_its_own_id_and_time() {
        assert_eq!(
            of(
                json!({ "type": "motion", "value": true, "id": "e-1", "at": "2026-06-01T12:00:00Z", "zone": "hall" })
            ),
            Some(SecurityEvent::Detection {
                signal: Signal::Motion,
                id: Some("e-1".into()),
                at: Some(time::macros::datetime!(2026-06-01 12:00 UTC)),
            })
        );
        for kind in ["contact", "door", "open"] {
            assert_eq!(
                of(json!({ "type": kind })),
                Some(SecurityEvent::Detection {
                    signal: Signal::Contact,
                    id: None,
                    at: None
                }),
                "{kind}"
            );
        }
    }

    #[test]
    fn fields_a_detection_cannot_use_are_left_to_the_message() {
        let long = "x".repeat(EVENT_ID_MAX_BYTES + 1);
        for (id, at) in [
            (json!(""), json!("yesterday")),
            (json!(long), json!(12)),
            (json!(7), json!(null)),
        ] {
            assert_eq!(
                of(json!({ "type": "vibration", "value": "false", "id": id, "at": at })),
                Some(SecurityEvent::Detection {
                    signal: Signal::Vibration,
                    id: None,
                    at: None
                })
            );
        }
        let longest = "x".repeat(EVENT_ID_MAX_BYTES);
        assert!(matches!(
            of(json!({ "type": "motion", "id": longest })),
            Some(SecurityEvent::Detection { id: Some(_), .. })
        ));
    }

    #[test]
    fn the_end_of_a_detection_tells_nothing() {
        assert_eq!(of(json!({ "type": "motion", "value": false })), None);
    }

    #[test]
    fn a_lock_move_needs_a_known_action() {
        assert_eq!(
            of(json!({ "type": "lock", "action": "keypad-unlock", "keypadCode": 1 })),
            Some(SecurityEvent::LockMove(LockEvent::KeypadUnlock))
        );
        for action in [json!("picked"), json!(null), json!(3)] {
            assert_eq!(of(json!({ "type": "lock", "action": action })), None);
        }
        assert_eq!(of(json!({ "type": "lock" })), None);
    }

    #[test]
    fn a_hubs_reports_under_the_domains_event_names() {
        assert_eq!(
            of(json!({ "type": CONFIG_EVENT, "revision": 3, "digest": "ab" })),
            Some(SecurityEvent::Hub(HubReport::Config {
                revision: 3,
                digest: "ab".into()
            }))
        );
        assert_eq!(
            of(json!({ "type": STATE_EVENT, "generation": 2, "mode": "away", "ready": true })),
            Some(SecurityEvent::Hub(HubReport::State {
                generation: 2,
                mode: Mode::Away,
                ready: true
            }))
        );
        for broken in [
            json!({ "type": CONFIG_EVENT, "revision": -1, "digest": "ab" }),
            json!({ "type": CONFIG_EVENT, "revision": 1.0, "digest": "ab" }),
            json!({ "type": CONFIG_EVENT, "revision": 1 }),
            json!({ "type": STATE_EVENT, "generation": 2, "mode": "panic", "ready": true }),
            json!({ "type": STATE_EVENT, "generation": 2, "mode": "away", "ready": "yes" }),
        ] {
            assert_eq!(of(broken.clone()), None, "{broken}");
        }
    }

    #[test]
    fn other_events_tell_nothing() {
        for other in [
            json!({}),
            // Not a variant's index either.
            json!({ "type": 0 }),
            json!({ "type": 5, "generation": 1, "mode": "off", "ready": true }),
            json!({ "type": "child.paired", "protocol": "ZIGBEE" }),
            json!({ "type": "Motion" }),
        ] {
            assert_eq!(of(other.clone()), None, "{other}");
        }
    }

    /// Values near what each field takes, and far from it.
    fn field_value() -> impl Strategy<Value = Value> {
        let words = [
            "motion",
            "contact",
            "door",
            "open",
            "vibration",
            "camera",
            "lock",
            CONFIG_EVENT,
            STATE_EVENT,
            "keypad-unlock",
            "inside-unlock",
            "failed-code",
            "keypad-lock",
            "KEYPAD_UNLOCK",
            "off",
            "away",
            "home",
            "sleep",
            "",
            "2026-06-01T12:00:00Z",
            "2026-06-01T12:00:00.123456+02:00",
            "2026-06-01 12:00:00",
            "true",
            "false",
        ];
        let leaf = prop_oneof![
            proptest::sample::select(words.to_vec()).prop_map(|w| json!(w)),
            "[a-z0-9:-]{0,140}".prop_map(Value::String),
            any::<bool>().prop_map(Value::Bool),
            (0u64..8).prop_map(|n| json!(n)),
            any::<u64>().prop_map(|n| json!(n)),
            any::<i64>().prop_map(|n| json!(n)),
            prop_oneof![Just(0.0), Just(1.0), Just(-2.5), proptest::num::f64::NORMAL]
                .prop_map(|f| json!(f)),
            Just(Value::Null),
        ];
        leaf.prop_recursive(2, 8, 3, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                proptest::collection::btree_map("[a-z]{1,4}", inner, 0..3)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    /// Objects with the fields home security reads, each present or not.
    fn event_fields() -> impl Strategy<Value = JsonObject> {
        let names = [
            "type",
            "value",
            "id",
            "at",
            "action",
            "revision",
            "digest",
            "generation",
            "mode",
            "ready",
            "zone",
        ];
        proptest::collection::vec((proptest::bool::weighted(0.6), field_value()), names.len())
            .prop_map(move |fields| {
                names
                    .iter()
                    .zip(fields)
                    .filter(|(_, (present, _))| *present)
                    .map(|(name, (_, value))| ((*name).to_owned(), value))
                    .collect()
            })
    }

    /// The type a generated object mostly carries: one home security reads.
    fn typed_fields() -> impl Strategy<Value = JsonObject> {
        (
            event_fields(),
            proptest::option::weighted(
                0.9,
                proptest::sample::select(vec![
                    "motion",
                    "contact",
                    "door",
                    "open",
                    "vibration",
                    "lock",
                    CONFIG_EVENT,
                    STATE_EVENT,
                ]),
            ),
        )
            .prop_map(|(mut fields, kind)| {
                if let Some(kind) = kind {
                    fields.insert("type".into(), json!(kind));
                }
                fields
            })
    }

    proptest! {
        /// The typed reading tells exactly what the hand-written one did,
        /// whatever the fields hold.
        #[test]
        fn the_typed_reading_agrees_with_the_reading_by_hand(fields in typed_fields()) {
            prop_assert_eq!(SecurityEvent::of(&fields), by_hand(&fields), "{:?}", fields);
        }
    }
}
