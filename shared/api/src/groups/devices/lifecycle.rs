//! What happens to a device after registration (spec: Device rules; part F):
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
use alyt_device::DeviceIdentity;
use alyt_domain::ids::{DeviceId, TenantId};
use alyt_store::repo::devices::{
    DeviceCredentialRecord, DeviceRecord, DeviceView, Devices, ReplaceUnitError, UnitRecord,
};
use alyt_store::repo::simulator::Simulators;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::auth::Caller;
use crate::conventions::extract::{ApiJson, ApiPath, ApiQuery};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{
    BadTenantOrDevice, MayNotManageDevices, NoSuchDevice, NoValidToken,
};
use crate::groups::devices::{
    Device, DeviceCredentials, RegisteredDevice, TenantParam, device_row, mac_address,
    may_register, no_such_device, optional_text,
};
use crate::ports::IssuedCredential;
use crate::{ApiError, AppState};
use alyt_app::virtual_quota;

/// Attempts when the device changes under a lifecycle write.
const ATTEMPTS: usize = 4;

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(delete_device))
        .merge(operations!(replace_unit))
        .merge(operations!(rotate_credentials))
}

/// A virtual device has no board to replace and its password is derived by
/// the simulator, which could not log in with a rotated one.
fn not_virtual(device: &DeviceRecord) -> Result<(), ApiError> {
    if device.is_virtual {
        return Err(ApiError::conflict(
            "a virtual device's board and credentials belong to the simulator; delete it and create another",
        ));
    }
    Ok(())
}

/// The live device the caller may change (the registration rule).
async fn writable_device(
    state: &AppState,
    caller: &alyt_domain::access::Principal,
    tenant: TenantId,
    device_id: DeviceId,
) -> Result<DeviceRecord, ApiError> {
    may_register(state, caller, tenant).await.map_err(|e| {
        if e.status == StatusCode::NOT_FOUND {
            no_such_device().into()
        } else {
            e
        }
    })?;
    Devices(&*state.store)
        .get(tenant, device_id)
        .await?
        .filter(|d| d.deleted_at.is_none())
        .ok_or_else(|| no_such_device().into())
}

fn identity_of(device: &DeviceRecord) -> Option<DeviceIdentity> {
    device
        .property_id
        .map(|property| DeviceIdentity::new(device.tenant_id, property, device.id))
}

/// What happens at the broker after the store write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AtBroker {
    /// The old credential goes; the device keeps its broker identity.
    Revoke,
    /// The device is gone: every credential and its identity go.
    Retire,
}

/// Makes a credential unusable at the broker and closes the device's open
/// session; failures are logged (the store no longer knows the credential).
async fn revoke_at_broker(
    state: &AppState,
    device: &DeviceRecord,
    certificate_id: Option<&str>,
    how: AtBroker,
) {
    let revoked = match how {
        AtBroker::Revoke => state.credentials.revoke(device.id, certificate_id).await,
        AtBroker::Retire => state.credentials.retire(device.id, certificate_id).await,
    };
    if let Err(e) = revoked {
        tracing::warn!(device = %device.id, error = %e, "a device credential could not be revoked at the broker");
    }
    if let Some(identity) = identity_of(device)
        && let Err(e) = state.publisher.disconnect(&identity).await
    {
        tracing::warn!(device = %device.id, error = %e, "the device's broker session could not be closed");
    }
}

/// Gives back a credential that was issued for a write that did not happen.
async fn discard(state: &AppState, device: DeviceId, issued: &IssuedCredential) {
    if let Err(e) = state
        .credentials
        .revoke(device, issued.certificate_id.as_deref())
        .await
    {
        tracing::warn!(device = %device, error = %e, "an unused device credential could not be revoked");
    }
}

async fn issue(state: &AppState, device: &DeviceRecord) -> Result<IssuedCredential, ApiError> {
    let property = device.property_id.ok_or_else(|| {
        ApiError::conflict("the device has no property, so it has no broker subtree")
    })?;
    state
        .credentials
        .issue(device.tenant_id, property, device.id)
        .await
        .map_err(|e| ApiError::unavailable(e.to_string()))
}

fn credential_record(
    device: &DeviceRecord,
    issued: &IssuedCredential,
    at: time::OffsetDateTime,
) -> Result<DeviceCredentialRecord, ApiError> {
    Ok(DeviceCredentialRecord {
        username: device.id.to_string(),
        device_id: device.id,
        tenant_id: device.tenant_id,
        property_id: device
            .property_id
            .ok_or_else(|| ApiError::conflict("the device has no property"))?,
        secret_hash: issued.secret_hash.clone(),
        certificate_id: issued.certificate_id.clone(),
        created_at: at,
    })
}

