//! Every background pass of the platform in one table: its name, the hosted
//! function that runs it, how often in each runtime, and what one pass
//! does. The local process runs each on its own beat ([`Pass::run`] in a
//! task per pass); a hosted function runs its own passes within one
//! invocation ([`drive`]). Neither keeps a list of its own.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use alyt_device::liveness_sweep::LivenessSweep;
use alyt_events::deprecations::DeprecationNotices;
use alyt_mail::reset::ResetMails;
use alyt_stays::GuestStays;
use alyt_store::StoreError;
use tokio::time::Instant;

use crate::App;
use crate::routines::runner::{self, RunnerReport};

pub const BRIDGE_SWEEP: &str = "bridge-sweep";
pub const HEARTBEAT_SWEEP: &str = "heartbeat-sweep";
pub const STAY_SWEEP: &str = "stay-sweep";
pub const WEBHOOK_DISPATCH: &str = "webhook-dispatch";

/// The hosted function that runs a pass (locally, one process runs them
/// all; the name is also the store reach log's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Worker {
    Sweeps,
    Routines,
    Webhooks,
}

impl Worker {
    pub fn name(self) -> &'static str {
        match self {
            Worker::Sweeps => "sweeps",
            Worker::Routines => "routines",
            Worker::Webhooks => "webhooks",
        }
    }
}

/// What may start a pass before its beat, where the runtime can tell (the
/// local store signals its writes; hosted, the schedule or the table's
/// stream invokes the function).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wake {
    /// Only the beat.
    Beat,
    /// A new event in the log.
    NewEvents,
    /// A new delivery row.
    NewDeliveries,
}

/// What one pass did.
#[derive(Debug, Clone, PartialEq)]
pub enum Report {
    Bridge(alyt_device::bridge::SweepReport),
    ResetMails(usize),
    Heartbeat(alyt_device::liveness_sweep::SweepReport),
    Stays(alyt_stays::SweepReport),
    DeprecationNotices(usize),
    SecurityTimers,
    Routines(RunnerReport),
    Dispatch(alyt_events::dispatch::DispatchReport),
    Delivery(alyt_events::DeliveryReport),
}

pub type Outcome = Result<Report, StoreError>;

type Run = dyn Fn(Instant) -> Pin<Box<dyn Future<Output = Outcome> + Send>> + Send + Sync;

/// One kind of background work.
#[derive(Clone)]
pub struct Pass {
    pub name: &'static str,
    pub worker: Worker,
    /// The beat in this runtime.
    pub every: Duration,
    pub wake: Wake,
    run: Arc<Run>,
}

impl Pass {
    fn new<F, Fut>(name: &'static str, worker: Worker, every: Duration, run: F) -> Self
    where
        F: Fn(Instant) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Outcome> + Send + 'static,
    {
        Self {
            name,
            worker,
            every,
            wake: Wake::Beat,
            run: Arc::new(move |until| Box::pin(run(until))),
        }
    }

    fn woken_by(mut self, wake: Wake) -> Self {
        self.wake = wake;
        self
    }

    /// One pass, starting no new work after `until` (a pass that runs
    /// out leaves the rest for the next); a failure is logged here and
    /// answered.
    pub async fn run(&self, until: Instant) -> Outcome {
        let outcome = (self.run)(until).await;
        match &outcome {
            Err(e) => tracing::warn!(pass = self.name, error = %e, "a background pass failed"),
            // What households notice (a device gone offline, a guest
            // checked in or out, a notice) is worth a line of its own.
            Ok(
                report @ (Report::Heartbeat(_) | Report::Stays(_) | Report::DeprecationNotices(_)),
            ) if report.did_something() => {
                tracing::info!(pass = self.name, ?report, "background pass");
            }
            Ok(report) if report.did_something() => {
                tracing::debug!(pass = self.name, ?report, "background pass");
            }
            Ok(_) => {}
        }
        outcome
    }
}

impl Report {
    fn did_something(&self) -> bool {
        match self {
            Report::Bridge(r) => *r != Default::default(),
            Report::ResetMails(n) | Report::DeprecationNotices(n) => *n > 0,
            Report::Heartbeat(r) => r.marked_offline > 0,
            Report::Stays(r) => *r != Default::default(),
            Report::SecurityTimers => false,
            Report::Routines(r) => *r != Default::default(),
            Report::Dispatch(r) => r.queued + r.held > 0,
            Report::Delivery(r) => r.attempted > 0,
        }
    }
}

/// How often each pass runs. The hosted beats follow the schedules that
/// invoke the functions (once a minute) and how long an invocation lasts;
/// the local ones run a one-machine platform (tests speed some up).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Beats {
    /// Pending commands are retried every 2 s.
    pub bridge: Duration,
    pub reset_mails: Duration,
    pub heartbeat: Duration,
    pub stays: Duration,
    pub routines: Duration,
    pub webhook_dispatch: Duration,
    pub webhook_delivery: Duration,
}

