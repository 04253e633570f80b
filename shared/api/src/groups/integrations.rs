//! The integrations operation group (spec: Integrations and catalogue;
//! Endpoints F, Rules; G): connecting a connector to a home, answering its
//! challenge, discovery, and the endpoints an integration brings.
//!
//! * `POST /v1/integrations?tenantId` `{ propertyId, connectorId, input }`:
//!   calls the connector's `v1/connect` with a new integration id and
//!   answers the Connect result: `connected` (the integration is stored with
//!   the config the connector answered, and discovery runs into the home at
//!   once: `things` is what it found), `challenge` (the connector needs more
//!   input: `token` is the platform's own one-time token, good for ten
//!   minutes, `fields` what to ask), or `rejected` with the connector's
//!   reason. 200 in all three cases.
//! * `POST /v1/integrations/challenge` `{ token, input }`: answers a
//!   challenge once; an unknown, used or expired token is 410 with one
//!   message for all. Same Connect result.
//! * `GET /v1/integrations?tenantId`: the tenant's integrations the caller
//!   sees (household people: those of their homes), oldest first.
//! * `GET /v1/integrations/{integrationId}?tenantId`, `DELETE` (the
//!   connector's `v1/disconnect` is called best-effort, then the
//!   integration and its endpoints are removed; 204).
//! * `POST /v1/integrations/{integrationId}/discover?tenantId`
//!   `{ propertyId }`: asks the connector what it has and stores it as
//!   endpoints of the integration's home (an integration belongs to one
//!   home: another `propertyId` is 400). See `discover_into`.
//! * `GET /v1/integrations/{integrationId}/endpoints?tenantId`: the raw
//!   endpoints of the integration (spec: Endpoint list response).
//!
//! The tenant is the `tenantId` query parameter, as for every household
//! operation; connect and discover also take it in the body, as they first
//! did (`conventions::tenant`).
//!
//! Who: the rule of rooms (`access::access_to`): connecting,
//! answering, discovering and removing configure the home (the household's
//! OWNER, tenant ADMIN/INSTALLER, keys bound to the tenant, platform
//! OWNER/STAFF); reading needs sight of the home (any member, a guest in its
//! pinned home, platform SUPPORT). Keys need `integrations:write` to
//! configure and `integrations:read` to read (403). A foreign or missing
//! home or integration is 404; so is a connector the tenant may not install
//! (an unpublished connector installs only in its developer's sandbox).
//!
//! Secrets: what a person types (`input`), the integration config and the
//! connector's runtime token and URL are never logged nor answered; a
//! connector that cannot be reached is a 502 naming the connector, never its
//! address.
//!
//! Store calls (besides authenticating the caller): connect 2 gets (home,
//! connector) + 1 put (the integration, or the challenge) + discovery;
//! answer 1 conditional delete (the challenge) + the same; discovery (after
//! 3 gets: integration, home, connector) 1 index query of the integration's
//! endpoints and 1 query of the home's rooms (concurrently) + 1 transaction
//! per new room + 1 transaction per 50 endpoints (endpoints and their
//! `thing.state` events together) + 1 put (`discoveredAt`); list 1 get (the
//! tenant) + 1 query per page (+ 1 get per distinct home for household
//! people); get 2 gets;
//! delete 3 gets + 1 transaction per 99 endpoints + 1 delete; endpoints 2
//! gets + 1 index query.

use std::collections::{BTreeMap, BTreeSet};

use crate::routing::{Operations, operations};
use alyt_connectors::{
    ConnectAnswer, ConnectCall, ConnectField, ConnectorServer, DiscoveredThing, IntegrationCall,
    MAX_DISCOVERED_THINGS,
};
use alyt_domain::access::{Denied, HomeReach, Principal, Scope};
use alyt_domain::ids::{ConnectorId, EndpointId, IntegrationId, PropertyId, RoomId, TenantId};
use alyt_domain::integration::check_external_id;
use alyt_domain::integration::placement::{Placement, Synonyms, place};
use alyt_domain::room;
use alyt_events::PlatformEvent;
use alyt_store::repo::integrations::connector_installs;
use alyt_store::repo::integrations::integration_endpoints;
use alyt_store::repo::integrations::tenant_integrations;
use alyt_store::repo::integrations::{
    ChallengeRecord, ConnectorRecord, EndpointRecord, IntegrationRecord, Integrations, PlacedBy,
    endpoint_write,
};
use alyt_store::repo::rooms::{RoomRecord, Rooms};
use alyt_store::repo::tenancy::{PropertyRecord, Tenancy};
use alyt_store::{PageKey, TxWrite};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::Map;
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::access::{HomeAccess, HomeNeed, access_to, home_for, no_such_property, tenant_gate};
use crate::auth::Caller;
use crate::auth::secrets::{random_token, sha256_hex};
use crate::conventions::extract::{ApiJson, ApiPath, ApiQuery};
use crate::conventions::list::{ListResponse, PageParams, TenantPage, listed};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{
    BadTenantOrIntegration, BadTenantPage, ConnectorUnreachable, FieldWrongNamedInField,
    KeyWithoutIntegrationsRead, MayNotConfigureIntegrations, NoSuchIntegration,
    NoSuchTenantOfCaller, NoValidToken,
};
use crate::conventions::tenant::TenantQuery;
use crate::groups::devices::TenantParam;
use crate::groups::homes::endpoints::{Endpoint, Installed, connector_problem, endpoint_object};
use crate::{ApiError, AppState};

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(list_integrations, connect_integration))
        .merge(operations!(answer_challenge))
        .merge(operations!(get_integration, delete_integration))
        .merge(operations!(discover_integration))
        .merge(operations!(list_integration_endpoints))
        .merge(operations!(search_music))
}

/// Fields a connect `input` may carry.
pub const MAX_INPUT_FIELDS: usize = 32;
/// Characters of an input field's key.
pub const MAX_INPUT_KEY_CHARS: usize = 64;
/// Characters of an input value.
pub const MAX_INPUT_VALUE_CHARS: usize = 4096;
/// Endpoints written per transaction in discovery (each may bring its
/// `thing.state` event: 100 writes at most).
const ENDPOINTS_PER_TRANSACTION: usize = alyt_store::MAX_TRANSACTION_OPS / 2;
/// A discovered thing whose state and detail take more than this (as JSON)
/// is skipped: an endpoint must fit in one store item.
const MAX_THING_BYTES: usize = 64 * 1024;
/// Characters of a connector's reason or prompt passed on to a person.
const MAX_MESSAGE_CHARS: usize = 500;

