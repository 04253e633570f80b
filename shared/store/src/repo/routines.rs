//! Routines and their runs (the rules are [`alyt_domain::routine`]).
//!
//! Keys (see `DATA_MODEL.md`, "Routines"):
//! * routine `TENANT#{t}` / `ROUTINE#{id}` (one get by tenant and id), in
//!   gsi1 `ROUTINES#{propertyId}` / `{id}` (a home's routines, oldest first:
//!   ids are UUIDv7) and, while enabled with a time trigger, gsi2
//!   `ROUTINEDUE` / `{nextDue µs:020}#{id}` (the sweep reads what is due).
//!   Every change is a put conditioned on `rev`.
//! * run `RUNS#{routineId}` / `{startedAt µs:020}#{runId}`: a routine's run
//!   history, newest first, kept [`RUN_KEPT`] (`ttl`); while it runs, in
//!   gsi2 `RUNDUE` / `{resumeAt µs:020}#{runId}` (the runner reads what is
//!   due). Every change of a run is conditioned on its `rev`.
//! * occurrence guard `OCCURRENCE#{routineId}#{trigger}#{localDate}` /
//!   `OCCURRENCE`: a scheduled occurrence runs once. The sweep claims it in
//!   one transaction with the run and the routine's next due time (the
//!   routine conditioned on `rev`, the guard on being absent), so of any
//!   number of sweeps that see it exactly one runs it. Kept 8 days (`ttl`).

use super::{page, record, ts};
use alyt_domain::device::CommandId;
use alyt_domain::ids::{ClientId, DeviceId, PropertyId, RoutineId, TenantId, UserId};
use alyt_domain::routine::{RoutineBody, Step};
use serde::{Deserialize, Serialize};
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

use super::history::{due_by, micros};
use crate::{Condition, Index, Item, Key, ListScope, PageKey, Store, StoreError, TxWrite};

/// The sweep's index partition.
const DUE: &str = "ROUTINEDUE";
/// The runner's index partition: runs in progress by when to look again.
const RUN_DUE: &str = "RUNDUE";
/// How long a run stays in the history.
pub const RUN_KEPT: Duration = Duration::days(30);
/// How long an occurrence guard outlives its occurrence.
pub const OCCURRENCE_KEPT: Duration = Duration::days(8);

/// A household's routine in one home.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RoutineRecord {
    pub id: RoutineId,
    pub tenant_id: TenantId,
    pub client_id: ClientId,
    pub property_id: PropertyId,
    /// `{ name, enabled, triggers, do }` as checked.
    pub body: RoutineBody,
    /// When its next scheduled occurrence is due (none: disabled or no time
    /// trigger); the sweep's index follows it.
    #[serde(with = "ts::option", default)]
    pub next_due: Option<OffsetDateTime>,
    pub created_by: Option<UserId>,
    /// Who saved it last (created or changed it; none: a key, or a routine
    /// saved before this was kept, whose creator stands in). A security
    /// step acts with this person's authority, checked again at every run.
    #[serde(default)]
    pub saved_by: Option<UserId>,
    #[serde(with = "ts::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "ts::rfc3339")]
    pub updated_at: OffsetDateTime,
    /// Bumped by every change; every change is conditioned on it.
    pub rev: u32,
}

/// What started a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum RunCause {
    /// `POST /routines/{id}/run`, by this person (none: a key).
    #[serde(rename_all = "camelCase")]
    Manual { by: Option<UserId> },
    /// Time trigger `trigger` (its index) on the home's local date.
    #[serde(rename_all = "camelCase")]
    Schedule { trigger: u32, local_date: String },
}

/// How one step of a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum StepOutcome {
    Applied,
    Failed,
    Skipped,
}

/// What one step did to one thing (a thing step's thing, a room step's
/// members).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThingResult {
    pub thing_id: Uuid,
    pub name: String,
    pub outcome: StepOutcome,
    #[serde(default)]
    pub reason: Option<String>,
    /// The command sent to a device (its command history has the answer).
    #[serde(default)]
    pub command_id: Option<CommandId>,
}

