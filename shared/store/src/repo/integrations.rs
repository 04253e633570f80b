//! Connectors, their installations in households (integrations), pending
//! connect challenges, and the endpoints integrations bring.
//!
//! Keys (see `DATA_MODEL.md`, "Integrations and endpoints"):
//! * connector `CONNECTOR#{c}/CONNECTOR`; gsi1 `DEVCONNECTORS#{dev}` /
//!   `{c}` (a developer's connectors); slug guard `SLUG#{slug}/SLUG`.
//! * integration `TENANT#{t}/INTEGRATION#{i}`; gsi1 `INSTALLS#{c}` /
//!   `{t}#{i}` (the tenants that installed a connector: a LIVE key's reach).
//! * challenge `CHALLENGE#{sha256(token)}/CHALLENGE` (ttl 10 minutes).
//! * endpoint `TENANT#{t}/ENDPOINT#{e}`; gsi1 `PROPERTY#{p}` / `ENDPOINT#{e}`
//!   (beside the home's devices, so one query reads every thing of a home);
//!   gsi2 `INTEGRATION#{i}` / `ENDPOINT#{e}`. The endpoint id is a UUIDv5 of
//!   (integration, externalId): rediscovery finds the same endpoint without a
//!   guard item, and creation is `attribute_not_exists`.

use super::{page, record, ts};
use std::collections::BTreeMap;

use alyt_domain::device::{DeviceCapability, Lenient};
use alyt_domain::ids::{
    ConnectorId, ConnectorVersionId, DeveloperId, EndpointId, IntegrationId, PropertyId, RoomId,
    TenantId,
};
use alyt_domain::integration::music::ProviderAccount;
use alyt_domain::integration::{EndpointKind, PresentedAs, ThingStateData};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use time::OffsetDateTime;
use uuid::Uuid;

use super::devices::DeviceRecord;
use super::submissions::AiDeclaration;
use crate::{
    Condition, Index, Item, Key, ListScope, PageKey, Query, SortKey, Store, StoreError, TxWrite,
};

/// A challenge answer must come within this long.
pub const CHALLENGE_TTL: time::Duration = time::Duration::minutes(10);

// ---------------------------------------------------------------------------
// Connectors

/// A developer's connector. Its runtime token is stored as issued: the
/// platform presents it to the connector's server on every call, so it must
/// be readable (like a webhook secret); `Debug` redacts it.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectorRecord {
    pub id: ConnectorId,
    pub developer_id: DeveloperId,
    pub slug: String,
    pub name: String,
    pub server_url: String,
    pub runtime_token: String,
    /// The developer's sandbox: where the connector may be installed before
    /// it is published.
    #[serde(default)]
    pub sandbox_tenant_id: Option<TenantId>,
    /// Published to the catalogue: installable by any household (while
    /// `listing` is the published version households install).
    #[serde(default)]
    pub published: bool,
    /// The catalogue's version of the connector: its greatest published
    /// version that is not deprecated. `None` before the first publication
    /// and once every published version is deprecated.
    #[serde(default)]
    pub listing: Option<Listing>,
    /// Whether a published version was deprecated and none is published
    /// any more: the connector cannot be newly installed (existing
    /// installations keep working).
    #[serde(default)]
    pub deprecated: bool,
    #[serde(with = "ts::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "ts::rfc3339")]
    pub updated_at: OffsetDateTime,
    /// Bumped by every change of the listing; each is conditioned on it.
    #[serde(default)]
    pub rev: u32,
}

/// What the catalogue shows of a connector: the published version's content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Listing {
    pub version_id: ConnectorVersionId,
    pub semver: String,
    /// The descriptor's name.
    pub name: String,
    /// The checked descriptor, as JSON.
    pub descriptor: Value,
    pub prose: String,
    pub ai_declaration: AiDeclaration,
    /// `true` for the descriptor's `visibility: 'public'` (any tenant sees
    /// it), `false` for `'tenant'` (only the developer's own tenant).
    pub public: bool,
    /// The descriptor's `listed`: an unlisted definition is found by slug,
    /// not in the list.
    pub listed: bool,
    #[serde(with = "ts::rfc3339")]
    pub published_at: OffsetDateTime,
    /// The developer as the catalogue credits it, when published.
    pub author: ListingAuthor,
}

