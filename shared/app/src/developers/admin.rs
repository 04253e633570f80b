//! The platform staff's operations on developers: who may (platform OWNER
//! and STAFF change, SUPPORT reads too), and a developer's quota override.

use alyt_domain::access::{Denied, PlatformRole, Principal};
use alyt_domain::ids::DeveloperId;
use alyt_domain::quota::{QuotaKind, QuotaSource, QuotaValue};
use alyt_store::repo::developers::Developers;
use alyt_store::repo::usage::{EffectiveQuota, Quotas};

use crate::quota::forget_cached;
use crate::{App, Error};

/// Platform roles that may read the admin views.
pub const READERS: [PlatformRole; 3] = [
    PlatformRole::Owner,
    PlatformRole::Staff,
    PlatformRole::Support,
];
/// Platform roles that may change quotas, verify developers and review.
pub const WRITERS: [PlatformRole; 2] = [PlatformRole::Owner, PlatformRole::Staff];

/// The caller must be platform staff with one of `roles`; anyone else gets
/// exactly the answer of a path with no operation.
pub fn staff(caller: &Principal, roles: &[PlatformRole]) -> Result<PlatformRole, Error> {
    caller
        .require_platform(roles)
        .map_err(|denied| match denied {
            Denied::Role => Error::forbidden(format!(
                "your platform role does not allow this; it needs {}",
                roles
                    .iter()
                    .map(|r| format!("{r:?}").to_uppercase())
                    .collect::<Vec<_>>()
                    .join(" or ")
            )),
            // Exactly the answer of a path with no operation.
            _ => Error::not_found("no operation at this path"),
        })
}

fn no_such_developer() -> Error {
    Error::not_found("no such developer")
}

/// A developer id from a path (a malformed one answers as a missing
/// developer).
pub fn developer_id(text: &str) -> Result<DeveloperId, Error> {
    text.parse().map_err(|_| no_such_developer())
}

/// Sets the developer's override of one quota (platform OWNER or STAFF):
/// the value checked for its kind, then the developer found; the cached
/// quotas of this process are dropped. The quota now in effect.
pub async fn put_developer_quota(
    app: &App,
    caller: &Principal,
    developer: &str,
    kind: QuotaKind,
    value: QuotaValue,
) -> Result<EffectiveQuota, Error> {
    staff(caller, &WRITERS)?;
    value
        .validate(kind)
        .map_err(|e| Error::validation(e.field, e.message))?;
    let id = developer_id(developer)?;
    Developers(&*app.store)
        .get(id)
        .await?
        .ok_or_else(no_such_developer)?;
    Quotas(&*app.store)
        .set_override(id, kind, value, caller.user_id(), app.clock.now())
        .await?;
    forget_cached(app, id);
    Ok(EffectiveQuota {
        kind,
        value,
        source: QuotaSource::Override,
    })
}
