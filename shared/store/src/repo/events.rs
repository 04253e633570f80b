//! The platform event log and the webhook dispatcher's cursors. The rules
//! (ids in commit order, who hears what) are alyt-events'; this module
//! knows the keys (see `DATA_MODEL.md`). Events are appended
//! ([`crate::TxWrite::Append`]): the store gives each its id at commit and
//! keeps the log's head at [`crate::log_head_key`].
//!
//! | item | pk | sk |
//! |---|---|---|
//! | platform event | `EVENTS#{tenantId}` (shard 0), `EVENTS#{tenantId}#{shard}` | `{eventId}` |
//! | dispatch cursor | `WHDISPATCH` | `TENANT#{tenantId}` |
//!
//! Events are stored as their callers serialise them (the envelope is
//! alyt-events'), each with its `ttl`. A tenant's log has one shard unless
//! an operator grew it ([`Events::grow`], for a tenant beyond one head's
//! write rate); an event goes to the shard of its home, so a home's events
//! keep their commit order in any number of shards ([`crate::logs`]).

use alyt_domain::ids::{EventId, PropertyId, TenantId};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::{Condition, Item, Key, Query, SortKey, Store, StoreError, TxWrite};

const EVENTS: &str = "EVENTS#";
const CURSORS: &str = "WHDISPATCH";
const CURSOR: &str = "TENANT#";

fn partition(tenant: TenantId) -> String {
    format!("{EVENTS}{tenant}")
}

fn event_key(tenant: TenantId, id: &EventId) -> Key {
    Key::new(partition(tenant), id.as_str())
}

/// The shard key of a home's events (any shard count divides it evenly:
/// the low bits of a random UUID); events about no home share key 0.
fn shard_key(home: Option<PropertyId>) -> u64 {
    home.map_or(0, |h| h.as_uuid().as_u128() as u64)
}

/// The shard of a log of `shards` shards that `home`'s events go to (as
/// [`crate::resolve_appends`] places them).
pub fn shard_of(home: Option<PropertyId>, shards: u32) -> u32 {
    (shard_key(home) % u64::from(shards.clamp(1, crate::MAX_LOG_SHARDS))) as u32
}

fn cursor_key(tenant: TenantId) -> Key {
    Key::new(CURSORS, format!("{CURSOR}{tenant}"))
}

/// Whether a write to `key` records a platform event (what wakes the local
/// streams and dispatcher).
pub fn is_event(key: &Key) -> bool {
    is_event_partition(&key.pk)
}

/// Whether `pk` is a partition of the event log (the hosted webhook worker
/// reads it from the table's stream records).
pub fn is_event_partition(pk: &str) -> bool {
    pk.starts_with(EVENTS)
}

/// The attribute of a stored event holding its id (the envelope's `id`).
pub const EVENT_ID: &str = "id";

/// The write appending `event` about `home` (`None`: about no home) to
/// `tenant`'s log, readable until `expires` (Unix seconds), for the
/// transaction of the change it reports. The store gives it its id when the
/// transaction commits (in commit order within its shard, see
/// `alyt_store::resolve_appends`) and writes it into the event's `id`.
pub fn event_write<T: Serialize>(
    tenant: TenantId,
    home: Option<PropertyId>,
    event: &T,
    expires: i64,
) -> Result<TxWrite, StoreError> {
    let item = Item::from_record(event_key(tenant, &EventId::from_micros(0, 0)), event)?
        .with(crate::attr::TTL, expires);
    Ok(TxWrite::Append {
        log: partition(tenant),
        shard_key: shard_key(home),
        item,
        position_attr: EVENT_ID.into(),
    })
}

