//! Integrations: a connector installed in a home. Connecting one (with the
//! connector's challenges), discovering its things into the home, reading
//! and removing it.
//!
//! Who: the rule of rooms ([`access_to`]): connecting, answering,
//! discovering and removing configure the home (the household's OWNER,
//! tenant ADMIN/INSTALLER, keys bound to the tenant, platform OWNER/STAFF);
//! reading needs sight of the home (any member, a guest in its pinned home,
//! platform SUPPORT). Keys need `integrations:write` to configure and
//! `integrations:read` to read. A foreign or missing home or integration is
//! not found; so is a connector the tenant may not install (an unpublished
//! connector installs only in its developer's sandbox). A LIVE key reads the
//! integrations made from its own connector and configures none.
//!
//! Secrets: what a person types (`input`), the integration config and the
//! connector's runtime token and URL are never logged nor answered; a
//! connector that cannot be reached is named, never its address.

pub mod connect;
pub mod discovery;

use std::collections::BTreeMap;

use alyt_connectors::{ConnectorServer, IntegrationCall};
use alyt_domain::access::{Denied, HomeReach, Principal, Scope};
use alyt_domain::ids::{ConnectorId, IntegrationId, PropertyId, TenantId};
use alyt_store::PageKey;
use alyt_store::repo::integrations::{
    ConnectorRecord, EndpointRecord, IntegrationRecord, Integrations, connector_installs,
    integration_endpoints, tenant_integrations,
};
use alyt_store::repo::tenancy::{PropertyRecord, Tenancy};

use crate::access::{HomeAccess, HomeNeed, access_to, home_for, tenant_gate};
use crate::paging::Paging;
use crate::{App, Error};

pub use connect::{ConnectResult, Input, answer_challenge, check_input, connect_integration};
pub use discovery::{DiscoveryResult, discover, discover_into};

/// Fields a connect `input` may carry.
pub const MAX_INPUT_FIELDS: usize = 32;
/// Characters of an input field's key.
pub const MAX_INPUT_KEY_CHARS: usize = 64;
/// Characters of an input value.
pub const MAX_INPUT_VALUE_CHARS: usize = 4096;
fn no_such_integration() -> Error {
    Error::not_found("no such integration")
}

fn no_such_connector() -> Error {
    Error::not_found("no such connector")
}

// ---------------------------------------------------------------------------
// Who may do what

/// What an operation needs in the home: sight (`integrations:read`) or
/// configuration (`integrations:write`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    See,
    Configure,
}

impl Need {
    pub fn scope(self) -> Scope {
        match self {
            Need::See => Scope::IntegrationsRead,
            Need::Configure => Scope::IntegrationsWrite,
        }
    }

    fn access(self) -> HomeAccess {
        match self {
            Need::See => HomeAccess::See,
            Need::Configure => HomeAccess::Configure,
        }
    }

    /// What this need asks of a home (the rooms' rule with the integrations
    /// scopes and refusals), `missing` answering a home that is missing or
    /// not the caller's.
    pub fn in_home(self, missing: fn() -> Error) -> HomeNeed {
        HomeNeed {
            access: self.access(),
            scope: self.scope(),
            refusal: refusal_text(self),
            missing,
        }
    }
}

/// Whether the caller has `need` in `property` (`Some(false)`: sees it with
/// less; `None`: not the caller's home).
fn allowed(caller: &Principal, property: &PropertyRecord, need: Need) -> Option<bool> {
    access_to(caller, property).map(|access| access >= need.access())
}

fn refusal_text(need: Need) -> &'static str {
    match need {
        Need::See => "you cannot see this home",
        Need::Configure => {
            "connecting, discovering and removing integrations needs the household's OWNER role"
        }
    }
}

/// Integration `id` of `tenant` and its home, when the caller has `need`
/// there (404 "no such integration" otherwise). Two gets. A LIVE key reads
/// the integrations made from its own connector (any other answers as
/// missing) and configures none (403).
pub async fn integration_for(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    id: IntegrationId,
    need: Need,
) -> Result<(IntegrationRecord, PropertyRecord), Error> {
    caller.require_scope(need.scope())?;
    if let Some(connector) = caller.acts_for_connector(tenant) {
        if need == Need::Configure {
            return Err(Denied::ConnectorOnly.into());
        }
        let integration = Integrations(&*app.store)
            .get(tenant, id)
            .await?
            .filter(|i| i.connector_id == connector)
            .ok_or_else(no_such_integration)?;
        let home = Tenancy(&*app.store)
            .property(tenant, integration.property_id)
            .await?
            .ok_or_else(no_such_integration)?;
        return Ok((integration, home));
    }
    tenant_gate(caller, tenant, no_such_integration)?;
    let integration = Integrations(&*app.store)
        .get(tenant, id)
        .await?
        .ok_or_else(no_such_integration)?;
    let home = home_for(
        app,
        caller,
        tenant,
        integration.property_id,
        need.in_home(no_such_integration),
    )
    .await?;
    Ok((integration, home))
}

/// The connector a tenant may install: one with a published version, or
/// any in its developer's sandbox (404 otherwise, like a missing one); a
/// connector whose every published version is deprecated is 409 outside
/// the sandbox. One get.
pub(crate) async fn installable(
    app: &App,
    tenant: TenantId,
    id: ConnectorId,
) -> Result<ConnectorRecord, Error> {
    let Some(connector) = Integrations(&*app.store).connector(id).await? else {
        let id = id.to_string();
        if let Some(built_in) = alyt_connectors::catalogue::built_in_definitions()
            .iter()
            .find(|d| d.id == id)
        {
            return Err(Error::conflict(format!(
                "the built-in {} is not served by this platform (the local platform serves it)",
                built_in.slug
            )));
        }
        return Err(no_such_connector());
    };
    if connector.installable_by(tenant) {
        return Ok(connector);
    }
    if connector.deprecated {
        return Err(Error::conflict(format!(
            "{} is deprecated and cannot be newly installed; installations that exist keep working",
            connector.name
        )));
    }
    Err(no_such_connector())
}

