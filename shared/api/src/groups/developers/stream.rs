//! `GET /v1/developers/events/stream`: the caller's
//! tenants' events as server-sent events. The framing, filter, resume,
//! keepalive and time limit are [`alyt_events::stream`], shared with the
//! hosted streaming function; this is the route and who may call it.
//!
//! Who hears what: a key with `events:read` hears its tenants (a DEV key its
//! developer's sandbox; a LIVE key, in the tenants that installed its
//! connector, only the events about the integrations made from it); a
//! developer session hears its sandbox only.

use crate::routing::{Operations, operations};
use alyt_app::streams::{self, StreamSlot};
use alyt_domain::access::Principal;
use alyt_domain::ids::TenantId;
use alyt_events::stream::{self, Feed, Recheck, StreamRequest};
use alyt_events::{Audience, EventLog};
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa::IntoParams;

use super::session::Params;
use crate::access::{HomeAccess, home_for};
use crate::auth::Caller;
use crate::auth::caller::{bearer_token, recheck};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{NoDeveloperSessionOrKey, StreamElsewhere, TooManyStreams};
use crate::{ApiError, AppState};

pub fn routes() -> Operations {
    Operations::new().merge(operations!(stream_events))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct StreamParams {
    /// Comma-separated event kinds; all kinds when absent.
    pub events: Option<String>,
    /// Resume after this event id (a `Last-Event-ID` header wins over it).
    pub after: Option<String>,
}

/// The response of a stream over `feed` (also used by the hosted function).
pub fn sse_response(feed: Feed) -> Response {
    let mut response = Body::from_stream(stream::body(feed)).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(stream::CONTENT_TYPE),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    // Proxies (nginx) must pass chunks on as they come.
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// The caller's tenants' events as server-sent events: each `event: <kind>`,
/// `id: <id>`, `data: <envelope JSON>`; a comment every 15 s; the connection
/// closes after one hour locally (15 minutes on the hosted function URL);
/// reconnect with `Last-Event-ID` (or `after=`) to resume with no gap and no
/// duplicate. A caller holds at most 5 streams at once (429); a stream ends
/// within seconds when its key is revoked or rotated, its developer
/// suspended or its session signed out, and a session's when its access
/// token expires.
#[utoipa::path(
    get,
    path = "/v1/developers/events/stream",
    tag = "developers",
    operation_id = "streamEvents",
    security(("bearer" = ["events:read"])),
    params(
        StreamParams,
        ("Last-Event-ID" = Option<String>, Header, description = "Resume after this event id (sent by EventSource on reconnect)"),
    ),
    responses(
        (status = 200, description = "A server-sent event stream of event envelopes", content_type = "text/event-stream", body = String),
        (status = 400, description = "A parameter is wrong: events (unknown kind), after, Last-Event-ID", body = Problem, content_type = "application/problem+json"),
        NoDeveloperSessionOrKey,
        (status = 403, description = "A key without events:read", body = Problem, content_type = "application/problem+json"),
        TooManyStreams,
        StreamElsewhere,
    )
)]
pub async fn stream_events(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Params(params): Params<StreamParams>,
    headers: HeaderMap,
    uri: axum::http::Uri,
) -> Result<Response, ApiError> {
    streams_here(&state, &uri)?;
    let request = stream_request(params.events.as_deref(), params.after.as_deref(), &headers)?;
    let (tenants, audience) = alyt_app::developers::stream_tenants(&state, &caller).await?;
    let token = bearer_token(&headers).unwrap_or_default();
    let feed = open_feed(
        &state,
        &caller,
        token,
        Listening::Developer,
        tenants,
        audience,
        request,
    )
    .await?;
    Ok(sse_response(feed))
}

/// A 421 pointing at the stream's own host when this host cannot stream (a
/// hosted stack's HTTP API, which buffers responses).
pub(crate) fn streams_here(state: &AppState, uri: &axum::http::Uri) -> Result<(), ApiError> {
    let Some(base) = &state.events.stream_elsewhere else {
        return Ok(());
    };
    let location = format!(
        "{}{}",
        base.trim_end_matches('/'),
        uri.path_and_query().map_or(uri.path(), |p| p.as_str())
    );
    Err(ApiError::misdirected(
        location.clone(),
        format!("the event stream is served at {location} (this host buffers responses)"),
    ))
}

