//! Webhook endpoints (spec part E): register, list, edit, remove, test, read
//! the delivery log, disable and re-enable. The delivery itself (signing,
//! retries, disable) is `alyt-events`; the dispatcher and the worker run
//! outside requests.
//!
//! Who: a signed-in developer manages all of its endpoints and binds them to
//! any of its live keys; a key with `webhooks:write` sees and manages only
//! the endpoints bound to itself, and creates endpoints bound to itself
//! (naming another key is 403: that needs a developer session). An endpoint
//! of another developer, or of another key, answers exactly like a missing
//! one (404).
//!
//! An endpoint is bound to one key: a DEV key routes its sandbox tenant's
//! events; a LIVE key, in the tenants that installed its connector, the
//! events about that connector's integrations. When the key is revoked or
//! expires, or the developer is suspended, the endpoint is disabled with the
//! reason and nothing more is sent ([`alyt_events::binding`]); such an
//! endpoint cannot be re-enabled while the reason stands. A developer may
//! disable an endpoint itself (reason `manual`): the same state as the
//! worker's disable after fifty failures, so events are held, not sent, until
//! a re-enable sends them.
//! An edit changes the URL, the event filter and the description; the
//! secret, the key and the route stay.
//! The URL is checked against the outbound policy when registered (https and
//! public addresses hosted; the local platform allows http to private
//! networks) and again at every delivery. The signing secret is shown in the
//! create answer only; it is never logged.

use std::collections::BTreeSet;

use crate::routing::{Operations, operations};
use alyt_domain::access::{KeyKind, Principal};
use alyt_domain::ids::{KeyId, WebhookId};
use alyt_events::binding::BindingCheck;
use alyt_events::envelope::EventKind;
use alyt_events::outbound::{self, OutboundPolicy};
use alyt_events::{dispatch, signature};
use alyt_store::repo::developers::{Developers, KeyRecord};
use alyt_store::repo::webhooks::developer_endpoints;
use alyt_store::repo::webhooks::{
    DeliveryRecord, DeliveryStatus, DisabledReason, EndpointEdit, EndpointStatus, HISTORY, Queued,
    WebhookEndpointRecord, WebhookRoute, Webhooks,
};
use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::session::{Body, Params};
use crate::auth::Caller;
use crate::conventions::list::{ListResponse, PageParams, listed};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{
    BadPage, KeyWithoutWebhooksWrite, NoDeveloperSessionOrKey, NoSuchWebhookEndpoint,
};
use crate::{ApiError, AppState};

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(list_webhooks, create_webhook))
        .merge(operations!(update_webhook, delete_webhook))
        .merge(operations!(test_webhook))
        .merge(operations!(list_webhook_deliveries))
        .merge(operations!(enable_webhook))
        .merge(operations!(disable_webhook))
}

/// Endpoints one developer may hold.
pub const MAX_ENDPOINTS: usize = 20;
pub const DESCRIPTION_MAX_CHARS: usize = 200;

pub use crate::state::EventsSettings;

/// The tenants a LIVE key of connector `definition_id` reaches: those that
/// installed the connector (none for a definition that names no connector).
/// One index query per 1,000 installations.
pub async fn live_key_tenants(
    state: &AppState,
    definition_id: &str,
) -> Result<Vec<alyt_domain::ids::TenantId>, ApiError> {
    let Ok(connector) = definition_id.parse::<alyt_domain::ids::ConnectorId>() else {
        return Ok(Vec::new());
    };
    Ok(alyt_store::repo::integrations::Integrations(&*state.store)
        .installing_tenants(connector)
        .await?)
}

/// A registered endpoint; never its secret.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = WebhookEndpoint)]
pub struct EndpointView {
    pub id: WebhookId,
    pub url: String,
    /// The event kinds it receives.
    pub events: Vec<String>,
    #[schema(required = true)]
    pub description: Option<String>,
    /// The developer key it is bound to.
    pub key_id: KeyId,
    pub status: EndpointStatus,
    /// Why it is disabled: `failures` (fifty in a row; re-enable it),
    /// `manual` (disabled by its developer; re-enable it), `key_revoked` or
    /// `key_expired` (its key can no longer speak for it),
    /// `developer_suspended`. Null while active.
    #[schema(required = true)]
    pub disabled_reason: Option<DisabledReason>,
    /// Failed attempts since the last success (50 disable it).
    pub consecutive_failures: u32,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    #[schema(required = true)]
    pub disabled_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
}

