//! Who runs a home's security (one authority per home): the platform's
//! built-in engine, or a dedicated security-system connector.
//!
//! * **To a connector**: the built-in engine goes Off first (its alarm
//!   stops), its outputs are restored, and only then is the connector asked
//!   to take over: two engines never run at once. While outputs are still
//!   to be restored the hand-over waits (`switchingTo`); the output driver
//!   completes it once they are. A connector that refuses (not a security
//!   system) or does not answer leaves the home with the built-in engine,
//!   Off.
//! * **Back to the built-in engine**: only as an explicit reviewed choice;
//!   the connector is told to stop first, and nothing changes when it
//!   cannot be told.

use alyt_domain::access::{Principal, SecurityAccess};
use alyt_domain::ids::{IntegrationId, PropertyId, TenantId};
use alyt_domain::security::machine::{Authority, Refusal};
use alyt_security::Decision;
use alyt_store::repo::security::SecurityRecord;
use alyt_store::repo::tenancy::PropertyRecord;

use super::access::security_for;
use super::inventory::inventory;
use super::mode::refusal_problem;
use super::status::{SecurityStatus, status};
use super::{keeper, take_back, tell};
use crate::endpoints::installed;
use crate::{App, Error};

/// Who should run the home's security.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// The security system of this integration of the home.
    Connector(IntegrationId),
    /// The built-in engine, as an explicit reviewed choice.
    BuiltIn { reviewed: bool },
}

/// Hands the home's security to `choice` (its owners): the status under
/// it, and whether the hand-over still waits for outputs to be restored.
pub async fn change(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    property: PropertyId,
    choice: Choice,
) -> Result<(SecurityStatus, bool), Error> {
    let (home, record, access) =
        security_for(app, caller, tenant, property, SecurityAccess::Configure).await?;
    let written = match choice {
        Choice::Connector(integration) => to_connector(app, &home, &record, integration).await?,
        Choice::BuiltIn { reviewed } => to_builtin(app, &home, &record, reviewed).await?,
    };
    let things = inventory(app, &written, home.id).await?;
    let switching = written.state.switching_to.is_some();
    Ok((status(&written, &things, access), switching))
}

async fn to_connector(
    app: &App,
    home: &PropertyRecord,
    record: &SecurityRecord,
    integration: IntegrationId,
) -> Result<SecurityRecord, Error> {
    let to = Authority::Connector {
        connector_id: integration.to_string(),
    };
    if record.state.authority == to {
        return Ok(record.clone());
    }
    if matches!(record.state.authority, Authority::Connector { .. }) {
        return Err(Error::conflict_typed(
            "security-refused",
            "another security system runs this home; hand it back to the built-in engine first",
        ));
    }
    let connector = installed(app, home.tenant_id, integration)
        .await
        .ok()
        .filter(|c| c.integration.property_id == home.id)
        .ok_or_else(|| Error::not_found("no such integration in this home"))?;
    // The built-in engine stops first (Off, its alarm stopped).
    let done = keeper(app)
        .rewrite(home, async |mut draft| {
            let things = inventory(app, &draft.next, home.id).await?;
            let switched = draft
                .next
                .state
                .switch_authority(to.clone(), false)
                .map_err(|refusal| refusal_problem(&refusal, &things, &draft.next))?;
            draft.effects.extend(switched);
            Ok::<_, Error>((draft, Decision::write(())))
        })
        .await?;
    if done.record.state.switching_to.is_some() {
        // The output driver hands over once the outputs are restored.
        return Ok(done.record);
    }
    match tell(app, home, &connector, true).await {
        Ok(()) => Ok(done.record),
        Err(problem) => {
            take_back(app, home).await?;
            Err(problem)
        }
    }
}

async fn to_builtin(
    app: &App,
    home: &PropertyRecord,
    record: &SecurityRecord,
    reviewed: bool,
) -> Result<SecurityRecord, Error> {
    let current = match &record.state.authority {
        Authority::BuiltIn if record.state.switching_to.is_none() => return Ok(record.clone()),
        Authority::BuiltIn => None,
        Authority::Connector { connector_id } => Some(connector_id.clone()),
    };
    if !reviewed {
        let things = inventory(app, record, home.id).await?;
        return Err(refusal_problem(&Refusal::NotReviewed, &things, record));
    }
    // The connector stops before the built-in engine may start.
    // (An integration that is gone has no engine left to stop.)
    if let Some(integration) = current.and_then(|id| id.parse::<uuid::Uuid>().ok())
        && let Ok(connector) = installed(app, home.tenant_id, IntegrationId(integration)).await
    {
        tell(app, home, &connector, false).await?;
    }
    take_back(app, home).await
}
