//! The local platform: every router, the sweeps and (as they arrive) the device
//! plane and the simulator in one process, on the embedded SQLite store. It never
//! links the AWS SDK. `alyt` (main.rs) runs it; tests call [`spawn`].

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use alyt_api::conventions::ratelimit::RateLimitPolicy;
use alyt_api::ports::TestTokenBotCheck;
use alyt_api::{Adapters, AppState, ClientAddr, Group, Settings, TrustedProxies};
use alyt_app::first_start::FirstStart;
use alyt_app::passes::{Beats, CommandBridge, Parts, SweepParts, Wake, registry};
use alyt_app::routines::runner::PASS_BUDGET;
use alyt_device::credentials::StoreDeviceAuthenticator;
use alyt_device::inbox::Inbox;
use alyt_device::ingest::{Ingest, IngestStats};
use alyt_device::liveness_sweep::LivenessSweep;
use alyt_device::sequencer::Sequencer;
use alyt_device::{Broker, BrokerConfig, Delivery, DevicePublisher};
use alyt_domain::{Clock, SystemClock};
use alyt_events::EventLog;
use alyt_mail::OutboxMailer;
use alyt_store::meter::UsageMeter;
use alyt_store::sqlite::{PURGE_INTERVAL, SqliteStore};
use axum::extract::{ConnectInfo, Request, State};
use axum::middleware::Next;
use axum::response::Response;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

mod built_ins;
pub mod events;
pub mod log_lines;
mod periodic;
mod reach;
pub mod simulator;

use periodic::{Beat, stopped};
use reach::StoreCallsLog;

pub use simulator::SimulatorConfig;

/// The host devices are told to reach the broker at: `ALYT_MQTT_PUBLIC_HOST`
/// when set (a broker bound to every address, reached from the LAN), else
/// the address it is bound to (loopback for an unspecified one).
pub const MQTT_PUBLIC_HOST_ENV: &str = "ALYT_MQTT_PUBLIC_HOST";

fn device_broker(bound: SocketAddr) -> alyt_device::connect::BrokerAddress {
    let host = std::env::var(MQTT_PUBLIC_HOST_ENV)
        .ok()
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| match bound.ip() {
            ip if ip.is_unspecified() => "127.0.0.1".to_owned(),
            ip => ip.to_string(),
        });
    alyt_device::connect::BrokerAddress {
        host,
        port: bound.port(),
        tls: false,
    }
}

/// How the local platform is configured: environment variables with defaults.
#[derive(Debug, Clone)]
pub struct Config {
    /// `ALYT_HTTP_ADDR`, default 127.0.0.1:8080 (port 0 picks a free port).
    pub http_addr: SocketAddr,
    /// `ALYT_MQTT_ADDR`, default 127.0.0.1:1883 (port 0 picks a free port).
    pub mqtt_addr: SocketAddr,
    /// `ALYT_DATA_DIR`, default ./.alyt
    pub data_dir: PathBuf,
    /// `ALYT_RATE_LIMIT_QUOTA` (600) requests per `ALYT_RATE_LIMIT_WINDOW_SECONDS` (60).
    pub rate_limit: RateLimitPolicy,
    /// `ALYT_OWNER_EMAIL`, default owner@alyt.local: the first platform OWNER.
    pub owner_email: String,
    /// `ALYT_OWNER_PASSWORD`; generated and printed once when unset.
    pub owner_password: Option<String>,
    /// `ALYT_DEMO`: what the first start puts in the demo household
    /// (`simulated`, the default: things driven by the simulator; `empty`).
    pub demo: alyt_app::first_start::DemoHome,
    /// The in-process simulator (`ALYT_SIMULATOR`, `ALYT_SIMULATOR_SEED`).
    pub simulator: SimulatorConfig,
    /// How often usage counted in memory is written (and at shutdown).
    pub usage_flush_every: Duration,
    /// How long a stop may take (`ALYT_STOP_SECONDS`, 10 s): what has not
    /// finished by then is cut off, and the log names it.
    pub stop_within: Duration,
    /// Answers every request with `x-alyt-store-calls: get=3,query=1` (the
    /// store calls made while it was served), for measuring what an
    /// operation costs (`tests/e2e/store_calls.rs`). Off by default.
    pub report_store_calls: bool,
    /// `ALYT_STORE_CALLS_LOG`: a file each request's store calls are
    /// appended to, one JSON line `{ method, path, status, calls }`
    /// (`bench/store-calls` runs the test suite with it and writes the table
    /// of every operation, docs/STORE_CALLS.md). Unset by default; read by
    /// `Config::for_tests` too.
    pub store_calls_log: Option<PathBuf>,
    /// How often the heartbeat sweep runs
    /// ([`alyt_device::liveness_sweep::SWEEP_INTERVAL`]; tests shorten it).
    pub heartbeat_sweep_every: Duration,
    /// How often the stay sweep runs ([`alyt_stays::SWEEP_INTERVAL`], a
    /// minute; tests shorten it).
    pub stay_sweep_every: Duration,
    /// How often the routine runner looks for due occurrences and runs
    /// ([`alyt_app::routines::runner::PASS_EVERY`]).
    pub routine_runner_every: Duration,
    /// Webhook delivery (`ALYT_WEBHOOKS_PRIVATE_NETWORKS`).
    pub webhooks: events::WebhookConfig,
    /// `ALYT_TRUSTED_PROXIES`: the reverse proxies in front of the platform
    /// (comma-separated addresses and networks), whose `X-Forwarded-For`
    /// names the caller's address. Empty by default: the socket's peer is.
    pub trusted_proxies: TrustedProxies,
    /// The platform's clock; `None` is the system clock. Tests move an
    /// injected one (stays, invitation links) instead of sleeping.
    pub clock: Option<InjectedClock>,
}

