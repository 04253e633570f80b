//! The platform event envelope and its kinds.

use std::fmt;
use std::str::FromStr;

use alyt_domain::ids::TenantId;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

/// The kinds of the spec (Events > Platform event envelope) plus the guest events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum EventKind {
    #[serde(rename = "device.online")]
    DeviceOnline,
    #[serde(rename = "device.offline")]
    DeviceOffline,
    #[serde(rename = "device.telemetry")]
    DeviceTelemetry,
    #[serde(rename = "command.result")]
    CommandResult,
    #[serde(rename = "thing.state")]
    ThingState,
    #[serde(rename = "notification.raised")]
    NotificationRaised,
    #[serde(rename = "submission.state")]
    SubmissionState,
    #[serde(rename = "webhook.ping")]
    WebhookPing,
    #[serde(rename = "guest.invited")]
    GuestInvited,
    #[serde(rename = "guest.checked_in")]
    GuestCheckedIn,
    #[serde(rename = "guest.checked_out")]
    GuestCheckedOut,
}

impl EventKind {
    pub const ALL: [EventKind; 11] = [
        EventKind::DeviceOnline,
        EventKind::DeviceOffline,
        EventKind::DeviceTelemetry,
        EventKind::CommandResult,
        EventKind::ThingState,
        EventKind::NotificationRaised,
        EventKind::SubmissionState,
        EventKind::WebhookPing,
        EventKind::GuestInvited,
        EventKind::GuestCheckedIn,
        EventKind::GuestCheckedOut,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::DeviceOnline => "device.online",
            EventKind::DeviceOffline => "device.offline",
            EventKind::DeviceTelemetry => "device.telemetry",
            EventKind::CommandResult => "command.result",
            EventKind::ThingState => "thing.state",
            EventKind::NotificationRaised => "notification.raised",
            EventKind::SubmissionState => "submission.state",
            EventKind::WebhookPing => "webhook.ping",
            EventKind::GuestInvited => "guest.invited",
            EventKind::GuestCheckedIn => "guest.checked_in",
            EventKind::GuestCheckedOut => "guest.checked_out",
        }
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown event kind {0:?}")]
pub struct UnknownKind(pub String);

impl FromStr for EventKind {
    type Err = UnknownKind;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        EventKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| UnknownKind(s.to_owned()))
    }
}

/// An event id: sorts as text in the order events happened (see the crate docs).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct EventId(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not an event id (expected 16 digits, '-', 8 hex characters)")]
pub struct BadEventId;

impl EventId {
    pub fn new(at: OffsetDateTime, random: u32) -> Self {
        let micros = (at.unix_timestamp_nanos() / 1_000).max(0);
        Self(format!("{micros:016}-{random:08x}"))
    }

    /// The smallest id at or after `at`, for "everything newer than" bounds.
    pub fn floor(at: OffsetDateTime) -> Self {
        Self::new(at, 0)
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

/// `{ id, type, tenantId, createdAt, data }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct EventEnvelope {
    pub id: EventId,
    #[serde(rename = "type")]
    pub kind: EventKind,
    pub tenant_id: TenantId,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: OffsetDateTime,
    pub data: serde_json::Value,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Ids sort as text exactly as their times do.
        #[test]
        fn ids_sort_by_time(a in 0i64..4_000_000_000_000_000, b in 0i64..4_000_000_000_000_000, ra: u32, rb: u32) {
            let at = |m: i64| OffsetDateTime::from_unix_timestamp_nanos(i128::from(m) * 1000).unwrap();
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

    #[test]
    fn kinds_round_trip_and_the_envelope_has_the_spec_keys() {
        for kind in EventKind::ALL {
            assert_eq!(kind.as_str().parse::<EventKind>().unwrap(), kind);
        }
        let envelope = EventEnvelope {
            id: EventId::new(time::macros::datetime!(2026-06-01 12:00 UTC), 7),
            kind: EventKind::DeviceOnline,
            tenant_id: TenantId::new(),
            created_at: time::macros::datetime!(2026-06-01 12:00 UTC),
            data: serde_json::json!({ "deviceId": "d" }),
        };
        let v = serde_json::to_value(&envelope).unwrap();
        let mut keys: Vec<_> = v.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        assert_eq!(keys, ["createdAt", "data", "id", "tenantId", "type"]);
        assert_eq!(v["type"], "device.online");
        assert_eq!(v["id"], "1780315200000000-00000007");
        assert!("1780315200000000-0000000G".parse::<EventId>().is_err());
    }
}
