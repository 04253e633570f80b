//! M4, a command's round trip to a virtual device of the sandbox, and M5b,
//! an event to the first webhook POST at a receiver on loopback.

use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use reqwest::Method;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::api::{Api, host_port};
use crate::ingest::{bench_reading, connect_device};
use crate::mqtt::reading;
use crate::stats::Samples;
use crate::{Args, Result, first_match, sse};

/// `command`: `POST /devices/{light}/commands` (`set` brightness, a new
/// value each time) to the `command.result` event of that command id on
/// the stream, one command at a time. The light is the sandbox's virtual
/// light (the first device with the LIGHT capability).
pub async fn command(args: &Args) -> Result<String> {
    let api = Api::from_args(args)?;
    let tenant = args.text("tenant")?;
    let samples: u64 = args.number("samples", 100)?;
    let wait = Duration::from_millis(args.number("sample-timeout-ms", 5000)?);

    let devices = api
        .expect(
            Method::GET,
            &format!("/devices?tenantId={tenant}&limit=200"),
            None,
            200,
        )
        .await?;
    let light = devices["items"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|d| {
            d["capabilities"]
                .as_array()
                .is_some_and(|c| c.iter().any(|c| c == "LIGHT"))
        })
        .and_then(|d| d["id"].as_str())
        .ok_or_else(|| format!("the sandbox {tenant} has no light: {devices}"))?
        .to_owned();
    let mut stream = sse::open(&api, "command.result").await?;
    let path = format!("/devices/{light}/commands?tenantId={tenant}");

    let mut round_trips = Samples::default();
    let mut posts = Samples::default();
    let mut lost = 0u64;
    // Sample 0 warms up (the first command also finds the light online).
    for i in 0..=samples {
        let body = json!({ "command": "set",
            "payload": { "capability": "light", "key": "brightness", "value": 1 + i % 100 } });
        let start = Instant::now();
        let row = api.expect(Method::POST, &path, Some(&body), 202).await?;
        let posted = Instant::now();
        let id = row["commandId"]
            .as_str()
            .ok_or_else(|| format!("no commandId in {row}"))?
            .to_owned();
        let within = if i == 0 {
            Duration::from_secs(15)
        } else {
            wait
        };
        let found = first_match(&mut stream, start + within, "the event stream", |e| {
            e.kind == "command.result"
                && e.data["data"]["deviceId"] == light.as_str()
                && e.data["data"]["commandId"] == id.as_str()
        })
        .await?;
        match (i, found) {
            (0, None) => {
                return Err(format!(
                    "the first command ({row}) had no command.result within 15 s"
                ));
            }
            (0, Some(_)) => {}
            (_, Some(event)) => {
                round_trips.push(event.at - start);
                posts.push(posted - start);
            }
            (_, None) => lost += 1,
        }
    }
    Ok(format!(
        "{} lost={lost} {}",
        round_trips.summary(""),
        posts.summary("post_")
    ))
}

type Hooks = mpsc::UnboundedSender<(Instant, Value)>;

async fn hook(State(hooks): State<Hooks>, body: Bytes) -> StatusCode {
    let at = Instant::now();
    let envelope = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let _ = hooks.send((at, envelope));
    StatusCode::OK
}

/// A webhook receiver on 127.0.0.1: its URL and every POST with the
/// instant its handler ran (the body read).
async fn receiver() -> Result<(String, mpsc::UnboundedReceiver<(Instant, Value)>)> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| format!("the webhook receiver cannot listen: {e}"))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("the webhook receiver: {e}"))?;
    let (tx, rx) = mpsc::unbounded_channel();
    let app = axum::Router::new()
        .route("/hook", axum::routing::post(hook))
        .with_state(tx);
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok((format!("http://{addr}/hook"), rx))
}

