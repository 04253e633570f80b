//! Events out on the local platform: the store wrapper that tells when an
//! event or a webhook delivery row is written (so streams, the dispatcher and
//! the delivery worker wake instead of polling every few milliseconds), the
//! webhook settings (the private-network switch, an injectable delivery
//! clock for tests) and the two in-process tasks running the same worker the
//! hosted `functions/webhooks` runs.

use std::sync::Arc;
use std::time::Duration;

use alyt_api::AppState;
use alyt_api::groups::developers::webhooks::EventsSettings;
use alyt_domain::Clock;
use alyt_events::bus::{EventBus, NoEventBus};
use alyt_events::stream::{EventSignal, StreamLimits};
use alyt_events::worker::{PASS_INTERVAL, Worker};
use alyt_events::{EventLog, HttpSender, OutboundPolicy};
use alyt_mail::{MailNotice, OutboxMailer};
use alyt_store::counting::{note, note_reach};
use alyt_store::repo;
use alyt_store::repo::feed::FeedReader;
use alyt_store::sqlite::SqliteStore;
use alyt_store::{
    Condition, Durability, Item, Key, Page, Query, Store, StoreError, TxWrite, UpdateAction,
};
use async_trait::async_trait;

/// `ALYT_WEBHOOKS_PRIVATE_NETWORKS`: `on` (the default) lets webhooks reach
/// http URLs and private, loopback and link-local addresses (a receiver on
/// 127.0.0.1); `off` applies the hosted policy (https to public addresses).
pub const PRIVATE_NETWORKS_ENV: &str = alyt_events::outbound::PRIVATE_NETWORKS_ENV;

/// How the local platform delivers webhooks.
#[derive(Clone)]
pub struct WebhookConfig {
    pub allow_private_networks: bool,
    /// The delivery clock (attempt times and the retry schedule); the
    /// platform's clock when `None`. Tests move it to see retries.
    pub clock: Option<Arc<dyn Clock>>,
    /// How often due deliveries are looked for when nothing wakes the worker
    /// ([`PASS_INTERVAL`]; tests change it).
    pub every: Duration,
    /// The event stream's keepalive and time limit (one hour, 15 s); tests
    /// shorten them.
    pub stream: StreamLimits,
    /// Where EventBridge destinations' events are put: an
    /// EventBridge-compatible endpoint ([`EVENTBRIDGE_ENDPOINT_ENV`]); none
    /// by default, and such destinations are then refused.
    pub event_bridge_endpoint: Option<String>,
}

/// The local platform's EventBridge endpoint (moto, LocalStack, …).
pub const EVENTBRIDGE_ENDPOINT_ENV: &str = alyt_aws::eventbridge::ENDPOINT_URL_ENV;

impl Default for WebhookConfig {
    fn default() -> Self {
        Self {
            allow_private_networks: true,
            clock: None,
            every: PASS_INTERVAL,
            stream: StreamLimits::LOCAL,
            event_bridge_endpoint: None,
        }
    }
}

impl std::fmt::Debug for WebhookConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookConfig")
            .field("allow_private_networks", &self.allow_private_networks)
            .field("clock", &self.clock.as_ref().map(|_| "injected"))
            .field("every", &self.every)
            .field("stream", &self.stream)
            .field("event_bridge_endpoint", &self.event_bridge_endpoint)
            .finish()
    }
}

impl WebhookConfig {
    pub fn from_env() -> Self {
        let allow = std::env::var(PRIVATE_NETWORKS_ENV)
            .map(|v| !matches!(v.trim(), "off" | "false" | "0" | "no"))
            .unwrap_or(true);
        Self {
            allow_private_networks: allow,
            stream: StreamLimits::LOCAL.with_env(),
            event_bridge_endpoint: std::env::var(EVENTBRIDGE_ENDPOINT_ENV)
                .ok()
                .filter(|url| !url.trim().is_empty()),
            ..Self::default()
        }
    }

