//! Who a presented credential stands for now: a developer key (looked up by
//! its secret's SHA-256), a widget token, or a session or app token whose
//! signature the HTTP edge has verified. Every refusal is the same
//! [`unauthorized`] answer, so it says nothing about which part was wrong;
//! a guest whose stay ended is told so.

use std::collections::BTreeSet;

use alyt_domain::access::{Claims, HouseholdRole, KeyKind, Principal, SessionKind};
use alyt_domain::ids::{ConnectorId, DeveloperId, KeyId, SessionId};
use alyt_domain::secret::sha256_hex;
use alyt_store::repo::developers::{DeveloperStatus, Developers, KeyRecord};
use alyt_store::repo::identity::{Sessions, Users};
use alyt_store::repo::integrations::Integrations;
use alyt_store::repo::members::Members;
use alyt_store::repo::widgets::Widgets;

use crate::{App, Error};

/// The one answer to every credential that is not good.
pub fn unauthorized() -> Error {
    Error::unauthorized("send a valid token as Authorization: Bearer <token>")
}

/// Whether identifying a caller counts as one of its requests (the
/// developer quota, a key's last use): a request does, an open stream
/// checking its caller again does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    AsRequest,
    NotCounted,
}

/// The key whose secret this is.
pub async fn by_key_secret(app: &App, secret: &str, counted: Counted) -> Result<Principal, Error> {
    let key = Developers(&*app.store)
        .key_by_secret_hash(&sha256_hex(secret))
        .await?
        .ok_or_else(unauthorized)?;
    key_principal(app, key, counted).await
}

/// The key an app token was issued for.
pub async fn by_app_token(
    app: &App,
    developer: DeveloperId,
    key_id: KeyId,
    counted: Counted,
) -> Result<Principal, Error> {
    let key = Developers(&*app.store)
        .key(developer, key_id)
        .await?
        .ok_or_else(unauthorized)?;
    key_principal(app, key, counted).await
}

/// The person of a verified session token: the session must be the
/// token's person's and not revoked; it says whether it is a household's or
/// a developer's (the token says nothing of its kind).
pub async fn by_session(app: &App, claims: Claims, session: SessionId) -> Result<Principal, Error> {
    let record = Sessions(&*app.store)
        .get(session)
        .await?
        .ok_or_else(unauthorized)?;
    if record.user_id != claims.sub {
        return Err(unauthorized());
    }
    if record.revoked {
        // A guest signed out by the end of their stay is told so.
        return Err(if record.stay_ended {
            Error::stay_ended()
        } else {
            unauthorized()
        });
    }
    let developer = match record.kind {
        SessionKind::Household => None,
        SessionKind::Developer => match record.developer {
            Some(developer) => Some(developer),
            // Started before sessions named their developer: the
            // user's account (one more read, until such sessions
            // end, 30 days on).
            None => Users(&*app.store)
                .get(record.user_id)
                .await?
                .and_then(|user| user.developer_id),
        },
    };
    Ok(Principal::Person {
        claims,
        kind: record.kind,
        session,
        developer,
    })
}

/// The answer to a genuine session token that expired: a guest's whose stay
/// ended is told so (one read), any other is refused.
pub async fn expired_session(app: &App, session: SessionId) -> Error {
    match Sessions(&*app.store).get(session).await {
        Ok(Some(record)) if record.revoked && record.stay_ended => Error::stay_ended(),
        Ok(_) => unauthorized(),
        Err(e) => e.into(),
    }
}

/// A widget token, not expired, whose person still holds a grant in force
/// for its home (a guest: inside the stay, pinned to that home) with no
/// network condition (a conditional member cannot hold a widget: the
/// condition is judged at sign-in, which a widget never does). Two gets.
pub async fn by_widget_token(app: &App, token: &str) -> Result<Principal, Error> {
    let widget = Widgets(&*app.store)
        .by_hash(&sha256_hex(token))
        .await?
        .ok_or_else(unauthorized)?;
    let now = app.clock.now();
    if widget.expires_at() <= now {
        return Err(unauthorized());
    }
    let holds = Members(&*app.store)
        .get(widget.client_id, widget.user_id)
        .await?
        .is_some_and(|grant| {
            grant.in_force(now)
                && !grant.require_network()
                && (grant.role != HouseholdRole::Guest
                    || grant.property_id == Some(widget.property_id))
        });
    if !holds {
        return Err(unauthorized());
    }
    Ok(Principal::Widget {
        token_id: widget.id,
        user: widget.user_id,
        tenant: widget.tenant_id,
        client: widget.client_id,
        property: widget.property_id,
        surface: widget.surface,
    })
}

/// A live key of an active developer, reaching its tenants; the request is
/// counted against the developer's quota (see [`crate::quota`]).
async fn key_principal(app: &App, key: KeyRecord, counted: Counted) -> Result<Principal, Error> {
    let now = app.clock.now();
    if key.revoked_at.is_some() || key.expires_at.is_some_and(|e| e <= now) {
        return Err(unauthorized());
    }
    let developers = Developers(&*app.store);
    let developer = developers
        .get(key.developer_id)
        .await?
        .filter(|d| d.status == DeveloperStatus::Active)
        .ok_or_else(unauthorized)?;
    // A LIVE key acts for its connector in the tenants that installed it
    // (approval alone grants no household access); a definition that names
    // no connector reaches nothing.
    let connector = match key.kind {
        KeyKind::Dev => None,
        KeyKind::Live => key
            .definition_id
            .as_deref()
            .and_then(|d| d.parse::<ConnectorId>().ok()),
    };
    let tenants: BTreeSet<_> = match (key.kind, connector) {
        (KeyKind::Dev, _) => developer.sandbox_tenant_id.into_iter().collect(),
        (KeyKind::Live, Some(connector)) => Integrations(&*app.store)
            .installing_tenants(connector)
            .await?
            .into_iter()
            .collect(),
        (KeyKind::Live, None) => BTreeSet::new(),
    };
    if counted == Counted::AsRequest {
        // Every keyed request counts against the developer's REQUESTS quota; a
        // spent quota refuses the request here (429), before any handler runs.
        crate::quota::count_key_request(app, &key).await?;
        // lastUsedAt to the minute, written by the usage meter's flush.
        if key
            .last_used_at
            .is_none_or(|last| now - last >= time::Duration::minutes(1))
        {
            app.meter.note_key_use(key.developer_id, key.id, now);
        }
    }
    Ok(Principal::Key {
        key_id: key.id,
        developer: key.developer_id,
        kind: key.kind,
        scopes: key.scopes.iter().copied().collect(),
        tenants,
        connector,
    })
}
