//! A developer's connector versions on their way to the catalogue (the
//! review rules are `alyt_domain::submission`, the records
//! `repo::submissions`): creating one (submitted, or kept a draft),
//! reading the developer's own, and changing a draft or a version sent back
//! for changes.
//!
//! Who: a signed-in developer, or a DEV key of the developer with
//! `integrations:write` (create, change) or `integrations:read` (read). A
//! LIVE key is forbidden. Another developer's version or connector answers
//! as a missing one.
//!
//! Every move raises `submission.state` in the developer's sandbox tenant
//! (in the move's transaction) and mails the developer (after it; a mail
//! that fails is logged, the move stands).

use alyt_domain::access::{Principal, Scope};
use alyt_domain::ids::{ConnectorId, ConnectorVersionId};
use alyt_domain::integration::descriptor::{
    ConnectorDescriptor, DescriptorSource, parse_descriptor,
};
use alyt_domain::submission::{ReviewMove, ReviewState, check_semver};
use alyt_store::repo::developers::DeveloperRecord;
use alyt_store::repo::integrations::{ConnectorRecord, Integrations};
use alyt_store::repo::submissions::{
    AiDeclaration, VersionError, VersionRecord, Versions, connector_versions, developer_versions,
};
use alyt_store::{ListScope, PageKey};
use serde_json::Value;

use super::connector_developer;
use super::moves::{Mover, mail_developer, move_version, state_event};
use crate::paging::Paging;
use crate::{App, Error};

/// Characters of the prose households read beside the descriptor.
pub const PROSE_MAX_CHARS: usize = 20_000;

/// A version to create, as the request gave it.
#[derive(Debug, Clone)]
pub struct NewSubmission {
    pub connector_id: ConnectorId,
    pub semver: String,
    pub descriptor: Value,
    pub prose: String,
    pub ai_declaration: AiDeclaration,
    /// Keep it a draft instead of submitting it.
    pub draft: bool,
}

/// A change of a version's content, and whether to submit it.
#[derive(Debug, Clone)]
pub struct SubmissionChange {
    pub descriptor: Option<Value>,
    pub prose: Option<String>,
    pub ai_declaration: Option<AiDeclaration>,
    pub submit: bool,
}

fn no_such_version() -> Error {
    Error::not_found("no such submission")
}

fn no_such_connector() -> Error {
    Error::not_found("no such connector").with_field("connectorId")
}

