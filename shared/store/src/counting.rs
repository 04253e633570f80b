//! A store that counts the calls made through it, by operation: tests use
//! it to pin how many store calls an operation costs (the performance rule
//! "count store calls in tests").

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Mutex;

use async_trait::async_trait;

use crate::{Condition, Item, Key, Page, Query, Store, StoreError, TxWrite, UpdateAction};

tokio::task_local! {
    static TASK_CALLS: RefCell<BTreeMap<&'static str, usize>>;
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
}

impl<S> CountingStore<S> {
    pub fn new(inner: S) -> Self {
        Self {
            inner,
            calls: Mutex::default(),
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

#[async_trait]
impl<S: Store> Store for CountingStore<S> {
    async fn get(&self, key: &Key) -> Result<Option<Item>, StoreError> {
        self.count("get");
        self.inner.get(key).await
    }
    async fn batch_get(&self, keys: &[Key]) -> Result<Vec<Item>, StoreError> {
        self.count("batch_get");
        self.inner.batch_get(keys).await
    }
    async fn put(&self, item: Item, condition: Option<Condition>) -> Result<(), StoreError> {
        self.count("put");
        self.inner.put(item, condition).await
    }
    async fn update(
        &self,
        key: &Key,
        actions: Vec<UpdateAction>,
        condition: Option<Condition>,
    ) -> Result<Item, StoreError> {
        self.count("update");
        self.inner.update(key, actions, condition).await
    }
    async fn delete(
        &self,
        key: &Key,
        condition: Option<Condition>,
    ) -> Result<Option<Item>, StoreError> {
        self.count("delete");
        self.inner.delete(key, condition).await
    }
    async fn query(&self, query: Query) -> Result<Page, StoreError> {
        self.count("query");
        self.inner.query(query).await
    }
    async fn transact(&self, writes: Vec<TxWrite>) -> Result<(), StoreError> {
        self.count("transact");
        self.inner.transact(writes).await
    }
}
