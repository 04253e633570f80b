//! M3: device telemetry published over MQTT to its `device.telemetry` event
//! on the developer event stream. The devices are registered for the run in
//! the sandbox tenant (so the virtual devices' own traffic is told apart by
//! device id) and each message carries its sequence number as the metric
//! `bench_seq`.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::mpsc;

use crate::api::{Api, Device, host_port};
use crate::mqtt::{self, Connection, reading};
use crate::sse::{self, StreamEvent};
use crate::stats::Samples;
use crate::{Args, Result, first_match};

/// The device id and sequence number of a telemetry event of the benchmark
/// (its envelope, as the stream and webhooks carry it).
pub fn bench_reading(envelope: &Value) -> Option<(&str, u64)> {
    let data = &envelope["data"];
    Some((
        data["deviceId"].as_str()?,
        data["metrics"]["bench_seq"].as_f64()? as u64,
    ))
}

/// Waits for the event of `device`'s reading `seq` until `deadline`;
/// `None` when it did not come by then.
pub async fn wait_for_reading(
    stream: &mut mpsc::UnboundedReceiver<StreamEvent>,
    device: &str,
    seq: u64,
    deadline: Instant,
) -> Result<Option<Instant>> {
    let found = first_match(stream, deadline, "the event stream", |event| {
        event.kind == "device.telemetry" && bench_reading(&event.data) == Some((device, seq))
    })
    .await?;
    Ok(found.map(|event| event.at))
}

pub async fn connect_device(
    host: &str,
    port: u16,
    device: &Device,
    inflight: u16,
) -> Result<Connection> {
    mqtt::connect(
        host,
        port,
        &device.username,
        Some((&device.username, &device.password)),
        inflight,
    )
    .await
}

/// Publishes reading 0 and waits for its event (the device's first message
/// also brings it online), at most 15 s.
async fn warm_up(
    conn: &mut Connection,
    device: &Device,
    stream: &mut mpsc::UnboundedReceiver<StreamEvent>,
) -> Result<()> {
    conn.publish(&format!("{}/telemetry", device.prefix), reading(0))
        .await?;
    let deadline = Instant::now() + Duration::from_secs(15);
    if wait_for_reading(stream, &device.id, 0, deadline)
        .await?
        .is_none()
    {
        return Err(format!(
            "the first reading of device {} did not reach the stream within 15 s",
            device.id
        ));
    }
    conn.next_ack(Duration::from_secs(5)).await?;
    Ok(())
}

/// `latency`: paced samples, one at a time: from the publish call to the
/// event's arrival on the stream.
pub async fn latency(args: &Args) -> Result<String> {
    let api = Api::from_args(args)?;
    let tenant = args.text("tenant")?;
    let (host, port) = host_port(args, "mqtt")?;
    let samples: u64 = args.number("samples", 200)?;
    let interval = Duration::from_millis(args.number("interval-ms", 50)?);
    let wait = Duration::from_millis(args.number("sample-timeout-ms", 5000)?);

    let device = api.register_sensors(&tenant, "lat", 1).await?.remove(0);
    let mut conn = connect_device(&host, port, &device, 10).await?;
    let mut stream = sse::open(&api, "device.telemetry").await?;
    warm_up(&mut conn, &device, &mut stream).await?;

    let topic = format!("{}/telemetry", device.prefix);
    let mut latencies = Samples::default();
    let mut lost = 0u64;
    for seq in 1..=samples {
        let start = Instant::now();
        conn.publish(&topic, reading(seq)).await?;
        match wait_for_reading(&mut stream, &device.id, seq, start + wait).await? {
            Some(at) => latencies.push(at - start),
            None => lost += 1,
        }
        while conn.acks.try_recv().is_ok() {}
        tokio::time::sleep_until((start + interval).into()).await;
    }
    if latencies.len() == 0 {
        return Err(format!(
            "none of {samples} readings reached the stream within {} ms each",
            wait.as_millis()
        ));
    }
    Ok(format!("{} lost={lost}", latencies.summary("")))
}

/// `throughput`: every device publishes its share of `--messages` at QoS 1
/// as fast as the client's 100 in-flight messages allow; the stream's
/// events of these devices are counted (each reading once) until all came
/// or `--window-s` after the first publish.
pub async fn throughput(args: &Args) -> Result<String> {
    let api = Api::from_args(args)?;
    let tenant = args.text("tenant")?;
    let (host, port) = host_port(args, "mqtt")?;
    let count: usize = args.number("devices", 4)?;
    let messages: u64 = args.number("messages", 10_000)?;
    let window = Duration::from_secs(args.number("window-s", 60)?);
    if count == 0 || messages < count as u64 {
        return Err("--messages must be at least --devices, and --devices at least 1".into());
    }

    let devices = api.register_sensors(&tenant, "tput", count).await?;
    let mut stream = sse::open(&api, "device.telemetry").await?;
    let mut conns = Vec::with_capacity(count);
    for device in &devices {
        let mut conn = connect_device(&host, port, device, 100).await?;
        warm_up(&mut conn, device, &mut stream).await?;
        conns.push(conn);
    }
    let index: HashMap<&str, usize> = devices
        .iter()
        .enumerate()
        .map(|(i, d)| (d.id.as_str(), i))
        .collect();

    let start = Instant::now();
    let mut publishers = Vec::new();
    for (i, (device, mut conn)) in devices.iter().zip(conns).enumerate() {
        let share = messages / count as u64 + u64::from((i as u64) < messages % count as u64);
        let topic = format!("{}/telemetry", device.prefix);
        publishers.push(tokio::spawn(async move {
            for seq in 1..=share {
                conn.publish(&topic, reading(seq)).await?;
            }
            for _ in 0..share {
                conn.next_ack(Duration::from_secs(30)).await?;
            }
            Ok::<_, String>((share, Instant::now(), conn))
        }));
    }

    let mut seen: HashSet<(usize, u64)> = HashSet::new();
    let mut duplicates = 0u64;
    let mut last = start;
    let deadline = start + window;
    while (seen.len() as u64) < messages {
        let left = deadline.saturating_duration_since(Instant::now());
        let event = match tokio::time::timeout(left, stream.recv()).await {
            Err(_) => break,
            Ok(None) => return Err("the event stream ended".to_owned()),
            Ok(Some(event)) => event,
        };
        let Some((device, seq)) = bench_reading(&event.data) else {
            continue;
        };
        let Some(&i) = index.get(device) else {
            continue;
        };
        if seq == 0 {
            continue;
        }
        if seen.insert((i, seq)) {
            last = event.at;
        } else {
            duplicates += 1;
        }
    }

    let mut acked = 0u64;
    let mut published_at = start;
    for publisher in publishers {
        let (n, at, _conn) = publisher
            .await
            .map_err(|e| format!("a publisher failed: {e}"))??;
        acked += n;
        published_at = published_at.max(at);
    }
    let received = seen.len() as u64;
    let seconds = (last - start).as_secs_f64();
    let rate = if seconds > 0.0 {
        received as f64 / seconds
    } else {
        0.0
    };
    let publish_seconds = (published_at - start).as_secs_f64().max(1e-9);
    Ok(format!(
        "msg_per_s={rate:.0} sent={messages} acked={acked} received={received} dropped={} duplicates={duplicates} seconds={seconds:.2} publish_msg_per_s={:.0} devices={count} window_s={}",
        messages - received,
        acked as f64 / publish_seconds,
        window.as_secs()
    ))
}
