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

use std::collections::BTreeSet;

use crate::routing::{Operations, operations};
use alyt_device::DeviceIdentity;
use alyt_domain::access::{Denied, HomeReach, PlatformRole, Principal, Scope};
use alyt_domain::device::{
    DEFAULT_HEARTBEAT_WINDOW_SECONDS, DeviceCapability, DeviceKind, DeviceStatus, FirmwareChannel,
    Lenient, Protocol, has_length,
};
use alyt_domain::ids::{ClientId, DeviceId, PropertyId, RoomId, TenantId};
use alyt_store::repo::devices::home_devices;
use alyt_store::repo::devices::tenant_devices;
use alyt_store::repo::devices::{
    DeviceCredentialRecord, DeviceRecord, DeviceSettingsRecord, DeviceView, Devices, RegisterError,
    Registration, UnitRecord,
};
use alyt_store::repo::tenancy::Tenancy;
use alyt_store::{PageKey, Store};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

pub(crate) use crate::access::no_such_device;
use crate::access::{HomeAccess, Reach, access_to, device_for, tenant_reach};
use crate::auth::Caller;
use crate::conventions::extract::{ApiJson, ApiPath, ApiQuery};
use crate::conventions::list::{ListResponse, PageParams};
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

pub use alyt_app::things::{
    Device, DeviceSettings, PresentedAs, Reported, Thing, ThingKind, Unit, device_category,
    device_row,
};

// ---------------------------------------------------------------------------
// Who may do what

pub(crate) fn no_such_tenant() -> alyt_app::Error {
    alyt_app::Error::not_found("no such tenant")
}

/// Whether the caller may register devices in `tenant`: 403 for a caller who
/// sees the tenant without a role that registers, 404 for one who does not
/// see it (a missing tenant included).
pub(crate) async fn may_register(
    state: &AppState,
    caller: &Principal,
    tenant: TenantId,
) -> Result<(), ApiError> {
    caller.require_scope(Scope::DevicesWrite)?;
    match caller.platform_role() {
        Some(PlatformRole::Owner | PlatformRole::Staff) => return Ok(()),
        Some(PlatformRole::Support) => {
            // SUPPORT sees every tenant but registers nothing; a tenant that
            // does not exist is still a 404.
            return match Tenancy(&*state.store).tenant(tenant).await? {
                Some(_) => Err(ApiError::forbidden(
                    "platform SUPPORT cannot register devices",
                )),
                None => Err(no_such_tenant().into()),
            };
        }
        None => {}
    }
    // A DEV key acts as its sandbox's ADMIN; a LIVE key only for its connector.
    if caller.tenant_role(tenant).is_some() {
        return Ok(());
    }
    if caller.acts_for_connector(tenant).is_some() {
        return Err(Denied::ConnectorOnly.into());
    }
    if caller.reaches_tenant(tenant) {
        return Err(ApiError::forbidden(
            "registering a device needs the tenant's ADMIN or INSTALLER role",
        ));
    }
    Err(no_such_tenant().into())
}

/// The homes a household reader sees in `tenant`: its pinned homes plus the
/// homes of its households (one index query per household; tenancy's gsi1
/// `CLIENT#{c}` / `PROPERTY#{p}`).
async fn household_homes(
    store: &dyn Store,
    tenant: TenantId,
    households: &BTreeSet<ClientId>,
    pinned: &BTreeSet<PropertyId>,
) -> Result<BTreeSet<PropertyId>, ApiError> {
    let mut homes = pinned.clone();
    let tenancy = Tenancy(store);
    for client in households {
        for property in tenancy.household_homes(*client).await? {
            if property.tenant_id == tenant {
                homes.insert(property.id);
            }
        }
    }
    Ok(homes)
}

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

pub use crate::ports::DeviceCredentials;

/// The answer of `POST /v1/devices/register`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegisteredDevice {
    pub device: Device,
    pub credentials: DeviceCredentials,
    /// `alyt/{tenantId}/{propertyId}/{deviceId}`: the device publishes on
    /// `{topicPrefix}/{channel}` and subscribes to `{topicPrefix}/commands`.
    pub topic_prefix: String,
}

/// A burned-in serial: 1-64 printable ASCII characters, no outer spaces.
pub(crate) fn serial_ok(serial: &str) -> bool {
    has_length(serial, 64) && printable(serial)
}

pub(crate) fn printable(text: &str) -> bool {
    text.chars().all(|c| c.is_ascii_graphic() || c == ' ')
        && !text.starts_with(' ')
        && !text.ends_with(' ')
}