/// A clock a test injects for the whole platform.
#[derive(Clone)]
pub struct InjectedClock(pub Arc<dyn Clock>);

impl std::fmt::Debug for InjectedClock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("InjectedClock")
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("{name} must be a socket address like 127.0.0.1:8080, not {value:?}")]
    BadAddress { name: &'static str, value: String },
    #[error("cannot use the data directory {path}: {source}")]
    DataDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "the data directory {path} is in use by another alyt process (pid {pid}); stop it, or set ALYT_DATA_DIR to another directory"
    )]
    DataDirInUse { path: PathBuf, pid: String },
    #[error("cannot open the store: {0}")]
    Store(#[from] alyt_store::StoreError),
    #[error("cannot create the first owner: {0}")]
    Bootstrap(String),
    #[error("cannot start the MQTT broker: {0}")]
    Broker(#[from] alyt_device::BrokerError),
    #[error("{0}")]
    BadRateLimit(String),
    #[error("ALYT_TRUSTED_PROXIES: {0}")]
    BadTrustedProxies(String),
    #[error("ALYT_STOP_SECONDS must be a whole number of seconds from 1 to 3600, not {0:?}")]
    BadStopSeconds(String),
    #[error("ALYT_SIMULATOR_SEED must be an unsigned 64-bit number, not {0:?}")]
    BadSeed(String),
    #[error("{0}")]
    BadDemo(String),
    #[error("cannot open the store-calls log {path}: {source}")]
    StoreCallsLog {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
}

impl Config {
    pub fn from_env() -> Result<Self, StartError> {
        fn addr(name: &'static str, default: &str) -> Result<SocketAddr, StartError> {
            let value = std::env::var(name).unwrap_or_else(|_| default.to_owned());
            value
                .parse()
                .map_err(|_| StartError::BadAddress { name, value })
        }
        // `ALYT_SIMULATOR=fast`: the virtual devices' quick timings (beats
        // each second, a 3 s heartbeat window swept each second), so a
        // scenario's effect shows within seconds (demos, the console's tests).
        let simulator_mode = std::env::var("ALYT_SIMULATOR").unwrap_or_default();
        let fast = simulator_mode == "fast";
        let base = if fast {
            SimulatorConfig::fast()
        } else {
            SimulatorConfig::default()
        };
        Ok(Self {
            http_addr: addr("ALYT_HTTP_ADDR", "127.0.0.1:8080")?,
            mqtt_addr: addr("ALYT_MQTT_ADDR", "127.0.0.1:1883")?,
            data_dir: std::env::var_os("ALYT_DATA_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(".alyt")),
            rate_limit: RateLimitPolicy::from_env().map_err(StartError::BadRateLimit)?,
            owner_email: std::env::var("ALYT_OWNER_EMAIL")
                .unwrap_or_else(|_| "owner@alyt.local".into()),
            owner_password: std::env::var("ALYT_OWNER_PASSWORD").ok(),
            demo: alyt_app::first_start::DemoHome::from_setting(
                std::env::var("ALYT_DEMO").ok().as_deref(),
            )
            .map_err(StartError::BadDemo)?,
            simulator: SimulatorConfig {
                enabled: simulator_mode != "off",
                platform_seed: match std::env::var("ALYT_SIMULATOR_SEED") {
                    Ok(value) => Some(value.parse().map_err(|_| StartError::BadSeed(value))?),
                    Err(_) => None,
                },
                ..base
            },
            heartbeat_sweep_every: if fast {
                Duration::from_secs(1)
            } else {
                alyt_device::liveness_sweep::SWEEP_INTERVAL
            },
            clock: None,
            stay_sweep_every: alyt_stays::SWEEP_INTERVAL,
            routine_runner_every: alyt_app::routines::runner::PASS_EVERY,
            usage_flush_every: alyt_store::meter::FLUSH_EVERY,
            stop_within: stop_within_from_env()?,
            report_store_calls: false,
            store_calls_log: store_calls_log_from_env(),
            webhooks: events::WebhookConfig::from_env(),
            trusted_proxies: std::env::var(TrustedProxies::ENV)
                .unwrap_or_default()
                .parse()
                .map_err(StartError::BadTrustedProxies)?,
        })
    }

    /// Free ports on loopback and the given data directory; for tests.
    #[cfg(feature = "test-support")]
    pub fn for_tests(data_dir: PathBuf) -> Self {
        Self {
            http_addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            mqtt_addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            data_dir,
            rate_limit: RateLimitPolicy::default(),
            owner_email: "owner@alyt.local".into(),
            owner_password: None,
            // The suites' fixture: a plain household with empty rooms.
            demo: alyt_app::first_start::DemoHome::Empty,
            simulator: SimulatorConfig::default(),
            heartbeat_sweep_every: alyt_device::liveness_sweep::SWEEP_INTERVAL,
            clock: None,
            stay_sweep_every: alyt_stays::SWEEP_INTERVAL,
            routine_runner_every: alyt_app::routines::runner::PASS_EVERY,
            usage_flush_every: alyt_store::meter::FLUSH_EVERY,
            stop_within: STOP_WITHIN,
            report_store_calls: false,
            store_calls_log: store_calls_log_from_env(),
            webhooks: events::WebhookConfig::default(),
            trusted_proxies: TrustedProxies::default(),
        }
    }
}

/// A running local platform.
pub struct Platform {
    /// Where the HTTP API listens (the API is under /v1).
    pub http_addr: SocketAddr,
    /// Where the embedded MQTT broker listens.
    pub mqtt_addr: SocketAddr,
    pub data_dir: PathBuf,
    /// What the first start created (None on later starts).
    pub first_start: Option<FirstStart>,
    store: Arc<events::SignallingStore>,
    broker: Broker,
    ingest_stats: Arc<IngestStats>,
    simulator: Arc<simulator::LocalSimulator>,
    /// The built-in virtual bridge, served while the platform runs.
    _virtual_bridge: Option<alyt_connectors::bridge::RunningBridge>,
    shutdown: watch::Sender<bool>,
    /// Every task of the process but ingest's, by what it does.
    tasks: Vec<(&'static str, JoinHandle<()>)>,
    /// Ingest: answers how many messages it drained at the stop.
    ingest: JoinHandle<usize>,
    /// Usage counted in memory (keyed requests, device messages).
    meter: UsageMeter,
    stop_within: Duration,
    /// Tells ingest to drain its queue and stop (after the broker stopped).
    ingest_stop: watch::Sender<bool>,
    /// Raises the events of what ingest drained at the stop.
    sequencer: Sequencer,
    /// The broker's durable inbox of acknowledged publishes.
    inbox: Arc<Inbox>,
    /// The data directory's lock, held while this platform runs (the OS
    /// lets go of it when the process ends, crash or not).
    _data_dir_lock: std::fs::File,
}

impl Platform {
    /// The platform's store; tests use it to look beneath the API.
    pub fn store(&self) -> Arc<dyn alyt_store::Store> {
        self.store.clone()
    }

    /// What ingest did with the device messages so far (applied, dropped
    /// and why): the dropped-messages metric.
    pub fn ingest_stats(&self) -> Arc<IngestStats> {
        self.ingest_stats.clone()
    }

    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.http_addr)
    }

    /// Stops accepting work, ends the open event streams (their clients
    /// resume with Last-Event-ID), lets in-flight requests and messages
    /// finish and waits for every task, for at most `stop_within`: what is
    /// still running then is cut off and named in the log.
    pub async fn shutdown(self) {
        let started = std::time::Instant::now();
        let deadline = tokio::time::Instant::now() + self.stop_within;
        let _ = self.shutdown.send(true);
        let streams_ended = self.store.event_signal().stop();
        // Devices disconnect cleanly (no last will) before the broker goes.
        let _ = tokio::time::timeout_at(deadline, self.simulator.shutdown()).await;
        let broker = tokio::time::timeout_at(deadline, self.broker.shutdown())
            .await
            .ok();
        let _ = self.ingest_stop.send(true);
        let mut cut_off = Vec::new();
        let mut waited_for = Vec::new();
        for (name, mut task) in self.tasks {
            let waiting = std::time::Instant::now();
            if tokio::time::timeout_at(deadline, &mut task).await.is_err() {
                task.abort();
                cut_off.push(name);
            } else if waiting.elapsed() >= NOTABLE_WAIT {
                waited_for.push(format!("{name} {:?}", waiting.elapsed()));
            }
        }
        let mut ingest = self.ingest;
        let drained = match tokio::time::timeout_at(deadline, &mut ingest).await {
            Ok(drained) => drained.unwrap_or(0),
            Err(_) => {
                ingest.abort();
                cut_off.push("ingest");
                0
            }
        };
        // The telemetry ingest stored last gets its events now, not at the
        // next start.
        let sequenced =
            tokio::time::timeout_at(deadline, self.sequencer.drain(self.store.as_ref()))
                .await
                .map(|done| done.map(|d| d.raised));
        let telemetry_events_raised = match sequenced {
            Ok(Ok(raised)) => raised,
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "the telemetry sequencer's last pass failed; the next start makes those events");
                0
            }
            Err(_) => {
                cut_off.push("telemetry sequencer's last pass");
                0
            }
        };
        // What ingest did not handle is read back at the next start.
        let inbox_kept = self.inbox.close();
        if inbox_kept > 0 {
            tracing::warn!(
                inbox_kept,
                "acknowledged device messages not stored yet stay in the inbox; the next start stores them"
            );
        }
        // Nothing counts any more: what was counted is written.
        let flushed = self.meter.flush().await;
        if !cut_off.is_empty() {
            tracing::warn!(?cut_off, within = ?self.stop_within, "stopped: tasks that had not finished in time were cut off");
        }
        tracing::info!(
            took = ?started.elapsed(),
            streams_ended,
            device_sessions_closed = broker.map(|b| b.sessions_closed),
            publishes_let_finish = broker.map(|b| b.publishes_let_finish),
            queued_messages_drained = drained,
            telemetry_events_raised,
            ?waited_for,
            ?flushed,
            "stopped: streams told to reconnect, requests and device messages drained, webhook and sweep passes finished, usage flushed"
        );
    }
}

