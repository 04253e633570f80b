//! The platform's client for connector servers (every call carries the
//! connector's runtime token), and a reference connector server.
//!
//! * [`ConnectorClient`]: the port, one method per protocol call;
//!   [`HttpConnectorClient`] is the real one.
//! * The wire types live in `alyt_domain::integration::connector` and are
//!   re-exported here; the protocol is documented in `PROTOCOL.md`.
//! * [`bridge`] (feature `bridge`, on by default): [`bridge::VirtualBridge`],
//!   an in-memory LAN bridge speaking the protocol, for tests and as a worked
//!   example for developers.
//!
//! # Outbound safety
//! A connector's server URL is chosen by a developer, so calls follow the
//! webhook rules of `alyt_events::outbound`: the URL is checked by
//! [`validate_url`] (scheme, credentials, IP literals), host names are
//! checked at connect time by the client's resolver ([`CheckedResolver`]),
//! redirects are never followed (a 3xx is [`ConnectorError::Status`]),
//! environment proxies are ignored, and a call has [`HttpConnectorClient::TIMEOUT`]
//! in all. Answers are read up to [`MAX_ANSWER_BYTES`].
//!
//! Nothing here logs: calls carry the runtime token, the integration config
//! and what a person typed, all household or developer secrets.

use std::error::Error as StdError;
use std::sync::Arc;
use std::time::Duration;

use alyt_events::outbound::{CheckedResolver, Refusal, validate_url};
use serde::Serialize;
use serde::de::DeserializeOwned;
use url::Url;

pub use alyt_domain::integration::connector::*;
pub use alyt_domain::integration::music::{
    AUTHORITY_PATH, AuthorityAnswer, AuthorityCall, FAVOURITES_PATH, FavouritesAnswer,
    FavouritesCall, PLAY_PATH, PlayAnswer, PlayCall, REFRESH_PATH, RefreshAnswer, SEARCH_PATH,
    SOUND_PATH, SearchAnswer, SearchCall, SoundAnswer, SoundCall,
};
pub use alyt_events::outbound::OutboundPolicy;

#[cfg(feature = "bridge")]
pub mod bridge;
pub mod catalogue;

/// The platform's side of the connector protocol: one method per call.
#[async_trait::async_trait]
pub trait ConnectorClient: Send + Sync + 'static {
    /// `POST v1/connect`.
    async fn connect(
        &self,
        server: &ConnectorServer,
        call: &ConnectCall,
    ) -> Result<ConnectAnswer, ConnectorError>;
    /// `POST v1/discover`.
    async fn discover(
        &self,
        server: &ConnectorServer,
        call: &IntegrationCall,
    ) -> Result<DiscoverAnswer, ConnectorError>;
    /// `POST v1/read`.
    async fn read(
        &self,
        server: &ConnectorServer,
        call: &ReadCall,
    ) -> Result<ReadAnswer, ConnectorError>;
    /// `POST v1/command`.
    async fn command(
        &self,
        server: &ConnectorServer,
        call: &CommandCall,
    ) -> Result<CommandAnswer, ConnectorError>;
    /// `POST v1/disconnect`: any 2xx is success; the body is not read.
    async fn disconnect(
        &self,
        server: &ConnectorServer,
        call: &IntegrationCall,
    ) -> Result<(), ConnectorError>;
    /// `POST v1/music/favourites`.
    async fn music_favourites(
        &self,
        server: &ConnectorServer,
        call: &FavouritesCall,
    ) -> Result<FavouritesAnswer, ConnectorError>;
    /// `POST v1/music/play`.
    async fn music_play(
        &self,
        server: &ConnectorServer,
        call: &PlayCall,
    ) -> Result<PlayAnswer, ConnectorError>;
    /// `POST v1/music/search`.
    async fn music_search(
        &self,
        server: &ConnectorServer,
        call: &SearchCall,
    ) -> Result<SearchAnswer, ConnectorError>;
    /// `POST v1/refresh`: a new provider session.
    async fn refresh(
        &self,
        server: &ConnectorServer,
        call: &IntegrationCall,
    ) -> Result<RefreshAnswer, ConnectorError>;
    /// `POST v1/security/sound`: a speaker sounds the alarm.
    async fn security_sound(
        &self,
        server: &ConnectorServer,
        call: &SoundCall,
    ) -> Result<SoundAnswer, ConnectorError>;
    /// `POST v1/security/authority`: a security system takes over a home's
    /// security, or gives it back.
    async fn security_authority(
        &self,
        server: &ConnectorServer,
        call: &AuthorityCall,
    ) -> Result<AuthorityAnswer, ConnectorError>;
}

