//! The HTTP client against real servers on loopback sockets: the reference
//! bridge, and tiny axum servers that misbehave (redirects, huge or invalid
//! answers).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use alyt_connectors::bridge::{NOT_RESPONDING, PAIRING_PROMPT, UNKNOWN_THING, VirtualBridge};
use alyt_connectors::*;
use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, StatusCode, header};
use axum::routing::post;
use serde_json::{Map, Value, json};

const TOKEN: &str = "rt_test_runtime_token";
const CODE: &str = "4711-2025";

fn server(url: &str) -> ConnectorServer {
    ConnectorServer {
        base_url: url.to_owned(),
        runtime_token: TOKEN.into(),
        policy: OutboundPolicy::LOCAL,
    }
}

fn client() -> HttpConnectorClient {
    HttpConnectorClient::new().unwrap()
}

/// Serves any router on a loopback port; answers its URL.
async fn serve(router: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    url
}

fn connect_call(input: &[(&str, &str)], challenge_token: Option<&str>) -> ConnectCall {
    ConnectCall {
        integration_id: "int_1".into(),
        tenant_id: "ten_1".into(),
        input: input
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
        challenge_token: challenge_token.map(str::to_owned),
    }
}

fn integration(config: &Map<String, Value>) -> IntegrationCall {
    IntegrationCall {
        integration_id: "int_1".into(),
        tenant_id: "ten_1".into(),
        config: config.clone(),
    }
}

fn set(config: &Map<String, Value>, id: &str, payload: Value) -> CommandCall {
    CommandCall {
        integration_id: "int_1".into(),
        tenant_id: "ten_1".into(),
        config: config.clone(),
        external_id: id.into(),
        command: "set".into(),
        payload: match payload {
            Value::Object(map) => Some(map),
            _ => None,
        },
    }
}

/// Pairs with the bridge the way a household does; answers the config.
async fn pair(client: &HttpConnectorClient, server: &ConnectorServer) -> Map<String, Value> {
    let first = client
        .connect(server, &connect_call(&[("host", "192.168.1.20")], None))
        .await
        .unwrap();
    let ConnectAnswer::Challenge { token, .. } = first else {
        panic!("{first:?}")
    };
    let second = client
        .connect(
            server,
            &connect_call(&[("pairingCode", CODE)], Some(&token)),
        )
        .await
        .unwrap();
    let ConnectAnswer::Connected { config, .. } = second else {
        panic!("{second:?}")
    };
    config
}

async fn bridge() -> (VirtualBridge, alyt_connectors::bridge::RunningBridge) {
    let bridge = VirtualBridge::new(TOKEN, CODE);
    let running = bridge.serve("127.0.0.1:0").await.unwrap();
    (bridge, running)
}

fn count(bridge: &VirtualBridge, path: &str) -> usize {
    bridge.calls().get(path).copied().unwrap_or(0)
}

#[tokio::test]
async fn connect_answers_a_challenge_then_connects() {
    let (bridge, running) = bridge().await;
    let client = client();
    let server = server(running.url());

    let first = client
        .connect(&server, &connect_call(&[("host", "192.168.1.20")], None))
        .await
        .unwrap();
    let ConnectAnswer::Challenge {
        token,
        prompt,
        fields,
    } = first
    else {
        panic!("{first:?}")
    };
    assert_eq!(prompt, PAIRING_PROMPT);
    assert!(!token.is_empty());
    assert_eq!(fields.len(), 1);
    let field = &fields[0];
    assert_eq!(field.key, "pairingCode");
    assert_eq!(field.kind, ConnectFieldKind::Text);
    assert!(field.secret && field.required && !field.label.is_empty());

    let second = client
        .connect(
            &server,
            &connect_call(&[("pairingCode", CODE)], Some(&token)),
        )
        .await
        .unwrap();
    let ConnectAnswer::Connected { config, .. } = second else {
        panic!("{second:?}")
    };
    assert_eq!(config["host"], "192.168.1.20");
    let key = config["bridgeKey"].as_str().unwrap();
    assert!(key.len() >= 32, "{key}");

    // A challenge is good for one answer.
    let again = client
        .connect(
            &server,
            &connect_call(&[("pairingCode", CODE)], Some(&token)),
        )
        .await
        .unwrap();
    assert!(matches!(again, ConnectAnswer::Rejected { .. }), "{again:?}");

    // The config works for later calls; a second pairing gets another key.
    assert!(
        client
            .discover(&server, &integration(&config))
            .await
            .is_ok()
    );
    let other = pair(&client, &server).await;
    assert_ne!(other["bridgeKey"], config["bridgeKey"]);
    assert_eq!(count(&bridge, CONNECT_PATH), 5);
}

