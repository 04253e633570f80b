//! Webhook endpoints (and EventBridge destinations, delivered the same way
//! to a developer's bus): register, list, edit, remove, test, read the
//! delivery log, disable and re-enable, rotate the secret, replay. The delivery itself (signing,
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
//! create answer only; it is never logged. The use cases are
//! [`alyt_app::developers::webhooks`]'s.

use crate::routing::{Operations, operations};
use alyt_domain::ids::{KeyId, WebhookId};
use alyt_events::envelope::EventKind;
use alyt_store::repo::webhooks::{
    DeliveryRecord, DeliveryStatus, DisabledReason, EndpointStatus, Queued, WebhookEndpointRecord,
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
use crate::groups::developers::session::name_the_field;
use crate::{ApiError, AppState};
use alyt_app::developers::event_bridge::NewEventBridge;
use alyt_app::developers::webhooks::{self, DestinationKind, NewWebhook, WebhookEdit};

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(list_webhooks, create_webhook))
        .merge(operations!(update_webhook, delete_webhook))
        .merge(operations!(test_webhook))
        .merge(operations!(list_webhook_deliveries))
        .merge(operations!(enable_webhook))
        .merge(operations!(disable_webhook))
        .merge(operations!(rotate_webhook_secret))
        .merge(operations!(replay_webhook_delivery))
}

pub use alyt_app::developers::webhooks::{DESCRIPTION_MAX_CHARS, MAX_ENDPOINTS};

pub use crate::state::EventsSettings;

/// A registered endpoint; never its secret.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = WebhookEndpoint)]
pub struct EndpointView {
    pub id: WebhookId,
    /// `webhook` (signed POSTs to `url`) or `eventbridge` (entries put on
    /// the developer's bus).
    pub kind: DestinationKind,
    /// Where deliveries go: the receiver's URL, or an EventBridge
    /// destination's bus ARN.
    pub url: String,
    /// An EventBridge destination's bus; null for a webhook.
    #[schema(required = true)]
    pub event_bridge: Option<EventBridgeView>,
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
    /// Until when deliveries also carry a signature made with the secret
    /// the last rotation replaced (in the past once that grace period
    /// ended); null if the secret was never rotated.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    #[schema(required = true)]
    pub secret_grace_ends_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
}

impl From<WebhookEndpointRecord> for EndpointView {
    fn from(e: WebhookEndpointRecord) -> Self {
        let disabled_reason = e.why_disabled();
        Self {
            id: e.id,
            kind: match e.event_bridge {
                Some(_) => DestinationKind::Eventbridge,
                None => DestinationKind::Webhook,
            },
            url: e.url,
            event_bridge: e.event_bridge.map(|t| EventBridgeView {
                account_id: t.account_id,
                region: t.region,
                event_bus_arn: t.event_bus_arn,
                event_source_name: t.event_source_name,
            }),
            events: e.events,
            description: e.description,
            key_id: e.key_id,
            status: e.status,
            disabled_reason,
            consecutive_failures: e.consecutive_failures,
            disabled_at: e.disabled_at,
            secret_grace_ends_at: e.previous_secret_until,
            created_at: e.created_at,
        }
    }
}

/// A developer's EventBridge bus.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventBridgeView {
    /// The AWS account the bus is in (12 digits).
    pub account_id: String,
    pub region: String,
    /// The bus entries are put on.
    pub event_bus_arn: String,
    /// The partner-style event source name it was named by (entries carry
    /// it as `source`); null when named by its ARN (`source` is `alyt`).
    #[schema(required = true)]
    pub event_source_name: Option<String>,
}

