//! The body of `POST /devices/:id/commands` (and `/endpoints/:id/commands`):
//! parsing into a [`CommandRequest`] and validation against the thing's own
//! capability descriptors.
//!
//! Three forms are accepted:
//!
//! * `{ "command": "set", "payload": { "capability", "key", "value" } }`,
//!   the thing envelope: set one control;
//! * `{ "command": "press", "payload": { "capability", "key" } }`: press a
//!   momentary control;
//! * the flat form `{ "command": <verb>, "payload": <object|null> }` with any
//!   other verb (1-64 characters): a device-native command such as
//!   `identify` or `reboot`, passed to the device as it is. `payload` may be
//!   left out (null). The platform cannot know every device verb, so a flat
//!   command is checked for shape only; the device answers a verb it does
//!   not know with status `rejected`.
//!
//! Objects are closed: a field not listed above is refused, naming it.
//! `capability` and `key` are 1-80 characters.
//!
//! Validation rules for `set` ([`CommandRequest::validate`]), in order, each
//! error naming its field:
//! 1. `payload.capability` must be the id of one of the thing's descriptors;
//! 2. `payload.key` must be a control of that descriptor;
//! 3. `command`: a `momentary` control is pressed, not set;
//! 4. `payload.key`: the control must be writable by a client (writable, a
//!    known primitive, not a `readout`);
//! 5. `payload.key`: the control must be bound to `state`; a `settings`
//!    control is stored by the settings patch, never sent to the device;
//! 6. `payload.key`: when the caller passes the thing's features, a control
//!    that `requires` a feature the thing does not report is refused;
//! 7. `payload.value` by primitive:
//!    * `toggle`: a boolean;
//!    * `slider`, `stepper`, `setpoint`, `color_temp`: a JSON number (never
//!      a numeric string) within `min`..`max` (each bound when present) and,
//!      when `step > 0`, on the grid `min + k * step` (`0 + k * step` without
//!      `min`) within a tolerance of a millionth of a step; a value within
//!      the tolerance is snapped onto the grid;
//!    * `select`: equal to one of the options' values (numbers compare by
//!      value, so `1` matches `1.0`); the option's own value is sent;
//!    * `text`: a string of at most [`TEXT_VALUE_MAX_CHARS`] characters;
//!    * `color`: a hex string `#rrggbb`, or an object `{ r, g, b }` of
//!      integers 0-255, `{ h, s }` with hue 0-360 and saturation 0-100, or
//!      `{ x, y }` CIE 1931 coordinates 0-1 (closed objects).
//!
//! `press` follows rules 1, 2, 6, and the control must be a `momentary`
//! (error on `command` otherwise, pointing at `set`).

use std::collections::BTreeSet;

use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use super::enums::DeviceCapability;
use super::{COMMAND_KEY_MAX_CHARS, COMMAND_VERB_MAX_CHARS, has_length};
use crate::capability::{self, CapabilityDescriptor, Control, ControlBinding, Primitive};

/// The longest value a `text` control accepts, in characters.
pub const TEXT_VALUE_MAX_CHARS: usize = 1024;

/// A parsed command body (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub enum CommandRequest {
    /// Set `capability.key` to `value`.
    Set {
        capability: String,
        key: String,
        value: Value,
    },
    /// Press the momentary control `capability.key`.
    Press { capability: String, key: String },
    /// The flat form: a device verb with its payload, passed through.
    Device {
        command: String,
        payload: Option<Map<String, Value>>,
    },
}

/// What goes on the device's commands channel (with the row's commandId):
/// the verb and the payload.
#[derive(Debug, Clone, PartialEq)]
pub struct AcceptedCommand {
    pub command: String,
    pub payload: Option<Map<String, Value>>,
}

/// A refused command body: the field at fault (`command`, `payload`,
/// `payload.capability`, `payload.key`, `payload.value`, `payload.<extra>`,
/// `<extra>`, or `body` for the body itself) and what is wrong with it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{field}: {problem}")]
pub struct CommandError {
    pub field: String,
    pub problem: CommandProblem,
}

