//! Outbound safety for webhook requests, and the HTTP sender.
//!
//! A webhook URL is chosen by a developer, so the platform must not become a
//! proxy into its own network (SSRF). The hosted policy accepts only https and
//! public addresses; a local/self-hosted switch allows http and private
//! networks. Addresses are checked after DNS resolution, and the connection
//! goes to exactly the addresses checked: the reqwest client's resolver *is*
//! the check ([`CheckedResolver`]), so there is no second lookup a rebinding
//! DNS server could answer differently. IP literals (which never reach a
//! resolver) are checked from the parsed URL, after the url crate has
//! normalised the decimal, hex and octal IPv4 forms (`http://2130706433/`,
//! `http://0x7f000001/`, `http://0177.0.0.1/` all parse as 127.0.0.1).
//! Redirects are never followed (a 3xx is an answer, and a failure), proxies
//! from the environment are ignored, and a request has 10 seconds in all.

use std::error::Error as StdError;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use async_trait::async_trait;
use url::{Host, Url};

/// A webhook request has this long in all: a 2xx within it is delivered.
pub const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
/// Longer URLs are refused at registration and at delivery.
pub const MAX_URL_BYTES: usize = 2048;

/// Where webhook requests may go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutboundPolicy {
    /// Only https URLs.
    pub require_https: bool,
    /// Loopback, private, link-local, CGNAT, documentation and reserved
    /// addresses are allowed. Never the cloud metadata addresses, unspecified,
    /// broadcast or multicast: no receiver lives there.
    pub allow_private_networks: bool,
}

impl OutboundPolicy {
    /// The hosted platform: https to public addresses only.
    pub const HOSTED: OutboundPolicy = OutboundPolicy {
        require_https: true,
        allow_private_networks: false,
    };
    /// The local platform's default: http to private networks too (so a
    /// receiver on 127.0.0.1 works); the local binary says so at start.
    pub const LOCAL: OutboundPolicy = OutboundPolicy {
        require_https: false,
        allow_private_networks: true,
    };

    /// This policy, or [`OutboundPolicy::LOCAL`] when [`PRIVATE_NETWORKS_ENV`]
    /// is `on`. The hosted functions read it so the emulated AWS region
    /// (`infra/emulate`, which sets it) can deliver to a test's receiver on
    /// 127.0.0.1; the template never sets it, so a deployed stack keeps the
    /// hosted policy.
    pub fn with_env(self) -> Self {
        match std::env::var(PRIVATE_NETWORKS_ENV)
            .as_deref()
            .map(str::trim)
        {
            Ok("on" | "true" | "1" | "yes") => {
                tracing::warn!(
                    "{PRIVATE_NETWORKS_ENV} is on: webhooks and connector servers may reach http \
                     URLs and loopback, private and link-local addresses"
                );
                OutboundPolicy::LOCAL
            }
            _ => self,
        }
    }
}

/// `ALYT_WEBHOOKS_PRIVATE_NETWORKS`: `on` lets webhooks and connector
/// servers reach http URLs and private networks (the local platform's
/// default; see [`OutboundPolicy::with_env`] for the hosted functions).
pub const PRIVATE_NETWORKS_ENV: &str = "ALYT_WEBHOOKS_PRIVATE_NETWORKS";

/// What an address is, for the policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressClass {
    Public,
    Loopback,
    /// RFC 1918 and IPv6 unique local (fc00::/7).
    Private,
    /// 169.254/16, fe80::/10.
    LinkLocal,
    /// 100.64/10.
    SharedCgnat,
    Documentation,
    /// Special-purpose ranges that are not public unicast (benchmarking,
    /// IETF protocol assignments, 240/4, Teredo, site-local, ...).
    Reserved,
    Unspecified,
    Broadcast,
    Multicast,
    /// The instance metadata services of the clouds (AWS, GCP, Azure,
    /// Oracle, Alibaba; AWS's IPv6 and ECS task endpoints).
    CloudMetadata,
}

