//! A developer's webhook endpoints: who manages them (a developer session
//! manages all of the developer's and binds them to any of its live keys; a
//! key with `webhooks:write` manages only those bound to itself and binds
//! new ones only to itself; anyone else's answers as a missing one), their
//! registration (a webhook URL, or an EventBridge bus verified by a test
//! event: [`super::event_bridge`]), list, edit and removal, their delivery
//! log, the test delivery of one, disabling and re-enabling one, rotating
//! its secret, replaying a delivery and recovering what it missed.

use std::collections::BTreeSet;

use alyt_domain::access::{KeyKind, Principal, Scope};
use alyt_domain::ids::{ConnectorId, KeyId, TenantId, WebhookId};
use alyt_events::binding::BindingCheck;
use alyt_events::envelope::{EventId, EventKind, PlatformEvent, WebhookPingData};
use alyt_events::outbound::{self, OutboundPolicy};
use alyt_events::recovery::{self, Range};
use alyt_events::{dispatch, signature, webhook};
use alyt_store::PageKey;
use alyt_store::repo::developers::{DeveloperRecord, DeveloperStatus, Developers, KeyRecord};
use alyt_store::repo::integrations::Integrations;
use alyt_store::repo::recoveries::{self, Recoveries, RecoveryRecord};
use alyt_store::repo::webhooks::{
    DeliveryRecord, DeliveryStatus, DisabledReason, EndpointEdit, EndpointStatus,
    EventBridgeTarget, HISTORY, Queued, RowWrite, WebhookEndpointRecord, WebhookRoute, Webhooks,
    developer_endpoints,
};
use time::OffsetDateTime;

use super::event_bridge::{self, NewEventBridge};
use super::{active_developer, developer_session};
use crate::paging::Paging;
use crate::{App, Error};
use alyt_events::bus::BusEntry;
use alyt_events::outbound::SendResult;

/// Endpoints one developer may hold.
pub const MAX_ENDPOINTS: usize = 20;
pub const DESCRIPTION_MAX_CHARS: usize = 200;

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
    let event = ping_envelope(&manager.developer, &endpoint.route, endpoint.id, now)?;
    let queued = alyt_events::delivery::enqueue_to(&*app.store, &endpoint, &event, now).await?;
    Ok(TestDelivery {
        event_id: event.id,
        queued,
    })
}

/// A `webhook.ping` for endpoint `id` on `route`, in the endpoint's tenant
/// (a connector's endpoint: the developer's sandbox).
fn ping_envelope(
    developer: &DeveloperRecord,
    route: &WebhookRoute,
    id: WebhookId,
    now: OffsetDateTime,
) -> Result<alyt_events::EventEnvelope, Error> {
    let tenant: TenantId = match route {
        WebhookRoute::Tenant { tenant_id } => *tenant_id,
        WebhookRoute::Connector { .. } => developer.sandbox_tenant_id.ok_or_else(|| {
            Error::conflict("the developer has no sandbox tenant yet; verify the account")
        })?,
    };
    let ping = WebhookPingData {
        endpoint_id: id,
        at: now,
    };
    PlatformEvent::WebhookPing(ping)
        .envelope(EventId::new(now, rand_suffix()), tenant, now)
        .map_err(Error::internal)
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
    recover: bool,
) -> Result<Reenabled, Error> {
    let manager = webhook_developer(app, caller).await?;
    let (endpoint, requeued) = enable_endpoint(app, &manager, id).await?;
    let recovery = match recover {
        true => Some(recover_missed(app, &endpoint).await?),
        false => None,
    };
    Ok(Reenabled {
        endpoint,
        requeued,
        recovery,
    })
}

/// What a re-enable did.
pub struct Reenabled {
    pub endpoint: WebhookEndpointRecord,
    /// Held deliveries requeued.
    pub requeued: u32,
    /// The recovery it started (or found running), when asked to recover.
    pub recovery: Option<RecoveryRecord>,
}

