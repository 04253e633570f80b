//! Invitations: the household's side (invite by address, resend, withdraw)
//! and the invitee's (what a link offers, accepting it).
//!
//! * Inviting: an address with a verified account becomes a member at once
//!   (`added`: the person's sessions are signed out so their next sign-in
//!   names the household; person and household are told; never in a
//!   sandbox tenant); any other address gets an invitation and a mail with
//!   a one-time link (`invited`). A resend mails a new link for 7 days and
//!   the old one dies; a withdrawal kills the link.
//! * Accepting: a new person sends a name and a password (the household
//!   password policy), an existing account its password and TOTP code,
//!   checked like a household sign-in's; the acceptance proves the
//!   address. The link is spent in the transaction that makes the grant, so
//!   of concurrent accepts exactly one succeeds.
//!
//! Every dead link (unknown, spent, withdrawn, expired, or a stay that is
//! over) answers [`dead_invitation`].

use std::net::IpAddr;

use alyt_domain::access::{HouseholdRole, Principal};
use alyt_domain::ids::{ClientId, EndpointId, InvitationId, PropertyId, TenantId, UserId};
use alyt_domain::invitation::{LINK_LIFETIME, PendingState};
use alyt_domain::membership::{ChangedBy, GrantTerms, mask_email};
use alyt_domain::password::check_password;
use alyt_domain::secret::{random_token, sha256_hex};
use alyt_domain::stay::StayState;
use alyt_store::repo::identity::{UserRecord, Users, create_writes, verify_email_write};
use alyt_store::repo::invitations::{
    InvitationRecord, Invitations, accept_writes, household_invitations,
};
use alyt_store::repo::members::{MemberError, Members};
use alyt_store::repo::stays::{StayRecord, Stays, change_write};
use alyt_store::repo::tenancy::{ClientRecord, GrantNetwork, GrantRecord, PropertyRecord, Tenancy};
use alyt_store::{PageKey, TxWrite};
use serde::Serialize;
use time::OffsetDateTime;
use uuid::Uuid;

use super::guests::{self, Guest, NewStay, Opened};
use super::inviting::{
    self, NO_INVITATION, Terms, checked_reservation_key, invitation_error, invite, mail_link,
};
use super::members::Member;
use super::{
    NO_HOUSEHOLD, NewGrant, already_member, checked_grant_terms, grant_membership, granted_writes,
    household_home, managed_household, managed_page, member_error, new_grant, stay_key_in_use,
};
use crate::auth::account::checked_person;
use crate::auth::passwords::hash_password_blocking;
use crate::paging::Paging;
use crate::presence::checked_network;
use crate::text::{checked_email, optional_text, required_text};
use crate::{App, Error};

const NAME_MAX: usize = 100;
/// Longer than any token we issue: such a link is dead without a lookup.
const TOKEN_MAX: usize = 200;

/// The one answer for every link that does not work.
pub fn dead_invitation() -> Error {
    Error::gone(
        "this invitation link is no longer valid; ask the household to send a new invitation",
    )
}

/// A new invitation, as asked (the fields are checked here, once the
/// caller may invite).
#[derive(Debug, Clone)]
pub struct NewInvitation {
    pub email: String,
    pub name: Option<String>,
    pub role: HouseholdRole,
    /// The home a GUEST is pinned to.
    pub property_id: Option<PropertyId>,
    pub starts_at: Option<OffsetDateTime>,
    pub expires_at: Option<OffsetDateTime>,
    pub require_network: Option<bool>,
    pub phone_thing_id: Option<EndpointId>,
    /// A booking's reservation key (guests only).
    pub reservation_key: Option<String>,
}

/// What an invitation did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum InvitationOutcome {
    /// The address has a verified account: it is a member now.
    Added,
    /// An invitation and its one-time link were sent.
    Invited,
}

/// The answer to `POST …/invitations`: the member when `added`, the
/// invitation when `invited` (the other is null).
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct InvitationResult {
    pub status: InvitationOutcome,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub member: Option<Member>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub invitation: Option<Invitation>,
}

/// A pending invitation as the household's managers see it (never its link).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Invitation {
    pub id: InvitationId,
    pub email: String,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub name: Option<String>,
    pub role: HouseholdRole,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub property_id: Option<PropertyId>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime, required = true))]
    pub starts_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime, required = true))]
    pub expires_at: Option<OffsetDateTime>,
    pub require_network: bool,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub phone_thing_id: Option<Uuid>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub reservation_key: Option<String>,
    /// Who invited; null when it was not a person (none so far).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub invited_by: Option<UserId>,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: OffsetDateTime,
    /// When the current link was sent.
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub sent_at: OffsetDateTime,
    /// When the current link stops working (7 days after it was sent).
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub link_expires_at: OffsetDateTime,
    /// How many links were sent (1, plus one per resend).
    pub sends: u32,
    /// `waiting`, or `link-expired` (resend it to revive it).
    pub state: PendingState,
}

