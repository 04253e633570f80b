//! Differential checks beyond the conformance suite: the same operations on the
//! embedded adapter and on the DynamoDB adapter (over moto) must give the same
//! answers, including the corner cases DynamoDB rejects or evaluates differently
//! unless the adapter takes care.

use std::fmt::Debug;
use std::sync::Arc;

use alyt_domain::ManualClock;
use alyt_store::conformance::start_time;
use alyt_store::sqlite::SqliteStore;
use alyt_store::{
    CmpOp, Condition, Index, Item, Key, Page, Query, SortKey, Store, StoreError, TxWrite,
    UpdateAction,
};
use serde_json::{Value, json};

struct Pair {
    sqlite: SqliteStore,
    dynamo: alyt_aws::DynamoStore,
    clock: Arc<ManualClock>,
}

impl Pair {
    async fn new() -> Self {
        let clock = Arc::new(ManualClock::new(start_time()));
        Self {
            sqlite: SqliteStore::in_memory(clock.clone()).unwrap(),
            dynamo: alyt_aws::testing::fresh_table(clock.clone()).await,
            clock,
        }
    }

    async fn put(&self, item: Item) {
        self.sqlite.put(item.clone(), None).await.unwrap();
        self.dynamo.put(item, None).await.unwrap();
    }
}

/// The outcome of an operation with errors reduced to what callers match on.
#[derive(Debug, PartialEq)]
enum Outcome<T> {
    Ok(T),
    ConditionFailed(Option<Item>),
    Canceled(Vec<alyt_store::CancelReason>),
    Invalid,
    Unavailable(String),
}

fn outcome<T>(result: Result<T, StoreError>) -> Outcome<T> {
    match result {
        Ok(v) => Outcome::Ok(v),
        Err(StoreError::ConditionFailed { current }) => {
            Outcome::ConditionFailed(current.map(|b| *b))
        }
        Err(StoreError::TransactionCanceled { reasons }) => Outcome::Canceled(reasons),
        Err(StoreError::Invalid(_)) => Outcome::Invalid,
        Err(StoreError::Unavailable(m)) => Outcome::Unavailable(m),
    }
}

fn assert_same<T: PartialEq + Debug>(
    what: impl Debug,
    sqlite: Result<T, StoreError>,
    dynamo: Result<T, StoreError>,
) {
    assert_eq!(
        outcome(dynamo),
        outcome(sqlite),
        "dynamo vs sqlite for {what:?}"
    );
}

fn key(pk: &str, sk: &str) -> Key {
    Key::new(pk, sk)
}

#[tokio::test]
async fn conditions_evaluate_like_the_embedded_adapter() {
    let pair = Pair::new().await;
    let subject = Item::new(key("C", "1"))
        .with("step", 10)
        .with("ratio", 0.5)
        .with("name", "b")
        .with("empty", "")
        .with("flag", true)
        .with("nothing", Value::Null)
        .with("tags", json!(["a", 1]))
        .with("nested", json!({"x": 1}));
    pair.put(subject.clone()).await;

    let attrs = [
        "step", "ratio", "name", "empty", "flag", "nothing", "tags", "nested", "missing",
    ];
    let values = [
        json!(10),
        json!(10.0),
        json!(1),
        json!(0.5),
        json!(11),
        json!("10"),
        json!("b"),
        json!("a"),
        json!(""),
        json!(true),
        json!(false),
        json!(null),
        json!(["a", 1]),
        json!({"x": 1}),
    ];
    let ops = [
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Gt,
        CmpOp::Ge,
    ];
    let mut conditions = Vec::new();
    for a in attrs {
        conditions.push(Condition::exists(a));
        conditions.push(Condition::not_exists(a));
        for prefix in ["", "b", "x"] {
            conditions.push(Condition::BeginsWith(a.into(), prefix.into()));
        }
        for v in &values {
            for op in ops {
                conditions.push(Condition::Cmp(a.into(), op, v.clone()));
            }
        }
    }
    conditions.push(Condition::And(vec![]));
    conditions.push(Condition::Or(vec![]));
    conditions.push(Condition::Not(Box::new(Condition::Or(vec![]))));
    conditions.push(Condition::Not(Box::new(Condition::ne("missing", 1))));
    conditions
        .push(Condition::eq("step", 10).and(Condition::Not(Box::new(Condition::eq("name", "c")))));

    let touch = || vec![UpdateAction::Set("touched".into(), json!(true))];
    for condition in conditions {
        let expected = condition.evaluate(Some(&subject));
        let result = pair
            .dynamo
            .update(&key("C", "1"), touch(), Some(condition.clone()))
            .await;
        match result {
            Ok(_) => assert!(expected, "dynamo held {condition:?}, sqlite would not"),
            Err(StoreError::ConditionFailed { .. }) => {
                assert!(
                    !expected,
                    "dynamo refused {condition:?}, sqlite would hold it"
                )
            }
            Err(other) => panic!("{condition:?}: {other:?}"),
        }
        // On an absent item every attribute is missing.
        let absent = condition.evaluate(None);
        let result = pair
            .dynamo
            .delete(&key("C", "absent"), Some(condition.clone()))
            .await;
        assert_eq!(
            result.is_ok(),
            absent,
            "absent item, {condition:?}: {result:?}"
        );
    }
}

