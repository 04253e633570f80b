//! The telemetry sequencer: turns the telemetry feed (every telemetry
//! message's feed item, see `alyt_store::repo::feed`) into one
//! `device.telemetry` event per message.
//!
//! Ingest stores a telemetry message as its points and a feed item; the
//! event comes here, after they are stored, from the store's feed: the SQLite
//! store's feed table locally ([`Sequencer::drain`]), the DynamoDB table's
//! stream hosted (the sequencer function hands each batch to
//! [`Sequencer::apply`]). Either way the code below is the same.
//!
//! Per tenant, the records of a batch become one transaction: the events as
//! pages of the tenant's log (one per shard, whatever number of homes), and
//! the tenant's position in the feed shard, moved on the condition that
//! none of the records was sequenced before. So a record delivered again,
//! alone or in another batch, raises nothing twice; a batch that fails
//! half-way is sent again and raises what it had not.
//!
//! Events are in the feed's order per device. A home's telemetry events are
//! in its log shard in commit order like every other event of the home, so
//! a device's `device.online` (raised by ingest in the message's own
//! transaction) comes before the telemetry event of the message that
//! brought it online.

use std::collections::BTreeMap;
use std::sync::Arc;

use alyt_domain::Clock;
use alyt_domain::device::DeviceTelemetryData;
use alyt_domain::ids::{PropertyId, TenantId};
use alyt_events::{EventLog, PlatformEvent};
use alyt_store::repo::events::{Events, shard_of};
use alyt_store::repo::feed::{FedTelemetry, FeedPosition, FeedReader, advance, fed_telemetry};
use alyt_store::{CancelReason, Durability, Item, Store, StoreError, TxWrite};

/// The most events of one transaction: a page of this many telemetry events
/// deflates to a few tens of KB, well within an item's 400 KB.
const MAX_EVENTS_PER_COMMIT: usize = 1000;
/// The most log shards of one transaction: a page and a head each, and the
/// feed position, within DynamoDB's 100 writes.
const MAX_SHARDS_PER_COMMIT: usize = 48;
/// Tries of one transaction that conflicts with other writers of the log.
const ATTEMPTS: u32 = 8;
/// Records read from a polled feed at once.
const DRAIN_BATCH: u32 = 500;
/// The feed shard name of the embedded store's feed (it has one).
pub const LOCAL_FEED_SHARD: &str = "local";

/// One record of a feed shard: its sequence number and the new item.
#[derive(Debug, Clone)]
pub struct FeedRecord {
    /// As the feed numbers it (decimal digits).
    pub sequence: String,
    pub item: Item,
}

/// What one batch came to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sequenced {
    /// Events raised.
    pub raised: usize,
    /// Records sequenced before (delivered again): nothing raised.
    pub repeated: usize,
    /// Records that are no telemetry message, or one that cannot be read:
    /// skipped, and logged.
    pub skipped: usize,
}

impl std::ops::AddAssign for Sequenced {
    fn add_assign(&mut self, other: Self) {
        self.raised += other.raised;
        self.repeated += other.repeated;
        self.skipped += other.skipped;
    }
}

/// One telemetry message to sequence.
struct Fed {
    sequence: String,
    message: FedTelemetry,
}

#[derive(Clone)]
pub struct Sequencer {
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    events: EventLog,
}

impl Sequencer {
    pub fn new(store: Arc<dyn Store>, clock: Arc<dyn Clock>, events: EventLog) -> Self {
        Self {
            store,
            clock,
            events,
        }
    }

    /// Raises the events of `records`, one batch of feed shard
    /// `feed_shard`, in that shard's order. An error is worth sending the
    /// whole batch again: what was raised before is not raised again.
    pub async fn apply(
        &self,
        feed_shard: &str,
        records: &[FeedRecord],
    ) -> Result<Sequenced, StoreError> {
        let mut done = Sequenced::default();
        let mut tenants: BTreeMap<TenantId, Vec<Fed>> = BTreeMap::new();
        for record in records {
            match fed_telemetry(&record.item) {
                Some(Ok(message)) => tenants.entry(message.tenant_id).or_default().push(Fed {
                    sequence: alyt_store::repo::feed::sequence(&record.sequence),
                    message,
                }),
                Some(Err(e)) => {
                    tracing::warn!(key = ?record.item.key(), error = %e, "a telemetry record cannot be read: skipped");
                    done.skipped += 1;
                }
                None => done.skipped += 1,
            }
        }
        for (tenant, fed) in tenants {
            // Read afresh: a writer's count may lag a grow, never lead it,
            // so no commit below can reach more shards than counted here.
            let shards = Events(self.store.as_ref()).shards(tenant).await?;
            for commit in commits(fed, shards) {
                done += self.commit_halving(feed_shard, tenant, commit).await?;
            }
        }
        Ok(done)
    }

