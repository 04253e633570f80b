//! Typed repositories over the [`Store`]: each maps records to the
//! keys of `DATA_MODEL.md` and makes the rules that must hold under concurrency
//! conditional writes. Handlers use these, never raw keys.

pub mod audit;
pub mod commands;
pub mod config;
pub mod developers;
pub mod devices;
pub mod events;
pub mod feed;
pub mod first_start;
pub mod history;
pub mod identity;
pub mod integrations;
pub mod invitations;
pub mod limits;
pub mod members;
pub mod messages;
pub mod notifications;
pub mod recoveries;
pub mod resets;
pub mod rooms;
pub mod routines;
pub mod security;
pub mod simulator;
pub mod stays;
pub mod streams;
pub mod submissions;
pub mod tenancy;
pub mod tokens;
pub mod usage;
pub mod webhooks;
pub mod widgets;

use crate::{Condition, Item, Key, PageKey, Query, Store, StoreError, UpdateAction};

/// The record stored at `key`, if there is one.
pub(crate) async fn record<T: crate::Record>(
    store: &dyn Store,
    key: &Key,
) -> Result<Option<T>, StoreError> {
    store.get(key).await?.map(|i| i.to_record()).transpose()
}

/// One page of the records `query` finds, with the position of the next.
pub(crate) async fn page<T: crate::Record>(
    store: &dyn Store,
    query: Query,
) -> Result<(Vec<T>, Option<PageKey>), StoreError> {
    store.query(query).await?.records()
}

/// Every record `query` finds, page after page.
pub(crate) async fn every_page<T: crate::Record>(
    store: &dyn Store,
    query: Query,
) -> Result<Vec<T>, StoreError> {
    let mut out = Vec::new();
    let mut after = None;
    loop {
        let page = store.query(query.clone().after(after)).await?;
        for item in &page.items {
            out.push(item.to_record()?);
        }
        match page.next {
            Some(next) => after = Some(next),
            None => return Ok(out),
        }
    }
}

/// Whether a conditional write took effect: `false` when a condition failed
/// (nothing was written), the error when the store failed.
pub(crate) fn applied<T>(result: Result<T, StoreError>) -> Result<bool, StoreError> {
    match result {
        Ok(_) => Ok(true),
        Err(e) if e.is_condition_failure() => Ok(false),
        Err(e) => Err(e),
    }
}

/// Applies `actions` to the item at `key` if `condition` holds: the record
/// as updated, `None` when the condition failed (the item is missing or not
/// in the state the caller expects).
pub(crate) async fn update_if<T: crate::Record>(
    store: &dyn Store,
    key: &Key,
    actions: Vec<UpdateAction>,
    condition: Condition,
) -> Result<Option<T>, StoreError> {
    match store.update(key, actions, Some(condition)).await {
        Ok(item) => Ok(Some(item.to_record()?)),
        Err(e) if e.is_condition_failure() => Ok(None),
        Err(e) => Err(e),
    }
}

/// Deletes the item at `key` if `condition` holds: the record as it was,
/// `None` when there was none or the condition failed (so of concurrent
/// callers at most one gets it).
pub(crate) async fn delete_if<T: crate::Record>(
    store: &dyn Store,
    key: &Key,
    condition: Condition,
) -> Result<Option<T>, StoreError> {
    match store.delete(key, Some(condition)).await {
        Ok(Some(item)) => Ok(Some(item.to_record()?)),
        Ok(None) => Ok(None),
        Err(e) if e.is_condition_failure() => Ok(None),
        Err(e) => Err(e),
    }
}

/// The position of the item at `key` in a query of the table (not an
/// index): the `after` that continues a page cut short just after it.
pub(crate) fn table_position(key: Key) -> PageKey {
    PageKey {
        pk: key.pk,
        sk: key.sk,
        index_pk: None,
        index_sk: None,
    }
}

/// The items of `keys` that exist, in no particular order: one batch get per
/// [`MAX_BATCH_GET_KEYS`](crate::MAX_BATCH_GET_KEYS) keys, none for no keys.
pub(crate) async fn get_all(store: &dyn Store, keys: &[Key]) -> Result<Vec<Item>, StoreError> {
    let mut items = Vec::with_capacity(keys.len());
    for chunk in keys.chunks(crate::MAX_BATCH_GET_KEYS) {
        items.extend(store.batch_get(chunk).await?);
    }
    Ok(items)
}

/// Timestamps are RFC 3339 strings on the wire and in the store.
pub mod ts {
    pub use time::serde::rfc3339;
    pub use time::serde::rfc3339::option;
}

/// How many times a transaction cancelled only for conflicts (DynamoDB's
/// TransactionConflict: another transaction held one of its items, which
/// decides nothing) is tried in all.
pub(crate) const CONFLICT_ATTEMPTS: u32 = 12;

/// A pause before the next attempt after a conflict: exponential from 5 ms,
/// at most 640 ms, with full jitter, so racing writers spread out. (With a
/// 160 ms ceiling, twenty accepts of one invitation on a loaded CI machine
/// left one writer out of attempts while the others still held the items:
/// it answered a store error instead of the spent link.)
pub async fn conflict_pause(attempt: u32) {
    let ceiling = 5u64 << attempt.min(7);
    let jitter = uuid::Uuid::new_v4().as_u128() as u64 % (ceiling + 1);
    tokio::time::sleep(std::time::Duration::from_millis(jitter)).await;
}

/// A create that hit an existing uniqueness guard.
#[derive(Debug, thiserror::Error)]
pub enum CreateError {
    #[error("{0} is already taken")]
    Taken(&'static str),
    #[error(transparent)]
    Store(#[from] StoreError),
}
