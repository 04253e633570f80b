//! The network condition at work (`GET /members/phones`,
//! `GET /properties/{id}/presence`): which phones a
//! household's network watches, what giving a person the condition needs,
//! and the check made at every sign-in and refresh.
//!
//! A phone is a thing of the household's network controller: an endpoint
//! with the NETWORK capability and the `presence` feature (the reference
//! virtual bridge reports phones so). The check reads the phone live through
//! its connector (a missing, failed, stale or unidentified read is no
//! signal), then compares the caller's address as the edge saw it (never a
//! client-supplied header) with the home's internet address, which a hub's
//! broker connection shows (ingest keeps it salted and hashed). Without
//! either signal the condition is not met. Only the outcome is stored on
//! the grant ("last seen home").
//!
//! * `GET /v1/tenants/{t}/clients/{c}/members/phones` (owner, staff): the
//!   phones, for choosing a person's condition phone.
//! * `GET /v1/properties/{propertyId}/presence?tenantId&endpointId`:
//!   internal (platform OWNER and STAFF only): one live check of a phone.

use alyt_app::presence;
use alyt_domain::ids::{ClientId, EndpointId, PropertyId, TenantId};
use alyt_store::repo::integrations::EndpointRecord;
use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::{NoHousehold, NotPeopleManager};
use crate::auth::Caller;
use crate::conventions::extract::{ApiPath, ApiQuery};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{MalformedId, NoValidToken};
use crate::routing::{Operations, operations};
use crate::{ApiError, AppState};

pub fn routes() -> Operations {
    Operations::new().merge(operations!(list_phones))
}

/// The internal operation (served with the homes group's paths).
pub fn internal_routes() -> Operations {
    Operations::new().merge(operations!(get_presence))
}

pub use alyt_app::presence::{PresenceCheck, is_phone};

/// A phone the home network watches.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Phone {
    /// The phone thing's id (an endpoint): a person's `phoneThingId`.
    pub thing_id: EndpointId,
    pub name: String,
    pub property_id: PropertyId,
    /// On the network at the controller's last read; null when not known.
    #[schema(required = true)]
    pub connected: Option<bool>,
    /// When the controller last saw it; null when not known.
    #[schema(required = true)]
    pub last_seen: Option<String>,
}

impl From<EndpointRecord> for Phone {
    /// The phone as the network controller last reported it.
    fn from(p: EndpointRecord) -> Self {
        let network = p.state.get("network");
        Phone {
            thing_id: p.id,
            name: p.name,
            property_id: p.property_id,
            connected: network
                .and_then(|n| n.get("connected"))
                .and_then(|v| v.as_bool()),
            last_seen: network
                .and_then(|n| n.get("lastSeen"))
                .and_then(|v| v.as_str())
                .map(str::to_owned),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PhoneList {
    pub items: Vec<Phone>,
    /// Always null: every phone of the household is in one answer.
    #[schema(required = true)]
    pub next_cursor: Option<String>,
}

/// The phones the household's home network watches.
#[utoipa::path(
    get,
    path = "/v1/tenants/{tenantId}/clients/{clientId}/members/phones",
    tag = "people",
    operation_id = "listMemberPhones",
    extensions(("x-session-only" = json!(true))),
    params(
        ("tenantId" = TenantId, Path, description = "The tenant"),
        ("clientId" = ClientId, Path, description = "The household"),
    ),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The phones, for choosing a person's condition phone", body = PhoneList),
        MalformedId,
        NoValidToken,
        NotPeopleManager,
        NoHousehold,
    )
)]
pub async fn list_phones(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath((tenant, client)): ApiPath<(TenantId, ClientId)>,
) -> Result<Json<PhoneList>, ApiError> {
    let phones = presence::phones(&state, &caller, tenant, client).await?;
    Ok(Json(PhoneList {
        items: phones.into_iter().map(Phone::from).collect(),
        next_cursor: None,
    }))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct PresenceQuery {
    pub tenant_id: TenantId,
    /// The phone thing to check.
    pub endpoint_id: EndpointId,
}

/// Internal: the network presence of one phone thing (platform staff and the
/// platform's own components only).
#[utoipa::path(
    get,
    path = "/v1/properties/{propertyId}/presence",
    tag = "people",
    operation_id = "getPresence",
    extensions(("x-session-only" = json!(true))),
    params(("propertyId" = PropertyId, Path, description = "The home"), PresenceQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "One live check", body = PresenceCheck),
        (status = 400, description = "A malformed id or query", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        (status = 403, description = "Platform SUPPORT: staff operations are for OWNER and STAFF", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such operation for the caller, or no such home or phone", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn get_presence(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(property): ApiPath<PropertyId>,
    ApiQuery(query): ApiQuery<PresenceQuery>,
) -> Result<Json<PresenceCheck>, ApiError> {
    let check = presence::check_phone(
        &state,
        &caller,
        query.tenant_id,
        property,
        query.endpoint_id,
    )
    .await?;
    Ok(Json(check))
}
