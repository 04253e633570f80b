//! The people operation group (spec: B People, invitations, guests; paths
//! under `/v1/tenants/{tenantId}/clients/{clientId}`): a household's
//! members, granting by user id and ending a membership.
//!
//! * `GET …/members`: everyone holding a grant, by user id, paginated.
//! * `POST …/members` `{ userId, role, propertyId?, startsAt?, expiresAt? }`:
//!   201 with the member. A GUEST is pinned to one home of the household for
//!   a stay that ends; an OWNER or MEMBER holds the whole household. The
//!   person's claims name the household from their next sign-in or refresh.
//! * `DELETE …/members/{userId}`: the person's sessions are revoked first
//!   (their claims name the household), then the grant is removed. A person
//!   cannot remove themselves and the last owner stays (409).
//!
//! Every grant and end of membership raises `notification.raised` (kinds
//! `membership.granted` / `membership.ended`) in the same transaction as the
//! change, naming the person by a masked address; the household lists it
//! (`GET /v1/notifications`) and the tenant's webhooks and stream carry it.
//! The person is mailed about it after the change (a mail failure is logged,
//! the change stands).
//!
//! Who ([`may_manage_people`]): the household's OWNER, the tenant's ADMIN,
//! platform OWNER/STAFF. Other people of the tenant and keys get 403 once
//! the household is known to exist; outside the tenant it is 404, the same
//! as a missing household.
//!
//! Store calls: list 1 get (household) + 1 query + 1 batch get (addresses)
//! per page; grant 2 gets (household, person) + 1 get (a guest's home) + 1
//! transaction, and for an owner 1 get of the owner count; removal 3 gets
//! (household, grant, person) + the person's sessions (1 query + 1 update
//! each) + 1 transaction, and for an owner 2 gets of the owner count (the
//! refusal before anyone is signed out, then the removal's own). A household
//! from before the count costs one query and put more, once.

use std::collections::HashMap;

use crate::routing::{Operations, operations};
use alyt_domain::access::{Denied, HouseholdRole, Principal};
use alyt_domain::ids::{ClientId, EndpointId, PropertyId, TenantId, UserId};
use alyt_domain::membership::{
    ChangedBy, GrantStatus, GrantTerms, KIND_MEMBERSHIP_ENDED, KIND_MEMBERSHIP_GRANTED,
    MembershipNotice, RemovalRefused, check_removal, check_terms, mask_email, may_manage_people,
    role_words,
};
use alyt_domain::stay::StayWindow;
use alyt_events::PlatformEvent;
use alyt_store::TxWrite;
use alyt_store::repo::identity::{Sessions, UserRecord, Users};
use alyt_store::repo::integrations::Integrations;
use alyt_store::repo::members::{MemberError, Members, household_members};
use alyt_store::repo::notifications::{NotificationRecord, notification_item};
use alyt_store::repo::tenancy::{ClientRecord, GrantNetwork, GrantRecord, PropertyRecord, Tenancy};
use alyt_store::repo::widgets::Widgets;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::auth::Caller;
use crate::conventions::extract::{ApiJson, ApiPath, ApiQuery};
use crate::conventions::list::{ListResponse, PageParams};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{
    MalformedId, MalformedIdOrPage, NoSuchHouseholdOrMember, NoValidToken, problem_responses,
};
use crate::ports::Email;
use crate::{ApiError, AppState};

pub mod change;
pub mod guests;
pub mod invitations;
mod inviting;
pub mod presence;

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(list_members, add_member))
        .merge(operations!(remove_member))
        .merge(invitations::routes())
        .merge(guests::routes())
        .merge(change::routes())
        .merge(presence::routes())
}