fn topic_prefix(device: &DeviceRecord) -> String {
    identity_of(device)
        .map(|i| i.topic_prefix())
        .unwrap_or_default()
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
    let device = writable_device(&state, &caller, query.tenant_id, device_id).await?;
    if device.is_virtual {
        // The simulator's own delete: the runner stops and the place under
        // VIRTUAL_DEVICES is given back.
        remove_virtual_device(&state, device.tenant_id, device.id).await?;
        return Ok(StatusCode::NO_CONTENT);
    }
    let devices = Devices(&*state.store);
    // Children first: if this stops half way, the hub still exists and a
    // retry finds the remaining children.
    for child in devices.children(device.id).await? {
        if child.tenant_id == device.tenant_id && child.deleted_at.is_none() {
            delete_one(&state, child).await?;
        }
    }
    delete_one(&state, device).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Deletes one device (the simulator deletes virtual devices through here).
pub(crate) async fn delete_one(state: &AppState, mut device: DeviceRecord) -> Result<(), ApiError> {
    let devices = Devices(&*state.store);
    for _ in 0..ATTEMPTS {
        let username = device.id.to_string();
        let (units, credential) =
            tokio::try_join!(devices.units(device.id), devices.credential(&username))?;
        if devices.delete(&device, &units, state.clock.now()).await? {
            tracing::info!(device = %device.id, tenant = %device.tenant_id, "device deleted");
            revoke_at_broker(
                state,
                &device,
                credential
                    .as_ref()
                    .and_then(|c| c.certificate_id.as_deref()),
                AtBroker::Retire,
            )
            .await;
            return Ok(());
        }
        match devices.get(device.tenant_id, device.id).await? {
            Some(current) if current.deleted_at.is_none() => device = current,
            // Deleted meanwhile: the outcome the caller asked for.
            _ => return Ok(()),
        }
    }
    Err(ApiError::conflict("the device kept changing; try again"))
}

/// Stops a virtual device, deletes it as `DELETE /devices/{id}` does and
/// frees its place under VIRTUAL_DEVICES. Both deletes end here, so neither
/// leaves a simulator record or a runner task behind.
pub(crate) async fn remove_virtual_device(
    state: &AppState,
    tenant: TenantId,
    device_id: DeviceId,
) -> Result<(), ApiError> {
    // Stop it first, so the runner does not log in again while the device
    // is being deleted (the credential's deletion would refuse it anyway).
    if let Err(e) = state.simulator.stop(device_id).await {
        tracing::warn!(device = %device_id, error = %e, "the simulator runner was not told; it drops the device from the store");
    }
    if let Some(row) = Devices(&*state.store).get(tenant, device_id).await?
        && row.deleted_at.is_none()
    {
        delete_one(state, row).await?;
    }
    if let Some(record) = Simulators(&*state.store).delete(tenant, device_id).await? {
        virtual_quota::give_back(state, record.developer_id).await;
    }
    Ok(())
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
    let board = checked_board(body)?;
    let device = writable_device(&state, &caller, query.tenant_id, device_id).await?;
    not_virtual(&device)?;
    let registered = replace_board(&state, device, board).await?;
    Ok((StatusCode::CREATED, Json(registered)))
}

/// The new board of a unit replacement, its fields checked.
struct NewBoard {
    serial: String,
    model: Option<String>,
    firmware: Option<String>,
    mac_address: Option<String>,
    reason: String,
}

fn checked_board(body: ReplaceUnitRequest) -> Result<NewBoard, ApiError> {
    if !crate::groups::devices::serial_ok(&body.serial) {
        return Err(ApiError::validation(
            "serial",
            "serial must be 1 to 64 printable ASCII characters without leading or trailing spaces",
        ));
    }
    Ok(NewBoard {
        serial: body.serial,
        model: optional_text("model", body.model, 64)?,
        firmware: optional_text("firmware", body.firmware, 64)?,
        mac_address: mac_address(body.mac_address)?,
        reason: optional_text("reason", body.reason, 64)?
            .unwrap_or_else(|| "warranty-replacement".to_owned()),
    })
}

/// Retires the device's current unit and installs `board` with a new
/// credential (the old board's is revoked and its session closed), retrying
/// when the device changed meanwhile. A credential issued for an attempt that
/// did not land is discarded.
async fn replace_board(
    state: &AppState,
    mut device: DeviceRecord,
    board: NewBoard,
) -> Result<RegisteredDevice, ApiError> {
    let devices = Devices(&*state.store);
    for _ in 0..ATTEMPTS {
        let username = device.id.to_string();
        let (old_unit, old_credential) =
            tokio::try_join!(devices.current_unit(&device), devices.credential(&username))?;
        let now = state.clock.now();
        let unit = UnitRecord {
            id: Uuid::now_v7(),
            device_id: device.id,
            serial: board.serial.clone(),
            model: board.model.clone(),
            firmware: board.firmware.clone(),
            mac_address: board.mac_address.clone(),
            installed_at: now,
            removed_at: None,
            removed_reason: None,
        };
        let issued = issue(state, &device).await?;
        let credential = credential_record(&device, &issued, now)?;
        match devices
            .replace_unit(
                &device,
                old_unit.as_ref(),
                &unit,
                &credential,
                &board.reason,
                now,
            )
            .await
        {
            Ok(updated) => {
                tracing::info!(device = %device.id, unit = %unit.id, "device unit replaced");
                // The old board's credential goes; the device keeps its id,
                // so the session closed is the old board's.
                revoke_at_broker(
                    state,
                    &device,
                    old_credential
                        .as_ref()
                        .and_then(|c| c.certificate_id.as_deref()),
                    AtBroker::Revoke,
                )
                .await;
                let prefix = topic_prefix(&updated);
                let row = device_row(
                    DeviceView {
                        device: updated,
                        unit: Some(unit),
                        reported: devices.reported(device.id).await?,
                    },
                    now,
                );
                return Ok(RegisteredDevice {
                    device: row,
                    credentials: issued.shown,
                    topic_prefix: prefix,
                });
            }
            Err(ReplaceUnitError::SerialTaken) => {
                discard(state, device.id, &issued).await;
                return Err(
                    ApiError::conflict("a device with this serial is registered already")
                        .with_field("serial"),
                );
            }
            Err(ReplaceUnitError::Changed) => {
                discard(state, device.id, &issued).await;
                device = devices
                    .get(device.tenant_id, device.id)
                    .await?
                    .filter(|d| d.deleted_at.is_none())
                    .ok_or_else(no_such_device)?;
            }
            Err(ReplaceUnitError::Store(e)) => {
                discard(state, device.id, &issued).await;
                return Err(e.into());
            }
        }
    }
    Err(ApiError::conflict("the device kept changing; try again"))
}

// ---------------------------------------------------------------------------
// Credential rotation

/// The answer of `POST /v1/devices/{deviceId}/credentials`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RotatedCredentials {
    pub device: Device,
    pub credentials: DeviceCredentials,
    pub topic_prefix: String,
}

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
    let device = writable_device(&state, &caller, query.tenant_id, device_id).await?;
    not_virtual(&device)?;
    let rotated = rotate(&state, device).await?;
    Ok((StatusCode::CREATED, Json(rotated)))
}