/// What is wrong with a command field.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CommandProblem {
    #[error("must be a JSON object")]
    NotAnObject,
    #[error("is required")]
    Missing,
    #[error("is not a field of this command")]
    UnknownField,
    #[error("must be {expected}")]
    WrongType { expected: &'static str },
    #[error("must be 1-{max} characters")]
    Length { max: usize },
    #[error("the thing has no capability {0:?}")]
    UnknownCapability(String),
    #[error("capability {capability:?} has no control {key:?}")]
    UnknownControl { capability: String, key: String },
    #[error("control {0:?} is read-only")]
    ReadOnly(String),
    #[error("control {0:?} is a momentary button: send the command 'press'")]
    Momentary(String),
    #[error("control {0:?} is not a momentary button: send the command 'set'")]
    NotMomentary(String),
    #[error("control {0:?} is a setting: change it with PATCH /devices/:id/settings")]
    Setting(String),
    #[error("control {key:?} needs the feature {feature:?}, which the thing does not report")]
    MissingFeature { key: String, feature: String },
    #[error("must be at least {min}")]
    BelowMin { min: f64 },
    #[error("must be at most {max}")]
    AboveMax { max: f64 },
    #[error("must be {base} plus a multiple of {step}")]
    OffStep { base: f64, step: f64 },
    #[error("must be one of {allowed}")]
    NotAnOption { allowed: String },
    #[error("must be at most {max} characters")]
    TooLong { max: usize },
    #[error("{0}")]
    InvalidColor(&'static str),
}

fn error(field: impl Into<String>, problem: CommandProblem) -> CommandError {
    CommandError {
        field: field.into(),
        problem,
    }
}

impl CommandRequest {
    /// Parses a command body (see the module docs for the forms).
    pub fn parse(body: &Value) -> Result<Self, CommandError> {
        let Value::Object(body) = body else {
            return Err(error("body", CommandProblem::NotAnObject));
        };
        if let Some(extra) = body.keys().find(|k| *k != "command" && *k != "payload") {
            return Err(error(extra.clone(), CommandProblem::UnknownField));
        }
        let command = match body.get("command") {
            None => return Err(error("command", CommandProblem::Missing)),
            Some(Value::String(command)) => command,
            Some(_) => {
                return Err(error(
                    "command",
                    CommandProblem::WrongType {
                        expected: "a string",
                    },
                ));
            }
        };
        if !has_length(command, COMMAND_VERB_MAX_CHARS) {
            return Err(error(
                "command",
                CommandProblem::Length {
                    max: COMMAND_VERB_MAX_CHARS,
                },
            ));
        }
        let payload = body.get("payload");
        match command.as_str() {
            "set" => {
                let payload = envelope(payload, &["capability", "key", "value"])?;
                let (capability, key) = target(payload)?;
                let value = payload
                    .get("value")
                    .ok_or_else(|| error("payload.value", CommandProblem::Missing))?;
                Ok(CommandRequest::Set {
                    capability,
                    key,
                    value: value.clone(),
                })
            }
            "press" => {
                let payload = envelope(payload, &["capability", "key"])?;
                let (capability, key) = target(payload)?;
                Ok(CommandRequest::Press { capability, key })
            }
            _ => {
                let payload = match payload {
                    None | Some(Value::Null) => None,
                    Some(Value::Object(payload)) => Some(payload.clone()),
                    Some(_) => {
                        return Err(error(
                            "payload",
                            CommandProblem::WrongType {
                                expected: "an object or null",
                            },
                        ));
                    }
                };
                Ok(CommandRequest::Device {
                    command: command.clone(),
                    payload,
                })
            }
        }
    }

    /// The verb sent to the device.
    pub fn verb(&self) -> &str {
        match self {
            CommandRequest::Set { .. } => "set",
            CommandRequest::Press { .. } => "press",
            CommandRequest::Device { command, .. } => command,
        }
    }

    /// Validates against the thing's own descriptors (see the module docs).
    ///
    /// `features`: the features the thing reports; `Some` enforces the
    /// controls' `requires`, `None` skips that rule (for callers that do not
    /// track features).
    ///
    /// On success, the command to send: `set` carries the value as it will
    /// be sent (snapped onto the step grid, or the matching option's value).
    pub fn validate<'a>(
        &self,
        descriptors: impl IntoIterator<Item = &'a CapabilityDescriptor>,
        features: Option<&[String]>,
    ) -> Result<AcceptedCommand, CommandError> {
        // `value` is `Some` for `set`, `None` for `press`.
        let (capability, key, value) = match self {
            CommandRequest::Device { command, payload } => {
                return Ok(AcceptedCommand {
                    command: command.clone(),
                    payload: payload.clone(),
                });
            }
            CommandRequest::Set {
                capability,
                key,
                value,
            } => (capability, key, Some(value)),
            CommandRequest::Press { capability, key } => (capability, key, None),
        };
        let descriptor = descriptors
            .into_iter()
            .find(|d| d.id == *capability)
            .ok_or_else(|| {
                error(
                    "payload.capability",
                    CommandProblem::UnknownCapability(capability.clone()),
                )
            })?;
        let control = descriptor.control(key).ok_or_else(|| {
            error(
                "payload.key",
                CommandProblem::UnknownControl {
                    capability: capability.clone(),
                    key: key.clone(),
                },
            )
        })?;
        let mut payload = Map::new();
        payload.insert("capability".into(), capability.clone().into());
        payload.insert("key".into(), key.clone().into());
        if let Some(value) = value {
            if control.primitive == Primitive::Momentary {
                return Err(error("command", CommandProblem::Momentary(key.clone())));
            }
            if !control.is_client_writable() || control.primitive == Primitive::Readout {
                return Err(error("payload.key", CommandProblem::ReadOnly(key.clone())));
            }
            if control.binding == ControlBinding::Settings {
                return Err(error("payload.key", CommandProblem::Setting(key.clone())));
            }
            check_feature(control, features)?;
            let value = check_value(control, value).map_err(|p| error("payload.value", p))?;
            payload.insert("value".into(), value);
        } else {
            if control.primitive != Primitive::Momentary {
                return Err(error("command", CommandProblem::NotMomentary(key.clone())));
            }
            if !control.writable {
                return Err(error("payload.key", CommandProblem::ReadOnly(key.clone())));
            }
            check_feature(control, features)?;
        }
        Ok(AcceptedCommand {
            command: self.verb().to_owned(),
            payload: Some(payload),
        })
    }

    /// [`CommandRequest::validate`] against the built-in descriptors of a
    /// device with `capabilities` (every descriptor each capability may
    /// bring, see [`DeviceCapability::catalogue_ids`]).
    pub fn validate_for_device(
        &self,
        capabilities: impl IntoIterator<Item = DeviceCapability>,
        features: Option<&[String]>,
    ) -> Result<AcceptedCommand, CommandError> {
        let capabilities: BTreeSet<DeviceCapability> = capabilities.into_iter().collect();
        let descriptors = capabilities
            .iter()
            .flat_map(|c| c.catalogue_ids())
            .filter_map(|id| capability::find(id));
        self.validate(descriptors, features)
    }
}

