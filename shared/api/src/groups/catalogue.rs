//! The catalogue (spec D; Catalogue definition): what households can
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
use alyt_connectors::catalogue::{BuiltInDefinition, built_in_definitions};
use alyt_domain::access::{HomeReach, Principal, Scope};
use alyt_domain::ids::TenantId;
use alyt_store::repo::developers::DeveloperType;
use alyt_store::repo::integrations::{
    ConnectorRecord, Integrations, Listing, ListingAuthor, public_catalogue, tenant_catalogue,
};
use alyt_store::repo::submissions::AiDeclaration;
use alyt_store::{ListScope, PageKey};
use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

use crate::auth::Caller;
use crate::conventions::extract::{ApiPath, ApiQuery, PathText};
use crate::conventions::list::{ListResponse, PageParams, decode_cursor, encode_cursor};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{MayNotReadCatalogue, NoValidToken};
use crate::{ApiError, AppState};

pub fn routes() -> Operations {
    Operations::new().merge(operations!(list_definitions, get_definition))
}

/// The catalogue definition's author.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DefinitionAuthor {
    pub display_name: String,
    #[serde(rename = "type")]
    pub kind: DeveloperType,
    pub verified: bool,
}

/// A catalogue definition (spec: Catalogue definition).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CatalogueDefinition {
    /// The connector's id (`connectorId` to connect it; a LIVE key's
    /// `definitionId`).
    pub id: String,
    pub slug: String,
    pub name: String,
    pub semver: String,
    /// The connector descriptor of the spec.
    #[schema(value_type = Object)]
    pub descriptor: Value,
    pub prose: String,
    pub ai_declaration: AiDeclaration,
    pub author: DefinitionAuthor,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub published_at: OffsetDateTime,
}

impl CatalogueDefinition {
    fn of_connector(connector: &ConnectorRecord) -> Option<Self> {
        let listing = connector.listing.as_ref()?;
        Some(Self {
            id: connector.id.to_string(),
            slug: connector.slug.clone(),
            name: listing.name.clone(),
            semver: listing.semver.clone(),
            descriptor: listing.descriptor.clone(),
            prose: listing.prose.clone(),
            ai_declaration: listing.ai_declaration,
            author: DefinitionAuthor {
                display_name: listing.author.display_name.clone(),
                kind: listing.author.kind,
                verified: listing.author.verified,
            },
            published_at: listing.published_at,
        })
    }

    fn built_in(definition: &BuiltInDefinition) -> Self {
        Self {
            id: definition.id.to_owned(),
            slug: definition.slug.to_owned(),
            name: definition.descriptor["name"]
                .as_str()
                .unwrap_or(definition.slug)
                .to_owned(),
            semver: definition.semver.to_owned(),
            descriptor: definition.descriptor.clone(),
            prose: definition.prose.to_owned(),
            ai_declaration: AiDeclaration::None,
            author: DefinitionAuthor {
                display_name: "Alyt".to_owned(),
                kind: DeveloperType::Brand,
                verified: true,
            },
            published_at: OffsetDateTime::parse(
                definition.published_at,
                &time::format_description::well_known::Rfc3339,
            )
            .unwrap_or(OffsetDateTime::UNIX_EPOCH),
        }
    }
}

