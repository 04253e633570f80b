//! The usage meter: quota counters counted in memory and written in batches,
//! so that a metered use (a keyed API read, a device message) costs no
//! synchronous store write.
//!
//! Each counter ([`Counter`]) holds, in this process:
//! - `known`: the counter's value in the store when this process last read or
//!   wrote it (other processes' flushed uses included);
//! - `pending`: uses counted here and not yet written;
//! - `in_flight`: uses being written by a flush now.
//!
//! A bounded use is admitted when `known + pending + in_flight + 1` stays
//! within its limit, decided under one lock, so within one process the limit
//! is exact: concurrent uses never pass it. A counter's first use in a
//! process reads its value (one batch get; a read, not a write), and so does
//! a use after the value went unrefreshed for a while (a busy process
//! refreshes it with every flush).
//!
//! [`UsageMeter::flush`] writes every counter's pending uses with one `ADD`
//! update each (so at most one write per counter per flush) and learns the
//! new value, which brings in what other processes flushed. The runtimes
//! flush every [`FLUSH_EVERY`] and on a clean stop.
//!
//! What this costs in exactness, written down for the quota docs:
//! - Across processes (Lambda instances), a limit can be passed by what the
//!   other processes admitted and had not yet flushed, plus what they flushed
//!   since this one last learned the value: about one flush interval of the
//!   developer's traffic on the other instances (two for a process that was
//!   quiet, see `RELEARN_AFTER`).
//! - A crash (or a Lambda instance reaped without its shutdown signal) loses
//!   the uses counted since the last flush: at most one flush interval of
//!   that process's traffic goes uncounted (never over-counted). A write that
//!   fails puts its uses back to pending for the next flush.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use alyt_domain::ids::{DeveloperId, KeyId};
use time::OffsetDateTime;

use crate::repo::developers::Developers;
use crate::repo::usage::{Counter, Usage};
use crate::{Store, StoreError};

/// How often the runtimes flush the meter.
pub const FLUSH_EVERY: Duration = Duration::from_secs(1);
/// A counter with nothing pending and no use for this long is dropped from
/// memory (its next use reads it again).
const IDLE_AFTER: Duration = Duration::from_secs(120);
/// A bounded counter's stored value older than this is read again at its
/// next use (a busy process learns it from every flush instead), so a
/// process that was quiet for a while sees what the others counted.
const RELEARN_AFTER: Duration = Duration::from_secs(2);

/// One use of one counter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Use {
    pub counter: Counter,
    /// The most the counter may reach; `None` counts without a limit.
    pub limit: Option<u64>,
    /// The counter's `ttl` (Unix seconds), set when it is written.
    pub expires_at: i64,
}

#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    /// The store's value when last read or written; `None` until the first
    /// read (counters without a limit are never read).
    known: Option<u64>,
    /// When `known` was learned.
    known_at: Option<Instant>,
    pending: u64,
    in_flight: u64,
    expires_at: i64,
    last_use: Option<Instant>,
}

impl Tally {
    fn count(&self) -> u64 {
        self.known.unwrap_or(0) + self.pending + self.in_flight
    }
}

/// What one flush did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Flushed {
    /// Counters written.
    pub counters: usize,
    /// Uses written.
    pub uses: u64,
    /// Counters whose write failed (their uses wait for the next flush).
    pub failed: usize,
}

/// See the module docs. Cheap to clone (one shared state).
#[derive(Clone)]
pub struct UsageMeter {
    store: Arc<dyn Store>,
    tallies: Arc<Mutex<HashMap<Counter, Tally>>>,
    /// Keys used since the last flush, with their latest use (written to
    /// the key's `lastUsedAt` by the flush).
    key_uses: Arc<Mutex<HashMap<(DeveloperId, KeyId), OffsetDateTime>>>,
    /// One flush at a time (the ticker and a shutdown may race).
    flushing: Arc<tokio::sync::Mutex<()>>,
}