/// The catalogue definition's `author`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListingAuthor {
    pub display_name: String,
    #[serde(rename = "type")]
    pub kind: super::developers::DeveloperType,
    /// Platform staff verified the developer.
    pub verified: bool,
}

impl std::fmt::Debug for ConnectorRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectorRecord")
            .field("id", &self.id)
            .field("developer_id", &self.developer_id)
            .field("slug", &self.slug)
            .field("server_url", &self.server_url)
            .field("runtime_token", &"<redacted>")
            .finish_non_exhaustive()
    }
}

impl ConnectorRecord {
    /// Whether `tenant` may install it: its developer's own sandbox (any
    /// version, also under review), anyone while a public version is
    /// published.
    pub fn installable_by(&self, tenant: TenantId) -> bool {
        self.sandbox_tenant_id == Some(tenant) || self.listing.as_ref().is_some_and(|l| l.public)
    }

    /// Whether `tenant` sees its listing in the catalogue (public, or the
    /// developer's own tenant).
    pub fn visible_to(&self, tenant: Option<TenantId>) -> bool {
        self.listing
            .as_ref()
            .is_some_and(|l| l.public || (tenant.is_some() && tenant == self.sandbox_tenant_id))
    }
}

/// The catalogue's public definitions, by slug.
pub fn public_catalogue() -> ListScope {
    ListScope::Index(Index::Gsi2, "CATALOGUE".to_owned())
}

/// The listed `visibility: 'tenant'` definitions of one tenant, by slug.
pub fn tenant_catalogue(tenant: TenantId) -> ListScope {
    ListScope::Index(Index::Gsi2, format!("CATALOGUE#{tenant}"))
}

/// The connector's item, with its indexes: its developer's list, and the
/// catalogue while a listed version is published.
fn connector_item(connector: &ConnectorRecord) -> Result<Item, StoreError> {
    let mut item = Item::from_record(connector_key(connector.id), connector)?
        .with(
            Index::Gsi1.pk_attr(),
            format!("DEVCONNECTORS#{}", connector.developer_id),
        )
        .with(Index::Gsi1.sk_attr(), connector.id.to_string());
    if let Some(listing) = connector.listing.as_ref().filter(|l| l.listed) {
        let scope = match (listing.public, connector.sandbox_tenant_id) {
            (true, _) => Some("CATALOGUE".to_owned()),
            (false, Some(tenant)) => Some(format!("CATALOGUE#{tenant}")),
            (false, None) => None,
        };
        if let Some(scope) = scope {
            item.set(Index::Gsi2.pk_attr(), scope);
            item.set(Index::Gsi2.sk_attr(), connector.slug.clone());
        }
    }
    Ok(item)
}

pub fn connector_key(id: ConnectorId) -> Key {
    Key::new(format!("CONNECTOR#{id}"), "CONNECTOR")
}
fn slug_key(slug: &str) -> Key {
    Key::new(format!("SLUG#{slug}"), "SLUG")
}

// ---------------------------------------------------------------------------
// Integrations and challenges

/// A connector installed in a household home. `config` is what the
/// connector answered on connect (where a LAN thing's secrets live): never
/// shown, never logged.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IntegrationRecord {
    pub id: IntegrationId,
    pub tenant_id: TenantId,
    pub property_id: PropertyId,
    pub connector_id: ConnectorId,
    /// The connector's name when installed.
    pub name: String,
    #[serde(default)]
    pub config: Map<String, Value>,
    #[serde(with = "ts::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(default, with = "ts::option")]
    pub discovered_at: Option<OffsetDateTime>,
    /// The catalogue version installed (none: a sandbox installation of a
    /// connector not yet published); its deprecation notifies the home.
    #[serde(default)]
    pub version_id: Option<ConnectorVersionId>,
    /// A streaming-provider account: its provider and when its session
    /// ends (`alyt_domain::integration::music`).
    #[serde(default)]
    pub account: Option<ProviderAccount>,
}

impl std::fmt::Debug for IntegrationRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IntegrationRecord")
            .field("id", &self.id)
            .field("tenant_id", &self.tenant_id)
            .field("property_id", &self.property_id)
            .field("connector_id", &self.connector_id)
            .field("config", &"<redacted>")
            .finish_non_exhaustive()
    }
}

