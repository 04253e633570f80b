//! Recording events and reading them back in id order (see the crate docs for
//! why the order holds and what the visibility lag is for).

use std::collections::BTreeSet;
use std::sync::Arc;

use alyt_domain::Clock;
use alyt_domain::ids::TenantId;
use alyt_store::repo::events::{Events, event_write};
use alyt_store::{Store, StoreError};
use rand::Rng;
use time::Duration;

use crate::envelope::{EventEnvelope, EventId, EventKind, PlatformEvent};

/// How long after its id an event becomes readable (hosted default). It must
/// exceed the longest time between taking an id and the write completing.
pub const VISIBILITY_LAG: Duration = Duration::seconds(2);
/// How long events stay readable for resuming and redelivery.
pub const RETENTION: Duration = Duration::days(7);

/// One read: the events, and how far the read got (the id to continue after,
/// which may be past the last event when filtered kinds were skipped).
#[derive(Debug, Clone, PartialEq)]
pub struct EventPage {
    pub events: Vec<EventEnvelope>,
    pub position: Option<EventId>,
}

#[derive(Clone)]
pub struct EventLog {
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    lag: Duration,
}

impl EventLog {
    pub fn new(store: Arc<dyn Store>, clock: Arc<dyn Clock>, lag: Duration) -> Self {
        Self { store, clock, lag }
    }

    /// The writes recording `events` of one change, for that change's own
    /// transaction, so that they exist exactly when the change they report
    /// does (and a redelivered message, whose transaction fails on its dedupe
    /// guard, records nothing). They get ids in the given order (one time,
    /// consecutive suffixes). The ids are taken now: commit the transaction
    /// promptly.
    pub fn writes(
        &self,
        tenant: TenantId,
        events: Vec<PlatformEvent>,
    ) -> Result<Vec<alyt_store::TxWrite>, StoreError> {
        let now = self.clock.now();
        // Room for 256 events of one change above a random base.
        let base: u32 = rand::rng().random::<u32>() & 0xFFFF_FF00;
        events
            .into_iter()
            .take(256)
            .enumerate()
            .map(|(n, event)| {
                let envelope = event
                    .envelope(EventId::new(now, base + n as u32), tenant, now)
                    .map_err(|e| {
                        StoreError::Invalid(format!("event data is not serialisable: {e}"))
                    })?;
                event_write(
                    tenant,
                    &envelope.id,
                    &envelope,
                    (now + RETENTION).unix_timestamp(),
                )
            })
            .collect()
    }

    /// Records an event of any kind with any data on its own, as no producer
    /// may: tests use it for kinds the platform never raises.
    #[cfg(feature = "test-support")]
    pub async fn record(
        &self,
        tenant: TenantId,
        kind: EventKind,
        data: serde_json::Value,
    ) -> Result<EventEnvelope, StoreError> {
        loop {
            let now = self.clock.now();
            let envelope = EventEnvelope {
                id: EventId::new(now, rand::rng().random()),
                kind,
                tenant_id: tenant,
                created_at: now,
                data: data.clone(),
            };
            let expires = (now + RETENTION).unix_timestamp();
            // Taken (same microsecond and same 32 random bits): draw again.
            if Events(self.store.as_ref())
                .put_new(tenant, &envelope.id, &envelope, expires)
                .await?
            {
                return Ok(envelope);
            }
        }
    }

    /// The store the log is kept in.
    pub fn store(&self) -> &dyn Store {
        self.store.as_ref()
    }

    /// The newest id readers may see now.
    pub fn watermark(&self) -> EventId {
        EventId::floor(self.clock.now() - self.lag)
    }

    /// Up to `limit` events of `tenants` after `after` (exclusive) and before the
    /// watermark, in id order, of the given kinds (all when `None`).
    pub async fn read_after(
        &self,
        tenants: &[TenantId],
        after: Option<&EventId>,
        kinds: Option<&BTreeSet<EventKind>>,
        limit: u32,
    ) -> Result<EventPage, StoreError> {
        let watermark = self.watermark();
        let low = after
            .cloned()
            .unwrap_or_else(|| EventId::floor(time::OffsetDateTime::UNIX_EPOCH));
        if low >= watermark {
            return Ok(EventPage {
                events: Vec::new(),
                position: after.cloned(),
            });
        }
        let limit = limit.clamp(1, 1000);
        let mut scanned: Vec<EventEnvelope> = Vec::new();
        // Where the merged read may end: a tenant whose page came back full may
        // hold more events after its last one, so nothing past that is safe.
        let mut bound = watermark.clone();
        for tenant in tenants {
            let (mut events, more): (Vec<EventEnvelope>, bool) = Events(self.store.as_ref())
                .between(*tenant, &low, &watermark, limit + 1)
                .await?;
            events.retain(|e| Some(&e.id) != after && e.id < watermark);
            if more || events.len() > limit as usize {
                events.truncate(limit as usize);
                if let Some(last) = events.last()
                    && last.id < bound
                {
                    bound = last.id.clone();
                }
            }
            scanned.extend(events);
        }
        scanned.sort_by(|a, b| a.id.cmp(&b.id));
        scanned.retain(|e| e.id <= bound);
        scanned.truncate(limit as usize);
        let position = match scanned.last() {
            Some(last) if scanned.len() == limit as usize => Some(last.id.clone()),
            // Everything up to the bound was read.
            _ if bound < watermark => Some(bound),
            Some(last) => Some(last.id.clone()),
            None => after.cloned(),
        };
        let events = scanned
            .into_iter()
            .filter(|e| kinds.is_none_or(|k| k.contains(&e.kind)))
            .collect();
        Ok(EventPage { events, position })
    }
}
