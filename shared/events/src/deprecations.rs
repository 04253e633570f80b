//! The notices a connector version's deprecation owes the households that
//! installed it, delivered at least once and written once.
//!
//! The deprecation marks the version `noticesPending` in its own
//! transaction (`repo::submissions`: the version joins the notice queue).
//! [`DeprecationNotices::notify`] then tells each household that installed
//! the version: one transaction per household, the notification and its
//! `notification.raised`, under an id and time fixed by the version and the
//! integration, written only if absent, so a retry never tells a household
//! twice. Once every household is told the version leaves the queue. The
//! API calls it right after the move; [`DeprecationNotices::deliver`] (the
//! stay sweep's beat locally, the sweeps function hosted) finishes what a
//! crash or a failed write left.

use std::sync::Arc;

use alyt_domain::Clock;
use alyt_domain::submission::ReviewState;
use alyt_store::repo::integrations::Integrations;
use alyt_store::repo::notifications::{NotificationRecord, notification_item};
use alyt_store::repo::submissions::{
    VersionError, VersionRecord, Versions, pending_deprecation_notices,
};
use alyt_store::{Condition, Store, StoreError, TxWrite};
use uuid::Uuid;

use crate::{EventLog, PlatformEvent};

/// The `notification.raised` kind of a deprecated connector version.
pub const KIND_CONNECTOR_DEPRECATED: &str = "connector.deprecated";

/// Versions read from the queue per delivery.
const BATCH: u32 = 25;

#[derive(Clone)]
pub struct DeprecationNotices {
    store: Arc<dyn Store>,
    log: EventLog,
}

impl DeprecationNotices {
    pub fn new(store: Arc<dyn Store>, clock: Arc<dyn Clock>) -> Self {
        Self {
            log: EventLog::new(store.clone(), clock),
            store,
        }
    }

    /// Tells the households of every queued version; answers the notices
    /// written. A version that fails stays queued for the next delivery.
    pub async fn deliver(&self) -> Result<usize, StoreError> {
        let (queued, _) = Versions(&*self.store)
            .page(&pending_deprecation_notices(), BATCH, None)
            .await?;
        let mut written = 0;
        for version in queued {
            match self.notify(&version).await {
                Ok(n) => written += n,
                Err(e) => {
                    tracing::warn!(version = %version.id, error = %e, "deprecation notices wait for the next delivery")
                }
            }
        }
        Ok(written)
    }

