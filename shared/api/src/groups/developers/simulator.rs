//! The simulator operations (spec part H, under /v1/developers/simulator):
//! virtual devices in a developer's sandbox, and their scenarios.
//!
//! * `GET devices?tenantId`: a key with `simulator:write` bound to the
//!   tenant, or any session that reaches the tenant (platform staff: any
//!   tenant). One page of the tenant's virtual devices.
//! * `POST devices { tenantId, propertyId, roomId?, profile, name? }`,
//!   `POST devices/{id}/scenario { tenantId, scenario, seconds? }`,
//!   `DELETE devices/{id}?tenantId`: only the sandbox's ADMIN (the developer's
//!   session, or its DEV key with `simulator:write`). A tenant the caller
//!   does not reach answers 404 (a foreign tenant exactly like a missing
//!   one); a caller who sees it without being its ADMIN, or a tenant that is
//!   not a sandbox (code outside the X band), gets 403.
//!
//! A virtual device is registered through the device-register path
//! ([`crate::groups::devices::register`]) with `virtual: true` and a password
//! derived from the simulator key ([`alyt_simulator::DerivedPasswordIssuer`]), so the runner
//! logs it in again after any restart without a stored password. It lives in
//! a home of the sandbox tenant, never in a household of a real tenant (only
//! sandbox tenants hold virtual devices, and a sandbox holds only its own
//! sandbox home). The store is the truth: each operation writes it first and
//! then tells the runner ([`crate::ports::SimulatorControl`]); a runner that
//! is down catches up from the store when it starts.
//!
//! VIRTUAL_DEVICES (default 20) is a standing count taken before registering
//! and given back when the registration fails or the device is deleted
//! (`virtual_quota`); past it the answer is 409 `quota-exceeded`
//! naming the quota.

use std::collections::HashMap;

use crate::routing::{Operations, operations};
use alyt_domain::access::{Denied, Principal, Scope, TenantRole};
use alyt_domain::ids::{DeveloperId, DeviceId, PropertyId, RoomId, TenantId};
use alyt_simulator::{
    DerivedPasswordIssuer, Profile, SANDBOX_DEVICES, Scenario, ScenarioSetting, scenario_setting,
};
use alyt_store::repo::developers::DeveloperRecord;
use alyt_store::repo::devices::{DeviceRecord, Devices, device_key};
use alyt_store::repo::simulator::tenant_virtual_devices;
use alyt_store::repo::simulator::{Simulators, VirtualDeviceRecord};
use alyt_store::repo::tenancy::{CreatedHome, Tenancy, TenantRecord};
use alyt_store::{Key, MAX_BATCH_GET_KEYS};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

use crate::auth::Caller;
use crate::auth::secrets::random_bytes;
use crate::conventions::extract::{ApiJson, ApiPath, ApiQuery};
use crate::conventions::list::{ListResponse, TenantPage};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{
    BadTenantOrDevice, BadTenantPage, MayNotSimulate, NoSuchTenant, NoSuchTenantOrProperty,
    NoSuchVirtualDevice, NoValidToken,
};
use crate::groups::devices::lifecycle::{delete_one, remove_virtual_device};
use crate::groups::devices::{Device, RegisterDeviceRequest, RegisterOptions, device_row};
use crate::{ApiError, AppState};
use alyt_app::virtual_quota::{give_back, take_place};

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(list_virtual_devices, create_virtual_device))
        .merge(operations!(set_scenario))
        .merge(operations!(delete_virtual_device))
}

/// The longest timed scenario: a day.
pub const MAX_SCENARIO_SECONDS: u32 = 86_400;

// ---------------------------------------------------------------------------
// Views

/// A scenario as set and as in effect now.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScenarioView {
    /// The scenario as set.
    pub scenario: Scenario,
    /// When a scenario set with `seconds` ends (NORMAL from then on); null
    /// when it lasts until changed.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    #[schema(required = true)]
    pub until: Option<OffsetDateTime>,
    /// The scenario in effect now (NORMAL once `until` has passed).
    pub effective: Scenario,
}

/// A virtual device: its device row, its profile and its scenario.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VirtualDevice {
    /// The device row, as `GET /v1/devices/{id}` shows it.
    pub device: Device,
    pub profile: Profile,
    /// The model code of the profile (`ALSIML`, ...).
    pub model: String,
    pub scenario: ScenarioView,
}

