//! Devices (part of the homes group; their lifecycle, history and commands
//! are the submodules): registration with per-device broker
//! credentials, the device rows with their Thing view. (The store-backed
//! check of a device's login is `alyt_device::credentials`.)
//!
//! * `POST /v1/devices/register`: tenant ADMIN or INSTALLER, platform OWNER or
//!   STAFF, or a key with `devices:write` reaching the tenant (a DEV key
//!   reaches its sandbox). Anyone else who can see the tenant (household
//!   people, platform SUPPORT) gets 403; a caller who cannot see the tenant,
//!   404. One transaction writes the device, its first unit, the serial guard
//!   and the credential.
//! * `GET /v1/devices?tenantId` and `GET /v1/devices/{id}?tenantId`: staff,
//!   tenant roles and keys with `devices:read` see every device of the tenant;
//!   household people the devices of their homes (a guest only its pinned
//!   home). A foreign device answers exactly like a missing one.
//!
//! Broker credentials (local runtime): `clientId` = `username` = the device
//! id, so a device holds one session at a time (a second CONNECT with the same
//! client id takes the session over); `password` is 256 random bits, shown
//! once in the 201 and stored only as its SHA-256.
//!
//! Store calls (besides authenticating the caller): register 2 to 4 (the
//! property, the room and the hub read concurrently, then one transaction);
//! a list page 1 query + 1 batch get per 50 devices (none when the page is
//! empty), plus 1 get of the tenant for staff and 1 query per household for
//! household people; one device 1 get + 1 batch get (+1 get of its property
//! for household people).

pub mod commands;
pub mod history;
pub mod lifecycle;

use crate::routing::{Operations, operations};
use alyt_app::devices::rows::DeviceRowJson;
use alyt_app::devices::{self as use_case, NewDevice, settings::SettingsPatch};
use alyt_domain::device::{DeviceCapability, DeviceKind, Protocol};
use alyt_domain::ids::{DeviceId, PropertyId, RoomId, TenantId};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Map, Value};
use utoipa::{IntoParams, ToSchema};

use crate::auth::Caller;
use crate::conventions::extract::{ApiJson, ApiPath, ApiQuery};
use crate::conventions::list::{ListResponse, PageParams, listed};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{
    BadPropertyPage, BadTenantOrDevice, KeyWithoutDevicesRead, NoSuchDevice, NoSuchTenant,
    NoSuchTenantOrProperty, NoValidToken,
};
use crate::{ApiError, AppState};

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(register_device))
        .merge(operations!(list_devices))
        .merge(operations!(get_device))
        .merge(operations!(patch_device_settings))
        .merge(lifecycle::routes())
        .merge(history::routes())
        .merge(commands::routes())
}

pub use alyt_app::devices::{RegisterOptions, RegisteredDevice};
pub use alyt_app::things::{
    Device, DeviceSettings, PresentedAs, Reported, Thing, ThingKind, Unit, device_category,
    device_row,
};

// ---------------------------------------------------------------------------
// Register

/// The body of `POST /v1/devices/register`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RegisterDeviceRequest {
    pub tenant_id: TenantId,
    pub property_id: PropertyId,
    /// A room of the property.
    #[serde(default)]
    #[schema(nullable = false)]
    pub room_id: Option<RoomId>,
    #[schema(min_length = 1, max_length = 120)]
    pub name: String,
    pub kind: DeviceKind,
    /// At least one; duplicates count once.
    #[schema(min_items = 1)]
    pub capabilities: Vec<DeviceCapability>,
    /// The burned-in serial of the board: 1-64 printable ASCII characters.
    #[schema(min_length = 1, max_length = 64)]
    pub serial: String,
    #[serde(default)]
    #[schema(nullable = false, min_length = 1, max_length = 64)]
    pub model: Option<String>,
    #[serde(default)]
    #[schema(nullable = false, min_length = 1, max_length = 64)]
    pub firmware: Option<String>,
    /// Six octets, `AA:BB:CC:DD:EE:FF` or `AA-BB-…`; stored upper case with colons.
    #[serde(default)]
    #[schema(nullable = false)]
    pub mac_address: Option<String>,
    /// What the device is beyond its capabilities, as its owner declares
    /// it: feature aliases such as `keypad` (a lock with an external
    /// keypad), at most 64 of 1-64 characters. Its own status reports
    /// replace its features later, but never its keypad: a keypad code
    /// turns a home's security Off, so only this declaration gives a lock
    /// one.
    #[serde(default)]
    #[schema(nullable = false, max_items = 64)]
    pub features: Option<Vec<String>>,
    /// Never accepted (400): a hub's radio child is not registered here;
    /// its hub pairs it and reports it on its events channel.
    #[serde(default)]
    #[schema(nullable = false)]
    pub parent_device_id: Option<DeviceId>,
    /// Never accepted (400), as `parentDeviceId`.
    #[serde(default)]
    #[schema(nullable = false)]
    pub protocol: Option<Protocol>,
    /// Never accepted (400), as `parentDeviceId`.
    #[serde(default)]
    #[schema(nullable = false, min_length = 1, max_length = 128)]
    pub protocol_id: Option<String>,
}

impl From<RegisterDeviceRequest> for NewDevice {
    fn from(body: RegisterDeviceRequest) -> Self {
        NewDevice {
            tenant_id: body.tenant_id,
            property_id: body.property_id,
            room_id: body.room_id,
            name: body.name,
            kind: body.kind,
            capabilities: body.capabilities,
            serial: body.serial,
            model: body.model,
            firmware: body.firmware,
            mac_address: body.mac_address,
            features: body.features,
            parent_device_id: body.parent_device_id,
            protocol: body.protocol,
            protocol_id: body.protocol_id,
        }
    }
}