impl From<WebhookEndpointRecord> for EndpointView {
    fn from(e: WebhookEndpointRecord) -> Self {
        let disabled_reason = e.why_disabled();
        Self {
            id: e.id,
            url: e.url,
            events: e.events,
            description: e.description,
            key_id: e.key_id,
            status: e.status,
            disabled_reason,
            consecutive_failures: e.consecutive_failures,
            disabled_at: e.disabled_at,
            created_at: e.created_at,
        }
    }
}

/// The create answer: the endpoint and its signing secret, shown this once.
#[derive(Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EndpointWithSecret {
    #[serde(flatten)]
    pub endpoint: EndpointView,
    /// `whsec_…`: the HMAC-SHA256 key of `X-SVC-Signature` (verify with
    /// Stripe's libraries). Shown once.
    pub secret: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateWebhookRequest {
    /// Where deliveries are POSTed: https on the hosted platform.
    #[schema(max_length = 2048)]
    pub url: String,
    /// The event kinds to receive (at least one).
    pub events: Vec<EventKind>,
    #[serde(default)]
    #[schema(max_length = 200)]
    pub description: Option<String>,
    /// The key the endpoint is bound to; default: the calling key, or for a
    /// developer session the newest active DEV key. Only a developer session
    /// may name another key.
    #[serde(default)]
    pub key_id: Option<KeyId>,
}

/// Who manages webhooks in a request: the (active) developer, and the key
/// when a key calls, which sees only the endpoints bound to itself.
use alyt_app::developers::webhooks::Manager;

fn no_such_webhook() -> ApiError {
    ApiError::not_found("no such webhook endpoint")
}

/// The developer behind the caller: a developer session, or a key with
/// `webhooks:write`. The developer must be active.
async fn webhook_developer(state: &AppState, caller: &Principal) -> Result<Manager, ApiError> {
    Ok(alyt_app::developers::webhooks::webhook_developer(state, caller).await?)
}

/// One of the endpoints the caller manages; anything else (another
/// developer's, another key's, a malformed id) is 404.
async fn own_endpoint(
    state: &AppState,
    manager: &Manager,
    id: &str,
) -> Result<WebhookEndpointRecord, ApiError> {
    Ok(alyt_app::developers::webhooks::own_endpoint(state, manager, id).await?)
}

/// Checks the fields of a new endpoint; a wrong one is a 400 naming it.
pub async fn check_endpoint_fields(
    policy: OutboundPolicy,
    request: &CreateWebhookRequest,
) -> Result<(String, Vec<String>, Option<String>), ApiError> {
    let url = checked_url(policy, &request.url).await?;
    let events = checked_events(&request.events)?;
    let description = checked_description(request.description.as_deref())?;
    Ok((url, events, description))
}

/// An endpoint's URL as stored: trimmed and allowed by the outbound policy
/// (400 on `url` otherwise).
async fn checked_url(policy: OutboundPolicy, url: &str) -> Result<String, ApiError> {
    let url = url.trim();
    outbound::check_url(policy, url)
        .await
        .map_err(|refusal| ApiError::validation("url", refusal.to_string()))?;
    Ok(url.to_owned())
}

/// An event filter as stored: at least one kind, each once, in order (400
/// on `events` otherwise).
fn checked_events(events: &[EventKind]) -> Result<Vec<String>, ApiError> {
    if events.is_empty() {
        return Err(ApiError::validation(
            "events",
            "events must name at least one event kind",
        ));
    }
    let kinds: BTreeSet<EventKind> = events.iter().copied().collect();
    Ok(kinds.into_iter().map(|k| k.as_str().to_owned()).collect())
}

/// A description as stored: trimmed, none when empty, at most
/// [`DESCRIPTION_MAX_CHARS`] printable characters (400 on `description`).
fn checked_description(description: Option<&str>) -> Result<Option<String>, ApiError> {
    match description.map(str::trim) {
        None | Some("") => Ok(None),
        Some(d) if d.chars().count() > DESCRIPTION_MAX_CHARS || d.chars().any(char::is_control) => {
            Err(ApiError::validation(
                "description",
                format!(
                    "description must have at most {DESCRIPTION_MAX_CHARS} printable characters"
                ),
            ))
        }
        Some(d) => Ok(Some(d.to_owned())),
    }
}