fn scenario_view(record: &VirtualDeviceRecord, now: OffsetDateTime) -> ScenarioView {
    let setting = scenario_setting(record);
    ScenarioView {
        scenario: setting.scenario,
        until: setting.until,
        effective: setting.at(now),
    }
}

async fn views(
    state: &AppState,
    records: Vec<VirtualDeviceRecord>,
) -> Result<Vec<VirtualDevice>, ApiError> {
    let devices = Devices(&*state.store);
    let mut rows = Vec::with_capacity(records.len());
    // The device rows: one batch get per hundred.
    let keys: Vec<Key> = records
        .iter()
        .map(|r| device_key(r.tenant_id, r.device_id))
        .collect();
    let mut by_id = HashMap::new();
    for chunk in keys.chunks(MAX_BATCH_GET_KEYS) {
        for item in state.store.batch_get(chunk).await? {
            let row: DeviceRecord = item.to_record()?;
            by_id.insert(row.id, row);
        }
    }
    let found: Vec<(&VirtualDeviceRecord, DeviceRecord)> = records
        .iter()
        .filter_map(|record| {
            by_id
                .remove(&record.device_id)
                .filter(|row| row.deleted_at.is_none() && row.tenant_id == record.tenant_id)
                .map(|row| (record, row))
        })
        .collect();
    let now = state.clock.now();
    let device_views = devices
        .views(found.iter().map(|(_, row)| row.clone()).collect())
        .await?;
    for ((record, _), view) in found.into_iter().zip(device_views) {
        let Ok(profile) = record.profile.parse::<Profile>() else {
            continue;
        };
        rows.push(VirtualDevice {
            device: device_row(view, now),
            profile,
            model: profile.model().to_owned(),
            scenario: scenario_view(record, now),
        });
    }
    Ok(rows)
}

// ---------------------------------------------------------------------------
// Who may

fn no_such_tenant() -> alyt_app::Error {
    alyt_app::Error::not_found("no such tenant")
}

fn no_such_device() -> alyt_app::Error {
    alyt_app::Error::not_found("no such virtual device")
}

/// The scope, and no LIVE key: virtual devices are devices, which a LIVE
/// key never reaches.
fn scope(caller: &Principal, tenant: TenantId) -> Result<(), ApiError> {
    caller
        .require_scope(Scope::SimulatorWrite)
        .map_err(|denied| ApiError::forbidden(denied.to_string()))?;
    if caller.acts_for_connector(tenant).is_some() {
        return Err(Denied::ConnectorOnly.into());
    }
    Ok(())
}

/// Reading: a key with `simulator:write` bound to the tenant, or a session
/// that reaches it (staff reach every existing tenant).
async fn may_read(state: &AppState, caller: &Principal, tenant: TenantId) -> Result<(), ApiError> {
    scope(caller, tenant)?;
    if caller.reaches_tenant(tenant) {
        return Ok(());
    }
    if caller.platform_role().is_some() && Tenancy(&*state.store).tenant(tenant).await?.is_some() {
        return Ok(());
    }
    Err(no_such_tenant().into())
}

/// Changing: the sandbox's ADMIN only. Returns the sandbox's developer.
async fn may_write(
    state: &AppState,
    caller: &Principal,
    tenant: TenantId,
) -> Result<DeveloperId, ApiError> {
    scope(caller, tenant)?;
    let reaches = caller.reaches_tenant(tenant) || caller.platform_role().is_some();
    if !reaches {
        return Err(no_such_tenant().into());
    }
    let record: TenantRecord = Tenancy(&*state.store)
        .tenant(tenant)
        .await?
        .ok_or_else(no_such_tenant)?;
    if caller.tenant_role(tenant) != Some(TenantRole::Admin) {
        return Err(ApiError::forbidden(
            "only the sandbox's ADMIN (its developer) manages virtual devices",
        ));
    }
    match record.developer_id {
        Some(developer) if record.sandbox && record.code.starts_with('X') => Ok(developer),
        _ => Err(ApiError::forbidden(
            "only a developer sandbox (tenant code in the X band) holds virtual devices",
        )
        .with_field("tenantId")),
    }
}

// ---------------------------------------------------------------------------
// Create (also used by sandbox provisioning)

struct NewVirtual {
    tenant: TenantId,
    developer: DeveloperId,
    property: PropertyId,
    room: Option<RoomId>,
    profile: Profile,
    name: String,
}

