//! Wire types of the capability catalogue.
//!
//! Field names follow the spec exactly (camelCase). Optional fields are left
//! out of the JSON when absent, so a serialized descriptor is a closed object
//! that matches the spec's shape. Reading is lenient where the spec asks
//! clients to be (unknown primitives, see [`Primitive::Unknown`]).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// How a control is drawn. The set is closed (spec: "a new control primitive
/// requires a client update").
///
/// On the wire a primitive is its snake_case name (`color_temp`, ...).
///
/// [`Primitive::Unknown`] exists only for reading: stored or foreign data may
/// carry a primitive newer than this build, and such a descriptor must still
/// read. The raw token is kept so that the data round-trips unchanged. A
/// control with an unknown primitive is shown as a read-only labelled row
/// (see [`Control::is_client_writable`]); [`crate::capability::validate`]
/// rejects it, so the built-in catalogue never serves one.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Primitive {
    /// On/off (a boolean).
    Toggle,
    /// A continuous number between `min` and `max`.
    Slider,
    /// A number moved by `step` with minus/plus buttons.
    Stepper,
    /// A colour.
    Color,
    /// A white colour temperature, usually in kelvin.
    ColorTemp,
    /// A target value (e.g. a thermostat's target temperature).
    Setpoint,
    /// One of `options`.
    Select,
    /// A button press without state (a `press` command).
    Momentary,
    /// A read-only value.
    Readout,
    /// Free text.
    Text,
    /// A primitive this build does not know (raw wire token kept). Read-only.
    Unknown(String),
}

impl Primitive {
    /// The closed set, in the spec's order.
    pub const KNOWN: [Primitive; 10] = [
        Primitive::Toggle,
        Primitive::Slider,
        Primitive::Stepper,
        Primitive::Color,
        Primitive::ColorTemp,
        Primitive::Setpoint,
        Primitive::Select,
        Primitive::Momentary,
        Primitive::Readout,
        Primitive::Text,
    ];

    /// The wire name (for `Unknown`, the raw token it was read from).
    pub fn as_str(&self) -> &str {
        match self {
            Primitive::Toggle => "toggle",
            Primitive::Slider => "slider",
            Primitive::Stepper => "stepper",
            Primitive::Color => "color",
            Primitive::ColorTemp => "color_temp",
            Primitive::Setpoint => "setpoint",
            Primitive::Select => "select",
            Primitive::Momentary => "momentary",
            Primitive::Readout => "readout",
            Primitive::Text => "text",
            Primitive::Unknown(raw) => raw,
        }
    }

    /// Reads a wire name; never fails (unrecognised names become `Unknown`).
    pub fn from_wire(name: &str) -> Primitive {
        Primitive::KNOWN
            .into_iter()
            .find(|p| p.as_str() == name)
            .unwrap_or_else(|| Primitive::Unknown(name.to_owned()))
    }

    /// False only for [`Primitive::Unknown`].
    pub fn is_known(&self) -> bool {
        !matches!(self, Primitive::Unknown(_))
    }
}

impl fmt::Display for Primitive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Primitive {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Primitive {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Primitive;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a control primitive name")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Primitive, E> {
                Ok(Primitive::from_wire(v))
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

// Hand-written so that the OpenAPI document shows the closed set only:
// `Unknown` is a reading fallback, never something the server sends.
#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for Primitive {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .enum_values(Some(Primitive::KNOWN.iter().map(|p| p.as_str().to_owned())))
            .description(Some(
                "Closed set of control primitives. Clients show a primitive they do not \
                 know as a read-only labelled row.",
            ))
            .into()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for Primitive {}

/// Where a control's value lives: the live device state or the stored
/// per-capability settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum ControlBinding {
    State,
    Settings,
}

/// Which section of a thing's page a control is drawn in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum ControlGroup {
    Primary,
    Settings,
    Diagnostic,
}

/// How a room tile draws a room action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum RoomActionPrimitive {
    Toggle,
    Lock,
    Slider,
    Stepper,
}

impl RoomActionPrimitive {
    pub fn as_str(self) -> &'static str {
        match self {
            RoomActionPrimitive::Toggle => "toggle",
            RoomActionPrimitive::Lock => "lock",
            RoomActionPrimitive::Slider => "slider",
            RoomActionPrimitive::Stepper => "stepper",
        }
    }
}

impl fmt::Display for RoomActionPrimitive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One choice of a `select`, or a label for one value of a `readout`
/// (e.g. `true` -> "Open" on a contact sensor).
///
/// `value` is any JSON scalar because it is compared with, or sent as, the
/// state value verbatim: thermostat modes are strings, but contact and motion
/// readouts are booleans. [`crate::capability::validate`] only accepts
/// strings, numbers and booleans.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ControlOption {
    pub value: serde_json::Value,
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub icon: Option<String>,
}

impl ControlOption {
    pub fn new(value: impl Into<serde_json::Value>, label: impl Into<String>) -> Self {
        Self {
            value: value.into(),
            label: label.into(),
            icon: None,
        }
    }

    pub fn with_icon(mut self, icon: impl Into<String>) -> Self {
        self.icon = Some(icon.into());
        self
    }
}

