//! Endpoints: things reached through a connector (part of the homes group;
//! spec: Resources > Endpoint, Thing; Endpoints F).
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

use std::collections::BTreeMap;

use crate::routing::{Operations, operations};
use alyt_connectors::{CommandAnswer, CommandCall, ConnectorError, ConnectorServer, ReadCall};
use alyt_domain::access::{Denied, Principal};
use alyt_domain::device::{AcceptedCommand, CommandError, CommandRequest, DeviceCapability};
use alyt_domain::ids::{EndpointId, IntegrationId, PropertyId, RoomId, TenantId};
use alyt_domain::integration::{
    EndpointKind, Presentation, PresentedAs, endpoint_descriptors, endpoint_liveness,
    endpoint_state, presentable,
};
use alyt_events::PlatformEvent;
use alyt_store::TxWrite;
use alyt_store::repo::integrations::{
    ConnectorRecord, EndpointRecord, IntegrationRecord, Integrations, PlacedBy, endpoint_write,
};
use alyt_store::repo::rooms::Rooms;
use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::access::{HomeAccess, home_for, tenant_gate};
use crate::auth::Caller;
use crate::conventions::extract::{ApiJson, ApiPath, ApiQuery};
use crate::conventions::problem::{NoValidToken, Problem};
use crate::groups::devices::{TenantParam, Thing, ThingKind, device_category};
use crate::{ApiError, AppState};

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(get_endpoint, patch_endpoint))
        .merge(operations!(refresh_endpoint))
        .merge(operations!(send_endpoint_command))
}

pub(crate) fn no_such_endpoint() -> alyt_app::Error {
    alyt_app::Error::not_found("no such endpoint")
}

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

/// The Thing view of an endpoint judged at `now`.
pub fn endpoint_thing(e: &EndpointRecord, now: OffsetDateTime) -> Thing {
    let capabilities = e.known_capabilities();
    let presented_as = e.presented_as();
    let presentation = Presentation::of(&capabilities, presented_as);
    let category = match presented_as {
        Some(PresentedAs::Light) => alyt_domain::capability::ThingCategory::Light,
        Some(PresentedAs::Switch) => alyt_domain::capability::ThingCategory::Switch,
        None => {
            let by_capability = device_category(&capabilities, None);
            if by_capability == alyt_domain::capability::ThingCategory::Other {
                match e.kind.known() {
                    Some(EndpointKind::Light) => alyt_domain::capability::ThingCategory::Light,
                    Some(EndpointKind::Speaker) => alyt_domain::capability::ThingCategory::Speaker,
                    Some(EndpointKind::Sensor) => alyt_domain::capability::ThingCategory::Sensor,
                    _ => by_capability,
                }
            } else {
                by_capability
            }
        }
    };
    Thing {
        id: *e.id.as_uuid(),
        kind: ThingKind::Endpoint,
        name: e.name.clone(),
        room_id: e.room_id,
        category,
        icon: category.icon().to_owned(),
        capabilities: endpoint_descriptors(&capabilities, &e.features, &e.state, presentation),
        state: endpoint_state(&e.state, presentation),
        state_updated_at: e.state_updated_at,
        liveness: endpoint_liveness(e.checked_at, e.reachable, e.last_seen, now),
        settings: Map::from_iter([("enabled".to_owned(), e.enabled.into())]),
        presented_as,
        presentable: presentable(&capabilities),
    }
}

// ---------------------------------------------------------------------------
// Finding an endpoint the caller may use

/// Endpoint `id` of `tenant` when the caller has `needed` in its home (403
/// for a missing scope or a weaker role; 404 for a missing or foreign one).
/// Two gets. A LIVE key reaches the endpoints of its own connector's
/// integrations to read, refresh and command them (two gets: the endpoint
/// and its integration); it never configures one (403), and any other
/// endpoint answers as missing.
pub(crate) async fn endpoint_for(
    state: &AppState,
    caller: &Principal,
    tenant: TenantId,
    id: EndpointId,
    needed: HomeAccess,
) -> Result<EndpointRecord, ApiError> {
    caller.require_scope(needed.scope())?;
    if let Some(connector) = caller.acts_for_connector(tenant) {
        if needed == HomeAccess::Configure {
            return Err(Denied::ConnectorOnly.into());
        }
        let repo = Integrations(&*state.store);
        let endpoint = repo
            .endpoint(tenant, id)
            .await?
            .ok_or_else(no_such_endpoint)?;
        let integration = repo.get(tenant, endpoint.integration_id).await?;
        return match integration {
            Some(i) if i.connector_id == connector => Ok(endpoint),
            _ => Err(no_such_endpoint().into()),
        };
    }
    tenant_gate(caller, tenant, no_such_endpoint)?;
    let endpoint = Integrations(&*state.store)
        .endpoint(tenant, id)
        .await?
        .ok_or_else(no_such_endpoint)?;
    match home_for(state, caller, tenant, endpoint.property_id, needed).await {
        Ok(_) => Ok(endpoint),
        Err(e) if e.kind == alyt_app::ErrorKind::NotFound => Err(no_such_endpoint().into()),
        Err(e) => Err(e.into()),
    }
}

