//! Guest stays by reservation key (spec: B `/guests/{reservationKey}`, the
//! Guest stay state table), and the household's audit trail.
//!
//! * `PUT …/guests/{reservationKey}` `{ email, name?, propertyId, checkIn,
//!   checkOut, requireNetwork?, phoneThingId? }`: a new key opens a stay
//!   (`member` when the address has a verified account, outside sandbox
//!   tenants: the grant is made and the person signed out so their next
//!   sign-in names the home;
//!   `invited` otherwise: an invitation with the stay and its mailed link);
//!   the same key with the same dates answers the stay as it is, with new
//!   dates moves it (and its grant or invitation). `guest.invited` when a
//!   stay opens.
//! * `GET …/guests/{reservationKey}`: `{ reservationKey, state, email,
//!   propertyId, checkIn, checkOut, requireNetwork }`.
//! * `DELETE …/guests/{reservationKey}`: checks the guest out now (see
//!   `alyt-stays`); again answers the stay that is over.
//! * `GET …/audit`: the household's audit entries, newest first (owners and
//!   staff).
//!
//! Every guest's stay is one of these records, whichever way the guest
//! arrived (this API, an invitation, a grant by user id): a guest added
//! without a reservation key gets one (`stay-…`), so the stay sweep lets
//! every guest out on time.
//!
//! Who: the household's owner, the tenant's admin and platform staff, and a
//! DEV key with `guests:write` in its sandbox ([`may_manage_guests`]).

use alyt_domain::access::{Denied, HouseholdRole, Principal};
use alyt_domain::ids::{ClientId, EndpointId, InvitationId, PropertyId, TenantId};
use alyt_domain::membership::{GrantTerms, may_manage_guests};
use alyt_domain::stay::{DatesChange, StayEnd, StayState, StayWindow};
use alyt_stays::{GuestStays, Moved};
use alyt_store::TxWrite;
use alyt_store::repo::audit::{Audit, AuditRecord, household_audit};
use alyt_store::repo::identity::{Sessions, UserRecord, Users, email_key};
use alyt_store::repo::invitations::{InvitationRecord, Invitations, stay_write};
use alyt_store::repo::members::{Members, stay_window_write};
use alyt_store::repo::stays::{StayRecord, Stays, change_write};
use alyt_store::repo::tenancy::{ClientRecord, GrantNetwork, GrantRecord, PropertyRecord};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use super::inviting::{Terms, checked_reservation_key, invite};
use super::presence::checked_network;
use super::{NO_HOUSEHOLD, grant_membership, household_home, managed_household, stay_key_in_use};
use super::{NoHousehold, NotGuestManager, NotPeopleManager, household_if};
use crate::auth::Caller;
use crate::conventions::extract::{ApiJson, ApiPath, ApiQuery, PathText};
use crate::conventions::list::{ListResponse, PageParams, listed};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{
    MalformedIdOrKey, MalformedIdOrPage, NoValidToken, TooManyInvitationMails,
};
use crate::conventions::text::{checked_email, optional_text};
use crate::routing::{Operations, operations};
use crate::{ApiError, AppState};

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(put_guest, get_guest, check_out_guest))
        .merge(operations!(list_audit))
}

const NAME_MAX: usize = 100;
const NO_STAY: &str = "no such household or stay";

/// A guest's stay as its household and booking system see it.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GuestStay {
    pub reservation_key: String,
    /// `invited` (the invitation waits), `member` (the guest holds the
    /// grant) or `checked-out`.
    pub state: StayState,
    pub email: String,
    pub property_id: PropertyId,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub check_in: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
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

/// A stay by reservation key.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PutGuestRequest {
    pub email: String,
    #[serde(default)]
    pub name: Option<String>,
    /// The home of the household the guest stays in.
    pub property_id: PropertyId,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub check_in: OffsetDateTime,
    /// In the future, after `checkIn`.
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub check_out: OffsetDateTime,
    #[serde(default)]
    pub require_network: Option<bool>,
    #[serde(default)]
    pub phone_thing_id: Option<Uuid>,
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

