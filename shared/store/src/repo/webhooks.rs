//! Webhook endpoints and their deliveries (key design in `DATA_MODEL.md`,
//! section "Webhooks"). The rules (retry schedule, state moves, health) live in
//! `alyt-events`; this module stores them with the conditions that keep them
//! correct under concurrent workers.
//!
//! Keys:
//! * endpoint `DEVELOPER#{dev}/WEBHOOK#{w}`: a developer's endpoints are one
//!   query of their partition. gsi1 `WHROUTE#{route}` / `WEBHOOK#{w}`: the
//!   endpoints an event of a tenant is fanned out to (route = the tenant of a
//!   DEV key's sandbox, or the connector of a LIVE key).
//! * delivery `WEBHOOK#{w}/DELIVERY#{eventId}`: one row per endpoint x event,
//!   created with `attribute_not_exists`, so fanning an event out twice
//!   queues it once; event ids sort by time, so a backward query is the
//!   endpoint's delivery log newest first.
//! * gsi1 `WHDUE#{shard}` / `{nextAttemptAt µs:020}#{w}#{eventId}` while a
//!   row is pending or retrying: the worker reads what is due, oldest first.
//!   Sharded by FNV-1a of the row's key ([`DUE_SHARDS`]).
//! * gsi2 `WHHELD#{w}` / `{eventId}` while a row is held (its endpoint is
//!   disabled): re-enabling requeues them in event order.
//! * re-enable follow-up `WHREQUEUE/WEBHOOK#{w}` (`ttl` an hour): the worker
//!   requeues what is still held shortly after a re-enable.
//!
//! Every row write is conditioned on `rev` (bumped by every write), so two
//! workers never both claim an attempt and a late outcome never overwrites a
//! newer one.

use alyt_domain::ids::{DeveloperId, KeyId, TenantId, WebhookId};
use serde::{Deserialize, Serialize};
use serde_json::json;
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

use super::{page, record, ts};
use crate::{
    CancelReason, Condition, Index, Item, Key, ListScope, PageKey, Query, SortKey, Store,
    StoreError, TxWrite, UpdateAction,
};

/// Shards of the due index. Every queued row writes its shard at least twice
/// (queued, settled) and once per retry; one DynamoDB index partition takes
/// about 1,000 writes/s, so 8 shards carry roughly 2,500 deliveries/s
/// platform-wide before the count must grow (a change re-shards: rewrite the
/// due rows).
pub const DUE_SHARDS: u32 = 8;
/// Deliveries shown per endpoint: the last fifty.
pub const HISTORY: u32 = 50;
/// How long a delivery row stays after its last change. Rows carry the whole
/// signed payload, so a disabled endpoint's backlog outlives the 7-day event
/// log and is redelivered by a re-enable within this time.
pub const DELIVERY_RETENTION: Duration = Duration::days(30);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum EndpointStatus {
    Active,
    Disabled,
}

/// Why an endpoint is disabled. `failures` and `manual` are lifted by a
/// re-enable alone; the others need the key (or the developer account) to be
/// sound again, which a revoked or expired key never is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum DisabledReason {
    /// Fifty consecutive failed deliveries.
    Failures,
    /// The key it is bound to was revoked.
    KeyRevoked,
    /// The key it is bound to expired.
    KeyExpired,
    /// Its developer's account is suspended.
    DeveloperSuspended,
    /// Its developer (or its key) disabled it.
    Manual,
}

/// Which tenants' events an endpoint receives: the key it is bound to decides.
/// A DEV key hears its sandbox tenant; a LIVE key every tenant that installed
/// its connector, so the route is the connector and the fan-out looks up a
/// tenant's installed connectors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum WebhookRoute {
    #[serde(rename_all = "camelCase")]
    Tenant { tenant_id: TenantId },
    #[serde(rename_all = "camelCase")]
    Connector { definition_id: String },
}

