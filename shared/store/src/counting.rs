//! A store that counts the calls made through it, by operation: tests use
//! it to pin how many store calls an operation costs (the performance rule
//! "count store calls in tests").

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::sync::Mutex;

use async_trait::async_trait;

use crate::{Condition, Item, Key, Page, Query, Store, StoreError, TxWrite, UpdateAction};

tokio::task_local! {
    static TASK_CALLS: RefCell<BTreeMap<&'static str, usize>>;
    static TASK_REACH: RefCell<BTreeSet<Reach>>;
}

/// What one store call reached, as the hosted table's IAM policy sees it:
/// the DynamoDB action and the partition key pattern it was allowed by
/// (`dynamodb:LeadingKeys`). The template check (infra/check_template.py)
/// holds every function's policy to what the tests saw its code reach.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Reach {
    /// `GetItem`, `BatchGetItem`, `PutItem`, `UpdateItem`, `DeleteItem`,
    /// `ConditionCheckItem`, `Query`, or `Query gsi1` (an index).
    pub action: String,
    /// `TENANT#*`; the `CONFIG#` partitions by their whole name (the JWT
    /// signing key is `CONFIG#jwt`).
    pub partition: String,
}

impl std::fmt::Display for Reach {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.action, self.partition)
    }
}

/// The pattern of a partition key an IAM policy names: its kind (the text
/// up to the first `#`) and any id, the whole key for `CONFIG#` ones, and a
/// log head with its log's kind (`LOGHEAD#EVENTS#*`: the stream function may
/// move the event log's heads, nothing else's).
pub fn partition_pattern(pk: &str) -> String {
    match pk.split_once('#') {
        Some(("CONFIG", _)) | None => pk.to_owned(),
        Some(("LOGHEAD", log)) => match log.split_once('#') {
            Some((kind, _)) => format!("LOGHEAD#{kind}#*"),
            None => "LOGHEAD#*".to_owned(),
        },
        Some((kind, _)) => format!("{kind}#*"),
    }
}

/// Runs `work` and collects what its task's store calls reached through a
/// store that notes them ([`note_reach`]).
pub async fn reach_of<F: Future>(work: F) -> (F::Output, BTreeSet<Reach>) {
    TASK_REACH
        .scope(RefCell::default(), async move {
            let output = work.await;
            let reach = TASK_REACH.with(|reach| reach.take());
            (output, reach)
        })
        .await
}

/// Runs `poll` (one poll of a streaming response body, which runs after the
/// request's [`reach_of`] ended) with what its store calls reach added to
/// `into`.
pub fn reach_during<R>(into: &mut BTreeSet<Reach>, poll: impl FnOnce() -> R) -> R {
    TASK_REACH.sync_scope(RefCell::default(), || {
        let output = poll();
        into.extend(TASK_REACH.with(|reach| reach.take()));
        output
    })
}

/// Notes that this task's store call did `action` on the partition `pk`,
/// for the [`reach_of`] around it, if any.
pub fn note_reach(action: &str, pk: &str) {
    let _ = TASK_REACH.try_with(|reach| {
        reach.borrow_mut().insert(Reach {
            action: action.to_owned(),
            partition: partition_pattern(pk),
        })
    });
}

/// Runs `work` and counts the store calls made from its task through a
/// store that notes them ([`note`]: the counting store, the local
/// platform's store), by operation. Calls from tasks it spawns are not
/// counted.
pub async fn calls_of<F: Future>(work: F) -> (F::Output, BTreeMap<&'static str, usize>) {
    TASK_CALLS
        .scope(RefCell::default(), async move {
            let output = work.await;
            let calls = TASK_CALLS.with(|calls| calls.take());
            (output, calls)
        })
        .await
}

/// Notes one store call of `op` for the [`calls_of`] around this task, if any.
pub fn note(op: &'static str) {
    let _ = TASK_CALLS.try_with(|calls| *calls.borrow_mut().entry(op).or_default() += 1);
}

