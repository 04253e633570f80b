//! Recording events and reading them back in commit order (see the crate
//! docs for why the order holds and why readers need no lag).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use alyt_domain::Clock;
use alyt_domain::ids::{PropertyId, TenantId};
use alyt_store::repo::events::{Events, event_write, page_write};
use alyt_store::{Store, StoreError};
use time::Duration;

use crate::envelope::{EventEnvelope, EventId, EventKind, PlatformEvent};

/// How long events stay readable for resuming and redelivery.
pub const RETENTION: Duration = Duration::days(7);
/// How far before its resume id a reader of several tenants starts their
/// logs again (see [`Cursor::resume`]): longer than any commit may take
/// between its id and its end (the stores' own timeouts are shorter).
pub const RESUME_GRACE: Duration = Duration::seconds(2);
/// The most events of one change (a transaction holds at most 100 writes).
const MAX_EVENTS_PER_CHANGE: usize = 64;

/// Where a reader is in each tenant's log: the id of the last event it read
/// there (`None`: from the log's start).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Cursor(BTreeMap<TenantId, Option<EventId>>);

impl Cursor {
    /// A reader of `tenants` resuming after event `after` (from the start
    /// when `None`). One tenant resumes exactly after it. Several tenants
    /// share one resume id that names a position in one log only, so each
    /// log starts [`RESUME_GRACE`] before it: a commit of another tenant
    /// that was still under way when the reader passed `after` is read, and
    /// so is what came before it in that window again (at least once).
    pub fn resume(tenants: &[TenantId], after: Option<&EventId>) -> Self {
        let start = match (tenants.len(), after) {
            (_, None) => None,
            (1, Some(after)) => Some(after.clone()),
            (_, Some(after)) => Some(EventId::from_micros(
                after
                    .micros()
                    .saturating_sub(RESUME_GRACE.whole_microseconds() as i64),
                0,
            )),
        };
        Self(tenants.iter().map(|t| (*t, start.clone())).collect())
    }

    /// Every tenant at `position`.
    pub fn at(tenants: &[TenantId], position: Option<&EventId>) -> Self {
        Self(tenants.iter().map(|t| (*t, position.cloned())).collect())
    }

    pub fn of(&self, tenant: TenantId) -> Option<&EventId> {
        self.0.get(&tenant).and_then(Option::as_ref)
    }

    pub fn tenants(&self) -> impl Iterator<Item = TenantId> + '_ {
        self.0.keys().copied()
    }
}

/// One read: the events, and where the reader is now.
#[derive(Debug, Clone, PartialEq)]
pub struct EventPage {
    pub events: Vec<EventEnvelope>,
    /// The reader's place after this read (filtered kinds included: it
    /// moves past events it did not return).
    pub cursor: Cursor,
}

/// One read of one tenant's log.
#[derive(Debug, Clone, PartialEq)]
pub struct TenantPage {
    pub events: Vec<EventEnvelope>,
    /// The id to continue after (past filtered kinds too).
    pub position: Option<EventId>,
}

/// The envelope of `event` before the store places it: the id is the
/// store's to give at commit, so the envelope's is a stand-in.
fn unplaced(
    event: PlatformEvent,
    tenant: TenantId,
    now: time::OffsetDateTime,
) -> Result<EventEnvelope, StoreError> {
    event
        .envelope(EventId::from_micros(0, 0), tenant, now)
        .map_err(|e| StoreError::Invalid(format!("event data is not serialisable: {e}")))
}

#[derive(Clone)]
pub struct EventLog {
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
}

impl EventLog {
    pub fn new(store: Arc<dyn Store>, clock: Arc<dyn Clock>) -> Self {
        Self { store, clock }
    }

    /// The writes recording `events` of one change, for that change's own
    /// transaction, so that they exist exactly when the change they report
    /// does (and a redelivered message, whose transaction fails on its dedupe
    /// guard, records nothing). The store gives them their ids when the
    /// transaction commits, in the given order, after every event the
    /// tenant's log already has.
    ///
    /// `home` is the home the events are about (`None`: about no home): a
    /// home's events keep their commit order however many shards the
    /// tenant's log has.
    pub fn writes(
        &self,
        tenant: TenantId,
        home: Option<PropertyId>,
        events: Vec<PlatformEvent>,
    ) -> Result<Vec<alyt_store::TxWrite>, StoreError> {
        let now = self.clock.now();
        events
            .into_iter()
            .take(MAX_EVENTS_PER_CHANGE)
            .map(|event| {
                let envelope = unplaced(event, tenant, now)?;
                event_write(tenant, home, &envelope, (now + RETENTION).unix_timestamp())
            })
            .collect()
    }

