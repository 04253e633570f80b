//! Who hears which of a tenant's events. A DEV key (or a developer session)
//! hears every event of its sandbox; a LIVE key acts only for its own
//! connector, so in the tenants that installed it, its stream and its webhook
//! endpoints hear only the events about the integrations made from that
//! connector: today `thing.state` (its `data.integrationId`). An event that
//! names no integration (a device's, a household notification) is never
//! about a connector.
//!
//! A household watching one home (`GET /v1/properties/{id}/events/stream`)
//! hears the events about that home's things: a device's (`data.deviceId`
//! standing in the home) and an integration's (`data.integrationId` made in
//! the home), of the [`HOME_KINDS`] only. Events about people, developers
//! and webhooks are never a home's.
//!
//! An integration's connector and home never change, nor does a placed
//! device's home in practice, so answers are cached (bounded; the cache starts
//! over when full). An integration removed before its events are read no
//! longer names a connector or a home: a subscriber resuming after the
//! removal does not get those events.

use std::collections::HashMap;

use alyt_domain::ids::{ConnectorId, DeviceId, IntegrationId, PropertyId, TenantId};
use alyt_store::repo::devices::Devices;
use alyt_store::repo::integrations::{IntegrationRecord, Integrations};
use alyt_store::{Store, StoreError};

use crate::envelope::{EventEnvelope, EventKind};

/// Integrations remembered before the cache starts over.
const CACHE_LIMIT: usize = 10_000;

/// Which of its tenants' events a subscriber hears.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    /// Every event of the tenants (a DEV key or a developer session).
    Tenants,
    /// Only the events about integrations made from this connector (a LIVE key).
    Connector(ConnectorId),
    /// Only the events about the things of this home, of the [`HOME_KINDS`]
    /// (a household watching its home).
    Home(PropertyId),
}

/// The kinds a home's stream carries: what its things report (not the
/// notifications, which guests do not read).
pub const HOME_KINDS: [EventKind; 5] = [
    EventKind::DeviceOnline,
    EventKind::DeviceOffline,
    EventKind::DeviceTelemetry,
    EventKind::CommandResult,
    EventKind::ThingState,
];

/// The id in `field` of an event's data, if it holds one.
fn id_in<T: std::str::FromStr>(event: &EventEnvelope, field: &str) -> Option<T> {
    event
        .data
        .get(field)
        .and_then(|v| v.as_str())
        .and_then(|s| s.parse().ok())
}

/// The integration an event is about, if any.
pub fn integration_of(event: &EventEnvelope) -> Option<IntegrationId> {
    id_in(event, "integrationId")
}

/// The device an event is about, if any.
pub fn device_of(event: &EventEnvelope) -> Option<DeviceId> {
    id_in(event, "deviceId")
}

/// What an integration's events are about: its connector and its home.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct IntegrationSubject {
    connector: ConnectorId,
    home: PropertyId,
}

/// Answers "which connector (or home) is this event about", one store read
/// per integration or device it has not seen.
#[derive(Debug, Default)]
pub struct EventSubjects {
    integrations: HashMap<(TenantId, IntegrationId), Option<IntegrationSubject>>,
    devices: HashMap<(TenantId, DeviceId), Option<PropertyId>>,
}

impl EventSubjects {
    /// The connector whose integration `event` is about; `None` for an event
    /// about no integration (or about one that was removed).
    pub async fn connector_of(
        &mut self,
        store: &dyn Store,
        event: &EventEnvelope,
    ) -> Result<Option<ConnectorId>, StoreError> {
        Ok(self.integration(store, event).await?.map(|i| i.connector))
    }

    async fn integration(
        &mut self,
        store: &dyn Store,
        event: &EventEnvelope,
    ) -> Result<Option<IntegrationSubject>, StoreError> {
        let Some(integration) = integration_of(event) else {
            return Ok(None);
        };
        let key = (event.tenant_id, integration);
        if let Some(known) = self.integrations.get(&key) {
            return Ok(*known);
        }
        let subject = Integrations(store)
            .get(event.tenant_id, integration)
            .await?
            .map(|i| IntegrationSubject {
                connector: i.connector_id,
                home: i.property_id,
            });
        bounded_insert(&mut self.integrations, key, subject);
        Ok(subject)
    }

    /// The home whose thing `event` is about: the integration's home, or the
    /// home the device stands in; `None` for an event about neither (or about
    /// a device not placed, or removed).
    pub async fn home_of(
        &mut self,
        store: &dyn Store,
        event: &EventEnvelope,
    ) -> Result<Option<PropertyId>, StoreError> {
        if integration_of(event).is_some() {
            return Ok(self.integration(store, event).await?.map(|i| i.home));
        }
        let Some(device) = device_of(event) else {
            return Ok(None);
        };
        let key = (event.tenant_id, device);
        if let Some(known) = self.devices.get(&key) {
            return Ok(*known);
        }
        let home = Devices(store)
            .get(event.tenant_id, device)
            .await?
            .and_then(|d| d.property_id);
        bounded_insert(&mut self.devices, key, home);
        Ok(home)
    }

    /// Records what a read of the tenant's integrations already said.
    pub fn learn(&mut self, integration: &IntegrationRecord) {
        let subject = IntegrationSubject {
            connector: integration.connector_id,
            home: integration.property_id,
        };
        bounded_insert(
            &mut self.integrations,
            (integration.tenant_id, integration.id),
            Some(subject),
        );
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
            Audience::Home(home) => {
                Ok(HOME_KINDS.contains(&event.kind)
                    && self.home_of(store, event).await? == Some(home))
            }
        }
    }
}

fn bounded_insert<K: std::hash::Hash + Eq, V>(map: &mut HashMap<K, V>, key: K, value: V) {
    if map.len() >= CACHE_LIMIT {
        map.clear();
    }
    map.insert(key, value);
}
