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
//! The use cases are [`alyt_app::developers::simulator`]'s. A virtual device
//! is registered through the device-register path
//! ([`crate::groups::devices::register`], handed in as [`DeviceGroup`]) with
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
use alyt_store::repo::developers::DeveloperRecord;
use alyt_store::repo::devices::DeviceRecord;
use alyt_store::repo::tenancy::CreatedHome;
use async_trait::async_trait;
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
    BadTenantOrDevice, BadTenantPage, MayNotSimulate, NoSuchTenant, NoSuchTenantOrProperty,
    NoSuchVirtualDevice, NoValidToken,
};
use crate::groups::devices::lifecycle::{delete_one, remove_virtual_device};
use crate::groups::devices::{Device, RegisterDeviceRequest, RegisterOptions};
use crate::{ApiError, AppState};
use alyt_app::developers::simulator::{
    self, DeviceRegistration, DeviceRows, NewVirtualDevice, Simulated,
};

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(list_virtual_devices, create_virtual_device))
        .merge(operations!(set_scenario))
        .merge(operations!(delete_virtual_device))
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
}

impl From<Simulated> for VirtualDevice {
    fn from(s: Simulated) -> Self {
        Self {
            device: s.device,
            profile: s.profile,
            model: s.profile.model().to_owned(),
            scenario: ScenarioView {
                scenario: s.scenario.scenario,
                until: s.scenario.until,
                effective: s.effective,
            },
        }
    }
}

// ---------------------------------------------------------------------------
// The devices group as the simulator's use cases call it

/// Registers and deletes a virtual device's row through the devices group.
pub(super) struct DeviceGroup<'a>(pub(super) &'a AppState);

#[async_trait]
impl DeviceRows for DeviceGroup<'_> {
    async fn register(
        &self,
        registration: DeviceRegistration<'_>,
    ) -> Result<Device, alyt_app::Error> {
        let request = RegisterDeviceRequest {
            tenant_id: registration.tenant,
            property_id: registration.property,
            room_id: registration.room,
            name: registration.name,
            kind: registration.kind,
            capabilities: registration.capabilities,
            serial: registration.serial,
            model: Some(registration.model),
            firmware: Some(registration.firmware),
            mac_address: None,
            features: Some(registration.features),
            parent_device_id: None,
            protocol: None,
            protocol_id: None,
        };
        let options = RegisterOptions {
            is_virtual: true,
            issuer: Some(registration.issuer),
            heartbeat_window_seconds: registration.heartbeat_window_seconds,
        };
        crate::groups::devices::register(self.0, request, options)
            .await
            .map(|registered| registered.device)
            .map_err(app_error)
    }

    async fn delete(&self, row: DeviceRecord) -> Result<(), alyt_app::Error> {
        delete_one(self.0, row).await.map_err(app_error)
    }

    async fn remove_virtual(
        &self,
        tenant: TenantId,
        device: DeviceId,
    ) -> Result<(), alyt_app::Error> {
        remove_virtual_device(self.0, tenant, device)
            .await
            .map_err(app_error)
    }
}

/// The use case's error an answer of the devices group maps from, so that
/// the simulator's answer maps back to exactly that answer.
fn app_error(e: ApiError) -> alyt_app::Error {
    use alyt_app::ErrorKind as Kind;
    let kind = match (e.status.as_u16(), e.slug) {
        (_, "bad-request") => Kind::BadRequest,
        (_, "validation") => Kind::Invalid,
        (_, "unauthorized") => Kind::Unauthorized,
        (_, "stay-ended") => Kind::StayEnded,
        (_, "forbidden") => Kind::Forbidden,
        (_, "not-found") => Kind::NotFound,
        (429, "quota-exceeded") => Kind::QuotaExceeded(e.quota.unwrap_or_default()),
        (_, "quota-exceeded") => Kind::QuotaFull(e.quota.unwrap_or_default()),
        (_, "refused") => Kind::Refused,
        (_, "gone") => Kind::Gone,
        (_, "too-many-attempts") => Kind::TooManyAttempts,
        (_, "too-many-mails") => Kind::TooManyMails,
        (_, "unavailable") => Kind::Unavailable,
        (_, "provider-access-revoked") => Kind::ProviderRevoked,
        (_, "provider-rate-limited") => Kind::ProviderRateLimited,
        (_, "connector-unavailable") => Kind::ConnectorUnavailable,
        (409, slug) => Kind::Conflict(slug),
        _ => Kind::Internal,
    };
    alyt_app::Error {
        kind,
        detail: e.detail,
        field: e.field,
        retry_after: e.retry_after,
    }
}

/// The five devices of a fresh sandbox (see
/// [`alyt_app::developers::simulator::provision_sandbox`]); never fails.
pub async fn provision_sandbox(state: &AppState, developer: &DeveloperRecord, home: &CreatedHome) {
    simulator::provision_sandbox(state, &DeviceGroup(state), developer, home).await;
}

/// The first start's simulated demo (see
/// [`alyt_app::developers::simulator::provision_demo`]); never fails.
pub async fn provision_demo(
    state: &AppState,
    developer: &DeveloperRecord,
    property: PropertyId,
    rooms: &[(RoomId, String)],
) {
    simulator::provision_demo(state, &DeviceGroup(state), developer, property, rooms).await;
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
    let paging = query.page().paging()?;
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
    let devices = DeviceGroup(&state);
    let created = simulator::create_virtual_device(&state, &caller, &devices, new).await?;
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
    let devices = DeviceGroup(&state);
    let tenant = query.tenant_id;
    simulator::delete_virtual_device(&state, &caller, &devices, tenant, device_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_of_the_devices_group_keep_their_problem_through_the_simulator() {
        let answers = [
            ApiError::validation("name", "name must be 1 to 120 characters"),
            ApiError::not_found("no such property in this tenant"),
            ApiError::conflict("a device with this serial is registered already")
                .with_field("serial"),
            ApiError::conflict_typed("request-id-reused", "reused"),
            ApiError::forbidden("not allowed"),
            ApiError::unavailable("storage is briefly unavailable; retry shortly"),
            ApiError::from(alyt_app::Error::quota_full("VIRTUAL_DEVICES", "full")),
            ApiError::quota_exceeded("REQUESTS", 30, "spent"),
            ApiError::from(alyt_app::Error::new(
                alyt_app::ErrorKind::Internal,
                "something went wrong on our side",
            )),
        ];
        for answer in answers {
            assert_eq!(ApiError::from(app_error(answer.clone())), answer);
        }
    }
}
