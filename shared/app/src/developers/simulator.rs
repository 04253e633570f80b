//! The simulator's virtual devices in a developer's sandbox and their
//! scenarios. Reading: a key with `simulator:write` bound to the tenant, or
//! any session that reaches it (platform staff: any existing tenant).
//! Creating, setting a scenario and deleting: only the sandbox's ADMIN (the
//! developer's session, or its DEV key with `simulator:write`); a tenant the
//! caller does not reach answers as a missing one, a caller who sees it
//! without being its ADMIN, or a tenant that is not a sandbox, is refused.
//! A virtual device's device row is registered and deleted as any device's
//! ([`crate::devices`]); the store is written first, then the runner is told (a
//! runner that is down catches up from the store when it starts). Each
//! virtual device holds a VIRTUAL_DEVICES place ([`crate::virtual_quota`]).

use std::collections::HashMap;

use alyt_domain::access::{Denied, Principal, Scope, TenantRole};
use alyt_domain::ids::{DeveloperId, DeviceId, PropertyId, RoomId, TenantId};
use alyt_domain::secret::random_bytes;
use alyt_simulator::{
    DerivedPasswordIssuer, Profile, SANDBOX_DEVICES, Scenario, ScenarioSetting, scenario_setting,
};
use alyt_store::repo::developers::DeveloperRecord;
use alyt_store::repo::devices::{DeviceRecord, Devices, device_key};
use alyt_store::repo::simulator::{Simulators, VirtualDeviceRecord, tenant_virtual_devices};
use alyt_store::repo::tenancy::{CreatedHome, Tenancy};
use alyt_store::{Key, MAX_BATCH_GET_KEYS, PageKey};
use time::OffsetDateTime;

use crate::devices::lifecycle::{
    RotatedCredentials, delete_one, remove_virtual_device, replace_credential,
};
use crate::devices::{NewDevice, RegisterOptions, register};
use crate::paging::Paging;
use crate::things::{Device, device_row};
use crate::virtual_quota::{give_back, take_place};
use crate::{App, Error};

/// The longest timed scenario: a day.
pub const MAX_SCENARIO_SECONDS: u32 = 86_400;

/// A virtual device as the simulator answers it: its device row, its
/// profile and its scenario, as set and in effect when it was read.
#[derive(Debug, Clone)]
pub struct Simulated {
    pub device: Device,
    pub profile: Profile,
    pub scenario: ScenarioSetting,
    /// The scenario in effect now (NORMAL once a timed one has ended).
    pub effective: Scenario,
    /// Since when a developer's client speaks for it instead of the
    /// simulator (`None`: the simulator drives it).
    pub detached_at: Option<OffsetDateTime>,
    /// The script run that plays it now.
    pub run_id: Option<uuid::Uuid>,
}

fn simulated(
    device: Device,
    profile: Profile,
    record: &VirtualDeviceRecord,
    now: OffsetDateTime,
) -> Simulated {
    let setting = scenario_setting(record);
    Simulated {
        device,
        profile,
        scenario: setting,
        effective: setting.at(now),
        detached_at: record.detached_at,
        run_id: record.run_id,
    }
}