impl WebhookRoute {
    /// The gsi1 partition of the endpoints on this route.
    pub fn partition(&self) -> String {
        match self {
            WebhookRoute::Tenant { tenant_id } => format!("WHROUTE#TENANT#{tenant_id}"),
            WebhookRoute::Connector { definition_id } => {
                format!("WHROUTE#CONNECTOR#{definition_id}")
            }
        }
    }
}

/// A registered endpoint.
///
/// The signing secret is stored as issued, not hashed: it is the HMAC key the
/// platform signs every delivery with, so the platform must be able to read it
/// (Stripe holds its endpoint secrets the same way). It is a per-endpoint key
/// that authenticates nothing towards us, so reading it lets one forge
/// deliveries to that endpoint only; the table is encrypted at rest (DynamoDB
/// with KMS), and application-level encryption would need a key the same
/// worker role can read, which adds little. `Debug` never prints it, and
/// nothing logs a record.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebhookEndpointRecord {
    pub id: WebhookId,
    pub developer_id: DeveloperId,
    /// The developer key the endpoint is bound to.
    pub key_id: KeyId,
    pub route: WebhookRoute,
    /// Where deliveries go: the receiver's URL, or for an EventBridge
    /// destination its bus's ARN.
    pub url: String,
    /// Set for a destination of kind `eventbridge`: deliveries are put on
    /// this bus instead of POSTed to `url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_bridge: Option<EventBridgeTarget>,
    /// Event kinds (as on the wire) the endpoint receives.
    pub events: Vec<String>,
    pub description: Option<String>,
    pub secret: String,
    /// The secret a rotation replaced, still signing beside `secret` until
    /// `previous_secret_until` (the grace period), so receivers can switch
    /// without refusing a delivery. Absent outside a grace period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_secret: Option<String>,
    #[serde(with = "ts::option", default, skip_serializing_if = "Option::is_none")]
    pub previous_secret_until: Option<OffsetDateTime>,
    pub status: EndpointStatus,
    /// Failed attempts since the last success (or enable).
    pub consecutive_failures: u32,
    #[serde(with = "ts::option", default)]
    pub disabled_at: Option<OffsetDateTime>,
    /// Why it is disabled (endpoints disabled before reasons were kept read
    /// as `failures`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disabled_reason: Option<DisabledReason>,
    #[serde(with = "ts::rfc3339")]
    pub created_at: OffsetDateTime,
}

/// A developer's EventBridge bus: in their account and region, named by
/// its ARN, or by a partner-style event source name (the bus of that name
/// the source's events go to). Entries are put with the envelope as
/// `detail`, the kind as `detail-type` and `source` below.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventBridgeTarget {
    pub account_id: String,
    pub region: String,
    /// `arn:aws:events:{region}:{account}:event-bus/{name}`.
    pub event_bus_arn: String,
    /// The partner-style event source name (`aws.partner/…`), when the
    /// destination was named by one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_source_name: Option<String>,
}

/// `source` of entries put on a bus named by its ARN.
pub const EVENT_BRIDGE_SOURCE: &str = "alyt";

impl EventBridgeTarget {
    /// The `source` of the entries put on this bus.
    pub fn source(&self) -> &str {
        self.event_source_name
            .as_deref()
            .unwrap_or(EVENT_BRIDGE_SOURCE)
    }
}

impl WebhookEndpointRecord {
    /// The secrets a delivery at `now` is signed with: the current one, and
    /// the replaced one while its grace period lasts.
    pub fn signing_secrets(&self, now: OffsetDateTime) -> impl Iterator<Item = &str> + Clone {
        let in_grace = self.previous_secret_until.is_some_and(|until| now < until);
        std::iter::once(self.secret.as_str())
            .chain(self.previous_secret.as_deref().filter(|_| in_grace))
    }

    /// Why it is disabled; `None` while active.
    pub fn why_disabled(&self) -> Option<DisabledReason> {
        match self.status {
            EndpointStatus::Active => None,
            EndpointStatus::Disabled => {
                Some(self.disabled_reason.unwrap_or(DisabledReason::Failures))
            }
        }
    }
}