pub fn integration_key(tenant: TenantId, id: IntegrationId) -> Key {
    Key::new(format!("TENANT#{tenant}"), format!("INTEGRATION#{id}"))
}

fn integration_item(integration: &IntegrationRecord) -> Result<Item, StoreError> {
    Ok(Item::from_record(
        integration_key(integration.tenant_id, integration.id),
        integration,
    )?
    .with(
        Index::Gsi1.pk_attr(),
        format!("INSTALLS#{}", integration.connector_id),
    )
    .with(
        Index::Gsi1.sk_attr(),
        format!("{}#{}", integration.tenant_id, integration.id),
    ))
}

/// A connect waiting for the person's answer to the connector's challenge.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChallengeRecord {
    pub integration_id: IntegrationId,
    pub tenant_id: TenantId,
    pub property_id: PropertyId,
    pub connector_id: ConnectorId,
    /// The connector's own challenge token (sent back with the answer).
    pub connector_token: String,
}

impl std::fmt::Debug for ChallengeRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChallengeRecord")
            .field("integration_id", &self.integration_id)
            .field("connector_token", &"<redacted>")
            .finish_non_exhaustive()
    }
}

fn challenge_key(token_hash: &str) -> Key {
    Key::new(format!("CHALLENGE#{token_hash}"), "CHALLENGE")
}

// ---------------------------------------------------------------------------
// Endpoints

/// Who put an endpoint in its room. Discovery never moves a thing a person
/// placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PlacedBy {
    Person,
    Discovery,
}

/// An endpoint as stored (its fields, plus what the platform needs to judge and
/// place it). Enums are lenient so a row written by a newer build reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EndpointRecord {
    pub id: EndpointId,
    pub tenant_id: TenantId,
    pub integration_id: IntegrationId,
    pub property_id: PropertyId,
    #[serde(default)]
    pub room_id: Option<RoomId>,
    #[serde(default)]
    pub placed_by: Option<PlacedBy>,
    pub kind: Lenient<EndpointKind>,
    pub external_id: String,
    pub name: String,
    #[serde(default)]
    pub address: Option<String>,
    #[serde(default)]
    pub capabilities: Option<Map<String, Value>>,
    #[serde(default)]
    pub capability_set: Vec<Lenient<DeviceCapability>>,
    #[serde(default)]
    pub features: Vec<String>,
    /// Stored raw: a value this build does not know reads as not presented.
    #[serde(default)]
    pub presented_as: Option<String>,
    /// Whether the household uses it: a disabled endpoint takes no
    /// commands, is no music speaker and blocks arming where security
    /// watches it. Rows from before the field read as enabled; rediscovery
    /// keeps it.
    #[serde(default = "enabled_by_default")]
    pub enabled: bool,
    /// Live values the connector last read back, keyed by capability.
    #[serde(default)]
    pub state: Map<String, Value>,
    #[serde(default, with = "ts::option")]
    pub state_updated_at: Option<OffsetDateTime>,
    /// The last successful read.
    #[serde(default, with = "ts::option")]
    pub last_seen: Option<OffsetDateTime>,
    /// The last read attempt (null: never checked).
    #[serde(default, with = "ts::option")]
    pub checked_at: Option<OffsetDateTime>,
    /// Whether the last read attempt succeeded.
    #[serde(default)]
    pub reachable: bool,
    #[serde(with = "ts::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "ts::rfc3339")]
    pub updated_at: OffsetDateTime,
    /// Bumped by every rewrite; rewrites are conditioned on it.
    #[serde(default)]
    pub rev: u64,
}

fn enabled_by_default() -> bool {
    true
}

impl EndpointRecord {
    /// The id of the endpoint `external_id` of `integration`: stable across
    /// rediscoveries.
    pub fn id_for(integration: IntegrationId, external_id: &str) -> EndpointId {
        EndpointId(Uuid::new_v5(
            integration.as_uuid(),
            format!("endpoint:{external_id}").as_bytes(),
        ))
    }

    /// The capabilities this build knows.
    pub fn known_capabilities(&self) -> std::collections::BTreeSet<DeviceCapability> {
        self.capability_set
            .iter()
            .filter_map(Lenient::known)
            .collect()
    }

