//! A developer's connector versions on their way to the catalogue (the
//! review rules are `alyt_domain::submission`, the records
//! `repo::submissions`).
//!
//! * `POST /v1/developers/submissions` `{ connectorId, semver, descriptor,
//!   prose, aiDeclaration, draft? }`: 201 with the version, `submitted`
//!   (waiting for staff) or, with `draft: true`, a `draft` the developer
//!   keeps editing. The descriptor is the spec's, checked against every rule
//!   (a problem names its field: `descriptor.connect.fields[2].kind`); its
//!   `version` is the semver, its `source` is `installed` (`built-in` is the
//!   platform's own). The semver must be greater than every earlier version
//!   of the connector (400 on `semver`; 409 when another request took the
//!   number meanwhile).
//! * `GET /v1/developers/submissions[?connectorId]`: the developer's
//!   versions, oldest first, paginated (only its own: another developer's
//!   connector is 404).
//! * `GET /v1/developers/submissions/{versionId}`; `PATCH` `{ descriptor?,
//!   prose?, aiDeclaration?, submit? }` while the version is a draft or
//!   changes were requested (409 otherwise); `submit: true` sends it (back)
//!   to review.
//!
//! Who: a signed-in developer, or a DEV key of the developer with
//! `integrations:write` (create, change) or `integrations:read` (read). A
//! LIVE key is 403. Another developer's version is 404.
//!
//! Every move raises `submission.state { versionId, slug, semver, state, at }`
//! in the developer's sandbox tenant (in the move's transaction) and mails
//! the developer (after it; a mail that fails is logged, the move stands).
//!
//! Store calls: create 2 gets (connector; the developer with the caller) + 1
//! index query per 1,000 versions (the semver rule) + 1 transaction (version,
//! semver guard, event); get 1 get; change 1 get + 1 transaction; list 1
//! index query (+ 1 get with `connectorId`).

use crate::routing::{Operations, operations};
use alyt_app::developers::submissions::{self, NewSubmission, SubmissionChange};
use alyt_domain::ids::{ConnectorId, ConnectorVersionId};
use alyt_store::repo::submissions::AiDeclaration;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

use super::moves::Submission;
use super::session::{Body, Params};
use crate::auth::Caller;
use crate::conventions::extract::ApiPath;
use crate::conventions::list::{ListResponse, PageParams, listed};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{
    MalformedId, MayNotReadConnectors, MayNotWriteConnectors, NoDeveloperSessionOrKey,
    NoSuchConnector, NoSuchVersion,
};
use crate::{ApiError, AppState};

pub fn routes() -> Operations {
    Operations::new().merge(operations!(
        create_submission,
        list_submissions,
        get_submission,
        change_submission
    ))
}

/// Characters of the prose households read beside the descriptor.
pub use alyt_app::developers::submissions::PROSE_MAX_CHARS;

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateSubmissionRequest {
    /// One of the developer's connectors.
    pub connector_id: ConnectorId,
    /// A semantic version greater than every earlier version of the
    /// connector; the descriptor's `version` says the same.
    #[schema(max_length = 64)]
    pub semver: String,
    /// The connector descriptor of the spec (its pairing included).
    #[schema(value_type = Object)]
    pub descriptor: Value,
    /// What households read about the connector (1-20000 characters).
    #[schema(min_length = 1, max_length = 20000)]
    pub prose: String,
    pub ai_declaration: AiDeclaration,
    /// Keep the version a draft instead of submitting it (default false).
    #[serde(default)]
    pub draft: bool,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ChangeSubmissionRequest {
    #[schema(value_type = Option<Object>)]
    pub descriptor: Option<Value>,
    #[schema(min_length = 1, max_length = 20000)]
    pub prose: Option<String>,
    pub ai_declaration: Option<AiDeclaration>,
    /// Send the version (back) to review once changed.
    #[serde(default)]
    pub submit: bool,
}

#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct SubmissionListParams {
    /// Only this connector's versions.
    pub connector_id: Option<ConnectorId>,
    pub limit: Option<u32>,
    pub cursor: Option<String>,
}