/// One person of a household: every field the people list shows is
/// present, null where it does not apply (or is not kept yet).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Member {
    pub user_id: UserId,
    /// The person's sign-in address (null if the account was deleted).
    #[schema(required = true)]
    pub email: Option<String>,
    /// Always null for now: the platform keeps no pictures and no
    /// operation sets one (a picture needs a checked upload or URL, and a
    /// person has no profile to change yet), so clients draw initials. It
    /// will be the picture's URL once a person can set one.
    #[schema(required = true)]
    pub avatar: Option<String>,
    /// The level: OWNER, MEMBER or GUEST.
    pub role: HouseholdRole,
    /// A guest's home.
    #[schema(required = true)]
    pub property_id: Option<PropertyId>,
    /// A guest's stay.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    #[schema(required = true)]
    pub starts_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    #[schema(required = true)]
    pub expires_at: Option<OffsetDateTime>,
    pub status: GrantStatus,
    /// The access condition on the home network (`requireNetwork`); null
    /// when the person has none.
    #[schema(required = true)]
    pub network_condition: Option<NetworkCondition>,
    /// The phone the home network watches for the condition; null when
    /// none is chosen.
    #[schema(required = true)]
    pub phone: Option<MemberPhone>,
    /// When the home last saw the person's phone on its network (the
    /// outcome of the last check, never an address); null when never.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime, required = true)]
    pub last_seen: Option<OffsetDateTime>,
    /// The booking's reservation key of a guest's stay; null otherwise.
    #[schema(required = true)]
    pub reservation_key: Option<String>,
    /// Who granted it; null for the household's first owner.
    #[schema(required = true)]
    pub invited_by: Option<UserId>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
}

/// A member's access condition on the home network.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NetworkCondition {
    /// The person is in claims only while the home proves the phone is on
    /// its network.
    pub require_network: bool,
    /// The outcome of the last check; null before the first.
    #[schema(required = true)]
    pub met: Option<bool>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    #[schema(required = true)]
    pub checked_at: Option<OffsetDateTime>,
}

/// The phone thing a condition watches.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MemberPhone {
    pub thing_id: EndpointId,
    pub name: String,
}