/// A task that took this long to finish at the stop is named in the log.
const NOTABLE_WAIT: Duration = Duration::from_millis(100);
/// How often the telemetry sequencer looks at the feed when no write woke
/// it (a failed drain tries again then).
const SEQUENCER_EVERY: Duration = Duration::from_secs(1);

/// Starts the whole platform and returns once it accepts connections.
pub async fn spawn(config: Config) -> Result<Platform, StartError> {
    std::fs::create_dir_all(&config.data_dir).map_err(|source| StartError::DataDir {
        path: config.data_dir.clone(),
        source,
    })?;
    let data_dir_lock = lock_data_dir(&config.data_dir)?;
    let clock: Arc<dyn Clock> = match &config.clock {
        Some(InjectedClock(clock)) => clock.clone(),
        None => Arc::new(SystemClock),
    };
    let store = Arc::new(events::SignallingStore::new(SqliteStore::open(
        &config.data_dir.join("alyt.db"),
        clock.clone(),
    )?));

    let listener = TcpListener::bind(config.http_addr)
        .await
        .map_err(|source| StartError::Bind {
            addr: config.http_addr,
            source,
        })?;
    let http_addr = listener.local_addr().map_err(|source| StartError::Bind {
        addr: config.http_addr,
        source,
    })?;

    // A QoS 1 publish is acknowledged once it is in the inbox; what the
    // last run left there is handed to ingest before anything new.
    let inbox_dir = config.data_dir.join("inbox");
    let (inbox, recovered) = Inbox::open(&inbox_dir).map_err(|source| StartError::DataDir {
        path: inbox_dir,
        source,
    })?;
    // The device plane first, so the API publishes accepted commands
    // through the broker from its first request: the broker enforces each
    // device's own subtree; what devices publish flows through this queue to
    // ingest.
    let (inbound_tx, inbound_rx) = tokio::sync::mpsc::channel(4096);
    let broker = alyt_device::start_broker(
        BrokerConfig::new(config.mqtt_addr)
            .with_clock(clock.clone())
            .with_inbox(inbox.clone()),
        // Devices log in with the credentials issued at registration.
        Arc::new(StoreDeviceAuthenticator::new(store.clone())),
        inbound_tx,
    )
    .await?;
    let publisher: Arc<dyn DevicePublisher> = Arc::new(broker.publisher());
    let (prepared, first_start) = match prepare(
        &config,
        store.clone(),
        clock.clone(),
        publisher.clone(),
        http_addr,
    )
    .await
    {
        Ok(prepared) => prepared,
        Err(e) => {
            broker.shutdown().await;
            return Err(e);
        }
    };

    let (shutdown, on_shutdown) = watch::channel(false);
    let mut tasks = Vec::new();

    // One usage meter for the process: the API's keyed requests and
    // ingest's device messages, flushed on a beat and at shutdown.
    let meter = prepared.app.meter.clone();
    let ingest = Ingest::new(
        store.clone(),
        clock.clone(),
        EventLog::new(store.clone(), clock.clone()),
        Arc::new(alyt_security::HomeSecurity::new(
            store.clone(),
            clock.clone(),
        )),
    )
    .counting_in(meter.clone());
    let flushing = meter.clone();
    tasks.push((
        "usage flush",
        periodic::spawn(
            "usage-flush",
            Beat::every(config.usage_flush_every),
            on_shutdown.clone(),
            move || {
                let flushing = flushing.clone();
                async move {
                    flushing.flush().await;
                }
            },
        ),
    ));
    // The simulator: virtual devices as MQTT clients of the embedded broker,
    // over the same MQTT_MESSAGES meter ingest counts with.
    let simulator = Arc::new(simulator::LocalSimulator::new(
        config.simulator.clone(),
        prepared.simulator_key.clone(),
        broker.local_addr,
        ingest.meter(),
        store.clone(),
        clock.clone(),
    ));
    let mut state = prepared.app.with_simulator(simulator.clone());
    // Devices of one's own are told where the broker is at registration.
    state.device_broker = Some(device_broker(broker.local_addr));
    // One process that never freezes: reset mails leave at once, after the
    // response, from a task of this process.
    state.deliver_after_response = true;
    let reset_mails = alyt_app::auth::account::reset_mails(&state);
    let state = events::configure(state, &config.webhooks, &store);
    let application = alyt_app::App::clone(&state.app);
    // The console's page and files at / (no API route lives there), then
    // the API with its conventions and fallback.
    let mut app = alyt_console::routes_with(&alyt_console::ConsoleSettings::from_env())
        .merge(alyt_api::app(state, &Group::ALL))
        .layer(axum::middleware::from_fn_with_state(
            Arc::new(config.trusted_proxies.clone()),
            client_addr,
        ));
    if config.report_store_calls || config.store_calls_log.is_some() {
        let log = match &config.store_calls_log {
            Some(path) => {
                Some(
                    StoreCallsLog::open(path).map_err(|source| StartError::StoreCallsLog {
                        path: path.clone(),
                        source,
                    })?,
                )
            }
            None => None,
        };
        app = app.layer(axum::middleware::from_fn_with_state(
            log,
            report_store_calls,
        ));
    }
    // The telemetry sequencer: the store's feed (each telemetry message's
    // feed item) into device.telemetry events, woken by every fed write.
    // What the last run stored without its events gets them first.
    let sequencer = Sequencer::new(
        store.clone(),
        clock.clone(),
        EventLog::new(store.clone(), clock.clone()),
    );
    if let Err(e) = sequencer.drain(store.as_ref()).await {
        tracing::warn!(error = %e, "the telemetry sequencer's first pass failed; it tries again in a second");
    }
    let last_pass = sequencer.clone();
    let feed = store.clone();
    tasks.push((
        "telemetry sequencer",
        // Hosted, the ingest function runs it (on the table's stream).
        periodic::spawn(
            "ingest",
            Beat::woken(
                store.feed_signal().subscribe(),
                Duration::ZERO,
                SEQUENCER_EVERY,
            ),
            on_shutdown.clone(),
            move || {
                let (sequencer, feed) = (sequencer.clone(), feed.clone());
                async move {
                    if let Err(e) = sequencer.drain(feed.as_ref()).await {
                        tracing::warn!(error = %e, "the telemetry sequencer will try again");
                    }
                }
            },
        ),
    ));
    let ingest_stats = ingest.stats();
    // Ingest stops only once the broker has: what it acknowledged is in
    // the queue by then, and is stored before the store goes.
    let (ingest_stop, on_ingest_stop) = watch::channel(false);
    // Before ingest takes new publishes: a device's messages keep their order.
    replay_inbox(&ingest, &inbox, recovered).await;
    let ingest = tokio::spawn(run_ingest(ingest, inbound_rx, on_ingest_stop));

    // Every background pass of the platform (alyt_app::passes), each on
    // its local beat: the command bridge, the heartbeat and stay sweeps,
    // deprecation notices, reset mails a stopped process left, home
    // security's timers, the routine runner, webhook dispatch and delivery.
    let parts = Parts {
        sweeps: SweepParts {
            bridge: Some(CommandBridge {
                store: store.clone(),
                publisher,
                clock: clock.clone(),
            }),
            reset_mails: Some(reset_mails),
            liveness: Some(
                LivenessSweep::new(
                    store.clone(),
                    clock.clone(),
                    EventLog::new(store.clone(), clock.clone()),
                )
                .with_min_window(
                    config
                        .simulator
                        .heartbeat_window_seconds
                        .unwrap_or(alyt_device::liveness_sweep::MIN_HEARTBEAT_WINDOW_SECONDS)
                        .min(alyt_device::liveness_sweep::MIN_HEARTBEAT_WINDOW_SECONDS),
                ),
            ),
            stays: Some(alyt_stays::GuestStays::new(store.clone(), clock.clone())),
            notices: Some(alyt_events::deprecations::DeprecationNotices::new(
                store.clone(),
                clock.clone(),
            )),
        },
        app: Some(application),
        webhooks: events::webhook_worker(
            &config.webhooks,
            store.clone(),
            clock.clone(),
            config.data_dir.join("outbox"),
        ),
    };
    let beats = Beats {
        heartbeat: config.heartbeat_sweep_every,
        stays: config.stay_sweep_every,
        routines: config.routine_runner_every,
        webhook_delivery: config.webhooks.every,
        ..Beats::LOCAL
    };
    for pass in registry(&parts, &beats) {
        let beat = match pass.wake {
            Wake::Beat => Beat::every(pass.every),
            // A committed write is readable at once.
            Wake::NewEvents => {
                Beat::woken(store.event_signal().subscribe(), Duration::ZERO, pass.every)
            }
            Wake::NewDeliveries => Beat::woken(
                store.delivery_signal().subscribe(),
                Duration::ZERO,
                pass.every,
            ),
        };
        let (name, worker) = (pass.name, pass.worker.name());
        let task = periodic::spawn(worker, beat, on_shutdown.clone(), move || {
            let pass = pass.clone();
            async move {
                let _ = pass.run(tokio::time::Instant::now() + PASS_BUDGET).await;
            }
        });
        tasks.push((name, task));
    }

    let on_shutdown_runs = on_shutdown.clone();
    let mut http_stop = on_shutdown.clone();
    tasks.push((
        "http",
        tokio::spawn(async move {
            let served = axum::serve(
                listener,
                app.into_make_service_with_connect_info::<SocketAddr>(),
            )
            .with_graceful_shutdown(async move { stopped(&mut http_stop).await })
            .await;
            if let Err(e) = served {
                tracing::error!(error = %e, "the HTTP server stopped");
            }
        }),
    ));

    // The embedded store keeps expired items until purged (reads already
    // hide them), as DynamoDB's TTL does.
    let purger = store.clone();
    tasks.push((
        "housekeeping",
        periodic::spawn(
            "local-housekeeping",
            Beat::every(PURGE_INTERVAL),
            on_shutdown,
            move || {
                let purger = purger.clone();
                async move {
                    if let Err(e) = purger.purge_expired().await {
                        tracing::warn!(error = %e, "purging expired items failed");
                    }
                }
            },
        ),
    ));

    let virtual_bridge = built_ins::serve_virtual_bridge(&*store, clock.now()).await;

    // Every virtual device the store holds comes up in its last scenario.
    match simulator.resume(&*store).await {
        Ok(0) => {}
        Ok(started) => tracing::info!(started, "virtual devices resumed"),
        Err(e) => {
            tracing::warn!(error = %e, "virtual devices could not be listed; they start when changed")
        }
    }
    // Script runs, after the devices: a run's devices are not live, and the
    // conductor takes them from the runner before it plays.
    tasks.push(("script runs", simulator.play_runs(on_shutdown_runs)));

    Ok(Platform {
        http_addr,
        mqtt_addr: broker.local_addr,
        data_dir: config.data_dir,
        first_start,
        store,
        broker,
        ingest_stats,
        simulator,
        _virtual_bridge: virtual_bridge,
        shutdown,
        tasks,
        ingest,
        meter,
        stop_within: config.stop_within,
        ingest_stop,
        sequencer: last_pass,
        inbox,
        _data_dir_lock: data_dir_lock,
    })
}

