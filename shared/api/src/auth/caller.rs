//! The caller extractor: `Authorization: Bearer <token>` to a [`Principal`].
//!
//! A token is either a developer key (`svc_dev_…`, DEV or LIVE as its record
//! says) or a widget token (`wt_…`, its person still holding the home), looked up by its
//! SHA-256, or a JWT: a session token (its `jti` names the session, which
//! must not be revoked and says whether it is a household's or a
//! developer's) or a five-minute app token (its key must still be live).
//! Every failure answers the same 401, so the answer says nothing about which
//! part was wrong.

use alyt_app::auth::principal;
use alyt_domain::access::Principal;
use axum::extract::FromRequestParts;
use axum::http::header;
use axum::http::request::Parts;

use super::jwt::Verified;
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
    principal::unauthorized().into()
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

pub use alyt_app::auth::principal::Counted;

pub async fn authenticate(state: &AppState, token: &str) -> Result<Principal, ApiError> {
    identify(state, token, Counted::AsRequest).await
}

/// The principal `token` stands for now, every check of [`authenticate`]
/// made again (a revoked or rotated key, a revoked widget, a suspended
/// developer, a revoked session all fail), without counting a request.
pub async fn recheck(state: &AppState, token: &str) -> Result<Principal, ApiError> {
    identify(state, token, Counted::NotCounted).await
}

/// The token's form decides where it is looked up; a JWT's signature is
/// verified here, its session or key checked by the use case.
async fn identify(state: &AppState, token: &str, counted: Counted) -> Result<Principal, ApiError> {
    if token.starts_with(KEY_PREFIX) || token.starts_with(LEGACY_LIVE_KEY_PREFIX) {
        return Ok(principal::by_key_secret(state, token, counted).await?);
    }
    if token.starts_with(WIDGET_TOKEN_PREFIX) {
        return Ok(principal::by_widget_token(state, token).await?);
    }
    let identified = match state.tokens.verify_fresh(token, &*state.clock).await {
        Ok(Verified::Session { claims, session }) => {
            principal::by_session(state, claims, session).await
        }
        Ok(Verified::App { key_id, developer }) => {
            principal::by_app_token(state, developer, key_id, counted).await
        }
        // A guest's token that expired with their stay: say the stay ended
        // (one read, for a genuine expired session token only).
        Err(super::jwt::TokenError::Expired) => match state.tokens.session_of(token) {
            Some(session) => Err(principal::expired_session(state, session).await),
            None => Err(principal::unauthorized()),
        },
        Err(_) => Err(principal::unauthorized()),
    };
    Ok(identified?)
}
