//! The request-rate limiter behind the IETF RateLimit fields
//! (draft-ietf-httpapi-ratelimit-headers-09): every response, errors included,
//! carries `RateLimit-Policy: "<name>";q=<quota>;w=<window>` and
//! `RateLimit: "<name>";r=<remaining>;t=<seconds to reset>`; a spent quota answers
//! 429 with `Retry-After`.
//!
//! **Who is counted.** An authenticated request counts against its principal:
//! the key (an app token counts as its key) or the signed-in person's user id.
//! Every other request counts against the client address the edge saw
//! ([`ClientAddr`]: the TCP peer locally, or the hop its trusted proxies
//! vouch for; API Gateway's source IP hosted; never a header a client chose;
//! an IPv6 address counts as its /64). So a new
//! Authorization header on every request buys nothing: a token that does not
//! authenticate is charged to the address.
//!
//! **When.** Authentication happens in the [`Caller`](crate::auth::Caller)
//! extractor, inside the handler. The [`middleware`] puts a [`RateSlot`] in the
//! request; on an operation that authenticates (the contract names a security
//! requirement) the extractor charges the principal, or the address when
//! authentication fails ([`charge_caller`]), and refuses with 429 when the
//! bucket is spent. Public operations and unknown paths are charged to the
//! address before the handler runs; a request the handler answered without
//! authenticating (a body rejected first) is charged to the address afterwards
//! and, past the quota, answered 429. The fields are written from whichever
//! decision was made.
//!
//! **Windows and memory.** Fixed windows aligned to the Unix epoch (every
//! instance agrees where a window starts). Buckets live in [`SHARDS`] shards,
//! each a mutex over a bounded least-recently-used map: O(1) per request under
//! one shard lock, and at most `capacity` buckets (default
//! [`DEFAULT_CAPACITY`], about 100 bytes each); the least recently used bucket
//! is forgotten first, and a forgotten bucket starts its window afresh.
//!
//! **One process (local): exact.** **Several instances (hosted, Lambda):** each
//! instance counts locally and, at most once per [`SYNC_INTERVAL`] per active
//! bucket, adds its not-yet-shared count to the bucket's window counter in the
//! store (one `UpdateItem ADD`, which answers the total of every instance; see
//! [`alyt_store::repo::limits`]); the request that makes a push due awaits it
//! after its handler. An instance decides on that shared total plus its own
//! count since. There is no store write per request; the cost is one write
//! per active bucket per instance per interval. The tolerance: an
//! instance learns the others' counts at most one interval late, so past the
//! quota each instance can let through at most what it serves of that bucket
//! in one interval: slack ≤ instances × interval × per-instance rate (on
//! Lambda, one request at a time per instance).
//!
//! **Policy** from the environment: [`QUOTA_ENV`] (requests per window,
//! default 600) and [`WINDOW_ENV`] (seconds, default 60), read alike by the
//! local binary and the hosted functions. A developer's quota of keyed requests
//! is counted in the store (`alyt_app::quota`), not here.

use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use alyt_domain::Clock;
use alyt_domain::access::Principal;
use alyt_store::Store;
use alyt_store::repo::limits::Limits;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderMap, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hashlink::LruCache;
use sha2::{Digest, Sha256};

use crate::{ApiError, ClientAddr};

/// Requests allowed per window (default 600).
pub const QUOTA_ENV: &str = "ALYT_RATE_LIMIT_QUOTA";
/// The window in seconds (default 60).
pub const WINDOW_ENV: &str = "ALYT_RATE_LIMIT_WINDOW_SECONDS";

/// Buckets held at most by default.
pub const DEFAULT_CAPACITY: usize = 65_536;
/// Shards of the bucket map (each its own lock).
pub const SHARDS: usize = 16;
/// How often, at most, an instance shares a bucket's count through the store.
pub const SYNC_INTERVAL: Duration = Duration::from_secs(1);

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateLimitPolicy {
    pub name: String,
    /// Requests allowed per window.
    pub quota: u32,
    pub window_seconds: u32,
}

impl Default for RateLimitPolicy {
    fn default() -> Self {
        Self {
            name: "default".into(),
            quota: 600,
            window_seconds: 60,
        }
    }
}

