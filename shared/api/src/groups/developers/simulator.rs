//! The simulator operations (under /v1/developers/simulator):
//! virtual devices in a developer's sandbox, and their scenarios.
//!
//! * `GET devices?tenantId`: a key with `simulator:write` bound to the
//!   tenant, or any session that reaches the tenant (platform staff: any
//!   tenant). One page of the tenant's virtual devices.
//! * `POST devices { tenantId, propertyId, roomId?, profile, name? }`,
//!   `POST devices/{id}/scenario { tenantId, scenario, seconds? }`,
//!   `DELETE devices/{id}?tenantId`, `POST devices/{id}/detach?tenantId`
//!   and `POST devices/{id}/attach?tenantId`: only the sandbox's ADMIN (the developer's
//!   session, or its DEV key with `simulator:write`). A tenant the caller
//!   does not reach answers 404 (a foreign tenant exactly like a missing
//!   one); a caller who sees it without being its ADMIN, or a tenant that is
//!   not a sandbox (code outside the X band), gets 403.
//!
//! The use cases are [`alyt_app::developers::simulator`]'s. A virtual device
//! is registered through the device-register path
//! ([`alyt_app::devices::register`]) with
//! `virtual: true` and a password derived from the simulator key
//! ([`alyt_simulator::DerivedPasswordIssuer`]), so the runner logs it in
//! again after any restart without a stored password. It lives in a home of
//! the sandbox tenant, never in a household of a real tenant (only sandbox
//! tenants hold virtual devices, and a sandbox holds only its own sandbox
//! home). The store is the truth: each operation writes it first and then
//! tells the runner ([`crate::ports::SimulatorControl`]); a runner that is
//! down catches up from the store when it starts.
//!
//! VIRTUAL_DEVICES (default 20) is a standing count taken before registering
//! and given back when the registration fails or the device is deleted
//! (`virtual_quota`); past it the answer is 409 `quota-exceeded`
//! naming the quota.

use crate::routing::{Operations, operations};
use alyt_domain::ids::{DeviceId, PropertyId, RoomId, TenantId};
use alyt_simulator::{Profile, Scenario};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

use crate::auth::Caller;
use crate::conventions::extract::{ApiJson, ApiPath, ApiQuery};
use crate::conventions::list::{ListResponse, TenantPage, listed};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{
    BadTenantOrDevice, BadTenantPage, KeyWithoutSimulatorWrite, MayNotSimulate, NoSuchTenant,
    NoSuchTenantOrProperty, NoSuchVirtualDevice, NoValidToken,
};
use crate::groups::devices::Device;
use crate::{ApiError, AppState};
use alyt_app::developers::simulator::{self, NewVirtualDevice, Simulated};

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(list_virtual_devices, create_virtual_device))
        .merge(operations!(set_scenario))
        .merge(operations!(delete_virtual_device))
        .merge(operations!(detach_virtual_device))
        .merge(operations!(attach_virtual_device))
}

pub use alyt_app::developers::simulator::{DEMO_DEVICES, MAX_SCENARIO_SECONDS};

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
    /// Since when a client of the developer's speaks for it instead of the
    /// simulator (`POST …/detach`); null while the simulator drives it.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    #[schema(required = true)]
    pub detached_at: Option<OffsetDateTime>,
    /// The script run that plays it now (`POST …/runs`); null otherwise.
    #[schema(required = true)]
    pub run_id: Option<uuid::Uuid>,
}

impl From<Simulated> for VirtualDevice {
    fn from(s: Simulated) -> Self {
        Self {
            device: s.device,
            profile: s.profile,
            detached_at: s.detached_at,
            run_id: s.run_id,
            model: s.profile.model().to_owned(),
            scenario: ScenarioView {
                scenario: s.scenario.scenario,
                until: s.scenario.until,
                effective: s.effective,
            },
        }
    }
}