impl Member {
    /// The member view of `grant`, with its condition phone's name (one get
    /// for a member under the network condition).
    async fn of(
        state: &AppState,
        grant: GrantRecord,
        email: Option<String>,
        now: OffsetDateTime,
    ) -> Result<Self, ApiError> {
        let phone = match grant.network.as_ref().and_then(|n| n.phone_thing_id) {
            Some(id) => Some(MemberPhone {
                thing_id: id,
                name: Integrations(&*state.store)
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

/// A grant by user id.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AddMemberRequest {
    pub user_id: UserId,
    pub role: HouseholdRole,
    /// The home a GUEST is pinned to (guests only; required for them).
    pub property_id: Option<PropertyId>,
    /// When a guest's stay starts (default: now).
    #[serde(default, with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub starts_at: Option<OffsetDateTime>,
    /// When a guest's stay ends (required for guests, in the future).
    #[serde(default, with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub expires_at: Option<OffsetDateTime>,
}

const NO_HOUSEHOLD: &str = "no such household";

/// The answer when a guest's stay cannot open or move because its
/// reservation key holds another stay that is not over.
fn stay_key_in_use() -> ApiError {
    ApiError::conflict(
        "this reservation key holds a stay that is not over; check that guest out first or use another key",
    )
}

problem_responses! {
    /// The 403 of the operations on a household's people.
    NotPeopleManager = 403, "Not the household's owner, the tenant's admin or platform staff";
    /// The 404 of the operations on a household's people.
    NoHousehold = 404, "No such household (or not in the caller's tenant)";
    /// The 403 of the operations on a household's guests.
    NotGuestManager = 403, "Not the household's owner, the tenant's admin, platform staff or a DEV key with guests:write";
}

/// One answer for a missing household and a missing member, so that a
/// removal never tells which of the two exists.
const NO_MEMBER: &str = "no such household or member";

/// The household the caller manages the people of.
async fn managed_household(
    state: &AppState,
    caller: &Principal,
    tenant: TenantId,
    client: ClientId,
    missing: &'static str,
) -> Result<ClientRecord, ApiError> {
    let verdict = may_manage_people(caller, tenant, client);
    household_if(state, verdict, tenant, client, missing, |denied| match denied {
        Denied::SessionOnly => {
            ApiError::forbidden("a household's people are managed by signed-in people, not keys")
        }
        _ => ApiError::forbidden(
            "only the household's owner, the tenant's admin and platform staff manage its people",
        ),
    })
    .await
}

/// The household an access verdict is about. Existence is settled before a
/// refusal, so that a missing household and a foreign one read the same and
/// a refusal says the household exists only to those who see the tenant.
async fn household_if(
    state: &AppState,
    verdict: Result<(), Denied>,
    tenant: TenantId,
    client: ClientId,
    missing: &'static str,
    refused: impl FnOnce(Denied) -> ApiError,
) -> Result<ClientRecord, ApiError> {
    if verdict == Err(Denied::NotFound) {
        return Err(ApiError::not_found(missing));
    }
    let household = Tenancy(&*state.store)
        .client(tenant, client)
        .await?
        .ok_or_else(|| ApiError::not_found(missing))?;
    verdict.map_err(refused)?;
    Ok(household)
}

/// A household's people, by user id.
#[utoipa::path(
    get,
    path = "/v1/tenants/{tenantId}/clients/{clientId}/members",
    tag = "people",
    operation_id = "listMembers",
    params(
        ("tenantId" = TenantId, Path, description = "The tenant"),
        ("clientId" = ClientId, Path, description = "The household"),
        PageParams,
    ),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "One page of the household's people", body = ListResponse<Member>),
        MalformedIdOrPage,
        NoValidToken,
        NotPeopleManager,
        NoHousehold,
    )
)]
pub async fn list_members(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath((tenant, client)): ApiPath<(TenantId, ClientId)>,
    ApiQuery(page): ApiQuery<PageParams>,
) -> Result<Json<ListResponse<Member>>, ApiError> {
    let limit = page.limit()?;
    let household = managed_household(&state, &caller, tenant, client, NO_HOUSEHOLD).await?;
    let after = page.after_within(&household_members(household.id))?;
    let (grants, next) = Members(&*state.store)
        .list(household.id, limit, after)
        .await?;
    let ids: Vec<UserId> = grants.iter().map(|g| g.user_id).collect();
    let mut emails: HashMap<UserId, String> = Users(&*state.store)
        .get_many(&ids)
        .await?
        .into_iter()
        .map(|u| (u.id, u.email))
        .collect();
    let now = state.clock.now();
    let mut members = Vec::with_capacity(grants.len());
    for g in grants {
        let email = emails.remove(&g.user_id);
        members.push(Member::of(&state, g, email, now).await?);
    }
    Ok(Json(ListResponse::page(members, next.as_ref())))
}

