//! What the runtime edge tells about the caller's network address.
//!
//! The address is the TCP peer's, unless that peer is a proxy the operator
//! named as trusted ([`TrustedProxies`]): then it is the right-most hop of
//! `X-Forwarded-For` that is not itself a trusted proxy. Hops left of it
//! were written by whoever sent the request and prove nothing, so a client
//! cannot choose its address by sending the header; without trusted proxies
//! the header is never read. This is how the spec's "first x-forwarded-for
//! hop" is read: the first hop the platform's own proxies did not add.
//! Hosted, API Gateway's source IP is the address and no header is read.

use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;

use axum::http::HeaderMap;

/// The caller's network address, inserted by the runtime edge (the local
/// server's socket or the hop its trusted proxies vouch for, or API
/// Gateway's source IP on Lambda).
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

/// One address or network (`10.0.0.7`, `10.0.0.0/8`, `fd00::/8`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Network {
    base: IpAddr,
    prefix: u8,
}

impl Network {
    fn contains(&self, ip: IpAddr) -> bool {
        match (self.base, ip.to_canonical()) {
            (IpAddr::V4(base), IpAddr::V4(ip)) => {
                let mask = u32::MAX
                    .checked_shl(32 - u32::from(self.prefix))
                    .unwrap_or(0);
                u32::from(base) & mask == u32::from(ip) & mask
            }
            (IpAddr::V6(base), IpAddr::V6(ip)) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.prefix))
                    .unwrap_or(0);
                u128::from(base) & mask == u128::from(ip) & mask
            }
            _ => false,
        }
    }
}

impl FromStr for Network {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let bad = || format!("{text:?} is not an IP address or a network like 10.0.0.0/8");
        let (address, prefix) = match text.split_once('/') {
            Some((address, prefix)) => (address, Some(prefix)),
            None => (text, None),
        };
        let base = address.parse::<IpAddr>().map_err(|_| bad())?.to_canonical();
        let bits = if base.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            None => bits,
            Some(prefix) => prefix
                .parse::<u8>()
                .ok()
                .filter(|p| *p <= bits)
                .ok_or_else(bad)?,
        };
        Ok(Network { base, prefix })
    }
}

/// The proxies whose `X-Forwarded-For` the platform believes: a
/// self-hosted platform behind a reverse proxy names them
/// (`ALYT_TRUSTED_PROXIES`, comma-separated addresses and networks). Empty
/// (the default): the TCP peer is the address.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<Network>);

impl FromStr for TrustedProxies {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        text.split(',')
            .map(str::trim)
            .filter(|entry| !entry.is_empty())
            .map(Network::from_str)
            .collect::<Result<_, _>>()
            .map(TrustedProxies)
    }
}

impl TrustedProxies {
    /// The environment variable a self-hosted platform names them in.
    pub const ENV: &'static str = "ALYT_TRUSTED_PROXIES";

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn contains(&self, ip: IpAddr) -> bool {
        self.0.iter().any(|network| network.contains(ip))
    }

    /// The client's address of a request from `peer` carrying these
    /// `X-Forwarded-For` values (in header order): the peer, unless it is
    /// trusted; then the right-most hop that is not trusted. A hop that is
    /// no address ends the walk at the last trusted one (what wrote it
    /// cannot be believed), and so does a list of trusted hops only (the
    /// left-most is the furthest the chain shows).
    pub fn client<'a>(&self, peer: IpAddr, forwarded_for: impl Iterator<Item = &'a str>) -> IpAddr {
        let peer = peer.to_canonical();
        if !self.contains(peer) {
            return peer;
        }
        let hops: Vec<&str> = forwarded_for.flat_map(|value| value.split(',')).collect();
        let mut client = peer;
        for hop in hops.into_iter().rev() {
            let Some(hop) = hop_address(hop.trim()) else {
                return client;
            };
            client = hop;
            if !self.contains(hop) {
                return hop;
            }
        }
        client
    }

    /// [`Self::client`] of a request's headers.
    pub fn client_of(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        if self.is_empty() {
            return peer.to_canonical();
        }
        let values = headers
            .get_all("x-forwarded-for")
            .iter()
            .map(|value| value.to_str().unwrap_or("?"));
        self.client(peer, values)
    }
}

