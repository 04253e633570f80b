//! The payloads of the seven broker channels: a decoder per channel from raw
//! bytes, the encoders, and the JSON Schemas the decoders implement (for the
//! AsyncAPI document).
//!
//! Every decoder answers `Result<_, Rejected>` and never panics, whatever
//! the bytes. A [`Rejected`] carries a [`RejectReason`] whose
//! [`RejectReason::as_str`] is the label of the dropped-messages metric.
//! Checks run cheapest first: empty, size ([`MAX_PAYLOAD_BYTES`]), UTF-8,
//! nesting depth ([`MAX_DEPTH`], scanned before parsing), JSON syntax, then
//! the channel's shape. Numbers too large for a double (`1e400`) are a JSON
//! error; every number kept is finite.
//!
//! | channel | payload (objects are closed unless free-form) |
//! |---|---|
//! | `status` | free-form object; an optional `features` must be an array of at most 64 strings of 1-64 characters ([`StatusReport`]) |
//! | `telemetry` | `{ metric (1-64), value: number\|null, payload: object\|null }`, all three present, or `{ metrics: { name (1-64): number } }` with at most [`MAX_METRICS`] names ([`Telemetry`]) |
//! | `events`, `alerts` | free-form object (what an event tells home security: [`SecurityEvent`]) |
//! | `commands` | `{ commandId: decimal string, command (1-64), payload: object\|null }`, all three present ([`CommandMessage`]) |
//! | `response` | `{ commandId: decimal string, command (1-64), status (1-32) }` ([`CommandResponse`]) |
//! | `availability` | `online`/`offline` as bare bytes (surrounding ASCII whitespace ignored) or a JSON string, or `{ status: "online"\|"offline" }` ([`Availability`]) |
//!
//! Decisions where the spec's table is terse:
//! * telemetry `value` and `payload` must be present (the spec's notation
//!   `T|null` means "always present, may be null"), like the commands
//!   channel's "all three required"; a metrics map may be empty and holds
//!   at most [`MAX_METRICS`] readings (the spec names no cap; ingest stores
//!   a message in one transaction, so a bigger one could never be stored);
//! * a `commandId` is 1-19 decimal digits ([`CommandId`]), so it fits a u64;
//! * `features` in a status report is the only status field with a
//!   meaning the platform stores, so a malformed one rejects the report
//!   rather than being stored; the report's other fields are kept as sent
//!   ([`StatusReport::payload`], without `features`). Firmware and radio
//!   facts are read from the payload on demand ([`StatusReport::firmware`],
//!   [`StatusReport::rssi`], [`StatusReport::radio`]) and never reject it;
//! * an empty payload is rejected on every channel (on a retained topic it
//!   is MQTT's "clear the retained message", not a report);
//! * duplicate keys in an object: the last one wins (serde_json's rule).

use std::collections::BTreeMap;
use std::fmt;

use alyt_domain::device::{
    COMMAND_VERB_MAX_CHARS, CommandId, METRIC_NAME_MAX_CHARS, RESPONSE_STATUS_MAX_CHARS, has_length,
};
use serde_json::{Map, Value, json};

use crate::topic::Channel;

pub mod security;
pub use security::SecurityEvent;

/// The largest payload accepted on any channel: 128 KiB.
pub const MAX_PAYLOAD_BYTES: usize = 128 * 1024;
/// The deepest nesting of arrays and objects accepted (the outermost object
/// is depth 1).
pub const MAX_DEPTH: usize = 32;
/// The most features a status report may list.
pub const MAX_FEATURES: usize = 64;
/// The longest feature name, in characters.
pub const FEATURE_MAX_CHARS: usize = 64;
/// The most readings one telemetry message may carry. Ingest stores a
/// message in one transaction of at most 100 writes, a point per reading:
/// a message past the cap could never be stored, so it is refused here.
pub const MAX_METRICS: usize = 64;

/// A JSON object.
pub type JsonObject = Map<String, Value>;

/// One decoded message.
#[derive(Debug, Clone, PartialEq)]
pub enum ChannelMessage {
    Status(StatusReport),
    Telemetry(Telemetry),
    Event(JsonObject),
    Alert(JsonObject),
    Command(CommandMessage),
    Response(CommandResponse),
    Availability(Availability),
}

impl ChannelMessage {
    /// The channel this message travels on.
    pub fn channel(&self) -> Channel {
        match self {
            ChannelMessage::Status(_) => Channel::Status,
            ChannelMessage::Telemetry(_) => Channel::Telemetry,
            ChannelMessage::Event(_) => Channel::Events,
            ChannelMessage::Alert(_) => Channel::Alerts,
            ChannelMessage::Command(_) => Channel::Commands,
            ChannelMessage::Response(_) => Channel::Response,
            ChannelMessage::Availability(_) => Channel::Availability,
        }
    }

    /// Removes what the platform never stores (PIN values, credentials,
    /// private media URLs: [`alyt_domain::never_stored`], the rule a
    /// connector's endpoint state goes through too) from the free-form
    /// objects a device sends: the status payload, an event's or an alert's
    /// fields and a telemetry reading's detail. Answers how many values went.
    pub fn strip_secrets(&mut self) -> usize {
        use alyt_domain::never_stored::strip_secrets;
        match self {
            ChannelMessage::Status(report) => strip_secrets(&mut report.payload),
            ChannelMessage::Event(fields) | ChannelMessage::Alert(fields) => strip_secrets(fields),
            ChannelMessage::Telemetry(Telemetry::Reading {
                payload: Some(detail),
                ..
            }) => strip_secrets(detail),
            ChannelMessage::Telemetry(_)
            | ChannelMessage::Command(_)
            | ChannelMessage::Response(_)
            | ChannelMessage::Availability(_) => 0,
        }
    }
}

/// A status report: the device's current state nested by capability id,
/// plus firmware and radio facts.
#[derive(Debug, Clone, PartialEq)]
pub struct StatusReport {
    /// Everything the device sent except `features` (what `reported.payload`
    /// stores).
    pub payload: JsonObject,
    /// The features the device declares it honours, when it sent them
    /// (duplicates removed, first occurrence kept).
    pub features: Option<Vec<String>>,
}

impl StatusReport {
    /// The firmware version: a top-level `firmware` string (or its
    /// `version`), else `hub.firmware`.
    pub fn firmware(&self) -> Option<&str> {
        match self.payload.get("firmware") {
            Some(Value::String(version)) => Some(version),
            Some(Value::Object(firmware)) => firmware.get("version").and_then(Value::as_str),
            _ => self
                .payload
                .get("hub")
                .and_then(|hub| hub.get("firmware"))
                .and_then(Value::as_str),
        }
    }

    /// The signal strength in dBm: the first number among `rssi`,
    /// `radio.rssi`, `network.rssi` and `hub.rssi`.
    pub fn rssi(&self) -> Option<f64> {
        self.payload
            .get("rssi")
            .and_then(Value::as_f64)
            .or_else(|| {
                ["radio", "network", "hub"].into_iter().find_map(|section| {
                    self.payload
                        .get(section)
                        .and_then(|s| s.get("rssi"))
                        .and_then(Value::as_f64)
                })
            })
    }

    /// The free-form `radio` object, if any.
    pub fn radio(&self) -> Option<&JsonObject> {
        self.payload.get("radio").and_then(Value::as_object)
    }

    /// The state as `capabilityId.controlKey` entries: every top-level key
    /// that is a capability id (`light`, `sensor.motion`) and holds an object
    /// contributes one entry per field of that object.
    pub fn state(&self) -> BTreeMap<String, Value> {
        let mut state = BTreeMap::new();
        for (capability, value) in &self.payload {
            let Value::Object(controls) = value else {
                continue;
            };
            if !alyt_domain::capability::is_valid_capability_id(capability) {
                continue;
            }
            for (key, value) in controls {
                state.insert(format!("{capability}.{key}"), value.clone());
            }
        }
        state
    }
}