#[tokio::test]
async fn a_wrong_pairing_code_is_rejected() {
    let (_bridge, running) = bridge().await;
    let client = client();
    let server = server(running.url());
    let ConnectAnswer::Challenge { token, .. } = client
        .connect(&server, &connect_call(&[("host", "bridge.local")], None))
        .await
        .unwrap()
    else {
        panic!()
    };
    let answer = client
        .connect(
            &server,
            &connect_call(&[("pairingCode", "0000")], Some(&token)),
        )
        .await
        .unwrap();
    let ConnectAnswer::Rejected { reason } = answer else {
        panic!("{answer:?}")
    };
    assert!(reason.contains("wrong pairing code"), "{reason}");
    // The reason never repeats what was typed.
    assert!(!reason.contains("0000"));
}

#[tokio::test]
async fn a_missing_or_blank_host_is_rejected() {
    let (_bridge, running) = bridge().await;
    let client = client();
    let server = server(running.url());
    for input in [
        &[][..],
        &[("host", "   ")][..],
        &[("pairingCode", CODE)][..],
    ] {
        let answer = client
            .connect(&server, &connect_call(input, None))
            .await
            .unwrap();
        let ConnectAnswer::Rejected { reason } = answer else {
            panic!("{input:?}: {answer:?}")
        };
        assert!(reason.contains("host"), "{reason}");
    }
}

#[tokio::test]
async fn discover_answers_the_four_things_and_the_room_synonyms() {
    let (bridge, running) = bridge().await;
    let client = client();
    let server = server(running.url());
    let config = pair(&client, &server).await;

    let answer = client
        .discover(&server, &integration(&config))
        .await
        .unwrap();
    let ids: Vec<&str> = answer
        .things
        .iter()
        .map(|t| t.external_id.as_str())
        .collect();
    assert_eq!(
        ids,
        [
            "lamp-hall",
            "plug-kitchen",
            "speaker-living",
            "sensor-porch"
        ]
    );
    assert_eq!(
        answer.room_synonyms,
        BTreeMap::from([("lounge".to_owned(), "living room".to_owned())])
    );
    let wire = serde_json::to_value(&answer.things).unwrap();
    assert_eq!(
        wire[0],
        json!({
            "externalId": "lamp-hall", "kind": "LIGHT", "name": "Hall lamp",
            "room": "Hall", "address": null, "capabilitySet": ["LIGHT"],
            "capabilities": null, "features": [],
            "state": { "light": { "power": false, "brightness": 100 } }
        })
    );
    assert_eq!(wire[1]["kind"], "OTHER");
    assert_eq!(wire[1]["room"], Value::Null);
    assert_eq!(wire[1]["capabilitySet"], json!(["SWITCH", "ENERGY"]));
    assert_eq!(
        wire[1]["state"],
        json!({ "switch": { "power": false }, "energy": { "power": 0 } })
    );
    assert_eq!(wire[2]["kind"], "SPEAKER");
    assert_eq!(wire[2]["capabilitySet"], json!(["MEDIA_PLAYER"]));
    assert_eq!(
        wire[2]["capabilities"],
        json!({ "music": { "system": "local", "sourceModes": ["library", "search", "favorites"] } })
    );
    assert_eq!(wire[2]["state"]["media_player"]["volume"], 20);
    assert_eq!(wire[2]["state"]["media_player"]["playing"], false);
    assert_eq!(wire[3]["kind"], "SENSOR");
    assert_eq!(wire[3]["room"], "Garden");
    assert_eq!(wire[3]["features"], json!(["motion"]));
    assert_eq!(
        wire[3]["state"],
        json!({ "sensor.motion": { "motion": false } })
    );
    // Every capability and kind is one this build knows.
    for thing in &answer.things {
        assert!(thing.kind.is_known());
        assert!(thing.capability_set.iter().all(|c| c.is_known()));
    }

    // Things come and go.
    let mut lamp = answer.things[0].clone();
    lamp.external_id = "lamp-porch".into();
    lamp.name = "Porch lamp".into();
    bridge.add_thing(lamp);
    assert!(bridge.remove_thing("speaker-living"));
    assert!(!bridge.remove_thing("speaker-living"));
    let answer = client
        .discover(&server, &integration(&config))
        .await
        .unwrap();
    let ids: Vec<&str> = answer
        .things
        .iter()
        .map(|t| t.external_id.as_str())
        .collect();
    assert_eq!(
        ids,
        ["lamp-hall", "plug-kitchen", "sensor-porch", "lamp-porch"]
    );
}

