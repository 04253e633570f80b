//! Guest stays by reservation key: opening one (the grant at once for a
//! verified account outside sandbox tenants, an invitation with the stay
//! and its mailed link otherwise; `guest.invited` either way), moving its
//! dates (and its grant's or invitation's with it), reading it, and
//! checking the guest out (see `alyt-stays`).
//!
//! Every guest's stay is one of these records, whichever way the guest
//! arrived (a stay by key, an invitation, a grant by user id): a guest
//! added without a reservation key gets one (`stay-…`), so the stay sweep
//! lets every guest out on time.
//!
//! Who: the household's owner, the tenant's admin and platform staff, and a
//! DEV key with `guests:write` in its sandbox ([`may_manage_guests`]).

use alyt_domain::access::{Denied, HouseholdRole, Principal};
use alyt_domain::ids::{ClientId, EndpointId, InvitationId, PropertyId, TenantId};
use alyt_domain::membership::{GrantTerms, may_manage_guests};
use alyt_domain::stay::{DatesChange, StayEnd, StayState, StayWindow};
use alyt_stays::{GuestStays, Moved};
use alyt_store::TxWrite;
use alyt_store::repo::identity::{Sessions, UserRecord, email_key};
use alyt_store::repo::invitations::{InvitationRecord, Invitations, stay_write};
use alyt_store::repo::members::{Members, stay_window_write};
use alyt_store::repo::stays::{StayRecord, Stays, change_write};
use alyt_store::repo::tenancy::{ClientRecord, GrantNetwork, GrantRecord, PropertyRecord};
use serde::Serialize;
use time::OffsetDateTime;
use uuid::Uuid;

use super::inviting::{self, Terms, checked_reservation_key, invite};
use super::stay_key_in_use;
use super::{NO_HOUSEHOLD, NewGrant, grant_membership, household_home, household_if};
use crate::presence::checked_network;
use crate::text::{checked_email, optional_text};
use crate::{App, Error};

const NAME_MAX: usize = 100;
pub const NO_STAY: &str = "no such household or stay";

/// A guest's stay as its household and booking system see it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct GuestStay {
    pub reservation_key: String,
    /// `invited` (the invitation waits), `member` (the guest holds the
    /// grant) or `checked-out`.
    pub state: StayState,
    pub email: String,
    pub property_id: PropertyId,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub check_in: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub check_out: OffsetDateTime,
    pub require_network: bool,
}

impl From<&StayRecord> for GuestStay {
    fn from(stay: &StayRecord) -> Self {
        Self {
            reservation_key: stay.reservation_key.clone(),
            state: stay.state,
            email: stay.email.clone(),
            property_id: stay.property_id,
            check_in: stay.check_in,
            check_out: stay.check_out,
            require_network: stay.require_network,
        }
    }
}

/// A stay to open: whose, where, when, under which key and condition.
pub(super) struct NewStay<'a> {
    pub home: &'a PropertyRecord,
    pub guest: Guest,
    pub window: StayWindow,
    pub reservation_key: String,
    pub network: Option<GrantNetwork>,
}

/// Who is the guest of a stay being opened.
pub(super) enum Guest {
    /// An account the grant goes to at once (a grant by user id, or a
    /// verified address).
    Account(UserRecord),
    /// An address to invite.
    Address { email: String, name: Option<String> },
}

/// What opening a stay made.
pub(super) enum Opened {
    Member(GrantRecord, StayRecord),
    Invited(InvitationRecord, StayRecord),
}

/// A reservation key for a guest added without one.
pub(super) fn generated_key() -> String {
    format!("stay-{}", Uuid::now_v7().simple())
}

/// The window of a guest's stay on checked `terms`: a stay without a start
/// starts now (checked terms give every guest an end).
pub(super) fn stay_window(terms: &GrantTerms, now: OffsetDateTime) -> StayWindow {
    StayWindow {
        check_in: terms.starts_at.unwrap_or(now),
        check_out: terms.expires_at.unwrap_or(now),
    }
}

/// The record of a stay that `caller` opens now in the household's home
/// `property`: `invited`, for nobody yet, not checked in and without the
/// network condition; the opener sets what else it knows.
pub(super) fn new_stay_record(
    household: &ClientRecord,
    property: PropertyId,
    reservation_key: String,
    email: String,
    window: StayWindow,
    caller: &Principal,
    now: OffsetDateTime,
) -> StayRecord {
    StayRecord {
        reservation_key,
        tenant_id: household.tenant_id,
        client_id: household.id,
        property_id: property,
        email,
        name: None,
        check_in: window.check_in,
        check_out: window.check_out,
        require_network: false,
        phone_thing_id: None,
        state: StayState::Invited,
        user_id: None,
        invitation_id: None,
        checked_in_at: None,
        checked_out_at: None,
        opened_by: caller.user_id(),
        created_at: now,
        updated_at: now,
        rev: 0,
    }
}

