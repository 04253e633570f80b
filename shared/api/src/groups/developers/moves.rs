//! The view of a connector version that the developer's operations
//! (`submissions.rs`) and staff review (`review.rs`) both answer. The moves
//! themselves are `alyt_app::developers::moves`.

use alyt_domain::ids::{ConnectorId, ConnectorVersionId};
use alyt_domain::submission::ReviewState;
use alyt_store::repo::submissions::{AiDeclaration, VersionRecord};
use serde::Serialize;
use serde_json::Value;
use time::OffsetDateTime;
use utoipa::ToSchema;

pub use alyt_app::developers::moves::{Mover, move_version};

/// One connector version and where it stands in review.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Submission {
    pub version_id: ConnectorVersionId,
    pub connector_id: ConnectorId,
    pub slug: String,
    pub semver: String,
    /// draft, submitted, changes-requested, approved, rejected, published
    /// or deprecated (the moves: `alyt_domain::submission`).
    pub state: ReviewState,
    /// The connector descriptor of the spec, as submitted.
    #[schema(value_type = Object)]
    pub descriptor: Value,
    pub prose: String,
    pub ai_declaration: AiDeclaration,
    /// The last reviewer's note to the developer (required with a
    /// rejection or a request for changes).
    #[schema(required = true)]
    pub note: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime, required = true)]
    pub submitted_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime, required = true)]
    pub published_at: Option<OffsetDateTime>,
}

impl From<&VersionRecord> for Submission {
    fn from(v: &VersionRecord) -> Self {
        Self {
            version_id: v.id,
            connector_id: v.connector_id,
            slug: v.slug.clone(),
            semver: v.semver.clone(),
            state: v.state,
            descriptor: v.descriptor.clone(),
            prose: v.prose.clone(),
            ai_declaration: v.ai_declaration,
            note: v.note.clone(),
            created_at: v.created_at,
            updated_at: v.updated_at,
            submitted_at: v.submitted_at,
            published_at: v.published_at,
        }
    }
}