impl Beats {
    /// The hosted functions: the heartbeat and stay sweeps and the notices
    /// once per invocation, the rest every few seconds within it; reset
    /// mails leave with every bridge pass (a Lambda is frozen once it has
    /// answered, so they cannot leave from the request).
    pub const HOSTED: Beats = Beats {
        bridge: alyt_device::bridge::SWEEP_INTERVAL,
        reset_mails: alyt_device::bridge::SWEEP_INTERVAL,
        heartbeat: Duration::from_secs(60),
        stays: alyt_stays::SWEEP_INTERVAL,
        routines: runner::PASS_EVERY,
        webhook_dispatch: alyt_events::worker::PASS_INTERVAL,
        webhook_delivery: alyt_events::worker::PASS_INTERVAL,
    };

    /// The local platform: devices go offline within seconds of their
    /// window; reset mails leave from the request, so the pass only picks
    /// up what a stopped process left; webhooks are woken by writes and
    /// poll slowly otherwise.
    pub const LOCAL: Beats = Beats {
        bridge: alyt_device::bridge::SWEEP_INTERVAL,
        reset_mails: Duration::from_secs(60),
        heartbeat: alyt_device::liveness_sweep::SWEEP_INTERVAL,
        stays: alyt_stays::SWEEP_INTERVAL,
        routines: runner::PASS_EVERY,
        webhook_dispatch: Duration::from_secs(2),
        webhook_delivery: alyt_events::worker::PASS_INTERVAL,
    };
}

/// What the command bridge retries pending commands with.
#[derive(Clone)]
pub struct CommandBridge {
    pub store: Arc<dyn alyt_store::Store>,
    pub publisher: Arc<dyn alyt_device::DevicePublisher>,
    pub clock: Arc<dyn alyt_domain::Clock>,
}

/// What the sweeps work with. A function builds only what its passes use
/// and leaves the rest out.
#[derive(Clone, Default)]
pub struct SweepParts {
    pub bridge: Option<CommandBridge>,
    pub reset_mails: Option<ResetMails>,
    pub liveness: Option<LivenessSweep>,
    pub stays: Option<GuestStays>,
    pub notices: Option<DeprecationNotices>,
}

/// What every pass works with: one runtime's parts.
#[derive(Clone, Default)]
pub struct Parts {
    pub sweeps: SweepParts,
    /// The application: home security's timers and the routine runner.
    pub app: Option<App>,
    pub webhooks: Option<alyt_events::worker::Worker>,
}

/// Every background pass the parts allow, in the order a function runs
/// the ones due at the same moment (events are dispatched before their
/// deliveries are worked).
pub fn registry(parts: &Parts, beats: &Beats) -> Vec<Pass> {
    let mut passes = sweeps(&parts.sweeps, beats);
    if let Some(app) = &parts.app {
        passes.extend(routines(app, beats));
    }
    if let Some(worker) = &parts.webhooks {
        passes.extend(webhooks(worker, beats));
    }
    passes
}