/// How long a stop may take by default.
pub const STOP_WITHIN: Duration = Duration::from_secs(10);

fn stop_within_from_env() -> Result<Duration, StartError> {
    match std::env::var("ALYT_STOP_SECONDS") {
        Err(_) => Ok(STOP_WITHIN),
        Ok(value) => match value.trim().parse::<u64>() {
            Ok(seconds @ 1..=3600) => Ok(Duration::from_secs(seconds)),
            _ => Err(StartError::BadStopSeconds(value)),
        },
    }
}

/// One process per data directory: an exclusive OS lock on
/// `alyt.lock` in it, which names the holder's pid (two processes on one
/// SQLite file and one outbox would each take the other's work). Released
/// when the platform is dropped, and by the OS when the process dies.
fn lock_data_dir(dir: &std::path::Path) -> Result<std::fs::File, StartError> {
    use std::io::{Read, Seek, Write};
    let path = dir.join("alyt.lock");
    let failed = |source| StartError::DataDir {
        path: path.clone(),
        source,
    };
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(failed)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut pid = String::new();
            let _ = file.read_to_string(&mut pid);
            let pid = match pid.trim() {
                "" => "unknown".to_owned(),
                pid => pid.to_owned(),
            };
            return Err(StartError::DataDirInUse {
                path: dir.to_path_buf(),
                pid,
            });
        }
        Err(std::fs::TryLockError::Error(source)) => return Err(failed(source)),
    }
    file.set_len(0).map_err(failed)?;
    file.rewind().map_err(failed)?;
    write!(file, "{}", std::process::id()).map_err(failed)?;
    Ok(file)
}