/// The write appending `events` about `home` to `tenant`'s log as one page
/// ([`crate::TxWrite::AppendPage`]): each gets its id at commit as
/// [`event_write`]'s would, in the given order. The page appends of a
/// transaction that land in one shard share one page.
pub fn page_write<T: Serialize>(
    tenant: TenantId,
    home: Option<PropertyId>,
    events: &[T],
    expires: i64,
) -> Result<TxWrite, StoreError> {
    let items = events
        .iter()
        .map(|event| {
            Ok(
                Item::from_record(event_key(tenant, &EventId::from_micros(0, 0)), event)?
                    .with(crate::attr::TTL, expires),
            )
        })
        .collect::<Result<_, StoreError>>()?;
    Ok(TxWrite::AppendPage {
        log: partition(tenant),
        shard_key: shard_key(home),
        items,
        position_attr: EVENT_ID.into(),
    })
}

/// How far a tenant's events have been fanned out to webhook endpoints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DispatchCursor {
    pub tenant_id: TenantId,
    /// The last event fanned out (or the start, for a new cursor).
    pub position: EventId,
    /// Bumped by every advance; every advance is conditioned on it.
    pub rev: u64,
}

pub struct Events<'a>(pub &'a dyn Store);

impl Events<'_> {
    /// The id of the newest event `tenant`'s log ever had (its heads).
    pub async fn newest(&self, tenant: TenantId) -> Result<Option<EventId>, StoreError> {
        crate::logs::newest(self.0, &partition(tenant)).await
    }

    /// The event `id` of `tenant` (one get per shard).
    pub async fn get<T: crate::Record>(
        &self,
        tenant: TenantId,
        id: &EventId,
    ) -> Result<Option<T>, StoreError> {
        crate::logs::get(self.0, &partition(tenant), id.as_str())
            .await?
            .map(|item| item.to_record())
            .transpose()
    }

    /// Up to `limit` events of `tenant` after `after` (all when `None`), in
    /// id order (see [`crate::logs::read_after`]; `now` tells idle shards).
    pub async fn after<T: crate::Record>(
        &self,
        tenant: TenantId,
        after: Option<&EventId>,
        limit: u32,
        now: time::OffsetDateTime,
    ) -> Result<Vec<T>, StoreError> {
        crate::logs::read_after(
            self.0,
            &partition(tenant),
            after.map(EventId::as_str),
            limit,
            now,
        )
        .await?
        .iter()
        .map(Item::to_record)
        .collect()
    }

    /// How many shards `tenant`'s log has.
    pub async fn shards(&self, tenant: TenantId) -> Result<u32, StoreError> {
        crate::logs::shard_count(self.0, &partition(tenant)).await
    }

    /// Grows `tenant`'s log to `shards` shards (see [`crate::logs::grow`]).
    pub async fn grow(&self, tenant: TenantId, shards: u32) -> Result<(), StoreError> {
        crate::logs::grow(self.0, &partition(tenant), shards).await
    }

    /// Starts a cursor for `tenant` at `position` unless it has one (an
    /// older cursor stays). One conditional put.
    pub async fn follow(&self, tenant: TenantId, position: EventId) -> Result<(), StoreError> {
        let cursor = DispatchCursor {
            tenant_id: tenant,
            position,
            rev: 0,
        };
        let item = Item::from_record(cursor_key(tenant), &cursor)?;
        match self.0.put(item, Some(Condition::item_absent())).await {
            Ok(()) => Ok(()),
            Err(e) if e.is_condition_failure() => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Every cursor, in tenant order (one query per 100).
    pub async fn cursors(&self) -> Result<Vec<DispatchCursor>, StoreError> {
        let query = Query::partition(CURSORS)
            .sort(SortKey::BeginsWith(CURSOR.into()))
            .limit(100);
        super::every_page(self.0, query).await
    }

    /// Moves a cursor from `current` to `position`; `false` when another
    /// dispatcher moved it first (a put conditioned on `rev`).
    pub async fn advance(
        &self,
        current: &DispatchCursor,
        position: &EventId,
    ) -> Result<bool, StoreError> {
        let next = DispatchCursor {
            position: position.clone(),
            rev: current.rev + 1,
            ..current.clone()
        };
        let item = Item::from_record(cursor_key(current.tenant_id), &next)?;
        super::applied(
            self.0
                .put(item, Some(Condition::eq("rev", json!(current.rev))))
                .await,
        )
    }
}