async fn enable_endpoint(
    app: &App,
    manager: &Manager,
    id: &str,
) -> Result<(WebhookEndpointRecord, u32), Error> {
    let endpoint = own_endpoint(app, manager, id).await?;
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
            let current = own_endpoint(app, manager, &endpoint.id.to_string()).await?;
            Ok((current, 0))
        }
    }
}

/// What a re-enabled endpoint missed: the events after the newest one its
/// log shows delivered, or (none delivered) since its creation.
async fn recover_missed(
    app: &App,
    endpoint: &WebhookEndpointRecord,
) -> Result<RecoveryRecord, Error> {
    let last_delivered = Webhooks(&*app.store)
        .recent_deliveries(endpoint.id, HISTORY)
        .await?
        .into_iter()
        .find(|d| d.status == DeliveryStatus::Delivered)
        .and_then(|d| d.event_id.parse::<EventId>().ok());
    let range = match last_delivered {
        Some(from) => Range::Ids { from, to: None },
        None => Range::Since(endpoint.created_at),
    };
    match start_recovery(app, endpoint, &range).await? {
        Started::Started(record) | Started::Running(record) => Ok(record),
    }
}

/// A recovery asked for, or the one already running.
enum Started {
    Started(RecoveryRecord),
    Running(RecoveryRecord),
}

async fn start_recovery(
    app: &App,
    endpoint: &WebhookEndpointRecord,
    range: &Range,
) -> Result<Started, Error> {
    let tenants = match &endpoint.route {
        WebhookRoute::Tenant { tenant_id } => vec![*tenant_id],
        WebhookRoute::Connector { definition_id } => live_key_tenants(app, definition_id).await?,
    };
    let plan = recovery::plan(endpoint, tenants, range, app.clock.now());
    match Recoveries(&*app.store).start(&plan).await? {
        recoveries::Started::Started => {
            tracing::info!(endpoint = %endpoint.id, from = %plan.from_event_id, to = %plan.to_event_id, "webhook recovery started");
            Ok(Started::Started(plan))
        }
        recoveries::Started::Running(running) => Ok(Started::Running(*running)),
    }
}

/// What a developer asks a recovery to cover: `since` a time, or an event id
/// range (`to` open-ended when left out), as the request gave them.
#[derive(Debug, Clone, Default)]
pub struct RecoverRequest {
    pub since: Option<OffsetDateTime>,
    pub from_event_id: Option<String>,
    pub to_event_id: Option<String>,
}

/// Starts recovering one of the caller's endpoints (active, with no
/// recovery running): every event of the range its filter matches that it
/// did not get is sent again, in order, by the worker (see
/// [`alyt_events::recovery`]). The recovery as started.
pub async fn recover_webhook(
    app: &App,
    caller: &Principal,
    id: &str,
    request: RecoverRequest,
) -> Result<RecoveryRecord, Error> {
    let manager = webhook_developer(app, caller).await?;
    let range = checked_range(request, app.clock.now())?;
    let endpoint = own_endpoint(app, &manager, id).await?;
    if endpoint.status != EndpointStatus::Active {
        return Err(Error::conflict(
            "the endpoint is disabled: enable it with { \"recover\": true } to send what it missed",
        ));
    }
    match start_recovery(app, &endpoint, &range).await? {
        Started::Started(record) => Ok(record),
        Started::Running(running) => Err(Error::conflict(format!(
            "a recovery of this endpoint is running (started {}, {} queued so far); \
             read it with GET /v1/developers/webhooks/{}/recovery and start another when it is done",
            running.started_at, running.queued, endpoint.id
        ))),
    }
}

