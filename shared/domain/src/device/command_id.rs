//! The id of a command row.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use time::OffsetDateTime;

/// A command id: a decimal string on the wire (`"42"`), unique per device
/// and ordered by acceptance time ([`CommandId::at`]: the microsecond of
/// acceptance followed by three random digits, so no counter has to be
/// read or written to name a command; the row's write, conditioned on its
/// absence, catches the rare collision).
///
/// At most 19 digits, so every id fits in a `u64` and the wire form matches
/// the pattern `^[0-9]{1,19}$` exactly. Leading zeros are read (`"007"` is 7)
/// but never written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CommandId(u64);

/// A command id that is not 1-19 decimal digits.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a command id is a decimal string of 1-19 digits")]
pub struct InvalidCommandId;

impl CommandId {
    /// The largest id (19 nines).
    pub const MAX: u64 = 9_999_999_999_999_999_999;

    /// `None` above [`CommandId::MAX`].
    pub fn new(value: u64) -> Option<Self> {
        (value <= Self::MAX).then_some(Self(value))
    }

    pub fn get(self) -> u64 {
        self.0
    }

    /// A fresh id for a command accepted at `now`: its Unix time in
    /// microseconds times 1,000 plus a random 0-999. Ids of one device sort
    /// by acceptance (to the microsecond; clocks of different instances may
    /// differ slightly), and 19 digits last until the year 2286. Ids made
    /// by an older build (a per-device count from 1) sort before them.
    pub fn at(now: OffsetDateTime) -> Self {
        let micros = u64::try_from(now.unix_timestamp_nanos() / 1_000).unwrap_or(0);
        let nonce = rand::random_range(0..1_000u64);
        Self(
            micros
                .saturating_mul(1_000)
                .saturating_add(nonce)
                .min(Self::MAX),
        )
    }
}

impl std::fmt::Display for CommandId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::str::FromStr for CommandId {
    type Err = InvalidCommandId;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.is_empty() || s.len() > 19 || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(InvalidCommandId);
        }
        s.parse::<u64>()
            .map(CommandId)
            .map_err(|_| InvalidCommandId)
    }
}

impl Serialize for CommandId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for CommandId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        raw.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for CommandId {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .pattern(Some("^[0-9]{1,19}$"))
            .description(Some("A decimal string."))
            .into()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for CommandId {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_ids_are_decimal_strings() {
        let id: CommandId = serde_json::from_str("\"42\"").unwrap();
        assert_eq!(id.get(), 42);
        assert_eq!(serde_json::to_string(&id).unwrap(), "\"42\"");
        assert_eq!("007".parse::<CommandId>().unwrap().get(), 7);
        assert_eq!(
            "9999999999999999999".parse::<CommandId>().unwrap().get(),
            CommandId::MAX
        );
        for bad in [
            "",
            "-1",
            "+1",
            "1.0",
            "1e3",
            " 1",
            "abc",
            "10000000000000000000",
            "٣",
        ] {
            assert!(bad.parse::<CommandId>().is_err(), "{bad:?}");
        }
        assert!(serde_json::from_str::<CommandId>("42").is_err());
        assert!(CommandId::new(CommandId::MAX + 1).is_none());
    }

    #[test]
    fn fresh_ids_follow_the_clock_and_fit_the_wire_pattern() {
        let t0 = OffsetDateTime::from_unix_timestamp(1_800_000_000).unwrap();
        let first = CommandId::at(t0);
        let later = CommandId::at(t0 + time::Duration::microseconds(1));
        assert!(later > first, "{later} after {first}");
        assert_eq!(first.get() / 1_000, 1_800_000_000_000_000);
        let wire = first.to_string();
        assert_eq!(wire.len(), 19);
        assert_eq!(wire.parse::<CommandId>().unwrap(), first);
        // An id of the old per-device count sorts before every fresh one.
        assert!(CommandId::new(1_000_000).unwrap() < first);
        // The last year that fits, and beyond it the largest id.
        let far = OffsetDateTime::from_unix_timestamp(9_999_999_999).unwrap();
        assert!(CommandId::at(far).get() <= CommandId::MAX);
    }
}