/// Registers an endpoint and answers its signing secret, shown this once.
#[utoipa::path(
    post,
    path = "/v1/developers/webhooks",
    tag = "developers",
    operation_id = "createWebhook",
    security(("bearer" = ["webhooks:write"])),
    request_body = CreateWebhookRequest,
    responses(
        (status = 201, description = "The endpoint and its signing secret (shown once)", body = EndpointWithSecret),
        (status = 400, description = "A field is wrong: url (refused by the outbound policy), events, description, keyId", body = Problem, content_type = "application/problem+json"),
        NoDeveloperSessionOrKey,
        KeyWithoutWebhooksWrite,
        (status = 409, description = "Too many endpoints, or no sandbox tenant yet", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn create_webhook(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Body(request): Body<CreateWebhookRequest>,
) -> Result<(StatusCode, Json<EndpointWithSecret>), ApiError> {
    let manager = webhook_developer(&state, &caller).await?;
    if let (Some(own), Some(named)) = (manager.key, request.key_id)
        && own != named
    {
        return Err(ApiError::forbidden(
            "a key binds webhook endpoints only to itself; bind one to another key with a \
             signed-in developer session",
        ));
    }
    let (url, events, description) = check_endpoint_fields(state.events.outbound, &request).await?;
    let fields = EndpointFields {
        url,
        events,
        description,
    };
    let (record, secret) = register_endpoint(&state, &manager, request.key_id, fields).await?;
    Ok((
        StatusCode::CREATED,
        Json(EndpointWithSecret {
            endpoint: record.into(),
            secret,
        }),
    ))
}

/// A new endpoint's checked fields.
struct EndpointFields {
    url: String,
    events: Vec<String>,
    description: Option<String>,
}

/// The key a new endpoint is bound to: the one named (or the calling key),
/// else the developer's newest active DEV key.
fn binding_key(
    keys: &[KeyRecord],
    named: Option<KeyId>,
    now: OffsetDateTime,
) -> Result<&KeyRecord, ApiError> {
    let usable = |k: &&KeyRecord| k.revoked_at.is_none() && k.expires_at.is_none_or(|e| e > now);
    match named {
        Some(id) => keys
            .iter()
            .filter(usable)
            .find(|k| k.id == id)
            .ok_or_else(|| ApiError::validation("keyId", "no such active key of this developer")),
        None => keys
            .iter()
            .filter(usable)
            .filter(|k| k.kind == KeyKind::Dev)
            .max_by_key(|k| k.created_at)
            .ok_or_else(|| {
                ApiError::validation(
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
    state: &AppState,
    manager: &Manager,
    named_key: Option<KeyId>,
    fields: EndpointFields,
) -> Result<(WebhookEndpointRecord, String), ApiError> {
    let developer = &manager.developer;
    let now = state.clock.now();
    let keys = Developers(&*state.store).keys(developer.id).await?;
    let key = binding_key(&keys, named_key.or(manager.key), now)?;
    let route = match key.kind {
        KeyKind::Dev => WebhookRoute::Tenant {
            tenant_id: developer.sandbox_tenant_id.ok_or_else(|| {
                ApiError::conflict("the developer has no sandbox tenant yet; verify the account")
            })?,
        },
        KeyKind::Live => WebhookRoute::Connector {
            definition_id: key.definition_id.clone().ok_or_else(|| {
                ApiError::validation("keyId", "this LIVE key belongs to no connector")
            })?,
        },
    };
    let repo = Webhooks(&*state.store);
    if repo.list_endpoints(developer.id).await?.len() >= MAX_ENDPOINTS {
        return Err(ApiError::conflict(format!(
            "a developer holds at most {MAX_ENDPOINTS} webhook endpoints; remove one first"
        )));
    }
    let secret = signature::generate_secret();
    let record = WebhookEndpointRecord {
        id: WebhookId::new(),
        developer_id: developer.id,
        key_id: key.id,
        route: route.clone(),
        url: fields.url,
        events: fields.events,
        description: fields.description,
        secret: secret.clone(),
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
            dispatch::follow_tenant(&*state.store, *tenant_id, now).await?;
        }
        WebhookRoute::Connector { definition_id } => {
            for tenant in live_key_tenants(state, definition_id).await? {
                dispatch::follow_tenant(&*state.store, tenant, now).await?;
            }
        }
    }
    repo.create_endpoint(&record).await?;
    tracing::info!(endpoint = %record.id, developer = %developer.id, "webhook endpoint registered");
    Ok((record, secret))
}

/// The developer's endpoints, oldest first; never their secrets.
#[utoipa::path(
    get,
    path = "/v1/developers/webhooks",
    tag = "developers",
    operation_id = "listWebhooks",
    security(("bearer" = ["webhooks:write"])),
    params(PageParams),
    responses(
        (status = 200, description = "One page of endpoints", body = ListResponse<EndpointView>),
        BadPage,
        NoDeveloperSessionOrKey,
        KeyWithoutWebhooksWrite,
    )
)]
pub async fn list_webhooks(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Params(page): Params<PageParams>,
) -> Result<Json<ListResponse<EndpointView>>, ApiError> {
    let manager = webhook_developer(&state, &caller).await?;
    let limit = page.limit()? as usize;
    let after = page.after_within(&developer_endpoints(manager.developer.id))?;
    let endpoints = checked_endpoints(&state, &manager).await?;
    let found = Webhooks::page_of(endpoints, limit, after.as_ref());
    Ok(listed(found, EndpointView::from))
}

/// The endpoints the caller manages, oldest first. An active endpoint whose
/// key or developer is no longer sound is disabled here too, so the list
/// always says why.
async fn checked_endpoints(
    state: &AppState,
    manager: &Manager,
) -> Result<Vec<WebhookEndpointRecord>, ApiError> {
    let now = state.clock.now();
    let mut bindings = BindingCheck::default();
    let mut all = Vec::new();
    for mut endpoint in Webhooks(&*state.store)
        .list_endpoints(manager.developer.id)
        .await?
        .into_iter()
        .filter(|e| manager.manages(e))
    {
        if endpoint.status == EndpointStatus::Active {
            bindings.enforce(&*state.store, &mut endpoint, now).await?;
        }
        all.push(endpoint);
    }
    Ok(all)
}

/// The body of `PATCH /v1/developers/webhooks/{webhookId}`: every field
/// optional; a field left out keeps its value.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateWebhookRequest {
    /// Where deliveries are POSTed from now on (checked like a new
    /// endpoint's: https on the hosted platform).
    #[serde(default)]
    #[schema(nullable = false, max_length = 2048)]
    pub url: Option<String>,
    /// The event kinds to receive from now on (at least one).
    #[serde(default)]
    #[schema(nullable = false)]
    pub events: Option<Vec<EventKind>>,
    /// Null or empty removes it.
    #[serde(default, deserialize_with = "crate::conventions::extract::present")]
    #[schema(value_type = Option<String>, max_length = 200)]
    pub description: Option<Option<String>>,
}

/// Edits an endpoint's URL, event filter or description (any of them). The
/// secret, the key and the status stay. Deliveries not yet sent go to the new
/// URL; events are matched against the new filter from now on (what was
/// queued before stays queued).
#[utoipa::path(
    patch,
    path = "/v1/developers/webhooks/{webhookId}",
    tag = "developers",
    operation_id = "updateWebhook",
    security(("bearer" = ["webhooks:write"])),
    params(("webhookId" = WebhookId, Path, description = "The endpoint")),
    request_body = UpdateWebhookRequest,
    responses(
        (status = 200, description = "The endpoint as edited", body = EndpointView),
        (status = 400, description = "A field is wrong: url (refused by the outbound policy), events, description", body = Problem, content_type = "application/problem+json"),
        NoDeveloperSessionOrKey,
        KeyWithoutWebhooksWrite,
        NoSuchWebhookEndpoint,
    )
)]
pub async fn update_webhook(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(id): Path<String>,
    Body(request): Body<UpdateWebhookRequest>,
) -> Result<Json<EndpointView>, ApiError> {
    let manager = webhook_developer(&state, &caller).await?;
    let endpoint = own_endpoint(&state, &manager, &id).await?;
    let url = match &request.url {
        Some(url) => Some(checked_url(state.events.outbound, url).await?),
        None => None,
    };
    let events = request.events.as_deref().map(checked_events).transpose()?;
    let description = request
        .description
        .as_ref()
        .map(|d| checked_description(d.as_deref()))
        .transpose()?;
    let edit = EndpointEdit {
        url,
        events,
        description,
    };
    let edited = Webhooks(&*state.store)
        .edit(manager.developer.id, endpoint.id, edit)
        .await?
        .ok_or_else(no_such_webhook)?;
    tracing::info!(endpoint = %edited.id, developer = %edited.developer_id, "webhook endpoint edited");
    Ok(Json(edited.into()))
}

