//! Routines: a household's scenes and schedules, as plain data and rules, no
//! I/O.
//!
//! A routine is `{ name, enabled, triggers[], do[] }` in one home. Its steps
//! run in order: a thing command, a room action, a delay, a music step
//! (`{ kind: 'music', speakerId, uri, name, volume? }`, the spec's shape) or
//! a home-security mode. Triggers: `manual` (run on request) and `time` (a
//! time of day on chosen weekdays, in the home's timezone).
//!
//! * [`parse_routine`] reads a body from untrusted JSON: closed objects, and
//!   every problem names its field by path (`do[2].volume`).
//! * [`MusicUri::parse`] reads the music step's uri forms.
//! * [`next_occurrence`] is when a time trigger fires next. A local time
//!   that a daylight-saving change skips fires at the same offset after the
//!   change (02:30 on a spring-forward night runs at 03:30); one the change
//!   repeats fires once, at the first. An occurrence is named by its local
//!   date, so a run per (trigger, date) is written once however many sweeps
//!   see it.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;

use crate::room::{ActionRef, PinnedThing};

/// Characters of a routine's name.
pub const NAME_MAX_CHARS: usize = 80;
/// Steps of one routine.
pub const MAX_STEPS: usize = 50;
/// Triggers of one routine.
pub const MAX_TRIGGERS: usize = 10;
/// The longest delay step, and the most all delays of a routine add up to.
pub const MAX_DELAY_SECONDS: u32 = 3600;
/// Characters of a music step's uri and display name.
pub const MUSIC_URI_MAX_CHARS: usize = 300;
pub const MUSIC_NAME_MAX_CHARS: usize = 200;

/// A problem with a routine body: the field's path and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {detail}")]
pub struct RoutineProblem {
    pub field: String,
    pub detail: String,
}

fn problem(field: impl Into<String>, detail: impl Into<String>) -> RoutineProblem {
    RoutineProblem {
        field: field.into(),
        detail: detail.into(),
    }
}

/// A day of the week, as a trigger names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Weekday {
    Mon,
    Tue,
    Wed,
    Thu,
    Fri,
    Sat,
    Sun,
}

impl Weekday {
    fn of(day: jiff::civil::Weekday) -> Self {
        use jiff::civil::Weekday as W;
        match day {
            W::Monday => Weekday::Mon,
            W::Tuesday => Weekday::Tue,
            W::Wednesday => Weekday::Wed,
            W::Thursday => Weekday::Thu,
            W::Friday => Weekday::Fri,
            W::Saturday => Weekday::Sat,
            W::Sunday => Weekday::Sun,
        }
    }
}

/// A time of day, `HH:MM` (24-hour).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TimeOfDay {
    pub hour: u8,
    pub minute: u8,
}

impl TimeOfDay {
    pub fn parse(text: &str) -> Option<Self> {
        let (h, m) = text.split_once(':')?;
        if h.len() != 2 || m.len() != 2 {
            return None;
        }
        let (hour, minute) = (h.parse::<u8>().ok()?, m.parse::<u8>().ok()?);
        (hour < 24 && minute < 60).then_some(Self { hour, minute })
    }
}

impl std::fmt::Display for TimeOfDay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:02}:{:02}", self.hour, self.minute)
    }
}

impl Serialize for TimeOfDay {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for TimeOfDay {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        TimeOfDay::parse(&text)
            .ok_or_else(|| serde::de::Error::custom("a time of day HH:MM, 00:00 to 23:59"))
    }
}

/// What starts a routine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum Trigger {
    /// Run on request (`POST /routines/{id}/run`).
    Manual,
    /// At a time of day on chosen weekdays, in the home's timezone.
    Time {
        /// `HH:MM`, 24-hour, in the home's timezone.
        #[cfg_attr(
            feature = "openapi",
            schema(value_type = String, pattern = "^([01][0-9]|2[0-3]):[0-5][0-9]$")
        )]
        at: TimeOfDay,
        days: BTreeSet<Weekday>,
    },
}

