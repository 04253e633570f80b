//! Reading ordered logs, one shard or many (how appends get their positions
//! is `model.rs`'s "Ordered logs").
//!
//! A log of one shard is read as it always was: its positions are given in
//! commit order, so one query after the reader's position finds everything
//! new. A log of several shards is read up to a position every shard is
//! known to be past: the lowest of the shards' heads, after the heads of idle
//! shards were moved up to the highest ([`seal`]). An appender racing a
//! reader's move fails its head condition and appends after it, so nothing
//! can appear below what a reader was given, and the reader needs no lag.

use alyt_domain::ids::EventId;
use time::OffsetDateTime;

use crate::pages::{expand, expand_all, is_page};
use crate::{
    Condition, Item, Key, LOG_HEAD_LAST, LOG_HEAD_SHARDS, MAX_BATCH_GET_KEYS, MAX_LOG_SHARDS,
    Query, SortKey, Store, StoreError, UpdateAction, head_last, log_head_key, shard_partition,
    shards_of,
};

/// How long a shard's head may stand still before a reader moves it up to
/// the log's highest (a busy shard moves on its own: moving it would only
/// make its appender try again).
pub const IDLE_SHARD: time::Duration = time::Duration::milliseconds(200);

/// The shard count of `log` (one get of its first head).
pub async fn shard_count(store: &dyn Store, log: &str) -> Result<u32, StoreError> {
    Ok(shards_of(store.get(&log_head_key(log)).await?.as_ref()))
}

/// Every shard's head, in shard order (`None`: never appended to).
async fn heads(
    store: &dyn Store,
    log: &str,
    first: Option<&Item>,
) -> Result<Vec<Option<EventId>>, StoreError> {
    let shards = shards_of(first);
    let mut heads = vec![None; shards as usize];
    heads[0] = head_last(first);
    let keys: Vec<Key> = (1..shards)
        .map(|k| log_head_key(&shard_partition(log, k)))
        .collect();
    for chunk in keys.chunks(MAX_BATCH_GET_KEYS) {
        for item in store.batch_get(chunk).await? {
            // Shard k's head is keys[k - 1].
            if let Some(at) = keys.iter().position(|key| key.pk == item.pk()) {
                heads[at + 1] = head_last(Some(&item));
            }
        }
    }
    Ok(heads)
}

/// Moves the head of `partition` up to `to` unless it is there already;
/// returns where it is now.
async fn seal(store: &dyn Store, partition: &str, to: &EventId) -> Result<EventId, StoreError> {
    let key = log_head_key(partition);
    let moved = store
        .update(
            &key,
            vec![UpdateAction::Set(
                LOG_HEAD_LAST.into(),
                serde_json::Value::String(to.to_string()),
            )],
            Some(
                Condition::not_exists(LOG_HEAD_LAST)
                    .or(Condition::lt(LOG_HEAD_LAST, to.to_string())),
            ),
        )
        .await;
    match moved {
        Ok(_) => Ok(to.clone()),
        // An appender (or another reader) moved it past `to` first.
        Err(e) if e.is_condition_failure() => {
            Ok(head_last(store.get(&key).await?.as_ref()).unwrap_or_else(|| to.clone()))
        }
        Err(e) => Err(e),
    }
}

