//! The views every client draws a thing with: a device's row and the Thing
//! view of a device or an endpoint (category, icon, descriptors, state,
//! liveness), judged at a given time.

use std::collections::{BTreeMap, BTreeSet};

use alyt_device::StatusReport;
#[cfg(feature = "openapi")]
use alyt_domain::capability::CapabilityDescriptor;
use alyt_domain::capability::{ThingCategory, ThingDescriptor, find};
use alyt_domain::device::{
    DeviceCapability, DeviceKind, DeviceStatus, FirmwareChannel, Lenient, Liveness, Protocol,
    descriptor_ids_for, liveness_of_stored,
};
use alyt_domain::ids::{DeviceId, PropertyId, RoomId, TenantId};
use alyt_domain::integration::{
    EndpointKind, Presentation, endpoint_descriptors, endpoint_liveness, endpoint_state,
    presentable,
};
use alyt_store::repo::devices::{DeviceSettingsRecord, DeviceView, ReportedRecord, UnitRecord};
use alyt_store::repo::integrations::EndpointRecord;
use serde::Serialize;
use serde_json::{Map, Value};
use time::OffsetDateTime;
use uuid::Uuid;

/// A device row (spec: Resources > Device). Every field is always present.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Device {
    pub id: DeviceId,
    pub tenant_id: TenantId,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub property_id: Option<PropertyId>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub room_id: Option<RoomId>,
    pub name: String,
    #[cfg_attr(feature = "openapi", schema(value_type = DeviceKind))]
    pub kind: Lenient<DeviceKind>,
    /// A set: no value twice.
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<DeviceCapability>))]
    pub capabilities: Vec<Lenient<DeviceCapability>>,
    /// Features the device honours.
    pub features: Vec<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub current_unit_id: Option<Uuid>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub parent_device_id: Option<DeviceId>,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Protocol>, required = true))]
    pub protocol: Option<Lenient<Protocol>>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub protocol_id: Option<String>,
    #[cfg_attr(feature = "openapi", schema(value_type = FirmwareChannel))]
    pub firmware_channel: Lenient<FirmwareChannel>,
    #[cfg_attr(feature = "openapi", schema(value_type = DeviceStatus))]
    pub status: Lenient<DeviceStatus>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime, required = true))]
    pub last_seen: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime, required = true))]
    pub deleted_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub updated_at: OffsetDateTime,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub settings: Option<DeviceSettings>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub current_unit: Option<Unit>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub reported: Option<Reported>,
    pub liveness: Liveness,
    pub thing: Thing,
}

/// A device's settings.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct DeviceSettings {
    pub device_id: DeviceId,
    /// Keyed by lower-cased capability; a capability the device lacks has no key.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub by_capability: Map<String, Value>,
    pub enabled: bool,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub updated_at: OffsetDateTime,
}

/// A physical board of a device; the burned-in serial lives here.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Unit {
    pub id: Uuid,
    pub device_id: DeviceId,
    pub serial: String,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub model: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub firmware: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub mac_address: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub installed_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime, required = true))]
    pub removed_at: Option<OffsetDateTime>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub removed_reason: Option<String>,
}

/// The last status the device reported.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Reported {
    pub device_id: DeviceId,
    /// Whatever the device reported (any JSON).
    pub payload: Value,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub reported_at: OffsetDateTime,
}

/// Whether a thing is a device or an endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum ThingKind {
    Device,
    Endpoint,
}

pub use alyt_domain::integration::PresentedAs;

/// The rendered view of a device or endpoint (spec: Resources > Thing).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Thing {
    pub id: Uuid,
    pub kind: ThingKind,
    pub name: String,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub room_id: Option<RoomId>,
    pub category: ThingCategory,
    /// A kebab-case icon token.
    pub icon: String,
    /// The descriptors the client draws the thing with.
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<CapabilityDescriptor>))]
    pub capabilities: Vec<ThingDescriptor>,
    /// Keyed `capabilityId.controlKey`.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub state: BTreeMap<String, Value>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime, required = true))]
    pub state_updated_at: Option<OffsetDateTime>,
    /// Null on an endpoint means not yet checked (never draw it as offline).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub liveness: Option<Liveness>,
    /// Settings keyed by capability (`{}` when none were set).
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub settings: Map<String, Value>,
    /// Always null on a device: only endpoints are presented as something else.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub presented_as: Option<PresentedAs>,
    /// Whether `presentedAs` may be set; false on devices.
    pub presentable: bool,
}

