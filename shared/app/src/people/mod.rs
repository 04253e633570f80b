//! A household's people: grants by user id, member changes and ends of
//! membership (`members`), invitations by address and their links
//! (`invitations`; sending one is `inviting`, shared with guest stays),
//! guests' stays by reservation key (`guests`), and the household's audit
//! trail ([`audit_page`]).
//!
//! Who ([`may_manage_people`]): the household's OWNER, the tenant's ADMIN,
//! platform OWNER/STAFF; guests also a DEV key with `guests:write` in its
//! sandbox. Existence is settled before a refusal: outside the tenant a
//! household answers as missing.
//!
//! Every grant and end of membership writes the household's notification
//! (`notification.raised`) in the change's own transaction, naming the
//! person by a masked address; the person is mailed after the change (a
//! mail failure is logged, the change stands).

use alyt_domain::access::{Denied, HouseholdRole, Principal};
use alyt_domain::ids::{ClientId, PropertyId, TenantId, UserId};
use alyt_domain::membership::{
    ChangedBy, GrantTerms, KIND_MEMBERSHIP_ENDED, KIND_MEMBERSHIP_GRANTED, MembershipNotice,
    RemovalRefused, check_terms, mask_email, may_manage_people, role_words,
};
use alyt_events::PlatformEvent;
use alyt_store::repo::audit::{Audit, AuditRecord, household_audit};
use alyt_store::repo::identity::{Sessions, UserRecord, Users};
use alyt_store::repo::members::{MemberError, Members};
use alyt_store::repo::notifications::{NotificationRecord, notification_item};
use alyt_store::repo::tenancy::{ClientRecord, GrantNetwork, GrantRecord, PropertyRecord, Tenancy};
use alyt_store::repo::widgets::Widgets;
use alyt_store::{ListScope, PageKey, TxWrite};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::paging::Paging;
use crate::ports::Email;
use crate::{App, Error};

pub mod guests;
pub mod invitations;
mod inviting;
pub mod members;

pub use inviting::{
    GRANT_SIGN_OUTS_PER_DAY, MAILS_PER_ADDRESS_PER_DAY, MAILS_PER_HOUSEHOLD_PER_DAY,
    checked_reservation_key,
};

pub const NO_HOUSEHOLD: &str = "no such household";

/// One answer for a missing household and a missing member, so that a
/// removal never tells which of the two exists.
pub const NO_MEMBER: &str = "no such household or member";

/// The answer when a guest's stay cannot open or move because its
/// reservation key holds another stay that is not over.
fn stay_key_in_use() -> Error {
    Error::conflict(
        "this reservation key holds a stay that is not over; check that guest out first or use another key",
    )
}

/// The household the caller manages the people of.
pub async fn managed_household(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    client: ClientId,
    missing: &'static str,
) -> Result<ClientRecord, Error> {
    let verdict = may_manage_people(caller, tenant, client);
    household_if(app, verdict, tenant, client, missing, |denied| match denied {
        Denied::SessionOnly => {
            Error::forbidden("a household's people are managed by signed-in people, not keys")
        }
        _ => Error::forbidden(
            "only the household's owner, the tenant's admin and platform staff manage its people",
        ),
    })
    .await
}

/// The household an access verdict is about. Existence is settled before a
/// refusal, so that a missing household and a foreign one read the same and
/// a refusal says the household exists only to those who see the tenant.
async fn household_if(
    app: &App,
    verdict: Result<(), Denied>,
    tenant: TenantId,
    client: ClientId,
    missing: &'static str,
    refused: impl FnOnce(Denied) -> Error,
) -> Result<ClientRecord, Error> {
    if verdict == Err(Denied::NotFound) {
        return Err(Error::not_found(missing));
    }
    let household = Tenancy(&*app.store)
        .client(tenant, client)
        .await?
        .ok_or_else(|| Error::not_found(missing))?;
    verdict.map_err(refused)?;
    Ok(household)
}

/// Where a page of one of a household's lists starts, for a caller who
/// manages its people.
struct ManagedPage {
    household: ClientRecord,
    limit: u32,
    after: Option<PageKey>,
}

/// The start of a page of the household's list `list` (members,
/// invitations, audit entries). The page size is checked before the
/// household is read, and a cursor of another list is refused.
async fn managed_page(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    client: ClientId,
    paging: &Paging,
    list: fn(ClientId) -> ListScope,
) -> Result<ManagedPage, Error> {
    let limit = paging.limit()?;
    let household = managed_household(app, caller, tenant, client, NO_HOUSEHOLD).await?;
    let after = paging.after_within(&list(household.id))?;
    Ok(ManagedPage {
        household,
        limit,
        after,
    })
}

