//! The caller extractor: `Authorization: Bearer <token>` to a [`Principal`].
//!
//! A token is either a developer key (`svc_dev_…`, DEV or LIVE as its record
//! says) or a widget token (`wt_…`, its person still holding the home), looked up by its
//! SHA-256, or a JWT: a session token (its `jti` names the session, which
//! must not be revoked and says whether it is a household's or a
//! developer's) or a five-minute app token (its key must still be live).
//! Every failure answers the same 401, so the answer says nothing about which
//! part was wrong.

use std::collections::BTreeSet;

use alyt_domain::access::{HouseholdRole, KeyKind, Principal, SessionKind};
use alyt_domain::ids::ConnectorId;
use alyt_store::repo::developers::{DeveloperStatus, Developers, KeyRecord};
use alyt_store::repo::identity::{Sessions, Users};
use alyt_store::repo::integrations::Integrations;
use alyt_store::repo::members::Members;
use alyt_store::repo::widgets::Widgets;
use axum::extract::FromRequestParts;
use axum::http::header;
use axum::http::request::Parts;

use super::jwt::Verified;
use super::secrets::sha256_hex;
use crate::{ApiError, AppState};

/// Every developer key's secret begins so, DEV and LIVE alike: the kind is
/// the key record's, never read from the secret's text.
pub const KEY_PREFIX: &str = "svc_dev_";
/// The form LIVE secrets had before they took [`KEY_PREFIX`]: an already
/// issued one is still looked up (its record still says LIVE) until it is
/// rotated or revoked; none is issued any more.
pub const LEGACY_LIVE_KEY_PREFIX: &str = "svc_live_";
pub use alyt_app::widgets::WIDGET_TOKEN_PREFIX;

/// The authenticated caller of a request.
#[derive(Debug, Clone)]
pub struct Caller(pub Principal);

impl std::ops::Deref for Caller {
    type Target = Principal;
    fn deref(&self) -> &Principal {
        &self.0
    }
}

fn unauthorized() -> ApiError {
    ApiError::unauthorized("send a valid token as Authorization: Bearer <token>")
}

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let token = bearer_token(&parts.headers);
        let principal = match token {
            Some(token) => authenticate(state, token).await,
            None => Err(unauthorized()),
        };
        // The rate limit counts the principal, or the address when this failed.
        crate::conventions::ratelimit::charge_caller(
            &state.limiter,
            &parts.extensions,
            principal.as_ref().ok(),
        )?;
        principal.map(Caller)
    }
}

/// The caller when there is one; `None` for anonymous requests. A token that is
/// present but wrong is still a 401.
#[derive(Debug, Clone)]
pub struct MaybeCaller(pub Option<Principal>);

impl FromRequestParts<AppState> for MaybeCaller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        if parts.headers.contains_key(header::AUTHORIZATION) {
            Caller::from_request_parts(parts, state)
                .await
                .map(|c| MaybeCaller(Some(c.0)))
        } else {
            Ok(MaybeCaller(None))
        }
    }
}

/// The bearer token of a request, when it sends one.
pub fn bearer_token(headers: &axum::http::HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(str::trim)
        .filter(|t| !t.is_empty())
}

/// Whether identifying a caller counts as one of its requests (the
/// developer quota, a key's last use): a request does, an open stream
/// checking its caller again does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    AsRequest,
    NotCounted,
}

pub async fn authenticate(state: &AppState, token: &str) -> Result<Principal, ApiError> {
    identify(state, token, Counted::AsRequest).await
}

/// The principal `token` stands for now, every check of [`authenticate`]
/// made again (a revoked or rotated key, a revoked widget, a suspended
/// developer, a revoked session all fail), without counting a request.
pub async fn recheck(state: &AppState, token: &str) -> Result<Principal, ApiError> {
    identify(state, token, Counted::NotCounted).await
}