/// The connector record of a built-in definition the runtime serves at
/// `server_url`: installable by every tenant, kept out of the catalogue's
/// index (the built-ins are listed from data).
pub fn built_in_connector(
    definition: &BuiltInDefinition,
    server_url: String,
    runtime_token: String,
    now: OffsetDateTime,
) -> Option<ConnectorRecord> {
    let id = definition.id.parse().ok()?;
    let shown = CatalogueDefinition::built_in(definition);
    Some(ConnectorRecord {
        id,
        developer_id: alyt_domain::ids::DeveloperId(uuid::Uuid::nil()),
        slug: definition.slug.to_owned(),
        name: shown.name.clone(),
        server_url,
        runtime_token,
        sandbox_tenant_id: None,
        published: true,
        listing: Some(Listing {
            version_id: alyt_domain::ids::ConnectorVersionId(uuid::Uuid::new_v5(
                &uuid::Uuid::NAMESPACE_URL,
                definition.id.as_bytes(),
            )),
            semver: shown.semver,
            name: shown.name,
            descriptor: shown.descriptor,
            prose: shown.prose,
            ai_declaration: shown.ai_declaration,
            public: true,
            listed: false,
            published_at: shown.published_at,
            author: ListingAuthor {
                display_name: shown.author.display_name,
                kind: shown.author.kind,
                verified: shown.author.verified,
            },
        }),
        deprecated: false,
        created_at: now,
        updated_at: now,
        rev: 0,
    })
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

/// The tenant whose own definitions the caller may see, once the caller may
/// read the catalogue at all.
fn reader(caller: &Principal, tenant: Option<TenantId>) -> Result<Option<TenantId>, ApiError> {
    match caller {
        Principal::Key { .. } => caller.require_scope(Scope::IntegrationsRead)?,
        Principal::Widget { .. } => {
            return Err(ApiError::forbidden(
                "a widget token reads its home's things only",
            ));
        }
        Principal::Person { .. } | Principal::Routine { .. } => {}
    }
    if let Some(tenant) = tenant
        && caller.home_reach(tenant) == HomeReach::Nothing
    {
        return Err(ApiError::not_found("no such tenant").with_field("tenantId"));
    }
    Ok(tenant)
}

/// Where a page of the catalogue starts: in the built-ins after a slug, or
/// in one of the two indexed parts.
enum Part {
    BuiltIns(Option<String>),
    Public(Option<PageKey>),
    Tenant(Option<PageKey>),
}

/// The cursor's marker of a position in the built-ins (their slug) or at the
/// start of an indexed part.
const BUILT_INS: &str = "BUILTIN";
const PART_START: &str = "PART";

fn marker(pk: &str, sk: &str) -> PageKey {
    PageKey {
        pk: pk.to_owned(),
        sk: sk.to_owned(),
        index_pk: None,
        index_sk: None,
    }
}

fn part_of(cursor: Option<&str>, tenant: Option<TenantId>) -> Result<Part, ApiError> {
    let Some(cursor) = cursor else {
        return Ok(Part::BuiltIns(None));
    };
    let at = decode_cursor(cursor)?;
    let tenant_scope: Option<ListScope> = tenant.map(tenant_catalogue);
    let part = match (at.pk.as_str(), at.sk.as_str()) {
        (BUILT_INS, slug) if at.index_pk.is_none() => Part::BuiltIns(Some(slug.to_owned())),
        (PART_START, "public") if at.index_pk.is_none() => Part::Public(None),
        (PART_START, "tenant") if at.index_pk.is_none() => Part::Tenant(None),
        _ if public_catalogue().holds(&at) => Part::Public(Some(at)),
        _ if tenant_scope.as_ref().is_some_and(|s| s.holds(&at)) => Part::Tenant(Some(at)),
        _ => {
            return Err(ApiError::validation(
                "cursor",
                "the cursor belongs to another list",
            ));
        }
    };
    Ok(part)
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
    let tenant = reader(&caller, params.tenant_id)?;
    let limit = PageParams::new(params.limit, None).limit()? as usize;
    let mut part = part_of(params.cursor.as_deref(), tenant)?;
    let mut items: Vec<CatalogueDefinition> = Vec::new();
    let integrations = Integrations(&*state.store);
    let next = loop {
        let room = limit - items.len();
        match part {
            Part::BuiltIns(after) => {
                let rest: Vec<BuiltInDefinition> = built_in_definitions()
                    .into_iter()
                    .filter(|d| after.as_deref().is_none_or(|a| d.slug > a))
                    .collect();
                items.extend(rest.iter().take(room).map(CatalogueDefinition::built_in));
                if rest.len() > room {
                    break Some(marker(BUILT_INS, rest[room - 1].slug));
                }
                part = Part::Public(None);
            }
            Part::Public(after) if room == 0 => {
                break Some(after.unwrap_or_else(|| marker(PART_START, "public")));
            }
            Part::Tenant(after) if room == 0 => {
                break Some(after.unwrap_or_else(|| marker(PART_START, "tenant")));
            }
            Part::Public(after) => {
                let (page, next) = integrations
                    .catalogue_page(&public_catalogue(), room as u32, after)
                    .await?;
                items.extend(page.iter().filter_map(CatalogueDefinition::of_connector));
                match (next, tenant) {
                    (Some(next), _) => break Some(next),
                    (None, Some(_)) => part = Part::Tenant(None),
                    (None, None) => break None,
                }
            }
            Part::Tenant(after) => {
                let Some(tenant) = tenant else { break None };
                let (page, next) = integrations
                    .catalogue_page(&tenant_catalogue(tenant), room as u32, after)
                    .await?;
                items.extend(page.iter().filter_map(CatalogueDefinition::of_connector));
                break next;
            }
        }
    };
    Ok(Json(ListResponse {
        items,
        next_cursor: next.as_ref().map(encode_cursor),
    }))
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
    let tenant = reader(&caller, params.tenant_id)?;
    let missing = || ApiError::not_found("no such definition in the catalogue");
    if let Some(built_in) = built_in_definitions().iter().find(|d| d.slug == slug) {
        return Ok(Json(CatalogueDefinition::built_in(built_in)));
    }
    if slug.len() > 40 {
        return Err(missing());
    }
    let connector = Integrations(&*state.store)
        .connector_by_slug(&slug)
        .await?
        .filter(|c| c.visible_to(tenant))
        .ok_or_else(missing)?;
    CatalogueDefinition::of_connector(&connector)
        .map(Json)
        .ok_or_else(missing)
}
