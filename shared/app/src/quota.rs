//! Counting the requests a developer's keys make against the developer's
//! `REQUESTS` quota (every request authenticated by a key, bearer secret or
//! app token; sessions are not counted): the developer's counter of the
//! current window, the key's counter of the day and, with a
//! `burstPerMinute`, the developer's counter of the current minute each count
//! one use in the process's usage meter ([`alyt_store::meter`]), all or none:
//! a request that would pass the ceiling or the burst counts nothing and is
//! refused, naming the quota and when it resets, so the counts are of served
//! requests.
//!
//! No store call on the request path: the meter reads a counter the first
//! time this process meets it and writes each at most once per flush. Within
//! one process the ceiling and the burst are exact; across Lambda instances
//! they can be passed by about one flush interval of the other instances'
//! requests. The developer's effective quota comes from an in-process cache
//! (at most [`CACHE_TTL`] old; a miss is one batch get); a staff change is
//! seen at once by the process that made it and within a minute by every
//! other.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};

use alyt_domain::ids::DeveloperId;
use alyt_domain::quota::{Decision, QuotaKind, QuotaWindow, decide, unix_minute};
use alyt_store::StoreError;
use alyt_store::meter::Use;
use alyt_store::repo::developers::KeyRecord;
use alyt_store::repo::usage::{Counter, EffectiveQuotas, Quotas};
use time::OffsetDateTime;

use crate::{App, Error};

/// How old a cached effective quota may be.
pub const CACHE_TTL: Duration = Duration::from_secs(60);
/// Counters outlive their window by a day (for support), then expire.
const RETAIN_SECONDS: i64 = 86_400;
/// Burst counters outlive their minute by two.
const MINUTE_RETAIN_SECONDS: i64 = 120;
/// Cached entries kept before stale ones are swept out.
const CACHE_SWEEP_AT: usize = 10_000;

// ---------------------------------------------------------------------------
// The in-process quota cache

type CacheKey = (usize, DeveloperId);

static CACHE: LazyLock<Mutex<HashMap<CacheKey, (Instant, EffectiveQuotas)>>> =
    LazyLock::new(Default::default);

/// Entries are per store, so two platforms in one process (tests) never share one.
fn cache_key(app: &App, developer: DeveloperId) -> CacheKey {
    (Arc::as_ptr(&app.store) as *const () as usize, developer)
}

/// The developer's effective quotas, from the cache when fresh.
pub async fn effective_cached(
    app: &App,
    developer: DeveloperId,
) -> Result<EffectiveQuotas, StoreError> {
    let key = cache_key(app, developer);
    {
        let cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((at, quotas)) = cache.get(&key)
            && at.elapsed() < CACHE_TTL
        {
            return Ok(*quotas);
        }
    }
    let quotas = Quotas(&*app.store).effective(developer).await?;
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if cache.len() >= CACHE_SWEEP_AT {
        cache.retain(|_, (at, _)| at.elapsed() < CACHE_TTL);
    }
    cache.insert(key, (Instant::now(), quotas));
    Ok(quotas)
}

/// Drops the developer's cached quotas (after staff changed one).
pub fn forget_cached(app: &App, developer: DeveloperId) {
    CACHE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&cache_key(app, developer));
}

// ---------------------------------------------------------------------------
// Counting

fn expiry(window: QuotaWindow, at: OffsetDateTime) -> i64 {
    window.end(at).unix_timestamp() + RETAIN_SECONDS
}

/// Counts one request of `key` and refuses it (429 `quota-exceeded`) when the
/// developer's `REQUESTS` ceiling or burst is spent. See the module docs.
pub async fn count_key_request(app: &App, key: &KeyRecord) -> Result<(), Error> {
    let now = app.clock.now();
    let developer = key.developer_id;
    let value = effective_cached(app, developer)
        .await?
        .get(QuotaKind::Requests)
        .value;
    let mut uses = vec![
        Use {
            counter: Counter::Window {
                developer,
                kind: QuotaKind::Requests,
                window_key: value.window.key(now),
            },
            limit: Some(value.ceiling),
            expires_at: expiry(value.window, now),
        },
        Use {
            counter: Counter::KeyDay {
                key: key.id,
                day: QuotaWindow::Day.key(now),
            },
            limit: None,
            expires_at: expiry(QuotaWindow::Day, now),
        },
    ];
    if let Some(limit) = value.burst_per_minute {
        uses.push(Use {
            counter: Counter::Burst {
                developer,
                minute: unix_minute(now),
            },
            limit: Some(u64::from(limit)),
            expires_at: now.unix_timestamp() + MINUTE_RETAIN_SECONDS,
        });
    }
    let decision = app
        .meter
        .count_if(&uses, |after| {
            let burst_used = after.get(2).copied().unwrap_or(0);
            match decide(after[0], &value, burst_used, now) {
                Decision::Allowed => Ok(None),
                refused => Err(Some(refused)),
            }
        })
        .await?;
    match decision {
        Ok(_) | Err(None | Some(Decision::Allowed)) => Ok(()),
        Err(Some(Decision::OverCeiling { reset_in })) => Err(Error::quota_exceeded(
            QuotaKind::Requests.as_str(),
            reset_in,
            format!(
                "the {} quota of this developer ({} per {}) is spent; it resets in {reset_in} s",
                QuotaKind::Requests,
                value.ceiling,
                window_word(value.window),
            ),
        )),
        Err(Some(Decision::OverBurst { reset_in })) => Err(Error::quota_exceeded(
            QuotaKind::Requests.as_str(),
            reset_in,
            format!(
                "the {} burst limit of this developer ({} per minute) is spent; retry in {reset_in} s",
                QuotaKind::Requests,
                value.burst_per_minute.unwrap_or_default(),
            ),
        )),
    }
}

fn window_word(window: QuotaWindow) -> &'static str {
    match window {
        QuotaWindow::Day => "day",
        QuotaWindow::Month => "month",
    }
}