fn no_such_integration() -> alyt_app::Error {
    alyt_app::Error::not_found("no such integration")
}

fn no_such_connector() -> ApiError {
    ApiError::not_found("no such connector")
}

fn challenge_gone() -> ApiError {
    ApiError::gone("this connect challenge is unknown, already answered or expired; connect again")
}

// ---------------------------------------------------------------------------
// Who may do what

/// What an operation needs in the home: sight (`integrations:read`) or
/// configuration (`integrations:write`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Need {
    See,
    Configure,
}

impl Need {
    fn scope(self) -> Scope {
        match self {
            Need::See => Scope::IntegrationsRead,
            Need::Configure => Scope::IntegrationsWrite,
        }
    }

    fn access(self) -> HomeAccess {
        match self {
            Need::See => HomeAccess::See,
            Need::Configure => HomeAccess::Configure,
        }
    }

    /// What this need asks of a home (the rooms' rule with the integrations
    /// scopes and refusals), `missing` answering a home that is missing or
    /// not the caller's.
    fn in_home(self, missing: fn() -> alyt_app::Error) -> HomeNeed {
        HomeNeed {
            access: self.access(),
            scope: self.scope(),
            refusal: refusal_text(self),
            missing,
        }
    }
}

/// Whether the caller has `need` in `property` (`Some(false)`: sees it with
/// less; `None`: not the caller's home).
fn allowed(caller: &Principal, property: &PropertyRecord, need: Need) -> Option<bool> {
    access_to(caller, property).map(|access| access >= need.access())
}

fn refusal_text(need: Need) -> &'static str {
    match need {
        Need::See => "you cannot see this home",
        Need::Configure => {
            "connecting, discovering and removing integrations needs the household's OWNER role"
        }
    }
}

/// Integration `id` of `tenant` and its home, when the caller has `need`
/// there (404 "no such integration" otherwise). Two gets. A LIVE key reads
/// the integrations made from its own connector (any other answers as
/// missing) and configures none (403).
async fn integration_for(
    state: &AppState,
    caller: &Principal,
    tenant: TenantId,
    id: IntegrationId,
    need: Need,
) -> Result<(IntegrationRecord, PropertyRecord), ApiError> {
    caller.require_scope(need.scope())?;
    if let Some(connector) = caller.acts_for_connector(tenant) {
        if need == Need::Configure {
            return Err(Denied::ConnectorOnly.into());
        }
        let integration = Integrations(&*state.store)
            .get(tenant, id)
            .await?
            .filter(|i| i.connector_id == connector)
            .ok_or_else(no_such_integration)?;
        let home = Tenancy(&*state.store)
            .property(tenant, integration.property_id)
            .await?
            .ok_or_else(no_such_integration)?;
        return Ok((integration, home));
    }
    tenant_gate(caller, tenant, no_such_integration)?;
    let integration = Integrations(&*state.store)
        .get(tenant, id)
        .await?
        .ok_or_else(no_such_integration)?;
    let home = home_for(
        state,
        caller,
        tenant,
        integration.property_id,
        need.in_home(no_such_integration),
    )
    .await?;
    Ok((integration, home))
}

/// The connector a tenant may install: one with a published version, or
/// any in its developer's sandbox (404 otherwise, like a missing one); a
/// connector whose every published version is deprecated is 409 outside
/// the sandbox. One get.
async fn installable(
    state: &AppState,
    tenant: TenantId,
    id: ConnectorId,
) -> Result<ConnectorRecord, ApiError> {
    let Some(connector) = Integrations(&*state.store).connector(id).await? else {
        let id = id.to_string();
        if let Some(built_in) = alyt_connectors::catalogue::built_in_definitions()
            .iter()
            .find(|d| d.id == id)
        {
            return Err(ApiError::conflict(format!(
                "the built-in {} is not served by this platform (the local platform serves it)",
                built_in.slug
            )));
        }
        return Err(no_such_connector());
    };
    if connector.installable_by(tenant) {
        return Ok(connector);
    }
    if connector.deprecated {
        return Err(ApiError::conflict(format!(
            "{} is deprecated and cannot be newly installed; installations that exist keep working",
            connector.name
        )));
    }
    Err(no_such_connector())
}

fn server(state: &AppState, connector: &ConnectorRecord) -> ConnectorServer {
    ConnectorServer {
        base_url: connector.server_url.clone(),
        runtime_token: connector.runtime_token.clone(),
        policy: state.events.outbound,
    }
}

// ---------------------------------------------------------------------------
// Views

/// An integration: a connector installed in a home. Never its config.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Integration {
    pub id: IntegrationId,
    pub tenant_id: TenantId,
    pub property_id: PropertyId,
    pub connector_id: ConnectorId,
    /// The connector's name when it was connected.
    pub name: String,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    /// The last discovery, or null.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime, required = true)]
    pub discovered_at: Option<OffsetDateTime>,
    /// A streaming-provider account (searchable with
    /// `GET /integrations/{id}/search`), or null.
    #[schema(required = true)]
    pub account: Option<IntegrationAccount>,
}

/// The streaming-provider account an integration is (never its session).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IntegrationAccount {
    /// The `<provider>` of the uris it finds.
    pub provider: String,
    pub name: String,
}

impl From<&IntegrationRecord> for Integration {
    fn from(i: &IntegrationRecord) -> Self {
        Self {
            id: i.id,
            tenant_id: i.tenant_id,
            property_id: i.property_id,
            connector_id: i.connector_id,
            name: i.name.clone(),
            created_at: i.created_at,
            discovered_at: i.discovered_at,
            account: i.account.as_ref().map(|a| IntegrationAccount {
                provider: a.provider.clone(),
                name: a.name.clone(),
            }),
        }
    }
}