/// Removes an endpoint. What is still queued for it fails at its next
/// attempt ("the endpoint was removed") and expires with the delivery log.
#[utoipa::path(
    delete,
    path = "/v1/developers/webhooks/{webhookId}",
    tag = "developers",
    operation_id = "deleteWebhook",
    security(("bearer" = ["webhooks:write"])),
    params(("webhookId" = WebhookId, Path, description = "The endpoint")),
    responses(
        (status = 204, description = "Removed"),
        NoDeveloperSessionOrKey,
        KeyWithoutWebhooksWrite,
        NoSuchWebhookEndpoint,
    )
)]
pub async fn delete_webhook(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let manager = webhook_developer(&state, &caller).await?;
    let endpoint = own_endpoint(&state, &manager, &id).await?;
    if !Webhooks(&*state.store)
        .delete_endpoint(manager.developer.id, endpoint.id)
        .await?
    {
        return Err(no_such_webhook());
    }
    Ok(StatusCode::NO_CONTENT)
}

/// What the test operation queued.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TestQueued {
    /// The `webhook.ping` envelope's id (the receiver sees it as `id`).
    pub event_id: String,
    /// `pending` (sent within moments) or `held` (the endpoint is disabled:
    /// sent when it is re-enabled).
    pub status: DeliveryStatus,
}

