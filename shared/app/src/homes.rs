//! A tenant's homes as a caller reads them, and where a home's event stream
//! starts for its listener.
//!
//! Who: staff read every tenant; the tenant's roles and keys bound to it see
//! all of its homes; household people see their own homes (a guest only the
//! pinned one). Anything else is the same not found as a tenant that does
//! not exist. A home's stream is for anyone who sees the home, and never
//! reaches back before that person's access to it began.

use alyt_domain::access::{HomeAccess, Principal, Scope};
use alyt_domain::ids::{EventId, PropertyId, TenantId};
use alyt_store::PageKey;
use alyt_store::repo::members::Members;
use alyt_store::repo::tenancy::{PropertyRecord, Tenancy, tenant_properties};
use time::OffsetDateTime;

use crate::access::{Reach, home_for, tenant_reach};
use crate::paging::Paging;
use crate::{App, Error};

fn no_such_tenant() -> Error {
    Error::not_found("no such tenant")
}

/// One page of the homes of `tenant` the caller sees, oldest first.
pub async fn properties_page(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    paging: &Paging,
) -> Result<(Vec<PropertyRecord>, Option<PageKey>), Error> {
    let limit = paging.limit()?;
    let (limit, after) = (limit, paging.after_within(&tenant_properties(tenant))?);
    caller.require_scope(Scope::TenantRead)?;
    let reach = tenant_reach(caller, tenant, no_such_tenant)?;
    let tenancy = Tenancy(&*app.store);
    if tenancy.tenant(tenant).await?.is_none() {
        return Err(no_such_tenant());
    }
    let (items, next) = match &reach {
        // A guest of exactly one home reads just that home.
        Reach::Homes { households, pinned } if households.is_empty() && pinned.len() == 1 => {
            let only = pinned.iter().copied().next();
            let one = match only {
                Some(id) => tenancy.property(tenant, id).await?,
                None => None,
            };
            (one.into_iter().collect(), None)
        }
        Reach::Everything => tenancy.properties(tenant, limit, after).await?,
        Reach::Homes { .. } => {
            let (all, next) = tenancy.properties(tenant, limit, after).await?;
            let mine = all
                .into_iter()
                .filter(|p| reach.covers(p.client_id, p.id))
                .collect();
            (mine, next)
        }
    };
    Ok((items, next))
}

/// The home whose events the caller would hear, and the position its stream
/// starts after: `after` as asked, moved up to the start of the caller's
/// access to the home when it is earlier (or unset).
pub async fn stream_start(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    property: PropertyId,
    after: Option<EventId>,
) -> Result<(PropertyRecord, Option<EventId>), Error> {
    let home = home_for(app, caller, tenant, property, HomeAccess::See).await?;
    // Never anything from before the caller's access to the home began.
    let began = access_began(app, caller, &home).await?;
    Ok((home, no_earlier_than(after, began)))
}

/// The stream's position, moved up to the first event at `began` when it
/// is earlier (or unset).
fn no_earlier_than(after: Option<EventId>, began: Option<OffsetDateTime>) -> Option<EventId> {
    let Some(began) = began else { return after };
    let floor = EventId::floor(began);
    Some(after.filter(|after| *after >= floor).unwrap_or(floor))
}

/// When a household person's (or their widget's) access to `home` began:
/// the grant's making, or a guest's check-in when later. `None` for those
/// whose reach is the tenant or the platform (their access is not the
/// home's). One get.
async fn access_began(
    app: &App,
    caller: &Principal,
    home: &PropertyRecord,
) -> Result<Option<OffsetDateTime>, Error> {
    let (client, user) = match caller {
        Principal::Person { claims, .. } if claims.clients.contains_key(&home.client_id) => {
            (home.client_id, claims.sub)
        }
        Principal::Widget { client, user, .. } => (*client, *user),
        _ => return Ok(None),
    };
    let grant = Members(&*app.store).get(client, user).await?;
    Ok(grant.map(|g| g.starts_at.map_or(g.created_at, |s| s.max(g.created_at))))
}
