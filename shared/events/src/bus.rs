//! EventBridge destinations: a delivery to a developer's bus is one
//! `PutEvents` entry carrying the envelope as `detail` and the kind as
//! `detail-type`, worked like a webhook row (the same claim, retries,
//! auto-disable and log; [`crate::delivery`]). The worker takes the bus as
//! a port: the AWS SDK client is `alyt_aws::eventbridge` (hosted, and
//! locally against a configured endpoint URL); [`NoEventBus`] where the
//! runtime has none.

use alyt_store::repo::webhooks::EventBridgeTarget;
use async_trait::async_trait;
use time::OffsetDateTime;

use crate::outbound::SendResult;

/// One entry for a bus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BusEntry {
    /// The event kind (`detail-type`).
    pub detail_type: String,
    /// The envelope as JSON (`detail`), the body a webhook would get.
    pub detail: String,
    /// When the event happened (`time`).
    pub time: OffsetDateTime,
}

/// The status a delivery's log shows when the bus accepted the entry.
pub const ACCEPTED: u16 = 200;

/// Puts entries on developers' buses.
#[async_trait]
pub trait EventBus: Send + Sync + 'static {
    /// [`SendResult::Answered`] with [`ACCEPTED`] when the bus took the
    /// entry; [`SendResult::Failed`] with the service's reason otherwise.
    async fn put(&self, target: &EventBridgeTarget, entry: BusEntry) -> SendResult;
}

/// A runtime that cannot reach EventBridge: every put fails, saying so.
pub struct NoEventBus;

/// Why [`NoEventBus`] fails.
pub const NO_EVENT_BUS: &str = "this platform has no EventBridge client (locally: set \
                                ALYT_EVENTBRIDGE_ENDPOINT_URL to an EventBridge-compatible endpoint)";

#[async_trait]
impl EventBus for NoEventBus {
    async fn put(&self, _target: &EventBridgeTarget, _entry: BusEntry) -> SendResult {
        SendResult::Failed(NO_EVENT_BUS.to_owned())
    }
}
