//! The failed-attempt limiter of passwords and TOTP codes: it stops guessing
//! on every runtime and every instance, from one address or from many, and a
//! stranger cannot keep the real owner out for longer than a reset mail takes.
//!
//! The rule:
//!
//! * **Counted first.** An attempt is counted ([`begin`]: one store update
//!   per counter, each answering the new count) *before* the secret is
//!   checked, so N parallel guesses get the counts 1..N and never more than
//!   the allowance is checked. A refused attempt is taken back from every
//!   counter it was counted in, so waiting is what opens the next one.
//! * **Per account and client address.** The pair counter belongs to the
//!   purpose, the account (its email) and the address the edge saw (an IPv6
//!   address as its /64). Guesses from one address slow down only that
//!   address: the owner signing in from elsewhere is not affected.
//! * **Exponential backoff.** A pair may be checked [`FREE_ATTEMPTS`] (10)
//!   times at once; then one more after [`BACKOFF_SECONDS`] (15 min) from its
//!   first attempt, another 30 min later, then 1 h, 2 h, ... (the waits
//!   double). A counter is forgotten [`MEMORY_SECONDS`] (a day) after its
//!   last attempt; a pair's at once after a success.
//! * **Per account across addresses.** The account counter (its email: every
//!   purpose, password and TOTP alike, and unknown addresses the same way as
//!   known ones) may be checked [`ACCOUNT_FREE_ATTEMPTS`] (100) times at once,
//!   then follows the same doubling waits from its first attempt: guesses
//!   spread over a botnet's addresses get about a hundred checks and then a
//!   few more a day. The cap holds for everyone, the owner at their own
//!   address included (that is its point); the owner's way past it is a
//!   password reset ([`restart`], called by both reset operations once the
//!   link is spent), which starts the account counter and every pair of the
//!   account over: the pairs' keys name when the account was last restarted,
//!   so no pair needs finding. A reset link is never counted here. A success
//!   takes back its own attempt; when no more than [`FORGOTTEN_ON_SUCCESS`]
//!   (10, its own included) were counted it starts the account over (the
//!   owner's own typos are forgotten; a botnet's hundred are not, so signing
//!   in never hands guessing a fresh allowance).
//! * **Per address across accounts.** At most [`ADDRESS_FAILURES`] failures
//!   per address in [`ADDRESS_WINDOW_SECONDS`] (15 min) over every account and
//!   purpose, so one address cannot spray guesses over many accounts. A
//!   success takes its attempt back.
//!
//! Refusals are 429 `too-many-attempts` problems (not the request-rate
//! limit's `rate-limited`) with `Retry-After`: when the account's or the
//! pair's next attempt opens, or when the address's window ends; the detail
//! says which, and for the account that a reset by mail signs in at once
//! (the same words whether or not the address has an account). Store calls:
//! a checked attempt costs three updates (account, pair, address); a success
//! three more (account taken back or started over, pair cleared, address
//! taken back); a refusal one to three more (taken back); a reset one update.

use std::net::IpAddr;

use alyt_store::repo::identity::email_key;
use alyt_store::repo::limits::Limits;

use alyt_domain::secret::sha256_hex;

use super::subscriber;
use crate::{App, Error};

/// Attempts a pair may have checked before the backoff starts.
pub const FREE_ATTEMPTS: i64 = 10;
/// Attempts an account may have checked over every address before the
/// backoff starts: ten addresses' worth of a pair's, so no single address
/// reaches it (and a hundred parallel right sign-ins of one account, the
/// login storm of `bench/drive`, all pass).
pub const ACCOUNT_FREE_ATTEMPTS: i64 = 100;
/// A success with at most this many attempts counted on its account (its own
/// included) starts the account over.
pub const FORGOTTEN_ON_SUCCESS: i64 = 10;
/// The first wait of the backoff; each next wait is twice the one before.
pub const BACKOFF_SECONDS: i64 = 15 * 60;
/// A counter (a pair's, an account's) is forgotten this long after its last
/// attempt.
pub const MEMORY_SECONDS: i64 = 24 * 60 * 60;
/// Failures one address may have in a window, over every account.
pub const ADDRESS_FAILURES: i64 = 100;
pub const ADDRESS_WINDOW_SECONDS: i64 = 15 * 60;

