//! The event type catalogue (`GET /v1/event-types`): public, every kind the
//! platform raises with its schema and an example that schema accepts; and
//! the filters of webhooks and the stream refuse a kind it does not list,
//! naming it.

use std::collections::BTreeSet;

use alyt_events::EventKind;
use alyt_tests::TestPlatform;
use alyt_tests::developers::{create_key, sign_up_and_verify};
use serde_json::json;

#[tokio::test]
async fn the_catalogue_lists_every_kind_with_a_schema_its_example_meets() {
    let t = TestPlatform::start().await;
    let (status, catalogue) = t.get_json("/event-types", None).await;
    assert_eq!(status, 200, "{catalogue}");
    assert_eq!(catalogue["nextCursor"], serde_json::Value::Null);
    let items = catalogue["items"].as_array().unwrap();
    let kinds: BTreeSet<&str> = items.iter().map(|i| i["type"].as_str().unwrap()).collect();
    let all: BTreeSet<&str> = EventKind::ALL.iter().map(|k| k.as_str()).collect();
    assert_eq!(kinds, all);
    for item in items {
        let kind = item["type"].as_str().unwrap();
        assert!(
            item["description"].as_str().is_some_and(|d| d.len() > 20),
            "{kind}"
        );
        let schema = jsonschema::validator_for(&item["schema"])
            .unwrap_or_else(|e| panic!("{kind}: the schema compiles: {e}"));
        let errors: Vec<String> = schema
            .iter_errors(&item["example"])
            .map(|e| e.to_string())
            .collect();
        assert!(
            errors.is_empty(),
            "{kind}: the example fails its schema: {errors:?}"
        );
        // Another kind's example is refused: the schema says which kind.
        let other = items.iter().find(|i| i["type"] != item["type"]).unwrap();
        assert!(
            !schema.is_valid(&other["example"]),
            "{kind} accepts {}",
            other["type"]
        );
        assert!(
            !item["schema"].to_string().contains("#/components/"),
            "{kind}: the schema stands alone"
        );
    }
}

#[tokio::test]
async fn filters_naming_a_kind_the_catalogue_lacks_are_refused_naming_it() {
    let t = TestPlatform::start().await;
    let dev = sign_up_and_verify(&t, "event-types@example.com").await;
    let (_, key) = create_key(&t, &dev, &["webhooks:write", "events:read"]).await;

    let (status, problem) = t
        .post_json(
            "/developers/webhooks",
            Some(&key),
            json!({ "url": "https://receiver.example.com/hook", "events": ["device.online", "device.exploded"] }),
        )
        .await;
    assert_eq!(status, 400, "{problem}");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("device.exploded"),
        "{problem}"
    );

    let (status, problem) = t
        .get_json(
            "/developers/events/stream?events=device.exploded",
            Some(&key),
        )
        .await;
    assert_eq!(status, 400, "{problem}");
    assert_eq!(problem["field"], "events");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("device.exploded"),
        "{problem}"
    );
}
