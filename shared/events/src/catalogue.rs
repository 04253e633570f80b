//! What each event kind means, with an example of its `data`: the event
//! type catalogue's prose (`GET /v1/event-types`, whose schemas come from
//! the contract). Plain data: the API assembles the catalogue.

use serde_json::{Value, json};

use crate::envelope::EventKind;

impl EventKind {
    /// When the platform raises it, in a sentence or two.
    pub fn description(self) -> &'static str {
        match self {
            EventKind::DeviceOnline => {
                "A device came online: it connected, or was heard from after being offline."
            }
            EventKind::DeviceOffline => {
                "A device went offline: its connection dropped (the broker's last will) or it was silent past its heartbeat window."
            }
            EventKind::DeviceTelemetry => {
                "A device reported readings (one event per telemetry message); the history keeps them as time series."
            }
            EventKind::CommandResult => {
                "A device answered a command: its status word (`ok`, `rejected`, ...) for the command id the command's request returned."
            }
            EventKind::ThingState => {
                "A connector-backed endpoint's state changed, as its integration reported it."
            }
            EventKind::NotificationRaised => {
                "The household was notified: a device alert, a membership granted or ended, a webhook endpoint disabled."
            }
            EventKind::SubmissionState => {
                "A connector version moved in review (submitted, approved, changes requested, rejected, published, deprecated)."
            }
            EventKind::WebhookPing => {
                "A test delivery to one webhook endpoint, sent when asked (`POST /v1/developers/webhooks/{webhookId}/test`)."
            }
            EventKind::GuestInvited => "A guest's stay was opened with a reservation key.",
            EventKind::GuestCheckedIn => {
                "A guest's stay began: the guest reaches the home until check-out."
            }
            EventKind::GuestCheckedOut => {
                "A guest's stay ended: the guest no longer reaches the home."
            }
        }
    }

    /// An example of its `data`, as a delivery carries it.
    pub fn example_data(self) -> Value {
        const AT: &str = "2026-11-30T09:15:02.417Z";
        const DEVICE: &str = "0192f3a1-5c2e-7d41-9b1a-3f5e7c9d2a10";
        let stay = |state: &str| {
            json!({
                "reservationKey": "HM-48213",
                "clientId": "0192f3a1-4b00-7c11-8a2e-1d4c6b8e0f21",
                "propertyId": "0192f3a1-4b02-7e3a-9c45-2e6a8d1f3b52",
                "state": state,
                "checkIn": "2026-12-04T15:00:00Z",
                "checkOut": "2026-12-07T11:00:00Z",
                "at": AT,
            })
        };
        match self {
            EventKind::DeviceOnline => {
                json!({ "deviceId": DEVICE, "name": "Hall light", "at": AT })
            }
            EventKind::DeviceOffline => {
                json!({ "deviceId": DEVICE, "name": "Hall light", "reason": "heartbeat", "at": AT })
            }
            EventKind::DeviceTelemetry => {
                json!({ "deviceId": DEVICE, "metrics": { "watts": 6.5, "lux": 310.0 }, "at": AT })
            }
            EventKind::CommandResult => json!({
                "deviceId": DEVICE,
                "commandId": "1733044502417001",
                "command": "light.set",
                "status": "ok",
                "at": AT,
            }),
            EventKind::ThingState => json!({
                "endpointId": "0192f3a1-6d10-7a2b-8c3d-4e5f60718293",
                "integrationId": "0192f3a1-6c00-7b1a-9d2e-3f4a5b6c7d8e",
                "kind": "SPEAKER",
                "state": { "playing": true, "volume": 35 },
                "at": AT,
            }),
            EventKind::NotificationRaised => json!({
                "id": "0192f3a1-7e20-7f3c-8d4e-5f6071829304",
                "kind": "device.alert",
                "title": "Kitchen sensor",
                "body": "The freezer door has been open for 10 minutes.",
                "deviceId": DEVICE,
                "at": AT,
            }),
            EventKind::SubmissionState => json!({
                "versionId": "0192f3a1-8f30-7a4d-9e5f-60718293a4b5",
                "slug": "acme-speakers",
                "semver": "1.2.0",
                "state": "approved",
                "at": AT,
            }),
            EventKind::WebhookPing => {
                json!({ "endpointId": "0192f3a1-9a40-7b5e-8f60-718293a4b5c6", "at": AT })
            }
            EventKind::GuestInvited => stay("invited"),
            EventKind::GuestCheckedIn => stay("member"),
            EventKind::GuestCheckedOut => stay("checked-out"),
        }
    }
}
