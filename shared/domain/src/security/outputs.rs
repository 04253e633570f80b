//! What an alarm does to a home's outputs, and how they are put back. Plain
//! data and rules, no I/O: the platform's output driver reads, writes and
//! records through these.
//!
//! * An alarm opens an [`OutputsJob`]: the outputs it drives are planned
//!   (sirens; lights of the night-light rooms, only between sunset and
//!   sunrise, see [`is_night`]; speakers of the speaker-alarm rooms), each
//!   one's **native state saved** before anything is sent ([`native_of`]).
//! * An output is marked [`Stage::Touched`] *before* its first alarm write
//!   is sent, so a write whose outcome is unknown (a timeout is not
//!   success) keeps the obligation to restore it.
//! * The alarm beats every [`BEAT`]: lights flash at full intensity,
//!   speakers at [`SPEAKER_ALARM_VOLUME`] alternate the siren with the
//!   fixed deterrent recording ([`Sound::of_beat`]).
//! * After Off, every touched output is put back ([`restore_writes`]); a
//!   part that cannot be (a source the speaker cannot play again, or a
//!   speaker that played nothing and cannot drop the alarm's source) is
//!   reported as not restored, never as restored. Until every touched
//!   output is restored (or has left the home), the restoration is pending
//!   and blocks arming and configuration.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use time::{Duration, OffsetDateTime};

use super::enrolment::Output;

/// The speaker alarm's volume, in percent.
pub const SPEAKER_ALARM_VOLUME: u8 = 50;
/// A light's intensity while it flashes.
pub const FLASH_BRIGHTNESS: u8 = 100;
/// How often the alarm beats: a light flashes on or off, a speaker moves
/// from the siren to the deterrent recording or back.
pub const BEAT: Duration = Duration::seconds(5);
/// How soon a restoration that failed (or whose outcome is unknown) is
/// tried again.
pub const RETRY: Duration = Duration::seconds(5);
/// How long one driver holds a home's outputs (a crashed driver's lease
/// runs out).
pub const LEASE: Duration = Duration::seconds(30);

/// What a speaker plays in an alarm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Sound {
    Siren,
    /// The fixed deterrent recording.
    Deterrent,
}

impl Sound {
    /// Beats alternate: the siren first.
    pub fn of_beat(beat: u64) -> Self {
        if beat.is_multiple_of(2) {
            Sound::Siren
        } else {
            Sound::Deterrent
        }
    }
}

/// Lights are on at even beats, off at odd ones.
pub fn flash_on(beat: u64) -> bool {
    beat.is_multiple_of(2)
}

/// The state keys an output's native state is made of, in the order they
/// are put back (a speaker's group before its volume, its source before
/// its position, whether it plays last).
pub fn native_keys(output: Output) -> &'static [(&'static str, &'static str)] {
    match output {
        Output::Siren => &[("switch", "power")],
        Output::Light => &[
            ("light", "color"),
            ("light", "brightness"),
            ("light", "power"),
        ],
        Output::Speaker => &[
            ("media_player", "group"),
            ("media_player", "volume"),
            ("media_player", "muted"),
            ("media_player", "source"),
            ("media_player", "position"),
            ("media_player", "playing"),
        ],
    }
}

/// An output's native state: the values of its [`native_keys`] it
/// reported (a key it does not report is not touched or restored).
pub type Native = BTreeMap<String, Value>;

fn key_name(capability: &str, key: &str) -> String {
    format!("{capability}.{key}")
}

/// The native state of `output` in a thing's `state`. A speaker that
/// reports no source played nothing: its source is saved as `null`, since
/// the alarm gives it one that must go again.
pub fn native_of(output: Output, state: &Map<String, Value>) -> Native {
    let mut native: Native = native_keys(output)
        .iter()
        .filter_map(|(capability, key)| {
            let value = state.get(*capability)?.get(*key)?;
            Some((key_name(capability, key), value.clone()))
        })
        .collect();
    if output == Output::Speaker && state.contains_key("media_player") {
        native
            .entry(key_name("media_player", "source"))
            .or_insert(Value::Null);
    }
    native
}

