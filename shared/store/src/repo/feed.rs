//! The telemetry feed: how a telemetry message reaches the sequencer that
//! raises its `device.telemetry` event, and how far the sequencer got.
//!
//! Ingest writes a telemetry message's points and one feed item. The first
//! point (first metric by name) is the message's guard: put on the condition
//! that it does not exist (a redelivered message stops there), it records
//! the feed shard the message went to. The feed item then carries what the
//! event needs ([`FedTelemetry`]) under `FEED#{tenant}#{shard}`, the shard
//! being the log shard of the message's home: a log shard's telemetry is
//! one partition, so on DynamoDB it arrives on one stream shard whatever
//! the table's size, and the sequencer writes a shard's page and head from
//! one place. A redelivered message writes its feed item again in the shard
//! its guard names (the first delivery may have stopped between the two
//! writes): the same item again is no new item, so no second event.
//!
//! The store hands every new item marked for the feed ([`attr::FEED`]) to
//! the sequencer: SQLite through its `feed` table, DynamoDB through the
//! table's stream. A feed comes in shards (a stream's shards; SQLite's feed
//! is one), each in order, each record with a sequence number. The
//! sequencer keeps, per feed shard and tenant, the last sequence number it
//! turned into events ([`FeedPosition`]), advanced in the same transaction
//! as those events, so a record delivered again, in any grouping, raises
//! nothing twice.
//!
//! | item | pk | sk |
//! |---|---|---|
//! | telemetry feed item | `FEED#{tenantId}#{logShard}` | `{messageId}` |
//! | feed position | `FEEDPOS#{feedShard}` | `TENANT#{tenantId}` |

use std::collections::BTreeMap;

use alyt_domain::ids::{DeviceId, PropertyId, TenantId};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::ts;
use crate::{Condition, Item, Key, Store, StoreError, TxWrite, UpdateAction, attr};

/// The name of the telemetry feed (the value of [`attr::FEED`]).
pub const TELEMETRY_FEED: &str = "telemetry";
/// How long a feed item is kept: past the longest a message can come again
/// (SQS keeps it 4 days, the ingest dead-letter queue 14), so that writing
/// it again for a redelivery never makes a new one.
pub const FEED_LIFE: time::Duration = time::Duration::days(15);
/// The attribute of a message's guard point naming its feed shard.
const FEED_SHARD: &str = "feedShard";
/// How long a feed position is kept after its last move: past the life of
/// a DynamoDB stream's records (24 hours), so a record can never be
/// delivered once its position is gone.
pub const POSITION_LIFE: time::Duration = time::Duration::hours(48);
/// The attribute of a feed position holding the last sequence number.
const LAST: &str = "last";
/// Sequence numbers are compared as strings of this many digits.
const SEQUENCE_DIGITS: usize = 40;

/// A telemetry message as its feed item carries it to the sequencer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FedTelemetry {
    pub tenant_id: TenantId,
    pub property_id: Option<PropertyId>,
    pub device_id: DeviceId,
    pub metrics: BTreeMap<String, f64>,
    /// When the message was received (also the point's `at`).
    #[serde(with = "ts::rfc3339")]
    pub at: OffsetDateTime,
}

/// `point` (the message's first point) as its guard: it names the feed
/// shard the message's feed item is in.
pub fn guard_point(point: Item, feed_shard: u32) -> Item {
    point.with(FEED_SHARD, i64::from(feed_shard))
}

/// The feed shard a guard point names (`None`: a point that is no guard,
/// or one written before feed items).
pub fn guarded_shard(point: &Item) -> Option<u32> {
    point
        .get_i64(FEED_SHARD)
        .and_then(|n| u32::try_from(n).ok())
}

/// The feed item of the message `message_id` in `feed_shard` of its tenant.
pub fn feed_item(
    feed_shard: u32,
    message_id: &str,
    message: &FedTelemetry,
    now: OffsetDateTime,
) -> Result<Item, StoreError> {
    let key = Key::new(
        format!("FEED#{}#{feed_shard}", message.tenant_id),
        message_id,
    );
    Ok(Item::from_record(key, message)?
        .with(attr::FEED, TELEMETRY_FEED)
        .with(attr::TTL, (now + FEED_LIFE).unix_timestamp()))
}