/// A recovery range as asked: exactly one of `since` and `fromEventId`,
/// `since` not in the future, `toEventId` only with `fromEventId` and not
/// before it; each refusal names its field.
fn checked_range(request: RecoverRequest, now: OffsetDateTime) -> Result<Range, Error> {
    let event_id = |field: &str, id: &str| {
        id.parse::<EventId>()
            .map_err(|_| Error::validation(field, "not an event id (as `id` of an event)"))
    };
    match (request.since, request.from_event_id, request.to_event_id) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => Err(Error::validation(
            "since",
            "give either since or fromEventId (with an optional toEventId), not both",
        )),
        (Some(since), None, None) if since > now => {
            Err(Error::validation("since", "since is in the future"))
        }
        (Some(since), None, None) => Ok(Range::Since(since)),
        (None, Some(from), to) => {
            let from = event_id("fromEventId", &from)?;
            let to = to.map(|to| event_id("toEventId", &to)).transpose()?;
            if to.as_ref().is_some_and(|to| *to < from) {
                return Err(Error::validation(
                    "toEventId",
                    "toEventId is before fromEventId",
                ));
            }
            Ok(Range::Ids { from, to })
        }
        (None, None, Some(_)) => Err(Error::validation(
            "fromEventId",
            "toEventId needs a fromEventId",
        )),
        (None, None, None) => Err(Error::validation(
            "since",
            "give since (a time) or fromEventId (an event id)",
        )),
    }
}

/// The latest recovery of one of the caller's endpoints (running or not).
pub async fn webhook_recovery(
    app: &App,
    caller: &Principal,
    id: &str,
) -> Result<RecoveryRecord, Error> {
    let manager = webhook_developer(app, caller).await?;
    let endpoint = own_endpoint(app, &manager, id).await?;
    Recoveries(&*app.store)
        .get(endpoint.id)
        .await?
        .ok_or_else(|| Error::not_found("this endpoint was never recovered"))
}

/// The tenants a LIVE key of connector `definition_id` reaches: those that
/// installed the connector (none for a definition that names no connector).
/// One index query per 1,000 installations.
pub async fn live_key_tenants(app: &App, definition_id: &str) -> Result<Vec<TenantId>, Error> {
    let Ok(connector) = definition_id.parse::<ConnectorId>() else {
        return Ok(Vec::new());
    };
    Ok(Integrations(&*app.store)
        .installing_tenants(connector)
        .await?)
}

/// An endpoint's URL as stored: trimmed and allowed by the outbound policy
/// (a bad `url` otherwise).
async fn checked_url(policy: OutboundPolicy, url: &str) -> Result<String, Error> {
    let url = url.trim();
    outbound::check_url(policy, url)
        .await
        .map_err(|refusal| Error::validation("url", refusal.to_string()))?;
    Ok(url.to_owned())
}

/// An event filter as stored: at least one kind, each once, in order (a bad
/// `events` otherwise).
fn checked_events(events: &[EventKind]) -> Result<Vec<String>, Error> {
    if events.is_empty() {
        return Err(Error::validation(
            "events",
            "events must name at least one event kind",
        ));
    }
    let kinds: BTreeSet<EventKind> = events.iter().copied().collect();
    Ok(kinds.into_iter().map(|k| k.as_str().to_owned()).collect())
}

/// A description as stored: trimmed, none when empty, at most
/// [`DESCRIPTION_MAX_CHARS`] printable characters (a bad `description`
/// otherwise).
fn checked_description(description: Option<&str>) -> Result<Option<String>, Error> {
    match description.map(str::trim) {
        None | Some("") => Ok(None),
        Some(d) if d.chars().count() > DESCRIPTION_MAX_CHARS || d.chars().any(char::is_control) => {
            Err(Error::validation(
                "description",
                format!(
                    "description must have at most {DESCRIPTION_MAX_CHARS} printable characters"
                ),
            ))
        }
        Some(d) => Ok(Some(d.to_owned())),
    }
}

/// What an endpoint delivers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum DestinationKind {
    Webhook,
    Eventbridge,
}

/// A new endpoint as its developer asks for one: a webhook (`url`) or an
/// EventBridge destination (`event_bridge`).
#[derive(Debug, Clone)]
pub struct NewWebhook {
    /// The kind the developer named, if any: it must agree with the fields.
    pub kind: Option<DestinationKind>,
    pub url: Option<String>,
    pub event_bridge: Option<NewEventBridge>,
    pub events: Vec<EventKind>,
    pub description: Option<String>,
    /// The key to bind it to; default: the calling key, or for a developer
    /// session the newest active DEV key.
    pub key_id: Option<KeyId>,
}