/// Up to `limit` items of `log` after position `after` (from the start when
/// `None`), in position order. One shard: one query. Several: the first
/// head, the other heads (batch gets), a conditional update per idle shard
/// behind, and one query per shard with anything new.
pub async fn read_after(
    store: &dyn Store,
    log: &str,
    after: Option<&str>,
    limit: u32,
    now: OffsetDateTime,
) -> Result<Vec<Item>, StoreError> {
    let limit = limit.clamp(1, Query::MAX_LIMIT);
    let first = store.get(&log_head_key(log)).await?;
    if shards_of(first.as_ref()) == 1 {
        let mut query = Query::partition(log).limit(limit);
        if let Some(after) = after {
            query = query.sort(SortKey::Gt(after.to_owned()));
        }
        // A page found after `after` may begin at or before it.
        let mut items = expand_all(store.query(query).await?.items)?;
        items.retain(|i| after.is_none_or(|a| i.sk() > a));
        items.truncate(limit as usize);
        return Ok(items);
    }
    let mut heads = heads(store, log, first.as_ref()).await?;
    let Some(highest) = heads.iter().flatten().max().cloned() else {
        return Ok(Vec::new());
    };
    let idle_before = (now - IDLE_SHARD).unix_timestamp_nanos() / 1_000;
    for (shard, head) in heads.iter_mut().enumerate() {
        let behind = head.as_ref().is_none_or(|h| *h < highest);
        let idle = head
            .as_ref()
            .is_none_or(|h| i128::from(h.micros()) < idle_before);
        if behind && idle {
            *head = Some(seal(store, &shard_partition(log, shard as u32), &highest).await?);
        }
    }
    // Every shard has given all it will below this.
    let Some(settled) = heads
        .iter()
        .map(|h| h.clone().unwrap_or_else(|| highest.clone()))
        .min()
    else {
        return Ok(Vec::new());
    };
    if after.is_some_and(|a| a >= settled.as_str()) {
        return Ok(Vec::new());
    }
    let mut items = Vec::new();
    // Past the last item of a shard that has more, another of its items
    // could come first: the merge stops there.
    let mut cutoff = settled.to_string();
    for (shard, head) in heads.iter().enumerate() {
        if head
            .as_ref()
            .is_some_and(|h| after.is_some_and(|a| h.as_str() <= a))
        {
            continue;
        }
        let range = match after {
            Some(after) => SortKey::Between(after.to_owned(), settled.to_string()),
            None => SortKey::Le(settled.to_string()),
        };
        let query = Query::partition(shard_partition(log, shard as u32))
            .sort(range)
            .limit(limit + 1);
        let page = store.query(query).await?;
        let mut read: Vec<Item> = expand_all(page.items)?
            .into_iter()
            .filter(|i| after.is_none_or(|a| i.sk() > a))
            .collect();
        if read.len() > limit as usize || page.next.is_some() {
            read.truncate(limit as usize);
            if let Some(last) = read.last()
                && last.sk() < cutoff.as_str()
            {
                cutoff = last.sk().to_owned();
            }
        }
        items.extend(read);
    }
    items.retain(|i| i.sk() <= cutoff.as_str());
    items.sort_by(|a, b| a.sk().cmp(b.sk()));
    items.truncate(limit as usize);
    Ok(items)
}

/// The highest position any shard of `log` was given.
pub async fn newest(store: &dyn Store, log: &str) -> Result<Option<EventId>, StoreError> {
    let first = store.get(&log_head_key(log)).await?;
    Ok(heads(store, log, first.as_ref())
        .await?
        .into_iter()
        .flatten()
        .max())
}

/// The item at `position` in any shard of `log`: stored on its own (one get,
/// or a batch get over the shards), else in the page at or after it (one
/// query per shard).
pub async fn get(store: &dyn Store, log: &str, position: &str) -> Result<Option<Item>, StoreError> {
    let shards = shard_count(store, log).await?;
    let keys: Vec<Key> = (0..shards)
        .map(|k| Key::new(shard_partition(log, k), position))
        .collect();
    let found = match shards {
        1 => store.get(&keys[0]).await?,
        _ => store.batch_get(&keys).await?.into_iter().next(),
    };
    if let Some(item) = found.filter(|i| !is_page(i)) {
        return Ok(Some(item));
    }
    for key in keys {
        let query = Query::partition(key.pk).sort(SortKey::Ge(key.sk)).limit(1);
        for item in store.query(query).await?.items {
            if let Some(found) = expand(item)?.into_iter().find(|i| i.sk() == position) {
                return Ok(Some(found));
            }
        }
    }
    Ok(None)
}

/// Splits `log` into `shards` shards (more than it has; a log never gets
/// fewer, so a writer that still counts the old number writes where readers
/// look). The new shards start above every position given so far, then the
/// count is published on the first head; writers learn it within their
/// memory's span (`alyt-aws` keeps it a minute).
pub async fn grow(store: &dyn Store, log: &str, shards: u32) -> Result<(), StoreError> {
    if !(1..=MAX_LOG_SHARDS).contains(&shards) {
        return Err(StoreError::Invalid(format!(
            "a log has 1 to {MAX_LOG_SHARDS} shards, not {shards}"
        )));
    }
    let first = store.get(&log_head_key(log)).await?;
    let current = shards_of(first.as_ref());
    if shards < current {
        return Err(StoreError::Invalid(format!(
            "the log has {current} shards: a log's shards only grow"
        )));
    }
    if shards == current {
        return Ok(());
    }
    if let Some(highest) = heads(store, log, first.as_ref())
        .await?
        .into_iter()
        .flatten()
        .max()
    {
        for shard in current..shards {
            seal(store, &shard_partition(log, shard), &highest).await?;
        }
    }
    let unchanged = match first.as_ref().and_then(|h| h.get_i64(LOG_HEAD_SHARDS)) {
        Some(n) => Condition::eq(LOG_HEAD_SHARDS, n),
        None => Condition::not_exists(LOG_HEAD_SHARDS),
    };
    store
        .update(
            &log_head_key(log),
            vec![UpdateAction::Set(LOG_HEAD_SHARDS.into(), shards.into())],
            Some(unchanged),
        )
        .await?;
    Ok(())
}