pub use alyt_app::developers::simulator::{provision_demo, provision_sandbox};

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
        KeyWithoutSimulatorWrite,
        NoSuchTenant,
    )
)]
pub async fn list_virtual_devices(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiQuery(query): ApiQuery<TenantPage>,
) -> Result<Json<ListResponse<VirtualDevice>>, ApiError> {
    let paging = query.page().paging();
    let found = simulator::virtual_devices_page(&state, &caller, query.tenant_id, &paging).await?;
    Ok(listed(found, VirtualDevice::from))
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
    let new = NewVirtualDevice {
        tenant: body.tenant_id,
        property: body.property_id,
        room: body.room_id,
        profile: body.profile,
        name: body.name,
    };
    let created = simulator::create_virtual_device(&state, &caller, new).await?;
    Ok((StatusCode::CREATED, Json(created.into())))
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
    let (tenant, scenario, seconds) = (body.tenant_id, body.scenario, body.seconds);
    let set =
        simulator::set_scenario(&state, &caller, tenant, device_id, scenario, seconds).await?;
    Ok(Json(set.into()))
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
    simulator::delete_virtual_device(&state, &caller, tenant, device_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// A detached virtual device and the credential to speak for it.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DetachedVirtualDevice {
    pub virtual_device: VirtualDevice,
    /// Its credential now (shown once), its topic prefix and how to connect:
    /// as `POST /v1/devices/{deviceId}/credentials` answers.
    pub credentials: alyt_app::devices::lifecycle::RotatedCredentials,
}

/// Detaches a virtual device from the simulator so a client of yours
/// speaks for it: the simulator lets go of its session (no last will), and
/// the device gets a credential of its own in place of the simulator's,
/// shown once in the answer with how to connect. Connect with it (the
/// client id is the device id), publish as the device, receive its
/// commands. `POST …/attach` gives it back.
#[utoipa::path(
    post,
    path = "/v1/developers/simulator/devices/{deviceId}/detach",
    tag = "simulator",
    operation_id = "detachVirtualDevice",
    params(("deviceId" = DeviceId, Path, description = "The virtual device"), VirtualDeviceTenant),
    security(("bearer" = ["simulator:write"])),
    responses(
        (status = 200, description = "Detached: the device and its new credential (shown once)", body = DetachedVirtualDevice),
        BadTenantOrDevice,
        NoValidToken,
        MayNotSimulate,
        NoSuchVirtualDevice,
        (status = 409, description = "Detached already", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn detach_virtual_device(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(device_id): ApiPath<DeviceId>,
    ApiQuery(query): ApiQuery<VirtualDeviceTenant>,
) -> Result<Json<DetachedVirtualDevice>, ApiError> {
    let (device, credentials) =
        simulator::detach_virtual_device(&state, &caller, query.tenant_id, device_id).await?;
    Ok(Json(DetachedVirtualDevice {
        virtual_device: device.into(),
        credentials,
    }))
}

/// Gives a detached virtual device back to the simulator: the credential
/// the detach issued is revoked and its connection closed, and the
/// simulator drives the device again as stored (profile, scenario, seed).
#[utoipa::path(
    post,
    path = "/v1/developers/simulator/devices/{deviceId}/attach",
    tag = "simulator",
    operation_id = "attachVirtualDevice",
    params(("deviceId" = DeviceId, Path, description = "The virtual device"), VirtualDeviceTenant),
    security(("bearer" = ["simulator:write"])),
    responses(
        (status = 200, description = "Attached: the simulator drives it again", body = VirtualDevice),
        BadTenantOrDevice,
        NoValidToken,
        MayNotSimulate,
        NoSuchVirtualDevice,
        (status = 409, description = "Not detached", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn attach_virtual_device(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(device_id): ApiPath<DeviceId>,
    ApiQuery(query): ApiQuery<VirtualDeviceTenant>,
) -> Result<Json<VirtualDevice>, ApiError> {
    let device =
        simulator::attach_virtual_device(&state, &caller, query.tenant_id, device_id).await?;
    Ok(Json(device.into()))
}
