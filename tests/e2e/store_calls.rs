//! Store calls per operation (measure M8), read from the local platform's
//! `x-alyt-store-calls` header (`Config::report_store_calls`: every store call
//! made while a request is served, by operation). The costs the hosted cost
//! rests on are pinned here so they cannot grow unnoticed: a room view, a
//! command accept, and a keyed read that writes nothing. A household session's
//! authentication is one get (its session) of each count.
//!
//! The goals are a room view in at most 3 calls and a command accept in at most
//! 2 plus the publish (beyond authentication): the room view takes 3, the
//! accept 2 (the device, which names its household, and the row written once,
//! already `sent`, before the publish).

use std::collections::BTreeMap;

use alyt_tests::TestPlatform;
use alyt_tests::developers::{create_key, sign_up_and_verify};
use serde_json::{Value, json};

use crate::device_plane::owner_token;
use crate::rooms::{create_room_id, demo_home, play, register};

/// Sends a request and returns its status, body and store calls.
async fn counted(
    t: &TestPlatform,
    method: reqwest::Method,
    path: &str,
    token: &str,
    body: Option<Value>,
) -> (u16, Value, BTreeMap<String, usize>) {
    let mut request = t
        .http
        .request(method, t.url(path))
        .header("authorization", format!("Bearer {token}"));
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let calls = response
        .headers()
        .get("x-alyt-store-calls")
        .expect("the platform reports store calls")
        .to_str()
        .unwrap()
        .split(',')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let (op, n) = part.split_once('=').unwrap();
            (op.to_owned(), n.parse().unwrap())
        })
        .collect();
    let body = response.json().await.unwrap_or(Value::Null);
    (status, body, calls)
}

fn writes(calls: &BTreeMap<String, usize>) -> usize {
    ["put", "update", "delete", "transact"]
        .iter()
        .map(|op| calls.get(*op).copied().unwrap_or(0))
        .sum()
}

async fn platform() -> TestPlatform {
    TestPlatform::start_with_config(|config| {
        config.report_store_calls = true;
        config.simulator.enabled = false;
    })
    .await
}

#[tokio::test]
async fn a_room_view_and_a_command_accept_stay_within_their_store_budgets() {
    let t = platform().await;
    let token = owner_token(&t).await;
    let home = demo_home(&t);
    let room = create_room_id(&t, &token, &home, "Kitchen").await;
    let light = register(
        &t,
        &token,
        &home,
        Some(&room),
        "Ceiling",
        "OTHER",
        &["LIGHT"],
        json!({}),
    )
    .await;
    register(
        &t,
        &token,
        &home,
        Some(&room),
        "Blind",
        "OTHER",
        &["COVER"],
        json!({}),
    )
    .await;
    let _device = play(&t, &light).await;

    let (status, view, calls) = counted(
        &t,
        reqwest::Method::GET,
        &format!("/rooms/{room}?tenantId={}", home.tenant),
        &token,
        None,
    )
    .await;
    assert_eq!(status, 200, "{view}");
    let room_view = calls;

    let (status, row, calls) = counted(
        &t,
        reqwest::Method::POST,
        &format!(
            "/devices/{}/commands?tenantId={}",
            light.device, light.tenant
        ),
        &token,
        Some(json!({ "command": "set",
                     "payload": { "capability": "light", "key": "power", "value": true } })),
    )
    .await;
    assert_eq!(status, 202, "{row}");
    assert_eq!(row["state"], "sent", "{row}");
    let accept = calls;
    // Session; then the room ref, the home's things (one query), and the
    // room, the home and the things' states in one batch.
    assert_eq!(
        room_view,
        BTreeMap::from([
            ("batch_get".to_owned(), 1),
            ("get".to_owned(), 2),
            ("query".to_owned(), 1)
        ]),
        "a room view (accept: {accept:?})"
    );
    // Session, device; the row.
    assert_eq!(
        accept,
        BTreeMap::from([("get".to_owned(), 2), ("put".to_owned(), 1)]),
        "a command accept, besides the publish"
    );
}

#[tokio::test]
async fn a_keyed_read_writes_nothing() {
    let t = platform().await;
    let dev = sign_up_and_verify(&t, "calls@example.com").await;
    let (_, secret) = create_key(&t, &dev, &["devices:read"]).await;
    let path = format!("/devices?tenantId={}", dev.sandbox_tenant_id);
    // The first read of this process also reads the quota and the counters.
    let (status, body, _) = counted(&t, reqwest::Method::GET, &path, &secret, None).await;
    assert_eq!(status, 200, "{body}");
    for _ in 0..3 {
        let (status, body, calls) = counted(&t, reqwest::Method::GET, &path, &secret, None).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(writes(&calls), 0, "a keyed read: {calls:?}");
    }
}
