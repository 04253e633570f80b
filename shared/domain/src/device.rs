//! The device plane's pure rules: device enums, liveness, command rows and
//! command requests. No I/O, no async.
//!
//! * [`DeviceKind`], [`DeviceCapability`], [`Protocol`], [`FirmwareChannel`],
//!   [`DeviceStatus`], [`LivenessState`], [`OfflineReason`]: closed enums with
//!   the spec's exact wire names. Deserializing one of them is strict (an
//!   unknown value is an error), which is what API input needs.
//! * [`Lenient`]: the reading fallback for stored or foreign data (clients drop
//!   enum values they do not know). A field read from the store is
//!   `Lenient<DeviceStatus>` (keeps the raw token, so a row written by a newer
//!   build reads and rewrites unchanged), and a set read from the store can use
//!   [`drop_unknown`] to drop the values this build does not know. The strict
//!   enums stay `Copy` and exhaustive, so rules match on them without an
//!   "unknown" arm; only the edges that read stored data pay for leniency.
//! * [`liveness`] and the liveness transitions [`on_report`],
//!   [`on_last_will`], [`on_heartbeat_expired`].
//! * [`CommandRow`] and its state machine ([`CommandState`],
//!   [`CommandEvent`], [`sweep_action`]).
//! * [`CommandRequest`]: parses the body of `POST /devices/:id/commands`
//!   and validates it against the thing's own capability descriptors.
//! * Event data of the device kinds (`device.online`, `device.offline`,
//!   `device.telemetry`, `command.result`).

mod command;
mod command_id;
mod enums;
mod events;
mod lenient;
mod liveness;
mod request;

pub use command::{
    CommandEvent, CommandRow, CommandState, MAX_PUBLISHES, REDELIVER_AFTER, SweepAction,
    UndeliverableReason, sweep_action,
};
pub use command_id::{CommandId, InvalidCommandId};
pub(crate) use enums::wire_enum;
pub use enums::{
    DeviceCapability, DeviceKind, DeviceStatus, FirmwareChannel, LivenessState, OfflineReason,
    Protocol, SENSOR_KIND_IDS, UnknownValue, WireEnum, descriptor_ids_for,
};
pub use events::{CommandResultData, DeviceOfflineData, DeviceOnlineData, DeviceTelemetryData};
pub use lenient::{Lenient, drop_unknown};
pub use liveness::{
    DEFAULT_HEARTBEAT_WINDOW_SECONDS, Liveness, Transition, last_seen_after, last_seen_due,
    liveness, liveness_of_stored, on_heartbeat_expired, on_last_will, on_last_will_sent, on_report,
    on_report_sent,
};
pub use request::{
    AcceptedCommand, CommandError, CommandProblem, CommandRequest, TEXT_VALUE_MAX_CHARS,
};

/// A command key (`payload.key`): 1-80 characters.
pub const COMMAND_KEY_MAX_CHARS: usize = 80;
/// A command verb (`command`): 1-64 characters.
pub const COMMAND_VERB_MAX_CHARS: usize = 64;
/// A device response status: 1-32 characters.
pub const RESPONSE_STATUS_MAX_CHARS: usize = 32;
/// A telemetry metric name: 1-64 characters.
pub const METRIC_NAME_MAX_CHARS: usize = 64;

/// Whether `text` has between 1 and `max` characters (Unicode scalar values,
/// the same unit as JSON Schema's `minLength`/`maxLength`).
pub fn has_length(text: &str, max: usize) -> bool {
    !text.is_empty() && text.chars().nth(max).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_count_characters_not_bytes() {
        assert!(!has_length("", 3));
        assert!(has_length("abc", 3));
        assert!(!has_length("abcd", 3));
        assert!(has_length("ééé", 3));
        assert!(has_length(
            &"k".repeat(COMMAND_KEY_MAX_CHARS),
            COMMAND_KEY_MAX_CHARS
        ));
        assert!(!has_length(
            &"k".repeat(COMMAND_KEY_MAX_CHARS + 1),
            COMMAND_KEY_MAX_CHARS
        ));
    }
}
