//! The capability catalogue: how a client renders a thing.
//!
//! A client never ships per-model layouts. It reads capability descriptors
//! (served at `GET /v1/capabilities` as `{ schemaVersion, items }` and embedded
//! in every Thing view) and draws each control with one of a closed set of
//! [`Primitive`]s. A descriptor also names the room-level actions
//! ([`RoomAction`]) that the room tiles offer, e.g. `lights`, `volume`,
//! `thermostat` and `listening`.
//!
//! State is addressed as `capabilityId.controlKey` (for example
//! `voice.listening` or `sensor.vibration.vibration`); settings are stored per
//! capability id, which for the device capabilities is the lower-cased device
//! capability (`MEDIA_PLAYER` -> `media_player`).
//!
//! * [`catalogue`] / [`find`]: the built-in catalogue (built once, validated
//!   in tests).
//! * [`validate`] / [`validate_catalogue`]: the rules a descriptor must
//!   satisfy; usable for connector-provided descriptors too.
//! * [`ThingCategory`]: the closed set of thing categories with their default
//!   icon and typical capabilities.
//!
//! Compatibility: a descriptor read from stored or foreign data may carry a
//! primitive this build does not know. It reads as [`Primitive::Unknown`]
//! (keeping the raw token) instead of failing the whole read; such a control is
//! shown as a read-only labelled row ([`Control::is_client_writable`] is false)
//! and [`validate`] rejects it, so the served catalogue only ever holds the
//! closed set.

mod catalogue;
mod category;
mod shared;
mod types;
mod validate;

pub use catalogue::{SCHEMA_VERSION, catalogue, find};
pub use category::ThingCategory;
pub use shared::ThingDescriptor;
pub use types::{
    CapabilityCatalogue, CapabilityDescriptor, Control, ControlBinding, ControlGroup,
    ControlOption, Primitive, RoomAction, RoomActionPrimitive,
};
pub use validate::{
    CatalogueError, is_kebab_token, is_valid_capability_id, room_action_accepts, validate,
    validate_catalogue,
};
