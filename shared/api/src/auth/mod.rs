//! Who is calling: session and app tokens (JWT) and the [`Caller`] extractor
//! every router uses to turn a bearer token into a
//! [`Principal`](alyt_domain::access::Principal). Passwords, attempts, TOTP
//! and sessions are [`alyt_app::auth`]'s.

pub mod caller;
pub mod jwt;
pub mod sessions;

pub use alyt_app::auth::{attempts, credentials, totp};
pub use caller::Caller;
pub use jwt::TokenSigner;

/// Password hashes and the high-entropy secrets' helpers, where the groups
/// import them from.
pub mod secrets {
    pub use alyt_app::auth::passwords::*;
    pub use alyt_domain::secret::{constant_time_eq, random_bytes, random_token, sha256_hex};
}