/// A home-security mode a routine step asks for.
pub use crate::security::Mode as SecurityMode;

/// The music step: play a uri on a speaker, optionally at a volume.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MusicStep {
    pub speaker_id: uuid::Uuid,
    pub uri: String,
    /// Display only; grants no access.
    pub name: String,
    /// 0-100; absent leaves the volume as it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(nullable = false, maximum = 100))]
    pub volume: Option<u8>,
}

/// The contract's name for a routine step's thing command: the thing
/// command envelope as `POST .../commands` takes it, kept as it was sent (an
/// object; a named schema, so generated clients give it one type).
#[cfg(feature = "openapi")]
#[derive(utoipa::ToSchema)]
pub struct ThingCommand(pub serde_json::Map<String, Value>);

/// One step of a routine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum Step {
    /// A command to one thing: the thing command envelope, checked against
    /// the thing's descriptors where the routine is saved.
    Thing {
        thing: PinnedThing,
        /// The thing command envelope (as `POST .../commands` takes it).
        #[cfg_attr(feature = "openapi", schema(value_type = ThingCommand))]
        command: Value,
    },
    /// A room action, as a room tile sends it.
    #[serde(rename_all = "camelCase")]
    Room {
        room_id: uuid::Uuid,
        capability: String,
        action: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        value: Option<Value>,
    },
    Delay {
        seconds: u32,
    },
    Music(MusicStep),
    Security {
        mode: SecurityMode,
    },
}

/// A routine's content as a household writes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RoutineBody {
    pub name: String,
    #[serde(default = "enabled_by_default")]
    pub enabled: bool,
    #[serde(default)]
    pub triggers: Vec<Trigger>,
    #[serde(rename = "do")]
    pub steps: Vec<Step>,
}

fn enabled_by_default() -> bool {
    true
}

/// Reads and checks a routine body. Triggers and steps are read one by one
/// by their `kind`, so a problem inside one names its whole path.
pub fn parse_routine(value: &Value) -> Result<RoutineBody, RoutineProblem> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct Raw {
        name: String,
        #[serde(default = "enabled_by_default")]
        enabled: bool,
        #[serde(default)]
        triggers: Vec<Value>,
        #[serde(rename = "do")]
        steps: Vec<Value>,
    }
    let raw: Raw = read_at(value, "")?;
    let triggers = raw
        .triggers
        .iter()
        .enumerate()
        .map(|(i, t)| read_trigger(t, &format!("triggers[{i}]")))
        .collect::<Result<_, _>>()?;
    let steps = raw
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| read_step(s, &format!("do[{i}]")))
        .collect::<Result<_, _>>()?;
    let body = RoutineBody {
        name: raw.name,
        enabled: raw.enabled,
        triggers,
        steps,
    };
    check(&body)?;
    Ok(body)
}

/// `value` read as a `T`, a problem named by its path under `at`.
fn read_at<T: serde::de::DeserializeOwned>(value: &Value, at: &str) -> Result<T, RoutineProblem> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let field = match (at, path.as_str()) {
            ("", ".") => "body".to_owned(),
            ("", path) => path.to_owned(),
            (at, ".") => at.to_owned(),
            (at, path) => format!("{at}.{path}"),
        };
        problem(field, e.into_inner().to_string())
    })
}

/// The `kind` of a trigger or a step.
fn kind_at<'a>(value: &'a Value, at: &str, kinds: &str) -> Result<&'a str, RoutineProblem> {
    if !value.is_object() {
        return Err(problem(at, "an object with a kind"));
    }
    value
        .get("kind")
        .and_then(Value::as_str)
        .ok_or_else(|| problem(format!("{at}.kind"), format!("one of {kinds}")))
}

fn read_trigger(value: &Value, at: &str) -> Result<Trigger, RoutineProblem> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Manual {
        #[allow(dead_code)]
        kind: String,
    }
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Time {
        #[allow(dead_code)]
        kind: String,
        at: TimeOfDay,
        days: BTreeSet<Weekday>,
    }
    const KINDS: &str = "manual, time";
    match kind_at(value, at, KINDS)? {
        "manual" => read_at::<Manual>(value, at).map(|_| Trigger::Manual),
        "time" => read_at::<Time>(value, at).map(|t| Trigger::Time {
            at: t.at,
            days: t.days,
        }),
        _ => Err(problem(format!("{at}.kind"), format!("one of {KINDS}"))),
    }
}

