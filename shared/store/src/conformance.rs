//! The one conformance suite every [`Store`] adapter must pass.
//!
//! An adapter's test file calls [`store_conformance_suite!`](crate::store_conformance_suite)
//! with an async factory returning a fresh, empty store on a [`ManualClock`]; the macro
//! expands to one test per case, so a failure names the rule that broke.

use std::sync::Arc;

use alyt_domain::{Clock, ManualClock};
use serde_json::json;

use crate::{
    CancelReason, Condition, Index, Item, Key, Page, Query, SortKey, Store, StoreError, TxWrite,
    UpdateAction,
};

/// A fresh, empty store and the clock it reads, and how to open another
/// instance over the same data with a clock of its own (a second process:
/// another Lambda instance, another handle on the database file).
pub struct Fixture {
    pub store: Arc<dyn Store>,
    pub clock: Arc<ManualClock>,
    pub another: Arc<dyn Fn(Arc<ManualClock>) -> Arc<dyn Store> + Send + Sync>,
}

/// The time every fixture's clock starts at.
pub fn start_time() -> time::OffsetDateTime {
    time::macros::datetime!(2026-06-01 12:00 UTC)
}

#[macro_export]
macro_rules! store_conformance_suite {
    ($factory:path) => {
        $crate::store_conformance_suite!(@cases $factory;
            put_then_get_round_trips,
            get_of_missing_item_is_none,
            create_only_put_fails_when_item_exists,
            conditional_update_applies_only_when_condition_holds,
            comparison_conditions_follow_dynamodb_rules,
            update_upserts_and_counts,
            update_rejects_key_attributes,
            delete_with_condition,
            query_sort_key_conditions_and_order,
            pagination_visits_every_item_once,
            cursor_from_another_partition_is_rejected,
            index_query_is_sparse_ordered_and_paginated,
            transaction_writes_all_or_nothing,
            a_commit_written_to_the_os_only_is_as_atomic_and_as_visible,
            transaction_rejects_two_writes_on_one_item,
            expired_items_are_invisible,
            batch_get_returns_present_items,
            oversized_item_is_rejected,
            requests_past_dynamodb_limits_are_invalid_and_write_nothing,
            index_keys_must_be_non_empty_strings,
            an_uncounted_household_counts_its_owners,
            a_reset_request_is_claimed_once,
            a_restarted_attempt_counter_remembers_when,
            appends_take_positions_after_the_head_in_commit_order,
            a_writer_with_a_clock_behind_appends_after_what_readers_saw,
            a_commit_held_open_lands_after_the_one_that_finished_first,
            an_idle_shard_is_moved_up_and_a_late_append_lands_after_what_was_read,
            a_log_grown_to_more_shards_resumes_every_cursor,
            a_page_reads_as_its_items_and_every_cursor_inside_it_resumes,
            pages_in_a_sharded_log_merge_in_position_order
        );
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn a_sharded_log_keeps_each_home_in_commit_order_and_misses_nothing() {
            let fixture = $factory().await;
            $crate::conformance::a_sharded_log_keeps_each_home_in_commit_order_and_misses_nothing(fixture).await;
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn stream_leases_cap_a_holder_across_instances_and_free_when_they_run_out() {
            let fixture = $factory().await;
            $crate::conformance::stream_leases_cap_a_holder_across_instances_and_free_when_they_run_out(fixture).await;
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn concurrent_creates_have_exactly_one_winner() {
            let fixture = $factory().await;
            $crate::conformance::concurrent_creates_have_exactly_one_winner(fixture).await;
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn twenty_accepts_of_one_invitation_at_once_make_one_member() {
            let fixture = $factory().await;
            $crate::conformance::twenty_accepts_of_one_invitation_at_once_make_one_member(fixture).await;
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn concurrent_review_moves_on_one_version_have_one_winner() {
            let fixture = $factory().await;
            $crate::conformance::concurrent_review_moves_on_one_version_have_one_winner(fixture).await;
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn one_mode_request_id_is_answered_once() {
            let fixture = $factory().await;
            $crate::conformance::one_mode_request_id_is_answered_once(fixture).await;
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn twenty_sweeps_run_one_occurrence_of_a_routine_once() {
            let fixture = $factory().await;
            $crate::conformance::twenty_sweeps_run_one_occurrence_of_a_routine_once(fixture).await;
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn owners_demoting_each_other_at_once_leave_one() {
            let fixture = $factory().await;
            $crate::conformance::owners_demoting_each_other_at_once_leave_one(fixture).await;
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn owners_removing_each_other_at_once_leave_one() {
            let fixture = $factory().await;
            $crate::conformance::owners_removing_each_other_at_once_leave_one(fixture).await;
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn fifty_refreshes_of_one_token_at_once_rotate_it_once_and_revoke_the_family() {
            let fixture = $factory().await;
            $crate::conformance::fifty_refreshes_of_one_token_at_once_rotate_it_once_and_revoke_the_family(fixture).await;
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn fifty_refreshes_at_once_have_one_winner_when_transactions_conflict() {
            let fixture = $factory().await;
            $crate::conformance::fifty_refreshes_at_once_have_one_winner_when_transactions_conflict(fixture).await;
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn parallel_attempts_each_get_their_own_count() {
            let fixture = $factory().await;
            $crate::conformance::parallel_attempts_each_get_their_own_count(fixture).await;
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn instances_adding_to_a_rate_window_read_the_running_total() {
            let fixture = $factory().await;
            $crate::conformance::instances_adding_to_a_rate_window_read_the_running_total(fixture).await;
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn metered_uses_stay_within_the_limit_and_are_written_once_per_flush() {
            let fixture = $factory().await;
            $crate::conformance::metered_uses_stay_within_the_limit_and_are_written_once_per_flush(fixture).await;
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn a_reader_following_concurrent_appends_misses_none() {
            let fixture = $factory().await;
            $crate::conformance::a_reader_following_concurrent_appends_misses_none(fixture).await;
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn concurrent_version_bumps_never_lose_an_update() {
            let fixture = $factory().await;
            $crate::conformance::concurrent_version_bumps_never_lose_an_update(fixture).await;
        }
    };
    (@cases $factory:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test]
            async fn $case() {
                let fixture = $factory().await;
                $crate::conformance::$case(fixture).await;
            }
        )*
    };
}

fn key(pk: &str, sk: &str) -> Key {
    Key::new(pk, sk)
}

fn item(pk: &str, sk: &str) -> Item {
    Item::new(key(pk, sk))
}

fn sks(page: &Page) -> Vec<String> {
    page.items.iter().map(|i| i.sk().to_owned()).collect()
}

async fn query_all(store: &dyn Store, query: Query) -> Vec<Item> {
    let mut out = Vec::new();
    let mut after = None;
    loop {
        let page = store
            .query(query.clone().after(after))
            .await
            .expect("query");
        out.extend(page.items);
        match page.next {
            Some(next) => after = Some(next),
            None => return out,
        }
    }
}

pub async fn put_then_get_round_trips(f: Fixture) {
    let stored = item("P#1", "S#1")
        .with("name", "Kitchen")
        .with("count", 42)
        .with("ratio", 0.5)
        .with("negative", -7)
        .with("flag", true)
        .with("nothing", serde_json::Value::Null)
        .with("tags", json!(["a", "b"]))
        .with(
            "nested",
            json!({"light": {"power": true, "brightness": 80}}),
        );
    f.store.put(stored.clone(), None).await.unwrap();
    let read = f.store.get(&key("P#1", "S#1")).await.unwrap();
    assert_eq!(read, Some(stored));

    // A plain put replaces the whole item.
    f.store
        .put(item("P#1", "S#1").with("name", "Office"), None)
        .await
        .unwrap();
    let read = f.store.get(&key("P#1", "S#1")).await.unwrap().unwrap();
    assert_eq!(read.get_str("name"), Some("Office"));
    assert_eq!(read.get("count"), None);
}

pub async fn get_of_missing_item_is_none(f: Fixture) {
    assert_eq!(f.store.get(&key("P#none", "S")).await.unwrap(), None);
}

pub async fn create_only_put_fails_when_item_exists(f: Fixture) {
    let first = item("USER#1", "PROFILE").with("email", "a@example.com");
    f.store
        .put(first.clone(), Some(Condition::item_absent()))
        .await
        .unwrap();
    let err = f
        .store
        .put(
            item("USER#1", "PROFILE").with("email", "b@example.com"),
            Some(Condition::item_absent()),
        )
        .await
        .unwrap_err();
    match err {
        StoreError::ConditionFailed { current } => {
            assert_eq!(
                current.as_deref(),
                Some(&first),
                "the failure reports the item as it is"
            )
        }
        other => panic!("expected ConditionFailed, got {other:?}"),
    }
    let read = f
        .store
        .get(&key("USER#1", "PROFILE"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(read.get_str("email"), Some("a@example.com"));
}

pub async fn conditional_update_applies_only_when_condition_holds(f: Fixture) {
    f.store
        .put(
            item("TOKEN#1", "T")
                .with("state", "active")
                .with("version", 1),
            None,
        )
        .await
        .unwrap();
    let updated = f
        .store
        .update(
            &key("TOKEN#1", "T"),
            vec![
                UpdateAction::Set("state".into(), json!("rotated")),
                UpdateAction::Add("version".into(), 1),
            ],
            Some(Condition::eq("state", "active")),
        )
        .await
        .unwrap();
    assert_eq!(updated.get_str("state"), Some("rotated"));
    assert_eq!(updated.get_i64("version"), Some(2));

    let err = f
        .store
        .update(
            &key("TOKEN#1", "T"),
            vec![UpdateAction::Set("state".into(), json!("rotated-again"))],
            Some(Condition::eq("state", "active")),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(err, StoreError::ConditionFailed { current: Some(_) }),
        "{err:?}"
    );
    let read = f.store.get(&key("TOKEN#1", "T")).await.unwrap().unwrap();
    assert_eq!(
        read.get_str("state"),
        Some("rotated"),
        "a failed update changes nothing"
    );
    assert_eq!(read.get_i64("version"), Some(2));

    // Update-only guard on a missing item.
    let err = f
        .store
        .update(
            &key("TOKEN#2", "T"),
            vec![UpdateAction::Set("state".into(), json!("x"))],
            Some(Condition::item_present()),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(err, StoreError::ConditionFailed { current: None }),
        "{err:?}"
    );
    assert_eq!(f.store.get(&key("TOKEN#2", "T")).await.unwrap(), None);
}

pub async fn comparison_conditions_follow_dynamodb_rules(f: Fixture) {
    f.store
        .put(item("C#1", "C").with("step", 10).with("name", "b"), None)
        .await
        .unwrap();
    let attempt = |c: Condition| {
        let store = Arc::clone(&f.store);
        async move {
            store
                .update(
                    &key("C#1", "C"),
                    vec![UpdateAction::Set("touched".into(), json!(true))],
                    Some(c),
                )
                .await
                .is_ok()
        }
    };
    // Numbers compare as numbers, strings as bytes.
    assert!(attempt(Condition::lt("step", 11)).await);
    assert!(!attempt(Condition::lt("step", 10)).await);
    assert!(attempt(Condition::le("step", 10)).await);
    assert!(attempt(Condition::gt("step", 9)).await);
    assert!(attempt(Condition::ge("step", 10)).await);
    assert!(attempt(Condition::gt("name", "a")).await);
    assert!(!attempt(Condition::gt("name", "c")).await);
    assert!(attempt(Condition::ne("step", 3)).await);
    assert!(attempt(Condition::BeginsWith("name".into(), "b".into())).await);
    // Mismatched types never order.
    assert!(!attempt(Condition::lt("step", "11")).await);
    // A comparison against a missing attribute is false.
    assert!(!attempt(Condition::lt("missing", 1)).await);
    assert!(!attempt(Condition::eq("missing", 1)).await);
    // Boolean combinators.
    assert!(attempt(Condition::not_exists("missing").and(Condition::eq("step", 10))).await);
    assert!(attempt(Condition::eq("step", 1).or(Condition::eq("name", "b"))).await);
    assert!(!attempt(Condition::Not(Box::new(Condition::exists("step")))).await);
}

pub async fn update_upserts_and_counts(f: Fixture) {
    let k = key("COUNTER#requests", "2026-06-01");
    let first = f
        .store
        .update(&k, vec![UpdateAction::Add("count".into(), 1)], None)
        .await
        .unwrap();
    assert_eq!(first.get_i64("count"), Some(1));
    assert_eq!(first.pk(), "COUNTER#requests");
    let second = f
        .store
        .update(
            &k,
            vec![
                UpdateAction::Add("count".into(), 5),
                UpdateAction::SetIfAbsent("firstSeen".into(), json!("a")),
            ],
            None,
        )
        .await
        .unwrap();
    assert_eq!(second.get_i64("count"), Some(6));
    assert_eq!(second.get_str("firstSeen"), Some("a"));
    let third = f
        .store
        .update(
            &k,
            vec![
                UpdateAction::SetIfAbsent("firstSeen".into(), json!("b")),
                UpdateAction::Remove("count".into()),
            ],
            None,
        )
        .await
        .unwrap();
    assert_eq!(
        third.get_str("firstSeen"),
        Some("a"),
        "SetIfAbsent keeps the first value"
    );
    assert_eq!(third.get("count"), None);
}

pub async fn update_rejects_key_attributes(f: Fixture) {
    let err = f
        .store
        .update(
            &key("P", "S"),
            vec![UpdateAction::Set("pk".into(), json!("other"))],
            None,
        )
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");
}

pub async fn delete_with_condition(f: Fixture) {
    f.store
        .put(item("ROOM#1", "R").with("owner", "alice"), None)
        .await
        .unwrap();
    let err = f
        .store
        .delete(&key("ROOM#1", "R"), Some(Condition::eq("owner", "bob")))
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::ConditionFailed { .. }), "{err:?}");
    assert!(f.store.get(&key("ROOM#1", "R")).await.unwrap().is_some());
    let deleted = f
        .store
        .delete(&key("ROOM#1", "R"), Some(Condition::eq("owner", "alice")))
        .await
        .unwrap();
    assert_eq!(
        deleted.and_then(|i| i.get_str("owner").map(str::to_owned)),
        Some("alice".into())
    );
    assert_eq!(f.store.get(&key("ROOM#1", "R")).await.unwrap(), None);
    // Deleting a missing item without a condition is fine and returns nothing.
    assert_eq!(
        f.store.delete(&key("ROOM#1", "R"), None).await.unwrap(),
        None
    );
}

pub async fn query_sort_key_conditions_and_order(f: Fixture) {
    for sk in ["DEVICE#a", "DEVICE#b", "DEVICE#c", "ROOM#a", "ROOM#b", "Z"] {
        f.store.put(item("HOME#1", sk), None).await.unwrap();
    }
    f.store.put(item("HOME#2", "DEVICE#x"), None).await.unwrap();
    let q = || Query::partition("HOME#1");

    let all = f.store.query(q()).await.unwrap();
    assert_eq!(
        sks(&all),
        ["DEVICE#a", "DEVICE#b", "DEVICE#c", "ROOM#a", "ROOM#b", "Z"]
    );
    assert_eq!(all.next, None);

    let devices = f
        .store
        .query(q().sort(SortKey::BeginsWith("DEVICE#".into())))
        .await
        .unwrap();
    assert_eq!(sks(&devices), ["DEVICE#a", "DEVICE#b", "DEVICE#c"]);

    let backward = f
        .store
        .query(q().sort(SortKey::BeginsWith("ROOM#".into())).backward())
        .await
        .unwrap();
    assert_eq!(sks(&backward), ["ROOM#b", "ROOM#a"]);

    let between = f
        .store
        .query(q().sort(SortKey::Between("DEVICE#b".into(), "ROOM#a".into())))
        .await
        .unwrap();
    assert_eq!(sks(&between), ["DEVICE#b", "DEVICE#c", "ROOM#a"]);

    let eq = f
        .store
        .query(q().sort(SortKey::Eq("Z".into())))
        .await
        .unwrap();
    assert_eq!(sks(&eq), ["Z"]);
    let lt = f
        .store
        .query(q().sort(SortKey::Lt("DEVICE#b".into())))
        .await
        .unwrap();
    assert_eq!(sks(&lt), ["DEVICE#a"]);
    let le = f
        .store
        .query(q().sort(SortKey::Le("DEVICE#b".into())))
        .await
        .unwrap();
    assert_eq!(sks(&le), ["DEVICE#a", "DEVICE#b"]);
    let gt = f
        .store
        .query(q().sort(SortKey::Gt("ROOM#b".into())))
        .await
        .unwrap();
    assert_eq!(sks(&gt), ["Z"]);
    let ge = f
        .store
        .query(q().sort(SortKey::Ge("ROOM#b".into())))
        .await
        .unwrap();
    assert_eq!(sks(&ge), ["ROOM#b", "Z"]);

    let empty = f.store.query(Query::partition("HOME#none")).await.unwrap();
    assert!(empty.items.is_empty());
    assert_eq!(empty.next, None);
}

pub async fn pagination_visits_every_item_once(f: Fixture) {
    for n in 0..25 {
        f.store
            .put(item("EVENTS#t1", &format!("{n:08}")).with("n", n), None)
            .await
            .unwrap();
    }
    for (forward, limit) in [(true, 10), (false, 10), (true, 25), (true, 1)] {
        let mut q = Query::partition("EVENTS#t1").limit(limit);
        if !forward {
            q = q.backward();
        }
        let mut seen = Vec::new();
        let mut after = None;
        let mut pages = 0;
        loop {
            let page = f.store.query(q.clone().after(after)).await.unwrap();
            pages += 1;
            assert!(page.items.len() <= limit as usize);
            assert!(!page.items.is_empty(), "no empty page is ever handed out");
            seen.extend(page.items.iter().map(|i| i.get_i64("n").unwrap()));
            match page.next {
                Some(next) => after = Some(next),
                None => break,
            }
        }
        let mut expected: Vec<i64> = (0..25).collect();
        if !forward {
            expected.reverse();
        }
        assert_eq!(seen, expected, "forward={forward} limit={limit}");
        assert_eq!(
            pages,
            25usize.div_ceil(limit as usize),
            "next is absent exactly at the end"
        );
    }
}

pub async fn cursor_from_another_partition_is_rejected(f: Fixture) {
    for n in 0..3 {
        f.store
            .put(item("TENANT#a", &format!("{n}")), None)
            .await
            .unwrap();
        f.store
            .put(item("TENANT#b", &format!("{n}")), None)
            .await
            .unwrap();
    }
    let page = f
        .store
        .query(Query::partition("TENANT#a").limit(1))
        .await
        .unwrap();
    let cursor = page.next.expect("more items follow");
    let err = f
        .store
        .query(Query::partition("TENANT#b").after(Some(cursor)))
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");
}

pub async fn index_query_is_sparse_ordered_and_paginated(f: Fixture) {
    // Devices of one tenant, found by their property through gsi1.
    for (id, property, room) in [
        ("d3", Some("PROP#p1"), "c"),
        ("d1", Some("PROP#p1"), "a"),
        ("d2", Some("PROP#p1"), "b"),
        ("d4", Some("PROP#p2"), "a"),
        ("d5", None, "a"),
    ] {
        let mut it = item("TENANT#t", &format!("DEVICE#{id}")).with("id", id);
        if let Some(p) = property {
            it = it.with("gsi1pk", p).with("gsi1sk", format!("ROOM#{room}"));
        }
        f.store.put(it, None).await.unwrap();
    }
    // An item with only half an index key is not in the index either.
    f.store
        .put(
            item("TENANT#t", "DEVICE#d6")
                .with("id", "d6")
                .with("gsi1pk", "PROP#p1"),
            None,
        )
        .await
        .unwrap();
    let ids = |items: &[Item]| {
        items
            .iter()
            .map(|i| i.get_str("id").unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    let p1 = query_all(&*f.store, Query::on_index(Index::Gsi1, "PROP#p1")).await;
    assert_eq!(ids(&p1), ["d1", "d2", "d3"]);
    let paged = query_all(&*f.store, Query::on_index(Index::Gsi1, "PROP#p1").limit(2)).await;
    assert_eq!(ids(&paged), ["d1", "d2", "d3"]);
    let back = query_all(
        &*f.store,
        Query::on_index(Index::Gsi1, "PROP#p1").backward().limit(1),
    )
    .await;
    assert_eq!(ids(&back), ["d3", "d2", "d1"]);
    let from_b = f
        .store
        .query(Query::on_index(Index::Gsi1, "PROP#p1").sort(SortKey::Ge("ROOM#b".into())))
        .await
        .unwrap();
    assert_eq!(ids(&from_b.items), ["d2", "d3"]);
    let other_index = f
        .store
        .query(Query::on_index(Index::Gsi2, "PROP#p1"))
        .await
        .unwrap();
    assert!(other_index.items.is_empty());

    // Moving an item out of the index (removing its index key) takes it out.
    f.store
        .update(
            &key("TENANT#t", "DEVICE#d1"),
            vec![UpdateAction::Remove("gsi1pk".into())],
            None,
        )
        .await
        .unwrap();
    let p1 = query_all(&*f.store, Query::on_index(Index::Gsi1, "PROP#p1")).await;
    assert_eq!(ids(&p1), ["d2", "d3"]);

    // Put again: with the same index key the index serves the new item;
    // with another sort key it moves to its new place.
    let again = |id: &str, room: &str, name: &str| {
        item("TENANT#t", &format!("DEVICE#{id}"))
            .with("id", id)
            .with("name", name)
            .with("gsi1pk", "PROP#p1")
            .with("gsi1sk", format!("ROOM#{room}"))
    };
    f.store
        .put(again("d2", "b", "renamed"), None)
        .await
        .unwrap();
    f.store.put(again("d3", "a", "moved"), None).await.unwrap();
    let p1 = query_all(&*f.store, Query::on_index(Index::Gsi1, "PROP#p1")).await;
    assert_eq!(ids(&p1), ["d3", "d2"]);
    let names: Vec<_> = p1.iter().map(|i| i.get_str("name").unwrap()).collect();
    assert_eq!(names, ["moved", "renamed"]);
}

pub async fn transaction_writes_all_or_nothing(f: Fixture) {
    f.store
        .put(item("INVITE#1", "I").with("state", "pending"), None)
        .await
        .unwrap();
    f.store
        .put(item("HOME#1", "MEMBER#bob").with("role", "MEMBER"), None)
        .await
        .unwrap();

    // The second write's condition fails: nothing at all may be written.
    let err = f
        .store
        .transact(vec![
            TxWrite::Update {
                key: key("INVITE#1", "I"),
                actions: vec![UpdateAction::Set("state".into(), json!("accepted"))],
                condition: Some(Condition::eq("state", "pending")),
            },
            TxWrite::Put {
                item: item("HOME#1", "MEMBER#bob").with("role", "GUEST"),
                condition: Some(Condition::item_absent()),
            },
            TxWrite::Put {
                item: item("AUDIT#1", "A"),
                condition: None,
            },
        ])
        .await
        .unwrap_err();
    match &err {
        StoreError::TransactionCanceled { reasons } => assert_eq!(
            reasons,
            &[
                CancelReason::None,
                CancelReason::ConditionFailed,
                CancelReason::None
            ]
        ),
        other => panic!("expected TransactionCanceled, got {other:?}"),
    }
    assert!(err.is_condition_failure());
    let invite = f.store.get(&key("INVITE#1", "I")).await.unwrap().unwrap();
    assert_eq!(invite.get_str("state"), Some("pending"));
    let member = f
        .store
        .get(&key("HOME#1", "MEMBER#bob"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(member.get_str("role"), Some("MEMBER"));
    assert_eq!(f.store.get(&key("AUDIT#1", "A")).await.unwrap(), None);

    // A check that fails cancels too.
    let err = f
        .store
        .transact(vec![
            TxWrite::Check {
                key: key("INVITE#1", "I"),
                condition: Condition::eq("state", "withdrawn"),
            },
            TxWrite::Delete {
                key: key("HOME#1", "MEMBER#bob"),
                condition: None,
            },
        ])
        .await
        .unwrap_err();
    assert!(err.is_condition_failure(), "{err:?}");
    assert!(
        f.store
            .get(&key("HOME#1", "MEMBER#bob"))
            .await
            .unwrap()
            .is_some()
    );

    // All conditions hold: every write lands.
    f.store
        .transact(vec![
            TxWrite::Update {
                key: key("INVITE#1", "I"),
                actions: vec![UpdateAction::Set("state".into(), json!("accepted"))],
                condition: Some(Condition::eq("state", "pending")),
            },
            TxWrite::Put {
                item: item("HOME#1", "MEMBER#carol").with("role", "GUEST"),
                condition: Some(Condition::item_absent()),
            },
            TxWrite::Delete {
                key: key("HOME#1", "MEMBER#bob"),
                condition: Some(Condition::item_present()),
            },
            TxWrite::Check {
                key: key("HOME#1", "MEMBER#dave"),
                condition: Condition::item_absent(),
            },
        ])
        .await
        .unwrap();
    let invite = f.store.get(&key("INVITE#1", "I")).await.unwrap().unwrap();
    assert_eq!(invite.get_str("state"), Some("accepted"));
    assert!(
        f.store
            .get(&key("HOME#1", "MEMBER#carol"))
            .await
            .unwrap()
            .is_some()
    );
    assert_eq!(
        f.store.get(&key("HOME#1", "MEMBER#bob")).await.unwrap(),
        None
    );
}

/// A commit asked to be [`Durability::Written`] (device messages, whose
/// PUBACK waits on it) is as atomic as any, and the next handle on the
/// store sees it; interleaved with synced commits, nothing is lost.
pub async fn a_commit_written_to_the_os_only_is_as_atomic_and_as_visible(f: Fixture) {
    use crate::Durability::{Synced, Written};
    let refused = f
        .store
        .transact_with(
            vec![
                TxWrite::Put {
                    item: item("DEVICE#1", "POINT#1"),
                    condition: None,
                },
                TxWrite::Put {
                    item: item("DEVICE#1", "POINT#1-guard"),
                    condition: Some(Condition::item_present()),
                },
            ],
            Written,
        )
        .await
        .unwrap_err();
    assert!(refused.is_condition_failure(), "{refused:?}");
    assert_eq!(
        f.store.get(&key("DEVICE#1", "POINT#1")).await.unwrap(),
        None
    );
    for (n, durability) in [Written, Synced, Written, Written].into_iter().enumerate() {
        f.store
            .transact_with(
                vec![TxWrite::Put {
                    item: item("DEVICE#1", &format!("POINT#{n}")),
                    condition: Some(Condition::item_absent()),
                }],
                durability,
            )
            .await
            .unwrap();
    }
    let another = (f.another)(f.clock.clone());
    let points = another
        .query(Query::partition("DEVICE#1"))
        .await
        .unwrap()
        .items;
    assert_eq!(points.len(), 4, "every commit, whatever its durability");
}

pub async fn transaction_rejects_two_writes_on_one_item(f: Fixture) {
    let err = f
        .store
        .transact(vec![
            TxWrite::Put {
                item: item("X", "1"),
                condition: None,
            },
            TxWrite::Delete {
                key: key("X", "1"),
                condition: None,
            },
        ])
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");
    assert_eq!(f.store.get(&key("X", "1")).await.unwrap(), None);
    let err = f.store.transact(vec![]).await.unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");
}

pub async fn expired_items_are_invisible(f: Fixture) {
    let now = start_time().unix_timestamp();
    f.store
        .put(item("SESSION#1", "S").with("ttl", now + 60), None)
        .await
        .unwrap();
    f.store
        .put(item("SESSION#1", "T").with("ttl", now + 3600), None)
        .await
        .unwrap();
    f.store.put(item("SESSION#1", "U"), None).await.unwrap();
    assert!(f.store.get(&key("SESSION#1", "S")).await.unwrap().is_some());
    f.clock.advance(time::Duration::seconds(61));
    assert_eq!(f.store.get(&key("SESSION#1", "S")).await.unwrap(), None);
    let page = f.store.query(Query::partition("SESSION#1")).await.unwrap();
    assert_eq!(sks(&page), ["T", "U"]);
    let batch = f
        .store
        .batch_get(&[key("SESSION#1", "S"), key("SESSION#1", "T")])
        .await
        .unwrap();
    assert_eq!(batch.len(), 1);
}

pub async fn batch_get_returns_present_items(f: Fixture) {
    for n in 0..5 {
        f.store
            .put(item("THING#x", &format!("{n}")).with("n", n), None)
            .await
            .unwrap();
    }
    let keys: Vec<Key> = [0, 2, 4, 9]
        .iter()
        .map(|n| key("THING#x", &format!("{n}")))
        .collect();
    let mut found: Vec<i64> = f
        .store
        .batch_get(&keys)
        .await
        .unwrap()
        .iter()
        .map(|i| i.get_i64("n").unwrap())
        .collect();
    found.sort();
    assert_eq!(found, [0, 2, 4]);
    assert!(f.store.batch_get(&[]).await.unwrap().is_empty());
}

pub async fn oversized_item_is_rejected(f: Fixture) {
    let big = "x".repeat(crate::MAX_ITEM_BYTES + 1);
    let err = f
        .store
        .put(item("BIG", "1").with("blob", big), None)
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");
    assert_eq!(f.store.get(&key("BIG", "1")).await.unwrap(), None);
}

/// DynamoDB's limits hold on every adapter, and a request past one is
/// `Invalid` (never worth a retry) and writes nothing: 100 writes per
/// transaction, 4 MB per transaction, 400 KB per item (also when an update
/// grows it), keys of at most 2048 (partition) and 1024 (sort) bytes, and
/// numbers of magnitude 1e-130 to below 1e126.
pub async fn requests_past_dynamodb_limits_are_invalid_and_write_nothing(f: Fixture) {
    let invalid = |result: Result<(), StoreError>, what: &str| match result {
        Err(StoreError::Invalid(_)) => {}
        other => panic!("{what}: expected Invalid, got {other:?}"),
    };
    let puts = |count: usize, blob: &str| -> Vec<TxWrite> {
        (0..count)
            .map(|n| TxWrite::Put {
                item: item("LIMITS", &format!("{n:03}")).with("blob", blob),
                condition: None,
            })
            .collect()
    };
    let absent = |n: usize| key("LIMITS", &format!("{n:03}"));

    // Writes per transaction: 100 is the most.
    invalid(
        f.store
            .transact(puts(crate::MAX_TRANSACTION_OPS + 1, "x"))
            .await,
        "101 writes",
    );
    assert_eq!(f.store.get(&absent(0)).await.unwrap(), None);
    f.store
        .transact(puts(crate::MAX_TRANSACTION_OPS, "x"))
        .await
        .unwrap();
    f.store
        .transact(
            (0..crate::MAX_TRANSACTION_OPS)
                .map(|n| TxWrite::Delete {
                    key: absent(n),
                    condition: None,
                })
                .collect(),
        )
        .await
        .unwrap();

    // Bytes per transaction: items each within 400 KB, together past 4 MB.
    let large = "x".repeat(380 * 1024);
    let count = crate::MAX_TRANSACTION_BYTES / large.len() + 1;
    invalid(f.store.transact(puts(count, &large)).await, "over 4 MB");
    assert_eq!(f.store.get(&absent(0)).await.unwrap(), None);

    // An item past 400 KB, put in a transaction or grown by an update.
    let oversized = "x".repeat(crate::MAX_ITEM_BYTES + 1);
    invalid(
        f.store.transact(puts(1, &oversized)).await,
        "an oversized item in a transaction",
    );
    assert_eq!(f.store.get(&absent(0)).await.unwrap(), None);
    let half = "x".repeat(crate::MAX_ITEM_BYTES / 2 + 1024);
    let grown = key("LIMITS", "GROWN");
    f.store
        .put(Item::new(grown.clone()).with("a", half.as_str()), None)
        .await
        .unwrap();
    invalid(
        f.store
            .update(
                &grown,
                vec![UpdateAction::Set("b".into(), json!(half))],
                None,
            )
            .await
            .map(|_| ()),
        "an update past 400 KB",
    );
    invalid(
        f.store
            .transact(vec![TxWrite::Update {
                key: grown.clone(),
                actions: vec![UpdateAction::Set("b".into(), json!(half))],
                condition: None,
            }])
            .await,
        "a transactional update past 400 KB",
    );
    let stored = f.store.get(&grown).await.unwrap().unwrap();
    assert_eq!(stored.get("b"), None);

    // Key sizes, in UTF-8 bytes ('é' is two).
    let long_pk = "é".repeat(crate::MAX_PARTITION_KEY_BYTES / 2 + 1);
    let long_sk = "é".repeat(crate::MAX_SORT_KEY_BYTES / 2 + 1);
    invalid(
        f.store.put(item(&long_pk, "S"), None).await,
        "a partition key past 2048 bytes",
    );
    invalid(
        f.store.put(item("P", &long_sk), None).await,
        "a sort key past 1024 bytes",
    );
    invalid(
        f.store
            .transact(vec![TxWrite::Put {
                item: item("P", &long_sk),
                condition: None,
            }])
            .await,
        "a long sort key in a transaction",
    );
    invalid(
        f.store
            .put(
                item("P", "S")
                    .with("gsi1pk", long_pk.as_str())
                    .with("gsi1sk", "s"),
                None,
            )
            .await,
        "an index partition key past 2048 bytes",
    );
    let longest = item(
        &"p".repeat(crate::MAX_PARTITION_KEY_BYTES),
        &"s".repeat(crate::MAX_SORT_KEY_BYTES),
    );
    f.store.put(longest.clone(), None).await.unwrap();
    assert_eq!(f.store.get(&longest.key()).await.unwrap(), Some(longest));

    // Numbers: DynamoDB holds magnitudes from 1e-130 to below 1e126.
    for number in [1e126, -1e300, f64::MAX, 1e-131, -5e-324] {
        invalid(
            f.store
                .put(
                    item("NUM", "1").with("n", json!({ "deep": [number] })),
                    None,
                )
                .await,
            &format!("the number {number:e}"),
        );
        invalid(
            f.store
                .update(
                    &key("NUM", "2"),
                    vec![UpdateAction::Set("n".into(), json!(number))],
                    None,
                )
                .await
                .map(|_| ()),
            &format!("an update to {number:e}"),
        );
    }
    assert_eq!(f.store.get(&key("NUM", "1")).await.unwrap(), None);
    assert_eq!(f.store.get(&key("NUM", "2")).await.unwrap(), None);
    let held = [9.99e125, -1e-130, 1.5e-130, 0.0, 21.5, i64::MAX as f64];
    f.store
        .put(item("NUM", "3").with("n", json!(held)), None)
        .await
        .unwrap();
    let stored = f.store.get(&key("NUM", "3")).await.unwrap().unwrap();
    let back: Vec<f64> = serde_json::from_value(stored.get("n").unwrap().clone()).unwrap();
    assert_eq!(back, held);
}

pub async fn concurrent_creates_have_exactly_one_winner(f: Fixture) {
    let attempts = 16;
    let mut tasks = Vec::new();
    for n in 0..attempts {
        let store = Arc::clone(&f.store);
        tasks.push(tokio::spawn(async move {
            store
                .put(
                    item("REFRESH#family", "TOKEN#1").with("winner", n),
                    Some(Condition::item_absent()),
                )
                .await
        }));
    }
    let mut winners = Vec::new();
    for (n, task) in tasks.into_iter().enumerate() {
        match task.await.unwrap() {
            Ok(()) => winners.push(n as i64),
            Err(StoreError::ConditionFailed { .. }) => {}
            Err(other) => panic!("unexpected error {other:?}"),
        }
    }
    assert_eq!(winners.len(), 1, "exactly one create wins");
    let stored = f
        .store
        .get(&key("REFRESH#family", "TOKEN#1"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.get_i64("winner"), Some(winners[0]));
}

pub async fn concurrent_version_bumps_never_lose_an_update(f: Fixture) {
    let k = key("DEVICE#1", "STATE");
    f.store
        .put(Item::new(k.clone()).with("version", 0), None)
        .await
        .unwrap();
    // Each worker reads, then bumps with an optimistic version check, retrying on
    // conflict: no increment may be lost and no two may share a version.
    let workers = 8;
    let per_worker = 5;
    let mut tasks = Vec::new();
    for _ in 0..workers {
        let store = Arc::clone(&f.store);
        let k = k.clone();
        tasks.push(tokio::spawn(async move {
            let mut won = Vec::new();
            while won.len() < per_worker {
                let current = store.get(&k).await.unwrap().unwrap();
                let version = current.get_i64("version").unwrap();
                match store
                    .update(
                        &k,
                        vec![UpdateAction::Set("version".into(), json!(version + 1))],
                        Some(Condition::eq("version", version)),
                    )
                    .await
                {
                    Ok(_) => won.push(version + 1),
                    Err(StoreError::ConditionFailed { .. }) => {}
                    Err(other) => panic!("unexpected error {other:?}"),
                }
            }
            won
        }));
    }
    let mut versions = Vec::new();
    for task in tasks {
        versions.extend(task.await.unwrap());
    }
    versions.sort();
    let expected: Vec<i64> = (1..=(workers * per_worker) as i64).collect();
    assert_eq!(versions, expected, "every version was won exactly once");
}

pub async fn index_keys_must_be_non_empty_strings(f: Fixture) {
    let bad = [
        item("IDX", "1").with("gsi1pk", 7).with("gsi1sk", "a"),
        item("IDX", "2").with("gsi2pk", "p").with("gsi2sk", ""),
    ];
    for it in bad {
        let k = it.key();
        let err = f.store.put(it, None).await.unwrap_err();
        assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");
        assert_eq!(f.store.get(&k).await.unwrap(), None);
    }
    let err = f
        .store
        .update(
            &key("IDX", "3"),
            vec![UpdateAction::Set("gsi3pk".into(), json!(true))],
            None,
        )
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");
    let err = f
        .store
        .transact(vec![TxWrite::Put {
            item: item("IDX", "4").with("gsi1pk", ""),
            condition: None,
        }])
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");
    let err = f
        .store
        .transact(vec![TxWrite::Delete {
            key: key("", "x"),
            condition: None,
        }])
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");
}

// ---------------------------------------------------------------------------
// Repository rules that rest on conditional transactions, checked on every
// adapter (the model-based proptest is in tests/repo_members.rs).

/// A grant of the whole household (no home, no stay).
pub fn household_grant(
    tenant: alyt_domain::ids::TenantId,
    client: alyt_domain::ids::ClientId,
    user: alyt_domain::ids::UserId,
    role: alyt_domain::access::HouseholdRole,
) -> crate::repo::tenancy::GrantRecord {
    crate::repo::tenancy::GrantRecord {
        reservation_key: None,
        network: None,
        client_id: client,
        tenant_id: tenant,
        user_id: user,
        role,
        property_id: None,
        starts_at: None,
        ends_at: None,
        granted_by: None,
        created_at: start_time(),
    }
}

/// The owner count as stored (none for a household from before it).
pub async fn stored_owner_count(
    store: &dyn Store,
    client: alyt_domain::ids::ClientId,
) -> Option<i64> {
    store
        .get(&key(&format!("CLIENT#{client}"), "OWNERS"))
        .await
        .unwrap()
        .and_then(|i| i.get_i64("count"))
}

/// "A home always keeps at least one Owner": two owners removing each other
/// at once leave exactly one, in each of twenty households.
pub async fn owners_removing_each_other_at_once_leave_one(f: Fixture) {
    use crate::repo::members::{MemberError, Members, first_owner_write};
    use crate::repo::tenancy::grant_write;
    use alyt_domain::access::HouseholdRole::Owner;
    use alyt_domain::ids::{ClientId, TenantId, UserId};

    for _ in 0..20 {
        let (tenant, client) = (TenantId::new(), ClientId::new());
        let first = household_grant(tenant, client, UserId::new(), Owner);
        f.store
            .transact(vec![
                grant_write(&first).unwrap(),
                first_owner_write(client),
            ])
            .await
            .unwrap();
        let second = household_grant(tenant, client, UserId::new(), Owner);
        Members(&*f.store).add(&second, vec![]).await.unwrap();
        assert_eq!(stored_owner_count(&*f.store, client).await, Some(2));
        assert!(matches!(
            Members(&*f.store).add(&second, vec![]).await,
            Err(MemberError::AlreadyMember)
        ));
        let (a, b) = (Arc::clone(&f.store), Arc::clone(&f.store));
        let (ra, rb) = tokio::join!(
            tokio::spawn(async move { Members(&*a).remove(&first, vec![]).await }),
            tokio::spawn(async move { Members(&*b).remove(&second, vec![]).await }),
        );
        let results = [ra.unwrap(), rb.unwrap()];
        assert_eq!(
            results.iter().filter(|r| r.is_ok()).count(),
            1,
            "{results:?}"
        );
        assert!(
            results
                .iter()
                .any(|r| matches!(r, Err(MemberError::LastOwner))),
            "{results:?}"
        );
        let (left, _) = Members(&*f.store).list(client, 10, None).await.unwrap();
        assert_eq!(left.len(), 1);
        assert_eq!(stored_owner_count(&*f.store, client).await, Some(1));
    }
}

/// A pending invitation to `client` for `email`, its link's token hash
/// `hash`, sent at the fixture's start.
pub fn invitation(
    tenant: alyt_domain::ids::TenantId,
    client: alyt_domain::ids::ClientId,
    email: &str,
    hash: &str,
) -> crate::repo::invitations::InvitationRecord {
    use alyt_domain::invitation::LINK_LIFETIME;
    crate::repo::invitations::InvitationRecord {
        id: alyt_domain::ids::InvitationId::new(),
        tenant_id: tenant,
        client_id: client,
        email: email.to_owned(),
        name: None,
        role: alyt_domain::access::HouseholdRole::Member,
        property_id: None,
        starts_at: None,
        expires_at: None,
        require_network: false,
        phone_thing_id: None,
        reservation_key: None,
        invited_by: None,
        created_at: start_time(),
        sent_at: start_time(),
        link_expires_at: start_time() + LINK_LIFETIME,
        sends: 1,
        token_hash: hash.to_owned(),
    }
}

/// "Valid once": twenty people (or one impatient one) accepting one link at
/// once, each as a new account of the invited address, make exactly one
/// member and one account; every other accept is refused by the spent link
/// (the transaction's first caller write), and the invitation and its link
/// are gone. Also under transaction conflicts.
pub async fn twenty_accepts_of_one_invitation_at_once_make_one_member(f: Fixture) {
    use crate::repo::identity::{UserRecord, Users, create_writes};
    use crate::repo::invitations::{Invitations, accept_writes};
    use crate::repo::members::{MemberError, Members};
    use alyt_domain::access::HouseholdRole::Member;
    use alyt_domain::ids::{ClientId, TenantId, UserId};

    let now = f.clock.unix_seconds();
    let contended: Arc<dyn Store> = Arc::new(Contended::new(Arc::clone(&f.store)));
    for store in [Arc::clone(&f.store), contended] {
        let (tenant, client) = (TenantId::new(), ClientId::new());
        let email = format!("guest-{client}@example.com");
        let invited = invitation(tenant, client, &email, &format!("hash-{client}"));
        Invitations(&*store).create(&invited, vec![]).await.unwrap();
        let tasks: Vec<_> = (0..20)
            .map(|_| {
                let (store, invited) = (Arc::clone(&store), invited.clone());
                tokio::spawn(async move {
                    let user = UserRecord {
                        id: UserId::new(),
                        email: invited.email.clone(),
                        name: Some("Guest".into()),
                        password_hash: "phc".into(),
                        email_verified_at: Some(start_time()),
                        platform_role: None,
                        tenants: Default::default(),
                        developer_id: None,
                        mfa: None,
                        units: None,
                        created_at: start_time(),
                    };
                    let grant = household_grant(tenant, client, user.id, Member);
                    let mut also = accept_writes(&invited, now);
                    also.extend(create_writes(&user).unwrap());
                    Members(&*store).add(&grant, also).await
                })
            })
            .collect();
        let mut results = Vec::new();
        for task in tasks {
            results.push(task.await.unwrap());
        }
        assert_eq!(
            results.iter().filter(|r| r.is_ok()).count(),
            1,
            "{results:?}"
        );
        assert!(
            results
                .iter()
                .filter(|r| r.is_err())
                .all(|r| matches!(r, Err(MemberError::Refused { write: 0 }))),
            "every loser meets the spent link: {results:?}"
        );
        let (members, _) = Members(&*store).list(client, 50, None).await.unwrap();
        assert_eq!(members.len(), 1);
        let account = Users(&*store).find_by_email(&email).await.unwrap().unwrap();
        assert_eq!(account.id, members[0].user_id);
        let invitations = Invitations(&*store);
        assert!(invitations.get(client, invited.id).await.unwrap().is_none());
        assert!(
            invitations
                .open(&invited.token_hash, now)
                .await
                .unwrap()
                .is_none()
        );
        // The address is free for a new invitation.
        let again = invitation(tenant, client, &email, &format!("again-{client}"));
        invitations.create(&again, vec![]).await.unwrap();
    }
}

/// Staff moving one submitted version at once (approve, reject, request
/// changes, twenty times): exactly one move wins, the others are told the
/// version changed; the version leaves the review queue; a version number
/// is used once per connector.
pub async fn concurrent_review_moves_on_one_version_have_one_winner(f: Fixture) {
    use crate::repo::submissions::{
        AiDeclaration, VersionError, VersionRecord, Versions, review_queue,
    };
    use alyt_domain::ids::{ConnectorId, ConnectorVersionId, DeveloperId};
    use alyt_domain::submission::{ReviewMove, ReviewState, Reviewer, decide};

    let version = VersionRecord {
        id: ConnectorVersionId::new(),
        connector_id: ConnectorId::new(),
        developer_id: DeveloperId::new(),
        slug: "acme-bridge".into(),
        semver: "1.0.0".into(),
        descriptor: json!({ "kind": "ACME" }),
        prose: "Acme lights".into(),
        ai_declaration: AiDeclaration::None,
        state: ReviewState::Submitted,
        note: None,
        reviewed_by: None,
        created_at: start_time(),
        updated_at: start_time(),
        submitted_at: Some(start_time()),
        published_at: None,
        notices_pending: false,
        rev: 0,
    };
    let versions = Versions(&*f.store);
    versions.create(&version, vec![]).await.unwrap();
    let again = VersionRecord {
        id: ConnectorVersionId::new(),
        ..version.clone()
    };
    assert!(matches!(
        versions.create(&again, vec![]).await,
        Err(VersionError::SemverTaken)
    ));
    let (queued, _) = versions.page(&review_queue(), 10, None).await.unwrap();
    assert_eq!(queued.iter().filter(|v| v.id == version.id).count(), 1);

    let moves = [
        ReviewMove::Approve,
        ReviewMove::Reject,
        ReviewMove::RequestChanges,
    ];
    let tasks: Vec<_> = (0..20)
        .map(|n| {
            let store = Arc::clone(&f.store);
            let id = version.id;
            let m = moves[n % moves.len()];
            tokio::spawn(async move {
                let versions = Versions(&*store);
                let read = versions.get(id).await.unwrap().unwrap();
                // A move the rules refuse writes nothing.
                let Ok(state) = decide(read.state, m, Reviewer::Staff, true) else {
                    return Err(VersionError::Changed);
                };
                let next = VersionRecord {
                    state,
                    note: Some(format!("move {n}")),
                    ..read.clone()
                };
                versions.change(&read, &next, vec![]).await.map(|v| v.state)
            })
        })
        .collect();
    let mut won = Vec::new();
    for task in tasks {
        match task.await.unwrap() {
            Ok(state) => won.push(state),
            Err(VersionError::Changed) => {}
            Err(e) => panic!("a move failed: {e}"),
        }
    }
    let stored = versions.get(version.id).await.unwrap().unwrap();
    assert_eq!(won.len(), 1, "exactly one move wins: {won:?}");
    assert_eq!(stored.state, won[0]);
    assert_eq!(stored.rev, 1);
    let (queued, _) = versions.page(&review_queue(), 10, None).await.unwrap();
    assert!(
        queued.iter().all(|v| v.id != version.id),
        "out of the queue"
    );
}

/// Twenty sweeps seeing one due occurrence of a routine at once: exactly one
/// claims it (one run, the routine moved to its next due time), the others
/// hear it already ran or that the routine changed; the run history holds
/// one run, and the routine leaves the due list until its next time.
pub async fn twenty_sweeps_run_one_occurrence_of_a_routine_once(f: Fixture) {
    use crate::repo::routines::{RoutineError, RoutineRecord, Routines, RunCause, RunRecord};
    use alyt_domain::ids::{ClientId, PropertyId, RoutineId, TenantId};
    use alyt_domain::routine::parse_routine;

    let body = parse_routine(&json!({
        "name": "Wake up",
        "triggers": [{ "kind": "time", "at": "07:00", "days": ["mon"] }],
        "do": [{ "kind": "delay", "seconds": 1 }]
    }))
    .unwrap();
    let due = start_time();
    let routine = RoutineRecord {
        id: RoutineId::new(),
        tenant_id: TenantId::new(),
        client_id: ClientId::new(),
        property_id: PropertyId::new(),
        body,
        next_due: Some(due),
        created_by: None,
        saved_by: None,
        created_at: due,
        updated_at: due,
        rev: 0,
    };
    let routines = Routines(&*f.store);
    routines.create(&routine).await.unwrap();
    let listed = routines.due(due, 50).await.unwrap();
    assert!(listed.iter().any(|r| r.id == routine.id), "due by its time");

    let tasks: Vec<_> = (0..20)
        .map(|_| {
            let store = Arc::clone(&f.store);
            let (tenant, id) = (routine.tenant_id, routine.id);
            tokio::spawn(async move {
                let routines = Routines(&*store);
                let read = routines.get(tenant, id).await.unwrap().unwrap();
                let run = RunRecord::start(
                    &read,
                    RunCause::Schedule {
                        trigger: 0,
                        local_date: "2026-11-30".into(),
                    },
                    due,
                );
                let next_due = Some(due + time::Duration::days(7));
                routines
                    .claim_occurrence(&read, &run, next_due)
                    .await
                    .map(|_| ())
            })
        })
        .collect();
    let (mut won, mut lost) = (0, 0);
    for task in tasks {
        match task.await.unwrap() {
            Ok(()) => won += 1,
            Err(RoutineError::AlreadyRun | RoutineError::Changed) => lost += 1,
            Err(e) => panic!("a claim failed: {e}"),
        }
    }
    assert_eq!((won, lost), (1, 19));
    let (runs, _) = routines.runs(routine.id, 50, None).await.unwrap();
    assert_eq!(runs.len(), 1, "one run: {runs:?}");
    // The run waits for the runner, due from its start.
    let running = routines.runs_due(due, 50).await.unwrap();
    assert_eq!(
        running
            .iter()
            .filter(|r| r.routine_id == routine.id)
            .count(),
        1
    );
    let stored = routines
        .get(routine.tenant_id, routine.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.next_due, Some(due + time::Duration::days(7)));
    assert_eq!(stored.rev, 1);
    let listed = routines.due(due, 50).await.unwrap();
    assert!(
        listed.iter().all(|r| r.id != routine.id),
        "not due again yet"
    );
}

/// Two owners making each other a member at once leave exactly one owner,
/// in each of twenty households; a promotion counts again.
pub async fn owners_demoting_each_other_at_once_leave_one(f: Fixture) {
    use crate::repo::members::{MemberError, Members, first_owner_write};
    use crate::repo::tenancy::{GrantRecord, grant_write};
    use alyt_domain::access::HouseholdRole::{Member, Owner};
    use alyt_domain::ids::{ClientId, TenantId, UserId};

    for _ in 0..20 {
        let (tenant, client) = (TenantId::new(), ClientId::new());
        let first = household_grant(tenant, client, UserId::new(), Owner);
        f.store
            .transact(vec![
                grant_write(&first).unwrap(),
                first_owner_write(client),
            ])
            .await
            .unwrap();
        let second = household_grant(tenant, client, UserId::new(), Owner);
        Members(&*f.store).add(&second, vec![]).await.unwrap();
        let demoted = |g: &GrantRecord| GrantRecord {
            role: Member,
            ..g.clone()
        };
        let (a, b) = (Arc::clone(&f.store), Arc::clone(&f.store));
        let (da, db) = (demoted(&first), demoted(&second));
        let (fa, fb) = (first.clone(), second.clone());
        let (ra, rb) = tokio::join!(
            tokio::spawn(async move { Members(&*a).change(&fa, &da, vec![]).await }),
            tokio::spawn(async move { Members(&*b).change(&fb, &db, vec![]).await }),
        );
        let results = [ra.unwrap(), rb.unwrap()];
        assert_eq!(
            results.iter().filter(|r| r.is_ok()).count(),
            1,
            "{results:?}"
        );
        assert!(
            results
                .iter()
                .any(|r| matches!(r, Err(MemberError::LastOwner))),
            "{results:?}"
        );
        assert_eq!(stored_owner_count(&*f.store, client).await, Some(1));
        let (grants, _) = Members(&*f.store).list(client, 10, None).await.unwrap();
        assert_eq!(grants.iter().filter(|g| g.role == Owner).count(), 1);
        // The member made owner again counts.
        let member = grants.iter().find(|g| g.role == Member).unwrap().clone();
        let promoted = GrantRecord {
            role: Owner,
            ..member.clone()
        };
        Members(&*f.store)
            .change(&member, &promoted, vec![])
            .await
            .unwrap();
        assert_eq!(stored_owner_count(&*f.store, client).await, Some(2));
    }
}

/// A household written before the owner count existed gets it from its
/// grants the first time an owner changes, and its last owner stays.
pub async fn an_uncounted_household_counts_its_owners(f: Fixture) {
    use crate::repo::members::{MemberError, Members};
    use crate::repo::tenancy::grant_write;
    use alyt_domain::access::HouseholdRole::{Member, Owner};
    use alyt_domain::ids::{ClientId, TenantId, UserId};

    let (tenant, client) = (TenantId::new(), ClientId::new());
    let owners = [
        household_grant(tenant, client, UserId::new(), Owner),
        household_grant(tenant, client, UserId::new(), Owner),
    ];
    let member = household_grant(tenant, client, UserId::new(), Member);
    // Written as older builds did: grants only, no count.
    f.store
        .transact(vec![
            grant_write(&owners[0]).unwrap(),
            grant_write(&owners[1]).unwrap(),
            grant_write(&member).unwrap(),
        ])
        .await
        .unwrap();
    assert_eq!(stored_owner_count(&*f.store, client).await, None);
    let members = Members(&*f.store);
    assert_eq!(members.owner_count(client).await.unwrap(), 2);
    members.remove(&member, vec![]).await.unwrap();
    members.remove(&owners[0], vec![]).await.unwrap();
    assert_eq!(stored_owner_count(&*f.store, client).await, Some(1));
    assert!(matches!(
        members.remove(&owners[1], vec![]).await,
        Err(MemberError::LastOwner)
    ));
    assert_eq!(stored_owner_count(&*f.store, client).await, Some(1));
}

// ---------------------------------------------------------------------------
// Refresh-token rotation under concurrency.

/// DynamoDB's transaction conflicts, for adapters that never report them:
/// SQLite serialises its writers, and moto serves one request at a time and
/// has no TransactionConflict at all. While a transaction is in flight its
/// items are held; another transaction touching one of them is cancelled
/// with [`CancelReason::Conflict`] on that write (DynamoDB's
/// TransactionConflict), and a single-item write to one fails as
/// `Unavailable` (the adapter's mapping of TransactionConflictException).
/// Reads pass through (they see what is committed).
pub struct Contended {
    inner: Arc<dyn Store>,
    held: Arc<std::sync::Mutex<std::collections::HashSet<Key>>>,
    conflicts: std::sync::atomic::AtomicUsize,
}

impl Contended {
    pub fn new(inner: Arc<dyn Store>) -> Self {
        Self {
            inner,
            held: Arc::default(),
            conflicts: Default::default(),
        }
    }

    /// How many writes were refused for a conflict so far.
    pub fn conflicts(&self) -> usize {
        self.conflicts.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn single_write(&self, key: &Key) -> Result<(), StoreError> {
        let held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        if held.contains(key) {
            self.conflicts
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            return Err(StoreError::Unavailable(
                "TransactionConflictException: the item is in an ongoing transaction".into(),
            ));
        }
        Ok(())
    }
}

/// Lets go of a transaction's items however it ends.
struct Held {
    keys: Vec<Key>,
    held: Arc<std::sync::Mutex<std::collections::HashSet<Key>>>,
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        for key in &self.keys {
            held.remove(key);
        }
    }
}

#[async_trait::async_trait]
impl Store for Contended {
    async fn get(&self, key: &Key) -> Result<Option<Item>, StoreError> {
        self.inner.get(key).await
    }
    async fn batch_get(&self, keys: &[Key]) -> Result<Vec<Item>, StoreError> {
        self.inner.batch_get(keys).await
    }
    async fn put(&self, item: Item, condition: Option<Condition>) -> Result<(), StoreError> {
        self.single_write(&item.key())?;
        self.inner.put(item, condition).await
    }
    async fn update(
        &self,
        key: &Key,
        actions: Vec<UpdateAction>,
        condition: Option<Condition>,
    ) -> Result<Item, StoreError> {
        self.single_write(key)?;
        self.inner.update(key, actions, condition).await
    }
    async fn delete(
        &self,
        key: &Key,
        condition: Option<Condition>,
    ) -> Result<Option<Item>, StoreError> {
        self.single_write(key)?;
        self.inner.delete(key, condition).await
    }
    async fn query(&self, query: Query) -> Result<Page, StoreError> {
        self.inner.query(query).await
    }
    async fn transact(&self, writes: Vec<TxWrite>) -> Result<(), StoreError> {
        let keys: Vec<Key> = writes.iter().map(TxWrite::key).collect();
        let _held = {
            let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
            let reasons: Vec<CancelReason> = keys
                .iter()
                .map(|key| {
                    if held.contains(key) {
                        CancelReason::Conflict
                    } else {
                        CancelReason::None
                    }
                })
                .collect();
            if reasons.contains(&CancelReason::Conflict) {
                self.conflicts
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                return Err(StoreError::TransactionCanceled { reasons });
            }
            held.extend(keys.iter().cloned());
            Held {
                keys,
                held: Arc::clone(&self.held),
            }
        };
        // DynamoDB's prepare phase: the items stay held a moment.
        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        self.inner.transact(writes).await
    }
}

/// Fifty refreshes of one token at once, as a client retrying in a hurry
/// (or a thief racing it) sends them: exactly one rotates the token, every
/// other one is told the token is spent and the family ends revoked, so the
/// winner's new token is refused too. No refresh fails with a store error.
async fn refresh_race(store: Arc<dyn Store>, now_unix: i64) {
    use crate::repo::identity::{Refreshed, SessionRecord, Sessions};
    use alyt_domain::access::SessionKind;
    use alyt_domain::ids::{SessionId, UserId};

    let session = SessionRecord {
        id: SessionId::new(),
        user_id: UserId::new(),
        kind: SessionKind::Household,
        developer: None,
        generation: 0,
        revoked: false,
        stay_ended: false,
        created_at: start_time(),
        expires_at: now_unix + 3600,
    };
    Sessions(&*store).start(&session, "hash-0").await.unwrap();
    let tasks: Vec<_> = (1..=50)
        .map(|n| {
            let store = Arc::clone(&store);
            tokio::spawn(async move {
                Sessions(&*store)
                    .refresh(
                        "hash-0",
                        SessionKind::Household,
                        now_unix,
                        &format!("hash-{n}"),
                    )
                    .await
            })
        })
        .collect();
    let mut rotated = Vec::new();
    let mut revoked = 0;
    for (n, task) in (1..=50).zip(tasks) {
        match task.await.unwrap() {
            Ok(Refreshed::Rotated(now)) => rotated.push((n, now.generation)),
            Ok(Refreshed::Revoked(id)) => {
                assert_eq!(id, session.id);
                revoked += 1;
            }
            Ok(Refreshed::Refused) => {}
            Ok(Refreshed::StayEnded) => panic!("refresh {n}: no stay ended here"),
            Err(e) => panic!("refresh {n} failed: {e}"),
        }
    }
    assert_eq!(rotated.len(), 1, "exactly one refresh wins: {rotated:?}");
    assert!(revoked >= 1, "the losers revoke the family");
    let stored = Sessions(&*store).get(session.id).await.unwrap().unwrap();
    assert!(stored.revoked, "the family is revoked");
    assert_eq!(stored.generation, 1, "rotated once");
    let (winner, _) = rotated[0];
    assert_eq!(
        Sessions(&*store)
            .refresh(
                &format!("hash-{winner}"),
                SessionKind::Household,
                now_unix,
                "hash-x"
            )
            .await
            .unwrap(),
        Refreshed::Refused,
        "the winner's token belongs to the revoked family"
    );
}

pub async fn fifty_refreshes_of_one_token_at_once_rotate_it_once_and_revoke_the_family(f: Fixture) {
    refresh_race(f.store, f.clock.unix_seconds()).await;
}

/// The same race where the store cancels transactions for conflicts, as
/// DynamoDB does under contention (see [`Contended`]): a conflict decides
/// nothing, so the result is the same.
pub async fn fifty_refreshes_at_once_have_one_winner_when_transactions_conflict(f: Fixture) {
    let now = f.clock.unix_seconds();
    let contended = Arc::new(Contended::new(f.store));
    refresh_race(contended.clone(), now).await;
    assert!(contended.conflicts() > 0, "the race met conflicts");
}

/// The failed-attempt limiter counts before it checks a secret: thirty
/// parallel attempts get the counts 1 to 30, each exactly once, so no more
/// than the limit are ever checked.
pub async fn parallel_attempts_each_get_their_own_count(f: Fixture) {
    use crate::repo::limits::Limits;
    let now = alyt_domain::Clock::unix_seconds(&*f.clock);
    let mut tasks = Vec::new();
    for _ in 0..30 {
        let store = Arc::clone(&f.store);
        tasks.push(tokio::spawn(async move {
            Limits(&*store)
                .count_attempt("login#pair", now, now + 3600)
                .await
                .unwrap()
        }));
    }
    let mut counts = Vec::new();
    for task in tasks {
        let counted = task.await.unwrap();
        assert_eq!(counted.first, now, "the first attempt's time is kept");
        counts.push(counted.count);
    }
    counts.sort();
    assert_eq!(counts, (1..=30).collect::<Vec<i64>>());

    // A refused attempt is taken back; a success clears the counter.
    let limits = Limits(&*f.store);
    limits.uncount_attempt("login#pair").await.unwrap();
    let later = now + 60;
    let next = limits
        .count_attempt("login#pair", later, later + 3600)
        .await
        .unwrap();
    assert_eq!((next.count, next.first), (30, now));
    limits.clear_attempts("login#pair").await.unwrap();
    let fresh = limits
        .count_attempt("login#pair", later, later + 3600)
        .await
        .unwrap();
    assert_eq!((fresh.count, fresh.first), (1, later));
    // Taking back an attempt of a counter that is gone creates nothing.
    limits.uncount_attempt("login#other").await.unwrap();
    let other = limits
        .count_attempt("login#other", later, later + 3600)
        .await
        .unwrap();
    assert_eq!(other.count, 1);
}

/// An account's attempt counter is started over by a password reset and
/// remembers when, so the limiter can start the account's other counters
/// over too; forgetting its attempts after a success keeps that, and never
/// brings back a counter that is gone.
pub async fn a_restarted_attempt_counter_remembers_when(f: Fixture) {
    use crate::repo::limits::Limits;
    let limits = Limits(&*f.store);
    let now = alyt_domain::Clock::unix_seconds(&*f.clock);
    for _ in 0..5 {
        limits
            .count_attempt("account#a", now, now + 3600)
            .await
            .unwrap();
    }
    let reset = now + 60;
    limits
        .restart_attempts("account#a", reset, reset + 3600)
        .await
        .unwrap();
    let later = reset + 60;
    let next = limits
        .count_attempt("account#a", later, later + 3600)
        .await
        .unwrap();
    assert_eq!(
        (next.count, next.first, next.restarted),
        (1, later, Some(reset))
    );
    limits.forget_attempts("account#a").await.unwrap();
    let after = later + 60;
    let next = limits
        .count_attempt("account#a", after, after + 3600)
        .await
        .unwrap();
    assert_eq!(
        (next.count, next.first, next.restarted),
        (1, after, Some(reset))
    );

    // A reset of an account with no counter makes one (it says when).
    limits
        .restart_attempts("account#b", reset, reset + 3600)
        .await
        .unwrap();
    let first = limits
        .count_attempt("account#b", later, later + 3600)
        .await
        .unwrap();
    assert_eq!((first.count, first.restarted), (1, Some(reset)));
    // Forgetting the attempts of a counter that is gone creates nothing.
    limits.forget_attempts("account#c").await.unwrap();
    let fresh = limits
        .count_attempt("account#c", later, later + 3600)
        .await
        .unwrap();
    assert_eq!(
        (fresh.count, fresh.first, fresh.restarted),
        (1, later, None)
    );
}

/// The hosted rate limiter: each instance adds its local delta to the shared
/// window and reads back the total of all instances; windows are separate and
/// expire two windows after their start.
pub async fn instances_adding_to_a_rate_window_read_the_running_total(f: Fixture) {
    use crate::repo::limits::Limits;
    let start = 1_800_000_000;
    let mut tasks = Vec::new();
    for instance in 0..2i64 {
        let store = Arc::clone(&f.store);
        tasks.push(tokio::spawn(async move {
            let mut totals = Vec::new();
            for delta in 1..=5 {
                totals.push(
                    Limits(&*store)
                        .add_to_rate_window("bucket", start, 60, delta + instance * 10)
                        .await
                        .unwrap(),
                );
            }
            totals
        }));
    }
    let mut totals = Vec::new();
    for task in tasks {
        let seen = task.await.unwrap();
        assert!(seen.windows(2).all(|w| w[0] < w[1]), "{seen:?}");
        totals.extend(seen);
    }
    // 1+2+3+4+5 and 11+12+13+14+15.
    assert_eq!(totals.iter().max(), Some(&80));
    totals.sort();
    totals.dedup();
    assert_eq!(totals.len(), 10, "no two writers read the same total");

    let limits = Limits(&*f.store);
    assert_eq!(
        limits
            .add_to_rate_window("bucket", start + 60, 60, 3)
            .await
            .unwrap(),
        3,
        "the next window starts from zero"
    );
    assert_eq!(
        limits
            .add_to_rate_window("bucket", start, 60, 0)
            .await
            .unwrap(),
        80
    );
    let item = f
        .store
        .get(&key("RATE#bucket", &start.to_string()))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(item.expires_at(), Some(start + 120));
}

/// The usage meter (two instances over one store): concurrent uses never
/// pass the limit within an instance, nothing is written until a flush, a
/// flush writes each counter once with all its uses, and another instance
/// starts from what was flushed.
pub async fn metered_uses_stay_within_the_limit_and_are_written_once_per_flush(f: Fixture) {
    use crate::counting::CountingStore;
    use crate::meter::{Flushed, UsageMeter, Use};
    use crate::repo::usage::{Counter, Usage};
    use alyt_domain::ids::{DeveloperId, KeyId};
    use alyt_domain::quota::QuotaKind;

    let counted = Arc::new(CountingStore::new(Arc::clone(&f.store)));
    let window = Counter::Window {
        developer: DeveloperId::new(),
        kind: QuotaKind::Requests,
        window_key: "2026-06-01".into(),
    };
    let per_key = Counter::KeyDay {
        key: KeyId::new(),
        day: "2026-06-01".into(),
    };
    let uses = [
        Use {
            counter: window.clone(),
            limit: Some(20),
            expires_at: 1_900_000_000,
        },
        Use {
            counter: per_key.clone(),
            limit: None,
            expires_at: 1_900_000_000,
        },
    ];
    let a = UsageMeter::new(counted.clone());
    let mut tasks = Vec::new();
    for _ in 0..30 {
        let (a, uses) = (a.clone(), uses.clone());
        tasks.push(tokio::spawn(async move {
            a.count_if(&uses, |after| if after[0] <= 20 { Ok(()) } else { Err(()) })
                .await
                .unwrap()
                .is_ok()
        }));
    }
    let mut admitted = 0;
    for task in tasks {
        admitted += usize::from(task.await.unwrap());
    }
    assert_eq!(admitted, 20, "exactly the limit is admitted");
    let writes = |calls: std::collections::BTreeMap<&'static str, usize>| -> usize {
        ["put", "update", "delete", "transact"]
            .iter()
            .map(|op| calls.get(op).copied().unwrap_or(0))
            .sum()
    };
    let calls = counted.take();
    assert_eq!(
        writes(calls.clone()),
        0,
        "counting writes nothing: {calls:?}"
    );
    let usage = Usage(f.store.as_ref());
    assert_eq!(
        usage.counts(std::slice::from_ref(&window)).await.unwrap(),
        vec![0]
    );
    assert_eq!(a.unwritten(&window), 20);
    assert_eq!(
        a.unwritten(&per_key),
        20,
        "refused uses count on no counter"
    );

    assert_eq!(
        a.flush().await,
        Flushed {
            counters: 2,
            uses: 40,
            failed: 0
        }
    );
    let calls = counted.take();
    assert_eq!(writes(calls.clone()), 2, "one write per counter: {calls:?}");
    assert_eq!(
        usage
            .counts(&[window.clone(), per_key.clone()])
            .await
            .unwrap(),
        vec![20, 20]
    );
    assert_eq!(a.unwritten(&window), 0);
    assert_eq!(a.flush().await, Flushed::default(), "nothing left to write");

    // Another instance starts from the stored 20.
    let b = UsageMeter::new(Arc::clone(&f.store));
    let mut admitted = 0;
    for _ in 0..8 {
        admitted += usize::from(b.admit(window.clone(), 25, 1_900_000_000).await.unwrap());
    }
    assert_eq!(admitted, 5);
    assert_eq!(b.current(&window).await.unwrap(), 25);
    b.flush().await;
    assert_eq!(
        usage.counts(std::slice::from_ref(&window)).await.unwrap(),
        vec![25]
    );
    let stored = f.store.get(&window.key()).await.unwrap().unwrap();
    assert_eq!(stored.expires_at(), Some(1_900_000_000));
}

/// A reset request is recorded the same way with or without an account and
/// is delivered at most once, however many workers look.
pub async fn a_reset_request_is_claimed_once(f: Fixture) {
    use crate::repo::resets::{ResetRequests, ResetSide};
    let now = alyt_domain::Clock::unix_seconds(&*f.clock);
    let requests = ResetRequests(&*f.store);
    let user = alyt_domain::ids::UserId::new();
    let known = requests
        .enqueue(ResetSide::Household, Some(user), now)
        .await
        .unwrap();
    let unknown = requests
        .enqueue(ResetSide::Developer, None, now)
        .await
        .unwrap();
    let pending = requests.pending(10).await.unwrap();
    assert_eq!(
        pending
            .iter()
            .map(|r| (r.id, r.side, r.user_id))
            .collect::<Vec<_>>(),
        [
            (known, ResetSide::Household, Some(user)),
            (unknown, ResetSide::Developer, None)
        ]
    );
    assert!(requests.claim(known).await.unwrap());
    assert!(!requests.claim(known).await.unwrap());
    assert_eq!(requests.pending(10).await.unwrap().len(), 1);
    // Undelivered for a day: dropped.
    f.clock.advance(time::Duration::days(1));
    assert!(requests.pending(10).await.unwrap().is_empty());
}

// ---------------------------------------------------------------------------
// Ordered logs (the event log's appends)

const LOG: &str = "EVENTS#conformance";

fn append(n: u32) -> TxWrite {
    TxWrite::Append {
        log: LOG.into(),
        shard_key: 0,
        item: item(LOG, "ignored").with("n", n),
        position_attr: "id".into(),
    }
}

/// Everything in the log after `after`, as (position, n).
async fn log_after(store: &dyn Store, after: Option<&str>) -> Vec<(String, i64)> {
    let mut query = Query::partition(LOG).limit(1000);
    if let Some(after) = after {
        query = query.sort(SortKey::Gt(after.into()));
    }
    query_all(store, query)
        .await
        .into_iter()
        .map(|i| {
            assert_eq!(
                i.get_str("id"),
                Some(i.sk()),
                "the position is copied into the item"
            );
            (i.sk().to_owned(), i.get_i64("n").unwrap())
        })
        .collect()
}

/// Appends get positions in their order after the log's head: a clock moved
/// back does not move them back, a cancelled transaction appends nothing and
/// reports the reasons of the caller's own writes only.
pub async fn appends_take_positions_after_the_head_in_commit_order(f: Fixture) {
    f.store
        .transact(vec![append(0), append(1), append(2)])
        .await
        .unwrap();
    let first = log_after(f.store.as_ref(), None).await;
    assert_eq!(first.iter().map(|(_, n)| *n).collect::<Vec<_>>(), [0, 1, 2]);
    assert!(first.windows(2).all(|w| w[0].0 < w[1].0), "{first:?}");
    let micros = |p: &str| p.split_once('-').unwrap().0.parse::<i64>().unwrap();
    assert_eq!(
        micros(&first[0].0),
        (start_time().unix_timestamp_nanos() / 1000) as i64,
        "positions start at the clock"
    );

    // The clock goes back a second: the next position is still later.
    f.clock.set(start_time() - time::Duration::seconds(1));
    f.store.transact(vec![append(3)]).await.unwrap();
    let after = log_after(f.store.as_ref(), Some(&first[2].0)).await;
    assert_eq!(after.len(), 1);
    assert!(after[0].0 > first[2].0);
    assert_eq!(micros(&after[0].0), micros(&first[2].0) + 1);

    // A cancelled transaction appends nothing; its reasons are its own.
    f.store.put(item("p", "taken"), None).await.unwrap();
    let err = f
        .store
        .transact(vec![
            TxWrite::Put {
                item: item("p", "taken"),
                condition: Some(Condition::item_absent()),
            },
            append(4),
        ])
        .await
        .unwrap_err();
    match err {
        StoreError::TransactionCanceled { reasons } => assert_eq!(
            reasons,
            [CancelReason::ConditionFailed, CancelReason::None],
            "one reason per write the caller sent"
        ),
        other => panic!("expected a cancellation, got {other:?}"),
    }
    assert_eq!(log_after(f.store.as_ref(), None).await.len(), 4);

    // Two logs in one transaction each get their own head.
    f.store
        .transact(vec![
            append(5),
            TxWrite::Append {
                log: "EVENTS#other".into(),
                shard_key: 0,
                item: item("EVENTS#other", "x").with("n", 6),
                position_attr: "id".into(),
            },
        ])
        .await
        .unwrap();
    assert_eq!(log_after(f.store.as_ref(), None).await.len(), 5);
    let other = query_all(f.store.as_ref(), Query::partition("EVENTS#other")).await;
    assert_eq!(other.len(), 1);
}

/// A second writer whose clock is behind (and who never saw the log) still
/// appends after everything a reader already read; so does the first writer
/// when the second moved the head meanwhile.
pub async fn a_writer_with_a_clock_behind_appends_after_what_readers_saw(f: Fixture) {
    let behind = Arc::new(ManualClock::new(start_time() - time::Duration::seconds(5)));
    let second = (f.another)(behind.clone());
    f.store.transact(vec![append(0)]).await.unwrap();
    f.store.transact(vec![append(1)]).await.unwrap();
    let seen = log_after(f.store.as_ref(), None).await;
    let position = seen.last().unwrap().0.clone();

    second.transact(vec![append(2)]).await.unwrap();
    let next = log_after(f.store.as_ref(), Some(&position)).await;
    assert_eq!(next.iter().map(|(_, n)| *n).collect::<Vec<_>>(), [2]);

    // The first writer's memory of the head is stale now; its clock is
    // behind the second's last position too.
    f.clock.set(start_time() - time::Duration::seconds(10));
    f.store.transact(vec![append(3)]).await.unwrap();
    behind.set(start_time() - time::Duration::seconds(20));
    second.transact(vec![append(4)]).await.unwrap();
    let rest = log_after(f.store.as_ref(), Some(&next[0].0)).await;
    assert_eq!(rest.iter().map(|(_, n)| *n).collect::<Vec<_>>(), [3, 4]);
}

/// A store that holds the first transaction sent through it until told to
/// go on: a commit held open while another finishes.
struct HeldOpen {
    inner: Arc<dyn Store>,
    hold: tokio::sync::Mutex<Option<tokio::sync::oneshot::Receiver<()>>>,
    held: tokio::sync::Notify,
}

#[async_trait::async_trait]
impl Store for HeldOpen {
    async fn get(&self, key: &Key) -> Result<Option<Item>, StoreError> {
        self.inner.get(key).await
    }
    async fn batch_get(&self, keys: &[Key]) -> Result<Vec<Item>, StoreError> {
        self.inner.batch_get(keys).await
    }
    async fn put(&self, item: Item, condition: Option<Condition>) -> Result<(), StoreError> {
        self.inner.put(item, condition).await
    }
    async fn update(
        &self,
        key: &Key,
        actions: Vec<UpdateAction>,
        condition: Option<Condition>,
    ) -> Result<Item, StoreError> {
        self.inner.update(key, actions, condition).await
    }
    async fn delete(
        &self,
        key: &Key,
        condition: Option<Condition>,
    ) -> Result<Option<Item>, StoreError> {
        self.inner.delete(key, condition).await
    }
    async fn query(&self, query: Query) -> Result<Page, StoreError> {
        self.inner.query(query).await
    }
    async fn transact(&self, writes: Vec<TxWrite>) -> Result<(), StoreError> {
        let hold = self.hold.lock().await.take();
        if let Some(go_on) = hold {
            self.held.notify_one();
            let _ = go_on.await;
        }
        self.inner.transact(writes).await
    }
}

/// Commit A starts first and is held open; B starts later and commits; a
/// reader reads B; then A commits. A lands after B, so the reader that
/// resumes after B finds A.
pub async fn a_commit_held_open_lands_after_the_one_that_finished_first(f: Fixture) {
    let (go_on, hold) = tokio::sync::oneshot::channel();
    let held = Arc::new(HeldOpen {
        inner: Arc::clone(&f.store),
        hold: tokio::sync::Mutex::new(Some(hold)),
        held: tokio::sync::Notify::new(),
    });
    let a = {
        let held = Arc::clone(&held);
        tokio::spawn(async move { held.transact(vec![append(0)]).await })
    };
    held.held.notified().await;
    f.clock.advance(time::Duration::milliseconds(5));
    held.transact(vec![append(1)]).await.unwrap();
    let seen = log_after(f.store.as_ref(), None).await;
    assert_eq!(seen.iter().map(|(_, n)| *n).collect::<Vec<_>>(), [1]);
    go_on.send(()).unwrap();
    a.await.unwrap().unwrap();
    let resumed = log_after(f.store.as_ref(), Some(&seen[0].0)).await;
    assert_eq!(resumed.iter().map(|(_, n)| *n).collect::<Vec<_>>(), [0]);
}

/// Writer `n` of two instances taking turns: the first for even `n`.
fn one_of(first: &Arc<dyn Store>, second: &Arc<dyn Store>, n: u64) -> Arc<dyn Store> {
    Arc::clone(if n.is_multiple_of(2) { first } else { second })
}

/// Twenty writers append at once (over two instances) while a reader follows
/// the log from its own position: it ends with every event once, in order.
pub async fn a_reader_following_concurrent_appends_misses_none(f: Fixture) {
    let second = (f.another)(Arc::clone(&f.clock));
    let mut writers = Vec::new();
    for n in 0..20u32 {
        let store = one_of(&f.store, &second, n.into());
        writers.push(tokio::spawn(async move {
            store.transact(vec![append(n)]).await.unwrap();
        }));
    }
    let reader = {
        let store = Arc::clone(&f.store);
        tokio::spawn(async move {
            let mut position: Option<String> = None;
            let mut read = Vec::new();
            let give_up = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
            while tokio::time::Instant::now() < give_up {
                let page = log_after(store.as_ref(), position.as_deref()).await;
                if let Some((last, _)) = page.last() {
                    position = Some(last.clone());
                }
                read.extend(page.into_iter().map(|(_, n)| n));
                if read.len() >= 20 {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(1)).await;
            }
            read
        })
    };
    for writer in writers {
        writer.await.unwrap();
    }
    let mut read = reader.await.unwrap();
    assert_eq!(read.len(), 20, "{read:?}");
    read.sort();
    read.dedup();
    assert_eq!(read.len(), 20, "no event twice");
}

/// Twenty writers answering one home-security mode request at once (one
/// request id): exactly one writes the change and the answer; the others
/// find the home changed, and the stored answer is the winner's.
pub async fn one_mode_request_id_is_answered_once(f: Fixture) {
    use crate::repo::security::{
        ModeRequestRecord, Security, SecurityError, SecurityRecord, request_write, security_write,
    };
    use alyt_domain::ids::{PropertyId, TenantId};
    use alyt_domain::security::Mode;

    let (tenant, property) = (TenantId::new(), PropertyId::new());
    let now = start_time();
    let (first, _) = security_write(None, &SecurityRecord::new(tenant, property, now)).unwrap();
    Security(&*f.store).write(vec![first]).await.unwrap();
    let request = uuid::Uuid::new_v4();
    let tasks: Vec<_> = (0..20)
        .map(|n| {
            let store = Arc::clone(&f.store);
            tokio::spawn(async move {
                let security = Security(&*store);
                let read = security.get(tenant, property).await.unwrap().unwrap();
                let mut next = read.clone();
                next.state.requested = Mode::Away;
                let (write, _) = security_write(Some(&read), &next).unwrap();
                let answer = ModeRequestRecord {
                    request_id: request,
                    property_id: property,
                    fingerprint: "same body".into(),
                    status: 200,
                    answer: json!({ "writer": n }),
                    at: now,
                };
                security
                    .write(vec![write, request_write(&answer).unwrap()])
                    .await
                    .map(|()| n)
            })
        })
        .collect();
    let mut winners = Vec::new();
    for task in tasks {
        match task.await.unwrap() {
            Ok(n) => winners.push(n),
            Err(SecurityError::Changed) => {}
            Err(e) => panic!("a write failed: {e}"),
        }
    }
    assert_eq!(winners.len(), 1, "{winners:?}");
    let security = Security(&*f.store);
    let stored = security.get(tenant, property).await.unwrap().unwrap();
    assert_eq!(stored.rev, 1);
    assert_eq!(stored.state.requested, Mode::Away);
    let answer = security.request(property, request).await.unwrap().unwrap();
    assert_eq!(answer.answer, json!({ "writer": winners[0] }));
}

/// The cap on one principal's open streams holds when eight instances (each
/// its own store handle) open connections at once: exactly `max` get a
/// lease; a released slot is taken again; a lease that is not renewed frees
/// itself when it runs out (a crashed instance), and its late renewal fails.
pub async fn stream_leases_cap_a_holder_across_instances_and_free_when_they_run_out(f: Fixture) {
    use crate::repo::streams::{LeaseError, StreamLeases};
    let now = start_time().unix_timestamp();
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let store = (f.another)(f.clock.clone());
        tasks.push(tokio::spawn(async move {
            StreamLeases(&*store)
                .acquire("key#a", 3, uuid::Uuid::new_v4(), now, 120)
                .await
        }));
    }
    let mut leases = Vec::new();
    let mut refused = 0;
    for task in tasks {
        match task.await.unwrap() {
            Ok(lease) => leases.push(lease),
            Err(LeaseError::Full { retry_at }) => {
                assert_eq!(retry_at, now + 120);
                refused += 1;
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!((leases.len(), refused), (3, 5));
    let leases_of = StreamLeases(&*f.store);
    assert_eq!(leases_of.held("key#a").await.unwrap(), 3);
    // Another holder has slots of its own.
    let other = leases_of
        .acquire("key#b", 3, uuid::Uuid::new_v4(), now, 120)
        .await
        .unwrap();
    assert_eq!(other.slot, 0);
    // A closed connection gives its slot back.
    leases_of.release(&leases[1]).await.unwrap();
    let again = leases_of
        .acquire("key#a", 3, uuid::Uuid::new_v4(), now, 120)
        .await
        .unwrap();
    assert_eq!(again.slot, leases[1].slot);
    // One renews; the others' instances crashed: past their end, two slots
    // are free, and a renewal that comes too late finds its slot taken.
    let mut renewed = leases[0].clone();
    f.clock.advance(time::Duration::seconds(60));
    assert!(leases_of.renew(&mut renewed, now + 60, 120).await.unwrap());
    f.clock.advance(time::Duration::seconds(61));
    let later = now + 121;
    assert_eq!(leases_of.held("key#a").await.unwrap(), 1);
    let first = leases_of
        .acquire("key#a", 3, uuid::Uuid::new_v4(), later, 120)
        .await
        .unwrap();
    let second = leases_of
        .acquire("key#a", 3, uuid::Uuid::new_v4(), later, 120)
        .await
        .unwrap();
    assert_ne!(first.slot, renewed.slot);
    assert_ne!(second.slot, renewed.slot);
    match leases_of
        .acquire("key#a", 3, uuid::Uuid::new_v4(), later, 120)
        .await
    {
        Err(LeaseError::Full { retry_at }) => assert_eq!(retry_at, now + 60 + 120),
        other => panic!("a fourth lease: {other:?}"),
    }
    let mut late = leases[2].clone();
    assert!(!leases_of.renew(&mut late, later, 120).await.unwrap());
    // Releasing a lease another connection took over leaves it be.
    leases_of.release(&late).await.unwrap();
    assert_eq!(leases_of.held("key#a").await.unwrap(), 3);
}

// ---------------------------------------------------------------------------
// Sharded logs (a tenant's event log beyond one head's write rate)

const SHARDED: &str = "EVENTS#sharded";

fn append_home(home: u64, n: u32) -> TxWrite {
    TxWrite::Append {
        log: SHARDED.into(),
        shard_key: home,
        item: item(SHARDED, "ignored").with("home", home).with("n", n),
        position_attr: "id".into(),
    }
}

/// What a reader at `after` is given now, as (position, home, n).
async fn read_sharded(
    store: &dyn Store,
    after: Option<&str>,
    now: time::OffsetDateTime,
) -> Vec<(String, i64, i64)> {
    crate::logs::read_after(store, SHARDED, after, 1000, now)
        .await
        .unwrap()
        .into_iter()
        .map(|i| {
            assert_eq!(
                i.get_str("id"),
                Some(i.sk()),
                "the position is copied into the item"
            );
            (
                i.sk().to_owned(),
                i.get_i64("home").unwrap(),
                i.get_i64("n").unwrap(),
            )
        })
        .collect()
}

/// Eight homes append five events each, one after another per home and all
/// homes at once, over two instances, into a log of four shards, while a
/// reader follows it: the reader gets every event once, each home's in the
/// order they were committed, every read in position order.
pub async fn a_sharded_log_keeps_each_home_in_commit_order_and_misses_nothing(f: Fixture) {
    crate::logs::grow(f.store.as_ref(), SHARDED, 4)
        .await
        .unwrap();
    let second = (f.another)(Arc::clone(&f.clock));
    let mut writers = Vec::new();
    for home in 0..8u64 {
        let store = one_of(&f.store, &second, home);
        writers.push(tokio::spawn(async move {
            for n in 0..5u32 {
                store.transact(vec![append_home(home, n)]).await.unwrap();
            }
        }));
    }
    let reader = {
        let store = Arc::clone(&f.store);
        let clock = Arc::clone(&f.clock);
        tokio::spawn(async move {
            let mut position: Option<String> = None;
            let mut read = Vec::new();
            let give_up = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
            while read.len() < 40 && tokio::time::Instant::now() < give_up {
                let page = read_sharded(store.as_ref(), position.as_deref(), clock.now()).await;
                assert!(page.windows(2).all(|w| w[0].0 < w[1].0), "{page:?}");
                if let Some((last, ..)) = page.last() {
                    assert!(position.as_deref().is_none_or(|p| p < last.as_str()));
                    position = Some(last.clone());
                }
                read.extend(page);
                tokio::time::sleep(std::time::Duration::from_millis(1)).await;
                // Time goes on, so shards that are done become idle.
                clock.advance(time::Duration::milliseconds(50));
            }
            read
        })
    };
    for writer in writers {
        writer.await.unwrap();
    }
    let read = reader.await.unwrap();
    assert_eq!(read.len(), 40, "{read:?}");
    for home in 0..8 {
        let ns: Vec<i64> = read
            .iter()
            .filter(|(_, h, _)| *h == home)
            .map(|(.., n)| *n)
            .collect();
        assert_eq!(
            ns,
            [0, 1, 2, 3, 4],
            "home {home} in commit order, once each"
        );
    }
    for k in 0..4u32 {
        let held = shard_size(f.store.as_ref(), k).await;
        assert_eq!(held, 10, "shard {k} holds its two homes' events");
    }
}

/// How many events shard `shard` of the sharded log holds.
async fn shard_size(store: &dyn Store, shard: u32) -> usize {
    let partition = crate::shard_partition(SHARDED, shard);
    query_all(store, Query::partition(partition)).await.len()
}

/// A reader is not held back by a shard nobody writes to: it moves that
/// shard's head up to what it reads. A writer who last saw that shard
/// before (another instance, its clock behind) then appends after what the
/// reader was given, so the reader finds it when it resumes.
pub async fn an_idle_shard_is_moved_up_and_a_late_append_lands_after_what_was_read(f: Fixture) {
    crate::logs::grow(f.store.as_ref(), SHARDED, 2)
        .await
        .unwrap();
    let behind = Arc::new(ManualClock::new(start_time() - time::Duration::seconds(5)));
    let late = (f.another)(behind.clone());
    // The late writer appends to shard 1 first (and remembers its head).
    late.transact(vec![append_home(1, 0)]).await.unwrap();
    // Shard 0 moves on a second later.
    f.clock.advance(time::Duration::seconds(1));
    f.store.transact(vec![append_home(0, 1)]).await.unwrap();
    f.store.transact(vec![append_home(0, 2)]).await.unwrap();

    let now = f.clock.now() + time::Duration::seconds(1);
    let read = read_sharded(f.store.as_ref(), None, now).await;
    assert_eq!(
        read.iter().map(|(_, h, n)| (*h, *n)).collect::<Vec<_>>(),
        [(1, 0), (0, 1), (0, 2)],
        "shard 1, idle, did not hold back shard 0's events"
    );
    let position = read.last().unwrap().0.clone();

    // The late writer's clock and memory are both behind what was read.
    late.transact(vec![append_home(1, 3)]).await.unwrap();
    let resumed = read_sharded(f.store.as_ref(), Some(&position), now).await;
    assert_eq!(
        resumed.iter().map(|(_, h, n)| (*h, *n)).collect::<Vec<_>>(),
        [(1, 3)]
    );
    assert!(resumed[0].0 > position);
    assert_eq!(
        crate::logs::newest(f.store.as_ref(), SHARDED)
            .await
            .unwrap()
            .unwrap()
            .as_str(),
        resumed[0].0
    );
}

/// A log of one shard (as every log written before shards existed) grown to
/// four: a reader's old position resumes without a gap or a repeat, events
/// old and new are found by id, and a log never shrinks.
pub async fn a_log_grown_to_more_shards_resumes_every_cursor(f: Fixture) {
    for n in 0..4 {
        f.store
            .transact(vec![append_home(u64::from(n) + 10, n)])
            .await
            .unwrap();
    }
    let now = || f.clock.now() + time::Duration::seconds(1);
    let before = read_sharded(f.store.as_ref(), None, now()).await;
    assert_eq!(before.len(), 4);
    let position = before[1].0.clone();

    crate::logs::grow(f.store.as_ref(), SHARDED, 4)
        .await
        .unwrap();
    assert_eq!(
        crate::logs::shard_count(f.store.as_ref(), SHARDED)
            .await
            .unwrap(),
        4
    );
    // A writer that reads the count afresh (a new instance) spreads homes.
    let fresh = (f.another)(Arc::clone(&f.clock));
    for home in 0..8u64 {
        f.clock.advance(time::Duration::milliseconds(1));
        fresh
            .transact(vec![append_home(home, 100 + home as u32)])
            .await
            .unwrap();
    }
    let resumed = read_sharded(f.store.as_ref(), Some(&position), now()).await;
    assert_eq!(
        resumed.iter().map(|(.., n)| *n).collect::<Vec<_>>(),
        [2, 3, 100, 101, 102, 103, 104, 105, 106, 107],
        "the old log's rest, then the new events, each once"
    );
    for k in 1..4u32 {
        let held = shard_size(f.store.as_ref(), k).await;
        assert_eq!(held, 2, "shard {k} holds its homes' events");
    }
    for (id, _, n) in [&before[0], &resumed[9]] {
        let found = crate::logs::get(f.store.as_ref(), SHARDED, id)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(found.get_i64("n"), Some(*n));
    }
    for shards in [2, 0, 129] {
        let err = crate::logs::grow(f.store.as_ref(), SHARDED, shards)
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::Invalid(_)), "{shards}: {err:?}");
    }
}

// ---------------------------------------------------------------------------
// Log pages (many appends stored as one item)

fn page_of(log: &str, home: u64, ns: std::ops::Range<u32>) -> TxWrite {
    TxWrite::AppendPage {
        log: log.into(),
        shard_key: home,
        items: ns
            .map(|n| item(log, "ignored").with("home", home).with("n", n))
            .collect(),
        position_attr: "id".into(),
    }
}

/// Every item of `log` after `after`, read `limit` at a time, as (position, n).
async fn read_in_steps(
    store: &dyn Store,
    log: &str,
    after: Option<&str>,
    limit: u32,
    now: time::OffsetDateTime,
) -> Vec<(String, i64)> {
    let mut all = Vec::new();
    let mut at = after.map(str::to_owned);
    loop {
        let read = crate::logs::read_after(store, log, at.as_deref(), limit, now)
            .await
            .unwrap();
        assert!(read.len() <= limit as usize, "a read keeps to its limit");
        let Some(last) = read.last() else {
            return all;
        };
        at = Some(last.sk().to_owned());
        for i in &read {
            assert_eq!(i.get_str("id"), Some(i.sk()), "each item has its position");
            assert!(!crate::pages::is_page(i), "readers never see a page");
            all.push((i.sk().to_owned(), i.get_i64("n").unwrap()));
        }
    }
}

/// A page of five between single appends: read whole, read two at a time,
/// resumed from each of its positions, and each of them found by id; the
/// page is one item in the log's partition.
pub async fn a_page_reads_as_its_items_and_every_cursor_inside_it_resumes(f: Fixture) {
    const PAGED: &str = "EVENTS#paged";
    let single = |n: u32| TxWrite::Append {
        log: PAGED.into(),
        shard_key: 0,
        item: item(PAGED, "ignored").with("n", n),
        position_attr: "id".into(),
    };
    f.store.transact(vec![single(0)]).await.unwrap();
    f.clock.advance(time::Duration::milliseconds(1));
    f.store
        .transact(vec![page_of(PAGED, 0, 1..6)])
        .await
        .unwrap();
    f.clock.advance(time::Duration::milliseconds(1));
    f.store.transact(vec![single(6)]).await.unwrap();
    let now = f.clock.now();

    let all = read_in_steps(f.store.as_ref(), PAGED, None, 1000, now).await;
    assert_eq!(
        all.iter().map(|(_, n)| *n).collect::<Vec<_>>(),
        [0, 1, 2, 3, 4, 5, 6]
    );
    assert!(all.windows(2).all(|w| w[0].0 < w[1].0), "in position order");
    let stepped = read_in_steps(f.store.as_ref(), PAGED, None, 2, now).await;
    assert_eq!(stepped, all, "two at a time reads the same");
    for (k, (position, _)) in all.iter().enumerate() {
        let rest = read_in_steps(f.store.as_ref(), PAGED, Some(position), 3, now).await;
        assert_eq!(rest, all[k + 1..], "resumed after {position}");
        let found = crate::logs::get(f.store.as_ref(), PAGED, position)
            .await
            .unwrap()
            .expect("found by its position");
        assert_eq!(found.get_i64("n"), Some(all[k].1));
    }
    let stored = query_all(f.store.as_ref(), Query::partition(PAGED).limit(100)).await;
    assert_eq!(stored.len(), 3, "the page is one item");
    let head = crate::head_last(
        f.store
            .get(&crate::log_head_key(PAGED))
            .await
            .unwrap()
            .as_ref(),
    );
    assert_eq!(
        head.map(|h| h.to_string()),
        all.last().map(|(p, _)| p.clone())
    );
    // An empty page is refused, and writes nothing.
    let empty = page_of(PAGED, 0, 0..0);
    let err = f.store.transact(vec![empty]).await.unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");
}

/// Pages and single appends of eight homes in a log of four shards: a
/// reader in small steps gets every item once, in position order, each
/// home's in commit order.
pub async fn pages_in_a_sharded_log_merge_in_position_order(f: Fixture) {
    const LOGGED: &str = "EVENTS#paged-sharded";
    crate::logs::grow(f.store.as_ref(), LOGGED, 4)
        .await
        .unwrap();
    let mut n = 0u32;
    for round in 0..3u32 {
        for home in 0..8u64 {
            f.clock.advance(time::Duration::milliseconds(1));
            let write = if (home + u64::from(round)) % 2 == 0 {
                let w = page_of(LOGGED, home, n..n + 3);
                n += 3;
                w
            } else {
                let w = TxWrite::Append {
                    log: LOGGED.into(),
                    shard_key: home,
                    item: item(LOGGED, "ignored").with("home", home).with("n", n),
                    position_attr: "id".into(),
                };
                n += 1;
                w
            };
            f.store.transact(vec![write]).await.unwrap();
        }
    }
    // Past the idle time: every shard is settled.
    let now = f.clock.now() + time::Duration::seconds(1);
    let all = read_in_steps(f.store.as_ref(), LOGGED, None, 4, now).await;
    assert_eq!(all.len(), n as usize, "every item once");
    assert!(all.windows(2).all(|w| w[0].0 < w[1].0), "in position order");
    let mut ns: Vec<i64> = all.iter().map(|(_, n)| *n).collect();
    ns.sort_unstable();
    assert_eq!(ns, (0..i64::from(n)).collect::<Vec<_>>());
    // Written in n order one commit after another: position order is n order.
    assert_eq!(all.iter().map(|(_, n)| *n).collect::<Vec<_>>(), ns);
    let middle = &all[n as usize / 2].0;
    let found = crate::logs::get(f.store.as_ref(), LOGGED, middle)
        .await
        .unwrap()
        .expect("found in its shard");
    assert_eq!(found.sk(), middle);

    // One transaction, a page append per home: each shard gets one page.
    let stored = |shard: u32| {
        let store = Arc::clone(&f.store);
        async move {
            let partition = crate::shard_partition(LOGGED, shard);
            query_all(store.as_ref(), Query::partition(partition))
                .await
                .len()
        }
    };
    let mut before = Vec::new();
    for shard in 0..4 {
        before.push(stored(shard).await);
    }
    f.clock.advance(time::Duration::milliseconds(1));
    let writes = (0..8u64)
        .map(|home| page_of(LOGGED, home, 1000 + home as u32 * 2..1002 + home as u32 * 2))
        .collect();
    f.store.transact(writes).await.unwrap();
    for shard in 0..4u32 {
        assert_eq!(
            stored(shard).await,
            before[shard as usize] + 1,
            "shard {shard}: one page"
        );
    }
    let last = all.last().map(|(p, _)| p.as_str());
    let now = f.clock.now() + time::Duration::seconds(1);
    let added = read_in_steps(f.store.as_ref(), LOGGED, last, 5, now).await;
    assert_eq!(added.len(), 16, "every item of every page");
    for home in 0..8i64 {
        let of_home: Vec<i64> = added
            .iter()
            .map(|(_, n)| *n)
            .filter(|n| (n - 1000) / 2 == home)
            .collect();
        assert_eq!(
            of_home,
            [1000 + home * 2, 1001 + home * 2],
            "home {home} in order"
        );
    }
}