#[tokio::test]
async fn calls_need_a_pairing_the_bridge_knows() {
    let (bridge, running) = bridge().await;
    let client = client();
    let server = server(running.url());
    let config = pair(&client, &server).await;

    let mut forged = config.clone();
    forged.insert("bridgeKey".into(), json!("bk_guess"));
    for config in [Map::new(), forged] {
        assert_eq!(
            client.discover(&server, &integration(&config)).await,
            Err(ConnectorError::Status(403))
        );
    }
    // Disconnecting forgets the pairing.
    client
        .disconnect(&server, &integration(&config))
        .await
        .unwrap();
    assert_eq!(count(&bridge, DISCONNECT_PATH), 1);
    assert_eq!(
        client.discover(&server, &integration(&config)).await,
        Err(ConnectorError::Status(403))
    );
}

#[tokio::test]
async fn read_reports_an_unreachable_and_an_unknown_thing() {
    let (bridge, running) = bridge().await;
    let client = client();
    let server = server(running.url());
    let config = pair(&client, &server).await;
    assert!(bridge.set_reachable("plug-kitchen", false));
    assert!(!bridge.set_reachable("nope", false));

    let call = ReadCall {
        integration_id: "int_1".into(),
        tenant_id: "ten_1".into(),
        config: config.clone(),
        external_ids: vec!["lamp-hall".into(), "plug-kitchen".into(), "nope".into()],
    };
    let answer = client.read(&server, &call).await.unwrap();
    assert_eq!(answer.things.len(), 3);
    assert_eq!(answer.things[0].external_id, "lamp-hall");
    assert_eq!(
        Value::Object(answer.things[0].state.clone().unwrap()),
        json!({ "light": { "power": false, "brightness": 100 } })
    );
    assert_eq!(answer.things[0].error, None);
    assert_eq!(
        answer.things[1],
        ThingRead {
            external_id: "plug-kitchen".into(),
            state: None,
            error: Some(NOT_RESPONDING.into()),
        }
    );
    assert_eq!(answer.things[2].error.as_deref(), Some(UNKNOWN_THING));

    // A physical change shows in the next read, with what follows from it.
    bridge.set_reachable("plug-kitchen", true);
    assert!(bridge.set_state("plug-kitchen", "switch", "power", json!(true)));
    let answer = client.read(&server, &call).await.unwrap();
    assert_eq!(
        Value::Object(answer.things[1].state.clone().unwrap()),
        json!({ "switch": { "power": true }, "energy": { "power": 60 } })
    );
    assert_eq!(count(&bridge, READ_PATH), 2);
}