/// What the API needs before it serves: its state over the local adapters
/// and the simulator's key.
struct Prepared {
    app: AppState,
    simulator_key: Vec<u8>,
}

/// The API's state (which loads or creates the token signing key), the
/// first start's owner and household, and the simulator's key.
async fn prepare(
    config: &Config,
    store: Arc<events::SignallingStore>,
    clock: Arc<dyn Clock>,
    publisher: Arc<dyn DevicePublisher>,
    http_addr: SocketAddr,
) -> Result<(Prepared, Option<FirstStart>), StartError> {
    let app = AppState::build(
        Adapters {
            store: store.clone(),
            clock,
            mailer: Arc::new(OutboxMailer::new(config.data_dir.join("outbox"))),
            bot_check: Arc::new(TestTokenBotCheck),
            publisher,
            credentials: Arc::new(alyt_api::ports::PasswordCredentials),
        },
        Settings {
            rate_limit: config.rate_limit.clone(),
            public_url: format!("http://{http_addr}/v1"),
            ..Default::default()
        },
    )
    .await?;
    let first_start = alyt_app::first_start::ensure_first_owner(
        &app,
        &config.owner_email,
        config.owner_password.clone(),
        config.demo,
    )
    .await
    .map_err(|e| StartError::Bootstrap(e.to_string()))?;
    let simulator_key = alyt_store::repo::simulator::Simulators(&*store)
        .key()
        .await?;
    Ok((Prepared { app, simulator_key }, first_start))
}

