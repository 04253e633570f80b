//! The homes operation group: properties, rooms, things, endpoints and the
//! capability catalogue. (The catalogue and the property list exist so far.)

pub mod endpoints;
pub mod live;
pub mod notifications;
pub mod overview;
pub mod rooms;
pub mod routines;
pub mod widgets;

use crate::routing::{Operations, operations};
use alyt_app::homes;
use alyt_domain::capability::{CapabilityCatalogue, catalogue};
use alyt_domain::ids::{ClientId, PropertyId, TenantId};
use alyt_store::repo::tenancy::PropertyRecord;
use axum::Json;
use axum::extract::State;
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::auth::Caller;
use crate::conventions::extract::ApiQuery;
use crate::conventions::list::{ListResponse, TenantPage, listed};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{BadTenantPage, NoSuchTenantOfCaller, NoValidToken};
use crate::{ApiError, AppState};

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(get_capabilities))
        .merge(operations!(list_properties))
        .merge(crate::groups::devices::routes())
        .merge(rooms::routes())
        .merge(routines::routes())
        .merge(routines::runs::routes())
        .merge(crate::groups::music::routes())
        .merge(endpoints::routes())
        .merge(overview::routes())
        .merge(live::routes())
        .merge(notifications::routes())
        .merge(widgets::routes())
        .merge(crate::groups::people::presence::internal_routes())
}

/// The capability catalogue: every descriptor a client renders things from.
#[utoipa::path(
    get,
    path = "/v1/capabilities",
    tag = "homes",
    operation_id = "getCapabilities",
    responses(
        (status = 200, description = "The catalogue", body = CapabilityCatalogue),
        (status = 429, description = "Rate limit spent", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn get_capabilities() -> Json<&'static CapabilityCatalogue> {
    Json(catalogue())
}

/// A home (spec: Client (household) and property).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Property {
    pub id: PropertyId,
    pub tenant_id: TenantId,
    pub client_id: ClientId,
    pub name: String,
    pub timezone: String,
    #[schema(required = true)]
    pub address: Option<String>,
    #[schema(required = true)]
    pub latitude: Option<f64>,
    #[schema(required = true)]
    pub longitude: Option<f64>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: OffsetDateTime,
}

impl From<PropertyRecord> for Property {
    fn from(p: PropertyRecord) -> Self {
        Self {
            id: p.id,
            tenant_id: p.tenant_id,
            client_id: p.client_id,
            name: p.name,
            timezone: p.timezone,
            address: p.address,
            latitude: p.latitude,
            longitude: p.longitude,
            created_at: p.created_at,
            updated_at: p.updated_at,
        }
    }
}

/// The homes of a tenant the caller may see, oldest first.
#[utoipa::path(
    get,
    path = "/v1/properties",
    tag = "homes",
    operation_id = "listProperties",
    params(TenantPage),
    security(("bearer" = ["tenant:read"])),
    responses(
        (status = 200, description = "One page of homes", body = ListResponse<Property>),
        BadTenantPage,
        NoValidToken,
        (status = 403, description = "A key without tenant:read", body = Problem, content_type = "application/problem+json"),
        NoSuchTenantOfCaller,
    )
)]
pub async fn list_properties(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiQuery(query): ApiQuery<TenantPage>,
) -> Result<Json<ListResponse<Property>>, ApiError> {
    let paging = query.page().paging();
    let found = homes::properties_page(&state, &caller, query.tenant_id, &paging).await?;
    Ok(listed(found, Property::from))
}