#[tokio::test]
async fn a_command_is_applied_and_answers_the_state_read_back() {
    let (bridge, running) = bridge().await;
    let client = client();
    let server = server(running.url());
    let config = pair(&client, &server).await;

    let answer = client
        .command(
            &server,
            &set(
                &config,
                "lamp-hall",
                json!({ "capability": "light", "key": "brightness", "value": 47 }),
            ),
        )
        .await
        .unwrap();
    let CommandAnswer::Applied { state } = answer else {
        panic!("{answer:?}")
    };
    // The hardware quantises to tens: the read-back differs from the request.
    assert_eq!(
        Value::Object(state.clone()),
        json!({ "light": { "power": false, "brightness": 50 } })
    );
    assert_eq!(bridge.thing_state("lamp-hall"), Some(state));

    let answer = client
        .command(
            &server,
            &set(
                &config,
                "plug-kitchen",
                json!({ "capability": "switch", "key": "power", "value": true }),
            ),
        )
        .await
        .unwrap();
    assert_eq!(
        answer,
        CommandAnswer::Applied {
            state: serde_json::from_value(
                json!({ "switch": { "power": true }, "energy": { "power": 60 } })
            )
            .unwrap()
        }
    );

    let answer = client
        .command(
            &server,
            &set(
                &config,
                "speaker-living",
                json!({ "capability": "media_player", "key": "volume", "value": 35 }),
            ),
        )
        .await
        .unwrap();
    let CommandAnswer::Applied { state } = answer else {
        panic!("{answer:?}")
    };
    assert_eq!(state["media_player"]["volume"], 35);
}

#[tokio::test]
async fn commands_the_bridge_cannot_do_are_rejected_or_failed() {
    let (bridge, running) = bridge().await;
    let client = client();
    let server = server(running.url());
    let config = pair(&client, &server).await;
    let before = bridge.thing_state("lamp-hall");

    let rejected = [
        // An unknown key, a capability the thing lacks, a readout.
        json!({ "capability": "light", "key": "sparkle", "value": true }),
        json!({ "capability": "switch", "key": "power", "value": true }),
        json!({ "capability": "nope", "key": "power", "value": true }),
        json!({ "capability": "light", "key": "brightness", "value": 101 }),
        json!({ "capability": "light", "key": "power", "value": "on" }),
        json!({ "capability": "light", "key": "power" }),
    ];
    for payload in rejected {
        let answer = client
            .command(&server, &set(&config, "lamp-hall", payload.clone()))
            .await
            .unwrap();
        assert!(
            matches!(answer, CommandAnswer::Rejected { .. }),
            "{payload}: {answer:?}"
        );
    }
    let answer = client
        .command(
            &server,
            &set(
                &config,
                "plug-kitchen",
                json!({ "capability": "energy", "key": "power", "value": 5 }),
            ),
        )
        .await
        .unwrap();
    assert!(
        matches!(answer, CommandAnswer::Rejected { .. }),
        "{answer:?}"
    );

    let mut toggle = set(&config, "lamp-hall", json!({}));
    toggle.command = "toggle".into();
    assert_eq!(
        client.command(&server, &toggle).await.unwrap(),
        CommandAnswer::Rejected {
            reason: "unsupported command".into()
        }
    );

    let power = json!({ "capability": "light", "key": "power", "value": true });
    assert_eq!(
        client
            .command(&server, &set(&config, "lamp-gone", power.clone()))
            .await
            .unwrap(),
        CommandAnswer::Failed {
            reason: UNKNOWN_THING.into()
        }
    );
    bridge.set_reachable("lamp-hall", false);
    assert_eq!(
        client
            .command(&server, &set(&config, "lamp-hall", power))
            .await
            .unwrap(),
        CommandAnswer::Failed {
            reason: NOT_RESPONDING.into()
        }
    );
    // Nothing changed.
    assert_eq!(bridge.thing_state("lamp-hall"), before);
}

#[tokio::test]
async fn a_wrong_runtime_token_is_status_401() {
    let (bridge, running) = bridge().await;
    let client = client();
    let mut server = server(running.url());
    server.runtime_token = "rt_wrong".into();
    assert_eq!(
        client
            .connect(&server, &connect_call(&[("host", "h")], None))
            .await,
        Err(ConnectorError::Status(401))
    );
    assert_eq!(count(&bridge, CONNECT_PATH), 1);
}