impl AddressClass {
    pub fn as_str(self) -> &'static str {
        match self {
            AddressClass::Public => "public",
            AddressClass::Loopback => "loopback",
            AddressClass::Private => "private",
            AddressClass::LinkLocal => "link-local",
            AddressClass::SharedCgnat => "shared (CGNAT)",
            AddressClass::Documentation => "documentation",
            AddressClass::Reserved => "reserved",
            AddressClass::Unspecified => "unspecified",
            AddressClass::Broadcast => "broadcast",
            AddressClass::Multicast => "multicast",
            AddressClass::CloudMetadata => "cloud metadata",
        }
    }

    pub fn allowed(self, policy: OutboundPolicy) -> bool {
        match self {
            AddressClass::Public => true,
            AddressClass::Unspecified
            | AddressClass::Broadcast
            | AddressClass::Multicast
            | AddressClass::CloudMetadata => false,
            AddressClass::Loopback
            | AddressClass::Private
            | AddressClass::LinkLocal
            | AddressClass::SharedCgnat
            | AddressClass::Documentation
            | AddressClass::Reserved => policy.allow_private_networks,
        }
    }
}

fn in_v4(ip: Ipv4Addr, net: [u8; 4], prefix: u32) -> bool {
    let mask = if prefix == 0 {
        0
    } else {
        u32::MAX << (32 - prefix)
    };
    u32::from(ip) & mask == u32::from(Ipv4Addr::from(net)) & mask
}

fn in_v6(ip: Ipv6Addr, net: [u16; 8], prefix: u32) -> bool {
    let mask = if prefix == 0 {
        0
    } else {
        u128::MAX << (128 - prefix)
    };
    u128::from(ip) & mask == u128::from(Ipv6Addr::from(net)) & mask
}

const METADATA_V4: [Ipv4Addr; 4] = [
    Ipv4Addr::new(169, 254, 169, 254),
    Ipv4Addr::new(169, 254, 170, 2),
    Ipv4Addr::new(192, 0, 0, 192),
    Ipv4Addr::new(100, 100, 100, 200),
];
const METADATA_V6: [Ipv6Addr; 1] = [Ipv6Addr::new(0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254)];

pub fn classify_v4(ip: Ipv4Addr) -> AddressClass {
    use AddressClass::*;
    if METADATA_V4.contains(&ip) {
        return CloudMetadata;
    }
    if ip.is_unspecified() {
        return Unspecified;
    }
    if ip.is_broadcast() {
        return Broadcast;
    }
    let ranges: [([u8; 4], u32, AddressClass); 16] = [
        ([0, 0, 0, 0], 8, Reserved),
        ([10, 0, 0, 0], 8, Private),
        ([100, 64, 0, 0], 10, SharedCgnat),
        ([127, 0, 0, 0], 8, Loopback),
        ([169, 254, 0, 0], 16, LinkLocal),
        ([172, 16, 0, 0], 12, Private),
        ([192, 0, 0, 0], 24, Reserved),
        ([192, 0, 2, 0], 24, Documentation),
        ([192, 88, 99, 0], 24, Reserved),
        ([192, 168, 0, 0], 16, Private),
        ([198, 18, 0, 0], 15, Reserved),
        ([198, 51, 100, 0], 24, Documentation),
        ([203, 0, 113, 0], 24, Documentation),
        ([224, 0, 0, 0], 4, Multicast),
        ([240, 0, 0, 0], 4, Reserved),
        ([255, 255, 255, 255], 32, Broadcast),
    ];
    ranges
        .into_iter()
        .find(|(net, prefix, _)| in_v4(ip, *net, *prefix))
        .map_or(Public, |(_, _, class)| class)
}