/// A new endpoint's checked fields.
struct EndpointFields {
    /// A webhook's URL; `None` for an EventBridge destination (its bus's ARN
    /// becomes the URL).
    url: Option<String>,
    event_bridge: Option<EventBridgeTarget>,
    events: Vec<String>,
    description: Option<String>,
}

/// Registers an endpoint and answers it with its signing secret: a key
/// binds one only to itself (naming another key is refused), then the URL
/// (against the outbound policy), the events and the description are
/// checked, each refusal naming its field.
pub async fn create_webhook(
    app: &App,
    caller: &Principal,
    new: NewWebhook,
) -> Result<(WebhookEndpointRecord, String), Error> {
    agreeing_kind(&new)?;
    let manager = webhook_developer(app, caller).await?;
    if let (Some(own), Some(named)) = (manager.key, new.key_id)
        && own != named
    {
        return Err(Error::forbidden(
            "a key binds webhook endpoints only to itself; bind one to another key with a \
             signed-in developer session",
        ));
    }
    let (url, event_bridge) = match (&new.url, &new.event_bridge) {
        (Some(url), None) => (Some(checked_url(app.events.outbound, url).await?), None),
        (None, Some(bus)) => (None, Some(event_bridge::checked(bus)?)),
        (Some(_), Some(_)) => {
            return Err(Error::validation(
                "url",
                "an EventBridge destination has no url: give url (a webhook) or eventBridge",
            ));
        }
        (None, None) => {
            return Err(Error::validation(
                "url",
                "a webhook endpoint needs a url (or give eventBridge for an EventBridge destination)",
            ));
        }
    };
    let fields = EndpointFields {
        url,
        event_bridge,
        events: checked_events(&new.events)?,
        description: checked_description(new.description.as_deref())?,
    };
    register_endpoint(app, &manager, new.key_id, fields).await
}

/// Refuses a named kind its fields contradict (a webhook with a bus, an
/// EventBridge destination without one), before anything else is checked.
fn agreeing_kind(new: &NewWebhook) -> Result<(), Error> {
    match (new.kind, &new.event_bridge) {
        (Some(DestinationKind::Webhook), Some(_)) => Err(Error::validation(
            "eventBridge",
            "a webhook has no eventBridge",
        )),
        (Some(DestinationKind::Eventbridge), None) => Err(Error::validation(
            "eventBridge",
            "an eventbridge destination needs eventBridge: { accountId, region, eventBusArn or eventSourceName }",
        )),
        _ => Ok(()),
    }
}

/// The key a new endpoint is bound to: the one named (or the calling key),
/// else the developer's newest active DEV key.
fn binding_key(
    keys: &[KeyRecord],
    named: Option<KeyId>,
    now: OffsetDateTime,
) -> Result<&KeyRecord, Error> {
    let usable = |k: &&KeyRecord| k.revoked_at.is_none() && k.expires_at.is_none_or(|e| e > now);
    match named {
        Some(id) => keys
            .iter()
            .filter(usable)
            .find(|k| k.id == id)
            .ok_or_else(|| Error::validation("keyId", "no such active key of this developer")),
        None => keys
            .iter()
            .filter(usable)
            .filter(|k| k.kind == KeyKind::Dev)
            .max_by_key(|k| k.created_at)
            .ok_or_else(|| {
                Error::validation(
                    "keyId",
                    "the developer has no active DEV key: create one, or name a key",
                )
            }),
    }
}