/// Where and how to reach one connector's server.
#[derive(Clone)]
pub struct ConnectorServer {
    /// The connector's server URL; calls go to `{base_url}/{path}` (see
    /// [`join_url`]).
    pub base_url: String,
    /// Sent as `Authorization: Bearer <runtime_token>`. Never logged.
    pub runtime_token: String,
    pub policy: OutboundPolicy,
}

impl std::fmt::Debug for ConnectorServer {
    // The runtime token is a secret; the URL is the developer's and may be
    // shown.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectorServer")
            .field("base_url", &self.base_url)
            .field("runtime_token", &"<redacted>")
            .field("policy", &self.policy)
            .finish()
    }
}

/// Why a call to a connector server gave no protocol answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConnectorError {
    /// The outbound policy refused the address (SSRF); no connection was made.
    #[error("the connector server's address was refused: {0}")]
    Refused(String),
    /// No answer: timeout, connection or TLS failure (short reason, no URL, no token).
    #[error("the connector server could not be reached: {0}")]
    Unreachable(String),
    /// The server answered with a non-2xx status (401 = it refused our runtime token).
    #[error("the connector server answered with status {0}")]
    Status(u16),
    /// The answer was not the protocol's JSON, or too big.
    #[error("the connector server's answer is invalid: {0}")]
    InvalidAnswer(String),
}

/// The URL of one call: `path` appended to the server URL's path, whether or
/// not that ends with '/' (`https://c.example/alyt/` and
/// `https://c.example/alyt` both give `https://c.example/alyt/v1/read`). A
/// query is kept, a fragment dropped.
pub fn join_url(base: &Url, path: &str) -> Url {
    let mut url = base.clone();
    url.set_fragment(None);
    let prefix = url.path().trim_end_matches('/').to_owned();
    url.set_path(&format!("{prefix}/{}", path.trim_start_matches('/')));
    url
}

/// The reqwest client of the protocol: rustls with the webpki roots, no
/// redirects, no proxies, addresses checked by [`CheckedResolver`], one
/// client (and connection pool) per value of `allow_private_networks`.
#[derive(Clone)]
pub struct HttpConnectorClient {
    strict: reqwest::Client,
    open: reqwest::Client,
    /// A call has this long in all, connecting and reading the whole answer
    /// included (default [`HttpConnectorClient::TIMEOUT`]; tests shorten it).
    pub timeout: Duration,
}

impl std::fmt::Debug for HttpConnectorClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpConnectorClient")
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// The user agent of every call.
pub const USER_AGENT: &str = "Alyt-Connectors/1";

impl HttpConnectorClient {
    /// The default per-call time limit.
    pub const TIMEOUT: Duration = Duration::from_secs(10);

    /// Fails only when the TLS backend cannot start (as `Unreachable`).
    pub fn new() -> Result<Self, ConnectorError> {
        let client = |allow_private_networks| {
            reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .no_proxy()
                .timeout(Self::TIMEOUT)
                .user_agent(USER_AGENT)
                .dns_resolver(Arc::new(CheckedResolver {
                    policy: OutboundPolicy {
                        require_https: false,
                        allow_private_networks,
                    },
                }))
                .build()
                .map_err(|_| ConnectorError::Unreachable("the HTTP client could not start".into()))
        };
        Ok(Self {
            strict: client(false)?,
            open: client(true)?,
            timeout: Self::TIMEOUT,
        })
    }

    /// The same client with another per-call time limit.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Posts `body` and answers the 2xx response (status and headers read,
    /// body not yet).
    async fn post<B: Serialize>(
        &self,
        server: &ConnectorServer,
        path: &str,
        body: &B,
    ) -> Result<reqwest::Response, ConnectorError> {
        let base = validate_url(server.policy, &server.base_url)
            .map_err(|refusal| ConnectorError::Refused(refusal.to_string()))?;
        let url = join_url(&base, path);
        let client = if server.policy.allow_private_networks {
            &self.open
        } else {
            &self.strict
        };
        let mut authorization =
            reqwest::header::HeaderValue::from_str(&format!("Bearer {}", server.runtime_token))
                .map_err(|_| {
                    ConnectorError::Unreachable(
                        "the runtime token is not a valid header value; nothing was sent".into(),
                    )
                })?;
        authorization.set_sensitive(true);
        // Serialising plain data into a Vec cannot fail.
        let body = serde_json::to_vec(body).unwrap_or_default();
        let sent = client
            .post(url)
            .timeout(self.timeout)
            .header(reqwest::header::AUTHORIZATION, authorization)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(reqwest::header::ACCEPT, "application/json")
            .body(body)
            .send()
            .await;
        let response = sent.map_err(|error| self.failure(&error))?;
        let status = response.status();
        if !status.is_success() {
            // A redirect is an answer too, and never followed.
            return Err(ConnectorError::Status(status.as_u16()));
        }
        Ok(response)
    }

