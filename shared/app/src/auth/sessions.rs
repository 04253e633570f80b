//! Signing in and refreshing: building claims from what a person holds now,
//! issuing a token pair, and rotating refresh tokens with reuse detection.

use std::net::IpAddr;

use alyt_domain::access::Claims;
use alyt_domain::access::SessionKind;
use alyt_domain::ids::SessionId;
use alyt_store::repo::developers::{DeveloperStatus, Developers};
use alyt_store::repo::identity::{Refreshed, SessionRecord, Sessions, UserRecord, Users};
use serde::Serialize;

use crate::{App, Error};
use alyt_domain::secret::{random_token, sha256_hex};

/// How long a sign-in lasts before the person must sign in again.
pub const SESSION_DAYS: i64 = 30;
/// Refresh tokens carry this prefix so they are recognisable in a leak scan.
const REFRESH_PREFIX: &str = "rt_";

/// The login response (household).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TokenPair {
    pub access_token: String,
    pub refresh_token: String,
    /// Seconds the access token lives.
    pub expires_in: i64,
}

/// Signs a session's access token (the token format is the edge's: the
/// HTTP layer signs and verifies its bearer tokens).
pub trait SessionSigner: Send + Sync {
    /// The access token carrying `claims`.
    fn issue_session(&self, claims: &Claims) -> String;
}

/// An access token for `session` and the seconds it lives. A developer
/// session of an account that is no longer active (suspended) gets none: the
/// session is revoked, so its refresh token stops working too.
async fn access_token(
    app: &App,
    signer: &dyn SessionSigner,
    user: &UserRecord,
    kind: SessionKind,
    session: SessionId,
    address: Option<IpAddr>,
) -> Result<(String, i64), Error> {
    if kind == SessionKind::Developer {
        let active = match user.developer_id {
            Some(id) => Developers(&*app.store)
                .get(id)
                .await?
                .is_some_and(|d| d.status == DeveloperStatus::Active),
            None => false,
        };
        if !active {
            Sessions(&*app.store).revoke(session).await?;
            return Err(refresh_refused());
        }
    }
    let claims = crate::grants::build_claims(app, user, session.to_string(), address).await?;
    let token = signer.issue_session(&claims);
    Ok((token, claims.exp - claims.iat))
}

/// Starts a new session for a person whose credentials were checked.
pub async fn start(
    app: &App,
    signer: &dyn SessionSigner,
    user: &UserRecord,
    kind: SessionKind,
    address: Option<IpAddr>,
) -> Result<TokenPair, Error> {
    let now = app.clock.now();
    let session = SessionRecord {
        id: SessionId::new(),
        user_id: user.id,
        kind,
        // A developer session names its account here, not in its tokens.
        developer: match kind {
            SessionKind::Developer => user.developer_id,
            SessionKind::Household => None,
        },
        generation: 0,
        revoked: false,
        stay_ended: false,
        created_at: now,
        expires_at: now.unix_timestamp() + SESSION_DAYS * 86_400,
    };
    let refresh_token = format!("{REFRESH_PREFIX}{}", random_token());
    Sessions(&*app.store)
        .start(&session, &sha256_hex(&refresh_token))
        .await?;
    let (access_token, expires_in) =
        access_token(app, signer, user, kind, session.id, address).await?;
    Ok(TokenPair {
        access_token,
        refresh_token,
        expires_in,
    })
}

fn refresh_refused() -> Error {
    Error::unauthorized("the refresh token is not valid; sign in again")
}

/// Rotates a refresh token. Reuse of a rotated token revokes the whole session,
/// which also stops every access token issued from it; so does losing a race
/// with a concurrent refresh of the same token (the store decides the race).
pub async fn refresh(
    app: &App,
    signer: &dyn SessionSigner,
    presented: &str,
    kind: SessionKind,
    address: Option<IpAddr>,
) -> Result<TokenPair, Error> {
    let next_token = format!("{REFRESH_PREFIX}{}", random_token());
    let refreshed = Sessions(&*app.store)
        .refresh(
            &sha256_hex(presented),
            kind,
            app.clock.unix_seconds(),
            &sha256_hex(&next_token),
        )
        .await?;
    match refreshed {
        Refreshed::Rotated(session) => {
            let user = Users(&*app.store)
                .get(session.user_id)
                .await?
                .ok_or_else(refresh_refused)?;
            let (access_token, expires_in) =
                access_token(app, signer, &user, kind, session.id, address).await?;
            Ok(TokenPair {
                access_token,
                refresh_token: next_token,
                expires_in,
            })
        }
        Refreshed::Revoked(session) => {
            tracing::warn!(%session, "refresh token reuse (or a lost concurrent refresh): the session is revoked");
            Err(refresh_refused())
        }
        Refreshed::Refused => Err(refresh_refused()),
        Refreshed::StayEnded => Err(Error::stay_ended()),
    }
}