/// Hands ingest, one at a time and in order, the publishes the broker
/// acknowledged before the last stop or crash and that its inbox still
/// held. Ingest recognises those it had stored (their message id), so
/// only what it had not is stored now; the segments go once every message
/// was handled, else they are read back again at the next start.
async fn replay_inbox(ingest: &Ingest, inbox: &Inbox, recovered: alyt_device::inbox::Recovered) {
    let read_back = recovered.messages.len();
    let duplicates_before = ingest
        .stats()
        .duplicates
        .load(std::sync::atomic::Ordering::Relaxed);
    let mut kept = 0usize;
    for message in &recovered.messages {
        if !handled(ingest, message).await {
            kept += 1;
        }
    }
    if kept == 0 {
        inbox.recovered_handled();
    }
    if read_back > 0 || recovered.torn_segments > 0 {
        let already_stored = ingest
            .stats()
            .duplicates
            .load(std::sync::atomic::Ordering::Relaxed)
            - duplicates_before;
        tracing::info!(
            read_back,
            already_stored,
            kept,
            torn_segments = recovered.torn_segments,
            "the inbox's acknowledged device messages were handed to ingest"
        );
    }
}

/// Feeds every device message through the same ingest the hosted SQS function
/// runs, and answers its receipt once it is handled: the broker's inbox then
/// forgets the message (or, when the inbox could not take it, the broker
/// sends the PUBACK only now). A store failure is retried a few times
/// with a pause (locally there is no SQS to redeliver), then the receipt is
/// dropped unanswered: the inbox keeps the message for the next start (or
/// the device, without its PUBACK, sends it again); a message
/// that can never be stored is not a failure (ingest drops and counts it),
/// so it is never retried. It stops on its own signal, which the platform
/// sends once the broker has stopped (a stopped rmqtt broker keeps its
/// context, and so the sender, alive until the runtime ends): it first
/// handles every message still queued (QoS 0 ones and last wills; a QoS 1
/// publish waits in its session for its answer).
async fn run_ingest(
    ingest: Ingest,
    mut inbound: tokio::sync::mpsc::Receiver<Delivery>,
    mut stop: watch::Receiver<bool>,
) -> usize {
    // Messages of one device are applied in order by one shard; shards run
    // at once, so their transactions share the store's group commits.
    let mut shards = Vec::with_capacity(INGEST_SHARDS);
    let mut workers = Vec::with_capacity(INGEST_SHARDS);
    for _ in 0..INGEST_SHARDS {
        let (shard, messages) = tokio::sync::mpsc::channel(512);
        shards.push(shard);
        workers.push(tokio::spawn(ingest_shard(ingest.clone(), messages)));
    }
    let mut drained = 0usize;
    loop {
        let message = tokio::select! {
            message = inbound.recv() => match message {
                Some(message) => message,
                None => break,
            },
            _ = stopped(&mut stop) => {
                // The broker has stopped: every message it acknowledged is
                // queued here, and is stored before ingest ends.
                while let Ok(message) = inbound.try_recv() {
                    let shard = shard_of(&message.message.identity.device_id.to_string(), INGEST_SHARDS);
                    if shards[shard].send(message).await.is_err() {
                        break;
                    }
                    drained += 1;
                }
                break;
            }
        };
        let shard = shard_of(
            &message.message.identity.device_id.to_string(),
            INGEST_SHARDS,
        );
        if shards[shard].send(message).await.is_err() {
            break;
        }
    }
    if drained > 0 {
        tracing::info!(
            drained,
            "ingest stored the device messages still queued at the stop"
        );
    }
    // What the shards hold is applied before the store goes.
    drop(shards);
    for worker in workers {
        let _ = worker.await;
    }
    drained
}

