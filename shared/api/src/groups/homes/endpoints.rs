//! Endpoints: things reached through a connector (part of the homes group),
//! read as the raw endpoint or as a thing.
//!
//! * `GET /v1/endpoints/{endpointId}?tenantId`: the endpoint as a thing.
//! * `POST /v1/endpoints/{endpointId}/refresh?tenantId`: asks the connector
//!   for the current state, stores what it read and answers the thing (502
//!   when the connector cannot read it; the thing is then judged offline).
//! * `POST /v1/endpoints/{endpointId}/commands?tenantId`: the device command
//!   envelope, validated against the thing's own descriptors (400 naming the
//!   field), sent to the connector at once. The stored state afterwards is
//!   what the connector read back, never what was requested. 200 with
//!   `{ status: 'applied', thing }`; 409 when the endpoint is disabled
//!   (nothing is sent); 422 when the thing refuses the command; 502 when it
//!   cannot be reached.
//! * `PATCH /v1/endpoints/{endpointId}?tenantId` `{ presentedAs?, name?,
//!   roomId?, enabled? }`: `presentedAs` 'light'|'switch'|null (400 on a
//!   thing that is neither a light nor a switch) changes category, icon,
//!   descriptors and so which room actions include it; `roomId` (null: no
//!   room) places it, and a thing a person placed is never moved by
//!   discovery; `name` renames it (rediscovery never renames); `enabled`
//!   (true or false, never null) turns it off for the household: no
//!   commands (409; room actions skip it, a routine step fails), no music
//!   (not listed, refused on save, failed before playback), and home
//!   security shows its signals as disabled before arming. Rediscovery
//!   keeps it. The thing view shows it in `settings.enabled`.
//!
//! Who: as rooms (`access::access_to`): reading needs sight of the
//! home (`things:read`), refresh and commands control (`things:control`),
//! PATCH configuration (`rooms:write`; the household OWNER). A foreign or
//! missing endpoint is 404.
//!
//! Every state change is stored with its `thing.state` event in one
//! transaction, conditioned on the endpoint's revision (a concurrent change
//! is re-read and the read-back applied on top). Store calls: GET 2 gets
//! (endpoint, home); refresh and commands add 2 gets (integration,
//! connector) and 1 transaction.

use crate::routing::{Operations, operations};
use alyt_domain::device::{CommandRequest, DeviceCapability};
use alyt_domain::ids::{EndpointId, IntegrationId, RoomId, TenantId};
use alyt_domain::integration::{EndpointKind, PresentedAs};
use alyt_store::repo::integrations::EndpointRecord;
use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::access::HomeAccess;
use crate::auth::Caller;
use crate::conventions::extract::{ApiJson, ApiPath, ApiQuery};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{
    FieldWrongNamedInField, KeyWithoutThingsRead, MalformedId, MayNotControlThings, NoSuchEndpoint,
    NoValidToken,
};
use crate::groups::devices::{TenantParam, Thing};
use crate::{ApiError, AppState};

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(get_endpoint, patch_endpoint))
        .merge(operations!(refresh_endpoint))
        .merge(operations!(send_endpoint_command))
}

use alyt_app::endpoints::EndpointChanges;
pub(crate) use alyt_app::endpoints::endpoint_for;
pub use alyt_app::things::endpoint_thing;

// ---------------------------------------------------------------------------
// Views