    /// Where EventBridge destinations' events go in this runtime.
    pub fn event_bus(&self) -> Arc<dyn EventBus> {
        match &self.event_bridge_endpoint {
            Some(url) => Arc::new(alyt_aws::eventbridge::EventBridgeBus::local(url.clone())),
            None => Arc::new(NoEventBus),
        }
    }

    pub fn policy(&self) -> OutboundPolicy {
        if self.allow_private_networks {
            OutboundPolicy::LOCAL
        } else {
            OutboundPolicy::HOSTED
        }
    }
}

/// The embedded store, telling when an event or a delivery row is written,
/// and noting each call for `alyt_store::counting::calls_of` (the
/// `x-alyt-store-calls` header of [`crate::Config::report_store_calls`]).
pub struct SignallingStore {
    inner: SqliteStore,
    events: EventSignal,
    deliveries: EventSignal,
    fed: EventSignal,
}

impl SignallingStore {
    pub fn new(inner: SqliteStore) -> Self {
        Self {
            inner,
            events: EventSignal::default(),
            deliveries: EventSignal::default(),
            fed: EventSignal::default(),
        }
    }

    /// Fires after an item marked for the feed is written (what wakes the
    /// telemetry sequencer).
    pub fn feed_signal(&self) -> EventSignal {
        self.fed.clone()
    }

    /// Fires after an event is written.
    pub fn event_signal(&self) -> EventSignal {
        self.events.clone()
    }

    /// Fires after a webhook delivery row is written.
    pub fn delivery_signal(&self) -> EventSignal {
        self.deliveries.clone()
    }

    pub async fn purge_expired(&self) -> Result<usize, StoreError> {
        self.inner.purge_expired().await
    }

    fn written<'a>(&self, keys: impl IntoIterator<Item = &'a Key>) {
        let (mut event, mut delivery) = (false, false);
        for key in keys {
            event |= repo::events::is_event(key);
            delivery |= repo::webhooks::is_delivery(key);
        }
        if event {
            self.events.notify();
        }
        if delivery {
            self.deliveries.notify();
        }
    }
}

#[async_trait]
impl Store for SignallingStore {
    async fn get(&self, key: &Key) -> Result<Option<Item>, StoreError> {
        note("get");
        note_reach("GetItem", &key.pk);
        self.inner.get(key).await
    }

    async fn batch_get(&self, keys: &[Key]) -> Result<Vec<Item>, StoreError> {
        note("batch_get");
        for key in keys {
            note_reach("BatchGetItem", &key.pk);
        }
        self.inner.batch_get(keys).await
    }

    async fn put(&self, item: Item, condition: Option<Condition>) -> Result<(), StoreError> {
        note("put");
        let key = item.key();
        note_reach("PutItem", &key.pk);
        let fed = item.get(alyt_store::attr::FEED).is_some();
        self.inner.put(item, condition).await?;
        self.written([&key]);
        if fed {
            self.fed.notify();
        }
        Ok(())
    }

    async fn update(
        &self,
        key: &Key,
        actions: Vec<UpdateAction>,
        condition: Option<Condition>,
    ) -> Result<Item, StoreError> {
        note("update");
        note_reach("UpdateItem", &key.pk);
        let item = self.inner.update(key, actions, condition).await?;
        self.written([key]);
        Ok(item)
    }

    async fn delete(
        &self,
        key: &Key,
        condition: Option<Condition>,
    ) -> Result<Option<Item>, StoreError> {
        note("delete");
        note_reach("DeleteItem", &key.pk);
        self.inner.delete(key, condition).await
    }

    async fn query(&self, query: Query) -> Result<Page, StoreError> {
        note("query");
        match query.index {
            None => note_reach("Query", &query.partition),
            // A static name: no allocation on a query nobody logs.
            Some(index) => note_reach(
                match index {
                    alyt_store::Index::Gsi1 => "Query gsi1",
                    alyt_store::Index::Gsi2 => "Query gsi2",
                    alyt_store::Index::Gsi3 => "Query gsi3",
                },
                &query.partition,
            ),
        }
        self.inner.query(query).await
    }

