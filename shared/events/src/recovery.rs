//! Recovering an endpoint: every event of a range its filter matches, in
//! order, sent again unless it was delivered. The developer starts one
//! ([`plan`] and `Recoveries::start`, at most one running per endpoint);
//! the webhook worker of either runtime works every running one a batch
//! per pass ([`work`]) and stores where it got to after each batch, so a
//! restart resumes there.
//!
//! Per event the endpoint's delivery row decides: none (the event was never
//! queued, or its row expired) or failed: a new series is queued; waiting
//! for a retry: brought forward; delivered or about to be attempted: left.
//! Only events the endpoint could have heard are looked at: those from its
//! creation on, which its filter names and (a LIVE key's endpoint) about its
//! connector's integrations, within the log's [`RETENTION`].
//!
//! Rate: a pass queues at most [`RECOVERY_BATCH`] events of an endpoint and
//! none while the last one it queued has not been attempted yet, so a
//! recovery goes at most a batch per pass ([`crate::worker::PASS_INTERVAL`])
//! and never faster than the receiver answers. A disabled endpoint's
//! recovery waits until it is enabled again; a removed one's is cancelled.
//! A crash between queuing a batch and storing the position repeats the
//! batch, which then finds its rows queued: nothing is sent twice, but the
//! counts of that batch show as skipped.

use alyt_domain::ids::TenantId;
use alyt_store::repo::recoveries::{Recoveries, RecoveryRecord, RecoveryStatus};
use alyt_store::repo::webhooks::{
    DeliveryStatus, EndpointStatus, RowWrite, WebhookEndpointRecord, WebhookRoute, Webhooks,
};
use alyt_store::{Store, StoreError};
use time::OffsetDateTime;

use crate::audience::EventSubjects;
use crate::binding::BindingCheck;
use crate::delivery;
use crate::envelope::{EventEnvelope, EventId};
use crate::log::{EventLog, RETENTION};
use crate::webhook;

/// Events a pass queues per endpoint at most.
pub const RECOVERY_BATCH: u64 = 50;
/// Events a pass looks at per endpoint at most (most may be of other kinds).
pub const SCAN_BUDGET: usize = 1_000;
/// Events read per log query.
const PAGE: u32 = 100;

/// The range a developer asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Range {
    /// Every event from this time on.
    Since(OffsetDateTime),
    /// Events from `from` to `to` (both included; open-ended without `to`).
    Ids { from: EventId, to: Option<EventId> },
}

/// A new recovery of `endpoint` over `range`, reading `tenants`' logs: the
/// range starts no earlier than the endpoint's creation and the oldest event
/// the log keeps, and ends no later than `now` (later events are sent as
/// they happen).
pub fn plan(
    endpoint: &WebhookEndpointRecord,
    tenants: Vec<TenantId>,
    range: &Range,
    now: OffsetDateTime,
) -> RecoveryRecord {
    let earliest = EventId::floor(endpoint.created_at.max(now - RETENTION));
    let latest = EventId::from_micros(micros(now), u32::MAX);
    let (from, to) = match range {
        Range::Since(since) => (EventId::floor(*since), latest.clone()),
        Range::Ids { from, to } => (from.clone(), to.clone().unwrap_or(latest.clone())),
    };
    RecoveryRecord {
        endpoint_id: endpoint.id,
        developer_id: endpoint.developer_id,
        status: RecoveryStatus::Running,
        from_event_id: from.max(earliest).to_string(),
        to_event_id: to.min(latest).to_string(),
        tenants,
        tenant_index: 0,
        position: None,
        last_queued: None,
        matched: 0,
        queued: 0,
        skipped: 0,
        rev: 0,
        started_at: now,
        updated_at: now,
        finished_at: None,
    }
}

fn micros(at: OffsetDateTime) -> i64 {
    (at.unix_timestamp_nanos() / 1_000) as i64
}

/// What one [`work`] pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecoveryReport {
    /// Recoveries that moved.
    pub worked: u32,
    pub queued: u64,
    pub finished: u32,
}

/// Works every running recovery one batch on (see the module docs).
pub async fn work(
    store: &dyn Store,
    log: &EventLog,
    now: OffsetDateTime,
) -> Result<RecoveryReport, StoreError> {
    let mut report = RecoveryReport::default();
    let mut subjects = EventSubjects::default();
    for listed in Recoveries(store).running().await? {
        // The index may lag: work the recovery as it is now.
        let Some(current) = Recoveries(store).get(listed.endpoint_id).await? else {
            continue;
        };
        if current.status != RecoveryStatus::Running {
            continue;
        }
        // One recovery that cannot go on does not hold the others up.
        let next = match work_one(store, log, &current, now, &mut subjects).await {
            Ok(Some(next)) => next,
            Ok(None) => continue,
            Err(e) => {
                tracing::warn!(endpoint = %current.endpoint_id, error = %e, "a webhook recovery did not move");
                continue;
            }
        };
        if Recoveries(store).advance(&current, &next).await? {
            report.worked += 1;
            report.queued += next.queued - current.queued;
            if next.status != RecoveryStatus::Running {
                report.finished += 1;
                tracing::info!(endpoint = %next.endpoint_id, queued = next.queued, skipped = next.skipped, status = ?next.status, "webhook recovery finished");
            }
        }
    }
    Ok(report)
}

