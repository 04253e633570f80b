//! The routine runner's pass as the hosted function runs it: the API state
//! over the DynamoDB store (on moto), two instances passing at once on one
//! table, a home in Paris. The occurrence starts once, its steps are
//! recorded in order, a delay makes the run due later, and the routine is
//! due again the next day at the same local time.

use std::sync::Arc;

use alyt_app::ports::{NoBotCheck, NoMailer};
use alyt_app::routines::runner::pass;
use alyt_domain::ids::{ClientId, PropertyId, RoutineId, TenantId};
use alyt_domain::routine::{Trigger, home_timezone, next_occurrence, parse_routine};
use alyt_domain::{Clock, ManualClock};
use alyt_store::Store;
use alyt_store::repo::routines::{RoutineRecord, Routines, RunState, StepOutcome};
use alyt_store::repo::tenancy::{PropertyRecord, property_write};
use serde_json::json;
use time::macros::datetime;

#[tokio::test]
async fn two_instances_start_an_occurrence_once_and_finish_its_run() {
    // 06:00 UTC is 07:00 in Paris on this winter Monday.
    let start = datetime!(2026-11-30 06:00 UTC);
    let clock = Arc::new(ManualClock::new(start));
    let dyn_clock: Arc<dyn Clock> = clock.clone();
    let store: Arc<dyn Store> = Arc::new(alyt_aws::testing::fresh_table(dyn_clock.clone()).await);
    let home = PropertyRecord {
        id: PropertyId::new(),
        tenant_id: TenantId::new(),
        client_id: ClientId::new(),
        name: "Flat".into(),
        timezone: "Europe/Paris".into(),
        address: None,
        latitude: None,
        longitude: None,
        created_at: start,
        updated_at: start,
    };
    store
        .transact(vec![property_write(&home).unwrap()])
        .await
        .unwrap();
    let body = parse_routine(&json!({
        "name": "Wake up",
        "triggers": [{ "kind": "time", "at": "07:30", "days": ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] }],
        "do": [{ "kind": "security", "mode": "off" }, { "kind": "delay", "seconds": 2 }]
    }))
    .unwrap();
    let Trigger::Time { at, days } = &body.triggers[0] else {
        unreachable!()
    };
    let due = next_occurrence(*at, days, &home_timezone(&home.timezone), start)
        .unwrap()
        .at;
    assert_eq!(due, datetime!(2026-11-30 06:30 UTC));
    let routine = RoutineRecord {
        id: RoutineId::new(),
        tenant_id: home.tenant_id,
        client_id: home.client_id,
        property_id: home.id,
        body,
        next_due: Some(due),
        created_by: None,
        saved_by: None,
        created_at: start,
        updated_at: start,
        rev: 0,
    };
    Routines(&*store).create(&routine).await.unwrap();

    let instance = || {
        alyt_hosted::app_with(
            store.clone(),
            dyn_clock.clone(),
            Arc::new(NoMailer),
            Arc::new(NoBotCheck),
            alyt_hosted::DevicePlane::none(),
            "",
        )
        .unwrap()
    };
    let (a, b) = (instance(), instance());
    let until = || tokio::time::Instant::now() + std::time::Duration::from_secs(30);

    // Not yet due: nothing starts.
    clock.set(due - time::Duration::seconds(1));
    assert_eq!(pass(&a, until()).await.unwrap().started, 0);

    clock.set(due);
    let (ra, rb) = tokio::join!(pass(&a, until()), pass(&b, until()));
    let (ra, rb) = (ra.unwrap(), rb.unwrap());
    assert_eq!(ra.started + rb.started, 1, "{ra:?} {rb:?}");
    let (runs, _) = Routines(&*store).runs(routine.id, 10, None).await.unwrap();
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!(run.state, RunState::Running);
    let outcomes: Vec<StepOutcome> = run.steps.iter().map(|s| s.outcome).collect();
    assert_eq!(outcomes, [StepOutcome::Failed, StepOutcome::Applied]);
    // A schedule acts for the routine's creator; this one has none.
    assert_eq!(
        run.steps[0].reason.as_deref(),
        Some("a routine run by a key or a widget cannot change home security")
    );
    let stored = Routines(&*store)
        .get(home.tenant_id, routine.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.next_due, Some(due + time::Duration::days(1)));

    // The delay holds the run until it is over; then it finishes.
    clock.set(due + time::Duration::seconds(1));
    pass(&b, until()).await.unwrap();
    let (runs, _) = Routines(&*store).runs(routine.id, 10, None).await.unwrap();
    assert_eq!(runs[0].state, RunState::Running);
    clock.set(due + time::Duration::seconds(3));
    let report = pass(&b, until()).await.unwrap();
    assert_eq!(report.finished, 1, "{report:?}");
    let (runs, _) = Routines(&*store).runs(routine.id, 10, None).await.unwrap();
    assert_eq!(runs[0].state, RunState::Finished);
    assert_eq!(runs[0].finished_at, Some(due + time::Duration::seconds(3)));
}