/// The payload of `set`/`press`: an object with only `allowed` fields.
fn envelope<'v>(
    payload: Option<&'v Value>,
    allowed: &[&str],
) -> Result<&'v Map<String, Value>, CommandError> {
    let payload = match payload {
        None => return Err(error("payload", CommandProblem::Missing)),
        Some(Value::Object(payload)) => payload,
        Some(_) => return Err(error("payload", CommandProblem::NotAnObject)),
    };
    if let Some(extra) = payload.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(error(
            format!("payload.{extra}"),
            CommandProblem::UnknownField,
        ));
    }
    Ok(payload)
}

/// `payload.capability` and `payload.key`: strings of 1-80 characters.
fn target(payload: &Map<String, Value>) -> Result<(String, String), CommandError> {
    let field = |name: &str| -> Result<String, CommandError> {
        let path = format!("payload.{name}");
        match payload.get(name) {
            None => Err(error(path, CommandProblem::Missing)),
            Some(Value::String(text)) if has_length(text, COMMAND_KEY_MAX_CHARS) => {
                Ok(text.clone())
            }
            Some(Value::String(_)) => Err(error(
                path,
                CommandProblem::Length {
                    max: COMMAND_KEY_MAX_CHARS,
                },
            )),
            Some(_) => Err(error(
                path,
                CommandProblem::WrongType {
                    expected: "a string",
                },
            )),
        }
    };
    Ok((field("capability")?, field("key")?))
}

fn check_feature(control: &Control, features: Option<&[String]>) -> Result<(), CommandError> {
    if let (Some(features), Some(required)) = (features, &control.requires)
        && !features.contains(required)
    {
        return Err(error(
            "payload.key",
            CommandProblem::MissingFeature {
                key: control.key.clone(),
                feature: required.clone(),
            },
        ));
    }
    Ok(())
}

/// Checks a `set` value against its control; answers the value to send.
fn check_value(control: &Control, value: &Value) -> Result<Value, CommandProblem> {
    match &control.primitive {
        Primitive::Toggle => match value {
            Value::Bool(_) => Ok(value.clone()),
            _ => Err(CommandProblem::WrongType {
                expected: "a boolean",
            }),
        },
        Primitive::Slider | Primitive::Stepper | Primitive::Setpoint | Primitive::ColorTemp => {
            check_number(control, value)
        }
        Primitive::Select => check_option(control, value),
        Primitive::Text => match value {
            Value::String(text) if text.chars().nth(TEXT_VALUE_MAX_CHARS).is_none() => {
                Ok(value.clone())
            }
            Value::String(_) => Err(CommandProblem::TooLong {
                max: TEXT_VALUE_MAX_CHARS,
            }),
            _ => Err(CommandProblem::WrongType {
                expected: "a string",
            }),
        },
        Primitive::Color => check_color(value).map(|()| value.clone()),
        // Refused before the value is looked at.
        Primitive::Momentary | Primitive::Readout | Primitive::Unknown(_) => {
            Err(CommandProblem::ReadOnly(control.key.clone()))
        }
    }
}

/// How far off the grid a value may be, in steps.
const GRID_TOLERANCE: f64 = 1e-6;

fn check_number(control: &Control, value: &Value) -> Result<Value, CommandProblem> {
    let not_a_number = CommandProblem::WrongType {
        expected: "a number",
    };
    let Value::Number(number) = value else {
        return Err(not_a_number);
    };
    let Some(v) = number.as_f64().filter(|v| v.is_finite()) else {
        return Err(not_a_number);
    };
    if let Some(min) = control.min
        && v < min
    {
        return Err(CommandProblem::BelowMin { min });
    }
    if let Some(max) = control.max
        && v > max
    {
        return Err(CommandProblem::AboveMax { max });
    }
    let Some(step) = control.step.filter(|s| *s > 0.0 && s.is_finite()) else {
        return Ok(value.clone());
    };
    let base = control.min.unwrap_or(0.0);
    let steps = (v - base) / step;
    let nearest = steps.round();
    if !steps.is_finite() || (steps - nearest).abs() > GRID_TOLERANCE {
        return Err(CommandProblem::OffStep { base, step });
    }
    if steps == nearest {
        // On the grid as far as floating point can tell: send it as given.
        return Ok(value.clone());
    }
    let mut snapped = base + nearest * step;
    if let Some(min) = control.min {
        snapped = snapped.max(min);
    }
    if let Some(max) = control.max {
        snapped = snapped.min(max);
    }
    if snapped == v {
        return Ok(value.clone());
    }
    Ok(number_value(snapped))
}

/// A JSON number, written as an integer when it is one.
fn number_value(v: f64) -> Value {
    // Whole numbers within ±2^53 convert to i64 exactly.
    if v.fract() == 0.0 && v.abs() < 9_007_199_254_740_992.0 {
        Value::from(v as i64)
    } else {
        Value::from(v)
    }
}