/// Ingest shards of the local platform.
const INGEST_SHARDS: usize = 8;

/// A stable shard for a device (FNV-1a of its id).
fn shard_of(device: &str, shards: usize) -> usize {
    let hash = device.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    (hash % shards as u64) as usize
}

async fn ingest_shard(ingest: Ingest, mut messages: tokio::sync::mpsc::Receiver<Delivery>) {
    while let Some(Delivery { message, receipt }) = messages.recv().await {
        if handled(&ingest, &message).await {
            receipt.handled();
        } else {
            // Unanswered: kept in the inbox for the next start, or, when
            // the broker waits on it, no PUBACK and the device resends.
            drop(receipt);
        }
    }
}

/// Applies one message, retrying a failing store; false once it gave up.
async fn handled(ingest: &Ingest, message: &alyt_device::InboundMessage) -> bool {
    for attempt in 1..=5 {
        match reach::recorded("ingest", ingest.handle(message)).await {
            Ok(_) => return true,
            Err(e) if attempt < 5 => {
                tracing::warn!(error = %e, attempt, "ingest failed; retrying");
                tokio::time::sleep(Duration::from_millis(100 * attempt)).await;
            }
            Err(e) => {
                tracing::error!(error = %e, topic = %message.topic, "ingest gave up on a device message")
            }
        }
    }
    false
}