    /// Sequences everything `feed` holds, forgetting each batch once it is
    /// raised; the number raised.
    pub async fn drain(&self, feed: &dyn FeedReader) -> Result<Sequenced, StoreError> {
        let mut done = Sequenced::default();
        loop {
            let read = feed.feed_after(0, DRAIN_BATCH).await?;
            let Some((last, _)) = read.last() else {
                return Ok(done);
            };
            let last = *last;
            let records: Vec<FeedRecord> = read
                .into_iter()
                .map(|(sequence, item)| FeedRecord {
                    sequence: sequence.to_string(),
                    item,
                })
                .collect();
            done += self.apply(LOCAL_FEED_SHARD, &records).await?;
            feed.trim_feed(last).await?;
        }
    }

    /// [`Self::commit`], in halves, each in turn, where the store finds a
    /// page too large for an item (events with many metrics that barely
    /// deflate): one event always fits.
    async fn commit_halving(
        &self,
        feed_shard: &str,
        tenant: TenantId,
        fed: Vec<Fed>,
    ) -> Result<Sequenced, StoreError> {
        let mut done = Sequenced::default();
        let mut pending = vec![fed];
        while let Some(mut chunk) = pending.pop() {
            let count = chunk.len();
            match self.commit(feed_shard, tenant, &mut chunk).await {
                Ok(committed) => done += committed,
                Err(StoreError::Invalid(why)) if count > 1 => {
                    tracing::debug!(%why, count, "a page too large: halved");
                    let second = chunk.split_off(chunk.len() / 2);
                    pending.push(second);
                    pending.push(chunk);
                }
                Err(e) => return Err(e),
            }
        }
        Ok(done)
    }

    /// One transaction: `fed`'s events and the tenant's feed position,
    /// without the records sequenced before (taken out of `fed`).
    async fn commit(
        &self,
        feed_shard: &str,
        tenant: TenantId,
        fed: &mut Vec<Fed>,
    ) -> Result<Sequenced, StoreError> {
        let mut done = Sequenced::default();
        for attempt in 0..ATTEMPTS {
            let (Some(first), Some(last)) = (fed.first(), fed.last()) else {
                return Ok(done);
            };
            let mut writes = vec![advance(
                feed_shard,
                tenant,
                &first.sequence,
                &last.sequence,
                self.clock.now(),
            )];
            writes.extend(self.pages(tenant, fed)?);
            // Written, not synced, as ingest's commits: what it loses to a
            // power cut is its feed records' trim too (they are later in the
            // log), so it is sequenced again.
            match self.store.transact_with(writes, Durability::Written).await {
                Ok(()) => {
                    done.raised += fed.len();
                    return Ok(done);
                }
                // Written 0 is the position: some of these were sequenced.
                Err(StoreError::TransactionCanceled { reasons })
                    if reasons.first() == Some(&CancelReason::ConditionFailed) =>
                {
                    let position = FeedPosition(self.store.as_ref());
                    let Some(sequenced) = position.last(feed_shard, tenant).await? else {
                        continue;
                    };
                    let before = fed.len();
                    fed.retain(|f| f.sequence > sequenced);
                    done.repeated += before - fed.len();
                }
                Err(StoreError::TransactionCanceled { reasons })
                    if reasons.contains(&CancelReason::Conflict) =>
                {
                    alyt_store::repo::conflict_pause(attempt).await;
                }
                Err(e) => return Err(e),
            }
        }
        Err(StoreError::Unavailable(
            "the event log kept moving under the telemetry sequencer".into(),
        ))
    }

    /// A page append per home, its events in feed order.
    fn pages(&self, tenant: TenantId, fed: &[Fed]) -> Result<Vec<TxWrite>, StoreError> {
        let mut homes: Vec<(Option<PropertyId>, Vec<PlatformEvent>)> = Vec::new();
        for f in fed {
            let event = PlatformEvent::DeviceTelemetry(DeviceTelemetryData {
                device_id: f.message.device_id,
                metrics: f.message.metrics.clone(),
                at: f.message.at,
            });
            match homes.iter_mut().find(|(h, _)| *h == f.message.property_id) {
                Some((_, events)) => events.push(event),
                None => homes.push((f.message.property_id, vec![event])),
            }
        }
        homes
            .into_iter()
            .map(|(home, events)| self.events.page_write(tenant, home, events))
            .collect()
    }
}