impl Invitation {
    /// The pending invitation `record` as it stands at `now`.
    pub fn new(record: InvitationRecord, now: OffsetDateTime) -> Self {
        Self {
            state: PendingState::at(record.link_expires_at, now),
            id: record.id,
            email: record.email,
            name: record.name,
            role: record.role,
            property_id: record.property_id,
            starts_at: record.starts_at,
            expires_at: record.expires_at,
            require_network: record.require_network,
            phone_thing_id: record.phone_thing_id,
            reservation_key: record.reservation_key,
            invited_by: record.invited_by,
            created_at: record.created_at,
            sent_at: record.sent_at,
            link_expires_at: record.link_expires_at,
            sends: record.sends,
        }
    }
}

/// The terms of `request`, all but the network condition (which needs the
/// household's phones: [`checked_network`]).
fn checked_terms(request: &NewInvitation, now: OffsetDateTime) -> Result<Terms, Error> {
    let email = checked_email(&request.email)?;
    let name = optional_text("name", request.name.as_deref(), NAME_MAX)?;
    let grant = GrantTerms {
        role: request.role,
        property_id: request.property_id,
        starts_at: request.starts_at,
        expires_at: request.expires_at,
    };
    let grant = checked_grant_terms(grant, now)?;
    let reservation_key = match &request.reservation_key {
        None => None,
        Some(_) if request.role != HouseholdRole::Guest => {
            return Err(Error::validation(
                "reservationKey",
                "only a guest's stay has a reservation key",
            ));
        }
        Some(key) => Some(checked_reservation_key(key)?),
    };
    Ok(Terms {
        email,
        name,
        grant,
        reservation_key,
        network: None,
    })
}

/// Invites a person to the household by address: a member at once for a
/// verified account (outside sandbox tenants), else an invitation and its
/// mailed link.
pub async fn create_invitation(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    client: ClientId,
    request: NewInvitation,
) -> Result<InvitationResult, Error> {
    let household = managed_household(app, caller, tenant, client, NO_HOUSEHOLD).await?;
    let now = app.clock.now();
    let mut terms = checked_terms(&request, now)?;
    let home = household_home(app, &household, terms.grant.property_id).await?;
    terms.network = checked_network(
        app,
        &household,
        request.role,
        request.require_network,
        request.phone_thing_id,
    )
    .await?;
    let verified = inviting::account_granted_at_once(app, &household, &terms.email).await?;
    let result = match (home, terms.grant.role) {
        // A guest's stay is a stay record like any other (the sweep lets
        // them out on time), with a key of its own when none was given.
        (Some(home), HouseholdRole::Guest) => {
            let window = guests::stay_window(&terms.grant, now);
            let key = terms
                .reservation_key
                .clone()
                .unwrap_or_else(guests::generated_key);
            if Stays(&*app.store)
                .get(household.id, &key)
                .await?
                .is_some_and(|s| s.state != StayState::CheckedOut)
            {
                return Err(stay_key_in_use());
            }
            let guest = match verified {
                Some(person) => Guest::Account(person),
                None => Guest::Address {
                    email: terms.email,
                    name: terms.name,
                },
            };
            let stay = NewStay {
                home: &home,
                guest,
                window,
                reservation_key: key,
                network: terms.network,
            };
            match guests::open_stay(app, caller, &household, stay).await? {
                Opened::Member(grant, stay) => added(app, grant, stay.email, now).await?,
                Opened::Invited(invitation, _) => invited(invitation, now),
            }
        }
        (home, _) => match verified {
            Some(person) => {
                let new = NewGrant {
                    person: &person,
                    home: home.as_ref(),
                    terms: terms.grant,
                    reservation_key: terms.reservation_key,
                    network: terms.network,
                    also: vec![],
                };
                let grant = grant_membership(app, caller, &household, new).await?;
                added(app, grant, person.email, now).await?
            }
            None => {
                let invitation = invite(
                    app,
                    caller,
                    &household,
                    home.as_ref(),
                    terms,
                    InvitationId::new(),
                    vec![],
                )
                .await?;
                invited(invitation, now)
            }
        },
    };
    Ok(result)
}