pub(crate) fn optional_text(
    field: &str,
    value: Option<String>,
    max: usize,
) -> Result<Option<String>, ApiError> {
    match value {
        None => Ok(None),
        Some(v) if has_length(&v, max) && printable(&v) => Ok(Some(v)),
        Some(_) => Err(ApiError::validation(
            field,
            format!("{field} must be 1 to {max} printable characters"),
        )),
    }
}

/// `AA:BB:CC:DD:EE:FF` (or with `-`, any case) -> upper case with colons.
pub(crate) fn mac_address(value: Option<String>) -> Result<Option<String>, ApiError> {
    let Some(raw) = value else {
        return Ok(None);
    };
    let octets: Vec<&str> = raw.split([':', '-']).collect();
    let valid = octets.len() == 6
        && octets
            .iter()
            .all(|o| o.len() == 2 && o.chars().all(|c| c.is_ascii_hexdigit()));
    if !valid {
        return Err(ApiError::validation(
            "macAddress",
            "macAddress must be six hex octets like AA:BB:CC:DD:EE:FF",
        ));
    }
    Ok(Some(octets.join(":").to_ascii_uppercase()))
}

/// The body, checked and normalised.
struct CheckedRegistration {
    name: String,
    capabilities: BTreeSet<DeviceCapability>,
    serial: String,
    model: Option<String>,
    firmware: Option<String>,
    mac_address: Option<String>,
    features: Vec<String>,
}

fn check_registration(body: &RegisterDeviceRequest) -> Result<CheckedRegistration, ApiError> {
    let name = body.name.trim();
    if !has_length(name, 120) || name.chars().any(char::is_control) {
        return Err(ApiError::validation(
            "name",
            "name must be 1 to 120 characters (not only spaces, no control characters)",
        ));
    }
    if body.capabilities.is_empty() {
        return Err(ApiError::validation(
            "capabilities",
            "a device has at least one capability",
        ));
    }
    if !serial_ok(&body.serial) {
        return Err(ApiError::validation(
            "serial",
            "serial must be 1 to 64 printable ASCII characters without leading or trailing spaces",
        ));
    }
    // Children of a hub come through their hub, never through here.
    let named = [
        ("parentDeviceId", body.parent_device_id.is_some()),
        ("protocol", body.protocol.is_some()),
        ("protocolId", body.protocol_id.is_some()),
    ];
    if let Some((field, _)) = named.iter().find(|(_, given)| *given) {
        return Err(ApiError::validation(
            *field,
            "a hub's child is not registered: the hub pairs it and reports it on its events \
             channel ({\"type\": \"child.paired\", \"protocol\", \"protocolId\", \"name\", \
             \"kind\", \"capabilities\", \"features\"}; see /v1/asyncapi.json), and the child \
             speaks through its hub with no credential of its own",
        ));
    }
    Ok(CheckedRegistration {
        name: name.to_owned(),
        capabilities: body.capabilities.iter().copied().collect(),
        serial: body.serial.clone(),
        model: optional_text("model", body.model.clone(), 64)?,
        firmware: optional_text("firmware", body.firmware.clone(), 64)?,
        mac_address: mac_address(body.mac_address.clone())?,
        features: declared_features(body.features.as_deref())?,
    })
}

/// The features a registration declares: at most as many, and as long, as
/// a status report's.
fn declared_features(features: Option<&[String]>) -> Result<Vec<String>, ApiError> {
    let features = features.unwrap_or_default();
    use alyt_device::channels::{FEATURE_MAX_CHARS, MAX_FEATURES};
    let fits = features.len() <= MAX_FEATURES
        && features
            .iter()
            .all(|f| (1..=FEATURE_MAX_CHARS).contains(&f.chars().count()) && printable(f));
    if !fits {
        return Err(ApiError::validation(
            "features",
            "at most 64 features of 1 to 64 printable characters",
        ));
    }
    Ok(features.to_vec())
}

/// How a registration is made (the HTTP operation, or the simulator).
#[derive(Clone, Copy, Default)]
pub struct RegisterOptions<'a> {
    /// A simulator device (spec H); the simulator decides who may make one.
    pub is_virtual: bool,
    /// Issues the credential instead of `AppState.credentials` (virtual
    /// devices get passwords derived from the simulator key, so the runner
    /// can log in again after a restart without any stored password).
    pub issuer: Option<&'a dyn crate::ports::DeviceCredentialIssuer>,
    /// The heartbeat window instead of the default (a test platform's
    /// virtual devices use a short one).
    pub heartbeat_window_seconds: Option<u32>,
}

