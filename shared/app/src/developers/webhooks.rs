//! A developer's webhook endpoints: who manages them (a developer session,
//! or a key with `webhooks:write`, which manages only its own), and the
//! test delivery of one, and re-enabling one.

use alyt_domain::access::{Principal, Scope};
use alyt_domain::ids::{KeyId, TenantId, WebhookId};
use alyt_events::binding::BindingCheck;
use alyt_events::envelope::{EventId, PlatformEvent, WebhookPingData};
use alyt_store::repo::developers::{DeveloperRecord, DeveloperStatus, Developers};
use alyt_store::repo::webhooks::{
    DisabledReason, EndpointStatus, Queued, WebhookEndpointRecord, WebhookRoute, Webhooks,
};

use super::{active_developer, developer_session};
use crate::{App, Error};

/// Who manages webhook endpoints: the developer, and the key when a key
/// calls.
pub struct Manager {
    pub developer: DeveloperRecord,
    pub key: Option<KeyId>,
}

impl Manager {
    /// Whether this caller manages `endpoint` (a key: only its own).
    pub fn manages(&self, endpoint: &WebhookEndpointRecord) -> bool {
        endpoint.developer_id == self.developer.id && self.key.is_none_or(|k| endpoint.key_id == k)
    }
}

/// The developer behind the caller: a developer session, or a key with
/// `webhooks:write`. The developer must be active.
pub async fn webhook_developer(app: &App, caller: &Principal) -> Result<Manager, Error> {
    match caller {
        Principal::Key {
            developer, key_id, ..
        } => {
            caller.require_scope(Scope::WebhooksWrite)?;
            let developer = Developers(&*app.store)
                .get(*developer)
                .await?
                .filter(|d| d.status == DeveloperStatus::Active)
                .ok_or_else(|| Error::unauthorized("the developer account is not active"))?;
            Ok(Manager {
                developer,
                key: Some(*key_id),
            })
        }
        Principal::Person { .. } | Principal::Widget { .. } | Principal::Routine { .. } => {
            let me = developer_session(caller)?;
            Ok(Manager {
                developer: active_developer(app, &me).await?,
                key: None,
            })
        }
    }
}

fn no_such_webhook() -> Error {
    Error::not_found("no such webhook endpoint")
}

/// One of the endpoints the caller manages; anything else (another
/// developer's, another key's, a malformed id) answers as a missing one.
pub async fn own_endpoint(
    app: &App,
    manager: &Manager,
    id: &str,
) -> Result<WebhookEndpointRecord, Error> {
    let id: WebhookId = id.parse().map_err(|_| no_such_webhook())?;
    Webhooks(&*app.store)
        .endpoint(manager.developer.id, id)
        .await?
        .filter(|e| manager.manages(e))
        .ok_or_else(no_such_webhook)
}

/// A test delivery queued: the ping's event id and how it was queued.
pub struct TestDelivery {
    pub event_id: EventId,
    pub queued: Queued,
}

/// Queues a `webhook.ping` to one of the caller's endpoints, in the
/// endpoint's tenant (a connector's endpoint: the developer's sandbox).
pub async fn test_webhook(app: &App, caller: &Principal, id: &str) -> Result<TestDelivery, Error> {
    let manager = webhook_developer(app, caller).await?;
    let endpoint = own_endpoint(app, &manager, id).await?;
    let now = app.clock.now();
    let tenant: TenantId = match &endpoint.route {
        WebhookRoute::Tenant { tenant_id } => *tenant_id,
        WebhookRoute::Connector { .. } => manager.developer.sandbox_tenant_id.ok_or_else(|| {
            Error::conflict("the developer has no sandbox tenant yet; verify the account")
        })?,
    };
    let ping = WebhookPingData {
        endpoint_id: endpoint.id,
        at: now,
    };
    let event = PlatformEvent::WebhookPing(ping)
        .envelope(EventId::new(now, rand_suffix()), tenant, now)
        .map_err(Error::internal)?;
    let queued = alyt_events::delivery::enqueue_to(&*app.store, &endpoint, &event, now).await?;
    Ok(TestDelivery {
        event_id: event.id,
        queued,
    })
}

fn rand_suffix() -> u32 {
    uuid::Uuid::new_v4().as_u128() as u32
}

/// Re-enables one of the caller's endpoints whose key still speaks for it
/// (a conflict otherwise) and requeues its held deliveries: the endpoint
/// and how many were requeued (none for an endpoint already active).
pub async fn enable_webhook(
    app: &App,
    caller: &Principal,
    id: &str,
) -> Result<(WebhookEndpointRecord, u32), Error> {
    let manager = webhook_developer(app, caller).await?;
    let endpoint = own_endpoint(app, &manager, id).await?;
    let now = app.clock.now();
    if endpoint.status == EndpointStatus::Active {
        return Ok((endpoint, 0));
    }
    let mut bindings = BindingCheck::default();
    match bindings.broken(&*app.store, &endpoint, now).await? {
        Some(DisabledReason::KeyRevoked) => {
            return Err(Error::conflict(
                "the endpoint's key was revoked; create an endpoint bound to a live key",
            ));
        }
        Some(DisabledReason::KeyExpired) => {
            return Err(Error::conflict(
                "the endpoint's key expired; create an endpoint bound to a live key",
            ));
        }
        Some(
            DisabledReason::DeveloperSuspended | DisabledReason::Failures | DisabledReason::Manual,
        )
        | None => {}
    }
    let enabled =
        alyt_events::reenable(&*app.store, manager.developer.id, endpoint.id, now).await?;
    // A row held just before the re-enable may reach the held index late
    // (DynamoDB): the worker requeues again for a few seconds.
    alyt_events::dispatch::follow_up_requeue(&*app.store, endpoint.id, now).await?;
    match enabled {
        Some(done) => Ok((done.endpoint, done.requeued)),
        // Re-enabled meanwhile by another request: answer its state.
        None => {
            let current = own_endpoint(app, &manager, &endpoint.id.to_string()).await?;
            Ok((current, 0))
        }
    }
}