/// The answer for an address whose verified account got the grant: its
/// sessions are signed out (within the person's daily budget), so its
/// claims name the household from the next sign-in.
async fn added(
    app: &App,
    grant: GrantRecord,
    email: String,
    now: OffsetDateTime,
) -> Result<InvitationResult, Error> {
    inviting::sign_out_for_grant(app, grant.user_id).await?;
    Ok(InvitationResult {
        status: InvitationOutcome::Added,
        member: Some(Member::of(app, grant, Some(email), now).await?),
        invitation: None,
    })
}

fn invited(invitation: InvitationRecord, now: OffsetDateTime) -> InvitationResult {
    InvitationResult {
        status: InvitationOutcome::Invited,
        member: None,
        invitation: Some(Invitation::new(invitation, now)),
    }
}

/// The pending invitation `id` of a household the caller manages.
async fn managed_invitation(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    client: ClientId,
    id: InvitationId,
) -> Result<(ClientRecord, InvitationRecord), Error> {
    let household = managed_household(app, caller, tenant, client, NO_INVITATION).await?;
    let invitation = Invitations(&*app.store)
        .get(household.id, id)
        .await?
        .ok_or_else(|| Error::not_found(NO_INVITATION))?;
    Ok((household, invitation))
}

/// One page of the household's pending invitations (oldest first), as
/// they stand now.
pub async fn invitations_page(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    client: ClientId,
    paging: &Paging,
) -> Result<(Vec<Invitation>, Option<PageKey>), Error> {
    let page = managed_page(app, caller, tenant, client, paging, household_invitations).await?;
    let (found, next) = Invitations(&*app.store)
        .list(page.household.id, page.limit, page.after)
        .await?;
    let now = app.clock.now();
    let pending = found.into_iter().map(|i| Invitation::new(i, now)).collect();
    Ok((pending, next))
}

/// Mails a new link (valid 7 days); the old link stops working.
pub async fn resend_invitation(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    client: ClientId,
    id: InvitationId,
) -> Result<Invitation, Error> {
    let (household, invitation) = managed_invitation(app, caller, tenant, client, id).await?;
    let home = match invitation.property_id {
        Some(home) => Tenancy(&*app.store).property(tenant, home).await?,
        None => None,
    };
    inviting::spend_mail_budget(app, &household, &invitation.email).await?;
    let now = app.clock.now();
    let token = random_token();
    let resent = Invitations(&*app.store)
        .resend(&invitation, &sha256_hex(&token), now, now + LINK_LIFETIME)
        .await
        .map_err(invitation_error)?;
    mail_link(app, &household, home.as_ref(), &resent, &token).await;
    Ok(Invitation::new(resent, now))
}

/// Withdraws a pending invitation; its link stops working.
pub async fn withdraw_invitation(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    client: ClientId,
    id: InvitationId,
) -> Result<(), Error> {
    let (_, invitation) = managed_invitation(app, caller, tenant, client, id).await?;
    Invitations(&*app.store)
        .withdraw(&invitation)
        .await
        .map_err(invitation_error)
}

// ---------------------------------------------------------------------------
// The invitee's side

/// The role as the invitation shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum RoleWord {
    Owner,
    Member,
    Guest,
}

impl From<HouseholdRole> for RoleWord {
    fn from(role: HouseholdRole) -> Self {
        match role {
            HouseholdRole::Owner => RoleWord::Owner,
            HouseholdRole::Member => RoleWord::Member,
            HouseholdRole::Guest => RoleWord::Guest,
        }
    }
}

#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct InvitingHousehold {
    pub client_id: ClientId,
    pub name: String,
}

#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct InvitedHome {
    pub property_id: PropertyId,
    pub name: String,
}

#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Inviter {
    /// The inviter's name, or their masked address when they gave none.
    pub name: String,
}

#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct InvitedStay {
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub starts_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub expires_at: OffsetDateTime,
}

/// What a live link shows before it is accepted.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct InvitationPreview {
    pub household: InvitingHousehold,
    /// A guest's home; null for owners and members (the whole household).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub home: Option<InvitedHome>,
    pub inviter: Inviter,
    pub role: RoleWord,
    /// A guest's stay; null otherwise. A stay without a start starts when
    /// the invitation is accepted.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub stay: Option<InvitedStay>,
    /// The invited address, masked (`a•••@example.com`).
    pub email: String,
    /// Whether the address has an account: then accepting takes its
    /// password (and TOTP code), else a name and a new password.
    pub has_account: bool,
}

