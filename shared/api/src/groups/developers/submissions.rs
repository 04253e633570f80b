//! A developer's connector versions on their way to the catalogue (spec D;
//! the review rules are `alyt_domain::submission`, the records
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
use alyt_domain::access::Scope;
use alyt_domain::ids::{ConnectorId, ConnectorVersionId};
use alyt_domain::integration::descriptor::{
    ConnectorDescriptor, DescriptorSource, parse_descriptor,
};
use alyt_domain::submission::{ReviewMove, ReviewState, check_semver};
use alyt_store::ListScope;
use alyt_store::repo::developers::DeveloperRecord;
use alyt_store::repo::integrations::{ConnectorRecord, Integrations};
use alyt_store::repo::submissions::{
    AiDeclaration, VersionError, VersionRecord, Versions, connector_versions, developer_versions,
};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

use super::connectors::connector_developer;
use super::moves::{Mover, Submission, mail_developer, move_version, state_event};
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
pub const PROSE_MAX_CHARS: usize = 20_000;

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

fn no_such_version() -> ApiError {
    ApiError::not_found("no such submission")
}

fn no_such_connector() -> ApiError {
    ApiError::not_found("no such connector").with_field("connectorId")
}

/// The descriptor of a version numbered `semver`, checked.
fn checked_descriptor(value: &Value, semver: &str) -> Result<ConnectorDescriptor, ApiError> {
    let descriptor = parse_descriptor(value, "descriptor")
        .map_err(|p| ApiError::validation(p.field.clone(), p.to_string()))?;
    if descriptor.version != semver {
        return Err(ApiError::validation(
            "descriptor.version",
            format!("descriptor.version must be the submission's semver, {semver}"),
        ));
    }
    if descriptor.source != DescriptorSource::Installed || descriptor.built_in.is_some() {
        return Err(ApiError::validation(
            if descriptor.built_in.is_some() {
                "descriptor.builtIn"
            } else {
                "descriptor.source"
            },
            "a submitted connector is installed: source 'installed' and no builtIn (built-in connectors are the platform's own)",
        ));
    }
    Ok(descriptor)
}

fn checked_prose(prose: &str) -> Result<String, ApiError> {
    let chars = prose.trim().chars().count();
    if chars == 0
        || chars > PROSE_MAX_CHARS
        || prose
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return Err(ApiError::validation(
            "prose",
            format!("prose must be 1 to {PROSE_MAX_CHARS} characters without control characters"),
        ));
    }
    Ok(prose.trim().to_owned())
}

/// The connector a developer submits a version of (404 for another
/// developer's, like a missing one).
async fn own_connector(
    state: &AppState,
    developer: &DeveloperRecord,
    id: ConnectorId,
) -> Result<ConnectorRecord, ApiError> {
    Integrations(&*state.store)
        .connector(id)
        .await?
        .filter(|c| c.developer_id == developer.id)
        .ok_or_else(no_such_connector)
}

/// The developer's own version (404 for another's).
async fn own_version(
    state: &AppState,
    developer: &DeveloperRecord,
    id: ConnectorVersionId,
) -> Result<VersionRecord, ApiError> {
    Versions(&*state.store)
        .get(id)
        .await?
        .filter(|v| v.developer_id == developer.id)
        .ok_or_else(no_such_version)
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
    let developer = connector_developer(&state, &caller, Scope::IntegrationsWrite).await?;
    let semver = request.semver.trim().to_owned();
    check_semver(&semver, [])
        .map_err(|problem| ApiError::validation("semver", problem.to_string()))?;
    let descriptor_value = request.descriptor;
    checked_descriptor(&descriptor_value, &semver)?;
    let prose = checked_prose(&request.prose)?;
    let connector = own_connector(&state, &developer, request.connector_id).await?;
    let earlier = Versions(&*state.store).of_connector(connector.id).await?;
    check_semver(&semver, earlier.iter().map(|v| v.semver.as_str()))
        .map_err(|problem| ApiError::validation("semver", problem.to_string()))?;
    let sandbox = developer.sandbox_tenant_id.ok_or_else(|| {
        ApiError::conflict("the developer has no sandbox tenant yet; verify the account")
    })?;
    let now = state.clock.now();
    let draft = VersionRecord {
        id: ConnectorVersionId::new(),
        connector_id: connector.id,
        developer_id: developer.id,
        slug: connector.slug.clone(),
        semver,
        descriptor: descriptor_value,
        prose,
        ai_declaration: request.ai_declaration,
        state: ReviewState::Draft,
        note: None,
        reviewed_by: None,
        created_at: now,
        updated_at: now,
        submitted_at: None,
        published_at: None,
        notices_pending: false,
        rev: 0,
    };
    let version = if request.draft {
        draft
    } else {
        VersionRecord {
            state: ReviewState::Submitted,
            submitted_at: Some(now),
            ..draft
        }
    };
    let event = state_event(&version, now);
    let also = state.event_writes(sandbox, vec![event])?;
    match Versions(&*state.store).create(&version, also).await {
        Ok(()) => {}
        Err(VersionError::SemverTaken) => {
            return Err(ApiError::conflict(format!(
                "version {} of {} was submitted meanwhile",
                version.semver, version.slug
            ))
            .with_field("semver"));
        }
        Err(VersionError::Changed) => return Err(ApiError::conflict("try again")),
        Err(VersionError::Store(e)) => return Err(e.into()),
    }
    tracing::info!(version = %version.id, connector = %connector.id, state = version.state.as_str(), "connector version created");
    mail_developer(&state, &developer, &version).await;
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
    let developer = connector_developer(&state, &caller, Scope::IntegrationsRead).await?;
    let scope: ListScope = match params.connector_id {
        Some(id) => connector_versions(own_connector(&state, &developer, id).await?.id),
        None => developer_versions(developer.id),
    };
    let page = PageParams::new(params.limit, params.cursor);
    let found = Versions(&*state.store)
        .page(&scope, page.limit()?, page.after_within(&scope)?)
        .await?;
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
    let developer = connector_developer(&state, &caller, Scope::IntegrationsRead).await?;
    let version = own_version(&state, &developer, id).await?;
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
    let developer = connector_developer(&state, &caller, Scope::IntegrationsWrite).await?;
    let read = own_version(&state, &developer, id).await?;
    if let Some(descriptor) = &request.descriptor {
        checked_descriptor(descriptor, &read.semver)?;
    }
    let prose = request.prose.as_deref().map(checked_prose).transpose()?;
    let edit = move |mut v: VersionRecord| {
        if let Some(descriptor) = request.descriptor {
            v.descriptor = descriptor;
        }
        if let Some(prose) = prose {
            v.prose = prose;
        }
        if let Some(ai) = request.ai_declaration {
            v.ai_declaration = ai;
        }
        v
    };
    let review_move = if request.submit {
        ReviewMove::Submit
    } else {
        ReviewMove::Edit
    };
    let mover = Mover::Developer(&developer);
    let version = move_version(&state, read, review_move, mover, None, edit).await?;
    Ok(Json(Submission::from(&version)))
}
