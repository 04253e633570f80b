//! Devices: registering one with its broker credentials, reading the device
//! rows, changing a device's settings, its lifecycle (a new board, new
//! credentials, deletion) and what it reported over time. Who: registering
//! and the lifecycle need the tenant's ADMIN or INSTALLER role, platform
//! OWNER or STAFF, or a key with `devices:write` reaching the tenant;
//! reading needs sight of the device (staff, tenant roles and keys with
//! `devices:read` see every device of the tenant, household people those of
//! their homes, a guest only its pinned home's); settings are changed by the
//! registering roles and the OWNER of the household whose home holds the
//! device. A foreign device answers exactly like a missing one.

pub mod history;
pub mod lifecycle;
pub mod register;
pub mod rows;
pub mod settings;

use std::collections::BTreeSet;

use alyt_domain::access::{Denied, PlatformRole, Principal, Scope};
use alyt_domain::ids::{ClientId, DeviceId, PropertyId, TenantId};
use alyt_store::repo::devices::{DeviceRecord, Devices, home_devices, tenant_devices};
use alyt_store::repo::tenancy::Tenancy;
use alyt_store::{PageKey, Store};

use crate::access::{Reach, device_for, no_such_device, tenant_reach};
use crate::paging::Paging;
use crate::things::{Device, device_row};
use crate::{App, Error};
use rows::DeviceRowJson;

pub use register::{NewDevice, RegisterOptions, RegisteredDevice, register, register_device};

pub fn no_such_tenant() -> Error {
    Error::not_found("no such tenant")
}

// ---------------------------------------------------------------------------
// Who may do what

/// Whether the caller may register devices in `tenant`: forbidden for a
/// caller who sees the tenant without a role that registers, not found for
/// one who does not see it (a missing tenant included).
pub async fn may_register(app: &App, caller: &Principal, tenant: TenantId) -> Result<(), Error> {
    caller.require_scope(Scope::DevicesWrite)?;
    match caller.platform_role() {
        Some(PlatformRole::Owner | PlatformRole::Staff) => return Ok(()),
        Some(PlatformRole::Support) => {
            // SUPPORT sees every tenant but registers nothing; a tenant that
            // does not exist is still not found.
            return match Tenancy(&*app.store).tenant(tenant).await? {
                Some(_) => Err(Error::forbidden("platform SUPPORT cannot register devices")),
                None => Err(no_such_tenant()),
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
        return Err(Error::forbidden(
            "registering a device needs the tenant's ADMIN or INSTALLER role",
        ));
    }
    Err(no_such_tenant())
}

/// The homes a household reader sees in `tenant`: its pinned homes plus the
/// homes of its households (one index query per household; tenancy's gsi1
/// `CLIENT#{c}` / `PROPERTY#{p}`).
async fn household_homes(
    store: &dyn Store,
    tenant: TenantId,
    households: &BTreeSet<ClientId>,
    pinned: &BTreeSet<PropertyId>,
) -> Result<BTreeSet<PropertyId>, Error> {
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
// Read

/// One page of the device rows of `tenant` (or of one of its homes) the
/// caller sees, in registration order: every device for staff, tenant roles
/// and keys; the devices of their homes for household people (a home they
/// do not see reads as empty).
pub async fn devices_page(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    property: Option<PropertyId>,
    paging: &Paging,
) -> Result<(Vec<DeviceRowJson>, Option<PageKey>), Error> {
    let limit = paging.limit()?;
    caller.require_scope(Scope::DevicesRead)?;
    let reach = tenant_reach(caller, tenant, no_such_tenant)?;
    let store = &*app.store;
    let devices = Devices(store);

    let (records, next) = match reach {
        Reach::Everything => {
            // Only staff may name a tenant that does not exist; everyone else
            // reaches it through claims or a key.
            let tenant_check = async {
                if caller.platform_role().is_some() {
                    Ok::<_, Error>(Tenancy(store).tenant(tenant).await?.is_some())
                } else {
                    Ok(true)
                }
            };
            let listing = list_page(&devices, tenant, property, limit, paging);
            let (exists, listed) = tokio::try_join!(tenant_check, listing)?;
            if !exists {
                return Err(no_such_tenant());
            }
            listed
        }
        Reach::Homes { households, pinned } => {
            let homes = household_homes(store, tenant, &households, &pinned).await?;
            match property {
                Some(p) if !homes.contains(&p) => (Vec::new(), None),
                Some(p) => list_page(&devices, tenant, Some(p), limit, paging).await?,
                None if homes.len() == 1 => {
                    let only = homes.iter().next().copied();
                    list_page(&devices, tenant, only, limit, paging).await?
                }
                None if homes.is_empty() => (Vec::new(), None),
                None => {
                    let (all, next) = list_page(&devices, tenant, None, limit, paging).await?;
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
    let now = app.clock.now();
    let rows = devices
        .views(visible)
        .await?
        .into_iter()
        .map(|view| app.device_rows.row(view, now))
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
    paging: &Paging,
) -> Result<(Vec<DeviceRecord>, Option<PageKey>), Error> {
    Ok(match property {
        Some(property) => {
            let after = paging.after_within(&home_devices(property))?;
            devices.list_by_property(property, limit, after).await?
        }
        None => {
            let after = paging.after_within(&tenant_devices(tenant))?;
            devices.list_by_tenant(tenant, limit, after).await?
        }
    })
}

/// The row of device `device_id` of `tenant`, when the caller may read it.
pub async fn device(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    device_id: DeviceId,
) -> Result<Device, Error> {
    let device = device_for(app, caller, tenant, device_id, Scope::DevicesRead).await?;
    let now = app.clock.now();
    let view = Devices(&*app.store)
        .views(vec![device])
        .await?
        .pop()
        .ok_or_else(no_such_device)?;
    Ok(device_row(view, now))
}