/// The live invitation of `token`, its household and its home; every dead
/// link (and a stay that is over, or a household or home that is gone)
/// is the same [`dead_invitation`].
async fn live_invitation(
    app: &App,
    token: &str,
) -> Result<(InvitationRecord, ClientRecord, Option<PropertyRecord>), Error> {
    if token.is_empty() || token.len() > TOKEN_MAX {
        return Err(dead_invitation());
    }
    let now = app.clock.now();
    let invitation = Invitations(&*app.store)
        .open(&sha256_hex(token), now.unix_timestamp())
        .await?
        .filter(|i| i.expires_at.is_none_or(|end| now < end))
        .ok_or_else(dead_invitation)?;
    let tenancy = Tenancy(&*app.store);
    let household = tenancy
        .client(invitation.tenant_id, invitation.client_id)
        .await?
        .ok_or_else(dead_invitation)?;
    let home = match invitation.property_id {
        Some(id) => Some(
            tenancy
                .property(invitation.tenant_id, id)
                .await?
                .filter(|h| h.client_id == household.id)
                .ok_or_else(dead_invitation)?,
        ),
        None => None,
    };
    Ok((invitation, household, home))
}

/// What the link of `token` offers: the household, the home, who invited,
/// the role, the stay, the masked address and whether it has an account.
pub async fn read_invitation(app: &App, token: &str) -> Result<InvitationPreview, Error> {
    let (invitation, household, home) = live_invitation(app, token).await?;
    let users = Users(&*app.store);
    let inviter = match invitation.invited_by {
        Some(id) => users.get(id).await?,
        None => None,
    };
    let inviter = match inviter {
        Some(UserRecord {
            name: Some(name), ..
        }) => name,
        Some(user) => mask_email(&user.email),
        None => household.name.clone(),
    };
    let has_account = users.id_by_email(&invitation.email).await?.is_some();
    let stay = invitation.expires_at.map(|expires_at| InvitedStay {
        starts_at: invitation.starts_at.unwrap_or_else(|| app.clock.now()),
        expires_at,
    });
    Ok(InvitationPreview {
        household: InvitingHousehold {
            client_id: household.id,
            name: household.name,
        },
        home: home.map(|h| InvitedHome {
            property_id: h.id,
            name: h.name,
        }),
        inviter: Inviter { name: inviter },
        role: invitation.role.into(),
        stay,
        email: mask_email(&invitation.email),
        has_account,
    })
}

/// What the person accepting a link sends: a new person names themselves
/// and chooses a password; an address that has an account sends that
/// account's password (and its TOTP code when MFA is on).
#[derive(Debug)]
pub struct Acceptance {
    pub name: Option<String>,
    pub password: String,
    pub totp: Option<String>,
}

/// Accepts the invitation of `token`: the person (a new account, or the
/// address's own proven by its password) is a member now, and the link is
/// spent. The person, for the caller to sign in.
pub async fn accept_invitation(
    app: &App,
    token: &str,
    answer: Acceptance,
    client: Option<IpAddr>,
) -> Result<UserRecord, Error> {
    let (invitation, household, home) = live_invitation(app, token).await?;
    let now = app.clock.now();
    // Read first so a dead stay answers before any password is checked.
    waiting_stay(app, &invitation).await?;
    let account = Users(&*app.store).find_by_email(&invitation.email).await?;
    let (person, account_writes, new_account) = match account {
        Some(_) => {
            if answer.name.is_some() {
                return Err(Error::validation(
                    "name",
                    "this address already has an account: send its password (and TOTP code) only",
                ));
            }
            let code = answer.totp.as_deref();
            let person =
                checked_person(app, &invitation.email, answer.password, code, client).await?;
            let mut writes = Vec::new();
            if person.email_verified_at.is_none() {
                writes.push(verify_email_write(person.id, now)?);
            }
            (person, writes, false)
        }
        None => {
            let person = new_account(&invitation, answer, now).await?;
            let writes = create_writes(&person)?;
            (person, writes, true)
        }
    };
    let accepted = Accepted {
        invitation: &invitation,
        household: &household,
        home: home.as_ref(),
        person: &person,
        account_writes,
        new_account,
    };
    join(app, accepted, now).await?;
    Ok(person)
}

/// An acceptance whose person is known: what its transaction writes.
struct Accepted<'a> {
    invitation: &'a InvitationRecord,
    household: &'a ClientRecord,
    home: Option<&'a PropertyRecord>,
    person: &'a UserRecord,
    /// The new account, or the proof of the existing one's address.
    account_writes: Vec<TxWrite>,
    new_account: bool,
}

