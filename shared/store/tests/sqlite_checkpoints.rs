//! The embedded adapter moves committed writes from the WAL into the
//! database file on its own, off the writer: a running platform's WAL does
//! not grow with everything written since it started, and the database file
//! holds the data without the process having to stop.

use std::sync::Arc;
use std::time::Duration;

use alyt_domain::ManualClock;
use alyt_store::conformance::start_time;
use alyt_store::sqlite::SqliteStore;
use alyt_store::{Item, Key, Store};

#[tokio::test]
async fn committed_writes_reach_the_database_file_while_the_store_runs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("alyt.db");
    let store = SqliteStore::open(&path, Arc::new(ManualClock::new(start_time()))).expect("open");
    let empty = std::fs::metadata(&path).expect("database file").len();

    // About 2 MB: well under the size at which the writer would checkpoint
    // in its own commit, well over SQLite's automatic checkpoint.
    let body = "x".repeat(2_000);
    for n in 0..1_000 {
        let item = Item::new(Key::new("CHECKPOINT#test", format!("ITEM#{n:04}")))
            .with("body", body.as_str());
        store.put(item, None).await.expect("put");
    }

    let mut size = empty;
    for _ in 0..50 {
        size = std::fs::metadata(&path).expect("database file").len();
        if size > 2_000_000 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        size > 2_000_000,
        "the database file holds the committed items within 5 s (it is {size} bytes, {empty} when empty)"
    );
    // And the store still reads them.
    let last = store
        .get(&Key::new("CHECKPOINT#test", "ITEM#0999"))
        .await
        .expect("get");
    assert!(last.is_some());
}