impl UsageMeter {
    pub fn new(store: Arc<dyn Store>) -> Self {
        Self {
            store,
            tallies: Arc::default(),
            key_uses: Arc::default(),
            flushing: Arc::default(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<Counter, Tally>> {
        self.tallies.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Counts one use of every counter in `uses` when `admit` agrees, all or
    /// none. `admit` gets each counter's count as it would be after this use
    /// (in `uses` order) and decides under the meter's lock; what it returns
    /// is handed back. Nothing is written to the store.
    pub async fn count_if<T>(
        &self,
        uses: &[Use],
        admit: impl FnOnce(&[u64]) -> Result<T, T>,
    ) -> Result<Result<T, T>, StoreError> {
        self.learn_limited(uses).await?;
        let now = Instant::now();
        let mut tallies = self.lock();
        let after: Vec<u64> = uses
            .iter()
            .map(|u| tallies.get(&u.counter).map_or(0, Tally::count) + 1)
            .collect();
        let decision = admit(&after);
        if decision.is_ok() {
            for u in uses {
                let tally = tallies.entry(u.counter.clone()).or_default();
                tally.pending += 1;
                tally.expires_at = tally.expires_at.max(u.expires_at);
                tally.last_use = Some(now);
            }
        }
        Ok(decision)
    }

    /// Counts one use of `counter` when it stays within `limit`; `false`
    /// when it would pass it (nothing is counted).
    pub async fn admit(
        &self,
        counter: Counter,
        limit: u64,
        expires_at: i64,
    ) -> Result<bool, StoreError> {
        let uses = [Use {
            counter,
            limit: Some(limit),
            expires_at,
        }];
        let decision = self
            .count_if(
                &uses,
                |after| if after[0] <= limit { Ok(()) } else { Err(()) },
            )
            .await?;
        Ok(decision.is_ok())
    }

    /// The counter's value as this process sees it: the store's, read when
    /// this process has not read it yet, plus what is not written yet.
    pub async fn current(&self, counter: &Counter) -> Result<u64, StoreError> {
        let uses = [Use {
            counter: counter.clone(),
            limit: Some(u64::MAX),
            expires_at: 0,
        }];
        self.learn_limited(&uses).await?;
        Ok(self.lock().get(counter).map_or(0, Tally::count))
    }

    /// Notes that a key was used at `at`; the next flush writes it as the
    /// key's `lastUsedAt` (one write per key per flush at most).
    pub fn note_key_use(&self, developer: DeveloperId, key: KeyId, at: OffsetDateTime) {
        let mut uses = self.key_uses.lock().unwrap_or_else(|e| e.into_inner());
        let latest = uses.entry((developer, key)).or_insert(at);
        *latest = (*latest).max(at);
    }

    /// The key's last use noted here and not written yet.
    pub fn unwritten_key_use(&self, developer: DeveloperId, key: KeyId) -> Option<OffsetDateTime> {
        self.key_uses
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&(developer, key))
            .copied()
    }

    /// Uses of `counter` counted here and not yet in the store (added to a
    /// value read from the store, it gives the count as of now).
    pub fn unwritten(&self, counter: &Counter) -> u64 {
        self.lock()
            .get(counter)
            .map_or(0, |t| t.pending + t.in_flight)
    }

    /// Reads the store's value of each bounded counter this process has not
    /// read yet (one batch get, none when all are known).
    async fn learn_limited(&self, uses: &[Use]) -> Result<(), StoreError> {
        let unknown: Vec<Counter> = {
            let tallies = self.lock();
            uses.iter()
                .filter(|u| u.limit.is_some())
                .filter(|u| {
                    tallies
                        .get(&u.counter)
                        .is_none_or(|t| t.known_at.is_none_or(|at| at.elapsed() >= RELEARN_AFTER))
                })
                .map(|u| u.counter.clone())
                .collect()
        };
        if unknown.is_empty() {
            return Ok(());
        }
        let read_at = Instant::now();
        let counts = Usage(self.store.as_ref()).counts(&unknown).await?;
        let mut tallies = self.lock();
        for (counter, stored) in unknown.into_iter().zip(counts) {
            let tally = tallies.entry(counter).or_default();
            // A flush that finished meanwhile taught a value at least as new.
            if tally.known_at.is_none_or(|at| at < read_at) {
                tally.known = Some(stored);
                tally.known_at = Some(read_at);
            }
        }
        Ok(())
    }

    /// Writes every counter's pending uses (one `ADD` update per counter,
    /// concurrently) and learns the stored values back; drops idle counters.
    pub async fn flush(&self) -> Flushed {
        let _one_at_a_time = self.flushing.lock().await;
        let batch: Vec<(Counter, u64, i64)> = {
            let mut tallies = self.lock();
            tallies
                .iter_mut()
                .filter(|(_, t)| t.pending > 0)
                .map(|(counter, t)| {
                    let n = std::mem::take(&mut t.pending);
                    t.in_flight += n;
                    (counter.clone(), n, t.expires_at)
                })
                .collect()
        };
        // Copied, not taken: a use stays visible (`unwritten_key_use`) until
        // its write is done.
        let key_uses: Vec<_> = self
            .key_uses
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(|(k, at)| (*k, *at))
            .collect();
        let developers = Developers(self.store.as_ref());
        let touched = futures_util::future::join_all(
            key_uses
                .iter()
                .map(|((developer, key), at)| developers.touch_key_at(*developer, *key, *at)),
        );
        let usage = Usage(self.store.as_ref());
        let results = futures_util::future::join_all(batch.iter().map(|(counter, n, expires)| {
            let by = i64::try_from(*n).unwrap_or(i64::MAX);
            usage.add(counter, by, Some(*expires))
        }))
        .await;
        let touched = touched.await;
        {
            let mut noted = self.key_uses.lock().unwrap_or_else(|e| e.into_inner());
            for ((id, at), result) in key_uses.iter().zip(touched) {
                // Best effort: a key's last use is informational, and one
                // that failed is not tried again.
                if let Err(e) = result {
                    tracing::warn!(error = %e, key_id = %id.1, "could not record a key's last use");
                }
                // A newer use noted meanwhile waits for the next flush.
                if noted.get(id) == Some(at) {
                    noted.remove(id);
                }
            }
        }
        let mut flushed = Flushed::default();
        let mut tallies = self.lock();
        for ((counter, n, _), result) in batch.into_iter().zip(results) {
            let Some(tally) = tallies.get_mut(&counter) else {
                continue;
            };
            tally.in_flight -= n;
            match result {
                Ok(stored) => {
                    tally.known = Some(u64::try_from(stored).unwrap_or(0));
                    tally.known_at = Some(Instant::now());
                    flushed.counters += 1;
                    flushed.uses += n;
                }
                Err(e) => {
                    tally.pending += n;
                    flushed.failed += 1;
                    tracing::warn!(error = %e, counter = ?counter.key(), uses = n, "could not write usage; kept for the next flush");
                }
            }
        }
        tallies.retain(|_, t| {
            t.pending > 0
                || t.in_flight > 0
                || t.last_use.is_some_and(|at| at.elapsed() < IDLE_AFTER)
        });
        flushed
    }

    /// Counters held in memory (for tests and diagnostics).
    pub fn held(&self) -> usize {
        self.lock().len()
    }
}
