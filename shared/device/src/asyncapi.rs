//! The AsyncAPI 3.0 document of the broker channels, generated from the same
//! payload schemas the channel decoders are tested against, so the contract
//! and what ingest accepts cannot drift apart. Written from a device's point
//! of view: it sends on six channels and receives on `commands`.

use serde_json::{Map, Value, json};

use crate::channels::payload_schema;
use crate::topic::{Channel, TOPIC_ROOT};

/// The broker contract's version, by the HTTP API's rule (SemVer, moved by
/// what changed since the last kept release: `contract/releases/asyncapi/`,
/// classified by `alyt_contract_diff::classify_asyncapi`).
pub const VERSION: &str = "0.1.1";

fn summary(channel: Channel) -> &'static str {
    match channel {
        Channel::Status => {
            "Current state nested by capability id, plus firmware and radio facts; also the heartbeat."
        }
        Channel::Telemetry => "Readings, stored as time series: one metric, or a map of metrics.",
        Channel::Events => "Something that happened once (button, motion, door).",
        Channel::Alerts => "A condition the household should hear about.",
        Channel::Commands => "One command per pending command row, from the platform.",
        Channel::Response => "The device's answer to a command.",
        Channel::Availability => {
            "Retained 'online' or 'offline'; the last will sets 'offline' when the connection drops."
        }
    }
}

/// Payloads a device maker can paste, each with what it shows; every one
/// is held to the channel's decoder by a test.
fn examples(channel: Channel) -> Vec<(&'static str, Value)> {
    match channel {
        Channel::Status => vec![(
            "A light's state, firmware and signal",
            json!({ "light": { "power": true, "brightness": 70 }, "firmware": "1.4.2", "rssi": -61 }),
        )],
        Channel::Telemetry => vec![
            (
                "One reading",
                json!({ "metric": "temperature", "value": 21.5, "payload": null }),
            ),
            (
                "Several readings at once",
                json!({ "metrics": { "temperature": 21.5, "humidity": 40 } }),
            ),
        ],
        Channel::Events => vec![(
            "A button pressed",
            json!({ "kind": "button", "action": "pressed" }),
        )],
        Channel::Alerts => vec![(
            "A condition to raise",
            json!({ "condition": "overheat", "message": "The lamp is too hot" }),
        )],
        Channel::Commands => vec![(
            "Turn the light on",
            json!({ "commandId": "42", "command": "set",
                    "payload": { "capability": "light", "key": "power", "value": true } }),
        )],
        Channel::Response => vec![(
            "Command 42 done",
            json!({ "commandId": "42", "command": "set", "status": "ok" }),
        )],
        Channel::Availability => vec![(
            "Online (retained; the last will says offline)",
            json!("online"),
        )],
    }
}

pub fn document() -> Value {
    let id_parameter = |what: &str| json!({ "description": format!("The {what} id (a UUID).") });
    let mut channels = Map::new();
    let mut operations = Map::new();
    let mut messages = Map::new();
    for channel in Channel::ALL {
        let name = channel.as_str();
        messages.insert(
            name.into(),
            json!({
                "name": name,
                "summary": summary(channel),
                "contentType": "application/json",
                "payload": payload_schema(channel),
                "examples": examples(channel)
                    .into_iter()
                    .map(|(summary, payload)| json!({ "summary": summary, "payload": payload }))
                    .collect::<Vec<_>>(),
            }),
        );
        channels.insert(
            name.into(),
            json!({
                "address": format!("{TOPIC_ROOT}/{{tenantId}}/{{propertyId}}/{{deviceId}}/{name}"),
                "messages": { name: { "$ref": format!("#/components/messages/{name}") } },
                "parameters": {
                    "tenantId": id_parameter("tenant"),
                    "propertyId": id_parameter("property (home)"),
                    "deviceId": id_parameter("device"),
                },
            }),
        );
        let (operation, action) = if channel.is_device_to_platform() {
            (format!("send{}", capitalise(name)), "send")
        } else {
            (format!("receive{}", capitalise(name)), "receive")
        };
        operations.insert(
            operation,
            json!({
                "action": action,
                "channel": { "$ref": format!("#/channels/{name}") },
                "messages": [{ "$ref": format!("#/channels/{name}/messages/{name}") }],
            }),
        );
    }
    json!({
        "asyncapi": "3.0.0",
        "info": {
            "title": "Alyt device broker",
            "version": VERSION,
            "description": "The MQTT channels a device uses. A device's credential reaches only its own subtree alyt/{tenantId}/{propertyId}/{deviceId}/…: it may publish on status, telemetry, events, alerts, availability and response, and subscribe only to its commands. Every inbound message is validated against its channel's schema; anything else is dropped and counted. Developers receive platform events (webhooks, the event stream), never raw messages.",
        },
        "servers": {
            "local": {
                "host": "127.0.0.1:1883",
                "protocol": "mqtt",
                "description": "The embedded broker of the local platform (ALYT_MQTT_ADDR); username and password from device registration, client id = username.",
            },
            "hosted": {
                "host": "{endpoint}",
                "protocol": "mqtts",
                "description": "AWS IoT Core; a per-device X.509 certificate from device registration.",
                "variables": { "endpoint": { "description": "The account's IoT data endpoint." } },
            },
        },
        "channels": channels,
        "operations": operations,
        "components": { "messages": messages },
    })
}

fn capitalise(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_channel_has_an_address_a_message_and_the_right_direction() {
        let doc = document();
        assert_eq!(doc["asyncapi"], "3.0.0");
        for channel in Channel::ALL {
            let name = channel.as_str();
            assert_eq!(
                doc["channels"][name]["address"],
                format!("alyt/{{tenantId}}/{{propertyId}}/{{deviceId}}/{name}")
            );
            assert!(doc["components"]["messages"][name]["payload"].is_object());
        }
        assert_eq!(doc["operations"]["receiveCommands"]["action"], "receive");
        assert_eq!(doc["operations"]["sendStatus"]["action"], "send");
        assert_eq!(doc["operations"].as_object().unwrap().len(), 7);
    }

    /// What a device maker pastes is what ingest (or a device, for
    /// commands) accepts.
    #[test]
    fn every_example_is_accepted_by_its_channels_decoder() {
        let doc = document();
        for channel in Channel::ALL {
            let shown = doc["components"]["messages"][channel.as_str()]["examples"]
                .as_array()
                .unwrap();
            assert!(!shown.is_empty(), "{channel:?} has an example");
            for example in shown {
                let bytes = serde_json::to_vec(&example["payload"]).unwrap();
                crate::channels::decode_any(channel, &bytes)
                    .unwrap_or_else(|e| panic!("{channel:?} example {example}: {e:?}"));
            }
        }
    }
}
