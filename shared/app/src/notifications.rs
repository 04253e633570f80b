//! A household's notifications (`notification.raised`), newest first: the
//! tenant's or one home's.
//!
//! Who sees what: a key needs `notifications:read` and sees its tenants';
//! platform staff and the tenant's ADMIN/INSTALLER see the tenant's (all of
//! them, or one home's); household OWNERs and MEMBERs see those of their
//! households' homes and of their households; notifications about no home
//! and no household (a disabled webhook) are the tenant's; a GUEST reads
//! none. Another tenant, or a home the caller does not reach, is the same
//! not found as a missing one.

use std::collections::BTreeSet;

use alyt_domain::access::{Principal, Scope};
use alyt_domain::ids::{ClientId, PropertyId, TenantId};
use alyt_store::PageKey;
use alyt_store::repo::notifications::{
    NotificationRecord, Notifications, home_notifications, tenant_notifications,
};
use alyt_store::repo::tenancy::Tenancy;

use crate::access::{Reach, tenant_reach};
use crate::paging::Paging;
use crate::{App, Error};

fn not_found() -> Error {
    Error::not_found("no such tenant or home")
}

/// One page of the notifications of `tenant` (or of one of its homes) the
/// caller reads: all of them for staff, tenant roles and keys; for household
/// members those of their households and of those households' homes. Guests
/// read none.
pub async fn notifications_page(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    property: Option<PropertyId>,
    paging: &Paging,
) -> Result<(Vec<NotificationRecord>, Option<PageKey>), Error> {
    let limit = paging.limit()?;
    caller.require_scope(Scope::NotificationsRead)?;
    // Which homes' (and households') notifications: None = the whole tenant.
    let homes: Option<(BTreeSet<PropertyId>, BTreeSet<ClientId>)> =
        match tenant_reach(caller, tenant, not_found)? {
            Reach::Everything => None,
            Reach::Homes { households, .. } if households.is_empty() => {
                return Err(Error::forbidden(
                    "guests do not read a home's notifications",
                ));
            }
            Reach::Homes { households, .. } => {
                let tenancy = Tenancy(&*app.store);
                let mut mine = BTreeSet::new();
                let mut at = None;
                loop {
                    let (properties, next) = tenancy.properties(tenant, 200, at).await?;
                    mine.extend(
                        properties
                            .into_iter()
                            .filter(|p| households.contains(&p.client_id))
                            .map(|p| p.id),
                    );
                    match next {
                        Some(next) => at = Some(next),
                        None => break,
                    }
                }
                Some((mine, households))
            }
        };
    let tenancy = Tenancy(&*app.store);
    if tenancy.tenant(tenant).await?.is_none() {
        return Err(not_found());
    }
    let notifications = Notifications(&*app.store);
    let (records, next): (Vec<NotificationRecord>, Option<PageKey>) = match property {
        Some(property) => {
            let reachable = match &homes {
                Some((mine, _)) => mine.contains(&property),
                None => tenancy.property(tenant, property).await?.is_some(),
            };
            if !reachable {
                return Err(not_found());
            }
            let after = paging.after_within(&home_notifications(property))?;
            let (records, next) = notifications.of_property(property, limit, after).await?;
            // The index is per home; the tenant was authorized.
            (
                records
                    .into_iter()
                    .filter(|n| n.tenant_id == tenant)
                    .collect(),
                next,
            )
        }
        None => {
            let after = paging.after_within(&tenant_notifications(tenant))?;
            let (records, next) = notifications.of_tenant(tenant, limit, after).await?;
            let records = match &homes {
                None => records,
                Some((mine, households)) => records
                    .into_iter()
                    .filter(|n| {
                        n.property_id.is_some_and(|p| mine.contains(&p))
                            || n.client_id.is_some_and(|c| households.contains(&c))
                    })
                    .collect(),
            };
            (records, next)
        }
    };
    Ok((records, next))
}
