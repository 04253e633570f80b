//! The moves of a connector version, whoever makes them (the developer,
//! `submissions`, or platform staff reviewing it): one function decides
//! with the domain's rules and writes the move with its event and, on
//! publish and deprecate, the connector's catalogue listing.

use alyt_domain::ids::UserId;
use alyt_domain::integration::descriptor::{Visibility, parse_descriptor};
use alyt_domain::submission::{
    ReviewMove, ReviewRefused, ReviewState, Reviewer, SubmissionStateData, decide, parse_semver,
};
use alyt_events::PlatformEvent;
use alyt_events::deprecations::DeprecationNotices;
use alyt_store::TxWrite;
use alyt_store::repo::developers::{DeveloperRecord, Developers};
use alyt_store::repo::integrations::{ConnectorRecord, Integrations, Listing, ListingAuthor};
use alyt_store::repo::submissions::{VersionError, VersionRecord, Versions};
use time::OffsetDateTime;

use crate::ports::Email;
use crate::{App, Error};

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

fn refusal(refused: ReviewRefused) -> Error {
    match refused {
        ReviewRefused::NotNow(..) => Error::conflict(refused.to_string()),
        ReviewRefused::NoteRequired => Error::validation("note", refused.to_string()),
        ReviewRefused::StaffOnly | ReviewRefused::OwnerOnly | ReviewRefused::OwnSubmission => {
            Error::forbidden(refused.to_string())
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
    app: &App,
    read: VersionRecord,
    review_move: ReviewMove,
    mover: Mover<'_>,
    note: Option<String>,
    edit: impl FnOnce(VersionRecord) -> VersionRecord,
) -> Result<VersionRecord, Error> {
    let developer = match mover {
        Mover::Developer(developer) => developer.clone(),
        Mover::Staff(_) => Developers(&*app.store)
            .get(read.developer_id)
            .await?
            .ok_or_else(|| Error::not_found("the version's developer no longer exists"))?,
    };
    let (who, reviewer) = match mover {
        Mover::Developer(_) => (Reviewer::Owner, None),
        Mover::Staff(user) if user == developer.user_id => (Reviewer::StaffOwner, Some(user)),
        Mover::Staff(user) => (Reviewer::Staff, Some(user)),
    };
    let to = decide(read.state, review_move, who, note.is_some()).map_err(refusal)?;
    let now = app.clock.now();
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
        also.extend(app.event_writes(sandbox, None, vec![state_event(&next, now)])?);
    }
    if matches!(review_move, ReviewMove::Publish | ReviewMove::Deprecate) {
        also.push(listing_change(app, &next, &developer, now).await?);
    }
    let version = match Versions(&*app.store).change(&read, &next, also).await {
        Ok(version) => version,
        Err(VersionError::Changed) | Err(VersionError::SemverTaken) => {
            return Err(Error::conflict(
                "the version (or its connector's listing) changed meanwhile; read it again",
            ));
        }
        Err(VersionError::Store(e)) => return Err(e.into()),
    };
    if to != read.state {
        tracing::info!(version = %version.id, from = read.state.as_str(), to = to.as_str(), "connector version moved");
        mail_developer(app, &developer, &version).await;
    }
    if review_move == ReviewMove::Deprecate {
        let notices = DeprecationNotices::new(app.store.clone(), app.clock.clone());
        if let Err(e) = notices.notify(&version).await {
            tracing::warn!(version = %version.id, error = %e, "deprecation notices wait for the sweep");
        }
    }
    Ok(version)
}

/// The connector's listing once `next` is written: its greatest published
/// version, as the write of the connector conditioned on its revision.
async fn listing_change(
    app: &App,
    next: &VersionRecord,
    developer: &DeveloperRecord,
    now: OffsetDateTime,
) -> Result<TxWrite, Error> {
    let integrations = Integrations(&*app.store);
    let connector = integrations
        .connector(next.connector_id)
        .await?
        .ok_or_else(|| Error::not_found("the version's connector no longer exists"))?;
    let mut versions = Versions(&*app.store).of_connector(connector.id).await?;
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
pub async fn mail_developer(app: &App, developer: &DeveloperRecord, version: &VersionRecord) {
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
    if let Err(e) = app.mailer.send(email).await {
        tracing::warn!(version = %version.id, error = %e, "the review mail could not be sent");
    }
}