/// Whether a key holds its native value: `null` (nothing) is also a key
/// the thing does not report.
fn holds(native: &Value, current: Option<&Value>) -> bool {
    match current {
        Some(current) => current == native,
        None => native.is_null(),
    }
}

/// One write of a restoration.
#[derive(Debug, Clone, PartialEq)]
pub enum RestoreWrite {
    /// Set a state key back.
    Set {
        capability: &'static str,
        key: &'static str,
        value: Value,
    },
    /// Play the speaker's former source again (through the music call).
    Play { uri: String },
    /// Drop the alarm's source from a speaker that played nothing (set
    /// `media_player.source` to `null`; playback stops with `playing`).
    ClearSource,
}

/// The writes that put `output` back to `native`, given its `now` state,
/// in order; keys that already hold their native value are left alone.
pub fn restore_writes(
    output: Output,
    native: &Native,
    now: &Map<String, Value>,
) -> Vec<RestoreWrite> {
    let mut writes = Vec::new();
    for (capability, key) in native_keys(output) {
        let Some(value) = native.get(&key_name(capability, key)) else {
            continue;
        };
        let current = now.get(*capability).and_then(|c| c.get(*key));
        if holds(value, current) {
            continue;
        }
        match (*capability, *key) {
            ("media_player", "source") => match value.as_str() {
                Some(uri) => writes.push(RestoreWrite::Play {
                    uri: uri.to_owned(),
                }),
                None => writes.push(RestoreWrite::ClearSource),
            },
            _ => writes.push(RestoreWrite::Set {
                capability,
                key,
                value: value.clone(),
            }),
        }
    }
    writes
}

/// The parts of `native` that `now` does not hold (after a restoration:
/// what was not restored), as `capability.key`.
pub fn unrestored(native: &Native, now: &Map<String, Value>) -> Vec<String> {
    native
        .iter()
        .filter(|(name, value)| {
            let (capability, key) = name.rsplit_once('.').unwrap_or((name, ""));
            !holds(value, now.get(capability).and_then(|c| c.get(key)))
        })
        .map(|(name, _)| name.clone())
        .collect()
}

/// Where one driven output stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "stage", rename_all = "lowercase")]
pub enum Stage {
    /// Its native state is saved; nothing was sent yet.
    Saved,
    /// An alarm write was (or may have been) sent: it must be restored.
    Touched,
    /// Put back; `unrestored` names the parts that could not be (reported,
    /// never called restored).
    Restored { unrestored: Vec<String> },
    /// Left alone: its state could not be saved, or it left the home (it is
    /// no longer the platform's to write).
    Abandoned { why: String },
}

/// An output an alarm drives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DrivenOutput {
    pub endpoint_id: uuid::Uuid,
    /// The integration it was reached through when planned: a write goes
    /// only while it is still that integration's, in this home.
    pub integration_id: uuid::Uuid,
    pub name: String,
    pub output: Output,
    pub native: Native,
    #[serde(flatten)]
    pub stage: Stage,
    /// The last failure (a write refused, no answer).
    pub error: Option<String>,
    /// Restoration attempts so far.
    pub attempts: u32,
    /// An MQTT device (its writes are commands the device answers later);
    /// else a connector endpoint.
    #[serde(default)]
    pub device: bool,
    /// A device's restoration commands awaiting its answers (command ids),
    /// and since when.
    #[serde(default)]
    pub waiting: Vec<u64>,
    #[serde(with = "time::serde::rfc3339::option", default)]
    pub waiting_since: Option<OffsetDateTime>,
    /// A device's latest alarm commands (ids): superseded when its
    /// restoration starts, so none is delivered after Off.
    #[serde(default)]
    pub alarm_commands: Vec<u64>,
}

/// Alarm commands kept per device output (the beats add one each).
pub const ALARM_COMMANDS_KEPT: usize = 20;