/// The sweeps function's passes (each function links only its own).
pub fn sweeps(parts: &SweepParts, beats: &Beats) -> Vec<Pass> {
    let mut passes = Vec::new();
    if let Some(bridge) = &parts.bridge {
        let bridge = bridge.clone();
        passes.push(Pass::new(
            BRIDGE_SWEEP,
            Worker::Sweeps,
            beats.bridge,
            move |_| {
                let CommandBridge {
                    store,
                    publisher,
                    clock,
                } = bridge.clone();
                async move {
                    alyt_device::bridge::sweep(store, publisher, clock)
                        .await
                        .map(Report::Bridge)
                }
            },
        ));
    }
    if let Some(mails) = &parts.reset_mails {
        let mails = mails.clone();
        passes.push(Pass::new(
            "reset-mails",
            Worker::Sweeps,
            beats.reset_mails,
            move |_| {
                let mails = mails.clone();
                async move { mails.deliver().await.map(Report::ResetMails) }
            },
        ));
    }
    if let Some(sweep) = &parts.liveness {
        let sweep = sweep.clone();
        passes.push(Pass::new(
            HEARTBEAT_SWEEP,
            Worker::Sweeps,
            beats.heartbeat,
            move |_| {
                let sweep = sweep.clone();
                async move { sweep.run().await.map(Report::Heartbeat) }
            },
        ));
    }
    if let Some(stays) = &parts.stays {
        let stays = stays.clone();
        passes.push(Pass::new(
            STAY_SWEEP,
            Worker::Sweeps,
            beats.stays,
            move |_| {
                let stays = stays.clone();
                async move { stays.sweep().await.map(Report::Stays) }
            },
        ));
    }
    if let Some(notices) = &parts.notices {
        let notices = notices.clone();
        passes.push(Pass::new(
            "deprecation-notices",
            Worker::Sweeps,
            beats.stays,
            move |_| {
                let notices = notices.clone();
                async move { notices.deliver().await.map(Report::DeprecationNotices) }
            },
        ));
    }
    passes
}

/// The routines function's passes: home security's timers, then the
/// routine runner.
pub fn routines(app: &App, beats: &Beats) -> Vec<Pass> {
    let mut passes = Vec::new();
    // Countdowns that ended and alarm outputs first: a routine's
    // security step then finds the home as time has moved it.
    let timers = app.clone();
    passes.push(Pass::new(
        "security-timers",
        Worker::Routines,
        beats.routines,
        move |_| {
            let app = timers.clone();
            async move {
                crate::security::timers(&app).await?;
                Ok(Report::SecurityTimers)
            }
        },
    ));
    let routines = app.clone();
    passes.push(Pass::new(
        "routine-runner",
        Worker::Routines,
        beats.routines,
        move |until| {
            let app = routines.clone();
            async move { runner::pass(&app, until).await.map(Report::Routines) }
        },
    ));
    passes
}

/// The webhooks function's passes: dispatch, then delivery.
pub fn webhooks(worker: &alyt_events::worker::Worker, beats: &Beats) -> Vec<Pass> {
    let mut passes = Vec::new();
    let dispatcher = worker.clone();
    passes.push(
        Pass::new(
            WEBHOOK_DISPATCH,
            Worker::Webhooks,
            beats.webhook_dispatch,
            move |_| {
                let worker = dispatcher.clone();
                async move { worker.dispatch().await.map(Report::Dispatch) }
            },
        )
        .woken_by(Wake::NewEvents),
    );
    let deliverer = worker.clone();
    passes.push(
        Pass::new(
            "webhook-delivery",
            Worker::Webhooks,
            beats.webhook_delivery,
            move |_| {
                let worker = deliverer.clone();
                async move { worker.deliver().await.map(Report::Delivery) }
            },
        )
        .woken_by(Wake::NewDeliveries),
    );
    passes
}

