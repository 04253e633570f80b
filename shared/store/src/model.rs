//! The item model and operation types of the [`Store`] trait.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::any::Any;
use std::sync::{Arc, OnceLock};

// DynamoDB's limits. Both adapters check them before writing (the embedded
// one has none of its own), so a request one store refuses the other refuses
// too, as `StoreError::Invalid`: the request itself is wrong, and retrying it
// can never help.

/// Largest item either adapter accepts (DynamoDB's limit is 400 KB), measured
/// as the item's JSON (close to DynamoDB's own measure, which the DynamoDB
/// backend applies as well).
pub const MAX_ITEM_BYTES: usize = 400 * 1024;
/// Most operations one transaction may hold (DynamoDB's limit).
pub const MAX_TRANSACTION_OPS: usize = 100;
/// Most bytes the items of one transaction may add up to (DynamoDB's 4 MB).
pub const MAX_TRANSACTION_BYTES: usize = 4 * 1024 * 1024;
/// Longest partition key (table or index), in UTF-8 bytes.
pub const MAX_PARTITION_KEY_BYTES: usize = 2048;
/// Longest sort key (table or index), in UTF-8 bytes.
pub const MAX_SORT_KEY_BYTES: usize = 1024;
/// The smallest magnitude of a number other than zero (DynamoDB's range).
pub const MIN_NUMBER_MAGNITUDE: f64 = 1e-130;
/// Numbers are below this magnitude (DynamoDB's largest is 9.99…9e125, 38
/// significant digits, just under it).
pub const MAX_NUMBER_MAGNITUDE: f64 = 1e126;
/// Most keys one batch get may ask for (DynamoDB's limit).
pub const MAX_BATCH_GET_KEYS: usize = 100;

/// Attribute names with a meaning to the store itself.
pub mod attr {
    pub const PK: &str = "pk";
    pub const SK: &str = "sk";
    /// Expiry, whole seconds since the Unix epoch. Expired items are invisible to
    /// reads at once; the backend deletes them later.
    pub const TTL: &str = "ttl";
    /// Marks an item for the feed: when such an item is first written, the
    /// store records it for the feed's reader (SQLite: its `feed` table;
    /// DynamoDB: the table's stream, which records every new item and whose
    /// consumer filters on this attribute). Its value names the feed.
    pub const FEED: &str = "feed";
}

/// A secondary index. Each is sparse: an item is in it only when it carries both
/// of the index's key attributes as strings. Projection is the whole item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Index {
    Gsi1,
    Gsi2,
    Gsi3,
}

impl Index {
    pub const ALL: [Index; 3] = [Index::Gsi1, Index::Gsi2, Index::Gsi3];

    pub fn name(self) -> &'static str {
        match self {
            Index::Gsi1 => "gsi1",
            Index::Gsi2 => "gsi2",
            Index::Gsi3 => "gsi3",
        }
    }
    pub fn pk_attr(self) -> &'static str {
        match self {
            Index::Gsi1 => "gsi1pk",
            Index::Gsi2 => "gsi2pk",
            Index::Gsi3 => "gsi3pk",
        }
    }
    pub fn sk_attr(self) -> &'static str {
        match self {
            Index::Gsi1 => "gsi1sk",
            Index::Gsi2 => "gsi2sk",
            Index::Gsi3 => "gsi3sk",
        }
    }
}

/// The primary key of an item.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Key {
    pub pk: String,
    pub sk: String,
}

impl Key {
    pub fn new(pk: impl Into<String>, sk: impl Into<String>) -> Self {
        Self {
            pk: pk.into(),
            sk: sk.into(),
        }
    }
}

/// One stored item: a map of attributes that always holds string `pk` and `sk`.
/// Values are JSON values; numbers, strings, booleans, null, lists and maps all
/// round-trip through both adapters.
/// The attributes sit behind an `Arc`: a copy of an item (a kept read, a
/// page handed out again) shares them until one of the copies changes.
#[derive(Clone, PartialEq)]
pub struct Item(Arc<Attributes>);

/// What an item can be read as: a record type that can also be kept
/// beside a shared item (see [`Item::to_record`]).
pub trait Record: serde::de::DeserializeOwned + Clone + Send + Sync + 'static {}

impl<T: serde::de::DeserializeOwned + Clone + Send + Sync + 'static> Record for T {}

/// An item's attributes and, once a shared item was read as a record, that
/// record: a kept item (the SQLite adapter's cache hands out the same
/// attributes to every read until a write replaces them) is decoded once,
/// not on every read (docs/PROFILING.md: decoding records was a sixth of a
/// warm device list).
struct Attributes {
    map: Map<String, Value>,
    decoded: OnceLock<Box<dyn Any + Send + Sync>>,
}

impl Attributes {
    fn new(map: Map<String, Value>) -> Self {
        Self {
            map,
            decoded: OnceLock::new(),
        }
    }
}

/// A copy is about to change (`Arc::make_mut`), so it forgets the record.
impl Clone for Attributes {
    fn clone(&self) -> Self {
        Self::new(self.map.clone())
    }
}

impl PartialEq for Attributes {
    fn eq(&self, other: &Self) -> bool {
        self.map == other.map
    }
}

impl std::fmt::Debug for Item {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Item").field(&self.0.map).finish()
    }
}

impl Item {
    pub fn new(key: Key) -> Self {
        let mut attrs = Map::new();
        attrs.insert(attr::PK.into(), Value::String(key.pk));
        attrs.insert(attr::SK.into(), Value::String(key.sk));
        Self(Arc::new(Attributes::new(attrs)))
    }