impl std::fmt::Debug for RegisterOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegisterOptions")
            .field("is_virtual", &self.is_virtual)
            .field("issuer", &self.issuer.map(|_| "custom"))
            .field("heartbeat_window_seconds", &self.heartbeat_window_seconds)
            .finish()
    }
}

/// Registers a device for a caller already authorized for `body.tenant_id`:
/// checks the body (a hub's child is refused: its hub pairs it), the
/// property (404, the same for a foreign one) and the room (400 `roomId`),
/// then writes everything in one transaction. The simulator registers through here too.
pub async fn register(
    state: &AppState,
    body: RegisterDeviceRequest,
    options: RegisterOptions<'_>,
) -> Result<RegisteredDevice, ApiError> {
    let checked = check_registration(&body)?;
    let tenant = body.tenant_id;
    let devices = Devices(&*state.store);
    let tenancy = Tenancy(&*state.store);
    let room_check = async {
        match body.room_id {
            Some(room) => devices.room_exists(body.property_id, room).await.map(Some),
            None => Ok(None),
        }
    };
    let (property, room_found) =
        tokio::try_join!(tenancy.property(tenant, body.property_id), room_check)?;
    let Some(property) = property else {
        return Err(ApiError::not_found("no such property in this tenant"));
    };
    if room_found == Some(false) {
        return Err(ApiError::validation(
            "roomId",
            "no such room in this property",
        ));
    }

    let now = state.clock.now();
    let id = DeviceId::new();
    let unit = UnitRecord {
        id: Uuid::now_v7(),
        device_id: id,
        serial: checked.serial,
        model: checked.model,
        firmware: checked.firmware,
        mac_address: checked.mac_address,
        installed_at: now,
        removed_at: None,
        removed_reason: None,
    };
    let device = DeviceRecord {
        id,
        tenant_id: tenant,
        property_id: Some(body.property_id),
        client_id: Some(property.client_id),
        room_id: body.room_id,
        name: checked.name,
        kind: body.kind.into(),
        capabilities: checked
            .capabilities
            .into_iter()
            .map(Lenient::from)
            .collect(),
        features: checked.features,
        current_unit_id: Some(unit.id),
        // Children of a hub are paired through it (alyt_device::pairing).
        parent_device_id: None,
        protocol: None,
        protocol_id: None,
        firmware_channel: FirmwareChannel::Stable.into(),
        status: DeviceStatus::Provisioning.into(),
        last_seen: None,
        deleted_at: None,
        created_at: now,
        updated_at: now,
        settings: None,
        heartbeat_window_seconds: options
            .heartbeat_window_seconds
            .unwrap_or(DEFAULT_HEARTBEAT_WINDOW_SECONDS),
        is_virtual: options.is_virtual,
    };
    let issuer = options.issuer.unwrap_or(&*state.credentials);
    let issued = issuer
        .issue(tenant, body.property_id, id)
        .await
        .map_err(|e| ApiError::unavailable(e.to_string()))?;
    let username = id.to_string();
    let credential = DeviceCredentialRecord {
        username: username.clone(),
        device_id: id,
        tenant_id: tenant,
        property_id: body.property_id,
        secret_hash: issued.secret_hash.clone(),
        certificate_id: issued.certificate_id.clone(),
        created_at: now,
    };
    let written = devices
        .register(Registration {
            device: &device,
            unit: &unit,
            credential: &credential,
        })
        .await;
    if let Err(e) = written {
        // The credential was issued for a device that does not exist.
        if let Err(revoke) = issuer.retire(id, issued.certificate_id.as_deref()).await {
            tracing::warn!(device = %id, error = %revoke, "an unused device credential could not be revoked");
        }
        return Err(match e {
            RegisterError::SerialTaken => ApiError::conflict(
                "a device with this serial is registered already (a replacement board is a new unit of the existing device)",
            )
            .with_field("serial"),
            RegisterError::Store(e) => e.into(),
        });
    }
    let identity = DeviceIdentity::new(tenant, body.property_id, id);
    Ok(RegisteredDevice {
        device: device_row(
            DeviceView {
                device,
                unit: Some(unit),
                reported: None,
            },
            now,
        ),
        credentials: issued.shown,
        topic_prefix: identity.topic_prefix(),
    })
}

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
    may_register(&state, &caller, body.tenant_id).await?;
    let registered = register(&state, body, RegisterOptions::default()).await?;
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
) -> Result<Json<ListResponse<Device>>, ApiError> {
    let page = PageParams::new(query.limit, query.cursor);
    let limit = page.limit()?;
    caller.require_scope(Scope::DevicesRead)?;
    let (items, next) = visible_devices(
        &state,
        &caller,
        query.tenant_id,
        query.property_id,
        limit,
        &page,
    )
    .await?;
    Ok(Json(ListResponse::page(items, next.as_ref())))
}

