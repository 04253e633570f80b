//! Widget tokens: a household person mints one for a home they hold (a
//! phone's home-screen widget or a TV), at most a handful each, never while
//! their access depends on the home network.

use alyt_domain::access::{HouseholdRole, Principal, SessionKind, Surface};
use alyt_domain::ids::{PropertyId, WidgetTokenId};
use alyt_domain::secret::{random_token, sha256_hex};
use alyt_store::repo::members::Members;
use alyt_store::repo::tenancy::{PropertyRecord, Tenancy};
use alyt_store::repo::widgets::{LIFETIME, MAX_PER_PERSON, WidgetTokenRecord, Widgets};

use crate::access::no_such_property;
use crate::text::required_text;
use crate::{App, Error};

/// Widget tokens start with this, so a bearer token is told apart at a
/// glance (and in a leak scan).
pub const WIDGET_TOKEN_PREFIX: &str = "wt_";
/// A token's name: 1 to 80 characters.
const NAME_MAX: usize = 80;

/// The home when the caller is a household person who holds it now: a key,
/// a widget or a developer session in the tenant is refused (403), a home
/// that is not the caller's (or a tenant it does not reach) is missing (404).
pub async fn own_home(
    app: &App,
    caller: &Principal,
    tenant: alyt_domain::ids::TenantId,
    property: PropertyId,
) -> Result<(PropertyRecord, alyt_domain::ids::UserId), Error> {
    let Principal::Person {
        claims,
        kind: SessionKind::Household,
        ..
    } = caller
    else {
        if !caller.reaches_tenant(tenant) {
            return Err(no_such_property());
        }
        return Err(Error::forbidden(
            "widget tokens are minted by signed-in household people (sign in with /v1/auth/login)",
        ));
    };
    let home = Tenancy(&*app.store)
        .property(tenant, property)
        .await?
        .ok_or_else(no_such_property)?;
    let holds = claims.clients.get(&home.client_id).is_some_and(|g| {
        g.tenant_id == tenant && (g.role != HouseholdRole::Guest || g.property_id == Some(home.id))
    });
    if !holds {
        return Err(no_such_property());
    }
    Ok((home, claims.sub))
}

/// Mints a widget token for one home the caller holds: the record and the
/// token, shown this once (only its SHA-256 is kept).
pub async fn mint(
    app: &App,
    caller: &Principal,
    tenant: alyt_domain::ids::TenantId,
    property: PropertyId,
    name: &str,
    surface: Surface,
) -> Result<(WidgetTokenRecord, String), Error> {
    let (home, user) = own_home(app, caller, tenant, property).await?;
    let name = required_text("name", name, NAME_MAX)?;
    // The grant as stored (the claims may be a few minutes old).
    let grant = Members(&*app.store)
        .get(home.client_id, user)
        .await?
        .filter(|g| g.in_force(app.clock.now()))
        .ok_or_else(no_such_property)?;
    if grant.require_network() {
        return Err(Error::forbidden(
            "a member whose access depends on the home network cannot mint a widget token",
        ));
    }
    let widgets = Widgets(&*app.store);
    if widgets.of_person(home.client_id, user).await?.len() >= MAX_PER_PERSON {
        return Err(Error::conflict(format!(
            "a person holds at most {MAX_PER_PERSON} widget tokens per household; revoke one first"
        )));
    }
    let token = format!("{WIDGET_TOKEN_PREFIX}{}", random_token());
    let now = app.clock.now();
    let record = WidgetTokenRecord {
        id: WidgetTokenId::new(),
        token_hash: sha256_hex(&token),
        user_id: user,
        tenant_id: home.tenant_id,
        client_id: home.client_id,
        property_id: home.id,
        name,
        surface,
        created_at: now,
        expires_at: Some(now + LIFETIME),
    };
    widgets.create(&record).await?;
    Ok((record, token))
}

/// The caller's own widget tokens for one home they hold (never the
/// tokens themselves: only their hashes are kept).
pub async fn tokens(
    app: &App,
    caller: &Principal,
    tenant: alyt_domain::ids::TenantId,
    property: PropertyId,
) -> Result<Vec<WidgetTokenRecord>, Error> {
    let (home, user) = own_home(app, caller, tenant, property).await?;
    let tokens = Widgets(&*app.store).of_person(home.client_id, user).await?;
    Ok(tokens
        .into_iter()
        .filter(|t| t.property_id == home.id)
        .collect())
}

/// Revokes one of the caller's widget tokens for a home they hold: the
/// widget is signed out.
pub async fn revoke(
    app: &App,
    caller: &Principal,
    tenant: alyt_domain::ids::TenantId,
    property: PropertyId,
    token_id: WidgetTokenId,
) -> Result<(), Error> {
    let (home, user) = own_home(app, caller, tenant, property).await?;
    let widgets = Widgets(&*app.store);
    let token = widgets
        .of_person(home.client_id, user)
        .await?
        .into_iter()
        .find(|t| t.id == token_id && t.property_id == home.id)
        .ok_or_else(|| Error::not_found("no such widget token"))?;
    widgets.revoke(&token).await?;
    Ok(())
}
