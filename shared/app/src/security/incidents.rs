//! A home's incidents: a resident acknowledges the latest (separate from
//! turning the home Off; one resident's, for good).

use alyt_domain::access::{Principal, SecurityAccess};
use alyt_domain::ids::{PropertyId, TenantId};
use alyt_domain::security::machine::{Incident, Refusal};
use alyt_security::Decision;

use super::access::security_for;
use super::keeper;
use crate::{App, Error};

/// A resident (a person, never a key) acknowledges incident `number`,
/// the latest; another resident's acknowledgement stands.
pub async fn acknowledge(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    property: PropertyId,
    number: u64,
) -> Result<Incident, Error> {
    let (home, _, _) = security_for(app, caller, tenant, property, SecurityAccess::Control).await?;
    let person = caller
        .user_id()
        .ok_or_else(|| Error::forbidden("a resident acknowledges, not a key"))?;
    let done = keeper(app)
        .rewrite(&home, async |mut draft| {
            match draft.next.state.acknowledge(number, person.0) {
                Ok(()) => {}
                Err(Refusal::NoIncident) => {
                    return Err(Error::not_found(
                        "no such incident (only the latest is acknowledged)",
                    ));
                }
                Err(Refusal::AlreadyAcknowledged { .. }) => {
                    return Err(Error::conflict(
                        "another resident acknowledged this incident",
                    ));
                }
                Err(other) => return Err(Error::conflict(other.to_string())),
            }
            let incident = draft
                .next
                .state
                .incident
                .clone()
                .ok_or_else(|| Error::not_found("no such incident"))?;
            Ok((draft, Decision::write(incident)))
        })
        .await?;
    Ok(done.value)
}
