//! Who hears which of a tenant's events. A DEV key (or a developer session)
//! hears every event of its sandbox; a LIVE key acts only for its own
//! connector, so in the tenants that installed it, its stream and its webhook
//! endpoints hear only the events about the integrations made from that
//! connector: today `thing.state` (its `data.integrationId`). An event that
//! names no integration (a device's, a household notification) is never
//! about a connector.
//!
//! An integration's connector never changes, so answers are cached (bounded;
//! the cache starts over when full). An integration removed before its
//! events are read no longer names a connector: a LIVE key resuming after
//! the removal does not get those events.

use std::collections::HashMap;

use alyt_domain::ids::{ConnectorId, IntegrationId, TenantId};
use alyt_store::repo::integrations::Integrations;
use alyt_store::{Store, StoreError};

use crate::envelope::EventEnvelope;

/// Integrations remembered before the cache starts over.
const CACHE_LIMIT: usize = 10_000;

/// Which of its tenants' events a subscriber hears.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    /// Every event of the tenants (a DEV key or a developer session).
    Tenants,
    /// Only the events about integrations made from this connector (a LIVE key).
    Connector(ConnectorId),
}

/// The integration an event is about, if any.
pub fn integration_of(event: &EventEnvelope) -> Option<IntegrationId> {
    event
        .data
        .get("integrationId")
        .and_then(|v| v.as_str())
        .and_then(|s| s.parse().ok())
}

/// Answers "which connector is this event about", one store read per
/// integration it has not seen.
#[derive(Debug, Default)]
pub struct IntegrationConnectors {
    known: HashMap<(TenantId, IntegrationId), Option<ConnectorId>>,
}

impl IntegrationConnectors {
    /// The connector whose integration `event` is about; `None` for an event
    /// about no integration (or about one that was removed).
    pub async fn connector_of(
        &mut self,
        store: &dyn Store,
        event: &EventEnvelope,
    ) -> Result<Option<ConnectorId>, StoreError> {
        let Some(integration) = integration_of(event) else {
            return Ok(None);
        };
        let key = (event.tenant_id, integration);
        if let Some(known) = self.known.get(&key) {
            return Ok(*known);
        }
        let connector = Integrations(store)
            .get(event.tenant_id, integration)
            .await?
            .map(|i| i.connector_id);
        self.remember(key, connector);
        Ok(connector)
    }

    /// Records what a read of the tenant's integrations already said.
    pub fn learn(&mut self, tenant: TenantId, integration: IntegrationId, connector: ConnectorId) {
        self.remember((tenant, integration), Some(connector));
    }

    fn remember(&mut self, key: (TenantId, IntegrationId), connector: Option<ConnectorId>) {
        if self.known.len() >= CACHE_LIMIT {
            self.known.clear();
        }
        self.known.insert(key, connector);
    }

    /// Whether `audience` hears `event`.
    pub async fn hears(
        &mut self,
        store: &dyn Store,
        audience: Audience,
        event: &EventEnvelope,
    ) -> Result<bool, StoreError> {
        match audience {
            Audience::Tenants => Ok(true),
            Audience::Connector(connector) => {
                Ok(self.connector_of(store, event).await? == Some(connector))
            }
        }
    }
}
