//! Platform staff review connector versions (spec D, under
//! /v1/developers/admin/submissions), and the one function every move of a
//! version goes through, the developer's own included.
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
use alyt_domain::integration::descriptor::{Visibility, parse_descriptor};
use alyt_domain::submission::{
    ReviewMove, ReviewRefused, ReviewState, Reviewer, SubmissionStateData, decide, parse_semver,
};
use alyt_events::PlatformEvent;
use alyt_events::deprecations::DeprecationNotices;
use alyt_mail::Email;
use alyt_store::TxWrite;
use alyt_store::repo::developers::{DeveloperRecord, Developers};
use alyt_store::repo::integrations::{ConnectorRecord, Integrations, Listing, ListingAuthor};
use alyt_store::repo::submissions::{
    VersionError, VersionRecord, Versions, connector_versions, developer_versions, review_queue,
};
use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

use super::admin::{READERS, WRITERS, staff};
use super::session::{Params, name_the_field};
use super::submissions::Submission;
use crate::auth::Caller;
use crate::conventions::extract::ApiPath;
use crate::conventions::extract::parse_json;
use crate::conventions::list::{ListResponse, PageParams};
use crate::conventions::problem::{NoValidToken, Problem};
use crate::{ApiError, AppState};

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
pub const NOTE_MAX_CHARS: usize = 4000;

/// Who moves a version.
#[derive(Debug, Clone, Copy)]
pub enum Mover<'a> {
    /// The version's developer (already checked to own it).
    Developer(&'a DeveloperRecord),
    /// Platform OWNER or STAFF, as this person.
    Staff(UserId),
}

/// The event of a version's state.
pub fn state_event(version: &VersionRecord, at: OffsetDateTime) -> PlatformEvent {
    PlatformEvent::SubmissionState(SubmissionStateData {
        version_id: version.id,
        slug: version.slug.clone(),
        semver: version.semver.clone(),
        state: version.state,
        at,
    })
}

fn refusal(refused: ReviewRefused) -> ApiError {
    match refused {
        ReviewRefused::NotNow(..) => ApiError::conflict(refused.to_string()),
        ReviewRefused::NoteRequired => ApiError::validation("note", refused.to_string()),
        ReviewRefused::StaffOnly | ReviewRefused::OwnerOnly | ReviewRefused::OwnSubmission => {
            ApiError::forbidden(refused.to_string())
        }
    }
}

/// Makes `review_move` on the version read as `read` (with `edit` applied to
/// its content), for `mover`: the domain decides, then one transaction
/// writes the version (conditioned on its revision), the `submission.state`
/// event when the state changed, and the connector's listing when the move
/// publishes or deprecates (a deprecation also queues its households'
/// notices). Then the developer is mailed and, for a deprecation, the
/// households that installed the version are notified.
pub async fn move_version(
    state: &AppState,
    read: VersionRecord,
    review_move: ReviewMove,
    mover: Mover<'_>,
    note: Option<String>,
    edit: impl FnOnce(VersionRecord) -> VersionRecord,
) -> Result<VersionRecord, ApiError> {
    let developer = match mover {
        Mover::Developer(developer) => developer.clone(),
        Mover::Staff(_) => Developers(&*state.store)
            .get(read.developer_id)
            .await?
            .ok_or_else(|| ApiError::not_found("the version's developer no longer exists"))?,
    };
    let (who, reviewer) = match mover {
        Mover::Developer(_) => (Reviewer::Owner, None),
        Mover::Staff(user) if user == developer.user_id => (Reviewer::StaffOwner, Some(user)),
        Mover::Staff(user) => (Reviewer::Staff, Some(user)),
    };
    let to = decide(read.state, review_move, who, note.is_some()).map_err(refusal)?;
    let now = state.clock.now();
    let mut next = edit(read.clone());
    next.state = to;
    next.updated_at = now;
    match review_move {
        ReviewMove::Submit => next.submitted_at = Some(now),
        ReviewMove::Edit => {}
        ReviewMove::Approve
        | ReviewMove::Reject
        | ReviewMove::RequestChanges
        | ReviewMove::Publish
        | ReviewMove::Deprecate => {
            next.note = note;
            next.reviewed_by = reviewer;
            if review_move == ReviewMove::Publish {
                next.published_at = Some(now);
            }
            // Its households are owed a notice (the queue of
            // `alyt_events::deprecations`, written with the move).
            if review_move == ReviewMove::Deprecate {
                next.notices_pending = true;
            }
        }
    }
    let mut also = Vec::new();
    if to != read.state
        && let Some(sandbox) = developer.sandbox_tenant_id
    {
        also.extend(state.event_writes(sandbox, vec![state_event(&next, now)])?);
    }
    if matches!(review_move, ReviewMove::Publish | ReviewMove::Deprecate) {
        also.push(listing_change(state, &next, &developer, now).await?);
    }
    let version = match Versions(&*state.store).change(&read, &next, also).await {
        Ok(version) => version,
        Err(VersionError::Changed) | Err(VersionError::SemverTaken) => {
            return Err(ApiError::conflict(
                "the version (or its connector's listing) changed meanwhile; read it again",
            ));
        }
        Err(VersionError::Store(e)) => return Err(e.into()),
    };
    if to != read.state {
        tracing::info!(version = %version.id, from = read.state.as_str(), to = to.as_str(), "connector version moved");
        mail_developer(state, &developer, &version).await;
    }
    if review_move == ReviewMove::Deprecate {
        let notices = DeprecationNotices::new(state.store.clone(), state.clock.clone());
        if let Err(e) = notices.notify(&version).await {
            tracing::warn!(version = %version.id, error = %e, "deprecation notices wait for the sweep");
        }
    }
    Ok(version)
}