/// Where an EventBridge destination puts events: the developer's account
/// and region, and exactly one of the bus's ARN and a partner-style event
/// source name (`aws.partner/…`, whose bus has the same name).
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EventBridgeRequest {
    /// 12 digits.
    pub account_id: String,
    /// Like `eu-west-1`.
    pub region: String,
    /// `arn:aws:events:{region}:{accountId}:event-bus/{name}`.
    #[serde(default)]
    #[schema(nullable = false)]
    pub event_bus_arn: Option<String>,
    /// `aws.partner/{partner}/{name}`.
    #[serde(default)]
    #[schema(nullable = false)]
    pub event_source_name: Option<String>,
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
    /// `webhook` (the default) or `eventbridge`.
    #[serde(default)]
    #[schema(nullable = false)]
    pub kind: Option<DestinationKind>,
    /// A webhook's: where deliveries are POSTed (https on the hosted
    /// platform). Required for a webhook, absent for EventBridge.
    #[serde(default)]
    #[schema(max_length = 2048, nullable = false)]
    pub url: Option<String>,
    /// An EventBridge destination's bus (required for kind `eventbridge`):
    /// a test event is put on it before the destination is stored, and a
    /// bus that refuses it refuses the destination (400 naming why).
    #[serde(default)]
    #[schema(nullable = false)]
    pub event_bridge: Option<EventBridgeRequest>,
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

/// Registers an endpoint and answers its signing secret, shown this once.
/// A webhook (`url`) gets signed POSTs; an EventBridge destination (kind
/// `eventbridge`) gets each event put on the developer's bus with
/// `PutEvents`: the envelope as `detail`, the kind as `detail-type`,
/// `source` `alyt` (or the partner event source name), with the same
/// at-least-once and per-home order, retries, auto-disable and delivery log
/// as a webhook. The bus's policy must let the platform's account put
/// events (see the developer docs on EventBridge destinations).
#[utoipa::path(
    post,
    path = "/v1/developers/webhooks",
    tag = "developers",
    operation_id = "createWebhook",
    security(("bearer" = ["webhooks:write"])),
    request_body = CreateWebhookRequest,
    responses(
        (status = 201, description = "The endpoint and its signing secret (shown once)", body = EndpointWithSecret),
        (status = 400, description = "A field is wrong: url (refused by the outbound policy), eventBridge (malformed, or the bus refused the test event), events, description, keyId", body = Problem, content_type = "application/problem+json"),
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
    let new = NewWebhook {
        kind: request.kind,
        url: request.url,
        event_bridge: request.event_bridge.map(|b| NewEventBridge {
            account_id: b.account_id,
            region: b.region,
            event_bus_arn: b.event_bus_arn,
            event_source_name: b.event_source_name,
        }),
        events: request.events,
        description: request.description,
        key_id: request.key_id,
    };
    let (record, secret) = webhooks::create_webhook(&state, &caller, new).await?;
    Ok((
        StatusCode::CREATED,
        Json(EndpointWithSecret {
            endpoint: record.into(),
            secret,
        }),
    ))
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
    let found = webhooks::webhooks_page(&state, &caller, &page.paging()).await?;
    Ok(listed(found, EndpointView::from))
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
    let edit = WebhookEdit {
        url: request.url,
        events: request.events,
        description: request.description,
    };
    let edited = webhooks::update_webhook(&state, &caller, &id, edit).await?;
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
    webhooks::delete_webhook(&state, &caller, &id).await?;
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
    let test = webhooks::test_webhook(&state, &caller, &id).await?;
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
    let rows = webhooks::webhook_deliveries(&state, &caller, &id).await?;
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
    /// The recovery of what it missed, when asked for with `recover: true`
    /// (the one already running, if there was one); null otherwise.
    #[schema(required = true)]
    pub recovery: Option<super::webhook_recovery::RecoveryView>,
}

/// The body of `POST /v1/developers/webhooks/{webhookId}/enable`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EnableWebhookRequest {
    /// Also recover what the endpoint missed: every event after the newest
    /// one its log shows delivered (none: since its creation) that it did
    /// not get, as `POST …/recover` does. Default false.
    #[serde(default)]
    pub recover: bool,
}

