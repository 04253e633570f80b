//! Device messages already applied: ingest's dedupe guard, and the last
//! QoS 1 publish each device had stored through the embedded broker.
//!
//! Keys: `MSG#{messageId}` / `MSG`, with `ttl` [`DEDUPE_SECONDS`] after the
//! message was applied; `DEVICE#{deviceId}` / `PUBLISHED`, with `ttl`
//! [`PUBLISHED_SECONDS`].

use alyt_domain::ids::DeviceId;
use serde::{Deserialize, Serialize};

use crate::{Condition, Item, Key, Store, StoreError, TxWrite};

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

/// How long a device's last stored publish is remembered: a device that
/// never got the PUBACK sends it again once it reconnects to the next run.
pub const PUBLISHED_SECONDS: i64 = 600;

/// The last QoS 1 publish stored for a device (embedded broker only): its
/// packet id, content digest and message id. A publish on the same packet
/// id with the same content, that the broker does not know, is that
/// message again (stored, then the platform stopped before the PUBACK).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PublishedRecord {
    pub packet: u16,
    pub digest: String,
    pub message_id: String,
}

fn published_key(device: DeviceId) -> Key {
    Key::new(format!("DEVICE#{device}"), "PUBLISHED")
}

/// Written in the message's own transaction, so it exists exactly when the
/// message was stored.
pub fn published_write(
    device: DeviceId,
    record: &PublishedRecord,
    now: i64,
) -> Result<TxWrite, StoreError> {
    Ok(TxWrite::Put {
        item: Item::from_record(published_key(device), record)?
            .with(crate::attr::TTL, now + PUBLISHED_SECONDS),
        condition: None,
    })
}

pub async fn last_published(
    store: &dyn Store,
    device: DeviceId,
) -> Result<Option<PublishedRecord>, StoreError> {
    store
        .get(&published_key(device))
        .await?
        .map(|item| item.to_record())
        .transpose()
}