/// One page of the device rows of `tenant` (or of one of its homes) the
/// caller sees: every device for staff, tenant roles and keys; the devices
/// of their homes for household people (a home they do not see reads as
/// empty).
async fn visible_devices(
    state: &AppState,
    caller: &Principal,
    tenant: TenantId,
    property: Option<PropertyId>,
    limit: u32,
    page: &PageParams,
) -> Result<(Vec<Device>, Option<PageKey>), ApiError> {
    let reach = tenant_reach(caller, tenant, no_such_tenant)?;
    let store = &*state.store;
    let devices = Devices(store);

    let (records, next) = match reach {
        Reach::Everything => {
            // Only staff may name a tenant that does not exist; everyone else
            // reaches it through claims or a key.
            let tenant_check = async {
                if caller.platform_role().is_some() {
                    Ok::<_, ApiError>(Tenancy(store).tenant(tenant).await?.is_some())
                } else {
                    Ok(true)
                }
            };
            let listing = list_page(&devices, tenant, property, limit, page);
            let (exists, listed) = tokio::try_join!(tenant_check, listing)?;
            if !exists {
                return Err(no_such_tenant().into());
            }
            listed
        }
        Reach::Homes { households, pinned } => {
            let homes = household_homes(store, tenant, &households, &pinned).await?;
            match property {
                Some(p) if !homes.contains(&p) => (Vec::new(), None),
                Some(p) => list_page(&devices, tenant, Some(p), limit, page).await?,
                None if homes.len() == 1 => {
                    let only = homes.iter().next().copied();
                    list_page(&devices, tenant, only, limit, page).await?
                }
                None if homes.is_empty() => (Vec::new(), None),
                None => {
                    let (all, next) = list_page(&devices, tenant, None, limit, page).await?;
                    let mine = all
                        .into_iter()
                        .filter(|d| d.property_id.is_some_and(|p| homes.contains(&p)))
                        .collect();
                    (mine, next)
                }
            }
        }
    };
    let visible: Vec<DeviceRecord> = records
        .into_iter()
        .filter(|d| d.deleted_at.is_none() && d.tenant_id == tenant)
        .collect();
    let now = state.clock.now();
    let rows = devices
        .views(visible)
        .await?
        .into_iter()
        .map(|view| device_row(view, now))
        .collect();
    Ok((rows, next))
}

