//! Device messages already applied: ingest's dedupe guard.
//!
//! Key: `MSG#{messageId}` / `MSG`, with `ttl` [`DEDUPE_SECONDS`] after the
//! message was applied.

use crate::{Condition, Item, Key, TxWrite};

/// How long a message id is remembered (SQS redelivers within its retention,
/// at most 14 days; a day covers retries in practice).
pub const DEDUPE_SECONDS: i64 = 86_400;

fn key(message_id: &str) -> Key {
    Key::new(format!("MSG#{message_id}"), "MSG")
}

/// The guard of message `message_id`, applied at `now` (Unix seconds): put
/// first in the message's transaction, it fails that transaction when the
/// message was applied before.
pub fn dedupe_guard(message_id: &str, now: i64) -> TxWrite {
    TxWrite::Put {
        item: Item::new(key(message_id)).with(crate::attr::TTL, now + DEDUPE_SECONDS),
        condition: Some(Condition::item_absent()),
    }
}
