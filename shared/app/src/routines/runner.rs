//! The routine runner: a run is a small state machine that the runner moves
//! one step at a time, recording each step's outcome before the next one
//! starts (steps in order; a failure is recorded and later steps
//! continue).
//!
//! A step with effects (a thing, a room, music) is first **claimed**: the
//! run is written with the step `inFlight` and a lease ([`LEASE`], in
//! `resumeAt`), then the step runs, then its outcome is written with the
//! next step. Every write is conditioned on the run's revision, so two
//! runners (two Lambda instances, a request and the sweep) never both run a
//! step: the one whose claim lands does it. A runner that stops mid-step
//! leaves the claim; once the lease runs out, the next runner records the
//! step failed ([`INTERRUPTED`]) and goes on: a step is never repeated, as a
//! command that may have reached a thing must not be sent twice.
//!
//! A delay ends the pass: the run is due again when the delay is over. A
//! music step is a barrier: it waits (polling every [`WAIT_POLL`], up to
//! [`BARRIER_WAIT`]) until the device commands of earlier steps are
//! answered or given up, so earlier device changes complete first.
//!
//! Who runs it: [`pass`] (the local platform's beat, the hosted routines
//! function every minute, passes repeated until its deadline) starts the
//! scheduled occurrences that are due (exactly once each: the claim of
//! `repo::routines`) and moves every run that is due; a manual run
//! (`POST /routines/{id}/run`) moves its run at once until the first wait,
//! and the passes go on from there.

use alyt_domain::device::{CommandRequest, CommandState};
use alyt_domain::ids::{DeviceId, EndpointId, RoomId};
use alyt_domain::room::{ActionRef, PinnedThingKind};
use alyt_domain::routine::{Step, Trigger, home_timezone, next_occurrence};
use alyt_store::StoreError;
use alyt_store::repo::commands::Commands;
use alyt_store::repo::devices::Devices;
use alyt_store::repo::integrations::Integrations;
use alyt_store::repo::rooms::Rooms;
use alyt_store::repo::routines::{
    IssuedCommand, RoutineError, RoutineRecord, Routines, RunCause, RunRecord, RunState,
    StepOutcome, StepResult, ThingResult,
};
use alyt_store::repo::tenancy::{PropertyRecord, Tenancy};
use time::{Duration, OffsetDateTime};

use crate::App;
use crate::endpoints::{command_endpoint, installed};
use crate::rooms::{ActionResult, RADIO_ONLY, apply_room_action};

/// How often the runner passes (the local beat; the hosted function repeats
/// passes this often within an invocation).
pub const PASS_EVERY: std::time::Duration = std::time::Duration::from_secs(1);
/// How long one pass starts steps for, locally (a pass that runs out leaves
/// the rest due for the next).
pub const PASS_BUDGET: std::time::Duration = std::time::Duration::from_secs(30);
/// How long a claimed step may take before another runner takes it for
/// interrupted (a room action over many unreachable things can take
/// minutes: each connector call has 10 s).
pub const LEASE: Duration = Duration::minutes(5);
/// The longest a music step waits for earlier device commands.
pub const BARRIER_WAIT: Duration = Duration::seconds(20);
/// How often a waiting music step looks again.
pub const WAIT_POLL: Duration = Duration::seconds(1);
/// A scheduled occurrence found later than this (the platform was down) is
/// not run: a 07:00 routine does not start at noon.
pub const LATE_LIMIT: Duration = Duration::minutes(10);
/// Routines and runs one pass takes up.
const PASS_BATCH: u32 = 50;
/// Why a claimed step that never recorded its outcome failed.
pub const INTERRUPTED: &str =
    "interrupted: the platform stopped while this step ran; it is not run again";

/// What one pass did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct RunnerReport {
    /// Scheduled occurrences started.
    pub started: u32,
    /// Occurrences found too late and passed over.
    pub missed: u32,
    /// Runs moved on (a step or more).
    pub progressed: u32,
    /// Runs that finished.
    pub finished: u32,
    /// Claims another runner made first.
    pub raced: u32,
}

