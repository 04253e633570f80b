//! Rules a capability descriptor must satisfy before it is served.
//!
//! The same rules apply to the built-in catalogue and to descriptors that a
//! connector provides. [`validate`] reports the first broken rule.
//!
//! Rules (the spec's, then the ones this module adds, marked *):
//! * id matches `^[a-z_]+(\.[a-z_]+)?$` (checked by hand, no regex);
//! * labels are at least one character (capability, *control, room action,
//!   *option);
//! * icons are kebab-case tokens `^[a-z0-9]+(-[a-z0-9]+)*$`;
//! * control keys are non-empty and unique within the capability;
//! * `step >= 0`; `min <= max`; *numbers are finite (JSON has no NaN);
//! * a `select` has at least one option; *option values are JSON scalars
//!   (string, number, boolean) and unique within the control;
//! * *the primitive is one of the closed set (never [`Primitive::Unknown`]);
//! * *`order` is unique within the capability;
//! * *binding `settings` only in the `settings` group;
//! * *a `readout` is not writable, a `momentary` is writable, and every
//!   control is readable or writable;
//! * *`unit` and `requires`, when present, are non-empty;
//! * room actions: *name unique within the capability, `controlKey` names a
//!   control of the same capability, that control is a *writable state
//!   control, and its primitive fits the room primitive
//!   (see [`room_action_accepts`]).
//!
//! Ids unique across a catalogue: [`validate_catalogue`].

use std::collections::HashSet;

use super::types::{
    CapabilityCatalogue, CapabilityDescriptor, Control, ControlBinding, ControlGroup, Primitive,
    RoomActionPrimitive,
};

/// A broken catalogue rule. `capability` is the descriptor's id as given.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CatalogueError {
    #[error("capability id {id:?} must match ^[a-z_]+(\\.[a-z_]+)?$")]
    InvalidId { id: String },
    #[error("{capability}: {at} has an empty label")]
    EmptyLabel { capability: String, at: String },
    #[error("{capability}: {at} has icon {icon:?}, which is not a kebab-case token")]
    InvalidIcon {
        capability: String,
        at: String,
        icon: String,
    },
    #[error("{capability}: a control has an empty key")]
    EmptyControlKey { capability: String },
    #[error("{capability}: control key {key:?} appears more than once")]
    DuplicateControlKey { capability: String, key: String },
    #[error("{capability}: control {key:?} reuses order {order}")]
    DuplicateOrder {
        capability: String,
        key: String,
        order: i32,
    },
    #[error(
        "{capability}: control {key:?} has primitive {primitive:?}, which is not in the closed set"
    )]
    UnknownPrimitive {
        capability: String,
        key: String,
        primitive: String,
    },
    #[error("{capability}: control {key:?} has a non-finite {field}")]
    NonFiniteNumber {
        capability: String,
        key: String,
        field: &'static str,
    },
    #[error("{capability}: control {key:?} has a negative step {step}")]
    NegativeStep {
        capability: String,
        key: String,
        step: f64,
    },
    #[error("{capability}: control {key:?} has min {min} greater than max {max}")]
    MinGreaterThanMax {
        capability: String,
        key: String,
        min: f64,
        max: f64,
    },
    #[error("{capability}: select control {key:?} has no options")]
    SelectWithoutOptions { capability: String, key: String },
    #[error(
        "{capability}: control {key:?} has an option value that is not a string, number or boolean"
    )]
    InvalidOptionValue { capability: String, key: String },
    #[error("{capability}: control {key:?} repeats option value {value}")]
    DuplicateOptionValue {
        capability: String,
        key: String,
        value: String,
    },
    #[error("{capability}: control {key:?} is bound to settings outside the settings group")]
    SettingsBindingOutsideSettingsGroup { capability: String, key: String },
    #[error("{capability}: control {key:?}: {problem}")]
    InconsistentAccess {
        capability: String,
        key: String,
        problem: &'static str,
    },
    #[error("{capability}: {at} has an empty {field}")]
    EmptyField {
        capability: String,
        at: String,
        field: &'static str,
    },
    #[error("{capability}: a room action has an empty name")]
    EmptyRoomAction { capability: String },
    #[error("{capability}: room action {action:?} appears more than once")]
    DuplicateRoomAction { capability: String, action: String },
    #[error(
        "{capability}: room action {action:?} names control {control_key:?}, which the capability does not have"
    )]
    RoomActionUnknownControl {
        capability: String,
        action: String,
        control_key: String,
    },
    #[error(
        "{capability}: room action {action:?} targets control {control_key:?}, which is not a writable state control"
    )]
    RoomActionControlNotWritable {
        capability: String,
        action: String,
        control_key: String,
    },
    #[error(
        "{capability}: room action {action:?} ({room_primitive}) cannot drive control {control_key:?} ({control_primitive})"
    )]
    RoomActionIncompatiblePrimitive {
        capability: String,
        action: String,
        control_key: String,
        room_primitive: RoomActionPrimitive,
        control_primitive: String,
    },
    #[error("capability id {id:?} appears more than once in the catalogue")]
    DuplicateId { id: String },
}

