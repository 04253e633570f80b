//! Messages that can never be stored, published by a real MQTT client to the
//! embedded broker: each is dropped and counted once, never retried, and the
//! pipeline goes on with the next message.

use std::collections::BTreeMap;
use std::time::Duration;

use rumqttc::QoS;
use serde_json::{Map, Value, json};

use crate::device_plane::{connect, owner_token, register_light};

#[tokio::test]
async fn a_message_that_can_never_be_stored_is_dropped_and_counted_and_the_next_is_stored() {
    let t = alyt_tests::TestPlatform::start().await;
    let token = owner_token(&t).await;
    let d = register_light(&t, &token).await;
    let (client, _driver) = connect(&t, &d).await;

    let hundred: Map<String, Value> = (0..100).map(|n| (format!("m{n}"), json!(n))).collect();
    for payload in [
        // More readings than one message may carry: refused by the schema.
        json!({ "metrics": hundred }).to_string(),
        // Valid on the channel, but no store holds a number this large.
        r#"{"metric":"energy","value":1e300,"payload":null}"#.to_owned(),
        r#"{"metrics":{"watts":6.5}}"#.to_owned(),
    ] {
        client
            .publish(
                format!("{}/telemetry", d.prefix),
                QoS::AtLeastOnce,
                false,
                payload,
            )
            .await
            .unwrap();
    }

    // One client's messages are ingested in order: once the good one is
    // stored, the two before it have been dealt with.
    let series = |metric: &str| {
        format!(
            "/devices/{}/telemetry?tenantId={}&metric={metric}",
            d.device, d.tenant
        )
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let watts = loop {
        let (status, body) = t.get_json(&series("watts"), Some(&token)).await;
        assert_eq!(status, 200, "{body}");
        if !body["items"].as_array().unwrap().is_empty() {
            break body;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the good reading never arrived"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(watts["items"][0]["value"], 6.5);
    for dropped in ["m0", "m99", "energy"] {
        let (status, body) = t.get_json(&series(dropped), Some(&token)).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["items"], json!([]), "{dropped}");
    }
    assert_eq!(
        t.platform.ingest_stats().rejected(),
        BTreeMap::from([("bad_length", 1), ("unstorable", 1)])
    );
}
