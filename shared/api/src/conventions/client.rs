//! What the runtime edge tells about the caller's network address.

use std::net::IpAddr;

/// The caller's network address, inserted by the runtime edge (the local
/// server's socket, or API Gateway's source IP on Lambda).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddr(pub IpAddr);

/// The client address of a request, when the edge gave one: an extractor
/// that never fails (for the failed-attempt limiter and the bot check).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Client(pub Option<IpAddr>);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for Client {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _state: &S,
    ) -> Result<Self, Self::Rejection> {
        Ok(Client(parts.extensions.get::<ClientAddr>().map(|c| c.0)))
    }
}
