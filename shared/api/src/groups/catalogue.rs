//! The catalogue: what households can
//! install.
//!
//! * `GET /v1/catalogue/definitions[?tenantId]`: the built-in definitions
//!   (the platform's reference providers, descriptor `source: 'built-in'`)
//!   by slug, then the listed public definitions by slug (each connector's
//!   greatest published version that is not deprecated), then, with
//!   `tenantId`, the tenant's own listed `visibility: 'tenant'` definitions
//!   (those of the developer whose sandbox the tenant is). Paginated; the
//!   cursor carries which of the three parts it is in.
//! * `GET /v1/catalogue/definitions/{slug}[?tenantId]`: one definition,
//!   unlisted ones included (found by slug, not in the list).
//!
//! Who: any signed-in person or developer; a key needs `integrations:read`;
//! a widget token is 403. `tenantId` must be a tenant the caller reaches
//! (404 otherwise). A definition's `id` is the connector's id: the
//! `connectorId` a household connects with and the `definitionId` of a LIVE
//! key.
//!
//! Built-ins are installed like any connector where the runtime serves
//! them: the local platform serves the virtual bridge on a loopback port and
//! writes its connector record at every start ([`built_in_connector`]); the
//! hosted platform serves none yet, so connecting one there is 409.
//!
//! Store calls: list 1 index query per part read (built-ins are data);
//! get 2 gets (slug guard, connector).

use crate::routing::{Operations, operations};
use alyt_domain::ids::TenantId;
use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::auth::Caller;
use crate::conventions::extract::{ApiPath, ApiQuery, PathText};
use crate::conventions::list::{ListResponse, Paging, listed};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{MayNotReadCatalogue, NoValidToken};
use crate::{ApiError, AppState};
use alyt_app::catalogue;
pub use alyt_app::catalogue::{CatalogueDefinition, DefinitionAuthor, built_in_connector};

pub fn routes() -> Operations {
    Operations::new().merge(operations!(list_definitions, get_definition))
}

#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct CatalogueParams {
    /// Also the tenant's own `visibility: 'tenant'` definitions.
    pub tenant_id: Option<TenantId>,
    pub limit: Option<u32>,
    pub cursor: Option<String>,
}

/// The catalogue: built-ins, public definitions, the tenant's own.
#[utoipa::path(
    get,
    path = "/v1/catalogue/definitions",
    tag = "catalogue",
    operation_id = "listCatalogueDefinitions",
    security(("bearer" = ["integrations:read"])),
    params(CatalogueParams),
    responses(
        (status = 200, description = "One page of definitions: built-ins, then public, then the tenant's own, each by slug", body = ListResponse<CatalogueDefinition>),
        (status = 400, description = "Bad tenantId, limit or cursor", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        MayNotReadCatalogue,
        (status = 404, description = "No such tenant (or not the caller's)", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn list_definitions(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiQuery(params): ApiQuery<CatalogueParams>,
) -> Result<Json<ListResponse<CatalogueDefinition>>, ApiError> {
    let paging = Paging::new(params.limit, params.cursor);
    let found = catalogue::definitions_page(&state, &caller, params.tenant_id, &paging).await?;
    Ok(listed(found, |d| d))
}

#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct DefinitionParams {
    /// Also the tenant's own `visibility: 'tenant'` definitions.
    pub tenant_id: Option<TenantId>,
}

/// One definition by slug.
#[utoipa::path(
    get,
    path = "/v1/catalogue/definitions/{slug}",
    tag = "catalogue",
    operation_id = "getCatalogueDefinition",
    security(("bearer" = ["integrations:read"])),
    params(
        ("slug" = String, Path, description = "The definition's slug"),
        DefinitionParams,
    ),
    responses(
        (status = 200, description = "The definition (its published version)", body = CatalogueDefinition),
        (status = 400, description = "Bad tenantId", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        MayNotReadCatalogue,
        (status = 404, description = "No published definition with this slug that the caller sees", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn get_definition(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(PathText(slug)): ApiPath<PathText>,
    ApiQuery(params): ApiQuery<DefinitionParams>,
) -> Result<Json<CatalogueDefinition>, ApiError> {
    let found = catalogue::definition(&state, &caller, params.tenant_id, &slug).await?;
    Ok(Json(found))
}