/// Registers an endpoint bound to a key of the manager's developer (routed
/// to the sandbox tenant for a DEV key, to the connector's tenants for a LIVE
/// one), within the per-developer limit; answers it with its secret.
async fn register_endpoint(
    app: &App,
    manager: &Manager,
    named_key: Option<KeyId>,
    fields: EndpointFields,
) -> Result<(WebhookEndpointRecord, String), Error> {
    let developer = &manager.developer;
    let now = app.clock.now();
    let keys = Developers(&*app.store).keys(developer.id).await?;
    let key = binding_key(&keys, named_key.or(manager.key), now)?;
    let route = match key.kind {
        KeyKind::Dev => WebhookRoute::Tenant {
            tenant_id: developer.sandbox_tenant_id.ok_or_else(|| {
                Error::conflict("the developer has no sandbox tenant yet; verify the account")
            })?,
        },
        KeyKind::Live => WebhookRoute::Connector {
            definition_id: key.definition_id.clone().ok_or_else(|| {
                Error::validation("keyId", "this LIVE key belongs to no connector")
            })?,
        },
    };
    let repo = Webhooks(&*app.store);
    if repo.list_endpoints(developer.id).await?.len() >= MAX_ENDPOINTS {
        return Err(Error::conflict(format!(
            "a developer holds at most {MAX_ENDPOINTS} webhook endpoints; remove one first"
        )));
    }
    let id = WebhookId::new();
    if let Some(target) = &fields.event_bridge {
        verify_bus(app, developer, &route, id, target).await?;
    }
    let secret = signature::generate_secret();
    let record = WebhookEndpointRecord {
        id,
        developer_id: developer.id,
        key_id: key.id,
        route: route.clone(),
        url: match (&fields.url, &fields.event_bridge) {
            (Some(url), _) => url.clone(),
            (None, Some(target)) => target.event_bus_arn.clone(),
            (None, None) => unreachable!("checked: a url or a bus"),
        },
        event_bridge: fields.event_bridge,
        events: fields.events,
        description: fields.description,
        secret: secret.clone(),
        previous_secret: None,
        previous_secret_until: None,
        status: EndpointStatus::Active,
        consecutive_failures: 0,
        disabled_at: None,
        disabled_reason: None,
        created_at: now,
    };
    // The dispatcher follows the tenant before the endpoint exists, so no
    // event after the endpoint's creation can be missed.
    match &route {
        WebhookRoute::Tenant { tenant_id } => {
            dispatch::follow_tenant(&*app.store, *tenant_id, now).await?;
        }
        WebhookRoute::Connector { definition_id } => {
            for tenant in live_key_tenants(app, definition_id).await? {
                dispatch::follow_tenant(&*app.store, tenant, now).await?;
            }
        }
    }
    repo.create_endpoint(&record).await?;
    tracing::info!(endpoint = %record.id, developer = %developer.id, "webhook endpoint registered");
    Ok((record, secret))
}

/// Puts a `webhook.ping` on a new EventBridge destination's bus before it
/// is stored: a bus that refuses it (missing, or its policy does not let
/// this platform's account put events) refuses the destination, naming why.
async fn verify_bus(
    app: &App,
    developer: &DeveloperRecord,
    route: &WebhookRoute,
    id: WebhookId,
    target: &EventBridgeTarget,
) -> Result<(), Error> {
    let now = app.clock.now();
    let ping = ping_envelope(developer, route, id, now)?;
    let entry = BusEntry {
        detail_type: ping.kind.to_string(),
        detail: serde_json::to_string(&ping).map_err(Error::internal)?,
        time: now,
    };
    match app.event_bus.put(target, entry).await {
        SendResult::Answered(status) if (200..300).contains(&status) => Ok(()),
        SendResult::Answered(status) => Err(Error::validation(
            "eventBridge",
            format!("the bus refused the test event (status {status})"),
        )),
        SendResult::Refused(refusal) => Err(Error::validation(
            "eventBridge",
            format!("the test event was not sent: {refusal}"),
        )),
        SendResult::Failed(why) => Err(Error::validation(
            "eventBridge",
            format!("the bus refused the test event: {why}"),
        )),
    }
}

/// One page of the endpoints the caller manages, oldest first. The caller
/// is checked before the page size and the cursor.
pub async fn webhooks_page(
    app: &App,
    caller: &Principal,
    paging: &Paging,
) -> Result<(Vec<WebhookEndpointRecord>, Option<PageKey>), Error> {
    let manager = webhook_developer(app, caller).await?;
    let limit = paging.limit()? as usize;
    let after = paging.after_within(&developer_endpoints(manager.developer.id))?;
    let endpoints = checked_endpoints(app, &manager).await?;
    Ok(Webhooks::page_of(endpoints, limit, after.as_ref()))
}

