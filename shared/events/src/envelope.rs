//! The platform event envelope, its kinds, and [`PlatformEvent`]: what a
//! producer raises, a kind with its typed data.

use std::fmt;
use std::str::FromStr;

use alyt_domain::device::{
    CommandResultData, DeviceOfflineData, DeviceOnlineData, DeviceTelemetryData,
};
pub use alyt_domain::ids::{BadEventId, EventId};
use alyt_domain::ids::{TenantId, WebhookId};
use alyt_domain::integration::ThingStateData;
use alyt_domain::notification::NotificationRaisedData;
use alyt_domain::stay::GuestStayData;
use alyt_domain::submission::SubmissionStateData;
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

/// `webhook.ping`: the test event a developer asks for (`POST
/// /developers/webhooks/{id}/test`), sent to that one endpoint only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct WebhookPingData {
    pub endpoint_id: WebhookId,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub at: OffsetDateTime,
}

/// An event as its producer raises it: the variant decides the kind and the
/// type of the `data`, so a kind can never carry another kind's payload.
#[derive(Debug, Clone, PartialEq)]
pub enum PlatformEvent {
    DeviceOnline(DeviceOnlineData),
    DeviceOffline(DeviceOfflineData),
    DeviceTelemetry(DeviceTelemetryData),
    CommandResult(CommandResultData),
    ThingState(ThingStateData),
    NotificationRaised(NotificationRaisedData),
    WebhookPing(WebhookPingData),
    SubmissionState(SubmissionStateData),
    GuestInvited(GuestStayData),
    GuestCheckedIn(GuestStayData),
    GuestCheckedOut(GuestStayData),
}

impl PlatformEvent {
    pub fn kind(&self) -> EventKind {
        match self {
            PlatformEvent::DeviceOnline(_) => EventKind::DeviceOnline,
            PlatformEvent::DeviceOffline(_) => EventKind::DeviceOffline,
            PlatformEvent::DeviceTelemetry(_) => EventKind::DeviceTelemetry,
            PlatformEvent::CommandResult(_) => EventKind::CommandResult,
            PlatformEvent::ThingState(_) => EventKind::ThingState,
            PlatformEvent::NotificationRaised(_) => EventKind::NotificationRaised,
            PlatformEvent::WebhookPing(_) => EventKind::WebhookPing,
            PlatformEvent::SubmissionState(_) => EventKind::SubmissionState,
            PlatformEvent::GuestInvited(_) => EventKind::GuestInvited,
            PlatformEvent::GuestCheckedIn(_) => EventKind::GuestCheckedIn,
            PlatformEvent::GuestCheckedOut(_) => EventKind::GuestCheckedOut,
        }
    }

    /// The envelope's `data`. Fails only for a time RFC 3339 cannot write
    /// (outside the years 0 to 9999).
    pub fn data(&self) -> Result<serde_json::Value, serde_json::Error> {
        match self {
            PlatformEvent::DeviceOnline(data) => serde_json::to_value(data),
            PlatformEvent::DeviceOffline(data) => serde_json::to_value(data),
            PlatformEvent::DeviceTelemetry(data) => serde_json::to_value(data),
            PlatformEvent::CommandResult(data) => serde_json::to_value(data),
            PlatformEvent::ThingState(data) => serde_json::to_value(data),
            PlatformEvent::NotificationRaised(data) => serde_json::to_value(data),
            PlatformEvent::WebhookPing(data) => serde_json::to_value(data),
            PlatformEvent::SubmissionState(data) => serde_json::to_value(data),
            PlatformEvent::GuestInvited(data)
            | PlatformEvent::GuestCheckedIn(data)
            | PlatformEvent::GuestCheckedOut(data) => serde_json::to_value(data),
        }
    }

