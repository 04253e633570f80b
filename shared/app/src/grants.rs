//! What a person may do now: claims built from their roles and the grants in
//! force at this moment, for a session's token and for a routine acting for
//! them.

use std::net::IpAddr;

use alyt_domain::access::{Claims, ClientGrant, Principal};
use alyt_domain::ids::{RoutineId, UserId};
use alyt_store::repo::identity::{UserRecord, Users};
use alyt_store::repo::tenancy::Tenancy;

use crate::{App, Error};

/// Household session tokens live 15 minutes, app tokens five.
pub const SESSION_TOKEN_SECONDS: i64 = 15 * 60;

/// Claims from the person's current roles and the grants in force now (a guest
/// outside the stay window gets no claim mentioning the home).
/// `address` is the caller's as the edge saw it (the network condition's
/// second signal). `jti` names what the claims are for: a session's id,
/// the record every request reads to find the session live.
pub async fn build_claims(
    app: &App,
    user: &UserRecord,
    jti: String,
    address: Option<IpAddr>,
) -> Result<Claims, Error> {
    let now = app.clock.now();
    let grants = Tenancy(&*app.store).grants_of(user.id).await?;
    // A guest's claims mention the home only inside the stay, to the
    // second: the token ends no later than the next start or end of a stay,
    // so the claims made after it say what holds then.
    let iat = now.unix_timestamp();
    let next_change = grants
        .iter()
        .flat_map(|g| [g.starts_at, g.ends_at])
        .flatten()
        .map(|at| at.unix_timestamp())
        .filter(|at| *at > iat)
        .min();
    let exp = next_change.map_or(iat + SESSION_TOKEN_SECONDS, |at| {
        at.min(iat + SESSION_TOKEN_SECONDS)
    });
    // A grant under the network condition counts only while the home sees
    // the person's phone (checked now: at every sign-in and refresh).
    let mut clients = std::collections::BTreeMap::new();
    for g in grants.into_iter().filter(|g| g.in_force(now)) {
        if g.network.is_some() && !crate::presence::check_condition(app, &g, address).await? {
            continue;
        }
        clients.insert(
            g.client_id,
            ClientGrant {
                role: g.role,
                tenant_id: g.tenant_id,
                property_id: g.property_id,
            },
        );
    }
    Ok(Claims {
        sub: user.id,
        email: user.email.clone(),
        platform_role: user.platform_role,
        tenants: user.tenants.clone(),
        clients,
        iat,
        exp,
        jti,
    })
}

/// Why a routine cannot act for a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoPerson {
    /// The person was deleted.
    Gone,
    /// The store could not be read.
    Unreadable(String),
}

/// `routine` acting for `person`, with the grants the person holds now
/// (never what a token once said): each step that needs authority checks
/// this principal as a request checks its caller's.
pub async fn routine_principal(
    app: &App,
    routine: RoutineId,
    person: UserId,
) -> Result<Principal, NoPerson> {
    let user = Users(&*app.store)
        .get(person)
        .await
        .map_err(|e| NoPerson::Unreadable(e.to_string()))?
        .ok_or(NoPerson::Gone)?;
    let claims = build_claims(app, &user, format!("routine:{routine}"), None)
        .await
        .map_err(|e| NoPerson::Unreadable(e.detail))?;
    Ok(Principal::Routine { claims, routine })
}
