//! The webhook worker: fan an event out into delivery rows ([`enqueue`]),
//! work the rows that are due ([`deliver_due`]), re-enable an endpoint and
//! requeue what it missed ([`reenable`]). The hosted webhooks function and the
//! local in-process worker call the same functions; time comes from the
//! caller (the `Clock`), so the schedule is testable without sleeping.
//!
//! At least once: a row is claimed by a conditional write before its attempt
//! (two workers never send the same attempt), and its outcome is recorded
//! conditionally on that claim, together with the endpoint's failure count.
//! A worker that dies mid-attempt leaves the row to the next worker when the
//! lease ends. Receivers deduplicate on the envelope id (or X-SVC-Delivery).
//!
//! Nothing is lost while an endpoint is disabled: due rows become `held`
//! (visible in its delivery log), new events are queued `held`, and
//! [`reenable`] requeues them all as new series, oldest event first.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use alyt_domain::Clock;
use alyt_domain::ids::{DeveloperId, WebhookId};
use alyt_store::repo::webhooks::{
    DUE_SHARDS, DeliveryRecord, DeliveryStatus, EndpointStatus, Queued, RowWrite,
    WebhookEndpointRecord, WebhookRoute, Webhooks,
};
use alyt_store::{Store, StoreError};
use time::OffsetDateTime;
use tokio::task::JoinSet;

use crate::binding::BindingCheck;
use crate::bus::{BusEntry, EventBus};
use crate::envelope::EventEnvelope;
use crate::outbound::{OutboundPolicy, OutboundRequest, SendResult, WebhookSender};
use crate::signature;
use crate::webhook::{self, AttemptOutcome, DISABLE_AFTER, NotClaimable};

/// How long a read of an endpoint's key and developer is trusted while its
/// rows are sent one after another.
pub const BINDING_RECHECK: std::time::Duration = std::time::Duration::from_secs(1);

/// Endpoints worked at once in one batch (rows of one endpoint go one after
/// another, in due order, so its 50th failure stops the rest at once).
pub const CONCURRENT_ENDPOINTS: usize = 16;

/// What an enqueue did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnqueueReport {
    pub queued: Vec<WebhookId>,
    pub held: Vec<WebhookId>,
    /// Endpoints that had the row already (the event was fanned out before).
    pub duplicates: Vec<WebhookId>,
}

/// Does this endpoint receive this event? Its filter names the kind, and an
/// endpoint routed to a tenant hears only that tenant. (A connector route
/// covers the tenants that installed the connector: the caller passes such
/// endpoints only for those tenants.)
pub fn wants(endpoint: &WebhookEndpointRecord, event: &EventEnvelope) -> bool {
    let kind = event.kind.as_str();
    let routed = match &endpoint.route {
        WebhookRoute::Tenant { tenant_id } => *tenant_id == event.tenant_id,
        WebhookRoute::Connector { .. } => true,
    };
    routed && endpoint.events.iter().any(|k| k == kind)
}

/// The endpoints that may hear a tenant's events: those routed to the tenant
/// (DEV keys of its sandbox) and those of the connectors it installed (LIVE
/// keys). One index query per route.
pub async fn endpoints_for(
    store: &dyn Store,
    tenant: alyt_domain::ids::TenantId,
    installed_connectors: &[String],
) -> Result<Vec<WebhookEndpointRecord>, StoreError> {
    let repo = Webhooks(store);
    let mut endpoints = repo
        .routed(&WebhookRoute::Tenant { tenant_id: tenant })
        .await?;
    for definition_id in installed_connectors {
        endpoints.extend(
            repo.routed(&WebhookRoute::Connector {
                definition_id: definition_id.clone(),
            })
            .await?,
        );
    }
    Ok(endpoints)
}