    /// Builds an item from raw attributes; fails unless `pk` and `sk` are strings.
    pub fn from_attrs(attrs: Map<String, Value>) -> Result<Self, StoreError> {
        for name in [attr::PK, attr::SK] {
            if !matches!(attrs.get(name), Some(Value::String(_))) {
                return Err(StoreError::Invalid(format!(
                    "item attribute {name} must be a string"
                )));
            }
        }
        Ok(Self(Arc::new(Attributes::new(attrs))))
    }

    pub fn with(mut self, name: &str, value: impl Into<Value>) -> Self {
        self.set(name, value);
        self
    }

    pub fn set(&mut self, name: &str, value: impl Into<Value>) {
        self.changing().insert(name.to_owned(), value.into());
    }

    pub fn remove(&mut self, name: &str) -> Option<Value> {
        self.changing().remove(name)
    }

    /// The attributes to change: this item's own copy, without the record
    /// read from them before.
    fn changing(&mut self) -> &mut Map<String, Value> {
        let attributes = Arc::make_mut(&mut self.0);
        attributes.decoded.take();
        &mut attributes.map
    }

    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0.map.get(name)
    }

    pub fn get_str(&self, name: &str) -> Option<&str> {
        self.0.map.get(name).and_then(Value::as_str)
    }

    pub fn get_i64(&self, name: &str) -> Option<i64> {
        self.0.map.get(name).and_then(Value::as_i64)
    }

    pub fn pk(&self) -> &str {
        self.get_str(attr::PK).unwrap_or_default()
    }

    pub fn sk(&self) -> &str {
        self.get_str(attr::SK).unwrap_or_default()
    }

    pub fn key(&self) -> Key {
        Key::new(self.pk(), self.sk())
    }

    /// The expiry in Unix seconds, when the item has one.
    pub fn expires_at(&self) -> Option<i64> {
        self.get(attr::TTL).and_then(Value::as_i64)
    }

    pub fn is_expired(&self, now_unix: i64) -> bool {
        self.expires_at().is_some_and(|ttl| ttl <= now_unix)
    }

    /// The index keys of this item, when it is in `index`.
    pub fn index_key(&self, index: Index) -> Option<(&str, &str)> {
        Some((
            self.get_str(index.pk_attr())?,
            self.get_str(index.sk_attr())?,
        ))
    }

    pub fn attrs(&self) -> &Map<String, Value> {
        &self.0.map
    }

    pub fn into_attrs(self) -> Map<String, Value> {
        match Arc::try_unwrap(self.0) {
            Ok(attributes) => attributes.map,
            Err(shared) => shared.map.clone(),
        }
    }

    /// An item holding a record's fields (serialised with serde) under `key`.
    pub fn from_record<T: Serialize>(key: Key, record: &T) -> Result<Self, StoreError> {
        let value = serde_json::to_value(record)
            .map_err(|e| StoreError::Invalid(format!("record is not serialisable: {e}")))?;
        let Value::Object(fields) = value else {
            return Err(StoreError::Invalid(
                "a record must serialise to an object".into(),
            ));
        };
        let mut item = Item::new(key);
        for (name, value) in fields {
            item.set(&name, value);
        }
        Ok(item)
    }

    /// The record stored in this item (key and index attributes are ignored).
    /// An item whose attributes are shared (a kept read) keeps the first
    /// record read from it, and later reads of that type copy it instead
    /// of decoding again; an item held once (a DynamoDB read) is decoded
    /// and dropped, so keeping would be wasted.
    pub fn to_record<T: Record>(&self) -> Result<T, StoreError> {
        if let Some(kept) = self.0.decoded.get().and_then(|d| d.downcast_ref::<T>()) {
            return Ok(kept.clone());
        }
        // Straight from the borrowed attributes: no copy of the map first.
        let record = T::deserialize(&self.0.map).map_err(|e| {
            StoreError::Unavailable(format!(
                "stored item {}/{} does not read as a record: {e}",
                self.pk(),
                self.sk()
            ))
        })?;
        if Arc::strong_count(&self.0) > 1 && self.0.decoded.get().is_none() {
            let _ = self.0.decoded.set(Box::new(record.clone()));
        }
        Ok(record)
    }

    /// Serialises the item; fails when it is larger than [`MAX_ITEM_BYTES`].
    pub fn to_json_checked(&self) -> Result<String, StoreError> {
        let text = serde_json::to_string(&self.0.map)
            .map_err(|e| StoreError::Invalid(format!("item is not serialisable: {e}")))?;
        if text.len() > MAX_ITEM_BYTES {
            return Err(StoreError::Invalid(format!(
                "item is {} bytes, more than the {MAX_ITEM_BYTES}-byte limit",
                text.len()
            )));
        }
        Ok(text)
    }
}

/// Comparison operators for conditions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// A condition on the current version of one item, evaluated atomically with the
/// write it guards. Attribute names are top-level attributes.
///
/// Semantics (the same in both adapters; the DynamoDB adapter guards each
/// comparison with `attribute_type` to get them): a comparison against a missing
/// attribute is false, so `Cmp(a, Ne, v)` on an item without `a` fails; use
/// `Or([NotExists(a), ...])` when a missing value should pass. An absent item has
/// no attributes at all.
/// Ordering comparisons hold only between two numbers or two strings (UTF-8 byte order).
#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    Exists(String),
    NotExists(String),
    Cmp(String, CmpOp, Value),
    BeginsWith(String, String),
    And(Vec<Condition>),
    Or(Vec<Condition>),
    Not(Box<Condition>),
}