/// One step's result in a run's history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StepResult {
    /// Its index in `do[]`.
    pub step: u32,
    /// The step's kind (`thing`, `room`, `delay`, `music`, `security`).
    pub kind: String,
    pub outcome: StepOutcome,
    /// Why it failed or was skipped.
    #[serde(default)]
    pub reason: Option<String>,
    /// What it was about, for people: the thing's or room's name, the
    /// delay, the mode.
    #[serde(default)]
    pub detail: Option<String>,
    /// A music step: the speaker's name and what it was to play.
    #[serde(default)]
    pub speaker: Option<String>,
    #[serde(default)]
    pub music: Option<String>,
    /// Per thing, for thing and room steps.
    #[serde(default)]
    pub things: Vec<ThingResult>,
    #[serde(with = "ts::rfc3339")]
    pub at: OffsetDateTime,
}

impl StepResult {
    /// A step's result with nothing but its outcome yet.
    pub fn new(step: u32, kind: &str, outcome: StepOutcome, at: OffsetDateTime) -> Self {
        Self {
            step,
            kind: kind.to_owned(),
            outcome,
            reason: None,
            detail: None,
            speaker: None,
            music: None,
            things: Vec::new(),
            at,
        }
    }
}

/// A device command an earlier step sent: a music step waits for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IssuedCommand {
    pub step: u32,
    pub device_id: DeviceId,
    pub command_id: CommandId,
}

/// Where a run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum RunState {
    Running,
    Finished,
}

/// One run of a routine and its steps' outcomes so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunRecord {
    pub id: Uuid,
    pub routine_id: RoutineId,
    pub tenant_id: TenantId,
    pub property_id: PropertyId,
    /// The routine's name when it ran.
    pub name: String,
    pub cause: RunCause,
    /// Who the run acts for: the person who ran it, or for a schedule the
    /// person who saved the routine (none: a key or a widget). Steps that
    /// need a person's own right (home security) check it when they run.
    #[serde(default)]
    pub actor: Option<UserId>,
    /// Who saved the routine this run follows: a security step needs this
    /// person's authority too, checked when it runs.
    #[serde(default)]
    pub saved_by: Option<UserId>,
    pub state: RunState,
    /// The routine's steps when it started (a change of the routine does
    /// not change a run under way).
    pub plan: Vec<Step>,
    /// The outcomes so far, in step order.
    pub steps: Vec<StepResult>,
    /// The step to run next.
    pub next_step: u32,
    /// A step whose side effects may have begun: a runner claimed it and has
    /// not recorded its outcome. Found after its lease (`resume_at`), it is
    /// recorded failed and never run again.
    #[serde(default)]
    pub in_flight: Option<u32>,
    /// While running: when the runner looks at it again (after a delay, a
    /// wait, or an in-flight step's lease).
    #[serde(with = "ts::option", default)]
    pub resume_at: Option<OffsetDateTime>,
    /// Since when a music step waits for earlier device commands.
    #[serde(with = "ts::option", default)]
    pub waiting_since: Option<OffsetDateTime>,
    /// Device commands sent by earlier steps.
    #[serde(default)]
    pub commands: Vec<IssuedCommand>,
    #[serde(with = "ts::rfc3339")]
    pub started_at: OffsetDateTime,
    #[serde(with = "ts::option", default)]
    pub finished_at: Option<OffsetDateTime>,
    pub rev: u32,
}

impl RunRecord {
    /// A run of `routine` as it is now, starting at `now`.
    pub fn start(routine: &RoutineRecord, cause: RunCause, now: OffsetDateTime) -> Self {
        let saved_by = routine.saved_by.or(routine.created_by);
        let actor = match &cause {
            RunCause::Manual { by } => *by,
            RunCause::Schedule { .. } => saved_by,
        };
        Self {
            actor,
            saved_by,
            id: Uuid::now_v7(),
            routine_id: routine.id,
            tenant_id: routine.tenant_id,
            property_id: routine.property_id,
            name: routine.body.name.clone(),
            cause,
            state: RunState::Running,
            plan: routine.body.steps.clone(),
            steps: Vec::new(),
            next_step: 0,
            in_flight: None,
            resume_at: Some(now),
            waiting_since: None,
            commands: Vec::new(),
            started_at: now,
            finished_at: None,
            rev: 0,
        }
    }
}

