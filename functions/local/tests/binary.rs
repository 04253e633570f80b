//! The `alyt` binary as a newcomer runs it: configured by environment, prints
//! where everything is, serves, stops cleanly on Ctrl-C (SIGINT) and starts
//! again on the same data.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn start(data_dir: &std::path::Path) -> (Child, String, std::sync::mpsc::Receiver<String>) {
    start_with_env(data_dir, &[])
}

fn start_with_env(
    data_dir: &std::path::Path,
    env: &[(&str, &str)],
) -> (Child, String, std::sync::mpsc::Receiver<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_alyt"))
        .envs(env.iter().copied())
        .env("ALYT_HTTP_ADDR", "127.0.0.1:0")
        .env("ALYT_MQTT_ADDR", "127.0.0.1:0")
        .env("ALYT_DATA_DIR", data_dir)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("alyt starts");
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    let base = loop {
        let line = rx
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .expect("alyt prints its HTTP address");
        if let Some(url) = line.trim().strip_prefix("HTTP API") {
            break url.trim().to_owned();
        }
    };
    (child, base, rx)
}

/// The value of the next printed line starting with `label`.
fn printed_line(rx: &std::sync::mpsc::Receiver<String>, label: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let line = rx
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .unwrap_or_else(|_| panic!("alyt prints {label}"));
        if let Some(value) = line.trim().strip_prefix(label) {
            return value.trim().to_owned();
        }
    }
}

fn interrupt_and_wait(child: Child, rx: &std::sync::mpsc::Receiver<String>) {
    signal_and_wait(child, rx, "-INT")
}

/// Sends `signal` (as `kill` spells it) and waits for the clean stop.
fn signal_and_wait(mut child: Child, rx: &std::sync::mpsc::Receiver<String>, signal: &str) {
    let status = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "alyt exits 0 on {signal}, got {status}");
            break;
        }
        assert!(Instant::now() < deadline, "alyt did not stop within 20 s");
        std::thread::sleep(Duration::from_millis(50));
    }
    let printed: Vec<String> = rx.try_iter().collect();
    assert!(printed.iter().any(|l| l == "Stopped."), "{printed:?}");
}

/// A load test raises the request-rate policy through the environment, and
/// the served fields say what is in force.
#[tokio::test]
async fn the_rate_limit_policy_comes_from_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let (child, base, rx) = start_with_env(
        dir.path(),
        &[
            ("ALYT_RATE_LIMIT_QUOTA", "100000"),
            ("ALYT_RATE_LIMIT_WINDOW_SECONDS", "10"),
        ],
    );
    let response = reqwest::get(format!("{base}/capabilities")).await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["ratelimit-policy"],
        "\"default\";q=100000;w=10"
    );
    let current = response.headers()["ratelimit"].to_str().unwrap();
    assert!(current.starts_with("\"default\";r=99999;t="), "{current}");
    interrupt_and_wait(child, &rx);

    // A value that is not a number stops the start with a message naming it.
    let output = Command::new(env!("CARGO_BIN_EXE_alyt"))
        .env("ALYT_HTTP_ADDR", "127.0.0.1:0")
        .env("ALYT_MQTT_ADDR", "127.0.0.1:0")
        .env("ALYT_DATA_DIR", dir.path())
        .env("ALYT_RATE_LIMIT_QUOTA", "lots")
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("ALYT_RATE_LIMIT_QUOTA"), "{stderr}");
}

#[tokio::test]
async fn alyt_serves_stops_on_ctrl_c_and_restarts_on_the_same_data() {
    let dir = tempfile::tempdir().unwrap();
    let (child, base, rx) = start(dir.path());
    assert!(
        base.starts_with("http://127.0.0.1:") && base.ends_with("/v1"),
        "{base}"
    );
    assert!(
        !base.contains(":0/"),
        "the chosen port is printed, not 0: {base}"
    );
    let mqtt = printed_line(&rx, "MQTT broker");
    assert!(
        mqtt.starts_with("mqtt://127.0.0.1:") && !mqtt.ends_with(":0"),
        "{mqtt}"
    );
    let response = reqwest::get(format!("{base}/capabilities")).await.unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.headers().contains_key("ratelimit"));
    assert!(
        dir.path().join("alyt.db").exists(),
        "data lives in ALYT_DATA_DIR"
    );
    interrupt_and_wait(child, &rx);

    // Restarted on the same data, and stopped the way a service manager
    // (or `docker stop`) does it, with SIGTERM: the same clean stop.
    let (child, base, rx) = start(dir.path());
    let response = reqwest::get(format!("{base}/capabilities")).await.unwrap();
    assert_eq!(response.status(), 200);
    signal_and_wait(child, &rx, "-TERM");
}

/// The banner leads with the console's address (where a newcomer starts),
/// and that address serves the console.
#[tokio::test]
async fn the_banner_prints_the_console_first() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_alyt"))
        .env("ALYT_HTTP_ADDR", "127.0.0.1:0")
        .env("ALYT_MQTT_ADDR", "127.0.0.1:0")
        .env("ALYT_DATA_DIR", dir.path())
        .env("ALYT_SIMULATOR", "off")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("alyt starts");
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut banner = Vec::new();
    while !banner.iter().any(|l: &String| l.contains("HTTP API")) {
        let line = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("alyt prints its banner");
        banner.push(line);
    }
    let addresses: Vec<&str> = banner
        .iter()
        .skip_while(|l| !l.contains("running locally"))
        .skip(1)
        .map(|l| l.trim())
        .collect();
    let console = addresses[0]
        .strip_prefix("Console")
        .unwrap_or_else(|| panic!("the console comes first: {banner:?}"))
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned();
    let page = reqwest::get(&console).await.unwrap();
    assert_eq!(page.status(), 200, "{console}");
    assert!(page.text().await.unwrap().contains("<html"), "{console}");
    interrupt_and_wait(child, &rx);
}

#[test]
fn a_bad_address_is_refused_with_a_clear_message() {
    let output = Command::new(env!("CARGO_BIN_EXE_alyt"))
        .env("ALYT_HTTP_ADDR", "localhost-ish")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("ALYT_HTTP_ADDR"), "{stderr}");
}