pub fn classify_v6(ip: Ipv6Addr) -> AddressClass {
    use AddressClass::*;
    if METADATA_V6.contains(&ip) {
        return CloudMetadata;
    }
    if ip.is_unspecified() {
        return Unspecified;
    }
    if ip.is_loopback() {
        return Loopback;
    }
    let bits = u128::from(ip);
    let embedded = |shift: u32| Ipv4Addr::from(((bits >> shift) & 0xffff_ffff) as u32);
    // Forms that reach an IPv4 address: judge that address.
    if in_v6(ip, [0, 0, 0, 0, 0, 0xffff, 0, 0], 96) {
        return classify_v4(embedded(0)); // ::ffff:a.b.c.d (mapped)
    }
    if in_v6(ip, [0x64, 0xff9b, 0, 0, 0, 0, 0, 0], 96) {
        return classify_v4(embedded(0)); // NAT64
    }
    if in_v6(ip, [0x2002, 0, 0, 0, 0, 0, 0, 0], 16) {
        return classify_v4(embedded(80)); // 6to4
    }
    if in_v6(ip, [0, 0, 0, 0, 0, 0, 0, 0], 96) {
        // ::a.b.c.d (compatible, deprecated): never public.
        return match classify_v4(embedded(0)) {
            Public => Reserved,
            class => class,
        };
    }
    let ranges: [([u16; 8], u32, AddressClass); 11] = [
        ([0x64, 0xff9b, 1, 0, 0, 0, 0, 0], 48, Reserved),
        ([0x100, 0, 0, 0, 0, 0, 0, 0], 64, Reserved),
        ([0x2001, 0, 0, 0, 0, 0, 0, 0], 32, Reserved), // Teredo
        ([0x2001, 2, 0, 0, 0, 0, 0, 0], 48, Reserved),
        ([0x2001, 0x10, 0, 0, 0, 0, 0, 0], 28, Reserved),
        ([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0], 32, Documentation),
        ([0x3fff, 0, 0, 0, 0, 0, 0, 0], 20, Documentation),
        ([0xfc00, 0, 0, 0, 0, 0, 0, 0], 7, Private),
        ([0xfe80, 0, 0, 0, 0, 0, 0, 0], 10, LinkLocal),
        ([0xfec0, 0, 0, 0, 0, 0, 0, 0], 10, Reserved),
        ([0xff00, 0, 0, 0, 0, 0, 0, 0], 8, Multicast),
    ];
    if let Some((_, _, class)) = ranges
        .into_iter()
        .find(|(net, prefix, _)| in_v6(ip, *net, *prefix))
    {
        return class;
    }
    // Only 2000::/3 is global unicast.
    if in_v6(ip, [0x2000, 0, 0, 0, 0, 0, 0, 0], 3) {
        Public
    } else {
        Reserved
    }
}

pub fn classify(ip: IpAddr) -> AddressClass {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

/// Why a URL or an address was refused. The message names the address and
/// its class, never the URL (which may carry a token in its query).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("the URL is not a valid absolute URL")]
    BadUrl,
    #[error("the URL is longer than {MAX_URL_BYTES} bytes")]
    TooLong,
    #[error("only http and https URLs are accepted")]
    Scheme,
    #[error("the URL must use https")]
    HttpsRequired,
    #[error("the URL must not carry a user name or password")]
    Credentials,
    #[error("the URL has no host")]
    NoHost,
    #[error("the host did not resolve")]
    Unresolved,
    #[error("the host resolves to {address}, a {} address", class.as_str())]
    Address {
        address: IpAddr,
        class: AddressClass,
    },
}

/// Refuses an address the policy does not allow.
pub fn check_address(policy: OutboundPolicy, address: IpAddr) -> Result<(), Refusal> {
    let class = classify(address);
    if class.allowed(policy) {
        Ok(())
    } else {
        Err(Refusal::Address { address, class })
    }
}

/// Checks a URL without DNS: shape, scheme, no credentials, and an IP-literal
/// host against the policy. Use at registration (then resolve with
/// [`check_url`] for an early answer) and before every request.
pub fn validate_url(policy: OutboundPolicy, raw: &str) -> Result<Url, Refusal> {
    if raw.len() > MAX_URL_BYTES {
        return Err(Refusal::TooLong);
    }
    let url = Url::parse(raw).map_err(|_| Refusal::BadUrl)?;
    match url.scheme() {
        "https" => {}
        "http" if !policy.require_https => {}
        "http" => return Err(Refusal::HttpsRequired),
        _ => return Err(Refusal::Scheme),
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Refusal::Credentials);
    }
    match url.host() {
        None => return Err(Refusal::NoHost),
        Some(Host::Domain("")) => return Err(Refusal::NoHost),
        Some(Host::Ipv4(ip)) => check_address(policy, IpAddr::V4(ip))?,
        Some(Host::Ipv6(ip)) => check_address(policy, IpAddr::V6(ip))?,
        Some(Host::Domain(_)) => {}
    }
    Ok(url)
}

