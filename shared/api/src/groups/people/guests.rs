//! Guest stays by reservation key (`/guests/{reservationKey}`), and the
//! household's audit trail.
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
//! DEV key with `guests:write` in its sandbox (`may_manage_guests`). The use
//! cases are `alyt_app::people::guests`.

use alyt_app::people;
use alyt_app::people::guests::{self, StayOrder, StayPut};
use alyt_domain::ids::{ClientId, EndpointId, PropertyId, TenantId};
use alyt_store::repo::audit::AuditRecord;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use super::{NoHousehold, NotGuestManager, NotPeopleManager};
use crate::auth::Caller;
use crate::conventions::extract::{ApiJson, ApiPath, ApiQuery, PathText};
use crate::conventions::list::{ListResponse, PageParams, listed};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{
    MalformedIdOrKey, MalformedIdOrPage, NoValidToken, TooManyInvitationMails,
};
use crate::routing::{Operations, operations};
use crate::{ApiError, AppState};

pub use alyt_app::people::guests::GuestStay;

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(put_guest, get_guest, check_out_guest))
        .merge(operations!(list_audit))
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
    let order = StayOrder {
        reservation_key: key,
        email: request.email,
        name: request.name,
        property_id: request.property_id,
        check_in: request.check_in,
        check_out: request.check_out,
        require_network: request.require_network,
        phone_thing_id: request.phone_thing_id.map(EndpointId::from),
    };
    Ok(
        match guests::put_guest(&state, &caller, tenant, client, order).await? {
            StayPut::Opened(stay) => (StatusCode::CREATED, Json(stay)),
            StayPut::Kept(stay) => (StatusCode::OK, Json(stay)),
        },
    )
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
    let stay = guests::guest(&state, &caller, tenant, client, &key).await?;
    Ok(Json(stay))
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
    let stay = guests::check_out_guest(&state, &caller, tenant, client, &key).await?;
    Ok(Json(stay))
}

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
    extensions(("x-session-only" = json!(true))),
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
    let paging = page.paging();
    let found = people::audit_page(&state, &caller, tenant, client, &paging).await?;
    Ok(listed(found, AuditEntry::from))
}