/// How long a device may take to answer a restoration before it is sent
/// again (no answer is not success).
pub const DEVICE_ANSWER: Duration = Duration::seconds(30);

/// The outputs of one alarm, from the alarm until they are all restored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OutputsJob {
    /// The incident whose alarm this is.
    pub incident: u64,
    pub planned: bool,
    /// Night lights were due when it was planned.
    pub night: bool,
    pub outputs: Vec<DrivenOutput>,
    /// Beats sounded.
    pub beat: u64,
    /// When the driver is next due (a beat, a retry).
    #[serde(with = "time::serde::rfc3339::option", default)]
    pub next_at: Option<OffsetDateTime>,
    /// A driver holds the outputs until then.
    #[serde(with = "time::serde::rfc3339::option", default)]
    pub lease_until: Option<OffsetDateTime>,
}

impl OutputsJob {
    /// An alarm of `incident` starts now.
    pub fn new(incident: u64, now: OffsetDateTime) -> Self {
        Self {
            incident,
            planned: false,
            night: false,
            outputs: Vec::new(),
            beat: 0,
            next_at: Some(now),
            lease_until: None,
        }
    }

    /// Some output was (or may have been) changed and is not put back.
    pub fn owes_restoration(&self) -> bool {
        self.outputs.iter().any(|o| o.stage == Stage::Touched)
    }

    pub fn output_mut(
        &mut self,
        endpoint: uuid::Uuid,
        output: Output,
    ) -> Option<&mut DrivenOutput> {
        self.outputs
            .iter_mut()
            .find(|o| o.endpoint_id == endpoint && o.output == output)
    }
}

/// Whether it is night (between sunset and sunrise) at `latitude`,
/// `longitude` at `now`. The days looked at are the home's local date in
/// `timezone` (an IANA name; unknown: UTC) and the days either side, so a
/// zone that is not quite the place's own still finds the right day. A day
/// without a sunrise or a sunset (polar day or night) and an unknown place
/// count as not night: night lights stay off.
pub fn is_night(latitude: f64, longitude: f64, timezone: &str, now: OffsetDateTime) -> bool {
    let Some(place) = sunrise::Coordinates::new(latitude, longitude) else {
        return false;
    };
    let Some(date) = local_date(timezone, now) else {
        return false;
    };
    let at = now.unix_timestamp();
    for date in [date.pred_opt(), Some(date), date.succ_opt()] {
        let Some(date) = date else {
            return false;
        };
        let day = sunrise::SolarDay::new(place, date);
        let (Some(rise), Some(set)) = (
            day.event_time(sunrise::SolarEvent::Sunrise),
            day.event_time(sunrise::SolarEvent::Sunset),
        ) else {
            return false;
        };
        if (rise.timestamp()..set.timestamp()).contains(&at) {
            return false;
        }
    }
    true
}

