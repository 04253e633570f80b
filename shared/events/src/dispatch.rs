//! The webhook dispatcher: turns recorded events into delivery rows.
//!
//! One cursor row per tenant that has (or had) an endpoint routed to it
//! ([`alyt_store::repo::events`] keeps them) holds the id of the last event
//! fanned out. A pass reads each tenant's events after its cursor
//! ([`EventLog::read_after`], in commit order),
//! enqueues each to the endpoints that want it ([`crate::delivery::enqueue`],
//! one conditional write per endpoint x event) and only then advances the
//! cursor, with a write conditioned on the cursor's `rev`. So:
//!
//! * nothing is lost: a crash between the enqueue and the cursor write
//!   replays the page, and the replay finds the rows already there
//!   (`attribute_not_exists`), so nothing is queued twice either;
//! * nothing is skipped: a tenant's events get their ids in commit order,
//!   so no event can appear behind the cursor later;
//! * two dispatchers may run at once (a late hosted invocation overlapping
//!   the next): both enqueue idempotently, one cursor write wins, the other
//!   stops that tenant for the pass.
//!
//! An endpoint hears the events recorded from its creation on: the cursor of
//! a new tenant starts at the endpoint's creation, and an endpoint never gets
//! an event older than itself when the tenant's cursor is behind. An
//! endpoint bound to a LIVE key hears, in the tenants that installed its
//! connector, only the events about that connector's integrations
//! ([`crate::audience`]).
//!
//! Ceiling: a pass costs one query of the cursor partition (pages of 100),
//! then per tenant one log query per page of events, one route query per
//! route, and one write per endpoint x event. Tenants are worked one after
//! another inside a pass, bounded by [`TENANT_BUDGET`] events each.

use alyt_domain::ids::TenantId;
pub use alyt_store::repo::events::DispatchCursor;
use alyt_store::repo::events::Events;
use alyt_store::repo::webhooks::{WebhookEndpointRecord, WebhookRoute, Webhooks};
use alyt_store::{Query, Store, StoreError};
use time::OffsetDateTime;

use crate::audience::EventSubjects;
use crate::binding::BindingCheck;
use crate::delivery::{self, EnqueueReport};
use crate::envelope::EventId;
use crate::log::EventLog;

/// Events read per log query.
pub const PAGE: u32 = 100;
/// Events one pass fans out per tenant at most (the next pass goes on).
pub const TENANT_BUDGET: usize = 1_000;

/// Starts following `tenant` from `from` unless it is already followed (an
/// older cursor stays: endpoints filter events older than themselves).
pub async fn follow_tenant(
    store: &dyn Store,
    tenant: TenantId,
    from: OffsetDateTime,
) -> Result<(), StoreError> {
    Events(store).follow(tenant, EventId::floor(from)).await
}

/// The connectors a tenant installed (their ids, the `definitionId` of
/// their LIVE keys), whose LIVE-key endpoints hear it. One query per 1,000
/// integrations of the tenant; what it reads also tells `known` which
/// connector each integration is of (so events about them need no read).
pub async fn installed_connectors(
    store: &dyn Store,
    tenant: TenantId,
    known: &mut EventSubjects,
) -> Result<Vec<String>, StoreError> {
    let repo = alyt_store::repo::integrations::Integrations(store);
    let mut connectors = std::collections::BTreeSet::new();
    let mut after = None;
    loop {
        let (page, next) = repo.page(tenant, Query::MAX_LIMIT, after).await?;
        for integration in page {
            known.learn(&integration);
            connectors.insert(integration.connector_id.to_string());
        }
        match next {
            Some(next) => after = Some(next),
            None => return Ok(connectors.into_iter().collect()),
        }
    }
}

/// A tenant installed `connector`: when a LIVE key's webhook endpoint routes
/// that connector, the dispatcher starts following the tenant from `now`
/// (call it after the installation is stored, so no later event is missed).
/// One index query, plus one conditional put when followed.
pub async fn follow_installation(
    store: &dyn Store,
    tenant: TenantId,
    connector: &str,
    now: OffsetDateTime,
) -> Result<(), StoreError> {
    let route = WebhookRoute::Connector {
        definition_id: connector.to_owned(),
    };
    if Webhooks(store).routed(&route).await?.is_empty() {
        return Ok(());
    }
    follow_tenant(store, tenant, now).await
}

/// What one pass has read already (integrations' connectors, endpoints'
/// keys and developers), shared by its tenants.
struct Seen<'a> {
    connectors: &'a mut EventSubjects,
    bindings: &'a mut BindingCheck,
}

/// What one pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DispatchReport {
    pub tenants: u32,
    /// Events read and fanned out.
    pub events: u32,
    pub queued: u32,
    pub held: u32,
    pub duplicates: u32,
    /// Cursors another dispatcher moved first.
    pub raced: u32,
}