    pub fn presented_as(&self) -> Option<PresentedAs> {
        PresentedAs::from_stored(self.presented_as.as_deref())
    }

    /// The `thing.state` payload announcing its state as of `at` (a kind
    /// this build does not know is announced as `OTHER`).
    pub fn thing_state(&self, at: OffsetDateTime) -> ThingStateData {
        ThingStateData {
            endpoint_id: self.id,
            integration_id: self.integration_id,
            kind: self.kind.known().unwrap_or(EndpointKind::Other),
            state: self.state.clone(),
            at,
        }
    }
}

pub fn endpoint_key(tenant: TenantId, id: EndpointId) -> Key {
    Key::new(format!("TENANT#{tenant}"), format!("ENDPOINT#{id}"))
}

/// The item of an endpoint with its index keys.
pub fn endpoint_item(endpoint: &EndpointRecord) -> Result<Item, StoreError> {
    Ok(
        Item::from_record(endpoint_key(endpoint.tenant_id, endpoint.id), endpoint)?
            .with(
                Index::Gsi1.pk_attr(),
                format!("PROPERTY#{}", endpoint.property_id),
            )
            .with(Index::Gsi1.sk_attr(), format!("ENDPOINT#{}", endpoint.id))
            .with(
                Index::Gsi2.pk_attr(),
                format!("INTEGRATION#{}", endpoint.integration_id),
            )
            .with(Index::Gsi2.sk_attr(), format!("ENDPOINT#{}", endpoint.id)),
    )
}

/// The put writing `endpoint` as the next revision of `read_rev` (create:
/// `None`, conditioned on the item being absent).
pub fn endpoint_write(
    endpoint: &EndpointRecord,
    read_rev: Option<u64>,
) -> Result<TxWrite, StoreError> {
    let mut next = endpoint.clone();
    let condition = match read_rev {
        None => Condition::item_absent(),
        Some(rev) => {
            next.rev = rev + 1;
            if rev == 0 {
                Condition::item_present()
                    .and(Condition::not_exists("rev").or(Condition::eq("rev", 0)))
            } else {
                Condition::eq("rev", rev)
            }
        }
    };
    Ok(TxWrite::Put {
        item: endpoint_item(&next)?,
        condition: Some(condition),
    })
}

/// Every live thing of a home: its devices and its endpoints.
#[derive(Debug, Clone, Default)]
pub struct HomeThings {
    pub devices: Vec<DeviceRecord>,
    pub endpoints: Vec<EndpointRecord>,
}

pub struct Integrations<'a>(pub &'a dyn Store);