    async fn transact(&self, writes: Vec<TxWrite>) -> Result<(), StoreError> {
        self.transact_with(writes, Durability::Synced).await
    }

    async fn transact_with(
        &self,
        writes: Vec<TxWrite>,
        durability: Durability,
    ) -> Result<(), StoreError> {
        note("transact");
        for write in &writes {
            note_write_reach(write);
        }
        let keys: Vec<Key> = writes.iter().map(TxWrite::key).collect();
        let fed = writes.iter().any(|w| match w {
            TxWrite::Put { item, .. } => item.get(alyt_store::attr::FEED).is_some(),
            _ => false,
        });
        self.inner.transact_with(writes, durability).await?;
        self.written(keys.iter());
        if fed {
            self.fed.notify();
        }
        Ok(())
    }
}

#[async_trait]
impl FeedReader for SignallingStore {
    async fn feed_after(&self, after: u64, limit: u32) -> Result<Vec<(u64, Item)>, StoreError> {
        self.inner.feed_after(after, limit).await
    }

    async fn trim_feed(&self, through: u64) -> Result<(), StoreError> {
        self.inner.trim_feed(through).await
    }
}

/// What a transaction's write reaches on DynamoDB (each is authorised as
/// its item action; an append puts the item and moves its log's head).
fn note_write_reach(write: &TxWrite) {
    match write {
        TxWrite::Put { item, .. } => note_reach("PutItem", &item.key().pk),
        TxWrite::Update { key, .. } => note_reach("UpdateItem", &key.pk),
        TxWrite::Delete { key, .. } => note_reach("DeleteItem", &key.pk),
        TxWrite::Check { key, .. } => note_reach("ConditionCheckItem", &key.pk),
        TxWrite::Append { log, .. } | TxWrite::AppendPage { log, .. } => {
            note_reach("PutItem", log);
            let head = alyt_store::log_head_key(log);
            note_reach("GetItem", &head.pk);
            note_reach("UpdateItem", &head.pk);
        }
    }
}

/// The events settings of the local platform: hour-long streams woken by
/// the store's commits, webhook URLs under the configured policy.
pub fn configure(mut state: AppState, config: &WebhookConfig, store: &SignallingStore) -> AppState {
    state.events = EventsSettings {
        stream: config.stream,
        signal: Some(store.event_signal()),
        outbound: config.policy(),
        stream_elsewhere: None,
    };
    state.event_bus = config.event_bus();
    state
}

/// The webhook worker of the local platform (its dispatch and delivery
/// passes are in the registry, woken by the store's writes); none when its
/// HTTP client cannot be built.
pub fn webhook_worker(
    config: &WebhookConfig,
    store: Arc<SignallingStore>,
    clock: Arc<dyn Clock>,
    outbox: std::path::PathBuf,
) -> Option<Worker> {
    if config.allow_private_networks {
        tracing::info!(
            "webhooks and connector servers may reach private networks: http URLs and loopback, \
             private and link-local addresses (a receiver or connector on 127.0.0.1) are allowed; \
             set {PRIVATE_NETWORKS_ENV}=off to refuse them as the hosted platform does"
        );
    } else {
        tracing::info!(
            "webhooks and connector servers reach only https URLs on public addresses \
             ({PRIVATE_NETWORKS_ENV}=off)"
        );
    }
    let sender = match HttpSender::new() {
        Ok(sender) => Arc::new(sender),
        Err(e) => {
            tracing::error!(error = %e, "the webhook HTTP client could not be built; webhooks are not delivered");
            return None;
        }
    };
    let dyn_store: Arc<dyn Store> = store;
    Some(Worker {
        store: dyn_store.clone(),
        clock: config.clock.clone().unwrap_or(clock.clone()),
        log: EventLog::new(dyn_store, clock),
        sender,
        bus: config.event_bus(),
        policy: config.policy(),
        notice: Arc::new(MailNotice(Arc::new(OutboxMailer::new(outbox)))),
    })
}
