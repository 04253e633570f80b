//! The `data` of the device-plane platform event kinds. The envelope
//! `{ id, type, tenantId, createdAt, data }` belongs to the event recorder.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::command_id::CommandId;
use super::enums::OfflineReason;
use crate::ids::DeviceId;

/// `device.online`: the device came online.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct DeviceOnlineData {
    pub device_id: DeviceId,
    pub name: String,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub at: OffsetDateTime,
}

/// `device.offline`: the last will fired or the heartbeat window passed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct DeviceOfflineData {
    pub device_id: DeviceId,
    pub name: String,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub at: OffsetDateTime,
    pub reason: OfflineReason,
}

/// `device.telemetry`: readings published.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct DeviceTelemetryData {
    pub device_id: DeviceId,
    pub metrics: BTreeMap<String, f64>,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub at: OffsetDateTime,
}

/// `command.result`: the device acknowledged a command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CommandResultData {
    pub device_id: DeviceId,
    pub command_id: CommandId,
    pub command: String,
    /// The device's status word (1-32 characters), e.g. `ok` or `rejected`.
    pub status: String,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub at: OffsetDateTime,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_fields_are_the_specs() {
        let at = OffsetDateTime::UNIX_EPOCH;
        let device_id = DeviceId::new();
        let keys = |v: serde_json::Value| {
            let mut keys: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
            keys.sort();
            keys.join(",")
        };
        let offline = serde_json::to_value(DeviceOfflineData {
            device_id,
            name: "Hall hub".into(),
            at,
            reason: OfflineReason::LastWill,
        })
        .unwrap();
        assert_eq!(keys(offline.clone()), "at,deviceId,name,reason");
        assert_eq!(offline["reason"], "last-will");
        assert_eq!(offline["at"], "1970-01-01T00:00:00Z");
        let online = serde_json::to_value(DeviceOnlineData {
            device_id,
            name: "Hall hub".into(),
            at,
        })
        .unwrap();
        assert_eq!(keys(online), "at,deviceId,name");
        let telemetry = serde_json::to_value(DeviceTelemetryData {
            device_id,
            metrics: BTreeMap::from([("rssi".to_owned(), -61.0)]),
            at,
        })
        .unwrap();
        assert_eq!(keys(telemetry.clone()), "at,deviceId,metrics");
        assert_eq!(telemetry["metrics"]["rssi"], -61.0);
        let result = serde_json::to_value(CommandResultData {
            device_id,
            command_id: CommandId::new(42).unwrap(),
            command: "set".into(),
            status: "ok".into(),
            at,
        })
        .unwrap();
        assert_eq!(keys(result.clone()), "at,command,commandId,deviceId,status");
        assert_eq!(result["commandId"], "42");
    }
}
