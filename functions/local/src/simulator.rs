//! The simulator runner in process: every virtual device as a real
//! MQTT client of the embedded broker, logging in with the password derived
//! from the simulator key. At start it runs every virtual device the store
//! holds, each in its stored scenario (a passed `until` reads NORMAL); then
//! the API tells it about changes through [`SimulatorControl`]. Script
//! runs are played by a [`Conductor`] in a task of its own, woken when the
//! API starts or stops one and every few seconds.

use std::sync::Arc;
use std::time::Duration;

use alyt_api::ports::{SimulatorControl, SimulatorUnavailable};
use alyt_device::meter::MessageMeter;
use alyt_domain::ids::{DeviceId, TenantId};
use alyt_simulator::conductor::Conductor;
use alyt_simulator::{
    MessageBudget, RunnerConfig, Simulator, SimulatorError, Timing, VirtualDeviceSpec, device_seed,
};
use alyt_store::Store;
use alyt_store::repo::simulator::{Simulators, VirtualDeviceRecord};
use async_trait::async_trait;

/// How the in-process simulator behaves. [`Default`] is the spec's timing.
#[derive(Debug, Clone)]
pub struct SimulatorConfig {
    /// Whether the runner runs at all (`ALYT_SIMULATOR=off` disables it:
    /// virtual devices are still registered, and come up at the next start
    /// with the runner on).
    pub enabled: bool,
    /// `ALYT_SIMULATOR_SEED`: a platform seed that makes every new virtual
    /// device's telemetry reproducible (each device's seed derives from it
    /// and the device id).
    pub platform_seed: Option<u64>,
    /// Report periods and scenario timings (spec defaults).
    pub timing: Timing,
    /// How long a FLAPPING device stays away before it reconnects.
    pub flap_down: Duration,
    /// MQTT keepalive of the virtual devices.
    pub keep_alive: Duration,
    /// The heartbeat window virtual devices are registered with (`None`:
    /// the platform default, 90 s).
    pub heartbeat_window_seconds: Option<u32>,
}

impl Default for SimulatorConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            platform_seed: None,
            timing: Timing::default(),
            flap_down: Duration::from_secs(1),
            keep_alive: Duration::from_secs(30),
            heartbeat_window_seconds: None,
        }
    }
}

impl SimulatorConfig {
    /// Fast timings for black-box tests: heartbeat 1 s, telemetry 1 s,
    /// a 3 s heartbeat window, FLAPPING every 3 s, SLOW still 5 s.
    pub fn fast() -> Self {
        Self {
            timing: Timing {
                heartbeat: Duration::from_secs(1),
                telemetry: Duration::from_secs(1),
                burst_interval: Duration::from_millis(50),
                slow_delay: Duration::from_secs(5),
                flap_period: Duration::from_secs(3),
                detection: Duration::from_secs(1),
            },
            flap_down: Duration::from_millis(500),
            keep_alive: Duration::from_secs(5),
            heartbeat_window_seconds: Some(3),
            ..Self::default()
        }
    }
}

/// The tenant's MQTT_MESSAGES budget as ingest meters it: the runner only
/// asks (ingest already counts every message it admits).
struct MeterBudget(MessageMeter);

#[async_trait]
impl MessageBudget for MeterBudget {
    async fn spent(&self, tenant: TenantId, _published: u64) -> bool {
        match self.0.spent(tenant).await {
            Ok(spent) => spent,
            Err(e) => {
                tracing::warn!(%tenant, error = %e, "cannot read the MQTT_MESSAGES budget; devices keep publishing");
                false
            }
        }
    }
}

/// How often the conductor looks for runs when nobody wakes it.
const RUNS_EVERY: Duration = Duration::from_secs(2);

/// The local [`SimulatorControl`]: the in-process runner.
pub struct LocalSimulator {
    runner: Option<Simulator>,
    key: Vec<u8>,
    config: SimulatorConfig,
    runs: Option<Arc<Runs>>,
}

/// The script runs' conductor and what wakes it.
struct Runs {
    conductor: tokio::sync::Mutex<Conductor>,
    wake: tokio::sync::Notify,
}