#[tokio::test]
async fn the_hosted_policy_refuses_loopback_and_nothing_is_sent() {
    let (bridge, running) = bridge().await;
    let client = client();
    let port = running.addr().port();
    let call = connect_call(&[("host", "h")], None);
    let policies_and_urls = [
        (OutboundPolicy::HOSTED, format!("http://127.0.0.1:{port}")),
        (OutboundPolicy::HOSTED, format!("https://127.0.0.1:{port}/")),
        (OutboundPolicy::HOSTED, format!("https://[::1]:{port}/")),
        // A name that resolves to loopback is refused by the resolver, at
        // connect time.
        (
            OutboundPolicy {
                require_https: false,
                allow_private_networks: false,
            },
            format!("http://localhost:{port}/"),
        ),
    ];
    for (policy, url) in policies_and_urls {
        let server = ConnectorServer {
            base_url: url.clone(),
            runtime_token: TOKEN.into(),
            policy,
        };
        let refused = client.connect(&server, &call).await;
        let Err(ConnectorError::Refused(reason)) = &refused else {
            panic!("{url}: {refused:?}")
        };
        assert!(!reason.contains(TOKEN), "{reason}");
    }
    assert!(bridge.calls().is_empty(), "{:?}", bridge.calls());
    // The same server is reached under the local policy.
    assert!(client.connect(&server(running.url()), &call).await.is_ok());
}

#[tokio::test]
async fn a_redirect_is_a_status_and_is_not_followed() {
    let (bridge, running) = bridge().await;
    let target = format!("{}/v1/connect", running.url());
    let redirecting = serve(Router::new().route(
        "/v1/connect",
        post(move || async move { (StatusCode::TEMPORARY_REDIRECT, [(header::LOCATION, target)]) }),
    ))
    .await;
    let answer = client()
        .connect(&server(&redirecting), &connect_call(&[("host", "h")], None))
        .await;
    assert_eq!(answer, Err(ConnectorError::Status(307)));
    assert!(bridge.calls().is_empty());
}

#[tokio::test]
async fn an_answer_over_the_limit_is_invalid() {
    let big = " ".repeat(MAX_ANSWER_BYTES) + "{\"things\": []}";
    // At the limit exactly, the answer is read.
    let fits = " ".repeat(MAX_ANSWER_BYTES - 14) + "{\"things\": []}";
    assert_eq!(fits.len(), MAX_ANSWER_BYTES);
    let chunk = bytes::Bytes::from(vec![b' '; 64 * 1024]);
    let url = serve(
        Router::new()
            // With a Content-Length: refused before reading.
            .route("/sized/v1/read", post(move || async move { big }))
            .route("/fits/v1/read", post(move || async move { fits }))
            // Chunked, with no length, and no end: reading stops at the limit.
            .route(
                "/endless/v1/read",
                post(move || async move {
                    Body::from_stream(futures_util::stream::repeat_with(move || {
                        Ok::<_, std::io::Error>(chunk.clone())
                    }))
                }),
            ),
    )
    .await;
    let client = client().with_timeout(Duration::from_secs(5));
    let call = ReadCall {
        integration_id: "int_1".into(),
        tenant_id: "ten_1".into(),
        config: Map::new(),
        external_ids: vec![],
    };
    for prefix in ["sized", "endless"] {
        let answer = client
            .read(&server(&format!("{url}/{prefix}/")), &call)
            .await;
        let Err(ConnectorError::InvalidAnswer(reason)) = &answer else {
            panic!("{prefix}: {answer:?}")
        };
        assert!(reason.contains("larger than"), "{reason}");
    }
    let answer = client
        .read(&server(&format!("{url}/fits")), &call)
        .await
        .unwrap();
    assert!(answer.things.is_empty());
}

#[tokio::test]
async fn an_answer_that_is_not_the_protocol_is_invalid() {
    let url = serve(
        Router::new()
            .route("/v1/read", post(|| async { "<html>hello</html>" }))
            .route(
                "/v1/command",
                post(|| async { axum::Json(json!({ "status": "exploded" })) }),
            ),
    )
    .await;
    let client = client();
    let server = server(&url);
    let read = ReadCall {
        integration_id: "i".into(),
        tenant_id: "t".into(),
        config: Map::new(),
        external_ids: vec![],
    };
    assert!(matches!(
        client.read(&server, &read).await,
        Err(ConnectorError::InvalidAnswer(_))
    ));
    assert!(matches!(
        client
            .command(&server, &set(&Map::new(), "x", json!({})))
            .await,
        Err(ConnectorError::InvalidAnswer(_))
    ));
}