/// The connector's listing once `next` is written: its greatest published
/// version, as the write of the connector conditioned on its revision.
async fn listing_change(
    state: &AppState,
    next: &VersionRecord,
    developer: &DeveloperRecord,
    now: OffsetDateTime,
) -> Result<TxWrite, ApiError> {
    let integrations = Integrations(&*state.store);
    let connector = integrations
        .connector(next.connector_id)
        .await?
        .ok_or_else(|| ApiError::not_found("the version's connector no longer exists"))?;
    let mut versions = Versions(&*state.store).of_connector(connector.id).await?;
    for v in versions.iter_mut().filter(|v| v.id == next.id) {
        *v = next.clone();
    }
    if !versions.iter().any(|v| v.id == next.id) {
        versions.push(next.clone());
    }
    let listed = versions
        .iter()
        .filter(|v| v.state == ReviewState::Published)
        .max_by_key(|v| parse_semver(&v.semver));
    let listing = listed.map(|v| listing_of(v, developer));
    let deprecated =
        listing.is_none() && versions.iter().any(|v| v.state == ReviewState::Deprecated);
    let changed = ConnectorRecord {
        published: listing.as_ref().is_some_and(|l| l.public),
        listing,
        deprecated,
        updated_at: now,
        ..connector.clone()
    };
    Ok(Integrations::connector_change(&connector, &changed)?)
}

/// What the catalogue shows of a published version.
fn listing_of(version: &VersionRecord, developer: &DeveloperRecord) -> Listing {
    // The descriptor was checked when it was written; read it again for the
    // fields the catalogue indexes by.
    let descriptor = parse_descriptor(&version.descriptor, "descriptor").ok();
    Listing {
        version_id: version.id,
        semver: version.semver.clone(),
        name: descriptor
            .as_ref()
            .map_or_else(|| version.slug.clone(), |d| d.name.clone()),
        descriptor: version.descriptor.clone(),
        prose: version.prose.clone(),
        ai_declaration: version.ai_declaration,
        public: descriptor
            .as_ref()
            .is_none_or(|d| d.visibility == Visibility::Public),
        listed: descriptor.as_ref().is_none_or(|d| d.listed),
        published_at: version.published_at.unwrap_or(version.updated_at),
        author: ListingAuthor {
            display_name: developer.display_name.clone(),
            kind: developer.kind,
            verified: developer.verified_at.is_some(),
        },
    }
}