/// The category a device is shown as: its most characteristic capability,
/// else its kind. (A hub that also listens is a hub; a speaker with a voice
/// assistant is a speaker; a plug that meters energy is a switch.)
pub fn device_category(
    capabilities: &BTreeSet<DeviceCapability>,
    kind: Option<DeviceKind>,
) -> ThingCategory {
    use DeviceCapability as C;
    const BY_CAPABILITY: [(DeviceCapability, ThingCategory); 17] = [
        (C::Light, ThingCategory::Light),
        (C::Switch, ThingCategory::Switch),
        (C::Thermostat, ThingCategory::Thermostat),
        (C::Lock, ThingCategory::Lock),
        (C::Cover, ThingCategory::Cover),
        (C::Fan, ThingCategory::Fan),
        (C::Camera, ThingCategory::Camera),
        (C::Vacuum, ThingCategory::Vacuum),
        (C::Irrigation, ThingCategory::Irrigation),
        (C::CoffeeMachine, ThingCategory::Appliance),
        (C::MediaPlayer, ThingCategory::Speaker),
        (C::Hub, ThingCategory::Hub),
        (C::Voice, ThingCategory::Voice),
        (C::AudioOut, ThingCategory::Speaker),
        (C::Energy, ThingCategory::Energy),
        (C::Button, ThingCategory::Button),
        (C::Sensor, ThingCategory::Sensor),
    ];
    BY_CAPABILITY
        .iter()
        .find(|(capability, _)| capabilities.contains(capability))
        .map(|(_, category)| *category)
        .unwrap_or(match kind {
            Some(DeviceKind::Hub) => ThingCategory::Hub,
            Some(DeviceKind::VoiceSatellite) => ThingCategory::Voice,
            Some(DeviceKind::Sensor) => ThingCategory::Sensor,
            _ => ThingCategory::Other,
        })
}

/// The device row of a stored device, judged at `now`.
pub fn device_row(view: DeviceView, now: OffsetDateTime) -> Device {
    let DeviceView {
        device: d,
        unit,
        reported,
    } = view;
    let liveness = liveness_of_stored(&d.status, d.last_seen, now, d.heartbeat_window_seconds);
    let known = d.known_capabilities();
    let payload = reported.as_ref().map(|r| &r.payload);
    let descriptors = descriptor_ids_for(known.iter().copied(), &d.features, payload)
        .into_iter()
        .filter_map(find)
        .map(ThingDescriptor::Catalogue)
        .collect();
    let state = match payload {
        Some(Value::Object(payload)) => StatusReport {
            payload: payload.clone(),
            features: None,
        }
        .state(),
        _ => BTreeMap::new(),
    };
    let category = device_category(&known, d.kind.known());
    let thing = Thing {
        id: *d.id.as_uuid(),
        kind: ThingKind::Device,
        name: d.name.clone(),
        room_id: d.room_id,
        category,
        icon: category.icon().to_owned(),
        capabilities: descriptors,
        state,
        state_updated_at: reported.as_ref().map(|r| r.reported_at),
        liveness: Some(liveness.clone()),
        settings: d
            .settings
            .as_ref()
            .map(|s| s.by_capability.clone())
            .unwrap_or_default(),
        presented_as: None,
        presentable: false,
    };
    Device {
        id: d.id,
        tenant_id: d.tenant_id,
        property_id: d.property_id,
        room_id: d.room_id,
        name: d.name,
        kind: d.kind,
        capabilities: d.capabilities.into_iter().collect(),
        features: d.features,
        current_unit_id: d.current_unit_id,
        parent_device_id: d.parent_device_id,
        protocol: d.protocol,
        protocol_id: d.protocol_id,
        firmware_channel: d.firmware_channel,
        status: d.status,
        last_seen: d.last_seen,
        deleted_at: d.deleted_at,
        created_at: d.created_at,
        updated_at: d.updated_at,
        settings: d.settings.map(settings_view),
        current_unit: unit.map(unit_view),
        reported: reported.map(reported_view),
        liveness,
        thing,
    }
}

