//! M2: the embedded broker against a peer broker (Mosquitto, started by
//! bench/run): the same paced QoS 1 load from the same client code, the
//! latency of each publish to its PUBACK. On the platform the devices are
//! registered for the run and log in with their credentials on their own
//! telemetry topics (so each message is also ingested); the peer broker
//! gets the same topics and payloads, anonymously. The peer runs first.

use std::time::{Duration, Instant};

use crate::api::{Api, Device, host_port};
use crate::mqtt::{self, reading};
use crate::stats::Samples;
use crate::{Args, Result};

struct Load {
    devices_rate: u64,
    seconds: u64,
}

pub async fn run(args: &Args) -> Result<String> {
    let api = Api::from_args(args)?;
    let tenant = args.text("tenant")?;
    let platform = host_port(args, "mqtt")?;
    let baseline = host_port(args, "baseline")?;
    let count: usize = args.number("devices", 20)?;
    let load = Load {
        devices_rate: args.number("rate", 20)?,
        seconds: args.number("seconds", 10)?,
    };
    if load.devices_rate == 0 || count == 0 {
        return Err("--rate and --devices must be at least 1".into());
    }

    let devices = api.register_sensors(&tenant, "m2", count).await?;
    let (base, base_lost) = paced(&devices, &baseline, false, &load)
        .await
        .map_err(|e| format!("against the peer broker: {e}"))?;
    let (ours, lost) = paced(&devices, &platform, true, &load)
        .await
        .map_err(|e| format!("against the platform's broker: {e}"))?;
    let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}", a / b),
        _ => "-".to_owned(),
    };
    Ok(format!(
        "{} lost={lost} {} base_lost={base_lost} p99_ratio={} max_ratio={} devices={count} rate={} seconds={}",
        ours.summary(""),
        base.summary("base_"),
        ratio(ours.percentile(0.99), base.percentile(0.99)),
        ratio(ours.max(), base.max()),
        load.devices_rate,
        load.seconds
    ))
}

/// Each device publishes `rate` messages a second for `seconds`, the
/// devices' ticks spread evenly over the period; answers every PUBACK's
/// latency and the publishes without one 5 s after the last.
async fn paced(
    devices: &[Device],
    (host, port): &(String, u16),
    with_credentials: bool,
    load: &Load,
) -> Result<(Samples, u64)> {
    let mut conns = Vec::with_capacity(devices.len());
    for device in devices {
        let credentials =
            with_credentials.then_some((device.username.as_str(), device.password.as_str()));
        let mut conn = mqtt::connect(host, *port, &device.username, credentials, 10).await?;
        // One message first (not measured): on the platform it brings the
        // device online.
        conn.publish(&format!("{}/telemetry", device.prefix), reading(0))
            .await?;
        conn.next_ack(Duration::from_secs(5)).await?;
        conns.push(conn);
    }
    let period = Duration::from_secs(1) / load.devices_rate as u32;
    let total = load.devices_rate * load.seconds;
    let start = Instant::now() + Duration::from_millis(100);
    let mut tasks = Vec::new();
    for (k, (device, mut conn)) in devices.iter().zip(conns).enumerate() {
        let topic = format!("{}/telemetry", device.prefix);
        let offset = period * k as u32 / devices.len() as u32;
        tasks.push(tokio::spawn(async move {
            let mut next = start + offset;
            for seq in 1..=total {
                tokio::time::sleep_until(next.into()).await;
                conn.publish(&topic, reading(seq)).await?;
                next += period;
            }
            let deadline = Instant::now() + Duration::from_secs(5);
            let mut samples = Samples::default();
            while (samples.len() as u64) < total {
                let left = deadline.saturating_duration_since(Instant::now());
                match tokio::time::timeout(left, conn.acks.recv()).await {
                    Ok(Some(ack)) => samples.push(ack.latency),
                    Ok(None) => return Err(conn.why_lost()),
                    Err(_) => break,
                }
            }
            Ok::<_, String>(samples)
        }));
    }
    let mut all = Samples::default();
    let mut lost = 0;
    for task in tasks {
        let samples = task
            .await
            .map_err(|e| format!("a device task failed: {e}"))??;
        lost += total - samples.len() as u64;
        all.extend(&samples);
    }
    Ok((all, lost))
}
