//! A home's dashboard: the pins its household sees first (things, rooms,
//! routines), at most [`DASHBOARD_PINS_MAX`], set by those who configure
//! the home; any member reads them.

use alyt_domain::access::{HomeAccess, Principal};
use alyt_domain::ids::{PropertyId, RoutineId, TenantId};
use alyt_domain::room::{self, DASHBOARD_PINS_MAX, Pin};
use alyt_store::repo::rooms::{DashboardRecord, Rooms};
use alyt_store::repo::routines::Routines;

use crate::access::home_for;
use crate::{App, Error};

/// The home's pins (none until some are saved), when the caller sees it;
/// the home's id.
pub async fn get(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    property: PropertyId,
) -> Result<(PropertyId, Vec<Pin>), Error> {
    let home = home_for(app, caller, tenant, property, HomeAccess::See).await?;
    let stored = Rooms(&*app.store).dashboard(home.id).await?;
    let pins = stored.map(|d| room::read_pins(&d.pins)).unwrap_or_default();
    Ok((home.id, pins))
}

/// Replaces the home's pins (a routine pin names a routine of this home);
/// the home's id.
pub async fn put(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    property: PropertyId,
    pins: &[Pin],
) -> Result<PropertyId, Error> {
    if pins.len() > DASHBOARD_PINS_MAX {
        return Err(Error::validation(
            "pins",
            format!(
                "a dashboard holds at most {DASHBOARD_PINS_MAX} pins, not {}",
                pins.len()
            ),
        ));
    }
    let home = home_for(app, caller, tenant, property, HomeAccess::Configure).await?;
    for (i, pin) in pins.iter().enumerate() {
        if let Pin::Routine { routine_id } = pin {
            let found = Routines(&*app.store)
                .get(home.tenant_id, RoutineId(*routine_id))
                .await?
                .is_some_and(|r| r.property_id == home.id);
            if !found {
                return Err(Error::validation(
                    format!("pins[{i}].routineId"),
                    "no such routine in this home",
                ));
            }
        }
    }
    let pins = pins
        .iter()
        .map(serde_json::to_value)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| Error::validation("pins", e.to_string()))?;
    Rooms(&*app.store)
        .put_dashboard(&DashboardRecord {
            property_id: home.id,
            tenant_id: home.tenant_id,
            pins,
            updated_at: app.clock.now(),
        })
        .await?;
    Ok(home.id)
}
