//! The catalogue: what households can install. The built-in definitions
//! (the platform's reference providers) by slug, then the listed public
//! definitions by slug (each connector's greatest published version that is
//! not deprecated), then a tenant's own listed definitions. Any signed-in
//! person or developer reads it; a key needs `integrations:read`; a widget
//! token may not.

use alyt_connectors::catalogue::{BuiltInDefinition, built_in_definitions};
use alyt_domain::access::{HomeReach, Principal, Scope};
use alyt_domain::ids::TenantId;
use alyt_store::repo::developers::DeveloperType;
use alyt_store::repo::integrations::{
    ConnectorRecord, Integrations, Listing, ListingAuthor, public_catalogue, tenant_catalogue,
};
use alyt_store::repo::submissions::AiDeclaration;
use alyt_store::{ListScope, PageKey};
use serde::Serialize;
use serde_json::Value;
use time::OffsetDateTime;

use crate::paging::{Paging, decode_cursor};
use crate::{App, Error};

/// The catalogue definition's author.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct DefinitionAuthor {
    pub display_name: String,
    #[serde(rename = "type")]
    pub kind: DeveloperType,
    pub verified: bool,
}

/// A catalogue definition (spec: Catalogue definition).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CatalogueDefinition {
    /// The connector's id (`connectorId` to connect it; a LIVE key's
    /// `definitionId`).
    pub id: String,
    pub slug: String,
    pub name: String,
    pub semver: String,
    /// The connector descriptor of the spec.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub descriptor: Value,
    pub prose: String,
    pub ai_declaration: AiDeclaration,
    pub author: DefinitionAuthor,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub published_at: OffsetDateTime,
}

impl CatalogueDefinition {
    pub fn of_connector(connector: &ConnectorRecord) -> Option<Self> {
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

    pub fn built_in(definition: &BuiltInDefinition) -> Self {
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

/// The tenant whose own definitions the caller may see, once the caller may
/// read the catalogue at all.
pub fn reader(caller: &Principal, tenant: Option<TenantId>) -> Result<Option<TenantId>, Error> {
    match caller {
        Principal::Key { .. } => caller.require_scope(Scope::IntegrationsRead)?,
        Principal::Widget { .. } => {
            return Err(Error::forbidden(
                "a widget token reads its home's things only",
            ));
        }
        Principal::Person { .. } | Principal::Routine { .. } => {}
    }
    if let Some(tenant) = tenant
        && caller.home_reach(tenant) == HomeReach::Nothing
    {
        return Err(Error::not_found("no such tenant").with_field("tenantId"));
    }
    Ok(tenant)
}

/// Where a page of the catalogue starts: in the built-ins after a slug, or
/// in one of the two indexed parts.
pub enum Part {
    BuiltIns(Option<String>),
    Public(Option<PageKey>),
    Tenant(Option<PageKey>),
}

/// The cursor's marker of a position in the built-ins (their slug) or at the
/// start of an indexed part.
pub const BUILT_INS: &str = "BUILTIN";
pub const PART_START: &str = "PART";

pub fn marker(pk: &str, sk: &str) -> PageKey {
    PageKey {
        pk: pk.to_owned(),
        sk: sk.to_owned(),
        index_pk: None,
        index_sk: None,
    }
}

/// One page of at most `limit` definitions from `part` on: the
/// definitions and where the next page starts (none: the last page).
pub async fn page(
    app: &App,
    tenant: Option<TenantId>,
    limit: usize,
    part: Part,
) -> Result<(Vec<CatalogueDefinition>, Option<PageKey>), Error> {
    let mut part = part;
    let mut items: Vec<CatalogueDefinition> = Vec::new();
    let integrations = Integrations(&*app.store);
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
    Ok((items, next))
}

/// One catalogue definition by slug: a built-in one, or a connector's the
/// reader may see (not found otherwise).
pub async fn definition(
    app: &App,
    caller: &Principal,
    tenant: Option<TenantId>,
    slug: &str,
) -> Result<CatalogueDefinition, Error> {
    let tenant = reader(caller, tenant)?;
    let missing = || Error::not_found("no such definition in the catalogue");
    if let Some(built_in) = built_in_definitions().iter().find(|d| d.slug == slug) {
        return Ok(CatalogueDefinition::built_in(built_in));
    }
    if slug.len() > 40 {
        return Err(missing());
    }
    let connector = Integrations(&*app.store)
        .connector_by_slug(slug)
        .await?
        .filter(|c| c.visible_to(tenant))
        .ok_or_else(missing)?;
    CatalogueDefinition::of_connector(&connector).ok_or_else(missing)
}

/// One page of the catalogue the caller reads: built-ins, then public
/// definitions, then the tenant's own, each by slug.
pub async fn definitions_page(
    app: &App,
    caller: &Principal,
    tenant: Option<TenantId>,
    paging: &Paging,
) -> Result<(Vec<CatalogueDefinition>, Option<PageKey>), Error> {
    let tenant = reader(caller, tenant)?;
    let limit = paging.limit()? as usize;
    let part = part_of(paging.cursor.as_deref(), tenant)?;
    page(app, tenant, limit, part).await
}

/// Where a page of the catalogue starts: the part and the position in it
/// the cursor names, which must be a position of this catalogue.
fn part_of(cursor: Option<&str>, tenant: Option<TenantId>) -> Result<Part, Error> {
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
            return Err(Error::validation(
                "cursor",
                "the cursor belongs to another list",
            ));
        }
    };
    Ok(part)
}