async fn pages(store: &dyn Store, query: Query) -> Result<Vec<Page>, StoreError> {
    let mut pages = Vec::new();
    let mut after = None;
    loop {
        let page = store.query(query.clone().after(after)).await?;
        after = page.next.clone();
        pages.push(page);
        if after.is_none() {
            return Ok(pages);
        }
    }
}

#[tokio::test]
async fn queries_page_like_the_embedded_adapter() {
    let pair = Pair::new().await;
    let now = start_time().unix_timestamp();
    // Unicode sort keys order by UTF-8 bytes; every third item expires.
    let sks = [
        "a",
        "b",
        "ba",
        "c",
        "z",
        "é",
        "\u{FFFD}",
        "\u{1F600}",
        "A",
        "0",
    ];
    for (n, sk) in sks.iter().enumerate() {
        let mut item = Item::new(key("Q", &format!("S#{sk}")))
            .with("n", n as i64)
            .with("gsi2pk", "G")
            .with("gsi2sk", format!("R#{}", n % 3));
        if n % 3 == 1 {
            item.set("ttl", now + 10);
        }
        pair.put(item).await;
    }
    pair.put(Item::new(key("Q2", "S#a"))).await;
    pair.clock.advance(time::Duration::seconds(11));

    let sorts = [
        None,
        Some(SortKey::Eq(String::new())),
        Some(SortKey::Lt(String::new())),
        Some(SortKey::Le(String::new())),
        Some(SortKey::Gt(String::new())),
        Some(SortKey::Ge(String::new())),
        Some(SortKey::BeginsWith(String::new())),
        Some(SortKey::BeginsWith("S#b".into())),
        Some(SortKey::Between("S#c".into(), "S#b".into())),
        Some(SortKey::Between(String::new(), "S#b".into())),
        Some(SortKey::Between("S#b".into(), String::new())),
        Some(SortKey::Between("S#b".into(), "S#é".into())),
        Some(SortKey::Gt("S#z".into())),
        Some(SortKey::Lt("S#a".into())),
    ];
    for sort in sorts {
        for forward in [true, false] {
            for limit in [1, 2, 3, 1000] {
                let mut q = Query::partition("Q").limit(limit);
                q.sort = sort.clone();
                q.forward = forward;
                let expected = pages(&pair.sqlite, q.clone()).await;
                let actual = pages(&pair.dynamo, q.clone()).await;
                assert_same(&q, expected, actual);
            }
        }
    }
    // The index orders ties on its sort key differently (see below), so compare
    // the sets of items per index sort key and the paging shape.
    for limit in [1, 2, 4] {
        let q = Query::on_index(Index::Gsi2, "G").limit(limit);
        let expected = pages(&pair.sqlite, q.clone()).await.unwrap();
        let actual = pages(&pair.dynamo, q.clone()).await.unwrap();
        let shape = |pages: &[Page]| pages.iter().map(|p| p.items.len()).collect::<Vec<_>>();
        assert_eq!(shape(&actual), shape(&expected), "{q:?}");
        let by_key = |pages: &[Page]| {
            let mut all: Vec<(String, i64)> = pages
                .iter()
                .flat_map(|p| &p.items)
                .map(|i| {
                    (
                        i.get_str("gsi2sk").unwrap().to_owned(),
                        i.get_i64("n").unwrap(),
                    )
                })
                .collect();
            all.sort();
            all
        };
        assert_eq!(by_key(&actual), by_key(&expected), "{q:?}");
    }
}

