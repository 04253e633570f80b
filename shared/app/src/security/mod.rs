//! Home security over time, beyond one request: the record's keeper, the
//! timers both runtimes run every second (countdowns that ended, an alarm's
//! outputs to sound or restore, hub configurations to push), and handing a
//! home to a security-system connector.

pub mod access;
pub mod authority;
pub mod delegations;
pub mod hub;
pub mod incidents;
pub mod inventory;
pub mod mode;
pub mod outputs;
pub mod settings;
pub mod status;

use alyt_domain::ids::IntegrationId;
use alyt_domain::integration::music::{AuthorityAnswer, AuthorityCall};
use alyt_domain::security::machine::Authority;
use alyt_security::{Decision, HomeSecurity, KeepError};
use alyt_store::repo::security::SecurityRecord;
use alyt_store::repo::tenancy::PropertyRecord;
use time::OffsetDateTime;

use crate::endpoints::{connector_problem, installed};
use crate::{App, Error};

pub fn keeper(app: &App) -> HomeSecurity {
    HomeSecurity::new(app.store.clone(), app.clock.clone())
}

impl From<KeepError> for Error {
    fn from(e: KeepError) -> Self {
        match e {
            KeepError::Busy => Error::conflict("the home's security kept changing; try again"),
            KeepError::Store(e) => e.into(),
        }
    }
}

/// Changes the record with `change` (none: nothing to write) on its
/// revision; the change's answer and the record as it stands.
pub async fn update<T: Send>(
    app: &App,
    home: &PropertyRecord,
    mut change: impl FnMut(
        &mut SecurityRecord,
        &mut Vec<alyt_domain::security::machine::Effect>,
        OffsetDateTime,
    ) -> Option<T>
    + Send,
) -> Result<(Option<T>, SecurityRecord), Error> {
    let done = keeper(app)
        .rewrite(home, |mut draft| {
            let answer = change(&mut draft.next, &mut draft.effects, draft.now);
            let write = answer.is_some();
            std::future::ready(Ok::<_, Error>((draft, Decision::write_if(write, answer))))
        })
        .await?;
    Ok((done.value, done.record))
}

/// Home security's timers (both runtimes, every second): countdowns that
/// ended, then the alarm outputs to sound or restore.
pub async fn timers(app: &App) -> Result<(), alyt_store::StoreError> {
    // One query of the due homes serves all three.
    let keeper = keeper(app);
    let due = keeper.due().await?;
    let countdowns = keeper.sweep_these(due.clone()).await?;
    if countdowns.due > 0 {
        tracing::debug!(?countdowns, "security countdowns");
    }
    let outputs = outputs::drive_due(app, &due).await?;
    if outputs.homes > 0 {
        tracing::debug!(?outputs, "security outputs");
    }
    let pushed = hub::sync_due(app, &due).await?;
    if pushed > 0 {
        tracing::debug!(pushed, "hub configurations pushed");
    }
    Ok(())
}

/// The built-in engine runs the home again (Off).
pub async fn take_back(app: &App, home: &PropertyRecord) -> Result<SecurityRecord, Error> {
    let done = keeper(app)
        .rewrite(home, async |mut draft| {
            draft.next.state.switching_to = None;
            let switched = draft
                .next
                .state
                .switch_authority(Authority::BuiltIn, true)
                .unwrap_or_default();
            draft.effects.extend(switched);
            Ok::<_, Error>((draft, Decision::write(())))
        })
        .await?;
    Ok(done.record)
}

/// Tells a security system it runs the home now (`active`) or no longer.
pub async fn tell(
    app: &App,
    home: &PropertyRecord,
    connector: &crate::endpoints::Installed,
    active: bool,
) -> Result<(), Error> {
    let call = AuthorityCall {
        integration_id: connector.integration.id.to_string(),
        tenant_id: home.tenant_id.to_string(),
        config: connector.integration.config.clone(),
        property_id: home.id.to_string(),
        active,
    };
    let answer = app
        .connectors
        .security_authority(&connector.server(app), &call)
        .await;
    match answer {
        Ok(AuthorityAnswer::Active) if active => Ok(()),
        Ok(AuthorityAnswer::Inactive) if !active => Ok(()),
        Ok(AuthorityAnswer::Rejected { reason }) => Err(Error::conflict_typed(
            "security-refused",
            format!(
                "the connector is not a security system ({reason}); the home stays with the built-in engine"
            ),
        )),
        Ok(_) => Err(Error::bad_gateway(
            "the connector answered something else than asked",
        )),
        Err(e) => Err(Error::bad_gateway(connector_problem(
            &connector.connector,
            &e,
        ))),
    }
}

/// The output driver restored the outputs of a home being handed to a
/// connector (`to`): the connector is told now; when it cannot take over,
/// the built-in engine keeps the home (Off).
pub async fn complete_handover(app: &App, home: &PropertyRecord, to: &Authority) {
    let Authority::Connector { connector_id } = to else {
        return;
    };
    let connector = match connector_id.parse::<uuid::Uuid>() {
        Ok(id) => installed(app, home.tenant_id, IntegrationId(id)).await,
        Err(_) => Err(Error::not_found("no such integration")),
    };
    let told = match connector {
        Ok(connector) => tell(app, home, &connector, true).await,
        Err(e) => Err(e),
    };
    if let Err(e) = told {
        tracing::warn!(home = %home.id, error = %e.detail, "a security system could not take over; the built-in engine keeps the home");
        if let Err(e) = take_back(app, home).await {
            tracing::warn!(home = %home.id, error = %e.detail, "the home could not be given back to the built-in engine");
        }
    }
}
