//! Quotas and usage: what a developer may use per window, and the pure rule
//! that decides whether one more use is allowed.
//!
//! Three kinds are metered per developer:
//!
//! - `REQUESTS`: every API request authenticated by one of the developer's keys
//!   (a bearer secret or an app token) counts once, in the window of the quota
//!   (a UTC day or a UTC month), plus per minute when the quota has a
//!   `burstPerMinute`. Sessions are not counted.
//! - `VIRTUAL_DEVICES`: a *standing count*, not a rate: the number of virtual
//!   devices the developer's sandbox holds right now (the simulator reports the
//!   current number; deleting a device gives its place back). Creations are not
//!   counted, so the window does not reset anything; it is kept only because
//!   every quota value has one. `burstPerMinute` does not apply.
//! - `MQTT_MESSAGES`: messages the developer's virtual devices publish, per
//!   window (a BURST scenario is bounded by it; a spent quota silences the device).
//!
//! The documented defaults (used when the platform has configured none):
//! REQUESTS 100000 a day with a burst of 600 a minute, VIRTUAL_DEVICES 20,
//! MQTT_MESSAGES 1000000 a day. Staff can override any of them per developer.
//!
//! Windows are calendar windows in UTC: a day window is keyed `2026-11-21`
//! and resets at the next 00:00 UTC; a month window is keyed `2026-11` and
//! resets at 00:00 UTC on the first of the next month. The burst window is the
//! Unix minute (`unix_seconds / 60`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use time::{Date, Month, OffsetDateTime, Time, UtcOffset};

/// What is metered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum QuotaKind {
    /// Requests authenticated by the developer's keys.
    Requests,
    /// Virtual devices the developer's sandbox holds now (a standing count).
    VirtualDevices,
    /// Messages published by the developer's virtual devices.
    MqttMessages,
}

impl QuotaKind {
    pub const ALL: [QuotaKind; 3] = [
        QuotaKind::Requests,
        QuotaKind::VirtualDevices,
        QuotaKind::MqttMessages,
    ];

    /// The wire name (`REQUESTS`, `VIRTUAL_DEVICES`, `MQTT_MESSAGES`).
    pub fn as_str(self) -> &'static str {
        match self {
            QuotaKind::Requests => "REQUESTS",
            QuotaKind::VirtualDevices => "VIRTUAL_DEVICES",
            QuotaKind::MqttMessages => "MQTT_MESSAGES",
        }
    }

    /// A standing count (how many exist now) rather than a rate per window.
    pub fn is_standing(self) -> bool {
        self == QuotaKind::VirtualDevices
    }

    /// The documented default of this kind.
    pub fn documented_default(self) -> QuotaValue {
        match self {
            QuotaKind::Requests => QuotaValue {
                ceiling: 100_000,
                window: QuotaWindow::Day,
                burst_per_minute: Some(600),
            },
            QuotaKind::VirtualDevices => QuotaValue {
                ceiling: 20,
                window: QuotaWindow::Month,
                burst_per_minute: None,
            },
            QuotaKind::MqttMessages => QuotaValue {
                ceiling: 1_000_000,
                window: QuotaWindow::Day,
                burst_per_minute: None,
            },
        }
    }
}

impl fmt::Display for QuotaKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown quota kind {0:?}; the kinds are REQUESTS, VIRTUAL_DEVICES, MQTT_MESSAGES")]
pub struct UnknownQuotaKind(pub String);

impl FromStr for QuotaKind {
    type Err = UnknownQuotaKind;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        QuotaKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| UnknownQuotaKind(s.to_owned()))
    }
}

/// The calendar window a quota's ceiling applies to, in UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum QuotaWindow {
    Day,
    Month,
}

impl QuotaWindow {
    /// The window containing `at`, as a key: `2026-11-21` (day) or `2026-11` (month).
    pub fn key(self, at: OffsetDateTime) -> String {
        let date = at.to_offset(UtcOffset::UTC).date();
        match self {
            QuotaWindow::Day => format!(
                "{:04}-{:02}-{:02}",
                date.year(),
                u8::from(date.month()),
                date.day()
            ),
            QuotaWindow::Month => format!("{:04}-{:02}", date.year(), u8::from(date.month())),
        }
    }