/// `webhook`: an endpoint of the sandbox for `device.telemetry` at a
/// receiver on loopback. Telemetry: from a device's publish call to the
/// POST carrying its event. Ping: from `POST /developers/webhooks/{id}/test`
/// (which records a `webhook.ping` event) to the POST carrying it. The
/// endpoint is deleted at the end.
pub async fn webhook(args: &Args) -> Result<String> {
    let api = Api::from_args(args)?;
    let tenant = args.text("tenant")?;
    let (host, port) = host_port(args, "mqtt")?;
    let samples: u64 = args.number("samples", 50)?;
    let wait = Duration::from_millis(args.number("sample-timeout-ms", 10_000)?);
    let gap = Duration::from_millis(args.number("interval-ms", 50)?);

    let (url, mut posts) = receiver().await?;
    let endpoint = api
        .expect(
            Method::POST,
            "/developers/webhooks",
            Some(&json!({ "url": url, "events": ["device.telemetry"], "description": "bench-drive" })),
            201,
        )
        .await?;
    let endpoint = endpoint["id"]
        .as_str()
        .ok_or_else(|| format!("no endpoint id in {endpoint}"))?
        .to_owned();
    let outcome = measure_webhooks(
        &api,
        &tenant,
        (&host, port),
        &endpoint,
        samples,
        wait,
        gap,
        &mut posts,
    )
    .await;
    // Deleted also after a failure, so the platform does not retry into a
    // receiver that is gone.
    let deleted = api
        .call(
            Method::DELETE,
            &format!("/developers/webhooks/{endpoint}"),
            None,
        )
        .await;
    let line = outcome?;
    match deleted? {
        (status, _) if (200..300).contains(&status) => Ok(line),
        (status, body) => Err(format!(
            "DELETE /developers/webhooks/{endpoint} answered {status}: {body}"
        )),
    }
}

#[allow(clippy::too_many_arguments)]
async fn measure_webhooks(
    api: &Api,
    tenant: &str,
    (host, port): (&str, u16),
    endpoint: &str,
    samples: u64,
    wait: Duration,
    gap: Duration,
    posts: &mut mpsc::UnboundedReceiver<(Instant, Value)>,
) -> Result<String> {
    let device = api.register_sensors(tenant, "hook", 1).await?.remove(0);
    let conn = connect_device(host, port, &device, 10).await?;
    let topic = format!("{}/telemetry", device.prefix);

    let mut telemetry = Samples::default();
    let mut lost = 0u64;
    for seq in 0..=samples {
        let start = Instant::now();
        conn.publish(&topic, reading(seq)).await?;
        let within = if seq == 0 {
            Duration::from_secs(15)
        } else {
            wait
        };
        let found = first_match(
            posts,
            start + within,
            "the webhook receiver",
            |(_, envelope)| bench_reading(envelope) == Some((device.id.as_str(), seq)),
        )
        .await?;
        match (seq, found) {
            (0, None) => {
                return Err(format!(
                    "the first reading of device {} was not POSTed within 15 s",
                    device.id
                ));
            }
            (0, Some(_)) => {}
            (_, Some((at, _))) => telemetry.push(at - start),
            (_, None) => lost += 1,
        }
        tokio::time::sleep_until((start + gap).into()).await;
    }

    let mut pings = Samples::default();
    let mut ping_lost = 0u64;
    let test = format!("/developers/webhooks/{endpoint}/test");
    for _ in 0..samples {
        let start = Instant::now();
        let answer = api
            .expect(Method::POST, &test, Some(&json!({})), 202)
            .await?;
        let event = answer["eventId"]
            .as_str()
            .ok_or_else(|| format!("no eventId in {answer}"))?
            .to_owned();
        let found = first_match(
            posts,
            start + wait,
            "the webhook receiver",
            |(_, envelope)| envelope["id"] == event.as_str(),
        )
        .await?;
        match found {
            Some((at, _)) => pings.push(at - start),
            None => ping_lost += 1,
        }
        tokio::time::sleep_until((start + gap).into()).await;
    }
    drop(conn);
    Ok(format!(
        "{} lost={lost} {} ping_lost={ping_lost}",
        telemetry.summary(""),
        pings.summary("ping_")
    ))
}