fn settings_view(s: DeviceSettingsRecord) -> DeviceSettings {
    DeviceSettings {
        device_id: s.device_id,
        by_capability: s.by_capability,
        enabled: s.enabled,
        updated_at: s.updated_at,
    }
}

fn unit_view(u: UnitRecord) -> Unit {
    Unit {
        id: u.id,
        device_id: u.device_id,
        serial: u.serial,
        model: u.model,
        firmware: u.firmware,
        mac_address: u.mac_address,
        installed_at: u.installed_at,
        removed_at: u.removed_at,
        removed_reason: u.removed_reason,
    }
}

fn reported_view(r: ReportedRecord) -> Reported {
    Reported {
        device_id: r.device_id,
        payload: r.payload,
        reported_at: r.reported_at,
    }
}

/// The Thing view of an endpoint judged at `now`.
pub fn endpoint_thing(e: &EndpointRecord, now: OffsetDateTime) -> Thing {
    let capabilities = e.known_capabilities();
    let presented_as = e.presented_as();
    let presentation = Presentation::of(&capabilities, presented_as);
    let category = match presented_as {
        Some(PresentedAs::Light) => alyt_domain::capability::ThingCategory::Light,
        Some(PresentedAs::Switch) => alyt_domain::capability::ThingCategory::Switch,
        None => {
            let by_capability = device_category(&capabilities, None);
            if by_capability == alyt_domain::capability::ThingCategory::Other {
                match e.kind.known() {
                    Some(EndpointKind::Light) => alyt_domain::capability::ThingCategory::Light,
                    Some(EndpointKind::Speaker) => alyt_domain::capability::ThingCategory::Speaker,
                    Some(EndpointKind::Sensor) => alyt_domain::capability::ThingCategory::Sensor,
                    _ => by_capability,
                }
            } else {
                by_capability
            }
        }
    };
    Thing {
        id: *e.id.as_uuid(),
        kind: ThingKind::Endpoint,
        name: e.name.clone(),
        room_id: e.room_id,
        category,
        icon: category.icon().to_owned(),
        capabilities: endpoint_descriptors(&capabilities, &e.features, &e.state, presentation),
        state: endpoint_state(&e.state, presentation),
        state_updated_at: e.state_updated_at,
        liveness: endpoint_liveness(e.checked_at, e.reachable, e.last_seen, now),
        settings: Map::from_iter([("enabled".to_owned(), e.enabled.into())]),
        presented_as,
        presentable: presentable(&capabilities),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categories_follow_the_most_characteristic_capability() {
        use DeviceCapability as C;
        let cat = |caps: &[DeviceCapability], kind| {
            device_category(&caps.iter().copied().collect(), Some(kind))
        };
        assert_eq!(cat(&[C::Light], DeviceKind::Other), ThingCategory::Light);
        assert_eq!(
            cat(&[C::Voice, C::Hub], DeviceKind::Hub),
            ThingCategory::Hub
        );
        assert_eq!(
            cat(&[C::Voice, C::AudioOut], DeviceKind::VoiceSatellite),
            ThingCategory::Voice
        );
        assert_eq!(
            cat(&[C::MediaPlayer], DeviceKind::Other),
            ThingCategory::Speaker
        );
        assert_eq!(
            cat(&[C::Sensor, C::Battery], DeviceKind::Sensor),
            ThingCategory::Sensor
        );
        assert_eq!(
            cat(&[C::Thermostat], DeviceKind::Other),
            ThingCategory::Thermostat
        );
        assert_eq!(
            cat(&[C::Switch, C::Energy], DeviceKind::Other),
            ThingCategory::Switch
        );
        assert_eq!(cat(&[C::Battery], DeviceKind::Other), ThingCategory::Other);
        assert_eq!(cat(&[C::Network], DeviceKind::Hub), ThingCategory::Hub);
    }
}
