//! The people operation group (paths under
//! `/v1/tenants/{tenantId}/clients/{clientId}`): a household's
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
//! Who (`may_manage_people`): the household's OWNER, the tenant's ADMIN,
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
//!
//! The use cases are `alyt_app::people` (members, invitations, guests);
//! the handlers here parse, call one and map its answer.

use crate::routing::{Operations, operations};
use alyt_app::people::members::{self, NewMember};
use alyt_domain::access::HouseholdRole;
use alyt_domain::ids::{ClientId, PropertyId, TenantId, UserId};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::auth::Caller;
use crate::conventions::extract::{ApiJson, ApiPath, ApiQuery};
use crate::conventions::list::{ListResponse, PageParams, listed};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{
    MalformedId, MalformedIdOrPage, NoSuchHouseholdOrMember, NoValidToken, problem_responses,
};
use crate::{ApiError, AppState};

pub mod change;
pub mod guests;
pub mod invitations;
pub mod presence;

pub use alyt_app::people::members::Member;

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(list_members, add_member))
        .merge(operations!(remove_member))
        .merge(invitations::routes())
        .merge(guests::routes())
        .merge(change::routes())
        .merge(presence::routes())
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

problem_responses! {
    /// The 403 of the operations on a household's people.
    NotPeopleManager = 403, "Not the household's owner, the tenant's admin or platform staff";
    /// The 404 of the operations on a household's people.
    NoHousehold = 404, "No such household (or not in the caller's tenant)";
    /// The 403 of the operations on a household's guests.
    NotGuestManager = 403, "Not the household's owner, the tenant's admin, platform staff or a DEV key with guests:write";
}

/// A household's people, by user id.
#[utoipa::path(
    get,
    path = "/v1/tenants/{tenantId}/clients/{clientId}/members",
    tag = "people",
    operation_id = "listMembers",
    extensions(("x-session-only" = json!(true))),
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
    let paging = page.paging();
    let found = members::members_page(&state, &caller, tenant, client, &paging).await?;
    Ok(listed(found, |m| m))
}

/// Grants a person (by user id) a place in the household.
#[utoipa::path(
    post,
    path = "/v1/tenants/{tenantId}/clients/{clientId}/members",
    tag = "people",
    operation_id = "addMember",
    extensions(("x-session-only" = json!(true))),
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
    let request = NewMember {
        user_id: request.user_id,
        role: request.role,
        property_id: request.property_id,
        starts_at: request.starts_at,
        expires_at: request.expires_at,
    };
    let member = members::add_member(&state, &caller, tenant, client, request).await?;
    Ok((StatusCode::CREATED, Json(member)))
}

/// Ends a person's membership: their sessions first, then the grant.
#[utoipa::path(
    delete,
    path = "/v1/tenants/{tenantId}/clients/{clientId}/members/{userId}",
    tag = "people",
    operation_id = "removeMember",
    extensions(("x-session-only" = json!(true))),
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
    members::remove_member(&state, &caller, tenant, client, member).await?;
    Ok(StatusCode::NO_CONTENT)
}