/// The descriptor of a version numbered `semver`, checked.
pub fn checked_descriptor(value: &Value, semver: &str) -> Result<ConnectorDescriptor, Error> {
    let descriptor = parse_descriptor(value, "descriptor")
        .map_err(|p| Error::validation(p.field.clone(), p.to_string()))?;
    if descriptor.version != semver {
        return Err(Error::validation(
            "descriptor.version",
            format!("descriptor.version must be the submission's semver, {semver}"),
        ));
    }
    if descriptor.source != DescriptorSource::Installed || descriptor.built_in.is_some() {
        return Err(Error::validation(
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

/// The prose households read, trimmed: 1 to [`PROSE_MAX_CHARS`] characters,
/// no control characters but newlines and tabs.
pub fn checked_prose(prose: &str) -> Result<String, Error> {
    let chars = prose.trim().chars().count();
    if chars == 0
        || chars > PROSE_MAX_CHARS
        || prose
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return Err(Error::validation(
            "prose",
            format!("prose must be 1 to {PROSE_MAX_CHARS} characters without control characters"),
        ));
    }
    Ok(prose.trim().to_owned())
}

/// The connector a developer submits a version of (another developer's
/// answers as a missing one).
pub async fn own_connector(
    app: &App,
    developer: &DeveloperRecord,
    id: ConnectorId,
) -> Result<ConnectorRecord, Error> {
    Integrations(&*app.store)
        .connector(id)
        .await?
        .filter(|c| c.developer_id == developer.id)
        .ok_or_else(no_such_connector)
}

/// The developer's own version (another's answers as a missing one).
async fn own_version(
    app: &App,
    developer: &DeveloperRecord,
    id: ConnectorVersionId,
) -> Result<VersionRecord, Error> {
    Versions(&*app.store)
        .get(id)
        .await?
        .filter(|v| v.developer_id == developer.id)
        .ok_or_else(no_such_version)
}

/// Creates a version of one of the caller's connectors: submitted, or a
/// draft. The semver must be greater than every earlier version of the
/// connector (a conflict on `semver` when another request took the number
/// meanwhile); the version and its event are one transaction, the mail
/// follows.
pub async fn create_submission(
    app: &App,
    caller: &Principal,
    new: NewSubmission,
) -> Result<VersionRecord, Error> {
    let developer = connector_developer(app, caller, Scope::IntegrationsWrite).await?;
    let semver = new.semver.trim().to_owned();
    check_semver(&semver, [])
        .map_err(|problem| Error::validation("semver", problem.to_string()))?;
    checked_descriptor(&new.descriptor, &semver)?;
    let prose = checked_prose(&new.prose)?;
    let connector = own_connector(app, &developer, new.connector_id).await?;
    let earlier = Versions(&*app.store).of_connector(connector.id).await?;
    check_semver(&semver, earlier.iter().map(|v| v.semver.as_str()))
        .map_err(|problem| Error::validation("semver", problem.to_string()))?;
    let sandbox = developer.sandbox_tenant_id.ok_or_else(|| {
        Error::conflict("the developer has no sandbox tenant yet; verify the account")
    })?;
    let now = app.clock.now();
    let draft = VersionRecord {
        id: ConnectorVersionId::new(),
        connector_id: connector.id,
        developer_id: developer.id,
        slug: connector.slug.clone(),
        semver,
        descriptor: new.descriptor,
        prose,
        ai_declaration: new.ai_declaration,
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
    let version = if new.draft {
        draft
    } else {
        VersionRecord {
            state: ReviewState::Submitted,
            submitted_at: Some(now),
            ..draft
        }
    };
    let event = state_event(&version, now);
    let also = app.event_writes(sandbox, None, vec![event])?;
    match Versions(&*app.store).create(&version, also).await {
        Ok(()) => {}
        Err(VersionError::SemverTaken) => {
            return Err(Error::conflict(format!(
                "version {} of {} was submitted meanwhile",
                version.semver, version.slug
            ))
            .with_field("semver"));
        }
        Err(VersionError::Changed) => return Err(Error::conflict("try again")),
        Err(VersionError::Store(e)) => return Err(e.into()),
    }
    tracing::info!(version = %version.id, connector = %connector.id, state = version.state.as_str(), "connector version created");
    mail_developer(app, &developer, &version).await;
    Ok(version)
}

/// One page of the caller's versions: one connector's, or all of the
/// developer's, oldest first.
pub async fn submissions_page(
    app: &App,
    caller: &Principal,
    connector_id: Option<ConnectorId>,
    paging: &Paging,
) -> Result<(Vec<VersionRecord>, Option<PageKey>), Error> {
    let scope = submissions_scope(app, caller, connector_id).await?;
    let limit = paging.limit()?;
    let after = paging.after_within(&scope)?;
    Ok(Versions(&*app.store).page(&scope, limit, after).await?)
}

/// Which of the caller's versions a list reads (the access check before the
/// page is read).
async fn submissions_scope(
    app: &App,
    caller: &Principal,
    connector_id: Option<ConnectorId>,
) -> Result<ListScope, Error> {
    let developer = connector_developer(app, caller, Scope::IntegrationsRead).await?;
    Ok(match connector_id {
        Some(id) => connector_versions(own_connector(app, &developer, id).await?.id),
        None => developer_versions(developer.id),
    })
}

/// One of the caller's versions.
pub async fn submission(
    app: &App,
    caller: &Principal,
    id: ConnectorVersionId,
) -> Result<VersionRecord, Error> {
    let developer = connector_developer(app, caller, Scope::IntegrationsRead).await?;
    own_version(app, &developer, id).await
}

/// Changes a draft or a version whose changes were requested (a conflict
/// otherwise), and submits it with `submit`.
pub async fn change_submission(
    app: &App,
    caller: &Principal,
    id: ConnectorVersionId,
    change: SubmissionChange,
) -> Result<VersionRecord, Error> {
    let developer = connector_developer(app, caller, Scope::IntegrationsWrite).await?;
    let read = own_version(app, &developer, id).await?;
    if let Some(descriptor) = &change.descriptor {
        checked_descriptor(descriptor, &read.semver)?;
    }
    let prose = change.prose.as_deref().map(checked_prose).transpose()?;
    let SubmissionChange {
        descriptor,
        ai_declaration,
        submit,
        ..
    } = change;
    let edit = move |mut v: VersionRecord| {
        if let Some(descriptor) = descriptor {
            v.descriptor = descriptor;
        }
        if let Some(prose) = prose {
            v.prose = prose;
        }
        if let Some(ai) = ai_declaration {
            v.ai_declaration = ai;
        }
        v
    };
    let review_move = if submit {
        ReviewMove::Submit
    } else {
        ReviewMove::Edit
    };
    let mover = Mover::Developer(&developer);
    move_version(app, read, review_move, mover, None, edit).await
}
