//! What the device plane's edges share, with or without the embedded broker:
//! how a device is authenticated and what one accepted message looks like.
//! (The hosted runtime authenticates with IoT Core certificates and delivers
//! messages through SQS; the same ingest takes them.)

use async_trait::async_trait;
use bytes::Bytes;
use time::OffsetDateTime;

use crate::topic::{Channel, DeviceIdentity};

/// Decides who a connecting device is. The local platform looks the username up
/// in the store and checks the password against the per-device credential hash.
#[async_trait]
pub trait DeviceAuthenticator: Send + Sync + 'static {
    /// The identity these credentials belong to, or `None` to refuse the
    /// connection. `client_id` is passed so an implementation can pin it to
    /// the credential; the broker itself never derives rights from it.
    async fn authenticate(
        &self,
        client_id: &str,
        username: &str,
        password: &[u8],
    ) -> Option<DeviceIdentity>;
}

/// One accepted device-to-platform message. The payload is unvalidated: schema
/// checks belong to the ingest pipeline.
#[derive(Debug, Clone, PartialEq)]
pub struct InboundMessage {
    /// Unique per message, stable across redeliveries of that message (the
    /// embedded broker stamps a UUID; hosted, the IoT rule's `newuuid()`
    /// travels in the SQS body). Ingest deduplicates on it.
    pub message_id: String,
    pub identity: DeviceIdentity,
    pub channel: Channel,
    pub topic: String,
    pub payload: Bytes,
    pub retained: bool,
    /// Published by the broker on the device's behalf because its connection
    /// ended without DISCONNECT (liveness reason 'last-will').
    pub last_will: bool,
    pub received_at: OffsetDateTime,
}