impl Condition {
    /// The item must not exist yet (create-only writes).
    pub fn item_absent() -> Self {
        Condition::NotExists(attr::PK.into())
    }
    /// The item must exist (update-only writes).
    pub fn item_present() -> Self {
        Condition::Exists(attr::PK.into())
    }
    pub fn eq(name: &str, value: impl Into<Value>) -> Self {
        Condition::Cmp(name.into(), CmpOp::Eq, value.into())
    }
    pub fn ne(name: &str, value: impl Into<Value>) -> Self {
        Condition::Cmp(name.into(), CmpOp::Ne, value.into())
    }
    pub fn lt(name: &str, value: impl Into<Value>) -> Self {
        Condition::Cmp(name.into(), CmpOp::Lt, value.into())
    }
    pub fn le(name: &str, value: impl Into<Value>) -> Self {
        Condition::Cmp(name.into(), CmpOp::Le, value.into())
    }
    pub fn gt(name: &str, value: impl Into<Value>) -> Self {
        Condition::Cmp(name.into(), CmpOp::Gt, value.into())
    }
    pub fn ge(name: &str, value: impl Into<Value>) -> Self {
        Condition::Cmp(name.into(), CmpOp::Ge, value.into())
    }
    pub fn exists(name: &str) -> Self {
        Condition::Exists(name.into())
    }
    pub fn not_exists(name: &str) -> Self {
        Condition::NotExists(name.into())
    }
    pub fn and(self, other: Condition) -> Self {
        match self {
            Condition::And(mut all) => {
                all.push(other);
                Condition::And(all)
            }
            first => Condition::And(vec![first, other]),
        }
    }
    pub fn or(self, other: Condition) -> Self {
        match self {
            Condition::Or(mut any) => {
                any.push(other);
                Condition::Or(any)
            }
            first => Condition::Or(vec![first, other]),
        }
    }

    /// Evaluates the condition against the current item (`None` when absent).
    /// The embedded adapter uses this; the DynamoDB adapter sends an expression.
    pub fn evaluate(&self, item: Option<&Item>) -> bool {
        let get = |name: &str| item.and_then(|i| i.get(name));
        match self {
            Condition::Exists(name) => get(name).is_some(),
            Condition::NotExists(name) => get(name).is_none(),
            Condition::Cmp(name, op, expected) => match get(name) {
                None => false,
                Some(actual) => compare(actual, *op, expected),
            },
            Condition::BeginsWith(name, prefix) => {
                matches!(get(name), Some(Value::String(s)) if s.starts_with(prefix.as_str()))
            }
            Condition::And(all) => all.iter().all(|c| c.evaluate(item)),
            Condition::Or(any) => any.iter().any(|c| c.evaluate(item)),
            Condition::Not(inner) => !inner.evaluate(item),
        }
    }
}

fn compare(actual: &Value, op: CmpOp, expected: &Value) -> bool {
    use std::cmp::Ordering;
    let ordering = match (actual, expected) {
        (Value::Number(a), Value::Number(b)) => match (a.as_i64(), b.as_i64()) {
            (Some(a), Some(b)) => Some(a.cmp(&b)),
            _ => a
                .as_f64()
                .zip(b.as_f64())
                .and_then(|(a, b)| a.partial_cmp(&b)),
        },
        (Value::String(a), Value::String(b)) => Some(a.as_bytes().cmp(b.as_bytes())),
        _ => None,
    };
    match op {
        CmpOp::Eq => ordering.map_or(actual == expected, |o| o == Ordering::Equal),
        CmpOp::Ne => ordering.map_or(actual != expected, |o| o != Ordering::Equal),
        CmpOp::Lt => ordering == Some(Ordering::Less),
        CmpOp::Le => matches!(ordering, Some(Ordering::Less | Ordering::Equal)),
        CmpOp::Gt => ordering == Some(Ordering::Greater),
        CmpOp::Ge => matches!(ordering, Some(Ordering::Greater | Ordering::Equal)),
    }
}

/// One change of an update. An update of a missing item creates it (DynamoDB's
/// upsert); guard with [`Condition::item_present`] when that is not wanted.
#[derive(Debug, Clone, PartialEq)]
pub enum UpdateAction {
    Set(String, Value),
    /// Sets the attribute only when it does not exist yet.
    SetIfAbsent(String, Value),
    Remove(String),
    /// Adds to a number attribute; a missing attribute counts as 0.
    Add(String, i64),
}

impl UpdateAction {
    pub fn attr(&self) -> &str {
        match self {
            UpdateAction::Set(a, _)
            | UpdateAction::SetIfAbsent(a, _)
            | UpdateAction::Remove(a)
            | UpdateAction::Add(a, _) => a,
        }
    }

    /// Applies the change to an item; the embedded adapter uses this.
    pub fn apply(&self, item: &mut Item) -> Result<(), StoreError> {
        match self {
            UpdateAction::Set(name, value) => item.set(name, value.clone()),
            UpdateAction::SetIfAbsent(name, value) => {
                if item.get(name).is_none() {
                    item.set(name, value.clone());
                }
            }
            UpdateAction::Remove(name) => {
                item.remove(name);
            }
            UpdateAction::Add(name, delta) => {
                let current = match item.get(name) {
                    None => 0,
                    Some(v) => v.as_i64().ok_or_else(|| {
                        StoreError::Invalid(format!("cannot add to non-integer attribute {name}"))
                    })?,
                };
                let sum = current.checked_add(*delta).ok_or_else(|| {
                    StoreError::Invalid(format!("adding to attribute {name} overflows"))
                })?;
                item.set(name, sum);
            }
        }
        Ok(())
    }
}

fn validate_key_length(name: &str, value: &str, max: usize) -> Result<(), StoreError> {
    if value.len() > max {
        return Err(StoreError::Invalid(format!(
            "{name} is {} bytes, more than the {max}-byte limit",
            value.len()
        )));
    }
    Ok(())
}

/// Keys are non-empty (DynamoDB rejects empty key strings) and within
/// DynamoDB's key sizes.
pub fn validate_key(key: &Key) -> Result<(), StoreError> {
    if key.pk.is_empty() || key.sk.is_empty() {
        return Err(StoreError::Invalid("pk and sk must not be empty".into()));
    }
    validate_key_length(attr::PK, &key.pk, MAX_PARTITION_KEY_BYTES)?;
    validate_key_length(attr::SK, &key.sk, MAX_SORT_KEY_BYTES)
}