/// One page of a home's devices (gsi1) or a tenant's (table), with the
/// cursor bound to the partition that list reads.
async fn list_page(
    devices: &Devices<'_>,
    tenant: TenantId,
    property: Option<PropertyId>,
    limit: u32,
    page: &PageParams,
) -> Result<(Vec<DeviceRecord>, Option<PageKey>), ApiError> {
    Ok(match property {
        Some(property) => {
            let after = page.after_within(&home_devices(property))?;
            devices.list_by_property(property, limit, after).await?
        }
        None => {
            let after = page.after_within(&tenant_devices(tenant))?;
            devices.list_by_tenant(tenant, limit, after).await?
        }
    })
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
    let device = device_for(
        &state,
        &caller,
        query.tenant_id,
        device_id,
        Scope::DevicesRead,
    )
    .await?;
    let now = state.clock.now();
    let view = Devices(&*state.store)
        .views(vec![device])
        .await?
        .pop()
        .ok_or_else(no_such_device)?;
    Ok(Json(device_row(view, now)))
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

/// The device whose settings the caller may change. Writers: platform OWNER
/// and STAFF, tenant ADMIN and INSTALLER, keys with `devices:write` reaching
/// the tenant, and the OWNER of the household whose home holds the device
/// (configuration). Callers who see the device otherwise (SUPPORT, household
/// MEMBER/GUEST) get 403; a missing or foreign device is 404, as on GET.
async fn settings_target(
    state: &AppState,
    caller: &Principal,
    tenant: TenantId,
    device_id: DeviceId,
) -> Result<DeviceRecord, ApiError> {
    caller.require_scope(Scope::DevicesWrite)?;
    if caller.acts_for_connector(tenant).is_some() {
        return Err(Denied::ConnectorOnly.into());
    }
    let found = Devices(&*state.store)
        .get(tenant, device_id)
        .await?
        .filter(|d| d.deleted_at.is_none());
    if caller.platform_role() == Some(PlatformRole::Support) {
        found.ok_or_else(no_such_device)?;
        return Err(ApiError::forbidden(
            "platform SUPPORT cannot change device settings",
        ));
    }
    // Staff, the tenant's roles and a DEV key in its sandbox configure every
    // device of the tenant, in a home or not.
    if caller.home_reach(tenant) == HomeReach::Everything {
        return Ok(found.ok_or_else(no_such_device)?);
    }
    let device = found.ok_or_else(no_such_device)?;
    let home = match device.property_id {
        Some(property) => Tenancy(&*state.store).property(tenant, property).await?,
        None => None,
    };
    let Some(home) = home else {
        return Err(no_such_device().into());
    };
    match access_to(caller, &home) {
        Some(HomeAccess::Configure) => Ok(device),
        Some(_) => Err(ApiError::forbidden(
            "changing device settings needs the household's OWNER role",
        )),
        None => Err(no_such_device().into()),
    }
}

/// `settings` after `patch` (checked against the device's capabilities).
fn patched_settings(
    device: &DeviceRecord,
    patch: PatchDeviceSettingsRequest,
    now: OffsetDateTime,
) -> Result<DeviceSettingsRecord, ApiError> {
    let capabilities: BTreeSet<&str> = device
        .known_capabilities()
        .into_iter()
        .map(DeviceCapability::descriptor_id)
        .collect();
    let mut settings = device.settings.clone().unwrap_or(DeviceSettingsRecord {
        device_id: device.id,
        by_capability: Map::new(),
        enabled: true,
        updated_at: now,
    });
    for (name, value) in patch.by_capability {
        let field = format!("byCapability.{name}");
        if !capabilities.contains(name.as_str()) {
            return Err(ApiError::validation(
                field,
                format!(
                    "the device does not report the capability {name:?} (keys are its lower-cased capabilities)"
                ),
            ));
        }
        let Value::Object(members) = value else {
            return Err(ApiError::validation(
                field,
                "settings of a capability must be an object",
            ));
        };
        let entry = settings
            .by_capability
            .entry(name)
            .or_insert_with(|| Value::Object(Map::new()));
        if !entry.is_object() {
            *entry = Value::Object(Map::new());
        }
        if let Value::Object(current) = entry {
            for (key, value) in members {
                if value.is_null() {
                    current.remove(&key);
                } else {
                    current.insert(key, value);
                }
            }
        }
    }
    if let Some(enabled) = patch.enabled {
        settings.enabled = enabled;
    }
    settings.updated_at = now;
    Ok(settings)
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
    let device = settings_target(&state, &caller, query.tenant_id, device_id).await?;
    Ok(Json(change_settings(&state, device, body).await?))
}

/// Merges the patch into the device's settings and answers its row.
async fn change_settings(
    state: &AppState,
    mut device: DeviceRecord,
    body: PatchDeviceSettingsRequest,
) -> Result<Device, ApiError> {
    let devices = Devices(&*state.store);
    // Optimistic: written only if the device is as read (a report or another
    // patch in between makes it read again).
    for _ in 0..4 {
        let now = state.clock.now();
        let mut updated = device.clone();
        updated.settings = Some(patched_settings(&device, body.clone(), now)?);
        updated.updated_at = now.max(device.updated_at + time::Duration::microseconds(1));
        match devices.replace(&updated, device.updated_at).await {
            Ok(true) => {
                let view = devices
                    .views(vec![updated])
                    .await?
                    .pop()
                    .ok_or_else(no_such_device)?;
                return Ok(device_row(view, now));
            }
            Ok(false) => {
                device = devices
                    .get(device.tenant_id, device.id)
                    .await?
                    .filter(|d| d.deleted_at.is_none())
                    .ok_or_else(no_such_device)?;
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(ApiError::conflict("the device kept changing; try again"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mac_addresses_are_normalised_or_refused() {
        assert_eq!(
            mac_address(Some("aa-bb-cc-dd-ee-0f".into())).unwrap(),
            Some("AA:BB:CC:DD:EE:0F".into())
        );
        for bad in [
            "",
            "aa:bb",
            "gg:bb:cc:dd:ee:ff",
            "aabbccddeeff",
            "aa:bb:cc:dd:ee:ff:00",
        ] {
            let err = mac_address(Some(bad.into())).unwrap_err();
            assert_eq!(err.field.as_deref(), Some("macAddress"), "{bad}");
        }
    }

    #[test]
    fn serials_are_printable_ascii() {
        assert!(printable("SN-0001 A"));
        assert!(!printable(" SN"));
        assert!(!printable("SN\n"));
        assert!(!printable("SÑ"));
    }
}
