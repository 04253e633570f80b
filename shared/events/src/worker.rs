//! The webhook worker both runtimes run: a dispatch pass (events -> delivery
//! rows, [`crate::dispatch`]), a delivery pass ([`crate::delivery::deliver_due`])
//! and what follows from it: an endpoint disabled at its 50th consecutive
//! failure is announced to its developer by mail and as a tenant
//! notification (`webhook.disabled`, with `notification.raised`) in the
//! developer's sandbox tenant; recent re-enables are followed up; running
//! recoveries move a batch on ([`crate::recovery`]).
//!
//! Locally the `alyt` binary runs the passes in tokio tasks woken by new
//! events and new rows; hosted, `functions/webhooks` runs them in a loop
//! inside each scheduled invocation.

use std::sync::Arc;

use alyt_domain::Clock;
use alyt_store::repo::developers::{DeveloperRecord, Developers};
use alyt_store::repo::notifications::{NotificationRecord, notification_item};
use alyt_store::repo::webhooks::Webhooks;
use alyt_store::{Store, StoreError, TxWrite};
use async_trait::async_trait;
use uuid::Uuid;

use crate::bus::EventBus;
use crate::delivery::{self, DeliveryReport, DisabledEndpoint};
use crate::dispatch::{self, DispatchReport};
use crate::envelope::PlatformEvent;
use crate::log::EventLog;
use crate::outbound::{OutboundPolicy, WebhookSender};
use crate::recovery;
use crate::webhook::DISABLE_AFTER;

/// The tenant notification kind of a disabled endpoint.
pub const KIND_WEBHOOK_DISABLED: &str = "webhook.disabled";
/// How often the worker's passes run when nothing wakes it sooner (both
/// runtimes): a retry falls due at most this late.
pub const PASS_INTERVAL: std::time::Duration = std::time::Duration::from_secs(1);
/// Due rows worked per delivery pass.
pub const DELIVERY_BATCH: u32 = 200;

/// How a developer is told their endpoint was disabled (the runtime's mailer).
#[async_trait]
pub trait DisabledNotice: Send + Sync + 'static {
    async fn endpoint_disabled(
        &self,
        developer: &DeveloperRecord,
        disabled: &DisabledEndpoint,
        description: Option<&str>,
    ) -> Result<(), String>;
}

/// What the worker runs on.
#[derive(Clone)]
pub struct Worker {
    pub store: Arc<dyn Store>,
    /// The delivery clock (attempt times, retry schedule).
    pub clock: Arc<dyn Clock>,
    pub log: EventLog,
    pub sender: Arc<dyn WebhookSender>,
    /// Where EventBridge destinations' deliveries go.
    pub bus: Arc<dyn EventBus>,
    pub policy: OutboundPolicy,
    pub notice: Arc<dyn DisabledNotice>,
}

impl Worker {
    /// Fans recorded events out into delivery rows.
    pub async fn dispatch(&self) -> Result<DispatchReport, StoreError> {
        let report = dispatch::dispatch(self.store.as_ref(), &self.log, self.clock.now()).await?;
        if report.queued + report.held > 0 {
            tracing::debug!(?report, "webhook dispatch");
        }
        Ok(report)
    }

    /// Works due rows, announces disabled endpoints, follows up re-enables,
    /// moves running recoveries a batch on (first, so their rows go out in
    /// this pass).
    pub async fn deliver(&self) -> Result<DeliveryReport, StoreError> {
        let now = self.clock.now();
        dispatch::follow_up_requeues(self.store.as_ref(), now).await?;
        // A recovery that cannot go on must not stop the deliveries.
        match recovery::work(self.store.as_ref(), &self.log, now).await {
            Ok(recovered) if recovered.worked > 0 => {
                tracing::debug!(?recovered, "webhook recoveries");
            }
            Ok(_) => {}
            Err(e) => tracing::error!(error = %e, "webhook recoveries did not move"),
        }
        let report = delivery::deliver_due(
            self.store.clone(),
            self.clock.clone(),
            self.sender.clone(),
            self.bus.clone(),
            self.policy,
            now,
            DELIVERY_BATCH,
        )
        .await?;
        for disabled in &report.disabled {
            if let Err(e) = self.announce(disabled).await {
                tracing::error!(error = %e, endpoint = %disabled.endpoint_id, "could not announce a disabled webhook endpoint");
            }
        }
        if report.attempted > 0 || report.held > 0 {
            tracing::debug!(
                attempted = report.attempted,
                delivered = report.delivered,
                retrying = report.retrying,
                failed = report.failed,
                held = report.held,
                "webhook deliveries"
            );
        }
        Ok(report)
    }

    /// Mail to the developer and a `webhook.disabled` notification with its
    /// `notification.raised` event in the developer's sandbox tenant.
    async fn announce(&self, disabled: &DisabledEndpoint) -> Result<(), StoreError> {
        let Some(developer) = Developers(self.store.as_ref())
            .get(disabled.developer_id)
            .await?
        else {
            return Ok(());
        };
        let endpoint = Webhooks(self.store.as_ref())
            .endpoint(disabled.developer_id, disabled.endpoint_id)
            .await?;
        let description = endpoint.as_ref().and_then(|e| e.description.as_deref());
        if let Err(e) = self
            .notice
            .endpoint_disabled(&developer, disabled, description)
            .await
        {
            tracing::warn!(error = %e, endpoint = %disabled.endpoint_id, "the disabled-endpoint mail was not sent");
        }
        let Some(tenant) = developer.sandbox_tenant_id else {
            return Ok(());
        };
        let notification = NotificationRecord {
            // One per disable: a repeated announcement writes the same item.
            id: Uuid::new_v5(
                &Uuid::NAMESPACE_OID,
                format!("{}#{}", disabled.endpoint_id, disabled.at.unix_timestamp()).as_bytes(),
            ),
            tenant_id: tenant,
            property_id: None,
            client_id: None,
            kind: KIND_WEBHOOK_DISABLED.to_owned(),
            title: "Webhook endpoint disabled".to_owned(),
            body: disabled_text(disabled, description),
            device_id: None,
            at: disabled.at,
        };
        let event = PlatformEvent::NotificationRaised(notification.raised());
        let mut writes = vec![TxWrite::Put {
            item: notification_item(&notification)?,
            condition: None,
        }];
        writes.extend(self.log.writes(tenant, None, vec![event])?);
        self.store.transact(writes).await
    }
}

/// The words of the mail and the notification (never the URL, which may
/// carry a token, nor the secret).
pub fn disabled_text(disabled: &DisabledEndpoint, description: Option<&str>) -> String {
    let name = match description {
        Some(d) if !d.trim().is_empty() => format!("{} ({})", disabled.endpoint_id, d.trim()),
        _ => disabled.endpoint_id.to_string(),
    };
    format!(
        "The webhook endpoint {name} was disabled after {} consecutive failed deliveries \
         (at least {DISABLE_AFTER}). Events for it are kept as held deliveries and are not \
         sent while it is disabled. Fix the receiver, then re-enable the endpoint with \
         POST /v1/developers/webhooks/{}/enable: the held deliveries are sent again.",
        disabled.consecutive_failures, disabled.endpoint_id
    )
}
