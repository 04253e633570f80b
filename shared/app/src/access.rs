//! May this caller do this to that object: the one place where the domain's
//! access rules ([`alyt_domain::access`]: roles, scopes, `HomeReach`,
//! `HomeAccess`) meet the objects in the store and become the application's
//! answers. An object the caller does not reach answers exactly like a
//! missing one (not found, the operation's own "no such ..."); one it
//! reaches but may not act on is forbidden with the reason (a [`Denied`]
//! converts with `?`).

use std::collections::BTreeSet;

pub use alyt_domain::access::HomeAccess;
use alyt_domain::access::{
    Denied, HomeReach, HouseholdRole, Principal, Scope, SecurityAccess, Surface,
};
use alyt_domain::ids::WidgetTokenId;
use alyt_domain::ids::{ClientId, DeviceId, PropertyId, RoomId, TenantId};
use alyt_store::Store;
use alyt_store::repo::devices::{DeviceRecord, Devices};
use alyt_store::repo::members::Members;
use alyt_store::repo::rooms::{RoomRecord, Rooms};
use alyt_store::repo::security::Security;
use alyt_store::repo::tenancy::{PropertyRecord, Tenancy};

use crate::{App, Error};

pub fn no_such_room() -> Error {
    Error::not_found("no such room")
}

pub fn no_such_device() -> Error {
    Error::not_found("no such device")
}

pub fn no_such_property() -> Error {
    Error::not_found("no such property")
}

/// The homes of one tenant a caller reaches, once it reaches some.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reach {
    /// Platform staff, the tenant's ADMIN/INSTALLER, a DEV key in its sandbox.
    Everything,
    /// Household people: every home of these households, plus the homes
    /// guests are pinned to.
    Homes {
        households: BTreeSet<ClientId>,
        pinned: BTreeSet<PropertyId>,
    },
}

impl Reach {
    /// Whether the home `property` of household `client` is within reach.
    pub fn covers(&self, client: ClientId, property: PropertyId) -> bool {
        match self {
            Reach::Everything => true,
            Reach::Homes { households, pinned } => {
                households.contains(&client) || pinned.contains(&property)
            }
        }
    }

    /// Whether `device` stands in a home within reach: a pinned one (guests)
    /// or a home of one of the households. No read (the device names its
    /// household), or one property read for a row of an older build.
    pub async fn holds_device(
        &self,
        store: &dyn Store,
        device: &DeviceRecord,
    ) -> Result<bool, Error> {
        let Reach::Homes { households, pinned } = self else {
            return Ok(true);
        };
        let Some(property) = device.property_id else {
            return Ok(false);
        };
        if pinned.contains(&property) {
            return Ok(true);
        }
        if let Some(client) = device.client_id {
            return Ok(households.contains(&client));
        }
        // A row from before devices carried their household.
        Ok(Tenancy(store)
            .property(device.tenant_id, property)
            .await?
            .is_some_and(|p| households.contains(&p.client_id)))
    }
}

/// The first gate of every operation on a tenant's homes and what is in
/// them: a tenant the caller does not reach answers `missing` (not found); a LIVE
/// key, which acts only for its connector's integrations and endpoints, is
/// refused (forbidden).
pub fn tenant_reach(
    caller: &Principal,
    tenant: TenantId,
    missing: fn() -> Error,
) -> Result<Reach, Error> {
    match caller.home_reach(tenant) {
        HomeReach::Everything => Ok(Reach::Everything),
        HomeReach::Homes { households, pinned } => Ok(Reach::Homes { households, pinned }),
        HomeReach::Connector(_) => Err(Denied::ConnectorOnly.into()),
        HomeReach::Nothing => Err(missing()),
    }
}

/// [`tenant_reach`] when the operation needs no more than passing the gate.
pub fn tenant_gate(
    caller: &Principal,
    tenant: TenantId,
    missing: fn() -> Error,
) -> Result<(), Error> {
    tenant_reach(caller, tenant, missing).map(|_| ())
}

/// The caller's access to `property`; `None` when the home is not the
/// caller's (it answers like a missing one).
pub fn access_to(caller: &Principal, property: &PropertyRecord) -> Option<HomeAccess> {
    caller.home_access(property.tenant_id, property.client_id, property.id)
}

/// What a weaker role is told when it lacks `access` to a home's rooms.
fn refusal(access: HomeAccess) -> &'static str {
    match access {
        HomeAccess::See => "you cannot see this home",
        HomeAccess::Control => "your role cannot control this home (platform SUPPORT only sees it)",
        HomeAccess::Configure => "configuring rooms needs the household's OWNER role",
    }
}

/// What an operation needs in a home: the role-level access, the key scope,
/// what a weaker role is told (forbidden) and what a missing home answers (not found).
pub struct HomeNeed {
    pub access: HomeAccess,
    pub scope: Scope,
    pub refusal: &'static str,
    pub missing: fn() -> Error,
}

impl From<HomeAccess> for HomeNeed {
    /// The rooms' rule: the access's own scope and refusal.
    fn from(access: HomeAccess) -> Self {
        HomeNeed {
            access,
            scope: access.scope(),
            refusal: refusal(access),
            missing: no_such_property,
        }
    }
}

