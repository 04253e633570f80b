//! Connector versions under review (a change of state is announced by a
//! `submission.state` event), as a plain state machine. The spec leaves the
//! states and moves to us; these are they:
//!
//! ```text
//!   draft ──submit──▶ submitted ──approve──▶ approved ──publish──▶ published ──deprecate──▶ deprecated
//!     ▲  (developer)    │   │ (staff)                  (staff)                 (staff)
//!     │                 │   └──reject──▶ rejected (final)
//!     └─edit─┐          └──request-changes──▶ changes-requested ──submit──▶ submitted
//!        (draft, changes-requested: the developer edits)
//! ```
//!
//! * The developer edits only a `draft` or a version whose changes were
//!   requested, and submits it; staff review a `submitted` version only.
//! * A rejection and a request for changes carry a note the developer reads.
//! * `rejected` and `deprecated` are final; a published version is deprecated,
//!   never unpublished (installations keep working).
//! * Nobody reviews their own submission: the developer's account never acts
//!   as staff on it.
//!
//! The store keeps the state with a write conditioned on the state read, so of
//! concurrent moves on one version exactly one wins.

use serde::{Deserialize, Serialize};

/// Where a connector version stands in review.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "kebab-case")]
pub enum ReviewState {
    Draft,
    Submitted,
    ChangesRequested,
    Approved,
    Rejected,
    Published,
    Deprecated,
}

impl ReviewState {
    /// The state as `submission.state` names it.
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewState::Draft => "draft",
            ReviewState::Submitted => "submitted",
            ReviewState::ChangesRequested => "changes-requested",
            ReviewState::Approved => "approved",
            ReviewState::Rejected => "rejected",
            ReviewState::Published => "published",
            ReviewState::Deprecated => "deprecated",
        }
    }

    /// Whether the developer may still change the version.
    pub fn editable(self) -> bool {
        matches!(self, ReviewState::Draft | ReviewState::ChangesRequested)
    }

    /// Whether nothing moves the version any more.
    pub fn is_final(self) -> bool {
        matches!(self, ReviewState::Rejected | ReviewState::Deprecated)
    }
}

/// A move of a version, by whom it is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReviewMove {
    /// The developer sends a draft (or a version whose changes were
    /// requested) for review.
    Submit,
    /// The developer changes the version's content.
    Edit,
    Approve,
    /// Needs a note.
    Reject,
    /// Needs a note.
    RequestChanges,
    Publish,
    Deprecate,
}

impl ReviewMove {
    /// Whether platform staff make this move (the others are the
    /// developer's).
    pub fn by_staff(self) -> bool {
        !matches!(self, ReviewMove::Submit | ReviewMove::Edit)
    }

    /// Whether the move needs a note for the developer.
    pub fn needs_note(self) -> bool {
        matches!(self, ReviewMove::Reject | ReviewMove::RequestChanges)
    }
}

/// Who asks for a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reviewer {
    /// The developer who owns the version.
    Owner,
    /// Platform OWNER or STAFF who do not own the version.
    Staff,
    /// Platform staff whose own developer account owns the version: they
    /// act as its developer, never as its reviewer.
    StaffOwner,
}

/// Why a move is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ReviewRefused {
    #[error("a version that is {0} cannot be {1}")]
    NotNow(&'static str, &'static str),
    #[error("only platform staff review versions")]
    StaffOnly,
    #[error("only the version's developer changes or submits it")]
    OwnerOnly,
    #[error("nobody reviews their own submission")]
    OwnSubmission,
    #[error("a note for the developer is required")]
    NoteRequired,
}

fn past(m: ReviewMove) -> &'static str {
    match m {
        ReviewMove::Submit => "submitted",
        ReviewMove::Edit => "changed",
        ReviewMove::Approve => "approved",
        ReviewMove::Reject => "rejected",
        ReviewMove::RequestChanges => "sent back for changes",
        ReviewMove::Publish => "published",
        ReviewMove::Deprecate => "deprecated",
    }
}

/// The state `m` by `who` (with a note or not) leads `from` to.
pub fn decide(
    from: ReviewState,
    m: ReviewMove,
    who: Reviewer,
    has_note: bool,
) -> Result<ReviewState, ReviewRefused> {
    match (m.by_staff(), who) {
        (true, Reviewer::Owner) => return Err(ReviewRefused::StaffOnly),
        (true, Reviewer::StaffOwner) => return Err(ReviewRefused::OwnSubmission),
        (false, Reviewer::Staff) => return Err(ReviewRefused::OwnerOnly),
        _ => {}
    }
    if m.needs_note() && !has_note {
        return Err(ReviewRefused::NoteRequired);
    }
    use ReviewMove as M;
    use ReviewState as S;
    let to = match (from, m) {
        (S::Draft | S::ChangesRequested, M::Submit) => S::Submitted,
        (state @ (S::Draft | S::ChangesRequested), M::Edit) => state,
        (S::Submitted, M::Approve) => S::Approved,
        (S::Submitted, M::Reject) => S::Rejected,
        (S::Submitted, M::RequestChanges) => S::ChangesRequested,
        (S::Approved, M::Publish) => S::Published,
        (S::Published, M::Deprecate) => S::Deprecated,
        _ => return Err(ReviewRefused::NotNow(from.as_str(), past(m))),
    };
    Ok(to)
}

/// The data of `submission.state`: a connector version changed review
/// state. Raised in the developer's sandbox tenant, so the developer's
/// stream and DEV-key webhooks hear it (a LIVE key hears only its
/// integrations' events, and households never see a sandbox).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SubmissionStateData {
    pub version_id: crate::ids::ConnectorVersionId,
    pub slug: String,
    pub semver: String,
    pub state: ReviewState,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub at: time::OffsetDateTime,
}

