//! Who is calling: secrets and their hashes, session and app tokens (JWT), and
//! the [`Caller`] extractor every router uses to turn a bearer token into a
//! [`Principal`](alyt_domain::access::Principal).

pub mod attempts;
pub mod caller;
pub mod credentials;
pub mod jwt;
pub mod secrets;
pub mod sessions;
pub mod totp;

pub use caller::Caller;
pub use jwt::TokenSigner;