/// The home's calendar date at `now`.
fn local_date(timezone: &str, now: OffsetDateTime) -> Option<chrono::NaiveDate> {
    let zone = jiff::tz::TimeZone::get(timezone).unwrap_or(jiff::tz::TimeZone::UTC);
    let instant = jiff::Timestamp::from_second(now.unix_timestamp()).ok()?;
    let date = instant.to_zoned(zone).date();
    chrono::NaiveDate::from_ymd_opt(
        i32::from(date.year()),
        u32::try_from(date.month()).ok()?,
        u32::try_from(date.day()).ok()?,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn at(rfc3339: &str) -> OffsetDateTime {
        OffsetDateTime::parse(rfc3339, &time::format_description::well_known::Rfc3339).unwrap()
    }

    // Amsterdam, 21 June 2026: the sun rises at about 03:18 UTC and sets
    // at about 20:06 UTC (local 05:18 and 22:06, CEST).
    const AMS: (f64, f64, &str) = (52.3676, 4.9041, "Europe/Amsterdam");

    fn sun(kind: sunrise::SolarEvent) -> OffsetDateTime {
        let day = sunrise::SolarDay::new(
            sunrise::Coordinates::new(AMS.0, AMS.1).unwrap(),
            chrono::NaiveDate::from_ymd_opt(2026, 6, 21).unwrap(),
        );
        OffsetDateTime::from_unix_timestamp(day.event_time(kind).unwrap().timestamp()).unwrap()
    }

    fn night_at(now: OffsetDateTime) -> bool {
        is_night(AMS.0, AMS.1, AMS.2, now)
    }

    #[test]
    fn night_lights_flash_from_sunset_until_sunrise_and_not_a_second_outside() {
        let rise = sun(sunrise::SolarEvent::Sunrise);
        let set = sun(sunrise::SolarEvent::Sunset);
        // The times are where the almanac puts them (within minutes).
        assert!(
            (rise - at("2026-06-21T03:18:00Z")).abs() < Duration::minutes(5),
            "{rise}"
        );
        assert!(
            (set - at("2026-06-21T20:06:00Z")).abs() < Duration::minutes(5),
            "{set}"
        );
        let second = Duration::seconds(1);
        assert!(night_at(rise - second), "a second before sunrise is night");
        assert!(!night_at(rise), "sunrise is day");
        assert!(!night_at(set - second), "a second before sunset is day");
        assert!(night_at(set), "sunset is night");
        assert!(!night_at(at("2026-06-21T12:00:00Z")));
        assert!(
            night_at(at("2026-06-21T23:30:00Z")),
            "local 01:30 the next day"
        );
    }

    #[test]
    fn the_day_is_the_places_day_whatever_the_utc_date_or_zone() {
        // 23:30 UTC on 21 June is 09:30 on 22 June in Sydney: day there.
        let sydney = (-33.8688, 151.2093);
        for zone in ["Australia/Sydney", "UTC", "America/Los_Angeles"] {
            assert!(
                !is_night(sydney.0, sydney.1, zone, at("2026-06-21T23:30:00Z")),
                "{zone}"
            );
            assert!(
                is_night(sydney.0, sydney.1, zone, at("2026-06-21T10:00:00Z")),
                "{zone}"
            );
        }
    }

    #[test]
    fn an_unknown_place_or_a_polar_day_is_not_night_and_an_unknown_zone_is_utc() {
        assert!(!is_night(95.0, 0.0, "UTC", at("2026-06-21T00:00:00Z")));
        assert!(is_night(
            AMS.0,
            AMS.1,
            "Mars/Olympus",
            at("2026-06-21T00:00:00Z")
        ));
        assert!(!is_night(
            AMS.0,
            AMS.1,
            "Mars/Olympus",
            at("2026-06-21T12:00:00Z")
        ));
        // Midsummer in Tromsø: the sun does not set.
        assert!(!is_night(
            69.6492,
            18.9553,
            "Europe/Oslo",
            at("2026-06-21T23:00:00Z")
        ));
    }

    #[test]
    fn a_native_state_is_saved_and_put_back_key_by_key_in_order() {
        let before = json!({ "media_player": {
            "group": "speaker-kitchen", "volume": 20, "muted": true,
            "source": "prov:track:7", "position": 42, "playing": false,
            "other": 1
        } });
        let native = native_of(Output::Speaker, before.as_object().unwrap());
        assert_eq!(native.len(), 6, "only the restorable keys: {native:?}");
        let during = json!({ "media_player": {
            "group": null, "volume": 50, "muted": false,
            "source": "alarm:siren", "position": 0, "playing": true
        } });
        let writes = restore_writes(Output::Speaker, &native, during.as_object().unwrap());
        let order: Vec<String> = writes
            .iter()
            .map(|w| match w {
                RestoreWrite::Set { key, .. } => key.to_string(),
                RestoreWrite::Play { uri } => format!("play {uri}"),
                RestoreWrite::ClearSource => "clear source".into(),
            })
            .collect();
        assert_eq!(
            order,
            [
                "group",
                "volume",
                "muted",
                "play prov:track:7",
                "position",
                "playing"
            ]
        );
        assert_eq!(
            unrestored(&native, during.as_object().unwrap()).len(),
            6,
            "nothing put back yet"
        );
        assert!(unrestored(&native, before.as_object().unwrap()).is_empty());
        // A key already back is not written again.
        let half = json!({ "media_player": {
            "group": "speaker-kitchen", "volume": 20, "muted": true,
            "source": "alarm:siren", "position": 42, "playing": false
        } });
        assert_eq!(
            restore_writes(Output::Speaker, &native, half.as_object().unwrap()),
            vec![RestoreWrite::Play {
                uri: "prov:track:7".into()
            }]
        );
    }

    /// A speaker that played nothing before the alarm is not restored while it
    /// still holds the alarm's source; the restoration drops that source, and a
    /// speaker that reports no source at all (now or before) is not held to
    /// one.
    #[test]
    fn a_speaker_that_played_nothing_gets_its_alarm_source_dropped() {
        let before = json!({ "media_player": { "volume": 20, "muted": false, "playing": false } });
        let native = native_of(Output::Speaker, before.as_object().unwrap());
        assert_eq!(native.get("media_player.source"), Some(&Value::Null));
        let during = json!({ "media_player": {
            "volume": 50, "muted": false, "playing": true, "source": "alarm:siren"
        } });
        let during = during.as_object().unwrap();
        assert_eq!(
            restore_writes(Output::Speaker, &native, during),
            vec![
                RestoreWrite::Set {
                    capability: "media_player",
                    key: "volume",
                    value: json!(20)
                },
                RestoreWrite::ClearSource,
                RestoreWrite::Set {
                    capability: "media_player",
                    key: "playing",
                    value: json!(false)
                },
            ]
        );
        // Stopped and quiet, but still on the alarm's source: not restored.
        let stopped = json!({ "media_player": {
            "volume": 20, "muted": false, "playing": false, "source": "alarm:siren"
        } });
        assert_eq!(
            unrestored(&native, stopped.as_object().unwrap()),
            ["media_player.source"]
        );
        let cleared = json!({ "media_player": {
            "volume": 20, "muted": false, "playing": false, "source": null
        } });
        assert!(unrestored(&native, cleared.as_object().unwrap()).is_empty());
        assert!(unrestored(&native, before.as_object().unwrap()).is_empty());
        assert!(restore_writes(Output::Speaker, &native, before.as_object().unwrap()).is_empty());
        // A light is not a speaker: no source is made up for it.
        let light = json!({ "light": { "power": false } });
        assert_eq!(
            native_of(Output::Light, light.as_object().unwrap()).len(),
            1
        );
    }

    #[test]
    fn a_job_owes_restoration_while_an_output_is_touched() {
        let mut job = OutputsJob::new(1, at("2026-06-21T00:00:00Z"));
        assert!(!job.owes_restoration());
        job.outputs.push(DrivenOutput {
            endpoint_id: uuid::Uuid::from_u128(1),
            integration_id: uuid::Uuid::from_u128(2),
            name: "Hall siren".into(),
            output: Output::Siren,
            native: Native::new(),
            stage: Stage::Saved,
            error: None,
            attempts: 0,
            device: false,
            waiting: Vec::new(),
            waiting_since: None,
            alarm_commands: Vec::new(),
        });
        assert!(!job.owes_restoration(), "saved only: nothing was sent");
        job.outputs[0].stage = Stage::Touched;
        assert!(job.owes_restoration());
        job.outputs[0].stage = Stage::Restored {
            unrestored: vec!["media_player.source".into()],
        };
        assert!(!job.owes_restoration(), "reported, not owed");
        assert_eq!(Sound::of_beat(0), Sound::Siren);
        assert_eq!(Sound::of_beat(1), Sound::Deterrent);
        assert!(flash_on(0) && !flash_on(1));
    }
}