/// Opens `guest`'s stay in `home` for `window` under `reservation_key`: the
/// grant and the stay in one transaction (an account), or the invitation,
/// its link and the stay (an address). `guest.invited` either way.
pub(super) async fn open_stay(
    state: &AppState,
    caller: &Principal,
    household: &ClientRecord,
    stay: NewStay<'_>,
) -> Result<Opened, ApiError> {
    let NewStay {
        home,
        guest,
        window,
        reservation_key,
        network,
    } = stay;
    let now = state.clock.now();
    let stays = GuestStays::new(state.store.clone(), state.clock.clone());
    let (email, name) = match &guest {
        Guest::Account(person) => (person.email.clone(), person.name.clone()),
        Guest::Address { email, name } => (email.clone(), name.clone()),
    };
    let mut stay = StayRecord {
        reservation_key: reservation_key.clone(),
        tenant_id: household.tenant_id,
        client_id: household.id,
        property_id: home.id,
        email,
        name,
        check_in: window.check_in,
        check_out: window.check_out,
        require_network: network.is_some(),
        phone_thing_id: network
            .as_ref()
            .and_then(|n| n.phone_thing_id)
            .map(|id| id.0),
        state: StayState::Invited,
        user_id: None,
        invitation_id: None,
        checked_in_at: None,
        checked_out_at: None,
        opened_by: caller.user_id(),
        created_at: now,
        updated_at: now,
        rev: 0,
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
            let grant = grant_membership(
                state,
                caller,
                household,
                &person,
                Some(home),
                terms,
                Some(reservation_key),
                network,
                also,
            )
            .await?;
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
            let invitation = invite(state, caller, household, Some(home), terms, id, also).await?;
            Ok(Opened::Invited(invitation, stay))
        }
    }
}

/// The household whose guests the caller manages; refusals as for people,
/// plus the key's.
async fn guest_household(
    state: &AppState,
    caller: &Principal,
    tenant: TenantId,
    client: ClientId,
    missing: &'static str,
) -> Result<ClientRecord, ApiError> {
    let verdict = may_manage_guests(caller, tenant, client);
    household_if(state, verdict, tenant, client, missing, |denied| match denied {
        Denied::MissingScope(_) | Denied::ConnectorOnly => ApiError::forbidden(denied.to_string()),
        _ => ApiError::forbidden(
            "only the household's owner, the tenant's admin, platform staff and keys with guests:write manage its guests",
        ),
    })
    .await
}

