//! The login storm: `--logins` sign-ins of one account sent at once, the
//! platform process's resident memory (VmRSS of `/proc/<pid>/status`)
//! sampled every 50 ms from before the storm until a second after its last
//! answer, then once more after `--idle-s` of quiet.
//!
//! The logins leave from `--addresses` loopback addresses in turn (127.0.0.1,
//! 127.0.0.2, ...): the failed-attempt limiter lets one account be checked
//! at most ten times at once from one address (`alyt_app::auth::attempts`),
//! so from one address ninety of a hundred would be refused before their
//! password is hashed, and the storm would not be one. Ten addresses let
//! every login be hashed. Over every address one account may be checked a
//! hundred times at once, so `--logins` above 100 are refused past that.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::json;
use tokio::sync::{Barrier, watch};

use crate::api::Api;
use crate::{Args, Result};

fn rss_kb(pid: u32) -> Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map_err(|e| format!("cannot read /proc/{pid}/status: {e}"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| format!("no VmRSS in /proc/{pid}/status"))
}

fn mb(kb: u64) -> String {
    format!("{:.1}", kb as f64 / 1024.0)
}

pub async fn run(args: &Args) -> Result<String> {
    let base = args.text("api")?;
    let addresses: u8 = args.number("addresses", 10)?;
    let apis = (1..=addresses.max(1))
        .map(|n| Api::anonymous_from(&base, Some(std::net::IpAddr::from([127, 0, 0, n]))))
        .collect::<Result<Vec<_>>>()?;
    let email = args.text("email")?;
    let password = args.text("password")?;
    let pid: u32 = args.number("pid", 0)?;
    let logins: usize = args.number("logins", 100)?;
    let idle = Duration::from_secs(args.number("idle-s", 60)?);
    let path = args.number("path", "/auth/login".to_owned())?;

    let before = rss_kb(pid)?;
    let (stop_tx, mut stop) = watch::channel(false);
    let sampler = tokio::spawn(async move {
        let mut peak = 0u64;
        let mut ticks = tokio::time::interval(Duration::from_millis(50));
        loop {
            tokio::select! {
                _ = ticks.tick() => peak = peak.max(rss_kb(pid)?),
                _ = stop.changed() => return Ok::<_, String>(peak.max(rss_kb(pid)?)),
            }
        }
    });

    let body = json!({ "email": email, "password": password });
    let barrier = Arc::new(Barrier::new(logins));
    let start = Instant::now();
    let mut tasks = Vec::with_capacity(logins);
    for n in 0..logins {
        let api = apis[n % apis.len()].clone();
        let (body, barrier, path) = (body.clone(), barrier.clone(), path.clone());
        tasks.push(tokio::spawn(async move {
            barrier.wait().await;
            let sent = Instant::now();
            let (status, answer) = api.call(Method::POST, &path, Some(&body)).await?;
            Ok::<_, String>((status, sent.elapsed(), answer))
        }));
    }
    let mut statuses: BTreeMap<u16, usize> = BTreeMap::new();
    let mut slowest = Duration::ZERO;
    let mut failures = Vec::new();
    let mut refusal = None;
    for task in tasks {
        match task
            .await
            .map_err(|e| format!("a login task failed: {e}"))?
        {
            Ok((status, took, answer)) => {
                *statuses.entry(status).or_default() += 1;
                slowest = slowest.max(took);
                if !(200..300).contains(&status) && refusal.is_none() {
                    // A problem body's type (an URN, no spaces).
                    refusal = answer["type"].as_str().map(str::to_owned);
                }
            }
            Err(e) => failures.push(e),
        }
    }
    let storm = start.elapsed();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let _ = stop_tx.send(true);
    let peak = sampler
        .await
        .map_err(|e| format!("the RSS sampler failed: {e}"))??;
    if let Some(first) = failures.first() {
        return Err(format!(
            "{} logins got no answer; the first: {first}",
            failures.len()
        ));
    }
    tokio::time::sleep(idle).await;
    let after = rss_kb(pid)?;
    let ok = statuses
        .iter()
        .filter(|(s, _)| (200..300).contains(*s))
        .map(|(_, n)| n)
        .sum::<usize>();
    let by_status = statuses
        .iter()
        .map(|(s, n)| format!("{s}:{n}"))
        .collect::<Vec<_>>()
        .join(",");
    Ok(format!(
        "peak_rss_mb={} before_rss_mb={} idle_rss_mb={} idle_s={} logins={logins} ok={ok} non2xx={} statuses={by_status} refusal={} storm_ms={} slowest_ms={}",
        mb(peak),
        mb(before),
        mb(after),
        idle.as_secs(),
        logins - ok,
        refusal.as_deref().unwrap_or("-"),
        storm.as_millis(),
        slowest.as_millis()
    ))
}
