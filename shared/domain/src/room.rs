//! Rooms: names, the room-icon set and the default icon derived from a name,
//! the add-a-room suggestions (the same list discovery uses), the tile
//! actions a room offers, which two are primary, the aggregate values a tile
//! draws, the plan of a run-action request per member, quiet hours and
//! dashboard pins. Pure rules, no I/O.
//!
//! Rules as implemented:
//! * **Icon.** A room's icon is a kebab-case token of [`ROOM_ICONS`]. A room
//!   created without one stores null and the resolved view shows
//!   [`default_icon`] of its name: the first rule of [`ICON_RULES`] one of
//!   whose keywords starts a word of the name (words are runs of letters
//!   and digits, compared without case), else [`DEFAULT_ROOM_ICON`]. A
//!   stored token that is not kebab-case (foreign or damaged data) also
//!   resolves to the default; a kebab-case token this build does not know is
//!   shown as stored (clients fall back for icons they do not know).
//! * **Available actions** ([`available_actions`]): every room action of
//!   every member's descriptors, once per `(capability, action)`, with the
//!   number of members offering it; ordered by [`DEFAULT_PRIMARY_ORDER`]
//!   first, then by capability and action.
//! * **Primary actions** ([`resolve_primary`]): at most
//!   [`PRIMARY_ACTIONS_MAX`]. A stored choice (`chosenActions`) keeps its
//!   order and drops what the room can no longer serve (and repeats); a
//!   null choice means the defaults in the order lights, volume, thermostat,
//!   listening, those the room can serve.
//! * **Aggregates** ([`action_values`]): toggle = any member on (true if one
//!   reports true, false if members report only false, null if none
//!   reports); lock = locked only when every reporting member is locked;
//!   slider/stepper = the maximum over members (null if none reports a
//!   number); `voice.listening` = the room flag. `members` is how many
//!   members offer the action.
//! * **Run action** ([`plan_member`], [`requested_value`]): a member that does
//!   not offer the action is skipped; the others get `set` of the action's
//!   control with the request's value. A toggle or lock action without a
//!   value flips the current aggregate (an unknown one sends true); a slider
//!   or stepper action needs a value.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::capability::{
    RoomAction, RoomActionPrimitive, ThingDescriptor, is_kebab_token, is_valid_capability_id,
};
use crate::device::has_length;

/// Longest room name, in characters.
pub const ROOM_NAME_MAX_CHARS: usize = 80;
/// Primary tile actions per room, at most.
pub const PRIMARY_ACTIONS_MAX: usize = 2;
/// Most actions a stored choice may name.
pub const CHOSEN_ACTIONS_MAX: usize = 8;
/// Longest run-action `action`, in characters.
pub const ACTION_MAX_CHARS: usize = 80;
/// Dashboard pins per property, at most.
pub const DASHBOARD_PINS_MAX: usize = 40;
/// The defaults of a room without a stored choice, in this order.
pub const DEFAULT_PRIMARY_ORDER: [&str; 4] = ["lights", "volume", "thermostat", LISTENING_ACTION];
/// The room action that is the room's listening flag.
pub const LISTENING_ACTION: &str = "listening";
/// The capability of voice-capable things (its `listening` control).
pub const VOICE_CAPABILITY: &str = "voice";
/// The icon of a room whose name matches no rule.
pub const DEFAULT_ROOM_ICON: &str = "home";

/// The room-icon set: every token a room's icon may be.
pub const ROOM_ICONS: [&str; 24] = [
    "home",
    "sofa",
    "stove",
    "silverware-fork-knife",
    "shower",
    "toilet",
    "teddy-bear",
    "bed",
    "desk",
    "garage",
    "flower",
    "balcony",
    "door",
    "washing-machine",
    "stairs",
    "stairs-down",
    "home-roof",
    "dumbbell",
    "television",
    "pool",
    "wardrobe",
    "tools",
    "music",
    "gamepad",
];