/// Opens `guest`'s stay in `home` for `window` under `reservation_key`: the
/// grant and the stay in one transaction (an account), or the invitation,
/// its link and the stay (an address). `guest.invited` either way.
pub(super) async fn open_stay(
    app: &App,
    caller: &Principal,
    household: &ClientRecord,
    stay: NewStay<'_>,
) -> Result<Opened, Error> {
    let NewStay {
        home,
        guest,
        window,
        reservation_key,
        network,
    } = stay;
    let now = app.clock.now();
    let stays = GuestStays::new(app.store.clone(), app.clock.clone());
    let (email, name) = match &guest {
        Guest::Account(person) => (person.email.clone(), person.name.clone()),
        Guest::Address { email, name } => (email.clone(), name.clone()),
    };
    let key = reservation_key.clone();
    let mut stay = StayRecord {
        name,
        require_network: network.is_some(),
        phone_thing_id: network
            .as_ref()
            .and_then(|n| n.phone_thing_id)
            .map(|id| id.0),
        ..new_stay_record(household, home.id, key, email, window, caller, now)
    };
    let terms = GrantTerms {
        role: HouseholdRole::Guest,
        property_id: Some(home.id),
        starts_at: Some(window.check_in),
        expires_at: Some(window.check_out),
    };
    match guest {
        Guest::Account(person) => {
            stay.state = StayState::Member;
            stay.user_id = Some(person.id);
            let also = stays.opened_writes(&stay)?;
            let new = NewGrant {
                person: &person,
                home: Some(home),
                terms,
                reservation_key: Some(reservation_key),
                network,
                also,
            };
            let grant = grant_membership(app, caller, household, new).await?;
            Ok(Opened::Member(grant, stay))
        }
        Guest::Address { email, name } => {
            let id = InvitationId::new();
            stay.invitation_id = Some(id);
            let also = stays.opened_writes(&stay)?;
            let terms = Terms {
                email,
                name,
                grant: terms,
                reservation_key: Some(reservation_key),
                network,
            };
            let invitation = invite(app, caller, household, Some(home), terms, id, also).await?;
            Ok(Opened::Invited(invitation, stay))
        }
    }
}

/// The household whose guests the caller manages; refusals as for people,
/// plus the key's.
async fn guest_household(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    client: ClientId,
    missing: &'static str,
) -> Result<ClientRecord, Error> {
    let verdict = may_manage_guests(caller, tenant, client);
    household_if(app, verdict, tenant, client, missing, |denied| match denied {
        Denied::MissingScope(_) | Denied::ConnectorOnly => Error::forbidden(denied.to_string()),
        _ => Error::forbidden(
            "only the household's owner, the tenant's admin, platform staff and keys with guests:write manage its guests",
        ),
    })
    .await
}

/// A stay by reservation key, as asked (the key and the fields are checked
/// here, once the caller may act).
#[derive(Debug, Clone)]
pub struct StayOrder {
    /// The booking's reservation key.
    pub reservation_key: String,
    pub email: String,
    pub name: Option<String>,
    /// The home of the household the guest stays in.
    pub property_id: PropertyId,
    pub check_in: OffsetDateTime,
    pub check_out: OffsetDateTime,
    pub require_network: Option<bool>,
    pub phone_thing_id: Option<EndpointId>,
}

/// What a stay by reservation key came to.
#[derive(Debug, Clone)]
pub enum StayPut {
    /// A new stay: `member` or `invited`; `guest.invited` was raised.
    Opened(GuestStay),
    /// The stay already had these dates, or it moved to the new ones.
    Kept(GuestStay),
}

/// Opens or moves a guest's stay by reservation key.
pub async fn put_guest(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    client: ClientId,
    request: StayOrder,
) -> Result<StayPut, Error> {
    let household = guest_household(app, caller, tenant, client, NO_HOUSEHOLD).await?;
    let key = checked_reservation_key(&request.reservation_key)?;
    let now = app.clock.now();
    let email = checked_email(&request.email)?;
    let name = optional_text("name", request.name.as_deref(), NAME_MAX)?;
    let window = StayWindow::checked(request.check_in, request.check_out, now)
        .map_err(|p| Error::validation(p.field, p.detail))?;
    let network = checked_network(
        app,
        &household,
        HouseholdRole::Guest,
        request.require_network,
        request.phone_thing_id,
    )
    .await?;
    let home = household_home(app, &household, Some(request.property_id))
        .await?
        .ok_or_else(|| Error::validation("propertyId", "propertyId names a home"))?;
    let read = Stays(&*app.store).get(household.id, &key).await?;
    if let Some(open) = read.filter(|s| s.state != StayState::CheckedOut) {
        if email_key(&open.email) != email_key(&email) || open.property_id != home.id {
            return Err(stay_key_in_use());
        }
        let moved = move_stay(app, &open, window).await?;
        return Ok(StayPut::Kept(GuestStay::from(&moved)));
    }
    let guest = match inviting::account_granted_at_once(app, &household, &email).await? {
        Some(person) => Guest::Account(person),
        None => Guest::Address { email, name },
    };
    let stay = NewStay {
        home: &home,
        guest,
        window,
        reservation_key: key,
        network,
    };
    let opened = open_stay(app, caller, &household, stay).await?;
    let stay = match opened {
        Opened::Member(grant, stay) => {
            // Their claims name the home from their next sign-in.
            inviting::sign_out_for_grant(app, grant.user_id).await?;
            stay
        }
        Opened::Invited(_, stay) => stay,
    };
    Ok(StayPut::Opened(GuestStay::from(&stay)))
}