fn read_step(value: &Value, at: &str) -> Result<Step, RoutineProblem> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Thing {
        #[allow(dead_code)]
        kind: String,
        thing: PinnedThing,
        command: Value,
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct Room {
        #[allow(dead_code)]
        kind: String,
        room_id: uuid::Uuid,
        capability: String,
        action: String,
        #[serde(default)]
        value: Option<Value>,
    }
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Delay {
        #[allow(dead_code)]
        kind: String,
        seconds: u32,
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct Music {
        #[allow(dead_code)]
        kind: String,
        speaker_id: uuid::Uuid,
        uri: String,
        name: String,
        #[serde(default)]
        volume: Option<u8>,
    }
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Security {
        #[allow(dead_code)]
        kind: String,
        mode: SecurityMode,
    }
    const KINDS: &str = "thing, room, delay, music, security";
    match kind_at(value, at, KINDS)? {
        "thing" => read_at::<Thing>(value, at).map(|t| Step::Thing {
            thing: t.thing,
            command: t.command,
        }),
        "room" => read_at::<Room>(value, at).map(|r| Step::Room {
            room_id: r.room_id,
            capability: r.capability,
            action: r.action,
            value: r.value,
        }),
        "delay" => read_at::<Delay>(value, at).map(|d| Step::Delay { seconds: d.seconds }),
        "music" => read_at::<Music>(value, at).map(|m| {
            Step::Music(MusicStep {
                speaker_id: m.speaker_id,
                uri: m.uri,
                name: m.name,
                volume: m.volume,
            })
        }),
        "security" => read_at::<Security>(value, at).map(|s| Step::Security { mode: s.mode }),
        _ => Err(problem(format!("{at}.kind"), format!("one of {KINDS}"))),
    }
}

fn text_ok(text: &str, max: usize) -> bool {
    let chars = text.trim().chars().count();
    chars > 0 && chars <= max && !text.chars().any(char::is_control)
}

/// Every rule a routine body must meet beyond its shape.
pub fn check(body: &RoutineBody) -> Result<(), RoutineProblem> {
    if !text_ok(&body.name, NAME_MAX_CHARS) {
        return Err(problem(
            "name",
            format!("1 to {NAME_MAX_CHARS} characters, no control characters"),
        ));
    }
    if body.triggers.len() > MAX_TRIGGERS {
        return Err(problem(
            "triggers",
            format!("at most {MAX_TRIGGERS} triggers"),
        ));
    }
    for (i, trigger) in body.triggers.iter().enumerate() {
        if let Trigger::Time { days, .. } = trigger
            && days.is_empty()
        {
            return Err(problem(
                format!("triggers[{i}].days"),
                "at least one weekday",
            ));
        }
    }
    if body.steps.is_empty() || body.steps.len() > MAX_STEPS {
        return Err(problem("do", format!("1 to {MAX_STEPS} steps")));
    }
    let mut delays = 0u32;
    for (i, step) in body.steps.iter().enumerate() {
        let at = format!("do[{i}]");
        match step {
            Step::Thing { command, .. } => {
                if !command.is_object() {
                    return Err(problem(
                        format!("{at}.command"),
                        "a thing command envelope (an object)",
                    ));
                }
            }
            Step::Room {
                capability, action, ..
            } => {
                ActionRef::new(capability.clone(), action.clone())
                    .check()
                    .map_err(|why| {
                        let field = if why.starts_with("capability") {
                            "capability"
                        } else {
                            "action"
                        };
                        problem(format!("{at}.{field}"), why)
                    })?;
            }
            Step::Delay { seconds } => {
                if *seconds == 0 || *seconds > MAX_DELAY_SECONDS {
                    return Err(problem(
                        format!("{at}.seconds"),
                        format!("1 to {MAX_DELAY_SECONDS} seconds"),
                    ));
                }
                delays += seconds;
                if delays > MAX_DELAY_SECONDS {
                    return Err(problem(
                        format!("{at}.seconds"),
                        format!(
                            "the delays of a routine add up to at most {MAX_DELAY_SECONDS} seconds"
                        ),
                    ));
                }
            }
            Step::Music(music) => check_music(music, &at)?,
            Step::Security { .. } => {}
        }
    }
    Ok(())
}

fn check_music(music: &MusicStep, at: &str) -> Result<(), RoutineProblem> {
    if music.uri.chars().count() > MUSIC_URI_MAX_CHARS {
        return Err(problem(
            format!("{at}.uri"),
            format!("at most {MUSIC_URI_MAX_CHARS} characters"),
        ));
    }
    MusicUri::parse(&music.uri).map_err(|why| problem(format!("{at}.uri"), why))?;
    if !text_ok(&music.name, MUSIC_NAME_MAX_CHARS) {
        return Err(problem(
            format!("{at}.name"),
            format!("1 to {MUSIC_NAME_MAX_CHARS} characters, no control characters"),
        ));
    }
    if music.volume.is_some_and(|v| v > 100) {
        return Err(problem(format!("{at}.volume"), "an integer 0 to 100"));
    }
    Ok(())
}

/// What a music step plays: one of the allowed uri forms.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum MusicUri {
    /// `<provider>:<type>:<id>`: from a streaming-provider account (a local
    /// speaker plays it; a cloud speaker cannot).
    Provider {
        provider: String,
        kind: String,
        id: String,
    },
    /// `FV:<id>`: a favourite of the speaker system.
    Favourite(String),
    /// `speaker:favorite:<id>`: saved on a cloud speaker's household.
    SpeakerFavorite(String),
    /// `speaker:playlist:<id>`: saved on a cloud speaker's household.
    SpeakerPlaylist(String),
}