/// One pass: starts the scheduled occurrences due by now and moves every
/// run that is due, starting no step after `until` (what is left is due
/// for the next pass). A failed run or routine is logged and left for the
/// next pass.
pub async fn pass(app: &App, until: tokio::time::Instant) -> Result<RunnerReport, StoreError> {
    let mut report = RunnerReport::default();
    let now = app.clock.now();
    let repo = Routines(&*app.store);
    for routine in repo.due(now, PASS_BATCH).await? {
        match start_occurrence(app, &routine, now).await {
            // Its first steps run below, with the other runs due.
            Ok(Some(_)) => report.started += 1,
            Ok(None) => report.missed += 1,
            Err(RoutineError::AlreadyRun | RoutineError::Changed) => report.raced += 1,
            Err(RoutineError::Store(e)) => {
                tracing::warn!(routine = %routine.id, error = %e, "starting a scheduled run failed");
            }
        }
    }
    for run in repo.runs_due(app.clock.now(), PASS_BATCH).await? {
        let id = run.id;
        match progress(app, run, until).await {
            Ok(run) => {
                report.progressed += 1;
                if run.state == RunState::Finished {
                    report.finished += 1;
                }
            }
            Err(RoutineError::Changed | RoutineError::AlreadyRun) => report.raced += 1,
            Err(RoutineError::Store(e)) => {
                tracing::warn!(run = %id, error = %e, "moving a run failed");
            }
        }
    }
    Ok(report)
}

/// Runs routine `id` now for `caller` (who controls its home): the run is
/// written, then its steps run here for up to `budget` until the first
/// wait; the passes finish it. Answers the run as last written.
pub async fn run_now(
    app: &App,
    caller: &alyt_domain::access::Principal,
    tenant: alyt_domain::ids::TenantId,
    id: alyt_domain::ids::RoutineId,
    budget: std::time::Duration,
) -> Result<RunRecord, crate::Error> {
    let (routine, _) = crate::routines::saved::routine_for(
        app,
        caller,
        tenant,
        id,
        alyt_domain::access::HomeAccess::Control,
    )
    .await?;
    if !routine.body.enabled {
        return Err(crate::Error::conflict(
            "the routine is disabled; enable it to run it",
        ));
    }
    let now = app.clock.now();
    let mut run = RunRecord::start(
        &routine,
        RunCause::Manual {
            by: caller.user_id(),
        },
        now,
    );
    // Stored due only after a lease: the runner's passes leave it to this
    // request (which runs it at once) unless the request stops before its
    // first step is claimed; nothing has run by then, so a pass starts it.
    run.resume_at = Some(now + LEASE);
    Routines(&*app.store).start_run(&run).await?;
    let mine = RunRecord {
        resume_at: Some(now),
        ..run.clone()
    };
    let until = tokio::time::Instant::now() + budget;
    Ok(match progress(app, mine, until).await {
        Ok(moved) => moved,
        // The runner's passes go on from what was written.
        Err(e) => {
            tracing::warn!(run = %run.id, error = %e, "a manual run stopped early; the runner goes on");
            run
        }
    })
}

/// The occurrence `routine.next_due` names: its trigger and local date, and
/// when the routine is due after it.
fn occurrence_of(
    routine: &RoutineRecord,
    home: &PropertyRecord,
) -> Option<(u32, String, Option<OffsetDateTime>)> {
    let due = routine.next_due?;
    let tz = home_timezone(&home.timezone);
    let just_before = due - Duration::microseconds(1);
    let mut fired = None;
    let mut after = None::<OffsetDateTime>;
    for (index, trigger) in routine.body.triggers.iter().enumerate() {
        let Trigger::Time { at, days } = trigger else {
            continue;
        };
        if fired.is_none()
            && let Some(o) = next_occurrence(*at, days, &tz, just_before)
            && o.at == due
        {
            fired = Some((index as u32, o.local_date.to_string()));
        }
        if let Some(o) = next_occurrence(*at, days, &tz, due) {
            after = Some(after.map_or(o.at, |a| a.min(o.at)));
        }
    }
    let (trigger, date) = fired?;
    Some((trigger, date, after))
}