/// The Connect result (spec: Integrations and catalogue).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum ConnectResult {
    /// Connected and discovered: `things` endpoints are in the home.
    Connected {
        #[serde(rename = "integrationId")]
        integration_id: IntegrationId,
        /// Things discovery found (0 when discovery failed: run it again).
        things: u32,
        /// Always false: discovery has finished when this answers.
        discovering: bool,
    },
    /// The connector needs more input: answer with `POST
    /// /v1/integrations/challenge` `{ token, input }` within ten minutes.
    Challenge {
        /// One-time; good for one answer.
        token: String,
        prompt: String,
        fields: Vec<ConnectField>,
    },
    /// The connector refused (wrong code, bad credentials...).
    Rejected { reason: String },
}

/// Connect input: what a person typed, by field key. Secrets: never logged.
type Input = BTreeMap<String, String>;

fn check_input(input: &Input) -> Result<(), ApiError> {
    if input.len() > MAX_INPUT_FIELDS {
        return Err(ApiError::validation(
            "input",
            format!("input holds at most {MAX_INPUT_FIELDS} fields"),
        ));
    }
    for (key, value) in input {
        let chars = key.chars().count();
        if chars == 0 || chars > MAX_INPUT_KEY_CHARS || key.chars().any(char::is_control) {
            return Err(ApiError::validation(
                "input",
                format!("input keys must be 1 to {MAX_INPUT_KEY_CHARS} printable characters"),
            ));
        }
        if value.chars().count() > MAX_INPUT_VALUE_CHARS {
            // Never the value itself: it may be a password.
            return Err(ApiError::validation(
                format!("input.{key}"),
                format!("input values have at most {MAX_INPUT_VALUE_CHARS} characters"),
            ));
        }
    }
    Ok(())
}

/// A connector's text passed on to a person: trimmed and bounded.
fn message(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConnectRequest {
    /// The tenant; may come as the `tenantId` query parameter instead (like
    /// every household operation). When both are given they must agree.
    #[serde(default)]
    pub tenant_id: Option<TenantId>,
    /// The home the integration's things go to.
    pub property_id: PropertyId,
    /// The connector to connect (its developer's connector id).
    pub connector_id: ConnectorId,
    /// The connector's connect fields, by key. Never logged.
    #[serde(default)]
    pub input: Input,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ChallengeAnswer {
    /// The `token` of the challenge result.
    #[schema(min_length = 1, max_length = 200)]
    pub token: String,
    /// The challenge's fields, by key. Never logged.
    #[serde(default)]
    pub input: Input,
}

// ---------------------------------------------------------------------------
// Connecting

/// Where a connect is going: the home, the connector and the integration id
/// the connector was told.
struct Connecting {
    home: PropertyRecord,
    connector: ConnectorRecord,
    integration_id: IntegrationId,
}

/// Calls the connector's `v1/connect` and turns its answer into the Connect
/// result (storing the integration and discovering, or the challenge).
async fn connect(
    state: &AppState,
    connecting: Connecting,
    input: Input,
    challenge_token: Option<String>,
) -> Result<ConnectResult, ApiError> {
    let Connecting {
        home,
        connector,
        integration_id,
    } = connecting;
    let call = ConnectCall {
        integration_id: integration_id.to_string(),
        tenant_id: home.tenant_id.to_string(),
        input,
        challenge_token,
    };
    let answer = state
        .connectors
        .connect(&server(state, &connector), &call)
        .await
        .map_err(|e| {
            tracing::warn!(connector = %connector.id, integration = %integration_id, error = %e, "connect failed");
            ApiError::bad_gateway(connector_problem(&connector, &e))
        })?;
    let now = state.clock.now();
    match answer {
        ConnectAnswer::Connected { config, account } => {
            if account.as_ref().is_some_and(|a| !a.provider_ok()) {
                return Err(ApiError::bad_gateway(format!(
                    "the connector {:?} named an account whose provider is not a lowercase word",
                    connector.name
                )));
            }
            let integration = IntegrationRecord {
                id: integration_id,
                tenant_id: home.tenant_id,
                property_id: home.id,
                connector_id: connector.id,
                name: connector.name.clone(),
                config,
                created_at: now,
                discovered_at: None,
                version_id: connector.listing.as_ref().map(|l| l.version_id),
                account,
            };
            match Integrations(&*state.store).create(&integration).await {
                Ok(()) => {}
                Err(e) if e.is_condition_failure() => {
                    return Err(ApiError::conflict("this integration is already connected"));
                }
                Err(e) => return Err(e.into()),
            }
            tracing::info!(integration = %integration.id, connector = %connector.id, tenant = %home.tenant_id, "integration connected");
            // LIVE keys of the connector hear this tenant from now on: the
            // dispatcher follows it before discovery records any event.
            alyt_events::dispatch::follow_installation(
                &*state.store,
                home.tenant_id,
                &connector.id.to_string(),
                now,
            )
            .await?;
            let installed = Installed {
                integration,
                connector,
            };
            let things = match discover_into(state, &installed).await {
                Ok(found) => found.things,
                Err(e) => {
                    // The integration stands; discovery can run again.
                    tracing::warn!(integration = %installed.integration.id, error = %e.detail, "discovery after connect failed");
                    0
                }
            };
            Ok(ConnectResult::Connected {
                integration_id,
                things,
                discovering: false,
            })
        }
        ConnectAnswer::Challenge {
            token: connector_token,
            prompt,
            fields,
        } => {
            let token = random_token();
            let challenge = ChallengeRecord {
                integration_id,
                tenant_id: home.tenant_id,
                property_id: home.id,
                connector_id: connector.id,
                connector_token,
            };
            Integrations(&*state.store)
                .put_challenge(&sha256_hex(&token), &challenge, now)
                .await?;
            Ok(ConnectResult::Challenge {
                token,
                prompt: message(&prompt),
                fields,
            })
        }
        ConnectAnswer::Rejected { reason } => Ok(ConnectResult::Rejected {
            reason: message(&reason),
        }),
    }
}

/// Connects a connector to a home.
#[utoipa::path(
    post,
    path = "/v1/integrations",
    tag = "integrations",
    operation_id = "connectIntegration",
    params(TenantQuery),
    request_body = ConnectRequest,
    security(("bearer" = ["integrations:write"])),
    responses(
        (status = 200, description = "The Connect result: connected (with the things discovered), challenge, or rejected", body = ConnectResult),
        FieldWrongNamedInField,
        NoValidToken,
        MayNotConfigureIntegrations,
        (status = 404, description = "No such property or connector (or not one the caller or tenant may use)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The connector is deprecated (it cannot be newly installed), or a built-in this platform does not serve", body = Problem, content_type = "application/problem+json"),
        ConnectorUnreachable,
    )
)]
pub async fn connect_integration(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiQuery(query): ApiQuery<TenantQuery>,
    ApiJson(body): ApiJson<ConnectRequest>,
) -> Result<Json<ConnectResult>, ApiError> {
    let tenant = query.or_body(body.tenant_id)?;
    check_input(&body.input)?;
    let home = home_for(
        &state,
        &caller,
        tenant,
        body.property_id,
        Need::Configure.in_home(no_such_property),
    )
    .await?;
    let connector = installable(&state, tenant, body.connector_id).await?;
    let connecting = Connecting {
        home,
        connector,
        integration_id: IntegrationId::new(),
    };
    Ok(Json(connect(&state, connecting, body.input, None).await?))
}