/// Resolves a host name and refuses it when *any* of its addresses is not
/// allowed (a name mixing public and private answers is a rebinding tool).
pub async fn resolve_checked(
    policy: OutboundPolicy,
    host: &str,
    port: u16,
) -> Result<Vec<SocketAddr>, Refusal> {
    let addresses: Vec<SocketAddr> = tokio::net::lookup_host((host, port))
        .await
        .map_err(|_| Refusal::Unresolved)?
        .collect();
    if addresses.is_empty() {
        return Err(Refusal::Unresolved);
    }
    for address in &addresses {
        check_address(policy, address.ip())?;
    }
    Ok(addresses)
}

/// [`validate_url`] and, for a host name, [`resolve_checked`]: the whole check
/// a registration can make up front (delivery checks again, at connect time).
pub async fn check_url(policy: OutboundPolicy, raw: &str) -> Result<Url, Refusal> {
    let url = validate_url(policy, raw)?;
    if let Some(Host::Domain(name)) = url.host() {
        resolve_checked(policy, name, url.port_or_known_default().unwrap_or(443)).await?;
    }
    Ok(url)
}

/// reqwest's resolver for webhook clients: resolves with the system resolver
/// and refuses names with a disallowed address, so the connection can only
/// go to addresses that passed.
#[derive(Debug, Clone, Copy)]
pub struct CheckedResolver {
    pub policy: OutboundPolicy,
}