/// An endpoint (spec: Resources > Endpoint): the raw member object of a
/// room view and of an integration's endpoint list.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Endpoint {
    pub id: EndpointId,
    pub tenant_id: TenantId,
    pub integration_id: IntegrationId,
    #[schema(required = true)]
    pub room_id: Option<RoomId>,
    #[schema(value_type = EndpointKind)]
    pub kind: String,
    /// The provider's stable id (never an IP address).
    pub external_id: String,
    pub name: String,
    #[schema(required = true)]
    pub address: Option<String>,
    /// Provider detail as the connector gave it (e.g. a speaker's source
    /// modes), or null.
    #[schema(value_type = Option<Object>, required = true)]
    pub capabilities: Option<Map<String, Value>>,
    /// The capabilities this build knows (unknown ones are dropped).
    pub capability_set: Vec<DeviceCapability>,
    pub features: Vec<String>,
    #[schema(required = true)]
    pub presented_as: Option<PresentedAs>,
    /// Whether the household uses it (`PATCH /endpoints/{id}`): a disabled
    /// endpoint takes no commands, plays no music and blocks arming where
    /// home security watches it.
    pub enabled: bool,
    /// Live values the connector last read back, keyed by capability.
    #[schema(value_type = Object)]
    pub state: Map<String, Value>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime, required = true)]
    pub state_updated_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime, required = true)]
    pub last_seen: Option<OffsetDateTime>,
}

/// The raw endpoint object of a stored endpoint.
pub fn endpoint_object(e: &EndpointRecord) -> Endpoint {
    Endpoint {
        id: e.id,
        tenant_id: e.tenant_id,
        integration_id: e.integration_id,
        room_id: e.room_id,
        kind: e
            .kind
            .known()
            .unwrap_or(EndpointKind::Other)
            .as_str()
            .to_owned(),
        external_id: e.external_id.clone(),
        name: e.name.clone(),
        address: e.address.clone(),
        capabilities: e.capabilities.clone(),
        capability_set: e.known_capabilities().into_iter().collect(),
        features: e.features.clone(),
        presented_as: e.presented_as(),
        enabled: e.enabled,
        state: e.state.clone(),
        state_updated_at: e.state_updated_at,
        last_seen: e.last_seen,
    }
}

// ---------------------------------------------------------------------------
// Finding an endpoint the caller may use

// ---------------------------------------------------------------------------
// Operations

/// One endpoint as a thing.
#[utoipa::path(
    get,
    path = "/v1/endpoints/{endpointId}",
    tag = "homes",
    operation_id = "getEndpoint",
    params(("endpointId" = EndpointId, Path, description = "The endpoint"), TenantParam),
    security(("bearer" = ["things:read"])),
    responses(
        (status = 200, description = "The endpoint as a thing", body = Thing),
        MalformedId,
        NoValidToken,
        KeyWithoutThingsRead,
        NoSuchEndpoint,
    )
)]
pub async fn get_endpoint(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(endpoint_id): ApiPath<EndpointId>,
    ApiQuery(query): ApiQuery<TenantParam>,
) -> Result<Json<Thing>, ApiError> {
    let endpoint = endpoint_for(
        &state,
        &caller,
        query.tenant_id,
        endpoint_id,
        HomeAccess::See,
    )
    .await?;
    Ok(Json(endpoint_thing(&endpoint, state.clock.now())))
}

