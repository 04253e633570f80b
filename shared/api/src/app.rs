//! Assembly of the HTTP application: the groups a runtime serves plus the
//! conventions every response follows.

use std::net::IpAddr;
use std::sync::Arc;

use alyt_device::DevicePublisher;
use alyt_domain::Clock;
use alyt_store::Store;
use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::response::{IntoResponse, Response};
use tower_http::catch_panic::CatchPanicLayer;
use utoipa_axum::router::OpenApiRouter;

use crate::auth::TokenSigner;
use crate::ports::{BotCheck, Mailer};
use crate::ratelimit::{self, RateLimiter};
use crate::{
    ApiError, developers, homes, household_auth, integrations, openapi, people, request_id,
};

/// Largest request body any operation accepts.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// What every handler may use. Built from local adapters by the `alyt` binary and
/// from hosted adapters by each Lambda; handlers cannot tell which.
#[derive(Clone)]
pub struct AppState {
    pub store: Arc<dyn Store>,
    pub clock: Arc<dyn Clock>,
    pub limiter: Arc<RateLimiter>,
    pub tokens: Arc<TokenSigner>,
    pub mailer: Arc<dyn Mailer>,
    pub bot_check: Arc<dyn BotCheck>,
    /// Where accepted device commands are published at once
    /// ([`alyt_device::NoPublisher`] where the runtime cannot: the rows stay
    /// pending for the bridge sweep).
    pub publisher: Arc<dyn DevicePublisher>,
    /// Issues and revokes device broker credentials (passwords for the
    /// embedded broker, IoT certificates hosted).
    pub credentials: Arc<dyn crate::ports::DeviceCredentialIssuer>,
    /// Controls the virtual devices' runner (spec H). [`AppState::build`]
    /// sets [`crate::ports::StoreWatchedSimulator`] (the hosted runner finds
    /// changes in the store); the local platform sets its in-process runner
    /// with [`AppState::with_simulator`].
    pub simulator: Arc<dyn crate::ports::SimulatorControl>,
    /// Where people reach the API (`…/v1`), for links in mail.
    pub public_url: String,
    /// Events out: the event log's lag, the stream's limits and wake-up, the
    /// webhook URL policy. Hosted defaults; the local binary sets its own.
    pub events: crate::developers::webhooks::EventsSettings,
    /// Calls connector servers (discovery, reads, commands) under the
    /// outbound policy of `events.outbound`.
    pub connectors: Arc<dyn alyt_connectors::ConnectorClient>,
    /// Whether work recorded for after the response (reset mails) is done by
    /// a task of this process at once (the local platform), or left to a
    /// worker (hosted: the sweeps function; a Lambda is frozen once it has
    /// answered). False unless the runtime sets it.
    pub deliver_after_response: bool,
}

/// The adapters a runtime hands to [`AppState::build`].
pub struct Adapters {
    pub store: Arc<dyn Store>,
    pub clock: Arc<dyn Clock>,
    pub mailer: Arc<dyn Mailer>,
    pub bot_check: Arc<dyn BotCheck>,
    pub publisher: Arc<dyn DevicePublisher>,
    pub credentials: Arc<dyn crate::ports::DeviceCredentialIssuer>,
}

/// Settings a runtime chooses.
#[derive(Debug, Clone)]
pub struct Settings {
    pub rate_limit: crate::ratelimit::RateLimitPolicy,
    pub public_url: String,
}

impl AppState {
    /// The event-log writes of `events` of one change, for that change's
    /// own transaction (events exist exactly when what they report does).
    pub fn event_writes(
        &self,
        tenant: alyt_domain::ids::TenantId,
        events: Vec<(alyt_events::EventKind, serde_json::Value)>,
    ) -> Result<Vec<alyt_store::TxWrite>, ApiError> {
        let log =
            alyt_events::EventLog::new(self.store.clone(), self.clock.clone(), self.events.lag);
        Ok(log
            .prepare_all(tenant, events)?
            .into_iter()
            .map(|(_, write)| write)
            .collect())
    }

    /// The state over the given adapters: loads (or creates) the token signing
    /// key from the store.
    pub async fn build(
        adapters: Adapters,
        settings: Settings,
    ) -> Result<Self, alyt_store::StoreError> {
        let Adapters {
            store,
            clock,
            mailer,
            bot_check,
            publisher,
            credentials,
        } = adapters;
        let tokens = Arc::new(TokenSigner::load(&*store).await?);
        let connectors = alyt_connectors::HttpConnectorClient::new().map_err(|e| {
            alyt_store::StoreError::Unavailable(format!("the connector client: {e}"))
        })?;
        Ok(Self {
            limiter: Arc::new(RateLimiter::new(settings.rate_limit, clock.clone())),
            store,
            clock,
            tokens,
            mailer,
            bot_check,
            publisher,
            credentials,
            simulator: Arc::new(crate::ports::StoreWatchedSimulator::default()),
            public_url: settings.public_url,
            events: crate::developers::webhooks::EventsSettings::HOSTED,
            connectors: Arc::new(connectors),
            deliver_after_response: false,
        })
    }

    /// The same state with another simulator control (the local platform's
    /// in-process runner).
    pub fn with_simulator(mut self, simulator: Arc<dyn crate::ports::SimulatorControl>) -> Self {
        self.simulator = simulator;
        self
    }
}

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

/// The operation groups; each is one Lambda when hosted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    Auth,
    Developers,
    Homes,
    /// Connecting connectors to homes, discovery and an integration's
    /// endpoints (spec G).
    Integrations,
    /// A household's people: members, grants, ends of membership (spec B).
    People,
}

impl Group {
    pub const ALL: [Group; 5] = [
        Group::Auth,
        Group::Developers,
        Group::Homes,
        Group::Integrations,
        Group::People,
    ];

    pub fn routes(self) -> OpenApiRouter<AppState> {
        match self {
            Group::Auth => household_auth::routes(),
            Group::Developers => developers::routes(),
            Group::Homes => homes::routes(),
            Group::Integrations => integrations::routes(),
            Group::People => people::routes(),
        }
    }
}

/// The application serving `groups` (plus the contract documents), with the
/// shared conventions.
pub fn app(state: AppState, groups: &[Group]) -> Router {
    let mut routes = openapi::routes();
    for group in groups {
        routes = routes.merge(group.routes());
    }
    let (router, _document) = routes.split_for_parts();
    with_conventions(router, state)
}

/// Applies what every response follows: JSON 404 and 405, problem bodies for
/// panics, the body limit, rate limiting with the RateLimit fields on every
/// response (errors included), and request ids (outermost, so every problem
/// body and log line carries one).
pub fn with_conventions(router: Router<AppState>, state: AppState) -> Router {
    router
        .fallback(|| async { ApiError::not_found("no operation at this path") })
        .method_not_allowed_fallback(|| async { ApiError::method_not_allowed() })
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(CatchPanicLayer::custom(on_panic))
        .layer(axum::middleware::from_fn_with_state(
            state.limiter.clone(),
            ratelimit::middleware,
        ))
        .layer(axum::middleware::from_fn(request_id::middleware))
        .with_state(state)
}

fn on_panic(_: Box<dyn std::any::Any + Send + 'static>) -> Response {
    ApiError::internal("a handler panicked").into_response()
}
