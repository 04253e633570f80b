//! Typed ids: a `TenantId` can never be passed where a `ClientId` is meant.
//! All are UUIDs on the wire (spec: ids are UUID strings unless stated); new ids
//! are UUIDv7, so they sort by creation time in store keys.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

macro_rules! uuid_id {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub Uuid);

        impl $name {
            /// A fresh, time-ordered id.
            pub fn new() -> Self {
                Self(Uuid::now_v7())
            }
            pub fn as_uuid(&self) -> &Uuid {
                &self.0
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.hyphenated().fmt(f)
            }
        }

        impl FromStr for $name {
            type Err = uuid::Error;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Uuid::parse_str(s).map(Self)
            }
        }

        impl From<Uuid> for $name {
            fn from(id: Uuid) -> Self {
                Self(id)
            }
        }

        #[cfg(feature = "openapi")]
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, SchemaFormat, Type};
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .format(Some(SchemaFormat::KnownFormat(KnownFormat::Uuid)))
                    .into()
            }
        }
        #[cfg(feature = "openapi")]
        impl utoipa::ToSchema for $name {}
    )*};
}

uuid_id!(
    /// A person's account (household person, staff or developer).
    UserId,
    TenantId,
    /// A household.
    ClientId,
    /// A home.
    PropertyId,
    RoomId,
    DeviceId,
    EndpointId,
    IntegrationId,
    /// A connector (a developer's integration; once published, its catalogue
    /// definition: a LIVE key's `definitionId`).
    ConnectorId,
    DeveloperId,
    /// A developer key; also the App ID of the app it authenticates.
    KeyId,
    /// One sign-in: the family of refresh tokens rotated from one login.
    SessionId,
    WebhookId,
    RoutineId,
    InvitationId,
    /// A phone widget's token (one home, read and control only).
    WidgetTokenId,
    /// One version of a connector (a submission; once published, the
    /// catalogue definition's version).
    ConnectorVersionId,
);

/// A platform event's id, `{microseconds since the epoch, 16 digits}-{8 hex}`
/// (not a UUID): sorts as text in the order events happened (alyt-events
/// says why that order holds for readers).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct EventId(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not an event id (expected 16 digits, '-', 8 hex characters)")]
pub struct BadEventId;

impl EventId {
    pub fn new(at: time::OffsetDateTime, random: u32) -> Self {
        let micros = (at.unix_timestamp_nanos() / 1_000).max(0);
        Self(format!("{micros:016}-{random:08x}"))
    }

    /// The smallest id at or after `at`, for "everything newer than" bounds.
    pub fn floor(at: time::OffsetDateTime) -> Self {
        Self::new(at, 0)
    }

    /// The id of microsecond `micros` (since the epoch) with suffix `n`.
    pub fn from_micros(micros: i64, n: u32) -> Self {
        Self(format!("{:016}-{n:08x}", micros.max(0)))
    }

    /// The microsecond the id stands for (its first part).
    pub fn micros(&self) -> i64 {
        self.0
            .split_once('-')
            .and_then(|(m, _)| m.parse().ok())
            .unwrap_or(0)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for EventId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for EventId {
    type Err = BadEventId;
    /// Parses an untrusted resume token (a query parameter or Last-Event-ID).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (micros, random) = s.split_once('-').ok_or(BadEventId)?;
        let ok = micros.len() == 16
            && micros.bytes().all(|b| b.is_ascii_digit())
            && random.len() == 8
            && random
                .bytes()
                .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        if ok {
            Ok(Self(s.to_owned()))
        } else {
            Err(BadEventId)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Ids sort as text exactly as their times do.
        #[test]
        fn ids_sort_by_time(a in 0i64..4_000_000_000_000_000, b in 0i64..4_000_000_000_000_000, ra: u32, rb: u32) {
            let at = |m: i64| time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(m) * 1000).unwrap();
            let (x, y) = (EventId::new(at(a), ra), EventId::new(at(b), rb));
            if a < b { prop_assert!(x < y); }
            if a > b { prop_assert!(x > y); }
            prop_assert_eq!(x.as_str().parse::<EventId>().unwrap(), x);
        }

        /// Untrusted resume tokens never panic the parser.
        #[test]
        fn parsing_arbitrary_text_never_panics(s in ".{0,40}") {
            let _ = s.parse::<EventId>();
        }
    }
}