/// Re-enables a disabled endpoint: active again with a zero failure count,
/// and every delivery held while it was disabled is sent again, oldest event
/// first, as a new series (new `X-SVC-Delivery`, attempts from zero; the
/// envelope id is unchanged, so receivers deduplicate). Deliveries that had
/// failed for good before the disable stay failed unless `recover` is true,
/// which also starts a recovery of everything it missed (`recovery`).
/// Enabling an active endpoint changes nothing but that recovery.
#[utoipa::path(
    post,
    path = "/v1/developers/webhooks/{webhookId}/enable",
    tag = "developers",
    operation_id = "enableWebhook",
    security(("bearer" = ["webhooks:write"])),
    params(("webhookId" = WebhookId, Path, description = "The endpoint")),
    request_body(content = Option<EnableWebhookRequest>, description = "Optional: `{ recover }`"),
    responses(
        (status = 200, description = "The endpoint, active", body = Enabled),
        (status = 400, description = "The body is not `{ recover: boolean }`", body = Problem, content_type = "application/problem+json"),
        NoDeveloperSessionOrKey,
        KeyWithoutWebhooksWrite,
        NoSuchWebhookEndpoint,
        (status = 409, description = "The endpoint's key was revoked or expired", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn enable_webhook(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> Result<Json<Enabled>, ApiError> {
    let request: EnableWebhookRequest =
        crate::conventions::extract::parse_optional_json(&body).map_err(name_the_field)?;
    let enabled = webhooks::enable_webhook(&state, &caller, &id, request.recover).await?;
    Ok(Json(Enabled {
        endpoint: enabled.endpoint.into(),
        requeued: enabled.requeued,
        recovery: enabled.recovery.map(Into::into),
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
    let endpoint = webhooks::disable_webhook(&state, &caller, &id).await?;
    Ok(Json(endpoint.into()))
}

/// The body of `POST /v1/developers/webhooks/{webhookId}/rotate-secret`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RotateSecretRequest {
    /// How long the replaced secret keeps signing beside the new one, in
    /// seconds: 0 to 604800 (7 days), default 86400 (a day).
    #[serde(default)]
    #[schema(nullable = false, minimum = 0, maximum = 604800)]
    pub grace_seconds: Option<u32>,
}

/// A rotated endpoint and its new secret, shown this once.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RotatedSecret {
    /// The new signing secret (`whsec_…`): verify deliveries with it.
    pub secret: String,
    pub endpoint: EndpointView,
}

/// Gives an endpoint a new signing secret, shown once. Until
/// `endpoint.secretGraceEndsAt` every delivery carries two `v1`
/// signatures, with the new secret and the replaced one, so the receiver
/// can switch to the new secret at any time within the grace period;
/// afterwards only the new one signs. Rotating again during a grace period
/// ends it.
#[utoipa::path(
    post,
    path = "/v1/developers/webhooks/{webhookId}/rotate-secret",
    tag = "developers",
    operation_id = "rotateWebhookSecret",
    security(("bearer" = ["webhooks:write"])),
    params(("webhookId" = WebhookId, Path, description = "The endpoint")),
    request_body(content = Option<RotateSecretRequest>, description = "Optional: `{ graceSeconds }`"),
    responses(
        (status = 200, description = "The new secret (shown this once) and the endpoint", body = RotatedSecret),
        (status = 400, description = "graceSeconds is not 0 to 604800", body = Problem, content_type = "application/problem+json"),
        NoDeveloperSessionOrKey,
        KeyWithoutWebhooksWrite,
        NoSuchWebhookEndpoint,
        (status = 409, description = "Another request rotated the secret meanwhile", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn rotate_webhook_secret(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> Result<Json<RotatedSecret>, ApiError> {
    let request: RotateSecretRequest =
        crate::conventions::extract::parse_optional_json(&body).map_err(name_the_field)?;
    let (endpoint, secret) =
        webhooks::rotate_webhook_secret(&state, &caller, &id, request.grace_seconds).await?;
    Ok(Json(RotatedSecret {
        secret,
        endpoint: endpoint.into(),
    }))
}

/// Sends one of the endpoint's logged deliveries (its last fifty) again:
/// the same event (same id and body, so receivers deduplicate on it), a
/// new attempt signed at a new time, due at once. A delivery waiting for
/// its next retry is brought forward; one not attempted yet is answered as
/// it is.
#[utoipa::path(
    post,
    path = "/v1/developers/webhooks/{webhookId}/deliveries/{deliveryId}/replay",
    tag = "developers",
    operation_id = "replayWebhookDelivery",
    security(("bearer" = ["webhooks:write"])),
    params(
        ("webhookId" = WebhookId, Path, description = "The endpoint"),
        ("deliveryId" = uuid::Uuid, Path, description = "The delivery (`id` in the log, `X-SVC-Delivery`)"),
    ),
    responses(
        (status = 202, description = "Queued: the delivery as it is now (pending, due at once)", body = DeliveryView),
        NoDeveloperSessionOrKey,
        KeyWithoutWebhooksWrite,
        (status = 404, description = "No such endpoint, or no such delivery in its log", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The endpoint is disabled, or an attempt is under way", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn replay_webhook_delivery(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path((id, delivery)): Path<(String, String)>,
) -> Result<(axum::http::StatusCode, Json<DeliveryView>), ApiError> {
    let queued = webhooks::replay_webhook_delivery(&state, &caller, &id, &delivery).await?;
    Ok((axum::http::StatusCode::ACCEPTED, Json(queued.into())))
}