fn check_option(control: &Control, value: &Value) -> Result<Value, CommandProblem> {
    let options = control.options.as_deref().unwrap_or_default();
    let same = |option: &Value| match (option, value) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        _ => option == value,
    };
    match options.iter().find(|o| same(&o.value)) {
        Some(option) => Ok(option.value.clone()),
        None => Err(CommandProblem::NotAnOption {
            allowed: options
                .iter()
                .map(|o| o.value.to_string())
                .collect::<Vec<_>>()
                .join(", "),
        }),
    }
}

fn check_color(value: &Value) -> Result<(), CommandProblem> {
    const SHAPES: &str = "must be \"#rrggbb\", { r, g, b } (0-255), { h, s } (hue 0-360, \
                          saturation 0-100) or { x, y } (0-1)";
    let bad = || CommandProblem::InvalidColor(SHAPES);
    match value {
        Value::String(hex) => {
            let digits = hex.strip_prefix('#').ok_or_else(bad)?;
            if digits.len() == 6 && digits.bytes().all(|b| b.is_ascii_hexdigit()) {
                Ok(())
            } else {
                Err(bad())
            }
        }
        Value::Object(fields) => {
            let mut keys: Vec<&str> = fields.keys().map(String::as_str).collect();
            keys.sort_unstable();
            let number = |name: &str| fields.get(name).and_then(Value::as_f64);
            let within =
                |name: &str, lo: f64, hi: f64| number(name).is_some_and(|v| (lo..=hi).contains(&v));
            let byte = |name: &str| {
                fields
                    .get(name)
                    .and_then(Value::as_u64)
                    .is_some_and(|v| v <= 255)
            };
            let ok = match keys.as_slice() {
                ["b", "g", "r"] => byte("r") && byte("g") && byte("b"),
                ["h", "s"] => within("h", 0.0, 360.0) && within("s", 0.0, 100.0),
                ["x", "y"] => within("x", 0.0, 1.0) && within("y", 0.0, 1.0),
                _ => false,
            };
            if ok { Ok(()) } else { Err(bad()) }
        }
        _ => Err(bad()),
    }
}

impl<'de> Deserialize<'de> for CommandRequest {
    /// Parses like [`CommandRequest::parse`]; the error message names the
    /// field at fault.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let body = Value::deserialize(deserializer)?;
        CommandRequest::parse(&body).map_err(serde::de::Error::custom)
    }
}

/// The three forms of a command body, each a named schema so a generated
/// client has a type per form: `SetCommand`, `PressCommand`, `DeviceCommand`.
#[cfg(feature = "openapi")]
fn command_forms() -> [(&'static str, utoipa::openapi::schema::Object); 3] {
    use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, SchemaType, Type};
    let text = |max: usize| {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .min_length(Some(1))
            .max_length(Some(max))
    };
    let closed = || Some(AdditionalProperties::FreeForm(false));
    let verb = |name: &str| {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some([name]))
    };
    let set = ObjectBuilder::new()
        .schema_type(Type::Object)
        .property("command", verb("set"))
        .property(
            "payload",
            ObjectBuilder::new()
                .schema_type(Type::Object)
                .property("capability", text(COMMAND_KEY_MAX_CHARS))
                .property("key", text(COMMAND_KEY_MAX_CHARS))
                .property(
                    "value",
                    ObjectBuilder::new()
                        .schema_type(SchemaType::AnyValue)
                        .description(Some("Checked against the control's primitive.")),
                )
                .required("capability")
                .required("key")
                .required("value")
                .additional_properties(closed()),
        )
        .required("command")
        .required("payload")
        .additional_properties(closed())
        .description(Some("Set one control of the thing (the thing envelope)."));
    let press = ObjectBuilder::new()
        .schema_type(Type::Object)
        .property("command", verb("press"))
        .property(
            "payload",
            ObjectBuilder::new()
                .schema_type(Type::Object)
                .property("capability", text(COMMAND_KEY_MAX_CHARS))
                .property("key", text(COMMAND_KEY_MAX_CHARS))
                .required("capability")
                .required("key")
                .additional_properties(closed()),
        )
        .required("command")
        .required("payload")
        .additional_properties(closed())
        .description(Some("Press a momentary control of the thing."));
    let flat = ObjectBuilder::new()
        .schema_type(Type::Object)
        .property("command", text(COMMAND_VERB_MAX_CHARS))
        .property(
            "payload",
            ObjectBuilder::new().schema_type(SchemaType::from_iter([Type::Object, Type::Null])),
        )
        .required("command")
        .additional_properties(closed())
        .description(Some(
            "The flat form: a device verb and its payload, passed to the device as is.",
        ));
    [
        ("SetCommand", set.build()),
        ("PressCommand", press.build()),
        ("DeviceCommand", flat.build()),
    ]
}

