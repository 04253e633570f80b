//! `GET /v1/properties/{propertyId}/events/stream`: a home's events as
//! server-sent events, for the household clients that draw the home (the
//! console's overview and rooms redraw from it instead of polling). The
//! framing, resume and limits are the developer stream's
//! ([`alyt_events::stream`]); what differs is who may listen and what they
//! hear: anyone who sees the home, and only the events about its things
//! ([`Audience::Home`], the [`HOME_KINDS`]).

use alyt_app::homes;
use alyt_domain::ids::{PropertyId, TenantId};
use alyt_events::Audience;
use std::collections::BTreeSet;

use alyt_events::EventKind;
use alyt_events::audience::HOME_KINDS;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::auth::Caller;
use crate::auth::caller::bearer_token;
use crate::conventions::extract::{ApiPath, ApiQuery};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{
    KeyWithoutThingsRead, NoSuchProperty, NoValidToken, StreamElsewhere, TooManyStreams,
};
use crate::groups::developers::stream::{
    Listening, open_feed, sse_response, stream_request, streams_here,
};
use crate::routing::{Operations, operations};
use crate::{ApiError, AppState};

pub fn routes() -> Operations {
    Operations::new().merge(operations!(stream_home_events))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct HomeStreamParams {
    pub tenant_id: TenantId,
    /// Comma-separated event kinds, among device.online, device.offline,
    /// device.telemetry, command.result and thing.state; all of those when
    /// absent.
    pub events: Option<String>,
    /// Resume after this event id (a `Last-Event-ID` header wins over it).
    pub after: Option<String>,
}

/// The events about a home's things as server-sent events (framed as the
/// developer stream's: `event:`, `id:`, `data:` with the envelope; a comment
/// every 15 s; resume with `Last-Event-ID` or `after=`): its devices' online,
/// offline, telemetry and command results, and its endpoints' state. Anyone
/// who sees the home may listen (a guest too); nothing about people,
/// notifications, developers or webhooks is sent, and nothing from before
/// the caller's access to the home began (a new member, a guest's stay).
/// A caller holds at most 5 streams at once (429); a stream ends within
/// seconds of its credential losing the home.
#[utoipa::path(
    get,
    path = "/v1/properties/{propertyId}/events/stream",
    tag = "homes",
    operation_id = "streamHomeEvents",
    security(("bearer" = ["things:read"])),
    params(
        ("propertyId" = PropertyId, Path, description = "The home"),
        HomeStreamParams,
        ("Last-Event-ID" = Option<String>, Header, description = "Resume after this event id (sent by EventSource on reconnect)"),
    ),
    responses(
        (status = 200, description = "A server-sent event stream of event envelopes", content_type = "text/event-stream", body = String),
        (status = 400, description = "A parameter is wrong: tenantId, propertyId, events (unknown kind, or not a home's), after, Last-Event-ID", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        KeyWithoutThingsRead,
        NoSuchProperty,
        TooManyStreams,
        StreamElsewhere,
    )
)]
pub async fn stream_home_events(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(property_id): ApiPath<PropertyId>,
    ApiQuery(params): ApiQuery<HomeStreamParams>,
    headers: HeaderMap,
    uri: axum::http::Uri,
) -> Result<Response, ApiError> {
    streams_here(&state, &uri)?;
    let mut request = stream_request(params.events.as_deref(), params.after.as_deref(), &headers)?;
    request.kinds = Some(home_kinds(request.kinds.take())?);
    let (home, after) = homes::stream_start(
        &state,
        &caller,
        params.tenant_id,
        property_id,
        request.after.take(),
    )
    .await?;
    request.after = after;
    let token = bearer_token(&headers).unwrap_or_default();
    let listening = Listening::Home {
        tenant: home.tenant_id,
        property: home.id,
    };
    let feed = open_feed(
        &state,
        &caller,
        token,
        listening,
        vec![home.tenant_id],
        Audience::Home(home.id),
        request,
    )
    .await?;
    Ok(sse_response(feed))
}

/// The kinds a home's stream sends: those asked for, each one of a home's
/// (400 naming the first that is not), or all of a home's.
fn home_kinds(asked: Option<BTreeSet<EventKind>>) -> Result<BTreeSet<EventKind>, ApiError> {
    let Some(kinds) = asked else {
        return Ok(HOME_KINDS.into_iter().collect());
    };
    if let Some(other) = kinds.iter().find(|k| !HOME_KINDS.contains(k)) {
        return Err(ApiError::validation(
            "events",
            format!(
                "{other} is not an event of a home; a home's are {}",
                HOME_KINDS.map(|k| k.as_str()).join(", ")
            ),
        ));
    }
    Ok(kinds)
}
