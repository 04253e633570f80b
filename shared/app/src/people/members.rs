//! A household's members: the member view, a grant by user id, a change of
//! level, home, stay or network condition, and the end of a membership.
//!
//! * A grant by user id: a GUEST is pinned to one home of the household for
//!   a stay that ends (a stay record like any other); an OWNER or MEMBER
//!   holds the whole household. A sandbox household adds people by
//!   invitation only. The person's claims name the household from their
//!   next sign-in or refresh.
//! * A change (absent fields stay as they are): between OWNER and MEMBER
//!   the owner count moves in the same transaction and the last owner
//!   cannot be demoted; a guest's home and stay move their stay record; a
//!   guest made OWNER or MEMBER ends the stay with `guest.checked_out` (the
//!   access stays); an owner or member made GUEST needs a home and an end
//!   and gets a stay of their own; the network condition answers as for a
//!   grant. The change applies at once: the person's sessions are signed
//!   out. Each change writes an audit entry.
//! * An end: the person's sessions are revoked first (their claims name the
//!   household), then the grant is removed; a guest's stay is checked out
//!   instead. Nobody removes themselves, and the last owner stays.

use std::collections::HashMap;

use alyt_domain::access::{HouseholdRole, Principal};
use alyt_domain::ids::{ClientId, EndpointId, PropertyId, TenantId, UserId};
use alyt_domain::membership::{GrantStatus, GrantTerms, RemovalRefused, check_removal};
use alyt_domain::stay::{StayState, StayWindow};
use alyt_stays::GuestStays;
use alyt_store::repo::audit::{AuditRecord, audit_write};
use alyt_store::repo::identity::{Sessions, Users};
use alyt_store::repo::integrations::Integrations;
use alyt_store::repo::members::{MemberError, Members, household_members};
use alyt_store::repo::stays::{StayRecord, change_write};
use alyt_store::repo::tenancy::GrantRecord;
use alyt_store::repo::widgets::Widgets;
use alyt_store::{PageKey, TxWrite};
use serde::Serialize;
use time::OffsetDateTime;
use uuid::Uuid;

use super::guests::{self, Guest, NewStay, Opened};
use super::{
    NO_HOUSEHOLD, NO_MEMBER, NewGrant, checked_grant_terms, end_membership, grant_membership,
    grant_start, household_home, inviting, managed_household, managed_page, member_error, refusal,
};
use crate::paging::Paging;
use crate::presence::checked_network;
use crate::{App, Error};

/// One person of a household: every field the people list shows is
/// present, null where it does not apply (or is not kept yet).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Member {
    pub user_id: UserId,
    /// The person's sign-in address (null if the account was deleted).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub email: Option<String>,
    /// Always null for now: the platform keeps no pictures and no
    /// operation sets one (a picture needs a checked upload or URL, and a
    /// person has no profile to change yet), so clients draw initials. It
    /// will be the picture's URL once a person can set one.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub avatar: Option<String>,
    /// The level: OWNER, MEMBER or GUEST.
    pub role: HouseholdRole,
    /// A guest's home.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub property_id: Option<PropertyId>,
    /// A guest's stay.
    #[serde(with = "time::serde::rfc3339::option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub starts_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub expires_at: Option<OffsetDateTime>,
    pub status: GrantStatus,
    /// The access condition on the home network (`requireNetwork`); null
    /// when the person has none.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub network_condition: Option<NetworkCondition>,
    /// The phone the home network watches for the condition; null when
    /// none is chosen.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub phone: Option<MemberPhone>,
    /// When the home last saw the person's phone on its network (the
    /// outcome of the last check, never an address); null when never.
    #[serde(with = "time::serde::rfc3339::option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime, required = true))]
    pub last_seen: Option<OffsetDateTime>,
    /// The booking's reservation key of a guest's stay; null otherwise.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub reservation_key: Option<String>,
    /// Who granted it; null for the household's first owner.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub invited_by: Option<UserId>,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: OffsetDateTime,
}

/// A member's access condition on the home network.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct NetworkCondition {
    /// The person is in claims only while the home proves the phone is on
    /// its network.
    pub require_network: bool,
    /// The outcome of the last check; null before the first.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub met: Option<bool>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub checked_at: Option<OffsetDateTime>,
}

