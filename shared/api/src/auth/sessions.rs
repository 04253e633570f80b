//! Sessions signed with this runtime's token key: [`alyt_app::auth::sessions`]
//! with the state's [`TokenSigner`](super::TokenSigner).

use std::net::IpAddr;

use alyt_domain::access::SessionKind;
use alyt_store::repo::identity::UserRecord;

pub use alyt_app::auth::sessions::{SESSION_DAYS, TokenPair};

use crate::{ApiError, AppState};

/// Starts a new session for a person whose credentials were checked.
pub async fn start(
    state: &AppState,
    user: &UserRecord,
    kind: SessionKind,
    address: Option<IpAddr>,
) -> Result<TokenPair, ApiError> {
    Ok(alyt_app::auth::sessions::start(state, &*state.tokens, user, kind, address).await?)
}

/// Rotates a refresh token.
pub async fn refresh(
    state: &AppState,
    presented: &str,
    kind: SessionKind,
    address: Option<IpAddr>,
) -> Result<TokenPair, ApiError> {
    Ok(alyt_app::auth::sessions::refresh(state, &*state.tokens, presented, kind, address).await?)
}