#[tokio::test]
async fn a_slow_server_is_unreachable_after_the_timeout() {
    let (bridge, running) = bridge().await;
    bridge.set_slow(Duration::from_secs(5));
    let client = client().with_timeout(Duration::from_millis(800));
    let started = Instant::now();
    let answer = client
        .connect(
            &server(running.url()),
            &connect_call(&[("host", "h")], None),
        )
        .await;
    let took = started.elapsed();
    let Err(ConnectorError::Unreachable(reason)) = &answer else {
        panic!("{answer:?}")
    };
    assert!(reason.contains("no answer within 800 ms"), "{reason}");
    assert!(
        took >= Duration::from_millis(700) && took < Duration::from_secs(3),
        "{took:?}"
    );
    assert_eq!(client.timeout, Duration::from_millis(800));
    assert_eq!(
        HttpConnectorClient::new().unwrap().timeout,
        Duration::from_secs(10)
    );
}

#[tokio::test]
async fn a_closed_port_is_unreachable() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let answer = client()
        .connect(&server(&url), &connect_call(&[("host", "h")], None))
        .await;
    let Err(ConnectorError::Unreachable(reason)) = &answer else {
        panic!("{answer:?}")
    };
    assert!(!reason.contains("127.0.0.1"), "{reason}");
}

#[tokio::test]
async fn calls_carry_the_token_the_agent_and_json_and_disconnect_takes_any_2xx() {
    let seen: Arc<Mutex<Vec<(String, HeaderMap, Value)>>> = Arc::default();
    let record = |seen: Arc<Mutex<Vec<(String, HeaderMap, Value)>>>, path: &'static str| {
        post(
            move |headers: HeaderMap, body: axum::body::Bytes| async move {
                let body = serde_json::from_slice(&body).unwrap();
                seen.lock().unwrap().push((path.to_owned(), headers, body));
                StatusCode::NO_CONTENT
            },
        )
    };
    let url = serve(
        Router::new()
            .route("/alyt/v1/disconnect", record(seen.clone(), DISCONNECT_PATH))
            .route("/alyt/v1/connect", record(seen.clone(), CONNECT_PATH)),
    )
    .await;
    let mut config = Map::new();
    config.insert("bridgeKey".into(), json!("bk_1"));
    let client = client();
    for base in [format!("{url}/alyt"), format!("{url}/alyt/")] {
        client
            .disconnect(&server(&base), &integration(&config))
            .await
            .unwrap();
    }
    // An empty 2xx is not a connect answer.
    assert!(matches!(
        client
            .connect(&server(&format!("{url}/alyt")), &connect_call(&[], None))
            .await,
        Err(ConnectorError::InvalidAnswer(_))
    ));
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 3);
    let (path, headers, body) = &seen[0];
    assert_eq!(path, DISCONNECT_PATH);
    assert_eq!(
        headers[header::AUTHORIZATION],
        format!("Bearer {TOKEN}").as_str()
    );
    assert_eq!(headers[header::USER_AGENT], "Alyt-Connectors/1");
    assert_eq!(headers[header::CONTENT_TYPE], "application/json");
    assert_eq!(
        body,
        &json!({ "integrationId": "int_1", "tenantId": "ten_1", "config": { "bridgeKey": "bk_1" } })
    );
    assert_eq!(seen[2].0, CONNECT_PATH);
}

#[tokio::test]
async fn the_bridge_serves_under_a_path_prefix() {
    let bridge = VirtualBridge::new(TOKEN, CODE);
    let url = serve(Router::new().nest("/bridge", bridge.router())).await;
    let client = client();
    for base in [format!("{url}/bridge"), format!("{url}/bridge/")] {
        let config = pair(&client, &server(&base)).await;
        let answer = client
            .discover(&server(&base), &integration(&config))
            .await
            .unwrap();
        assert_eq!(answer.things.len(), 4);
    }
    assert_eq!(count(&bridge, DISCOVER_PATH), 2);
}