fn is_index_key_attr(name: &str) -> bool {
    Index::ALL
        .iter()
        .any(|i| i.pk_attr() == name || i.sk_attr() == name)
}

fn validate_index_key_value(name: &str, value: &Value) -> Result<(), StoreError> {
    for index in Index::ALL {
        let max = if name == index.pk_attr() {
            MAX_PARTITION_KEY_BYTES
        } else if name == index.sk_attr() {
            MAX_SORT_KEY_BYTES
        } else {
            continue;
        };
        return match value {
            Value::String(s) if !s.is_empty() => validate_key_length(name, s, max),
            _ => Err(StoreError::Invalid(format!(
                "index key attribute {name} must be a non-empty string"
            ))),
        };
    }
    Ok(())
}

/// Every number in `value`, however deep, is one DynamoDB can hold.
/// Integers always are (JSON integers here fit 64 bits).
fn validate_numbers(name: &str, value: &Value) -> Result<(), StoreError> {
    match value {
        Value::Number(n) if n.is_f64() => {
            let magnitude = n.as_f64().unwrap_or_default().abs();
            if magnitude != 0.0
                && !(MIN_NUMBER_MAGNITUDE..MAX_NUMBER_MAGNITUDE).contains(&magnitude)
            {
                return Err(StoreError::Invalid(format!(
                    "attribute {name} holds the number {n}, outside the range a store holds \
                     ({MIN_NUMBER_MAGNITUDE:e} to below {MAX_NUMBER_MAGNITUDE:e})"
                )));
            }
            Ok(())
        }
        Value::Array(values) => values.iter().try_for_each(|v| validate_numbers(name, v)),
        Value::Object(fields) => fields.values().try_for_each(|v| validate_numbers(name, v)),
        _ => Ok(()),
    }
}

/// [`validate_item`], answering the item's size.
fn checked_item_size(item: &Item) -> Result<usize, StoreError> {
    validate_key(&item.key())?;
    for (name, value) in item.attrs() {
        validate_index_key_value(name, value)?;
        validate_numbers(name, value)?;
    }
    item.to_json_checked().map(|json| json.len())
}

/// Checks a whole item before it is written, the same in both adapters: keys
/// non-empty and within their sizes, index keys non-empty strings (DynamoDB's
/// rule), numbers within range, size within limit.
pub fn validate_item(item: &Item) -> Result<(), StoreError> {
    checked_item_size(item).map(|_| ())
}

/// Checks the rules every update must follow, the same in both adapters.
pub fn validate_update(actions: &[UpdateAction]) -> Result<(), StoreError> {
    if actions.is_empty() {
        return Err(StoreError::Invalid(
            "an update needs at least one action".into(),
        ));
    }
    let mut seen = std::collections::HashSet::new();
    for action in actions {
        let name = action.attr();
        if name == attr::PK || name == attr::SK {
            return Err(StoreError::Invalid(format!(
                "the key attribute {name} cannot be updated"
            )));
        }
        if name.is_empty() {
            return Err(StoreError::Invalid(
                "attribute names cannot be empty".into(),
            ));
        }
        if !seen.insert(name) {
            return Err(StoreError::Invalid(format!(
                "attribute {name} is updated twice"
            )));
        }
        match action {
            UpdateAction::Set(_, value) | UpdateAction::SetIfAbsent(_, value) => {
                validate_index_key_value(name, value)?;
                validate_numbers(name, value)?;
            }
            UpdateAction::Add(..) if is_index_key_attr(name) => {
                return Err(StoreError::Invalid(format!(
                    "index key attribute {name} must be a non-empty string"
                )));
            }
            _ => {}
        }
    }
    Ok(())
}

/// A condition on the sort key of a query (or the index sort key).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SortKey {
    Eq(String),
    BeginsWith(String),
    Between(String, String),
    Lt(String),
    Le(String),
    Gt(String),
    Ge(String),
}

impl SortKey {
    pub fn matches(&self, sk: &str) -> bool {
        let sk = sk.as_bytes();
        match self {
            SortKey::Eq(v) => sk == v.as_bytes(),
            SortKey::BeginsWith(p) => sk.starts_with(p.as_bytes()),
            SortKey::Between(lo, hi) => sk >= lo.as_bytes() && sk <= hi.as_bytes(),
            SortKey::Lt(v) => sk < v.as_bytes(),
            SortKey::Le(v) => sk <= v.as_bytes(),
            SortKey::Gt(v) => sk > v.as_bytes(),
            SortKey::Ge(v) => sk >= v.as_bytes(),
        }
    }
}

/// Where a page ended: the position of its last item. Opaque to callers; the API
/// layer encodes it into a cursor string.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PageKey {
    pub pk: String,
    pub sk: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_pk: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_sk: Option<String>,
}

impl PageKey {
    /// The position of `item` in a query on `index` (the table when `None`).
    pub fn of(item: &Item, index: Option<Index>) -> Self {
        let (index_pk, index_sk) = match index.and_then(|i| item.index_key(i)) {
            Some((p, s)) => (Some(p.to_owned()), Some(s.to_owned())),
            None => (None, None),
        };
        Self {
            pk: item.pk().to_owned(),
            sk: item.sk().to_owned(),
            index_pk,
            index_sk,
        }
    }
}

/// The list a page position can continue: one partition of the table or of
/// an index. Repositories hand one out for each list they read (the query
/// and the check come from the same place), so the API can refuse a cursor
/// of another list without knowing any key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListScope {
    Table(String),
    Index(Index, String),
}