/// The phone thing a condition watches.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct MemberPhone {
    pub thing_id: EndpointId,
    pub name: String,
}

impl Member {
    /// The member view of `grant`, with its condition phone's name (one get
    /// for a member under the network condition).
    pub async fn of(
        app: &App,
        grant: GrantRecord,
        email: Option<String>,
        now: OffsetDateTime,
    ) -> Result<Self, Error> {
        let phone = match grant.network.as_ref().and_then(|n| n.phone_thing_id) {
            Some(id) => Some(MemberPhone {
                thing_id: id,
                name: Integrations(&*app.store)
                    .endpoint(grant.tenant_id, id)
                    .await?
                    .map_or_else(|| "a removed phone".to_owned(), |e| e.name),
            }),
            None => None,
        };
        Ok(Self::new(grant, email, phone, now))
    }

    fn new(
        grant: GrantRecord,
        email: Option<String>,
        phone: Option<MemberPhone>,
        now: OffsetDateTime,
    ) -> Self {
        let status = GrantStatus::at(grant.starts_at, grant.ends_at, now);
        let network = grant.network.as_ref();
        let unmet = network.is_some_and(|n| n.met == Some(false));
        Self {
            user_id: grant.user_id,
            email,
            role: grant.role,
            property_id: grant.property_id,
            starts_at: grant.starts_at,
            expires_at: grant.ends_at,
            status: if status == GrantStatus::Active && unmet {
                GrantStatus::NeedsNetwork
            } else {
                status
            },
            // No operation sets a picture yet (see the field).
            avatar: None,
            network_condition: network.map(|n| NetworkCondition {
                require_network: true,
                met: n.met,
                checked_at: n.checked_at,
            }),
            phone,
            last_seen: network.and_then(|n| n.last_seen),
            reservation_key: grant.reservation_key,
            invited_by: grant.granted_by,
            created_at: grant.created_at,
        }
    }
}

/// One page of the household's people (by user id), each with their
/// sign-in address.
pub async fn members_page(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    client: ClientId,
    paging: &Paging,
) -> Result<(Vec<Member>, Option<PageKey>), Error> {
    let page = managed_page(app, caller, tenant, client, paging, household_members).await?;
    let (grants, next) = Members(&*app.store)
        .list(page.household.id, page.limit, page.after)
        .await?;
    let ids: Vec<UserId> = grants.iter().map(|g| g.user_id).collect();
    let mut emails: HashMap<UserId, String> = Users(&*app.store)
        .get_many(&ids)
        .await?
        .into_iter()
        .map(|u| (u.id, u.email))
        .collect();
    let now = app.clock.now();
    let mut members = Vec::with_capacity(grants.len());
    for g in grants {
        let email = emails.remove(&g.user_id);
        members.push(Member::of(app, g, email, now).await?);
    }
    Ok((members, next))
}

/// A grant by user id, as asked (the terms are checked here).
#[derive(Debug, Clone)]
pub struct NewMember {
    pub user_id: UserId,
    pub role: HouseholdRole,
    /// The home a GUEST is pinned to.
    pub property_id: Option<PropertyId>,
    pub starts_at: Option<OffsetDateTime>,
    pub expires_at: Option<OffsetDateTime>,
}

/// Grants a person (by user id) a place in the household: the member made.
pub async fn add_member(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    client: ClientId,
    request: NewMember,
) -> Result<Member, Error> {
    let household = managed_household(app, caller, tenant, client, NO_HOUSEHOLD).await?;
    if !inviting::grants_accounts_at_once(app, &household).await? {
        return Err(Error::forbidden(
            "a sandbox household adds people by invitation only (POST …/invitations): the person accepts the mailed link",
        ));
    }
    let now = app.clock.now();
    let terms = GrantTerms {
        role: request.role,
        property_id: request.property_id,
        starts_at: request.starts_at,
        expires_at: request.expires_at,
    };
    let terms = checked_grant_terms(terms, now)?;
    let home = household_home(app, &household, request.property_id).await?;
    let person = Users(&*app.store)
        .get(request.user_id)
        .await?
        .ok_or_else(|| Error::validation("userId", "no account has this user id"))?;
    let grant = match home {
        // A guest's stay is a stay record like any other (the sweep lets
        // them out on time).
        Some(home) if terms.role == HouseholdRole::Guest => {
            let stay = NewStay {
                home: &home,
                guest: Guest::Account(person.clone()),
                window: guests::stay_window(&terms, now),
                reservation_key: guests::generated_key(),
                network: None,
            };
            match guests::open_stay(app, caller, &household, stay).await? {
                Opened::Member(grant, _) => grant,
                Opened::Invited(..) => {
                    return Err(Error::internal("a grant by user id invited instead"));
                }
            }
        }
        home => {
            let new = NewGrant {
                person: &person,
                home: home.as_ref(),
                terms,
                reservation_key: None,
                network: None,
                also: vec![],
            };
            grant_membership(app, caller, &household, new).await?
        }
    };
    Member::of(app, grant, Some(person.email), now).await
}