impl DispatchReport {
    fn add(&mut self, report: &EnqueueReport) {
        self.queued += report.queued.len() as u32;
        self.held += report.held.len() as u32;
        self.duplicates += report.duplicates.len() as u32;
    }
}

/// One pass over every followed tenant (see the module docs).
pub async fn dispatch(
    store: &dyn Store,
    log: &EventLog,
    now: OffsetDateTime,
) -> Result<DispatchReport, StoreError> {
    let mut report = DispatchReport::default();
    let mut connectors = EventSubjects::default();
    let mut bindings = BindingCheck::default();
    for cursor in Events(store).cursors().await? {
        report.tenants += 1;
        let mut seen = Seen {
            connectors: &mut connectors,
            bindings: &mut bindings,
        };
        dispatch_tenant(store, log, cursor, now, &mut seen, &mut report).await?;
    }
    Ok(report)
}

async fn dispatch_tenant(
    store: &dyn Store,
    log: &EventLog,
    mut cursor: DispatchCursor,
    now: OffsetDateTime,
    seen: &mut Seen<'_>,
    report: &mut DispatchReport,
) -> Result<(), StoreError> {
    let tenant = cursor.tenant_id;
    let mut endpoints: Option<Vec<WebhookEndpointRecord>> = None;
    let mut done = 0usize;
    while done < TENANT_BUDGET {
        let page = log
            .read_after(tenant, Some(&cursor.position), None, PAGE)
            .await?;
        let (events, position) = (page.events, page.position);
        let Some(position) = position else {
            return Ok(());
        };
        if position == cursor.position {
            return Ok(());
        }
        if !events.is_empty() && endpoints.is_none() {
            let connectors = installed_connectors(store, tenant, seen.connectors).await?;
            // An endpoint whose key or developer is no longer sound gets
            // nothing more (it is disabled with the reason).
            let mut sound = Vec::new();
            for mut endpoint in delivery::endpoints_for(store, tenant, &connectors).await? {
                if seen.bindings.enforce(store, &mut endpoint, now).await? {
                    sound.push(endpoint);
                }
            }
            endpoints = Some(sound);
        }
        let routed = endpoints.as_deref().unwrap_or_default();
        let live_routes = routed
            .iter()
            .any(|e| matches!(e.route, WebhookRoute::Connector { .. }));
        for event in &events {
            // The connector whose integration the event is about (LIVE
            // endpoints hear nothing else).
            let about = match live_routes {
                true => seen.connectors.connector_of(store, event).await?,
                false => None,
            };
            // An endpoint hears what happened from its creation on.
            let eligible: Vec<WebhookEndpointRecord> = routed
                .iter()
                .filter(|e| e.created_at <= event.created_at)
                .filter(|e| match &e.route {
                    WebhookRoute::Tenant { tenant_id } => *tenant_id == tenant,
                    WebhookRoute::Connector { definition_id } => {
                        about.is_some_and(|c| c.to_string() == *definition_id)
                    }
                })
                .cloned()
                .collect();
            if !eligible.is_empty() {
                let enqueued = delivery::enqueue(store, &eligible, event, now).await?;
                report.add(&enqueued);
            }
            report.events += 1;
        }
        done += events.len().max(1);
        if !Events(store).advance(&cursor, &position).await? {
            report.raced += 1;
            return Ok(());
        }
        cursor.position = position;
        cursor.rev += 1;
    }
    Ok(())
}

// ------------------------------------------------------- re-enable follow-up

pub use alyt_store::repo::webhooks::RequeueFollowUp;

/// How long after a re-enable the worker requeues held rows again: on
/// DynamoDB a row held just before the re-enable may reach the held index
/// after the re-enable's own requeue read it (index lag, well under a second).
pub const REQUEUE_FOLLOW_UP: time::Duration = time::Duration::seconds(10);

/// Records a re-enable for the worker to follow up.
pub async fn follow_up_requeue(
    store: &dyn Store,
    endpoint: alyt_domain::ids::WebhookId,
    at: OffsetDateTime,
) -> Result<(), StoreError> {
    Webhooks(store).follow_up_requeue(endpoint, at).await
}

/// Requeues what is still held of recently re-enabled endpoints, and drops
/// follow-ups older than [`REQUEUE_FOLLOW_UP`] (after one last requeue).
/// Returns the rows requeued.
pub async fn follow_up_requeues(store: &dyn Store, now: OffsetDateTime) -> Result<u32, StoreError> {
    let webhooks = Webhooks(store);
    let mut requeued = 0;
    for follow_up in webhooks.requeue_follow_ups().await? {
        requeued += delivery::requeue_held(store, follow_up.endpoint_id, now).await?;
        if now - follow_up.at > REQUEUE_FOLLOW_UP {
            webhooks.drop_follow_up(&follow_up).await?;
        }
    }
    Ok(requeued)
}