    /// Tells every household that installed `version` (read as queued) and
    /// takes it off the queue; answers the notices written now (those
    /// written before are not written again).
    pub async fn notify(&self, version: &VersionRecord) -> Result<usize, StoreError> {
        if version.state != ReviewState::Deprecated || !version.notices_pending {
            return Ok(0);
        }
        let integrations = Integrations(&*self.store);
        let (installations, connector) = tokio::try_join!(
            integrations.installations(version.connector_id),
            integrations.connector(version.connector_id)
        )?;
        let successor = connector
            .as_ref()
            .and_then(|c| c.listing.as_ref())
            .map(|l| l.semver.clone());
        let mut written = 0;
        for installation in installations
            .iter()
            .filter(|i| i.version_id == Some(version.id))
        {
            let body = match &successor {
                Some(semver) => {
                    format!(
                        "It keeps working. Version {semver} is the catalogue's current version."
                    )
                }
                None => "It keeps working, but it can no longer be installed again.".to_owned(),
            };
            let notification = NotificationRecord {
                id: Uuid::new_v5(
                    &Uuid::NAMESPACE_OID,
                    format!("deprecated/{}/{}", version.id, installation.id).as_bytes(),
                ),
                tenant_id: installation.tenant_id,
                property_id: Some(installation.property_id),
                client_id: None,
                kind: KIND_CONNECTOR_DEPRECATED.to_owned(),
                title: format!("{} {} is deprecated", installation.name, version.semver),
                body,
                device_id: None,
                at: version.updated_at,
            };
            let mut writes = vec![TxWrite::Put {
                item: notification_item(&notification)?,
                condition: Some(Condition::item_absent()),
            }];
            writes.extend(self.log.writes(
                installation.tenant_id,
                Some(installation.property_id),
                vec![PlatformEvent::NotificationRaised(notification.raised())],
            )?);
            match self.store.transact(writes).await {
                Ok(()) => written += 1,
                // Told before (a retry): nothing more to say.
                Err(e) if e.is_condition_failure() => {}
                Err(e) => return Err(e),
            }
        }
        let told = VersionRecord {
            notices_pending: false,
            ..version.clone()
        };
        match Versions(&*self.store)
            .change(version, &told, Vec::new())
            .await
        {
            // Another delivery took it off the queue first.
            Ok(_) | Err(VersionError::Changed) | Err(VersionError::SemverTaken) => Ok(written),
            Err(VersionError::Store(e)) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alyt_domain::SystemClock;
    use alyt_domain::ids::{
        ConnectorId, ConnectorVersionId, DeveloperId, IntegrationId, PropertyId, TenantId,
    };
    use alyt_store::repo::integrations::IntegrationRecord;
    use alyt_store::repo::notifications::Notifications;
    use alyt_store::repo::submissions::AiDeclaration;
    use alyt_store::sqlite::SqliteStore;

    fn version(connector: ConnectorId) -> VersionRecord {
        let now = time::OffsetDateTime::now_utc();
        VersionRecord {
            id: ConnectorVersionId::new(),
            connector_id: connector,
            developer_id: DeveloperId::new(),
            slug: "lan-lights".into(),
            semver: "1.0.0".into(),
            descriptor: serde_json::json!({}),
            prose: "p".into(),
            ai_declaration: AiDeclaration::None,
            state: ReviewState::Deprecated,
            note: None,
            reviewed_by: None,
            created_at: now,
            updated_at: now,
            submitted_at: None,
            published_at: None,
            notices_pending: true,
            rev: 0,
        }
    }

    /// A deprecation nobody finished telling (the process stopped after the
    /// move): the delivery tells each household that installed that version
    /// once, not those of another version, and a second delivery says
    /// nothing more.
    #[tokio::test]
    async fn every_household_of_the_version_is_told_once_whatever_stops_halfway() {
        let store: Arc<dyn Store> =
            Arc::new(SqliteStore::in_memory(Arc::new(SystemClock)).unwrap());
        let connector = ConnectorId::new();
        let deprecated = version(connector);
        Versions(&*store)
            .create(&deprecated, Vec::new())
            .await
            .unwrap();
        let (a, b, c) = (TenantId::new(), TenantId::new(), TenantId::new());
        for (tenant, installed) in [
            (a, Some(deprecated.id)),
            (b, Some(deprecated.id)),
            (c, Some(ConnectorVersionId::new())),
        ] {
            Integrations(&*store)
                .create(&IntegrationRecord {
                    id: IntegrationId::new(),
                    tenant_id: tenant,
                    property_id: PropertyId::new(),
                    connector_id: connector,
                    name: "LAN lights".into(),
                    config: Default::default(),
                    created_at: deprecated.updated_at,
                    discovered_at: None,
                    version_id: installed,
                    account: None,
                })
                .await
                .unwrap();
        }
        let notices = DeprecationNotices::new(store.clone(), Arc::new(SystemClock));
        assert_eq!(notices.deliver().await.unwrap(), 2);
        assert_eq!(notices.deliver().await.unwrap(), 0, "off the queue");
        // Even a version still queued is not told twice.
        assert_eq!(notices.notify(&deprecated).await.unwrap(), 0);
        for (tenant, expected) in [(a, 1), (b, 1), (c, 0)] {
            let (told, _) = Notifications(&*store)
                .of_tenant(tenant, 50, None)
                .await
                .unwrap();
            assert_eq!(told.len(), expected, "{tenant}");
            if let Some(notice) = told.first() {
                assert_eq!(notice.kind, KIND_CONNECTOR_DEPRECATED);
                assert!(notice.title.contains("1.0.0"), "{}", notice.title);
            }
        }
        let stored = Versions(&*store).get(deprecated.id).await.unwrap().unwrap();
        assert!(!stored.notices_pending);
    }
}