/// The endpoints the caller manages, oldest first. An active endpoint whose
/// key or developer is no longer sound is disabled here too, so the list
/// always says why.
async fn checked_endpoints(
    app: &App,
    manager: &Manager,
) -> Result<Vec<WebhookEndpointRecord>, Error> {
    let now = app.clock.now();
    let mut bindings = BindingCheck::default();
    let mut all = Vec::new();
    for mut endpoint in Webhooks(&*app.store)
        .list_endpoints(manager.developer.id)
        .await?
        .into_iter()
        .filter(|e| manager.manages(e))
    {
        if endpoint.status == EndpointStatus::Active {
            bindings.enforce(&*app.store, &mut endpoint, now).await?;
        }
        all.push(endpoint);
    }
    Ok(all)
}

/// An edit of an endpoint: a field left out keeps its value.
#[derive(Debug, Clone, Default)]
pub struct WebhookEdit {
    pub url: Option<String>,
    pub events: Option<Vec<EventKind>>,
    /// `Some(None)` (or an empty one) removes it.
    pub description: Option<Option<String>>,
}

/// Edits one of the caller's endpoints: its URL (checked as a new
/// endpoint's), event filter or description. The secret, the key and the
/// status stay.
pub async fn update_webhook(
    app: &App,
    caller: &Principal,
    id: &str,
    edit: WebhookEdit,
) -> Result<WebhookEndpointRecord, Error> {
    let manager = webhook_developer(app, caller).await?;
    let endpoint = own_endpoint(app, &manager, id).await?;
    if edit.url.is_some() && endpoint.event_bridge.is_some() {
        return Err(Error::validation(
            "url",
            "an EventBridge destination has no url; add another destination for another bus",
        ));
    }
    let url = match &edit.url {
        Some(url) => Some(checked_url(app.events.outbound, url).await?),
        None => None,
    };
    let events = edit.events.as_deref().map(checked_events).transpose()?;
    let description = edit
        .description
        .as_ref()
        .map(|d| checked_description(d.as_deref()))
        .transpose()?;
    let edit = EndpointEdit {
        url,
        events,
        description,
    };
    let edited = Webhooks(&*app.store)
        .edit(manager.developer.id, endpoint.id, edit)
        .await?
        .ok_or_else(no_such_webhook)?;
    tracing::info!(endpoint = %edited.id, developer = %edited.developer_id, "webhook endpoint edited");
    Ok(edited)
}

/// How long a replaced secret keeps signing after a rotation by default,
/// and at most (seconds).
pub const ROTATION_GRACE_DEFAULT: u32 = 24 * 60 * 60;
pub const ROTATION_GRACE_MAX: u32 = 7 * 24 * 60 * 60;

/// Gives one of the caller's endpoints a new secret, returned once (the
/// endpoint, the secret). For `grace_seconds` (default a day, at most a
/// week, 0 for none) each delivery is signed with the replaced secret too,
/// so a receiver may switch at any time within it; a rotation during a
/// grace period ends that one (two secrets at most).
pub async fn rotate_webhook_secret(
    app: &App,
    caller: &Principal,
    id: &str,
    grace_seconds: Option<u32>,
) -> Result<(WebhookEndpointRecord, String), Error> {
    let grace = grace_seconds.unwrap_or(ROTATION_GRACE_DEFAULT);
    if grace > ROTATION_GRACE_MAX {
        return Err(Error::validation(
            "graceSeconds",
            format!("at most {ROTATION_GRACE_MAX} (7 days)"),
        ));
    }
    let manager = webhook_developer(app, caller).await?;
    let endpoint = own_endpoint(app, &manager, id).await?;
    let secret = signature::generate_secret();
    let until = app.clock.now() + time::Duration::seconds(i64::from(grace));
    let rotated = Webhooks(&*app.store)
        .rotate_secret(
            manager.developer.id,
            endpoint.id,
            &endpoint.secret,
            &secret,
            until,
        )
        .await?;
    let Some(rotated) = rotated else {
        // Removed, or rotated by another request meanwhile.
        own_endpoint(app, &manager, id).await?;
        return Err(Error::conflict(
            "the secret was rotated by another request meanwhile; rotate again if you need another",
        ));
    };
    tracing::info!(endpoint = %rotated.id, developer = %rotated.developer_id, grace_seconds = grace, "webhook secret rotated");
    Ok((rotated, secret))
}