// ---------------------------------------------------------------------------
// Talking to the connector

/// An installed connector, ready to call.
#[derive(Clone)]
pub(crate) struct Installed {
    pub integration: IntegrationRecord,
    pub connector: ConnectorRecord,
}

impl Installed {
    pub fn server(&self, state: &AppState) -> ConnectorServer {
        ConnectorServer {
            base_url: self.connector.server_url.clone(),
            runtime_token: self.connector.runtime_token.clone(),
            policy: state.events.outbound,
        }
    }
}

/// The integration of an endpoint and its connector. Two gets.
pub(crate) async fn installed(
    state: &AppState,
    tenant: TenantId,
    integration: IntegrationId,
) -> Result<Installed, ApiError> {
    let repo = Integrations(&*state.store);
    let integration = repo
        .get(tenant, integration)
        .await?
        .ok_or_else(|| ApiError::conflict("the endpoint's integration was removed"))?;
    let connector = repo
        .connector(integration.connector_id)
        .await?
        .ok_or_else(|| ApiError::conflict("the integration's connector no longer exists"))?;
    Ok(Installed {
        integration,
        connector,
    })
}

/// What a person reads when a connector did not answer (never its URL or
/// token).
pub(crate) fn connector_problem(connector: &ConnectorRecord, e: &ConnectorError) -> String {
    let why = match e {
        ConnectorError::Refused(_) => "its address is not allowed from this platform".to_owned(),
        ConnectorError::Unreachable(reason) => reason.clone(),
        ConnectorError::Status(401 | 403) => "it refused the platform's credentials".to_owned(),
        ConnectorError::Status(code) => format!("it answered HTTP {code}"),
        ConnectorError::InvalidAnswer(_) => {
            "it answered something that is not the protocol".to_owned()
        }
    };
    format!(
        "the connector {:?} could not be reached: {why}",
        connector.name
    )
}

/// The outcome of reading one endpoint.
pub(crate) enum ReadOutcome {
    Read(EndpointRecord),
    /// Could not be read; the endpoint as stored after the failed check.
    Failed(EndpointRecord, String),
}

/// Reads `endpoints` (all of `installed`) from the connector in one call and
/// stores each result (state, lastSeen, the check) with a `thing.state`
/// event when the state changed. Endpoints the connector does not mention,
/// or reports an error for, are failed.
pub(crate) async fn read_and_store(
    state: &AppState,
    installed: &Installed,
    endpoints: Vec<EndpointRecord>,
) -> Result<Vec<ReadOutcome>, ApiError> {
    if endpoints.is_empty() {
        return Ok(Vec::new());
    }
    let call = ReadCall {
        integration_id: installed.integration.id.to_string(),
        tenant_id: installed.integration.tenant_id.to_string(),
        config: installed.integration.config.clone(),
        external_ids: endpoints.iter().map(|e| e.external_id.clone()).collect(),
    };
    let answer = state.connectors.read(&installed.server(state), &call).await;
    let mut reads: BTreeMap<String, Result<Map<String, Value>, String>> = BTreeMap::new();
    match answer {
        Ok(answer) => {
            for thing in answer.things {
                let read = match (thing.state, thing.error) {
                    (Some(state), None) => Ok(state),
                    (_, Some(error)) => Err(error),
                    (None, None) => Err("the connector sent no state".to_owned()),
                };
                reads.insert(thing.external_id, read);
            }
        }
        Err(e) => {
            let why = connector_problem(&installed.connector, &e);
            for endpoint in &endpoints {
                reads.insert(endpoint.external_id.clone(), Err(why.clone()));
            }
        }
    }
    let mut outcomes = Vec::with_capacity(endpoints.len());
    for endpoint in endpoints {
        let read = reads
            .remove(&endpoint.external_id)
            .unwrap_or_else(|| Err("the connector did not report this thing".to_owned()));
        let outcome = match read {
            Ok(new_state) => {
                ReadOutcome::Read(store_check(state, endpoint, Some(new_state)).await?)
            }
            Err(why) => {
                let stored = store_check(state, endpoint, None).await?;
                ReadOutcome::Failed(stored, why)
            }
        };
        outcomes.push(outcome);
    }
    Ok(outcomes)
}