impl Integrations<'_> {
    // -- connectors --

    /// Creates a connector with its slug guard. One transaction; a taken
    /// slug fails the condition.
    pub async fn create_connector(&self, connector: &ConnectorRecord) -> Result<(), StoreError> {
        let item = connector_item(connector)?;
        let guard =
            Item::new(slug_key(&connector.slug)).with("connectorId", connector.id.to_string());
        self.0
            .transact(vec![
                TxWrite::Put {
                    item: guard,
                    condition: Some(Condition::item_absent()),
                },
                TxWrite::Put {
                    item,
                    condition: Some(Condition::item_absent()),
                },
            ])
            .await
    }

    /// One get.
    pub async fn connector(&self, id: ConnectorId) -> Result<Option<ConnectorRecord>, StoreError> {
        record(self.0, &connector_key(id)).await
    }

    /// The write that replaces `read` by `next` (its revision one past
    /// `read`'s), conditioned on the connector being as read: for the
    /// transaction of a review move that changes the catalogue.
    pub fn connector_change(
        read: &ConnectorRecord,
        next: &ConnectorRecord,
    ) -> Result<TxWrite, StoreError> {
        let next = ConnectorRecord {
            rev: read.rev + 1,
            ..next.clone()
        };
        Ok(TxWrite::Put {
            item: connector_item(&next)?,
            condition: Some(Condition::item_present().and(Condition::eq("rev", read.rev))),
        })
    }

    /// Writes a built-in connector as the runtime serves it (its address and
    /// runtime token change with every start): one unconditional put.
    pub async fn put_built_in(&self, connector: &ConnectorRecord) -> Result<(), StoreError> {
        self.0.put(connector_item(connector)?, None).await
    }

    /// The connector a slug names: two gets (the slug guard, the connector).
    pub async fn connector_by_slug(
        &self,
        slug: &str,
    ) -> Result<Option<ConnectorRecord>, StoreError> {
        let Some(guard) = self.0.get(&slug_key(slug)).await? else {
            return Ok(None);
        };
        let Some(id) = guard
            .get_str("connectorId")
            .and_then(|id| id.parse::<ConnectorId>().ok())
        else {
            return Ok(None);
        };
        self.connector(id).await
    }

    /// A page of catalogue definitions (a scope of [`public_catalogue`] or
    /// [`tenant_catalogue`]), by slug. One index query.
    pub async fn catalogue_page(
        &self,
        scope: &ListScope,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<ConnectorRecord>, Option<PageKey>), StoreError> {
        page(self.0, scope.query().limit(limit).after(after)).await
    }

    /// A page of a developer's connectors, oldest first. One index query.
    pub async fn connectors_of(
        &self,
        developer: DeveloperId,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<ConnectorRecord>, Option<PageKey>), StoreError> {
        page(
            self.0,
            developer_connectors(developer)
                .query()
                .limit(limit)
                .after(after),
        )
        .await
    }

    /// Several connectors by id (one batch get per 100).
    pub async fn connectors(
        &self,
        ids: impl IntoIterator<Item = ConnectorId>,
    ) -> Result<BTreeMap<ConnectorId, ConnectorRecord>, StoreError> {
        by_id(self.0, ids, connector_key, |c: &ConnectorRecord| c.id).await
    }

    // -- integrations --

    /// Creates an integration. One conditional put.
    pub async fn create(&self, integration: &IntegrationRecord) -> Result<(), StoreError> {
        self.0
            .put(
                integration_item(integration)?,
                Some(Condition::item_absent()),
            )
            .await
    }

    /// Rewrites an integration that exists. One conditional put.
    pub async fn replace(&self, integration: &IntegrationRecord) -> Result<(), StoreError> {
        self.0
            .put(
                integration_item(integration)?,
                Some(Condition::item_present()),
            )
            .await
    }

    /// One get.
    pub async fn get(
        &self,
        tenant: TenantId,
        id: IntegrationId,
    ) -> Result<Option<IntegrationRecord>, StoreError> {
        record(self.0, &integration_key(tenant, id)).await
    }

    /// Several integrations of a tenant by id. One batch get per 100.
    pub async fn get_many(
        &self,
        tenant: TenantId,
        ids: impl IntoIterator<Item = IntegrationId>,
    ) -> Result<BTreeMap<IntegrationId, IntegrationRecord>, StoreError> {
        by_id(
            self.0,
            ids,
            |id| integration_key(tenant, id),
            |i: &IntegrationRecord| i.id,
        )
        .await
    }

    /// A page of a tenant's integrations, oldest first. One query.
    pub async fn page(
        &self,
        tenant: TenantId,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<IntegrationRecord>, Option<PageKey>), StoreError> {
        page(
            self.0,
            tenant_integrations(tenant)
                .query()
                .sort(SortKey::BeginsWith("INTEGRATION#".into()))
                .limit(limit)
                .after(after),
        )
        .await
    }

    /// Where `integration` stands in its tenant's list ([`Self::page`]): the
    /// `after` that continues a page cut short just after it.
    pub fn position_in_tenant(integration: &IntegrationRecord) -> PageKey {
        super::table_position(integration_key(integration.tenant_id, integration.id))
    }

    /// A page of the integrations made from `connector` in `tenant` (what a
    /// LIVE key of the connector reads there), oldest first. One index query.
    pub async fn page_of_connector(
        &self,
        connector: ConnectorId,
        tenant: TenantId,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<IntegrationRecord>, Option<PageKey>), StoreError> {
        page(
            self.0,
            connector_installs(connector)
                .query()
                .sort(SortKey::BeginsWith(format!("{tenant}#")))
                .limit(limit)
                .after(after),
        )
        .await
    }

    /// The tenants that installed connector `connector` (a LIVE key's
    /// reach): one index query per 1,000 installations.
    pub async fn installing_tenants(
        &self,
        connector: ConnectorId,
    ) -> Result<Vec<TenantId>, StoreError> {
        let tenants: std::collections::BTreeSet<TenantId> = self
            .installations(connector)
            .await?
            .iter()
            .map(|i| i.tenant_id)
            .collect();
        Ok(tenants.into_iter().collect())
    }

    /// Every installation of connector `connector`: one index query per
    /// 1,000.
    pub async fn installations(
        &self,
        connector: ConnectorId,
    ) -> Result<Vec<IntegrationRecord>, StoreError> {
        super::every_page(
            self.0,
            connector_installs(connector)
                .query()
                .limit(Query::MAX_LIMIT),
        )
        .await
    }

    /// Removes an integration and its endpoints. One transaction per 99
    /// endpoints, the integration last: a failure leaves it to delete again.
    pub async fn delete(&self, integration: &IntegrationRecord) -> Result<(), StoreError> {
        let endpoints = self.endpoints_all(integration.id).await?;
        for chunk in endpoints.chunks(crate::MAX_TRANSACTION_OPS - 1) {
            let writes = chunk
                .iter()
                .map(|e| TxWrite::Delete {
                    key: endpoint_key(e.tenant_id, e.id),
                    condition: None,
                })
                .collect();
            self.0.transact(writes).await?;
        }
        self.0
            .delete(
                &integration_key(integration.tenant_id, integration.id),
                None,
            )
            .await?;
        Ok(())
    }

    // -- challenges --

    /// Keeps a pending challenge under the hash of the token the person was
    /// given. One put.
    pub async fn put_challenge(
        &self,
        token_hash: &str,
        challenge: &ChallengeRecord,
        now: OffsetDateTime,
    ) -> Result<(), StoreError> {
        let item = Item::from_record(challenge_key(token_hash), challenge)?
            .with("ttl", (now + CHALLENGE_TTL).unix_timestamp());
        self.0.put(item, Some(Condition::item_absent())).await
    }

    /// Takes a pending challenge (a conditional delete: a token answers
    /// once, and only before its `ttl`, whenever the backend purges it).
    /// `None` when unknown, expired or already answered.
    pub async fn take_challenge(
        &self,
        token_hash: &str,
        now: OffsetDateTime,
    ) -> Result<Option<ChallengeRecord>, StoreError> {
        let unexpired = Condition::item_present().and(Condition::gt("ttl", now.unix_timestamp()));
        super::delete_if(self.0, &challenge_key(token_hash), unexpired).await
    }

    // -- endpoints --

    /// One get.
    pub async fn endpoint(
        &self,
        tenant: TenantId,
        id: EndpointId,
    ) -> Result<Option<EndpointRecord>, StoreError> {
        record(self.0, &endpoint_key(tenant, id)).await
    }

    /// A page of an integration's endpoints in id order. One index query.
    pub async fn endpoints_page(
        &self,
        integration: IntegrationId,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<EndpointRecord>, Option<PageKey>), StoreError> {
        page(
            self.0,
            endpoints_query(integration).limit(limit).after(after),
        )
        .await
    }

    /// Every endpoint of an integration: one index query per 1,000.
    pub async fn endpoints_all(
        &self,
        integration: IntegrationId,
    ) -> Result<Vec<EndpointRecord>, StoreError> {
        super::every_page(self.0, endpoints_query(integration).limit(Query::MAX_LIMIT)).await
    }

    /// Every live thing of a home, devices and endpoints, of `tenant`: one
    /// gsi1 query per 1,000 things (both live in the home's partition).
    pub async fn home_things(
        &self,
        tenant: TenantId,
        property: PropertyId,
    ) -> Result<HomeThings, StoreError> {
        let mut things = HomeThings::default();
        let mut after = None;
        loop {
            let page = self
                .0
                .query(
                    Query::on_index(Index::Gsi1, format!("PROPERTY#{property}"))
                        .limit(Query::MAX_LIMIT)
                        .after(after),
                )
                .await?;
            for item in &page.items {
                let Some((_, sk)) = item.index_key(Index::Gsi1) else {
                    continue;
                };
                if sk.starts_with("DEVICE#") {
                    let device: DeviceRecord = item.to_record()?;
                    if device.tenant_id == tenant && device.deleted_at.is_none() {
                        things.devices.push(device);
                    }
                } else if sk.starts_with("ENDPOINT#") {
                    let endpoint: EndpointRecord = item.to_record()?;
                    if endpoint.tenant_id == tenant {
                        things.endpoints.push(endpoint);
                    }
                }
            }
            match page.next {
                Some(next) => after = Some(next),
                None => return Ok(things),
            }
        }
    }

    /// Writes endpoints and events in one transaction (each endpoint write
    /// from [`endpoint_write`]).
    pub async fn write(&self, writes: Vec<TxWrite>) -> Result<(), StoreError> {
        self.0.transact(writes).await
    }
}