/// One page of the household's audit trail, newest first.
pub async fn audit_page(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    client: ClientId,
    paging: &Paging,
) -> Result<(Vec<AuditRecord>, Option<PageKey>), Error> {
    let page = managed_page(app, caller, tenant, client, paging, household_audit).await?;
    Ok(Audit(&*app.store)
        .of_household(page.household.id, page.limit, page.after)
        .await?)
}

/// The home a grant pins, which must be one of the household's (400
/// `propertyId` otherwise).
async fn household_home(
    app: &App,
    household: &ClientRecord,
    property: Option<PropertyId>,
) -> Result<Option<PropertyRecord>, Error> {
    let Some(property) = property else {
        return Ok(None);
    };
    match Tenancy(&*app.store)
        .property(household.tenant_id, property)
        .await?
    {
        Some(home) if home.client_id == household.id => Ok(Some(home)),
        _ => Err(Error::validation(
            "propertyId",
            "propertyId must be a home of this household",
        )),
    }
}

/// The grant `terms` describe for `person` in `household` (a guest's stay
/// without a start starts now).
fn new_grant(
    household: &ClientRecord,
    person: UserId,
    terms: GrantTerms,
    granted_by: Option<UserId>,
    reservation_key: Option<String>,
    now: OffsetDateTime,
) -> GrantRecord {
    GrantRecord {
        client_id: household.id,
        tenant_id: household.tenant_id,
        user_id: person,
        role: terms.role,
        property_id: terms.property_id,
        starts_at: grant_start(&terms, now),
        ends_at: terms.expires_at,
        granted_by,
        reservation_key,
        network: None,
        created_at: now,
    }
}

/// When a grant on `terms` starts: a guest's stay without a start starts
/// now; an owner's or member's grant has no start (it holds at once).
fn grant_start(terms: &GrantTerms, now: OffsetDateTime) -> Option<OffsetDateTime> {
    match terms.role {
        HouseholdRole::Guest => Some(terms.starts_at.unwrap_or(now)),
        _ => None,
    }
}

/// `terms` as asked, or a 400 naming the field that does not hold.
fn checked_grant_terms(terms: GrantTerms, now: OffsetDateTime) -> Result<GrantTerms, Error> {
    check_terms(&terms, now).map_err(|p| Error::validation(p.field, p.detail))?;
    Ok(terms)
}

/// The household's notification of a new grant (and its event), for the
/// grant's transaction.
fn granted_writes(
    app: &App,
    household: &ClientRecord,
    grant: &GrantRecord,
    person_email: &str,
    home: Option<&PropertyRecord>,
    by: ChangedBy,
) -> Result<Vec<TxWrite>, Error> {
    let notice = MembershipNotice {
        person: &mask_email(person_email),
        household: &household.name,
        role: grant.role,
        home: home.map(|h| h.name.as_str()),
        by,
    };
    let (title, body) = notice.granted();
    notification_writes(
        app,
        grant,
        KIND_MEMBERSHIP_GRANTED,
        title,
        body,
        grant.created_at,
    )
}

/// A grant to make: to whom, where, on which checked terms, and what else
/// its transaction writes.
struct NewGrant<'a> {
    person: &'a UserRecord,
    home: Option<&'a PropertyRecord>,
    terms: GrantTerms,
    reservation_key: Option<String>,
    network: Option<GrantNetwork>,
    also: Vec<TxWrite>,
}

/// Grants a person a role in `household` on checked terms, with the
/// household's notification in the same write, and tells the person.
async fn grant_membership(
    app: &App,
    caller: &Principal,
    household: &ClientRecord,
    new: NewGrant<'_>,
) -> Result<GrantRecord, Error> {
    let NewGrant {
        person,
        home,
        terms,
        reservation_key,
        network,
        also,
    } = new;
    let now = app.clock.now();
    let mut grant = new_grant(
        household,
        person.id,
        terms,
        caller.user_id(),
        reservation_key,
        now,
    );
    grant.network = network;
    let by = ChangedBy::of(caller, household.tenant_id);
    let mut writes = also;
    writes.extend(granted_writes(
        app,
        household,
        &grant,
        &person.email,
        home,
        by,
    )?);
    Members(&*app.store)
        .add(&grant, writes)
        .await
        .map_err(|e| match e {
            // The only conditioned writes callers add: a guest's stay.
            MemberError::Refused { .. } => stay_key_in_use(),
            e => member_error(e),
        })?;
    tell_person(
        app,
        person,
        format!("You were added to {}", household.name),
        format!(
            "You were added to {} as {}. Sign in to the Alyt app (or refresh it) to see the household.",
            household.name,
            role_words(grant.role),
        ),
    )
    .await;
    tracing::info!(tenant = %household.tenant_id, client = %household.id, user = %person.id, role = ?grant.role, "membership granted");
    Ok(grant)
}

