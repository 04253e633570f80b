//! A sandbox's VIRTUAL_DEVICES count (default 20): a standing count moved
//! with a conditional update before a virtual device is registered (never
//! past the ceiling under concurrency), and given back when the registration
//! fails or the device is deleted (through the simulator's DELETE or the
//! device DELETE); past it the answer is a full quota naming
//! `VIRTUAL_DEVICES`.

use alyt_domain::ids::{DeveloperId, TenantId};
use alyt_domain::quota::QuotaKind;
use alyt_store::repo::devices::Devices;
use alyt_store::repo::simulator::Simulators;
use alyt_store::repo::usage::{Counted, Counter, Quotas, Usage};

use crate::{App, Error};

fn standing(developer: DeveloperId) -> Counter {
    Counter::Standing {
        developer,
        kind: QuotaKind::VirtualDevices,
    }
}

/// Takes one VIRTUAL_DEVICES place (conditional: never past the ceiling).
/// When refused, orphans (records of devices deleted through the device
/// DELETE) are dropped and the count set to what exists, then it is tried
/// once more.
pub async fn take_place(app: &App, developer: DeveloperId, tenant: TenantId) -> Result<(), Error> {
    let ceiling = Quotas(&*app.store)
        .effective(developer)
        .await?
        .get(QuotaKind::VirtualDevices)
        .value
        .ceiling;
    let usage = Usage(&*app.store);
    for attempt in 0..2 {
        match usage
            .add_within(&standing(developer), 1, ceiling, None)
            .await?
        {
            Counted::Counted(_) => return Ok(()),
            Counted::Refused(_) if attempt == 0 => {
                let live = recount(app, developer, tenant).await?;
                if live >= ceiling {
                    break;
                }
            }
            Counted::Refused(_) => {}
        }
    }
    Err(Error::quota_full(
        "VIRTUAL_DEVICES",
        format!(
            "the sandbox holds its ceiling of {ceiling} virtual devices (VIRTUAL_DEVICES); delete one first"
        ),
    ))
}

pub async fn give_back(app: &App, developer: DeveloperId) {
    if let Err(e) = Usage(&*app.store).add(&standing(developer), -1, None).await {
        tracing::warn!(%developer, error = %e, "a VIRTUAL_DEVICES place could not be given back");
    }
}

/// Drops records whose device is gone and sets the standing count to the
/// virtual devices that exist.
async fn recount(app: &App, developer: DeveloperId, tenant: TenantId) -> Result<u64, Error> {
    let sims = Simulators(&*app.store);
    let devices = Devices(&*app.store);
    let mut live = 0u64;
    let mut after = None;
    loop {
        let (records, next) = sims.list_by_tenant(tenant, 100, after).await?;
        for record in records {
            let row = devices.get(tenant, record.device_id).await?;
            if row.is_some_and(|d| d.deleted_at.is_none()) {
                live += 1;
            } else {
                sims.delete(tenant, record.device_id).await?;
            }
        }
        match next {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    Usage(&*app.store)
        .set_count(developer, QuotaKind::VirtualDevices, live)
        .await?;
    Ok(live)
}
