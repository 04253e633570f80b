//! Device messages already applied: ingest's dedupe guard, and the latest
//! QoS 1 publishes each device had stored through the embedded broker.
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

/// How long a device's latest stored publishes are remembered: a device
/// that never got the PUBACK sends them again once it reconnects to the
/// next run.
pub const PUBLISHED_SECONDS: i64 = 600;

/// How many of a device's latest stored QoS 1 publishes are remembered:
/// more than the PUBACKs a crash swallows (a few a device: the broker
/// writes them as it takes each publish), fewer than the packet ids a
/// client cycles through (rumqttc: 100), so that a new publish after a
/// restart, on the next packet id, is not mistaken for an old one.
pub const PUBLISHED_KEPT: usize = 8;

/// The latest QoS 1 publishes stored for a device (embedded broker only):
/// the packet id and content digest of each. A publish the broker does not
/// know, on one of these packet ids with the content last stored on it, is
/// that message again (stored, then the platform stopped before its PUBACK
/// reached the device).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PublishedRecord {
    /// Oldest first, one per packet id (its latest use), at most
    /// [`PUBLISHED_KEPT`]. (A record written before it was kept as a list
    /// reads as empty.)
    #[serde(default)]
    pub recent: Vec<Published>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Published {
    pub packet: u16,
    pub digest: String,
}

impl PublishedRecord {
    /// The digest of what was last stored on `packet`, when it is kept.
    pub fn digest_on(&self, packet: u16) -> Option<&str> {
        self.recent
            .iter()
            .rev()
            .find(|p| p.packet == packet)
            .map(|p| p.digest.as_str())
    }

    /// The record once a publish on `packet` with `digest` is stored too.
    pub fn with(mut self, packet: u16, digest: String) -> Self {
        self.recent.retain(|p| p.packet != packet);
        self.recent.push(Published { packet, digest });
        let over = self.recent.len().saturating_sub(PUBLISHED_KEPT);
        self.recent.drain(..over);
        self
    }
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
