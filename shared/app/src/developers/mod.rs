//! The developer side of the platform: who a developer caller is
//! ([`developer_session`], [`active_developer`], [`connector_developer`]),
//! the moves of a connector version on its way to the catalogue (`moves`)
//! and the versions a developer submits (`submissions`).

use alyt_domain::access::{KeyKind, Principal, Scope, SessionKind};
use alyt_domain::ids::{DeveloperId, SessionId, TenantId, UserId};
use alyt_events::Audience;
use alyt_store::repo::developers::{DeveloperRecord, DeveloperStatus, Developers};

use crate::{App, Error};

pub mod account;
pub mod admin;
pub mod connectors;
pub mod event_bridge;
pub mod keys;
pub mod mfa;
pub mod moves;
pub mod quota;
pub mod review;
pub mod sandbox;
pub mod scripts;
pub mod simulator;
pub mod submissions;
pub mod webhooks;

/// A signed-in developer.
#[derive(Debug, Clone, Copy)]
pub struct SignedIn {
    pub user: UserId,
    pub developer: DeveloperId,
    pub session: SessionId,
}

/// The caller as a developer session. A key is refused as forbidden (keys
/// do not manage the account or keys); a household session is the wrong
/// kind of token, so unauthorized, as any other token this operation does
/// not accept.
pub fn developer_session(caller: &Principal) -> Result<SignedIn, Error> {
    match caller {
        Principal::Person {
            claims,
            kind: SessionKind::Developer,
            session,
            developer: Some(developer),
        } => Ok(SignedIn {
            user: claims.sub,
            developer: *developer,
            session: *session,
        }),
        Principal::Person { .. } | Principal::Widget { .. } | Principal::Routine { .. } => {
            Err(Error::unauthorized(
                "this operation needs a developer session (sign in with /v1/developers/auth/login)",
            ))
        }
        Principal::Key { .. } => Err(Error::forbidden(
            "this operation is for signed-in developers, not keys",
        )),
    }
}

/// The developer record of a signed-in developer, which must be active.
pub async fn active_developer(app: &App, signed_in: &SignedIn) -> Result<DeveloperRecord, Error> {
    let developer = Developers(&*app.store)
        .get(signed_in.developer)
        .await?
        .filter(|d| d.user_id == signed_in.user)
        .ok_or_else(|| Error::unauthorized("the developer account no longer exists"))?;
    if developer.status != DeveloperStatus::Active {
        return Err(Error::forbidden("the developer account is not active"));
    }
    Ok(developer)
}

/// The developer behind the caller of a connector operation: a developer
/// session, or a DEV key with `scope`. The developer must be active.
pub async fn connector_developer(
    app: &App,
    caller: &Principal,
    scope: Scope,
) -> Result<DeveloperRecord, Error> {
    match caller {
        Principal::Key {
            developer, kind, ..
        } => {
            caller.require_scope(scope)?;
            if *kind == KeyKind::Live {
                return Err(Error::forbidden(
                    "a LIVE key acts for its own connector; manage connectors with a developer \
                     session or a DEV key",
                ));
            }
            Developers(&*app.store)
                .get(*developer)
                .await?
                .filter(|d| d.status == DeveloperStatus::Active)
                .ok_or_else(|| Error::unauthorized("the developer account is not active"))
        }
        Principal::Person { .. } | Principal::Widget { .. } | Principal::Routine { .. } => {
            let me = developer_session(caller)?;
            active_developer(app, &me).await
        }
    }
}

/// The tenants whose events the caller hears on the developers' stream,
/// and which of their events: a key with `events:read` its tenants (a DEV
/// key its developer's sandbox; a LIVE key, in the tenants that installed
/// its connector, only the events about the integrations made from it); a
/// developer session its sandbox only.
pub async fn stream_tenants(
    app: &App,
    caller: &Principal,
) -> Result<(Vec<TenantId>, Audience), Error> {
    match caller {
        Principal::Key {
            developer,
            tenants,
            kind,
            connector,
            ..
        } => {
            caller.require_scope(Scope::EventsRead)?;
            Developers(&*app.store)
                .get(*developer)
                .await?
                .filter(|d| d.status == DeveloperStatus::Active)
                .ok_or_else(|| Error::unauthorized("the developer account is not active"))?;
            let audience = match (kind, connector) {
                (KeyKind::Dev, _) => Audience::Tenants,
                (KeyKind::Live, Some(connector)) => Audience::Connector(*connector),
                // A LIVE key of no connector reaches no tenant.
                (KeyKind::Live, None) => return Ok((Vec::new(), Audience::Tenants)),
            };
            Ok((tenants.iter().copied().collect(), audience))
        }
        Principal::Person { .. } | Principal::Widget { .. } | Principal::Routine { .. } => {
            let me = developer_session(caller)?;
            let developer = active_developer(app, &me).await?;
            Ok((
                developer.sandbox_tenant_id.into_iter().collect(),
                Audience::Tenants,
            ))
        }
    }
}
