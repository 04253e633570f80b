//! The hosted adapter of [`Store`]: one DynamoDB table (single-table design) with
//! the sparse indexes gsi1..gsi3. Semantics are those of the embedded adapter
//! (`alyt_store::sqlite`), which the shared conformance suite pins down.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use alyt_domain::Clock;
use alyt_domain::ids::EventId;
use alyt_store::{
    CancelReason, Condition, Index, Item, Key, MAX_BATCH_GET_KEYS, Page, PageKey, Query, Store,
    StoreError, TxWrite, UpdateAction, appended_logs, attr, head_last, log_head_key,
    resolve_appends, shards_of, validate_item, validate_key, validate_transaction, validate_update,
};
use async_trait::async_trait;
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::operation::delete_item::DeleteItemError;
use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::error::ConditionalCheckFailedException;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, ConditionCheck, Delete, GlobalSecondaryIndex,
    KeySchemaElement, KeyType, KeysAndAttributes, Projection, ProjectionType, Put, ReturnValue,
    ReturnValuesOnConditionCheckFailure, ScalarAttributeType, StreamSpecification, StreamViewType,
    TableStatus, TimeToLiveSpecification, TransactWriteItem, Update,
};

use crate::codec::{Attrs, item_from_attrs, item_to_attrs, key_attrs};
use crate::expr::Expr;

/// Overrides the DynamoDB endpoint (moto, DynamoDB Local) for [`DynamoStore::from_env`].
pub const ENDPOINT_ENV: &str = "ALYT_DYNAMODB_ENDPOINT";

/// How often a batch get re-asks for keys DynamoDB left unprocessed.
const BATCH_GET_ATTEMPTS: u32 = 8;
/// How often a transaction with appends is sent when other writers keep
/// moving the log's head first (twenty appenders at once on a loaded
/// machine left the last without attempts at 8 with a linear pause).
const APPEND_ATTEMPTS: u32 = 12;
/// Log heads remembered per process before the memory starts over.
const HEADS_KEPT: usize = 10_000;
/// How long a log's shard count is taken as known before its first head is
/// read again (an operator's change reaches every writer within this).
const SHARDS_KNOWN_FOR: Duration = Duration::from_secs(60);

#[derive(Clone)]
pub struct DynamoStore {
    client: Client,
    table: String,
    clock: Arc<dyn Clock>,
    /// The last position this process saw per log (a guess: a stale one
    /// costs a cancelled transaction and a read).
    heads: Arc<Mutex<HashMap<String, EventId>>>,
    /// Each log's shard count as last read, and when.
    shards: Arc<Mutex<HashMap<String, (u32, std::time::Instant)>>>,
}

impl DynamoStore {
    pub fn new(client: Client, table: impl Into<String>, clock: Arc<dyn Clock>) -> Self {
        Self {
            client,
            table: table.into(),
            clock,
            heads: Arc::default(),
            shards: Arc::default(),
        }
    }

    /// A store on the default AWS configuration (environment, profile, role),
    /// talking to `$ALYT_DYNAMODB_ENDPOINT` instead of AWS when that is set.
    pub async fn from_env(table: impl Into<String>, clock: Arc<dyn Clock>) -> Self {
        Self::from_config(&crate::sdk_config().await, table, clock)
    }

    /// [`from_env`](Self::from_env) on an SDK configuration already loaded
    /// (a function that builds several clients loads it once).
    pub fn from_config(
        shared: &aws_config::SdkConfig,
        table: impl Into<String>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        let mut config = aws_sdk_dynamodb::config::Builder::from(shared);
        if let Some(endpoint) = std::env::var(ENDPOINT_ENV).ok().filter(|e| !e.is_empty()) {
            config = config.endpoint_url(endpoint);
        }
        Self::new(Client::from_conf(config.build()), table, clock)
    }

    pub fn client(&self) -> &Client {
        &self.client
    }

    pub fn table(&self) -> &str {
        &self.table
    }