/// Sends one of an endpoint's logged deliveries (its last [`HISTORY`])
/// again: the same event (same id and body), a new attempt with a new
/// signature time, due at once. A delivery still waiting for its next
/// retry is brought forward; one not yet attempted is answered as it is.
/// A disabled endpoint is refused (re-enabling it requeues what it holds).
pub async fn replay_webhook_delivery(
    app: &App,
    caller: &Principal,
    id: &str,
    delivery_id: &str,
) -> Result<DeliveryRecord, Error> {
    let manager = webhook_developer(app, caller).await?;
    let endpoint = own_endpoint(app, &manager, id).await?;
    let no_such_delivery = || Error::not_found("no such delivery in this endpoint's log");
    let delivery_id: uuid::Uuid = delivery_id.parse().map_err(|_| no_such_delivery())?;
    if endpoint.status != EndpointStatus::Active {
        return Err(Error::conflict(
            "the endpoint is disabled: enable it (which requeues what it held), then replay",
        ));
    }
    let webhooks = Webhooks(&*app.store);
    let current = webhooks
        .recent_deliveries(endpoint.id, HISTORY)
        .await?
        .into_iter()
        .find(|d| d.id == delivery_id)
        .ok_or_else(no_such_delivery)?;
    if current.status == DeliveryStatus::Pending {
        return Ok(current);
    }
    let now = app.clock.now();
    let next = webhook::bring_forward(&current, now);
    match webhooks.replace(&current, &next).await? {
        RowWrite::Written => {
            tracing::info!(endpoint = %endpoint.id, event = %next.event_id, "webhook delivery replayed");
            Ok(next)
        }
        _ => Err(Error::conflict(
            "the delivery changed meanwhile (an attempt is under way); read the log and replay again",
        )),
    }
}

/// Removes one of the caller's endpoints.
pub async fn delete_webhook(app: &App, caller: &Principal, id: &str) -> Result<(), Error> {
    let manager = webhook_developer(app, caller).await?;
    let endpoint = own_endpoint(app, &manager, id).await?;
    if !Webhooks(&*app.store)
        .delete_endpoint(manager.developer.id, endpoint.id)
        .await?
    {
        return Err(no_such_webhook());
    }
    Ok(())
}

/// The last [`HISTORY`] deliveries of one of the caller's endpoints, newest
/// event first.
pub async fn webhook_deliveries(
    app: &App,
    caller: &Principal,
    id: &str,
) -> Result<Vec<DeliveryRecord>, Error> {
    let manager = webhook_developer(app, caller).await?;
    let endpoint = own_endpoint(app, &manager, id).await?;
    Ok(Webhooks(&*app.store)
        .recent_deliveries(endpoint.id, HISTORY)
        .await?)
}

/// Disables one of the caller's endpoints by hand (reason `manual`); one
/// already disabled keeps its reason. The endpoint as it is now.
pub async fn disable_webhook(
    app: &App,
    caller: &Principal,
    id: &str,
) -> Result<WebhookEndpointRecord, Error> {
    let manager = webhook_developer(app, caller).await?;
    let endpoint = own_endpoint(app, &manager, id).await?;
    if endpoint.status == EndpointStatus::Disabled {
        return Ok(endpoint);
    }
    let now = app.clock.now();
    let disabled = Webhooks(&*app.store)
        .disable_for(
            manager.developer.id,
            endpoint.id,
            DisabledReason::Manual,
            now,
        )
        .await?;
    match disabled {
        Some(disabled) => {
            tracing::info!(endpoint = %disabled.id, developer = %disabled.developer_id, "webhook endpoint disabled by its developer");
            Ok(disabled)
        }
        // Disabled (or removed) meanwhile: answer what is there now.
        None => own_endpoint(app, &manager, id).await,
    }
}