/// Queues a `webhook.ping` to this endpoint, whatever its event filter.
#[utoipa::path(
    post,
    path = "/v1/developers/webhooks/{webhookId}/test",
    tag = "developers",
    operation_id = "testWebhook",
    security(("bearer" = ["webhooks:write"])),
    params(("webhookId" = WebhookId, Path, description = "The endpoint")),
    responses(
        (status = 202, description = "The ping is queued", body = TestQueued),
        NoDeveloperSessionOrKey,
        KeyWithoutWebhooksWrite,
        NoSuchWebhookEndpoint,
    )
)]
pub async fn test_webhook(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(id): Path<String>,
) -> Result<(StatusCode, Json<TestQueued>), ApiError> {
    let test = alyt_app::developers::webhooks::test_webhook(&state, &caller, &id).await?;
    let status = match test.queued {
        Queued::Held => DeliveryStatus::Held,
        _ => DeliveryStatus::Pending,
    };
    Ok((
        StatusCode::ACCEPTED,
        Json(TestQueued {
            event_id: test.event_id.to_string(),
            status,
        }),
    ))
}

/// One delivery of the log: its state and the exact signed payload.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = WebhookDelivery)]
pub struct DeliveryView {
    /// `X-SVC-Delivery`: the same for every attempt of one series (a
    /// re-enable starts a new series for a held delivery).
    pub id: String,
    pub event_id: String,
    /// `X-SVC-Event`.
    pub event_type: String,
    /// pending, retrying, delivered, failed (every attempt failed), held (the
    /// endpoint is disabled; sent again on re-enable).
    pub status: DeliveryStatus,
    /// Attempts made in this series (at most 20).
    pub attempts: u32,
    /// The last answer's HTTP status; null when none came.
    #[schema(required = true)]
    pub response_code: Option<u16>,
    /// Why the last attempt failed (never the URL).
    #[schema(required = true)]
    pub last_error: Option<String>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    #[schema(required = true)]
    pub last_attempt_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    #[schema(required = true)]
    pub next_attempt_at: Option<OffsetDateTime>,
    /// The body sent: the event envelope as JSON text.
    pub payload: String,
    /// `X-SVC-Signature` of the last attempt.
    #[schema(required = true)]
    pub signature: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
}

impl From<DeliveryRecord> for DeliveryView {
    fn from(d: DeliveryRecord) -> Self {
        Self {
            id: d.id.to_string(),
            event_id: d.event_id,
            event_type: d.event_kind,
            status: d.status,
            attempts: d.attempts,
            response_code: d.last_response_code,
            last_error: d.last_error,
            last_attempt_at: d.last_attempt_at,
            // A claimed row's next time is its lease, not a schedule.
            next_attempt_at: d.next_attempt_at.filter(|_| d.status.is_due_state()),
            payload: d.payload,
            signature: d.signature,
            created_at: d.created_at,
        }
    }
}