/// What a change asks; absent fields stay as they are.
#[derive(Debug, Clone, Default)]
pub struct MemberChange {
    pub role: Option<HouseholdRole>,
    /// A guest's home.
    pub property_id: Option<PropertyId>,
    /// When a guest's stay starts.
    pub starts_at: Option<OffsetDateTime>,
    /// When a guest's stay ends.
    pub expires_at: Option<OffsetDateTime>,
    pub require_network: Option<bool>,
    pub phone_thing_id: Option<EndpointId>,
}

/// The kind of audit entry a change writes.
const KIND_MEMBER_CHANGED: &str = "member.changed";

/// Changes a member's level, home, stay or network condition: the member
/// as changed (signed out, so the change applies at once).
pub async fn change_member(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    client: ClientId,
    member: UserId,
    request: MemberChange,
) -> Result<Member, Error> {
    let household = managed_household(app, caller, tenant, client, NO_MEMBER).await?;
    let members = Members(&*app.store);
    let read = members
        .get(household.id, member)
        .await?
        .ok_or_else(|| Error::not_found(NO_MEMBER))?;
    let now = app.clock.now();
    let role = request.role.unwrap_or(read.role);
    let was_guest = read.role == HouseholdRole::Guest;
    let terms = match role {
        HouseholdRole::Guest => GrantTerms {
            role,
            property_id: request
                .property_id
                .or(read.property_id.filter(|_| was_guest)),
            starts_at: request.starts_at.or(read.starts_at.filter(|_| was_guest)),
            expires_at: request.expires_at.or(read.ends_at.filter(|_| was_guest)),
        },
        _ => GrantTerms {
            role,
            property_id: request.property_id,
            starts_at: request.starts_at,
            expires_at: request.expires_at,
        },
    };
    let terms = checked_grant_terms(terms, now)?;
    let home = household_home(app, &household, terms.property_id).await?;
    let phone = request.phone_thing_id;
    let network = match request.require_network {
        Some(_) => checked_network(app, &household, role, request.require_network, phone).await?,
        // A new phone for the condition the member has.
        None if phone.is_some() => {
            let require = read.network.as_ref().map(|_| true);
            checked_network(app, &household, role, require, phone).await?
        }
        // An owner holds no condition.
        None if role == HouseholdRole::Owner => None,
        None => read.network.clone(),
    };
    let home = home.map(|h| h.id);
    // Refuse before anything is written; the transaction guards it again.
    if read.role == HouseholdRole::Owner
        && role != HouseholdRole::Owner
        && members.owner_count(household.id).await? <= 1
    {
        return Err(refusal(RemovalRefused::LastOwner));
    }
    let stay = guests::open_stay_of(app, &read).await?;
    let keeper = GuestStays::new(app.store.clone(), app.clock.clone());
    let mut next = GrantRecord {
        role,
        property_id: terms.property_id,
        starts_at: grant_start(&terms, now),
        ends_at: terms.expires_at,
        reservation_key: None,
        network,
        ..read.clone()
    };
    if next == read {
        let email = Users(&*app.store).get(member).await?.map(|u| u.email);
        return Member::of(app, read, email, now).await;
    }
    let mut writes: Vec<TxWrite> = Vec::new();
    match (role, stay) {
        // A guest's stay moves with the grant.
        (HouseholdRole::Guest, Some(open)) => {
            next.reservation_key = Some(open.reservation_key.clone());
            writes.push(moved_stay(&open, &next, now)?);
        }
        // A new guest gets a stay of their own.
        (HouseholdRole::Guest, None) => {
            let key = guests::generated_key();
            next.reservation_key = Some(key.clone());
            let email = Users(&*app.store)
                .get(member)
                .await?
                .map(|u| u.email)
                .unwrap_or_default();
            let window = guests::stay_window(&terms, now);
            let property = home.unwrap_or_default();
            let opened = StayRecord {
                state: StayState::Member,
                user_id: Some(member),
                ..guests::new_stay_record(&household, property, key, email, window, caller, now)
            };
            writes.extend(keeper.opened_writes(&opened)?);
        }
        // A guest who becomes a resident: the stay is over, the access not.
        (_, Some(open)) => writes.extend(keeper.closed_writes(&open, caller.user_id()).await?),
        (_, None) => {}
    }
    writes.push(audit_write(&AuditRecord {
        id: Uuid::new_v4(),
        tenant_id: household.tenant_id,
        client_id: household.id,
        property_id: next.property_id.or(read.property_id),
        kind: KIND_MEMBER_CHANGED.to_owned(),
        actor: caller.user_id(),
        subject: Some(member),
        reservation_key: next.reservation_key.clone(),
        detail: describe(&read, &next),
        at: now,
    })?);
    members
        .change(&read, &next, writes)
        .await
        .map_err(|e| match e {
            MemberError::NotMember | MemberError::Refused { .. } => Error::conflict(
                "the member changed while this was being done; read them again and retry",
            ),
            e => member_error(e),
        })?;
    // The change applies at once: the next sign-in carries it.
    Sessions(&*app.store).revoke_all_of(member).await?;
    // A conditional member holds no widget token (a widget never signs in,
    // so the condition could not be judged for it): the ones minted before
    // the condition go now, a TV's security delegation with them.
    if next.require_network() {
        Widgets(&*app.store)
            .revoke_all_of(household.id, member)
            .await?;
    }
    tracing::info!(tenant = %household.tenant_id, client = %household.id, user = %member, from = ?read.role, to = ?next.role, "member changed");
    let email = Users(&*app.store).get(member).await?.map(|u| u.email);
    Member::of(app, next, email, now).await
}