pub struct CountingStore<S> {
    inner: S,
    calls: Mutex<BTreeMap<&'static str, usize>>,
    /// Committed writes per item (an append: its shard's head, which every
    /// append moves), for the hot-item counts of `docs/SCALE.md`.
    item_writes: Mutex<std::collections::HashMap<Key, u64>>,
    units: Mutex<Units>,
}

/// DynamoDB's capacity units for what went through a counting store, as
/// its pricing counts them (the cost figures of `docs/COST.md`): a write
/// unit per KB written (an update: of the item after it), twice that for
/// each item of a transaction; a read unit per 4 KB read strongly
/// consistently (every read of the DynamoDB adapter but an index query's),
/// at least one per get and per query. A transaction of one write counts
/// as that write, as the DynamoDB adapter sends it. An item's size is its
/// JSON's, a little over DynamoDB's own measure.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Units {
    pub write: u64,
    pub read: u64,
}

fn write_units(size: usize) -> u64 {
    (size.div_ceil(1024) as u64).max(1)
}

fn read_units(size: usize) -> u64 {
    (size.div_ceil(4096) as u64).max(1)
}

fn size_of(item: &Item) -> usize {
    item.to_json_checked().map_or(0, |json| json.len())
}

impl<S> CountingStore<S> {
    pub fn new(inner: S) -> Self {
        Self {
            inner,
            calls: Mutex::default(),
            item_writes: Mutex::default(),
            units: Mutex::default(),
        }
    }

    /// The capacity units since the last call, and starts over.
    pub fn take_units(&self) -> Units {
        std::mem::take(&mut *self.units.lock().unwrap_or_else(|e| e.into_inner()))
    }

    fn charge(&self, write: u64, read: u64) {
        let mut units = self.units.lock().unwrap_or_else(|e| e.into_inner());
        units.write += write;
        units.read += read;
    }

    /// The committed writes per item since the last call, and starts over.
    pub fn take_item_writes(&self) -> std::collections::HashMap<Key, u64> {
        std::mem::take(&mut *self.item_writes.lock().unwrap_or_else(|e| e.into_inner()))
    }

    fn wrote(&self, keys: impl IntoIterator<Item = Key>) {
        let mut tally = self.item_writes.lock().unwrap_or_else(|e| e.into_inner());
        for key in keys {
            *tally.entry(key).or_default() += 1;
        }
    }

    fn count(&self, op: &'static str) {
        note(op);
        *self
            .calls
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(op)
            .or_default() += 1;
    }

    /// The calls since the last `take`, by operation (`get`, `batch_get`,
    /// `put`, `update`, `delete`, `query`, `transact`), and starts over.
    pub fn take(&self) -> BTreeMap<&'static str, usize> {
        std::mem::take(&mut *self.calls.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// All calls since the last `take`, and starts over.
    pub fn take_total(&self) -> usize {
        self.take().values().sum()
    }
}

impl<S: Store> CountingStore<S> {
    /// The write units of a committed transaction: its writes as the
    /// adapters resolve them (pages built, heads moved), each item's size
    /// as written (an update's read back, uncounted), twice for a
    /// transaction of more than one write.
    async fn transaction_units(&self, writes: &[TxWrite]) -> Result<u64, StoreError> {
        let mut counts = std::collections::HashMap::new();
        for log in crate::appended_logs(writes) {
            counts.insert(
                log.to_owned(),
                crate::logs::shard_count(&self.inner, log).await?,
            );
        }
        let resolved = crate::resolve_appends(
            writes.to_vec(),
            time::OffsetDateTime::now_utc(),
            0,
            |log| counts.get(log).copied().unwrap_or(1),
            |_| None,
        );
        let factor = if resolved.writes.len() == 1 { 1 } else { 2 };
        let mut units = 0;
        for write in &resolved.writes {
            let size = match write {
                TxWrite::Put { item, .. } => size_of(item),
                TxWrite::Update { key, .. } | TxWrite::Delete { key, .. } => {
                    self.inner.get(key).await?.as_ref().map_or(0, size_of)
                }
                TxWrite::Check { .. } => continue,
                TxWrite::Append { .. } | TxWrite::AppendPage { .. } => 0,
            };
            units += factor * write_units(size);
        }
        Ok(units)
    }

