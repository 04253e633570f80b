//! A developer's connectors: the servers the platform calls for a
//! connector's integrations. A new one is unpublished, installable only in
//! the developer's sandbox tenant until staff publish a version of it; its
//! runtime token is answered once. Its server URL is checked against the
//! outbound policy, as a webhook URL, and again at every call.

use alyt_domain::access::{Principal, Scope};
use alyt_domain::ids::ConnectorId;
use alyt_domain::secret::random_token;
use alyt_events::outbound;
use alyt_store::PageKey;
use alyt_store::repo::developers::DeveloperRecord;
use alyt_store::repo::integrations::{ConnectorRecord, Integrations, developer_connectors};

use super::connector_developer;
use crate::paging::Paging;
use crate::{App, Error};

/// The prefix of every runtime token.
pub const RUNTIME_TOKEN_PREFIX: &str = "svc_rt_";
pub const SLUG_MIN_CHARS: usize = 2;
pub const SLUG_MAX_CHARS: usize = 40;
pub const NAME_MAX_CHARS: usize = 80;

/// A connector as the request gave it.
#[derive(Debug, Clone)]
pub struct NewConnector {
    pub slug: String,
    pub name: String,
    pub server_url: String,
}

/// A slug: 2-40 of a-z, 0-9 and '-', starting with a letter.
pub fn check_slug(slug: &str) -> Result<(), Error> {
    let ok = (SLUG_MIN_CHARS..=SLUG_MAX_CHARS).contains(&slug.len())
        && slug.starts_with(|c: char| c.is_ascii_lowercase())
        && slug
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if ok {
        Ok(())
    } else {
        Err(Error::validation(
            "slug",
            format!(
                "slug must be {SLUG_MIN_CHARS} to {SLUG_MAX_CHARS} characters of lowercase \
                 letters, digits and hyphens, starting with a letter"
            ),
        ))
    }
}

fn check_name(name: &str) -> Result<String, Error> {
    let name = name.trim();
    let chars = name.chars().count();
    if chars == 0 || chars > NAME_MAX_CHARS || name.chars().any(char::is_control) {
        return Err(Error::validation(
            "name",
            format!("name must be 1 to {NAME_MAX_CHARS} printable characters"),
        ));
    }
    Ok(name.to_owned())
}

/// Creates a connector of the caller (a developer session, or a DEV key
/// with `integrations:write`): the connector and its runtime token, answered
/// this once. A slug taken by a built-in connector or another connector is
/// a conflict on `slug`.
pub async fn create_connector(
    app: &App,
    caller: &Principal,
    new: NewConnector,
) -> Result<(ConnectorRecord, String), Error> {
    let developer = connector_developer(app, caller, Scope::IntegrationsWrite).await?;
    let slug = new.slug.trim();
    check_slug(slug)?;
    if alyt_connectors::catalogue::built_in_definitions()
        .iter()
        .any(|d| d.slug == slug)
    {
        return Err(Error::conflict(format!(
            "the slug {slug:?} is taken by a built-in connector"
        ))
        .with_field("slug"));
    }
    let name = check_name(&new.name)?;
    let server_url = new.server_url.trim();
    outbound::validate_url(app.events.outbound, server_url)
        .map_err(|refusal| Error::validation("serverUrl", refusal.to_string()))?;
    create_in_sandbox(app, &developer, slug, name, server_url).await
}

/// Creates a connector of the developer, installable in its sandbox, with a
/// new runtime token (answered once); a taken slug is a conflict on `slug`.
async fn create_in_sandbox(
    app: &App,
    developer: &DeveloperRecord,
    slug: &str,
    name: String,
    server_url: &str,
) -> Result<(ConnectorRecord, String), Error> {
    let sandbox = developer.sandbox_tenant_id.ok_or_else(|| {
        Error::conflict("the developer has no sandbox tenant yet; verify the account")
    })?;
    let now = app.clock.now();
    let runtime_token = format!("{RUNTIME_TOKEN_PREFIX}{}", random_token());
    let record = ConnectorRecord {
        id: ConnectorId::new(),
        developer_id: developer.id,
        slug: slug.to_owned(),
        name,
        server_url: server_url.to_owned(),
        runtime_token: runtime_token.clone(),
        sandbox_tenant_id: Some(sandbox),
        published: false,
        listing: None,
        deprecated: false,
        rev: 0,
        created_at: now,
        updated_at: now,
    };
    match Integrations(&*app.store).create_connector(&record).await {
        Ok(()) => {}
        Err(e) if e.is_condition_failure() => {
            return Err(Error::conflict(format!("the slug {slug:?} is taken")).with_field("slug"));
        }
        Err(e) => return Err(e.into()),
    }
    tracing::info!(connector = %record.id, developer = %developer.id, slug = %record.slug, "connector created");
    Ok((record, runtime_token))
}

/// One page of the caller's connectors (a developer session, or a key with
/// `integrations:read`), oldest first.
pub async fn connectors_page(
    app: &App,
    caller: &Principal,
    paging: &Paging,
) -> Result<(Vec<ConnectorRecord>, Option<PageKey>), Error> {
    let developer = connector_developer(app, caller, Scope::IntegrationsRead).await?;
    let limit = paging.limit()?;
    let after = paging.after_within(&developer_connectors(developer.id))?;
    Ok(Integrations(&*app.store)
        .connectors_of(developer.id, limit, after)
        .await?)
}
