//! Invitations (`POST /invitations`, and the invitee's
//! `/auth/invitations/{token}`): a link works once, for 7 days.
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

use alyt_app::people::invitations::{self, Acceptance, NewInvitation};
use alyt_domain::access::{HouseholdRole, SessionKind};
use alyt_domain::ids::{ClientId, EndpointId, InvitationId, PropertyId, TenantId};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use super::{NoHousehold, NotPeopleManager};
use crate::auth::Caller;
use crate::auth::sessions::{self, TokenPair};
use crate::conventions::extract::{ApiJson, ApiPath, ApiQuery, PathText};
use crate::conventions::list::{ListResponse, PageParams, listed};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{
    InvitationLinkSpent, MalformedId, MalformedIdOrPage, NoValidToken, TooManyFailedAttempts,
    TooManyInvitationMails,
};
use crate::routing::{Operations, operations};
use crate::{ApiError, AppState, Client};

pub use alyt_app::people::invitations::{Invitation, InvitationPreview, InvitationResult};

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

/// Invites a person to the household by address.
#[utoipa::path(
    post,
    path = "/v1/tenants/{tenantId}/clients/{clientId}/invitations",
    tag = "people",
    operation_id = "createInvitation",
    extensions(("x-session-only" = json!(true))),
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
    let request = NewInvitation {
        email: request.email,
        name: request.name,
        role: request.role,
        property_id: request.property_id,
        starts_at: request.starts_at,
        expires_at: request.expires_at,
        require_network: request.require_network,
        phone_thing_id: request.phone_thing_id.map(EndpointId::from),
        reservation_key: request.reservation_key,
    };
    let result = invitations::create_invitation(&state, &caller, tenant, client, request).await?;
    Ok((StatusCode::CREATED, Json(result)))
}

/// A household's pending invitations, oldest first.
#[utoipa::path(
    get,
    path = "/v1/tenants/{tenantId}/clients/{clientId}/invitations",
    tag = "people",
    operation_id = "listInvitations",
    extensions(("x-session-only" = json!(true))),
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
    let paging = page.paging();
    let found = invitations::invitations_page(&state, &caller, tenant, client, &paging).await?;
    Ok(listed(found, |i| i))
}

/// Sends a new link (valid 7 days); the old link stops working.
#[utoipa::path(
    post,
    path = "/v1/tenants/{tenantId}/clients/{clientId}/invitations/{invitationId}/resend",
    tag = "people",
    operation_id = "resendInvitation",
    extensions(("x-session-only" = json!(true))),
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
    let resent = invitations::resend_invitation(&state, &caller, tenant, client, id).await?;
    Ok(Json(resent))
}

/// Withdraws a pending invitation; its link stops working.
#[utoipa::path(
    delete,
    path = "/v1/tenants/{tenantId}/clients/{clientId}/invitations/{invitationId}",
    tag = "people",
    operation_id = "withdrawInvitation",
    extensions(("x-session-only" = json!(true))),
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
    invitations::withdraw_invitation(&state, &caller, tenant, client, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

// ---------------------------------------------------------------------------
// The invitee's side

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
    Ok(Json(invitations::read_invitation(&state, &token).await?))
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
    let answer = Acceptance {
        name: request.name,
        password: request.password,
        totp: request.totp,
    };
    let person = invitations::accept_invitation(&state, &token, answer, address).await?;
    Ok(Json(
        sessions::start(&state, &person, SessionKind::Household, address).await?,
    ))
}
