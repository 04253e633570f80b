//! Invitations (spec: B `POST /invitations`, A `/auth/invitations/{token}`;
//! the Invitation state table; Authentication 10; Limits: one use, 7 days).
//!
//! Managing (under `/v1/tenants/{t}/clients/{c}`, owner or staff, like the
//! rest of a household's people):
//! * `POST …/invitations` `{ email, name?, role, propertyId?, startsAt?,
//!   expiresAt?, requireNetwork?, phoneThingId?, reservationKey? }`: an
//!   address with a verified account becomes a member at once (`added`: the
//!   person's sessions are signed out so their next sign-in names the
//!   household; person and household are told); any other address gets an
//!   invitation and a mail with a one-time link (`invited`).
//! * `GET …/invitations`: the pending ones (`waiting`, or `link-expired`:
//!   resend it), paginated; `POST …/invitations/{id}/resend`: a new link
//!   for 7 days, the old one dies; `DELETE …/invitations/{id}`: withdrawn,
//!   its link dies.
//!
//! Opening (no session, under `/v1/auth`, the auth group's Lambda):
//! * `GET /auth/invitations/{token}`: the household, the home, who invited,
//!   the role, the stay, the masked address and whether it has an account.
//! * `POST /auth/invitations/{token}/accept`: a new person sends `{ name,
//!   password }` (the household password policy), an existing account `{
//!   password, totp? }`; the answer is the login response, and the
//!   acceptance proves the address (the account's email-verified time).
//!
//! Every dead link (unknown, spent, withdrawn, expired, or a stay that is
//! over) answers 410 with one text. The link is spent in the transaction
//! that makes the grant (`repo::invitations`), so of concurrent accepts
//! exactly one succeeds. Links carry the token in the query of a console
//! page (`{site}/invitation?token=…`); the API takes it in the path, and the
//! request log names the route, never the token.
//!
//! `requireNetwork` (Authentication 8) is refused with a 400 for now: no
//! home has a presence signal yet (the network controller arrives with the
//! rest of the condition); an owner can never be given it.

use alyt_domain::access::{HouseholdRole, Principal, SessionKind};
use alyt_domain::ids::{ClientId, EndpointId, InvitationId, PropertyId, TenantId};
use alyt_domain::invitation::{LINK_LIFETIME, PendingState};
use alyt_domain::membership::{ChangedBy, GrantTerms, check_terms, mask_email};
use alyt_domain::password::check_password;
use alyt_domain::stay::{StayState, StayWindow};
use alyt_store::TxWrite;
use alyt_store::repo::identity::{UserRecord, Users, create_writes, verify_email_write};
use alyt_store::repo::invitations::{
    InvitationRecord, Invitations, accept_writes, household_invitations,
};
use alyt_store::repo::members::{MemberError, Members};
use alyt_store::repo::stays::{StayRecord, Stays, change_write};
use alyt_store::repo::tenancy::{ClientRecord, PropertyRecord, Tenancy};
use alyt_store::repo::tenancy::{GrantNetwork, GrantRecord};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use super::inviting::{
    NO_INVITATION, Terms, checked_reservation_key, invitation_error, invite, mail_link,
};
use super::{
    Member, NO_HOUSEHOLD, grant_membership, granted_writes, guests, household_home,
    managed_household, member_error, new_grant, presence, stay_key_in_use,
};
use super::{NoHousehold, NotPeopleManager};
use crate::auth::secrets::{hash_password_blocking, random_token, sha256_hex};
use crate::auth::sessions::{self, TokenPair};
use crate::auth::{Caller, credentials, totp};
use crate::conventions::extract::{ApiJson, ApiPath, ApiQuery, PathText};
use crate::conventions::list::{ListResponse, PageParams, listed};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{
    InvitationLinkSpent, MalformedId, MalformedIdOrPage, NoValidToken, TooManyFailedAttempts,
    TooManyInvitationMails,
};
use crate::conventions::text::{checked_email, optional_text, required_text};
use crate::routing::{Operations, operations};
use crate::{ApiError, AppState, Client};

/// The household's side: owner or staff, with a session.
pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(create_invitation, list_invitations))
        .merge(operations!(resend_invitation))
        .merge(operations!(withdraw_invitation))
}

/// The invitee's side: no session (the auth group).
pub fn public_routes() -> Operations {
    Operations::new()
        .merge(operations!(read_invitation))
        .merge(operations!(accept_invitation))
}