/// Starts the occurrence of `routine` that is due (its claim: once however
/// many runners see it). `None` when it was missed by more than
/// [`LATE_LIMIT`] or no longer names an occurrence: the routine just moves
/// on to its next time.
async fn start_occurrence(
    app: &App,
    routine: &RoutineRecord,
    now: OffsetDateTime,
) -> Result<Option<RunRecord>, RoutineError> {
    let repo = Routines(&*app.store);
    let home = Tenancy(&*app.store)
        .property(routine.tenant_id, routine.property_id)
        .await?;
    let occurrence = home
        .as_ref()
        .and_then(|h| occurrence_of(routine, h).map(|o| (h, o)));
    let Some((home, (trigger, local_date, after))) = occurrence else {
        // The home went, or the triggers changed under an old due time.
        let next = RoutineRecord {
            next_due: None,
            ..routine.clone()
        };
        repo.change(routine, &next).await?;
        return Ok(None);
    };
    let due = routine.next_due.unwrap_or(now);
    // Due again strictly after now, however long the platform was away.
    let tz = home_timezone(&home.timezone);
    let next_due = match after {
        Some(at) if at > now => Some(at),
        _ => routine
            .body
            .triggers
            .iter()
            .filter_map(|t| match t {
                Trigger::Time { at, days } => next_occurrence(*at, days, &tz, now).map(|o| o.at),
                Trigger::Manual => None,
            })
            .min(),
    };
    if now - due > LATE_LIMIT {
        tracing::info!(routine = %routine.id, %due, "a scheduled occurrence was missed; not run late");
        let next = RoutineRecord {
            next_due,
            ..routine.clone()
        };
        repo.change(routine, &next).await?;
        return Ok(None);
    }
    let run = RunRecord::start(
        routine,
        RunCause::Schedule {
            trigger,
            local_date,
        },
        now,
    );
    repo.claim_occurrence(routine, &run, next_due).await?;
    Ok(Some(run))
}

/// Moves `run` on while it is due: step after step until it finishes, waits
/// (a delay, a music step's barrier) or `until` passes (checked before a
/// step starts). Answers the run as last written.
pub async fn progress(
    app: &App,
    mut run: RunRecord,
    until: tokio::time::Instant,
) -> Result<RunRecord, RoutineError> {
    let repo = Routines(&*app.store);
    loop {
        let now = app.clock.now();
        if run.state == RunState::Finished || run.resume_at.is_some_and(|at| at > now) {
            return Ok(run);
        }
        if let Some(step) = run.in_flight {
            // Its runner stopped mid-step (the lease ran out).
            let kind = step_kind(run.plan.get(step as usize));
            let mut result = StepResult::new(step, kind, StepOutcome::Failed, now);
            result.reason = Some(INTERRUPTED.to_owned());
            run = record(&repo, &run, result, Vec::new(), now).await?;
            continue;
        }
        let index = run.next_step;
        let Some(step) = run.plan.get(index as usize).cloned() else {
            let next = RunRecord {
                state: RunState::Finished,
                finished_at: Some(now),
                resume_at: None,
                ..run.clone()
            };
            return repo.update_run(&run, &next).await;
        };
        if tokio::time::Instant::now() >= until {
            return Ok(run);
        }
        match &step {
            Step::Delay { seconds } => {
                let mut result = StepResult::new(index, "delay", StepOutcome::Applied, now);
                result.detail = Some(format!("waited {seconds} s"));
                let resume = now + Duration::seconds(i64::from(*seconds));
                run = record(&repo, &run, result, Vec::new(), resume).await?;
                continue;
            }
            Step::Music(_) => {
                let waited = run
                    .waiting_since
                    .map_or(Duration::ZERO, |since| now - since);
                if waited < BARRIER_WAIT && !earlier_commands_done(app, &run).await? {
                    let next = RunRecord {
                        waiting_since: Some(run.waiting_since.unwrap_or(now)),
                        resume_at: Some(now + WAIT_POLL),
                        ..run.clone()
                    };
                    return repo.update_run(&run, &next).await;
                }
            }
            _ => {}
        }
        // A step with effects: claimed first, so it runs at most once.
        let claimed = RunRecord {
            in_flight: Some(index),
            resume_at: Some(now + LEASE),
            ..run.clone()
        };
        run = repo.update_run(&run, &claimed).await?;
        let (result, issued) = execute(app, &run, index, &step).await;
        let done = app.clock.now();
        run = record(&repo, &run, result, issued, done).await?;
    }
}

