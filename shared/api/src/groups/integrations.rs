//! The integrations operation group: connecting a connector to a home, answering its
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
//!   endpoints of the integration, as the endpoint list.
//!
//! The tenant is the `tenantId` query parameter, as for every household
//! operation; connect and discover also take it in the body, as they first
//! did (`conventions::tenant`).
//!
//! Who may do what, and the secrets never answered: [`alyt_app::integrations`].
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

use crate::routing::{Operations, operations};
use alyt_app::integrations::{self as use_case, ConnectResult, DiscoveryResult, Input};
use alyt_domain::ids::{ConnectorId, IntegrationId, PropertyId, TenantId};
use alyt_store::repo::integrations::IntegrationRecord;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::auth::Caller;
use crate::conventions::extract::{ApiJson, ApiPath, ApiQuery};
use crate::conventions::list::{ListResponse, TenantPage, listed};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{
    BadTenantOrIntegration, BadTenantPage, ConnectorUnreachable, FieldWrongNamedInField,
    KeyWithoutIntegrationsRead, MayNotConfigureIntegrations, NoSuchIntegration,
    NoSuchTenantOfCaller, NoValidToken,
};
use crate::conventions::tenant::TenantQuery;
use crate::groups::devices::TenantParam;
use crate::groups::homes::endpoints::{Endpoint, endpoint_object};
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
    let connected = use_case::connect_integration(
        &state,
        &caller,
        tenant,
        body.property_id,
        body.connector_id,
        body.input,
    )
    .await?;
    Ok(Json(connected))
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
    let answered = use_case::answer_challenge(&state, &caller, &body.token, body.input).await?;
    Ok(Json(answered))
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
    let found =
        use_case::discover(&state, &caller, tenant, integration_id, body.property_id).await?;
    Ok(Json(found))
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
    let paging = query.page().paging();
    let found = use_case::integrations_page(&state, &caller, query.tenant_id, &paging).await?;
    Ok(listed(found, |r| Integration::from(&r)))
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
    let integration =
        use_case::integration(&state, &caller, query.tenant_id, integration_id).await?;
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
    use_case::remove(&state, &caller, query.tenant_id, integration_id).await?;
    Ok(StatusCode::NO_CONTENT)
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
    let paging = query.page().paging();
    let found =
        use_case::endpoints_page(&state, &caller, query.tenant_id, integration_id, &paging).await?;
    Ok(listed(found, |r| endpoint_object(&r)))
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
    let request = alyt_app::music::SearchRequest {
        q: &query.q,
        kind: query.kind,
        cursor: query.cursor.as_deref(),
        limit: query.limit,
    };
    let found =
        alyt_app::music::search_account(&state, &caller, query.tenant_id, integration_id, request)
            .await?;
    Ok(Json(found))
}
