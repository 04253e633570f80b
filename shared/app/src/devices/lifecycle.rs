//! What happens to a device after registration: deletion (a hub's children
//! first; a virtual device through the simulator's own delete), a new board
//! for a warranty replacement, and new broker credentials. Who: as
//! registration ([`super::may_register`]); a foreign or missing device is
//! not found. The store write comes first and decides; revoking at the
//! broker follows, and a revocation that fails after the write is logged,
//! never undoing it.

use alyt_device::DeviceIdentity;
use alyt_domain::access::Principal;
use alyt_domain::ids::{DeviceId, TenantId};
use alyt_store::repo::devices::{
    DeviceCredentialRecord, DeviceRecord, DeviceView, Devices, ReplaceUnitError, UnitRecord,
};
use alyt_store::repo::simulator::Simulators;
use serde::Serialize;
use uuid::Uuid;

use super::may_register;
use super::register::{RegisteredDevice, mac_address, optional_text, serial_ok};
use crate::access::no_such_device;
use crate::ports::{DeviceCredentialIssuer, DeviceCredentials, IssuedCredential};
use crate::things::{Device, device_row};
use crate::{App, Error, ErrorKind, virtual_quota};

/// Attempts when the device changes under a lifecycle write.
const ATTEMPTS: usize = 4;

/// A virtual device has no board to replace and its password is derived by
/// the simulator, which could not log in with a rotated one.
fn not_virtual(device: &DeviceRecord) -> Result<(), Error> {
    if device.is_virtual {
        return Err(Error::conflict(
            "a virtual device's board and credentials belong to the simulator; delete it and create another",
        ));
    }
    Ok(())
}

/// The live device the caller may change (the registration rule).
async fn writable_device(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    device_id: DeviceId,
) -> Result<DeviceRecord, Error> {
    may_register(app, caller, tenant).await.map_err(|e| {
        if e.kind == ErrorKind::NotFound {
            no_such_device()
        } else {
            e
        }
    })?;
    Devices(&*app.store)
        .get(tenant, device_id)
        .await?
        .filter(|d| d.deleted_at.is_none())
        .ok_or_else(no_such_device)
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
    app: &App,
    device: &DeviceRecord,
    certificate_id: Option<&str>,
    how: AtBroker,
) {
    let revoked = match how {
        AtBroker::Revoke => app.credentials.revoke(device.id, certificate_id).await,
        AtBroker::Retire => app.credentials.retire(device.id, certificate_id).await,
    };
    if let Err(e) = revoked {
        tracing::warn!(device = %device.id, error = %e, "a device credential could not be revoked at the broker");
    }
    if let Some(identity) = identity_of(device)
        && let Err(e) = app.publisher.disconnect(&identity).await
    {
        tracing::warn!(device = %device.id, error = %e, "the device's broker session could not be closed");
    }
}

/// Gives back a credential that was issued for a write that did not happen.
async fn discard(app: &App, device: DeviceId, issued: &IssuedCredential) {
    if let Err(e) = app
        .credentials
        .revoke(device, issued.certificate_id.as_deref())
        .await
    {
        tracing::warn!(device = %device, error = %e, "an unused device credential could not be revoked");
    }
}

async fn issue(app: &App, device: &DeviceRecord) -> Result<IssuedCredential, Error> {
    issue_with(&*app.credentials, device).await
}

async fn issue_with(
    issuer: &dyn DeviceCredentialIssuer,
    device: &DeviceRecord,
) -> Result<IssuedCredential, Error> {
    let property = device.property_id.ok_or_else(|| {
        Error::conflict("the device has no property, so it has no broker subtree")
    })?;
    issuer
        .issue(device.tenant_id, property, device.id)
        .await
        .map_err(|e| Error::unavailable(e.to_string()))
}