/// Submits a version of one of the developer's connectors (or keeps it a
/// draft).
#[utoipa::path(
    post,
    path = "/v1/developers/submissions",
    tag = "developers",
    operation_id = "createSubmission",
    security(("bearer" = ["integrations:write"])),
    request_body = CreateSubmissionRequest,
    responses(
        (status = 201, description = "The version: submitted, or a draft", body = Submission),
        (status = 400, description = "A field is wrong, named by its path: connectorId, semver (not a semantic version, or not greater than the connector's latest), descriptor.… (every rule of the spec's descriptor), prose, aiDeclaration", body = Problem, content_type = "application/problem+json"),
        NoDeveloperSessionOrKey,
        MayNotWriteConnectors,
        NoSuchConnector,
        (status = 409, description = "Another request took this version number meanwhile, or the developer has no sandbox tenant yet", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn create_submission(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Body(request): Body<CreateSubmissionRequest>,
) -> Result<(StatusCode, Json<Submission>), ApiError> {
    let new = NewSubmission {
        connector_id: request.connector_id,
        semver: request.semver,
        descriptor: request.descriptor,
        prose: request.prose,
        ai_declaration: request.ai_declaration,
        draft: request.draft,
    };
    let version = submissions::create_submission(&state, &caller, new).await?;
    Ok((StatusCode::CREATED, Json(Submission::from(&version))))
}

/// The developer's versions, oldest first.
#[utoipa::path(
    get,
    path = "/v1/developers/submissions",
    tag = "developers",
    operation_id = "listSubmissions",
    security(("bearer" = ["integrations:read"])),
    params(SubmissionListParams),
    responses(
        (status = 200, description = "One page of the developer's versions", body = ListResponse<Submission>),
        (status = 400, description = "Bad connectorId, limit or cursor", body = Problem, content_type = "application/problem+json"),
        NoDeveloperSessionOrKey,
        MayNotReadConnectors,
        NoSuchConnector,
    )
)]
pub async fn list_submissions(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Params(params): Params<SubmissionListParams>,
) -> Result<Json<ListResponse<Submission>>, ApiError> {
    let paging = PageParams::new(params.limit, params.cursor).paging();
    let found =
        submissions::submissions_page(&state, &caller, params.connector_id, &paging).await?;
    Ok(listed(found, |r| Submission::from(&r)))
}

/// One of the developer's versions.
#[utoipa::path(
    get,
    path = "/v1/developers/submissions/{versionId}",
    tag = "developers",
    operation_id = "getSubmission",
    security(("bearer" = ["integrations:read"])),
    params(("versionId" = ConnectorVersionId, Path, description = "The version")),
    responses(
        (status = 200, description = "The version", body = Submission),
        MalformedId,
        NoDeveloperSessionOrKey,
        MayNotReadConnectors,
        NoSuchVersion,
    )
)]
pub async fn get_submission(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(id): ApiPath<ConnectorVersionId>,
) -> Result<Json<Submission>, ApiError> {
    let version = submissions::submission(&state, &caller, id).await?;
    Ok(Json(Submission::from(&version)))
}

/// Changes a draft or a version whose changes were requested, and submits
/// it with `submit: true`.
#[utoipa::path(
    patch,
    path = "/v1/developers/submissions/{versionId}",
    tag = "developers",
    operation_id = "changeSubmission",
    security(("bearer" = ["integrations:write"])),
    params(("versionId" = ConnectorVersionId, Path, description = "The version")),
    request_body = ChangeSubmissionRequest,
    responses(
        (status = 200, description = "The version as changed (submitted with `submit: true`)", body = Submission),
        (status = 400, description = "A malformed id or a field is wrong, named by its path (descriptor.…, prose, aiDeclaration)", body = Problem, content_type = "application/problem+json"),
        NoDeveloperSessionOrKey,
        MayNotWriteConnectors,
        NoSuchVersion,
        (status = 409, description = "The version is neither a draft nor sent back for changes, or it changed meanwhile", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn change_submission(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(id): ApiPath<ConnectorVersionId>,
    Body(request): Body<ChangeSubmissionRequest>,
) -> Result<Json<Submission>, ApiError> {
    let change = SubmissionChange {
        descriptor: request.descriptor,
        prose: request.prose,
        ai_declaration: request.ai_declaration,
        submit: request.submit,
    };
    let version = submissions::change_submission(&state, &caller, id, change).await?;
    Ok(Json(Submission::from(&version)))
}
