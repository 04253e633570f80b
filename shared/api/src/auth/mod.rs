//! Who is calling: session and app tokens (JWT) and the [`Caller`] extractor
//! every router uses to turn a bearer token into a
//! [`Principal`](alyt_domain::access::Principal). Passwords, attempts, TOTP
//! and sessions are [`alyt_app::auth`]'s.

pub mod caller;
pub mod jwt;
pub mod sessions;

pub use caller::Caller;
pub use jwt::TokenSigner;