/// Name keywords -> icon, first match wins. A keyword matches a word of the
/// name that starts with it (`bed` matches "Bedroom", `kid` "Kids").
pub const ICON_RULES: &[(&[&str], &str)] = &[
    (&["bath", "shower", "ensuite"], "shower"),
    (&["toilet", "wc", "lavatory", "restroom"], "toilet"),
    (&["nursery", "kid", "child", "baby", "play"], "teddy-bear"),
    (&["living", "lounge", "family", "den", "sitting"], "sofa"),
    (&["kitchen", "kitchenette"], "stove"),
    (&["dining"], "silverware-fork-knife"),
    (&["bed", "guest", "master"], "bed"),
    (&["office", "study", "desk"], "desk"),
    (&["garage", "carport"], "garage"),
    (&["garden", "yard", "lawn", "greenhouse"], "flower"),
    (
        &["patio", "terrace", "balcony", "deck", "porch", "veranda"],
        "balcony",
    ),
    (
        &["hall", "entr", "corridor", "foyer", "lobby", "mudroom"],
        "door",
    ),
    (&["laundry", "utility", "wash"], "washing-machine"),
    (&["stair", "landing"], "stairs"),
    (&["basement", "cellar"], "stairs-down"),
    (&["attic", "loft"], "home-roof"),
    (&["gym", "fitness"], "dumbbell"),
    (
        &["media", "cinema", "theater", "theatre", "tv"],
        "television",
    ),
    (&["pool", "sauna", "spa"], "pool"),
    (&["closet", "wardrobe", "storage", "pantry"], "wardrobe"),
    (&["workshop", "shed"], "tools"),
    (&["music"], "music"),
    (&["game"], "gamepad"),
];

/// Names offered by the add-a-room flow; discovery uses the same list to
/// name the rooms it creates.
pub const ROOM_SUGGESTIONS: [&str; 20] = [
    "Living Room",
    "Kitchen",
    "Dining Room",
    "Bedroom",
    "Guest Room",
    "Kids Room",
    "Nursery",
    "Bathroom",
    "Toilet",
    "Office",
    "Hallway",
    "Entrance",
    "Laundry",
    "Garage",
    "Basement",
    "Attic",
    "Garden",
    "Patio",
    "Gym",
    "Media Room",
];

/// A name's words: runs of letters and digits, lower-cased.
fn words(name: &str) -> impl Iterator<Item = String> + '_ {
    name.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// A name folded for comparison: its letters and digits only, lower-cased
/// ("Living room" and "living-room" fold alike).
pub fn fold_name(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The icon a room of this name shows when none was chosen.
pub fn default_icon(name: &str) -> &'static str {
    let words: Vec<String> = words(name).collect();
    ICON_RULES
        .iter()
        .find(|(keywords, _)| {
            keywords
                .iter()
                .any(|k| words.iter().any(|w| w.starts_with(k)))
        })
        .map_or(DEFAULT_ROOM_ICON, |(_, icon)| icon)
}

/// Whether `token` is in the room-icon set.
pub fn is_room_icon(token: &str) -> bool {
    ROOM_ICONS.contains(&token)
}

/// The icon of the resolved view: the stored token when it is kebab-case,
/// else the default of the name. Never empty.
pub fn resolved_icon(stored: Option<&str>, name: &str) -> String {
    match stored {
        Some(token) if is_kebab_token(token) => token.to_owned(),
        _ => default_icon(name).to_owned(),
    }
}

/// A room name, trimmed: 1-80 characters, no control characters.
pub fn check_name(name: &str) -> Result<String, &'static str> {
    let name = name.trim();
    if !has_length(name, ROOM_NAME_MAX_CHARS) || name.chars().any(char::is_control) {
        return Err("name must be 1 to 80 characters (not only spaces, no control characters)");
    }
    Ok(name.to_owned())
}

/// Quiet hours are whole hours of the day (0-23) in the property's time
/// zone, both set or both null; start == end is refused (say null instead).
/// A window may wrap midnight (22 -> 7).
pub fn check_quiet_hours(start: Option<i64>, end: Option<i64>) -> Result<(), &'static str> {
    match (start, end) {
        (None, None) => Ok(()),
        (Some(s), Some(e)) if (0..24).contains(&s) && (0..24).contains(&e) && s != e => Ok(()),
        (Some(_), Some(_)) => {
            Err("quiet hours are whole hours 0 to 23, and start differs from end")
        }
        _ => Err("quietHoursStart and quietHoursEnd are set together (or both null)"),
    }
}

