//! Counters that limit how often something happens: the request-rate windows
//! the API instances share, the failed-attempt counters of passwords and TOTP
//! codes, and the budget of reset mails per address.
//!
//! Keys (`{bucket}` and `{subject}` are opaque hashes chosen by the caller, so
//! no key holds an address, an email or a token):
//!
//! | item | pk | sk | notes |
//! |---|---|---|---|
//! | rate window | `RATE#{bucket}` | `{windowStart}` | `ADD` of an instance's delta; `ttl` two windows after the start |
//! | attempt counter | `ATTEMPTS#{subject}` | `COUNT` | `ADD 1` before the secret is checked; `first` set once; `ttl` slides; `restarted` when it was last started over (an account's, by a password reset) |
//! | windowed counter | `LIMIT#{subject}` | `{windowStart}` | `ADD`; `ttl` set by the caller |
//!
//! Every counter moves with one update that answers the new value (DynamoDB's
//! `UpdateItem ADD` with `ReturnValues=ALL_NEW`), so two writers never read
//! the same count: N parallel attempts get the counts 1..N, each exactly once.

use crate::{Key, Store, StoreError, UpdateAction};

/// The attribute holding a counter's value.
pub const COUNT: &str = "count";
/// When an attempt counter counted its first attempt (Unix seconds).
pub const FIRST: &str = "first";
/// When an attempt counter was last started over by
/// [`Limits::restart_attempts`] (Unix seconds).
pub const RESTARTED: &str = "restarted";

fn rate_key(bucket: &str, window_start: i64) -> Key {
    Key::new(format!("RATE#{bucket}"), window_start.to_string())
}

fn attempts_key(subject: &str) -> Key {
    Key::new(format!("ATTEMPTS#{subject}"), "COUNT")
}

fn windowed_key(subject: &str, window_start: i64) -> Key {
    Key::new(format!("LIMIT#{subject}"), window_start.to_string())
}

/// One counted attempt: its number since the counter started, when the
/// counter started, and when it was last started over (if ever).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttemptCount {
    pub count: i64,
    pub first: i64,
    pub restarted: Option<i64>,
}

pub struct Limits<'a>(pub &'a dyn Store);

impl Limits<'_> {
    /// Adds an instance's `delta` to the shared count of `bucket` in the
    /// window starting at `window_start` (`window_seconds` long) and answers
    /// the total of every instance.
    pub async fn add_to_rate_window(
        &self,
        bucket: &str,
        window_start: i64,
        window_seconds: i64,
        delta: i64,
    ) -> Result<i64, StoreError> {
        let item = self
            .0
            .update(
                &rate_key(bucket, window_start),
                vec![
                    UpdateAction::Add(COUNT.into(), delta),
                    UpdateAction::Set(
                        "ttl".into(),
                        (window_start + 2 * window_seconds.max(1)).into(),
                    ),
                ],
                None,
            )
            .await?;
        Ok(item.get_i64(COUNT).unwrap_or(0))
    }

    /// Counts one attempt of `subject` and answers its number. The counter
    /// lives until `expires_at` (each attempt moves it on); `first` is the
    /// time of the attempt that started it.
    pub async fn count_attempt(
        &self,
        subject: &str,
        now: i64,
        expires_at: i64,
    ) -> Result<AttemptCount, StoreError> {
        let item = self
            .0
            .update(
                &attempts_key(subject),
                vec![
                    UpdateAction::Add(COUNT.into(), 1),
                    UpdateAction::SetIfAbsent(FIRST.into(), now.into()),
                    UpdateAction::Set("ttl".into(), expires_at.into()),
                ],
                None,
            )
            .await?;
        Ok(AttemptCount {
            count: item.get_i64(COUNT).unwrap_or(1),
            first: item.get_i64(FIRST).unwrap_or(now),
            restarted: item.get_i64(RESTARTED),
        })
    }

    /// Takes back one counted attempt (one that was refused unevaluated).
    /// Only ever after [`count_attempt`](Self::count_attempt) of the same
    /// subject, so the counter exists; a counter that expired meanwhile is
    /// left alone.
    pub async fn uncount_attempt(&self, subject: &str) -> Result<(), StoreError> {
        let result = self
            .0
            .update(
                &attempts_key(subject),
                vec![UpdateAction::Add(COUNT.into(), -1)],
                Some(crate::Condition::item_present()),
            )
            .await;
        match result {
            Err(e) if e.is_condition_failure() => Ok(()),
            other => other.map(|_| ()),
        }
    }

    /// Forgets every attempt of `subject` (after a success).
    pub async fn clear_attempts(&self, subject: &str) -> Result<(), StoreError> {
        self.0.delete(&attempts_key(subject), None).await?;
        Ok(())
    }

    /// Forgets the attempts of `subject` but keeps its counter and when it
    /// was last restarted: the count goes to 0 and the next attempt is its
    /// new first. A counter that is gone is left alone (so nothing without a
    /// `ttl` is created).
    pub async fn forget_attempts(&self, subject: &str) -> Result<(), StoreError> {
        let result = self
            .0
            .update(
                &attempts_key(subject),
                vec![
                    UpdateAction::Set(COUNT.into(), 0i64.into()),
                    UpdateAction::Remove(FIRST.into()),
                ],
                Some(crate::Condition::item_present()),
            )
            .await;
        match result {
            Err(e) if e.is_condition_failure() => Ok(()),
            other => other.map(|_| ()),
        }
    }

    /// Starts `subject`'s counter over at `now` (a password reset): its
    /// attempts are forgotten, [`RESTARTED`] says when, and it lives until
    /// `expires_at`. One update, whether or not the counter existed.
    pub async fn restart_attempts(
        &self,
        subject: &str,
        now: i64,
        expires_at: i64,
    ) -> Result<(), StoreError> {
        self.0
            .update(
                &attempts_key(subject),
                vec![
                    UpdateAction::Set(COUNT.into(), 0i64.into()),
                    UpdateAction::Remove(FIRST.into()),
                    UpdateAction::Set(RESTARTED.into(), now.into()),
                    UpdateAction::Set("ttl".into(), expires_at.into()),
                ],
                None,
            )
            .await?;
        Ok(())
    }

    /// Adds `delta` to the counter of `subject` in the window starting at
    /// `window_start` and answers the new value; the item expires at
    /// `expires_at`.
    pub async fn add_in_window(
        &self,
        subject: &str,
        window_start: i64,
        delta: i64,
        expires_at: i64,
    ) -> Result<i64, StoreError> {
        let item = self
            .0
            .update(
                &windowed_key(subject, window_start),
                vec![
                    UpdateAction::Add(COUNT.into(), delta),
                    UpdateAction::Set("ttl".into(), expires_at.into()),
                ],
                None,
            )
            .await?;
        Ok(item.get_i64(COUNT).unwrap_or(0))
    }
}
