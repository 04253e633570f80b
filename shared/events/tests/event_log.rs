//! The event log on the embedded store with a clock the test moves: commit
//! order with no lag, resuming without gaps or duplicates, kinds, tenants,
//! and the resume of a reader of several tenants. (That positions follow
//! commits on both stores, with commits held open and writers whose clocks
//! are behind, is the store conformance suite's: `appends_*`.)

use std::collections::BTreeSet;
use std::sync::Arc;

use alyt_domain::ManualClock;
use alyt_domain::ids::TenantId;
use alyt_events::log::{Cursor, RESUME_GRACE};
use alyt_events::{EventId, EventKind, EventLog};
use alyt_store::conformance::start_time;
use alyt_store::sqlite::SqliteStore;
use serde_json::json;
use time::Duration;

fn log() -> (EventLog, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(start_time()));
    let store = Arc::new(SqliteStore::in_memory(clock.clone()).unwrap());
    (EventLog::new(store, clock.clone()), clock)
}

#[tokio::test]
async fn events_are_readable_at_once_in_commit_order() {
    let (log, clock) = log();
    let tenant = TenantId::new();
    let mut recorded = Vec::new();
    for n in 0..5 {
        recorded.push(
            log.record(tenant, EventKind::DeviceTelemetry, json!({ "n": n }))
                .await
                .unwrap()
                .id,
        );
        // The clock going back changes nothing: the log's order is commits'.
        clock.advance(Duration::milliseconds(if n == 2 { -500 } else { 10 }));
    }
    let page = log.read_after(tenant, None, None, 100).await.unwrap();
    let (events, position) = (page.events, page.position);
    let ids: Vec<EventId> = events.iter().map(|e| e.id.clone()).collect();
    assert_eq!(ids, recorded);
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
    assert_eq!(position.as_ref(), recorded.last());
    let data: Vec<_> = events.iter().map(|e| e.data["n"].clone()).collect();
    assert_eq!(data, [0, 1, 2, 3, 4]);
}

#[tokio::test]
async fn following_several_tenants_in_small_pages_has_no_gap_and_no_duplicate() {
    let (log, clock) = log();
    let (a, b, c) = (TenantId::new(), TenantId::new(), TenantId::new());
    let mut expected = Vec::new();
    for n in 0..30 {
        let tenant = [a, b, c][n % 3];
        // Tenants write at different rates: b twice in a row sometimes.
        let tenant = if n % 7 == 0 { b } else { tenant };
        expected.push(
            log.record(tenant, EventKind::DeviceTelemetry, json!({ "n": n }))
                .await
                .unwrap()
                .id,
        );
        clock.advance(Duration::milliseconds(1));
    }
    for limit in [1, 2, 4, 7, 100] {
        let mut seen = Vec::new();
        let mut cursor = Cursor::resume(&[a, b, c], None);
        for _ in 0..200 {
            let page = log.read(&cursor, None, limit).await.unwrap();
            seen.extend(page.events.iter().map(|e| e.id.clone()));
            if page.cursor == cursor {
                break;
            }
            cursor = page.cursor;
        }
        assert_eq!(seen, expected, "limit {limit}");
    }
}

#[tokio::test]
async fn one_tenant_resumes_exactly_and_several_resume_a_grace_earlier() {
    let (log, clock) = log();
    let (a, b) = (TenantId::new(), TenantId::new());
    let early_b = log
        .record(b, EventKind::DeviceOnline, json!({}))
        .await
        .unwrap();
    clock.advance(Duration::seconds(10));
    let a1 = log
        .record(a, EventKind::DeviceOnline, json!({}))
        .await
        .unwrap();
    clock.advance(Duration::milliseconds(500));
    let b1 = log
        .record(b, EventKind::DeviceOnline, json!({}))
        .await
        .unwrap();
    clock.advance(Duration::milliseconds(500));
    let a2 = log
        .record(a, EventKind::DeviceOnline, json!({}))
        .await
        .unwrap();

    // One tenant: exactly after the id.
    let events = log
        .read_after(a, Some(&a1.id), None, 10)
        .await
        .unwrap()
        .events;
    assert_eq!(events.iter().map(|e| &e.id).collect::<Vec<_>>(), [&a2.id]);

    // Two tenants resuming after a2: both logs from RESUME_GRACE before it,
    // so b1 (which might have been committing while a2 was read) comes
    // again; b's event of ten seconds earlier does not.
    assert!(RESUME_GRACE >= Duration::seconds(1));
    let page = log
        .read(&Cursor::resume(&[a, b], Some(&a2.id)), None, 10)
        .await
        .unwrap();
    let ids: Vec<_> = page.events.iter().map(|e| e.id.clone()).collect();
    assert_eq!(ids, [a1.id.clone(), b1.id.clone(), a2.id.clone()]);
    assert!(!ids.contains(&early_b.id));
    // From there the reader is exact per tenant.
    let b2 = log
        .record(b, EventKind::DeviceOffline, json!({}))
        .await
        .unwrap();
    let next = log.read(&page.cursor, None, 10).await.unwrap();
    assert_eq!(
        next.events.iter().map(|e| &e.id).collect::<Vec<_>>(),
        [&b2.id]
    );
}

#[tokio::test]
async fn kinds_filter_and_other_tenants_stay_out() {
    let (log, _clock) = log();
    let (mine, theirs) = (TenantId::new(), TenantId::new());
    log.record(mine, EventKind::DeviceOnline, json!({}))
        .await
        .unwrap();
    let telemetry = log
        .record(mine, EventKind::DeviceTelemetry, json!({}))
        .await
        .unwrap();
    log.record(theirs, EventKind::DeviceOnline, json!({}))
        .await
        .unwrap();
    let online: BTreeSet<_> = [EventKind::DeviceOnline].into();
    let page = log.read_after(mine, None, Some(&online), 10).await.unwrap();
    let (events, position) = (page.events, page.position);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].kind, EventKind::DeviceOnline);
    assert_eq!(events[0].tenant_id, mine);
    assert_eq!(
        position,
        Some(telemetry.id),
        "the filtered telemetry event was read past"
    );
}
