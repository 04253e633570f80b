//! Changing a member (spec: B `PATCH /members/{m}`: "change level, home,
//! stay, condition").
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

use alyt_domain::access::HouseholdRole;
use alyt_domain::ids::{ClientId, EndpointId, PropertyId, TenantId, UserId};
use alyt_domain::membership::{GrantTerms, RemovalRefused, check_terms};
use alyt_domain::stay::{StayState, StayWindow};
use alyt_stays::GuestStays;
use alyt_store::TxWrite;
use alyt_store::repo::audit::{AuditRecord, audit_write};
use alyt_store::repo::identity::{Sessions, Users};
use alyt_store::repo::members::{MemberError, Members};
use alyt_store::repo::stays::{StayRecord, change_write};
use alyt_store::repo::tenancy::GrantRecord;
use alyt_store::repo::widgets::Widgets;
use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use super::NotPeopleManager;
use super::presence::checked_network;
use super::{Member, NO_MEMBER, guests, household_home, managed_household, member_error, refusal};
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

/// The kind of audit entry a change writes.
const KIND_MEMBER_CHANGED: &str = "member.changed";

/// Changes a member's level, home, stay or network condition.
#[utoipa::path(
    patch,
    path = "/v1/tenants/{tenantId}/clients/{clientId}/members/{userId}",
    tag = "people",
    operation_id = "changeMember",
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
    let household = managed_household(&state, &caller, tenant, client, NO_MEMBER).await?;
    let members = Members(&*state.store);
    let read = members
        .get(household.id, member)
        .await?
        .ok_or_else(|| ApiError::not_found(NO_MEMBER))?;
    let now = state.clock.now();
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
    check_terms(&terms, now).map_err(|p| ApiError::validation(p.field, p.detail))?;
    let home = household_home(&state, &household, terms.property_id).await?;
    let phone = request.phone_thing_id.map(EndpointId::from);
    let network = match request.require_network {
        Some(_) => {
            checked_network(&state, &household, role, request.require_network, phone).await?
        }
        // A new phone for the condition the member has.
        None if phone.is_some() => {
            let require = read.network.as_ref().map(|_| true);
            checked_network(&state, &household, role, require, phone).await?
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
    let stay = guests::open_stay_of(&state, &read).await?;
    let keeper = GuestStays::new(state.store.clone(), state.clock.clone());
    let mut next = GrantRecord {
        role,
        property_id: terms.property_id,
        starts_at: match role {
            HouseholdRole::Guest => Some(terms.starts_at.unwrap_or(now)),
            _ => None,
        },
        ends_at: terms.expires_at,
        reservation_key: None,
        network,
        ..read.clone()
    };
    if next == read {
        let email = Users(&*state.store).get(member).await?.map(|u| u.email);
        return Ok(Json(Member::of(&state, read, email, now).await?));
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
            let email = Users(&*state.store)
                .get(member)
                .await?
                .map(|u| u.email)
                .unwrap_or_default();
            let opened = StayRecord {
                reservation_key: key,
                tenant_id: household.tenant_id,
                client_id: household.id,
                property_id: home.unwrap_or_default(),
                email,
                name: None,
                check_in: next.starts_at.unwrap_or(now),
                check_out: next.ends_at.unwrap_or(now),
                require_network: false,
                phone_thing_id: None,
                state: StayState::Member,
                user_id: Some(member),
                invitation_id: None,
                checked_in_at: None,
                checked_out_at: None,
                opened_by: caller.user_id(),
                created_at: now,
                updated_at: now,
                rev: 0,
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
            MemberError::NotMember | MemberError::Refused { .. } => ApiError::conflict(
                "the member changed while this was being done; read them again and retry",
            ),
            e => member_error(e),
        })?;
    // The change applies at once: the next sign-in carries it.
    Sessions(&*state.store).revoke_all_of(member).await?;
    // A conditional member holds no widget token (a widget never signs in,
    // so the condition could not be judged for it): the ones minted before
    // the condition go now, a TV's security delegation with them.
    if next.require_network() {
        Widgets(&*state.store)
            .revoke_all_of(household.id, member)
            .await?;
    }
    tracing::info!(tenant = %household.tenant_id, client = %household.id, user = %member, from = ?read.role, to = ?next.role, "member changed");
    let email = Users(&*state.store).get(member).await?.map(|u| u.email);
    Ok(Json(Member::of(&state, next, email, now).await?))
}

/// The write moving the open stay `open` to the home and window of `next`
/// (a guest's grant).
fn moved_stay(
    open: &StayRecord,
    next: &GrantRecord,
    now: OffsetDateTime,
) -> Result<TxWrite, ApiError> {
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