/// A hop as proxies write it: an address, or one with its port
/// (`192.0.2.1:443`, `[2001:db8::1]:443`).
fn hop_address(hop: &str) -> Option<IpAddr> {
    hop.parse::<IpAddr>()
        .or_else(|_| hop.parse::<SocketAddr>().map(|s| s.ip()))
        .ok()
        .map(|ip| ip.to_canonical())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    fn proxies(text: &str) -> TrustedProxies {
        text.parse().unwrap()
    }

    #[test]
    fn trusted_proxies_are_addresses_and_networks_separated_by_commas() {
        let trusted = proxies(" 10.0.0.0/8, 192.0.2.7 ,fd00::/8,,");
        assert!(trusted.contains(ip("10.200.3.4")));
        assert!(trusted.contains(ip("192.0.2.7")));
        assert!(!trusted.contains(ip("192.0.2.8")));
        assert!(trusted.contains(ip("fd12::1")));
        assert!(
            trusted.contains(ip("::ffff:10.1.1.1")),
            "a v4-mapped peer is its v4 address"
        );
        assert!(!trusted.contains(ip("11.0.0.1")));
        assert!(proxies("0.0.0.0/0").contains(ip("203.0.113.5")));
        assert!(proxies("").is_empty());
        for bad in ["10.0.0.0/33", "ten", "10.0.0.0/x", "::/129"] {
            assert!(bad.parse::<TrustedProxies>().is_err(), "{bad}");
        }
    }

    #[test]
    fn behind_a_trusted_proxy_the_rightmost_untrusted_hop_is_the_client() {
        let trusted = proxies("10.0.0.0/8");
        let client = |peer: &str, hops: &[&str]| trusted.client(ip(peer), hops.iter().copied());
        // The client forged a hop; the proxies appended the real one.
        assert_eq!(
            client("10.0.0.1", &["1.1.1.1, 203.0.113.9, 10.0.0.2"]),
            ip("203.0.113.9")
        );
        // Several header lines read as one list, in order.
        assert_eq!(
            client("10.0.0.1", &["1.1.1.1", "203.0.113.9"]),
            ip("203.0.113.9")
        );
        // A hop with its port.
        assert_eq!(
            client("10.0.0.1", &["[2001:db8::1]:443"]),
            ip("2001:db8::1")
        );
        assert_eq!(
            client("10.0.0.1", &["198.51.100.4:8080"]),
            ip("198.51.100.4")
        );
        // No header: the proxy itself.
        assert_eq!(client("10.0.0.1", &[]), ip("10.0.0.1"));
        // Garbage right of the real hop: the last trusted address.
        assert_eq!(
            client("10.0.0.1", &["203.0.113.9, unknown"]),
            ip("10.0.0.1")
        );
        assert_eq!(
            client("10.0.0.1", &["203.0.113.9, nope, 10.0.0.3"]),
            ip("10.0.0.3")
        );
        // Only trusted hops: the left-most.
        assert_eq!(client("10.0.0.1", &["10.9.9.9, 10.0.0.2"]), ip("10.9.9.9"));
        // From anyone else the header is not read.
        assert_eq!(
            client("203.0.113.50", &["10.0.0.1, 1.1.1.1"]),
            ip("203.0.113.50")
        );
        let none = TrustedProxies::default();
        assert_eq!(
            none.client(ip("127.0.0.1"), ["1.1.1.1"].into_iter()),
            ip("127.0.0.1")
        );
    }

    fn v4() -> impl Strategy<Value = IpAddr> {
        any::<u32>().prop_map(|n| IpAddr::V4(n.into()))
    }

    proptest! {
        /// A request not from a trusted proxy is its peer, whatever it says.
        #[test]
        fn an_untrusted_peer_is_the_client_whatever_the_header(
            peer in v4(),
            forged in prop::collection::vec(v4(), 0..5),
        ) {
            let trusted = proxies("10.0.0.0/8");
            prop_assume!(!trusted.contains(peer));
            let header = forged.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ");
            prop_assert_eq!(trusted.client(peer, [header.as_str()].into_iter()), peer);
        }

        /// Whatever a client writes left of its real address, the chain of
        /// trusted proxies after it finds that address.
        #[test]
        fn the_hops_a_client_forges_never_choose_its_address(
            forged in prop::collection::vec(v4(), 0..5),
            real in v4(),
            chain in prop::collection::vec(0u32..(1 << 24), 0..4),
            peer in 0u32..(1 << 24),
        ) {
            let trusted = proxies("10.0.0.0/8");
            prop_assume!(!trusted.contains(real));
            let inside = |n: u32| IpAddr::V4((0x0a00_0000 | n).into());
            let hops: Vec<String> = forged
                .iter()
                .copied()
                .chain([real])
                .chain(chain.into_iter().map(inside))
                .map(|ip| ip.to_string())
                .collect();
            let header = hops.join(",");
            prop_assert_eq!(trusted.client(inside(peer), [header.as_str()].into_iter()), real);
        }
    }
}
