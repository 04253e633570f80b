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
    /// embedded broker stamps a UUID, and the same one on a device's
    /// retransmit of the publish, DUP with the same packet id; hosted, the
    /// IoT rule's `newuuid()` travels in the SQS body). Ingest deduplicates
    /// on it.
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
    /// The address the device's connection came from, as the broker saw it
    /// (the embedded broker's socket; hosted, the topic rule's
    /// `sourceip()`). A hub's tells the platform its home's internet
    /// address (the network condition's second signal).
    pub source_address: Option<std::net::IpAddr>,
}

/// Why a command could not be handed to the device. The row stays pending
/// and a later sweep tries again.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PublishError {
    /// Nobody listens on the device's commands topic (not connected, or not
    /// subscribed yet).
    #[error("the device is not subscribed to its commands")]
    NotSubscribed,
    /// This runtime cannot publish (the sweep delivers later).
    #[error("this runtime cannot publish to devices")]
    Unsupported,
    #[error("the publish failed: {0}")]
    Failed(String),
}

/// The port commands leave through: publish a payload on the device's
/// `commands` channel. Locally the embedded broker (`BrokerPublisher`);
/// hosted, IoT Core's data plane (`alyt_aws::IotDataPublisher`). Functions
/// that never publish use [`NoPublisher`].
#[async_trait]
pub trait DevicePublisher: Send + Sync + 'static {
    async fn publish(
        &self,
        identity: &DeviceIdentity,
        payload: Vec<u8>,
    ) -> Result<(), PublishError>;

    /// Ends the device's open broker session, if any (after its credential
    /// was revoked, so it cannot log in again). Runtimes whose broker drops
    /// sessions on revocation by itself keep this default.
    async fn disconnect(&self, _identity: &DeviceIdentity) -> Result<(), PublishError> {
        Ok(())
    }
}

/// A publisher for runtimes that cannot reach devices: every publish fails
/// with [`PublishError::Unsupported`].
#[derive(Debug, Clone, Copy, Default)]
pub struct NoPublisher;

#[async_trait]
impl DevicePublisher for NoPublisher {
    async fn publish(&self, _: &DeviceIdentity, _: Vec<u8>) -> Result<(), PublishError> {
        Err(PublishError::Unsupported)
    }
}