async fn identify(state: &AppState, token: &str, counted: Counted) -> Result<Principal, ApiError> {
    if token.starts_with(KEY_PREFIX) || token.starts_with(LEGACY_LIVE_KEY_PREFIX) {
        let key = Developers(&*state.store)
            .key_by_secret_hash(&sha256_hex(token))
            .await?
            .ok_or_else(unauthorized)?;
        return key_principal(state, key, counted).await;
    }
    if token.starts_with(WIDGET_TOKEN_PREFIX) {
        return widget_principal(state, token).await;
    }
    match state.tokens.verify(token, &*state.clock) {
        Ok(Verified::Session { claims, session }) => {
            let record = Sessions(&*state.store)
                .get(session)
                .await?
                .ok_or_else(unauthorized)?;
            if record.user_id != claims.sub {
                return Err(unauthorized());
            }
            if record.revoked {
                // A guest signed out by the end of their stay is told so.
                return Err(if record.stay_ended {
                    ApiError::stay_ended()
                } else {
                    unauthorized()
                });
            }
            // The token says nothing of its kind: household or developer,
            // and whose developer account, is the session's.
            let developer = match record.kind {
                SessionKind::Household => None,
                SessionKind::Developer => match record.developer {
                    Some(developer) => Some(developer),
                    // Started before sessions named their developer: the
                    // user's account (one more read, until such sessions
                    // end, 30 days on).
                    None => Users(&*state.store)
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
        Ok(Verified::App { key_id, developer }) => {
            let key = Developers(&*state.store)
                .key(developer, key_id)
                .await?
                .ok_or_else(unauthorized)?;
            key_principal(state, key, counted).await
        }
        // A guest's token that expired with their stay: say the stay ended
        // (one read, for a genuine expired session token only).
        Err(super::jwt::TokenError::Expired) => match state.tokens.session_of(token) {
            Some(session) => match Sessions(&*state.store).get(session).await? {
                Some(record) if record.revoked && record.stay_ended => Err(ApiError::stay_ended()),
                _ => Err(unauthorized()),
            },
            None => Err(unauthorized()),
        },
        Err(_) => Err(unauthorized()),
    }
}

/// A widget token, not expired, whose person still holds a grant in force
/// for its home (a guest: inside the stay, pinned to that home) with no
/// network condition (a conditional member cannot hold a widget: the
/// condition is judged at sign-in, which a widget never does). Two gets.
async fn widget_principal(state: &AppState, token: &str) -> Result<Principal, ApiError> {
    let widget = Widgets(&*state.store)
        .by_hash(&sha256_hex(token))
        .await?
        .ok_or_else(unauthorized)?;
    let now = state.clock.now();
    if widget.expires_at() <= now {
        return Err(unauthorized());
    }
    let holds = Members(&*state.store)
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
/// counted against the developer's quota (see [`alyt_app::quota`]).
async fn key_principal(
    state: &AppState,
    key: KeyRecord,
    counted: Counted,
) -> Result<Principal, ApiError> {
    let now = state.clock.now();
    if key.revoked_at.is_some() || key.expires_at.is_some_and(|e| e <= now) {
        return Err(unauthorized());
    }
    let developers = Developers(&*state.store);
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
        (KeyKind::Live, Some(connector)) => Integrations(&*state.store)
            .installing_tenants(connector)
            .await?
            .into_iter()
            .collect(),
        (KeyKind::Live, None) => BTreeSet::new(),
    };
    if counted == Counted::AsRequest {
        // Every keyed request counts against the developer's REQUESTS quota; a
        // spent quota refuses the request here (429), before any handler runs.
        alyt_app::quota::count_key_request(state, &key).await?;
        // lastUsedAt to the minute, written by the usage meter's flush.
        if key
            .last_used_at
            .is_none_or(|last| now - last >= time::Duration::minutes(1))
        {
            state.meter.note_key_use(key.developer_id, key.id, now);
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
