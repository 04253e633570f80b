//! Device commands: checked against the device's own descriptors and
//! features, written `sent` and published on its commands channel at once;
//! when the publish fails (the device is not connected, or the runtime
//! cannot publish) the row goes back to `pending` and the bridge sweep
//! retries it. The stored device state never changes here: it changes when
//! the device reports back. A device's command history is read by whoever
//! may read the device (a key needs `devices:read`).

use alyt_device::bridge::send_new;
use alyt_domain::access::{PlatformRole, Principal, Scope};
use alyt_domain::device::{CommandError, CommandRequest, CommandRow};
use alyt_domain::ids::{DeviceId, TenantId};
use alyt_store::PageKey;
use alyt_store::repo::commands::{Commands, StoredCommand, command_list};
use alyt_store::repo::devices::DeviceRecord;

use crate::access::{device_for, siren_command};
use crate::paging::Paging;
use crate::{App, Error};

/// A command from `caller` to a device it reaches with `devices:commands`
/// (platform SUPPORT only looks; a siren only from someone who controls the
/// home's security): the row as written.
pub async fn send(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    device_id: DeviceId,
    request: CommandRequest,
) -> Result<CommandRow, Error> {
    let device = device_for(app, caller, tenant, device_id, Scope::DevicesCommands).await?;
    if caller.platform_role() == Some(PlatformRole::Support) {
        return Err(Error::forbidden("platform SUPPORT cannot command devices"));
    }
    if let Some(property) = device.property_id
        && alyt_domain::security::enrolment::is_siren(
            &device.known_capabilities(),
            &device.features,
        )
    {
        siren_command(app, caller, tenant, property).await?;
    }
    accept_and_publish(app, tenant, &device, request).await
}

/// A refused command as the field it names.
pub fn invalid(e: CommandError) -> Error {
    Error::validation(e.field.clone(), e.to_string())
}

/// The path of every device command (a request, room and property actions,
/// routine steps, an alarm's outputs): checks `request` against the device's
/// descriptors and features, writes the row and publishes it at once, and
/// answers the row (`sent`, or `pending` when the publish failed and the
/// bridge sweep will retry). The caller has authorized the device.
pub async fn accept_and_publish(
    app: &App,
    tenant: TenantId,
    device: &DeviceRecord,
    request: CommandRequest,
) -> Result<CommandRow, Error> {
    let accepted = request
        .validate_for_device(device.known_capabilities(), Some(&device.features))
        .map_err(invalid)?;
    let delivery = send_new(
        &*app.store,
        &*app.publisher,
        &*app.clock,
        tenant,
        device.id,
        device.property_id,
        accepted,
    )
    .await?;
    if let Err(e) = &delivery.published {
        tracing::debug!(device = %device.id, command = %delivery.row.command_id, error = %e, "command stays pending");
    }
    Ok(delivery.row)
}

/// One page of the command history of device `device_id` of `tenant`,
/// newest first, when the caller may read the device.
pub async fn history_page(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    device_id: DeviceId,
    paging: &Paging,
) -> Result<(Vec<StoredCommand>, Option<PageKey>), Error> {
    let limit = paging.limit()?;
    let device = device_for(app, caller, tenant, device_id, Scope::DevicesRead).await?;
    let after = paging.after_within(&command_list(device.id))?;
    Ok(Commands(&*app.store)
        .history(device.id, limit, after)
        .await?)
}