/// Why a version number is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SemverProblem {
    #[error("semver must be a semantic version like 1.0.0 ({0})")]
    Invalid(String),
    #[error("semver must be greater than {0}, the connector's latest version")]
    NotGreater(String),
}

/// A version number as an ordered value (`None` when it is not a semantic
/// version): for picking a connector's greatest version.
pub fn parse_semver(semver: &str) -> Option<semver::Version> {
    semver::Version::parse(semver).ok()
}

/// A new version number: a valid semantic version greater than every
/// earlier version of the connector.
pub fn check_semver<'a>(
    semver: &str,
    earlier: impl IntoIterator<Item = &'a str>,
) -> Result<semver::Version, SemverProblem> {
    let version =
        semver::Version::parse(semver).map_err(|e| SemverProblem::Invalid(e.to_string()))?;
    let latest = earlier
        .into_iter()
        .filter_map(|v| semver::Version::parse(v).ok())
        .max();
    match latest {
        Some(latest) if version <= latest => Err(SemverProblem::NotGreater(latest.to_string())),
        _ => Ok(version),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const ALL_MOVES: [ReviewMove; 7] = [
        ReviewMove::Submit,
        ReviewMove::Edit,
        ReviewMove::Approve,
        ReviewMove::Reject,
        ReviewMove::RequestChanges,
        ReviewMove::Publish,
        ReviewMove::Deprecate,
    ];

    #[test]
    fn the_road_to_publication() {
        let mut state = ReviewState::Draft;
        for (m, who, note) in [
            (ReviewMove::Edit, Reviewer::Owner, false),
            (ReviewMove::Submit, Reviewer::Owner, false),
            (ReviewMove::RequestChanges, Reviewer::Staff, true),
            (ReviewMove::Edit, Reviewer::Owner, false),
            (ReviewMove::Submit, Reviewer::Owner, false),
            (ReviewMove::Approve, Reviewer::Staff, false),
            (ReviewMove::Publish, Reviewer::Staff, false),
            (ReviewMove::Deprecate, Reviewer::Staff, false),
        ] {
            state = decide(state, m, who, note).unwrap();
        }
        assert_eq!(state, ReviewState::Deprecated);
    }

    #[test]
    fn who_may_do_what() {
        let s = ReviewState::Submitted;
        assert_eq!(
            decide(s, ReviewMove::Approve, Reviewer::Owner, false),
            Err(ReviewRefused::StaffOnly)
        );
        assert_eq!(
            decide(s, ReviewMove::Approve, Reviewer::StaffOwner, false),
            Err(ReviewRefused::OwnSubmission)
        );
        assert_eq!(
            decide(
                ReviewState::Draft,
                ReviewMove::Submit,
                Reviewer::Staff,
                false
            ),
            Err(ReviewRefused::OwnerOnly)
        );
        assert_eq!(
            decide(s, ReviewMove::Reject, Reviewer::Staff, false),
            Err(ReviewRefused::NoteRequired)
        );
        assert_eq!(
            decide(s, ReviewMove::Publish, Reviewer::Staff, false),
            Err(ReviewRefused::NotNow("submitted", "published"))
        );
        assert_eq!(
            decide(s, ReviewMove::Edit, Reviewer::Owner, false),
            Err(ReviewRefused::NotNow("submitted", "changed"))
        );
    }

    #[test]
    fn versions_must_grow() {
        assert!(check_semver("1.0.0", []).is_ok());
        assert!(check_semver("1.1.0", ["1.0.0", "0.9.0"]).is_ok());
        assert_eq!(
            check_semver("1.0.0", ["1.0.0"]),
            Err(SemverProblem::NotGreater("1.0.0".into()))
        );
        assert!(matches!(
            check_semver("1.0", []),
            Err(SemverProblem::Invalid(_))
        ));
        assert!(check_semver("1.1.0-beta.1", ["1.0.0"]).is_ok());
        assert_eq!(
            check_semver("1.1.0-beta.1", ["1.1.0"]),
            Err(SemverProblem::NotGreater("1.1.0".into()))
        );
    }

    fn moves() -> impl Strategy<Value = Vec<(usize, u8, bool)>> {
        proptest::collection::vec((0usize..7, 0u8..3, any::<bool>()), 0..40)
    }

    proptest! {
        /// Whatever is asked: only the version's developer edits and submits,
        /// only staff who do not own it review; a version is published only
        /// after approval, which only follows a submission; final states
        /// never move; and the developer edits only while it is editable.
        #[test]
        fn review_follows_its_rules(steps in moves()) {
            let mut state = ReviewState::Draft;
            let mut approved_once = false;
            for (m, who, note) in steps {
                let m = ALL_MOVES[m];
                let who = [Reviewer::Owner, Reviewer::Staff, Reviewer::StaffOwner][who as usize];
                let before = state;
                match decide(state, m, who, note) {
                    Ok(next) => {
                        prop_assert!(!before.is_final());
                        prop_assert_eq!(m.by_staff(), who == Reviewer::Staff);
                        if m == ReviewMove::Edit {
                            prop_assert!(before.editable());
                            prop_assert_eq!(next, before);
                        }
                        if next == ReviewState::Approved {
                            prop_assert_eq!(before, ReviewState::Submitted);
                            approved_once = true;
                        }
                        if next == ReviewState::Published {
                            prop_assert!(approved_once);
                        }
                        if m.needs_note() {
                            prop_assert!(note);
                        }
                        state = next;
                    }
                    Err(_) => prop_assert_eq!(state, before),
                }
            }
        }
    }
}
