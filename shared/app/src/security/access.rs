//! Who may see, control or configure a home's security, and the home's
//! security as it stands now: the check every security use case starts with.

use alyt_domain::access::{HomeAccess, Principal, SecurityAccess};
use alyt_domain::ids::{PropertyId, TenantId};
use alyt_store::repo::security::SecurityRecord;
use alyt_store::repo::tenancy::PropertyRecord;

use super::keeper;
use crate::access::home_for;
use crate::{App, Error};

/// The home and the caller's access to its security, when the caller has
/// `needed` (403 naming who may; a home that is not the caller's is
/// missing).
pub async fn access_for(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    property: PropertyId,
    needed: SecurityAccess,
) -> Result<(PropertyRecord, SecurityAccess), Error> {
    let home = home_for(app, caller, tenant, property, HomeAccess::See).await?;
    let access = crate::access::security_access(app, caller, &home).await?;
    if access < needed {
        return Err(Error::forbidden(match needed {
            SecurityAccess::Configure => {
                "home-security settings are changed by the household's owners"
            }
            _ => "home security is controlled by the household's members and owners",
        }));
    }
    Ok((home, access))
}

/// [`access_for`] with the home's security (ticked to now and stored when
/// time moved it).
pub async fn security_for(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    property: PropertyId,
    needed: SecurityAccess,
) -> Result<(PropertyRecord, SecurityRecord, SecurityAccess), Error> {
    let (home, access) = access_for(app, caller, tenant, property, needed).await?;
    let record = keeper(app).current(&home).await?;
    Ok((home, record, access))
}