    /// When the window containing `at` began (00:00 UTC of its first day).
    pub fn start(self, at: OffsetDateTime) -> OffsetDateTime {
        let date = at.to_offset(UtcOffset::UTC).date();
        let first = match self {
            QuotaWindow::Day => date,
            QuotaWindow::Month => date.replace_day(1).unwrap_or(date),
        };
        first.with_time(Time::MIDNIGHT).assume_utc()
    }

    /// When the window containing `at` ends and the next one begins (the reset).
    /// Saturates at the last representable instant.
    pub fn end(self, at: OffsetDateTime) -> OffsetDateTime {
        let date = at.to_offset(UtcOffset::UTC).date();
        let next = match self {
            QuotaWindow::Day => date.next_day(),
            QuotaWindow::Month => first_of_next_month(date),
        };
        match next {
            Some(next) => next.with_time(Time::MIDNIGHT).assume_utc(),
            None => Date::MAX.with_time(Time::MAX).assume_utc(),
        }
    }

    /// Whole seconds from `at` until the window resets, at least 1 (a
    /// `Retry-After` of 0 would invite an immediate retry of a refused request).
    pub fn seconds_until_reset(self, at: OffsetDateTime) -> u64 {
        let left = self.end(at) - at;
        // A fraction of a second before the reset still waits a whole second.
        let seconds = left.whole_seconds() + i64::from(left.subsec_nanoseconds() > 0);
        u64::try_from(seconds).unwrap_or(0).max(1)
    }
}

fn first_of_next_month(date: Date) -> Option<Date> {
    let (year, month) = match date.month() {
        Month::December => (date.year().checked_add(1)?, Month::January),
        month => (date.year(), month.next()),
    };
    Date::from_calendar_date(year, month, 1).ok()
}

/// The Unix minute containing `at` (the burst window).
pub fn unix_minute(at: OffsetDateTime) -> i64 {
    at.unix_timestamp().div_euclid(60)
}

/// Whole seconds from `at` until the next Unix minute begins (1 to 60).
pub fn seconds_until_next_minute(at: OffsetDateTime) -> u64 {
    let into = at.unix_timestamp().rem_euclid(60);
    // Inside a second, the minute turns at most 60 - into seconds later.
    (60 - into) as u64
}

/// The largest ceiling accepted: the largest integer every JSON client reads
/// exactly (2^53 - 1), far above any real quota.
pub const MAX_CEILING: u64 = (1 << 53) - 1;

/// A quota value, exactly the spec's Quota default value: `ceiling` uses per
/// `window`, optionally at most `burstPerMinute` a minute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct QuotaValue {
    /// Uses allowed per window (>= 0; 0 refuses every use).
    #[cfg_attr(
        feature = "openapi",
        schema(minimum = 0, maximum = 9007199254740991_u64)
    )]
    pub ceiling: u64,
    pub window: QuotaWindow,
    /// At most this many uses per minute (>= 1); absent means no burst limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(minimum = 1))]
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub burst_per_minute: Option<u32>,
}

/// Why a quota value is refused; `field` is the wire name of the field at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct InvalidQuota {
    pub field: &'static str,
    pub message: String,
}

impl QuotaValue {
    /// Checks the value for `kind`: ceiling within [`MAX_CEILING`],
    /// burstPerMinute >= 1, and no burst on a standing count.
    pub fn validate(&self, kind: QuotaKind) -> Result<(), InvalidQuota> {
        if self.ceiling > MAX_CEILING {
            return Err(InvalidQuota {
                field: "ceiling",
                message: format!("ceiling must be between 0 and {MAX_CEILING}"),
            });
        }
        match self.burst_per_minute {
            Some(0) => Err(InvalidQuota {
                field: "burstPerMinute",
                message: "burstPerMinute must be at least 1 (leave it out for no burst limit)"
                    .into(),
            }),
            Some(_) if kind.is_standing() => Err(InvalidQuota {
                field: "burstPerMinute",
                message: format!(
                    "{kind} is a standing count (devices that exist now), so burstPerMinute does not apply"
                ),
            }),
            _ => Ok(()),
        }
    }
}

/// Whether an effective quota is the platform default or a per-developer override.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum QuotaSource {
    Default,
    Override,
}

/// The outcome of [`decide`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Allowed,
    /// The window's ceiling is spent; it resets in `reset_in` seconds.
    OverCeiling {
        reset_in: u64,
    },
    /// The minute's burst is spent; the next minute begins in `reset_in` seconds.
    OverBurst {
        reset_in: u64,
    },
}