/// Whether `hour` (0-23) falls in the quiet window.
pub fn in_quiet_hours(start: Option<i64>, end: Option<i64>, hour: i64) -> bool {
    match (start, end) {
        (Some(s), Some(e)) if s < e => (s..e).contains(&hour),
        (Some(s), Some(e)) if s > e => hour >= s || hour < e,
        _ => false,
    }
}

/// One tile action: a room action of a capability.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ActionRef {
    /// A capability id (`light`, `media_player`, ...).
    #[cfg_attr(feature = "openapi", schema(pattern = r"^[a-z_]+(\.[a-z_]+)?$"))]
    pub capability: String,
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 80))]
    pub action: String,
}

impl ActionRef {
    pub fn new(capability: impl Into<String>, action: impl Into<String>) -> Self {
        Self {
            capability: capability.into(),
            action: action.into(),
        }
    }

    /// The `listening` action of the `voice` capability: the room flag.
    pub fn is_listening(&self) -> bool {
        self.capability == VOICE_CAPABILITY && self.action == LISTENING_ACTION
    }

    /// A well-formed reference (capability id pattern, action 1-80).
    pub fn check(&self) -> Result<(), &'static str> {
        if !is_valid_capability_id(&self.capability) {
            return Err(
                "capability must be a capability id (lowercase letters and underscores, optionally one dot)",
            );
        }
        if !has_length(&self.action, ACTION_MAX_CHARS) {
            return Err("action must be 1 to 80 characters");
        }
        Ok(())
    }
}

/// An action the room's members offer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AvailableAction {
    pub capability: String,
    pub action: String,
    pub label: String,
    pub primitive: RoomActionPrimitive,
    /// The control of the capability the action sets.
    pub control_key: String,
    pub icon: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub confirm: Option<bool>,
    /// How many members offer it.
    pub members: u32,
}

impl AvailableAction {
    pub fn reference(&self) -> ActionRef {
        ActionRef::new(&self.capability, &self.action)
    }

    fn is(&self, r: &ActionRef) -> bool {
        self.capability == r.capability && self.action == r.action
    }
}

/// The value a tile draws for one action (computed on the server).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ActionValue {
    pub capability: String,
    pub action: String,
    /// A boolean (toggle, lock, listening), a number (slider, stepper), or
    /// null when no member reports one.
    pub value: Value,
    /// How many members offer the action.
    pub members: u32,
}

/// A thing as far as room rules care: its descriptors and its state keyed
/// `capabilityId.controlKey`.
#[derive(Debug, Clone, Copy)]
pub struct Member<'a> {
    pub capabilities: &'a [ThingDescriptor],
    pub state: &'a BTreeMap<String, Value>,
}

impl<'a> Member<'a> {
    /// The room action `action` of capability `capability`, when the member
    /// offers it.
    pub fn offers(&self, capability: &str, action: &str) -> Option<&'a RoomAction> {
        self.capabilities
            .iter()
            .find(|d| d.id == capability)
            .and_then(|d| d.room_action(action))
    }

    fn value_of(&self, capability: &str, key: &str) -> Option<&'a Value> {
        self.state.get(&format!("{capability}.{key}"))
    }
}

fn default_rank(action: &str) -> usize {
    DEFAULT_PRIMARY_ORDER
        .iter()
        .position(|a| *a == action)
        .unwrap_or(DEFAULT_PRIMARY_ORDER.len())
}