impl ListScope {
    /// Whether `at` is a position in this list.
    pub fn holds(&self, at: &PageKey) -> bool {
        match self {
            ListScope::Table(pk) => at.pk == *pk && at.index_pk.is_none(),
            ListScope::Index(_, pk) => at.index_pk.as_deref() == Some(pk.as_str()),
        }
    }

    /// A query that reads this list.
    pub fn query(&self) -> Query {
        match self {
            ListScope::Table(pk) => Query::partition(pk.clone()),
            ListScope::Index(index, pk) => Query::on_index(*index, pk.clone()),
        }
    }
}

/// An ordered read of one partition of the table or of an index.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Query {
    pub index: Option<Index>,
    pub partition: String,
    pub sort: Option<SortKey>,
    /// Ascending sort-key order when true.
    pub forward: bool,
    /// At most this many items (default and ceiling: 1000).
    pub limit: Option<u32>,
    /// Continue after this position (from a previous page's `next`).
    pub after: Option<PageKey>,
}

impl Query {
    pub const MAX_LIMIT: u32 = 1000;

    pub fn partition(partition: impl Into<String>) -> Self {
        Self {
            index: None,
            partition: partition.into(),
            sort: None,
            forward: true,
            limit: None,
            after: None,
        }
    }
    pub fn on_index(index: Index, partition: impl Into<String>) -> Self {
        Self {
            index: Some(index),
            ..Self::partition(partition)
        }
    }
    pub fn sort(mut self, sort: SortKey) -> Self {
        self.sort = Some(sort);
        self
    }
    pub fn backward(mut self) -> Self {
        self.forward = false;
        self
    }
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = Some(limit);
        self
    }
    pub fn after(mut self, after: Option<PageKey>) -> Self {
        self.after = after;
        self
    }

    pub fn effective_limit(&self) -> u32 {
        self.limit
            .unwrap_or(Self::MAX_LIMIT)
            .clamp(1, Self::MAX_LIMIT)
    }

    /// Rejects a cursor that does not belong to this query's partition, so a
    /// cursor can never be used to read another partition.
    pub fn validate(&self) -> Result<(), StoreError> {
        if self.partition.is_empty() {
            return Err(StoreError::Invalid("a query needs a partition".into()));
        }
        if let Some(after) = &self.after {
            let cursor_partition = match self.index {
                None => Some(&after.pk),
                Some(_) => after.index_pk.as_ref(),
            };
            let shape_ok = match self.index {
                None => after.index_pk.is_none() && after.index_sk.is_none(),
                Some(_) => after.index_sk.is_some(),
            };
            if cursor_partition != Some(&self.partition) || !shape_ok {
                return Err(StoreError::Invalid(
                    "the cursor does not belong to this query".into(),
                ));
            }
        }
        Ok(())
    }
}

/// One page of a query. `next` is present exactly when more items follow.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    pub items: Vec<Item>,
    pub next: Option<PageKey>,
}

impl Page {
    /// The items read as records of one type, with the position of the next
    /// page.
    pub fn records<T: Record>(self) -> Result<(Vec<T>, Option<PageKey>), StoreError> {
        let records = self
            .items
            .iter()
            .map(Item::to_record)
            .collect::<Result<_, _>>()?;
        Ok((records, self.next))
    }
}

/// One write of a transaction.
#[derive(Debug, Clone, PartialEq)]
pub enum TxWrite {
    Put {
        item: Item,
        condition: Option<Condition>,
    },
    Update {
        key: Key,
        actions: Vec<UpdateAction>,
        condition: Option<Condition>,
    },
    Delete {
        key: Key,
        condition: Option<Condition>,
    },
    /// Writes nothing; the transaction fails unless the condition holds.
    Check { key: Key, condition: Condition },
    /// Appends `item` to the ordered log `log`, in the shard `shard_key`
    /// falls in (`shard_key % shards`, see [`shard_partition`]): the store
    /// gives it its sort key when the transaction commits (see
    /// [`resolve_appends`]), greater than every sort key that shard was ever
    /// given, and copies that position into the attribute `position_attr`.
    /// The item's own key is ignored. Appends of one transaction get
    /// positions in their order.
    Append {
        log: String,
        shard_key: u64,
        item: Item,
        position_attr: String,
    },
    /// Appends `items` as [`TxWrite::Append`] would, one after another, but
    /// stores them as one page item ([`crate::pages`]): one write for all of
    /// them. Every page append of a transaction to one shard joins that
    /// shard's one page, which is written after the transaction's other
    /// writes (and before the head writes). Readers of the log see the
    /// items, never the page.
    AppendPage {
        log: String,
        shard_key: u64,
        items: Vec<Item>,
        position_attr: String,
    },
}

impl TxWrite {
    /// The item written; for an append, the log's partition with an empty
    /// sort key (its shard and position are known only at commit).
    pub fn key(&self) -> Key {
        match self {
            TxWrite::Put { item, .. } => item.key(),
            TxWrite::Update { key, .. }
            | TxWrite::Delete { key, .. }
            | TxWrite::Check { key, .. } => key.clone(),
            TxWrite::Append { log, .. } | TxWrite::AppendPage { log, .. } => {
                Key::new(log.as_str(), "")
            }
        }
    }

    /// The log and shard key of an append (of one item or a page).
    pub fn appends_to(&self) -> Option<(&str, u64)> {
        match self {
            TxWrite::Append { log, shard_key, .. } | TxWrite::AppendPage { log, shard_key, .. } => {
                Some((log, *shard_key))
            }
            _ => None,
        }
    }
}

