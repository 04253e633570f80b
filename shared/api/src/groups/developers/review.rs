//! Platform staff review connector versions (under
//! /v1/developers/admin/submissions); every move goes through
//! `moves::move_version`, as the developer's own do.
//!
//! * `GET /v1/developers/admin/submissions[?developerId|connectorId]`: the
//!   review queue (submitted versions, oldest submission first); with
//!   `developerId` or `connectorId`, every version of that developer or
//!   connector. `GET …/{versionId}`: one version with its developer.
//! * `POST …/{versionId}/approve | reject | request-changes | publish |
//!   deprecate` with an optional body `{ note? }`: the move (rules in
//!   `alyt_domain::submission`); a note is required to reject or to request
//!   changes (400 on `note`) and is shown to the developer. A move the
//!   version's state does not allow is 409, as is a version another move
//!   changed since it was read (of concurrent moves exactly one wins).
//!
//! Publishing and deprecating change the catalogue in the same transaction:
//! the connector's listing is its greatest published version that is not
//! deprecated. Once every published version is deprecated the connector
//! cannot be newly installed; installations keep working, and each household
//! that installed the deprecated version is notified.
//!
//! Who: platform OWNER and STAFF move versions; SUPPORT reads (403 on a
//! move); anyone else gets the 404 of a path that does not exist. Nobody
//! reviews their own submission: staff whose own developer account owns the
//! version are refused (403).
//!
//! Store calls: a move 1 get (the version) + 1 get (its developer) + 1
//! transaction (the version conditioned on its revision, the event; publish
//! and deprecate also 1 get of the connector, 1 index query of its versions,
//! and the connector conditioned on its revision) + after a deprecation, 1
//! index query of the installations, 1 transaction per household notified
//! and 1 put taking the version off the notice queue
//! (`alyt_events::deprecations`, which the sweeps finish if this stops
//! halfway).

use crate::routing::{Operations, operations};
use alyt_domain::access::Principal;
use alyt_domain::ids::{ConnectorId, ConnectorVersionId, DeveloperId, UserId};
use alyt_domain::submission::ReviewMove;
use alyt_store::repo::submissions::VersionRecord;
use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::moves::Submission;
use super::session::{Params, name_the_field};
use crate::auth::Caller;
use crate::conventions::extract::ApiPath;
use crate::conventions::extract::parse_optional_json;
use crate::conventions::list::{ListResponse, PageParams, listed};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{
    MalformedId, NoSuchVersionForStaff, NoValidToken, NotPlatformStaff,
};
use crate::{ApiError, AppState};
use alyt_app::developers::review as reviews;

pub fn routes() -> Operations {
    Operations::new().merge(operations!(
        list_reviews,
        get_review,
        approve_submission,
        reject_submission,
        request_changes,
        publish_submission,
        deprecate_submission
    ))
}

/// Characters of a reviewer's note.
pub use alyt_app::developers::review::NOTE_MAX_CHARS;

// ---------------------------------------------------------------------------
// Operations

/// A version as staff see it: the developer's view and who it belongs to.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReviewedSubmission {
    #[serde(flatten)]
    pub submission: Submission,
    pub developer_id: DeveloperId,
    /// The staff member who made the last review move.
    #[schema(required = true)]
    pub reviewed_by: Option<UserId>,
}

impl From<&VersionRecord> for ReviewedSubmission {
    fn from(v: &VersionRecord) -> Self {
        Self {
            submission: Submission::from(v),
            developer_id: v.developer_id,
            reviewed_by: v.reviewed_by,
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ReviewListParams {
    /// Every version of this developer (instead of the queue).
    pub developer_id: Option<DeveloperId>,
    /// Every version of this connector (instead of the queue).
    pub connector_id: Option<ConnectorId>,
    pub limit: Option<u32>,
    pub cursor: Option<String>,
}

/// The body of a review move.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReviewRequest {
    /// Shown to the developer; required to reject or to request changes
    /// (1-4000 characters).
    #[schema(min_length = 1, max_length = 4000)]
    pub note: Option<String>,
}

/// The move's body: none, or `{ note? }`.
fn review_request(body: &Bytes) -> Result<ReviewRequest, ApiError> {
    let request: ReviewRequest = parse_optional_json(body).map_err(name_the_field)?;
    let note = reviews::checked_note(request.note.as_deref())?;
    Ok(ReviewRequest { note })
}

/// The review queue, or every version of a developer or a connector.
#[utoipa::path(
    get,
    path = "/v1/developers/admin/submissions",
    tag = "developers",
    operation_id = "listAdminSubmissions",
    extensions(("x-session-only" = json!(true))),
    security(("bearer" = [])),
    params(ReviewListParams),
    responses(
        (status = 200, description = "One page: the queue oldest submission first, or a developer's or connector's versions oldest first", body = ListResponse<ReviewedSubmission>),
        (status = 400, description = "Bad developerId, connectorId (not both), limit or cursor", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        NotPlatformStaff,
    )
)]
pub async fn list_reviews(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Params(params): Params<ReviewListParams>,
) -> Result<Json<ListResponse<ReviewedSubmission>>, ApiError> {
    let paging = PageParams::new(params.limit, params.cursor).paging();
    let found = reviews::reviews_page(
        &state,
        &caller,
        params.developer_id,
        params.connector_id,
        &paging,
    )
    .await?;
    Ok(listed(found, |r| ReviewedSubmission::from(&r)))
}

/// One version with its developer.
#[utoipa::path(
    get,
    path = "/v1/developers/admin/submissions/{versionId}",
    tag = "developers",
    operation_id = "getAdminSubmission",
    extensions(("x-session-only" = json!(true))),
    security(("bearer" = [])),
    params(("versionId" = ConnectorVersionId, Path, description = "The version")),
    responses(
        (status = 200, description = "The version", body = ReviewedSubmission),
        MalformedId,
        NoValidToken,
        NoSuchVersionForStaff,
    )
)]
pub async fn get_review(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(id): ApiPath<ConnectorVersionId>,
) -> Result<Json<ReviewedSubmission>, ApiError> {
    let version = reviews::reviewed_version(&state, &caller, id).await?;
    Ok(Json(ReviewedSubmission::from(&version)))
}

