//! What happens to a device after registration:
//!
//! * `DELETE /v1/devices/{deviceId}?tenantId`: the device (and first every
//!   child a hub acquired) is deleted: the row keeps `deletedAt` for history
//!   but leaves every list and index, its boards' serials and its radio
//!   address are free again, its broker credential stops working at once
//!   and an open broker session is closed. Pending commands become
//!   undeliverable on the next bridge sweep.
//! * `POST /v1/devices/{deviceId}/units`: a warranty replacement, i.e. a new
//!   board (unit) of the same device: the old unit is marked removed, the
//!   device goes back to PROVISIONING until the new board reports, and the
//!   new board gets a new credential (the old board's stops working).
//! * `POST /v1/devices/{deviceId}/credentials`: rotates the broker
//!   credential (e.g. after a leak): the new one is shown once, the old one
//!   stops working and its session is closed.
//!
//! Who: as registration: tenant ADMIN or INSTALLER, platform OWNER or STAFF,
//! a key with `devices:write` reaching the tenant. A foreign or missing
//! device is 404.
//!
//! Order of effects: the store write comes first (it decides); revoking at
//! the broker follows. A revocation that fails after the write is logged and
//! does not undo the write: locally the deleted record already refuses every
//! login; hosted, the certificate is left ACTIVE but attached to nothing the
//! new record knows, and the operator sees the warning.

use crate::routing::{Operations, operations};
use alyt_app::devices::lifecycle::{self as use_case, Board};
use alyt_domain::ids::DeviceId;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::auth::Caller;
use crate::conventions::extract::{ApiJson, ApiPath, ApiQuery};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{
    BadTenantOrDevice, MayNotManageDevices, NoSuchDevice, NoValidToken,
};
use crate::groups::devices::{RegisteredDevice, TenantParam};
use crate::{ApiError, AppState};

pub use alyt_app::devices::lifecycle::RotatedCredentials;

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(delete_device))
        .merge(operations!(replace_unit))
        .merge(operations!(rotate_credentials))
}

// ---------------------------------------------------------------------------
// Delete

/// Deletes a device; a hub's children are deleted first.
#[utoipa::path(
    delete,
    path = "/v1/devices/{deviceId}",
    tag = "homes",
    operation_id = "deleteDevice",
    params(("deviceId" = DeviceId, Path, description = "The device"), TenantParam),
    security(("bearer" = ["devices:write"])),
    responses(
        (status = 204, description = "Deleted (with the hub's children); its credential no longer works"),
        BadTenantOrDevice,
        NoValidToken,
        MayNotManageDevices,
        NoSuchDevice,
        (status = 409, description = "The device kept changing; try again", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn delete_device(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(device_id): ApiPath<DeviceId>,
    ApiQuery(query): ApiQuery<TenantParam>,
) -> Result<StatusCode, ApiError> {
    use_case::delete_device(&state, &caller, query.tenant_id, device_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

// ---------------------------------------------------------------------------
// Warranty replacement

/// The body of `POST /v1/devices/{deviceId}/units`: the new board.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReplaceUnitRequest {
    /// The burned-in serial of the new board: 1-64 printable ASCII characters.
    #[schema(min_length = 1, max_length = 64)]
    pub serial: String,
    #[serde(default)]
    #[schema(nullable = false, min_length = 1, max_length = 64)]
    pub model: Option<String>,
    #[serde(default)]
    #[schema(nullable = false, min_length = 1, max_length = 64)]
    pub firmware: Option<String>,
    /// Six hex octets (`AA:BB:CC:DD:EE:FF`).
    #[serde(default)]
    #[schema(nullable = false)]
    pub mac_address: Option<String>,
    /// Why the old board was removed (default `warranty-replacement`).
    #[serde(default)]
    #[schema(nullable = false, min_length = 1, max_length = 64)]
    pub reason: Option<String>,
}

/// A new board (unit) for an existing device: a warranty replacement.
#[utoipa::path(
    post,
    path = "/v1/devices/{deviceId}/units",
    tag = "homes",
    operation_id = "replaceDeviceUnit",
    params(("deviceId" = DeviceId, Path, description = "The device"), TenantParam),
    request_body = ReplaceUnitRequest,
    security(("bearer" = ["devices:write"])),
    responses(
        (status = 201, description = "The device row with its new current unit, the new board's credentials (shown once) and its topic prefix", body = RegisteredDevice),
        (status = 400, description = "A field is wrong (named in `field`): serial, model, firmware, macAddress, reason", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        MayNotManageDevices,
        NoSuchDevice,
        (status = 409, description = "The serial is registered already, the device is virtual (the simulator owns its board), or the device kept changing", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn replace_unit(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(device_id): ApiPath<DeviceId>,
    ApiQuery(query): ApiQuery<TenantParam>,
    ApiJson(body): ApiJson<ReplaceUnitRequest>,
) -> Result<(StatusCode, Json<RegisteredDevice>), ApiError> {
    let board = Board {
        serial: body.serial,
        model: body.model,
        firmware: body.firmware,
        mac_address: body.mac_address,
        reason: body.reason,
    };
    let registered =
        use_case::replace_unit(&state, &caller, query.tenant_id, device_id, board).await?;
    Ok((StatusCode::CREATED, Json(registered)))
}

// ---------------------------------------------------------------------------
// Credential rotation

/// Replaces the device's broker credential; the old one stops working.
#[utoipa::path(
    post,
    path = "/v1/devices/{deviceId}/credentials",
    tag = "homes",
    operation_id = "rotateDeviceCredentials",
    params(("deviceId" = DeviceId, Path, description = "The device"), TenantParam),
    security(("bearer" = ["devices:write"])),
    responses(
        (status = 201, description = "The new credentials (shown once); the old ones no longer work and an open session was closed", body = RotatedCredentials),
        BadTenantOrDevice,
        NoValidToken,
        MayNotManageDevices,
        NoSuchDevice,
        (status = 409, description = "The device is virtual (the simulator derives its password), or the device kept changing", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn rotate_credentials(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(device_id): ApiPath<DeviceId>,
    ApiQuery(query): ApiQuery<TenantParam>,
) -> Result<(StatusCode, Json<RotatedCredentials>), ApiError> {
    let rotated = use_case::rotate_credentials(&state, &caller, query.tenant_id, device_id).await?;
    Ok((StatusCode::CREATED, Json(rotated)))
}