const NAME_MAX: usize = 100;
/// Longer than any token we issue: such a link is dead without a lookup.
const TOKEN_MAX: usize = 200;

/// The one answer for every link that does not work.
pub fn dead_invitation() -> ApiError {
    ApiError::gone(
        "this invitation link is no longer valid; ask the household to send a new invitation",
    )
}

/// A new invitation.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateInvitationRequest {
    /// The person's address.
    pub email: String,
    /// How the household calls the person (shown in the mail).
    #[serde(default)]
    pub name: Option<String>,
    pub role: HouseholdRole,
    /// The home a GUEST is pinned to (guests only; required for them).
    #[serde(default)]
    pub property_id: Option<PropertyId>,
    /// When a guest's stay starts (default: when the grant is made).
    #[serde(default, with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub starts_at: Option<OffsetDateTime>,
    /// When a guest's stay ends (required for guests, in the future).
    #[serde(default, with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub expires_at: Option<OffsetDateTime>,
    /// The person is in claims only while the home sees their phone on its
    /// network (never for an owner).
    #[serde(default)]
    pub require_network: Option<bool>,
    /// The phone thing the condition watches (with `requireNetwork`).
    #[serde(default)]
    pub phone_thing_id: Option<Uuid>,
    /// A booking's reservation key for a guest's stay (guests only; 1-100
    /// letters, digits, `.`, `_`, `:` or `-`).
    #[serde(default)]
    pub reservation_key: Option<String>,
}

/// What an invitation did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum InvitationOutcome {
    /// The address has a verified account: it is a member now.
    Added,
    /// An invitation and its one-time link were sent.
    Invited,
}

/// The answer to `POST …/invitations`: the member when `added`, the
/// invitation when `invited` (the other is null).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InvitationResult {
    pub status: InvitationOutcome,
    #[schema(required = true)]
    pub member: Option<Member>,
    #[schema(required = true)]
    pub invitation: Option<Invitation>,
}

/// A pending invitation as the household's managers see it (never its link).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Invitation {
    pub id: InvitationId,
    pub email: String,
    #[schema(required = true)]
    pub name: Option<String>,
    pub role: HouseholdRole,
    #[schema(required = true)]
    pub property_id: Option<PropertyId>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime, required = true)]
    pub starts_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime, required = true)]
    pub expires_at: Option<OffsetDateTime>,
    pub require_network: bool,
    #[schema(required = true)]
    pub phone_thing_id: Option<Uuid>,
    #[schema(required = true)]
    pub reservation_key: Option<String>,
    /// Who invited; null when it was not a person (none so far).
    #[schema(required = true)]
    pub invited_by: Option<alyt_domain::ids::UserId>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    /// When the current link was sent.
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub sent_at: OffsetDateTime,
    /// When the current link stops working (7 days after it was sent).
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub link_expires_at: OffsetDateTime,
    /// How many links were sent (1, plus one per resend).
    pub sends: u32,
    /// `waiting`, or `link-expired` (resend it to revive it).
    pub state: PendingState,
}