/// A staff move on a version.
async fn review(
    state: &AppState,
    caller: &Principal,
    id: ConnectorVersionId,
    body: &Bytes,
    review_move: ReviewMove,
) -> Result<Json<ReviewedSubmission>, ApiError> {
    let note = || review_request(body).map(|r| r.note);
    let version = reviews::review(state, caller, id, review_move, note).await?;
    Ok(Json(ReviewedSubmission::from(&version)))
}

macro_rules! review_operation {
    ($name:ident, $path:literal, $op:literal, $move:expr, $what:literal, $from:literal) => {
        #[doc = $what]
        #[utoipa::path(
            post,
            path = $path,
            tag = "developers",
            operation_id = $op,
            extensions(("x-session-only" = json!(true))),
            security(("bearer" = [])),
            params(("versionId" = ConnectorVersionId, Path, description = "The version")),
            request_body(content = Option<ReviewRequest>, description = "Optional: `{ note }` for the developer (required to reject or request changes)"),
            responses(
                (status = 200, description = "The version after the move; `submission.state` was raised in the developer's sandbox and the developer mailed", body = ReviewedSubmission),
                (status = 400, description = "A malformed id or body, or no note where one is required", body = Problem, content_type = "application/problem+json"),
                NoValidToken,
                (status = 403, description = "SUPPORT may not review, and nobody reviews their own submission", body = Problem, content_type = "application/problem+json"),
                NoSuchVersionForStaff,
                (status = 409, description = $from, body = Problem, content_type = "application/problem+json"),
            )
        )]
        pub async fn $name(
            State(state): State<AppState>,
            Caller(caller): Caller,
            ApiPath(id): ApiPath<ConnectorVersionId>,
            body: Bytes,
        ) -> Result<Json<ReviewedSubmission>, ApiError> {
            review(&state, &caller, id, &body, $move).await
        }
    };
}

review_operation!(
    approve_submission,
    "/v1/developers/admin/submissions/{versionId}/approve",
    "approveSubmission",
    ReviewMove::Approve,
    "Approves a submitted version (its developer may then get a LIVE key for the connector).",
    "The version is not submitted, or it changed meanwhile"
);
review_operation!(
    reject_submission,
    "/v1/developers/admin/submissions/{versionId}/reject",
    "rejectSubmission",
    ReviewMove::Reject,
    "Rejects a submitted version for good, with a note for the developer.",
    "The version is not submitted, or it changed meanwhile"
);
review_operation!(
    request_changes,
    "/v1/developers/admin/submissions/{versionId}/request-changes",
    "requestSubmissionChanges",
    ReviewMove::RequestChanges,
    "Sends a submitted version back to its developer with a note; the developer edits and submits it again.",
    "The version is not submitted, or it changed meanwhile"
);
review_operation!(
    publish_submission,
    "/v1/developers/admin/submissions/{versionId}/publish",
    "publishSubmission",
    ReviewMove::Publish,
    "Publishes an approved version: the catalogue lists the connector's greatest published version, and any household may install it.",
    "The version is not approved, or it (or its connector's listing) changed meanwhile"
);
review_operation!(
    deprecate_submission,
    "/v1/developers/admin/submissions/{versionId}/deprecate",
    "deprecateSubmission",
    ReviewMove::Deprecate,
    "Deprecates a published version: the catalogue falls back to the greatest published version left (none: the connector cannot be newly installed); installations keep working and each household that installed this version is notified.",
    "The version is not published, or it (or its connector's listing) changed meanwhile"
);