/// `^[a-z_]+(\.[a-z_]+)?$`, by hand.
pub fn is_valid_capability_id(id: &str) -> bool {
    fn segment(s: &str) -> bool {
        !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
    }
    match id.split_once('.') {
        None => segment(id),
        Some((head, tail)) => segment(head) && segment(tail),
    }
}

/// `^[a-z0-9]+(-[a-z0-9]+)*$`, by hand: lowercase letters and digits in
/// non-empty runs joined by single hyphens.
pub fn is_kebab_token(token: &str) -> bool {
    token.split('-').all(|run| {
        !run.is_empty()
            && run
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    })
}

/// Which control primitives a room primitive can drive. A room tile sends
/// one value to every member and draws one aggregated value, so the control
/// must speak the same kind of value:
///
/// | room primitive | control primitives |
/// |---|---|
/// | `toggle` | `toggle` |
/// | `lock` | `toggle` (true = locked; the tile draws a padlock) |
/// | `slider` | `slider`, `color_temp` (a bounded number dragged) |
/// | `stepper` | `stepper`, `setpoint` (a number moved by `step`) |
pub fn room_action_accepts(room: RoomActionPrimitive, control: &Primitive) -> bool {
    match room {
        RoomActionPrimitive::Toggle | RoomActionPrimitive::Lock => {
            matches!(control, Primitive::Toggle)
        }
        RoomActionPrimitive::Slider => matches!(control, Primitive::Slider | Primitive::ColorTemp),
        RoomActionPrimitive::Stepper => matches!(control, Primitive::Stepper | Primitive::Setpoint),
    }
}

/// Checks one descriptor against the rules listed in the module docs.
pub fn validate(descriptor: &CapabilityDescriptor) -> Result<(), CatalogueError> {
    let cap = || descriptor.id.clone();
    if !is_valid_capability_id(&descriptor.id) {
        return Err(CatalogueError::InvalidId {
            id: descriptor.id.clone(),
        });
    }
    check_label(&descriptor.label, cap(), || "the capability".to_owned())?;
    check_icon(&descriptor.icon, cap(), || "the capability".to_owned())?;

    let mut keys = HashSet::new();
    let mut orders = HashSet::new();
    for control in &descriptor.controls {
        check_control(control, &descriptor.id)?;
        if !keys.insert(control.key.as_str()) {
            return Err(CatalogueError::DuplicateControlKey {
                capability: cap(),
                key: control.key.clone(),
            });
        }
        if !orders.insert(control.order) {
            return Err(CatalogueError::DuplicateOrder {
                capability: cap(),
                key: control.key.clone(),
                order: control.order,
            });
        }
    }

    let mut actions = HashSet::new();
    for room in &descriptor.room_actions {
        if room.action.is_empty() {
            return Err(CatalogueError::EmptyRoomAction { capability: cap() });
        }
        let at = || format!("room action {:?}", room.action);
        check_label(&room.label, cap(), at)?;
        check_icon(&room.icon, cap(), at)?;
        if !actions.insert(room.action.as_str()) {
            return Err(CatalogueError::DuplicateRoomAction {
                capability: cap(),
                action: room.action.clone(),
            });
        }
        let Some(control) = descriptor.control(&room.control_key) else {
            return Err(CatalogueError::RoomActionUnknownControl {
                capability: cap(),
                action: room.action.clone(),
                control_key: room.control_key.clone(),
            });
        };
        if !control.writable || control.binding != ControlBinding::State {
            return Err(CatalogueError::RoomActionControlNotWritable {
                capability: cap(),
                action: room.action.clone(),
                control_key: room.control_key.clone(),
            });
        }
        if !room_action_accepts(room.primitive, &control.primitive) {
            return Err(CatalogueError::RoomActionIncompatiblePrimitive {
                capability: cap(),
                action: room.action.clone(),
                control_key: room.control_key.clone(),
                room_primitive: room.primitive,
                control_primitive: control.primitive.to_string(),
            });
        }
    }
    Ok(())
}