impl Invitation {
    fn new(record: InvitationRecord, now: OffsetDateTime) -> Self {
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
/// household's phones: [`presence::checked_network`]).
fn checked_terms(
    request: &CreateInvitationRequest,
    now: OffsetDateTime,
) -> Result<Terms, ApiError> {
    let email = checked_email(&request.email)?;
    let name = optional_text("name", request.name.as_deref(), NAME_MAX)?;
    let grant = GrantTerms {
        role: request.role,
        property_id: request.property_id,
        starts_at: request.starts_at,
        expires_at: request.expires_at,
    };
    check_terms(&grant, now).map_err(|p| ApiError::validation(p.field, p.detail))?;
    let reservation_key = match &request.reservation_key {
        None => None,
        Some(_) if request.role != HouseholdRole::Guest => {
            return Err(ApiError::validation(
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

/// Invites a person to the household by address.
#[utoipa::path(
    post,
    path = "/v1/tenants/{tenantId}/clients/{clientId}/invitations",
    tag = "people",
    operation_id = "createInvitation",
    params(
        ("tenantId" = TenantId, Path, description = "The tenant"),
        ("clientId" = ClientId, Path, description = "The household"),
    ),
    request_body = CreateInvitationRequest,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "`added`: the address's verified account is a member now (never in a sandbox tenant, where every address is `invited`; its sessions were signed out, at most five times a day per person; past that the grant shows at its next refresh); `invited`: an invitation and a one-time link (7 days) were mailed", body = InvitationResult),
        (status = 400, description = "A malformed id or body: the address, a guest without a home of this household or a stay that ends, a stay for an owner or member, a reservation key, or the network condition (never for an owner; not before the home has a presence signal)", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        NotPeopleManager,
        NoHousehold,
        (status = 409, description = "The person is already a member, or the address already has a pending invitation (resend or withdraw it)", body = Problem, content_type = "application/problem+json"),
        TooManyInvitationMails,
    )
)]
pub async fn create_invitation(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath((tenant, client)): ApiPath<(TenantId, ClientId)>,
    ApiJson(request): ApiJson<CreateInvitationRequest>,
) -> Result<(StatusCode, Json<InvitationResult>), ApiError> {
    let household = managed_household(&state, &caller, tenant, client, NO_HOUSEHOLD).await?;
    let now = state.clock.now();
    let mut terms = checked_terms(&request, now)?;
    let home = household_home(&state, &household, terms.grant.property_id).await?;
    terms.network = presence::checked_network(
        &state,
        &household,
        request.role,
        request.require_network,
        request.phone_thing_id.map(EndpointId::from),
    )
    .await?;
    let account = Users(&*state.store).find_by_email(&terms.email).await?;
    if let Some(account) = &account
        && Members(&*state.store)
            .get(household.id, account.id)
            .await?
            .is_some()
    {
        return Err(already_member());
    }
    // In a sandbox every address is invited, account or not (see `inviting`).
    let verified = match super::inviting::grants_accounts_at_once(&state, &household).await? {
        true => account.filter(|a| a.email_verified_at.is_some()),
        false => None,
    };
    let result = match (home, terms.grant.role) {
        // A guest's stay is a stay record like any other (the sweep lets
        // them out on time), with a key of its own when none was given.
        (Some(home), HouseholdRole::Guest) => {
            let window = StayWindow {
                check_in: terms.grant.starts_at.unwrap_or(now),
                check_out: terms.grant.expires_at.unwrap_or(now),
            };
            let key = terms
                .reservation_key
                .clone()
                .unwrap_or_else(guests::generated_key);
            if Stays(&*state.store)
                .get(household.id, &key)
                .await?
                .is_some_and(|s| s.state != StayState::CheckedOut)
            {
                return Err(stay_key_in_use());
            }
            let guest = match verified {
                Some(person) => guests::Guest::Account(person),
                None => guests::Guest::Address {
                    email: terms.email,
                    name: terms.name,
                },
            };
            let stay = guests::NewStay {
                home: &home,
                guest,
                window,
                reservation_key: key,
                network: terms.network,
            };
            match guests::open_stay(&state, &caller, &household, stay).await? {
                guests::Opened::Member(grant, stay) => {
                    added(&state, grant, stay.email, now).await?
                }
                guests::Opened::Invited(invitation, _) => invited(invitation, now),
            }
        }
        (home, _) => match verified {
            Some(person) => {
                let grant = grant_membership(
                    &state,
                    &caller,
                    &household,
                    &person,
                    home.as_ref(),
                    terms.grant,
                    terms.reservation_key,
                    terms.network,
                    vec![],
                )
                .await?;
                added(&state, grant, person.email, now).await?
            }
            None => {
                let invitation = invite(
                    &state,
                    &caller,
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
    Ok((StatusCode::CREATED, Json(result)))
}

/// The answer for an address whose verified account got the grant: its
/// sessions are signed out (within the person's daily budget), so its
/// claims name the household from the next sign-in.
async fn added(
    state: &AppState,
    grant: GrantRecord,
    email: String,
    now: OffsetDateTime,
) -> Result<InvitationResult, ApiError> {
    super::inviting::sign_out_for_grant(state, grant.user_id).await?;
    Ok(InvitationResult {
        status: InvitationOutcome::Added,
        member: Some(Member::of(state, grant, Some(email), now).await?),
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

fn already_member() -> ApiError {
    ApiError::conflict("this person is already a member of the household")
}

/// A household's pending invitations, oldest first.
#[utoipa::path(
    get,
    path = "/v1/tenants/{tenantId}/clients/{clientId}/invitations",
    tag = "people",
    operation_id = "listInvitations",
    params(
        ("tenantId" = TenantId, Path, description = "The tenant"),
        ("clientId" = ClientId, Path, description = "The household"),
        PageParams,
    ),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "One page of the household's pending invitations", body = ListResponse<Invitation>),
        MalformedIdOrPage,
        NoValidToken,
        NotPeopleManager,
        NoHousehold,
    )
)]
pub async fn list_invitations(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath((tenant, client)): ApiPath<(TenantId, ClientId)>,
    ApiQuery(page): ApiQuery<PageParams>,
) -> Result<Json<ListResponse<Invitation>>, ApiError> {
    let limit = page.limit()?;
    let household = managed_household(&state, &caller, tenant, client, NO_HOUSEHOLD).await?;
    let after = page.after_within(&household_invitations(household.id))?;
    let found = Invitations(&*state.store)
        .list(household.id, limit, after)
        .await?;
    let now = state.clock.now();
    Ok(listed(found, |i| Invitation::new(i, now)))
}

/// The pending invitation `id` of a household the caller manages.
async fn managed_invitation(
    state: &AppState,
    caller: &Principal,
    tenant: TenantId,
    client: ClientId,
    id: InvitationId,
) -> Result<(ClientRecord, InvitationRecord), ApiError> {
    let household = managed_household(state, caller, tenant, client, NO_INVITATION).await?;
    let invitation = Invitations(&*state.store)
        .get(household.id, id)
        .await?
        .ok_or_else(|| ApiError::not_found(NO_INVITATION))?;
    Ok((household, invitation))
}

/// Sends a new link (valid 7 days); the old link stops working.
#[utoipa::path(
    post,
    path = "/v1/tenants/{tenantId}/clients/{clientId}/invitations/{invitationId}/resend",
    tag = "people",
    operation_id = "resendInvitation",
    params(
        ("tenantId" = TenantId, Path, description = "The tenant"),
        ("clientId" = ClientId, Path, description = "The household"),
        ("invitationId" = InvitationId, Path, description = "The pending invitation"),
    ),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "A new link was mailed; the old one is dead", body = Invitation),
        MalformedId,
        NoValidToken,
        NotPeopleManager,
        (status = 404, description = "No such household or pending invitation (accepted and withdrawn ones are gone)", body = Problem, content_type = "application/problem+json"),
        TooManyInvitationMails,
    )
)]
pub async fn resend_invitation(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath((tenant, client, id)): ApiPath<(TenantId, ClientId, InvitationId)>,
) -> Result<Json<Invitation>, ApiError> {
    let (household, invitation) = managed_invitation(&state, &caller, tenant, client, id).await?;
    let home = match invitation.property_id {
        Some(home) => Tenancy(&*state.store).property(tenant, home).await?,
        None => None,
    };
    super::inviting::spend_mail_budget(&state, &household, &invitation.email).await?;
    let now = state.clock.now();
    let token = random_token();
    let resent = Invitations(&*state.store)
        .resend(&invitation, &sha256_hex(&token), now, now + LINK_LIFETIME)
        .await
        .map_err(invitation_error)?;
    mail_link(&state, &household, home.as_ref(), &resent, &token).await;
    Ok(Json(Invitation::new(resent, now)))
}

/// Withdraws a pending invitation; its link stops working.
#[utoipa::path(
    delete,
    path = "/v1/tenants/{tenantId}/clients/{clientId}/invitations/{invitationId}",
    tag = "people",
    operation_id = "withdrawInvitation",
    params(
        ("tenantId" = TenantId, Path, description = "The tenant"),
        ("clientId" = ClientId, Path, description = "The household"),
        ("invitationId" = InvitationId, Path, description = "The pending invitation"),
    ),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Withdrawn: the link answers 410 from now on"),
        MalformedId,
        NoValidToken,
        NotPeopleManager,
        (status = 404, description = "No such household or pending invitation", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn withdraw_invitation(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath((tenant, client, id)): ApiPath<(TenantId, ClientId, InvitationId)>,
) -> Result<StatusCode, ApiError> {
    let (_, invitation) = managed_invitation(&state, &caller, tenant, client, id).await?;
    Invitations(&*state.store)
        .withdraw(&invitation)
        .await
        .map_err(invitation_error)?;
    Ok(StatusCode::NO_CONTENT)
}

// ---------------------------------------------------------------------------
// The invitee's side

/// The role as the invitation shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
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

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InvitingHousehold {
    pub client_id: ClientId,
    pub name: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InvitedHome {
    pub property_id: PropertyId,
    pub name: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Inviter {
    /// The inviter's name, or their masked address when they gave none.
    pub name: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InvitedStay {
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub starts_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub expires_at: OffsetDateTime,
}

/// What a live link shows before it is accepted.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InvitationPreview {
    pub household: InvitingHousehold,
    /// A guest's home; null for owners and members (the whole household).
    #[schema(required = true)]
    pub home: Option<InvitedHome>,
    pub inviter: Inviter,
    pub role: RoleWord,
    /// A guest's stay; null otherwise. A stay without a start starts when
    /// the invitation is accepted.
    #[schema(required = true)]
    pub stay: Option<InvitedStay>,
    /// The invited address, masked (`a•••@example.com`).
    pub email: String,
    /// Whether the address has an account: then accepting takes its
    /// password (and TOTP code), else a name and a new password.
    pub has_account: bool,
}

/// The live invitation of `token`, its household and its home; every dead
/// link (and a stay that is over, or a household or home that is gone)
/// is the same 410.
async fn live_invitation(
    state: &AppState,
    token: &str,
) -> Result<(InvitationRecord, ClientRecord, Option<PropertyRecord>), ApiError> {
    if token.is_empty() || token.len() > TOKEN_MAX {
        return Err(dead_invitation());
    }
    let now = state.clock.now();
    let invitation = Invitations(&*state.store)
        .open(&sha256_hex(token), now.unix_timestamp())
        .await?
        .filter(|i| i.expires_at.is_none_or(|end| now < end))
        .ok_or_else(dead_invitation)?;
    let tenancy = Tenancy(&*state.store);
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

/// What an invitation link offers: the household, the home, who invited,
/// the role, the stay, the masked address and whether it has an account.
#[utoipa::path(
    get,
    path = "/v1/auth/invitations/{token}",
    tag = "auth",
    operation_id = "readInvitation",
    params(("token" = String, Path, description = "The token of the invitation link")),
    responses(
        (status = 200, description = "The invitation behind a live link", body = InvitationPreview),
        InvitationLinkSpent,
    )
)]
pub async fn read_invitation(
    State(state): State<AppState>,
    ApiPath(PathText(token)): ApiPath<PathText>,
) -> Result<Json<InvitationPreview>, ApiError> {
    let (invitation, household, home) = live_invitation(&state, &token).await?;
    let users = Users(&*state.store);
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
        starts_at: invitation.starts_at.unwrap_or_else(|| state.clock.now()),
        expires_at,
    });
    Ok(Json(InvitationPreview {
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
    }))
}

/// Accepting a link: a new person names themselves and chooses a password;
/// an address that has an account sends that account's password (and its
/// TOTP code when MFA is on).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AcceptInvitationRequest {
    /// A new person's name (1-100 characters); not sent for an existing
    /// account.
    #[serde(default)]
    pub name: Option<String>,
    pub password: String,
    #[serde(default)]
    pub totp: Option<String>,
}

/// Accepts an invitation: the person is a member and signed in.
#[utoipa::path(
    post,
    path = "/v1/auth/invitations/{token}/accept",
    tag = "auth",
    operation_id = "acceptInvitation",
    params(("token" = String, Path, description = "The token of the invitation link")),
    request_body = AcceptInvitationRequest,
    responses(
        (status = 200, description = "Accepted and signed in: the claims name the household (a guest's home from the start of the stay)", body = TokenPair),
        (status = 400, description = "A malformed body: a new person without a name or with a password the policy refuses; a name sent for an existing account", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "The existing account's password is wrong, or a TOTP code is needed", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The person is already a member, or the address got an account meanwhile (accept with its password)", body = Problem, content_type = "application/problem+json"),
        InvitationLinkSpent,
        TooManyFailedAttempts,
    )
)]
pub async fn accept_invitation(
    State(state): State<AppState>,
    Client(address): Client,
    ApiPath(PathText(token)): ApiPath<PathText>,
    ApiJson(request): ApiJson<AcceptInvitationRequest>,
) -> Result<Json<TokenPair>, ApiError> {
    let (invitation, household, home) = live_invitation(&state, &token).await?;
    let now = state.clock.now();
    // Read first so a dead stay answers before any password is checked.
    waiting_stay(&state, &invitation).await?;
    let account = Users(&*state.store)
        .find_by_email(&invitation.email)
        .await?;
    let (person, account_writes, new_account) = match account {
        Some(_) => {
            if request.name.is_some() {
                return Err(ApiError::validation(
                    "name",
                    "this address already has an account: send its password (and TOTP code) only",
                ));
            }
            let person = existing_account(&state, &invitation, request, address).await?;
            let mut writes = Vec::new();
            if person.email_verified_at.is_none() {
                writes.push(verify_email_write(person.id, now)?);
            }
            (person, writes, false)
        }
        None => {
            let person = new_account(&invitation, request, now).await?;
            let writes = create_writes(&person)?;
            (person, writes, true)
        }
    };
    let terms = GrantTerms {
        role: invitation.role,
        property_id: invitation.property_id,
        starts_at: invitation.starts_at,
        expires_at: invitation.expires_at,
    };
    let mut grant = new_grant(
        &household,
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
        &state,
        &household,
        &grant,
        &person.email,
        home.as_ref(),
        ChangedBy::Invitation,
    )?;
    // A guest's stay may move while the password is checked (the stay
    // sweep marks its check-in): read it again and retry, a few times,
    // as long as it still waits for this invitation.
    let mut stay_moves = 0;
    loop {
        let stay = waiting_stay(&state, &invitation).await?;
        let mut writes = spend_writes(&invitation, stay.as_ref(), &person, now)?;
        let spend_len = writes.len();
        writes.extend(account_writes.iter().cloned());
        writes.extend(granted.iter().cloned());
        match Members(&*state.store).add(&grant, writes).await {
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
                return Err(ApiError::conflict(
                    "this address got an account meanwhile: accept again with that account's password",
                ));
            }
            Err(MemberError::Refused { .. }) => return Err(dead_invitation()),
            Err(MemberError::AlreadyMember) => return Err(already_member()),
            Err(e) => return Err(member_error(e)),
        }
    }
    tracing::info!(tenant = %household.tenant_id, client = %household.id, invitation = %invitation.id, user = %person.id, new_account, "invitation accepted");
    Ok(Json(
        sessions::start(&state, &person, SessionKind::Household, address).await?,
    ))
}

