//! A device's settings per capability: a patch merged into what it holds,
//! written only if the device is as read. Who: platform OWNER and STAFF,
//! tenant ADMIN and INSTALLER, keys with `devices:write` reaching the
//! tenant, and the OWNER of the household whose home holds the device;
//! whoever else sees the device is refused, and a missing or foreign device
//! is not found.

use std::collections::BTreeSet;

use alyt_domain::access::{Denied, HomeReach, PlatformRole, Principal, Scope};
use alyt_domain::device::DeviceCapability;
use alyt_domain::ids::{DeviceId, TenantId};
use alyt_store::repo::devices::{DeviceRecord, DeviceSettingsRecord, Devices};
use alyt_store::repo::tenancy::Tenancy;
use serde_json::{Map, Value};
use time::OffsetDateTime;

use crate::access::{HomeAccess, access_to, no_such_device};
use crate::things::{Device, device_row};
use crate::{App, Error};

/// A change of a device's settings.
#[derive(Debug, Clone)]
pub struct SettingsPatch {
    /// Keyed by lower-cased capability of the device; each value an object
    /// merged into that capability's settings (a `null` member removes that
    /// setting). Capabilities not named keep their settings.
    pub by_capability: Map<String, Value>,
    /// Whether the settings apply (default true when first set).
    pub enabled: Option<bool>,
}

/// Merges `patch` into the settings of device `device_id` of `tenant` when
/// the caller may change them; answers the device row.
pub async fn change_settings(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    device_id: DeviceId,
    patch: SettingsPatch,
) -> Result<Device, Error> {
    let device = settings_target(app, caller, tenant, device_id).await?;
    write_settings(app, device, patch).await
}

/// The device whose settings the caller may change. Writers: platform OWNER
/// and STAFF, tenant ADMIN and INSTALLER, keys with `devices:write` reaching
/// the tenant, and the OWNER of the household whose home holds the device
/// (configuration). Callers who see the device otherwise (SUPPORT, household
/// MEMBER/GUEST) are refused; a missing or foreign device is not found, as
/// when it is read.
async fn settings_target(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    device_id: DeviceId,
) -> Result<DeviceRecord, Error> {
    caller.require_scope(Scope::DevicesWrite)?;
    if caller.acts_for_connector(tenant).is_some() {
        return Err(Denied::ConnectorOnly.into());
    }
    let found = Devices(&*app.store)
        .get(tenant, device_id)
        .await?
        .filter(|d| d.deleted_at.is_none());
    if caller.platform_role() == Some(PlatformRole::Support) {
        found.ok_or_else(no_such_device)?;
        return Err(Error::forbidden(
            "platform SUPPORT cannot change device settings",
        ));
    }
    // Staff, the tenant's roles and a DEV key in its sandbox configure every
    // device of the tenant, in a home or not.
    if caller.home_reach(tenant) == HomeReach::Everything {
        return found.ok_or_else(no_such_device);
    }
    let device = found.ok_or_else(no_such_device)?;
    let home = match device.property_id {
        Some(property) => Tenancy(&*app.store).property(tenant, property).await?,
        None => None,
    };
    let Some(home) = home else {
        return Err(no_such_device());
    };
    match access_to(caller, &home) {
        Some(HomeAccess::Configure) => Ok(device),
        Some(_) => Err(Error::forbidden(
            "changing device settings needs the household's OWNER role",
        )),
        None => Err(no_such_device()),
    }
}

/// `settings` after `patch` (checked against the device's capabilities).
fn patched_settings(
    device: &DeviceRecord,
    patch: SettingsPatch,
    now: OffsetDateTime,
) -> Result<DeviceSettingsRecord, Error> {
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
            return Err(Error::validation(
                field,
                format!(
                    "the device does not report the capability {name:?} (keys are its lower-cased capabilities)"
                ),
            ));
        }
        let Value::Object(members) = value else {
            return Err(Error::validation(
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

/// Merges the patch into the device's settings and answers its row.
async fn write_settings(
    app: &App,
    mut device: DeviceRecord,
    patch: SettingsPatch,
) -> Result<Device, Error> {
    let devices = Devices(&*app.store);
    // Optimistic: written only if the device is as read (a report or another
    // patch in between makes it read again).
    for _ in 0..4 {
        let now = app.clock.now();
        let mut updated = device.clone();
        updated.settings = Some(patched_settings(&device, patch.clone(), now)?);
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
    Err(Error::conflict("the device kept changing; try again"))
}