/// A telemetry message.
#[derive(Debug, Clone, PartialEq)]
pub enum Telemetry {
    /// `{ metric, value, payload }`: one reading, possibly with detail.
    Reading {
        metric: String,
        value: Option<f64>,
        payload: Option<JsonObject>,
    },
    /// `{ metrics }`: several readings at once.
    Metrics(BTreeMap<String, f64>),
}

impl Telemetry {
    /// The numbers to store and to put in `device.telemetry` (a reading
    /// without a value has none).
    pub fn metrics(&self) -> BTreeMap<String, f64> {
        match self {
            Telemetry::Reading {
                metric,
                value: Some(value),
                ..
            } => BTreeMap::from([(metric.clone(), *value)]),
            Telemetry::Reading { value: None, .. } => BTreeMap::new(),
            Telemetry::Metrics(metrics) => metrics.clone(),
        }
    }
}

/// A command for the device (platform to device).
#[derive(Debug, Clone, PartialEq)]
pub struct CommandMessage {
    pub command_id: CommandId,
    pub command: String,
    pub payload: Option<JsonObject>,
}

/// The device's answer to a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandResponse {
    pub command_id: CommandId,
    pub command: String,
    pub status: String,
}

/// The device's availability (retained; the last will sets `offline`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Availability {
    Online,
    Offline,
}

impl Availability {
    pub fn as_str(self) -> &'static str {
        match self {
            Availability::Online => "online",
            Availability::Offline => "offline",
        }
    }

    fn from_wire(word: &str) -> Option<Self> {
        match word {
            "online" => Some(Availability::Online),
            "offline" => Some(Availability::Offline),
            _ => None,
        }
    }
}

/// Why a message was dropped; [`RejectReason::as_str`] labels the metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RejectReason {
    /// No bytes at all.
    Empty,
    /// More than [`MAX_PAYLOAD_BYTES`].
    TooLarge,
    /// Not UTF-8.
    NotUtf8,
    /// Nested deeper than [`MAX_DEPTH`].
    TooDeep,
    /// Not JSON (or a number out of a double's range).
    InvalidJson,
    /// The payload is not an object where one is required.
    NotAnObject,
    /// A required field is absent.
    MissingField,
    /// A field the channel does not have.
    UnknownField,
    /// A field of the wrong JSON type.
    WrongType,
    /// A string or list of the wrong length.
    BadLength,
    /// A value outside its set (availability word, command id digits, ...).
    BadValue,
    /// A platform-to-device channel received from a device.
    WrongDirection,
}

impl RejectReason {
    pub const ALL: [RejectReason; 12] = [
        RejectReason::Empty,
        RejectReason::TooLarge,
        RejectReason::NotUtf8,
        RejectReason::TooDeep,
        RejectReason::InvalidJson,
        RejectReason::NotAnObject,
        RejectReason::MissingField,
        RejectReason::UnknownField,
        RejectReason::WrongType,
        RejectReason::BadLength,
        RejectReason::BadValue,
        RejectReason::WrongDirection,
    ];

    /// The metric label.
    pub fn as_str(self) -> &'static str {
        match self {
            RejectReason::Empty => "empty",
            RejectReason::TooLarge => "too_large",
            RejectReason::NotUtf8 => "not_utf8",
            RejectReason::TooDeep => "too_deep",
            RejectReason::InvalidJson => "invalid_json",
            RejectReason::NotAnObject => "not_object",
            RejectReason::MissingField => "missing_field",
            RejectReason::UnknownField => "unknown_field",
            RejectReason::WrongType => "wrong_type",
            RejectReason::BadLength => "bad_length",
            RejectReason::BadValue => "bad_value",
            RejectReason::WrongDirection => "wrong_direction",
        }
    }
}

impl fmt::Display for RejectReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A dropped message: on which channel, why (the metric label), and a
/// human-readable detail for the log (never the payload itself).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{channel} message dropped ({reason}): {detail}")]
pub struct Rejected {
    pub channel: Channel,
    pub reason: RejectReason,
    pub detail: String,
}

fn reject(channel: Channel, reason: RejectReason, detail: impl Into<String>) -> Rejected {
    Rejected {
        channel,
        reason,
        detail: detail.into(),
    }
}

// The three reasons most refusals give, named so each refusal reads in a line.

fn wrong_type(channel: Channel, detail: impl Into<String>) -> Rejected {
    reject(channel, RejectReason::WrongType, detail)
}

fn bad_length(channel: Channel, detail: impl Into<String>) -> Rejected {
    reject(channel, RejectReason::BadLength, detail)
}

fn bad_value(channel: Channel, detail: impl Into<String>) -> Rejected {
    reject(channel, RejectReason::BadValue, detail)
}

// ---- decoding ----------------------------------------------------------------

/// Decodes a message of any of the seven channels, including `commands`
/// (what a device receives). The fuzzing entry point.
pub fn decode_any(channel: Channel, bytes: &[u8]) -> Result<ChannelMessage, Rejected> {
    match channel {
        Channel::Status => decode_status(bytes).map(ChannelMessage::Status),
        Channel::Telemetry => decode_telemetry(bytes).map(ChannelMessage::Telemetry),
        Channel::Events => decode_event(bytes).map(ChannelMessage::Event),
        Channel::Alerts => decode_alert(bytes).map(ChannelMessage::Alert),
        Channel::Commands => decode_command(bytes).map(ChannelMessage::Command),
        Channel::Response => decode_response(bytes).map(ChannelMessage::Response),
        Channel::Availability => decode_availability(bytes).map(ChannelMessage::Availability),
    }
}

/// Decodes what a device published: like [`decode_any`], but the
/// platform-to-device `commands` channel is refused
/// ([`RejectReason::WrongDirection`]).
pub fn decode_inbound(channel: Channel, bytes: &[u8]) -> Result<ChannelMessage, Rejected> {
    if !channel.is_device_to_platform() {
        return Err(reject(
            channel,
            RejectReason::WrongDirection,
            "devices do not publish on this channel",
        ));
    }
    decode_any(channel, bytes)
}

/// `status`: a free-form object with an optional `features` list.
pub fn decode_status(bytes: &[u8]) -> Result<StatusReport, Rejected> {
    let channel = Channel::Status;
    let mut payload = object(channel, parse(channel, bytes)?)?;
    let features = match payload.remove("features") {
        None => None,
        Some(features) => Some(decode_features(features)?),
    };
    Ok(StatusReport { payload, features })
}

fn decode_features(features: Value) -> Result<Vec<String>, Rejected> {
    let channel = Channel::Status;
    let Value::Array(items) = features else {
        return Err(wrong_type(channel, "features must be an array of strings"));
    };
    if items.len() > MAX_FEATURES {
        return Err(bad_length(
            channel,
            format!("at most {MAX_FEATURES} features"),
        ));
    }
    let mut out: Vec<String> = Vec::with_capacity(items.len());
    for item in items {
        let Value::String(feature) = item else {
            return Err(wrong_type(channel, "features must be an array of strings"));
        };
        if !has_length(&feature, FEATURE_MAX_CHARS) {
            return Err(bad_length(
                channel,
                format!("a feature is 1-{FEATURE_MAX_CHARS} characters"),
            ));
        }
        if !out.contains(&feature) {
            out.push(feature);
        }
    }
    Ok(out)
}