fn id_ok(id: &str) -> bool {
    !id.is_empty() && id.len() <= 200 && !id.chars().any(|c| c.is_whitespace() || c.is_control())
}

fn word_ok(word: &str) -> bool {
    (2..=40).contains(&word.len())
        && word.starts_with(|c: char| c.is_ascii_lowercase())
        && word
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

impl MusicUri {
    pub fn parse(uri: &str) -> Result<Self, &'static str> {
        const FORMS: &str = "a uri of the form <provider>:<type>:<id>, FV:<id>, speaker:favorite:<id> or speaker:playlist:<id>";
        if let Some(id) = uri.strip_prefix("FV:") {
            return if id_ok(id) {
                Ok(MusicUri::Favourite(id.to_owned()))
            } else {
                Err(FORMS)
            };
        }
        let mut parts = uri.splitn(3, ':');
        let (Some(first), Some(second), Some(id)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(FORMS);
        };
        if !id_ok(id) {
            return Err(FORMS);
        }
        match (first, second) {
            ("speaker", "favorite") => Ok(MusicUri::SpeakerFavorite(id.to_owned())),
            ("speaker", "playlist") => Ok(MusicUri::SpeakerPlaylist(id.to_owned())),
            ("speaker", _) => Err(FORMS),
            (provider, kind) if word_ok(provider) && word_ok(kind) => Ok(MusicUri::Provider {
                provider: provider.to_owned(),
                kind: kind.to_owned(),
                id: id.to_owned(),
            }),
            _ => Err(FORMS),
        }
    }

    /// Whether a cloud speaker can play it: only what its own system saved.
    pub fn playable_on_cloud_speaker(&self) -> bool {
        matches!(
            self,
            MusicUri::SpeakerFavorite(_) | MusicUri::SpeakerPlaylist(_) | MusicUri::Favourite(_)
        )
    }
}

/// One firing of a time trigger: when, and the home's local date that names
/// it (a run per trigger and date is written once).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Occurrence {
    pub at: OffsetDateTime,
    pub local_date: time::Date,
}

