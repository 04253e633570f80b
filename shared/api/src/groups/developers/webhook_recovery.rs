//! Recovering a webhook endpoint: `POST …/recover` sends it again every
//! event of a range (`since` a time, or an event id range) that its filter
//! matches and it did not get, in order, a batch at a time; `GET …/recovery`
//! reads how far the latest one got. A re-enable with `{ "recover": true }`
//! starts one for what the endpoint missed. Who may: as for every endpoint
//! operation ([`super::webhooks`]). The use cases are
//! [`alyt_app::developers::webhooks`]'s; the worker is
//! [`alyt_events::recovery`].

use alyt_app::developers::webhooks::{self, RecoverRequest};
use alyt_domain::ids::WebhookId;
use alyt_store::repo::recoveries::{RecoveryRecord, RecoveryStatus};
use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::auth::Caller;
use crate::conventions::problem::Problem;
use crate::conventions::responses::{
    KeyWithoutWebhooksWrite, NoDeveloperSessionOrKey, NoSuchWebhookEndpoint,
};
use crate::groups::developers::session::name_the_field;
use crate::routing::{Operations, operations};
use crate::{ApiError, AppState};

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(recover_webhook))
        .merge(operations!(get_webhook_recovery))
}

/// The body of `POST /v1/developers/webhooks/{webhookId}/recover`: either
/// `since`, or `fromEventId` with an optional `toEventId`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecoverWebhookRequest {
    /// Every event from this time on (not in the future).
    #[serde(default, with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime, nullable = false)]
    pub since: Option<OffsetDateTime>,
    /// The first event of the range (an event's `id`), included.
    #[serde(default)]
    #[schema(nullable = false)]
    pub from_event_id: Option<String>,
    /// The last event of the range, included; default: up to now.
    #[serde(default)]
    #[schema(nullable = false)]
    pub to_event_id: Option<String>,
}

/// A recovery of an endpoint and how far it got.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = WebhookRecovery)]
pub struct RecoveryView {
    pub endpoint_id: WebhookId,
    /// `running` until every event of the range was looked at (`done`);
    /// `cancelled` when the endpoint was removed. A disabled endpoint's
    /// recovery waits, running, until it is enabled again.
    pub status: RecoveryStatus,
    /// The range (both included): no earlier than the endpoint's creation
    /// and the oldest event the log keeps (7 days), no later than the start.
    pub from_event_id: String,
    pub to_event_id: String,
    /// The last event looked at (null before the first batch, and between
    /// the logs of the tenants a LIVE key's endpoint hears).
    #[schema(required = true)]
    pub position: Option<String>,
    /// Events of the range the endpoint's filter matched so far.
    pub matched: u64,
    /// Of those, sent again: never delivered, failed, or waiting for a retry.
    pub queued: u64,
    /// Of those, left alone: delivered, or about to be attempted.
    pub skipped: u64,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub started_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    #[schema(required = true)]
    pub finished_at: Option<OffsetDateTime>,
}

impl From<RecoveryRecord> for RecoveryView {
    fn from(r: RecoveryRecord) -> Self {
        Self {
            endpoint_id: r.endpoint_id,
            status: r.status,
            from_event_id: r.from_event_id,
            to_event_id: r.to_event_id,
            position: r.position,
            matched: r.matched,
            queued: r.queued,
            skipped: r.skipped,
            started_at: r.started_at,
            updated_at: r.updated_at,
            finished_at: r.finished_at,
        }
    }
}

/// Recovers an endpoint: every event of the range its filter matches (and
/// it could have heard: from its creation on, within the 7 days the event
/// log keeps) that it did not get is sent again, oldest first, at most 50
/// a second and never faster than it answers; what it got is left alone,
/// so each missed event arrives once. One recovery runs per endpoint;
/// read its progress with `GET …/recovery`. It resumes where it was after
/// a restart, waits while the endpoint is disabled, and ends if it is
/// removed.
#[utoipa::path(
    post,
    path = "/v1/developers/webhooks/{webhookId}/recover",
    tag = "developers",
    operation_id = "recoverWebhook",
    security(("bearer" = ["webhooks:write"])),
    params(("webhookId" = WebhookId, Path, description = "The endpoint")),
    request_body(content = RecoverWebhookRequest, description = "`{ since }` or `{ fromEventId, toEventId? }`"),
    responses(
        (status = 202, description = "Started: the recovery as it starts", body = RecoveryView),
        (status = 400, description = "No range, both kinds of range, a time in the future, or a bad event id (named in `field`)", body = Problem, content_type = "application/problem+json"),
        NoDeveloperSessionOrKey,
        KeyWithoutWebhooksWrite,
        NoSuchWebhookEndpoint,
        (status = 409, description = "The endpoint is disabled, or a recovery of it is running", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn recover_webhook(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> Result<(StatusCode, Json<RecoveryView>), ApiError> {
    let request: RecoverWebhookRequest =
        crate::conventions::extract::parse_optional_json(&body).map_err(name_the_field)?;
    let request = RecoverRequest {
        since: request.since,
        from_event_id: request.from_event_id,
        to_event_id: request.to_event_id,
    };
    let started = webhooks::recover_webhook(&state, &caller, &id, request).await?;
    Ok((StatusCode::ACCEPTED, Json(started.into())))
}

/// The endpoint's latest recovery and how far it got.
#[utoipa::path(
    get,
    path = "/v1/developers/webhooks/{webhookId}/recovery",
    tag = "developers",
    operation_id = "getWebhookRecovery",
    security(("bearer" = ["webhooks:write"])),
    params(("webhookId" = WebhookId, Path, description = "The endpoint")),
    responses(
        (status = 200, description = "The latest recovery", body = RecoveryView),
        NoDeveloperSessionOrKey,
        KeyWithoutWebhooksWrite,
        (status = 404, description = "No such endpoint, or it was never recovered", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn get_webhook_recovery(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(id): Path<String>,
) -> Result<Json<RecoveryView>, ApiError> {
    let recovery = webhooks::webhook_recovery(&state, &caller, &id).await?;
    Ok(Json(recovery.into()))
}
