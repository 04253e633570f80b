//! The `MQTT_MESSAGES` quota: messages published by a developer's virtual
//! devices count against the developer's window, which bounds the BURST
//! scenario too. Ingest asks [`MessageMeter::admit`] before it applies a
//! virtual device's message; a refused message is dropped (no state change, no
//! event). The simulator asks [`MessageMeter::spent`] so a device over its
//! budget goes silent instead of publishing into the void.
//!
//! Cost: no store write per message. Messages are counted in the process's
//! usage meter ([`alyt_store::meter`]: exact within the process, written at
//! most once per counter per flush; its docs say what a crash or several
//! instances cost). The tenant's developer and the quota value are cached in
//! process (the quota for [`QUOTA_CACHE`], so an override takes effect within
//! that time). A message SQS redelivers is counted again (the counter is not
//! part of the ingest transaction: a hot counter inside every transaction
//! would make concurrent messages of one developer conflict); at-least-once
//! delivery makes that rare.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use alyt_domain::Clock;
use alyt_domain::ids::{DeveloperId, TenantId};
use alyt_domain::quota::{QuotaKind, QuotaValue};
use alyt_store::meter::UsageMeter;
use alyt_store::repo::tenancy::Tenancy;
use alyt_store::repo::usage::{Counter, Quotas};
use alyt_store::{Store, StoreError};

/// How long a developer's quota value is reused before it is read again.
pub const QUOTA_CACHE: Duration = Duration::from_secs(30);
/// Counters outlive their window by this much (usage reports read them).
const RETAIN_SECONDS: i64 = 35 * 86_400;

#[derive(Clone)]
pub struct MessageMeter {
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    usage: UsageMeter,
    developers: Arc<Mutex<HashMap<TenantId, Option<DeveloperId>>>>,
    quotas: Arc<Mutex<HashMap<DeveloperId, (Instant, QuotaValue)>>>,
}

impl MessageMeter {
    /// A meter counting in a usage meter of its own (flush it with
    /// [`MessageMeter::usage`]).
    pub fn new(store: Arc<dyn Store>, clock: Arc<dyn Clock>) -> Self {
        let usage = UsageMeter::new(store.clone());
        Self::counting_in(store, clock, usage)
    }

    /// A meter counting in `usage` (the process's one usage meter, so the
    /// usage answers of the same process see its unwritten counts).
    pub fn counting_in(store: Arc<dyn Store>, clock: Arc<dyn Clock>, usage: UsageMeter) -> Self {
        Self {
            store,
            clock,
            usage,
            developers: Arc::default(),
            quotas: Arc::default(),
        }
    }

    /// The developer whose sandbox `tenant` is (`None`: not a sandbox, nothing
    /// is metered). Cached for good: a tenant never changes hands.
    async fn developer(&self, tenant: TenantId) -> Result<Option<DeveloperId>, StoreError> {
        if let Some(found) = self.lock_developers().get(&tenant) {
            return Ok(*found);
        }
        let developer = Tenancy(&*self.store)
            .tenant(tenant)
            .await?
            .filter(|t| t.sandbox)
            .and_then(|t| t.developer_id);
        self.lock_developers().insert(tenant, developer);
        Ok(developer)
    }

    async fn quota(&self, developer: DeveloperId) -> Result<QuotaValue, StoreError> {
        if let Some((read_at, value)) = self.lock_quotas().get(&developer)
            && read_at.elapsed() < QUOTA_CACHE
        {
            return Ok(*value);
        }
        let value = Quotas(&*self.store)
            .effective(developer)
            .await?
            .get(QuotaKind::MqttMessages)
            .value;
        self.lock_quotas()
            .insert(developer, (Instant::now(), value));
        Ok(value)
    }

    fn counter(&self, developer: DeveloperId, value: &QuotaValue) -> Counter {
        Counter::Window {
            developer,
            kind: QuotaKind::MqttMessages,
            window_key: value.window.key(self.clock.now()),
        }
    }

    /// Counts one message of a virtual device of `tenant`; `false` when the
    /// developer's `MQTT_MESSAGES` ceiling is spent (the message is dropped
    /// and not counted). Tenants that are not sandboxes are never metered.
    pub async fn admit(&self, tenant: TenantId) -> Result<bool, StoreError> {
        let Some(developer) = self.developer(tenant).await? else {
            return Ok(true);
        };
        let value = self.quota(developer).await?;
        let expires = value.window.end(self.clock.now()).unix_timestamp() + RETAIN_SECONDS;
        self.usage
            .admit(self.counter(developer, &value), value.ceiling, expires)
            .await
    }

    /// Whether the `MQTT_MESSAGES` budget of `tenant`'s developer is spent
    /// for the current window (the count is read once per process, then kept
    /// in the usage meter; the quota is cached).
    pub async fn spent(&self, tenant: TenantId) -> Result<bool, StoreError> {
        let Some(developer) = self.developer(tenant).await? else {
            return Ok(false);
        };
        let value = self.quota(developer).await?;
        let used = self.usage.current(&self.counter(developer, &value)).await?;
        Ok(used >= value.ceiling)
    }

    /// The usage meter the messages are counted in (the runtime flushes it).
    pub fn usage(&self) -> &UsageMeter {
        &self.usage
    }

    fn lock_developers(&self) -> std::sync::MutexGuard<'_, HashMap<TenantId, Option<DeveloperId>>> {
        self.developers.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn lock_quotas(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<DeveloperId, (Instant, QuotaValue)>> {
        self.quotas.lock().unwrap_or_else(|e| e.into_inner())
    }
}