/// Ends `grant`: the person's sessions first (signed out everywhere), then
/// the grant with the household's notification in the same write, and the
/// person is told.
async fn end_membership(
    app: &App,
    caller: &Principal,
    household: &ClientRecord,
    grant: GrantRecord,
) -> Result<(), Error> {
    let member = grant.user_id;
    let members = Members(&*app.store);
    let person = Users(&*app.store).get(member).await?;
    let signed_out = Sessions(&*app.store).revoke_all_of(member).await?;
    Widgets(&*app.store)
        .revoke_all_of(household.id, member)
        .await?;
    let now = app.clock.now();
    let masked = person
        .as_ref()
        .map(|p| mask_email(&p.email))
        .unwrap_or_else(|| "a deleted account".to_owned());
    let notice = MembershipNotice {
        person: &masked,
        household: &household.name,
        role: grant.role,
        home: None,
        by: ChangedBy::of(caller, household.tenant_id),
    };
    let (title, body) = notice.ended();
    let writes = notification_writes(app, &grant, KIND_MEMBERSHIP_ENDED, title, body, now)?;
    members.remove(&grant, writes).await.map_err(member_error)?;
    if let Some(person) = &person {
        tell_person(
            app,
            person,
            format!("You no longer have access to {}", household.name),
            format!(
                "Your membership of {} was ended, and you were signed out. Sign in again to use your other homes.",
                household.name
            ),
        )
        .await;
    }
    tracing::info!(tenant = %household.tenant_id, client = %household.id, user = %member, signed_out, "membership ended");
    Ok(())
}

/// The answer when the address an invitation or a guest's stay names (or
/// the person accepting an invitation) holds a grant in the household
/// already.
fn already_member() -> Error {
    Error::conflict("this person is already a member of the household")
}

fn refusal(refused: RemovalRefused) -> Error {
    Error::conflict(refused.to_string())
}

fn member_error(e: MemberError) -> Error {
    match e {
        MemberError::AlreadyMember => Error::conflict(
            "this person is already a member of the household; remove that membership first to change it",
        ),
        MemberError::NotMember => Error::not_found(NO_MEMBER),
        MemberError::LastOwner => refusal(RemovalRefused::LastOwner),
        // Only callers that add conditioned writes of their own see this,
        // and they map it themselves first.
        MemberError::Refused { .. } => {
            Error::conflict("the household changed while this was being done; try again")
        }
        MemberError::Store(e) => e.into(),
    }
}

/// The notification of a membership change and its `notification.raised`
/// event, for the change's transaction. A guest's notification concerns
/// the home; every one names the household.
fn notification_writes(
    app: &App,
    grant: &GrantRecord,
    kind: &str,
    title: String,
    body: String,
    at: OffsetDateTime,
) -> Result<Vec<TxWrite>, Error> {
    let notification = NotificationRecord {
        id: Uuid::new_v4(),
        tenant_id: grant.tenant_id,
        property_id: grant.property_id,
        client_id: Some(grant.client_id),
        kind: kind.to_owned(),
        title,
        body,
        device_id: None,
        at,
    };
    let event = PlatformEvent::NotificationRaised(notification.raised());
    let mut writes = vec![TxWrite::Put {
        item: notification_item(&notification)?,
        condition: None,
    }];
    writes.extend(app.event_writes(grant.tenant_id, grant.property_id, vec![event])?);
    Ok(writes)
}

/// Mail to the person about their membership (the notification channel);
/// the change stands if the mail fails.
async fn tell_person(app: &App, person: &UserRecord, subject: String, text: String) {
    let email = Email {
        to: person.email.clone(),
        subject,
        text,
        link: None,
    };
    if let Err(e) = app.mailer.send(email).await {
        tracing::warn!(user = %person.id, error = %e, "the membership mail was not sent");
    }
}