/// Registers one virtual device, stores its record and starts it.
async fn create(state: &AppState, new: NewVirtual) -> Result<VirtualDevice, ApiError> {
    take_place(state, new.developer, new.tenant).await?;
    let made = register_and_record(state, &new).await;
    let (row, record) = match made {
        Ok(made) => made,
        Err(e) => {
            give_back(state, new.developer).await;
            return Err(e);
        }
    };
    if let Err(e) = state.simulator.start(&record).await {
        tracing::warn!(device = %record.device_id, error = %e, "the simulator runner was not told; it starts the device from the store");
    }
    let now = state.clock.now();
    Ok(VirtualDevice {
        device: row,
        profile: new.profile,
        model: new.profile.model().to_owned(),
        scenario: scenario_view(&record, now),
    })
}

async fn register_and_record(
    state: &AppState,
    new: &NewVirtual,
) -> Result<(Device, VirtualDeviceRecord), ApiError> {
    let key = Simulators(&*state.store).key().await?;
    let issuer = DerivedPasswordIssuer::new(key);
    let serial = format!(
        "SIM-{}-{}",
        new.profile.model(),
        hex::encode(random_bytes::<8>())
    );
    let registered = crate::groups::devices::register(
        state,
        RegisterDeviceRequest {
            tenant_id: new.tenant,
            property_id: new.property,
            room_id: new.room,
            name: new.name.clone(),
            kind: new.profile.kind(),
            capabilities: new.profile.capabilities().to_vec(),
            serial,
            model: Some(new.profile.model().to_owned()),
            firmware: Some(alyt_simulator::profile::FIRMWARE.to_owned()),
            mac_address: None,
            // Declared at registration: a lock's keypad counts only from
            // there (home security never takes one from a status report).
            features: Some(new.profile.feature_list()),
            parent_device_id: None,
            protocol: None,
            protocol_id: None,
        },
        RegisterOptions {
            is_virtual: true,
            issuer: Some(&issuer),
            heartbeat_window_seconds: state.simulator.heartbeat_window_seconds(),
        },
    )
    .await?;
    let now = state.clock.now();
    let device_id = registered.device.id;
    let record = VirtualDeviceRecord {
        device_id,
        tenant_id: new.tenant,
        property_id: new.property,
        developer_id: new.developer,
        profile: new.profile.as_str().to_owned(),
        scenario: Scenario::Normal.as_str().to_owned(),
        scenario_until: None,
        seed: state.simulator.seed(device_id).to_string(),
        created_at: now,
        updated_at: now,
    };
    if let Err(e) = Simulators(&*state.store).create(&record).await {
        // Without its record the device would never run: take it back.
        tracing::warn!(device = %device_id, error = %e, "virtual device record not written; deleting the device");
        if let Some(row) = Devices(&*state.store).get(new.tenant, device_id).await? {
            delete_one(state, row).await?;
        }
        return Err(e.into());
    }
    Ok((registered.device, record))
}

/// The five devices of a fresh sandbox, in the rooms of the home
/// the verification just created. Failures are logged, never returned:
/// verification succeeds whatever happens here, and a device whose record is
/// stored comes up whenever the runner (re)starts.
pub async fn provision_sandbox(state: &AppState, developer: &DeveloperRecord, home: &CreatedHome) {
    let Some(tenant) = developer.sandbox_tenant_id else {
        return;
    };
    for (profile, room_name) in SANDBOX_DEVICES {
        let room = home
            .rooms
            .iter()
            .find(|r| r.name == room_name)
            .map(|r| r.id);
        let made = create(
            state,
            NewVirtual {
                tenant,
                developer: developer.id,
                property: home.property.id,
                room,
                profile,
                name: profile.default_name().to_owned(),
            },
        )
        .await;
        if let Err(e) = made {
            tracing::warn!(%tenant, %profile, error = %e.detail, "a sandbox virtual device was not provisioned");
        }
    }
}

/// The demo household's things: the five of a fresh
/// sandbox in their rooms, and home security's motion sensor, door contact
/// and keypad lock, named as a household would name them.
pub const DEMO_DEVICES: [(Profile, &str, &str); 8] = [
    (Profile::Hub, "Living Room", "Living room hub"),
    (Profile::Speaker, "Living Room", "Living room speaker"),
    (Profile::Light, "Kitchen", "Kitchen light"),
    (Profile::Sensor, "Bedroom", "Bedroom climate"),
    (Profile::Thermostat, "Office", "Office thermostat"),
    (Profile::Motion, "Living Room", "Living room motion"),
    (Profile::Contact, "Living Room", "Front door"),
    (Profile::Lock, "Living Room", "Front door lock"),
];