#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for CommandRequest {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::Ref;
        use utoipa::openapi::schema::AnyOfBuilder;
        command_forms()
            .into_iter()
            .fold(AnyOfBuilder::new(), |any, (name, _)| {
                any.item(Ref::from_schema_name(name))
            })
            .description(Some(
                "A command: the thing envelope ('set'), 'press', or the flat form.",
            ))
            .into()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for CommandRequest {
    fn schemas(
        schemas: &mut Vec<(
            String,
            utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
        )>,
    ) {
        for (name, form) in command_forms() {
            schemas.push((name.to_owned(), form.into()));
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;
    use crate::capability::{ControlOption, find};

    fn parse(body: Value) -> Result<CommandRequest, CommandError> {
        CommandRequest::parse(&body)
    }

    fn light_thing() -> Vec<&'static CapabilityDescriptor> {
        ["light", "energy", "cover", "thermostat", "hub"]
            .into_iter()
            .map(|id| find(id).unwrap())
            .collect()
    }

    fn set(capability: &str, key: &str, value: Value) -> CommandRequest {
        CommandRequest::Set {
            capability: capability.into(),
            key: key.into(),
            value,
        }
    }

    fn press(capability: &str, key: &str) -> CommandRequest {
        CommandRequest::Press {
            capability: capability.into(),
            key: key.into(),
        }
    }

    fn check(request: CommandRequest) -> Result<AcceptedCommand, CommandError> {
        request.validate(light_thing(), None)
    }

    fn problem(request: CommandRequest) -> (String, CommandProblem) {
        let err = check(request).unwrap_err();
        (err.field, err.problem)
    }

    #[test]
    fn parses_the_three_forms() {
        assert_eq!(
            parse(
                json!({ "command": "set", "payload": { "capability": "light", "key": "power", "value": true } })
            )
            .unwrap(),
            set("light", "power", json!(true))
        );
        assert_eq!(
            parse(
                json!({ "command": "press", "payload": { "capability": "hub", "key": "identify" } })
            )
            .unwrap(),
            press("hub", "identify")
        );
        assert_eq!(
            parse(json!({ "command": "identify", "payload": null })).unwrap(),
            CommandRequest::Device {
                command: "identify".into(),
                payload: None
            }
        );
        assert_eq!(
            parse(json!({ "command": "reboot" })).unwrap(),
            CommandRequest::Device {
                command: "reboot".into(),
                payload: None
            }
        );
        let flat = parse(json!({ "command": "volume", "payload": { "level": 3 } })).unwrap();
        assert_eq!(flat.verb(), "volume");
        assert_eq!(
            flat.validate(light_thing(), None).unwrap(),
            AcceptedCommand {
                command: "volume".into(),
                payload: Some(json!({ "level": 3 }).as_object().unwrap().clone())
            }
        );
        // Set's value may be null (the primitive check refuses it later).
        assert!(
            parse(json!({ "command": "set", "payload": { "capability": "light", "key": "power", "value": null } }))
                .is_ok()
        );
        // Through serde too.
        let via_serde: CommandRequest = serde_json::from_value(
            json!({ "command": "press", "payload": { "capability": "hub", "key": "reboot" } }),
        )
        .unwrap();
        assert_eq!(via_serde, press("hub", "reboot"));
        let err = serde_json::from_value::<CommandRequest>(json!({ "command": 3 })).unwrap_err();
        assert!(
            err.to_string().starts_with("command: must be a string"),
            "{err}"
        );
    }

    #[test]
    fn parse_errors_name_the_field() {
        let cases = [
            (json!([]), "body", CommandProblem::NotAnObject),
            (json!({}), "command", CommandProblem::Missing),
            (
                json!({ "command": "" }),
                "command",
                CommandProblem::Length { max: 64 },
            ),
            (
                json!({ "command": "x".repeat(65) }),
                "command",
                CommandProblem::Length { max: 64 },
            ),
            (
                json!({ "command": true }),
                "command",
                CommandProblem::WrongType {
                    expected: "a string",
                },
            ),
            (
                json!({ "command": "reboot", "tenantId": "x" }),
                "tenantId",
                CommandProblem::UnknownField,
            ),
            (
                json!({ "command": "reboot", "payload": [1] }),
                "payload",
                CommandProblem::WrongType {
                    expected: "an object or null",
                },
            ),
            (
                json!({ "command": "set" }),
                "payload",
                CommandProblem::Missing,
            ),
            (
                json!({ "command": "set", "payload": null }),
                "payload",
                CommandProblem::NotAnObject,
            ),
            (
                json!({ "command": "set", "payload": { "key": "power", "value": true } }),
                "payload.capability",
                CommandProblem::Missing,
            ),
            (
                json!({ "command": "set", "payload": { "capability": "light", "value": true } }),
                "payload.key",
                CommandProblem::Missing,
            ),
            (
                json!({ "command": "set", "payload": { "capability": "light", "key": "power" } }),
                "payload.value",
                CommandProblem::Missing,
            ),
            (
                json!({ "command": "set", "payload": { "capability": "light", "key": "", "value": 1 } }),
                "payload.key",
                CommandProblem::Length { max: 80 },
            ),
            (
                json!({ "command": "set", "payload": { "capability": "light", "key": "k".repeat(81), "value": 1 } }),
                "payload.key",
                CommandProblem::Length { max: 80 },
            ),
            (
                json!({ "command": "set", "payload": { "capability": 1, "key": "power", "value": 1 } }),
                "payload.capability",
                CommandProblem::WrongType {
                    expected: "a string",
                },
            ),
            (
                json!({ "command": "set", "payload": { "capability": "light", "key": "power", "value": 1, "extra": 1 } }),
                "payload.extra",
                CommandProblem::UnknownField,
            ),
            (
                json!({ "command": "press", "payload": { "capability": "hub", "key": "identify", "value": true } }),
                "payload.value",
                CommandProblem::UnknownField,
            ),
        ];
        for (body, field, expected) in cases {
            let err = parse(body.clone()).unwrap_err();
            assert_eq!(err.field, field, "{body}");
            assert_eq!(err.problem, expected, "{body}");
        }
        // 80 characters exactly is fine.
        assert!(
            parse(json!({ "command": "press", "payload": { "capability": "hub", "key": "k".repeat(80) } }))
                .is_ok()
        );
    }

    #[test]
    fn set_accepts_valid_values_per_primitive() {
        let ok = |capability: &str, key: &str, value: Value| {
            check(set(capability, key, value.clone()))
                .unwrap_or_else(|e| panic!("{capability}.{key} = {value}: {e}"))
        };
        let accepted = ok("light", "power", json!(false));
        assert_eq!(accepted.command, "set");
        assert_eq!(
            Value::Object(accepted.payload.unwrap()),
            json!({ "capability": "light", "key": "power", "value": false })
        );
        ok("light", "brightness", json!(0));
        ok("light", "brightness", json!(100));
        ok("light", "brightness", json!(42.0));
        ok("light", "colorTemp", json!(2700));
        ok("thermostat", "setpoint", json!(21.5));
        ok("thermostat", "mode", json!("eco"));
        ok("cover", "position", json!(55));
        ok("light", "color", json!("#FFaa00"));
        ok("light", "color", json!({ "r": 255, "g": 0, "b": 10 }));
        ok("light", "color", json!({ "h": 359.5, "s": 100 }));
        ok("light", "color", json!({ "x": 0.3127, "y": 0.329 }));
    }

    #[test]
    fn values_near_the_grid_are_snapped() {
        let accepted = check(set("thermostat", "setpoint", json!(21.499_999_999))).unwrap();
        assert_eq!(accepted.payload.unwrap()["value"], json!(21.5));
        let accepted = check(set("light", "colorTemp", json!(2_700.000_000_1))).unwrap();
        assert_eq!(accepted.payload.unwrap()["value"], json!(2700));
        // Exact values are sent exactly as given.
        let accepted = check(set("light", "brightness", json!(40.0))).unwrap();
        assert_eq!(accepted.payload.unwrap()["value"], json!(40.0));
    }

    #[test]
    fn set_refuses_with_the_field_at_fault() {
        use CommandProblem::*;
        let number = WrongType {
            expected: "a number",
        };
        let cases = [
            (
                set("lock", "locked", json!(true)),
                "payload.capability",
                UnknownCapability("lock".into()),
            ),
            (
                set("light", "dim", json!(1)),
                "payload.key",
                UnknownControl {
                    capability: "light".into(),
                    key: "dim".into(),
                },
            ),
            (
                set("light", "watts", json!(3)),
                "payload.key",
                ReadOnly("watts".into()),
            ),
            (
                set("thermostat", "ambient", json!(3)),
                "payload.key",
                ReadOnly("ambient".into()),
            ),
            (
                set("hub", "identify", json!(true)),
                "command",
                Momentary("identify".into()),
            ),
            (
                set("light", "transition", json!(1)),
                "payload.key",
                Setting("transition".into()),
            ),
            (
                set("light", "power", json!("on")),
                "payload.value",
                WrongType {
                    expected: "a boolean",
                },
            ),
            (
                set("light", "power", json!(null)),
                "payload.value",
                WrongType {
                    expected: "a boolean",
                },
            ),
            (
                set("light", "brightness", json!("50")),
                "payload.value",
                number.clone(),
            ),
            (
                set("light", "brightness", json!(true)),
                "payload.value",
                number,
            ),
            (
                set("light", "brightness", json!(-1)),
                "payload.value",
                BelowMin { min: 0.0 },
            ),
            (
                set("light", "brightness", json!(100.5)),
                "payload.value",
                AboveMax { max: 100.0 },
            ),
            (
                set("light", "brightness", json!(50.5)),
                "payload.value",
                OffStep {
                    base: 0.0,
                    step: 1.0,
                },
            ),
            (
                set("light", "colorTemp", json!(2725)),
                "payload.value",
                OffStep {
                    base: 2000.0,
                    step: 50.0,
                },
            ),
            (
                set("thermostat", "setpoint", json!(21.25)),
                "payload.value",
                OffStep {
                    base: 5.0,
                    step: 0.5,
                },
            ),
            (
                set("thermostat", "setpoint", json!(4.5)),
                "payload.value",
                BelowMin { min: 5.0 },
            ),
            (
                set("thermostat", "mode", json!("cool")),
                "payload.value",
                NotAnOption {
                    allowed: r#""heat", "auto", "eco", "off""#.into(),
                },
            ),
        ];
        for (request, field, expected) in cases {
            let label = format!("{request:?}");
            let (got_field, got) = problem(request);
            assert_eq!(got_field, field, "{label}");
            assert_eq!(got, expected, "{label}");
        }
        for bad in [
            json!("#fff"),
            json!("ff8800"),
            json!("#gg0000"),
            json!({ "r": 256, "g": 0, "b": 0 }),
            json!({ "r": 1.5, "g": 0, "b": 0 }),
            json!({ "r": 1, "g": 0 }),
            json!({ "r": 1, "g": 0, "b": 0, "a": 1 }),
            json!({ "h": 361, "s": 0 }),
            json!({ "x": 0.2, "y": 1.2 }),
            json!(16_746_496),
            json!(null),
        ] {
            let (field, got) = problem(set("light", "color", bad.clone()));
            assert_eq!(field, "payload.value", "{bad}");
            assert!(matches!(got, InvalidColor(_)), "{bad}: {got:?}");
        }
        // The message reads well.
        let err = check(set("light", "brightness", json!(101))).unwrap_err();
        assert_eq!(err.to_string(), "payload.value: must be at most 100");
    }

    #[test]
    fn press_needs_a_momentary_control() {
        let accepted = check(press("hub", "reboot")).unwrap();
        assert_eq!(accepted.command, "press");
        assert_eq!(
            Value::Object(accepted.payload.unwrap()),
            json!({ "capability": "hub", "key": "reboot" })
        );
        check(press("cover", "stop")).unwrap();
        let (field, got) = problem(press("light", "power"));
        assert_eq!(field, "command");
        assert_eq!(got, CommandProblem::NotMomentary("power".into()));
        let (field, got) = problem(press("media_player", "play"));
        assert_eq!(field, "payload.capability");
        assert_eq!(
            got,
            CommandProblem::UnknownCapability("media_player".into())
        );
    }

    #[test]
    fn features_gate_controls_that_require_them() {
        let request = set("light", "colorTemp", json!(3000));
        let none: &[String] = &[];
        let err = request.validate(light_thing(), Some(none)).unwrap_err();
        assert_eq!(err.field, "payload.key");
        assert_eq!(
            err.problem,
            CommandProblem::MissingFeature {
                key: "colorTemp".into(),
                feature: "color_temp".into()
            }
        );
        let features = vec!["color_temp".to_owned()];
        assert!(request.validate(light_thing(), Some(&features)).is_ok());
        assert!(request.validate(light_thing(), None).is_ok());
        // Controls without `requires` need no feature.
        assert!(
            set("light", "power", json!(true))
                .validate(light_thing(), Some(none))
                .is_ok()
        );
    }

    #[test]
    fn validating_for_a_device_uses_its_capabilities() {
        let hub = [DeviceCapability::Voice, DeviceCapability::Hub];
        assert!(
            set("voice", "listening", json!(false))
                .validate_for_device(hub, None)
                .is_ok()
        );
        assert!(
            press("hub", "identify")
                .validate_for_device(hub, None)
                .is_ok()
        );
        let err = set("light", "power", json!(true))
            .validate_for_device(hub, None)
            .unwrap_err();
        assert_eq!(err.field, "payload.capability");
        // The physical mute switch is reported, never commanded.
        let err = set("voice", "micMuted", json!(true))
            .validate_for_device(hub, None)
            .unwrap_err();
        assert_eq!(err.problem, CommandProblem::ReadOnly("micMuted".into()));
        // Sensor kinds are known descriptors but hold nothing writable.
        let err = set("sensor.temperature", "temperature", json!(20))
            .validate_for_device([DeviceCapability::Sensor], None)
            .unwrap_err();
        assert_eq!(err.problem, CommandProblem::ReadOnly("temperature".into()));
        // The speaker profile: set volume or muted, press play.
        let speaker = [DeviceCapability::MediaPlayer];
        assert!(
            set("media_player", "volume", json!(30))
                .validate_for_device(speaker, None)
                .is_ok()
        );
        assert!(
            set("media_player", "muted", json!(true))
                .validate_for_device(speaker, None)
                .is_ok()
        );
        assert!(
            press("media_player", "next")
                .validate_for_device(speaker, None)
                .is_ok()
        );
    }

    #[test]
    fn select_numbers_compare_by_value_and_text_has_a_limit() {
        let mut descriptor = find("thermostat").unwrap().clone();
        descriptor.controls.push(
            Control::new("fanLevel", "Fan level", Primitive::Select)
                .with_options(vec![
                    ControlOption::new(1, "Low"),
                    ControlOption::new(2, "High"),
                ])
                .with_order(10),
        );
        descriptor
            .controls
            .push(Control::new("label", "Label", Primitive::Text).with_order(11));
        let accepted = set("thermostat", "fanLevel", json!(2.0))
            .validate([&descriptor], None)
            .unwrap();
        assert_eq!(accepted.payload.unwrap()["value"], json!(2));
        assert!(
            set("thermostat", "fanLevel", json!("2"))
                .validate([&descriptor], None)
                .is_err()
        );
        assert!(
            set("thermostat", "label", json!("Hall"))
                .validate([&descriptor], None)
                .is_ok()
        );
        let long = "x".repeat(TEXT_VALUE_MAX_CHARS + 1);
        let err = set("thermostat", "label", json!(long))
            .validate([&descriptor], None)
            .unwrap_err();
        assert_eq!(
            err.problem,
            CommandProblem::TooLong {
                max: TEXT_VALUE_MAX_CHARS
            }
        );
        let err = set("thermostat", "label", json!(5))
            .validate([&descriptor], None)
            .unwrap_err();
        assert_eq!(err.field, "payload.value");
        // A primitive this build does not know is never settable.
        descriptor.controls.push(
            Control::new(
                "hologram",
                "Hologram",
                Primitive::Unknown("hologram".into()),
            )
            .with_order(12),
        );
        let err = set("thermostat", "hologram", json!(1))
            .validate([&descriptor], None)
            .unwrap_err();
        assert_eq!(err.problem, CommandProblem::ReadOnly("hologram".into()));
    }

    #[test]
    fn the_openapi_schema_names_the_three_forms() {
        use utoipa::{PartialSchema, ToSchema};
        let schema = serde_json::to_value(CommandRequest::schema()).unwrap();
        let forms: Vec<&str> = schema["anyOf"]
            .as_array()
            .unwrap()
            .iter()
            .map(|form| form["$ref"].as_str().unwrap())
            .collect();
        assert_eq!(
            forms,
            [
                "#/components/schemas/SetCommand",
                "#/components/schemas/PressCommand",
                "#/components/schemas/DeviceCommand"
            ]
        );
        let mut named = Vec::new();
        CommandRequest::schemas(&mut named);
        let named: std::collections::BTreeMap<String, serde_json::Value> = named
            .into_iter()
            .map(|(name, schema)| (name, serde_json::to_value(schema).unwrap()))
            .collect();
        let set = &named["SetCommand"];
        assert_eq!(set["properties"]["command"]["enum"], json!(["set"]));
        assert_eq!(
            set["properties"]["payload"]["properties"]["key"]["maxLength"],
            80
        );
        assert_eq!(
            named["DeviceCommand"]["properties"]["command"]["maxLength"],
            64
        );
        assert_eq!(
            named["PressCommand"]["properties"]["command"]["enum"],
            json!(["press"])
        );
    }

    fn numeric_control() -> impl Strategy<Value = Control> {
        let primitive = proptest::sample::select(vec![
            Primitive::Slider,
            Primitive::Stepper,
            Primitive::Setpoint,
            Primitive::ColorTemp,
        ]);
        let bounds = (-1000.0f64..1000.0, 0.0f64..2000.0).prop_map(|(min, span)| (min, min + span));
        let step = prop_oneof![
            Just(None),
            Just(Some(0.0)),
            proptest::sample::select(vec![0.1, 0.5, 1.0, 2.5, 10.0, 50.0]).prop_map(Some),
            (0.001f64..100.0).prop_map(Some),
        ];
        (
            primitive,
            proptest::option::of(bounds.clone()),
            proptest::bool::ANY,
            proptest::bool::ANY,
            step,
        )
            .prop_map(|(primitive, bounds, has_min, has_max, step)| {
                let mut control = Control::new("n", "N", primitive);
                if let Some((min, max)) = bounds {
                    control.min = has_min.then_some(min);
                    control.max = has_max.then_some(max);
                }
                control.step = step;
                control
            })
    }

    fn descriptor_with(control: Control) -> CapabilityDescriptor {
        CapabilityDescriptor {
            id: "test".into(),
            version: 1,
            label: "Test".into(),
            icon: "test".into(),
            controls: vec![control],
            room_actions: vec![],
        }
    }

    proptest! {
        /// Whatever number is sent, an accepted value lies within the
        /// control's range and on its grid.
        #[test]
        fn accepted_numbers_lie_within_the_range(
            control in numeric_control(),
            value in prop_oneof![
                -3000.0f64..3000.0,
                (-3000i64..3000).prop_map(|v| v as f64),
                proptest::num::f64::NORMAL,
            ],
        ) {
            let descriptor = descriptor_with(control.clone());
            let request = set("test", "n", json!(value));
            if let Ok(accepted) = request.validate([&descriptor], None) {
                let sent = accepted.payload.unwrap()["value"].as_f64().unwrap();
                if let Some(min) = control.min { prop_assert!(sent >= min, "{} < {}", sent, min); }
                if let Some(max) = control.max { prop_assert!(sent <= max, "{} > {}", sent, max); }
                if let Some(step) = control.step.filter(|s| *s > 0.0) {
                    let steps = (sent - control.min.unwrap_or(0.0)) / step;
                    prop_assert!((steps - steps.round()).abs() <= 1e-6, "{} off the grid", sent);
                }
                let tolerance = control.step.unwrap_or(0.0) * 1e-6 + value.abs() * 1e-12 + 1e-9;
                prop_assert!((sent - value).abs() <= tolerance, "{} sent for {}", sent, value);
            }
        }

        /// Every value on the grid within the range is accepted.
        #[test]
        fn grid_values_within_the_range_are_accepted(
            control in numeric_control(),
            k in 0u32..200,
        ) {
            let base = control.min.unwrap_or(0.0);
            let step = control.step.filter(|s| *s > 0.0).unwrap_or(1.0);
            let value = base + f64::from(k) * step;
            prop_assume!(control.max.is_none_or(|max| value <= max));
            let descriptor = descriptor_with(control);
            let request = set("test", "n", json!(value));
            prop_assert!(request.validate([&descriptor], None).is_ok());
        }

        /// Parsing never panics, and what parses re-validates without panics.
        #[test]
        fn parsing_arbitrary_bodies_never_panics(
            command in prop_oneof![Just("set".to_owned()), Just("press".to_owned()), "\\PC{0,70}"],
            capability in prop_oneof![Just(json!("light")), Just(json!("hub")), Just(json!(1)), "\\PC{0,90}".prop_map(Value::from)],
            key in prop_oneof![Just(json!("power")), Just(json!("brightness")), Just(json!("identify")), "\\PC{0,90}".prop_map(Value::from)],
            value in prop_oneof![Just(json!(null)), proptest::bool::ANY.prop_map(Value::from), proptest::num::f64::NORMAL.prop_map(Value::from), "\\PC{0,8}".prop_map(Value::from)],
            shape in 0u8..4,
        ) {
            let body = match shape {
                0 => json!({ "command": command, "payload": { "capability": capability, "key": key, "value": value } }),
                1 => json!({ "command": command, "payload": { "capability": capability, "key": key } }),
                2 => json!({ "command": command, "payload": value }),
                _ => json!({ "command": command }),
            };
            if let Ok(request) = CommandRequest::parse(&body) {
                let _ = request.validate(light_thing(), Some(&[]));
            }
        }
    }
}