/// Fans `event` out into one delivery row per endpoint that wants it
/// (pending, due at `now`; held for a disabled endpoint). Idempotent: an
/// endpoint x event is queued once however often this runs. One conditional
/// write per endpoint.
pub async fn enqueue(
    store: &dyn Store,
    endpoints: &[WebhookEndpointRecord],
    event: &EventEnvelope,
    now: OffsetDateTime,
) -> Result<EnqueueReport, StoreError> {
    let mut report = EnqueueReport::default();
    let payload = serde_json::to_string(event)
        .map_err(|e| StoreError::Invalid(format!("the envelope is not serialisable: {e}")))?;
    for endpoint in endpoints.iter().filter(|e| wants(e, event)) {
        let row = webhook::new_delivery(endpoint, event, payload.clone(), now);
        match Webhooks(store).queue(endpoint, &row).await? {
            Queued::Queued => report.queued.push(endpoint.id),
            Queued::Held => report.held.push(endpoint.id),
            Queued::Duplicate => report.duplicates.push(endpoint.id),
        }
    }
    Ok(report)
}

/// Queues `event` for one endpoint whatever its filter (the test operation's
/// `webhook.ping`).
pub async fn enqueue_to(
    store: &dyn Store,
    endpoint: &WebhookEndpointRecord,
    event: &EventEnvelope,
    now: OffsetDateTime,
) -> Result<Queued, StoreError> {
    let payload = serde_json::to_string(event)
        .map_err(|e| StoreError::Invalid(format!("the envelope is not serialisable: {e}")))?;
    let row = webhook::new_delivery(endpoint, event, payload, now);
    Webhooks(store).queue(endpoint, &row).await
}

/// An endpoint the worker disabled: email the developer and raise a
/// notification (the endpoint row also records `disabledAt`).
#[derive(Debug, Clone, PartialEq)]
pub struct DisabledEndpoint {
    pub developer_id: DeveloperId,
    pub endpoint_id: WebhookId,
    pub consecutive_failures: u32,
    pub at: OffsetDateTime,
}

/// What one [`deliver_due`] run did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeliveryReport {
    /// Attempts sent (or refused by the policy, which counts as an attempt).
    pub attempted: u32,
    pub delivered: u32,
    /// Failed attempts with another one scheduled.
    pub retrying: u32,
    /// Rows that failed for good (20 attempts, or the endpoint was removed).
    pub failed: u32,
    /// Rows set aside because their endpoint is disabled.
    pub held: u32,
    /// Rows another worker had already taken.
    pub skipped: u32,
    pub disabled: Vec<DisabledEndpoint>,
}

impl DeliveryReport {
    fn add(&mut self, other: DeliveryReport) {
        self.attempted += other.attempted;
        self.delivered += other.delivered;
        self.retrying += other.retrying;
        self.failed += other.failed;
        self.held += other.held;
        self.skipped += other.skipped;
        self.disabled.extend(other.disabled);
    }
}

/// How long the oldest due delivery has waited past its due time at `now`
/// (none due: `None`): the backlog the hosted worker reports as a metric
/// and an alarm watches. One query per due shard, one row each.
pub async fn backlog_age(
    store: &dyn Store,
    now: OffsetDateTime,
) -> Result<Option<time::Duration>, StoreError> {
    let mut oldest: Option<OffsetDateTime> = None;
    for shard in 0..DUE_SHARDS {
        let due = Webhooks(store).due(shard, now, 1).await?;
        if let Some(at) = due.first().and_then(|row| row.next_attempt_at) {
            oldest = Some(oldest.map_or(at, |o| o.min(at)));
        }
    }
    Ok(oldest.map(|at| now - at))
}