// ---------------------------------------------------------------------------
// Ordered logs (the platform event log)
//
// A log's positions are `{microseconds:016}-{suffix:08x}` ([`EventId`]). A
// log is one or more shards (one partition each, see [`shard_partition`]);
// each shard has a head item holding the last position given there, and a
// transaction that appends moves the head on the condition that it is still
// below the first new position. So a shard's positions are given in commit
// order. On SQLite (one writer) the head is read inside the transaction and
// the condition always holds; on DynamoDB the adapter starts from the head
// it last saw and, when another writer moved it first, reads it again and
// retries the transaction (see `alyt-aws`).
//
// Readers of a sharded log (see `crate::logs`) read every shard up to the
// lowest head, after moving the heads of idle shards up to the highest: an
// appender to a shard whose head moved under it fails its condition and
// takes a later position, so nothing can appear below what was read, and a
// reader needs no lag.

/// The attribute of a log head holding its last position.
pub const LOG_HEAD_LAST: &str = "last";
/// The attribute of a log's first head (shard 0's) holding its number of
/// shards (absent: one).
pub const LOG_HEAD_SHARDS: &str = "shards";
/// The most shards a log may have.
pub const MAX_LOG_SHARDS: u32 = 128;

/// The partition of shard `shard` of `log`: shard 0 is the log's own
/// partition (so a log written before it had shards is its shard 0).
pub fn shard_partition(log: &str, shard: u32) -> String {
    match shard {
        0 => log.to_owned(),
        n => format!("{log}#{n}"),
    }
}

/// The shard count a log's first head holds (one when it has none).
pub fn shards_of(first_head: Option<&Item>) -> u32 {
    first_head
        .and_then(|h| h.get_i64(LOG_HEAD_SHARDS))
        .map_or(1, |n| n.clamp(1, i64::from(MAX_LOG_SHARDS)) as u32)
}

/// The last position a head holds.
pub fn head_last(head: Option<&Item>) -> Option<alyt_domain::ids::EventId> {
    head.and_then(|h| h.get_str(LOG_HEAD_LAST))
        .and_then(|l| l.parse().ok())
}

/// The key of the head item of log `log` (outside the log's partition, so
/// reads of the log never meet it).
pub fn log_head_key(log: &str) -> Key {
    Key::new(format!("LOGHEAD#{log}"), "HEAD")
}

/// What a transaction with appends became: its writes with every append
/// turned into a put at its position, followed by one head update per log
/// (the last `heads.len()` writes).
#[derive(Debug, Clone)]
pub struct ResolvedAppends {
    pub writes: Vec<TxWrite>,
    /// Per log, in the order of the trailing head writes: the log and the
    /// last position given.
    pub heads: Vec<(String, alyt_domain::ids::EventId)>,
}

impl ResolvedAppends {
    /// The cancellation reasons of the caller's own writes (without the
    /// trailing head writes), and whether a head write failed.
    pub fn split_reasons(&self, reasons: Vec<CancelReason>) -> (Vec<CancelReason>, bool) {
        let own = reasons.len().saturating_sub(self.heads.len());
        let head_failed = reasons[own..].iter().any(|r| *r != CancelReason::None);
        let mut reasons = reasons;
        reasons.truncate(own);
        (reasons, head_failed)
    }
}

/// Gives each append of `writes` its shard (from `shards`, the shard count
/// of each log as the caller knows it) and its position: in each shard,
/// from `max(now, head + 1 µs)` (`head` of the shard's partition as the
/// caller last knew it, `None` for a new shard), one microsecond for the
/// whole transaction, with the suffixes `base + 0, 1, …` counted across the
/// transaction (`base` a random multiple of 256, so that positions of one
/// microsecond still differ between transactions, and between the shards of
/// one). Writes without appends come back unchanged and with no head writes.
pub fn resolve_appends(
    writes: Vec<TxWrite>,
    now: time::OffsetDateTime,
    base: u32,
    shards: impl Fn(&str) -> u32,
    head: impl Fn(&str) -> Option<alyt_domain::ids::EventId>,
) -> ResolvedAppends {
    use alyt_domain::ids::EventId;
    let now_micros = i64::try_from(now.unix_timestamp_nanos() / 1_000).unwrap_or(i64::MAX);
    struct Positions {
        log: String,
        micros: i64,
        first: Option<EventId>,
        last: Option<EventId>,
    }
    let mut logs: Vec<Positions> = Vec::new();
    let mut pages: Vec<(String, Vec<Item>)> = Vec::new();
    // Top bit clear: a transaction's suffixes (a page's items take one
    // each) never wrap past the largest and out of position order.
    let mut next = base & 0x7FFF_FF00;
    let mut out = Vec::with_capacity(writes.len() + 1);
    for write in writes {
        let (log, shard_key, items, position_attr, paged) = match write {
            TxWrite::Append {
                log,
                shard_key,
                item,
                position_attr,
            } => (log, shard_key, vec![item], position_attr, false),
            TxWrite::AppendPage {
                log,
                shard_key,
                items,
                position_attr,
            } => (log, shard_key, items, position_attr, true),
            other => {
                out.push(other);
                continue;
            }
        };
        let count = u64::from(shards(&log).clamp(1, MAX_LOG_SHARDS));
        let log = shard_partition(&log, (shard_key % count) as u32);
        let index = match logs.iter().position(|p| p.log == log) {
            Some(i) => i,
            None => {
                let floor = head(&log).map_or(i64::MIN, |h| h.micros().saturating_add(1));
                logs.push(Positions {
                    log: log.clone(),
                    micros: now_micros.max(floor),
                    first: None,
                    last: None,
                });
                logs.len() - 1
            }
        };
        let at = &mut logs[index];
        let mut placed = Vec::with_capacity(items.len());
        for mut item in items {
            let position = EventId::from_micros(at.micros, next);
            next = next.wrapping_add(1);
            at.first.get_or_insert_with(|| position.clone());
            at.last = Some(position.clone());
            item.set(attr::PK, Value::String(log.clone()));
            item.set(attr::SK, Value::String(position.to_string()));
            item.set(&position_attr, Value::String(position.to_string()));
            placed.push(item);
        }
        if paged {
            match pages.iter_mut().find(|(partition, _)| *partition == log) {
                Some((_, items)) => items.extend(placed),
                None => pages.push((log, placed)),
            }
            continue;
        }
        out.extend(placed.into_iter().map(|item| TxWrite::Put {
            item,
            condition: Some(Condition::item_absent()),
        }));
    }
    // One page per shard, whatever number of page appends went there.
    for (partition, items) in pages {
        if let Some(last) = items.last() {
            out.push(TxWrite::Put {
                item: crate::pages::page_item(&partition, last.sk(), &items),
                condition: Some(Condition::item_absent()),
            });
        }
    }
    let mut heads = Vec::with_capacity(logs.len());
    for Positions {
        log, first, last, ..
    } in logs
    {
        let (Some(first), Some(last)) = (first, last) else {
            continue;
        };
        out.push(TxWrite::Update {
            key: log_head_key(&log),
            actions: vec![UpdateAction::Set(
                LOG_HEAD_LAST.into(),
                Value::String(last.to_string()),
            )],
            condition: Some(
                Condition::not_exists(LOG_HEAD_LAST)
                    .or(Condition::lt(LOG_HEAD_LAST, first.to_string())),
            ),
        });
        heads.push((log, last));
    }
    ResolvedAppends { writes: out, heads }
}

