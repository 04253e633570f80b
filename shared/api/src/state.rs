//! What every handler may use: the application state a runtime builds from
//! its adapters ([`AppState::build`]) and the settings it chooses. It knows
//! no operation group, so every group can depend on it.

use std::sync::Arc;

use alyt_device::DevicePublisher;
use alyt_domain::Clock;
use alyt_events::outbound::OutboundPolicy;
use alyt_events::stream::{EventSignal, StreamLimits};
use alyt_store::Store;

use crate::ApiError;
use crate::auth::TokenSigner;
use crate::conventions::ratelimit::RateLimiter;
use crate::ports::{BotCheck, Mailer};

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
    pub events: EventsSettings,
    /// Calls connector servers (discovery, reads, commands) under the
    /// outbound policy of `events.outbound`.
    pub connectors: Arc<dyn alyt_connectors::ConnectorClient>,
    /// Whether work recorded for after the response (reset mails) is done by
    /// a task of this process at once (the local platform), or left to a
    /// worker (hosted: the sweeps function; a Lambda is frozen once it has
    /// answered). False unless the runtime sets it.
    pub deliver_after_response: bool,
    /// Counts keyed requests against quotas in memory; the runtime flushes it
    /// every [`alyt_store::meter::FLUSH_EVERY`] and on a clean stop.
    pub meter: alyt_store::meter::UsageMeter,
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
#[derive(Debug, Clone, Default)]
pub struct Settings {
    pub rate_limit: crate::conventions::ratelimit::RateLimitPolicy,
    pub public_url: String,
    pub token_key: TokenKey,
}

/// Which key signs and verifies the platform's tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TokenKey {
    /// The platform's key in the store (created on first use): every
    /// runtime that signs or verifies tokens.
    #[default]
    Stored,
    /// A key of this process only, never read from the store: tokens it
    /// signs are accepted nowhere else. For a worker that neither signs nor
    /// verifies (the routine runner), so its role need not read the key.
    ThisProcessOnly,
}

impl AppState {
    /// The event-log writes of `events` of one change, for that change's
    /// own transaction (events exist exactly when what they report does).
    pub fn event_writes(
        &self,
        tenant: alyt_domain::ids::TenantId,
        events: Vec<alyt_events::PlatformEvent>,
    ) -> Result<Vec<alyt_store::TxWrite>, ApiError> {
        let log = alyt_events::EventLog::new(self.store.clone(), self.clock.clone());
        Ok(log.writes(tenant, events)?)
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
        let tokens = Arc::new(match settings.token_key {
            TokenKey::Stored => TokenSigner::load(&*store).await?,
            TokenKey::ThisProcessOnly => TokenSigner::this_process_only(),
        });
        let connectors = alyt_connectors::HttpConnectorClient::new().map_err(|e| {
            alyt_store::StoreError::Unavailable(format!("the connector client: {e}"))
        })?;
        Ok(Self {
            limiter: Arc::new(RateLimiter::new(settings.rate_limit, clock.clone())),
            meter: alyt_store::meter::UsageMeter::new(store.clone()),
            store,
            clock,
            tokens,
            mailer,
            bot_check,
            publisher,
            credentials,
            simulator: Arc::new(crate::ports::StoreWatchedSimulator::default()),
            public_url: settings.public_url,
            events: EventsSettings::HOSTED,
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

/// How events leave this runtime: the stream's limits and what wakes it,
/// and the policy webhook URLs are checked against at registration.
#[derive(Debug, Clone)]
pub struct EventsSettings {
    pub stream: StreamLimits,
    /// Set where the runtime can tell when an event is written (locally).
    pub signal: Option<EventSignal>,
    pub outbound: OutboundPolicy,
    /// The stream's own base URL where this runtime cannot stream (the
    /// hosted group functions behind API Gateway, which buffers responses):
    /// the stream operation then answers 421 naming it.
    pub stream_elsewhere: Option<String>,
}

impl EventsSettings {
    /// The hosted platform: 15-minute streams that poll, https to public
    /// addresses only.
    pub const HOSTED: EventsSettings = EventsSettings {
        stream: StreamLimits::HOSTED,
        signal: None,
        outbound: OutboundPolicy::HOSTED,
        stream_elsewhere: None,
    };
}
