//! The hosted simulator runner: a long-running task (not a Lambda: every
//! virtual device keeps a persistent broker session).
//!
//! Environment: `ALYT_TABLE` (DynamoDB table), `ALYT_SIMULATOR_POLL_SECONDS`
//! (default 15) and where the devices connect:
//!
//! * hosted, IoT Core: `ALYT_IOT_DATA_ENDPOINT` (the account's
//!   `iot:Data-ATS` host) and `ALYT_IOT_AUTHORIZER` (the custom
//!   authorizer's name, `DeviceAuthorizer` in infra/template.yaml). Each
//!   device connects on port 443 with TLS (rustls, the platform's root
//!   certificates) and ALPN `mqtt`, username
//!   `{deviceId}?x-amz-customauthorizer-name={authorizer}`, client id
//!   `{deviceId}` and its derived password; the authorizer checks it
//!   against `DEVCRED#{deviceId}` and allows the device's own subtree.
//!   This path cannot be tested here (no IoT Core): the tests cover the
//!   runner over plain TCP against the embedded broker, and the authorizer
//!   on its own (functions/iot-authorizer).
//!
//!   For tests, `ALYT_IOT_MQTT_ADDRESS` (`host:port`, never set by the
//!   template) is where the devices connect instead of the endpoint's port
//!   443, like `ALYT_IOT_DATA_PLANE_URL` for the data plane: the emulated
//!   AWS region's IoT Core front (its CA trusted through `SSL_CERT_FILE`).
//! * otherwise `ALYT_SIMULATOR_BROKER` (`host:port`, plain TCP) of any
//!   broker that authenticates against the store the way the local embedded
//!   broker does. When set (non-empty) it wins over IoT Core.

use std::sync::Arc;
use std::time::Duration;

use alyt_aws::DynamoStore;
use alyt_device::meter::MessageMeter;
use alyt_domain::ids::TenantId;
use alyt_domain::{Clock, SystemClock};
use alyt_simulator::conductor::Conductor;
use alyt_simulator::{MessageBudget, RunnerConfig, Simulator};
use alyt_simulator_runner::Fleet;

/// The MQTT_MESSAGES budget as ingest meters it (the runner only asks).
struct MeterBudget(MessageMeter);

#[async_trait::async_trait]
impl MessageBudget for MeterBudget {
    async fn spent(&self, tenant: TenantId, _published: u64) -> bool {
        self.0.spent(tenant).await.unwrap_or_else(|e| {
            tracing::warn!(%tenant, error = %e, "cannot read the MQTT_MESSAGES budget");
            false
        })
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .json()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let table = std::env::var("ALYT_TABLE").map_err(|_| "ALYT_TABLE is not set")?;
    let mut config = broker_config()?;
    let poll = Duration::from_secs(
        std::env::var("ALYT_SIMULATOR_POLL_SECONDS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(15),
    );

    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let store = Arc::new(DynamoStore::from_env(table, clock.clone()).await);
    let key = alyt_store::repo::simulator::Simulators(&*store)
        .key()
        .await?;
    config.clock = clock.clone();
    let budget = Arc::new(MeterBudget(MessageMeter::new(store.clone(), clock.clone())));
    let mut fleet = Fleet::new(Simulator::new(config, budget), key.clone());
    // Script runs: the fleet takes a run's devices back when it polls, so
    // the conductor does not (`restore` false).
    let mut conductor = Conductor::new(
        store.clone(),
        clock.clone(),
        fleet.simulator().clone(),
        key,
        false,
    );

    let mut tick = tokio::time::interval(poll);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    loop {
        tokio::select! {
            _ = tick.tick() => alyt_simulator_runner::poll(&mut fleet, &mut conductor, &*store).await,
            _ = tokio::signal::ctrl_c() => break,
            _ = terminate.recv() => break,
        }
    }
    // Clean DISCONNECTs: no last will fires for a planned stop.
    conductor.shutdown().await;
    fleet.simulator().shutdown().await;
    Ok(())
}

/// A non-empty environment variable.
fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// Where the devices connect: `ALYT_SIMULATOR_BROKER` (plain TCP) if set,
/// else IoT Core through the custom authorizer.
fn broker_config() -> Result<RunnerConfig, String> {
    if let Some(broker) = env("ALYT_SIMULATOR_BROKER") {
        let (host, port) = broker
            .rsplit_once(':')
            .and_then(|(h, p)| Some((h.to_owned(), p.parse::<u16>().ok()?)))
            .ok_or("ALYT_SIMULATOR_BROKER must be host:port")?;
        return Ok(RunnerConfig::new(host, port));
    }
    match (env("ALYT_IOT_DATA_ENDPOINT"), env("ALYT_IOT_AUTHORIZER")) {
        (Some(endpoint), Some(authorizer)) => {
            let mut config = RunnerConfig::iot_core(endpoint, &authorizer)?;
            if let Some(address) = env("ALYT_IOT_MQTT_ADDRESS") {
                let (host, port) = address
                    .rsplit_once(':')
                    .and_then(|(h, p)| Some((h.to_owned(), p.parse::<u16>().ok()?)))
                    .ok_or("ALYT_IOT_MQTT_ADDRESS must be host:port")?;
                (config.broker_host, config.broker_port) = (host, port);
            }
            Ok(config)
        }
        _ => Err(
            "set ALYT_IOT_DATA_ENDPOINT and ALYT_IOT_AUTHORIZER (IoT Core through the \
                  custom authorizer) or ALYT_SIMULATOR_BROKER (host:port)"
                .into(),
        ),
    }
}