impl std::fmt::Debug for WebhookEndpointRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookEndpointRecord")
            .field("id", &self.id)
            .field("developer_id", &self.developer_id)
            .field("key_id", &self.key_id)
            .field("route", &self.route)
            .field("events", &self.events)
            .field("status", &self.status)
            .field("consecutive_failures", &self.consecutive_failures)
            .field("secret", &"<redacted>")
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum DeliveryStatus {
    /// Queued, never attempted (or requeued by a re-enable).
    Pending,
    /// Attempted and failed; the next attempt is at `nextAttemptAt`.
    Retrying,
    Delivered,
    /// Every attempt failed.
    Failed,
    /// Not attempted while the endpoint is disabled; a re-enable requeues it.
    Held,
}

impl DeliveryStatus {
    /// Waiting for an attempt: the row is in the due index.
    pub fn is_due_state(self) -> bool {
        matches!(self, DeliveryStatus::Pending | DeliveryStatus::Retrying)
    }
}

/// One endpoint x event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryRecord {
    /// `X-SVC-Delivery`: the same for every attempt of one series.
    pub id: Uuid,
    pub endpoint_id: WebhookId,
    /// Locates the endpoint row (its partition).
    pub developer_id: DeveloperId,
    pub tenant_id: TenantId,
    pub event_id: String,
    pub event_kind: String,
    pub status: DeliveryStatus,
    /// Attempts started in this series (an attempt counts when claimed).
    pub attempts: u32,
    #[serde(with = "ts::option", default)]
    pub next_attempt_at: Option<OffsetDateTime>,
    #[serde(with = "ts::option", default)]
    pub last_attempt_at: Option<OffsetDateTime>,
    pub last_response_code: Option<u16>,
    pub last_error: Option<String>,
    /// The exact body sent (the envelope as JSON).
    pub payload: String,
    /// `X-SVC-Signature` of the last attempt.
    pub signature: Option<String>,
    /// Bumped by every write; every write is conditioned on it.
    pub rev: u64,
    #[serde(with = "ts::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "ts::rfc3339")]
    pub updated_at: OffsetDateTime,
}

pub fn endpoint_key(developer: DeveloperId, id: WebhookId) -> Key {
    Key::new(format!("DEVELOPER#{developer}"), format!("WEBHOOK#{id}"))
}

pub fn delivery_key(endpoint: WebhookId, event_id: &str) -> Key {
    Key::new(
        format!("WEBHOOK#{endpoint}"),
        format!("DELIVERY#{event_id}"),
    )
}

/// Whether a write to `key` writes a delivery row (what wakes the local
/// delivery worker).
pub fn is_delivery(key: &Key) -> bool {
    key.pk.starts_with("WEBHOOK#") && key.sk.starts_with("DELIVERY#")
}

/// The partition of re-enable follow-ups.
const REQUEUES: &str = "WHREQUEUE";
/// How long a follow-up is kept when nobody drops it.
const FOLLOW_UP_KEPT: Duration = Duration::hours(1);

fn follow_up_key(endpoint: WebhookId) -> Key {
    Key::new(REQUEUES, format!("WEBHOOK#{endpoint}"))
}

/// A re-enable the worker follows up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequeueFollowUp {
    pub endpoint_id: WebhookId,
    #[serde(with = "ts::rfc3339")]
    pub at: OffsetDateTime,
}