/// Every action the members offer (see the module docs for the order).
pub fn available_actions(members: &[Member<'_>]) -> Vec<AvailableAction> {
    let mut found: BTreeMap<(usize, String, String), AvailableAction> = BTreeMap::new();
    for member in members {
        let mut seen = std::collections::BTreeSet::new();
        for descriptor in member.capabilities {
            for action in &descriptor.room_actions {
                if !seen.insert((descriptor.id.as_str(), action.action.as_str())) {
                    continue;
                }
                let key = (
                    default_rank(&action.action),
                    descriptor.id.clone(),
                    action.action.clone(),
                );
                found
                    .entry(key)
                    .or_insert_with(|| AvailableAction {
                        capability: descriptor.id.clone(),
                        action: action.action.clone(),
                        label: action.label.clone(),
                        primitive: action.primitive,
                        control_key: action.control_key.clone(),
                        icon: action.icon.clone(),
                        confirm: action.confirm,
                        members: 0,
                    })
                    .members += 1;
            }
        }
    }
    found.into_values().collect()
}

/// The primary actions: the stored choice, or the defaults (module docs).
pub fn resolve_primary(
    chosen: Option<&[ActionRef]>,
    available: &[AvailableAction],
) -> Vec<ActionRef> {
    let candidates: Vec<ActionRef> = match chosen {
        Some(chosen) => chosen.to_vec(),
        None => DEFAULT_PRIMARY_ORDER
            .iter()
            .filter_map(|name| available.iter().find(|a| a.action == *name))
            .map(AvailableAction::reference)
            .collect(),
    };
    let mut primary: Vec<ActionRef> = Vec::new();
    for candidate in candidates {
        if primary.len() == PRIMARY_ACTIONS_MAX {
            break;
        }
        if available.iter().any(|a| a.is(&candidate)) && !primary.contains(&candidate) {
            primary.push(candidate);
        }
    }
    primary
}

/// The value of one action over the members that offer it.
fn aggregate(action: &AvailableAction, members: &[Member<'_>], listening: bool) -> Value {
    if action.reference().is_listening() {
        return Value::Bool(listening);
    }
    let values = members
        .iter()
        .filter(|m| m.offers(&action.capability, &action.action).is_some())
        .filter_map(|m| m.value_of(&action.capability, &action.control_key));
    match action.primitive {
        RoomActionPrimitive::Toggle => {
            let bools: Vec<bool> = values.filter_map(Value::as_bool).collect();
            if bools.is_empty() {
                Value::Null
            } else {
                Value::Bool(bools.contains(&true))
            }
        }
        RoomActionPrimitive::Lock => {
            let bools: Vec<bool> = values.filter_map(Value::as_bool).collect();
            if bools.is_empty() {
                Value::Null
            } else {
                Value::Bool(!bools.contains(&false))
            }
        }
        RoomActionPrimitive::Slider | RoomActionPrimitive::Stepper => values
            .filter(|v| v.as_f64().is_some_and(f64::is_finite))
            .max_by(|a, b| {
                let (a, b) = (a.as_f64().unwrap_or(0.0), b.as_f64().unwrap_or(0.0));
                a.total_cmp(&b)
            })
            .cloned()
            .unwrap_or(Value::Null),
    }
}

/// The values of every available action, in the same order.
pub fn action_values(
    available: &[AvailableAction],
    members: &[Member<'_>],
    listening: bool,
) -> Vec<ActionValue> {
    available
        .iter()
        .map(|action| ActionValue {
            capability: action.capability.clone(),
            action: action.action.clone(),
            value: aggregate(action, members, listening),
            members: action.members,
        })
        .collect()
}

/// Why a run-action request cannot be carried out at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    #[error("a {0} action needs a value")]
    Missing(RoomActionPrimitive),
    #[error("the listening action takes true or false")]
    NotABoolean,
}

/// The value sent to the members: the request's, or for a toggle or lock
/// without one the flip of the current aggregate (null -> true).
pub fn requested_value(
    primitive: RoomActionPrimitive,
    requested: Option<&Value>,
    current: &Value,
) -> Result<Value, ValueError> {
    match (requested, primitive) {
        (Some(v), _) if !v.is_null() => Ok(v.clone()),
        (_, RoomActionPrimitive::Toggle | RoomActionPrimitive::Lock) => {
            Ok(Value::Bool(!current.as_bool().unwrap_or(false)))
        }
        (_, other) => Err(ValueError::Missing(other)),
    }
}

/// What happens to one member of a run action.
#[derive(Debug, Clone, PartialEq)]
pub enum MemberPlan {
    /// The member does not offer the action.
    Skip(&'static str),
    /// Send `set capability.key = value` (validated against the member's
    /// descriptors by the command path).
    Set {
        capability: String,
        key: String,
        value: Value,
    },
}

/// The plan for one member (see the module docs).
pub fn plan_member(action: &ActionRef, value: &Value, member: &Member<'_>) -> MemberPlan {
    match member.offers(&action.capability, &action.action) {
        None => MemberPlan::Skip("the thing does not offer this action"),
        Some(room_action) => MemberPlan::Set {
            capability: action.capability.clone(),
            key: room_action.control_key.clone(),
            value: value.clone(),
        },
    }
}

/// What a thing pin points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum PinnedThingKind {
    Device,
    Endpoint,
}

/// A pinned thing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PinnedThing {
    pub kind: PinnedThingKind,
    pub id: uuid::Uuid,
}

/// One dashboard pin: a thing or a routine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum Pin {
    Thing {
        thing: PinnedThing,
    },
    Routine {
        #[serde(rename = "routineId")]
        routine_id: uuid::Uuid,
    },
}