impl RateLimitPolicy {
    /// The policy from [`QUOTA_ENV`] and [`WINDOW_ENV`] (each defaulted when
    /// unset or empty); an error names a value that is not a whole number in
    /// range.
    pub fn from_env() -> Result<Self, String> {
        Self::from_vars(|name| std::env::var(name).ok())
    }

    /// The policy from the variables `var` answers.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Self, String> {
        fn number(name: &str, value: Option<String>, max: u32) -> Result<Option<u32>, String> {
            match value.filter(|v| !v.trim().is_empty()) {
                None => Ok(None),
                Some(v) => v
                    .trim()
                    .parse()
                    .ok()
                    .filter(|n| (1..=max).contains(n))
                    .map(Some)
                    .ok_or_else(|| {
                        format!("{name} must be a whole number from 1 to {max}, not {v:?}")
                    }),
            }
        }
        let mut policy = Self::default();
        if let Some(quota) = number(QUOTA_ENV, var(QUOTA_ENV), 1_000_000_000)? {
            policy.quota = quota;
        }
        if let Some(window) = number(WINDOW_ENV, var(WINDOW_ENV), 86_400)? {
            policy.window_seconds = window;
        }
        Ok(policy)
    }
}

/// What one request is counted against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bucket {
    /// A developer key, used directly or through an app token.
    Key(alyt_domain::ids::KeyId),
    /// A signed-in person.
    User(alyt_domain::ids::UserId),
    /// The client address (`None` when the edge gave none).
    Address(Option<IpAddr>),
}

impl Bucket {
    pub fn of(principal: &Principal) -> Self {
        match principal {
            Principal::Key { key_id, .. } => Bucket::Key(*key_id),
            Principal::Person { claims, .. } | Principal::Routine { claims, .. } => {
                Bucket::User(claims.sub)
            }
            // A widget spends its person's requests.
            Principal::Widget { user, .. } => Bucket::User(*user),
        }
    }

    /// The bucket of a client address: an IPv6 address counts as its /64 (one
    /// subscriber's allocation), an IPv4-mapped one as the IPv4 address.
    pub fn address(addr: Option<IpAddr>) -> Self {
        Bucket::Address(addr.map(alyt_app::auth::subscriber))
    }

    /// The bucket's name, e.g. `ip:2001:db8::` or `key:{id}`.
    pub fn name(&self) -> String {
        match self {
            Bucket::Key(id) => format!("key:{id}"),
            Bucket::User(id) => format!("user:{id}"),
            Bucket::Address(Some(ip)) => format!("ip:{ip}"),
            Bucket::Address(None) => "ip:unknown".to_owned(),
        }
    }