/// The kinds and the resume point asked for (`events`, `after`, the
/// `Last-Event-ID` header, which wins).
pub(crate) fn stream_request(
    events: Option<&str>,
    after: Option<&str>,
    headers: &HeaderMap,
) -> Result<StreamRequest, ApiError> {
    let last_event_id = match headers.get("last-event-id") {
        Some(value) => Some(
            value
                .to_str()
                .map_err(|_| ApiError::validation("Last-Event-ID", "not an event id"))?,
        ),
        None => None,
    };
    StreamRequest::parse(events, after, last_event_id)
        .map_err(|bad| ApiError::validation(bad.field, bad.detail))
}

/// Which stream a connection is, so its caller can be checked again by the
/// same rule that let it in.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Listening {
    /// The developer stream: the caller's tenants.
    Developer,
    /// A home's stream.
    Home {
        tenant: TenantId,
        property: alyt_domain::ids::PropertyId,
    },
}

/// Opens a stream of what `audience` hears of `tenants`' events for
/// `caller`, who sent `token`:
/// - it takes one of the caller's stream slots (429 with the RateLimit
///   fields of the `streams` policy when all are held, across instances);
/// - while it runs, the caller is checked again every few seconds by the
///   rule that let it in (`listening`): a revoked or rotated key, a revoked
///   widget, a suspended developer, a revoked session or a person who lost
///   the home ends it;
/// - a session's stream ends when its access token does (the client
///   reconnects with a fresh one, whose claims are checked again).
pub(crate) async fn open_feed(
    state: &AppState,
    caller: &Principal,
    token: &str,
    listening: Listening,
    tenants: Vec<TenantId>,
    audience: Audience,
    request: StreamRequest,
) -> Result<Feed, ApiError> {
    let settings = &state.events;
    let mut limits = settings.stream;
    if let Principal::Person { claims, .. } = caller {
        let left = claims.exp.saturating_sub(state.clock.unix_seconds()).max(1);
        limits.max_duration = limits
            .max_duration
            .min(std::time::Duration::from_secs(left as u64));
    }
    let slot = streams::take_slot(state, caller, limits.per_caller).await?;
    let slot = std::sync::Arc::new(tokio::sync::Mutex::new(slot));
    let (state_now, token) = (state.clone(), token.to_owned());
    let still_allowed = move || -> futures_util::future::BoxFuture<'static, bool> {
        let (state, token, slot) = (state_now.clone(), token.clone(), slot.clone());
        Box::pin(async move { still_allowed(&state, &token, listening, &slot).await })
    };
    Ok(Feed {
        log: EventLog::new(state.store.clone(), state.clock.clone()),
        tenants,
        audience,
        request,
        limits,
        wake: settings.signal.as_ref().map(|s| s.subscribe()),
        stop: settings.signal.as_ref().map(|s| s.stopping()),
        recheck: Some(Recheck {
            every: limits.recheck,
            still_allowed: Box::new(still_allowed),
        }),
    })
}

/// Whether the caller of an open stream may still hear it, and its slot
/// kept (renewed when due; a slot lost to another connection ends the
/// stream, so the cap holds). A store that fails the check keeps the stream
/// going: the next check asks again.
async fn still_allowed(
    state: &AppState,
    token: &str,
    listening: Listening,
    slot: &tokio::sync::Mutex<StreamSlot>,
) -> bool {
    let caller = match recheck(state, token).await {
        Ok(caller) => caller,
        Err(e) => return e.status.is_server_error(),
    };
    let allowed = match listening {
        Listening::Developer => alyt_app::developers::stream_tenants(state, &caller)
            .await
            .map(|_| ()),
        Listening::Home { tenant, property } => {
            home_for(state, &caller, tenant, property, HomeAccess::See)
                .await
                .map(|_| ())
        }
    }
    .map_err(ApiError::from);
    if let Err(e) = allowed {
        return e.status.is_server_error();
    }
    let now = state.clock.unix_seconds();
    slot.lock().await.keep(now).await
}