/// Why a routine or a run was not written.
#[derive(Debug, thiserror::Error)]
pub enum RoutineError {
    /// It changed (or went) since it was read.
    #[error("the routine changed meanwhile")]
    Changed,
    /// The scheduled occurrence already ran (another sweep took it).
    #[error("this occurrence already ran")]
    AlreadyRun,
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn routine_key(tenant: TenantId, id: RoutineId) -> Key {
    Key::new(format!("TENANT#{tenant}"), format!("ROUTINE#{id}"))
}

fn routine_item(routine: &RoutineRecord) -> Result<Item, StoreError> {
    let mut item = Item::from_record(routine_key(routine.tenant_id, routine.id), routine)?
        .with(
            Index::Gsi1.pk_attr(),
            format!("ROUTINES#{}", routine.property_id),
        )
        .with(Index::Gsi1.sk_attr(), routine.id.to_string());
    if let Some(due) = routine.next_due {
        item.set(Index::Gsi2.pk_attr(), DUE);
        item.set(
            Index::Gsi2.sk_attr(),
            format!("{}#{}", micros(due), routine.id),
        );
    }
    Ok(item)
}

fn run_key(run: &RunRecord) -> Key {
    Key::new(
        format!("RUNS#{}", run.routine_id),
        format!("{}#{}", micros(run.started_at), run.id),
    )
}

fn run_item(run: &RunRecord) -> Result<Item, StoreError> {
    let mut item = Item::from_record(run_key(run), run)?
        .with("ttl", (run.started_at + RUN_KEPT).unix_timestamp());
    if let (RunState::Running, Some(at)) = (run.state, run.resume_at) {
        item.set(Index::Gsi2.pk_attr(), RUN_DUE);
        item.set(Index::Gsi2.sk_attr(), format!("{}#{}", micros(at), run.id));
    }
    Ok(item)
}

fn occurrence_key(routine: RoutineId, trigger: u32, local_date: &str) -> Key {
    Key::new(
        format!("OCCURRENCE#{routine}#{trigger}#{local_date}"),
        "OCCURRENCE",
    )
}

/// A home's routines.
pub fn home_routines(property: PropertyId) -> ListScope {
    ListScope::Index(Index::Gsi1, format!("ROUTINES#{property}"))
}

/// A routine's runs (read newest first).
pub fn routine_runs(routine: RoutineId) -> ListScope {
    ListScope::Table(format!("RUNS#{routine}"))
}

/// The condition of every change of a routine or a run: it is still the
/// revision `rev` that was read.
fn still_at(rev: u32) -> Condition {
    Condition::item_present().and(Condition::eq("rev", rev))
}

fn changed_or(e: StoreError) -> RoutineError {
    if e.is_condition_failure() {
        RoutineError::Changed
    } else {
        RoutineError::Store(e)
    }
}

pub struct Routines<'a>(pub &'a dyn Store);