    /// A stable id (the same in every instance, so the store counter is
    /// shared) that holds neither an address nor a user id in the clear.
    fn id(&self) -> BucketId {
        let digest = Sha256::digest(self.name().as_bytes());
        let mut id = [0u8; 16];
        id.copy_from_slice(&digest[..16]);
        BucketId(id)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct BucketId([u8; 16]);

impl BucketId {
    fn hex(&self) -> String {
        hex::encode(self.0)
    }
    fn shard(&self) -> usize {
        usize::from(self.0[0]) % SHARDS
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    pub allowed: bool,
    pub remaining: u32,
    /// Seconds until the window resets.
    pub reset_seconds: u32,
}

/// One bucket's window in this instance.
#[derive(Debug, Clone, Copy)]
struct Window {
    start: i64,
    /// The total of every instance as the store last answered it (this
    /// instance's shared counts included). Always 0 when nothing is shared.
    shared: u32,
    /// Counted here and not yet acknowledged by the store.
    pending: u32,
    /// When the last push started (milliseconds); `None` before the first.
    last_push_ms: Option<i64>,
    pushing: bool,
}

impl Window {
    fn new(start: i64) -> Self {
        Self {
            start,
            shared: 0,
            pending: 0,
            last_push_ms: None,
            pushing: false,
        }
    }
}

/// A bucket's count to add to the store after the response.
#[derive(Debug, Clone, Copy)]
pub struct Push {
    id: BucketId,
    start: i64,
    delta: u32,
}

/// A decision, and the push it made due (hosted only).
#[derive(Debug, Clone, Copy)]
pub struct Charged {
    pub decision: Decision,
    pub push: Option<Push>,
}

struct Sharing {
    store: Arc<dyn Store>,
    interval_ms: i64,
}

type Shard = Mutex<LruCache<BucketId, Window>>;

pub struct RateLimiter {
    policy: RateLimitPolicy,
    clock: Arc<dyn Clock>,
    shards: Box<[Shard]>,
    sharing: Option<Sharing>,
}

impl RateLimiter {
    pub fn new(policy: RateLimitPolicy, clock: Arc<dyn Clock>) -> Self {
        Self::with_capacity(policy, clock, DEFAULT_CAPACITY)
    }

    /// A limiter that holds at most `capacity` buckets (rounded up to a
    /// multiple of [`SHARDS`]).
    pub fn with_capacity(policy: RateLimitPolicy, clock: Arc<dyn Clock>, capacity: usize) -> Self {
        let per_shard = capacity.div_ceil(SHARDS).max(1);
        Self {
            policy,
            clock,
            shards: (0..SHARDS)
                .map(|_| Mutex::new(LruCache::new(per_shard)))
                .collect(),
            sharing: None,
        }
    }

    /// The same limiter counting with every other instance over `store`,
    /// sharing each active bucket's count at most once per `interval`.
    pub fn shared_through(mut self, store: Arc<dyn Store>, interval: Duration) -> Self {
        self.sharing = Some(Sharing {
            store,
            interval_ms: i64::try_from(interval.as_millis()).unwrap_or(i64::MAX),
        });
        self
    }

    pub fn policy(&self) -> &RateLimitPolicy {
        &self.policy
    }

    /// The buckets held in memory.
    pub fn buckets(&self) -> usize {
        self.shards.iter().map(|s| lock(s).len()).sum()
    }

    fn window_seconds(&self) -> i64 {
        i64::from(self.policy.window_seconds.max(1))
    }

    /// Counts one request against `bucket` and says whether it may proceed,
    /// with the push to run after the response when one is due.
    pub fn charge(&self, bucket: &Bucket) -> Charged {
        let id = bucket.id();
        let now = self.clock.now();
        let seconds = now.unix_timestamp();
        let window = self.window_seconds();
        let start = seconds - seconds.rem_euclid(window);
        let reset_seconds = u32::try_from((start + window - seconds).max(1)).unwrap_or(1);
        let quota = self.policy.quota;

        let mut shard = lock(&self.shards[id.shard()]);
        if shard.get_mut(&id).is_none() {
            shard.insert(id, Window::new(start));
        }
        let Some(entry) = shard.get_mut(&id) else {
            unreachable!("the bucket was inserted above");
        };
        if entry.start != start {
            *entry = Window::new(start);
        }
        let used = entry.shared.saturating_add(entry.pending);
        let decision = if used >= quota {
            Decision {
                allowed: false,
                remaining: 0,
                reset_seconds,
            }
        } else {
            entry.pending += 1;
            Decision {
                allowed: true,
                remaining: quota - used - 1,
                reset_seconds,
            }
        };
        // A refused request pushes too: what this instance let through must
        // reach the others even when it now refuses everything.
        let push = self.sharing.as_ref().and_then(|sharing| {
            let now_ms = i64::try_from(now.unix_timestamp_nanos() / 1_000_000).unwrap_or(0);
            let due = entry
                .last_push_ms
                .is_none_or(|last| now_ms - last >= sharing.interval_ms);
            (due && !entry.pushing && entry.pending > 0).then(|| {
                entry.pushing = true;
                entry.last_push_ms = Some(now_ms);
                Push {
                    id,
                    start,
                    delta: entry.pending,
                }
            })
        });
        Charged { decision, push }
    }

    /// Adds a bucket's count to the store and takes the total of every
    /// instance. A failure keeps the count for the next push.
    pub async fn push(&self, push: Push) {
        let Some(sharing) = &self.sharing else {
            return;
        };
        let total = Limits(&*sharing.store)
            .add_to_rate_window(
                &push.id.hex(),
                push.start,
                self.window_seconds(),
                i64::from(push.delta),
            )
            .await;
        if let Err(e) = &total {
            tracing::warn!(error = %e, "could not share a rate-limit count; kept for the next push");
        }
        let mut shard = lock(&self.shards[push.id.shard()]);
        if let Some(entry) = shard.peek_mut(&push.id)
            && entry.start == push.start
        {
            entry.pushing = false;
            if let Ok(total) = total {
                entry.pending = entry.pending.saturating_sub(push.delta);
                let total = u32::try_from(total.max(0)).unwrap_or(u32::MAX);
                entry.shared = entry.shared.max(total);
            }
        }
    }

    fn write_headers(&self, headers: &mut HeaderMap, decision: Decision) {
        let p = &self.policy;
        let policy = format!("\"{}\";q={};w={}", p.name, p.quota, p.window_seconds);
        let current = format!(
            "\"{}\";r={};t={}",
            p.name, decision.remaining, decision.reset_seconds
        );
        for (name, value) in [("ratelimit-policy", policy), ("ratelimit", current)] {
            // A policy the handler answered by (a spent stream cap) stays,
            // after the request rate's.
            let value = match headers.get(name).and_then(|v| v.to_str().ok()) {
                Some(own) => format!("{value}, {own}"),
                None => value,
            };
            if let Ok(value) = HeaderValue::from_str(&value) {
                headers.insert(name, value);
            }
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// Where the decision of one request is kept, from the middleware to the
/// extractor that authenticates and back.
#[derive(Clone, Default)]
pub struct RateSlot(Arc<Mutex<Option<Charged>>>);

impl RateSlot {
    fn get(&self) -> Option<Charged> {
        *lock(&self.0)
    }

    /// The decision already made, or the one `decide` makes now.
    fn get_or_charge(&self, decide: impl FnOnce() -> Charged) -> Charged {
        *lock(&self.0).get_or_insert_with(decide)
    }
}

/// Charges the request to `principal` once authentication succeeded, or to
/// the client address when it failed (`None`); a spent bucket is a 429. A
/// request already charged (a public operation) is not charged twice.
pub fn charge_caller(
    limiter: &RateLimiter,
    extensions: &axum::http::Extensions,
    principal: Option<&Principal>,
) -> Result<(), ApiError> {
    let Some(slot) = extensions.get::<RateSlot>() else {
        return Ok(());
    };
    let charged = slot.get_or_charge(|| {
        let bucket = match principal {
            Some(principal) => Bucket::of(principal),
            None => Bucket::address(extensions.get::<ClientAddr>().map(|c| c.0)),
        };
        limiter.charge(&bucket)
    });
    if charged.decision.allowed {
        Ok(())
    } else {
        Err(ApiError::too_many_requests(u64::from(
            charged.decision.reset_seconds,
        )))
    }
}

pub use crate::routing::SecuredOperations;

/// What the middleware needs: the limiter and which operations authenticate.
#[derive(Clone)]
pub struct Limiting {
    pub limiter: Arc<RateLimiter>,
    pub secured: Arc<SecuredOperations>,
}

pub async fn middleware(
    State(Limiting { limiter, secured }): State<Limiting>,
    mut request: Request,
    next: Next,
) -> Response {
    let address = Bucket::address(request.extensions().get::<ClientAddr>().map(|c| c.0));
    let deferred = request
        .extensions()
        .get::<MatchedPath>()
        .is_some_and(|path| secured.authenticates(request.method(), path.as_str()));
    let slot = RateSlot::default();
    if !deferred {
        let charged = slot.get_or_charge(|| limiter.charge(&address));
        if !charged.decision.allowed {
            let mut response =
                ApiError::too_many_requests(u64::from(charged.decision.reset_seconds))
                    .into_response();
            limiter.write_headers(response.headers_mut(), charged.decision);
            return response;
        }
    }
    request.extensions_mut().insert(slot.clone());
    let mut response = next.run(request).await;
    let charged = match slot.get() {
        Some(charged) => charged,
        // Answered without authenticating: the address pays, afterwards.
        None => {
            let charged = slot.get_or_charge(|| limiter.charge(&address));
            if !charged.decision.allowed {
                response = ApiError::too_many_requests(u64::from(charged.decision.reset_seconds))
                    .into_response();
            }
            charged
        }
    };
    limiter.write_headers(response.headers_mut(), charged.decision);
    if let Some(push) = charged.push {
        limiter.push(push).await;
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use alyt_domain::{Clock, ManualClock};
    use alyt_store::sqlite::SqliteStore;

    fn clock() -> Arc<ManualClock> {
        Arc::new(ManualClock::new(
            time::macros::datetime!(2026-01-01 0:00 UTC),
        ))
    }

    fn policy(quota: u32) -> RateLimitPolicy {
        RateLimitPolicy {
            name: "default".into(),
            quota,
            window_seconds: 60,
        }
    }

    fn limiter(quota: u32) -> (RateLimiter, Arc<ManualClock>) {
        let clock = clock();
        (RateLimiter::new(policy(quota), clock.clone()), clock)
    }

    fn ip(text: &str) -> Bucket {
        Bucket::address(Some(text.parse().unwrap()))
    }

    #[test]
    fn quota_is_spent_then_restored_when_the_window_turns() {
        let (limiter, clock) = limiter(3);
        let a = ip("192.0.2.1");
        let remaining: Vec<u32> = (0..3)
            .map(|_| limiter.charge(&a).decision.remaining)
            .collect();
        assert_eq!(remaining, [2, 1, 0]);
        let denied = limiter.charge(&a).decision;
        assert!(!denied.allowed);
        assert_eq!(denied.reset_seconds, 60);
        // Another caller has its own window.
        assert!(limiter.charge(&ip("192.0.2.2")).decision.allowed);
        clock.advance(time::Duration::seconds(59));
        assert_eq!(limiter.charge(&a).decision.reset_seconds, 1);
        clock.advance(time::Duration::seconds(1));
        let fresh = limiter.charge(&a).decision;
        assert!(fresh.allowed);
        assert_eq!(fresh.remaining, 2);
    }

    #[test]
    fn an_ipv6_subscriber_is_one_bucket_for_its_whole_64() {
        let (limiter, _) = limiter(2);
        assert!(limiter.charge(&ip("2001:db8:1:2::1")).decision.allowed);
        assert!(limiter.charge(&ip("2001:db8:1:2:ffff::9")).decision.allowed);
        assert!(!limiter.charge(&ip("2001:db8:1:2::77")).decision.allowed);
        assert!(limiter.charge(&ip("2001:db8:1:3::1")).decision.allowed);
        // An IPv4-mapped address is the IPv4 address.
        assert_eq!(ip("::ffff:192.0.2.1"), ip("192.0.2.1"));
    }

    #[test]
    fn memory_stays_bounded_and_the_least_recently_used_bucket_goes_first() {
        let capacity = 64;
        let limiter = RateLimiter::with_capacity(policy(2), clock(), capacity);
        let hot = ip("198.51.100.1");
        let early = ip("198.51.100.2");
        for bucket in [&hot, &early] {
            assert!(limiter.charge(bucket).decision.allowed);
            assert!(limiter.charge(bucket).decision.allowed);
        }
        for n in 0..100_000u32 {
            let stranger = Bucket::address(Some(IpAddr::from(n.to_be_bytes())));
            limiter.charge(&stranger);
            // Kept in use, the hot bucket is never the one forgotten.
            assert!(!limiter.charge(&hot).decision.allowed, "after {n}");
            assert!(limiter.buckets() <= capacity, "{}", limiter.buckets());
        }
        // The early bucket, left alone, was forgotten: it starts afresh.
        assert!(limiter.charge(&early).decision.allowed);
    }

    #[test]
    fn the_policy_comes_from_the_environment() {
        let vars = |quota: &'static str, window: &'static str| {
            move |name: &str| match name {
                QUOTA_ENV => Some(quota.to_owned()),
                WINDOW_ENV => Some(window.to_owned()),
                _ => None,
            }
        };
        assert_eq!(
            RateLimitPolicy::from_vars(|_| None).unwrap(),
            RateLimitPolicy::default()
        );
        let raised = RateLimitPolicy::from_vars(vars("100000", "10")).unwrap();
        assert_eq!((raised.quota, raised.window_seconds), (100_000, 10));
        let blank = RateLimitPolicy::from_vars(vars("", " ")).unwrap();
        assert_eq!(blank, RateLimitPolicy::default());
        for (quota, window) in [("0", "60"), ("many", "60"), ("5", "0"), ("5", "86401")] {
            let error = RateLimitPolicy::from_vars(vars(quota, window)).unwrap_err();
            assert!(error.contains("ALYT_RATE_LIMIT_"), "{error}");
        }
    }

    /// Two instances over one store: each counts locally and shares its
    /// count at most once a second; together they let through the quota
    /// (here exactly, since each pushes before the other decides).
    #[tokio::test]
    async fn two_instances_over_one_store_share_the_quota() {
        let clock = clock();
        let store: Arc<dyn Store> = Arc::new(SqliteStore::in_memory(clock.clone()).unwrap());
        let instance = || {
            RateLimiter::new(policy(10), clock.clone()).shared_through(store.clone(), SYNC_INTERVAL)
        };
        let (a, b) = (instance(), instance());
        let key = Bucket::User(alyt_domain::ids::UserId::new());
        let serve = |limiter: &RateLimiter| {
            let charged = limiter.charge(&key);
            (charged.decision.allowed, charged.push)
        };
        let mut allowed = 0;
        // A: the first request pushes at once (1); four more stay local.
        for n in 0..5 {
            let (ok, push) = serve(&a);
            assert!(ok);
            allowed += 1;
            assert_eq!(push.is_some(), n == 0, "request {n}");
            if let Some(push) = push {
                a.push(push).await;
            }
        }
        clock.advance(time::Duration::seconds(1));
        // A's next request is due a push: the store holds A's six.
        let (ok, push) = serve(&a);
        assert!(ok);
        allowed += 1;
        a.push(push.expect("a push after a second")).await;
        // B starts from the shared total once its first push answers.
        let (ok, push) = serve(&b);
        assert!(ok);
        allowed += 1;
        b.push(push.expect("B's first request pushes")).await;
        let mut refused = 0;
        for _ in 0..10 {
            match serve(&b) {
                (true, _) => allowed += 1,
                (false, _) => refused += 1,
            }
        }
        assert_eq!(allowed, 10, "the two instances together allow the quota");
        assert_eq!(refused, 7);
        // A second on, B's (refused) request shares its last three. A has not
        // heard of them: it lets one more through (the documented slack of
        // one interval), and its push tells it the total.
        clock.advance(time::Duration::seconds(1));
        let (ok, push) = serve(&b);
        assert!(!ok);
        b.push(push.expect("B's count is due")).await;
        let (ok, push) = serve(&a);
        assert!(ok, "one interval of slack");
        a.push(push.expect("A's count is due")).await;
        assert!(!serve(&a).0);
        assert!(!serve(&b).0);
        let now = clock.unix_seconds();
        let total = Limits(&*store)
            .add_to_rate_window(&key.id().hex(), now - now.rem_euclid(60), 60, 0)
            .await
            .unwrap();
        assert_eq!(total, 11);
    }

    #[tokio::test]
    async fn a_failed_push_keeps_the_count_for_the_next() {
        let clock = clock();
        let store: Arc<dyn Store> = Arc::new(SqliteStore::in_memory(clock.clone()).unwrap());
        let limiter =
            RateLimiter::new(policy(5), clock.clone()).shared_through(store, SYNC_INTERVAL);
        let key = Bucket::User(alyt_domain::ids::UserId::new());
        let first = limiter.charge(&key).push.unwrap();
        // A second request while the first push is on its way makes no push.
        assert!(limiter.charge(&key).push.is_none());
        limiter.push(first).await;
        clock.advance(time::Duration::seconds(1));
        let second = limiter.charge(&key).push.unwrap();
        assert_eq!(second.delta, 2, "the count not yet shared");
    }

    proptest::proptest! {
        /// Within one window no caller ever gets more than the quota.
        #[test]
        fn never_more_than_quota_per_window(quota in 1u32..50, calls in 0usize..200) {
            let (limiter, _) = limiter(quota);
            let x = ip("203.0.113.9");
            let allowed = (0..calls).filter(|_| limiter.charge(&x).decision.allowed).count();
            proptest::prop_assert_eq!(allowed, calls.min(quota as usize));
        }
    }
}