/// One control of a capability. Its state is addressed as
/// `capabilityId.key`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Control {
    #[cfg_attr(feature = "openapi", schema(min_length = 1))]
    pub key: String,
    pub primitive: Primitive,
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "openapi",
        schema(nullable = false, pattern = r"^[a-z0-9]+(-[a-z0-9]+)*$")
    )]
    pub icon: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub unit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub min: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub max: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(nullable = false, minimum = 0))]
    pub step: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub options: Option<Vec<ControlOption>>,
    pub readable: bool,
    pub writable: bool,
    pub binding: ControlBinding,
    pub group: ControlGroup,
    pub order: i32,
    /// A feature name; the control applies only to things reporting it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub requires: Option<String>,
    /// Ask the person before sending a change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub confirm: Option<bool>,
}

impl Control {
    /// A primary, state-bound control with order 0. Readable unless it is a
    /// `momentary`; writable unless it is a `readout`.
    pub fn new(key: impl Into<String>, label: impl Into<String>, primitive: Primitive) -> Self {
        let readable = primitive != Primitive::Momentary;
        let writable = primitive != Primitive::Readout;
        Self {
            key: key.into(),
            primitive,
            label: label.into(),
            icon: None,
            unit: None,
            min: None,
            max: None,
            step: None,
            options: None,
            readable,
            writable,
            binding: ControlBinding::State,
            group: ControlGroup::Primary,
            order: 0,
            requires: None,
            confirm: None,
        }
    }

    pub fn with_icon(mut self, icon: impl Into<String>) -> Self {
        self.icon = Some(icon.into());
        self
    }

    pub fn with_unit(mut self, unit: impl Into<String>) -> Self {
        self.unit = Some(unit.into());
        self
    }

    /// Sets `min`, `max` and `step`.
    pub fn with_range(mut self, min: f64, max: f64, step: f64) -> Self {
        self.min = Some(min);
        self.max = Some(max);
        self.step = Some(step);
        self
    }

    pub fn with_options(mut self, options: Vec<ControlOption>) -> Self {
        self.options = Some(options);
        self
    }

    pub fn with_order(mut self, order: i32) -> Self {
        self.order = order;
        self
    }

    pub fn requiring(mut self, feature: impl Into<String>) -> Self {
        self.requires = Some(feature.into());
        self
    }

    pub fn confirmed(mut self) -> Self {
        self.confirm = Some(true);
        self
    }

    /// Read-only (not writable).
    pub fn read_only(mut self) -> Self {
        self.writable = false;
        self
    }

    /// Moves the control to the diagnostic group (binding stays `state`).
    pub fn diagnostic(mut self) -> Self {
        self.group = ControlGroup::Diagnostic;
        self
    }

    /// A stored setting: settings group, settings binding.
    pub fn setting(mut self) -> Self {
        self.group = ControlGroup::Settings;
        self.binding = ControlBinding::Settings;
        self
    }

    /// Whether a client may offer to change this control: it must be
    /// writable and use a primitive the client knows (unknown primitives are
    /// shown read-only).
    pub fn is_client_writable(&self) -> bool {
        self.writable && self.primitive.is_known()
    }
}

/// A room-level action offered by a capability (a room tile), e.g.
/// `{ action: "lights", primitive: "toggle", controlKey: "power" }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RoomAction {
    #[cfg_attr(feature = "openapi", schema(min_length = 1))]
    pub action: String,
    #[cfg_attr(feature = "openapi", schema(min_length = 1))]
    pub label: String,
    pub primitive: RoomActionPrimitive,
    /// Key of the control of the same capability that the action sets.
    #[cfg_attr(feature = "openapi", schema(min_length = 1))]
    pub control_key: String,
    pub icon: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub confirm: Option<bool>,
}

/// A capability list item: everything a client needs to draw one capability.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CapabilityDescriptor {
    /// Lowercase letters/underscores, optionally one dot and more
    /// (`light`, `sensor.vibration`).
    #[cfg_attr(feature = "openapi", schema(pattern = r"^[a-z_]+(\.[a-z_]+)?$"))]
    pub id: String,
    /// Revision of this descriptor; bumped when its controls change.
    pub version: u32,
    #[cfg_attr(feature = "openapi", schema(min_length = 1))]
    pub label: String,
    /// A kebab-case icon token.
    #[cfg_attr(feature = "openapi", schema(pattern = r"^[a-z0-9]+(-[a-z0-9]+)*$"))]
    pub icon: String,
    pub controls: Vec<Control>,
    pub room_actions: Vec<RoomAction>,
}

impl CapabilityDescriptor {
    /// The control with this key, if any.
    pub fn control(&self, key: &str) -> Option<&Control> {
        self.controls.iter().find(|c| c.key == key)
    }

    /// The room action with this name, if any.
    pub fn room_action(&self, action: &str) -> Option<&RoomAction> {
        self.room_actions.iter().find(|a| a.action == action)
    }
}

/// Response of `GET /capabilities`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CapabilityCatalogue {
    pub schema_version: u32,
    pub items: Vec<CapabilityDescriptor>,
}

impl CapabilityCatalogue {
    /// The descriptor with this id, if any.
    pub fn get(&self, id: &str) -> Option<&CapabilityDescriptor> {
        self.items.iter().find(|d| d.id == id)
    }
}