/// A hosted invocation: the passes of `worker`, each on its beat with the
/// first at once, none starting at or after `until` (each runs at least
/// once). The passes due at one moment run one after another in registry
/// order. Every outcome, by pass name, in the order they ran.
pub async fn drive(
    passes: &[Pass],
    worker: Worker,
    until: Instant,
) -> Vec<(&'static str, Outcome)> {
    let mine: Vec<&Pass> = passes.iter().filter(|p| p.worker == worker).collect();
    let mut due: Vec<Instant> = vec![Instant::now(); mine.len()];
    let mut outcomes = Vec::new();
    let mut first = true;
    loop {
        for (pass, next) in mine.iter().zip(due.iter_mut()) {
            let now = Instant::now();
            if *next <= now && (first || now < until) {
                outcomes.push((pass.name, pass.run(until).await));
                *next = now + pass.every;
            }
        }
        first = false;
        let Some(next) = due.iter().min().copied() else {
            break;
        };
        if next >= until {
            break;
        }
        tokio::time::sleep_until(next).await;
    }
    outcomes
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    fn counting(name: &'static str, every: Duration, seen: Arc<Mutex<Vec<&'static str>>>) -> Pass {
        Pass::new(name, Worker::Sweeps, every, move |_| {
            let seen = seen.clone();
            async move {
                seen.lock().unwrap().push(name);
                Ok(Report::ResetMails(0))
            }
        })
    }

    /// Each pass on its own beat, the first at once, none after the end;
    /// passes due together run in registry order; another worker's passes
    /// are not this invocation's.
    #[tokio::test(start_paused = true)]
    async fn an_invocation_runs_its_workers_passes_on_their_beats() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let passes = vec![
            counting("often", Duration::from_secs(2), seen.clone()),
            counting("rarely", Duration::from_secs(60), seen.clone()),
            Pass {
                worker: Worker::Webhooks,
                ..counting("elsewhere", Duration::from_secs(1), seen.clone())
            },
        ];
        let until = Instant::now() + Duration::from_secs(7);
        let outcomes = drive(&passes, Worker::Sweeps, until).await;
        let names: Vec<_> = outcomes.iter().map(|(name, _)| *name).collect();
        assert_eq!(names, ["often", "rarely", "often", "often", "often"]);
        assert_eq!(*seen.lock().unwrap(), names);
    }

    /// A slow pass delays its next one rather than bunching them up.
    #[tokio::test(start_paused = true)]
    async fn a_slow_pass_delays_the_next_instead_of_bunching_them() {
        let start = Instant::now();
        let starts = Arc::new(Mutex::new(Vec::new()));
        let seen = starts.clone();
        let slow = Pass::new("slow", Worker::Sweeps, Duration::from_secs(2), move |_| {
            let seen = seen.clone();
            async move {
                let at = Instant::now() - start;
                seen.lock().unwrap().push(at);
                // The first pass takes 5 s: the next starts when it ends.
                if at.is_zero() {
                    tokio::time::sleep(Duration::from_secs(5)).await;
                }
                Ok(Report::ResetMails(0))
            }
        });
        drive(&[slow], Worker::Sweeps, start + Duration::from_secs(10)).await;
        let secs = [0, 5, 7, 9].map(Duration::from_secs);
        assert_eq!(*starts.lock().unwrap(), secs);
    }

    /// A window of zero still runs every pass once.
    #[tokio::test(start_paused = true)]
    async fn an_invocation_without_time_runs_each_pass_once() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let passes = vec![
            counting("a", Duration::from_secs(2), seen.clone()),
            counting("b", Duration::from_secs(60), seen.clone()),
        ];
        let outcomes = drive(&passes, Worker::Sweeps, Instant::now()).await;
        assert_eq!(outcomes.len(), 2);
    }
}