/// The shard partitions `writes` appends to, each once, given each log's
/// shard count.
pub fn appended_shards(writes: &[TxWrite], shards: impl Fn(&str) -> u32) -> Vec<String> {
    let mut partitions: Vec<String> = Vec::new();
    for write in writes {
        if let Some((log, shard_key)) = write.appends_to() {
            let count = u64::from(shards(log).clamp(1, MAX_LOG_SHARDS));
            let partition = shard_partition(log, (shard_key % count) as u32);
            if !partitions.contains(&partition) {
                partitions.push(partition);
            }
        }
    }
    partitions
}

/// The logs `writes` appends to, each once.
pub fn appended_logs(writes: &[TxWrite]) -> Vec<&str> {
    let mut logs: Vec<&str> = Vec::new();
    for write in writes {
        if let Some((log, _)) = write.appends_to()
            && !logs.contains(&log)
        {
            logs.push(log);
        }
    }
    logs
}

/// Why one write of a cancelled transaction failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelReason {
    /// This write was fine; another one cancelled the transaction.
    None,
    ConditionFailed,
    /// A concurrent transaction touched the same item; retryable.
    Conflict,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The condition of a single-item write did not hold. `current` is the item as
    /// it was (absent when it did not exist).
    #[error("the condition of the write did not hold")]
    ConditionFailed { current: Option<Box<Item>> },
    /// A transaction was cancelled and wrote nothing; one reason per write, in order.
    #[error("the transaction was cancelled: {reasons:?}")]
    TransactionCanceled { reasons: Vec<CancelReason> },
    /// The request itself is wrong (reserved attribute, bad cursor, past one
    /// of DynamoDB's limits: item or transaction size, writes per
    /// transaction, key size, number range, ...): retrying it never helps.
    #[error("invalid store request: {0}")]
    Invalid(String),
    /// The backend failed or throttled; the operation may be retried.
    #[error("store unavailable: {0}")]
    Unavailable(String),
}

impl StoreError {
    pub fn is_condition_failure(&self) -> bool {
        match self {
            StoreError::ConditionFailed { .. } => true,
            StoreError::TransactionCanceled { reasons } => {
                reasons.contains(&CancelReason::ConditionFailed)
            }
            _ => false,
        }
    }
}

/// Checks a transaction's shape, the same in both adapters. Its size counts
/// what it writes (whole items put, values set); the size of an item an
/// update grows is the backend's to check (both adapters refuse one past
/// [`MAX_ITEM_BYTES`]).
pub fn validate_transaction(writes: &[TxWrite]) -> Result<(), StoreError> {
    // Page appends to one shard become one write, so before they are
    // resolved they count as one at least.
    let pages = writes
        .iter()
        .filter(|w| matches!(w, TxWrite::AppendPage { .. }))
        .count();
    let count = writes.len() - pages + pages.min(1);
    if writes.is_empty() || count > MAX_TRANSACTION_OPS {
        return Err(StoreError::Invalid(format!(
            "a transaction holds 1 to {MAX_TRANSACTION_OPS} writes, not {count}"
        )));
    }
    let mut keys = std::collections::HashSet::new();
    let mut bytes = 0;
    for write in writes {
        // An append's key is known at commit (adapters validate the resolved writes).
        match write {
            TxWrite::Append { item, .. } => {
                bytes += checked_item_size(item)?;
                continue;
            }
            TxWrite::AppendPage { items, .. } => {
                if items.is_empty() {
                    return Err(StoreError::Invalid(
                        "a page appends at least one item".into(),
                    ));
                }
                for item in items {
                    bytes += checked_item_size(item)?;
                }
                continue;
            }
            _ => {}
        }
        let key = write.key();
        validate_key(&key)?;
        bytes += key.pk.len() + key.sk.len();
        if !keys.insert(key) {
            return Err(StoreError::Invalid(
                "a transaction cannot touch one item twice".into(),
            ));
        }
        match write {
            TxWrite::Put { item, .. } => bytes += checked_item_size(item)?,
            TxWrite::Update { actions, .. } => {
                validate_update(actions)?;
                bytes += actions
                    .iter()
                    .map(|action| match action {
                        UpdateAction::Set(_, value) | UpdateAction::SetIfAbsent(_, value) => {
                            value.to_string().len()
                        }
                        UpdateAction::Remove(_) | UpdateAction::Add(..) => 0,
                    })
                    .sum::<usize>();
            }
            TxWrite::Delete { .. }
            | TxWrite::Check { .. }
            | TxWrite::Append { .. }
            | TxWrite::AppendPage { .. } => {}
        }
    }
    if bytes > MAX_TRANSACTION_BYTES {
        return Err(StoreError::Invalid(format!(
            "a transaction writes {bytes} bytes, more than the {MAX_TRANSACTION_BYTES}-byte limit"
        )));
    }
    Ok(())
}