/// A tenant's records split, in order, into transactions of at most
/// [`MAX_EVENTS_PER_COMMIT`] events and [`MAX_SHARDS_PER_COMMIT`] of its
/// log's `shards` (a page too large for an item is halved at commit).
fn commits(fed: Vec<Fed>, shards: u32) -> Vec<Vec<Fed>> {
    let mut out: Vec<Vec<Fed>> = Vec::new();
    let mut reached: Vec<u32> = Vec::new();
    for f in fed {
        let shard = shard_of(f.message.property_id, shards);
        let full = out.last().is_none_or(|c| {
            c.len() >= MAX_EVENTS_PER_COMMIT
                || (!reached.contains(&shard) && reached.len() >= MAX_SHARDS_PER_COMMIT)
        });
        if full {
            out.push(Vec::new());
            reached.clear();
        }
        if !reached.contains(&shard) {
            reached.push(shard);
        }
        if let Some(current) = out.last_mut() {
            current.push(f);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use alyt_domain::ManualClock;
    use alyt_domain::ids::DeviceId;
    use alyt_store::repo::feed::feed_item;
    use alyt_store::sqlite::SqliteStore;

    /// A thousand messages of sixty-four metrics with values that barely
    /// deflate: their page would pass an item's 400 KB, so the sequencer
    /// halves the batch until each page fits, and raises every event once.
    #[tokio::test]
    async fn a_page_too_large_for_an_item_is_halved_until_it_fits() {
        let clock = Arc::new(ManualClock::new(
            time::macros::datetime!(2026-06-01 12:00 UTC),
        ));
        let store = Arc::new(SqliteStore::in_memory(clock.clone()).unwrap());
        let events = EventLog::new(store.clone(), clock.clone());
        let sequencer = Sequencer::new(store.clone(), clock.clone(), events.clone());
        let (tenant, home) = (TenantId::new(), Some(PropertyId::new()));
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut noise = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % 1_000_000_007) as f64 / 7.0
        };
        let at = clock.now();
        let records: Vec<FeedRecord> = (0..1000)
            .map(|n| {
                let device = DeviceId::new();
                let metrics: BTreeMap<String, f64> =
                    (0..64).map(|m| (format!("m{m:02}"), noise())).collect();
                let message = FedTelemetry {
                    tenant_id: tenant,
                    property_id: home,
                    device_id: device,
                    metrics,
                    at,
                };
                FeedRecord {
                    sequence: (n + 1).to_string(),
                    item: feed_item(0, &format!("msg-{n}"), &message, at).unwrap(),
                }
            })
            .collect();
        let done = sequencer.apply("shard", &records).await.unwrap();
        assert_eq!(done.raised, 1000);
        let again = sequencer.apply("shard", &records).await.unwrap();
        assert_eq!((again.raised, again.repeated), (0, 1000));
        clock.advance(time::Duration::seconds(1));
        let mut read = 0;
        let mut after = None;
        loop {
            let page = events
                .read_after(tenant, after.as_ref(), None, 1000)
                .await
                .unwrap();
            if page.events.is_empty() {
                break;
            }
            read += page.events.len();
            after = page.position;
        }
        assert_eq!(read, 1000, "every event once");
        let query = alyt_store::Query::partition(format!("EVENTS#{tenant}")).limit(100);
        let pages = store.query(query).await.unwrap().items.len();
        assert!(pages > 1, "halved into {pages} pages");
    }

    fn fed(n: usize, home: Option<PropertyId>, metrics: usize) -> Fed {
        Fed {
            sequence: alyt_store::repo::feed::sequence(&n.to_string()),
            message: FedTelemetry {
                tenant_id: TenantId::new(),
                property_id: home,
                device_id: DeviceId::new(),
                metrics: (0..metrics)
                    .map(|m| (format!("metric-{m:02}"), m as f64))
                    .collect(),
                at: time::OffsetDateTime::UNIX_EPOCH,
            },
        }
    }

    fn sizes(split: &[Vec<Fed>]) -> Vec<usize> {
        split.iter().map(Vec::len).collect()
    }

    #[test]
    fn a_batch_is_split_in_order_by_events_and_shards() {
        let home = Some(PropertyId::new());
        let many: Vec<Fed> = (0..2_500).map(|n| fed(n, home, 1)).collect();
        let split = commits(many, 1);
        assert_eq!(sizes(&split), [1000, 1000, 500]);
        let order: Vec<&str> = split
            .iter()
            .flatten()
            .map(|f| f.sequence.as_str())
            .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "in feed order");

        // A home a shard: at most 48 shards a transaction.
        let spread: Vec<Fed> = (0..100)
            .map(|n| fed(n, Some(PropertyId::new()), 1))
            .collect();
        let split = commits(spread, 128);
        for commit in &split {
            let mut shards: Vec<u32> = commit
                .iter()
                .map(|f| shard_of(f.message.property_id, 128))
                .collect();
            shards.sort_unstable();
            shards.dedup();
            assert!(shards.len() <= MAX_SHARDS_PER_COMMIT);
        }
        assert_eq!(split.iter().map(Vec::len).sum::<usize>(), 100);
    }
}
