//! What every use case may use: the ports a runtime builds from its adapters
//! and the settings it chooses. It knows no use case, so every one can
//! depend on it.

use std::sync::Arc;

use alyt_device::DevicePublisher;
use alyt_domain::Clock;
use alyt_events::outbound::OutboundPolicy;
use alyt_events::stream::{EventSignal, StreamLimits};
use alyt_store::Store;

use crate::Error;
use crate::ports::{BotCheck, DeviceCredentialIssuer, Mailer, SimulatorControl};

/// The ports and settings of one runtime. Built from local adapters by the
/// `alyt` binary and from hosted ones by each Lambda; use cases cannot tell
/// which.
#[derive(Clone)]
pub struct App {
    pub store: Arc<dyn Store>,
    pub clock: Arc<dyn Clock>,
    pub mailer: Arc<dyn Mailer>,
    pub bot_check: Arc<dyn BotCheck>,
    /// Where accepted device commands are published at once
    /// ([`alyt_device::NoPublisher`] where the runtime cannot: the rows stay
    /// pending for the bridge sweep).
    pub publisher: Arc<dyn DevicePublisher>,
    /// Issues and revokes device broker credentials (passwords for the
    /// embedded broker, IoT certificates hosted).
    pub credentials: Arc<dyn DeviceCredentialIssuer>,
    /// Controls the virtual devices' runner: by default
    /// [`crate::ports::StoreWatchedSimulator`] (the hosted runner finds
    /// changes in the store); the local platform sets its in-process runner.
    pub simulator: Arc<dyn SimulatorControl>,
    /// Where people reach the API (`…/v1`), for links in mail.
    pub public_url: String,
    /// Events out: the event log's lag, the stream's limits and wake-up, the
    /// webhook URL policy. Hosted defaults; the local binary sets its own.
    pub events: EventsSettings,
    /// Calls connector servers (discovery, reads, commands) under the
    /// outbound policy of `events.outbound`.
    pub connectors: Arc<dyn alyt_connectors::ConnectorClient>,
    /// Whether work recorded for after the answer (reset mails) is done by
    /// a task of this process at once (the local platform), or left to a
    /// worker (hosted: the sweeps function; a Lambda is frozen once it has
    /// answered). False unless the runtime sets it.
    pub deliver_after_response: bool,
    /// Counts keyed requests against quotas in memory; the runtime flushes it
    /// every [`alyt_store::meter::FLUSH_EVERY`] and on a clean stop.
    pub meter: alyt_store::meter::UsageMeter,
    /// Device rows kept as JSON until what they are made of changes.
    pub device_rows: Arc<crate::devices::rows::DeviceRows>,
    /// Developers' EventBridge buses, where a new destination's test event
    /// goes: none ([`alyt_events::bus::NoEventBus`]) unless the runtime sets
    /// one.
    pub event_bus: Arc<dyn alyt_events::bus::EventBus>,
    /// Where devices with a password reach the broker (the local platform's
    /// embedded broker), told at registration; hosted, a device's
    /// certificate names IoT Core's endpoint itself.
    pub device_broker: Option<alyt_device::connect::BrokerAddress>,
}

/// The adapters a runtime hands to [`App::new`].
pub struct Adapters {
    pub store: Arc<dyn Store>,
    pub clock: Arc<dyn Clock>,
    pub mailer: Arc<dyn Mailer>,
    pub bot_check: Arc<dyn BotCheck>,
    pub publisher: Arc<dyn DevicePublisher>,
    pub credentials: Arc<dyn DeviceCredentialIssuer>,
}

impl App {
    /// The application over `adapters`, with the hosted defaults: events
    /// as [`EventsSettings::HOSTED`], the simulator found through the
    /// store, work after an answer left to a worker. A runtime changes the
    /// fields it runs otherwise.
    pub fn new(adapters: Adapters, public_url: String) -> Result<Self, alyt_store::StoreError> {
        let Adapters {
            store,
            clock,
            mailer,
            bot_check,
            publisher,
            credentials,
        } = adapters;
        let connectors = alyt_connectors::HttpConnectorClient::new().map_err(|e| {
            alyt_store::StoreError::Unavailable(format!("the connector client: {e}"))
        })?;
        Ok(Self {
            meter: alyt_store::meter::UsageMeter::new(store.clone()),
            store,
            clock,
            mailer,
            bot_check,
            publisher,
            credentials,
            simulator: Arc::new(crate::ports::StoreWatchedSimulator::default()),
            public_url,
            events: EventsSettings::HOSTED,
            connectors: Arc::new(connectors),
            deliver_after_response: false,
            device_rows: Arc::default(),
            event_bus: Arc::new(alyt_events::bus::NoEventBus),
            device_broker: None,
        })
    }

    /// The event-log writes of `events` of one change about `home` (`None`:
    /// about no home), for that change's own transaction (events exist
    /// exactly when what they report does).
    pub fn event_writes(
        &self,
        tenant: alyt_domain::ids::TenantId,
        home: Option<alyt_domain::ids::PropertyId>,
        events: Vec<alyt_events::PlatformEvent>,
    ) -> Result<Vec<alyt_store::TxWrite>, Error> {
        let log = alyt_events::EventLog::new(self.store.clone(), self.clock.clone());
        Ok(log.writes(tenant, home, events)?)
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
    /// hosted group functions behind API Gateway, which buffers answers):
    /// the stream operation then answers that it is served elsewhere.
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