/// Stores one check of an endpoint: `Some(state)` read back (reachable,
/// seen now, the state replaced), `None` failed (unreachable). Conditioned
/// on the revision read; on a race the endpoint is read again and the check
/// applied on top (up to 4 times, then 409).
pub(crate) async fn store_check(
    state: &AppState,
    endpoint: EndpointRecord,
    read_back: Option<Map<String, Value>>,
) -> Result<EndpointRecord, ApiError> {
    let before = endpoint.clone();
    // Never stored: PINs, credentials, private media URLs.
    let read_back = read_back.map(|mut read| {
        alyt_domain::never_stored::strip_secrets(&mut read);
        read
    });
    let stored = check_stored(state, endpoint, read_back).await?;
    if stored.state != before.state {
        alyt_security::HomeSecurity::new(state.store.clone(), state.clock.clone())
            .endpoint_changed(&before, &stored)
            .await;
    }
    Ok(stored)
}

async fn check_stored(
    state: &AppState,
    endpoint: EndpointRecord,
    read_back: Option<Map<String, Value>>,
) -> Result<EndpointRecord, ApiError> {
    rewrite_endpoint(state, endpoint, |stored, next| {
        let now = state.clock.now();
        next.checked_at = Some(now);
        next.updated_at = now;
        let Some(new_state) = &read_back else {
            next.reachable = false;
            return Ok(Vec::new());
        };
        next.reachable = true;
        next.last_seen = Some(now);
        if *new_state == stored.state && stored.state_updated_at.is_some() {
            return Ok(Vec::new());
        }
        next.state = new_state.clone();
        next.state_updated_at = Some(now);
        thing_state_event(state, next, now)
    })
    .await?
    .ok_or_else(|| no_such_endpoint().into())
}

/// The `thing.state` event of an endpoint's new state (spec: Events), to
/// write in the same transaction.
fn thing_state_event(
    state: &AppState,
    endpoint: &EndpointRecord,
    at: OffsetDateTime,
) -> Result<Vec<TxWrite>, ApiError> {
    let event = PlatformEvent::ThingState(endpoint.thing_state(at));
    Ok(state.event_writes(endpoint.tenant_id, vec![event])?)
}

/// Why a command to an endpoint did not apply.
pub(crate) enum CommandFailure {
    /// The thing's descriptors or the thing itself refused it (a person's
    /// mistake: 400/422).
    Refused(ApiError),
    /// The thing or its connector could not be reached (502).
    Unreachable(String),
}

impl CommandFailure {
    pub fn reason(&self) -> String {
        match self {
            CommandFailure::Refused(e) => e.detail.clone(),
            CommandFailure::Unreachable(why) => why.clone(),
        }
    }
}

/// `request` checked against the endpoint's own descriptors (as it is
/// presented), with the presentation it was checked under.
pub(crate) fn accept_for_endpoint(
    endpoint: &EndpointRecord,
    request: CommandRequest,
) -> Result<(AcceptedCommand, Option<Presentation>), CommandError> {
    let capabilities = endpoint.known_capabilities();
    let presentation = Presentation::of(&capabilities, endpoint.presented_as());
    let descriptors = endpoint_descriptors(
        &capabilities,
        &endpoint.features,
        &endpoint.state,
        presentation,
    );
    request
        .validate(descriptors.iter().map(|d| &**d), Some(&endpoint.features))
        .map(|accepted| (accepted, presentation))
}