/// Moves the open stay `read` to `window` (the same dates change nothing),
/// with its grant's or its invitation's stay in the same transaction.
async fn move_stay(app: &App, read: &StayRecord, window: StayWindow) -> Result<StayRecord, Error> {
    let mut stay = read.stay();
    match stay.change_dates(window) {
        Ok(DatesChange::Same) => return Ok(read.clone()),
        Ok(DatesChange::Moved) => {}
        Err(_) => return Err(stay_key_in_use()),
    }
    let next = read.with(&stay, app.clock.now());
    let mut writes: Vec<TxWrite> = vec![change_write(read, &next)?];
    match (read.state, read.user_id, read.invitation_id) {
        (StayState::Member, Some(user), _) => {
            if let Some(grant) = Members(&*app.store).get(read.client_id, user).await? {
                writes.push(stay_window_write(
                    &grant,
                    window.check_in,
                    window.check_out,
                )?);
            }
        }
        (StayState::Invited, _, Some(id)) => {
            if let Some(invitation) = Invitations(&*app.store).get(read.client_id, id).await? {
                writes.push(stay_write(&invitation, window.check_in, window.check_out)?);
            }
        }
        _ => {}
    }
    match app.store.transact(writes).await {
        Ok(()) => {
            // The guest's claims carry the old window until their next
            // sign-in: sign them out, so a shortened stay holds at once.
            if let (StayState::Member, Some(user)) = (read.state, read.user_id) {
                Sessions(&*app.store).revoke_all_of(user).await?;
            }
            Ok(next)
        }
        Err(e) if e.is_condition_failure() => Err(Error::conflict(
            "the stay changed while it was being moved; read it and try again",
        )),
        Err(e) => Err(e.into()),
    }
}

/// The stay of reservation key `key` in a household whose guests the
/// caller manages (a missing household and a missing stay answer alike).
async fn managed_stay(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    client: ClientId,
    key: &str,
) -> Result<StayRecord, Error> {
    let household = guest_household(app, caller, tenant, client, NO_STAY).await?;
    let key = checked_reservation_key(key)?;
    Stays(&*app.store)
        .get(household.id, &key)
        .await?
        .ok_or_else(|| Error::not_found(NO_STAY))
}

/// The stay of reservation key `key` (its record is kept 90 days after it
/// is over).
pub async fn guest(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    client: ClientId,
    key: &str,
) -> Result<GuestStay, Error> {
    let stay = managed_stay(app, caller, tenant, client, key).await?;
    Ok(GuestStay::from(&stay))
}

/// Checks the guest of reservation key `key` out now; a stay already over
/// is answered as it is.
pub async fn check_out_guest(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    client: ClientId,
    key: &str,
) -> Result<GuestStay, Error> {
    let read = managed_stay(app, caller, tenant, client, key).await?;
    let stay = check_out_now(app, caller, &read).await?;
    Ok(GuestStay::from(&stay))
}

/// The open stay `grant` (a guest's) belongs to, if any.
pub(super) async fn open_stay_of(
    app: &App,
    grant: &GrantRecord,
) -> Result<Option<StayRecord>, Error> {
    let (HouseholdRole::Guest, Some(key)) = (grant.role, &grant.reservation_key) else {
        return Ok(None);
    };
    Ok(Stays(&*app.store)
        .get(grant.client_id, key)
        .await?
        .filter(|s| s.state == StayState::Member && s.user_id == Some(grant.user_id)))
}

/// Checks the guest of `read` out now, by the caller (a key is a booking
/// system, a person the household); the stay as it is afterwards.
pub(super) async fn check_out_now(
    app: &App,
    caller: &Principal,
    read: &StayRecord,
) -> Result<StayRecord, Error> {
    let end = match caller {
        Principal::Key { .. } => StayEnd::BookingSystem,
        Principal::Person { .. } | Principal::Widget { .. } | Principal::Routine { .. } => {
            StayEnd::Household
        }
    };
    let keeper = GuestStays::new(app.store.clone(), app.clock.clone());
    // Another writer may move the stay between the read and the write (the
    // stay sweep marking the check-in): check out what is stored then.
    let mut read = read.clone();
    for _ in 0..CHECK_OUT_ATTEMPTS {
        match keeper.check_out(&read, end, caller.user_id()).await? {
            Moved::Done(stay) => return Ok(*stay),
            Moved::Raced => match Stays(&*app.store)
                .get(read.client_id, &read.reservation_key)
                .await?
            {
                Some(stay) if stay.state == StayState::CheckedOut => return Ok(stay),
                Some(stay) => read = stay,
                None => return Err(Error::not_found(NO_STAY)),
            },
        }
    }
    Err(Error::conflict(
        "the stay changed while it was being checked out; try again",
    ))
}

/// Check-outs tried against a stay that keeps changing before a conflict.
const CHECK_OUT_ATTEMPTS: usize = 4;