/// Re-reads one endpoint from its connector.
#[utoipa::path(
    post,
    path = "/v1/endpoints/{endpointId}/refresh",
    tag = "homes",
    operation_id = "refreshEndpoint",
    params(("endpointId" = EndpointId, Path, description = "The endpoint"), TenantParam),
    security(("bearer" = ["things:control"])),
    responses(
        (status = 200, description = "The endpoint as read now", body = Thing),
        NoValidToken,
        MayNotControlThings,
        NoSuchEndpoint,
        (status = 409, description = "The endpoint's integration was removed meanwhile", body = Problem, content_type = "application/problem+json"),
        (status = 502, description = "The connector could not read the thing (it is now judged offline)", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn refresh_endpoint(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(endpoint_id): ApiPath<EndpointId>,
    ApiQuery(query): ApiQuery<TenantParam>,
) -> Result<Json<Thing>, ApiError> {
    let endpoint =
        alyt_app::endpoints::refresh(&state, &caller, query.tenant_id, endpoint_id).await?;
    Ok(Json(endpoint_thing(&endpoint, state.clock.now())))
}

/// The answer to an endpoint command.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EndpointCommandResult {
    /// Always `applied`: refusals and failures are problems (422, 502).
    pub status: String,
    /// The thing with the state the connector read back.
    pub thing: Thing,
}

/// Sends a command to an endpoint through its connector.
#[utoipa::path(
    post,
    path = "/v1/endpoints/{endpointId}/commands",
    tag = "homes",
    operation_id = "sendEndpointCommand",
    params(("endpointId" = EndpointId, Path, description = "The endpoint"), TenantParam),
    request_body = CommandRequest,
    security(("bearer" = ["things:control"])),
    responses(
        (status = 200, description = "Applied: the thing with the state read back", body = EndpointCommandResult),
        (status = 400, description = "A malformed body, or a command the thing's descriptors refuse (the field is named)", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        (status = 403, description = "A key without things:control, or platform SUPPORT; a siren (home security's output) from anyone who does not control the home's security", body = Problem, content_type = "application/problem+json"),
        NoSuchEndpoint,
        (status = 409, description = "The endpoint is disabled (nothing was sent)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The thing refused the command (the connector's reason)", body = Problem, content_type = "application/problem+json"),
        (status = 502, description = "The thing or its connector could not be reached", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn send_endpoint_command(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(endpoint_id): ApiPath<EndpointId>,
    ApiQuery(query): ApiQuery<TenantParam>,
    ApiJson(body): ApiJson<Value>,
) -> Result<Json<EndpointCommandResult>, ApiError> {
    let request = CommandRequest::parse(&body)
        .map_err(|e| ApiError::validation(e.field.clone(), e.to_string()))?;
    let endpoint =
        alyt_app::endpoints::command(&state, &caller, query.tenant_id, endpoint_id, request)
            .await?;
    Ok(Json(EndpointCommandResult {
        status: "applied".into(),
        thing: endpoint_thing(&endpoint, state.clock.now()),
    }))
}

fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(deserializer).map(Some)
}

/// What a PATCH may change; absent fields stay.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PatchEndpointRequest {
    /// 'light', 'switch' or null (shown as what it is).
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<PresentedAs>)]
    pub presented_as: Option<Option<PresentedAs>>,
    /// 1-80 characters.
    #[serde(default)]
    pub name: Option<String>,
    /// A room of the same home, or null for none.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<RoomId>)]
    pub room_id: Option<Option<RoomId>>,
    /// true or false (not null): whether the household uses it.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = bool)]
    pub enabled: Option<Option<bool>>,
}

/// Changes an endpoint's presentation, name, room or enabled state.
#[utoipa::path(
    patch,
    path = "/v1/endpoints/{endpointId}",
    tag = "homes",
    operation_id = "patchEndpoint",
    params(("endpointId" = EndpointId, Path, description = "The endpoint"), TenantParam),
    request_body = PatchEndpointRequest,
    security(("bearer" = ["rooms:write"])),
    responses(
        (status = 200, description = "The endpoint as a thing", body = Thing),
        FieldWrongNamedInField,
        NoValidToken,
        (status = 403, description = "A key without rooms:write, or a person who is not the household's OWNER", body = Problem, content_type = "application/problem+json"),
        NoSuchEndpoint,
    )
)]
pub async fn patch_endpoint(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(endpoint_id): ApiPath<EndpointId>,
    ApiQuery(query): ApiQuery<TenantParam>,
    ApiJson(body): ApiJson<PatchEndpointRequest>,
) -> Result<Json<Thing>, ApiError> {
    let name = match &body.name {
        Some(name) => {
            Some(alyt_domain::room::check_name(name).map_err(|e| ApiError::validation("name", e))?)
        }
        None => None,
    };
    let enabled = match body.enabled {
        Some(None) => return Err(ApiError::validation("enabled", "true or false, not null")),
        Some(Some(enabled)) => Some(enabled),
        None => None,
    };
    let changes = EndpointChanges {
        presented_as: body.presented_as,
        name,
        room_id: body.room_id,
        enabled,
    };
    let next =
        alyt_app::endpoints::change(&state, &caller, query.tenant_id, endpoint_id, changes).await?;
    Ok(Json(endpoint_thing(&next, state.clock.now())))
}
