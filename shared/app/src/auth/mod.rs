//! Who a person is: passwords (argon2id), the failed-attempt limiter of
//! passwords and TOTP codes, checking credentials, TOTP, and sessions (a
//! token pair issued on sign-in, refresh tokens rotated with reuse
//! detection). How a token is signed and read is the HTTP edge's
//! ([`sessions::SessionSigner`]).

pub mod account;
pub mod attempts;
pub mod credentials;
pub mod passwords;
pub mod principal;
pub mod sessions;
pub mod totp;

use std::net::IpAddr;

/// The address a client is counted under: an IPv6 address as its /64 (one
/// subscriber's allocation), an IPv4-mapped one as the IPv4 address.
pub fn subscriber(addr: IpAddr) -> IpAddr {
    match addr.to_canonical() {
        IpAddr::V6(v6) => {
            let bits = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(bits.into())
        }
        v4 => v4,
    }
}
