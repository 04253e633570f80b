//! Time as a port: sweeps, stays, token expiry and retry schedules read the
//! clock through this trait so tests can move time without sleeping.

use std::sync::Mutex;
use time::OffsetDateTime;

pub trait Clock: Send + Sync + 'static {
    fn now(&self) -> OffsetDateTime;

    /// Whole seconds since the Unix epoch (the unit of DynamoDB TTL attributes).
    fn unix_seconds(&self) -> i64 {
        self.now().unix_timestamp()
    }
}

/// The wall clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> OffsetDateTime {
        OffsetDateTime::now_utc()
    }
}

/// A clock that only moves when told to; for tests of time-driven rules.
#[derive(Debug)]
pub struct ManualClock {
    now: Mutex<OffsetDateTime>,
}

impl ManualClock {
    pub fn new(start: OffsetDateTime) -> Self {
        Self {
            now: Mutex::new(start),
        }
    }

    pub fn advance(&self, by: time::Duration) {
        let mut now = self.now.lock().unwrap_or_else(|e| e.into_inner());
        *now += by;
    }

    pub fn set(&self, to: OffsetDateTime) {
        *self.now.lock().unwrap_or_else(|e| e.into_inner()) = to;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> OffsetDateTime {
        *self.now.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_clock_moves_only_when_told() {
        let start = time::macros::datetime!(2026-01-01 00:00 UTC);
        let clock = ManualClock::new(start);
        assert_eq!(clock.now(), start);
        clock.advance(time::Duration::seconds(90));
        assert_eq!(clock.unix_seconds(), start.unix_timestamp() + 90);
    }
}
