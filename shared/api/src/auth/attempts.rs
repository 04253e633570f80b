//! The failed-attempt limiter of passwords and TOTP codes: it stops guessing
//! on every runtime and every instance, and a stranger cannot use it to lock
//! the real owner out.
//!
//! The rule:
//!
//! * **Counted first.** An attempt is counted ([`begin`]: one store update
//!   that answers the new count) *before* the secret is checked, so N parallel
//!   guesses get the counts 1..N and never more than the allowance is checked.
//!   A refused attempt is taken back, so waiting is what opens the next one.
//! * **Per account and client address.** The counter belongs to the pair
//!   (purpose and subject, the address the edge saw; an IPv6 address as its
//!   /64). Guesses from one address slow down only that address: the owner
//!   signing in from elsewhere is not affected.
//! * **Exponential backoff.** A pair may be checked [`FREE_ATTEMPTS`] times at
//!   once; then one more after [`BACKOFF_SECONDS`] (15 min) from its first
//!   attempt, another 30 min later, then 1 h, 2 h, ... (the waits double). The
//!   pair's counter is forgotten a day after its last attempt, and at once
//!   after a success.
//! * **Per address across accounts.** At most [`ADDRESS_FAILURES`] failures
//!   per address in [`ADDRESS_WINDOW_SECONDS`] (15 min) over every account and
//!   purpose, so one address cannot spray guesses over many accounts. A
//!   success takes its attempt back.
//!
//! Refusals are 429 `too-many-attempts` problems (not the request-rate
//! limit's `rate-limited`) with `Retry-After`: when the pair's next attempt
//! opens, or when the address's window ends; the detail says which. Store calls: a checked attempt costs two
//! updates (pair, address); a success two more (pair cleared, address taken
//! back); a refusal one or two more (taken back).

use std::net::IpAddr;

use alyt_store::repo::limits::Limits;

use super::secrets::sha256_hex;
use crate::conventions::ratelimit::Bucket;
use crate::{ApiError, AppState};

/// Attempts a pair may have checked before the backoff starts.
pub const FREE_ATTEMPTS: i64 = 10;
/// The first wait of the backoff; each next wait is twice the one before.
pub const BACKOFF_SECONDS: i64 = 15 * 60;
/// A pair's counter is forgotten this long after its last attempt.
pub const PAIR_MEMORY_SECONDS: i64 = 24 * 60 * 60;
/// Failures one address may have in a window, over every account.
pub const ADDRESS_FAILURES: i64 = 100;
pub const ADDRESS_WINDOW_SECONDS: i64 = 15 * 60;

/// Steps of the backoff passed `elapsed` seconds after a pair's first
/// attempt: `k` with `BACKOFF * (2^k - 1) <= elapsed`, and when the next
/// one comes (seconds after the first attempt).
fn backoff(elapsed: i64) -> (i64, i64) {
    let mut steps = 0;
    loop {
        let next = BACKOFF_SECONDS.saturating_mul((1i64 << (steps + 1).min(40)) - 1);
        if elapsed < next || steps >= 40 {
            return (steps, next);
        }
        steps += 1;
    }
}

/// Attempts a pair may have checked `elapsed` seconds after its first one.
pub fn allowance(elapsed: i64) -> i64 {
    FREE_ATTEMPTS + backoff(elapsed.max(0)).0
}

/// A counted attempt whose secret may now be checked. Dropping it leaves the
/// attempt counted as a failure; [`Attempt::succeeded`] forgets it.
#[must_use = "a checked attempt ends with succeeded() or counts as a failure"]
pub struct Attempt {
    pair: String,
    address: String,
    address_window: i64,
}

fn address_of(client: Option<IpAddr>) -> String {
    Bucket::address(client).name()
}

/// Counts an attempt of `subject` (an email, a user id) for `purpose` from
/// `client`, before its secret is checked; 429 when the pair must wait or
/// the address has spent its failures.
pub async fn begin(
    state: &AppState,
    purpose: &str,
    subject: &str,
    client: Option<IpAddr>,
) -> Result<Attempt, ApiError> {
    let limits = Limits(&*state.store);
    let now = state.clock.unix_seconds();
    let address = address_of(client);
    // Hashed: no key holds an email, a user id or an address.
    let pair = sha256_hex(format!("{purpose}#{subject}#{address}"));
    let counted = limits
        .count_attempt(&pair, now, now + PAIR_MEMORY_SECONDS)
        .await?;
    let elapsed = now - counted.first;
    if counted.count > allowance(elapsed) {
        limits.uncount_attempt(&pair).await?;
        let (_, next) = backoff(elapsed);
        let wait = (counted.first + next - now).max(1) as u64;
        return Err(ApiError::too_many_attempts(
            wait,
            format!(
                "too many attempts for this sign-in from this address (at most {FREE_ATTEMPTS} at once, then fewer); the next one opens in {wait} s"
            ),
        ));
    }
    let address_key = sha256_hex(format!("address#{address}"));
    let window = now - now.rem_euclid(ADDRESS_WINDOW_SECONDS);
    let failures = limits
        .add_in_window(&address_key, window, 1, window + 2 * ADDRESS_WINDOW_SECONDS)
        .await?;
    if failures > ADDRESS_FAILURES {
        limits
            .add_in_window(
                &address_key,
                window,
                -1,
                window + 2 * ADDRESS_WINDOW_SECONDS,
            )
            .await?;
        limits.uncount_attempt(&pair).await?;
        let wait = (window + ADDRESS_WINDOW_SECONDS - now).max(1) as u64;
        return Err(ApiError::too_many_attempts(
            wait,
            format!(
                "too many failed sign-ins from this address ({ADDRESS_FAILURES} in {} min); retry in {wait} s",
                ADDRESS_WINDOW_SECONDS / 60
            ),
        ));
    }
    Ok(Attempt {
        pair,
        address: address_key,
        address_window: window,
    })
}

