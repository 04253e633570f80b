//! The platform's client for connector servers (spec: Authentication 4,
//! Integrations and catalogue, Endpoint). The wire types live in
//! `alyt_domain::integration::connector` and are re-exported here; the
//! protocol is documented in `PROTOCOL.md`.

use alyt_events::outbound::OutboundPolicy;

pub use alyt_domain::integration::connector::*;

/// The platform's side of the connector protocol: one method per call.
#[async_trait::async_trait]
pub trait ConnectorClient: Send + Sync + 'static {
    async fn connect(
        &self,
        server: &ConnectorServer,
        call: &ConnectCall,
    ) -> Result<ConnectAnswer, ConnectorError>;
    async fn discover(
        &self,
        server: &ConnectorServer,
        call: &IntegrationCall,
    ) -> Result<DiscoverAnswer, ConnectorError>;
    async fn read(
        &self,
        server: &ConnectorServer,
        call: &ReadCall,
    ) -> Result<ReadAnswer, ConnectorError>;
    async fn command(
        &self,
        server: &ConnectorServer,
        call: &CommandCall,
    ) -> Result<CommandAnswer, ConnectorError>;
    async fn disconnect(
        &self,
        server: &ConnectorServer,
        call: &IntegrationCall,
    ) -> Result<(), ConnectorError>;
}

/// Where and how to reach one connector's server.
#[derive(Clone)]
pub struct ConnectorServer {
    /// The connector's server URL; calls go to `{base_url}/{path}`.
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

/// The HTTP client of the protocol (being written: bodies are `todo!()`).
#[derive(Clone)]
pub struct HttpConnectorClient {
    /// A call has this long in all (default 10 s).
    pub timeout: std::time::Duration,
}

impl HttpConnectorClient {
    /// The default per-call time limit.
    pub const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

    pub fn new() -> Result<Self, ConnectorError> {
        todo!()
    }
}

#[async_trait::async_trait]
impl ConnectorClient for HttpConnectorClient {
    async fn connect(
        &self,
        _server: &ConnectorServer,
        _call: &ConnectCall,
    ) -> Result<ConnectAnswer, ConnectorError> {
        todo!()
    }
    async fn discover(
        &self,
        _server: &ConnectorServer,
        _call: &IntegrationCall,
    ) -> Result<DiscoverAnswer, ConnectorError> {
        todo!()
    }
    async fn read(
        &self,
        _server: &ConnectorServer,
        _call: &ReadCall,
    ) -> Result<ReadAnswer, ConnectorError> {
        todo!()
    }
    async fn command(
        &self,
        _server: &ConnectorServer,
        _call: &CommandCall,
    ) -> Result<CommandAnswer, ConnectorError> {
        todo!()
    }
    async fn disconnect(
        &self,
        _server: &ConnectorServer,
        _call: &IntegrationCall,
    ) -> Result<(), ConnectorError> {
        todo!()
    }
}