/// How to call `connector`'s server.
pub(crate) fn server(app: &App, connector: &ConnectorRecord) -> ConnectorServer {
    ConnectorServer {
        base_url: connector.server_url.clone(),
        runtime_token: connector.runtime_token.clone(),
        policy: app.events.outbound,
    }
}

// ---------------------------------------------------------------------------
// Reading and removing

/// One page of the integrations of `tenant` the caller sees: a LIVE key
/// those made from its connector, staff and tenant roles all of them,
/// household people those of the homes they see (pages are read until
/// `limit` visible ones are found; the page ends after the last one answered).
pub async fn integrations_page(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    paging: &Paging,
) -> Result<(Vec<IntegrationRecord>, Option<PageKey>), Error> {
    let limit = paging.limit()?;
    caller.require_scope(Need::See.scope())?;
    let reach = caller.home_reach(tenant);
    let no_such_tenant = || Error::not_found("no such tenant");
    let repo = Integrations(&*app.store);
    // A LIVE key: the integrations made from its connector, from the
    // connector's installations index (bound to it and to this tenant).
    if let HomeReach::Connector(connector) = reach {
        let after = paging.after_within(&connector_installs(connector))?;
        return Ok(repo
            .page_of_connector(connector, tenant, limit, after)
            .await?);
    }
    let mut after = paging.after_within(&tenant_integrations(tenant))?;
    if reach == HomeReach::Nothing {
        return Err(no_such_tenant());
    }
    let tenancy = Tenancy(&*app.store);
    // Staff reach every tenant id, existing or not.
    if tenancy.tenant(tenant).await?.is_none() {
        return Err(no_such_tenant());
    }
    if reach == HomeReach::Everything {
        return Ok(repo.page(tenant, limit, after).await?);
    }
    let mut sight: BTreeMap<PropertyId, bool> = BTreeMap::new();
    let mut items: Vec<IntegrationRecord> = Vec::new();
    let limit = limit as usize;
    loop {
        let (records, next) = repo.page(tenant, limit as u32, after.clone()).await?;
        let read = records.len();
        let mut used = 0;
        for record in records {
            used += 1;
            let visible = match sight.get(&record.property_id) {
                Some(visible) => *visible,
                None => {
                    let visible = tenancy
                        .property(tenant, record.property_id)
                        .await?
                        .is_some_and(|home| allowed(caller, &home, Need::See) == Some(true));
                    sight.insert(record.property_id, visible);
                    visible
                }
            };
            if visible {
                items.push(record);
                if items.len() == limit {
                    break;
                }
            }
        }
        let more = next.is_some() || used < read;
        if items.len() == limit || !more {
            let next = match items.last() {
                Some(last) if more => Some(Integrations::position_in_tenant(last)),
                _ => None,
            };
            return Ok((items, next));
        }
        after = next;
    }
}

/// Integration `id` of `tenant` when the caller sees its home.
pub async fn integration(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    id: IntegrationId,
) -> Result<IntegrationRecord, Error> {
    Ok(integration_for(app, caller, tenant, id, Need::See).await?.0)
}

/// Removes integration `id` of `tenant` and its endpoints, when the caller
/// configures its home.
pub async fn remove(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    id: IntegrationId,
) -> Result<(), Error> {
    let (integration, _) = integration_for(app, caller, tenant, id, Need::Configure).await?;
    remove_integration(app, &integration).await
}

/// Tells the connector to disconnect (a failure or a connector that no
/// longer exists is logged, not fatal) and removes the integration with its
/// endpoints.
async fn remove_integration(app: &App, integration: &IntegrationRecord) -> Result<(), Error> {
    let repo = Integrations(&*app.store);
    match repo.connector(integration.connector_id).await? {
        Some(connector) => {
            let call = IntegrationCall {
                integration_id: integration.id.to_string(),
                tenant_id: integration.tenant_id.to_string(),
                config: integration.config.clone(),
            };
            if let Err(e) = app
                .connectors
                .disconnect(&server(app, &connector), &call)
                .await
            {
                tracing::warn!(integration = %integration.id, connector = %connector.id, error = %e, "disconnect failed; removing the integration anyway");
            }
        }
        None => {
            tracing::warn!(integration = %integration.id, connector = %integration.connector_id, "the connector no longer exists; removing the integration without disconnecting");
        }
    }
    repo.delete(integration).await?;
    tracing::info!(integration = %integration.id, tenant = %integration.tenant_id, "integration removed");
    Ok(())
}

/// One page of the endpoints of integration `id`, in id order.
pub async fn endpoints_page(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    id: IntegrationId,
    paging: &Paging,
) -> Result<(Vec<EndpointRecord>, Option<PageKey>), Error> {
    let limit = paging.limit()?;
    let (integration, _) = integration_for(app, caller, tenant, id, Need::See).await?;
    // The list reads the integration's index partition: a cursor of any
    // other list is refused before it reaches the store.
    let after = paging.after_within(&integration_endpoints(integration.id))?;
    Ok(Integrations(&*app.store)
        .endpoints_page(integration.id, limit, after)
        .await?)
}