impl Routines<'_> {
    /// Creates a routine (revision 0). One conditional put.
    pub async fn create(&self, routine: &RoutineRecord) -> Result<(), RoutineError> {
        self.0
            .put(routine_item(routine)?, Some(Condition::item_absent()))
            .await
            .map_err(changed_or)
    }

    pub async fn get(
        &self,
        tenant: TenantId,
        id: RoutineId,
    ) -> Result<Option<RoutineRecord>, StoreError> {
        record(self.0, &routine_key(tenant, id)).await
    }

    /// Replaces `read` by `next` (its revision one past `read`'s);
    /// [`RoutineError::Changed`] when it changed or went since read.
    pub async fn change(
        &self,
        read: &RoutineRecord,
        next: &RoutineRecord,
    ) -> Result<RoutineRecord, RoutineError> {
        let next = RoutineRecord {
            rev: read.rev + 1,
            ..next.clone()
        };
        self.put_next(routine_item(&next)?, read.rev).await?;
        Ok(next)
    }

    /// Deletes a routine as read (its runs expire with their own records'
    /// retention). One conditional delete.
    pub async fn delete(&self, read: &RoutineRecord) -> Result<(), RoutineError> {
        self.0
            .delete(
                &routine_key(read.tenant_id, read.id),
                Some(Condition::eq("rev", read.rev)),
            )
            .await
            .map(|_| ())
            .map_err(changed_or)
    }

    /// A page of a home's routines, oldest first. One index query.
    pub async fn of_home(
        &self,
        property: PropertyId,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<RoutineRecord>, Option<PageKey>), StoreError> {
        page(
            self.0,
            home_routines(property).query().limit(limit).after(after),
        )
        .await
    }

    /// Up to `limit` routines due by `now`, the longest due first. One index
    /// query (it may lag a moment on DynamoDB: the sweep claims with the
    /// revision it read, so a stale read only loses the claim).
    pub async fn due(
        &self,
        now: OffsetDateTime,
        limit: u32,
    ) -> Result<Vec<RoutineRecord>, StoreError> {
        page(self.0, due_by(DUE, now, limit))
            .await
            .map(|(due, _)| due)
    }

    /// Claims a scheduled occurrence of `read`: in one transaction the
    /// occurrence's guard (absent), the run, and the routine moved on to
    /// `next_due` (conditioned on `rev`). [`RoutineError::AlreadyRun`] when
    /// another sweep claimed it; [`RoutineError::Changed`] when the routine
    /// changed meanwhile.
    pub async fn claim_occurrence(
        &self,
        read: &RoutineRecord,
        run: &RunRecord,
        next_due: Option<OffsetDateTime>,
    ) -> Result<RoutineRecord, RoutineError> {
        let RunCause::Schedule {
            trigger,
            local_date,
        } = &run.cause
        else {
            return Err(RoutineError::Store(StoreError::Invalid(
                "an occurrence is claimed for a scheduled run".into(),
            )));
        };
        let guard_key = occurrence_key(read.id, *trigger, local_date);
        let guard = Item::new(guard_key.clone())
            .with("runId", run.id.to_string())
            .with("ttl", (run.started_at + OCCURRENCE_KEPT).unix_timestamp());
        let next = RoutineRecord {
            next_due,
            rev: read.rev + 1,
            ..read.clone()
        };
        let writes = vec![
            TxWrite::Put {
                item: guard,
                condition: Some(Condition::item_absent()),
            },
            TxWrite::Put {
                item: run_item(run)?,
                condition: Some(Condition::item_absent()),
            },
            TxWrite::Put {
                item: routine_item(&next)?,
                condition: Some(still_at(read.rev)),
            },
        ];
        match self.0.transact(writes).await {
            Ok(()) => Ok(next),
            Err(e) if e.is_condition_failure() => {
                // Which condition failed: the guard says whether it ran.
                match self.0.get(&guard_key).await? {
                    Some(_) => Err(RoutineError::AlreadyRun),
                    None => Err(RoutineError::Changed),
                }
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Records a manual run as started. One conditional put.
    pub async fn start_run(&self, run: &RunRecord) -> Result<(), StoreError> {
        self.0
            .put(run_item(run)?, Some(Condition::item_absent()))
            .await
    }

    /// Up to `limit` runs under way that are due by `now` (a delay over, a
    /// wait to check, a lease run out), the longest due first. One index
    /// query (it may lag a moment on DynamoDB: every change of a run is
    /// conditioned on the revision read).
    pub async fn runs_due(
        &self,
        now: OffsetDateTime,
        limit: u32,
    ) -> Result<Vec<RunRecord>, StoreError> {
        page(self.0, due_by(RUN_DUE, now, limit))
            .await
            .map(|(due, _)| due)
    }

    /// Replaces a run as read by `next` (one revision on).
    pub async fn update_run(
        &self,
        read: &RunRecord,
        next: &RunRecord,
    ) -> Result<RunRecord, RoutineError> {
        let next = RunRecord {
            rev: read.rev + 1,
            ..next.clone()
        };
        self.put_next(run_item(&next)?, read.rev).await?;
        Ok(next)
    }

    /// Writes `item`, the revision after `read_rev` of a routine or a run;
    /// [`RoutineError::Changed`] when it changed or went since read.
    async fn put_next(&self, item: Item, read_rev: u32) -> Result<(), RoutineError> {
        self.0
            .put(item, Some(still_at(read_rev)))
            .await
            .map_err(changed_or)
    }

    /// A page of a routine's runs, newest first. One query.
    pub async fn runs(
        &self,
        routine: RoutineId,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<RunRecord>, Option<PageKey>), StoreError> {
        page(
            self.0,
            routine_runs(routine)
                .query()
                .backward()
                .limit(limit)
                .after(after),
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use alyt_domain::SystemClock;
    use alyt_domain::routine::parse_routine;
    use serde_json::json;

    use super::*;
    use crate::sqlite::SqliteStore;

    fn at(seconds: i64) -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(1_800_000_000 + seconds).unwrap()
    }

    fn routine(property: PropertyId, next_due: Option<OffsetDateTime>) -> RoutineRecord {
        RoutineRecord {
            id: RoutineId::new(),
            tenant_id: TenantId::new(),
            client_id: ClientId::new(),
            property_id: property,
            body: parse_routine(&json!({
                "name": "Evening",
                "triggers": [{ "kind": "manual" }],
                "do": [{ "kind": "delay", "seconds": 5 }]
            }))
            .unwrap(),
            next_due,
            created_by: None,
            saved_by: None,
            created_at: at(0),
            updated_at: at(0),
            rev: 0,
        }
    }

    fn run(routine: &RoutineRecord, started: OffsetDateTime) -> RunRecord {
        RunRecord::start(routine, RunCause::Manual { by: None }, started)
    }

    #[tokio::test]
    async fn routines_change_as_read_and_runs_list_newest_first() {
        let store = SqliteStore::in_memory(Arc::new(SystemClock)).unwrap();
        let routines = Routines(&store);
        let home = PropertyId::new();
        let first = routine(home, None);
        let second = routine(home, Some(at(60)));
        routines.create(&first).await.unwrap();
        routines.create(&second).await.unwrap();
        assert!(matches!(
            routines.create(&first).await,
            Err(RoutineError::Changed)
        ));
        let (listed, _) = routines.of_home(home, 10, None).await.unwrap();
        assert_eq!(
            listed.iter().map(|r| r.id).collect::<Vec<_>>(),
            [first.id, second.id]
        );
        // Only what is due by now is due.
        assert!(routines.due(at(59), 10).await.unwrap().is_empty());
        assert_eq!(routines.due(at(60), 10).await.unwrap().len(), 1);

        // A change made from a stale read is refused.
        let mut renamed = first.clone();
        renamed.body.name = "Late evening".into();
        let changed = routines.change(&first, &renamed).await.unwrap();
        assert_eq!(changed.rev, 1);
        assert!(matches!(
            routines.change(&first, &renamed).await,
            Err(RoutineError::Changed)
        ));
        assert!(matches!(
            routines.delete(&first).await,
            Err(RoutineError::Changed)
        ));
        routines.delete(&changed).await.unwrap();
        assert_eq!(routines.get(first.tenant_id, first.id).await.unwrap(), None);

        // Runs: newest first, each change conditioned on its revision.
        let older = run(&second, at(100));
        let newer = run(&second, at(200));
        routines.start_run(&older).await.unwrap();
        routines.start_run(&newer).await.unwrap();
        // Both are due from their start until one finishes.
        assert_eq!(routines.runs_due(at(150), 10).await.unwrap().len(), 1);
        assert_eq!(routines.runs_due(at(200), 10).await.unwrap().len(), 2);
        let finished = RunRecord {
            state: RunState::Finished,
            finished_at: Some(at(201)),
            resume_at: None,
            ..newer.clone()
        };
        routines.update_run(&newer, &finished).await.unwrap();
        let due = routines.runs_due(at(300), 10).await.unwrap();
        assert_eq!(due.iter().map(|r| r.id).collect::<Vec<_>>(), [older.id]);
        assert!(matches!(
            routines.update_run(&newer, &finished).await,
            Err(RoutineError::Changed)
        ));
        let (runs, next) = routines.runs(second.id, 1, None).await.unwrap();
        assert_eq!(runs[0].id, newer.id);
        assert_eq!(runs[0].state, RunState::Finished);
        let (runs, _) = routines.runs(second.id, 1, next).await.unwrap();
        assert_eq!(runs[0].id, older.id);
    }
}
