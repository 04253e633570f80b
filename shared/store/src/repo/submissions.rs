//! Connector versions under review (the rules are [`alyt_domain::submission`]):
//! one record per submitted version of a developer's connector, moved through
//! review by writes conditioned on the revision read, so of concurrent moves on
//! one version exactly one wins.
//!
//! Keys (see `DATA_MODEL.md`):
//! * version `VERSION#{versionId}` / `VERSION` (one get by id), in gsi1
//!   `CONNVERSIONS#{connectorId}` / `{createdAt µs}#{versionId}` (a connector's
//!   versions, oldest first: the semver rule reads them), gsi2
//!   `DEVVERSIONS#{developerId}` / `{createdAt µs}#{versionId}` (a
//!   developer's submissions), and gsi3 `REVIEWQUEUE` /
//!   `{submittedAt µs}#{versionId}` while it waits for staff, or
//!   `DEPRECATIONNOTICES` / `{updatedAt µs}#{versionId}` once deprecated
//!   until its households are told.
//! * semver guard `CONNECTOR#{c}` / `SEMVER#{semver}`: a version number is
//!   used once per connector (written with the version).

use super::{page, record, ts};
use alyt_domain::ids::{ConnectorId, ConnectorVersionId, DeveloperId, UserId};
use alyt_domain::submission::ReviewState;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;

use super::history::micros;
use crate::{Condition, Index, Item, Key, ListScope, PageKey, Store, StoreError, TxWrite};

/// How the connector uses AI (spec: catalogue definition `aiDeclaration`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum AiDeclaration {
    None,
    Svc,
    OwnCloud,
    OwnLocal,
}

/// One version of a connector in review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VersionRecord {
    pub id: ConnectorVersionId,
    pub connector_id: ConnectorId,
    pub developer_id: DeveloperId,
    pub slug: String,
    pub semver: String,
    /// The checked descriptor, as JSON.
    pub descriptor: Value,
    pub prose: String,
    pub ai_declaration: AiDeclaration,
    pub state: ReviewState,
    /// The last reviewer's note to the developer.
    #[serde(default)]
    pub note: Option<String>,
    #[serde(default)]
    pub reviewed_by: Option<UserId>,
    #[serde(with = "ts::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "ts::rfc3339")]
    pub updated_at: OffsetDateTime,
    #[serde(with = "ts::option", default)]
    pub submitted_at: Option<OffsetDateTime>,
    #[serde(with = "ts::option", default)]
    pub published_at: Option<OffsetDateTime>,
    /// Deprecated, and the households that installed it are not all told
    /// yet (`alyt_events::deprecations`): in the notice queue until they are.
    #[serde(default)]
    pub notices_pending: bool,
    /// Bumped by every change; every change is conditioned on it.
    pub rev: u32,
}

