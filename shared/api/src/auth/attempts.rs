//! Counting failed attempts (passwords, TOTP codes) in the store, per subject
//! and window, so a guesser is slowed on every runtime and every instance.

use alyt_store::{Key, UpdateAction};

use super::secrets::sha256_hex;
use crate::{ApiError, AppState};

/// Failures allowed per subject in one window.
pub const MAX_FAILURES: i64 = 10;
pub const WINDOW_SECONDS: i64 = 15 * 60;

fn key(purpose: &str, subject: &str, window: i64) -> Key {
    // The subject (an email, a user id) is hashed: the key never holds an address.
    Key::new(
        format!("ATTEMPTS#{purpose}#{}", sha256_hex(subject)),
        window.to_string(),
    )
}

fn window(state: &AppState) -> (i64, i64) {
    let now = state.clock.unix_seconds();
    let start = now - now.rem_euclid(WINDOW_SECONDS);
    (start, start + WINDOW_SECONDS - now)
}

/// Refuses with 429 while the subject has spent its failures for this window.
pub async fn check(state: &AppState, purpose: &str, subject: &str) -> Result<(), ApiError> {
    let (start, left) = window(state);
    let count = state
        .store
        .get(&key(purpose, subject, start))
        .await?
        .and_then(|i| i.get_i64("count"))
        .unwrap_or(0);
    if count >= MAX_FAILURES {
        return Err(ApiError::too_many_requests(left.max(1) as u64));
    }
    Ok(())
}

pub async fn record_failure(
    state: &AppState,
    purpose: &str,
    subject: &str,
) -> Result<(), ApiError> {
    let (start, _) = window(state);
    state
        .store
        .update(
            &key(purpose, subject, start),
            vec![
                UpdateAction::Add("count".into(), 1),
                UpdateAction::Set("ttl".into(), (start + 2 * WINDOW_SECONDS).into()),
            ],
            None,
        )
        .await?;
    Ok(())
}
