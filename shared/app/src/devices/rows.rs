//! Device rows kept as JSON: a list of devices is read far more often than
//! any of its devices changes, and building a row (its state, its
//! capability descriptors) and writing it out as JSON was most of the work
//! of `GET /v1/devices` (docs/PROFILING.md). A row is made again only when
//! what it is made of differs from what the kept row was made of: the
//! device, its unit and its reported state (compared by content, so nothing
//! has to tell this cache about a change and a stale row cannot be served),
//! and its liveness judged now (`secondsSinceLastSeen` moves every second,
//! so a row lives at most a second while its device is heard from).
//!
//! Per process: each Lambda instance keeps its own, the local platform one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use alyt_domain::device::{Liveness, liveness_of_stored};
use alyt_domain::ids::DeviceId;
use alyt_store::repo::devices::DeviceView;
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;
use time::OffsetDateTime;

use crate::things::device_row;

/// How many rows one process keeps; past it the kept rows are dropped at
/// once and kept again as they are read (a bound on memory, not a policy:
/// a tenant's list pages hold at most 100 rows).
const KEPT_ROWS: usize = 10_000;

/// One device row, written out as JSON (the contract's `Device`).
#[derive(Debug, Clone)]
pub struct DeviceRowJson(Arc<RawValue>);

impl DeviceRowJson {
    /// The row's JSON text.
    pub fn get(&self) -> &str {
        self.0.get()
    }
}

impl Serialize for DeviceRowJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

/// The kept rows, by device.
#[derive(Default)]
pub struct DeviceRows {
    kept: Mutex<HashMap<DeviceId, Kept>>,
}

struct Kept {
    made_of: DeviceView,
    liveness: Liveness,
    row: DeviceRowJson,
}

impl DeviceRows {
    /// The row of `view` at `now`: the kept one when it was made of the
    /// same, otherwise made (and kept) now.
    pub fn row(&self, view: DeviceView, now: OffsetDateTime) -> DeviceRowJson {
        let device = &view.device;
        let liveness = liveness_of_stored(
            &device.status,
            device.last_seen,
            now,
            device.heartbeat_window_seconds,
        );
        let id = device.id;
        if let Some(kept) = self.kept().get(&id)
            && kept.liveness == liveness
            && kept.made_of == view
        {
            return kept.row.clone();
        }
        let row = DeviceRowJson(Arc::from(
            serde_json::value::to_raw_value(&device_row(view.clone(), now))
                .expect("a device row serializes"),
        ));
        let mut kept = self.kept();
        if kept.len() >= KEPT_ROWS {
            kept.clear();
        }
        kept.insert(
            id,
            Kept {
                made_of: view,
                liveness,
                row: row.clone(),
            },
        );
        row
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, HashMap<DeviceId, Kept>> {
        // A panic while holding the lock cannot leave a half-written entry
        // (each is inserted whole), so a poisoned map is still sound.
        self.kept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use alyt_domain::device::{DeviceStatus, Lenient};
    use alyt_domain::ids::{PropertyId, TenantId};
    use alyt_store::fixtures;
    use alyt_store::repo::devices::ReportedRecord;
    use serde_json::json;
    use time::Duration;
    use time::macros::datetime;

    use super::*;

    const NOW: OffsetDateTime = datetime!(2026-11-30 09:00 UTC);

    fn online_light() -> DeviceView {
        let mut device = fixtures::device(TenantId::new(), Some(PropertyId::new()), NOW);
        device.status = Lenient::Known(DeviceStatus::Online);
        device.last_seen = Some(NOW - Duration::seconds(5));
        DeviceView {
            reported: Some(ReportedRecord {
                device_id: device.id,
                payload: json!({"on": true, "brightness": 40}),
                reported_at: NOW - Duration::seconds(5),
            }),
            device,
            unit: None,
        }
    }

    fn made_now(view: &DeviceView, now: OffsetDateTime) -> serde_json::Value {
        serde_json::to_value(device_row(view.clone(), now)).unwrap()
    }

    fn parsed(row: &DeviceRowJson) -> serde_json::Value {
        serde_json::from_str(row.get()).unwrap()
    }

    #[test]
    fn a_kept_row_is_the_row_made_now_and_is_not_made_again() {
        let rows = DeviceRows::default();
        let view = online_light();
        let first = rows.row(view.clone(), NOW);
        assert_eq!(parsed(&first), made_now(&view, NOW));
        let again = rows.row(view, NOW);
        assert!(
            Arc::ptr_eq(&first.0, &again.0),
            "the kept row is handed out"
        );
    }

    #[test]
    fn a_changed_report_a_renamed_device_or_a_later_second_makes_the_row_again() {
        let rows = DeviceRows::default();
        let view = online_light();
        rows.row(view.clone(), NOW);

        let mut dimmed = view.clone();
        dimmed.reported.as_mut().unwrap().payload = json!({"on": true, "brightness": 90});
        let row = rows.row(dimmed.clone(), NOW);
        assert_eq!(parsed(&row), made_now(&dimmed, NOW));
        assert_ne!(parsed(&row), made_now(&view, NOW), "the new report shows");

        let mut renamed = dimmed.clone();
        renamed.device.name = "Hall light".into();
        assert_eq!(
            parsed(&rows.row(renamed.clone(), NOW))["name"],
            "Hall light"
        );

        let later = NOW + Duration::seconds(1);
        let row = rows.row(renamed.clone(), later);
        assert_eq!(parsed(&row), made_now(&renamed, later));
        assert_eq!(parsed(&row)["liveness"]["secondsSinceLastSeen"], 6);
    }

    #[test]
    fn a_device_silent_past_its_window_is_judged_again() {
        let rows = DeviceRows::default();
        let view = online_light();
        assert_eq!(
            parsed(&rows.row(view.clone(), NOW))["liveness"]["state"],
            "online"
        );
        let silent = NOW + Duration::seconds(i64::from(view.device.heartbeat_window_seconds));
        assert_eq!(
            parsed(&rows.row(view, silent))["liveness"]["state"],
            "not_heard_from"
        );
    }
}