/// The command path of an endpoint (this operation, room and property
/// actions): validated against the thing's own descriptors, sent to the
/// connector with the native capability, and the read-back state stored.
pub(crate) async fn command_endpoint(
    state: &AppState,
    installed: &Installed,
    endpoint: EndpointRecord,
    request: CommandRequest,
) -> Result<EndpointRecord, CommandFailure> {
    if !endpoint.enabled {
        return Err(CommandFailure::Refused(ApiError::conflict(format!(
            "{} is disabled; enable it (PATCH /v1/endpoints/{} {{\"enabled\": true}}) to command it",
            endpoint.name, endpoint.id
        ))));
    }
    let (accepted, presentation) = accept_for_endpoint(&endpoint, request).map_err(|e| {
        CommandFailure::Refused(ApiError::validation(e.field.clone(), e.to_string()))
    })?;
    let mut payload = accepted.payload;
    if let (Some(p), Some(payload)) = (presentation, payload.as_mut())
        && let Some(Value::String(capability)) = payload.get("capability").cloned()
    {
        payload.insert("capability".into(), p.to_native(&capability).into());
    }
    let call = CommandCall {
        integration_id: installed.integration.id.to_string(),
        tenant_id: installed.integration.tenant_id.to_string(),
        config: installed.integration.config.clone(),
        external_id: endpoint.external_id.clone(),
        command: accepted.command,
        payload,
    };
    let answer = state
        .connectors
        .command(&installed.server(state), &call)
        .await;
    let stored = |read_back| store_check(state, endpoint.clone(), read_back);
    match answer {
        Ok(CommandAnswer::Applied { state: read_back }) => stored(Some(read_back))
            .await
            .map_err(CommandFailure::Refused),
        Ok(CommandAnswer::Rejected { reason }) => Err(CommandFailure::Refused(
            ApiError::unprocessable(format!("the thing refused the command: {reason}")),
        )),
        Ok(CommandAnswer::Failed { reason }) => {
            stored(None).await.map_err(CommandFailure::Refused)?;
            Err(CommandFailure::Unreachable(reason))
        }
        Err(e) => Err(CommandFailure::Unreachable(connector_problem(
            &installed.connector,
            &e,
        ))),
    }
}

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
        (status = 400, description = "A malformed id", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        (status = 403, description = "A key without things:read", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such endpoint (or not one the caller sees)", body = Problem, content_type = "application/problem+json"),
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
        (status = 403, description = "A key without things:control, or platform SUPPORT", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such endpoint (or not one the caller sees)", body = Problem, content_type = "application/problem+json"),
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
    let endpoint = endpoint_for(
        &state,
        &caller,
        query.tenant_id,
        endpoint_id,
        HomeAccess::Control,
    )
    .await?;
    let installed = installed(&state, query.tenant_id, endpoint.integration_id).await?;
    let outcome = read_and_store(&state, &installed, vec![endpoint]).await?;
    match outcome.into_iter().next() {
        Some(ReadOutcome::Read(endpoint)) => Ok(Json(endpoint_thing(&endpoint, state.clock.now()))),
        Some(ReadOutcome::Failed(endpoint, why)) => Err(ApiError::bad_gateway(format!(
            "{} could not be read: {why}",
            endpoint.name
        ))),
        None => Err(ApiError::internal(
            "a read of one endpoint returned nothing",
        )),
    }
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
        (status = 404, description = "No such endpoint (or not one the caller sees)", body = Problem, content_type = "application/problem+json"),
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
    let endpoint = endpoint_for(
        &state,
        &caller,
        query.tenant_id,
        endpoint_id,
        HomeAccess::Control,
    )
    .await?;
    let request = CommandRequest::parse(&body)
        .map_err(|e| ApiError::validation(e.field.clone(), e.to_string()))?;
    if alyt_domain::security::enrolment::is_siren(
        &endpoint.known_capabilities(),
        &endpoint.features,
    ) {
        crate::access::siren_command(&state, &caller, endpoint.tenant_id, endpoint.property_id)
            .await?;
    }
    let installed = installed(&state, query.tenant_id, endpoint.integration_id).await?;
    let name = endpoint.name.clone();
    match command_endpoint(&state, &installed, endpoint, request).await {
        Ok(endpoint) => Ok(Json(EndpointCommandResult {
            status: "applied".into(),
            thing: endpoint_thing(&endpoint, state.clock.now()),
        })),
        Err(CommandFailure::Refused(e)) => Err(e),
        Err(CommandFailure::Unreachable(why)) => Err(ApiError::bad_gateway(format!(
            "{name} could not be reached: {why}"
        ))),
    }
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
        (status = 400, description = "A field is wrong (named in `field`)", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        (status = 403, description = "A key without rooms:write, or a person who is not the household's OWNER", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such endpoint (or not one the caller sees)", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn patch_endpoint(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(endpoint_id): ApiPath<EndpointId>,
    ApiQuery(query): ApiQuery<TenantParam>,
    ApiJson(body): ApiJson<PatchEndpointRequest>,
) -> Result<Json<Thing>, ApiError> {
    let tenant = query.tenant_id;
    let endpoint =
        endpoint_for(&state, &caller, tenant, endpoint_id, HomeAccess::Configure).await?;
    if let Some(Some(_)) = body.presented_as
        && !presentable(&endpoint.known_capabilities())
    {
        return Err(ApiError::validation(
            "presentedAs",
            "only a light or a switch can be presented as a light or a switch",
        ));
    }
    let name = match &body.name {
        Some(name) => {
            Some(alyt_domain::room::check_name(name).map_err(|e| ApiError::validation("name", e))?)
        }
        None => None,
    };
    if let Some(Some(room)) = body.room_id {
        check_room(&state, tenant, endpoint.property_id, room).await?;
    }
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
    let next = change_endpoint(&state, endpoint, changes).await?;
    Ok(Json(endpoint_thing(&next, state.clock.now())))
}

/// Checked changes to an endpoint: each `Some` is set (`Some(None)` clears).
struct EndpointChanges {
    presented_as: Option<Option<PresentedAs>>,
    name: Option<String>,
    room_id: Option<Option<RoomId>>,
    enabled: Option<bool>,
}

/// Writes `changes` to the endpoint (a room set by a person is placed by
/// them, so discovery leaves it there); answers it as stored.
async fn change_endpoint(
    state: &AppState,
    endpoint: EndpointRecord,
    changes: EndpointChanges,
) -> Result<EndpointRecord, ApiError> {
    let EndpointChanges {
        presented_as,
        name,
        room_id,
        enabled,
    } = changes;
    let now = state.clock.now();
    rewrite_endpoint(state, endpoint, |_, e| {
        if let Some(presented_as) = presented_as {
            e.presented_as = presented_as.map(|p| p.as_str().to_owned());
        }
        if let Some(name) = &name {
            e.name = name.clone();
        }
        if let Some(room) = room_id {
            e.room_id = room;
            e.placed_by = Some(PlacedBy::Person);
        }
        if let Some(enabled) = enabled {
            e.enabled = enabled;
        }
        e.updated_at = now;
        Ok(Vec::new())
    })
    .await?
    .ok_or_else(|| no_such_endpoint().into())
}

/// Applies `change(stored, next)` to the endpoint and writes it with the
/// writes `change` returns (its events) in one transaction, conditioned on
/// the revision read (re-read and re-applied on a race, at most four tries,
/// then 409). `None` when the endpoint vanished meanwhile.
async fn rewrite_endpoint(
    state: &AppState,
    mut endpoint: EndpointRecord,
    change: impl Fn(&EndpointRecord, &mut EndpointRecord) -> Result<Vec<TxWrite>, ApiError>,
) -> Result<Option<EndpointRecord>, ApiError> {
    let repo = Integrations(&*state.store);
    for _ in 0..4 {
        let mut next = endpoint.clone();
        let mut writes = change(&endpoint, &mut next)?;
        writes.insert(0, endpoint_write(&next, Some(endpoint.rev))?);
        match repo.write(writes).await {
            Ok(()) => {
                next.rev = endpoint.rev + 1;
                return Ok(Some(next));
            }
            Err(e) if e.is_condition_failure() => {
                match repo.endpoint(endpoint.tenant_id, endpoint.id).await? {
                    Some(again) => endpoint = again,
                    None => return Ok(None),
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(ApiError::conflict(format!(
        "the endpoint {} kept changing; try again",
        endpoint.id
    )))
}

/// Moves an endpoint to `room` (None: no room) as a person's choice, so
/// discovery never moves it again. An endpoint that vanished is left alone.
pub(crate) async fn move_endpoint(
    state: &AppState,
    endpoint: EndpointRecord,
    room: Option<RoomId>,
) -> Result<(), ApiError> {
    let now = state.clock.now();
    rewrite_endpoint(state, endpoint, |_, e| {
        e.room_id = room;
        e.placed_by = Some(PlacedBy::Person);
        e.updated_at = now;
        Ok(Vec::new())
    })
    .await?;
    Ok(())
}

/// 400 `roomId` unless `room` is a room of home `property`.
async fn check_room(
    state: &AppState,
    tenant: TenantId,
    property: PropertyId,
    room: RoomId,
) -> Result<(), ApiError> {
    match Rooms(&*state.store).get(property, room).await? {
        Some(r) if r.tenant_id == tenant => Ok(()),
        _ => Err(ApiError::validation(
            "roomId",
            "roomId must be a room of the endpoint's home",
        )),
    }
}
