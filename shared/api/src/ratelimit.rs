//! The request-rate limiter behind the IETF RateLimit fields
//! (draft-ietf-httpapi-ratelimit-headers-09): every response, errors included,
//! carries `RateLimit-Policy: "<name>";q=<quota>;w=<window>` and
//! `RateLimit: "<name>";r=<remaining>;t=<seconds to reset>`; a spent quota answers
//! 429 with `Retry-After`.
//!
//! Fixed windows per caller, counted in this process. On Lambda each instance
//! counts its own callers, so the effective hosted limit is per instance; the
//! API Gateway stage throttle bounds the total. Per-key quotas (the developer
//! quota of the spec) are counted in the store, not here.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::{Arc, Mutex};

use alyt_domain::Clock;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::{ApiError, ClientAddr};

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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    pub allowed: bool,
    pub remaining: u32,
    /// Seconds until the window resets.
    pub reset_seconds: u32,
}

#[derive(Debug, Clone, Copy)]
struct Window {
    started: i64,
    used: u32,
}

/// Windows kept before expired ones are swept out of memory.
const SWEEP_AT: usize = 50_000;

pub struct RateLimiter {
    policy: RateLimitPolicy,
    clock: Arc<dyn Clock>,
    windows: Mutex<HashMap<u64, Window>>,
    hasher: std::collections::hash_map::RandomState,
}

impl RateLimiter {
    pub fn new(policy: RateLimitPolicy, clock: Arc<dyn Clock>) -> Self {
        Self {
            policy,
            clock,
            windows: Mutex::new(HashMap::new()),
            hasher: Default::default(),
        }
    }

    pub fn policy(&self) -> &RateLimitPolicy {
        &self.policy
    }

    /// Counts one request of `caller` and says whether it may proceed.
    pub fn check(&self, caller: &str) -> Decision {
        // Callers are kept as keyed hashes: no bearer token is held in memory.
        let id = self.hasher.hash_one(caller);
        let now = self.clock.unix_seconds();
        let window = i64::from(self.policy.window_seconds);
        let mut windows = self.windows.lock().unwrap_or_else(|e| e.into_inner());
        if windows.len() >= SWEEP_AT {
            windows.retain(|_, w| now - w.started < window);
        }
        let entry = windows.entry(id).or_insert(Window {
            started: now,
            used: 0,
        });
        if now - entry.started >= window {
            *entry = Window {
                started: now,
                used: 0,
            };
        }
        let reset_seconds = u32::try_from((entry.started + window - now).max(1)).unwrap_or(1);
        if entry.used >= self.policy.quota {
            return Decision {
                allowed: false,
                remaining: 0,
                reset_seconds,
            };
        }
        entry.used += 1;
        Decision {
            allowed: true,
            remaining: self.policy.quota - entry.used,
            reset_seconds,
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
            if let Ok(value) = HeaderValue::from_str(&value) {
                headers.insert(name, value);
            }
        }
    }
}

/// Who is counted: the bearer credential when there is one, else the client address.
fn caller_of(request: &Request) -> String {
    if let Some(auth) = request.headers().get(header::AUTHORIZATION) {
        return format!("auth:{}", String::from_utf8_lossy(auth.as_bytes()));
    }
    match request.extensions().get::<ClientAddr>() {
        Some(ClientAddr(ip)) => format!("ip:{ip}"),
        None => "anonymous".into(),
    }
}

pub async fn middleware(
    State(limiter): State<Arc<RateLimiter>>,
    request: Request,
    next: Next,
) -> Response {
    let decision = limiter.check(&caller_of(&request));
    let mut response = if decision.allowed {
        next.run(request).await
    } else {
        ApiError::too_many_requests(u64::from(decision.reset_seconds)).into_response()
    };
    limiter.write_headers(response.headers_mut(), decision);
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use alyt_domain::ManualClock;

    fn limiter(quota: u32) -> (RateLimiter, Arc<ManualClock>) {
        let clock = Arc::new(ManualClock::new(
            time::macros::datetime!(2026-01-01 0:00 UTC),
        ));
        let policy = RateLimitPolicy {
            name: "default".into(),
            quota,
            window_seconds: 60,
        };
        (RateLimiter::new(policy, clock.clone()), clock)
    }

    #[test]
    fn quota_is_spent_then_restored_when_the_window_turns() {
        let (limiter, clock) = limiter(3);
        let remaining: Vec<u32> = (0..3).map(|_| limiter.check("a").remaining).collect();
        assert_eq!(remaining, [2, 1, 0]);
        let denied = limiter.check("a");
        assert!(!denied.allowed);
        assert_eq!(denied.reset_seconds, 60);
        // Another caller has its own window.
        assert!(limiter.check("b").allowed);
        clock.advance(time::Duration::seconds(59));
        assert_eq!(limiter.check("a").reset_seconds, 1);
        clock.advance(time::Duration::seconds(1));
        let fresh = limiter.check("a");
        assert!(fresh.allowed);
        assert_eq!(fresh.remaining, 2);
    }

    proptest::proptest! {
        /// Within one window no caller ever gets more than the quota.
        #[test]
        fn never_more_than_quota_per_window(quota in 1u32..50, calls in 0usize..200) {
            let (limiter, _) = limiter(quota);
            let allowed = (0..calls).filter(|_| limiter.check("x").allowed).count();
            proptest::prop_assert_eq!(allowed, calls.min(quota as usize));
        }
    }
}