/// Answers a connect challenge.
#[utoipa::path(
    post,
    path = "/v1/integrations/challenge",
    tag = "integrations",
    operation_id = "answerIntegrationChallenge",
    request_body = ChallengeAnswer,
    security(("bearer" = ["integrations:write"])),
    responses(
        (status = 200, description = "The Connect result: connected, another challenge, or rejected", body = ConnectResult),
        FieldWrongNamedInField,
        NoValidToken,
        MayNotConfigureIntegrations,
        (status = 404, description = "The home or connector is gone, or not one the caller may use", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "The challenge is unknown, already answered or expired (one message for all)", body = Problem, content_type = "application/problem+json"),
        ConnectorUnreachable,
    )
)]
pub async fn answer_challenge(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiJson(body): ApiJson<ChallengeAnswer>,
) -> Result<Json<ConnectResult>, ApiError> {
    check_input(&body.input)?;
    caller.require_scope(Need::Configure.scope())?;
    let (connecting, connector_token) = take_challenge(&state, &caller, &body.token).await?;
    Ok(Json(
        connect(&state, connecting, body.input, Some(connector_token)).await?,
    ))
}

/// The connection a challenge's `token` continues, taken once, whoever
/// presents it (before anything else), in a home the caller configures;
/// with the connector's token of that challenge.
async fn take_challenge(
    state: &AppState,
    caller: &Principal,
    token: &str,
) -> Result<(Connecting, String), ApiError> {
    if token.is_empty() {
        return Err(ApiError::validation(
            "token",
            "token must be the challenge's token",
        ));
    }
    let challenge = Integrations(&*state.store)
        .take_challenge(&sha256_hex(token), state.clock.now())
        .await?
        .ok_or_else(challenge_gone)?;
    let home = home_for(
        state,
        caller,
        challenge.tenant_id,
        challenge.property_id,
        Need::Configure.in_home(no_such_property),
    )
    .await?;
    let connector = installable(state, challenge.tenant_id, challenge.connector_id).await?;
    let connecting = Connecting {
        home,
        connector,
        integration_id: challenge.integration_id,
    };
    Ok((connecting, challenge.connector_token))
}

// ---------------------------------------------------------------------------
// Discovery

/// What one discovery did.
#[derive(Debug, Clone, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DiscoveryResult {
    /// Things the connector reported and the platform took.
    pub things: u32,
    /// New endpoints.
    pub created: u32,
    /// Endpoints seen before, refreshed (kind, address, capabilities,
    /// features, state; never their name, room or presentation).
    pub updated: u32,
    /// Rooms discovery created (the names the connector gave).
    pub rooms_created: Vec<String>,
    /// Always false: discovery has finished when this answers.
    pub discovering: bool,
}

/// A thing to store and the room it goes to if it has none yet.
struct Planned {
    thing: DiscoveredThing,
    id: EndpointId,
    room: Option<RoomId>,
}

/// A discovered thing fit to store, or why not: an external id the domain
/// refuses (an address), or too much state for one item. The name is
/// trimmed and bounded (the external id when empty).
fn usable(mut thing: DiscoveredThing) -> Option<DiscoveredThing> {
    check_external_id(&thing.external_id).ok()?;
    // Never stored: PINs, credentials, private media URLs.
    alyt_domain::never_stored::strip_secrets(&mut thing.state);
    if let Some(detail) = thing.capabilities.as_mut() {
        alyt_domain::never_stored::strip_secrets(detail);
    }
    let bytes = serde_json::to_vec(&(&thing.state, &thing.capabilities, &thing.features))
        .map_or(usize::MAX, |v| v.len());
    if bytes > MAX_THING_BYTES {
        return None;
    }
    let name = thing.name.trim();
    let name = if name.is_empty() {
        thing.external_id.as_str()
    } else {
        name
    };
    thing.name = name
        .chars()
        .filter(|c| !c.is_control())
        .take(room::ROOM_NAME_MAX_CHARS)
        .collect();
    Some(thing)
}

/// The endpoint `stored` (or a new one) after `planned` was discovered at
/// `now`: detail and state refreshed, the check recorded as a successful
/// read; name, room and presentation kept. An endpoint without a room that
/// no person placed goes to `planned.room`. The bool: its state changed.
fn merged(
    integration: &IntegrationRecord,
    stored: Option<&EndpointRecord>,
    planned: &Planned,
    now: OffsetDateTime,
) -> (EndpointRecord, bool) {
    let thing = &planned.thing;
    let mut next = match stored {
        Some(stored) => stored.clone(),
        None => EndpointRecord {
            id: planned.id,
            tenant_id: integration.tenant_id,
            integration_id: integration.id,
            property_id: integration.property_id,
            room_id: None,
            placed_by: None,
            kind: thing.kind.clone(),
            external_id: thing.external_id.clone(),
            name: thing.name.clone(),
            address: None,
            capabilities: None,
            capability_set: Vec::new(),
            features: Vec::new(),
            presented_as: None,
            enabled: true,
            state: Map::new(),
            state_updated_at: None,
            last_seen: None,
            checked_at: None,
            reachable: false,
            created_at: now,
            updated_at: now,
            rev: 0,
        },
    };
    if next.room_id.is_none()
        && next.placed_by != Some(PlacedBy::Person)
        && let Some(room) = planned.room
    {
        next.room_id = Some(room);
        next.placed_by = Some(PlacedBy::Discovery);
    }
    next.kind = thing.kind.clone();
    next.address = thing.address.clone();
    next.capabilities = thing.capabilities.clone();
    next.capability_set = thing.capability_set.clone();
    next.features = thing.features.clone();
    let changed = next.state != thing.state;
    if changed || next.state_updated_at.is_none() {
        next.state = thing.state.clone();
        next.state_updated_at = Some(now);
    }
    next.checked_at = Some(now);
    next.last_seen = Some(now);
    next.reachable = true;
    next.updated_at = now;
    (next, changed && stored.is_some())
}