/// Opens or moves a guest's stay by reservation key.
#[utoipa::path(
    put,
    path = "/v1/tenants/{tenantId}/clients/{clientId}/guests/{reservationKey}",
    tag = "people",
    operation_id = "putGuest",
    params(
        ("tenantId" = TenantId, Path, description = "The tenant"),
        ("clientId" = ClientId, Path, description = "The household"),
        ("reservationKey" = String, Path, description = "The booking's reservation key (1-100 letters, digits, '.', '_', ':' or '-')"),
    ),
    request_body = PutGuestRequest,
    security(("bearer" = ["guests:write"])),
    responses(
        (status = 201, description = "A new stay: `member` (a verified account got the grant and was signed out to see it; never in a sandbox tenant) or `invited` (an invitation and its link were mailed); guest.invited", body = GuestStay),
        (status = 200, description = "The stay already had these dates (it is answered as it is), or it moved to the new ones", body = GuestStay),
        (status = 400, description = "A malformed id, key or body: the address, a home that is not the household's, a stay that does not end in the future or starts after it ends, or the network condition", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        NotGuestManager,
        NoHousehold,
        (status = 409, description = "The key holds another guest's or another home's stay that is not over, the person is already a member of the household otherwise, or the stay changed meanwhile", body = Problem, content_type = "application/problem+json"),
        TooManyInvitationMails,
    )
)]
pub async fn put_guest(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath((tenant, client, PathText(key))): ApiPath<(TenantId, ClientId, PathText)>,
    ApiJson(request): ApiJson<PutGuestRequest>,
) -> Result<(StatusCode, Json<GuestStay>), ApiError> {
    let household = guest_household(&state, &caller, tenant, client, NO_HOUSEHOLD).await?;
    let key = checked_reservation_key(&key)?;
    let now = state.clock.now();
    let email = checked_email(&request.email)?;
    let name = optional_text("name", request.name.as_deref(), NAME_MAX)?;
    let window = StayWindow::checked(request.check_in, request.check_out, now)
        .map_err(|p| ApiError::validation(p.field, p.detail))?;
    let network = checked_network(
        &state,
        &household,
        HouseholdRole::Guest,
        request.require_network,
        request.phone_thing_id.map(EndpointId::from),
    )
    .await?;
    let home = household_home(&state, &household, Some(request.property_id))
        .await?
        .ok_or_else(|| ApiError::validation("propertyId", "propertyId names a home"))?;
    let read = Stays(&*state.store).get(household.id, &key).await?;
    if let Some(open) = read.filter(|s| s.state != StayState::CheckedOut) {
        if email_key(&open.email) != email_key(&email) || open.property_id != home.id {
            return Err(stay_key_in_use());
        }
        let moved = move_stay(&state, &open, window).await?;
        return Ok((StatusCode::OK, Json(GuestStay::from(&moved))));
    }
    let account = Users(&*state.store).find_by_email(&email).await?;
    if let Some(account) = &account
        && Members(&*state.store)
            .get(household.id, account.id)
            .await?
            .is_some()
    {
        return Err(ApiError::conflict(
            "this person is already a member of the household",
        ));
    }
    // In a sandbox every guest is invited, account or not (see `inviting`).
    let at_once = super::inviting::grants_accounts_at_once(&state, &household).await?;
    let guest = match account.filter(|a| at_once && a.email_verified_at.is_some()) {
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
    let opened = open_stay(&state, &caller, &household, stay).await?;
    let stay = match opened {
        Opened::Member(grant, stay) => {
            // Their claims name the home from their next sign-in.
            super::inviting::sign_out_for_grant(&state, grant.user_id).await?;
            stay
        }
        Opened::Invited(_, stay) => stay,
    };
    Ok((StatusCode::CREATED, Json(GuestStay::from(&stay))))
}

/// Moves the open stay `read` to `window` (the same dates change nothing),
/// with its grant's or its invitation's stay in the same transaction.
async fn move_stay(
    state: &AppState,
    read: &StayRecord,
    window: StayWindow,
) -> Result<StayRecord, ApiError> {
    let mut stay = read.stay();
    match stay.change_dates(window) {
        Ok(DatesChange::Same) => return Ok(read.clone()),
        Ok(DatesChange::Moved) => {}
        Err(_) => return Err(stay_key_in_use()),
    }
    let next = read.with(&stay, state.clock.now());
    let mut writes: Vec<TxWrite> = vec![change_write(read, &next)?];
    match (read.state, read.user_id, read.invitation_id) {
        (StayState::Member, Some(user), _) => {
            if let Some(grant) = Members(&*state.store).get(read.client_id, user).await? {
                writes.push(stay_window_write(
                    &grant,
                    window.check_in,
                    window.check_out,
                )?);
            }
        }
        (StayState::Invited, _, Some(id)) => {
            if let Some(invitation) = Invitations(&*state.store).get(read.client_id, id).await? {
                writes.push(stay_write(&invitation, window.check_in, window.check_out)?);
            }
        }
        _ => {}
    }
    match state.store.transact(writes).await {
        Ok(()) => {
            // The guest's claims carry the old window until their next
            // sign-in: sign them out, so a shortened stay holds at once.
            if let (StayState::Member, Some(user)) = (read.state, read.user_id) {
                Sessions(&*state.store).revoke_all_of(user).await?;
            }
            Ok(next)
        }
        Err(e) if e.is_condition_failure() => Err(ApiError::conflict(
            "the stay changed while it was being moved; read it and try again",
        )),
        Err(e) => Err(e.into()),
    }
}

/// A guest's stay by reservation key.
#[utoipa::path(
    get,
    path = "/v1/tenants/{tenantId}/clients/{clientId}/guests/{reservationKey}",
    tag = "people",
    operation_id = "getGuest",
    params(
        ("tenantId" = TenantId, Path, description = "The tenant"),
        ("clientId" = ClientId, Path, description = "The household"),
        ("reservationKey" = String, Path, description = "The booking's reservation key"),
    ),
    security(("bearer" = ["guests:write"])),
    responses(
        (status = 200, description = "The stay: invited, member or checked-out", body = GuestStay),
        MalformedIdOrKey,
        NoValidToken,
        NotGuestManager,
        (status = 404, description = "No such household or stay (the record of a stay that is over is kept 90 days)", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn get_guest(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath((tenant, client, PathText(key))): ApiPath<(TenantId, ClientId, PathText)>,
) -> Result<Json<GuestStay>, ApiError> {
    let household = guest_household(&state, &caller, tenant, client, NO_STAY).await?;
    let key = checked_reservation_key(&key)?;
    let stay = Stays(&*state.store)
        .get(household.id, &key)
        .await?
        .ok_or_else(|| ApiError::not_found(NO_STAY))?;
    Ok(Json(GuestStay::from(&stay)))
}

/// Checks a guest out now.
#[utoipa::path(
    delete,
    path = "/v1/tenants/{tenantId}/clients/{clientId}/guests/{reservationKey}",
    tag = "people",
    operation_id = "checkOutGuest",
    params(
        ("tenantId" = TenantId, Path, description = "The tenant"),
        ("clientId" = ClientId, Path, description = "The household"),
        ("reservationKey" = String, Path, description = "The booking's reservation key"),
    ),
    security(("bearer" = ["guests:write"])),
    responses(
        (status = 200, description = "Checked out (the guest's sessions were signed out first; the household is told, an audit entry written, guest.checked_out raised); a stay already over is answered as it is", body = GuestStay),
        MalformedIdOrKey,
        NoValidToken,
        NotGuestManager,
        (status = 404, description = "No such household or stay", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The stay changed while it was being checked out; try again", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn check_out_guest(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath((tenant, client, PathText(key))): ApiPath<(TenantId, ClientId, PathText)>,
) -> Result<Json<GuestStay>, ApiError> {
    let household = guest_household(&state, &caller, tenant, client, NO_STAY).await?;
    let key = checked_reservation_key(&key)?;
    let stays = Stays(&*state.store);
    let read = stays
        .get(household.id, &key)
        .await?
        .ok_or_else(|| ApiError::not_found(NO_STAY))?;
    let stay = check_out_now(&state, &caller, &read).await?;
    Ok(Json(GuestStay::from(&stay)))
}

/// The open stay `grant` (a guest's) belongs to, if any.
pub(super) async fn open_stay_of(
    state: &AppState,
    grant: &GrantRecord,
) -> Result<Option<StayRecord>, ApiError> {
    let (HouseholdRole::Guest, Some(key)) = (grant.role, &grant.reservation_key) else {
        return Ok(None);
    };
    Ok(Stays(&*state.store)
        .get(grant.client_id, key)
        .await?
        .filter(|s| s.state == StayState::Member && s.user_id == Some(grant.user_id)))
}

/// Checks the guest of `read` out now, by the caller (a key is a booking
/// system, a person the household); the stay as it is afterwards.
pub(super) async fn check_out_now(
    state: &AppState,
    caller: &Principal,
    read: &StayRecord,
) -> Result<StayRecord, ApiError> {
    let end = match caller {
        Principal::Key { .. } => StayEnd::BookingSystem,
        Principal::Person { .. } | Principal::Widget { .. } | Principal::Routine { .. } => {
            StayEnd::Household
        }
    };
    let keeper = GuestStays::new(state.store.clone(), state.clock.clone());
    // Another writer may move the stay between the read and the write (the
    // stay sweep marking the check-in): check out what is stored then.
    let mut read = read.clone();
    for _ in 0..CHECK_OUT_ATTEMPTS {
        match keeper.check_out(&read, end, caller.user_id()).await? {
            Moved::Done(stay) => return Ok(*stay),
            Moved::Raced => match Stays(&*state.store)
                .get(read.client_id, &read.reservation_key)
                .await?
            {
                Some(stay) if stay.state == StayState::CheckedOut => return Ok(stay),
                Some(stay) => read = stay,
                None => return Err(ApiError::not_found(NO_STAY)),
            },
        }
    }
    Err(ApiError::conflict(
        "the stay changed while it was being checked out; try again",
    ))
}

/// Check-outs tried against a stay that keeps changing before 409.
const CHECK_OUT_ATTEMPTS: usize = 4;

/// One entry of a household's audit trail.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntry {
    pub id: Uuid,
    /// What happened: `guest.checked_out`.
    pub kind: String,
    #[schema(required = true)]
    pub property_id: Option<PropertyId>,
    /// Who acted; null for the platform itself (the stay sweep) or a key.
    #[schema(required = true)]
    pub actor: Option<alyt_domain::ids::UserId>,
    /// Whom it concerns; null for a guest who never accepted.
    #[schema(required = true)]
    pub subject: Option<alyt_domain::ids::UserId>,
    #[schema(required = true)]
    pub reservation_key: Option<String>,
    pub detail: String,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub at: OffsetDateTime,
}

impl From<AuditRecord> for AuditEntry {
    fn from(r: AuditRecord) -> Self {
        Self {
            id: r.id,
            kind: r.kind,
            property_id: r.property_id,
            actor: r.actor,
            subject: r.subject,
            reservation_key: r.reservation_key,
            detail: r.detail,
            at: r.at,
        }
    }
}

/// The household's audit trail, newest first.
#[utoipa::path(
    get,
    path = "/v1/tenants/{tenantId}/clients/{clientId}/audit",
    tag = "people",
    operation_id = "listAudit",
    params(
        ("tenantId" = TenantId, Path, description = "The tenant"),
        ("clientId" = ClientId, Path, description = "The household"),
        PageParams,
    ),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "One page of the household's audit entries, newest first", body = ListResponse<AuditEntry>),
        MalformedIdOrPage,
        NoValidToken,
        NotPeopleManager,
        NoHousehold,
    )
)]
pub async fn list_audit(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath((tenant, client)): ApiPath<(TenantId, ClientId)>,
    ApiQuery(page): ApiQuery<PageParams>,
) -> Result<Json<ListResponse<AuditEntry>>, ApiError> {
    let limit = page.limit()?;
    let household = managed_household(&state, &caller, tenant, client, NO_HOUSEHOLD).await?;
    let after = page.after_within(&household_audit(household.id))?;
    let found = Audit(&*state.store)
        .of_household(household.id, limit, after)
        .await?;
    Ok(listed(found, AuditEntry::from))
}