    /// The items `writes` moves: each written item, and for appends each
    /// shard head once (the shard count read through the inner store,
    /// uncounted).
    async fn written_by(&self, writes: &[TxWrite]) -> Result<Vec<Key>, StoreError> {
        let mut keys = Vec::new();
        for write in writes {
            match write {
                TxWrite::Check { .. } => {}
                TxWrite::Append { log, shard_key, .. }
                | TxWrite::AppendPage { log, shard_key, .. } => {
                    let shards = crate::logs::shard_count(&self.inner, log).await?;
                    let partition =
                        crate::shard_partition(log, (shard_key % u64::from(shards)) as u32);
                    let head = crate::log_head_key(&partition);
                    if !keys.contains(&head) {
                        keys.push(head);
                    }
                }
                other => keys.push(other.key()),
            }
        }
        Ok(keys)
    }
}

#[async_trait]
impl<S: Store> Store for CountingStore<S> {
    async fn get(&self, key: &Key) -> Result<Option<Item>, StoreError> {
        self.count("get");
        let item = self.inner.get(key).await?;
        self.charge(0, read_units(item.as_ref().map_or(0, size_of)));
        Ok(item)
    }
    async fn batch_get(&self, keys: &[Key]) -> Result<Vec<Item>, StoreError> {
        self.count("batch_get");
        let items = self.inner.batch_get(keys).await?;
        let found: u64 = items.iter().map(|i| read_units(size_of(i))).sum();
        let missing = keys.len().saturating_sub(items.len()) as u64;
        self.charge(0, found + missing);
        Ok(items)
    }
    async fn put(&self, item: Item, condition: Option<Condition>) -> Result<(), StoreError> {
        self.count("put");
        let key = item.key();
        let units = write_units(size_of(&item));
        self.inner.put(item, condition).await?;
        self.charge(units, 0);
        self.wrote([key]);
        Ok(())
    }
    async fn update(
        &self,
        key: &Key,
        actions: Vec<UpdateAction>,
        condition: Option<Condition>,
    ) -> Result<Item, StoreError> {
        self.count("update");
        let updated = self.inner.update(key, actions, condition).await?;
        self.charge(write_units(size_of(&updated)), 0);
        self.wrote([key.clone()]);
        Ok(updated)
    }
    async fn delete(
        &self,
        key: &Key,
        condition: Option<Condition>,
    ) -> Result<Option<Item>, StoreError> {
        self.count("delete");
        let deleted = self.inner.delete(key, condition).await?;
        self.charge(write_units(deleted.as_ref().map_or(0, size_of)), 0);
        self.wrote([key.clone()]);
        Ok(deleted)
    }
    async fn query(&self, query: Query) -> Result<Page, StoreError> {
        self.count("query");
        let page = self.inner.query(query).await?;
        self.charge(0, read_units(page.items.iter().map(size_of).sum()));
        Ok(page)
    }
    async fn transact(&self, writes: Vec<TxWrite>) -> Result<(), StoreError> {
        self.transact_with(writes, crate::Durability::Synced).await
    }
    async fn transact_with(
        &self,
        writes: Vec<TxWrite>,
        durability: crate::Durability,
    ) -> Result<(), StoreError> {
        self.count("transact");
        let keys = self.written_by(&writes).await?;
        let counted = writes.clone();
        self.inner.transact_with(writes, durability).await?;
        let units = self.transaction_units(&counted).await?;
        self.charge(units, 0);
        self.wrote(keys);
        Ok(())
    }
}