/// Checks every descriptor and that ids are unique across the catalogue.
pub fn validate_catalogue(catalogue: &CapabilityCatalogue) -> Result<(), CatalogueError> {
    let mut ids = HashSet::new();
    for descriptor in &catalogue.items {
        validate(descriptor)?;
        if !ids.insert(descriptor.id.as_str()) {
            return Err(CatalogueError::DuplicateId {
                id: descriptor.id.clone(),
            });
        }
    }
    Ok(())
}

fn check_label(
    label: &str,
    capability: String,
    at: impl FnOnce() -> String,
) -> Result<(), CatalogueError> {
    if label.is_empty() {
        return Err(CatalogueError::EmptyLabel {
            capability,
            at: at(),
        });
    }
    Ok(())
}

fn check_icon(
    icon: &str,
    capability: String,
    at: impl FnOnce() -> String,
) -> Result<(), CatalogueError> {
    if !is_kebab_token(icon) {
        return Err(CatalogueError::InvalidIcon {
            capability,
            at: at(),
            icon: icon.to_owned(),
        });
    }
    Ok(())
}

fn check_control(control: &Control, capability: &str) -> Result<(), CatalogueError> {
    let cap = || capability.to_owned();
    let key = || control.key.clone();
    if control.key.is_empty() {
        return Err(CatalogueError::EmptyControlKey { capability: cap() });
    }
    let at = || format!("control {:?}", control.key);
    check_label(&control.label, cap(), at)?;
    if let Some(icon) = &control.icon {
        check_icon(icon, cap(), at)?;
    }
    if let Primitive::Unknown(raw) = &control.primitive {
        return Err(CatalogueError::UnknownPrimitive {
            capability: cap(),
            key: key(),
            primitive: raw.clone(),
        });
    }
    for (field, value) in [
        ("min", control.min),
        ("max", control.max),
        ("step", control.step),
    ] {
        if value.is_some_and(|v| !v.is_finite()) {
            return Err(CatalogueError::NonFiniteNumber {
                capability: cap(),
                key: key(),
                field,
            });
        }
    }
    if let Some(step) = control.step
        && step < 0.0
    {
        return Err(CatalogueError::NegativeStep {
            capability: cap(),
            key: key(),
            step,
        });
    }
    if let (Some(min), Some(max)) = (control.min, control.max)
        && min > max
    {
        return Err(CatalogueError::MinGreaterThanMax {
            capability: cap(),
            key: key(),
            min,
            max,
        });
    }
    let options = control.options.as_deref().unwrap_or_default();
    if control.primitive == Primitive::Select && options.is_empty() {
        return Err(CatalogueError::SelectWithoutOptions {
            capability: cap(),
            key: key(),
        });
    }
    let mut values = HashSet::new();
    for option in options {
        let scalar =
            option.value.is_string() || option.value.is_number() || option.value.is_boolean();
        if !scalar {
            return Err(CatalogueError::InvalidOptionValue {
                capability: cap(),
                key: key(),
            });
        }
        let value = option.value.to_string();
        let at = || format!("option {value} of control {:?}", control.key);
        check_label(&option.label, cap(), at)?;
        if let Some(icon) = &option.icon {
            check_icon(icon, cap(), at)?;
        }
        if !values.insert(value.clone()) {
            return Err(CatalogueError::DuplicateOptionValue {
                capability: cap(),
                key: key(),
                value,
            });
        }
    }
    if control.binding == ControlBinding::Settings && control.group != ControlGroup::Settings {
        return Err(CatalogueError::SettingsBindingOutsideSettingsGroup {
            capability: cap(),
            key: key(),
        });
    }
    let access_problem = if !control.readable && !control.writable {
        Some("a control must be readable or writable")
    } else if control.primitive == Primitive::Readout && control.writable {
        Some("a readout cannot be writable")
    } else if control.primitive == Primitive::Momentary && !control.writable {
        Some("a momentary must be writable")
    } else {
        None
    };
    if let Some(problem) = access_problem {
        return Err(CatalogueError::InconsistentAccess {
            capability: cap(),
            key: key(),
            problem,
        });
    }
    for (field, value) in [("unit", &control.unit), ("requires", &control.requires)] {
        if value.as_deref() == Some("") {
            return Err(CatalogueError::EmptyField {
                capability: cap(),
                at: at(),
                field,
            });
        }
    }
    Ok(())
}
