//! Webhook deliveries to an EventBridge destination through the real SDK
//! client, against moto's EventBridge: the worker puts the envelope as
//! `detail` with the kind as `detail-type` (read back from moto's SQS, the
//! target of a rule on the bus), and a bus that refuses is retried on the
//! webhook schedule and disabled after the same count of failures.

use std::sync::Arc;

use alyt_domain::ids::{TenantId, WebhookId};
use alyt_domain::{Clock, ManualClock};
use alyt_events::bus::EventBus;
use alyt_events::webhook::{DISABLE_AFTER, FIRST_RETRY};
use alyt_events::{EventKind, EventLog, HttpSender, OutboundPolicy, delivery, signature};
use alyt_store::Store;
use alyt_store::conformance::start_time;
use alyt_store::repo::webhooks::{
    DeliveryStatus, DisabledReason, EndpointStatus, EventBridgeTarget, WebhookEndpointRecord,
    WebhookRoute, Webhooks,
};
use alyt_store::sqlite::SqliteStore;
use serde_json::{Value, json};

use alyt_aws::testing::{MOTO_ACCOUNT as ACCOUNT, MOTO_REGION as REGION};

struct World {
    clock: Arc<ManualClock>,
    store: Arc<dyn Store>,
    log: EventLog,
    tenant: TenantId,
}

impl World {
    fn new() -> World {
        let clock = Arc::new(ManualClock::new(start_time()));
        let store: Arc<dyn Store> = Arc::new(SqliteStore::in_memory(clock.clone()).unwrap());
        World {
            log: EventLog::new(store.clone(), clock.clone()),
            clock,
            store,
            tenant: TenantId::new(),
        }
    }

    async fn destination(&self, bus_arn: &str) -> WebhookEndpointRecord {
        let key = alyt_store::fixtures::active_developer_key(self.store.as_ref(), self.clock.now())
            .await
            .unwrap();
        let record = WebhookEndpointRecord {
            id: WebhookId::new(),
            developer_id: key.developer_id,
            key_id: key.id,
            route: WebhookRoute::Tenant {
                tenant_id: self.tenant,
            },
            url: bus_arn.to_owned(),
            event_bridge: Some(EventBridgeTarget {
                account_id: ACCOUNT.into(),
                region: REGION.into(),
                event_bus_arn: bus_arn.to_owned(),
                event_source_name: None,
            }),
            events: vec![EventKind::DeviceOnline.as_str().to_owned()],
            description: None,
            secret: signature::generate_secret(),
            previous_secret: None,
            previous_secret_until: None,
            status: EndpointStatus::Active,
            consecutive_failures: 0,
            disabled_at: None,
            disabled_reason: None,
            created_at: self.clock.now(),
        };
        Webhooks(self.store.as_ref())
            .create_endpoint(&record)
            .await
            .unwrap();
        record
    }

    /// Records a device.online and fans it out; its id.
    async fn event(&self) -> alyt_events::EventEnvelope {
        let event = self
            .log
            .record(
                self.tenant,
                EventKind::DeviceOnline,
                json!({ "deviceId": "d1", "at": "now" }),
            )
            .await
            .unwrap();
        let endpoints = delivery::endpoints_for(self.store.as_ref(), self.tenant, &[])
            .await
            .unwrap();
        delivery::enqueue(self.store.as_ref(), &endpoints, &event, self.clock.now())
            .await
            .unwrap();
        event
    }

    async fn deliver(&self) -> delivery::DeliveryReport {
        let bus: Arc<dyn EventBus> = Arc::new(alyt_aws::testing::moto().await.eventbridge_bus());
        delivery::deliver_due(
            self.store.clone(),
            self.clock.clone(),
            Arc::new(HttpSender::new().unwrap()),
            bus,
            OutboundPolicy::HOSTED,
            self.clock.now(),
            100,
        )
        .await
        .unwrap()
    }
}

#[tokio::test]
async fn a_delivery_reaches_the_bus_with_the_envelope_as_detail() {
    let (bus, queue) = alyt_aws::testing::moto().await.bus_with_queue().await;
    let w = World::new();
    let destination = w.destination(&bus).await;
    let event = w.event().await;
    let report = w.deliver().await;
    assert_eq!((report.attempted, report.delivered), (1, 1), "{report:?}");

    let row = Webhooks(w.store.as_ref())
        .delivery(destination.id, event.id.as_str())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.status, DeliveryStatus::Delivered);
    assert_eq!(row.last_response_code, Some(200));
    assert_eq!(row.signature, None, "a bus entry is not signed");

    let received = alyt_aws::testing::moto().await.received(&queue).await;
    assert_eq!(received.len(), 1, "{received:?}");
    let entry = &received[0];
    assert_eq!(entry["source"], "alyt", "{entry}");
    assert_eq!(entry["detail-type"], "device.online", "{entry}");
    let envelope: Value = serde_json::from_str(&row.payload).unwrap();
    assert_eq!(entry["detail"], envelope, "the envelope a webhook gets");
    assert_eq!(entry["detail"]["id"], event.id.as_str());
    assert_eq!(
        entry["time"],
        event
            .created_at
            .replace_nanosecond(0)
            .unwrap()
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap()
    );
}

#[tokio::test]
async fn a_bus_that_refuses_is_retried_on_schedule_and_disabled_after_the_same_count() {
    let w = World::new();
    let missing = format!("arn:aws:events:{REGION}:{ACCOUNT}:event-bus/no-such-bus");
    let destination = w.destination(&missing).await;
    let first = w.event().await;
    let report = w.deliver().await;
    assert_eq!((report.attempted, report.retrying), (1, 1), "{report:?}");
    let webhooks = Webhooks(w.store.as_ref());
    let row = webhooks
        .delivery(destination.id, first.id.as_str())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.status, DeliveryStatus::Retrying);
    assert_eq!(row.next_attempt_at, Some(w.clock.now() + FIRST_RETRY));
    let error = row.last_error.clone().unwrap();
    assert_eq!(
        error, "ResourceNotFoundException: Event bus no-such-bus does not exist.",
        "the service's code and message, as a developer reads them in the log"
    );

    // The retry, on the webhook schedule.
    w.clock.advance(FIRST_RETRY);
    let report = w.deliver().await;
    assert_eq!(report.attempted, 1, "{report:?}");
    // Failures up to the threshold disable it, as a webhook's do.
    for _ in 2..DISABLE_AFTER {
        w.event().await;
    }
    let report = w.deliver().await;
    assert_eq!(report.disabled.len(), 1, "{report:?}");
    let disabled = webhooks
        .endpoint(destination.developer_id, destination.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(disabled.status, EndpointStatus::Disabled);
    assert_eq!(disabled.why_disabled(), Some(DisabledReason::Failures));
    assert_eq!(disabled.consecutive_failures, DISABLE_AFTER);
}
