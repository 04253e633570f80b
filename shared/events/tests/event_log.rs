//! The event log on the embedded store with a clock the test moves: order,
//! the visibility lag, resuming without gaps or duplicates, kinds, tenants.

use std::collections::BTreeSet;
use std::sync::Arc;

use alyt_domain::ids::TenantId;
use alyt_domain::{Clock, ManualClock};
use alyt_events::{EventId, EventKind, EventLog};
use alyt_store::conformance::start_time;
use alyt_store::sqlite::SqliteStore;
use serde_json::json;
use time::Duration;

fn log() -> (EventLog, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(start_time()));
    let store = Arc::new(SqliteStore::in_memory(clock.clone()).unwrap());
    (
        EventLog::new(store, clock.clone(), Duration::seconds(2)),
        clock,
    )
}

#[tokio::test]
async fn events_appear_after_the_lag_in_order() {
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
        clock.advance(Duration::milliseconds(10));
    }
    let early = log.read_after(&[tenant], None, None, 100).await.unwrap();
    assert!(early.events.is_empty(), "not readable inside the lag");
    clock.advance(Duration::seconds(2));
    let page = log.read_after(&[tenant], None, None, 100).await.unwrap();
    let ids: Vec<EventId> = page.events.iter().map(|e| e.id.clone()).collect();
    assert_eq!(ids, recorded);
    assert_eq!(page.position.as_ref(), recorded.last());
}

#[tokio::test]
async fn resuming_in_small_pages_across_tenants_has_no_gap_and_no_duplicate() {
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
    clock.advance(Duration::seconds(3));
    for limit in [1, 2, 4, 7, 100] {
        let mut seen = Vec::new();
        let mut after = None;
        for _ in 0..200 {
            let page = log
                .read_after(&[a, b, c], after.as_ref(), None, limit)
                .await
                .unwrap();
            seen.extend(page.events.iter().map(|e| e.id.clone()));
            if page.position == after {
                break;
            }
            after = page.position;
        }
        assert_eq!(seen, expected, "limit {limit}");
    }
}

/// A slow writer takes its id, then stores the event 1.5 s later (inside the
/// lag). A reader that read in between must still get it on its next read.
#[tokio::test]
async fn a_slow_write_inside_the_lag_is_not_skipped() {
    let clock = Arc::new(ManualClock::new(start_time()));
    let store = Arc::new(SqliteStore::in_memory(clock.clone()).unwrap());
    let log = EventLog::new(store.clone(), clock.clone(), Duration::seconds(2));
    let tenant = TenantId::new();
    let first = log
        .record(tenant, EventKind::DeviceOnline, json!({}))
        .await
        .unwrap();
    clock.advance(Duration::seconds(3));
    let slow_id_time = clock.now();
    // A fast writer takes a newer id and finishes at once.
    clock.advance(Duration::milliseconds(1));
    let fast = log
        .record(tenant, EventKind::DeviceOnline, json!({}))
        .await
        .unwrap();
    clock.advance(Duration::milliseconds(1500));
    // The reader reads now. Were the fast event visible, the reader would move
    // past the slow one's id and never see it.
    let page = log.read_after(&[tenant], None, None, 10).await.unwrap();
    assert_eq!(
        page.events.iter().map(|e| e.id.clone()).collect::<Vec<_>>(),
        [first.id]
    );
    // Only now does the slow write land, with its older id.
    let slow = alyt_events::EventEnvelope {
        id: EventId::new(slow_id_time, 1),
        kind: EventKind::DeviceOffline,
        tenant_id: tenant,
        created_at: slow_id_time,
        data: json!({}),
    };
    let expires = (slow_id_time + alyt_events::log::RETENTION).unix_timestamp();
    alyt_store::repo::events::Events(&*store)
        .put_new(tenant, &slow.id, &slow, expires)
        .await
        .unwrap();
    clock.advance(Duration::seconds(2));
    let next = log
        .read_after(&[tenant], page.position.as_ref(), None, 10)
        .await
        .unwrap();
    assert_eq!(
        next.events.iter().map(|e| e.id.clone()).collect::<Vec<_>>(),
        [slow.id, fast.id]
    );
}

#[tokio::test]
async fn kinds_filter_and_other_tenants_stay_out() {
    let (log, clock) = log();
    let (mine, theirs) = (TenantId::new(), TenantId::new());
    log.record(mine, EventKind::DeviceOnline, json!({}))
        .await
        .unwrap();
    log.record(mine, EventKind::DeviceTelemetry, json!({}))
        .await
        .unwrap();
    log.record(theirs, EventKind::DeviceOnline, json!({}))
        .await
        .unwrap();
    clock.advance(Duration::seconds(3));
    let online: BTreeSet<_> = [EventKind::DeviceOnline].into();
    let page = log
        .read_after(&[mine], None, Some(&online), 10)
        .await
        .unwrap();
    assert_eq!(page.events.len(), 1);
    assert_eq!(page.events[0].kind, EventKind::DeviceOnline);
    assert_eq!(page.events[0].tenant_id, mine);
    assert!(
        page.position.is_some(),
        "the filtered telemetry event was read past"
    );
}