#[tokio::test]
async fn writes_match_the_embedded_adapter_at_the_edges() {
    let pair = Pair::new().await;
    pair.put(Item::new(key("E", "1")).with("name", "x").with("n", 1))
        .await;

    // Updates: REMOVE-only upsert, ADD to a string, ADD to a missing attribute.
    let updates = [
        (key("E", "new"), vec![UpdateAction::Remove("gone".into())]),
        (key("E", "1"), vec![UpdateAction::Add("name".into(), 1)]),
        (key("E", "1"), vec![UpdateAction::Add("fresh".into(), -3)]),
        (
            key("E", "1"),
            vec![UpdateAction::SetIfAbsent("n".into(), json!(9))],
        ),
        (key("E", ""), vec![UpdateAction::Set("a".into(), json!(1))]),
        (key("E", "1"), vec![]),
    ];
    for (k, actions) in updates {
        let what = (&k, &actions);
        let expected = pair.sqlite.update(&k, actions.clone(), None).await;
        let actual = pair.dynamo.update(&k, actions.clone(), None).await;
        assert_same(what, expected, actual);
    }

    // Batch gets answer per key asked, duplicates included.
    let keys = [
        key("E", "1"),
        key("E", "1"),
        key("E", "nope"),
        key("E", "new"),
    ];
    let sorted = |r: Result<Vec<Item>, StoreError>| {
        r.map(|mut items| {
            items.sort_by_key(Item::key);
            items
        })
    };
    assert_same(
        "batch get",
        sorted(pair.sqlite.batch_get(&keys).await),
        sorted(pair.dynamo.batch_get(&keys).await),
    );

    // Expired items still count for conditions and come back from deletes.
    let now = start_time().unix_timestamp();
    pair.put(Item::new(key("E", "ttl")).with("ttl", now - 1))
        .await;
    let item = Item::new(key("E", "ttl"));
    assert_same(
        "put over expired",
        pair.sqlite
            .put(item.clone(), Some(Condition::item_absent()))
            .await,
        pair.dynamo.put(item, Some(Condition::item_absent())).await,
    );
    assert_same(
        "delete expired",
        pair.sqlite.delete(&key("E", "ttl"), None).await,
        pair.dynamo.delete(&key("E", "ttl"), None).await,
    );

    // A transaction whose conditions hold but whose update is malformed.
    let tx = || {
        vec![
            TxWrite::Check {
                key: key("E", "1"),
                condition: Condition::item_present(),
            },
            TxWrite::Update {
                key: key("E", "2"),
                actions: vec![UpdateAction::Add("n".into(), 1)],
                condition: None,
            },
            TxWrite::Update {
                key: key("E", "new"),
                actions: vec![UpdateAction::Add("huh".into(), 1)],
                condition: Some(Condition::eq("huh", 5)),
            },
        ]
    };
    assert_same(
        "tx",
        pair.sqlite.transact(tx()).await,
        pair.dynamo.transact(tx()).await,
    );
    let bad_tx = || {
        vec![TxWrite::Update {
            key: key("E", "1"),
            actions: vec![UpdateAction::Add("name".into(), 1)],
            condition: None,
        }]
    };
    assert_same(
        "bad tx",
        pair.sqlite.transact(bad_tx()).await,
        pair.dynamo.transact(bad_tx()).await,
    );
    for k in [key("E", "1"), key("E", "2"), key("E", "new")] {
        assert_same(&k, pair.sqlite.get(&k).await, pair.dynamo.get(&k).await);
    }
}