/// `telemetry`: `{ metric, value, payload }` or `{ metrics }`.
pub fn decode_telemetry(bytes: &[u8]) -> Result<Telemetry, Rejected> {
    let channel = Channel::Telemetry;
    let mut fields = object(channel, parse(channel, bytes)?)?;
    if fields.contains_key("metrics") {
        closed(channel, &fields, &["metrics"])?;
        let Some(Value::Object(raw)) = fields.remove("metrics") else {
            return Err(wrong_type(channel, "metrics must be an object"));
        };
        if raw.len() > MAX_METRICS {
            return Err(bad_length(
                channel,
                format!("at most {MAX_METRICS} metrics in one message"),
            ));
        }
        let mut metrics = BTreeMap::new();
        for (name, value) in raw {
            if !has_length(&name, METRIC_NAME_MAX_CHARS) {
                return Err(bad_length(
                    channel,
                    format!("a metric name is 1-{METRIC_NAME_MAX_CHARS} characters"),
                ));
            }
            let value = finite(channel, &value, "metrics values must be numbers")?;
            metrics.insert(name, value);
        }
        return Ok(Telemetry::Metrics(metrics));
    }
    closed(channel, &fields, &["metric", "value", "payload"])?;
    let metric = text(
        channel,
        required(channel, &mut fields, "metric")?,
        "metric",
        METRIC_NAME_MAX_CHARS,
    )?;
    let value = match required(channel, &mut fields, "value")? {
        Value::Null => None,
        value => Some(finite(channel, &value, "value must be a number or null")?),
    };
    let payload = object_or_null(channel, required(channel, &mut fields, "payload")?)?;
    Ok(Telemetry::Reading {
        metric,
        value,
        payload,
    })
}

/// `events`: a free-form object.
pub fn decode_event(bytes: &[u8]) -> Result<JsonObject, Rejected> {
    object(Channel::Events, parse(Channel::Events, bytes)?)
}

/// `alerts`: a free-form object.
pub fn decode_alert(bytes: &[u8]) -> Result<JsonObject, Rejected> {
    object(Channel::Alerts, parse(Channel::Alerts, bytes)?)
}

/// `commands`: `{ commandId, command, payload }`, all three present.
pub fn decode_command(bytes: &[u8]) -> Result<CommandMessage, Rejected> {
    let channel = Channel::Commands;
    let mut fields = object(channel, parse(channel, bytes)?)?;
    closed(channel, &fields, &["commandId", "command", "payload"])?;
    let command_id = command_id(channel, required(channel, &mut fields, "commandId")?)?;
    let command = text(
        channel,
        required(channel, &mut fields, "command")?,
        "command",
        COMMAND_VERB_MAX_CHARS,
    )?;
    let payload = object_or_null(channel, required(channel, &mut fields, "payload")?)?;
    Ok(CommandMessage {
        command_id,
        command,
        payload,
    })
}

/// `response`: `{ commandId, command, status }`.
pub fn decode_response(bytes: &[u8]) -> Result<CommandResponse, Rejected> {
    let channel = Channel::Response;
    let mut fields = object(channel, parse(channel, bytes)?)?;
    closed(channel, &fields, &["commandId", "command", "status"])?;
    let command_id = command_id(channel, required(channel, &mut fields, "commandId")?)?;
    let command = text(
        channel,
        required(channel, &mut fields, "command")?,
        "command",
        COMMAND_VERB_MAX_CHARS,
    )?;
    let status = text(
        channel,
        required(channel, &mut fields, "status")?,
        "status",
        RESPONSE_STATUS_MAX_CHARS,
    )?;
    Ok(CommandResponse {
        command_id,
        command,
        status,
    })
}

/// `availability`: `online`/`offline` bare or as a JSON string, or
/// `{ status }`.
pub fn decode_availability(bytes: &[u8]) -> Result<Availability, Rejected> {
    let channel = Channel::Availability;
    let text = utf8(channel, bytes)?;
    if let Some(word) = Availability::from_wire(text.trim_ascii()) {
        return Ok(word);
    }
    let word = |value: Value| match value {
        Value::String(word) => Availability::from_wire(&word)
            .ok_or_else(|| bad_value(channel, "availability is 'online' or 'offline'")),
        _ => Err(wrong_type(
            channel,
            "availability is a string or { status }",
        )),
    };
    match parse(channel, bytes)? {
        Value::Object(mut fields) => {
            closed(channel, &fields, &["status"])?;
            word(required(channel, &mut fields, "status")?)
        }
        value => word(value),
    }
}

/// Size, UTF-8, depth and syntax: everything before the shape.
fn parse(channel: Channel, bytes: &[u8]) -> Result<Value, Rejected> {
    let text = utf8(channel, bytes)?;
    if nesting_depth_exceeds(text.as_bytes(), MAX_DEPTH) {
        return Err(reject(
            channel,
            RejectReason::TooDeep,
            format!("nested deeper than {MAX_DEPTH} levels"),
        ));
    }
    serde_json::from_str(text).map_err(|e| {
        // serde_json's message names a line and column, never the content.
        reject(channel, RejectReason::InvalidJson, e.to_string())
    })
}

/// Empty, size and UTF-8 checks.
fn utf8(channel: Channel, bytes: &[u8]) -> Result<&str, Rejected> {
    if bytes.is_empty() {
        return Err(reject(channel, RejectReason::Empty, "empty payload"));
    }
    if bytes.len() > MAX_PAYLOAD_BYTES {
        return Err(reject(
            channel,
            RejectReason::TooLarge,
            format!("{} bytes; the limit is {MAX_PAYLOAD_BYTES}", bytes.len()),
        ));
    }
    std::str::from_utf8(bytes)
        .map_err(|_| reject(channel, RejectReason::NotUtf8, "payload is not UTF-8"))
}