    fn visible(&self, item: Item) -> Option<Item> {
        (!item.is_expired(self.clock.unix_seconds())).then_some(item)
    }
}

/// Creates the table the adapter expects: `pk`/`sk` strings, the sparse indexes
/// gsi1..gsi3 (`gsiNpk`/`gsiNsk` strings, whole items projected), on-demand
/// billing and TTL on `ttl`. Waits until the table is active.
pub async fn create_table(client: &Client, table: &str) -> Result<(), StoreError> {
    let string_attr = |name: &str| {
        AttributeDefinition::builder()
            .attribute_name(name)
            .attribute_type(ScalarAttributeType::S)
            .build()
            .map_err(invalid)
    };
    let key = |name: &str, key_type: KeyType| {
        KeySchemaElement::builder()
            .attribute_name(name)
            .key_type(key_type)
            .build()
            .map_err(invalid)
    };
    // The stream as the template's: new images, for the telemetry sequencer
    // (and the webhook worker's wake-up).
    let stream = StreamSpecification::builder()
        .stream_enabled(true)
        .stream_view_type(StreamViewType::NewImage)
        .build()
        .map_err(invalid)?;
    let mut request = client
        .create_table()
        .table_name(table)
        .billing_mode(BillingMode::PayPerRequest)
        .stream_specification(stream)
        .attribute_definitions(string_attr(attr::PK)?)
        .attribute_definitions(string_attr(attr::SK)?)
        .key_schema(key(attr::PK, KeyType::Hash)?)
        .key_schema(key(attr::SK, KeyType::Range)?);
    for index in Index::ALL {
        request = request
            .attribute_definitions(string_attr(index.pk_attr())?)
            .attribute_definitions(string_attr(index.sk_attr())?)
            .global_secondary_indexes(
                GlobalSecondaryIndex::builder()
                    .index_name(index.name())
                    .key_schema(key(index.pk_attr(), KeyType::Hash)?)
                    .key_schema(key(index.sk_attr(), KeyType::Range)?)
                    .projection(
                        Projection::builder()
                            .projection_type(ProjectionType::All)
                            .build(),
                    )
                    .build()
                    .map_err(invalid)?,
            );
    }
    request
        .send()
        .await
        .map_err(|e| sdk_error("CreateTable", e))?;

    // Real DynamoDB creates tables asynchronously; TTL needs an active table.
    let mut delay = Duration::from_millis(100);
    for _ in 0..120 {
        let described = client
            .describe_table()
            .table_name(table)
            .send()
            .await
            .map_err(|e| sdk_error("DescribeTable", e))?;
        if described.table.and_then(|t| t.table_status) == Some(TableStatus::Active) {
            client
                .update_time_to_live()
                .table_name(table)
                .time_to_live_specification(
                    TimeToLiveSpecification::builder()
                        .enabled(true)
                        .attribute_name(attr::TTL)
                        .build()
                        .map_err(invalid)?,
                )
                .send()
                .await
                .map_err(|e| sdk_error("UpdateTimeToLive", e))?;
            return Ok(());
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(Duration::from_secs(5));
    }
    Err(StoreError::Unavailable(format!(
        "table {table} did not become active"
    )))
}

fn invalid(e: impl std::fmt::Display) -> StoreError {
    StoreError::Invalid(e.to_string())
}

/// Maps the errors no operation handles itself: a rejected request is the
/// caller's fault, everything else (throttling, 5xx, network) may be retried.
fn sdk_error<E, R>(operation: &str, err: SdkError<E, R>) -> StoreError
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
    R: std::fmt::Debug,
{
    if err.code() == Some("ValidationException") {
        let message = err.message().unwrap_or("validation failed").to_owned();
        return StoreError::Invalid(format!("{operation}: {message}"));
    }
    StoreError::Unavailable(format!("{operation}: {}", DisplayErrorContext(&err)))
}

fn condition_failed(item: Option<&Attrs>) -> StoreError {
    match item.filter(|attrs| !attrs.is_empty()).map(item_from_attrs) {
        Some(Err(e)) => e,
        current => StoreError::ConditionFailed {
            current: current.and_then(Result::ok).map(Box::new),
        },
    }
}

/// Sets a write's rendered condition and its placeholders. (The builders of
/// PutItem, UpdateItem, DeleteItem and of the transaction items have these
/// setters alike but share no trait.)
macro_rules! with_condition {
    ($builder:expr, $rendered:expr) => {{
        let r = $rendered;
        $builder
            .set_condition_expression(r.condition)
            .set_expression_attribute_names(r.names)
            .set_expression_attribute_values(r.values)
    }};
}

/// Sends a single-item write with its rendered condition, asking for the
/// item as it was should the condition fail.
macro_rules! send_conditional {
    ($builder:expr, $rendered:expr) => {
        with_condition!($builder, $rendered)
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .send()
            .await
    };
}

/// The errors of the single-item writes, which name a failed condition
/// each in its own variant.
trait FailedCheck {
    fn failed_check(&self) -> Option<&ConditionalCheckFailedException>;
}

macro_rules! failed_check {
    ($($error:ty),*) => {$(
        impl FailedCheck for $error {
            fn failed_check(&self) -> Option<&ConditionalCheckFailedException> {
                match self {
                    Self::ConditionalCheckFailedException(failed) => Some(failed),
                    _ => None,
                }
            }
        }
    )*};
}
failed_check!(PutItemError, UpdateItemError, DeleteItemError);

/// A single-item write's answer: a failed condition as the store's
/// `ConditionFailed` (with the item as it was), any other error the SDK's.
fn written<T, E, R>(operation: &str, result: Result<T, SdkError<E, R>>) -> Result<T, StoreError>
where
    E: FailedCheck + ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
    R: std::fmt::Debug,
{
    result.map_err(
        |e| match e.as_service_error().and_then(FailedCheck::failed_check) {
            Some(failed) => condition_failed(failed.item()),
            None => sdk_error(operation, e),
        },
    )
}

/// The expressions of one write and their shared placeholders.
struct Rendered {
    update: Option<String>,
    condition: Option<String>,
    names: Option<HashMap<String, String>>,
    values: Option<HashMap<String, AttributeValue>>,
}

fn render(actions: Option<&[UpdateAction]>, condition: Option<&Condition>) -> Rendered {
    let mut expr = Expr::default();
    let update = actions.map(|a| expr.update(a));
    let condition = condition.map(|c| expr.condition(c));
    Rendered {
        update,
        condition,
        names: expr.names(),
        values: expr.values(),
    }
}

fn exclusive_start_key(after: &PageKey, index: Option<Index>) -> Attrs {
    let mut key = key_attrs(&Key::new(after.pk.clone(), after.sk.clone()));
    if let Some(index) = index {
        let s = |v: &Option<String>| AttributeValue::S(v.clone().unwrap_or_default());
        key.insert(index.pk_attr().to_owned(), s(&after.index_pk));
        key.insert(index.sk_attr().to_owned(), s(&after.index_sk));
    }
    key
}

fn cancel_reason(code: Option<&str>) -> CancelReason {
    match code {
        None | Some("None") => CancelReason::None,
        Some("ConditionalCheckFailed") => CancelReason::ConditionFailed,
        // TransactionConflict, throttling, ...: retrying may succeed.
        Some(_) => CancelReason::Conflict,
    }
}

impl DynamoStore {
    fn tx_item(&self, write: TxWrite) -> Result<TransactWriteItem, StoreError> {
        let item = TransactWriteItem::builder();
        Ok(match write {
            TxWrite::Put {
                item: put,
                condition,
            } => {
                let put = Put::builder()
                    .table_name(&self.table)
                    .set_item(Some(item_to_attrs(&put)));
                let put = with_condition!(put, render(None, condition.as_ref()));
                item.put(put.build().map_err(invalid)?)
            }
            TxWrite::Update {
                key,
                actions,
                condition,
            } => {
                let mut r = render(Some(&actions), condition.as_ref());
                let update = Update::builder()
                    .table_name(&self.table)
                    .set_key(Some(key_attrs(&key)))
                    .set_update_expression(r.update.take());
                item.update(with_condition!(update, r).build().map_err(invalid)?)
            }
            TxWrite::Delete { key, condition } => {
                let delete = Delete::builder()
                    .table_name(&self.table)
                    .set_key(Some(key_attrs(&key)));
                let delete = with_condition!(delete, render(None, condition.as_ref()));
                item.delete(delete.build().map_err(invalid)?)
            }
            TxWrite::Check { key, condition } => {
                let check = ConditionCheck::builder()
                    .table_name(&self.table)
                    .set_key(Some(key_attrs(&key)));
                let check = with_condition!(check, render(None, Some(&condition)));
                item.condition_check(check.build().map_err(invalid)?)
            }
            TxWrite::Append { .. } | TxWrite::AppendPage { .. } => {
                return Err(StoreError::Invalid(
                    "an append reaches DynamoDB only with its position".into(),
                ));
            }
        }
        .build())
    }

    /// A transaction's only write, sent as a plain write: a condition that
    /// fails cancels it as a transaction's would.
    async fn write_alone(&self, write: Option<TxWrite>) -> Result<(), StoreError> {
        let result = match write {
            Some(TxWrite::Put { item, condition }) => self.put(item, condition).await,
            Some(TxWrite::Update {
                key,
                actions,
                condition,
            }) => self.update(&key, actions, condition).await.map(drop),
            Some(TxWrite::Delete { key, condition }) => {
                self.delete(&key, condition).await.map(drop)
            }
            other => {
                return Err(StoreError::Invalid(format!(
                    "not a write to send alone: {other:?}"
                )));
            }
        };
        match result {
            Err(StoreError::ConditionFailed { .. }) => Err(StoreError::TransactionCanceled {
                reasons: vec![CancelReason::ConditionFailed],
            }),
            other => other,
        }
    }

    /// One TransactWriteItems of writes without appends.
    async fn transact_once(&self, writes: Vec<TxWrite>) -> Result<(), StoreError> {
        validate_transaction(&writes)?;
        for write in &writes {
            // DynamoDB rejects empty key strings; say so before the round trip.
            validate_key(&write.key())?;
        }
        let items = writes
            .into_iter()
            .map(|w| self.tx_item(w))
            .collect::<Result<Vec<_>, _>>()?;
        let result = self
            .client
            .transact_write_items()
            .set_transact_items(Some(items))
            .send()
            .await;
        match result {
            Ok(_) => Ok(()),
            Err(e) => match e.as_service_error() {
                Some(TransactWriteItemsError::TransactionCanceledException(cancel)) => {
                    let codes: Vec<Option<&str>> = cancel
                        .cancellation_reasons()
                        .iter()
                        .map(|r| r.code())
                        .collect();
                    // A malformed write (say ADD to a string) is the caller's error,
                    // not a retryable conflict; the embedded adapter reports it as
                    // Invalid too, unless a condition failed first. (DynamoDB says
                    // ValidationError; moto names the exception.)
                    let is_validation = |code: &Option<&str>| {
                        matches!(code, Some("ValidationError" | "ValidationException"))
                    };
                    let invalid_write = codes.iter().any(is_validation)
                        && !codes.contains(&Some("ConditionalCheckFailed"));
                    if invalid_write {
                        let message = cancel
                            .cancellation_reasons()
                            .iter()
                            .find(|r| is_validation(&r.code()))
                            .and_then(|r| r.message())
                            .unwrap_or("a write of the transaction is invalid");
                        return Err(StoreError::Invalid(format!(
                            "TransactWriteItems: {message}"
                        )));
                    }
                    Err(StoreError::TransactionCanceled {
                        reasons: codes.into_iter().map(cancel_reason).collect(),
                    })
                }
                _ => Err(sdk_error("TransactWriteItems", e)),
            },
        }
    }

    /// A transaction with appends (see `alyt_store::resolve_appends`):
    /// positions from the heads this process last saw; when another writer
    /// moved a head first, the head is read again and the transaction sent
    /// again, a few times, with a growing pause. The caller sees the
    /// cancellation reasons of its own writes only.
    async fn transact_appending(&self, writes: Vec<TxWrite>) -> Result<(), StoreError> {
        validate_transaction(&writes)?;
        let shards = self.shard_counts(&writes).await?;
        let shards_of_log = |log: &str| shards.get(log).copied().unwrap_or(1);
        for attempt in 0..APPEND_ATTEMPTS {
            let base = uuid::Uuid::new_v4().as_u128() as u32;
            let resolved = {
                let heads = self.heads.lock().unwrap_or_else(|e| e.into_inner());
                resolve_appends(
                    writes.clone(),
                    self.clock.now(),
                    base,
                    shards_of_log,
                    |log| heads.get(log).cloned(),
                )
            };
            match self.transact_once(resolved.writes.clone()).await {
                Ok(()) => {
                    self.learn_heads(resolved.heads);
                    return Ok(());
                }
                Err(StoreError::TransactionCanceled { reasons }) => {
                    let (own, head_moved) = resolved.split_reasons(reasons);
                    if own.iter().any(|r| *r != CancelReason::None) || !head_moved {
                        return Err(StoreError::TransactionCanceled { reasons: own });
                    }
                    let mut learned = Vec::with_capacity(resolved.heads.len());
                    for (log, _) in &resolved.heads {
                        let last = head_last(self.get(&log_head_key(log)).await?.as_ref());
                        if let Some(last) = last {
                            learned.push((log.clone(), last));
                        }
                    }
                    self.learn_heads(learned);
                    if attempt > 0 {
                        // Exponential from 5 ms, at most 640 ms, with full
                        // jitter, so racing appenders spread out (the
                        // repositories' conflict pause, alyt_store::repo).
                        let ceiling = 5u64 << attempt.min(7);
                        let pause = u64::from(base) % (ceiling + 1);
                        tokio::time::sleep(Duration::from_millis(pause)).await;
                    }
                }
                Err(e) => return Err(e),
            }
        }
        Err(StoreError::Unavailable(
            "the event log kept moving under this write; try again".into(),
        ))
    }

    /// The shard count of each log `writes` appends to: as read within
    /// [`SHARDS_KNOWN_FOR`], else from its first head (one get per log, whose
    /// last position is learnt too).
    async fn shard_counts(&self, writes: &[TxWrite]) -> Result<HashMap<String, u32>, StoreError> {
        let mut counts = HashMap::new();
        for log in appended_logs(writes) {
            let known = self
                .shards
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(log)
                .filter(|(_, at)| at.elapsed() < SHARDS_KNOWN_FOR)
                .map(|(n, _)| *n);
            let count = match known {
                Some(n) => n,
                None => {
                    let first = self.get(&log_head_key(log)).await?;
                    let n = shards_of(first.as_ref());
                    if let Some(last) = head_last(first.as_ref()) {
                        self.learn_heads(vec![(log.to_owned(), last)]);
                    }
                    let mut shards = self.shards.lock().unwrap_or_else(|e| e.into_inner());
                    if shards.len() >= HEADS_KEPT {
                        shards.clear();
                    }
                    shards.insert(log.to_owned(), (n, std::time::Instant::now()));
                    n
                }
            };
            counts.insert(log.to_owned(), count);
        }
        Ok(counts)
    }

    fn learn_heads(&self, learned: Vec<(String, EventId)>) {
        let mut heads = self.heads.lock().unwrap_or_else(|e| e.into_inner());
        if heads.len() >= HEADS_KEPT {
            heads.clear();
        }
        for (log, last) in learned {
            let entry = heads.entry(log).or_insert_with(|| last.clone());
            if *entry < last {
                *entry = last;
            }
        }
    }
}

#[async_trait]
impl Store for DynamoStore {
    async fn get(&self, key: &Key) -> Result<Option<Item>, StoreError> {
        validate_key(key)?;
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .set_key(Some(key_attrs(key)))
            .consistent_read(true)
            .send()
            .await
            .map_err(|e| sdk_error("GetItem", e))?;
        match out.item {
            Some(attrs) if !attrs.is_empty() => Ok(self.visible(item_from_attrs(&attrs)?)),
            _ => Ok(None),
        }
    }

    async fn batch_get(&self, keys: &[Key]) -> Result<Vec<Item>, StoreError> {
        if keys.len() > MAX_BATCH_GET_KEYS {
            return Err(StoreError::Invalid(format!(
                "a batch get takes at most {MAX_BATCH_GET_KEYS} keys"
            )));
        }
        keys.iter().try_for_each(validate_key)?;
        // DynamoDB rejects duplicate keys; ask once and answer per key as asked.
        let mut unique: Vec<&Key> = keys.iter().collect();
        unique.sort();
        unique.dedup();
        let mut pending: Vec<Attrs> = unique.into_iter().map(key_attrs).collect();
        let mut found: HashMap<Key, Item> = HashMap::new();
        let mut delay = Duration::from_millis(20);
        for attempt in 0..BATCH_GET_ATTEMPTS {
            if pending.is_empty() {
                break;
            }
            if attempt > 0 {
                tracing::debug!(
                    keys = pending.len(),
                    attempt,
                    "retrying unprocessed batch-get keys"
                );
                tokio::time::sleep(delay).await;
                delay *= 2;
            }
            let request = KeysAndAttributes::builder()
                .set_keys(Some(std::mem::take(&mut pending)))
                .consistent_read(true)
                .build()
                .map_err(invalid)?;
            let out = self
                .client
                .batch_get_item()
                .request_items(&self.table, request)
                .send()
                .await
                .map_err(|e| sdk_error("BatchGetItem", e))?;
            for attrs in out
                .responses
                .unwrap_or_default()
                .remove(&self.table)
                .unwrap_or_default()
            {
                let item = item_from_attrs(&attrs)?;
                found.insert(item.key(), item);
            }
            pending = out
                .unprocessed_keys
                .unwrap_or_default()
                .remove(&self.table)
                .map(|k| k.keys)
                .unwrap_or_default();
        }
        if !pending.is_empty() {
            return Err(StoreError::Unavailable(format!(
                "BatchGetItem left {} keys unprocessed",
                pending.len()
            )));
        }
        Ok(keys
            .iter()
            .filter_map(|k| found.get(k).cloned())
            .filter_map(|item| self.visible(item))
            .collect())
    }

    async fn put(&self, item: Item, condition: Option<Condition>) -> Result<(), StoreError> {
        validate_item(&item)?;
        let put = self
            .client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(item_to_attrs(&item)));
        written(
            "PutItem",
            send_conditional!(put, render(None, condition.as_ref())),
        )?;
        Ok(())
    }

    async fn update(
        &self,
        key: &Key,
        actions: Vec<UpdateAction>,
        condition: Option<Condition>,
    ) -> Result<Item, StoreError> {
        validate_key(key)?;
        validate_update(&actions)?;
        let mut r = render(Some(&actions), condition.as_ref());
        let update = self
            .client
            .update_item()
            .table_name(&self.table)
            .set_key(Some(key_attrs(key)))
            .set_update_expression(r.update.take())
            .return_values(ReturnValue::AllNew);
        match written("UpdateItem", send_conditional!(update, r))?.attributes {
            Some(attrs) => item_from_attrs(&attrs),
            None => Err(StoreError::Unavailable(
                "UpdateItem returned no attributes".into(),
            )),
        }
    }

    async fn delete(
        &self,
        key: &Key,
        condition: Option<Condition>,
    ) -> Result<Option<Item>, StoreError> {
        validate_key(key)?;
        let delete = self
            .client
            .delete_item()
            .table_name(&self.table)
            .set_key(Some(key_attrs(key)))
            .return_values(ReturnValue::AllOld);
        let r = render(None, condition.as_ref());
        match written("DeleteItem", send_conditional!(delete, r))?.attributes {
            Some(attrs) if !attrs.is_empty() => item_from_attrs(&attrs).map(Some),
            _ => Ok(None),
        }
    }

    async fn query(&self, query: Query) -> Result<Page, StoreError> {
        query.validate()?;
        let limit = query.effective_limit() as usize;
        let (pk_attr, sk_attr) = match query.index {
            None => (attr::PK, attr::SK),
            Some(index) => (index.pk_attr(), index.sk_attr()),
        };
        let mut expr = Expr::default();
        let Some(key_condition) =
            expr.key_condition(pk_attr, sk_attr, &query.partition, query.sort.as_ref())
        else {
            return Ok(Page {
                items: Vec::new(),
                next: None,
            });
        };
        // One item past the limit tells whether more follow. Expired items are
        // dropped here, so keep paging until enough visible ones arrived.
        let wanted = limit + 1;
        let mut items = Vec::with_capacity(wanted.min(64));
        let mut start = query
            .after
            .as_ref()
            .map(|after| exclusive_start_key(after, query.index));
        loop {
            let out = self
                .client
                .query()
                .table_name(&self.table)
                .set_index_name(query.index.map(|i| i.name().to_owned()))
                .key_condition_expression(&key_condition)
                .set_expression_attribute_names(expr.names())
                .set_expression_attribute_values(expr.values())
                .scan_index_forward(query.forward)
                .limit((wanted - items.len()) as i32)
                .set_exclusive_start_key(start.take())
                // Index queries cannot be strongly consistent.
                .consistent_read(query.index.is_none())
                .send()
                .await
                .map_err(|e| sdk_error("Query", e))?;
            for attrs in out.items.unwrap_or_default() {
                if let Some(item) = self.visible(item_from_attrs(&attrs)?) {
                    items.push(item);
                }
            }
            match out.last_evaluated_key {
                Some(last) if !last.is_empty() && items.len() < wanted => start = Some(last),
                _ => break,
            }
        }
        let next = if items.len() > limit {
            items.truncate(limit);
            items.last().map(|last| PageKey::of(last, query.index))
        } else {
            None
        };
        Ok(Page { items, next })
    }

    async fn transact(&self, writes: Vec<TxWrite>) -> Result<(), StoreError> {
        if !appended_logs(&writes).is_empty() {
            return self.transact_appending(writes).await;
        }
        if let [write] = writes.as_slice()
            && !matches!(write, TxWrite::Check { .. })
        {
            // One write is as atomic on its own, at half a transaction's
            // write units; it fails as the transaction would.
            validate_transaction(&writes)?;
            return self.write_alone(writes.into_iter().next()).await;
        }
        self.transact_once(writes).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// moto never reports TransactionConflict (it serves one request at a
    /// time), so the mapping of DynamoDB's cancellation codes is held here;
    /// what the repositories do with a conflict is proven in the
    /// conformance suite (`Contended`).
    #[test]
    fn cancellation_codes_map_to_reasons() {
        for (code, reason) in [
            (None, CancelReason::None),
            (Some("None"), CancelReason::None),
            (
                Some("ConditionalCheckFailed"),
                CancelReason::ConditionFailed,
            ),
            (Some("TransactionConflict"), CancelReason::Conflict),
            (Some("ThrottlingError"), CancelReason::Conflict),
            (
                Some("ProvisionedThroughputExceeded"),
                CancelReason::Conflict,
            ),
        ] {
            assert_eq!(cancel_reason(code), reason, "{code:?}");
        }
    }
}