/// The write moving the open stay `open` to the home and window of `next`
/// (a guest's grant).
fn moved_stay(
    open: &StayRecord,
    next: &GrantRecord,
    now: OffsetDateTime,
) -> Result<TxWrite, Error> {
    let mut stay = open.stay();
    stay.window = StayWindow {
        check_in: next.starts_at.unwrap_or(open.check_in),
        check_out: next.ends_at.unwrap_or(open.check_out),
    };
    let moved = StayRecord {
        property_id: next.property_id.unwrap_or(open.property_id),
        ..open.with(&stay, now)
    };
    Ok(change_write(open, &moved)?)
}

/// The audit entry's sentence for a change from `read` to `next`.
fn describe(read: &GrantRecord, next: &GrantRecord) -> String {
    let mut parts = Vec::new();
    let level = |role: HouseholdRole| format!("{role:?}").to_uppercase();
    if read.role != next.role {
        parts.push(format!(
            "level {} to {}",
            level(read.role),
            level(next.role)
        ));
    }
    if read.property_id != next.property_id {
        parts.push("home changed".to_owned());
    }
    if read.starts_at != next.starts_at || read.ends_at != next.ends_at {
        parts.push("stay changed".to_owned());
    }
    format!("Member changed: {}.", parts.join(", "))
}

/// Ends a person's membership: their sessions first, then the grant (a
/// guest's stay is checked out, with the same sign-out, notification,
/// audit entry and `guest.checked_out` as at check-out time).
pub async fn remove_member(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    client: ClientId,
    member: UserId,
) -> Result<(), Error> {
    let household = managed_household(app, caller, tenant, client, NO_MEMBER).await?;
    let members = Members(&*app.store);
    let grant = members
        .get(household.id, member)
        .await?
        .ok_or_else(|| Error::not_found(NO_MEMBER))?;
    check_removal(caller.user_id(), member).map_err(refusal)?;
    // Refuse before signing anyone out; the transaction guards it again.
    if grant.role == HouseholdRole::Owner && members.owner_count(household.id).await? <= 1 {
        return Err(refusal(RemovalRefused::LastOwner));
    }
    if let Some(stay) = guests::open_stay_of(app, &grant).await? {
        return guests::check_out_now(app, caller, &stay).await.map(|_| ());
    }
    end_membership(app, caller, &household, grant).await
}