    /// This event as event `id` of `tenant`, created at `at`.
    pub fn envelope(
        &self,
        id: EventId,
        tenant: TenantId,
        at: OffsetDateTime,
    ) -> Result<EventEnvelope, serde_json::Error> {
        Ok(EventEnvelope {
            id,
            kind: self.kind(),
            tenant_id: tenant,
            created_at: at,
            data: self.data()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// What every producer's event looks like on the stream and in webhooks:
    /// its kind and the exact JSON of its data.
    #[test]
    fn every_event_has_its_kind_and_the_data_of_its_kind() {
        use alyt_domain::device::{CommandId, OfflineReason};
        use alyt_domain::ids::{DeviceId, EndpointId, IntegrationId};
        use alyt_domain::integration::EndpointKind;
        use uuid::Uuid;

        let at = time::macros::datetime!(2026-06-01 12:00 UTC);
        let uuid = |n: u128| Uuid::from_u128(0x0190_a6b2_0000_7000_8000_0000_0000_0000 + n);
        let device_id = DeviceId(uuid(1));
        let cases = [
            (
                PlatformEvent::DeviceOnline(DeviceOnlineData {
                    device_id,
                    name: "Hall hub".into(),
                    at,
                }),
                "device.online",
                r#"{"at":"2026-06-01T12:00:00Z","deviceId":"0190a6b2-0000-7000-8000-000000000001","name":"Hall hub"}"#,
            ),
            (
                PlatformEvent::DeviceOffline(DeviceOfflineData {
                    device_id,
                    name: "Hall hub".into(),
                    at,
                    reason: OfflineReason::Heartbeat,
                }),
                "device.offline",
                r#"{"at":"2026-06-01T12:00:00Z","deviceId":"0190a6b2-0000-7000-8000-000000000001","name":"Hall hub","reason":"heartbeat"}"#,
            ),
            (
                PlatformEvent::DeviceTelemetry(DeviceTelemetryData {
                    device_id,
                    metrics: [("rssi".to_owned(), -61.0), ("temperature".to_owned(), 21.5)].into(),
                    at,
                }),
                "device.telemetry",
                r#"{"at":"2026-06-01T12:00:00Z","deviceId":"0190a6b2-0000-7000-8000-000000000001","metrics":{"rssi":-61.0,"temperature":21.5}}"#,
            ),
            (
                PlatformEvent::CommandResult(CommandResultData {
                    device_id,
                    command_id: CommandId::new(42).unwrap(),
                    command: "set".into(),
                    status: "ok".into(),
                    at,
                }),
                "command.result",
                r#"{"at":"2026-06-01T12:00:00Z","command":"set","commandId":"42","deviceId":"0190a6b2-0000-7000-8000-000000000001","status":"ok"}"#,
            ),
            (
                PlatformEvent::ThingState(ThingStateData {
                    endpoint_id: EndpointId(uuid(2)),
                    integration_id: IntegrationId(uuid(3)),
                    kind: EndpointKind::Light,
                    state: serde_json::json!({ "light": { "power": true, "brightness": 40 } })
                        .as_object()
                        .cloned()
                        .unwrap(),
                    at,
                }),
                "thing.state",
                r#"{"at":"2026-06-01T12:00:00Z","endpointId":"0190a6b2-0000-7000-8000-000000000002","integrationId":"0190a6b2-0000-7000-8000-000000000003","kind":"LIGHT","state":{"light":{"brightness":40,"power":true}}}"#,
            ),
            (
                PlatformEvent::NotificationRaised(NotificationRaisedData {
                    id: uuid(4),
                    kind: "device.alert".into(),
                    title: "Kitchen smoke: smoke".into(),
                    body: "Smoke detected".into(),
                    device_id: None,
                    at,
                }),
                "notification.raised",
                r#"{"at":"2026-06-01T12:00:00Z","body":"Smoke detected","deviceId":null,"id":"0190a6b2-0000-7000-8000-000000000004","kind":"device.alert","title":"Kitchen smoke: smoke"}"#,
            ),
            (
                PlatformEvent::WebhookPing(WebhookPingData {
                    endpoint_id: WebhookId(uuid(5)),
                    at,
                }),
                "webhook.ping",
                r#"{"at":"2026-06-01T12:00:00Z","endpointId":"0190a6b2-0000-7000-8000-000000000005"}"#,
            ),
            (
                PlatformEvent::SubmissionState(SubmissionStateData {
                    version_id: alyt_domain::ids::ConnectorVersionId(uuid(7)),
                    slug: "lan-lights".into(),
                    semver: "1.0.0".into(),
                    state: alyt_domain::submission::ReviewState::ChangesRequested,
                    at,
                }),
                "submission.state",
                r#"{"at":"2026-06-01T12:00:00Z","semver":"1.0.0","slug":"lan-lights","state":"changes-requested","versionId":"0190a6b2-0000-7000-8000-000000000007"}"#,
            ),
        ];
        let tenant = TenantId(uuid(6));
        for (event, kind, data) in cases {
            assert_eq!(event.kind().as_str(), kind);
            assert_eq!(serde_json::to_string(&event.data().unwrap()).unwrap(), data);
            let envelope = event.envelope(EventId::new(at, 7), tenant, at).unwrap();
            assert_eq!(
                serde_json::to_string(&envelope).unwrap(),
                format!(
                    r#"{{"id":"1780315200000000-00000007","type":"{kind}","tenantId":"0190a6b2-0000-7000-8000-000000000006","createdAt":"2026-06-01T12:00:00Z","data":{data}}}"#
                )
            );
        }
    }
}