impl Attempt {
    /// The secret was right: the pair starts over and the address's count
    /// of failures gets this attempt back.
    pub async fn succeeded(self, state: &AppState) -> Result<(), ApiError> {
        let limits = Limits(&*state.store);
        limits.clear_attempts(&self.pair).await?;
        limits
            .add_in_window(
                &self.address,
                self.address_window,
                -1,
                self.address_window + 2 * ADDRESS_WINDOW_SECONDS,
            )
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use alyt_domain::ManualClock;
    use alyt_store::sqlite::SqliteStore;
    use axum::http::StatusCode;

    use super::*;
    use crate::ports::{NoBotCheck, NoMailer};
    use crate::{Adapters, Settings};

    #[test]
    fn the_waits_double_after_the_free_attempts() {
        let minute = 60;
        assert_eq!(allowance(0), 10);
        assert_eq!(allowance(15 * minute - 1), 10);
        assert_eq!(allowance(15 * minute), 11);
        assert_eq!(allowance(45 * minute - 1), 11);
        assert_eq!(allowance(45 * minute), 12);
        assert_eq!(allowance(105 * minute), 13);
        // A day of guessing buys six more.
        assert_eq!(allowance(24 * 60 * minute), 16);
        assert!(allowance(i64::MAX) < 60);
    }

    async fn state() -> (AppState, Arc<ManualClock>) {
        let clock = Arc::new(ManualClock::new(
            time::macros::datetime!(2026-01-01 0:00 UTC),
        ));
        let state = AppState::build(
            Adapters {
                store: Arc::new(SqliteStore::in_memory(clock.clone()).unwrap()),
                clock: clock.clone(),
                mailer: Arc::new(NoMailer),
                bot_check: Arc::new(NoBotCheck),
                publisher: Arc::new(alyt_device::NoPublisher),
                credentials: Arc::new(crate::ports::PasswordCredentials),
            },
            Settings {
                rate_limit: Default::default(),
                public_url: "http://127.0.0.1/v1".into(),
                ..Default::default()
            },
        )
        .await
        .unwrap();
        (state, clock)
    }

    fn ip(text: &str) -> Option<IpAddr> {
        Some(text.parse().unwrap())
    }

    #[tokio::test]
    async fn a_pair_waits_longer_each_time_and_a_success_starts_it_over() {
        let (state, clock) = state().await;
        let here = ip("192.0.2.7");
        for _ in 0..FREE_ATTEMPTS {
            let _failed = begin(&state, "login", "a@example.com", here).await.unwrap();
        }
        let refused = begin(&state, "login", "a@example.com", here)
            .await
            .err()
            .unwrap();
        assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(refused.retry_after, Some(15 * 60));
        // Refusals are taken back: waiting is what opens the next attempt.
        for _ in 0..5 {
            assert!(begin(&state, "login", "a@example.com", here).await.is_err());
        }
        // Another address, another purpose, another account: not affected.
        begin(&state, "login", "a@example.com", ip("198.51.100.1"))
            .await
            .unwrap()
            .succeeded(&state)
            .await
            .unwrap();
        let _ = begin(&state, "dev-login", "a@example.com", here)
            .await
            .unwrap();
        let _ = begin(&state, "login", "b@example.com", here).await.unwrap();

        clock.advance(time::Duration::minutes(15));
        let _failed = begin(&state, "login", "a@example.com", here).await.unwrap();
        let refused = begin(&state, "login", "a@example.com", here)
            .await
            .err()
            .unwrap();
        assert_eq!(refused.retry_after, Some(30 * 60), "the next wait doubles");
        clock.advance(time::Duration::minutes(30));
        begin(&state, "login", "a@example.com", here)
            .await
            .unwrap()
            .succeeded(&state)
            .await
            .unwrap();
        for _ in 0..FREE_ATTEMPTS {
            let _failed = begin(&state, "login", "a@example.com", here).await.unwrap();
        }
    }

    #[tokio::test]
    async fn one_address_cannot_spray_guesses_over_many_accounts() {
        let (state, _) = state().await;
        let here = ip("2001:db8:5:6::1");
        for n in 0..ADDRESS_FAILURES {
            let _failed = begin(&state, "login", &format!("{n}@example.com"), here)
                .await
                .unwrap();
        }
        // The same /64 is the same address.
        let refused = begin(&state, "login", "next@example.com", ip("2001:db8:5:6::99"))
            .await
            .err()
            .unwrap();
        assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(refused.retry_after, Some(15 * 60));
        assert!(
            begin(&state, "login", "next@example.com", ip("2001:db8:5:7::1"))
                .await
                .is_ok()
        );
    }
}