/// Reads stored pins leniently: a pin this build cannot read (a kind added
/// later, damaged data) is dropped instead of failing the read.
pub fn read_pins(stored: &[Value]) -> Vec<Pin> {
    stored
        .iter()
        .filter_map(|v| serde_json::from_value(v.clone()).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capability::{find, validate};
    use proptest::prelude::*;
    use serde_json::json;

    fn descriptors(ids: &[&str]) -> Vec<ThingDescriptor> {
        ids.iter()
            .map(|id| ThingDescriptor::Catalogue(find(id).unwrap()))
            .collect()
    }

    fn state(pairs: &[(&str, Value)]) -> BTreeMap<String, Value> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect()
    }

    #[test]
    fn icons_are_derived_from_names_and_all_in_the_set() {
        for (name, icon) in [
            ("Living Room", "sofa"),
            ("living-room", "sofa"),
            ("Kitchen", "stove"),
            ("Master Bedroom", "bed"),
            ("Guest Bathroom", "shower"),
            ("Kids Bedroom", "teddy-bear"),
            ("Garden", "flower"),
            ("Home office", "desk"),
            ("Entrance hall", "door"),
            ("Room 7", "home"),
            ("", "home"),
        ] {
            assert_eq!(default_icon(name), icon, "{name}");
        }
        for (_, icon) in ICON_RULES {
            assert!(is_room_icon(icon), "{icon} is in the set");
        }
        for icon in ROOM_ICONS {
            assert!(is_kebab_token(icon), "{icon} is kebab-case");
        }
        for name in ROOM_SUGGESTIONS {
            assert_ne!(default_icon(name), DEFAULT_ROOM_ICON, "{name} has an icon");
        }
        assert_eq!(resolved_icon(Some("not an icon"), "Kitchen"), "stove");
        assert_eq!(resolved_icon(Some("future-icon"), "Kitchen"), "future-icon");
        assert_eq!(resolved_icon(None, "Kitchen"), "stove");
    }

    #[test]
    fn names_and_quiet_hours_are_checked() {
        assert_eq!(check_name("  Den ").unwrap(), "Den");
        assert!(check_name("   ").is_err());
        assert!(check_name(&"x".repeat(81)).is_err());
        assert!(check_name("a\nb").is_err());
        assert!(check_quiet_hours(None, None).is_ok());
        assert!(check_quiet_hours(Some(22), Some(7)).is_ok());
        assert!(check_quiet_hours(Some(22), None).is_err());
        assert!(check_quiet_hours(Some(24), Some(7)).is_err());
        assert!(check_quiet_hours(Some(7), Some(7)).is_err());
        assert!(in_quiet_hours(Some(22), Some(7), 23));
        assert!(in_quiet_hours(Some(22), Some(7), 3));
        assert!(!in_quiet_hours(Some(22), Some(7), 12));
        assert!(in_quiet_hours(Some(1), Some(5), 1));
        assert!(!in_quiet_hours(Some(1), Some(5), 5));
        assert_eq!(fold_name("Living-Room 2"), "livingroom2");
    }

    #[test]
    fn a_room_offers_what_its_members_offer_and_defaults_follow_the_order() {
        let hub = descriptors(&["hub", "voice"]);
        let light = descriptors(&["light"]);
        let thermostat = descriptors(&["thermostat"]);
        let speaker = descriptors(&["media_player"]);
        let empty = BTreeMap::new();
        let members: Vec<Member> = [&hub, &light, &light, &thermostat, &speaker]
            .iter()
            .map(|c| Member {
                capabilities: c,
                state: &empty,
            })
            .collect();
        let available = available_actions(&members);
        let names: Vec<(&str, u32)> = available
            .iter()
            .map(|a| (a.action.as_str(), a.members))
            .collect();
        assert_eq!(
            names,
            [
                ("lights", 2),
                ("volume", 1),
                ("thermostat", 1),
                ("listening", 1)
            ]
        );
        assert_eq!(
            resolve_primary(None, &available),
            [
                ActionRef::new("light", "lights"),
                ActionRef::new("media_player", "volume")
            ]
        );
        // Without lights and a speaker: thermostat and listening.
        let available = available_actions(&[members[0], members[3]]);
        assert_eq!(
            resolve_primary(None, &available),
            [
                ActionRef::new("thermostat", "thermostat"),
                ActionRef::new("voice", "listening")
            ]
        );
        // A stored choice keeps its order and drops what is not served.
        let chosen = [
            ActionRef::new("lock", "locks"),
            ActionRef::new("voice", "listening"),
            ActionRef::new("voice", "listening"),
            ActionRef::new("thermostat", "thermostat"),
        ];
        assert_eq!(
            resolve_primary(Some(&chosen), &available),
            [
                ActionRef::new("voice", "listening"),
                ActionRef::new("thermostat", "thermostat")
            ]
        );
        assert!(resolve_primary(Some(&[]), &available).is_empty());
    }

    #[test]
    fn values_are_any_on_the_maximum_and_the_room_flag() {
        let light = descriptors(&["light"]);
        let hub = descriptors(&["hub", "voice"]);
        let thermostat = descriptors(&["thermostat"]);
        let off = state(&[
            ("light.power", json!(false)),
            ("light.brightness", json!(10)),
        ]);
        let on = state(&[("light.power", json!(true))]);
        let warm = state(&[("thermostat.setpoint", json!(21.5))]);
        let cool = state(&[("thermostat.setpoint", json!(18))]);
        let muted = state(&[("voice.listening", json!(false))]);
        let m = |c, s| Member {
            capabilities: c,
            state: s,
        };
        let members = [
            m(&light, &off),
            m(&light, &on),
            m(&thermostat, &warm),
            m(&thermostat, &cool),
            m(&hub, &muted),
        ];
        let available = available_actions(&members);
        let values = action_values(&available, &members, true);
        let get = |a: &str| values.iter().find(|v| v.action == a).unwrap();
        assert_eq!(get("lights").value, json!(true));
        assert_eq!(get("lights").members, 2);
        assert_eq!(get("thermostat").value, json!(21.5));
        // The room flag, whatever the hub reports.
        assert_eq!(get("listening").value, json!(true));
        let values = action_values(&available, &members[..1], false);
        assert_eq!(values[0].value, json!(false));
        let unknown = BTreeMap::new();
        let values = action_values(&available, &[m(&light, &unknown)], false);
        assert_eq!(values[0].value, Value::Null);
    }

    #[test]
    fn locks_are_locked_only_when_all_are() {
        let lock = descriptors(&["lock"]);
        let locked = state(&[("lock.locked", json!(true))]);
        let open = state(&[("lock.locked", json!(false))]);
        let m = |s| Member {
            capabilities: &lock,
            state: s,
        };
        let members = [m(&locked), m(&open)];
        let available = available_actions(&members);
        assert_eq!(
            action_values(&available, &members, true)[0].value,
            json!(false)
        );
        assert_eq!(
            action_values(&available, &members[..1], true)[0].value,
            json!(true)
        );
    }

    #[test]
    fn run_action_values_and_plans() {
        use RoomActionPrimitive as P;
        assert_eq!(
            requested_value(P::Toggle, None, &Value::Null).unwrap(),
            json!(true)
        );
        assert_eq!(
            requested_value(P::Toggle, None, &json!(true)).unwrap(),
            json!(false)
        );
        assert_eq!(
            requested_value(P::Slider, Some(&json!(40)), &Value::Null).unwrap(),
            json!(40)
        );
        assert_eq!(
            requested_value(P::Slider, None, &json!(3)),
            Err(ValueError::Missing(P::Slider))
        );
        let light = descriptors(&["light"]);
        let sensor = descriptors(&["sensor"]);
        let empty = BTreeMap::new();
        let lights = ActionRef::new("light", "lights");
        assert_eq!(
            plan_member(
                &lights,
                &json!(true),
                &Member {
                    capabilities: &light,
                    state: &empty
                }
            ),
            MemberPlan::Set {
                capability: "light".into(),
                key: "power".into(),
                value: json!(true)
            }
        );
        assert!(matches!(
            plan_member(
                &lights,
                &json!(true),
                &Member {
                    capabilities: &sensor,
                    state: &empty
                }
            ),
            MemberPlan::Skip(_)
        ));
    }

    #[test]
    fn pins_read_strictly_on_input_and_leniently_from_the_store() {
        let thing = json!({ "kind": "thing", "thing": { "kind": "device", "id": "0190b5a0-0000-7000-8000-000000000001" } });
        let routine =
            json!({ "kind": "routine", "routineId": "0190b5a0-0000-7000-8000-000000000002" });
        let pin: Pin = serde_json::from_value(thing.clone()).unwrap();
        assert_eq!(serde_json::to_value(&pin).unwrap(), thing);
        let pin: Pin = serde_json::from_value(routine.clone()).unwrap();
        assert_eq!(serde_json::to_value(&pin).unwrap(), routine);
        for bad in [
            json!({ "kind": "scene", "sceneId": "x" }),
            json!({ "kind": "routine", "routineId": "0190b5a0-0000-7000-8000-000000000002", "extra": 1 }),
            json!({ "kind": "thing", "thing": { "kind": "camera", "id": "0190b5a0-0000-7000-8000-000000000001" } }),
        ] {
            assert!(serde_json::from_value::<Pin>(bad.clone()).is_err(), "{bad}");
        }
        let read = read_pins(&[json!({ "kind": "scene" }), thing, routine]);
        assert_eq!(read.len(), 2, "the unknown kind is dropped, the rest read");
    }

    #[test]
    fn the_catalogue_room_actions_fit_the_rules() {
        // Every default action exists in the catalogue, on the capability
        // the defaults assume, and every room action's control exists.
        for descriptor in &crate::capability::catalogue().items {
            validate(descriptor).unwrap();
        }
        for (capability, action) in [
            ("light", "lights"),
            ("media_player", "volume"),
            ("thermostat", "thermostat"),
            ("voice", "listening"),
        ] {
            assert!(find(capability).unwrap().room_action(action).is_some());
        }
    }

    fn any_member_caps() -> impl Strategy<Value = Vec<&'static str>> {
        proptest::sample::subsequence(
            vec![
                "light",
                "switch",
                "thermostat",
                "lock",
                "cover",
                "media_player",
                "voice",
                "hub",
                "sensor",
                "camera",
            ],
            0..4,
        )
    }

    fn any_value() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-50i64..150).prop_map(|n| json!(n)),
            (-50.0f64..150.0).prop_map(|n| json!(n)),
            "[a-z]{0,4}".prop_map(Value::String),
        ]
    }

    fn any_action_ref() -> impl Strategy<Value = ActionRef> {
        prop_oneof![
            Just(ActionRef::new("light", "lights")),
            Just(ActionRef::new("media_player", "volume")),
            Just(ActionRef::new("thermostat", "thermostat")),
            Just(ActionRef::new("voice", "listening")),
            Just(ActionRef::new("lock", "locks")),
            Just(ActionRef::new("cover", "covers")),
            Just(ActionRef::new("fan", "fans")),
        ]
    }

    proptest! {
        #[test]
        fn primary_actions_are_few_served_and_distinct(
            rooms in proptest::collection::vec(any_member_caps(), 0..6),
            chosen in proptest::option::of(proptest::collection::vec(any_action_ref(), 0..6)),
        ) {
            let descs: Vec<Vec<ThingDescriptor>> = rooms.iter().map(|c| descriptors(c)).collect();
            let empty = BTreeMap::new();
            let members: Vec<Member> = descs.iter().map(|c| Member { capabilities: c, state: &empty }).collect();
            let available = available_actions(&members);
            let primary = resolve_primary(chosen.as_deref(), &available);
            prop_assert!(primary.len() <= PRIMARY_ACTIONS_MAX);
            for (i, p) in primary.iter().enumerate() {
                prop_assert!(available.iter().any(|a| a.is(p)), "served: {p:?}");
                prop_assert!(!primary[..i].contains(p), "distinct");
            }
            match &chosen {
                // The chosen ones, in their order.
                Some(chosen) => {
                    let served: Vec<&ActionRef> = chosen.iter().filter(|c| available.iter().any(|a| a.is(c))).collect();
                    let mut expected: Vec<ActionRef> = Vec::new();
                    for c in served { if !expected.contains(c) && expected.len() < 2 { expected.push(c.clone()); } }
                    prop_assert_eq!(&primary, &expected);
                }
                // Defaults, in their fixed order.
                None => {
                    let ranks: Vec<usize> = primary.iter().map(|p| default_rank(&p.action)).collect();
                    prop_assert!(ranks.windows(2).all(|w| w[0] < w[1]));
                    prop_assert!(ranks.iter().all(|r| *r < DEFAULT_PRIMARY_ORDER.len()));
                    let servable = DEFAULT_PRIMARY_ORDER.iter().filter(|d| available.iter().any(|a| a.action == **d)).count();
                    prop_assert_eq!(primary.len(), servable.min(PRIMARY_ACTIONS_MAX));
                }
            }
        }

        #[test]
        fn aggregates_follow_the_rule(
            powers in proptest::collection::vec(any_value(), 0..6),
            levels in proptest::collection::vec(any_value(), 0..6),
            flag in any::<bool>(),
        ) {
            let light = descriptors(&["light"]);
            let speaker = descriptors(&["media_player", "voice"]);
            let states: Vec<BTreeMap<String, Value>> = powers.iter().map(|p| state(&[("light.power", p.clone())])).collect();
            let levels_states: Vec<BTreeMap<String, Value>> = levels.iter().map(|v| state(&[("media_player.volume", v.clone()), ("voice.listening", json!(!flag))])).collect();
            let mut members: Vec<Member> = states.iter().map(|s| Member { capabilities: &light, state: s }).collect();
            members.extend(levels_states.iter().map(|s| Member { capabilities: &speaker, state: s }));
            let available = available_actions(&members);
            let values = action_values(&available, &members, flag);
            for v in &values {
                match v.action.as_str() {
                    "lights" => {
                        prop_assert_eq!(v.members as usize, powers.len());
                        let bools: Vec<bool> = powers.iter().filter_map(Value::as_bool).collect();
                        let expected = if bools.is_empty() { Value::Null } else { Value::Bool(bools.contains(&true)) };
                        prop_assert_eq!(&v.value, &expected);
                    }
                    "volume" => {
                        let max = levels.iter().filter_map(Value::as_f64).fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))));
                        prop_assert_eq!(v.value.as_f64(), max);
                    }
                    "listening" => prop_assert_eq!(&v.value, &json!(flag)),
                    other => prop_assert!(false, "unexpected action {}", other),
                }
            }
        }

        #[test]
        fn every_name_gets_an_icon_from_the_set(name in "\\PC{0,40}") {
            let icon = default_icon(&name);
            prop_assert!(is_room_icon(icon));
            prop_assert!(!resolved_icon(None, &name).is_empty());
            prop_assert!(is_kebab_token(&resolved_icon(Some(&name), &name)));
        }
    }
}