impl LocalSimulator {
    /// The runner (not started when disabled) against the broker at
    /// `broker`; nothing runs until [`LocalSimulator::resume`] or the API
    /// starts a device.
    pub fn new(
        config: SimulatorConfig,
        key: Vec<u8>,
        broker: std::net::SocketAddr,
        meter: MessageMeter,
        store: Arc<dyn Store>,
        clock: Arc<dyn alyt_domain::Clock>,
    ) -> Self {
        let runner = config.enabled.then(|| {
            let mut runner_config = RunnerConfig::new(broker.ip().to_string(), broker.port());
            runner_config.timing = config.timing;
            runner_config.flap_down = config.flap_down;
            runner_config.keep_alive = config.keep_alive;
            runner_config.clock = clock.clone();
            Simulator::new(runner_config, Arc::new(MeterBudget(meter)))
        });
        let runs = runner.as_ref().map(|runner| {
            Arc::new(Runs {
                // Locally the conductor gives a run's devices back to the
                // runner itself (nothing polls the store here).
                conductor: tokio::sync::Mutex::new(Conductor::new(
                    store,
                    clock,
                    runner.clone(),
                    key.clone(),
                    true,
                )),
                wake: tokio::sync::Notify::new(),
            })
        });
        Self {
            runner,
            key,
            config,
            runs,
        }
    }

    /// Plays the script runs until `stop`: a pass when the API starts or
    /// stops a run, and every few seconds (the first at once: a run left
    /// RUNNING by a previous process fails with a reason, a pending one is
    /// played).
    pub fn play_runs(
        &self,
        mut stop: tokio::sync::watch::Receiver<bool>,
    ) -> tokio::task::JoinHandle<()> {
        let runs = self.runs.clone();
        tokio::spawn(async move {
            let Some(runs) = runs else { return };
            loop {
                match runs.conductor.lock().await.sync().await {
                    Ok(report) if report != Default::default() => {
                        tracing::info!(?report, "script runs synced")
                    }
                    Ok(_) => {}
                    Err(e) => tracing::warn!(error = %e, "cannot read the script runs; retrying"),
                }
                tokio::select! {
                    () = runs.wake.notified() => {}
                    () = tokio::time::sleep(RUNS_EVERY) => {}
                    _ = stop.wait_for(|stop| *stop) => return,
                }
            }
        })
    }

    fn spec(&self, record: &VirtualDeviceRecord) -> Option<VirtualDeviceSpec> {
        let spec = VirtualDeviceSpec::of_record(record, &self.key);
        if spec.is_none() {
            tracing::warn!(device = %record.device_id, profile = %record.profile, "unknown virtual-device profile; not run");
        }
        spec
    }

    fn runner(&self) -> Result<&Simulator, SimulatorUnavailable> {
        self.runner
            .as_ref()
            .ok_or_else(|| SimulatorUnavailable("the simulator is off (ALYT_SIMULATOR=off)".into()))
    }

    /// Runs every virtual device the store holds, each in its last scenario.
    pub async fn resume(&self, store: &dyn Store) -> Result<usize, alyt_store::StoreError> {
        let Some(runner) = &self.runner else {
            return Ok(0);
        };
        let records = Simulators(store).live().await?;
        let mut started = 0;
        for record in &records {
            if let Some(spec) = self.spec(record) {
                runner.upsert(spec).await;
                started += 1;
            }
        }
        Ok(started)
    }

    /// Stops the runs playing here (they end STOPPED), then disconnects
    /// every device cleanly.
    pub async fn shutdown(&self) {
        if let Some(runs) = &self.runs {
            runs.conductor.lock().await.shutdown().await;
        }
        if let Some(runner) = &self.runner {
            runner.shutdown().await;
        }
    }
}

#[async_trait]
impl SimulatorControl for LocalSimulator {
    async fn start(&self, device: &VirtualDeviceRecord) -> Result<(), SimulatorUnavailable> {
        let runner = self.runner()?;
        if let Some(spec) = self.spec(device) {
            runner.upsert(spec).await;
        }
        Ok(())
    }

    async fn set_scenario(&self, device: &VirtualDeviceRecord) -> Result<(), SimulatorUnavailable> {
        let runner = self.runner()?;
        let Some(spec) = self.spec(device) else {
            return Ok(());
        };
        match runner.set_scenario(device.device_id, spec.scenario).await {
            Ok(()) => Ok(()),
            // Not running here (it failed to start, or the runner was off):
            // start it in its new scenario.
            Err(SimulatorError::UnknownDevice(_)) => {
                runner.upsert(spec).await;
                Ok(())
            }
        }
    }

    async fn stop(&self, device: DeviceId) -> Result<(), SimulatorUnavailable> {
        self.runner()?.remove(device).await;
        Ok(())
    }

    async fn runs_changed(&self) -> Result<(), SimulatorUnavailable> {
        match &self.runs {
            Some(runs) => {
                runs.wake.notify_one();
                Ok(())
            }
            None => Err(SimulatorUnavailable(
                "the simulator is off (ALYT_SIMULATOR=off)".into(),
            )),
        }
    }

    fn heartbeat_window_seconds(&self) -> Option<u32> {
        self.config.heartbeat_window_seconds
    }

    fn seed(&self, device: DeviceId) -> u64 {
        device_seed(self.config.platform_seed, device)
    }
}
