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

/// The adapter keeps the items point reads decoded until a writer changes
/// them (`ItemCache`): a reader racing 300 commits of one item only ever
/// sees it move forward and ends at the last; another handle on the same
/// file sees the first handle's writes at once; an item kept before its
/// expiry is gone after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn items_kept_for_reads_follow_every_commit_and_expiry() {
    use alyt_domain::Clock;
    use alyt_store::{Item, Key, Store};
    let fixture = fresh_store().await;
    let store = fixture.store.clone();
    let key = Key::new("CACHE#1", "item");
    store
        .put(Item::new(key.clone()).with("n", 0), None)
        .await
        .unwrap();
    let writer = {
        let store = store.clone();
        let key = key.clone();
        tokio::spawn(async move {
            for n in 1..=300 {
                store
                    .put(Item::new(key.clone()).with("n", n), None)
                    .await
                    .unwrap();
                // Read your own write, at once.
                let read = store.get(&key).await.unwrap().unwrap();
                assert_eq!(read.get_i64("n"), Some(n));
            }
        })
    };
    let mut readers = Vec::new();
    for _ in 0..3 {
        let store = store.clone();
        let key = key.clone();
        readers.push(tokio::spawn(async move {
            let mut last = 0;
            while last < 300 {
                let n = store
                    .get(&key)
                    .await
                    .unwrap()
                    .unwrap()
                    .get_i64("n")
                    .unwrap();
                assert!(n >= last, "went back from {last} to {n}");
                let batch = store.batch_get(std::slice::from_ref(&key)).await.unwrap();
                let m = batch[0].get_i64("n").unwrap();
                assert!(m >= n, "a batch get went back from {n} to {m}");
                last = m;
            }
        }));
    }
    writer.await.unwrap();
    for reader in readers {
        reader.await.unwrap();
    }
    assert_eq!(
        store.get(&key).await.unwrap().unwrap().get_i64("n"),
        Some(300)
    );

    // Another handle on the file: what it writes, this one reads.
    let other = (fixture.another)(fixture.clock.clone());
    other
        .put(Item::new(key.clone()).with("n", 301), None)
        .await
        .unwrap();
    assert_eq!(
        store.get(&key).await.unwrap().unwrap().get_i64("n"),
        Some(301)
    );
    other.delete(&key, None).await.unwrap();
    assert!(store.get(&key).await.unwrap().is_none());

    // Kept while alive, gone once expired (no write in between).
    let expiring = Key::new("CACHE#1", "expiring");
    let expires = fixture.clock.now().unix_timestamp() + 60;
    store
        .put(Item::new(expiring.clone()).with("ttl", expires), None)
        .await
        .unwrap();
    assert!(store.get(&expiring).await.unwrap().is_some());
    let partition = || alyt_store::Query::partition("CACHE#1");
    assert_eq!(store.query(partition()).await.unwrap().items.len(), 1);
    fixture.clock.advance(time::Duration::seconds(61));
    assert!(store.get(&expiring).await.unwrap().is_none());
    assert!(store.batch_get(&[expiring]).await.unwrap().is_empty());
    assert!(
        store.query(partition()).await.unwrap().items.is_empty(),
        "a kept page expires too"
    );

    // A page of the table follows every write to its partition, from
    // either handle.
    for n in 0..20 {
        let key = Key::new("CACHE#1", format!("p{n:02}"));
        let writer = if n % 2 == 0 { &store } else { &other };
        writer.put(Item::new(key).with("n", n), None).await.unwrap();
        let page = store.query(partition()).await.unwrap();
        assert_eq!(page.items.len(), n as usize + 1, "after write {n}");
    }
    other
        .delete(&Key::new("CACHE#1", "p07"), None)
        .await
        .unwrap();
    let page = store.query(partition()).await.unwrap();
    assert_eq!(page.items.len(), 19);
    assert!(page.items.iter().all(|i| i.sk() != "p07"));
}
