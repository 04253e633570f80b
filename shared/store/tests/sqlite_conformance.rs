//! The store conformance suite against the embedded SQLite adapter, on a real
//! database file in a temporary directory.

use std::sync::Arc;

use alyt_domain::ManualClock;
use alyt_store::conformance::{Fixture, start_time};
use alyt_store::sqlite::SqliteStore;

async fn fresh_store() -> Fixture {
    let dir = tempfile::tempdir().expect("temp dir");
    let clock = Arc::new(ManualClock::new(start_time()));
    let path = dir.path().join("alyt.db");
    let store = SqliteStore::open(&path, clock.clone()).expect("open store");
    // The directory must outlive the test; leaking it is fine in a test process.
    std::mem::forget(dir);
    Fixture {
        store: Arc::new(store),
        clock,
        // Another handle on the same database file.
        another: Arc::new(move |clock| {
            Arc::new(SqliteStore::open(&path, clock).expect("open store again"))
        }),
    }
}

alyt_store::store_conformance_suite!(fresh_store);