/// The due-index shard of a row: FNV-1a of its partition and sort key, stable
/// across builds (unlike std's hasher). By row, not endpoint, so one busy
/// endpoint spreads over every shard.
pub fn due_shard(endpoint: WebhookId, event_id: &str) -> u32 {
    let key = delivery_key(endpoint, event_id);
    let mut hash: u32 = 0x811c_9dc5;
    for byte in key.pk.bytes().chain(key.sk.bytes()) {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash % DUE_SHARDS
}

pub fn due_partition(shard: u32) -> String {
    format!("WHDUE#{shard}")
}

fn micros(at: OffsetDateTime) -> i128 {
    (at.unix_timestamp_nanos() / 1_000).max(0)
}

fn endpoint_item(record: &WebhookEndpointRecord) -> Result<Item, StoreError> {
    Ok(
        Item::from_record(endpoint_key(record.developer_id, record.id), record)?
            .with(Index::Gsi1.pk_attr(), record.route.partition())
            .with(Index::Gsi1.sk_attr(), format!("WEBHOOK#{}", record.id)),
    )
}

/// The item of a row: in the due index exactly while pending or retrying,
/// in the held index exactly while held (a put replaces the whole item, so
/// leaving a state drops its index entry).
pub fn delivery_item(record: &DeliveryRecord) -> Result<Item, StoreError> {
    let mut item = Item::from_record(delivery_key(record.endpoint_id, &record.event_id), record)?;
    match (record.status, record.next_attempt_at) {
        (status, Some(next)) if status.is_due_state() => {
            item.set(
                Index::Gsi1.pk_attr(),
                due_partition(due_shard(record.endpoint_id, &record.event_id)),
            );
            item.set(
                Index::Gsi1.sk_attr(),
                format!(
                    "{:020}#{}#{}",
                    micros(next),
                    record.endpoint_id,
                    record.event_id
                ),
            );
        }
        (DeliveryStatus::Held, _) => {
            item.set(
                Index::Gsi2.pk_attr(),
                format!("WHHELD#{}", record.endpoint_id),
            );
            item.set(Index::Gsi2.sk_attr(), record.event_id.clone());
        }
        _ => {}
    }
    item.set(
        crate::attr::TTL,
        (record.updated_at + DELIVERY_RETENTION).unix_timestamp(),
    );
    Ok(item)
}

fn unchanged(current: &DeliveryRecord) -> Condition {
    Condition::eq("rev", json!(current.rev))
}

/// What became of a conditional row write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowWrite {
    Written,
    /// The row changed since it was read (another worker): nothing written.
    Stale,
    /// The endpoint row is gone (or, for a hold, no longer disabled): nothing written.
    EndpointChanged,
}

/// What a fan-out write did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queued {
    Queued,
    Held,
    /// The row exists already (the event was fanned out before).
    Duplicate,
}

pub struct Webhooks<'a>(pub &'a dyn Store);

/// What [`Webhooks::edit`] changes: each `Some` is set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EndpointEdit {
    pub url: Option<String>,
    pub events: Option<Vec<String>>,
    pub description: Option<Option<String>>,
}

