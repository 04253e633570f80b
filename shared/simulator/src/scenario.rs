//! Scenarios: how a virtual device misbehaves on purpose. A scenario set with
//! `seconds` carries an `until` and is NORMAL from then on; the platform stores
//! the setting as given, so a device restarted after `until` resumes in NORMAL
//! without anyone rewriting it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

/// What a virtual device does besides its normal reporting.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Scenario {
    /// Heartbeat and telemetry on schedule.
    #[default]
    Normal,
    /// Silent with the socket open (keepalive pings go on), so only the
    /// platform's heartbeat window notices: offline 'heartbeat'.
    Offline,
    /// The battery reads 8 % (devices with a battery).
    LowBattery,
    /// Status carries fault 'sensor_error'; the failed metric stops.
    SensorError,
    /// Twenty telemetry messages a second, bounded by the tenant's
    /// MQTT_MESSAGES quota.
    Burst,
    /// The connection drops without DISCONNECT every 30 s (the last will
    /// fires), then comes back.
    Flapping,
    /// Commands are answered after 5 s.
    Slow,
}

impl Scenario {
    pub const ALL: [Scenario; 7] = [
        Scenario::Normal,
        Scenario::Offline,
        Scenario::LowBattery,
        Scenario::SensorError,
        Scenario::Burst,
        Scenario::Flapping,
        Scenario::Slow,
    ];

    /// The wire name (`NORMAL`, `LOW_BATTERY`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Scenario::Normal => "NORMAL",
            Scenario::Offline => "OFFLINE",
            Scenario::LowBattery => "LOW_BATTERY",
            Scenario::SensorError => "SENSOR_ERROR",
            Scenario::Burst => "BURST",
            Scenario::Flapping => "FLAPPING",
            Scenario::Slow => "SLOW",
        }
    }
}

impl fmt::Display for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A scenario name that is not one of the seven.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown scenario {0:?}; the scenarios are NORMAL, OFFLINE, LOW_BATTERY, SENSOR_ERROR, BURST, FLAPPING, SLOW"
)]
pub struct UnknownScenario(pub String);

impl FromStr for Scenario {
    type Err = UnknownScenario;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Scenario::ALL
            .into_iter()
            .find(|sc| sc.as_str() == s)
            .ok_or_else(|| UnknownScenario(s.to_owned()))
    }
}

/// A scenario as set: permanent, or until an instant (then NORMAL).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScenarioSetting {
    pub scenario: Scenario,
    pub until: Option<OffsetDateTime>,
}

impl ScenarioSetting {
    /// A scenario that lasts until changed.
    pub fn permanent(scenario: Scenario) -> Self {
        Self {
            scenario,
            until: None,
        }
    }

    /// A scenario set with `seconds`: NORMAL from `now + seconds` on.
    pub fn for_seconds(scenario: Scenario, seconds: u32, now: OffsetDateTime) -> Self {
        Self {
            scenario,
            until: Some(now + time::Duration::seconds(i64::from(seconds))),
        }
    }

    /// The scenario in force at `now`.
    pub fn at(&self, now: OffsetDateTime) -> Scenario {
        match self.until {
            Some(until) if now >= until => Scenario::Normal,
            _ => self.scenario,
        }
    }

    /// When the scenario reverts, if it has not yet at `now`.
    pub fn reverts_at(&self, now: OffsetDateTime) -> Option<OffsetDateTime> {
        self.until
            .filter(|until| *until > now && self.scenario != Scenario::Normal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn wire_names_round_trip() {
        for sc in Scenario::ALL {
            assert_eq!(sc.as_str().parse::<Scenario>(), Ok(sc));
            assert_eq!(serde_json::to_value(sc).unwrap(), sc.as_str());
        }
        assert!("normal".parse::<Scenario>().is_err());
    }

    #[test]
    fn a_timed_scenario_reverts_at_its_end() {
        let now = datetime!(2030-01-01 00:00 UTC);
        let s = ScenarioSetting::for_seconds(Scenario::Burst, 60, now);
        assert_eq!(s.at(now), Scenario::Burst);
        assert_eq!(s.at(now + time::Duration::seconds(59)), Scenario::Burst);
        assert_eq!(s.at(now + time::Duration::seconds(60)), Scenario::Normal);
        assert_eq!(s.reverts_at(now), Some(now + time::Duration::seconds(60)));
        assert_eq!(s.reverts_at(now + time::Duration::seconds(60)), None);
        let permanent = ScenarioSetting::permanent(Scenario::Slow);
        assert_eq!(
            permanent.at(now + time::Duration::days(3650)),
            Scenario::Slow
        );
    }
}