/// The endpoint's last fifty deliveries, newest event first (one page: the
/// log keeps no more).
#[utoipa::path(
    get,
    path = "/v1/developers/webhooks/{webhookId}/deliveries",
    tag = "developers",
    operation_id = "listWebhookDeliveries",
    security(("bearer" = ["webhooks:write"])),
    params(("webhookId" = WebhookId, Path, description = "The endpoint")),
    responses(
        (status = 200, description = "The last fifty deliveries (nextCursor is always null)", body = ListResponse<DeliveryView>),
        NoDeveloperSessionOrKey,
        KeyWithoutWebhooksWrite,
        NoSuchWebhookEndpoint,
    )
)]
pub async fn list_webhook_deliveries(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(id): Path<String>,
) -> Result<Json<ListResponse<DeliveryView>>, ApiError> {
    let manager = webhook_developer(&state, &caller).await?;
    let endpoint = own_endpoint(&state, &manager, &id).await?;
    let rows = Webhooks(&*state.store)
        .recent_deliveries(endpoint.id, HISTORY)
        .await?;
    Ok(Json(ListResponse {
        items: rows.into_iter().map(DeliveryView::from).collect(),
        next_cursor: None,
    }))
}

/// The answer of a re-enable.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Enabled {
    pub endpoint: EndpointView,
    /// Held deliveries queued again (new series, due at once, oldest event first).
    pub requeued: u32,
}

/// Re-enables a disabled endpoint: active again with a zero failure count,
/// and every delivery held while it was disabled is sent again, oldest event
/// first, as a new series (new `X-SVC-Delivery`, attempts from zero; the
/// envelope id is unchanged, so receivers deduplicate). Deliveries that had
/// failed for good before the disable stay failed. Enabling an active
/// endpoint changes nothing.
#[utoipa::path(
    post,
    path = "/v1/developers/webhooks/{webhookId}/enable",
    tag = "developers",
    operation_id = "enableWebhook",
    security(("bearer" = ["webhooks:write"])),
    params(("webhookId" = WebhookId, Path, description = "The endpoint")),
    responses(
        (status = 200, description = "The endpoint, active", body = Enabled),
        NoDeveloperSessionOrKey,
        KeyWithoutWebhooksWrite,
        NoSuchWebhookEndpoint,
    )
)]
pub async fn enable_webhook(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(id): Path<String>,
) -> Result<Json<Enabled>, ApiError> {
    let (endpoint, requeued) =
        alyt_app::developers::webhooks::enable_webhook(&state, &caller, &id).await?;
    Ok(Json(Enabled {
        endpoint: endpoint.into(),
        requeued,
    }))
}

/// Disables an endpoint by hand: the same state as the disable after fifty
/// failures (reason `manual`). Nothing is sent to it while disabled: new
/// events are held, visible in its delivery log, and a re-enable sends them
/// (`POST …/enable`). Disabling an endpoint already disabled changes nothing
/// (its reason stays).
#[utoipa::path(
    post,
    path = "/v1/developers/webhooks/{webhookId}/disable",
    tag = "developers",
    operation_id = "disableWebhook",
    security(("bearer" = ["webhooks:write"])),
    params(("webhookId" = WebhookId, Path, description = "The endpoint")),
    responses(
        (status = 200, description = "The endpoint, disabled", body = EndpointView),
        NoDeveloperSessionOrKey,
        KeyWithoutWebhooksWrite,
        NoSuchWebhookEndpoint,
    )
)]
pub async fn disable_webhook(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(id): Path<String>,
) -> Result<Json<EndpointView>, ApiError> {
    let manager = webhook_developer(&state, &caller).await?;
    let endpoint = own_endpoint(&state, &manager, &id).await?;
    if endpoint.status == EndpointStatus::Disabled {
        return Ok(Json(endpoint.into()));
    }
    let now = state.clock.now();
    let disabled = Webhooks(&*state.store)
        .disable_for(
            manager.developer.id,
            endpoint.id,
            DisabledReason::Manual,
            now,
        )
        .await?;
    let endpoint = match disabled {
        Some(disabled) => {
            tracing::info!(endpoint = %disabled.id, developer = %disabled.developer_id, "webhook endpoint disabled by its developer");
            disabled
        }
        // Disabled (or removed) meanwhile: answer what is there now.
        None => own_endpoint(&state, &manager, &id).await?,
    };
    Ok(Json(endpoint.into()))
}