    /// The write recording `events` about `home`, as [`Self::writes`] would,
    /// as one page of the log ([`alyt_store::TxWrite::AppendPage`]): for a
    /// writer of many events at once (the telemetry sequencer), which pays
    /// for one item per shard instead of one per event. No cap on the
    /// count: the caller keeps the page within an item's size.
    pub fn page_write(
        &self,
        tenant: TenantId,
        home: Option<PropertyId>,
        events: Vec<PlatformEvent>,
    ) -> Result<alyt_store::TxWrite, StoreError> {
        let now = self.clock.now();
        let envelopes = events
            .into_iter()
            .map(|event| unplaced(event, tenant, now))
            .collect::<Result<Vec<_>, _>>()?;
        page_write(tenant, home, &envelopes, (now + RETENTION).unix_timestamp())
    }

    /// Records an event of any kind with any data on its own, as no producer
    /// may: tests use it for kinds the platform never raises. The event is
    /// read back through the log's head, so concurrent writers to the same
    /// tenant make the answer another event.
    #[cfg(feature = "test-support")]
    pub async fn record(
        &self,
        tenant: TenantId,
        kind: EventKind,
        data: serde_json::Value,
    ) -> Result<EventEnvelope, StoreError> {
        self.record_about(tenant, None, kind, data).await
    }

    /// [`Self::record`], an event about `home` (in that home's shard).
    #[cfg(feature = "test-support")]
    pub async fn record_about(
        &self,
        tenant: TenantId,
        home: Option<PropertyId>,
        kind: EventKind,
        data: serde_json::Value,
    ) -> Result<EventEnvelope, StoreError> {
        let now = self.clock.now();
        let envelope = EventEnvelope {
            id: EventId::from_micros(0, 0),
            kind,
            tenant_id: tenant,
            created_at: now,
            data,
        };
        let write = event_write(tenant, home, &envelope, (now + RETENTION).unix_timestamp())?;
        self.store.transact(vec![write]).await?;
        let events = Events(self.store.as_ref());
        let id = events
            .newest(tenant)
            .await?
            .ok_or_else(|| StoreError::Unavailable("the recorded event has no id".into()))?;
        events
            .get(tenant, &id)
            .await?
            .ok_or_else(|| StoreError::Unavailable("the recorded event is gone".into()))
    }

    /// The store the log is kept in.
    pub fn store(&self) -> &dyn Store {
        self.store.as_ref()
    }

    /// Up to `limit` events after `cursor` of its tenants, merged in id
    /// order, of the given kinds (all when `None`), and the cursor after
    /// them. One query per tenant. Each tenant's log is read in commit
    /// order, so nothing a later read could find lies behind the cursor.
    pub async fn read(
        &self,
        cursor: &Cursor,
        kinds: Option<&BTreeSet<EventKind>>,
        limit: u32,
    ) -> Result<EventPage, StoreError> {
        let limit = limit.clamp(1, 1000) as usize;
        let events_repo = Events(self.store.as_ref());
        let now = self.clock.now();
        let reads = cursor.tenants().map(|tenant| {
            let events_repo = &events_repo;
            async move {
                events_repo
                    .after::<EventEnvelope>(tenant, cursor.of(tenant), limit as u32, now)
                    .await
            }
        });
        let mut merged: Vec<EventEnvelope> = Vec::new();
        for events in futures_util::future::join_all(reads).await {
            merged.extend(events?);
        }
        merged.sort_by(|a, b| a.id.cmp(&b.id));
        // Each tenant's events are in id order, so any prefix of the merge
        // holds a prefix of every tenant's: the cursor moves exactly past it.
        merged.truncate(limit);
        let mut next = cursor.clone();
        for event in &merged {
            next.0.insert(event.tenant_id, Some(event.id.clone()));
        }
        let events = merged
            .into_iter()
            .filter(|e| kinds.is_none_or(|k| k.contains(&e.kind)))
            .collect();
        Ok(EventPage {
            events,
            cursor: next,
        })
    }

    /// Up to `limit` events of one tenant after `after`, with the id to
    /// continue after (unchanged when there was nothing new).
    pub async fn read_after(
        &self,
        tenant: TenantId,
        after: Option<&EventId>,
        kinds: Option<&BTreeSet<EventKind>>,
        limit: u32,
    ) -> Result<TenantPage, StoreError> {
        let page = self
            .read(&Cursor::at(&[tenant], after), kinds, limit)
            .await?;
        Ok(TenantPage {
            position: page.cursor.of(tenant).cloned(),
            events: page.events,
        })
    }
}