impl Webhooks<'_> {
    /// Records a re-enable of `endpoint` at `at` for the worker to follow up
    /// (one put; a later re-enable replaces it).
    pub async fn follow_up_requeue(
        &self,
        endpoint: WebhookId,
        at: OffsetDateTime,
    ) -> Result<(), StoreError> {
        let record = RequeueFollowUp {
            endpoint_id: endpoint,
            at,
        };
        let item = Item::from_record(follow_up_key(endpoint), &record)?
            .with(crate::attr::TTL, (at + FOLLOW_UP_KEPT).unix_timestamp());
        self.0.put(item, None).await
    }

    /// Up to 100 re-enables to follow up (one query).
    pub async fn requeue_follow_ups(&self) -> Result<Vec<RequeueFollowUp>, StoreError> {
        let page = self.0.query(Query::partition(REQUEUES).limit(100)).await?;
        Ok(page.records()?.0)
    }

    /// Drops a follow-up unless a later re-enable replaced it (a delete
    /// conditioned on its `at`).
    pub async fn drop_follow_up(&self, follow_up: &RequeueFollowUp) -> Result<(), StoreError> {
        let key = follow_up_key(follow_up.endpoint_id);
        let at = Item::from_record(key.clone(), follow_up)?
            .get("at")
            .cloned()
            .unwrap_or_default();
        match self.0.delete(&key, Some(Condition::eq("at", at))).await {
            Ok(_) => Ok(()),
            Err(e) if e.is_condition_failure() => Ok(()),
            Err(e) => Err(e),
        }
    }

    pub async fn create_endpoint(&self, record: &WebhookEndpointRecord) -> Result<(), StoreError> {
        self.0
            .put(endpoint_item(record)?, Some(Condition::item_absent()))
            .await
    }

    pub async fn endpoint(
        &self,
        developer: DeveloperId,
        id: WebhookId,
    ) -> Result<Option<WebhookEndpointRecord>, StoreError> {
        record(self.0, &endpoint_key(developer, id)).await
    }

    /// Several endpoints (one batch get per 100), in no order.
    pub async fn endpoints(
        &self,
        keys: &[(DeveloperId, WebhookId)],
    ) -> Result<Vec<WebhookEndpointRecord>, StoreError> {
        let keys: Vec<Key> = keys.iter().map(|(d, w)| endpoint_key(*d, *w)).collect();
        super::get_all(self.0, &keys)
            .await?
            .iter()
            .map(Item::to_record)
            .collect()
    }

    /// One page of `endpoints` (a developer's, oldest first, as
    /// [`Self::list_endpoints`] reads them) after the position `after` of
    /// [`developer_endpoints`], and the position to continue from when more
    /// remain. For lists read whole and then filtered or checked.
    pub fn page_of(
        endpoints: Vec<WebhookEndpointRecord>,
        limit: usize,
        after: Option<&PageKey>,
    ) -> (Vec<WebhookEndpointRecord>, Option<PageKey>) {
        let sort_key = |e: &WebhookEndpointRecord| endpoint_key(e.developer_id, e.id).sk;
        let start = match after {
            Some(at) => endpoints
                .iter()
                .position(|e| sort_key(e) > at.sk)
                .unwrap_or(endpoints.len()),
            None => 0,
        };
        let more = endpoints.len().saturating_sub(start) > limit;
        let page: Vec<_> = endpoints.into_iter().skip(start).take(limit).collect();
        let next = match page.last() {
            Some(last) if more => Some(super::table_position(endpoint_key(
                last.developer_id,
                last.id,
            ))),
            _ => None,
        };
        (page, next)
    }

    /// A developer's endpoints, oldest first.
    pub async fn list_endpoints(
        &self,
        developer: DeveloperId,
    ) -> Result<Vec<WebhookEndpointRecord>, StoreError> {
        super::every_page(
            self.0,
            developer_endpoints(developer)
                .query()
                .sort(SortKey::BeginsWith("WEBHOOK#".into())),
        )
        .await
    }

    /// The endpoints on a route (gsi1), whatever their status: a disabled
    /// endpoint still gets its rows, held.
    pub async fn routed(
        &self,
        route: &WebhookRoute,
    ) -> Result<Vec<WebhookEndpointRecord>, StoreError> {
        super::every_page(self.0, Query::on_index(Index::Gsi1, route.partition())).await
    }

    /// Removes an endpoint; `false` when it did not exist. Its rows stay
    /// until they expire; the worker fails those still due.
    pub async fn delete_endpoint(
        &self,
        developer: DeveloperId,
        id: WebhookId,
    ) -> Result<bool, StoreError> {
        Ok(self
            .0
            .delete(&endpoint_key(developer, id), None)
            .await?
            .is_some())
    }

    /// Disables an active endpoint whose failure count reached `threshold`.
    /// Exactly one caller gets `Some` (the endpoint as disabled).
    pub async fn disable_if_failing(
        &self,
        developer: DeveloperId,
        id: WebhookId,
        threshold: u32,
        now: OffsetDateTime,
    ) -> Result<Option<WebhookEndpointRecord>, StoreError> {
        let condition = Condition::eq("status", json!(EndpointStatus::Active))
            .and(Condition::ge("consecutiveFailures", threshold));
        self.disable(developer, id, DisabledReason::Failures, now, condition)
            .await
    }

    /// Disables an active endpoint for `reason` (its key or its developer is
    /// no longer sound). `None` when it is missing or already disabled.
    pub async fn disable_for(
        &self,
        developer: DeveloperId,
        id: WebhookId,
        reason: DisabledReason,
        now: OffsetDateTime,
    ) -> Result<Option<WebhookEndpointRecord>, StoreError> {
        let condition = Condition::eq("status", json!(EndpointStatus::Active));
        self.disable(developer, id, reason, now, condition).await
    }

    /// Disables the endpoint for `reason` at `now` if `condition` holds: the
    /// endpoint as disabled, `None` when the condition failed.
    async fn disable(
        &self,
        developer: DeveloperId,
        id: WebhookId,
        reason: DisabledReason,
        now: OffsetDateTime,
        condition: Condition,
    ) -> Result<Option<WebhookEndpointRecord>, StoreError> {
        self.conditional_update(
            developer,
            id,
            vec![
                UpdateAction::Set("status".into(), json!(EndpointStatus::Disabled)),
                UpdateAction::Set("disabledAt".into(), json!(rfc3339(now)?)),
                UpdateAction::Set("disabledReason".into(), json!(reason)),
            ],
            condition,
        )
        .await
    }

    /// Changes what a developer may edit on an endpoint: each `Some` is set
    /// (`description: Some(None)` clears it); the secret, key, route and
    /// status stay. `None` when it is missing (removed meanwhile).
    pub async fn edit(
        &self,
        developer: DeveloperId,
        id: WebhookId,
        edit: EndpointEdit,
    ) -> Result<Option<WebhookEndpointRecord>, StoreError> {
        let mut actions = Vec::new();
        if let Some(url) = edit.url {
            actions.push(UpdateAction::Set("url".into(), json!(url)));
        }
        if let Some(events) = edit.events {
            actions.push(UpdateAction::Set("events".into(), json!(events)));
        }
        if let Some(description) = edit.description {
            actions.push(UpdateAction::Set("description".into(), json!(description)));
        }
        if actions.is_empty() {
            return self.endpoint(developer, id).await;
        }
        self.conditional_update(developer, id, actions, Condition::item_present())
            .await
    }

    /// Replaces the endpoint's secret with `secret`; the one it had signs
    /// beside it until `previous_until` (a rotation during a grace period
    /// ends that one: two secrets at most). Applied only if the secret is
    /// still `expected` (two rotations at once: one wins). `None` when it is
    /// missing or was rotated meanwhile.
    pub async fn rotate_secret(
        &self,
        developer: DeveloperId,
        id: WebhookId,
        expected: &str,
        secret: &str,
        previous_until: OffsetDateTime,
    ) -> Result<Option<WebhookEndpointRecord>, StoreError> {
        self.conditional_update(
            developer,
            id,
            vec![
                UpdateAction::Set("secret".into(), json!(secret)),
                UpdateAction::Set("previousSecret".into(), json!(expected)),
                UpdateAction::Set(
                    "previousSecretUntil".into(),
                    json!(rfc3339(previous_until)?),
                ),
            ],
            Condition::eq("secret", json!(expected)),
        )
        .await
    }

    /// Re-enables a disabled endpoint with a fresh failure count; `None` when
    /// it is missing or not disabled. Requeue its held rows afterwards.
    pub async fn enable(
        &self,
        developer: DeveloperId,
        id: WebhookId,
    ) -> Result<Option<WebhookEndpointRecord>, StoreError> {
        self.conditional_update(
            developer,
            id,
            vec![
                UpdateAction::Set("status".into(), json!(EndpointStatus::Active)),
                UpdateAction::Set("consecutiveFailures".into(), json!(0)),
                UpdateAction::Remove("disabledAt".into()),
                UpdateAction::Remove("disabledReason".into()),
            ],
            Condition::eq("status", json!(EndpointStatus::Disabled)),
        )
        .await
    }

    async fn conditional_update(
        &self,
        developer: DeveloperId,
        id: WebhookId,
        actions: Vec<UpdateAction>,
        condition: Condition,
    ) -> Result<Option<WebhookEndpointRecord>, StoreError> {
        super::update_if(self.0, &endpoint_key(developer, id), actions, condition).await
    }

    /// Queues a row unless the endpoint x event has one already. A row for a
    /// disabled endpoint is written held, in a transaction that checks the
    /// endpoint is still disabled (so a row can never be held after the
    /// re-enable that would have requeued it); when that check fails it is
    /// written pending instead.
    pub async fn queue(
        &self,
        endpoint: &WebhookEndpointRecord,
        record: &DeliveryRecord,
    ) -> Result<Queued, StoreError> {
        if record.status == DeliveryStatus::Held {
            let writes = vec![
                TxWrite::Put {
                    item: delivery_item(record)?,
                    condition: Some(Condition::item_absent()),
                },
                TxWrite::Check {
                    key: endpoint_key(endpoint.developer_id, endpoint.id),
                    condition: Condition::eq("status", json!(EndpointStatus::Disabled)),
                },
            ];
            match self.0.transact(writes).await {
                Ok(()) => return Ok(Queued::Held),
                Err(StoreError::TransactionCanceled { reasons })
                    if reasons.first() == Some(&CancelReason::ConditionFailed) =>
                {
                    return Ok(Queued::Duplicate);
                }
                Err(e) if e.is_condition_failure() => {}
                Err(e) => return Err(e),
            }
        }
        let mut pending = record.clone();
        if pending.status == DeliveryStatus::Held {
            pending.status = DeliveryStatus::Pending;
            pending.next_attempt_at = Some(pending.updated_at);
        }
        let queued = super::applied(
            self.0
                .put(delivery_item(&pending)?, Some(Condition::item_absent()))
                .await,
        )?;
        Ok(if queued {
            Queued::Queued
        } else {
            Queued::Duplicate
        })
    }

    pub async fn delivery(
        &self,
        endpoint: WebhookId,
        event_id: &str,
    ) -> Result<Option<DeliveryRecord>, StoreError> {
        record(self.0, &delivery_key(endpoint, event_id)).await
    }

    /// The endpoint's latest deliveries, newest first (at most [`HISTORY`]). One query.
    pub async fn recent_deliveries(
        &self,
        endpoint: WebhookId,
        limit: u32,
    ) -> Result<Vec<DeliveryRecord>, StoreError> {
        page(
            self.0,
            Query::partition(format!("WEBHOOK#{endpoint}"))
                .sort(SortKey::BeginsWith("DELIVERY#".into()))
                .backward()
                .limit(limit.clamp(1, HISTORY)),
        )
        .await
        .map(|(deliveries, _)| deliveries)
    }

    /// Rows of one shard due at or before `now`, oldest first. One query of
    /// the index, which may lag the table: callers claim with [`Self::replace`].
    pub async fn due(
        &self,
        shard: u32,
        now: OffsetDateTime,
        limit: u32,
    ) -> Result<Vec<DeliveryRecord>, StoreError> {
        page(
            self.0,
            Query::on_index(Index::Gsi1, due_partition(shard))
                // Every key of a time <= now sorts below the next microsecond.
                .sort(SortKey::Lt(format!("{:020}", micros(now) + 1)))
                .limit(limit),
        )
        .await
        .map(|(due, _)| due)
    }

    /// One page of an endpoint's held rows in event order (gsi2).
    pub async fn held(
        &self,
        endpoint: WebhookId,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<DeliveryRecord>, Option<PageKey>), StoreError> {
        page(
            self.0,
            Query::on_index(Index::Gsi2, format!("WHHELD#{endpoint}"))
                .limit(limit)
                .after(after),
        )
        .await
    }

    /// Stores `next` if the row is still `current` (same `rev`); `next.rev`
    /// must be `current.rev + 1`.
    pub async fn replace(
        &self,
        current: &DeliveryRecord,
        next: &DeliveryRecord,
    ) -> Result<RowWrite, StoreError> {
        check_rev(current, next)?;
        let written = super::applied(
            self.0
                .put(delivery_item(next)?, Some(unchanged(current)))
                .await,
        )?;
        Ok(if written {
            RowWrite::Written
        } else {
            RowWrite::Stale
        })
    }

    /// [`Self::replace`] to a claimed row, only while the endpoint is active:
    /// a row is never sent for an endpoint disabled after it was read (a
    /// revoked key's endpoint is disabled by the revoke itself).
    pub async fn claim(
        &self,
        current: &DeliveryRecord,
        next: &DeliveryRecord,
    ) -> Result<RowWrite, StoreError> {
        self.while_endpoint_is(current, next, EndpointStatus::Active)
            .await
    }

    /// [`Self::replace`] to a held row, only while the endpoint is disabled.
    pub async fn hold(
        &self,
        current: &DeliveryRecord,
        next: &DeliveryRecord,
    ) -> Result<RowWrite, StoreError> {
        self.while_endpoint_is(current, next, EndpointStatus::Disabled)
            .await
    }

    async fn while_endpoint_is(
        &self,
        current: &DeliveryRecord,
        next: &DeliveryRecord,
        status: EndpointStatus,
    ) -> Result<RowWrite, StoreError> {
        check_rev(current, next)?;
        self.with_endpoint(
            current,
            next,
            TxWrite::Check {
                key: endpoint_key(current.developer_id, current.endpoint_id),
                condition: Condition::eq("status", json!(status)),
            },
        )
        .await
    }

    /// [`Self::replace`] with the attempt's outcome, and in the same
    /// transaction the endpoint's health: a failure adds one to its count, a
    /// success resets it. So the count is exactly the recorded failures.
    pub async fn settle(
        &self,
        current: &DeliveryRecord,
        next: &DeliveryRecord,
        success: bool,
    ) -> Result<RowWrite, StoreError> {
        check_rev(current, next)?;
        let action = if success {
            UpdateAction::Set("consecutiveFailures".into(), json!(0))
        } else {
            UpdateAction::Add("consecutiveFailures".into(), 1)
        };
        self.with_endpoint(
            current,
            next,
            TxWrite::Update {
                key: endpoint_key(current.developer_id, current.endpoint_id),
                actions: vec![action],
                // Never create a stray endpoint item for a deleted endpoint.
                condition: Some(Condition::item_present()),
            },
        )
        .await
    }

    async fn with_endpoint(
        &self,
        current: &DeliveryRecord,
        next: &DeliveryRecord,
        endpoint_write: TxWrite,
    ) -> Result<RowWrite, StoreError> {
        let writes = vec![
            TxWrite::Put {
                item: delivery_item(next)?,
                condition: Some(unchanged(current)),
            },
            endpoint_write,
        ];
        match self.0.transact(writes).await {
            Ok(()) => Ok(RowWrite::Written),
            Err(StoreError::TransactionCanceled { reasons }) => {
                if reasons.first() == Some(&CancelReason::ConditionFailed) {
                    Ok(RowWrite::Stale)
                } else if reasons.get(1) == Some(&CancelReason::ConditionFailed) {
                    Ok(RowWrite::EndpointChanged)
                } else {
                    Err(StoreError::TransactionCanceled { reasons })
                }
            }
            Err(e) => Err(e),
        }
    }
}

fn check_rev(current: &DeliveryRecord, next: &DeliveryRecord) -> Result<(), StoreError> {
    if next.rev != current.rev + 1 {
        return Err(StoreError::Invalid(
            "a delivery write must bump rev by one".into(),
        ));
    }
    Ok(())
}

fn rfc3339(at: OffsetDateTime) -> Result<String, StoreError> {
    at.format(&time::format_description::well_known::Rfc3339)
        .map_err(|e| StoreError::Invalid(e.to_string()))
}

/// The list of a developer's webhook endpoints.
pub fn developer_endpoints(developer: DeveloperId) -> ListScope {
    ListScope::Table(format!("DEVELOPER#{developer}"))
}
