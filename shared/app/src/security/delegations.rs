//! A TV's control of its home's security: a household member delegates it
//! to a TV widget token of theirs, for at most 30 days; it lasts while the
//! person still controls the home's security. A phone widget never gets it.

use alyt_domain::access::{Principal, SecurityAccess, Surface};
use alyt_domain::ids::{PropertyId, TenantId, WidgetTokenId};
use alyt_domain::security::{Delegation, MAX_DELEGATION};
use alyt_store::repo::security::Security;
use alyt_store::repo::widgets::Widgets;
use time::OffsetDateTime;

use super::mode::access_for;
use super::update;
use crate::{App, Error};

/// The person calling delegates their TV `token` control of the home's
/// security until `until` (within 30 days).
pub async fn delegate(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    property: PropertyId,
    token: WidgetTokenId,
    until: OffsetDateTime,
) -> Result<Delegation, Error> {
    let (home, _) = access_for(app, caller, tenant, property, SecurityAccess::Control).await?;
    let Principal::Person { claims, .. } = caller else {
        return Err(Error::forbidden("a person delegates, not a token"));
    };
    let now = app.clock.now();
    if until <= now || until > now + MAX_DELEGATION {
        return Err(Error::validation("until", "a time in the next 30 days"));
    }
    let tv = Widgets(&*app.store)
        .of_person(home.client_id, claims.sub)
        .await?
        .into_iter()
        .find(|t| t.id == token && t.property_id == home.id)
        .ok_or_else(|| Error::not_found("no such TV of yours for this home"))?;
    if tv.surface != Surface::Tv {
        return Err(Error::validation(
            "tokenId",
            "a phone widget is never given home-security control; mint a TV token",
        ));
    }
    let delegation = Delegation {
        user_id: claims.sub.0,
        until,
    };
    update(app, &home, |record, _, _| {
        record.delegations.insert(token.0, delegation.clone());
        Some(())
    })
    .await?;
    Ok(delegation)
}

/// Ends the TV `token`'s control (its person or an owner); none is fine.
pub async fn revoke(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    property: PropertyId,
    token: WidgetTokenId,
) -> Result<(), Error> {
    let (home, access) = access_for(app, caller, tenant, property, SecurityAccess::Control).await?;
    let person = caller.user_id().map(|u| u.0);
    let record = Security(&*app.store).get(home.tenant_id, home.id).await?;
    let Some(delegation) = record.and_then(|r| r.delegations.get(&token.0).cloned()) else {
        return Ok(());
    };
    if access < SecurityAccess::Configure && person != Some(delegation.user_id) {
        return Err(Error::forbidden(
            "only the TV's person or an owner ends its delegation",
        ));
    }
    update(app, &home, |record, _, _| {
        record.delegations.remove(&token.0).map(|_| ())
    })
    .await?;
    Ok(())
}