    /// Reads at most [`MAX_ANSWER_BYTES`] of an answer, refusing more
    /// without reading it.
    async fn read_body(&self, mut response: reqwest::Response) -> Result<Vec<u8>, ConnectorError> {
        let too_big = || {
            ConnectorError::InvalidAnswer(format!(
                "the answer is larger than {MAX_ANSWER_BYTES} bytes"
            ))
        };
        if response
            .content_length()
            .is_some_and(|length| length > MAX_ANSWER_BYTES as u64)
        {
            return Err(too_big());
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| self.failure(&e))? {
            if body.len() + chunk.len() > MAX_ANSWER_BYTES {
                return Err(too_big());
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }

    /// One call with a JSON answer, within the time limit.
    async fn call<B: Serialize, A: DeserializeOwned>(
        &self,
        server: &ConnectorServer,
        path: &str,
        body: &B,
    ) -> Result<A, ConnectorError> {
        let exchange = async {
            let response = self.post(server, path, body).await?;
            self.read_body(response).await
        };
        let body = tokio::time::timeout(self.timeout, exchange)
            .await
            .map_err(|_| self.timed_out())??;
        parse_answer(&body)
    }

    fn timed_out(&self) -> ConnectorError {
        ConnectorError::Unreachable(format!("no answer within {}", seconds(self.timeout)))
    }

    /// What a transport error means: a policy refusal (from the resolver),
    /// or a short reason without the URL.
    fn failure(&self, error: &reqwest::Error) -> ConnectorError {
        if let Some(refusal) = refusal_in(error) {
            return ConnectorError::Refused(refusal.to_string());
        }
        if error.is_timeout() {
            return self.timed_out();
        }
        let mut current: Option<&(dyn StdError + 'static)> = Some(error);
        while let Some(e) = current {
            if let Some(io) = e.downcast_ref::<std::io::Error>() {
                return ConnectorError::Unreachable(format!("connection failed: {}", io.kind()));
            }
            current = e.source();
        }
        ConnectorError::Unreachable(
            if error.is_connect() {
                "connection failed"
            } else {
                "the request failed"
            }
            .into(),
        )
    }
}

fn seconds(duration: Duration) -> String {
    let ms = duration.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
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

/// Reads an answer. The reason names where the answer went wrong (a field
/// path, a line and column), never a value from it: an answer may carry a
/// household's config.
fn parse_answer<A: DeserializeOwned>(body: &[u8]) -> Result<A, ConnectorError> {
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    let (error, path) = match serde_path_to_error::deserialize(&mut deserializer) {
        Ok(answer) => match deserializer.end() {
            Ok(()) => return Ok(answer),
            Err(error) => (error, String::new()),
        },
        Err(error) => {
            let path = error.path().to_string();
            (error.into_inner(), path)
        }
    };
    let what = match error.classify() {
        serde_json::error::Category::Io | serde_json::error::Category::Eof => {
            "the answer is incomplete JSON"
        }
        serde_json::error::Category::Syntax => "the answer is not JSON",
        serde_json::error::Category::Data => "the answer does not follow the protocol",
    };
    // A tagged answer (`status`) is buffered before it is read, so neither
    // a path nor a position is known for its fields.
    Err(ConnectorError::InvalidAnswer(
        if !path.is_empty() && path != "." {
            format!("{what} (at {path})")
        } else if error.line() > 0 {
            format!("{what} (line {}, column {})", error.line(), error.column())
        } else {
            what.to_owned()
        },
    ))
}

#[async_trait::async_trait]
impl ConnectorClient for HttpConnectorClient {
    async fn connect(
        &self,
        server: &ConnectorServer,
        call: &ConnectCall,
    ) -> Result<ConnectAnswer, ConnectorError> {
        self.call(server, CONNECT_PATH, call).await
    }

    async fn discover(
        &self,
        server: &ConnectorServer,
        call: &IntegrationCall,
    ) -> Result<DiscoverAnswer, ConnectorError> {
        self.call(server, DISCOVER_PATH, call).await
    }

    async fn read(
        &self,
        server: &ConnectorServer,
        call: &ReadCall,
    ) -> Result<ReadAnswer, ConnectorError> {
        self.call(server, READ_PATH, call).await
    }

    async fn command(
        &self,
        server: &ConnectorServer,
        call: &CommandCall,
    ) -> Result<CommandAnswer, ConnectorError> {
        self.call(server, COMMAND_PATH, call).await
    }

    async fn disconnect(
        &self,
        server: &ConnectorServer,
        call: &IntegrationCall,
    ) -> Result<(), ConnectorError> {
        // The body is not read: any 2xx is success.
        tokio::time::timeout(self.timeout, self.post(server, DISCONNECT_PATH, call))
            .await
            .map_err(|_| self.timed_out())?
            .map(drop)
    }
    async fn music_favourites(
        &self,
        server: &ConnectorServer,
        call: &FavouritesCall,
    ) -> Result<FavouritesAnswer, ConnectorError> {
        self.call(server, FAVOURITES_PATH, call).await
    }

    async fn music_play(
        &self,
        server: &ConnectorServer,
        call: &PlayCall,
    ) -> Result<PlayAnswer, ConnectorError> {
        self.call(server, PLAY_PATH, call).await
    }

    async fn music_search(
        &self,
        server: &ConnectorServer,
        call: &SearchCall,
    ) -> Result<SearchAnswer, ConnectorError> {
        self.call(server, SEARCH_PATH, call).await
    }

    async fn refresh(
        &self,
        server: &ConnectorServer,
        call: &IntegrationCall,
    ) -> Result<RefreshAnswer, ConnectorError> {
        self.call(server, REFRESH_PATH, call).await
    }

    async fn security_sound(
        &self,
        server: &ConnectorServer,
        call: &SoundCall,
    ) -> Result<SoundAnswer, ConnectorError> {
        self.call(server, SOUND_PATH, call).await
    }

    async fn security_authority(
        &self,
        server: &ConnectorServer,
        call: &AuthorityCall,
    ) -> Result<AuthorityAnswer, ConnectorError> {
        self.call(server, AUTHORITY_PATH, call).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joined(base: &str, path: &str) -> String {
        join_url(&Url::parse(base).unwrap(), path).to_string()
    }

    #[test]
    fn join_keeps_the_prefix_with_or_without_a_trailing_slash() {
        for (base, expected) in [
            ("https://c.example", "https://c.example/v1/connect"),
            ("https://c.example/", "https://c.example/v1/connect"),
            (
                "https://c.example/alyt",
                "https://c.example/alyt/v1/connect",
            ),
            (
                "https://c.example/alyt/",
                "https://c.example/alyt/v1/connect",
            ),
            (
                "https://c.example/a/b//",
                "https://c.example/a/b/v1/connect",
            ),
            (
                "http://127.0.0.1:8080/x",
                "http://127.0.0.1:8080/x/v1/connect",
            ),
            (
                "https://c.example/alyt?k=1#frag",
                "https://c.example/alyt/v1/connect?k=1",
            ),
        ] {
            assert_eq!(joined(base, CONNECT_PATH), expected, "{base}");
        }
        // A leading slash in the path does not make it absolute.
        assert_eq!(
            joined("https://c.example/alyt/", "/v1/read"),
            "https://c.example/alyt/v1/read"
        );
        // Every protocol path joins under the prefix.
        for path in [
            CONNECT_PATH,
            DISCOVER_PATH,
            READ_PATH,
            COMMAND_PATH,
            DISCONNECT_PATH,
        ] {
            assert!(joined("https://c.example/p/", path).starts_with("https://c.example/p/v1/"));
        }
    }

    #[test]
    fn debug_redacts_the_runtime_token() {
        let server = ConnectorServer {
            base_url: "https://c.example/".into(),
            runtime_token: "rt_s3cret".into(),
            policy: OutboundPolicy::HOSTED,
        };
        let shown = format!("{server:?}");
        assert!(
            !shown.contains("s3cret") && shown.contains("c.example"),
            "{shown}"
        );
    }

    #[test]
    fn invalid_answers_never_repeat_values() {
        let error =
            parse_answer::<ConnectAnswer>(br#"{"status":"connected","config":"bridgeKey=s3cret"}"#)
                .unwrap_err();
        let ConnectorError::InvalidAnswer(reason) = &error else {
            panic!("{error:?}")
        };
        assert!(!reason.contains("s3cret"), "{reason}");
        let error = parse_answer::<DiscoverAnswer>(
            br#"{"things":[{"externalId":"a","kind":"LIGHT","name":"s3cret","state":"s3cret"}]}"#,
        )
        .unwrap_err();
        assert_eq!(
            error,
            ConnectorError::InvalidAnswer(
                "the answer does not follow the protocol (at things[0].state)".into()
            )
        );
        for body in [
            &b"not json"[..],
            b"{\"things\": [",
            b"",
            b"{\"things\": []} trailing",
        ] {
            assert!(matches!(
                parse_answer::<ReadAnswer>(body),
                Err(ConnectorError::InvalidAnswer(_))
            ));
        }
        assert!(parse_answer::<ReadAnswer>(b"{\"things\": [], \"extra\": 1}").is_ok());
    }
}