/// The recovery after one batch; `None` when it must wait (its endpoint is
/// disabled, or its last batch was not attempted yet).
async fn work_one(
    store: &dyn Store,
    log: &EventLog,
    current: &RecoveryRecord,
    now: OffsetDateTime,
    subjects: &mut EventSubjects,
) -> Result<Option<RecoveryRecord>, StoreError> {
    let webhooks = Webhooks(store);
    let mut next = RecoveryRecord {
        rev: current.rev + 1,
        updated_at: now,
        ..current.clone()
    };
    let Some(mut endpoint) = webhooks
        .endpoint(current.developer_id, current.endpoint_id)
        .await?
    else {
        next.status = RecoveryStatus::Cancelled;
        next.finished_at = Some(now);
        return Ok(Some(next));
    };
    if endpoint.status != EndpointStatus::Active
        || !BindingCheck::default()
            .enforce(store, &mut endpoint, now)
            .await?
    {
        return Ok(None);
    }
    if let Some(last) = &current.last_queued
        && let Some(row) = webhooks.delivery(endpoint.id, last).await?
        && row.status == DeliveryStatus::Pending
    {
        return Ok(None);
    }
    let from: EventId = parse(&current.from_event_id)?;
    let to: EventId = parse(&current.to_event_id)?;
    let mut queued_now = 0;
    let mut scanned = 0;
    while scanned < SCAN_BUDGET && queued_now < RECOVERY_BATCH {
        let Some(&tenant) = next.tenants.get(next.tenant_index as usize) else {
            next.status = RecoveryStatus::Done;
            next.finished_at = Some(now);
            break;
        };
        let after = match &next.position {
            Some(position) => parse(position)?,
            // Just below `from`: reading is exclusive of its start.
            None => EventId::from_micros(from.micros() - 1, u32::MAX),
        };
        let page = log.read_after(tenant, Some(&after), None, PAGE).await?;
        let mut tenant_done = page.events.is_empty();
        for event in &page.events {
            if event.id > to {
                tenant_done = true;
                break;
            }
            scanned += 1;
            next.position = Some(event.id.to_string());
            if event.id < from || !hears(store, &endpoint, event, subjects).await? {
                continue;
            }
            next.matched += 1;
            if resend(store, &endpoint, event, now).await? {
                next.queued += 1;
                next.last_queued = Some(event.id.to_string());
                queued_now += 1;
                if queued_now == RECOVERY_BATCH {
                    break;
                }
            } else {
                next.skipped += 1;
            }
        }
        if tenant_done {
            next.tenant_index += 1;
            next.position = None;
        }
    }
    Ok(Some(next))
}

fn parse(id: &str) -> Result<EventId, StoreError> {
    id.parse().map_err(|_| {
        StoreError::Unavailable(format!("a stored recovery names a bad event id {id}"))
    })
}

/// Whether the endpoint could have heard `event` (the dispatcher's rule).
async fn hears(
    store: &dyn Store,
    endpoint: &WebhookEndpointRecord,
    event: &EventEnvelope,
    subjects: &mut EventSubjects,
) -> Result<bool, StoreError> {
    if endpoint.created_at > event.created_at || !delivery::wants(endpoint, event) {
        return Ok(false);
    }
    Ok(match &endpoint.route {
        WebhookRoute::Tenant { .. } => true,
        WebhookRoute::Connector { definition_id } => subjects
            .connector_of(store, event)
            .await?
            .is_some_and(|c| c.to_string() == *definition_id),
    })
}

/// Sends `event` to the endpoint again unless it was delivered or is about
/// to be attempted: whether it queued it.
async fn resend(
    store: &dyn Store,
    endpoint: &WebhookEndpointRecord,
    event: &EventEnvelope,
    now: OffsetDateTime,
) -> Result<bool, StoreError> {
    let webhooks = Webhooks(store);
    let Some(row) = webhooks.delivery(endpoint.id, event.id.as_str()).await? else {
        let queued = delivery::enqueue_to(store, endpoint, event, now).await?;
        return Ok(queued != alyt_store::repo::webhooks::Queued::Duplicate);
    };
    let next = match row.status {
        DeliveryStatus::Delivered | DeliveryStatus::Pending => return Ok(false),
        DeliveryStatus::Retrying => webhook::bring_forward(&row, now),
        DeliveryStatus::Failed | DeliveryStatus::Held => webhook::requeue(&row, now),
    };
    Ok(webhooks.replace(&row, &next).await? == RowWrite::Written)
}