/// The home `property_id` of `tenant` when the caller has `needed` there:
/// Forbidden for a key without the scope or a caller who sees the home with less,
/// not found for a home that is missing or not the caller's. One get.
pub async fn home_for(
    state: &App,
    caller: &Principal,
    tenant: TenantId,
    property_id: PropertyId,
    needed: impl Into<HomeNeed>,
) -> Result<PropertyRecord, Error> {
    let needed = needed.into();
    caller.require_scope(needed.scope)?;
    tenant_gate(caller, tenant, needed.missing)?;
    let property = Tenancy(&*state.store)
        .property(tenant, property_id)
        .await?
        .ok_or_else(needed.missing)?;
    match access_to(caller, &property) {
        None => Err((needed.missing)()),
        Some(access) if access < needed.access => Err(Error::forbidden(needed.refusal)),
        Some(_) => Ok(property),
    }
}

/// Room `room_id` of `tenant` with its home, when the caller has `needed`
/// there (errors as [`home_for`], not found "no such room"). Three gets: the room
/// ref, then the room and the home together.
pub async fn room_for(
    state: &App,
    caller: &Principal,
    tenant: TenantId,
    room_id: RoomId,
    needed: HomeAccess,
) -> Result<(RoomRecord, PropertyRecord), Error> {
    caller.require_scope(needed.scope())?;
    tenant_gate(caller, tenant, no_such_room)?;
    let rooms = Rooms(&*state.store);
    let at = rooms
        .locate(room_id)
        .await?
        .filter(|at| at.tenant_id == tenant)
        .ok_or_else(no_such_room)?;
    let (room, property) = Tenancy(&*state.store)
        .room_with_home(tenant, at.property_id, room_id)
        .await?;
    room_reached(caller, tenant, room, property, needed)
}

/// The room (of `tenant`) and its home read without the caller's say, when
/// the caller reaches them with `needed`: the decision of [`room_for`] for
/// paths that read more in the same round trips (the room view).
pub fn room_reached(
    caller: &Principal,
    tenant: TenantId,
    room: Option<RoomRecord>,
    property: Option<PropertyRecord>,
    needed: HomeAccess,
) -> Result<(RoomRecord, PropertyRecord), Error> {
    caller.require_scope(needed.scope())?;
    tenant_gate(caller, tenant, no_such_room)?;
    let (Some(room), Some(property)) = (room, property) else {
        return Err(no_such_room());
    };
    if room.tenant_id != tenant || property.tenant_id != tenant || room.property_id != property.id {
        return Err(no_such_room());
    }
    match access_to(caller, &property) {
        None => Err(no_such_room()),
        Some(access) if access < needed => Err(Error::forbidden(refusal(needed))),
        Some(_) => Ok((room, property)),
    }
}

/// Device `device_id` of `tenant` when the caller reaches it with `scope`
/// (forbidden for a key without the scope, not found for a device that is missing,
/// deleted or in a home the caller does not reach). One or two gets.
pub async fn device_for(
    state: &App,
    caller: &Principal,
    tenant: TenantId,
    device_id: DeviceId,
    scope: Scope,
) -> Result<DeviceRecord, Error> {
    caller.require_scope(scope)?;
    let reach = tenant_reach(caller, tenant, no_such_device)?;
    let device = Devices(&*state.store)
        .get(tenant, device_id)
        .await?
        .filter(|d| d.deleted_at.is_none())
        .ok_or_else(no_such_device)?;
    if !reach.holds_device(&*state.store, &device).await? {
        return Err(no_such_device());
    }
    Ok(device)
}

// ---------------------------------------------------------------------------
// Home security

/// The caller's home-security access to `home`: by its roles
/// ([`Principal::security_access`]), or for a TV of this home through its
/// person's current delegation (the record's `delegations`).
pub async fn security_access(
    state: &App,
    caller: &Principal,
    home: &PropertyRecord,
) -> Result<SecurityAccess, Error> {
    match caller {
        Principal::Widget {
            surface: Surface::Tv,
            token_id,
            user,
            property,
            ..
        } if *property == home.id => tv_access(state, home, *token_id, *user).await,
        _ => Ok(caller.security_access(home.tenant_id, home.client_id)?),
    }
}

/// A direct command to a siren of `property` (home security's output):
/// only from someone who controls the home's security; a key, a phone
/// widget or an undelegated TV gains no security authority through a
/// generic command (forbidden).
pub async fn siren_command(
    state: &App,
    caller: &Principal,
    tenant: TenantId,
    property: PropertyId,
) -> Result<(), Error> {
    let home = home_for(state, caller, tenant, property, HomeAccess::See).await?;
    let controls = security_access(state, caller, &home)
        .await
        .is_ok_and(|access| access >= SecurityAccess::Control);
    if !controls {
        return Err(Error::forbidden(
            "a siren is home security's output: it is commanded only by someone who controls the home's security",
        ));
    }
    Ok(())
}

/// A TV's security access now: control while its person's delegation is
/// current and that person still controls the home's security.
async fn tv_access(
    state: &App,
    home: &PropertyRecord,
    token: WidgetTokenId,
    user: alyt_domain::ids::UserId,
) -> Result<SecurityAccess, Error> {
    let refused = || {
        Error::forbidden(
            "a TV controls home security only with a current delegation from its person",
        )
    };
    let now = state.clock.now();
    let record = Security(&*state.store).get(home.tenant_id, home.id).await?;
    let current = record
        .as_ref()
        .and_then(|r| r.delegations.get(&token.0))
        .is_some_and(|d| d.user_id == user.0 && d.until > now);
    if !current {
        return Err(refused());
    }
    let controls = Members(&*state.store)
        .get(home.client_id, user)
        .await?
        .is_some_and(|g| {
            g.in_force(now) && matches!(g.role, HouseholdRole::Owner | HouseholdRole::Member)
        });
    if !controls {
        return Err(refused());
    }
    Ok(SecurityAccess::Control)
}