/// The message a fed item carries, when it is a telemetry feed item.
pub fn fed_telemetry(item: &Item) -> Option<Result<FedTelemetry, StoreError>> {
    (item.get_str(attr::FEED) == Some(TELEMETRY_FEED)).then(|| item.to_record())
}

/// A sequence number made comparable as a string: DynamoDB's are decimal
/// strings of varying length, SQLite's integers.
pub fn sequence(number: &str) -> String {
    format!("{number:0>SEQUENCE_DIGITS$}")
}

fn position_key(feed_shard: &str, tenant: TenantId) -> Key {
    Key::new(format!("FEEDPOS#{feed_shard}"), format!("TENANT#{tenant}"))
}

/// A feed read by polling, one shard in order (the embedded store's; the
/// hosted platform's stream is read by Lambda instead, which hands its
/// records over).
#[async_trait::async_trait]
pub trait FeedReader: Send + Sync {
    /// Up to `limit` records after sequence number `after`, in order.
    async fn feed_after(&self, after: u64, limit: u32) -> Result<Vec<(u64, Item)>, StoreError>;

    /// Forgets the records up to and including `through`.
    async fn trim_feed(&self, through: u64) -> Result<(), StoreError>;
}

pub struct FeedPosition<'a>(pub &'a dyn Store);

impl FeedPosition<'_> {
    /// The last sequence number of `feed_shard` turned into `tenant`'s
    /// events (as [`sequence`] writes it).
    pub async fn last(
        &self,
        feed_shard: &str,
        tenant: TenantId,
    ) -> Result<Option<String>, StoreError> {
        Ok(self
            .0
            .get(&position_key(feed_shard, tenant))
            .await?
            .and_then(|item| item.get_str(LAST).map(str::to_owned)))
    }
}

/// The write moving `tenant`'s position in `feed_shard` to `last`, on the
/// condition that it is still before `first` (the first record the
/// transaction turns into events): a transaction that carries it fails
/// when any of its records was turned into events before.
pub fn advance(
    feed_shard: &str,
    tenant: TenantId,
    first: &str,
    last: &str,
    now: OffsetDateTime,
) -> TxWrite {
    TxWrite::Update {
        key: position_key(feed_shard, tenant),
        actions: vec![
            UpdateAction::Set(LAST.into(), last.into()),
            UpdateAction::Set(
                attr::TTL.into(),
                (now + POSITION_LIFE).unix_timestamp().into(),
            ),
        ],
        condition: Some(Condition::not_exists(LAST).or(Condition::lt(LAST, first))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequence_numbers_compare_as_numbers() {
        assert!(sequence("99") < sequence("100"));
        assert!(sequence("4000000000000000000123") > sequence("999999999999"));
        assert_eq!(sequence("7").len(), SEQUENCE_DIGITS);
    }

    #[test]
    fn a_feed_item_carries_its_message_in_its_tenants_shard_and_a_guard_names_it() {
        let device = DeviceId::new();
        let at = time::macros::datetime!(2026-06-01 12:00 UTC);
        let message = FedTelemetry {
            tenant_id: TenantId::new(),
            property_id: None,
            device_id: device,
            metrics: BTreeMap::from([("t".to_owned(), 1.5)]),
            at,
        };
        let fed = feed_item(3, "m-1", &message, at).unwrap();
        assert_eq!(
            fed.key(),
            Key::new(format!("FEED#{}#3", message.tenant_id), "m-1")
        );
        assert_eq!(fed.expires_at(), Some((at + FEED_LIFE).unix_timestamp()));
        assert_eq!(fed_telemetry(&fed).unwrap().unwrap(), message);
        let point = super::super::history::telemetry_item(device, "t", Some(1.5), at, "m-1");
        assert!(fed_telemetry(&point).is_none());
        assert_eq!(guarded_shard(&point), None);
        let guard = guard_point(point.clone(), 3);
        assert_eq!(guarded_shard(&guard), Some(3));
        assert_eq!(guard.get("value"), point.get("value"));
    }
}
