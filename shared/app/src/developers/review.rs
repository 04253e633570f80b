//! Platform staff's review of connector versions: the queue and any
//! developer's or connector's versions (platform OWNER, STAFF or SUPPORT),
//! and the moves (OWNER or STAFF, as a signed-in person; nobody reviews
//! their own submission), each through [`super::moves::move_version`] as the
//! developer's own moves are.

use alyt_domain::access::Principal;
use alyt_domain::ids::{ConnectorId, ConnectorVersionId, DeveloperId};
use alyt_domain::submission::ReviewMove;
use alyt_store::repo::submissions::{
    VersionRecord, Versions, connector_versions, developer_versions, review_queue,
};
use alyt_store::{ListScope, PageKey};

use super::admin::{READERS, WRITERS, staff};
use super::moves::{Mover, move_version};
use crate::paging::Paging;
use crate::{App, Error};

/// Characters of a reviewer's note.
pub const NOTE_MAX_CHARS: usize = 4000;

fn no_such_version() -> Error {
    Error::not_found("no such submission")
}

/// A reviewer's note as kept: trimmed, 1 to [`NOTE_MAX_CHARS`] characters,
/// no control characters but newlines.
pub fn checked_note(note: Option<&str>) -> Result<Option<String>, Error> {
    match note.map(str::trim) {
        None => Ok(None),
        Some(note)
            if !note.is_empty()
                && note.chars().count() <= NOTE_MAX_CHARS
                && !note.chars().any(|c| c.is_control() && c != '\n') =>
        {
            Ok(Some(note.to_owned()))
        }
        Some(_) => Err(Error::validation(
            "note",
            format!("note must be 1 to {NOTE_MAX_CHARS} characters without control characters"),
        )),
    }
}

/// One page of the versions staff list: one developer's, one connector's
/// (not both), or the review queue (oldest submission first).
pub async fn reviews_page(
    app: &App,
    caller: &Principal,
    developer: Option<DeveloperId>,
    connector: Option<ConnectorId>,
    paging: &Paging,
) -> Result<(Vec<VersionRecord>, Option<PageKey>), Error> {
    let scope = reviews_scope(caller, developer, connector)?;
    let limit = paging.limit()?;
    let after = paging.after_within(&scope)?;
    Ok(Versions(&*app.store).page(&scope, limit, after).await?)
}

/// Which versions staff list (the access check before the page is read).
fn reviews_scope(
    caller: &Principal,
    developer: Option<DeveloperId>,
    connector: Option<ConnectorId>,
) -> Result<ListScope, Error> {
    staff(caller, &READERS)?;
    Ok(match (developer, connector) {
        (Some(_), Some(_)) => {
            return Err(Error::validation(
                "connectorId",
                "give developerId or connectorId, not both",
            ));
        }
        (Some(developer), None) => developer_versions(developer),
        (None, Some(connector)) => connector_versions(connector),
        (None, None) => review_queue(),
    })
}

/// Any developer's version, for staff.
pub async fn reviewed_version(
    app: &App,
    caller: &Principal,
    id: ConnectorVersionId,
) -> Result<VersionRecord, Error> {
    staff(caller, &READERS)?;
    Versions(&*app.store)
        .get(id)
        .await?
        .ok_or_else(no_such_version)
}

/// Makes `review_move` on a version as the signed-in staff member calling,
/// with the note `note` reads from the request (read once the caller may
/// review, before the version).
pub async fn review<E: From<Error>>(
    app: &App,
    caller: &Principal,
    id: ConnectorVersionId,
    review_move: ReviewMove,
    note: impl FnOnce() -> Result<Option<String>, E>,
) -> Result<VersionRecord, E> {
    staff(caller, &WRITERS)?;
    let user = caller
        .user_id()
        .ok_or_else(|| Error::forbidden("review moves are made by a signed-in person"))?;
    let note = note()?;
    let read = Versions(&*app.store)
        .get(id)
        .await
        .map_err(Error::from)?
        .ok_or_else(no_such_version)?;
    let version = move_version(app, read, review_move, Mover::Staff(user), note, |v| v).await?;
    Ok(version)
}