/// Works up to `limit` delivery rows due at `now`: claim, sign, send, record
/// the outcome and the endpoint's health, schedule the retry; hold rows of
/// disabled endpoints; disable an endpoint at its 50th consecutive failure
/// (reported in [`DeliveryReport::disabled`]). Store calls: one query per
/// due shard, one batch get of the endpoints, then per row a claim and an
/// outcome transaction (plus one endpoint read after a failure).
pub async fn deliver_due(
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    sender: Arc<dyn WebhookSender>,
    bus: Arc<dyn EventBus>,
    policy: OutboundPolicy,
    now: OffsetDateTime,
    limit: u32,
) -> Result<DeliveryReport, StoreError> {
    let limit = limit.clamp(1, 1000);
    let repo = Webhooks(store.as_ref());
    let mut due = Vec::new();
    for shard in 0..DUE_SHARDS {
        due.extend(repo.due(shard, now, limit).await?);
    }
    // Oldest first across shards, then the batch.
    due.sort_by(|a, b| {
        (a.next_attempt_at, &a.event_id, a.endpoint_id).cmp(&(
            b.next_attempt_at,
            &b.event_id,
            b.endpoint_id,
        ))
    });
    due.truncate(limit as usize);

    let mut groups: BTreeMap<(DeveloperId, WebhookId), Vec<DeliveryRecord>> = BTreeMap::new();
    for row in due {
        groups
            .entry((row.developer_id, row.endpoint_id))
            .or_default()
            .push(row);
    }
    let keys: Vec<_> = groups.keys().copied().collect();
    let mut endpoints: HashMap<WebhookId, WebhookEndpointRecord> = repo
        .endpoints(&keys)
        .await?
        .into_iter()
        .map(|e| (e.id, e))
        .collect();

    let mut report = DeliveryReport::default();
    let mut running = JoinSet::new();
    for ((_, endpoint_id), rows) in groups {
        if running.len() >= CONCURRENT_ENDPOINTS
            && let Some(done) = running.join_next().await
        {
            report.add(joined(done)?);
        }
        let endpoint = endpoints.remove(&endpoint_id);
        let out = Out {
            sender: sender.clone(),
            bus: bus.clone(),
            policy,
        };
        let (store, clock) = (store.clone(), clock.clone());
        running.spawn(async move { work_endpoint(store, clock, out, now, endpoint, rows).await });
    }
    while let Some(done) = running.join_next().await {
        report.add(joined(done)?);
    }
    Ok(report)
}

fn joined(
    done: Result<Result<DeliveryReport, StoreError>, tokio::task::JoinError>,
) -> Result<DeliveryReport, StoreError> {
    done.map_err(|e| StoreError::Unavailable(format!("a delivery task failed: {e}")))?
}

/// Where attempts go: webhooks over HTTP under the policy, EventBridge
/// destinations to the bus.
struct Out {
    sender: Arc<dyn WebhookSender>,
    bus: Arc<dyn EventBus>,
    policy: OutboundPolicy,
}