/// Writes a step's outcome and moves the run to the next step, due at
/// `resume`.
async fn record(
    repo: &Routines<'_>,
    run: &RunRecord,
    result: StepResult,
    issued: Vec<IssuedCommand>,
    resume: OffsetDateTime,
) -> Result<RunRecord, RoutineError> {
    let mut next = run.clone();
    next.next_step = result.step + 1;
    next.steps.push(result);
    next.commands.extend(issued);
    next.in_flight = None;
    next.waiting_since = None;
    next.resume_at = Some(resume);
    repo.update_run(run, &next).await
}

fn step_kind(step: Option<&Step>) -> &'static str {
    match step {
        Some(Step::Thing { .. }) => "thing",
        Some(Step::Room { .. }) => "room",
        Some(Step::Delay { .. }) => "delay",
        Some(Step::Music(_)) => "music",
        Some(Step::Security { .. }) | None => "security",
    }
}

/// Whether every device command of the earlier steps is answered or given
/// up (one get each).
async fn earlier_commands_done(app: &App, run: &RunRecord) -> Result<bool, StoreError> {
    let commands = Commands(&*app.store);
    for issued in &run.commands {
        let Some(stored) = commands.get(issued.device_id, issued.command_id).await? else {
            continue;
        };
        let state = stored.row.state.known();
        if matches!(state, Some(CommandState::Pending | CommandState::Sent)) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Runs one step against the home as it is now; never fails: what went
/// wrong is the step's recorded reason.
async fn execute(
    app: &App,
    run: &RunRecord,
    index: u32,
    step: &Step,
) -> (StepResult, Vec<IssuedCommand>) {
    let now = app.clock.now();
    let kind = step_kind(Some(step));
    let failed = |reason: String| {
        let mut result = StepResult::new(index, kind, StepOutcome::Failed, now);
        result.reason = Some(reason);
        (result, Vec::new())
    };
    let home = match Tenancy(&*app.store)
        .property(run.tenant_id, run.property_id)
        .await
    {
        Ok(Some(home)) => home,
        Ok(None) => return failed("the home no longer exists".to_owned()),
        Err(e) => return failed(format!("the platform could not read the home: {e}")),
    };
    match step {
        Step::Thing { thing, command } => match thing.kind {
            PinnedThingKind::Device => {
                device_step(app, &home, index, DeviceId(thing.id), command).await
            }
            PinnedThingKind::Endpoint => (
                endpoint_step(app, &home, index, EndpointId(thing.id), command).await,
                Vec::new(),
            ),
        },
        Step::Room {
            room_id,
            capability,
            action,
            value,
        } => {
            room_step(
                app,
                &home,
                index,
                RoomId(*room_id),
                ActionRef::new(capability.clone(), action.clone()),
                value.as_ref(),
            )
            .await
        }
        Step::Music(music) => (
            crate::music::play_step(app, &home, index, music).await,
            Vec::new(),
        ),
        Step::Security { mode } => {
            let mut result = StepResult::new(index, kind, StepOutcome::Failed, now);
            result.detail = Some(format!("mode {}", security_mode(*mode)));
            let people = (run.actor, run.saved_by);
            match crate::security::mode::routine_mode(app, run.routine_id, &home, people, *mode)
                .await
            {
                Ok(()) => result.outcome = StepOutcome::Applied,
                Err(why) => result.reason = Some(why),
            }
            (result, Vec::new())
        }
        Step::Delay { .. } => failed("a delay is not executed".to_owned()),
    }
}

fn security_mode(mode: alyt_domain::routine::SecurityMode) -> String {
    serde_json::to_value(mode)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn one_thing(index: u32, now: OffsetDateTime, thing: ThingResult) -> StepResult {
    let mut result = StepResult::new(index, "thing", thing.outcome, now);
    result.detail = Some(thing.name.clone());
    result.reason = thing.reason.clone();
    result.things.push(thing);
    result
}

async fn device_step(
    app: &App,
    home: &PropertyRecord,
    index: u32,
    id: DeviceId,
    command: &serde_json::Value,
) -> (StepResult, Vec<IssuedCommand>) {
    let now = app.clock.now();
    let gone = || {
        let mut result = StepResult::new(index, "thing", StepOutcome::Failed, now);
        result.reason = Some("the thing is no longer in this home".to_owned());
        (result, Vec::new())
    };
    let device = match Devices(&*app.store).get(home.tenant_id, id).await {
        Ok(Some(d)) if d.property_id == Some(home.id) && d.deleted_at.is_none() => d,
        _ => return gone(),
    };
    let mut thing = ThingResult {
        thing_id: id.0,
        name: device.name.clone(),
        outcome: StepOutcome::Failed,
        reason: None,
        command_id: None,
    };
    if device.parent_device_id.is_some() {
        thing.reason = Some(RADIO_ONLY.to_owned());
        return (one_thing(index, now, thing), Vec::new());
    }
    let sent = match CommandRequest::parse(command) {
        Ok(request) => {
            crate::commands::accept_and_publish(app, home.tenant_id, &device, request).await
        }
        Err(e) => Err(crate::commands::invalid(e)),
    };
    match sent {
        Ok(row) => {
            thing.outcome = StepOutcome::Applied;
            thing.command_id = Some(row.command_id);
            let issued = IssuedCommand {
                step: index,
                device_id: id,
                command_id: row.command_id,
            };
            (one_thing(index, now, thing), vec![issued])
        }
        Err(e) => {
            thing.reason = Some(e.detail);
            (one_thing(index, now, thing), Vec::new())
        }
    }
}

async fn endpoint_step(
    app: &App,
    home: &PropertyRecord,
    index: u32,
    id: EndpointId,
    command: &serde_json::Value,
) -> StepResult {
    let now = app.clock.now();
    let endpoint = match Integrations(&*app.store).endpoint(home.tenant_id, id).await {
        Ok(Some(e)) if e.property_id == home.id => e,
        _ => {
            let mut result = StepResult::new(index, "thing", StepOutcome::Failed, now);
            result.reason = Some("the thing is no longer in this home".to_owned());
            return result;
        }
    };
    let mut thing = ThingResult {
        thing_id: id.0,
        name: endpoint.name.clone(),
        outcome: StepOutcome::Failed,
        reason: None,
        command_id: None,
    };
    let request = match CommandRequest::parse(command) {
        Ok(request) => request,
        Err(e) => {
            thing.reason = Some(e.to_string());
            return one_thing(index, now, thing);
        }
    };
    let connector = match installed(app, home.tenant_id, endpoint.integration_id).await {
        Ok(connector) => connector,
        Err(e) => {
            thing.reason = Some(e.detail);
            return one_thing(index, now, thing);
        }
    };
    match command_endpoint(app, &connector, endpoint, request).await {
        Ok(_) => thing.outcome = StepOutcome::Applied,
        Err(failure) => thing.reason = Some(failure.reason()),
    }
    one_thing(index, now, thing)
}

async fn room_step(
    app: &App,
    home: &PropertyRecord,
    index: u32,
    room_id: RoomId,
    action: ActionRef,
    value: Option<&serde_json::Value>,
) -> (StepResult, Vec<IssuedCommand>) {
    let now = app.clock.now();
    let mut result = StepResult::new(index, "room", StepOutcome::Failed, now);
    let room = match Rooms(&*app.store).get(home.id, room_id).await {
        Ok(Some(room)) => room,
        _ => {
            result.reason = Some("the room is no longer in this home".to_owned());
            return (result, Vec::new());
        }
    };
    result.detail = Some(room.name.clone());
    let applied = match apply_room_action(app, room, &action, value).await {
        Ok(applied) => applied,
        Err(e) => {
            result.reason = Some(e.detail);
            return (result, Vec::new());
        }
    };
    let (things, issued) = room_things(index, &applied);
    result.outcome = room_outcome(&applied);
    result.reason = match result.outcome {
        StepOutcome::Failed => Some(format!(
            "{} of {} things failed",
            applied.failed.len(),
            things.len()
        )),
        StepOutcome::Skipped => Some("no thing in the room offers this action".to_owned()),
        StepOutcome::Applied => None,
    };
    result.things = things;
    (result, issued)
}

/// Failed when a member failed; skipped when none was reached; applied
/// otherwise.
fn room_outcome(result: &ActionResult) -> StepOutcome {
    if !result.failed.is_empty() {
        StepOutcome::Failed
    } else if result.applied.is_empty() {
        StepOutcome::Skipped
    } else {
        StepOutcome::Applied
    }
}

fn room_things(index: u32, result: &ActionResult) -> (Vec<ThingResult>, Vec<IssuedCommand>) {
    let mut things = Vec::new();
    let mut issued = Vec::new();
    for applied in &result.applied {
        if let Some(command_id) = applied.command_id {
            issued.push(IssuedCommand {
                step: index,
                device_id: DeviceId(applied.thing_id),
                command_id,
            });
        }
        things.push(ThingResult {
            thing_id: applied.thing_id,
            name: applied.name.clone(),
            outcome: StepOutcome::Applied,
            reason: None,
            command_id: applied.command_id,
        });
    }
    for (outcome, list) in [
        (StepOutcome::Skipped, &result.skipped),
        (StepOutcome::Failed, &result.failed),
    ] {
        for thing in list {
            things.push(ThingResult {
                thing_id: thing.thing_id,
                name: thing.name.clone(),
                outcome,
                reason: Some(thing.reason.clone()),
                command_id: None,
            });
        }
    }
    (things, issued)
}

#[cfg(test)]
mod tests {
    //! The run state machine against a plain model: whatever passes, clock
    //! moves and runner crashes (a step claimed, then nothing) happen, every
    //! step gets exactly one outcome, in order; a step whose runner stopped
    //! is recorded interrupted and never run; a delay is never cut short;
    //! and the run finishes.

    use std::sync::Arc;

    use alyt_domain::ids::{ClientId, PropertyId, RoutineId, TenantId};
    use alyt_domain::routine::{RoutineBody, SecurityMode};
    use alyt_domain::{Clock, ManualClock};
    use alyt_store::Store;
    use alyt_store::repo::tenancy::property_write;
    use alyt_store::sqlite::SqliteStore;
    use proptest::prelude::*;

    use super::*;
    use crate::ports::{NoBotCheck, NoMailer};

    /// A security step of a run nobody in particular started.
    const NO_PERSON: &str = "a routine run by a key or a widget cannot change home security";
    use crate::Adapters;

    #[derive(Debug, Clone)]
    enum Op {
        /// A runner's pass.
        Pass,
        /// Time goes on.
        Advance(i64),
        /// A runner claims the next step with effects and stops.
        Crash,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => Just(Op::Pass),
            3 => (1i64..400).prop_map(Op::Advance),
            1 => Just(Op::Crash),
        ]
    }

    /// Steps without I/O beyond the store: delays and security steps.
    fn plan() -> impl Strategy<Value = Vec<Step>> {
        prop::collection::vec(
            prop_oneof![
                (1u32..5).prop_map(|seconds| Step::Delay { seconds }),
                Just(Step::Security {
                    mode: SecurityMode::Off
                }),
            ],
            1..8,
        )
    }

    async fn app(clock: Arc<ManualClock>) -> (App, PropertyRecord) {
        let store: Arc<dyn Store> = Arc::new(SqliteStore::in_memory(clock.clone()).unwrap());
        let app = App::new(
            Adapters {
                store: store.clone(),
                clock: clock.clone(),
                mailer: Arc::new(NoMailer),
                bot_check: Arc::new(NoBotCheck),
                publisher: Arc::new(alyt_device::NoPublisher),
                credentials: Arc::new(crate::ports::PasswordCredentials),
            },
            "http://127.0.0.1/v1".into(),
        )
        .unwrap();
        let now = clock.now();
        let home = PropertyRecord {
            id: PropertyId::new(),
            tenant_id: TenantId::new(),
            client_id: ClientId::new(),
            name: "Home".into(),
            timezone: "UTC".into(),
            address: None,
            latitude: None,
            longitude: None,
            created_at: now,
            updated_at: now,
        };
        store
            .transact(vec![property_write(&home).unwrap()])
            .await
            .unwrap();
        (app, home)
    }

    async fn current(app: &App, routine: RoutineId) -> RunRecord {
        let (runs, _) = Routines(&*app.store).runs(routine, 1, None).await.unwrap();
        runs.into_iter().next().unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn every_step_gets_one_outcome_in_order_whatever_happens(
            plan in plan(),
            ops in prop::collection::vec(op(), 0..40),
        ) {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async {
                let start = OffsetDateTime::from_unix_timestamp(1_800_000_000).unwrap();
                let clock = Arc::new(ManualClock::new(start));
                let (app, home) = app(clock.clone()).await;
                let routine = RoutineRecord {
                    id: RoutineId::new(),
                    tenant_id: home.tenant_id,
                    client_id: home.client_id,
                    property_id: home.id,
                    body: RoutineBody {
                        name: "Model".into(),
                        enabled: true,
                        triggers: Vec::new(),
                        steps: plan.clone(),
                    },
                    next_due: None,
                    created_by: None,
                    saved_by: None,
                    created_at: start,
                    updated_at: start,
                    rev: 0,
                };
                let repo = Routines(&*app.store);
                let run = RunRecord::start(&routine, RunCause::Manual { by: None }, start);
                repo.start_run(&run).await.unwrap();
                let until = || tokio::time::Instant::now() + std::time::Duration::from_secs(30);
                // The model: which steps a crash took.
                let mut crashed = std::collections::BTreeSet::new();
                for op in ops.iter().chain(std::iter::repeat_n(&Op::Advance(400), 1)) {
                    match op {
                        Op::Pass => {
                            pass(&app, until()).await.unwrap();
                        }
                        Op::Advance(seconds) => clock.advance(Duration::seconds(*seconds)),
                        Op::Crash => {
                            let read = current(&app, routine.id).await;
                            let next = read.next_step as usize;
                            let due = read.resume_at.is_some_and(|at| at <= clock.now());
                            if read.state == RunState::Running
                                && read.in_flight.is_none()
                                && due
                                && matches!(read.plan.get(next), Some(Step::Security { .. }))
                            {
                                let claimed = RunRecord {
                                    in_flight: Some(next as u32),
                                    resume_at: Some(clock.now() + LEASE),
                                    ..read.clone()
                                };
                                repo.update_run(&read, &claimed).await.unwrap();
                                crashed.insert(next as u32);
                            }
                        }
                    }
                    let now = current(&app, routine.id).await;
                    // Outcomes are the steps 0.. in order, each once.
                    let indices: Vec<u32> = now.steps.iter().map(|s| s.step).collect();
                    prop_assert_eq!(indices, (0..now.steps.len() as u32).collect::<Vec<_>>());
                    prop_assert_eq!(now.next_step as usize, now.steps.len());
                    if let Some(step) = now.in_flight {
                        prop_assert_eq!(step, now.next_step);
                    }
                }
                // Enough time and passes finish it.
                for _ in 0..(plan.len() * 2 + 2) {
                    clock.advance(LEASE + Duration::seconds(10));
                    pass(&app, until()).await.unwrap();
                }
                let done = current(&app, routine.id).await;
                prop_assert_eq!(done.state, RunState::Finished);
                prop_assert_eq!(done.steps.len(), plan.len());
                for (result, step) in done.steps.iter().zip(&plan) {
                    match step {
                        Step::Delay { .. } => prop_assert_eq!(result.outcome, StepOutcome::Applied),
                        _ if crashed.contains(&result.step) => {
                            prop_assert_eq!(result.reason.as_deref(), Some(INTERRUPTED));
                        }
                        _ => prop_assert_eq!(result.reason.as_deref(), Some(NO_PERSON)),
                    }
                }
                // A delay is never cut short: the next outcome comes after it.
                for pair in done.steps.windows(2) {
                    if let Some(Step::Delay { seconds }) = plan.get(pair[0].step as usize) {
                        prop_assert!(pair[1].at >= pair[0].at + Duration::seconds(i64::from(*seconds)));
                    }
                }
                Ok(())
            })?;
        }
    }
}