fn credential_record(
    device: &DeviceRecord,
    issued: &IssuedCredential,
    at: time::OffsetDateTime,
) -> Result<DeviceCredentialRecord, Error> {
    Ok(DeviceCredentialRecord {
        username: device.id.to_string(),
        device_id: device.id,
        tenant_id: device.tenant_id,
        property_id: device
            .property_id
            .ok_or_else(|| Error::conflict("the device has no property"))?,
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

/// Deletes device `device_id` of `tenant` when the caller may change it; a
/// hub's children are deleted first, a virtual device as the simulator
/// deletes it.
pub async fn delete_device(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    device_id: DeviceId,
) -> Result<(), Error> {
    let device = writable_device(app, caller, tenant, device_id).await?;
    if device.is_virtual {
        // The simulator's own delete: the runner stops and the place under
        // VIRTUAL_DEVICES is given back.
        return remove_virtual_device(app, device.tenant_id, device.id).await;
    }
    let devices = Devices(&*app.store);
    // Children first: if this stops half way, the hub still exists and a
    // retry finds the remaining children.
    for child in devices.children(device.id).await? {
        if child.tenant_id == device.tenant_id && child.deleted_at.is_none() {
            delete_one(app, child).await?;
        }
    }
    delete_one(app, device).await
}

/// Deletes one device (the simulator deletes virtual devices through here).
pub async fn delete_one(app: &App, mut device: DeviceRecord) -> Result<(), Error> {
    let devices = Devices(&*app.store);
    for _ in 0..ATTEMPTS {
        let username = device.id.to_string();
        let (units, credential) =
            tokio::try_join!(devices.units(device.id), devices.credential(&username))?;
        if devices.delete(&device, &units, app.clock.now()).await? {
            tracing::info!(device = %device.id, tenant = %device.tenant_id, "device deleted");
            revoke_at_broker(
                app,
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
    Err(Error::conflict("the device kept changing; try again"))
}

/// Stops a virtual device, deletes it as [`delete_one`] does and frees its
/// place under VIRTUAL_DEVICES. Both deletes (the simulator's and the
/// device's) end here, so neither leaves a simulator record or a runner
/// task behind.
pub async fn remove_virtual_device(
    app: &App,
    tenant: TenantId,
    device_id: DeviceId,
) -> Result<(), Error> {
    // Stop it first, so the runner does not log in again while the device
    // is being deleted (the credential's deletion would refuse it anyway).
    if let Err(e) = app.simulator.stop(device_id).await {
        tracing::warn!(device = %device_id, error = %e, "the simulator runner was not told; it drops the device from the store");
    }
    if let Some(row) = Devices(&*app.store).get(tenant, device_id).await?
        && row.deleted_at.is_none()
    {
        delete_one(app, row).await?;
    }
    if let Some(record) = Simulators(&*app.store).delete(tenant, device_id).await? {
        virtual_quota::give_back(app, record.developer_id).await;
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Warranty replacement

/// A new board as the caller names it, unchecked.
#[derive(Debug, Clone)]
pub struct Board {
    /// The burned-in serial of the new board.
    pub serial: String,
    pub model: Option<String>,
    pub firmware: Option<String>,
    /// Six hex octets (`AA:BB:CC:DD:EE:FF`).
    pub mac_address: Option<String>,
    /// Why the old board was removed (default `warranty-replacement`).
    pub reason: Option<String>,
}

/// The new board of a unit replacement, its fields checked.
struct NewBoard {
    serial: String,
    model: Option<String>,
    firmware: Option<String>,
    mac_address: Option<String>,
    reason: String,
}

fn checked_board(board: Board) -> Result<NewBoard, Error> {
    if !serial_ok(&board.serial) {
        return Err(Error::validation(
            "serial",
            "serial must be 1 to 64 printable ASCII characters without leading or trailing spaces",
        ));
    }
    Ok(NewBoard {
        serial: board.serial,
        model: optional_text("model", board.model, 64)?,
        firmware: optional_text("firmware", board.firmware, 64)?,
        mac_address: mac_address(board.mac_address)?,
        reason: optional_text("reason", board.reason, 64)?
            .unwrap_or_else(|| "warranty-replacement".to_owned()),
    })
}

/// A new board (unit) for device `device_id` of `tenant` (a warranty
/// replacement) when the caller may change the device; a virtual device has
/// no board to replace (a conflict). Answers the device row with the new
/// board's credentials.
pub async fn replace_unit(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    device_id: DeviceId,
    board: Board,
) -> Result<RegisteredDevice, Error> {
    let board = checked_board(board)?;
    let device = writable_device(app, caller, tenant, device_id).await?;
    not_virtual(&device)?;
    replace_board(app, device, board).await
}

/// Retires the device's current unit and installs `board` with a new
/// credential (the old board's is revoked and its session closed), retrying
/// when the device changed meanwhile. A credential issued for an attempt that
/// did not land is discarded.
async fn replace_board(
    app: &App,
    mut device: DeviceRecord,
    board: NewBoard,
) -> Result<RegisteredDevice, Error> {
    let devices = Devices(&*app.store);
    for _ in 0..ATTEMPTS {
        let username = device.id.to_string();
        let (old_unit, old_credential) =
            tokio::try_join!(devices.current_unit(&device), devices.credential(&username))?;
        let now = app.clock.now();
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
        let issued = issue(app, &device).await?;
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
                    app,
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
                return Ok(RegisteredDevice::new(app, row, issued.shown, prefix));
            }
            Err(ReplaceUnitError::SerialTaken) => {
                discard(app, device.id, &issued).await;
                return Err(
                    Error::conflict("a device with this serial is registered already")
                        .with_field("serial"),
                );
            }
            Err(ReplaceUnitError::Changed) => {
                discard(app, device.id, &issued).await;
                device = devices
                    .get(device.tenant_id, device.id)
                    .await?
                    .filter(|d| d.deleted_at.is_none())
                    .ok_or_else(no_such_device)?;
            }
            Err(ReplaceUnitError::Store(e)) => {
                discard(app, device.id, &issued).await;
                return Err(e.into());
            }
        }
    }
    Err(Error::conflict("the device kept changing; try again"))
}

// ---------------------------------------------------------------------------
// Credential rotation

/// The answer of `POST /v1/devices/{deviceId}/credentials`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RotatedCredentials {
    pub device: Device,
    pub credentials: DeviceCredentials,
    pub topic_prefix: String,
    /// Where and how it connects with the new credential (as at
    /// registration); null where the broker's address is unknown.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub connection: Option<alyt_device::connect::Connection>,
}

/// New broker credentials for device `device_id` of `tenant` when the caller
/// may change the device; the old ones stop working and their session is
/// closed. A virtual device's password is the simulator's (a conflict).
pub async fn rotate_credentials(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    device_id: DeviceId,
) -> Result<RotatedCredentials, Error> {
    let device = writable_device(app, caller, tenant, device_id).await?;
    not_virtual(&device)?;
    replace_credential(app, device, &*app.credentials).await
}

/// Gives the device a credential `issuer` issues (the platform's for a
/// rotation and a virtual device detached from the simulator; the
/// simulator's derived one for a virtual device attached again) and revokes
/// the old one (closing its session), retrying when the device changed
/// meanwhile; a credential issued for an attempt that did not land is
/// discarded.
pub(crate) async fn replace_credential(
    app: &App,
    mut device: DeviceRecord,
    issuer: &dyn DeviceCredentialIssuer,
) -> Result<RotatedCredentials, Error> {
    let devices = Devices(&*app.store);
    for _ in 0..ATTEMPTS {
        let old = devices.credential(&device.id.to_string()).await?;
        let now = app.clock.now();
        let issued = issue_with(issuer, &device).await?;
        let credential = credential_record(&device, &issued, now)?;
        match devices.replace_credential(&device, &credential).await {
            Ok(true) => {
                tracing::info!(device = %device.id, "device credential rotated");
                revoke_at_broker(
                    app,
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
                let prefix = topic_prefix(&device);
                return Ok(RotatedCredentials {
                    connection: alyt_device::connect::connection(
                        &issued.shown,
                        app.device_broker.as_ref(),
                        &prefix,
                    ),
                    topic_prefix: prefix,
                    device: device_row(view, now),
                    credentials: issued.shown,
                });
            }
            Ok(false) => {
                discard(app, device.id, &issued).await;
                device = devices
                    .get(device.tenant_id, device.id)
                    .await?
                    .filter(|d| d.deleted_at.is_none())
                    .ok_or_else(no_such_device)?;
            }
            Err(e) => {
                discard(app, device.id, &issued).await;
                return Err(e.into());
            }
        }
    }
    Err(Error::conflict("the device kept changing; try again"))
}