/// The virtual devices of `records` whose device row is live, in their order.
async fn views(app: &App, records: Vec<VirtualDeviceRecord>) -> Result<Vec<Simulated>, Error> {
    let devices = Devices(&*app.store);
    let mut rows = Vec::with_capacity(records.len());
    // The device rows: one batch get per hundred.
    let keys: Vec<Key> = records
        .iter()
        .map(|r| device_key(r.tenant_id, r.device_id))
        .collect();
    let mut by_id = HashMap::new();
    for chunk in keys.chunks(MAX_BATCH_GET_KEYS) {
        for item in app.store.batch_get(chunk).await? {
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
    let now = app.clock.now();
    let device_views = devices
        .views(found.iter().map(|(_, row)| row.clone()).collect())
        .await?;
    for ((record, _), view) in found.into_iter().zip(device_views) {
        let Ok(profile) = record.profile.parse::<Profile>() else {
            continue;
        };
        rows.push(simulated(device_row(view, now), profile, record, now));
    }
    Ok(rows)
}

// ---------------------------------------------------------------------------
// Who may

fn no_such_tenant() -> Error {
    Error::not_found("no such tenant")
}

fn no_such_device() -> Error {
    Error::not_found("no such virtual device")
}

/// The scope, and no LIVE key: virtual devices are devices, which a LIVE
/// key never reaches.
fn scope(caller: &Principal, tenant: TenantId) -> Result<(), Error> {
    caller
        .require_scope(Scope::SimulatorWrite)
        .map_err(|denied| Error::forbidden(denied.to_string()))?;
    if caller.acts_for_connector(tenant).is_some() {
        return Err(Denied::ConnectorOnly.into());
    }
    Ok(())
}

/// Reading: a key with `simulator:write` bound to the tenant, or a session
/// that reaches it (staff reach every existing tenant).
pub(crate) async fn may_read(app: &App, caller: &Principal, tenant: TenantId) -> Result<(), Error> {
    scope(caller, tenant)?;
    if caller.reaches_tenant(tenant) {
        return Ok(());
    }
    if caller.platform_role().is_some() && Tenancy(&*app.store).tenant(tenant).await?.is_some() {
        return Ok(());
    }
    Err(no_such_tenant())
}

/// Changing: the sandbox's ADMIN only. Returns the sandbox's developer.
pub(crate) async fn may_write(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
) -> Result<DeveloperId, Error> {
    scope(caller, tenant)?;
    let reaches = caller.reaches_tenant(tenant) || caller.platform_role().is_some();
    if !reaches {
        return Err(no_such_tenant());
    }
    let record = Tenancy(&*app.store)
        .tenant(tenant)
        .await?
        .ok_or_else(no_such_tenant)?;
    if caller.tenant_role(tenant) != Some(TenantRole::Admin) {
        return Err(Error::forbidden(
            "only the sandbox's ADMIN (its developer) manages virtual devices",
        ));
    }
    match record.developer_id {
        Some(developer) if record.sandbox && record.code.starts_with('X') => Ok(developer),
        _ => Err(Error::forbidden(
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
async fn create(app: &App, new: NewVirtual) -> Result<Simulated, Error> {
    take_place(app, new.developer, new.tenant).await?;
    let made = register_and_record(app, &new).await;
    let (row, record) = match made {
        Ok(made) => made,
        Err(e) => {
            give_back(app, new.developer).await;
            return Err(e);
        }
    };
    if let Err(e) = app.simulator.start(&record).await {
        tracing::warn!(device = %record.device_id, error = %e, "the simulator runner was not told; it starts the device from the store");
    }
    let now = app.clock.now();
    Ok(simulated(row, new.profile, &record, now))
}

/// A virtual device's burned-in serial: `SIM-<model>-` and 16 random hex
/// digits.
fn virtual_serial(profile: Profile) -> String {
    let random: String = random_bytes::<8>()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("SIM-{}-{random}", profile.model())
}

async fn register_and_record(
    app: &App,
    new: &NewVirtual,
) -> Result<(Device, VirtualDeviceRecord), Error> {
    let key = Simulators(&*app.store).key().await?;
    let issuer = DerivedPasswordIssuer::new(key);
    let registered = register(
        app,
        NewDevice {
            tenant_id: new.tenant,
            property_id: new.property,
            room_id: new.room,
            name: new.name.clone(),
            kind: new.profile.kind(),
            capabilities: new.profile.capabilities().to_vec(),
            serial: virtual_serial(new.profile),
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
            heartbeat_window_seconds: app.simulator.heartbeat_window_seconds(),
        },
    )
    .await?;
    let device = registered.device;
    let now = app.clock.now();
    let device_id = device.id;
    let record = VirtualDeviceRecord {
        device_id,
        tenant_id: new.tenant,
        property_id: new.property,
        developer_id: new.developer,
        profile: new.profile.as_str().to_owned(),
        scenario: Scenario::Normal.as_str().to_owned(),
        scenario_until: None,
        seed: app.simulator.seed(device_id).to_string(),
        detached_at: None,
        run_id: None,
        created_at: now,
        updated_at: now,
    };
    if let Err(e) = Simulators(&*app.store).create(&record).await {
        // Without its record the device would never run: take it back.
        tracing::warn!(device = %device_id, error = %e, "virtual device record not written; deleting the device");
        if let Some(row) = Devices(&*app.store).get(new.tenant, device_id).await? {
            delete_one(app, row).await?;
        }
        return Err(e.into());
    }
    Ok((device, record))
}

/// The five devices of a fresh sandbox, in the rooms of the home
/// the verification just created. Failures are logged, never returned:
/// verification succeeds whatever happens here, and a device whose record is
/// stored comes up whenever the runner (re)starts.
pub async fn provision_sandbox(app: &App, developer: &DeveloperRecord, home: &CreatedHome) {
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
            app,
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
    app: &App,
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
        if let Err(e) = create(app, new).await {
            tracing::warn!(%tenant, %profile, error = %e.detail, "a demo device was not provisioned");
        }
    }
}

// ---------------------------------------------------------------------------
// Operations

/// One page of the sandbox's virtual devices, oldest first: the page size,
/// then the cursor within the tenant's list, then the caller's access.
pub async fn virtual_devices_page(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    paging: &Paging,
) -> Result<(Vec<Simulated>, Option<PageKey>), Error> {
    let limit = paging.limit()?;
    let after = paging.after_within(&tenant_virtual_devices(tenant))?;
    may_read(app, caller, tenant).await?;
    let (records, next) = Simulators(&*app.store)
        .list_by_tenant(tenant, limit, after)
        .await?;
    Ok((views(app, records).await?, next))
}

/// A virtual device as its creator asks for one.
#[derive(Debug, Clone)]
pub struct NewVirtualDevice {
    /// The developer's sandbox tenant.
    pub tenant: TenantId,
    /// A home of the sandbox.
    pub property: PropertyId,
    /// A room of that home.
    pub room: Option<RoomId>,
    pub profile: Profile,
    /// Default: the profile's name.
    pub name: Option<String>,
}

/// Creates a virtual device in the sandbox (its ADMIN only): registered like
/// any device, then run by the simulator. The property must be a home of
/// the sandbox, checked before a VIRTUAL_DEVICES place is taken.
pub async fn create_virtual_device(
    app: &App,
    caller: &Principal,
    new: NewVirtualDevice,
) -> Result<Simulated, Error> {
    let developer = may_write(app, caller, new.tenant).await?;
    let name = match new.name {
        Some(name) => name,
        None => new.profile.default_name().to_owned(),
    };
    // The property must be a home of this sandbox (missing otherwise, as for
    // any registration).
    if Tenancy(&*app.store)
        .property(new.tenant, new.property)
        .await?
        .is_none()
    {
        return Err(Error::not_found("no such property in this tenant"));
    }
    create(
        app,
        NewVirtual {
            tenant: new.tenant,
            developer,
            property: new.property,
            room: new.room,
            profile: new.profile,
            name,
        },
    )
    .await
}

/// Sets a virtual device's scenario (the sandbox's ADMIN only), for
/// `seconds` (1 to [`MAX_SCENARIO_SECONDS`], checked first) or until
/// changed. It is stored, so it survives restarts, and the runner is told; a
/// runner that is not told reads it from the store.
pub async fn set_scenario(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    device_id: DeviceId,
    scenario: Scenario,
    seconds: Option<u32>,
) -> Result<Simulated, Error> {
    if seconds.is_some_and(|s| s == 0 || s > MAX_SCENARIO_SECONDS) {
        return Err(Error::validation(
            "seconds",
            format!("seconds must be 1 to {MAX_SCENARIO_SECONDS}"),
        ));
    }
    may_write(app, caller, tenant).await?;
    let now = app.clock.now();
    let setting = match seconds {
        Some(seconds) => ScenarioSetting::for_seconds(scenario, seconds, now),
        None => ScenarioSetting::permanent(scenario),
    };
    let record = Simulators(&*app.store)
        .set_scenario(
            tenant,
            device_id,
            setting.scenario.as_str(),
            setting.until,
            now,
        )
        .await?
        .ok_or_else(no_such_device)?;
    // A detached device's scenario waits for the attach (which starts it
    // as stored), a device in a script run's for the run's end.
    if record.detached_at.is_none()
        && record.run_id.is_none()
        && let Err(e) = app.simulator.set_scenario(&record).await
    {
        tracing::warn!(device = %device_id, error = %e, "the simulator runner was not told; it reads the scenario from the store");
    }
    views(app, vec![record])
        .await?
        .pop()
        .ok_or_else(no_such_device)
}

/// Detaches a virtual device from the simulator (the sandbox's ADMIN only),
/// so a client of the developer's speaks for it: the runner lets go of its
/// session (a clean DISCONNECT, no last will), and the device gets a
/// credential of the platform's kind in place of the simulator's derived
/// password, which no longer logs in (so a runner that has not heard yet
/// cannot take the session back). The answer carries the credential, once,
/// and how to connect. Detaching a detached device is a conflict.
pub async fn detach_virtual_device(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    device_id: DeviceId,
) -> Result<(Simulated, RotatedCredentials), Error> {
    may_write(app, caller, tenant).await?;
    let now = app.clock.now();
    let simulators = Simulators(&*app.store);
    let Some(record) = simulators
        .set_detached(tenant, device_id, Some(now), now)
        .await?
    else {
        let current = simulators
            .get(tenant, device_id)
            .await?
            .ok_or_else(no_such_device)?;
        if let Some(run) = current.run_id {
            return Err(in_run(run));
        }
        return Err(Error::conflict(
            "the virtual device is detached already; attach it to give it back to the simulator",
        ));
    };
    if let Err(e) = app.simulator.stop(device_id).await {
        tracing::warn!(device = %device_id, error = %e, "the simulator runner was not told; it lets go when it reads the store");
    }
    let row = live_row(app, tenant, device_id).await?;
    let credentials = replace_credential(app, row, &*app.credentials).await?;
    tracing::info!(device = %device_id, "virtual device detached from the simulator");
    let view = views(app, vec![record])
        .await?
        .pop()
        .ok_or_else(no_such_device)?;
    Ok((view, credentials))
}

/// Gives a detached virtual device back to the simulator (the sandbox's
/// ADMIN only): the developer's credential is revoked and its connection
/// closed, the simulator's derived password logs in again, and the runner
/// drives the device as stored (profile, scenario, seed). Attaching a
/// device that is not detached is a conflict.
pub async fn attach_virtual_device(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    device_id: DeviceId,
) -> Result<Simulated, Error> {
    may_write(app, caller, tenant).await?;
    let simulators = Simulators(&*app.store);
    let current = simulators
        .get(tenant, device_id)
        .await?
        .ok_or_else(no_such_device)?;
    if current.detached_at.is_none() {
        return Err(Error::conflict(
            "the virtual device is attached to the simulator already",
        ));
    }
    // The simulator's password first, so the device is never left with the
    // developer's credential once it is attached.
    let row = live_row(app, tenant, device_id).await?;
    let issuer = DerivedPasswordIssuer::new(simulators.key().await?);
    replace_credential(app, row, &issuer).await?;
    let now = app.clock.now();
    let record = simulators
        .set_detached(tenant, device_id, None, now)
        .await?
        .ok_or_else(|| Error::conflict("the virtual device was attached meanwhile"))?;
    if let Err(e) = app.simulator.start(&record).await {
        tracing::warn!(device = %device_id, error = %e, "the simulator runner was not told; it starts the device when it reads the store");
    }
    tracing::info!(device = %device_id, "virtual device attached to the simulator");
    views(app, vec![record])
        .await?
        .pop()
        .ok_or_else(no_such_device)
}

/// The device row of a virtual device, unless it was deleted.
async fn live_row(app: &App, tenant: TenantId, device_id: DeviceId) -> Result<DeviceRecord, Error> {
    Devices(&*app.store)
        .get(tenant, device_id)
        .await?
        .filter(|d| d.deleted_at.is_none())
        .ok_or_else(no_such_device)
}

/// Deletes a virtual device (the sandbox's ADMIN only): the runner stops it,
/// the device is deleted as any device is, and its VIRTUAL_DEVICES place is
/// given back.
pub async fn delete_virtual_device(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    device_id: DeviceId,
) -> Result<(), Error> {
    may_write(app, caller, tenant).await?;
    let record = Simulators(&*app.store)
        .get(tenant, device_id)
        .await?
        .ok_or_else(no_such_device)?;
    if let Some(run) = record.run_id {
        return Err(in_run(run));
    }
    remove_virtual_device(app, tenant, device_id).await
}

/// A device a script run holds stays with the run until it ends.
pub(crate) fn in_run(run: uuid::Uuid) -> Error {
    Error::conflict(format!(
        "the virtual device plays in script run {run}; stop the run first"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn virtual_serials_name_the_model_and_sixteen_hex_digits() {
        let serial = virtual_serial(Profile::Light);
        let random = serial
            .strip_prefix(&format!("SIM-{}-", Profile::Light.model()))
            .unwrap();
        assert_eq!(random.len(), 16);
        assert!(
            random
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        );
        assert_ne!(serial, virtual_serial(Profile::Light));
    }
}