/// The rows of one endpoint, one after another.
async fn work_endpoint(
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    out: Out,
    now: OffsetDateTime,
    mut endpoint: Option<WebhookEndpointRecord>,
    rows: Vec<DeliveryRecord>,
) -> Result<DeliveryReport, StoreError> {
    let repo = Webhooks(store.as_ref());
    let mut report = DeliveryReport::default();
    // The endpoint's key and developer, read afresh at least every second.
    let mut bindings = BindingCheck::default();
    let mut read_at: Option<std::time::Instant> = None;
    let mut signers: Option<(Vec<String>, Vec<signature::Signer>)> = None;
    for row in rows {
        let Some(current) = endpoint.as_mut() else {
            let next = webhook::give_up(&row, "the endpoint was removed", now);
            match repo.replace(&row, &next).await? {
                RowWrite::Written => report.failed += 1,
                _ => report.skipped += 1,
            }
            continue;
        };
        // Self-healing: a worker that died between a 50th failure and the
        // disable leaves an active endpoint at the threshold.
        if current.status == EndpointStatus::Active && current.consecutive_failures >= DISABLE_AFTER
        {
            disable(&repo, current, now, &mut report).await?;
        }
        // Right before a send: the key must still be live and the developer
        // active (else the endpoint is disabled and the row held).
        if current.status == EndpointStatus::Active {
            if read_at.is_none_or(|at| at.elapsed() >= BINDING_RECHECK) {
                bindings.forget();
                read_at = Some(std::time::Instant::now());
            }
            bindings
                .enforce(store.as_ref(), current, clock.now())
                .await?;
        }
        if current.status == EndpointStatus::Disabled {
            match repo.hold(&row, &webhook::hold(&row, now)).await? {
                RowWrite::Written => report.held += 1,
                // Stale, or re-enabled meanwhile: the next run sees it afresh.
                _ => report.skipped += 1,
            }
            continue;
        }
        let claimed = match webhook::claim(&row, now) {
            Ok(claimed) => claimed,
            Err(NotClaimable::Exhausted) => {
                // The last attempt's worker died before recording it.
                let next =
                    webhook::give_up(&row, "no outcome was recorded for the last attempt", now);
                match repo.replace(&row, &next).await? {
                    RowWrite::Written => report.failed += 1,
                    _ => report.skipped += 1,
                }
                continue;
            }
            // The index lags the table, or the row moved on.
            Err(_) => {
                report.skipped += 1;
                continue;
            }
        };
        match repo.claim(&row, &claimed).await? {
            RowWrite::Written => {}
            RowWrite::Stale => {
                report.skipped += 1;
                continue;
            }
            // Disabled (or removed) since it was read: the next run holds
            // (or fails) the row.
            RowWrite::EndpointChanged => {
                report.skipped += 1;
                endpoint = repo.endpoint(current.developer_id, current.id).await?;
                continue;
            }
        }
        report.attempted += 1;

        let now = clock.now();
        let (outcome, signature) = match &current.event_bridge {
            Some(target) => {
                let entry = BusEntry {
                    detail_type: claimed.event_kind.clone(),
                    detail: claimed.payload.clone(),
                    time: event_time(&claimed.event_id).unwrap_or(now),
                };
                (outcome_of(out.bus.put(target, entry).await), None)
            }
            None => {
                // One signer per secret the endpoint signs with now (two
                // during a rotation's grace period), made again when they
                // change (a re-read endpoint may have rotated, or the grace
                // period ended).
                let (secrets, prepared) = {
                    let now_signing = current.signing_secrets(now);
                    match signers.take() {
                        Some((kept, prepared))
                            if kept.iter().map(String::as_str).eq(now_signing.clone()) =>
                        {
                            (kept, prepared)
                        }
                        _ => (
                            now_signing.clone().map(str::to_owned).collect(),
                            now_signing
                                .map(|s| signature::Signer::new(s.as_bytes()))
                                .collect(),
                        ),
                    }
                };
                let header = signature::sign_with_each(
                    &prepared,
                    now.unix_timestamp(),
                    claimed.payload.as_bytes(),
                );
                signers = Some((secrets, prepared));
                let request = OutboundRequest {
                    url: current.url.clone(),
                    event_kind: claimed.event_kind.clone(),
                    delivery_id: claimed.id.to_string(),
                    signature: header.clone(),
                    body: claimed.payload.clone(),
                };
                let sent = out.sender.send(out.policy, request).await;
                (outcome_of(sent), Some(header))
            }
        };
        let success = outcome.is_success();
        let settled = webhook::settle(&claimed, &outcome, signature, clock.now());
        match repo.settle(&claimed, &settled, success).await? {
            RowWrite::Written => {}
            // The lease ran out and another worker took the row: its attempt counts.
            RowWrite::Stale => {
                report.skipped += 1;
                continue;
            }
            RowWrite::EndpointChanged => {
                // Removed during the attempt: record the outcome alone.
                repo.replace(&claimed, &settled).await?;
                endpoint = None;
                continue;
            }
        }
        match settled.status {
            DeliveryStatus::Delivered => report.delivered += 1,
            DeliveryStatus::Failed => report.failed += 1,
            _ => report.retrying += 1,
        }
        if success {
            current.consecutive_failures = 0;
            continue;
        }
        // The count is exact in the store (added in the outcome's transaction).
        match repo.endpoint(current.developer_id, current.id).await? {
            Some(fresh) => {
                *current = fresh;
                if current.status == EndpointStatus::Active
                    && current.consecutive_failures >= DISABLE_AFTER
                {
                    disable(&repo, current, now, &mut report).await?;
                }
            }
            None => endpoint = None,
        }
    }
    Ok(report)
}

