//! A home's security configuration: its settings and which things take
//! part. Changed by the household's owners, only while the home is Off with
//! its outputs restored; every change is a new revision the next arming
//! must carry.

use std::collections::BTreeSet;

use alyt_domain::access::{Principal, SecurityAccess};
use alyt_domain::device::DeviceCapability;
use alyt_domain::ids::{DeviceId, PropertyId, TenantId};
use alyt_domain::room::PinnedThing;
use alyt_domain::security::enrolment::Selection;
use alyt_domain::security::{Deterrent, Location, MAX_DELAY_SECONDS};
use alyt_security::Decision;
use alyt_store::repo::devices::Devices;
use alyt_store::repo::security::{Security, SecurityRecord};
use alyt_store::repo::tenancy::{PropertyRecord, Tenancy};
use uuid::Uuid;

use super::access::security_for;
use super::inventory::inventory;
use super::status::{SecurityStatus, status};
use super::{hub, keeper};
use crate::{App, Error};

/// A change of settings: the fields given change, the others stay.
#[derive(Debug, Clone, Default)]
pub struct SettingsChange {
    pub exit_delay_seconds: Option<u32>,
    pub entry_delay_seconds: Option<u32>,
    pub sleeping_rooms: Option<BTreeSet<Uuid>>,
    pub night_light_rooms: Option<BTreeSet<Uuid>>,
    pub speaker_alarm_rooms: Option<BTreeSet<Uuid>>,
    /// `Some(None)`: the platform's own engine again.
    pub hub_device_id: Option<Option<Uuid>>,
    pub deterrent: Option<Deterrent>,
    /// `Some(None)`: forget the location.
    pub location: Option<Option<Location>>,
}

/// Changes a home's settings (its owners): delays within limits, rooms of
/// this home, a hub of this home; the status with the new revision.
pub async fn change(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    property: PropertyId,
    change: SettingsChange,
) -> Result<SecurityStatus, Error> {
    let (home, _, access) =
        security_for(app, caller, tenant, property, SecurityAccess::Configure).await?;
    check(app, &home, &change).await?;
    let written = reconfigure(app, &home, |record| {
        let s = &mut record.settings;
        if let Some(v) = change.exit_delay_seconds {
            s.exit_delay_seconds = v;
        }
        if let Some(v) = change.entry_delay_seconds {
            s.entry_delay_seconds = v;
        }
        if let Some(v) = &change.sleeping_rooms {
            s.sleeping_rooms = v.clone();
        }
        if let Some(v) = &change.night_light_rooms {
            s.night_light_rooms = v.clone();
        }
        if let Some(v) = &change.speaker_alarm_rooms {
            s.speaker_alarm_rooms = v.clone();
        }
        if let Some(v) = change.location {
            s.location = v;
        }
        if let Some(v) = change.hub_device_id {
            s.hub_device_id = v;
        }
        if let Some(v) = change.deterrent {
            s.deterrent = v;
        }
        Ok(())
    })
    .await?;
    let things = inventory(app, &written, home.id).await?;
    Ok(status(&written, &things, access))
}

/// Each field of `change` within its limits (the field named when not).
async fn check(app: &App, home: &PropertyRecord, change: &SettingsChange) -> Result<(), Error> {
    for (field, value) in [
        ("exitDelaySeconds", change.exit_delay_seconds),
        ("entryDelaySeconds", change.entry_delay_seconds),
    ] {
        if value.is_some_and(|v| v > MAX_DELAY_SECONDS) {
            return Err(Error::validation(
                field,
                format!("0 to {MAX_DELAY_SECONDS} seconds"),
            ));
        }
    }
    if let Some(Some(hub)) = change.hub_device_id {
        let device = Devices(&*app.store)
            .get(home.tenant_id, DeviceId(hub))
            .await?
            .filter(|d| d.property_id == Some(home.id) && d.deleted_at.is_none());
        let is_hub = device.is_some_and(|d| {
            d.parent_device_id.is_none() && d.known_capabilities().contains(&DeviceCapability::Hub)
        });
        if !is_hub {
            return Err(Error::validation(
                "hubDeviceId",
                "a hub (a device with the HUB capability) of this home",
            ));
        }
    }
    if let Some(Some(place)) = change.location
        && !place.is_valid()
    {
        return Err(Error::validation(
            "location",
            "latitude -90 to 90, longitude -180 to 180",
        ));
    }
    let rooms: BTreeSet<Uuid> = Tenancy(&*app.store)
        .rooms(home.id)
        .await?
        .iter()
        .map(|r| r.id.0)
        .collect();
    for (field, chosen) in [
        ("sleepingRooms", &change.sleeping_rooms),
        ("nightLightRooms", &change.night_light_rooms),
        ("speakerAlarmRooms", &change.speaker_alarm_rooms),
    ] {
        if let Some(chosen) = chosen
            && let Some(stranger) = chosen.iter().find(|r| !rooms.contains(r))
        {
            return Err(Error::validation(
                field,
                format!("{stranger} is not a room of this home"),
            ));
        }
    }
    Ok(())
}

/// Chooses whether `thing` takes part in security (its owners): `auto`
/// follows the capabilities, `include` and `exclude` are kept choices.
pub async fn select(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    property: PropertyId,
    thing: PinnedThing,
    selection: Selection,
) -> Result<SecurityStatus, Error> {
    let (home, record, access) =
        security_for(app, caller, tenant, property, SecurityAccess::Configure).await?;
    let things = inventory(app, &record, home.id).await?;
    if !things.thing(thing.id).is_some_and(|t| t.kind == thing.kind) {
        return Err(Error::not_found(
            "no such thing of use to home security in this home",
        ));
    }
    let written = reconfigure(app, &home, |record| {
        match selection {
            Selection::Auto => record.selections.remove(&thing.id),
            other => record.selections.insert(thing.id, other),
        };
        Ok(())
    })
    .await?;
    let things = inventory(app, &written, home.id).await?;
    Ok(status(&written, &things, access))
}

/// Configuration changes only while Off with restoration complete.
fn configurable(record: &SecurityRecord) -> Result<(), Error> {
    if record.state.requested.is_armed() || record.state.period.is_some() {
        return Err(Error::conflict_typed(
            "security-refused",
            "the home is armed or arming; turn it off, then change its configuration",
        ));
    }
    if record.state.restoration_pending {
        return Err(Error::conflict_typed(
            "security-refused",
            "outputs changed by the last alarm are not restored yet; wait, then change the configuration",
        ));
    }
    Ok(())
}

/// Rewrites the home's security with `change` (after the checks), a new
/// revision to review.
async fn reconfigure(
    app: &App,
    home: &PropertyRecord,
    change: impl Fn(&mut SecurityRecord) -> Result<(), Error>,
) -> Result<SecurityRecord, Error> {
    let done = keeper(app)
        .rewrite(home, async |mut draft| {
            configurable(&draft.next)?;
            change(&mut draft.next)?;
            draft.next.state.reconfigured();
            Ok::<_, Error>((draft, Decision::write(())))
        })
        .await?;
    if done.record.settings.hub_device_id.is_none() && done.record.hub.is_none() {
        return Ok(done.record);
    }
    // A hub-run home's hub gets the new configuration now (or the timers
    // push it again).
    if let Err(e) = hub::sync(app, home).await {
        tracing::warn!(home = %home.id, error = %e.detail, "a hub configuration could not be sent");
    }
    Ok(Security(&*app.store)
        .get(home.tenant_id, home.id)
        .await?
        .unwrap_or(done.record))
}