/// How lasting a transaction's commit must be before it answers.
/// DynamoDB makes every write durable across zones and ignores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// On disk before the answer: it survives a power cut.
    #[default]
    Synced,
    /// Handed to the operating system before the answer: it survives the
    /// process dying (a crash, SIGKILL); a power cut or an operating-system
    /// crash can lose it until the next synced commit or checkpoint, which
    /// the embedded store makes moments later. For device messages, whose
    /// PUBACK waits on the commit (ARCHITECTURE.md, "Acknowledged means
    /// stored"): waiting on the disk for each would cap a device at a few
    /// hundred messages a second.
    Written,
}

/// The storage port. Reads never return expired items (see [`attr::TTL`]).
/// Single-item reads and writes are strongly consistent; index queries may lag
/// the table slightly on DynamoDB, so rules that need exactness read the table.
#[async_trait]
pub trait Store: Send + Sync + 'static {
    async fn get(&self, key: &Key) -> Result<Option<Item>, StoreError>;

    /// Items for the keys that exist, in no particular order.
    async fn batch_get(&self, keys: &[Key]) -> Result<Vec<Item>, StoreError>;

    /// Writes the whole item if the condition holds.
    async fn put(&self, item: Item, condition: Option<Condition>) -> Result<(), StoreError>;

    /// Applies the actions if the condition holds; returns the item afterwards.
    async fn update(
        &self,
        key: &Key,
        actions: Vec<UpdateAction>,
        condition: Option<Condition>,
    ) -> Result<Item, StoreError>;

    /// Deletes the item if the condition holds; returns what was deleted.
    async fn delete(
        &self,
        key: &Key,
        condition: Option<Condition>,
    ) -> Result<Option<Item>, StoreError>;

    async fn query(&self, query: Query) -> Result<Page, StoreError>;

    /// All writes or none.
    async fn transact(&self, writes: Vec<TxWrite>) -> Result<(), StoreError>;

    /// All writes or none, answered once as lasting as `durability` asks
    /// (a store without the distinction makes every commit [`Durability::Synced`]).
    async fn transact_with(
        &self,
        writes: Vec<TxWrite>,
        durability: Durability,
    ) -> Result<(), StoreError> {
        let _ = durability;
        self.transact(writes).await
    }
}

/// A shared store is a store (wrappers such as the counting store can hold one).
#[async_trait]
impl<T: Store + ?Sized> Store for std::sync::Arc<T> {
    async fn get(&self, key: &Key) -> Result<Option<Item>, StoreError> {
        (**self).get(key).await
    }
    async fn batch_get(&self, keys: &[Key]) -> Result<Vec<Item>, StoreError> {
        (**self).batch_get(keys).await
    }
    async fn put(&self, item: Item, condition: Option<Condition>) -> Result<(), StoreError> {
        (**self).put(item, condition).await
    }
    async fn update(
        &self,
        key: &Key,
        actions: Vec<UpdateAction>,
        condition: Option<Condition>,
    ) -> Result<Item, StoreError> {
        (**self).update(key, actions, condition).await
    }
    async fn delete(
        &self,
        key: &Key,
        condition: Option<Condition>,
    ) -> Result<Option<Item>, StoreError> {
        (**self).delete(key, condition).await
    }
    async fn query(&self, query: Query) -> Result<Page, StoreError> {
        (**self).query(query).await
    }
    async fn transact(&self, writes: Vec<TxWrite>) -> Result<(), StoreError> {
        (**self).transact(writes).await
    }
    async fn transact_with(
        &self,
        writes: Vec<TxWrite>,
        durability: Durability,
    ) -> Result<(), StoreError> {
        (**self).transact_with(writes, durability).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    struct Named {
        name: String,
    }

    fn named(name: &str) -> Item {
        Item::from_record(Key::new("P", "S"), &Named { name: name.into() }).unwrap()
    }

    fn name_of(item: &Item) -> String {
        item.to_record::<Named>().unwrap().name
    }

    #[test]
    fn a_shared_item_read_again_reads_the_same_record() {
        let kept = named("first");
        let handed_out = kept.clone();
        assert_eq!(name_of(&handed_out), "first");
        assert_eq!(name_of(&kept), "first");
        assert!(
            kept.0.decoded.get().is_some(),
            "the record is kept beside it"
        );
    }

    #[test]
    fn a_changed_copy_reads_its_change_and_the_kept_item_does_not() {
        let kept = named("first");
        let mut copy = kept.clone();
        assert_eq!(name_of(&copy), "first");
        copy.set("name", "second");
        assert_eq!(name_of(&copy), "second");
        assert_eq!(name_of(&kept), "first");
    }

    #[test]
    fn an_item_changed_in_place_forgets_the_record_read_while_it_was_shared() {
        let mut item = named("first");
        let other = item.clone();
        assert_eq!(name_of(&item), "first");
        drop(other);
        // Held once again: the change is made in place, not on a copy.
        item.set("name", "second");
        assert_eq!(name_of(&item), "second");
        item.remove("name");
        assert!(item.to_record::<Named>().is_err());
    }

    #[test]
    fn an_item_held_once_keeps_nothing() {
        let item = named("first");
        assert_eq!(name_of(&item), "first");
        assert!(item.0.decoded.get().is_none());
    }
}