/// Tells the developer where the version stands (after the move committed:
/// a mail that fails is logged; the move and its event stand).
pub async fn mail_developer(
    state: &AppState,
    developer: &DeveloperRecord,
    version: &VersionRecord,
) {
    let what = match version.state {
        ReviewState::Draft => "is saved as a draft",
        ReviewState::Submitted => "is submitted for review",
        ReviewState::ChangesRequested => "needs changes before it can be approved",
        ReviewState::Approved => "is approved",
        ReviewState::Rejected => "was rejected",
        ReviewState::Published => "is published in the catalogue",
        ReviewState::Deprecated => "is deprecated",
    };
    let mut text = format!(
        "Hello {},\n\nversion {} of your connector {} {what}.\n",
        developer.display_name, version.semver, version.slug
    );
    if let Some(note) = &version.note {
        text.push_str(&format!("\nThe reviewer's note:\n\n{note}\n"));
    }
    let email = Email {
        to: developer.email.clone(),
        subject: format!(
            "{} {}: {}",
            version.slug,
            version.semver,
            version.state.as_str()
        ),
        text,
        link: None,
    };
    if let Err(e) = state.mailer.send(email).await {
        tracing::warn!(version = %version.id, error = %e, "the review mail could not be sent");
    }
}

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
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(ReviewRequest::default());
    }
    let request: ReviewRequest = parse_json(body).map_err(name_the_field)?;
    match request.note.as_deref().map(str::trim) {
        None => Ok(request),
        Some(note)
            if !note.is_empty()
                && note.chars().count() <= NOTE_MAX_CHARS
                && !note.chars().any(|c| c.is_control() && c != '\n') =>
        {
            Ok(ReviewRequest {
                note: Some(note.to_owned()),
            })
        }
        Some(_) => Err(ApiError::validation(
            "note",
            format!("note must be 1 to {NOTE_MAX_CHARS} characters without control characters"),
        )),
    }
}

/// The review queue, or every version of a developer or a connector.
#[utoipa::path(
    get,
    path = "/v1/developers/admin/submissions",
    tag = "developers",
    operation_id = "listAdminSubmissions",
    security(("bearer" = [])),
    params(ReviewListParams),
    responses(
        (status = 200, description = "One page: the queue oldest submission first, or a developer's or connector's versions oldest first", body = ListResponse<ReviewedSubmission>),
        (status = 400, description = "Bad developerId, connectorId (not both), limit or cursor", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        (status = 404, description = "Not platform staff", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn list_reviews(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Params(params): Params<ReviewListParams>,
) -> Result<Json<ListResponse<ReviewedSubmission>>, ApiError> {
    staff(&caller, &READERS)?;
    let scope = match (params.developer_id, params.connector_id) {
        (Some(_), Some(_)) => {
            return Err(ApiError::validation(
                "connectorId",
                "give developerId or connectorId, not both",
            ));
        }
        (Some(developer), None) => developer_versions(developer),
        (None, Some(connector)) => connector_versions(connector),
        (None, None) => review_queue(),
    };
    let page = PageParams::new(params.limit, params.cursor);
    let (records, next) = Versions(&*state.store)
        .page(&scope, page.limit()?, page.after_within(&scope)?)
        .await?;
    Ok(Json(ListResponse::page(
        records.iter().map(ReviewedSubmission::from).collect(),
        next.as_ref(),
    )))
}

fn no_such_version() -> ApiError {
    ApiError::not_found("no such submission")
}

/// One version with its developer.
#[utoipa::path(
    get,
    path = "/v1/developers/admin/submissions/{versionId}",
    tag = "developers",
    operation_id = "getAdminSubmission",
    security(("bearer" = [])),
    params(("versionId" = ConnectorVersionId, Path, description = "The version")),
    responses(
        (status = 200, description = "The version", body = ReviewedSubmission),
        (status = 400, description = "A malformed id", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        (status = 404, description = "No such version, or not platform staff", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn get_review(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(id): ApiPath<ConnectorVersionId>,
) -> Result<Json<ReviewedSubmission>, ApiError> {
    staff(&caller, &READERS)?;
    let version = Versions(&*state.store)
        .get(id)
        .await?
        .ok_or_else(no_such_version)?;
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
    staff(caller, &WRITERS)?;
    let user = caller
        .user_id()
        .ok_or_else(|| ApiError::forbidden("review moves are made by a signed-in person"))?;
    let request = review_request(body)?;
    let read = Versions(&*state.store)
        .get(id)
        .await?
        .ok_or_else(no_such_version)?;
    let version = move_version(
        state,
        read,
        review_move,
        Mover::Staff(user),
        request.note,
        |v| v,
    )
    .await?;
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
            security(("bearer" = [])),
            params(("versionId" = ConnectorVersionId, Path, description = "The version")),
            request_body(content = Option<ReviewRequest>, description = "Optional: `{ note }` for the developer (required to reject or request changes)"),
            responses(
                (status = 200, description = "The version after the move; `submission.state` was raised in the developer's sandbox and the developer mailed", body = ReviewedSubmission),
                (status = 400, description = "A malformed id or body, or no note where one is required", body = Problem, content_type = "application/problem+json"),
                NoValidToken,
                (status = 403, description = "SUPPORT may not review, and nobody reviews their own submission", body = Problem, content_type = "application/problem+json"),
                (status = 404, description = "No such version, or not platform staff", body = Problem, content_type = "application/problem+json"),
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