/// The writes storing `endpoints` (each with the revision it was read at,
/// `None` for new) and a `thing.state` event for each whose state changed.
fn discovery_writes(
    state: &AppState,
    tenant: TenantId,
    endpoints: &[(EndpointRecord, Option<u64>, bool)],
) -> Result<Vec<TxWrite>, ApiError> {
    let mut writes = Vec::with_capacity(endpoints.len() * 2);
    let mut events = Vec::new();
    for (endpoint, read_rev, changed) in endpoints {
        writes.push(endpoint_write(endpoint, *read_rev)?);
        if *changed {
            events.push(PlatformEvent::ThingState(
                endpoint.thing_state(endpoint.updated_at),
            ));
        }
    }
    if !events.is_empty() {
        writes.extend(state.event_writes(tenant, events)?);
    }
    Ok(writes)
}

/// Stores one planned thing on its own, re-reading the endpoint when it
/// changed meanwhile (a person placed or renamed it): up to 4 times, then
/// 409. True when it was created.
async fn store_one(
    state: &AppState,
    integration: &IntegrationRecord,
    planned: &Planned,
) -> Result<bool, ApiError> {
    let repo = Integrations(&*state.store);
    for _ in 0..4 {
        let stored = repo.endpoint(integration.tenant_id, planned.id).await?;
        let now = state.clock.now();
        let (next, changed) = merged(integration, stored.as_ref(), planned, now);
        let read_rev = stored.as_ref().map(|s| s.rev);
        let writes = discovery_writes(state, integration.tenant_id, &[(next, read_rev, changed)])?;
        match repo.write(writes).await {
            Ok(()) => return Ok(stored.is_none()),
            Err(e) if e.is_condition_failure() => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(ApiError::conflict(
        "an endpoint kept changing during discovery; try again",
    ))
}

/// Runs discovery of `installed` into its home:
///
/// * asks the connector (`v1/discover`; 502 when it cannot answer) and takes
///   at most [`MAX_DISCOVERED_THINGS`] things, skipping those with an
///   external id the platform refuses (an IP address, empty, too long), too
///   much state, or an id already seen in the same answer (logged as a
///   count, never the things);
/// * a new thing becomes an endpoint (id [`EndpointRecord::id_for`], stable
///   across rediscoveries) with the state the connector answered, judged
///   seen now;
/// * a thing seen before keeps its name, room and presentation (rediscovery
///   never renames or moves); its kind, address, capabilities, features and
///   state are refreshed, a state change recorded as a `thing.state` event in
///   the same transaction;
/// * a thing without a room that no person placed is placed by
///   [`place`]: the room the connector names (found by folded name with its
///   synonyms, or created once per discovery), else an existing room whose
///   name is inside the thing's name; rooms are never renamed;
/// * things the connector no longer reports stay as they are.
///
/// Then the integration's `discoveredAt` is recorded.
pub(crate) async fn discover_into(
    state: &AppState,
    installed: &Installed,
) -> Result<DiscoveryResult, ApiError> {
    let integration = &installed.integration;
    let connector = &installed.connector;
    let call = IntegrationCall {
        integration_id: integration.id.to_string(),
        tenant_id: integration.tenant_id.to_string(),
        config: integration.config.clone(),
    };
    let answer = state
        .connectors
        .discover(&server(state, connector), &call)
        .await
        .map_err(|e| {
            tracing::warn!(connector = %connector.id, integration = %integration.id, error = %e, "discovery failed");
            ApiError::bad_gateway(connector_problem(connector, &e))
        })?;
    let reported = answer.things.len();
    if reported > MAX_DISCOVERED_THINGS {
        tracing::warn!(integration = %integration.id, reported, taken = MAX_DISCOVERED_THINGS, "the connector reported more things than discovery takes");
    }
    let mut seen = BTreeSet::new();
    let things: Vec<DiscoveredThing> = answer
        .things
        .into_iter()
        .take(MAX_DISCOVERED_THINGS)
        .filter_map(usable)
        .filter(|t| seen.insert(t.external_id.clone()))
        .collect();
    let skipped = reported.min(MAX_DISCOVERED_THINGS) - things.len();
    if skipped > 0 {
        tracing::warn!(integration = %integration.id, skipped, "discovered things skipped (invalid or repeated external id, or too large)");
    }

    let repo = Integrations(&*state.store);
    let rooms_repo = Rooms(&*state.store);
    let (existing, home_rooms) = tokio::try_join!(
        repo.endpoints_all(integration.id),
        rooms_repo.all(integration.property_id)
    )?;
    let existing: BTreeMap<EndpointId, EndpointRecord> =
        existing.into_iter().map(|e| (e.id, e)).collect();
    let mut rooms: Vec<(RoomId, String)> = home_rooms.into_iter().map(|r| (r.id, r.name)).collect();
    let synonyms = Synonyms::new(
        answer
            .room_synonyms
            .iter()
            .map(|(from, to)| (from.as_str(), to.as_str())),
    );

    let mut result = DiscoveryResult::default();
    let mut planned = Vec::with_capacity(things.len());
    for thing in things {
        let id = EndpointRecord::id_for(integration.id, &thing.external_id);
        let stored = existing.get(&id);
        let placed =
            stored.is_some_and(|e| e.room_id.is_some() || e.placed_by == Some(PlacedBy::Person));
        let name = stored.map_or(thing.name.as_str(), |e| e.name.as_str());
        let room = match place(placed, thing.room.as_deref(), name, &rooms, &synonyms) {
            Placement::Keep => None,
            Placement::Existing(room) => Some(room),
            Placement::Create(wanted) => match room::check_name(&wanted) {
                Ok(wanted) => {
                    let now = state.clock.now();
                    let created = RoomRecord::new(
                        integration.tenant_id,
                        integration.property_id,
                        &wanted,
                        now,
                    );
                    rooms_repo.create(&created).await?;
                    tracing::info!(integration = %integration.id, room = %created.id, "discovery created a room");
                    rooms.push((created.id, created.name.clone()));
                    result.rooms_created.push(created.name);
                    Some(created.id)
                }
                Err(_) => None,
            },
        };
        planned.push(Planned { thing, id, room });
    }

    for chunk in planned.chunks(ENDPOINTS_PER_TRANSACTION) {
        let now = state.clock.now();
        let batch: Vec<(EndpointRecord, Option<u64>, bool)> = chunk
            .iter()
            .map(|p| {
                let stored = existing.get(&p.id);
                let (next, changed) = merged(integration, stored, p, now);
                (next, stored.map(|s| s.rev), changed)
            })
            .collect();
        let writes = discovery_writes(state, integration.tenant_id, &batch)?;
        match repo.write(writes).await {
            Ok(()) => {
                for p in chunk {
                    if existing.contains_key(&p.id) {
                        result.updated += 1;
                    } else {
                        result.created += 1;
                    }
                }
            }
            // Something in the chunk changed meanwhile: each on its own.
            Err(e) if e.is_condition_failure() => {
                for p in chunk {
                    if store_one(state, integration, p).await? {
                        result.created += 1;
                    } else {
                        result.updated += 1;
                    }
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
    result.things = result.created + result.updated;

    let mut discovered = integration.clone();
    discovered.discovered_at = Some(state.clock.now());
    match repo.replace(&discovered).await {
        Ok(()) => {}
        Err(e) if e.is_condition_failure() => {
            return Err(ApiError::conflict(
                "the integration was removed during discovery",
            ));
        }
        Err(e) => return Err(e.into()),
    }
    tracing::info!(
        integration = %integration.id,
        things = result.things,
        created = result.created,
        updated = result.updated,
        rooms_created = result.rooms_created.len(),
        "discovery done"
    );
    Ok(result)
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DiscoverRequest {
    /// The tenant; may come as the `tenantId` query parameter instead (like
    /// every household operation). When both are given they must agree.
    #[serde(default)]
    pub tenant_id: Option<TenantId>,
    /// The integration's home (an integration belongs to one home).
    pub property_id: PropertyId,
}

/// Discovers the integration's things into its home.
#[utoipa::path(
    post,
    path = "/v1/integrations/{integrationId}/discover",
    tag = "integrations",
    operation_id = "discoverIntegration",
    params(("integrationId" = IntegrationId, Path, description = "The integration"), TenantQuery),
    request_body = DiscoverRequest,
    security(("bearer" = ["integrations:write"])),
    responses(
        (status = 200, description = "What discovery found, created and updated", body = DiscoveryResult),
        (status = 400, description = "A field is wrong (named in `field`): tenantId (missing, or the query's and the body's differ), or propertyId, which must be the integration's home", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        MayNotConfigureIntegrations,
        NoSuchIntegration,
        (status = 409, description = "The integration's connector no longer exists, or things kept changing", body = Problem, content_type = "application/problem+json"),
        ConnectorUnreachable,
    )
)]
pub async fn discover_integration(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(integration_id): ApiPath<IntegrationId>,
    ApiQuery(query): ApiQuery<TenantQuery>,
    ApiJson(body): ApiJson<DiscoverRequest>,
) -> Result<Json<DiscoveryResult>, ApiError> {
    let tenant = query.or_body(body.tenant_id)?;
    let (integration, _) =
        integration_for(&state, &caller, tenant, integration_id, Need::Configure).await?;
    if body.property_id != integration.property_id {
        return Err(ApiError::validation(
            "propertyId",
            "propertyId must be the integration's home: an integration belongs to one home",
        ));
    }
    let connector = Integrations(&*state.store)
        .connector(integration.connector_id)
        .await?
        .ok_or_else(|| ApiError::conflict("the integration's connector no longer exists"))?;
    let installed = Installed {
        integration,
        connector,
    };
    Ok(Json(discover_into(&state, &installed).await?))
}

// ---------------------------------------------------------------------------
// Reading and removing

/// The tenant's integrations the caller sees, oldest first.
#[utoipa::path(
    get,
    path = "/v1/integrations",
    tag = "integrations",
    operation_id = "listIntegrations",
    params(TenantPage),
    security(("bearer" = ["integrations:read"])),
    responses(
        (status = 200, description = "One page of integrations (never their config)", body = ListResponse<Integration>),
        BadTenantPage,
        NoValidToken,
        KeyWithoutIntegrationsRead,
        NoSuchTenantOfCaller,
    )
)]
pub async fn list_integrations(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiQuery(query): ApiQuery<TenantPage>,
) -> Result<Json<ListResponse<Integration>>, ApiError> {
    let page = query.page();
    let limit = page.limit()?;
    caller.require_scope(Need::See.scope())?;
    let found = visible_integrations(&state, &caller, query.tenant_id, limit, &page).await?;
    Ok(listed(found, |r| Integration::from(&r)))
}

/// One page of the integrations of `tenant` the caller sees: a LIVE key
/// those made from its connector, staff and tenant roles all of them,
/// household people those of the homes they see (pages are read until
/// `limit` visible ones are found; the page ends after the last one answered).
async fn visible_integrations(
    state: &AppState,
    caller: &Principal,
    tenant: TenantId,
    limit: u32,
    page: &PageParams,
) -> Result<(Vec<IntegrationRecord>, Option<PageKey>), ApiError> {
    let reach = caller.home_reach(tenant);
    let no_such_tenant = || ApiError::not_found("no such tenant");
    let repo = Integrations(&*state.store);
    // A LIVE key: the integrations made from its connector, from the
    // connector's installations index (bound to it and to this tenant).
    if let HomeReach::Connector(connector) = reach {
        let after = page.after_within(&connector_installs(connector))?;
        return Ok(repo
            .page_of_connector(connector, tenant, limit, after)
            .await?);
    }
    let mut after = page.after_within(&tenant_integrations(tenant))?;
    if reach == HomeReach::Nothing {
        return Err(no_such_tenant());
    }
    let tenancy = Tenancy(&*state.store);
    // Staff reach every tenant id, existing or not.
    if tenancy.tenant(tenant).await?.is_none() {
        return Err(no_such_tenant());
    }
    if reach == HomeReach::Everything {
        return Ok(repo.page(tenant, limit, after).await?);
    }
    let mut sight: BTreeMap<PropertyId, bool> = BTreeMap::new();
    let mut items: Vec<IntegrationRecord> = Vec::new();
    let limit = limit as usize;
    loop {
        let (records, next) = repo.page(tenant, limit as u32, after.clone()).await?;
        let read = records.len();
        let mut used = 0;
        for record in records {
            used += 1;
            let visible = match sight.get(&record.property_id) {
                Some(visible) => *visible,
                None => {
                    let visible = tenancy
                        .property(tenant, record.property_id)
                        .await?
                        .is_some_and(|home| allowed(caller, &home, Need::See) == Some(true));
                    sight.insert(record.property_id, visible);
                    visible
                }
            };
            if visible {
                items.push(record);
                if items.len() == limit {
                    break;
                }
            }
        }
        let more = next.is_some() || used < read;
        if items.len() == limit || !more {
            let next = match items.last() {
                Some(last) if more => Some(Integrations::position_in_tenant(last)),
                _ => None,
            };
            return Ok((items, next));
        }
        after = next;
    }
}

/// One integration.
#[utoipa::path(
    get,
    path = "/v1/integrations/{integrationId}",
    tag = "integrations",
    operation_id = "getIntegration",
    params(("integrationId" = IntegrationId, Path, description = "The integration"), TenantParam),
    security(("bearer" = ["integrations:read"])),
    responses(
        (status = 200, description = "The integration (never its config)", body = Integration),
        BadTenantOrIntegration,
        NoValidToken,
        KeyWithoutIntegrationsRead,
        NoSuchIntegration,
    )
)]
pub async fn get_integration(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(integration_id): ApiPath<IntegrationId>,
    ApiQuery(query): ApiQuery<TenantParam>,
) -> Result<Json<Integration>, ApiError> {
    let (integration, _) =
        integration_for(&state, &caller, query.tenant_id, integration_id, Need::See).await?;
    Ok(Json(Integration::from(&integration)))
}

/// Removes an integration and its endpoints. The connector is told first
/// (`v1/disconnect`), best-effort: a connector that cannot be reached does
/// not keep the integration.
#[utoipa::path(
    delete,
    path = "/v1/integrations/{integrationId}",
    tag = "integrations",
    operation_id = "deleteIntegration",
    params(("integrationId" = IntegrationId, Path, description = "The integration"), TenantParam),
    security(("bearer" = ["integrations:write"])),
    responses(
        (status = 204, description = "Removed, with its endpoints"),
        BadTenantOrIntegration,
        NoValidToken,
        MayNotConfigureIntegrations,
        NoSuchIntegration,
    )
)]
pub async fn delete_integration(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(integration_id): ApiPath<IntegrationId>,
    ApiQuery(query): ApiQuery<TenantParam>,
) -> Result<StatusCode, ApiError> {
    let (integration, _) = integration_for(
        &state,
        &caller,
        query.tenant_id,
        integration_id,
        Need::Configure,
    )
    .await?;
    remove_integration(&state, &integration).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Tells the connector to disconnect (a failure or a connector that no
/// longer exists is logged, not fatal) and removes the integration with its
/// endpoints.
async fn remove_integration(
    state: &AppState,
    integration: &IntegrationRecord,
) -> Result<(), ApiError> {
    let repo = Integrations(&*state.store);
    match repo.connector(integration.connector_id).await? {
        Some(connector) => {
            let call = IntegrationCall {
                integration_id: integration.id.to_string(),
                tenant_id: integration.tenant_id.to_string(),
                config: integration.config.clone(),
            };
            if let Err(e) = state
                .connectors
                .disconnect(&server(state, &connector), &call)
                .await
            {
                tracing::warn!(integration = %integration.id, connector = %connector.id, error = %e, "disconnect failed; removing the integration anyway");
            }
        }
        None => {
            tracing::warn!(integration = %integration.id, connector = %integration.connector_id, "the connector no longer exists; removing the integration without disconnecting");
        }
    }
    repo.delete(integration).await?;
    tracing::info!(integration = %integration.id, tenant = %integration.tenant_id, "integration removed");
    Ok(())
}

/// The endpoints of an integration, in id order.
#[utoipa::path(
    get,
    path = "/v1/integrations/{integrationId}/endpoints",
    tag = "integrations",
    operation_id = "listIntegrationEndpoints",
    params(("integrationId" = IntegrationId, Path, description = "The integration"), TenantPage),
    security(("bearer" = ["integrations:read"])),
    responses(
        (status = 200, description = "One page of endpoints (spec: Endpoint list response)", body = ListResponse<Endpoint>),
        (status = 400, description = "Missing or malformed tenantId, integrationId, limit or cursor", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        KeyWithoutIntegrationsRead,
        NoSuchIntegration,
    )
)]
pub async fn list_integration_endpoints(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(integration_id): ApiPath<IntegrationId>,
    ApiQuery(query): ApiQuery<TenantPage>,
) -> Result<Json<ListResponse<Endpoint>>, ApiError> {
    let page = query.page();
    let limit = page.limit()?;
    let (integration, _) =
        integration_for(&state, &caller, query.tenant_id, integration_id, Need::See).await?;
    // The list reads the integration's index partition: a cursor of any
    // other list is refused before it reaches the store.
    let after = page.after_within(&integration_endpoints(integration.id))?;
    let found = Integrations(&*state.store)
        .endpoints_page(integration.id, limit, after)
        .await?;
    Ok(listed(found, |r| endpoint_object(&r)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alyt_domain::device::{DeviceCapability, Lenient};
    use alyt_domain::integration::EndpointKind;
    use serde_json::json;

    fn thing(external_id: &str, name: &str) -> DiscoveredThing {
        DiscoveredThing {
            external_id: external_id.into(),
            kind: Lenient::Known(EndpointKind::Light),
            name: name.into(),
            room: None,
            address: None,
            capability_set: vec![Lenient::Known(DeviceCapability::Light)],
            capabilities: None,
            features: vec![],
            state: json!({ "light": { "power": true } })
                .as_object()
                .cloned()
                .unwrap(),
        }
    }

    fn integration() -> IntegrationRecord {
        IntegrationRecord {
            id: IntegrationId::new(),
            tenant_id: TenantId::new(),
            property_id: PropertyId::new(),
            connector_id: ConnectorId::new(),
            name: "Bridge".into(),
            config: Map::new(),
            created_at: OffsetDateTime::UNIX_EPOCH,
            discovered_at: None,
            version_id: None,
            account: None,
        }
    }

    #[test]
    fn unusable_things_are_skipped_and_names_bounded() {
        assert!(usable(thing("192.168.1.20", "Lamp")).is_none());
        assert!(usable(thing("", "Lamp")).is_none());
        let mut huge = thing("big", "Lamp");
        huge.state
            .insert("x".into(), json!("y".repeat(MAX_THING_BYTES)));
        assert!(usable(huge).is_none());
        assert_eq!(usable(thing("lamp-1", "  ")).unwrap().name, "lamp-1");
        let long = usable(thing("lamp-1", &"n".repeat(200))).unwrap();
        assert_eq!(long.name.chars().count(), room::ROOM_NAME_MAX_CHARS);
    }

    #[test]
    fn rediscovery_keeps_name_room_and_presentation_and_refreshes_the_rest() {
        let integration = integration();
        let now = OffsetDateTime::UNIX_EPOCH + time::Duration::days(1);
        let room = RoomId::new();
        let planned = Planned {
            thing: thing("lamp-1", "Lamp"),
            id: EndpointRecord::id_for(integration.id, "lamp-1"),
            room: Some(room),
        };
        let (created, changed) = merged(&integration, None, &planned, now);
        assert!(!changed, "a new endpoint reports no change");
        assert_eq!(created.room_id, Some(room));
        assert_eq!(created.placed_by, Some(PlacedBy::Discovery));
        assert_eq!(created.state_updated_at, Some(now));
        assert!(created.reachable);

        let mut person = created.clone();
        person.name = "Desk lamp".into();
        person.room_id = None;
        person.placed_by = Some(PlacedBy::Person);
        person.presented_as = Some("switch".into());
        let mut again = planned;
        again.thing.name = "Renamed by the bridge".into();
        again.thing.state = json!({ "light": { "power": false } })
            .as_object()
            .cloned()
            .unwrap();
        again.thing.address = Some("lamp.local".into());
        let later = now + time::Duration::hours(1);
        let (next, changed) = merged(&integration, Some(&person), &again, later);
        assert!(changed);
        assert_eq!(next.name, "Desk lamp");
        assert_eq!(next.room_id, None, "a person's choice of no room stays");
        assert_eq!(next.presented_as.as_deref(), Some("switch"));
        assert_eq!(next.address.as_deref(), Some("lamp.local"));
        assert_eq!(next.state_updated_at, Some(later));
        assert_eq!(next.created_at, created.created_at);
    }

    #[test]
    fn input_is_bounded_and_values_never_echoed() {
        let mut input = Input::new();
        input.insert("password".into(), "s3cret".repeat(1000));
        let e = check_input(&input).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("input.password"));
        assert!(!e.detail.contains("s3cret"));
        let many: Input = (0..=MAX_INPUT_FIELDS)
            .map(|n| (format!("k{n}"), String::new()))
            .collect();
        assert!(check_input(&many).is_err());
        assert!(check_input(&Input::from([("host".into(), "bridge".into())])).is_ok());
    }

    #[test]
    fn messages_are_bounded() {
        assert_eq!(message("  wrong code "), "wrong code");
        assert_eq!(
            message(&"x".repeat(600)).chars().count(),
            MAX_MESSAGE_CHARS + 1
        );
    }
}

/// `?tenantId&q&type&cursor&limit` of a music search.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SearchQuery {
    pub tenant_id: TenantId,
    /// What to look for: 1-200 characters.
    pub q: String,
    /// `track`, `playlist`, `album` or `artist`.
    #[serde(rename = "type")]
    #[param(value_type = alyt_domain::integration::music::SearchType)]
    pub kind: alyt_domain::integration::music::SearchType,
    /// The `nextCursor` of the page before (bound to `q` and `type`).
    pub cursor: Option<String>,
    /// Results per page, 1-10 (default 10).
    pub limit: Option<u32>,
}

/// Searches a streaming-provider account's catalogue. An expired provider
/// session is renewed first. The uri of a result is what a music step
/// plays; a routine stores the uri, never the query.
#[utoipa::path(
    get,
    path = "/v1/integrations/{integrationId}/search",
    tag = "integrations",
    operation_id = "searchMusic",
    params(("integrationId" = IntegrationId, Path, description = "A streaming-provider account"), SearchQuery),
    security(("bearer" = ["integrations:read"])),
    responses(
        (status = 200, description = "Up to 10 results and the next page's cursor (null after the last page or at offset 1000)", body = crate::groups::music::MusicList),
        (status = 400, description = "Missing or malformed tenantId, q, type, limit, or a cursor of another query or type", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        KeyWithoutIntegrationsRead,
        NoSuchIntegration,
        (status = 409, description = "Not a streaming-provider account, or the provider revoked the platform's access (type provider-access-revoked: connect the account again)", body = Problem, content_type = "application/problem+json"),
        (status = 502, description = "The provider's connector could not be reached or answered garbage", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "The provider limits searches now (type provider-rate-limited, with Retry-After)", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn search_music(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(integration_id): ApiPath<IntegrationId>,
    ApiQuery(query): ApiQuery<SearchQuery>,
) -> Result<Json<crate::groups::music::MusicList>, ApiError> {
    use crate::groups::music::{cursor_offset, search, search_limit};
    use alyt_domain::integration::music::MAX_QUERY_CHARS;
    let q = query.q.trim();
    if q.is_empty() || q.chars().count() > MAX_QUERY_CHARS || q.chars().any(char::is_control) {
        return Err(ApiError::validation(
            "q",
            format!("1 to {MAX_QUERY_CHARS} characters, no control characters"),
        ));
    }
    let limit = search_limit(query.limit)?;
    let offset = match &query.cursor {
        Some(cursor) => cursor_offset(cursor, q, query.kind)?,
        None => 0,
    };
    let (integration, _) =
        integration_for(&state, &caller, query.tenant_id, integration_id, Need::See).await?;
    let found = search(&state, integration, q, query.kind, offset, limit).await?;
    Ok(Json(found))
}