/// The list of a developer's connectors.
pub fn developer_connectors(developer: DeveloperId) -> ListScope {
    ListScope::Index(Index::Gsi1, format!("DEVCONNECTORS#{developer}"))
}

/// The list of a tenant's integrations.
pub fn tenant_integrations(tenant: TenantId) -> ListScope {
    ListScope::Table(format!("TENANT#{tenant}"))
}

/// The list of the integrations made from a connector.
pub fn connector_installs(connector: ConnectorId) -> ListScope {
    ListScope::Index(Index::Gsi1, format!("INSTALLS#{connector}"))
}

/// The list of an integration's endpoints.
pub fn integration_endpoints(integration: IntegrationId) -> ListScope {
    ListScope::Index(Index::Gsi2, format!("INTEGRATION#{integration}"))
}

/// The query of an integration's endpoints, in id order.
fn endpoints_query(integration: IntegrationId) -> Query {
    integration_endpoints(integration)
        .query()
        .sort(SortKey::BeginsWith("ENDPOINT#".into()))
}

/// The records of `ids` that exist, by id: each id read once (one batch get
/// per 100 keys).
async fn by_id<I: Ord + Copy, T: crate::Record>(
    store: &dyn Store,
    ids: impl IntoIterator<Item = I>,
    key: impl Fn(I) -> Key,
    id_of: impl Fn(&T) -> I,
) -> Result<BTreeMap<I, T>, StoreError> {
    let keys: Vec<Key> = ids
        .into_iter()
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .map(key)
        .collect();
    super::get_all(store, &keys)
        .await?
        .iter()
        .map(|item| item.to_record::<T>().map(|r| (id_of(&r), r)))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use alyt_domain::SystemClock;

    use super::*;
    use crate::sqlite::SqliteStore;

    fn now() -> OffsetDateTime {
        OffsetDateTime::now_utc().replace_nanosecond(0).unwrap()
    }

    fn endpoint(
        tenant: TenantId,
        integration: IntegrationId,
        property: PropertyId,
        external: &str,
    ) -> EndpointRecord {
        EndpointRecord {
            id: EndpointRecord::id_for(integration, external),
            tenant_id: tenant,
            integration_id: integration,
            property_id: property,
            room_id: None,
            placed_by: None,
            kind: EndpointKind::Light.into(),
            external_id: external.into(),
            name: "Lamp".into(),
            address: None,
            capabilities: None,
            capability_set: vec![DeviceCapability::Light.into()],
            features: vec![],
            presented_as: None,
            enabled: true,
            state: Map::new(),
            state_updated_at: None,
            last_seen: None,
            checked_at: None,
            reachable: false,
            created_at: now(),
            updated_at: now(),
            rev: 0,
        }
    }

    #[test]
    fn an_endpoint_stored_before_it_could_be_disabled_reads_as_enabled() {
        let lamp = endpoint(
            TenantId::new(),
            IntegrationId::new(),
            PropertyId::new(),
            "a",
        );
        let mut stored = serde_json::to_value(&lamp).unwrap();
        assert_eq!(stored["enabled"], true);
        stored.as_object_mut().unwrap().remove("enabled");
        let read: EndpointRecord = serde_json::from_value(stored).unwrap();
        assert!(read.enabled);
    }

    #[tokio::test]
    async fn endpoints_are_created_once_rewritten_by_rev_and_read_with_the_home() {
        let store = SqliteStore::in_memory(Arc::new(SystemClock)).unwrap();
        let repo = Integrations(&store);
        let (tenant, integration, property) =
            (TenantId::new(), IntegrationId::new(), PropertyId::new());
        let lamp = endpoint(tenant, integration, property, "lamp-1");
        assert_eq!(
            lamp.id,
            EndpointRecord::id_for(integration, "lamp-1"),
            "stable id"
        );
        repo.write(vec![endpoint_write(&lamp, None).unwrap()])
            .await
            .unwrap();
        let again = repo.write(vec![endpoint_write(&lamp, None).unwrap()]).await;
        assert!(again.unwrap_err().is_condition_failure(), "created once");

        let mut renamed = lamp.clone();
        renamed.name = "Desk lamp".into();
        repo.write(vec![endpoint_write(&renamed, Some(0)).unwrap()])
            .await
            .unwrap();
        let stale = repo
            .write(vec![endpoint_write(&renamed, Some(0)).unwrap()])
            .await;
        assert!(stale.unwrap_err().is_condition_failure(), "stale rev");
        let stored = repo.endpoint(tenant, lamp.id).await.unwrap().unwrap();
        assert_eq!((stored.name.as_str(), stored.rev), ("Desk lamp", 1));

        let things = repo.home_things(tenant, property).await.unwrap();
        assert_eq!(things.endpoints.len(), 1);
        assert!(
            repo.home_things(TenantId::new(), property)
                .await
                .unwrap()
                .endpoints
                .is_empty()
        );
        let (page, _) = repo.endpoints_page(integration, 10, None).await.unwrap();
        assert_eq!(page, vec![stored]);
    }

    #[tokio::test]
    async fn a_challenge_answers_once() {
        let store = SqliteStore::in_memory(Arc::new(SystemClock)).unwrap();
        let repo = Integrations(&store);
        let challenge = ChallengeRecord {
            integration_id: IntegrationId::new(),
            tenant_id: TenantId::new(),
            property_id: PropertyId::new(),
            connector_id: ConnectorId::new(),
            connector_token: "c".into(),
        };
        repo.put_challenge("h", &challenge, now()).await.unwrap();
        assert_eq!(
            repo.take_challenge("h", now()).await.unwrap(),
            Some(challenge.clone())
        );
        assert_eq!(repo.take_challenge("h", now()).await.unwrap(), None);
        // Past its ttl it answers nothing, even before the backend purges it.
        repo.put_challenge("late", &challenge, now()).await.unwrap();
        let later = now() + CHALLENGE_TTL + time::Duration::seconds(1);
        assert_eq!(repo.take_challenge("late", later).await.unwrap(), None);
    }

    #[tokio::test]
    async fn installations_name_the_tenants_of_a_connector_and_slugs_are_unique() {
        let store = SqliteStore::in_memory(Arc::new(SystemClock)).unwrap();
        let repo = Integrations(&store);
        let connector = ConnectorRecord {
            id: ConnectorId::new(),
            developer_id: DeveloperId::new(),
            slug: "lan-bridge".into(),
            name: "LAN bridge".into(),
            server_url: "http://127.0.0.1:1/".into(),
            runtime_token: "secret".into(),
            sandbox_tenant_id: None,
            published: false,
            listing: None,
            deprecated: false,
            rev: 0,
            created_at: now(),
            updated_at: now(),
        };
        repo.create_connector(&connector).await.unwrap();
        let mut twin = connector.clone();
        twin.id = ConnectorId::new();
        assert!(
            repo.create_connector(&twin)
                .await
                .unwrap_err()
                .is_condition_failure()
        );
        assert!(!format!("{connector:?}").contains("secret"));

        let (a, b) = (TenantId::new(), TenantId::new());
        for tenant in [a, b, a] {
            repo.create(&IntegrationRecord {
                id: IntegrationId::new(),
                tenant_id: tenant,
                property_id: PropertyId::new(),
                connector_id: connector.id,
                name: connector.name.clone(),
                config: Map::new(),
                created_at: now(),
                discovered_at: None,
                version_id: None,
                account: None,
            })
            .await
            .unwrap();
        }
        let mut tenants = repo.installing_tenants(connector.id).await.unwrap();
        tenants.sort();
        let mut expected = vec![a, b];
        expected.sort();
        assert_eq!(tenants, expected);
        assert!(
            repo.installing_tenants(ConnectorId::new())
                .await
                .unwrap()
                .is_empty()
        );
    }
}