async fn disable(
    repo: &Webhooks<'_>,
    endpoint: &mut WebhookEndpointRecord,
    now: OffsetDateTime,
    report: &mut DeliveryReport,
) -> Result<(), StoreError> {
    match repo
        .disable_if_failing(endpoint.developer_id, endpoint.id, DISABLE_AFTER, now)
        .await?
    {
        Some(disabled) => {
            tracing::warn!(
                endpoint = %disabled.id,
                developer = %disabled.developer_id,
                failures = disabled.consecutive_failures,
                "webhook endpoint disabled after consecutive failures"
            );
            report.disabled.push(DisabledEndpoint {
                developer_id: disabled.developer_id,
                endpoint_id: disabled.id,
                consecutive_failures: disabled.consecutive_failures,
                at: now,
            });
            *endpoint = disabled;
        }
        // Another worker disabled it (and reported it), or it was re-enabled.
        None => {
            if let Some(fresh) = repo.endpoint(endpoint.developer_id, endpoint.id).await? {
                *endpoint = fresh;
            }
        }
    }
    Ok(())
}

/// An attempt's outcome from what the receiver (or the bus) said.
fn outcome_of(sent: SendResult) -> AttemptOutcome {
    match sent {
        SendResult::Answered(status) => AttemptOutcome::from_status(status),
        SendResult::Refused(refusal) => AttemptOutcome::Failed {
            status: None,
            error: Some(format!("refused by the outbound policy: {refusal}")),
        },
        SendResult::Failed(reason) => AttemptOutcome::Failed {
            status: None,
            error: Some(reason),
        },
    }
}

/// When the event of a row happened: its id's time.
fn event_time(event_id: &str) -> Option<OffsetDateTime> {
    let id: crate::envelope::EventId = event_id.parse().ok()?;
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(id.micros()) * 1_000).ok()
}

/// What a re-enable did.
#[derive(Debug, Clone, PartialEq)]
pub struct Reenabled {
    pub endpoint: WebhookEndpointRecord,
    /// Held rows requeued as new series, due at once.
    pub requeued: u32,
}

/// Re-enables a disabled endpoint (failure count from zero) and requeues every
/// row held while it was disabled, oldest event first, due at `now`; rows
/// that failed for good stay failed. `None` when the endpoint is missing or
/// not disabled. Safe to run again: it requeues whatever is still held.
pub async fn reenable(
    store: &dyn Store,
    developer: DeveloperId,
    endpoint: WebhookId,
    now: OffsetDateTime,
) -> Result<Option<Reenabled>, StoreError> {
    let repo = Webhooks(store);
    let Some(enabled) = repo.enable(developer, endpoint).await? else {
        return Ok(None);
    };
    let requeued = requeue_held(store, endpoint, now).await?;
    Ok(Some(Reenabled {
        endpoint: enabled,
        requeued,
    }))
}

/// Requeues an endpoint's held rows (see [`reenable`]). Pages of 100.
pub async fn requeue_held(
    store: &dyn Store,
    endpoint: WebhookId,
    now: OffsetDateTime,
) -> Result<u32, StoreError> {
    let repo = Webhooks(store);
    let mut requeued = 0;
    let mut after = None;
    loop {
        let (rows, next) = repo.held(endpoint, 100, after).await?;
        for row in rows {
            if row.status != DeliveryStatus::Held {
                continue;
            }
            if repo.replace(&row, &webhook::requeue(&row, now)).await? == RowWrite::Written {
                requeued += 1;
            }
        }
        match next {
            Some(next) => after = Some(next),
            None => return Ok(requeued),
        }
    }
}