impl reqwest::dns::Resolve for CheckedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let policy = self.policy;
        let host = name.as_str().to_owned();
        Box::pin(async move {
            // Port 0: reqwest puts in the URL's port.
            let addresses = resolve_checked(policy, &host, 0)
                .await
                .map_err(|refusal| Box::new(refusal) as Box<dyn StdError + Send + Sync>)?;
            Ok(Box::new(addresses.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// One webhook request: what the worker hands the sender.
#[derive(Clone)]
pub struct OutboundRequest {
    pub url: String,
    /// `X-SVC-Event`.
    pub event_kind: String,
    /// `X-SVC-Delivery`.
    pub delivery_id: String,
    /// `X-SVC-Signature`.
    pub signature: String,
    pub body: String,
}

impl std::fmt::Debug for OutboundRequest {
    // The URL may carry a token; the signature is derived from the secret.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutboundRequest")
            .field("event_kind", &self.event_kind)
            .field("delivery_id", &self.delivery_id)
            .finish_non_exhaustive()
    }
}

/// How a request ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendResult {
    /// The endpoint answered with this status (a redirect included).
    Answered(u16),
    /// Nothing was sent: the policy refused the URL or its addresses.
    Refused(Refusal),
    /// No answer: timeout, connection or TLS failure (a short reason).
    Failed(String),
}

/// Sends one webhook request under a policy. The worker takes it as a port so
/// tests and runtimes may wrap it; [`HttpSender`] is the real one.
#[async_trait]
pub trait WebhookSender: Send + Sync + 'static {
    async fn send(&self, policy: OutboundPolicy, request: OutboundRequest) -> SendResult;
}

/// The reqwest sender: rustls with the webpki roots, no redirects, no
/// proxies, 10 s per request, addresses checked by [`CheckedResolver`]. One
/// client per value of `allow_private_networks` (the resolver's policy), each
/// with its own connection pool.
#[derive(Clone)]
pub struct HttpSender {
    strict: reqwest::Client,
    open: reqwest::Client,
}

impl HttpSender {
    pub fn new() -> Result<Self, reqwest::Error> {
        let client = |allow_private_networks| {
            reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .no_proxy()
                .timeout(TIMEOUT)
                .user_agent("Alyt-Webhooks/1")
                .dns_resolver(Arc::new(CheckedResolver {
                    policy: OutboundPolicy {
                        require_https: false,
                        allow_private_networks,
                    },
                }))
                .build()
        };
        Ok(Self {
            strict: client(false)?,
            open: client(true)?,
        })
    }
}

/// The policy refusal inside an error chain (the resolver's error comes back
/// wrapped by hyper and reqwest).
fn refusal_in(error: &(dyn StdError + 'static)) -> Option<Refusal> {
    let mut current = Some(error);
    while let Some(e) = current {
        if let Some(refusal) = e.downcast_ref::<Refusal>() {
            return Some(refusal.clone());
        }
        current = e.source();
    }
    None
}

/// A short reason for a failed request, without the URL.
fn describe(error: &reqwest::Error) -> String {
    if error.is_timeout() {
        return format!("no answer within {} s", TIMEOUT.as_secs());
    }
    let mut current: Option<&(dyn StdError + 'static)> = Some(error);
    while let Some(e) = current {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            return format!("connection failed: {}", io.kind());
        }
        current = e.source();
    }
    if error.is_connect() {
        "connection failed".into()
    } else {
        "the request failed".into()
    }
}

#[async_trait]
impl WebhookSender for HttpSender {
    async fn send(&self, policy: OutboundPolicy, request: OutboundRequest) -> SendResult {
        let url = match validate_url(policy, &request.url) {
            Ok(url) => url,
            Err(refusal) => return SendResult::Refused(refusal),
        };
        let client = if policy.allow_private_networks {
            &self.open
        } else {
            &self.strict
        };
        let sent = client
            .post(url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header("X-SVC-Event", request.event_kind)
            .header("X-SVC-Delivery", request.delivery_id)
            .header("X-SVC-Signature", request.signature)
            .body(request.body)
            .send()
            .await;
        match sent {
            // The body is not read: only the status counts.
            Ok(response) => SendResult::Answered(response.status().as_u16()),
            Err(error) => match refusal_in(&error) {
                Some(refusal) => SendResult::Refused(refusal),
                None => SendResult::Failed(describe(&error)),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use AddressClass::*;

    fn v4(s: &str) -> AddressClass {
        classify(s.parse().unwrap())
    }

    #[test]
    fn address_classes() {
        for (ip, class) in [
            ("8.8.8.8", Public),
            ("1.1.1.1", Public),
            ("127.0.0.1", Loopback),
            ("127.255.255.254", Loopback),
            ("10.1.2.3", Private),
            ("172.16.0.1", Private),
            ("172.31.255.255", Private),
            ("172.32.0.1", Public),
            ("192.168.1.1", Private),
            ("100.64.0.1", SharedCgnat),
            ("100.127.255.255", SharedCgnat),
            ("100.128.0.1", Public),
            ("169.254.1.1", LinkLocal),
            ("169.254.169.254", CloudMetadata),
            ("169.254.170.2", CloudMetadata),
            ("100.100.100.200", CloudMetadata),
            ("192.0.0.192", CloudMetadata),
            ("0.0.0.0", Unspecified),
            ("0.1.2.3", Reserved),
            ("255.255.255.255", Broadcast),
            ("224.0.0.1", Multicast),
            ("239.255.255.250", Multicast),
            ("240.0.0.1", Reserved),
            ("192.0.2.1", Documentation),
            ("198.51.100.1", Documentation),
            ("203.0.113.1", Documentation),
            ("198.18.0.1", Reserved),
            ("::", Unspecified),
            ("::1", Loopback),
            ("::ffff:127.0.0.1", Loopback),
            ("::ffff:10.0.0.1", Private),
            ("::ffff:169.254.169.254", CloudMetadata),
            ("::ffff:8.8.8.8", Public),
            ("::127.0.0.1", Loopback),
            ("::8.8.8.8", Reserved),
            ("64:ff9b::127.0.0.1", Loopback),
            ("64:ff9b::8.8.8.8", Public),
            ("2002:7f00:1::", Loopback),
            ("2002:0808:0808::", Public),
            ("fc00::1", Private),
            ("fd12:3456::1", Private),
            ("fd00:ec2::254", CloudMetadata),
            ("fe80::1", LinkLocal),
            ("fec0::1", Reserved),
            ("ff02::1", Multicast),
            ("2001:db8::1", Documentation),
            ("3fff::1", Documentation),
            ("2001:0:4136:e378::1", Reserved),
            ("100::1", Reserved),
            ("2606:4700:4700::1111", Public),
            ("2a00:1450:4001::200e", Public),
            ("4000::1", Reserved),
        ] {
            assert_eq!(v4(ip), class, "{ip}");
        }
    }

    #[test]
    fn the_url_crate_normalises_ipv4_forms_and_they_are_checked() {
        for raw in [
            "http://2130706433/",
            "http://0x7f000001/",
            "http://0x7F.0.0.1/",
            "http://0177.0.0.1/",
            "http://017700000001/",
            "http://127.1/",
            "http://127.0.0.1./",
            "http://[::ffff:127.0.0.1]/",
            "http://[::ffff:7f00:1]/",
            "http://[::1]/",
        ] {
            let url = Url::parse(raw).unwrap();
            let host = url.host().unwrap().to_owned();
            let ip: IpAddr = match host {
                Host::Ipv4(ip) => ip.into(),
                Host::Ipv6(ip) => ip.into(),
                Host::Domain(d) => panic!("{raw} stayed a domain: {d}"),
            };
            assert_eq!(classify(ip), Loopback, "{raw}");
            assert!(
                matches!(
                    validate_url(OutboundPolicy::LOCAL.with_private(false), raw),
                    Err(Refusal::Address {
                        class: Loopback,
                        ..
                    })
                ),
                "{raw}"
            );
            assert!(validate_url(OutboundPolicy::LOCAL, raw).is_ok(), "{raw}");
        }
        assert_eq!(
            Url::parse("http://2130706433/").unwrap().host_str(),
            Some("127.0.0.1")
        );
    }

    #[test]
    fn url_rules() {
        let hosted = OutboundPolicy::HOSTED;
        assert!(validate_url(hosted, "https://example.com/hook?x=1").is_ok());
        assert_eq!(
            validate_url(hosted, "http://example.com/"),
            Err(Refusal::HttpsRequired)
        );
        assert_eq!(
            validate_url(hosted, "ftp://example.com/"),
            Err(Refusal::Scheme)
        );
        assert_eq!(
            validate_url(hosted, "https://user:pw@example.com/"),
            Err(Refusal::Credentials)
        );
        assert_eq!(validate_url(hosted, "not a url"), Err(Refusal::BadUrl));
        assert_eq!(validate_url(hosted, "/relative"), Err(Refusal::BadUrl));
        assert_eq!(
            validate_url(hosted, &format!("https://e.com/{}", "a".repeat(3000))),
            Err(Refusal::TooLong)
        );
        assert!(matches!(
            validate_url(hosted, "https://169.254.169.254/latest/meta-data/"),
            Err(Refusal::Address {
                class: CloudMetadata,
                ..
            })
        ));
        // Metadata stays refused even when private networks are allowed.
        assert!(validate_url(OutboundPolicy::LOCAL, "http://169.254.169.254/").is_err());
        assert!(validate_url(OutboundPolicy::LOCAL, "http://[fd00:ec2::254]/").is_err());
        assert!(validate_url(OutboundPolicy::LOCAL, "http://10.0.0.1/").is_ok());
        // The refusal never repeats the URL (it may hold a token).
        let message = validate_url(hosted, "https://10.0.0.1/?token=s3cret")
            .unwrap_err()
            .to_string();
        assert!(!message.contains("s3cret") && message.contains("10.0.0.1"));
    }

    #[tokio::test]
    async fn names_are_checked_after_resolution() {
        let strict = OutboundPolicy::LOCAL.with_private(false);
        // localhost resolves from the hosts file: no network needed.
        assert!(matches!(
            resolve_checked(strict, "localhost", 80).await,
            Err(Refusal::Address {
                class: Loopback,
                ..
            })
        ));
        assert!(matches!(
            check_url(strict, "http://localhost:8080/hook").await,
            Err(Refusal::Address { .. })
        ));
        assert!(
            resolve_checked(OutboundPolicy::LOCAL, "localhost", 80)
                .await
                .is_ok()
        );
    }

    impl OutboundPolicy {
        fn with_private(self, allow_private_networks: bool) -> Self {
            Self {
                allow_private_networks,
                ..self
            }
        }
    }
}