/// Grants a person (by user id) a place in the household.
#[utoipa::path(
    post,
    path = "/v1/tenants/{tenantId}/clients/{clientId}/members",
    tag = "people",
    operation_id = "addMember",
    params(
        ("tenantId" = TenantId, Path, description = "The tenant"),
        ("clientId" = ClientId, Path, description = "The household"),
    ),
    request_body = AddMemberRequest,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "The person is a member; their next sign-in or refresh names the household", body = Member),
        (status = 400, description = "A malformed id or body, no account with this user id, a guest without a home of this household or a stay that ends, or a stay for an owner or member", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        (status = 403, description = "The caller does not manage the household's people, or the household is in a sandbox tenant (which adds people by invitation only)", body = Problem, content_type = "application/problem+json"),
        NoHousehold,
        (status = 409, description = "The person is already a member", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn add_member(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath((tenant, client)): ApiPath<(TenantId, ClientId)>,
    ApiJson(request): ApiJson<AddMemberRequest>,
) -> Result<(StatusCode, Json<Member>), ApiError> {
    let household = managed_household(&state, &caller, tenant, client, NO_HOUSEHOLD).await?;
    if !inviting::grants_accounts_at_once(&state, &household).await? {
        return Err(ApiError::forbidden(
            "a sandbox household adds people by invitation only (POST …/invitations): the person accepts the mailed link",
        ));
    }
    let now = state.clock.now();
    let terms = GrantTerms {
        role: request.role,
        property_id: request.property_id,
        starts_at: request.starts_at,
        expires_at: request.expires_at,
    };
    check_terms(&terms, now).map_err(|p| ApiError::validation(p.field, p.detail))?;
    let home = household_home(&state, &household, request.property_id).await?;
    let person = Users(&*state.store)
        .get(request.user_id)
        .await?
        .ok_or_else(|| ApiError::validation("userId", "no account has this user id"))?;
    let grant = match home {
        // A guest's stay is a stay record like any other (the sweep lets
        // them out on time).
        Some(home) if terms.role == HouseholdRole::Guest => {
            let window = StayWindow {
                check_in: terms.starts_at.unwrap_or(now),
                check_out: terms.expires_at.unwrap_or(now),
            };
            let guest = guests::Guest::Account(person.clone());
            let stay = guests::NewStay {
                home: &home,
                guest,
                window,
                reservation_key: guests::generated_key(),
                network: None,
            };
            match guests::open_stay(&state, &caller, &household, stay).await? {
                guests::Opened::Member(grant, _) => grant,
                guests::Opened::Invited(..) => {
                    return Err(ApiError::internal("a grant by user id invited instead"));
                }
            }
        }
        home => {
            grant_membership(
                &state,
                &caller,
                &household,
                &person,
                home.as_ref(),
                terms,
                None,
                None,
                vec![],
            )
            .await?
        }
    };
    Ok((
        StatusCode::CREATED,
        Json(Member::of(&state, grant, Some(person.email), now).await?),
    ))
}

/// The home a grant pins, which must be one of the household's (400
/// `propertyId` otherwise).
async fn household_home(
    state: &AppState,
    household: &ClientRecord,
    property: Option<PropertyId>,
) -> Result<Option<PropertyRecord>, ApiError> {
    let Some(property) = property else {
        return Ok(None);
    };
    match Tenancy(&*state.store)
        .property(household.tenant_id, property)
        .await?
    {
        Some(home) if home.client_id == household.id => Ok(Some(home)),
        _ => Err(ApiError::validation(
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
        starts_at: match terms.role {
            HouseholdRole::Guest => Some(terms.starts_at.unwrap_or(now)),
            _ => None,
        },
        ends_at: terms.expires_at,
        granted_by,
        reservation_key,
        network: None,
        created_at: now,
    }
}

/// The household's notification of a new grant (and its event), for the
/// grant's transaction.
fn granted_writes(
    state: &AppState,
    household: &ClientRecord,
    grant: &GrantRecord,
    person_email: &str,
    home: Option<&PropertyRecord>,
    by: ChangedBy,
) -> Result<Vec<TxWrite>, ApiError> {
    let notice = MembershipNotice {
        person: &mask_email(person_email),
        household: &household.name,
        role: grant.role,
        home: home.map(|h| h.name.as_str()),
        by,
    };
    let (title, body) = notice.granted();
    notification_writes(
        state,
        grant,
        KIND_MEMBERSHIP_GRANTED,
        title,
        body,
        grant.created_at,
    )
}

/// Grants `person` a role in `household` on checked `terms`, with the
/// household's notification in the same write, and tells the person.
#[allow(clippy::too_many_arguments)]
async fn grant_membership(
    state: &AppState,
    caller: &Principal,
    household: &ClientRecord,
    person: &UserRecord,
    home: Option<&PropertyRecord>,
    terms: GrantTerms,
    reservation_key: Option<String>,
    network: Option<GrantNetwork>,
    also: Vec<TxWrite>,
) -> Result<GrantRecord, ApiError> {
    let now = state.clock.now();
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
        state,
        household,
        &grant,
        &person.email,
        home,
        by,
    )?);
    Members(&*state.store)
        .add(&grant, writes)
        .await
        .map_err(|e| match e {
            // The only conditioned writes callers add: a guest's stay.
            MemberError::Refused { .. } => stay_key_in_use(),
            e => member_error(e),
        })?;
    tell_person(
        state,
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

/// Ends a person's membership: their sessions first, then the grant.
#[utoipa::path(
    delete,
    path = "/v1/tenants/{tenantId}/clients/{clientId}/members/{userId}",
    tag = "people",
    operation_id = "removeMember",
    params(
        ("tenantId" = TenantId, Path, description = "The tenant"),
        ("clientId" = ClientId, Path, description = "The household"),
        ("userId" = UserId, Path, description = "The member"),
    ),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "The membership ended; the person's sessions were revoked"),
        MalformedId,
        NoValidToken,
        NotPeopleManager,
        NoSuchHouseholdOrMember,
        (status = 409, description = "Removing yourself, or the household's last owner", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn remove_member(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath((tenant, client, member)): ApiPath<(TenantId, ClientId, UserId)>,
) -> Result<StatusCode, ApiError> {
    let household = managed_household(&state, &caller, tenant, client, NO_MEMBER).await?;
    let members = Members(&*state.store);
    let grant = members
        .get(household.id, member)
        .await?
        .ok_or_else(|| ApiError::not_found(NO_MEMBER))?;
    check_removal(caller.user_id(), member).map_err(refusal)?;
    // Refuse before signing anyone out; the transaction guards it again.
    if grant.role == HouseholdRole::Owner && members.owner_count(household.id).await? <= 1 {
        return Err(refusal(RemovalRefused::LastOwner));
    }
    // A guest's grant ends with their stay: the stay is checked out (the
    // same sign-out, notification, audit entry and guest.checked_out as at
    // check-out time).
    if let Some(stay) = guests::open_stay_of(&state, &grant).await? {
        return guests::check_out_now(&state, &caller, &stay)
            .await
            .map(|_| StatusCode::NO_CONTENT);
    }
    end_membership(&state, &caller, &household, grant).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Ends `grant`: the person's sessions first (signed out everywhere), then
/// the grant with the household's notification in the same write, and the
/// person is told.
async fn end_membership(
    state: &AppState,
    caller: &Principal,
    household: &ClientRecord,
    grant: GrantRecord,
) -> Result<(), ApiError> {
    let member = grant.user_id;
    let members = Members(&*state.store);
    let person = Users(&*state.store).get(member).await?;
    let signed_out = Sessions(&*state.store).revoke_all_of(member).await?;
    Widgets(&*state.store)
        .revoke_all_of(household.id, member)
        .await?;
    let now = state.clock.now();
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
    let writes = notification_writes(state, &grant, KIND_MEMBERSHIP_ENDED, title, body, now)?;
    members.remove(&grant, writes).await.map_err(member_error)?;
    if let Some(person) = &person {
        tell_person(
            state,
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

fn refusal(refused: RemovalRefused) -> ApiError {
    ApiError::conflict(refused.to_string())
}

fn member_error(e: MemberError) -> ApiError {
    match e {
        MemberError::AlreadyMember => ApiError::conflict(
            "this person is already a member of the household; remove that membership first to change it",
        ),
        MemberError::NotMember => ApiError::not_found(NO_MEMBER),
        MemberError::LastOwner => refusal(RemovalRefused::LastOwner),
        // Only callers that add conditioned writes of their own see this,
        // and they map it themselves first.
        MemberError::Refused { .. } => {
            ApiError::conflict("the household changed while this was being done; try again")
        }
        MemberError::Store(e) => e.into(),
    }
}

/// The notification of a membership change and its `notification.raised`
/// event, for the change's transaction. A guest's notification concerns
/// the home; every one names the household.
fn notification_writes(
    state: &AppState,
    grant: &GrantRecord,
    kind: &str,
    title: String,
    body: String,
    at: OffsetDateTime,
) -> Result<Vec<TxWrite>, ApiError> {
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
    writes.extend(state.event_writes(grant.tenant_id, vec![event])?);
    Ok(writes)
}

/// Mail to the person about their membership (the notification channel);
/// the change stands if the mail fails.
async fn tell_person(state: &AppState, person: &UserRecord, subject: String, text: String) {
    let email = Email {
        to: person.email.clone(),
        subject,
        text,
        link: None,
    };
    if let Err(e) = state.mailer.send(email).await {
        tracing::warn!(user = %person.id, error = %e, "the membership mail was not sent");
    }
}