fn store_calls_log_from_env() -> Option<PathBuf> {
    std::env::var_os("ALYT_STORE_CALLS_LOG")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// Counts the store calls made while a request is served (its body aside)
/// into the `x-alyt-store-calls` header, and into the log when there is one
/// (with what a streaming body reaches as it is sent, on a line of its own).
async fn report_store_calls(
    State(log): State<Option<Arc<StoreCallsLog>>>,
    request: Request,
    next: Next,
) -> Response {
    let (method, path) = (request.method().clone(), request.uri().path().to_owned());
    let ((mut response, reach), calls) =
        alyt_store::counting::calls_of(alyt_store::counting::reach_of(next.run(request))).await;
    if let Some(log) = log {
        log.request(
            method.as_str(),
            &path,
            response.status().as_u16(),
            &calls,
            &reach,
        );
        let streamed = response
            .headers()
            .get(axum::http::header::CONTENT_TYPE)
            .is_some_and(|t| t.as_bytes().starts_with(b"text/event-stream"));
        if streamed {
            let (parts, body) = response.into_parts();
            let body = reach::ReachedBody::wrap(body, path, log);
            response = Response::from_parts(parts, body);
        }
    }
    let text = calls
        .iter()
        .map(|(op, n)| format!("{op}={n}"))
        .collect::<Vec<_>>()
        .join(",");
    if let Ok(value) = axum::http::HeaderValue::from_str(&text) {
        response.headers_mut().insert("x-alyt-store-calls", value);
    }
    response
}

/// The local server knows the peer from the socket; behind trusted proxies,
/// the hop they vouch for in `X-Forwarded-For`.
async fn client_addr(
    State(trusted): State<Arc<TrustedProxies>>,
    mut request: Request,
    next: Next,
) -> Response {
    if let Some(ConnectInfo(peer)) = request.extensions().get::<ConnectInfo<SocketAddr>>() {
        let addr = ClientAddr(trusted.client_of(peer.ip(), request.headers()));
        request.extensions_mut().insert(addr);
    }
    next.run(request).await
}