impl Decision {
    pub fn is_allowed(self) -> bool {
        self == Decision::Allowed
    }
}

/// Whether one more use is allowed at `at`.
///
/// `used` is the count of the window *including* this use, `burst_used` the
/// count of the current minute including this use (ignored without a burst
/// limit). A use is allowed when `used <= ceiling` and, with a burst limit,
/// `burst_used <= burstPerMinute`. When both are spent the ceiling is named,
/// since retrying after the minute would not help.
pub fn decide(used: u64, value: &QuotaValue, burst_used: u64, at: OffsetDateTime) -> Decision {
    if used > value.ceiling {
        return Decision::OverCeiling {
            reset_in: value.window.seconds_until_reset(at),
        };
    }
    match value.burst_per_minute {
        Some(burst) if burst_used > u64::from(burst) => Decision::OverBurst {
            reset_in: seconds_until_next_minute(at),
        },
        _ => Decision::Allowed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use time::macros::datetime;

    #[test]
    fn wire_names() {
        for kind in QuotaKind::ALL {
            let json = serde_json::to_value(kind).unwrap();
            assert_eq!(json, kind.as_str());
            assert_eq!(serde_json::from_value::<QuotaKind>(json).unwrap(), kind);
            assert_eq!(kind.as_str().parse::<QuotaKind>().unwrap(), kind);
        }
        assert!("requests".parse::<QuotaKind>().is_err());
        assert_eq!(serde_json::to_value(QuotaWindow::Day).unwrap(), "day");
        assert_eq!(serde_json::to_value(QuotaWindow::Month).unwrap(), "month");
    }

    #[test]
    fn documented_defaults() {
        let requests = QuotaKind::Requests.documented_default();
        assert_eq!(
            serde_json::to_value(requests).unwrap(),
            serde_json::json!({ "ceiling": 100000, "window": "day", "burstPerMinute": 600 })
        );
        assert_eq!(
            serde_json::to_value(QuotaKind::VirtualDevices.documented_default()).unwrap(),
            serde_json::json!({ "ceiling": 20, "window": "month" })
        );
        assert_eq!(
            serde_json::to_value(QuotaKind::MqttMessages.documented_default()).unwrap(),
            serde_json::json!({ "ceiling": 1000000, "window": "day" })
        );
        for kind in QuotaKind::ALL {
            kind.documented_default().validate(kind).unwrap();
        }
    }

    #[test]
    fn values_parse_as_the_spec_shapes_them() {
        let v: QuotaValue = serde_json::from_str(r#"{ "ceiling": 0, "window": "month" }"#).unwrap();
        assert_eq!(v.burst_per_minute, None);
        let v: QuotaValue =
            serde_json::from_str(r#"{ "ceiling": 5, "window": "day", "burstPerMinute": null }"#)
                .unwrap();
        assert_eq!(v.burst_per_minute, None);
        for bad in [
            r#"{ "ceiling": -1, "window": "day" }"#,
            r#"{ "ceiling": 1.5, "window": "day" }"#,
            r#"{ "ceiling": 1, "window": "week" }"#,
            r#"{ "ceiling": 1, "window": "day", "burstPerMinute": -3 }"#,
            r#"{ "ceiling": 1, "window": "day", "extra": 1 }"#,
            r#"{ "window": "day" }"#,
        ] {
            assert!(serde_json::from_str::<QuotaValue>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn validation() {
        let value = |ceiling, burst| QuotaValue {
            ceiling,
            window: QuotaWindow::Day,
            burst_per_minute: burst,
        };
        assert!(value(0, None).validate(QuotaKind::Requests).is_ok());
        assert!(
            value(MAX_CEILING, Some(1))
                .validate(QuotaKind::Requests)
                .is_ok()
        );
        assert_eq!(
            value(MAX_CEILING + 1, None)
                .validate(QuotaKind::Requests)
                .unwrap_err()
                .field,
            "ceiling"
        );
        assert_eq!(
            value(5, Some(0))
                .validate(QuotaKind::MqttMessages)
                .unwrap_err()
                .field,
            "burstPerMinute"
        );
        assert_eq!(
            value(5, Some(10))
                .validate(QuotaKind::VirtualDevices)
                .unwrap_err()
                .field,
            "burstPerMinute"
        );
    }

    #[test]
    fn window_keys_and_resets() {
        let at = datetime!(2026-11-21 13:45:10 UTC);
        assert_eq!(QuotaWindow::Day.key(at), "2026-11-21");
        assert_eq!(QuotaWindow::Month.key(at), "2026-11");
        assert_eq!(QuotaWindow::Day.end(at), datetime!(2026-11-22 0:00 UTC));
        assert_eq!(QuotaWindow::Month.end(at), datetime!(2026-12-01 0:00 UTC));
        assert_eq!(
            QuotaWindow::Day.seconds_until_reset(at),
            10 * 3600 + 14 * 60 + 50
        );
        // December rolls over into the next year.
        let dec = datetime!(2026-12-31 23:59:59 UTC);
        assert_eq!(QuotaWindow::Month.end(dec), datetime!(2027-01-01 0:00 UTC));
        assert_eq!(QuotaWindow::Month.seconds_until_reset(dec), 1);
        assert_eq!(QuotaWindow::Day.seconds_until_reset(dec), 1);
        // Another offset is read in UTC.
        let east = datetime!(2026-11-22 01:30 +03:00);
        assert_eq!(QuotaWindow::Day.key(east), "2026-11-21");
        // Leap February.
        let feb = datetime!(2028-02-29 12:00 UTC);
        assert_eq!(QuotaWindow::Month.end(feb), datetime!(2028-03-01 0:00 UTC));
        // Exactly at midnight a fresh day has a whole day left.
        assert_eq!(
            QuotaWindow::Day.seconds_until_reset(datetime!(2026-11-21 0:00 UTC)),
            86_400
        );
        // A fraction of a second before midnight rounds up to one second.
        assert_eq!(
            QuotaWindow::Day.seconds_until_reset(datetime!(2026-11-21 23:59:59.5 UTC)),
            1
        );
    }

    #[test]
    fn minutes() {
        let at = datetime!(2026-11-21 13:45:10 UTC);
        assert_eq!(unix_minute(at), at.unix_timestamp() / 60);
        assert_eq!(seconds_until_next_minute(at), 50);
        assert_eq!(
            seconds_until_next_minute(datetime!(2026-11-21 13:45 UTC)),
            60
        );
    }

    #[test]
    fn decide_examples() {
        let at = datetime!(2026-11-21 23:00 UTC);
        let three = QuotaValue {
            ceiling: 3,
            window: QuotaWindow::Day,
            burst_per_minute: None,
        };
        assert_eq!(decide(3, &three, 99, at), Decision::Allowed);
        assert_eq!(
            decide(4, &three, 1, at),
            Decision::OverCeiling { reset_in: 3600 }
        );
        let zero = QuotaValue {
            ceiling: 0,
            ..three
        };
        assert!(!decide(1, &zero, 1, at).is_allowed());
        let burst = QuotaValue {
            burst_per_minute: Some(2),
            ceiling: 100,
            ..three
        };
        assert_eq!(decide(50, &burst, 2, at), Decision::Allowed);
        assert_eq!(
            decide(50, &burst, 3, at + time::Duration::seconds(15)),
            Decision::OverBurst { reset_in: 45 }
        );
        // Both spent: the ceiling is named.
        assert!(matches!(
            decide(101, &burst, 3, at),
            Decision::OverCeiling { .. }
        ));
    }

    fn any_instant() -> impl Strategy<Value = OffsetDateTime> {
        // 1970 to 9000, with sub-second parts and arbitrary offsets.
        (
            0i64..220_000_000_000,
            0u32..1_000_000_000,
            -(23 * 3600 + 59 * 60)..(23 * 3600 + 59 * 60),
        )
            .prop_map(|(secs, nanos, offset)| {
                let utc = OffsetDateTime::from_unix_timestamp(secs).unwrap()
                    + time::Duration::nanoseconds(i64::from(nanos));
                utc.to_offset(UtcOffset::from_whole_seconds(offset).unwrap())
            })
    }

    fn any_window() -> impl Strategy<Value = QuotaWindow> {
        prop_oneof![Just(QuotaWindow::Day), Just(QuotaWindow::Month)]
    }

    fn any_value() -> impl Strategy<Value = QuotaValue> {
        (0u64..1000, any_window(), proptest::option::of(1u32..100)).prop_map(
            |(ceiling, window, burst_per_minute)| QuotaValue {
                ceiling,
                window,
                burst_per_minute,
            },
        )
    }

    proptest! {
        /// The window contains the instant, the key names it, and the reset is
        /// the next window's start; keys sort like time.
        #[test]
        fn windows_contain_their_instant(at in any_instant(), window in any_window()) {
            let start = window.start(at);
            let end = window.end(at);
            prop_assert!(start <= at && at < end);
            prop_assert_eq!(window.key(start), window.key(at));
            prop_assert_eq!(window.key(end - time::Duration::nanoseconds(1)), window.key(at));
            prop_assert_ne!(window.key(end), window.key(at));
            prop_assert!(window.key(end) > window.key(at));
            prop_assert_eq!(window.start(end), end);
            // Keys have a fixed shape.
            let key = window.key(at);
            match window {
                QuotaWindow::Day => prop_assert_eq!(key.len(), 10),
                QuotaWindow::Month => prop_assert_eq!(key.len(), 7),
            }
            // A day is 24 hours; a month 28 to 31 days (UTC has no DST).
            let length = (end - start).whole_seconds();
            match window {
                QuotaWindow::Day => prop_assert_eq!(length, 86_400),
                QuotaWindow::Month => prop_assert!((28 * 86_400..=31 * 86_400).contains(&length)),
            }
        }

        /// The reset is in 1 s to one window, and waiting that long lands in the next window.
        #[test]
        fn reset_lands_in_the_next_window(at in any_instant(), window in any_window()) {
            let left = window.seconds_until_reset(at);
            prop_assert!(left >= 1);
            prop_assert!(left <= 31 * 86_400);
            let after = at + time::Duration::seconds(left as i64);
            prop_assert_ne!(window.key(after), window.key(at));
            if left > 1 {
                let before = at + time::Duration::seconds(left as i64 - 1);
                prop_assert_eq!(window.key(before), window.key(at));
            }
        }

        /// The minute turns exactly when said.
        #[test]
        fn minutes_turn_when_said(at in any_instant()) {
            let left = seconds_until_next_minute(at);
            prop_assert!((1..=60).contains(&left));
            let whole = OffsetDateTime::from_unix_timestamp(at.unix_timestamp()).unwrap();
            prop_assert_eq!(unix_minute(whole + time::Duration::seconds(left as i64)), unix_minute(at) + 1);
            prop_assert_eq!(unix_minute(whole + time::Duration::seconds(left as i64 - 1)), unix_minute(at));
        }

        /// Allowed exactly when within the ceiling and the burst; a refusal
        /// says how long to wait, and the ceiling wins when both are spent.
        #[test]
        fn decide_matches_its_definition(used in 0u64..1100, burst_used in 0u64..120, value in any_value(), at in any_instant()) {
            let within_ceiling = used <= value.ceiling;
            let within_burst = value.burst_per_minute.is_none_or(|b| burst_used <= u64::from(b));
            match decide(used, &value, burst_used, at) {
                Decision::Allowed => prop_assert!(within_ceiling && within_burst),
                Decision::OverCeiling { reset_in } => {
                    prop_assert!(!within_ceiling);
                    prop_assert_eq!(reset_in, value.window.seconds_until_reset(at));
                }
                Decision::OverBurst { reset_in } => {
                    prop_assert!(within_ceiling && !within_burst);
                    prop_assert!((1..=60).contains(&reset_in));
                }
            }
        }

        /// Counting uses one by one from zero, exactly `ceiling` are allowed in
        /// a window (no burst limit), and with a burst at most that many a minute.
        #[test]
        fn counting_allows_at_most_the_ceiling(value in any_value(), tries in 0u64..1200) {
            let at = OffsetDateTime::UNIX_EPOCH;
            let no_burst = QuotaValue { burst_per_minute: None, ..value };
            let allowed = (1..=tries).filter(|n| decide(*n, &no_burst, *n, at).is_allowed()).count() as u64;
            prop_assert_eq!(allowed, tries.min(value.ceiling));
            if let Some(burst) = value.burst_per_minute {
                let in_minute = (1..=tries).filter(|n| decide(*n, &value, *n, at).is_allowed()).count() as u64;
                prop_assert_eq!(in_minute, tries.min(value.ceiling).min(u64::from(burst)));
            }
        }

        #[test]
        fn valid_values_round_trip(value in any_value()) {
            let json = serde_json::to_string(&value).unwrap();
            prop_assert_eq!(serde_json::from_str::<QuotaValue>(&json).unwrap(), value);
            prop_assert!(value.validate(QuotaKind::Requests).is_ok());
        }
    }
}
