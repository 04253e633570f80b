//! The hosted simulator runner: a long-running task (not a Lambda: every
//! virtual device keeps a persistent broker session).
//!
//! Environment: `ALYT_TABLE` (DynamoDB table), `ALYT_SIMULATOR_BROKER`
//! (`host:port` of an MQTT broker that accepts the virtual devices'
//! username/password logins, see below), `ALYT_SIMULATOR_POLL_SECONDS`
//! (default 15).
//!
//! The gap, stated plainly: the hosted broker is IoT Core, which admits
//! devices by X.509 certificate, while virtual devices log in with a
//! username and a password derived from the simulator key (their
//! credential record holds only its SHA-256). Until IoT Core gets a custom
//! authorizer for them (a Lambda that checks `username`/`password` against
//! `DEVCRED#{username}` and answers with a policy for the device's own
//! `alyt/{tenant}/{property}/{device}/#` subtree), this runner only works
//! against a broker that authenticates against the store the way the local
//! embedded broker does. See infra/README.md.

use std::sync::Arc;
use std::time::Duration;

use alyt_aws::DynamoStore;
use alyt_device::meter::MessageMeter;
use alyt_domain::ids::TenantId;
use alyt_domain::{Clock, SystemClock};
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
    let broker = std::env::var("ALYT_SIMULATOR_BROKER")
        .map_err(|_| "ALYT_SIMULATOR_BROKER (host:port) is not set")?;
    let (host, port) = broker
        .rsplit_once(':')
        .and_then(|(h, p)| Some((h.to_owned(), p.parse::<u16>().ok()?)))
        .ok_or("ALYT_SIMULATOR_BROKER must be host:port")?;
    let poll = Duration::from_secs(
        std::env::var("ALYT_SIMULATOR_POLL_SECONDS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(15),
    );

    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let store = Arc::new(DynamoStore::from_env(table, clock.clone()).await);
    let key = alyt_api::developers::simulator::simulator_key(&*store).await?;
    let mut config = RunnerConfig::new(host, port);
    config.clock = clock.clone();
    let budget = Arc::new(MeterBudget(MessageMeter::new(store.clone(), clock)));
    let mut fleet = Fleet::new(Simulator::new(config, budget), key);

    let mut tick = tokio::time::interval(poll);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    loop {
        tokio::select! {
            _ = tick.tick() => match fleet.sync(&*store).await {
                Ok(report) if report != Default::default() => tracing::info!(?report, "virtual devices synced"),
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "cannot list the virtual devices; retrying at the next poll"),
            },
            _ = tokio::signal::ctrl_c() => break,
            _ = terminate.recv() => break,
        }
    }
    // Clean DISCONNECTs: no last will fires for a planned stop.
    fleet.simulator().shutdown().await;
    Ok(())
}