/// Whether arrays/objects nest deeper than `max`, ignoring brackets inside
/// strings. Linear, no recursion; malformed JSON is left to the parser.
fn nesting_depth_exceeds(bytes: &[u8], max: usize) -> bool {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in bytes {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                if depth > max {
                    return true;
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

fn object(channel: Channel, value: Value) -> Result<JsonObject, Rejected> {
    match value {
        Value::Object(fields) => Ok(fields),
        _ => Err(reject(
            channel,
            RejectReason::NotAnObject,
            "payload must be a JSON object",
        )),
    }
}

fn closed(channel: Channel, fields: &JsonObject, allowed: &[&str]) -> Result<(), Rejected> {
    match fields.keys().find(|k| !allowed.contains(&k.as_str())) {
        None => Ok(()),
        Some(extra) => Err(reject(
            channel,
            RejectReason::UnknownField,
            format!(
                "unknown field {:?}; the fields are {}",
                truncate(extra),
                allowed.join(", ")
            ),
        )),
    }
}

/// A field name for a log line: at most 64 characters.
fn truncate(name: &str) -> String {
    name.chars().take(64).collect()
}

fn required(channel: Channel, fields: &mut JsonObject, name: &str) -> Result<Value, Rejected> {
    fields.remove(name).ok_or_else(|| {
        reject(
            channel,
            RejectReason::MissingField,
            format!("{name} is required"),
        )
    })
}

fn text(channel: Channel, value: Value, name: &str, max: usize) -> Result<String, Rejected> {
    match value {
        Value::String(text) if has_length(&text, max) => Ok(text),
        Value::String(_) => Err(bad_length(channel, format!("{name} is 1-{max} characters"))),
        _ => Err(wrong_type(channel, format!("{name} must be a string"))),
    }
}

fn command_id(channel: Channel, value: Value) -> Result<CommandId, Rejected> {
    match value {
        Value::String(id) => id
            .parse()
            .map_err(|_| bad_value(channel, "commandId is a decimal string of 1-19 digits")),
        _ => Err(wrong_type(channel, "commandId must be a decimal string")),
    }
}

fn finite(channel: Channel, value: &Value, message: &str) -> Result<f64, Rejected> {
    match value {
        Value::Number(number) => number
            .as_f64()
            .filter(|v| v.is_finite())
            .ok_or_else(|| bad_value(channel, "numbers must be finite")),
        _ => Err(wrong_type(channel, message)),
    }
}

fn object_or_null(channel: Channel, value: Value) -> Result<Option<JsonObject>, Rejected> {
    match value {
        Value::Null => Ok(None),
        Value::Object(payload) => Ok(Some(payload)),
        _ => Err(wrong_type(channel, "payload must be an object or null")),
    }
}

// ---- encoding ----------------------------------------------------------------

/// Encodes a message for its channel. The bytes are checked with the same
/// decoder the receiving side uses, so an encoder never sends what a
/// decoder drops (an over-long verb, a non-finite number, a payload over
/// [`MAX_PAYLOAD_BYTES`], ...): such a message is refused here instead.
///
/// A status report's `features` field is written as `features`, replacing
/// any `features` key of its payload. Availability is written as a JSON
/// string (`"online"`).
pub fn encode(message: &ChannelMessage) -> Result<Vec<u8>, Rejected> {
    let channel = message.channel();
    let value = match message {
        ChannelMessage::Status(report) => {
            let mut payload = report.payload.clone();
            payload.remove("features");
            if let Some(features) = &report.features {
                payload.insert("features".into(), json!(features));
            }
            Value::Object(payload)
        }
        ChannelMessage::Telemetry(Telemetry::Reading {
            metric,
            value,
            payload,
        }) => json!({ "metric": metric, "value": value, "payload": payload }),
        ChannelMessage::Telemetry(Telemetry::Metrics(metrics)) => json!({ "metrics": metrics }),
        ChannelMessage::Event(fields) | ChannelMessage::Alert(fields) => {
            Value::Object(fields.clone())
        }
        ChannelMessage::Command(command) => json!({
            "commandId": command.command_id.to_string(),
            "command": command.command,
            "payload": command.payload,
        }),
        ChannelMessage::Response(response) => json!({
            "commandId": response.command_id.to_string(),
            "command": response.command,
            "status": response.status,
        }),
        ChannelMessage::Availability(availability) => json!(availability.as_str()),
    };
    let bytes = serde_json::to_vec(&value)
        .map_err(|e| reject(channel, RejectReason::InvalidJson, e.to_string()))?;
    decode_any(channel, &bytes)?;
    Ok(bytes)
}

/// Encodes a command for the device's `commands` topic:
/// `{ commandId, command, payload }`.
pub fn encode_command(command: &CommandMessage) -> Result<Vec<u8>, Rejected> {
    encode(&ChannelMessage::Command(command.clone()))
}

// ---- schemas -------------------------------------------------------------------

/// The JSON Schema (draft 2020-12) of a channel's payload: what the decoder
/// accepts, minus the checks a schema cannot express (size, depth, the bare
/// `online`/`offline` form of availability, commandIds above 19 digits are
/// already excluded by the pattern). For the AsyncAPI document.
pub fn payload_schema(channel: Channel) -> Value {
    let text = |max: usize| json!({ "type": "string", "minLength": 1, "maxLength": max });
    let command_id = json!({
        "type": "string",
        "pattern": "^[0-9]{1,19}$",
        "description": "A decimal string."
    });
    let object_or_null = json!({ "type": ["object", "null"] });
    match channel {
        Channel::Status => json!({
            "type": "object",
            "description": "Free-form: the current state nested by capability id, plus firmware and radio facts.",
            "properties": {
                "features": {
                    "type": "array",
                    "maxItems": MAX_FEATURES,
                    "items": text(FEATURE_MAX_CHARS),
                    "description": "The features the device honours; stored on the device row."
                }
            }
        }),
        Channel::Telemetry => json!({
            "oneOf": [
                {
                    "type": "object",
                    "required": ["metric", "value", "payload"],
                    "additionalProperties": false,
                    "properties": {
                        "metric": text(METRIC_NAME_MAX_CHARS),
                        "value": { "type": ["number", "null"] },
                        "payload": object_or_null
                    }
                },
                {
                    "type": "object",
                    "required": ["metrics"],
                    "additionalProperties": false,
                    "properties": {
                        "metrics": {
                            "type": "object",
                            "maxProperties": MAX_METRICS,
                            "propertyNames": text(METRIC_NAME_MAX_CHARS),
                            "additionalProperties": { "type": "number" }
                        }
                    }
                }
            ]
        }),
        Channel::Events => json!({
            "type": "object",
            "description": "Free-form: something that happened once (button, motion, door). A hub reports a device it paired on its radio as { type: 'child.paired', protocol (MATTER, ZIGBEE, THREAD), protocolId (1-128, unique per hub), name?, kind?, capabilities[], features[]? (its descriptor, e.g. keypad: taken at pairing only) }: the platform creates the child (no credential of its own; the hub speaks for it), once per protocolId. Home security reads { type: 'motion'|'contact'|'vibration', value? (false ends one), id? (the device's own event id: one detection per id), at? (RFC 3339, when it happened) } from a detector, and { type: 'lock', action: 'keypad-unlock'|'inside-unlock'|'ambiguous-unlock'|'outside-key'|'remote-unlock'|'failed-code'|'keypad-lock' } from a lock; never send a PIN. The hub of a hub-run home answers home security with { type: 'security.config', revision, digest } (the configuration it applied) and { type: 'security.state', generation, mode, ready } (its protection state)."
        }),
        Channel::Alerts => json!({
            "type": "object",
            "description": "Free-form: a condition the household should hear about."
        }),
        Channel::Commands => json!({
            "type": "object",
            "required": ["commandId", "command", "payload"],
            "additionalProperties": false,
            "properties": {
                "commandId": command_id,
                "command": {
                    "type": "string", "minLength": 1, "maxLength": COMMAND_VERB_MAX_CHARS,
                    "description": "A capability's verb, or for the hub of a hub-run home 'security.config' (payload { revision, generation, digest (SHA-256 hex of the whole), index, count (at most 24), data (base64 of at most 1024 bytes) }: the home-security configuration in chunks, at most 24 KiB, 200 detectors, 64 outputs, 64 disarmers) or 'security.mode' (payload { mode, generation })."
                },
                "payload": object_or_null
            }
        }),
        Channel::Response => json!({
            "type": "object",
            "required": ["commandId", "command", "status"],
            "additionalProperties": false,
            "properties": {
                "commandId": command_id,
                "command": text(COMMAND_VERB_MAX_CHARS),
                "status": text(RESPONSE_STATUS_MAX_CHARS)
            }
        }),
        Channel::Availability => json!({
            "description": "Retained; the last will sets 'offline'. The bare bytes online/offline are accepted too.",
            "oneOf": [
                { "type": "string", "enum": ["online", "offline"] },
                {
                    "type": "object",
                    "required": ["status"],
                    "additionalProperties": false,
                    "properties": { "status": { "type": "string", "enum": ["online", "offline"] } }
                }
            ]
        }),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn id(n: u64) -> CommandId {
        CommandId::new(n).unwrap()
    }

    #[test]
    fn a_pin_or_a_private_media_url_leaves_every_free_form_object_a_device_sends() {
        let decode = |channel, text: &str| decode_inbound(channel, text.as_bytes()).unwrap();
        let mut status = decode(
            Channel::Status,
            r#"{"lock":{"locked":true,"pin":"1234"},"features":["keypad"]}"#,
        );
        let mut event = decode(
            Channel::Events,
            r#"{"type":"lock","action":"keypad-unlock","keypadCode":"1234"}"#,
        );
        let mut alert = decode(
            Channel::Alerts,
            r#"{"condition":"tamper","clip":"https://cdn.example/c.mp4?sig=f"}"#,
        );
        let mut reading = decode(
            Channel::Telemetry,
            r#"{"metric":"motion","value":1,"payload":{"snapshot":"rtsp://u:p@cam/x","zone":"hall"}}"#,
        );
        for message in [&mut status, &mut event, &mut alert, &mut reading] {
            assert_eq!(message.strip_secrets(), 1, "{message:?}");
        }
        let ChannelMessage::Status(report) = status else {
            panic!("a status report");
        };
        assert_eq!(
            Value::Object(report.payload),
            serde_json::json!({ "lock": { "locked": true } })
        );
        assert_eq!(report.features, Some(vec!["keypad".to_owned()]));
        assert_eq!(
            event,
            decode(
                Channel::Events,
                r#"{"type":"lock","action":"keypad-unlock"}"#
            )
        );
        assert_eq!(alert, decode(Channel::Alerts, r#"{"condition":"tamper"}"#));
        assert_eq!(
            reading,
            decode(
                Channel::Telemetry,
                r#"{"metric":"motion","value":1,"payload":{"zone":"hall"}}"#
            )
        );
    }

    fn reason<T: fmt::Debug>(result: Result<T, Rejected>) -> RejectReason {
        result.expect_err("should be rejected").reason
    }

    fn obj(value: Value) -> JsonObject {
        value.as_object().unwrap().clone()
    }

    // ---- common checks -----------------------------------------------------

    #[test]
    fn common_checks_come_first_and_name_their_reason() {
        for channel in Channel::ALL {
            assert_eq!(reason(decode_any(channel, b"")), RejectReason::Empty);
            // Size is checked before anything else (these bytes are not even UTF-8).
            let huge = vec![0xff; MAX_PAYLOAD_BYTES + 1];
            assert_eq!(reason(decode_any(channel, &huge)), RejectReason::TooLarge);
            assert_eq!(
                reason(decode_any(channel, b"\xff\xfe{}")),
                RejectReason::NotUtf8
            );
            let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
            assert_eq!(
                reason(decode_any(channel, deep.as_bytes())),
                RejectReason::TooDeep
            );
            let unclosed = "[".repeat(100_000);
            assert_eq!(
                reason(decode_any(channel, unclosed.as_bytes())),
                RejectReason::TooDeep
            );
            assert_eq!(
                reason(decode_any(channel, b"{\"a\":1")),
                RejectReason::InvalidJson
            );
            assert_eq!(
                reason(decode_any(channel, b"{} {}")),
                RejectReason::InvalidJson
            );
            assert_eq!(
                reason(decode_any(channel, b"{\"a\":1e400}")),
                RejectReason::InvalidJson
            );
        }
        // Exactly at the limits is fine.
        let mut nested = String::from("{\"a\":");
        nested.push_str(&"[".repeat(MAX_DEPTH - 1));
        nested.push_str(&"]".repeat(MAX_DEPTH - 1));
        nested.push('}');
        assert!(decode_event(nested.as_bytes()).is_ok());
        let filler = "x".repeat(MAX_PAYLOAD_BYTES - 8);
        let exact = format!("{{\"a\":\"{filler}\"}}");
        assert_eq!(exact.len(), MAX_PAYLOAD_BYTES);
        assert!(decode_event(exact.as_bytes()).is_ok());
        // Brackets inside strings do not count as nesting.
        let brackets = format!("{{\"a\":\"{}\\\"{}\"}}", "[".repeat(100), "{".repeat(100));
        assert!(decode_event(brackets.as_bytes()).is_ok(), "{brackets}");
    }

    #[test]
    fn devices_never_publish_commands() {
        let bytes = br#"{"commandId":"1","command":"reboot","payload":null}"#;
        assert!(decode_any(Channel::Commands, bytes).is_ok());
        let err = decode_inbound(Channel::Commands, bytes).unwrap_err();
        assert_eq!(err.reason, RejectReason::WrongDirection);
        assert_eq!(err.channel, Channel::Commands);
        assert!(decode_inbound(Channel::Events, b"{}").is_ok());
    }

    #[test]
    fn reasons_have_distinct_metric_labels() {
        let labels: std::collections::BTreeSet<&str> =
            RejectReason::ALL.iter().map(|r| r.as_str()).collect();
        assert_eq!(labels.len(), RejectReason::ALL.len());
        let err = decode_status(b"[]").unwrap_err();
        assert_eq!(
            err.to_string(),
            "status message dropped (not_object): payload must be a JSON object"
        );
    }

    // ---- status ------------------------------------------------------------

    #[test]
    fn status_reports() {
        let report = decode_status(
            br#"{"voice":{"listening":true,"micMuted":false},"sensor.motion":{"motion":true},
                 "features":["color_temp","oscillation","color_temp"],"firmware":"1.4.2",
                 "radio":{"rssi":-61,"channel":11},"uptime":12}"#,
        )
        .unwrap();
        assert_eq!(
            report.features.as_deref(),
            Some(&["color_temp".to_owned(), "oscillation".to_owned()][..])
        );
        assert!(!report.payload.contains_key("features"));
        assert_eq!(report.payload["uptime"], 12);
        assert_eq!(report.firmware(), Some("1.4.2"));
        assert_eq!(report.rssi(), Some(-61.0));
        assert_eq!(report.radio().unwrap()["channel"], 11);
        let state = report.state();
        assert_eq!(state["voice.listening"], true);
        assert_eq!(state["voice.micMuted"], false);
        assert_eq!(state["sensor.motion.motion"], true);
        // `radio` is a valid capability-shaped key holding an object, so it
        // flattens too; scalars and odd keys never do.
        assert!(!state.contains_key("uptime"));
        assert_eq!(state.len(), 5);

        let bare = decode_status(b"{}").unwrap();
        assert_eq!(bare.features, None);
        assert_eq!(
            (bare.firmware(), bare.rssi(), bare.radio()),
            (None, None, None)
        );

        let fallback =
            decode_status(br#"{"hub":{"firmware":"2.0.0","rssi":-70},"features":[]}"#).unwrap();
        assert_eq!(fallback.firmware(), Some("2.0.0"));
        assert_eq!(fallback.rssi(), Some(-70.0));
        assert_eq!(fallback.features, Some(vec![]));
        let nested =
            decode_status(br#"{"firmware":{"version":"3.1"},"network":{"rssi":-40}}"#).unwrap();
        assert_eq!(nested.firmware(), Some("3.1"));
        assert_eq!(nested.rssi(), Some(-40.0));
        // Odd firmware facts never reject a report.
        let odd = decode_status(br#"{"firmware":7,"rssi":"strong"}"#).unwrap();
        assert_eq!((odd.firmware(), odd.rssi()), (None, None));
    }

    #[test]
    fn status_rejections() {
        use RejectReason::*;
        let too_many = format!(
            "{{\"features\":[{}]}}",
            (0..=MAX_FEATURES)
                .map(|i| format!("\"f{i}\""))
                .collect::<Vec<_>>()
                .join(",")
        );
        let too_long = format!(
            "{{\"features\":[\"{}\"]}}",
            "f".repeat(FEATURE_MAX_CHARS + 1)
        );
        for (bytes, expected) in [
            (&b"[]"[..], NotAnObject),
            (b"\"online\"", NotAnObject),
            (b"42", NotAnObject),
            (b"null", NotAnObject),
            (br#"{"features":"color"}"#, WrongType),
            (br#"{"features":[1]}"#, WrongType),
            (br#"{"features":[""]}"#, BadLength),
            (too_long.as_bytes(), BadLength),
            (too_many.as_bytes(), BadLength),
        ] {
            assert_eq!(
                reason(decode_status(bytes)),
                expected,
                "{}",
                String::from_utf8_lossy(bytes)
            );
        }
    }

    // ---- telemetry -----------------------------------------------------------

    #[test]
    fn telemetry_forms() {
        let reading =
            decode_telemetry(br#"{"metric":"temperature","value":21.5,"payload":null}"#).unwrap();
        assert_eq!(
            reading,
            Telemetry::Reading {
                metric: "temperature".into(),
                value: Some(21.5),
                payload: None
            }
        );
        assert_eq!(
            reading.metrics(),
            BTreeMap::from([("temperature".into(), 21.5)])
        );
        let detail =
            decode_telemetry(br#"{"metric":"wake_word","value":null,"payload":{"word":"alyt"}}"#)
                .unwrap();
        assert!(detail.metrics().is_empty());
        assert!(
            matches!(detail, Telemetry::Reading { payload: Some(p), .. } if p["word"] == "alyt")
        );
        let many = decode_telemetry(
            br#"{"metrics":{"uptime":120,"rssi":-61.5,"big":123456789012345678901234567890}}"#,
        )
        .unwrap();
        let metrics = many.metrics();
        assert_eq!(metrics["uptime"], 120.0);
        assert_eq!(metrics["rssi"], -61.5);
        assert!(metrics["big"] > 1.0e29);
        assert_eq!(
            decode_telemetry(br#"{"metrics":{}}"#)
                .unwrap()
                .metrics()
                .len(),
            0
        );
        let max_name = format!(
            "{{\"metrics\":{{\"{}\":1}}}}",
            "m".repeat(METRIC_NAME_MAX_CHARS)
        );
        assert!(decode_telemetry(max_name.as_bytes()).is_ok());
        let most = metrics_message(MAX_METRICS);
        assert_eq!(
            decode_telemetry(most.as_bytes()).unwrap().metrics().len(),
            MAX_METRICS
        );
        assert!(
            decode_telemetry(br#"{"metric":"m","value":1.7976931348623157e308,"payload":null}"#)
                .is_ok()
        );
    }

    /// `{ metrics }` with this many distinct readings.
    fn metrics_message(count: usize) -> String {
        let readings: Vec<String> = (0..count).map(|n| format!("\"m{n}\":{n}")).collect();
        format!("{{\"metrics\":{{{}}}}}", readings.join(","))
    }

    #[test]
    fn telemetry_rejections() {
        use RejectReason::*;
        let long_metric = format!(
            "{{\"metric\":\"{}\",\"value\":1,\"payload\":null}}",
            "m".repeat(METRIC_NAME_MAX_CHARS + 1)
        );
        let long_name = format!(
            "{{\"metrics\":{{\"{}\":1}}}}",
            "m".repeat(METRIC_NAME_MAX_CHARS + 1)
        );
        let too_many = metrics_message(MAX_METRICS + 1);
        let hundred = metrics_message(100);
        for (bytes, expected) in [
            (&b"[1,2]"[..], NotAnObject),
            (br#"{}"#, MissingField),
            (br#"{"metric":"t","value":1}"#, MissingField),
            (br#"{"metric":"t","payload":null}"#, MissingField),
            (br#"{"value":1,"payload":null}"#, MissingField),
            (
                br#"{"metric":"t","value":1,"payload":null,"unit":"C"}"#,
                UnknownField,
            ),
            (br#"{"metric":"","value":1,"payload":null}"#, BadLength),
            (long_metric.as_bytes(), BadLength),
            (br#"{"metric":5,"value":1,"payload":null}"#, WrongType),
            (br#"{"metric":"t","value":"1","payload":null}"#, WrongType),
            (br#"{"metric":"t","value":true,"payload":null}"#, WrongType),
            (br#"{"metric":"t","value":1,"payload":[]}"#, WrongType),
            (br#"{"metric":"t","value":1,"payload":"x"}"#, WrongType),
            (br#"{"metrics":[1]}"#, WrongType),
            (br#"{"metrics":null}"#, WrongType),
            (br#"{"metrics":{"a":"1"}}"#, WrongType),
            (br#"{"metrics":{"a":null}}"#, WrongType),
            (br#"{"metrics":{"":1}}"#, BadLength),
            (long_name.as_bytes(), BadLength),
            (br#"{"metrics":{"a":1},"metric":"a"}"#, UnknownField),
            (br#"{"metrics":{"a":1e999}}"#, InvalidJson),
            (too_many.as_bytes(), BadLength),
            (hundred.as_bytes(), BadLength),
        ] {
            assert_eq!(
                reason(decode_telemetry(bytes)),
                expected,
                "{}",
                String::from_utf8_lossy(bytes)
            );
        }
    }

    // ---- events and alerts ---------------------------------------------------

    #[test]
    fn events_and_alerts_are_objects() {
        let event = decode_event(br#"{"kind":"button","press":"double"}"#).unwrap();
        assert_eq!(event["press"], "double");
        let alert = decode_alert(br#"{"kind":"battery_low","level":8}"#).unwrap();
        assert_eq!(alert["level"], 8);
        for bytes in [&b"[]"[..], b"\"motion\"", b"1", b"true", b"null"] {
            assert_eq!(reason(decode_event(bytes)), RejectReason::NotAnObject);
            assert_eq!(reason(decode_alert(bytes)), RejectReason::NotAnObject);
        }
    }

    // ---- commands and responses ------------------------------------------------

    #[test]
    fn commands_encode_and_decode() {
        let command = CommandMessage {
            command_id: id(42),
            command: "set".into(),
            payload: Some(obj(
                json!({ "capability": "light", "key": "power", "value": true }),
            )),
        };
        let bytes = encode_command(&command).unwrap();
        let wire: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(
            wire,
            json!({ "commandId": "42", "command": "set",
                    "payload": { "capability": "light", "key": "power", "value": true } })
        );
        assert_eq!(decode_command(&bytes).unwrap(), command);
        let bare = CommandMessage {
            command_id: id(0),
            command: "reboot".into(),
            payload: None,
        };
        let wire: Value = serde_json::from_slice(&encode_command(&bare).unwrap()).unwrap();
        assert_eq!(
            wire,
            json!({ "commandId": "0", "command": "reboot", "payload": null })
        );
        // The encoder refuses what a decoder would drop.
        let long = CommandMessage {
            command: "x".repeat(COMMAND_VERB_MAX_CHARS + 1),
            ..bare.clone()
        };
        assert_eq!(reason(encode_command(&long)), RejectReason::BadLength);
        let big = CommandMessage {
            payload: Some(obj(json!({ "blob": "x".repeat(MAX_PAYLOAD_BYTES) }))),
            ..bare
        };
        assert_eq!(reason(encode_command(&big)), RejectReason::TooLarge);
    }

    #[test]
    fn command_rejections() {
        use RejectReason::*;
        for (bytes, expected) in [
            (
                &br#"{"commandId":"1","command":"reboot"}"#[..],
                MissingField,
            ),
            (br#"{"command":"reboot","payload":null}"#, MissingField),
            (
                br#"{"commandId":1,"command":"reboot","payload":null}"#,
                WrongType,
            ),
            (
                br#"{"commandId":"-1","command":"reboot","payload":null}"#,
                BadValue,
            ),
            (
                br#"{"commandId":"","command":"reboot","payload":null}"#,
                BadValue,
            ),
            (
                br#"{"commandId":"1","command":"","payload":null}"#,
                BadLength,
            ),
            (
                br#"{"commandId":"1","command":"reboot","payload":[]}"#,
                WrongType,
            ),
            (
                br#"{"commandId":"1","command":"reboot","payload":null,"qos":1}"#,
                UnknownField,
            ),
        ] {
            assert_eq!(
                reason(decode_command(bytes)),
                expected,
                "{}",
                String::from_utf8_lossy(bytes)
            );
        }
    }

    #[test]
    fn responses() {
        let response =
            decode_response(br#"{"commandId":"9007","command":"set","status":"ok"}"#).unwrap();
        assert_eq!(
            response,
            CommandResponse {
                command_id: id(9007),
                command: "set".into(),
                status: "ok".into()
            }
        );
        // Leading zeros read as the same id.
        let padded =
            decode_response(br#"{"commandId":"007","command":"dance","status":"rejected"}"#)
                .unwrap();
        assert_eq!(padded.command_id, id(7));
        let max = format!(
            "{{\"commandId\":\"9999999999999999999\",\"command\":\"{}\",\"status\":\"{}\"}}",
            "c".repeat(COMMAND_VERB_MAX_CHARS),
            "s".repeat(RESPONSE_STATUS_MAX_CHARS)
        );
        assert!(decode_response(max.as_bytes()).is_ok());

        use RejectReason::*;
        let long_status = format!(
            "{{\"commandId\":\"1\",\"command\":\"set\",\"status\":\"{}\"}}",
            "s".repeat(RESPONSE_STATUS_MAX_CHARS + 1)
        );
        let long_command = format!(
            "{{\"commandId\":\"1\",\"command\":\"{}\",\"status\":\"ok\"}}",
            "c".repeat(COMMAND_VERB_MAX_CHARS + 1)
        );
        for (bytes, expected) in [
            (&b"[]"[..], NotAnObject),
            (br#"{"commandId":"1","command":"set"}"#, MissingField),
            (br#"{"commandId":"1","status":"ok"}"#, MissingField),
            (br#"{"command":"set","status":"ok"}"#, MissingField),
            (
                br#"{"commandId":"1","command":"set","status":"ok","at":1}"#,
                UnknownField,
            ),
            (
                br#"{"commandId":1,"command":"set","status":"ok"}"#,
                WrongType,
            ),
            (
                br#"{"commandId":"0x1","command":"set","status":"ok"}"#,
                BadValue,
            ),
            (
                br#"{"commandId":"1.0","command":"set","status":"ok"}"#,
                BadValue,
            ),
            (
                br#"{"commandId":"10000000000000000000","command":"set","status":"ok"}"#,
                BadValue,
            ),
            (
                br#"{"commandId":"1","command":"set","status":""}"#,
                BadLength,
            ),
            (
                br#"{"commandId":"1","command":"set","status":200}"#,
                WrongType,
            ),
            (
                br#"{"commandId":"1","command":null,"status":"ok"}"#,
                WrongType,
            ),
            (long_status.as_bytes(), BadLength),
            (long_command.as_bytes(), BadLength),
        ] {
            assert_eq!(
                reason(decode_response(bytes)),
                expected,
                "{}",
                String::from_utf8_lossy(bytes)
            );
        }
    }

    // ---- availability --------------------------------------------------------

    #[test]
    fn availability_forms() {
        for (bytes, expected) in [
            (&b"online"[..], Availability::Online),
            (b"offline", Availability::Offline),
            (b" offline\r\n", Availability::Offline),
            (b"\"online\"", Availability::Online),
            (b" \"offline\" ", Availability::Offline),
            (br#"{"status":"online"}"#, Availability::Online),
            (br#"{ "status" : "offline" }"#, Availability::Offline),
        ] {
            assert_eq!(
                decode_availability(bytes).unwrap(),
                expected,
                "{}",
                String::from_utf8_lossy(bytes)
            );
        }
        use RejectReason::*;
        for (bytes, expected) in [
            (&b"ONLINE"[..], InvalidJson),
            (b"on line", InvalidJson),
            (b"\"maybe\"", BadValue),
            (b"\"Online\"", BadValue),
            (br#"{"status":"gone"}"#, BadValue),
            (br#"{"status":true}"#, WrongType),
            (br#"{}"#, MissingField),
            (br#"{"status":"online","since":1}"#, UnknownField),
            (b"1", WrongType),
            (b"[\"online\"]", WrongType),
            (b"null", WrongType),
            (b"   ", InvalidJson),
        ] {
            assert_eq!(
                reason(decode_availability(bytes)),
                expected,
                "{}",
                String::from_utf8_lossy(bytes)
            );
        }
        assert_eq!(
            encode(&ChannelMessage::Availability(Availability::Offline)).unwrap(),
            b"\"offline\""
        );
    }

    // ---- schemas -------------------------------------------------------------

    fn validator(channel: Channel) -> jsonschema::Validator {
        let schema = payload_schema(channel);
        jsonschema::draft202012::meta::validate(&schema).expect("a valid 2020-12 schema");
        jsonschema::draft202012::new(&schema).expect("schema compiles")
    }

    #[test]
    fn schemas_are_valid_and_describe_the_examples() {
        for channel in Channel::ALL {
            validator(channel);
        }
        let examples = [
            (
                Channel::Status,
                json!({ "light": { "power": true }, "features": ["color"] }),
            ),
            (
                Channel::Telemetry,
                json!({ "metric": "t", "value": null, "payload": null }),
            ),
            (Channel::Telemetry, json!({ "metrics": { "t": 1 } })),
            (Channel::Events, json!({})),
            (Channel::Alerts, json!({ "kind": "x" })),
            (
                Channel::Commands,
                json!({ "commandId": "1", "command": "c", "payload": {} }),
            ),
            (
                Channel::Response,
                json!({ "commandId": "1", "command": "c", "status": "ok" }),
            ),
            (Channel::Availability, json!("online")),
            (Channel::Availability, json!({ "status": "offline" })),
        ];
        for (channel, example) in examples {
            assert!(
                validator(channel).is_valid(&example),
                "{channel}: {example}"
            );
            assert!(decode_any(channel, example.to_string().as_bytes()).is_ok());
        }
        // The metrics cap is in the schema too: the AsyncAPI document says it.
        for (count, valid) in [(MAX_METRICS, true), (MAX_METRICS + 1, false)] {
            let message: Value = serde_json::from_str(&metrics_message(count)).unwrap();
            assert_eq!(validator(Channel::Telemetry).is_valid(&message), valid);
            assert_eq!(
                decode_any(Channel::Telemetry, message.to_string().as_bytes()).is_ok(),
                valid
            );
        }
    }

    // ---- property tests --------------------------------------------------------

    fn any_channel() -> impl Strategy<Value = Channel> {
        proptest::sample::select(Channel::ALL.to_vec())
    }

    /// Strings around the interesting lengths and shapes.
    fn string_like() -> BoxedStrategy<String> {
        prop_oneof![
            "[0-9]{0,21}",
            "\\PC{0,4}",
            Just("online".to_owned()),
            Just("offline".to_owned()),
            proptest::sample::select(vec![0usize, 1, 31, 32, 33, 63, 64, 65])
                .prop_map(|n| "a".repeat(n)),
        ]
        .boxed()
    }

    fn key() -> BoxedStrategy<String> {
        prop_oneof![
            3 => proptest::sample::select(vec![
                "metric", "value", "payload", "metrics", "commandId", "command", "status",
                "features", "light",
            ])
            .prop_map(str::to_owned),
            1 => string_like(),
        ]
        .boxed()
    }

    fn any_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            proptest::num::f64::NORMAL.prop_map(Value::from),
            string_like().prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                proptest::collection::btree_map(key(), inner, 0..5)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    /// Values near the valid ones for a channel field.
    fn field_value() -> BoxedStrategy<Value> {
        prop_oneof![
            4 => prop_oneof!["[0-9]{1,19}", "[a-z]{1,10}", Just("online".to_owned())]
                .prop_map(Value::from),
            1 => string_like().prop_map(Value::from),
            1 => number().prop_map(Value::from),
            1 => Just(Value::Null),
            1 => Just(json!({})),
            1 => proptest::collection::btree_map(string_like(), number(), 0..3)
                .prop_map(|m| json!(m)),
            1 => proptest::collection::btree_map(string_like(), any_json(), 0..3)
                .prop_map(|m| json!(m)),
            1 => proptest::collection::vec(string_like(), 0..3).prop_map(|v| json!(v)),
        ]
        .boxed()
    }

    /// A valid message's JSON, then maybe one field removed, replaced or
    /// added: about half stay valid, for every channel.
    fn near_valid() -> impl Strategy<Value = (Channel, Value)> {
        (
            valid_message(),
            0u8..4,
            any::<proptest::sample::Index>(),
            key(),
            field_value(),
        )
            .prop_map(|(message, mutation, index, name, replacement)| {
                let channel = message.channel();
                let mut value: Value = serde_json::from_slice(&encode(&message).unwrap()).unwrap();
                if let Value::Object(fields) = &mut value
                    && !fields.is_empty()
                {
                    let existing = fields
                        .keys()
                        .nth(index.index(fields.len()))
                        .cloned()
                        .unwrap();
                    match mutation {
                        0 => {}
                        1 => {
                            fields.remove(&existing);
                        }
                        2 => {
                            fields.insert(existing, replacement);
                        }
                        _ => {
                            fields.insert(name, replacement);
                        }
                    }
                }
                (channel, value)
            })
    }

    /// Objects with a channel's field names, each present or not, holding
    /// values near the valid ones, so that both sides of every rule are hit.
    fn shaped_json() -> impl Strategy<Value = Value> {
        let shapes: Vec<&'static [&'static str]> = vec![
            &["metric", "value", "payload"],
            &["metrics"],
            &["commandId", "command", "payload"],
            &["commandId", "command", "status"],
            &["status"],
            &["features"],
        ];
        let field_value = field_value();
        (
            proptest::sample::select(shapes),
            proptest::collection::vec((proptest::bool::weighted(0.85), field_value), 3),
            proptest::option::weighted(0.1, (key(), any_json())),
        )
            .prop_map(|(shape, values, extra)| {
                let mut object = JsonObject::new();
                for (name, (present, value)) in shape.iter().zip(values) {
                    if present {
                        object.insert((*name).to_owned(), value);
                    }
                }
                if let Some((name, value)) = extra {
                    object.insert(name, value);
                }
                Value::Object(object)
            })
    }

    fn small_object() -> impl Strategy<Value = JsonObject> {
        proptest::collection::btree_map("[a-z]{1,6}", any_json(), 0..4)
            .prop_map(|m| m.into_iter().collect())
    }

    fn name(max: usize) -> BoxedStrategy<String> {
        let regex = |pattern: String| proptest::string::string_regex(&pattern).unwrap();
        prop_oneof![
            regex(format!("[a-z_.]{{1,{max}}}")),
            regex(format!("\\PC{{1,{max}}}")),
        ]
        .boxed()
    }

    fn number() -> impl Strategy<Value = f64> {
        prop_oneof![
            proptest::num::f64::NORMAL,
            any::<i32>().prop_map(f64::from),
            Just(0.0),
        ]
    }

    fn command_id() -> impl Strategy<Value = CommandId> {
        prop_oneof![0..1000u64, 0..=CommandId::MAX].prop_map(id)
    }

    fn valid_message() -> impl Strategy<Value = ChannelMessage> {
        let status = (
            small_object(),
            proptest::option::of(proptest::collection::btree_set(
                name(FEATURE_MAX_CHARS),
                0..8,
            )),
        )
            .prop_map(|(mut payload, features)| {
                payload.remove("features");
                ChannelMessage::Status(StatusReport {
                    payload,
                    features: features.map(|f| f.into_iter().collect()),
                })
            });
        let reading = (
            name(METRIC_NAME_MAX_CHARS),
            proptest::option::of(number()),
            proptest::option::of(small_object()),
        )
            .prop_map(|(metric, value, payload)| {
                ChannelMessage::Telemetry(Telemetry::Reading {
                    metric,
                    value,
                    payload,
                })
            });
        let metrics = proptest::collection::btree_map(name(METRIC_NAME_MAX_CHARS), number(), 0..6)
            .prop_map(|m| ChannelMessage::Telemetry(Telemetry::Metrics(m)));
        let command = (
            command_id(),
            name(COMMAND_VERB_MAX_CHARS),
            proptest::option::of(small_object()),
        )
            .prop_map(|(command_id, command, payload)| {
                ChannelMessage::Command(CommandMessage {
                    command_id,
                    command,
                    payload,
                })
            });
        let response = (
            command_id(),
            name(COMMAND_VERB_MAX_CHARS),
            name(RESPONSE_STATUS_MAX_CHARS),
        )
            .prop_map(|(command_id, command, status)| {
                ChannelMessage::Response(CommandResponse {
                    command_id,
                    command,
                    status,
                })
            });
        prop_oneof![
            status,
            reading,
            metrics,
            small_object().prop_map(ChannelMessage::Event),
            small_object().prop_map(ChannelMessage::Alert),
            command,
            response,
            Just(ChannelMessage::Availability(Availability::Online)),
            Just(ChannelMessage::Availability(Availability::Offline)),
        ]
    }

    /// Bytes that look like JSON often enough to reach every decoder branch.
    fn json_ish_bytes() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..512),
            "[\\[\\]{}\":,0-9a-z\\\\ .eE+-]{0,256}".prop_map(String::into_bytes),
            any_json().prop_map(|v| v.to_string().into_bytes()),
            (1usize..5000, proptest::bool::ANY).prop_map(|(n, braces)| {
                if braces {
                    "{\"a\":".repeat(n)
                } else {
                    "[".repeat(n)
                }
                .into_bytes()
            }),
            (1usize..2000)
                .prop_map(|n| format!("{{\"metrics\":{{\"a\":1{}}}}}", "0".repeat(n)).into_bytes()),
            proptest::sample::select(vec!["online", "offline", " online ", "onl\u{0}ine"])
                .prop_map(|s| s.as_bytes().to_vec()),
        ]
    }

    proptest! {
        /// The fuzz target: no input makes any decoder panic, and what is
        /// rejected names its channel.
        #[test]
        fn arbitrary_bytes_never_panic(channel in any_channel(), bytes in json_ish_bytes()) {
            match decode_any(channel, &bytes) {
                Ok(message) => prop_assert_eq!(message.channel(), channel),
                Err(rejected) => prop_assert_eq!(rejected.channel, channel),
            }
            let _ = decode_inbound(channel, &bytes);
        }

        /// Valid messages survive encode -> decode unchanged.
        #[test]
        fn valid_messages_round_trip(message in valid_message()) {
            let bytes = encode(&message).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let decoded = decode_any(message.channel(), &bytes);
            prop_assert_eq!(decoded, Ok(message.clone()));
            // The encoded form is what the channel's schema describes.
            let json: Value = serde_json::from_slice(&bytes).unwrap();
            prop_assert!(validator(message.channel()).is_valid(&json), "{}", json);
            if let ChannelMessage::Command(command) = &message {
                prop_assert_eq!(encode_command(command), Ok(bytes));
            }
        }

        /// For JSON payloads, a decoder accepts exactly what its schema
        /// accepts, and what it accepts re-encodes to the same message.
        #[test]
        fn decoders_agree_with_their_schemas(
            (channel, value) in prop_oneof![
                (any_channel(), prop_oneof![any_json(), shaped_json()]),
                near_valid(),
            ],
        ) {
            let bytes = serde_json::to_vec(&value).unwrap();
            let decoded = decode_any(channel, &bytes);
            prop_assert_eq!(
                decoded.is_ok(),
                validator(channel).is_valid(&value),
                "{}: {} -> {:?}", channel, value, decoded
            );
            if let Ok(message) = decoded {
                let again = encode(&message).map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert_eq!(decode_any(channel, &again), Ok(message));
            }
        }
    }
}
