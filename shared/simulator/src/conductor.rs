//! The conductor: plays the stored script runs (the API only writes them).
//! Each pending run is taken by one player ([`Simulators::claim_run`]),
//! its devices let go by the fleet first (so two clients never fight for
//! one session), then played ([`Playing`]), its progress written at most
//! once a second and its end written with the devices given back, all in
//! one transaction ([`Simulators::end_run`]).
//!
//! The local platform calls [`Conductor::sync`] when the API starts or
//! stops a run and every few seconds; the hosted runner polls, letting go
//! of stopped runs ([`Conductor::retire`]) before its fleet takes their
//! devices back, and taking new runs ([`Conductor::start`]) after the
//! fleet let go of theirs. A run found RUNNING under another player is one
//! whose player went away (a restart): it cannot be resumed identically,
//! so it fails with a reason saying so.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use alyt_domain::Clock;
use alyt_store::Store;
use alyt_store::repo::simulator::{RunRecord, Simulators, run_status};
use tokio::task::JoinHandle;

use crate::player::{PlayEnd, Playing};
use crate::runner::{Simulator, VirtualDeviceSpec};
use crate::script::{self, Script};

/// How often a playing run's progress is written (at most).
const PROGRESS_EVERY: Duration = Duration::from_secs(1);

/// The runs this process plays.
pub struct Conductor {
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    simulator: Simulator,
    key: Vec<u8>,
    /// This player's name in the runs it takes.
    player: String,
    /// Whether a run's end gives its devices back to `simulator` here
    /// (local); a hosted fleet takes them back itself when it polls.
    restore: bool,
    playing: HashMap<uuid::Uuid, Handle>,
}

struct Handle {
    tenant: alyt_domain::ids::TenantId,
    stop: tokio::sync::watch::Sender<bool>,
    task: JoinHandle<()>,
}

/// What one pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ConductorReport {
    pub started: usize,
    pub stopped: usize,
    /// Runs whose player went away, ended FAILED.
    pub orphaned: usize,
}

impl Conductor {
    pub fn new(
        store: Arc<dyn Store>,
        clock: Arc<dyn Clock>,
        simulator: Simulator,
        key: Vec<u8>,
        restore: bool,
    ) -> Self {
        Self {
            store,
            clock,
            simulator,
            key,
            player: format!("player-{}", uuid::Uuid::now_v7()),
            restore,
            playing: HashMap::new(),
        }
    }

    /// [`Conductor::retire`] then [`Conductor::start`].
    pub async fn sync(&mut self) -> Result<ConductorReport, alyt_store::StoreError> {
        let stopped = self.retire().await?;
        let mut report = self.start().await?;
        report.stopped = stopped;
        Ok(report)
    }

    /// Stops playing the runs that ended elsewhere (stopped through the
    /// API), waiting for their clients to disconnect; forgets the finished.
    pub async fn retire(&mut self) -> Result<usize, alyt_store::StoreError> {
        self.playing.retain(|_, handle| !handle.task.is_finished());
        if self.playing.is_empty() {
            return Ok(0);
        }
        let active: Vec<uuid::Uuid> = Simulators(&*self.store)
            .active_runs()
            .await?
            .into_iter()
            .map(|run| run.id)
            .collect();
        let ended: Vec<uuid::Uuid> = self
            .playing
            .keys()
            .filter(|id| !active.contains(id))
            .copied()
            .collect();
        for id in &ended {
            if let Some(handle) = self.playing.remove(id) {
                let _ = handle.stop.send(true);
                let _ = handle.task.await;
            }
        }
        Ok(ended.len())
    }

    /// Takes and plays the pending runs; fails the runs whose player went
    /// away.
    pub async fn start(&mut self) -> Result<ConductorReport, alyt_store::StoreError> {
        let mut report = ConductorReport::default();
        let runs = Simulators(&*self.store).active_runs().await?;
        for run in runs {
            if self.playing.contains_key(&run.id) {
                continue;
            }
            match run.status.as_str() {
                run_status::PENDING => report.started += usize::from(self.begin(run).await?),
                _ if run.player.as_deref() != Some(&self.player) => {
                    let ended = self
                        .end(
                            &run,
                            run_status::FAILED,
                            Some(
                                "its player stopped before the run's end (the runner restarted); start the run again",
                            ),
                        )
                        .await?;
                    if ended {
                        report.orphaned += 1;
                    }
                }
                _ => {}
            }
        }
        Ok(report)
    }