/// The first start's simulated demo: [`DEMO_DEVICES`] in the owner's
/// sandbox (`developer`'s), logged and never returned like
/// [`provision_sandbox`].
pub async fn provision_demo(
    state: &AppState,
    developer: &DeveloperRecord,
    property: PropertyId,
    rooms: &[(RoomId, String)],
) {
    let Some(tenant) = developer.sandbox_tenant_id else {
        return;
    };
    for (profile, room_name, name) in DEMO_DEVICES {
        let room = rooms
            .iter()
            .find(|(_, n)| n == room_name)
            .map(|(id, _)| *id);
        let new = NewVirtual {
            tenant,
            developer: developer.id,
            property,
            room,
            profile,
            name: name.to_owned(),
        };
        if let Err(e) = create(state, new).await {
            tracing::warn!(%tenant, %profile, error = %e.detail, "a demo device was not provisioned");
        }
    }
}

// ---------------------------------------------------------------------------
// Operations

/// The sandbox's virtual devices, oldest first.
#[utoipa::path(
    get,
    path = "/v1/developers/simulator/devices",
    tag = "simulator",
    operation_id = "listVirtualDevices",
    params(TenantPage),
    security(("bearer" = ["simulator:write"])),
    responses(
        (status = 200, description = "One page of virtual devices", body = ListResponse<VirtualDevice>),
        BadTenantPage,
        NoValidToken,
        (status = 403, description = "A key without simulator:write", body = Problem, content_type = "application/problem+json"),
        NoSuchTenant,
    )
)]
pub async fn list_virtual_devices(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiQuery(query): ApiQuery<TenantPage>,
) -> Result<Json<ListResponse<VirtualDevice>>, ApiError> {
    let tenant = query.tenant_id;
    let (limit, after) = query.page().within(&tenant_virtual_devices(tenant))?;
    may_read(&state, &caller, tenant).await?;
    let (records, next) = Simulators(&*state.store)
        .list_by_tenant(tenant, limit, after)
        .await?;
    let items = views(&state, records).await?;
    Ok(Json(ListResponse::page(items, next.as_ref())))
}

/// The body of `POST /v1/developers/simulator/devices`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateVirtualDeviceRequest {
    /// The developer's sandbox tenant.
    pub tenant_id: TenantId,
    /// A home of the sandbox.
    pub property_id: PropertyId,
    /// A room of that home.
    #[serde(default)]
    #[schema(nullable = false)]
    pub room_id: Option<RoomId>,
    pub profile: Profile,
    /// Default: the profile's name (`Virtual light`, ...). 1-120 characters.
    #[serde(default)]
    #[schema(nullable = false, min_length = 1, max_length = 120)]
    pub name: Option<String>,
}