/// Gives the device a new credential and revokes the old one (closing its
/// session), retrying when the device changed meanwhile; a credential issued
/// for an attempt that did not land is discarded.
async fn rotate(
    state: &AppState,
    mut device: DeviceRecord,
) -> Result<RotatedCredentials, ApiError> {
    let devices = Devices(&*state.store);
    for _ in 0..ATTEMPTS {
        let old = devices.credential(&device.id.to_string()).await?;
        let now = state.clock.now();
        let issued = issue(state, &device).await?;
        let credential = credential_record(&device, &issued, now)?;
        match devices.replace_credential(&device, &credential).await {
            Ok(true) => {
                tracing::info!(device = %device.id, "device credential rotated");
                revoke_at_broker(
                    state,
                    &device,
                    old.as_ref().and_then(|c| c.certificate_id.as_deref()),
                    AtBroker::Revoke,
                )
                .await;
                let view = devices
                    .views(vec![device.clone()])
                    .await?
                    .pop()
                    .ok_or_else(no_such_device)?;
                return Ok(RotatedCredentials {
                    topic_prefix: topic_prefix(&device),
                    device: device_row(view, now),
                    credentials: issued.shown,
                });
            }
            Ok(false) => {
                discard(state, device.id, &issued).await;
                device = devices
                    .get(device.tenant_id, device.id)
                    .await?
                    .filter(|d| d.deleted_at.is_none())
                    .ok_or_else(no_such_device)?;
            }
            Err(e) => {
                discard(state, device.id, &issued).await;
                return Err(e.into());
            }
        }
    }
    Err(ApiError::conflict("the device kept changing; try again"))
}