pub use crate::ports::DeviceCredentials;

/// Registers a device with a burned-in serial and issues its broker
/// credentials (shown once).
#[utoipa::path(
    post,
    path = "/v1/devices/register",
    tag = "homes",
    operation_id = "registerDevice",
    security(("bearer" = ["devices:write"])),
    request_body = RegisterDeviceRequest,
    responses(
        (status = 201, description = "The device row, its broker credentials (shown once) and its topic prefix", body = RegisteredDevice),
        (status = 400, description = "A field is wrong (named in `field`): name, kind, capabilities, serial, model, firmware, macAddress, roomId (not a room of the property), parentDeviceId/protocol/protocolId", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        (status = 403, description = "A key without devices:write, or a caller who sees the tenant without a role that registers devices", body = Problem, content_type = "application/problem+json"),
        NoSuchTenantOrProperty,
        (status = 409, description = "The serial is registered already", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn register_device(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiJson(body): ApiJson<RegisterDeviceRequest>,
) -> Result<(StatusCode, Json<RegisteredDevice>), ApiError> {
    let registered = use_case::register_device(&state, &caller, body.into()).await?;
    Ok((StatusCode::CREATED, Json(registered)))
}

// ---------------------------------------------------------------------------
// Read

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct DeviceListQuery {
    pub tenant_id: TenantId,
    /// Only the devices of this home.
    pub property_id: Option<PropertyId>,
    /// Items per page, 1 to 200 (default 50).
    pub limit: Option<u32>,
    /// The `nextCursor` of the previous page.
    pub cursor: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct TenantParam {
    pub tenant_id: TenantId,
}

/// `?tenantId&limit&cursor` of a list under one of the tenant's objects.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TenantPageQuery {
    pub tenant_id: TenantId,
    pub limit: Option<u32>,
    pub cursor: Option<String>,
}

/// The devices of a tenant the caller may see, in registration order.
#[utoipa::path(
    get,
    path = "/v1/devices",
    tag = "homes",
    operation_id = "listDevices",
    params(DeviceListQuery),
    security(("bearer" = ["devices:read"])),
    responses(
        (status = 200, description = "One page of device rows", body = ListResponse<Device>),
        BadPropertyPage,
        NoValidToken,
        KeyWithoutDevicesRead,
        NoSuchTenant,
    )
)]
pub async fn list_devices(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiQuery(query): ApiQuery<DeviceListQuery>,
) -> Result<Json<ListResponse<DeviceRowJson>>, ApiError> {
    let paging = PageParams::new(query.limit, query.cursor).paging();
    let found =
        use_case::devices_page(&state, &caller, query.tenant_id, query.property_id, &paging)
            .await?;
    Ok(listed(found, |row| row))
}

/// One device row.
#[utoipa::path(
    get,
    path = "/v1/devices/{deviceId}",
    tag = "homes",
    operation_id = "getDevice",
    params(("deviceId" = DeviceId, Path, description = "The device"), TenantParam),
    security(("bearer" = ["devices:read"])),
    responses(
        (status = 200, description = "The device row", body = Device),
        BadTenantOrDevice,
        NoValidToken,
        KeyWithoutDevicesRead,
        NoSuchDevice,
    )
)]
pub async fn get_device(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(device_id): ApiPath<DeviceId>,
    ApiQuery(query): ApiQuery<TenantParam>,
) -> Result<Json<Device>, ApiError> {
    let device = use_case::device(&state, &caller, query.tenant_id, device_id).await?;
    Ok(Json(device))
}

// ---------------------------------------------------------------------------
// Settings

/// The body of `PATCH /v1/devices/{deviceId}/settings`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PatchDeviceSettingsRequest {
    /// Keyed by lower-cased capability of the device (`light`,
    /// `media_player`, ...); each value an object merged into that
    /// capability's settings (a `null` member removes that setting).
    /// Capabilities not named keep their settings.
    #[schema(value_type = Object)]
    pub by_capability: Map<String, Value>,
    /// Whether the settings apply (default true when first set).
    #[serde(default)]
    #[schema(nullable = false)]
    pub enabled: Option<bool>,
}

/// Changes a device's settings per capability; answers the device row.
#[utoipa::path(
    patch,
    path = "/v1/devices/{deviceId}/settings",
    tag = "homes",
    operation_id = "patchDeviceSettings",
    params(("deviceId" = DeviceId, Path, description = "The device"), TenantParam),
    security(("bearer" = ["devices:write"])),
    request_body = PatchDeviceSettingsRequest,
    responses(
        (status = 200, description = "The device row with its new settings", body = Device),
        (status = 400, description = "A capability the device does not report, or settings that are not an object (named in `field` as `byCapability.<name>`); a malformed tenantId or deviceId", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        (status = 403, description = "A key without devices:write, or a caller who sees the device without a role that configures it", body = Problem, content_type = "application/problem+json"),
        NoSuchDevice,
    )
)]
pub async fn patch_device_settings(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(device_id): ApiPath<DeviceId>,
    ApiQuery(query): ApiQuery<TenantParam>,
    ApiJson(body): ApiJson<PatchDeviceSettingsRequest>,
) -> Result<Json<Device>, ApiError> {
    let patch = SettingsPatch {
        by_capability: body.by_capability,
        enabled: body.enabled,
    };
    let device =
        use_case::settings::change_settings(&state, &caller, query.tenant_id, device_id, patch)
            .await?;
    Ok(Json(device))
}