/// Steps of the backoff passed `elapsed` seconds after a counter's first
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

/// Attempts a counter with `free` at once may have checked `elapsed` seconds
/// after its first one.
pub fn allowance(free: i64, elapsed: i64) -> i64 {
    free + backoff(elapsed.max(0)).0
}

/// The seconds until a counter that started at `first` opens its next
/// attempt.
fn wait(first: i64, now: i64) -> u64 {
    let (_, next) = backoff(now - first);
    (first + next - now).max(1) as u64
}

/// A counted attempt whose secret may now be checked. Dropping it leaves the
/// attempt counted as a failure; [`Attempt::succeeded`] forgets it.
#[must_use = "a checked attempt ends with succeeded() or counts as a failure"]
pub struct Attempt {
    account: String,
    account_count: i64,
    pair: String,
    address: String,
    address_window: i64,
}

fn address_of(client: Option<IpAddr>) -> String {
    match client {
        Some(ip) => format!("ip:{}", subscriber(ip)),
        None => "ip:unknown".to_owned(),
    }
}

/// The account counter's key: hashed, so no key holds an email.
fn account_key(email: &str) -> String {
    sha256_hex(format!("account#{}", email_key(email)))
}

/// Counts an attempt of the account `email` (known or not) for `purpose`
/// from `client`, before its secret is checked; 429 when the account or the
/// pair must wait or the address has spent its failures.
pub async fn begin(
    app: &App,
    purpose: &str,
    email: &str,
    client: Option<IpAddr>,
) -> Result<Attempt, Error> {
    let limits = Limits(&*app.store);
    let now = app.clock.unix_seconds();
    let account = account_key(email);
    let on_account = limits
        .count_attempt(&account, now, now + MEMORY_SECONDS)
        .await?;
    if on_account.count > allowance(ACCOUNT_FREE_ATTEMPTS, now - on_account.first) {
        limits.uncount_attempt(&account).await?;
        let wait = wait(on_account.first, now);
        return Err(Error::too_many_attempts(
            wait,
            format!(
                "too many failed sign-ins for this account from many addresses (at most {ACCOUNT_FREE_ATTEMPTS} at once, then fewer); the next one opens in {wait} s, or reset the password by mail to sign in now"
            ),
        ));
    }
    let address = address_of(client);
    // Hashed: no key holds an email or an address. A reset of the account
    // names new pairs, so every old one is forgotten with it.
    let pair = sha256_hex(match on_account.restarted {
        None => format!("{purpose}#{}#{address}", email_key(email)),
        Some(at) => format!("{purpose}#{}#{address}#{at}", email_key(email)),
    });
    let on_pair = limits
        .count_attempt(&pair, now, now + MEMORY_SECONDS)
        .await?;
    if on_pair.count > allowance(FREE_ATTEMPTS, now - on_pair.first) {
        limits.uncount_attempt(&pair).await?;
        limits.uncount_attempt(&account).await?;
        let wait = wait(on_pair.first, now);
        return Err(Error::too_many_attempts(
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
        limits.uncount_attempt(&account).await?;
        let wait = (window + ADDRESS_WINDOW_SECONDS - now).max(1) as u64;
        return Err(Error::too_many_attempts(
            wait,
            format!(
                "too many failed sign-ins from this address ({ADDRESS_FAILURES} in {} min); retry in {wait} s",
                ADDRESS_WINDOW_SECONDS / 60
            ),
        ));
    }
    Ok(Attempt {
        account,
        account_count: on_account.count,
        pair,
        address: address_key,
        address_window: window,
    })
}

/// The account `email` proved its mailbox with a reset link and has a new
/// password: its counter and every pair of it start over, so the owner signs
/// in at once however many guesses came before.
pub async fn restart(app: &App, email: &str) -> Result<(), Error> {
    let now = app.clock.unix_seconds();
    Limits(&*app.store)
        .restart_attempts(&account_key(email), now, now + MEMORY_SECONDS)
        .await?;
    Ok(())
}

impl Attempt {
    /// The secret was right: the pair starts over, the account gets this
    /// attempt back (or starts over when it had few), and the address's
    /// count of failures gets this attempt back.
    pub async fn succeeded(self, app: &App) -> Result<(), Error> {
        let limits = Limits(&*app.store);
        if self.account_count <= FORGOTTEN_ON_SUCCESS {
            limits.forget_attempts(&self.account).await?;
        } else {
            limits.uncount_attempt(&self.account).await?;
        }
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

    use super::*;
    use crate::ErrorKind;
    use crate::ports::{NoBotCheck, NoMailer};
    use crate::{Adapters, App};

    #[test]
    fn the_waits_double_after_the_free_attempts() {
        let minute = 60;
        let pair = |elapsed| allowance(FREE_ATTEMPTS, elapsed);
        assert_eq!(pair(0), 10);
        assert_eq!(pair(15 * minute - 1), 10);
        assert_eq!(pair(15 * minute), 11);
        assert_eq!(pair(45 * minute - 1), 11);
        assert_eq!(pair(45 * minute), 12);
        assert_eq!(pair(105 * minute), 13);
        // A day of guessing buys six more.
        assert_eq!(pair(24 * 60 * minute), 16);
        assert!(pair(i64::MAX) < 60);
        // An account: a hundred, then the same waits; a year of a botnet's
        // guessing buys fifteen more.
        assert_eq!(allowance(ACCOUNT_FREE_ATTEMPTS, 0), 100);
        assert_eq!(
            allowance(ACCOUNT_FREE_ATTEMPTS, 365 * 24 * 60 * minute),
            115
        );
    }

    proptest::proptest! {
        /// The Retry-After of a refusal is exactly when the next attempt
        /// opens: the allowance grows by one there and not a second before.
        #[test]
        fn the_wait_ends_where_the_allowance_grows(
            free in 1i64..200,
            first in 0i64..4_000_000_000,
            elapsed in 0i64..(20 * 365 * 24 * 3600),
        ) {
            let now = first + elapsed;
            let opens = now + wait(first, now) as i64;
            proptest::prop_assert!(opens > now);
            proptest::prop_assert_eq!(allowance(free, opens - 1 - first), allowance(free, elapsed));
            proptest::prop_assert_eq!(allowance(free, opens - first), allowance(free, elapsed) + 1);
        }
    }

    async fn state() -> (App, Arc<ManualClock>) {
        let clock = Arc::new(ManualClock::new(
            time::macros::datetime!(2026-01-01 0:00 UTC),
        ));
        let state = App::new(
            Adapters {
                store: Arc::new(SqliteStore::in_memory(clock.clone()).unwrap()),
                clock: clock.clone(),
                mailer: Arc::new(NoMailer),
                bot_check: Arc::new(NoBotCheck),
                publisher: Arc::new(alyt_device::NoPublisher),
                credentials: Arc::new(crate::ports::PasswordCredentials),
            },
            "http://127.0.0.1/v1".into(),
        )
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
        assert_eq!(refused.kind, ErrorKind::TooManyAttempts);
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
        assert_eq!(refused.kind, ErrorKind::TooManyAttempts);
        assert_eq!(refused.retry_after, Some(15 * 60));
        assert!(
            begin(&state, "login", "next@example.com", ip("2001:db8:5:7::1"))
                .await
                .is_ok()
        );
    }

    /// Fails `n` guesses of `email`'s password, each from an address of its
    /// own (a botnet's), numbered from `from`.
    async fn botnet(state: &App, email: &str, from: u32, n: u32) {
        for k in from..from + n {
            let address = std::net::Ipv4Addr::from(0x0A00_0000 + k);
            let _failed = begin(state, "login", email, Some(address.into()))
                .await
                .unwrap();
        }
    }

    #[tokio::test]
    async fn guesses_from_many_addresses_are_capped_per_account_until_a_reset() {
        let (state, clock) = state().await;
        let owner = "owner@example.com";
        // The owner's own typos at home, then a botnet's guesses.
        for _ in 0..FREE_ATTEMPTS {
            let _typo = begin(&state, "login", owner, ip("192.0.2.7"))
                .await
                .unwrap();
        }
        botnet(
            &state,
            owner,
            0,
            (ACCOUNT_FREE_ATTEMPTS - FREE_ATTEMPTS) as u32,
        )
        .await;

        // Now even the owner, from a fresh address, waits: every purpose
        // of the account, the TOTP code included.
        let refused = begin(&state, "login", "Owner@example.com ", ip("198.51.100.1"))
            .await
            .err()
            .unwrap();
        assert_eq!(refused.kind, ErrorKind::TooManyAttempts);
        assert_eq!(refused.retry_after, Some(15 * 60));
        assert!(
            refused.detail.contains("reset the password by mail"),
            "{}",
            refused.detail
        );
        assert!(
            begin(&state, "totp", owner, ip("198.51.100.1"))
                .await
                .is_err()
        );
        assert!(
            begin(&state, "dev-login", owner, ip("198.51.100.2"))
                .await
                .is_err()
        );
        // Other accounts are not affected.
        let _ = begin(&state, "login", "else@example.com", ip("198.51.100.1"))
            .await
            .unwrap();

        // An address without an account answers with the same words.
        botnet(
            &state,
            "nobody@example.com",
            1000,
            ACCOUNT_FREE_ATTEMPTS as u32,
        )
        .await;
        let unknown = begin(&state, "login", "nobody@example.com", ip("198.51.100.1"))
            .await
            .err()
            .unwrap();
        assert_eq!(
            (unknown.kind, unknown.retry_after, &unknown.detail),
            (refused.kind, refused.retry_after, &refused.detail)
        );

        // The backoff opens one more a quarter of an hour later, which the
        // botnet may take; the reset lets the owner in at once, from any
        // address, their typing one's pair included.
        clock.advance(time::Duration::minutes(15));
        botnet(&state, owner, 5000, 1).await;
        assert!(
            begin(&state, "login", owner, ip("198.51.100.1"))
                .await
                .is_err()
        );
        restart(&state, owner).await.unwrap();
        begin(&state, "login", owner, ip("192.0.2.7"))
            .await
            .unwrap()
            .succeeded(&state)
            .await
            .unwrap();
        begin(&state, "totp", owner, ip("192.0.2.7"))
            .await
            .unwrap()
            .succeeded(&state)
            .await
            .unwrap();
        // The botnet starts over too, against the new password: a hundred
        // more, then the cap again.
        botnet(&state, owner, 0, ACCOUNT_FREE_ATTEMPTS as u32).await;
        assert!(
            begin(&state, "login", owner, ip("198.51.100.1"))
                .await
                .is_err()
        );
    }

    #[tokio::test]
    async fn a_success_forgets_the_owners_typos_but_not_a_botnets_guesses() {
        let (state, _) = state().await;
        let owner = "owner@example.com";
        let home = ip("192.0.2.7");
        // A few typos, then the right password: forgotten.
        botnet(&state, owner, 0, 5).await;
        begin(&state, "login", owner, home)
            .await
            .unwrap()
            .succeeded(&state)
            .await
            .unwrap();
        botnet(&state, owner, 100, ACCOUNT_FREE_ATTEMPTS as u32).await;
        assert!(begin(&state, "login", owner, home).await.is_err());

        // More than ten guesses stay counted when the owner signs in: only
        // the owner's own attempt is taken back.
        let other = "other@example.com";
        botnet(&state, other, 0, 20).await;
        begin(&state, "login", other, home)
            .await
            .unwrap()
            .succeeded(&state)
            .await
            .unwrap();
        botnet(&state, other, 100, (ACCOUNT_FREE_ATTEMPTS - 20) as u32).await;
        assert!(
            begin(&state, "login", other, ip("198.51.100.1"))
                .await
                .is_err()
        );
    }
}