/// The grant of an accepted invitation, with the link spent (and the
/// guest's stay moved) in the same transaction.
async fn join(app: &App, accepted: Accepted<'_>, now: OffsetDateTime) -> Result<(), Error> {
    let Accepted {
        invitation,
        household,
        home,
        person,
        account_writes,
        new_account,
    } = accepted;
    let terms = GrantTerms {
        role: invitation.role,
        property_id: invitation.property_id,
        starts_at: invitation.starts_at,
        expires_at: invitation.expires_at,
    };
    let mut grant = new_grant(
        household,
        person.id,
        terms,
        invitation.invited_by,
        invitation.reservation_key.clone(),
        now,
    );
    grant.network = invitation.require_network.then(|| GrantNetwork {
        phone_thing_id: invitation.phone_thing_id.map(EndpointId::from),
        checked_at: None,
        met: None,
        last_seen: None,
    });
    let granted = granted_writes(
        app,
        household,
        &grant,
        &person.email,
        home,
        ChangedBy::Invitation,
    )?;
    // A guest's stay may move while the password is checked (the stay
    // sweep marks its check-in): read it again and retry, a few times,
    // as long as it still waits for this invitation.
    let mut stay_moves = 0;
    loop {
        let stay = waiting_stay(app, invitation).await?;
        let mut writes = spend_writes(invitation, stay.as_ref(), person, now)?;
        let spend_len = writes.len();
        writes.extend(account_writes.iter().cloned());
        writes.extend(granted.iter().cloned());
        match Members(&*app.store).add(&grant, writes).await {
            Ok(()) => break,
            Err(MemberError::Refused { write })
                if stay.is_some() && write + 1 == spend_len && stay_moves < 3 =>
            {
                stay_moves += 1;
            }
            // The link was spent, withdrawn or resent since it was opened
            // (or the guest's stay ended).
            Err(MemberError::Refused { write }) if write < spend_len => {
                return Err(dead_invitation());
            }
            Err(MemberError::Refused { .. }) if new_account => {
                return Err(Error::conflict(
                    "this address got an account meanwhile: accept again with that account's password",
                ));
            }
            Err(MemberError::Refused { .. }) => return Err(dead_invitation()),
            Err(MemberError::AlreadyMember) => return Err(already_member()),
            Err(e) => return Err(member_error(e)),
        }
    }
    tracing::info!(tenant = %household.tenant_id, client = %household.id, invitation = %invitation.id, user = %person.id, new_account, "invitation accepted");
    Ok(())
}

/// The stay a guest's invitation opens, while it waits for this
/// invitation; a stay that is over (or waits for another invitation) makes
/// the link dead.
async fn waiting_stay(
    app: &App,
    invitation: &InvitationRecord,
) -> Result<Option<StayRecord>, Error> {
    let Some(key) = &invitation.reservation_key else {
        return Ok(None);
    };
    match Stays(&*app.store).get(invitation.client_id, key).await? {
        Some(stay)
            if stay.state == StayState::Invited && stay.invitation_id == Some(invitation.id) =>
        {
            Ok(Some(stay))
        }
        _ => Err(dead_invitation()),
    }
}

/// The writes that spend the link of `invitation` (and move its guest's
/// stay to `member`), first in the accepting transaction: any of them
/// failing means the link died meanwhile.
fn spend_writes(
    invitation: &InvitationRecord,
    stay: Option<&StayRecord>,
    person: &UserRecord,
    now: OffsetDateTime,
) -> Result<Vec<TxWrite>, Error> {
    let mut writes = accept_writes(invitation, now.unix_timestamp());
    if let Some(read) = stay {
        let mut moved = read.stay();
        moved.accepted().map_err(|_| dead_invitation())?;
        let next = StayRecord {
            user_id: Some(person.id),
            invitation_id: None,
            ..read.with(&moved, now)
        };
        writes.push(change_write(read, &next)?);
    }
    Ok(writes)
}

/// A new account for the invited address: named, with a password under the
/// household policy, its address proven by the link.
async fn new_account(
    invitation: &InvitationRecord,
    answer: Acceptance,
    now: OffsetDateTime,
) -> Result<UserRecord, Error> {
    let name = required_text("name", answer.name.as_deref().unwrap_or(""), NAME_MAX)?;
    if answer.totp.is_some() {
        return Err(Error::validation(
            "totp",
            "a new account has no TOTP yet: send a name and a password",
        ));
    }
    check_password(&answer.password, &invitation.email)
        .map_err(|rejected| Error::validation("password", rejected.to_string()))?;
    Ok(UserRecord {
        id: UserId::new(),
        email: invitation.email.clone(),
        name: Some(name),
        password_hash: hash_password_blocking(answer.password).await,
        email_verified_at: Some(now),
        platform_role: None,
        tenants: Default::default(),
        developer_id: None,
        mfa: None,
        units: None,
        created_at: now,
    })
}