/// The stay a guest's invitation opens, while it waits for this
/// invitation; a stay that is over (or waits for another invitation) makes
/// the link dead.
async fn waiting_stay(
    state: &AppState,
    invitation: &InvitationRecord,
) -> Result<Option<StayRecord>, ApiError> {
    let Some(key) = &invitation.reservation_key else {
        return Ok(None);
    };
    match Stays(&*state.store).get(invitation.client_id, key).await? {
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
) -> Result<Vec<TxWrite>, ApiError> {
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

/// The invited address's account, signed in with its password (counted by
/// the failed-attempt limiter like any sign-in) and its TOTP code when MFA
/// is on.
async fn existing_account(
    state: &AppState,
    invitation: &InvitationRecord,
    request: AcceptInvitationRequest,
    address: Option<std::net::IpAddr>,
) -> Result<UserRecord, ApiError> {
    let (person, attempt) =
        credentials::check(state, "login", &invitation.email, request.password, address).await?;
    attempt.succeeded(state).await?;
    if person.mfa.as_ref().is_some_and(|m| m.enabled_at.is_some()) {
        totp::require_code(state, &person, request.totp.as_deref(), address).await?;
    }
    Ok(person)
}

/// A new account for the invited address: named, with a password under the
/// household policy, its address proven by the link.
async fn new_account(
    invitation: &InvitationRecord,
    request: AcceptInvitationRequest,
    now: OffsetDateTime,
) -> Result<UserRecord, ApiError> {
    let name = required_text("name", request.name.as_deref().unwrap_or(""), NAME_MAX)?;
    if request.totp.is_some() {
        return Err(ApiError::validation(
            "totp",
            "a new account has no TOTP yet: send a name and a password",
        ));
    }
    check_password(&request.password, &invitation.email)
        .map_err(|rejected| ApiError::validation("password", rejected.to_string()))?;
    Ok(UserRecord {
        id: alyt_domain::ids::UserId::new(),
        email: invitation.email.clone(),
        name: Some(name),
        password_hash: hash_password_blocking(request.password).await,
        email_verified_at: Some(now),
        platform_role: None,
        tenants: Default::default(),
        developer_id: None,
        mfa: None,
        units: None,
        created_at: now,
    })
}