/// Creates a virtual device in the sandbox: registered like any device, run
/// by the simulator as a real MQTT client.
#[utoipa::path(
    post,
    path = "/v1/developers/simulator/devices",
    tag = "simulator",
    operation_id = "createVirtualDevice",
    request_body = CreateVirtualDeviceRequest,
    security(("bearer" = ["simulator:write"])),
    responses(
        (status = 201, description = "The virtual device (its device row is PROVISIONING until the runner connects it)", body = VirtualDevice),
        (status = 400, description = "A field is wrong (named in `field`): profile, name, roomId", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        MayNotSimulate,
        NoSuchTenantOrProperty,
        (status = 409, description = "quota-exceeded: the sandbox holds its VIRTUAL_DEVICES ceiling (default 20)", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn create_virtual_device(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiJson(body): ApiJson<CreateVirtualDeviceRequest>,
) -> Result<(StatusCode, Json<VirtualDevice>), ApiError> {
    let developer = may_write(&state, &caller, body.tenant_id).await?;
    let name = match body.name {
        Some(name) => name,
        None => body.profile.default_name().to_owned(),
    };
    // The property must be a home of this sandbox (404 otherwise, as for any
    // registration); checked before a VIRTUAL_DEVICES place is taken.
    if Tenancy(&*state.store)
        .property(body.tenant_id, body.property_id)
        .await?
        .is_none()
    {
        return Err(ApiError::not_found("no such property in this tenant"));
    }
    let created = create(
        &state,
        NewVirtual {
            tenant: body.tenant_id,
            developer,
            property: body.property_id,
            room: body.room_id,
            profile: body.profile,
            name,
        },
    )
    .await?;
    Ok((StatusCode::CREATED, Json(created)))
}

/// The body of `POST /v1/developers/simulator/devices/{deviceId}/scenario`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SetScenarioRequest {
    pub tenant_id: TenantId,
    pub scenario: Scenario,
    /// Revert to NORMAL after this many seconds (1 to 86400); absent: until
    /// changed.
    #[serde(default)]
    #[schema(nullable = false, minimum = 1, maximum = 86400)]
    pub seconds: Option<u32>,
}

/// Sets a virtual device's scenario (stored, so it survives restarts).
#[utoipa::path(
    post,
    path = "/v1/developers/simulator/devices/{deviceId}/scenario",
    tag = "simulator",
    operation_id = "setVirtualDeviceScenario",
    params(("deviceId" = DeviceId, Path, description = "The virtual device")),
    request_body = SetScenarioRequest,
    security(("bearer" = ["simulator:write"])),
    responses(
        (status = 200, description = "The virtual device with its new scenario", body = VirtualDevice),
        (status = 400, description = "A field is wrong (named in `field`): scenario, seconds, deviceId", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        MayNotSimulate,
        NoSuchVirtualDevice,
    )
)]
pub async fn set_scenario(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(device_id): ApiPath<DeviceId>,
    ApiJson(body): ApiJson<SetScenarioRequest>,
) -> Result<Json<VirtualDevice>, ApiError> {
    if body
        .seconds
        .is_some_and(|s| s == 0 || s > MAX_SCENARIO_SECONDS)
    {
        return Err(ApiError::validation(
            "seconds",
            format!("seconds must be 1 to {MAX_SCENARIO_SECONDS}"),
        ));
    }
    may_write(&state, &caller, body.tenant_id).await?;
    Ok(Json(
        set_scenario_of(
            &state,
            body.tenant_id,
            device_id,
            body.scenario,
            body.seconds,
        )
        .await?,
    ))
}

/// Stores a virtual device's scenario (for `seconds`, or until changed) and
/// tells the runner; a runner that is not told reads it from the store.
async fn set_scenario_of(
    state: &AppState,
    tenant: TenantId,
    device_id: DeviceId,
    scenario: Scenario,
    seconds: Option<u32>,
) -> Result<VirtualDevice, ApiError> {
    let now = state.clock.now();
    let setting = match seconds {
        Some(seconds) => ScenarioSetting::for_seconds(scenario, seconds, now),
        None => ScenarioSetting::permanent(scenario),
    };
    let record = Simulators(&*state.store)
        .set_scenario(
            tenant,
            device_id,
            setting.scenario.as_str(),
            setting.until,
            now,
        )
        .await?
        .ok_or_else(no_such_device)?;
    if let Err(e) = state.simulator.set_scenario(&record).await {
        tracing::warn!(device = %device_id, error = %e, "the simulator runner was not told; it reads the scenario from the store");
    }
    views(state, vec![record])
        .await?
        .pop()
        .ok_or_else(|| no_such_device().into())
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct VirtualDeviceTenant {
    pub tenant_id: TenantId,
}

/// Deletes a virtual device: the runner stops it, and the device is deleted
/// as `DELETE /v1/devices/{deviceId}` deletes one (row kept with
/// `deletedAt`, credential gone); its VIRTUAL_DEVICES place is given back.
#[utoipa::path(
    delete,
    path = "/v1/developers/simulator/devices/{deviceId}",
    tag = "simulator",
    operation_id = "deleteVirtualDevice",
    params(("deviceId" = DeviceId, Path, description = "The virtual device"), VirtualDeviceTenant),
    security(("bearer" = ["simulator:write"])),
    responses(
        (status = 204, description = "Deleted"),
        BadTenantOrDevice,
        NoValidToken,
        MayNotSimulate,
        NoSuchVirtualDevice,
    )
)]
pub async fn delete_virtual_device(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(device_id): ApiPath<DeviceId>,
    ApiQuery(query): ApiQuery<VirtualDeviceTenant>,
) -> Result<StatusCode, ApiError> {
    let tenant = query.tenant_id;
    may_write(&state, &caller, tenant).await?;
    Simulators(&*state.store)
        .get(tenant, device_id)
        .await?
        .ok_or_else(no_such_device)?;
    remove_virtual_device(&state, tenant, device_id).await?;
    Ok(StatusCode::NO_CONTENT)
}
