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
    /// The packet a QoS 1 publish came in, when the embedded broker took it
    /// (hosted, IoT Core keeps packets to itself: `None`, as for QoS 0 and
    /// last wills).
    pub packet: Option<PublishPacket>,
}

/// A QoS 1 publish's packet, as the embedded broker saw it. A device sends
/// a publish again, with the same packet id, until it gets the PUBACK; the
/// broker acknowledges only once ingest stored the message, so a restart
/// between the commit and the PUBACK leaves a stored message the device
/// will send again, to a broker that no longer remembers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PublishPacket {
    pub id: u16,
    /// The broker cannot tell this publish from the resend of one already
    /// stored whose PUBACK never reached the device: the packet id is
    /// unknown here (its first use since the broker started), or it was
    /// acknowledged with this very content on an earlier connection (the
    /// PUBACK may have been lost as that connection ended; a client need
    /// not mark the resend DUP: rumqttc does not). Ingest asks the store.
    pub maybe_resent: bool,
}

/// What identifies a publish's content for telling a retransmit from a new
/// message on a reused packet id: its topic and payload (SHA-256, hex).
pub fn publish_digest(topic: &str, payload: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    hash.update(topic.as_bytes());
    hash.update([0u8]);
    hash.update(payload);
    hex::encode(hash.finalize())
}

/// A message on its way to ingest, with the receipt the broker waits on
/// before it acknowledges the publish.
#[derive(Debug)]
pub struct Delivery {
    pub message: InboundMessage,
    pub receipt: Receipt,
}

/// Answered once a message is handled for good: stored, or dropped by a
/// rule that retrying would not change (its schema, the quota, an unknown
/// device). Either the embedded broker waits on it before a QoS 1 PUBACK
/// (a receipt dropped unanswered, when the store kept failing or the
/// platform stopped, closes the device's connection instead, and the device
/// sends the message again), or the publish was acknowledged once it was
/// in the broker's durable inbox and the answer lets the inbox forget it
/// (dropped unanswered, the message stays there for the next start).
#[derive(Debug)]
#[must_use = "a receipt dropped unanswered makes the message come again"]
pub struct Receipt(Option<Answer>);

#[derive(Debug)]
enum Answer {
    Waiting(tokio::sync::oneshot::Sender<()>),
    Settles(Box<dyn Settles>),
}

/// What forgets a message once it is handled (the broker's inbox entry).
pub trait Settles: std::fmt::Debug + Send + Sync {
    fn settle(self: Box<Self>);
}

impl Receipt {
    /// For a message nobody waits on (QoS 0, a last will, SQS).
    pub fn none() -> Self {
        Self(None)
    }

    /// A receipt and what its answer arrives on.
    pub fn pair() -> (Self, tokio::sync::oneshot::Receiver<()>) {
        let (answer, answered) = tokio::sync::oneshot::channel();
        (Self(Some(Answer::Waiting(answer))), answered)
    }

    /// For a message the broker's inbox holds until it is handled.
    pub fn settling(entry: impl Settles + 'static) -> Self {
        Self(Some(Answer::Settles(Box::new(entry))))
    }

    pub fn handled(mut self) {
        match self.0.take() {
            Some(Answer::Waiting(answer)) => {
                let _ = answer.send(());
            }
            Some(Answer::Settles(entry)) => entry.settle(),
            None => {}
        }
    }
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