/// A timezone by its IANA name (the platform's own copy of the database:
/// no system files are read).
pub fn timezone(name: &str) -> Option<jiff::tz::TimeZone> {
    jiff::tz::db().get(name).ok()
}

/// A home's timezone; UTC for a name the database does not know (homes are
/// created with checked names, so only damaged data falls back).
pub fn home_timezone(name: &str) -> jiff::tz::TimeZone {
    timezone(name).unwrap_or(jiff::tz::TimeZone::UTC)
}

/// When the trigger `at` on `days` fires first strictly after `after`, in
/// `tz`. `None` only without days.
pub fn next_occurrence(
    at: TimeOfDay,
    days: &BTreeSet<Weekday>,
    tz: &jiff::tz::TimeZone,
    after: OffsetDateTime,
) -> Option<Occurrence> {
    let after_ts = jiff::Timestamp::from_second(after.unix_timestamp()).ok()?;
    let local_today = after_ts.to_zoned(tz.clone()).date();
    // Eight days cover every weekday once after today, whatever the offset.
    for ahead in 0..=8i64 {
        let date = local_today
            .checked_add(jiff::Span::new().days(ahead))
            .ok()?;
        if !days.contains(&Weekday::of(date.weekday())) {
            continue;
        }
        let local = date.at(at.hour as i8, at.minute as i8, 0, 0);
        // `compatible`: a skipped time moves forward by the gap, a repeated
        // one takes the first.
        let zoned = local.to_zoned(tz.clone()).ok()?;
        if zoned.timestamp() > after_ts {
            let at = OffsetDateTime::from_unix_timestamp(zoned.timestamp().as_second()).ok()?;
            let local_date = time::Date::from_calendar_date(
                date.year() as i32,
                time::Month::try_from(date.month() as u8).ok()?,
                date.day() as u8,
            )
            .ok()?;
            return Some(Occurrence { at, local_date });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn good() -> Value {
        json!({
            "name": "Good morning",
            "triggers": [{ "kind": "time", "at": "07:30", "days": ["mon", "fri"] }, { "kind": "manual" }],
            "do": [
                { "kind": "thing", "thing": { "kind": "device", "id": "0190a6b2-0000-7000-8000-000000000001" },
                  "command": { "command": "set", "payload": { "capability": "light", "key": "power", "value": true } } },
                { "kind": "room", "roomId": "0190a6b2-0000-7000-8000-000000000002", "capability": "light", "action": "on" },
                { "kind": "delay", "seconds": 30 },
                { "kind": "music", "speakerId": "0190a6b2-0000-7000-8000-000000000003", "uri": "spotify:playlist:37i9dQ", "name": "Morning", "volume": 25 },
                { "kind": "security", "mode": "off" }
            ]
        })
    }

    #[test]
    fn a_good_routine_reads_whole() {
        let body = parse_routine(&good()).unwrap();
        assert!(body.enabled);
        assert_eq!(body.steps.len(), 5);
        assert_eq!(
            body.triggers[0],
            Trigger::Time {
                at: TimeOfDay {
                    hour: 7,
                    minute: 30
                },
                days: [Weekday::Mon, Weekday::Fri].into()
            }
        );
        // Written back, it reads the same.
        let again = parse_routine(&serde_json::to_value(&body).unwrap()).unwrap();
        assert_eq!(again, body);
    }

    #[test]
    fn every_problem_names_its_field() {
        let with = |pointer: &str, value: Value| {
            let mut body = good();
            *body.pointer_mut(pointer).unwrap() = value;
            body
        };
        let cases = [
            (with("/name", json!("")), "name"),
            (with("/triggers/0/at", json!("24:00")), "triggers[0].at"),
            (with("/triggers/0/days", json!([])), "triggers[0].days"),
            (
                with("/triggers/0/days/0", json!("monday")),
                "triggers[0].days[0]",
            ),
            (with("/do", json!([])), "do"),
            (with("/do/0/command", json!("on")), "do[0].command"),
            (with("/do/0/thing/kind", json!("room")), "do[0].thing.kind"),
            (with("/do/1/capability", json!("Light")), "do[1].capability"),
            (with("/do/2/seconds", json!(0)), "do[2].seconds"),
            (with("/do/2/seconds", json!(3601)), "do[2].seconds"),
            (with("/do/3/uri", json!("spotify")), "do[3].uri"),
            (with("/do/3/volume", json!(101)), "do[3].volume"),
            (with("/do/3/volume", json!(-1)), "do[3].volume"),
            (with("/do/3/volume", json!(5.5)), "do[3].volume"),
            (with("/do/3/name", json!(" ")), "do[3].name"),
            (
                with("/do/3/speakerId", json!("speaker-1")),
                "do[3].speakerId",
            ),
            (with("/do/4/mode", json!("panic")), "do[4].mode"),
            (with("/do/2/kind", json!("wait")), "do[2].kind"),
            (with("/do/2", json!(7)), "do[2]"),
            (
                with("/triggers/1/kind", json!("sunset")),
                "triggers[1].kind",
            ),
        ];
        for (body, field) in cases {
            let p = parse_routine(&body).unwrap_err();
            assert_eq!(p.field, field, "{p}");
        }
        let mut extra = good();
        extra["do"][3]["colour"] = json!("red");
        assert_eq!(parse_routine(&extra).unwrap_err().field, "do[3].colour");
    }

    #[test]
    fn music_uris_take_the_spec_forms_only() {
        assert_eq!(
            MusicUri::parse("spotify:track:6rqhFgbbKwnb9MLmUQDhG6"),
            Ok(MusicUri::Provider {
                provider: "spotify".into(),
                kind: "track".into(),
                id: "6rqhFgbbKwnb9MLmUQDhG6".into()
            })
        );
        assert_eq!(
            MusicUri::parse("FV:2/17"),
            Ok(MusicUri::Favourite("2/17".into()))
        );
        assert_eq!(
            MusicUri::parse("speaker:playlist:12"),
            Ok(MusicUri::SpeakerPlaylist("12".into()))
        );
        assert!(
            MusicUri::parse("speaker:favorite:9")
                .unwrap()
                .playable_on_cloud_speaker()
        );
        assert!(
            !MusicUri::parse("tunes:album:1")
                .unwrap()
                .playable_on_cloud_speaker()
        );
        for bad in [
            "",
            "FV:",
            "FV: x",
            "spotify",
            "spotify:track",
            "spotify:track:",
            "speaker:radio:1",
            "Spotify:track:1",
            "s:track:1",
            "spotify:track:a b",
            "http://x/y",
        ] {
            assert!(MusicUri::parse(bad).is_err(), "{bad}");
        }
    }

    fn tz(name: &str) -> jiff::tz::TimeZone {
        timezone(name).unwrap()
    }

    fn utc(text: &str) -> OffsetDateTime {
        OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339).unwrap()
    }

    #[test]
    fn a_time_trigger_fires_at_the_local_time_on_its_days() {
        let at = TimeOfDay {
            hour: 7,
            minute: 30,
        };
        let weekdays: BTreeSet<_> = [Weekday::Mon].into();
        // Sunday 2026-11-29 12:00 UTC in Berlin: next Monday 07:30 CET.
        let next = next_occurrence(
            at,
            &weekdays,
            &tz("Europe/Berlin"),
            utc("2026-11-29T12:00:00Z"),
        )
        .unwrap();
        assert_eq!(next.at, utc("2026-11-30T06:30:00Z"));
        assert_eq!(next.local_date.to_string(), "2026-11-30");
        // Exactly at the time it is not again: the next is a week later.
        let after = next_occurrence(at, &weekdays, &tz("Europe/Berlin"), next.at).unwrap();
        assert_eq!(after.at, utc("2026-12-07T06:30:00Z"));
        // The local date decides the day, not the UTC one.
        let tokyo = next_occurrence(
            TimeOfDay { hour: 1, minute: 0 },
            &weekdays,
            &tz("Asia/Tokyo"),
            utc("2026-11-29T12:00:00Z"),
        )
        .unwrap();
        assert_eq!(
            tokyo.at,
            utc("2026-11-29T16:00:00Z"),
            "Monday 01:00 in Tokyo"
        );
        assert_eq!(tokyo.local_date.to_string(), "2026-11-30");
    }

    #[test]
    fn daylight_saving_changes_neither_skip_nor_repeat_a_day() {
        let every_day: BTreeSet<_> = [
            Weekday::Mon,
            Weekday::Tue,
            Weekday::Wed,
            Weekday::Thu,
            Weekday::Fri,
            Weekday::Sat,
            Weekday::Sun,
        ]
        .into();
        let berlin = tz("Europe/Berlin");
        // 2026-03-29: 02:00 -> 03:00. 02:30 does not exist: it runs at 03:30 CEST.
        let spring = next_occurrence(
            TimeOfDay {
                hour: 2,
                minute: 30,
            },
            &every_day,
            &berlin,
            utc("2026-03-28T23:00:00Z"),
        )
        .unwrap();
        assert_eq!(spring.at, utc("2026-03-29T01:30:00Z"));
        assert_eq!(spring.local_date.to_string(), "2026-03-29");
        // 2026-10-25: 03:00 -> 02:00. 02:30 happens twice: it runs once, first.
        let autumn_at = TimeOfDay {
            hour: 2,
            minute: 30,
        };
        let first =
            next_occurrence(autumn_at, &every_day, &berlin, utc("2026-10-24T22:00:00Z")).unwrap();
        assert_eq!(first.at, utc("2026-10-25T00:30:00Z"));
        let second = next_occurrence(autumn_at, &every_day, &berlin, first.at).unwrap();
        assert_eq!(
            second.local_date.to_string(),
            "2026-10-26",
            "not again the same night"
        );
    }

    fn any_days() -> impl Strategy<Value = BTreeSet<Weekday>> {
        proptest::collection::btree_set(
            prop_oneof![
                Just(Weekday::Mon),
                Just(Weekday::Tue),
                Just(Weekday::Wed),
                Just(Weekday::Thu),
                Just(Weekday::Fri),
                Just(Weekday::Sat),
                Just(Weekday::Sun)
            ],
            1..=7,
        )
    }

    proptest! {
        /// Whatever the zone, time, days and start: the next firing is after
        /// the start, within eight days, on one of the days in local time,
        /// at the chosen local time (or just after a skipped one), and the
        /// firings it leads to name strictly growing local dates.
        #[test]
        fn occurrences_follow_their_trigger(
            zone in prop_oneof![
                Just("UTC"), Just("Europe/Berlin"), Just("America/New_York"),
                Just("Australia/Lord_Howe"), Just("Asia/Kathmandu"), Just("Pacific/Chatham")
            ],
            hour in 0u8..24,
            minute in 0u8..60,
            days in any_days(),
            start in 1_700_000_000i64..1_900_000_000i64,
        ) {
            let zone = tz(zone);
            let at = TimeOfDay { hour, minute };
            let mut after = OffsetDateTime::from_unix_timestamp(start).unwrap();
            let mut last_date = None;
            for _ in 0..4 {
                let next = next_occurrence(at, &days, &zone, after).unwrap();
                prop_assert!(next.at > after);
                prop_assert!(next.at - after <= time::Duration::days(8));
                let local = jiff::Timestamp::from_second(next.at.unix_timestamp())
                    .unwrap()
                    .to_zoned(zone.clone());
                prop_assert!(days.contains(&Weekday::of(local.date().weekday())));
                let wanted = i32::from(hour) * 60 + i32::from(minute);
                let got = i32::from(local.hour()) * 60 + i32::from(local.minute());
                // Equal, or moved forward by a skipped hour or half hour.
                prop_assert!(got == wanted || (got > wanted && got - wanted <= 120), "{wanted} -> {got}");
                if let Some(last) = last_date {
                    prop_assert!(next.local_date > last);
                }
                last_date = Some(next.local_date);
                after = next.at;
            }
        }
    }
}
