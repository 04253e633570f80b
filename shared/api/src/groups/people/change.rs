//! Changing a member: their level, home, stay and network condition.
//!
//! `PATCH …/members/{userId}` `{ role?, propertyId?, startsAt?, expiresAt?,
//! requireNetwork?, phoneThingId? }`; absent fields stay as they are.
//! * Between OWNER and MEMBER: the owner count moves in the same
//!   transaction; the household's last owner cannot be demoted (409).
//! * A guest's home and stay move their stay record (and its due times).
//! * A guest made OWNER or MEMBER: the stay ends with `guest.checked_out`
//!   (they keep their access); an owner or member made GUEST needs a home
//!   and an end, and gets a stay of their own.
//! * The network condition answers as for a grant (400 while no home has a
//!   presence signal; never for an owner).
//!
//! The change applies at once: the person's sessions are signed out, so
//! their next sign-in (or refresh) carries the new claims. Each change
//! writes an audit entry.

use alyt_app::people::members::{self, MemberChange};
use alyt_domain::access::HouseholdRole;
use alyt_domain::ids::{ClientId, EndpointId, PropertyId, TenantId, UserId};
use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use super::{Member, NotPeopleManager};
use crate::auth::Caller;
use crate::conventions::extract::{ApiJson, ApiPath};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{NoSuchHouseholdOrMember, NoValidToken};
use crate::routing::{Operations, operations};
use crate::{ApiError, AppState};

pub fn routes() -> Operations {
    Operations::new().merge(operations!(change_member))
}

/// What changes; absent fields stay as they are.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ChangeMemberRequest {
    /// The new level.
    #[serde(default)]
    pub role: Option<HouseholdRole>,
    /// A guest's home.
    #[serde(default)]
    pub property_id: Option<PropertyId>,
    /// When a guest's stay starts.
    #[serde(default, with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub starts_at: Option<OffsetDateTime>,
    /// When a guest's stay ends.
    #[serde(default, with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub expires_at: Option<OffsetDateTime>,
    #[serde(default)]
    pub require_network: Option<bool>,
    #[serde(default)]
    pub phone_thing_id: Option<Uuid>,
}

/// Changes a member's level, home, stay or network condition.
#[utoipa::path(
    patch,
    path = "/v1/tenants/{tenantId}/clients/{clientId}/members/{userId}",
    tag = "people",
    operation_id = "changeMember",
    extensions(("x-session-only" = json!(true))),
    params(
        ("tenantId" = TenantId, Path, description = "The tenant"),
        ("clientId" = ClientId, Path, description = "The household"),
        ("userId" = UserId, Path, description = "The member"),
    ),
    request_body = ChangeMemberRequest,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The member as changed (the person was signed out, so the change applies at once)", body = Member),
        (status = 400, description = "A malformed id or body: a guest without a home of this household or a stay that ends, a stay for an owner or member, or the network condition", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        NotPeopleManager,
        NoSuchHouseholdOrMember,
        (status = 409, description = "Demoting the household's last owner, or the member changed meanwhile", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn change_member(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath((tenant, client, member)): ApiPath<(TenantId, ClientId, UserId)>,
    ApiJson(request): ApiJson<ChangeMemberRequest>,
) -> Result<Json<Member>, ApiError> {
    let change = MemberChange {
        role: request.role,
        property_id: request.property_id,
        starts_at: request.starts_at,
        expires_at: request.expires_at,
        require_network: request.require_network,
        phone_thing_id: request.phone_thing_id.map(EndpointId::from),
    };
    let changed = members::change_member(&state, &caller, tenant, client, member, change).await?;
    Ok(Json(changed))
}