    /// Lets go of the run's devices, takes the run and plays it; false when
    /// another player took it first.
    async fn begin(&mut self, run: RunRecord) -> Result<bool, alyt_store::StoreError> {
        let sims = Simulators(&*self.store);
        let mut devices = Vec::with_capacity(run.devices.len());
        for device in run.devices.values() {
            // A clean DISCONNECT from the fleet's client first: the run's
            // client then takes a free session.
            self.simulator.remove(*device).await;
            devices.push(sims.get(run.tenant_id, *device).await?);
        }
        let checked = serde_json::from_value::<Script>(run.script.clone())
            .map_err(|e| e.to_string())
            .and_then(|s| s.check().map_err(|e| e.to_string()));
        let Some(run) = sims
            .claim_run(run.tenant_id, run.id, &self.player, self.clock.now())
            .await?
        else {
            return Ok(false);
        };
        let checked = match checked {
            Ok(checked) => checked,
            Err(e) => {
                self.end(
                    &run,
                    run_status::FAILED,
                    Some(&format!("the script no longer checks: {e}")),
                )
                .await?;
                return Ok(true);
            }
        };
        // Role i speaks as the device the run gave role i (the script's
        // order; the run's map is keyed by role name).
        let names = role_names(&run.script);
        let mut specs = Vec::with_capacity(names.len());
        for name in &names {
            let record = run
                .devices
                .get(name)
                .and_then(|id| devices.iter().flatten().find(|d| d.device_id == *id));
            match record.and_then(|r| VirtualDeviceSpec::of_record(r, &self.key)) {
                Some(spec) => specs.push(spec),
                None => {
                    let reason = format!("the device of role {name} is gone");
                    self.end(&run, run_status::FAILED, Some(&reason)).await?;
                    return Ok(true);
                }
            }
        }
        let traffic = script::traffic(&checked, run.seed());
        tracing::info!(run = %run.id, tenant = %run.tenant_id, messages = traffic.len(), "script run started");
        let playing = Playing::start(self.simulator.config(), Arc::new(checked), traffic, specs);
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let (id, tenant) = (run.id, run.tenant_id);
        let task = tokio::spawn(watch_run(
            RunWatch {
                store: self.store.clone(),
                clock: self.clock.clone(),
                simulator: self.restore.then(|| self.simulator.clone()),
                key: self.key.clone(),
                run,
            },
            playing,
            stopped,
        ));
        self.playing.insert(id, Handle { tenant, stop, task });
        Ok(true)
    }

    async fn end(
        &self,
        run: &RunRecord,
        status: &str,
        reason: Option<&str>,
    ) -> Result<bool, alyt_store::StoreError> {
        let ended = Simulators(&*self.store)
            .end_run(
                run.tenant_id,
                run.id,
                status,
                reason,
                None,
                self.clock.now(),
            )
            .await?;
        if ended.is_some() && self.restore {
            restore(&*self.store, &self.simulator, &self.key, run).await;
        }
        Ok(ended.is_some())
    }

    /// Stops every run this process plays, each ended STOPPED with the
    /// reason, and waits for their clients to disconnect.
    pub async fn shutdown(&mut self) {
        let sims = Simulators(&*self.store);
        for (id, handle) in self.playing.drain() {
            if let Err(e) = sims
                .end_run(
                    handle.tenant,
                    id,
                    run_status::STOPPED,
                    Some("the runner stopped (the platform shut down); start the run again"),
                    None,
                    self.clock.now(),
                )
                .await
            {
                tracing::warn!(run = %id, error = %e, "cannot write a run's end at shutdown");
            }
            let _ = handle.stop.send(true);
            let _ = handle.task.await;
        }
    }
}

/// The script's role names, in its order.
fn role_names(script: &serde_json::Value) -> Vec<String> {
    script["roles"]
        .as_array()
        .map(|roles| {
            roles
                .iter()
                .filter_map(|r| r["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

struct RunWatch {
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    simulator: Option<Simulator>,
    key: Vec<u8>,
    run: RunRecord,
}

/// Plays a run to its end: progress at most once a second (a run found
/// ended meanwhile is stopped), then its end and the devices given back.
async fn watch_run(
    watch: RunWatch,
    mut playing: Playing,
    mut stopped: tokio::sync::watch::Receiver<bool>,
) {
    let run = &watch.run;
    let sims = Simulators(&*watch.store);
    let mut tick = tokio::time::interval(PROGRESS_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut written = 0;
    let end = loop {
        tokio::select! {
            end = playing.finish() => break end,
            _ = tick.tick() => {
                let played = playing.played();
                if played != written {
                    match sims.run_progress(run.tenant_id, run.id, played).await {
                        Ok(Some(_)) => written = played,
                        // Ended meanwhile (stopped through the API).
                        Ok(None) => playing.stop(),
                        Err(e) => tracing::warn!(run = %run.id, error = %e, "cannot write a run's progress"),
                    }
                }
            }
            changed = stopped.changed() => {
                if changed.is_err() || *stopped.borrow() {
                    playing.stop();
                }
            }
        }
    };
    let played = playing.played();
    let (status, reason) = match &end {
        PlayEnd::Done => (run_status::DONE, None),
        PlayEnd::Stopped => (run_status::STOPPED, Some("stopped")),
        PlayEnd::Failed(reason) => (run_status::FAILED, Some(reason.as_str())),
    };
    tracing::info!(run = %run.id, ?end, played, "script run ended");
    if let Err(e) = sims
        .end_run(
            run.tenant_id,
            run.id,
            status,
            reason,
            Some(played),
            watch.clock.now(),
        )
        .await
    {
        tracing::warn!(run = %run.id, error = %e, "cannot write a run's end; its devices stay held until it is stopped");
    }
    if let Some(simulator) = &watch.simulator {
        restore(&*watch.store, simulator, &watch.key, run).await;
    }
}

/// Gives a run's devices back to the fleet: each that is the simulator's
/// again (not detached, not held by another run) runs as stored.
async fn restore(store: &dyn Store, simulator: &Simulator, key: &[u8], run: &RunRecord) {
    let sims = Simulators(store);
    for device in run.devices.values() {
        match sims.get(run.tenant_id, *device).await {
            Ok(Some(record)) if record.detached_at.is_none() && record.run_id.is_none() => {
                if let Some(spec) = VirtualDeviceSpec::of_record(&record, key) {
                    simulator.upsert(spec).await;
                }
            }
            Ok(_) => {}
            Err(e) => {
                tracing::warn!(device = %device, error = %e, "cannot read a virtual device back after a run")
            }
        }
    }
}