/// Why a version was not written.
#[derive(Debug, thiserror::Error)]
pub enum VersionError {
    /// The connector already has a version with this number.
    #[error("this version number is taken")]
    SemverTaken,
    /// The version moved since it was read.
    #[error("the version changed meanwhile")]
    Changed,
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn version_key(id: ConnectorVersionId) -> Key {
    Key::new(format!("VERSION#{id}"), "VERSION")
}

fn semver_guard(connector: ConnectorId, semver: &str) -> Key {
    Key::new(format!("CONNECTOR#{connector}"), format!("SEMVER#{semver}"))
}

fn version_item(version: &VersionRecord) -> Result<Item, StoreError> {
    let created = format!("{}#{}", micros(version.created_at), version.id);
    let mut item = Item::from_record(version_key(version.id), version)?
        .with(
            Index::Gsi1.pk_attr(),
            format!("CONNVERSIONS#{}", version.connector_id),
        )
        .with(Index::Gsi1.sk_attr(), created.clone())
        .with(
            Index::Gsi2.pk_attr(),
            format!("DEVVERSIONS#{}", version.developer_id),
        )
        .with(Index::Gsi2.sk_attr(), created);
    if version.state == ReviewState::Submitted {
        let at = version.submitted_at.unwrap_or(version.updated_at);
        item.set(Index::Gsi3.pk_attr(), "REVIEWQUEUE");
        item.set(
            Index::Gsi3.sk_attr(),
            format!("{}#{}", micros(at), version.id),
        );
    } else if version.state == ReviewState::Deprecated && version.notices_pending {
        item.set(Index::Gsi3.pk_attr(), "DEPRECATIONNOTICES");
        item.set(
            Index::Gsi3.sk_attr(),
            format!("{}#{}", micros(version.updated_at), version.id),
        );
    }
    Ok(item)
}

/// The condition that the stored version is still the one read.
fn as_read(version: &VersionRecord) -> Condition {
    Condition::item_present().and(Condition::eq("rev", version.rev))
}

/// A connector's versions.
pub fn connector_versions(connector: ConnectorId) -> ListScope {
    ListScope::Index(Index::Gsi1, format!("CONNVERSIONS#{connector}"))
}

/// A developer's submissions.
pub fn developer_versions(developer: DeveloperId) -> ListScope {
    ListScope::Index(Index::Gsi2, format!("DEVVERSIONS#{developer}"))
}

/// The deprecated versions whose households are not all told yet, oldest
/// first.
pub fn pending_deprecation_notices() -> ListScope {
    ListScope::Index(Index::Gsi3, "DEPRECATIONNOTICES".to_owned())
}

/// The versions waiting for staff, oldest submission first.
pub fn review_queue() -> ListScope {
    ListScope::Index(Index::Gsi3, "REVIEWQUEUE".to_owned())
}

pub struct Versions<'a>(pub &'a dyn Store);

impl Versions<'_> {
    /// Records a new version and claims its number for the connector, with
    /// `also` (its event) in one transaction.
    pub async fn create(
        &self,
        version: &VersionRecord,
        also: Vec<TxWrite>,
    ) -> Result<(), VersionError> {
        let mut writes = vec![
            TxWrite::Put {
                item: version_item(version)?,
                condition: Some(Condition::item_absent()),
            },
            TxWrite::Put {
                item: Item::new(semver_guard(version.connector_id, &version.semver))
                    .with("versionId", version.id.to_string()),
                condition: Some(Condition::item_absent()),
            },
        ];
        writes.extend(also);
        match self.0.transact(writes).await {
            Ok(()) => Ok(()),
            Err(e) if e.is_condition_failure() => Err(VersionError::SemverTaken),
            Err(e) => Err(e.into()),
        }
    }

    pub async fn get(&self, id: ConnectorVersionId) -> Result<Option<VersionRecord>, StoreError> {
        record(self.0, &version_key(id)).await
    }

    /// Replaces `read` by `next` (a move or an edit; its revision is set to
    /// one past `read`'s), with `also` (its event) in one transaction;
    /// [`VersionError::Changed`] when the version changed since it was read.
    pub async fn change(
        &self,
        read: &VersionRecord,
        next: &VersionRecord,
        also: Vec<TxWrite>,
    ) -> Result<VersionRecord, VersionError> {
        let next = VersionRecord {
            rev: read.rev + 1,
            ..next.clone()
        };
        let mut writes = vec![TxWrite::Put {
            item: version_item(&next)?,
            condition: Some(as_read(read)),
        }];
        writes.extend(also);
        match self.0.transact(writes).await {
            Ok(()) => Ok(next),
            Err(e) if e.is_condition_failure() => Err(VersionError::Changed),
            Err(e) => Err(e.into()),
        }
    }

    /// One page of a list of versions (a [`ListScope`] of this module).
    pub async fn page(
        &self,
        scope: &ListScope,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<VersionRecord>, Option<PageKey>), StoreError> {
        page(self.0, scope.query().limit(limit).after(after)).await
    }

    /// Every version of a connector (for the semver rule): one index query
    /// per 1,000.
    pub async fn of_connector(
        &self,
        connector: ConnectorId,
    ) -> Result<Vec<VersionRecord>, StoreError> {
        let scope = connector_versions(connector);
        let mut all = Vec::new();
        let mut after = None;
        loop {
            let (mut page, next) = self.page(&scope, crate::Query::MAX_LIMIT, after).await?;
            all.append(&mut page);
            match next {
                Some(next) => after = Some(next),
                None => return Ok(all),
            }
        }
    }
}
