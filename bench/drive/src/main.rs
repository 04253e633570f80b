//! `bench-drive`: the measurements of `bench/run` that need a client of the
//! platform's own protocols (MQTT as a registered device, the developer
//! event stream, a webhook receiver). Each subcommand runs a bounded number
//! of samples within a bounded time against servers on loopback and prints
//! one line of `key=value` figures on stdout; any failure (refused login,
//! unexpected HTTP status, a timeout) prints `bench-drive: <reason>` on
//! stderr and exits 1.
//!
//! ```text
//! bench-drive latency    --api URL --key K --tenant T --mqtt HOST:PORT [--samples 200] [--interval-ms 50]
//! bench-drive throughput --api URL --key K --tenant T --mqtt HOST:PORT [--devices 4] [--messages 10000] [--drain-s 60]
//! bench-drive command    --api URL --key K --tenant T [--samples 100]
//! bench-drive webhook    --api URL --key K --tenant T --mqtt HOST:PORT [--samples 50]
//! bench-drive broker     --api URL --key K --tenant T --mqtt HOST:PORT --baseline HOST:PORT [--devices 20] [--rate 20] [--seconds 10]
//! bench-drive storm      --api URL --email E --password P --pid PID [--logins 100] [--idle-s 60] [--addresses 10]
//! bench-drive store-subscriber --mqtt HOST:PORT --db PATH [--idle-s 3]
//! ```
//!
//! `--api` is the API base URL with `/v1`; `--key` a DEV key of the
//! developer whose sandbox `--tenant` is, with the scopes the subcommand
//! uses (tenant:read, devices:read, devices:write, devices:commands,
//! events:read, webhooks:write). Every subcommand also takes `--max-s`
//! (default 300): the whole run's time limit.

mod api;
mod broker;
mod ingest;
mod interactive;
mod mqtt;
mod sse;
mod stats;
mod store_subscriber;
mod storm;

use std::collections::HashMap;
use std::time::Duration;

/// Errors are messages for the person reading bench/run's output.
pub type Result<T> = std::result::Result<T, String>;

/// `--name value` pairs.
pub struct Args {
    values: HashMap<String, String>,
}

impl Args {
    fn parse(raw: &[String]) -> Result<Self> {
        let mut values = HashMap::new();
        let mut it = raw.iter();
        while let Some(name) = it.next() {
            let Some(name) = name.strip_prefix("--") else {
                return Err(format!(
                    "unexpected argument {name:?} (options are --name value)"
                ));
            };
            let value = it.next().ok_or_else(|| format!("--{name} needs a value"))?;
            values.insert(name.to_owned(), value.clone());
        }
        Ok(Self { values })
    }

    pub fn text(&self, name: &str) -> Result<String> {
        self.values
            .get(name)
            .cloned()
            .ok_or_else(|| format!("--{name} is required"))
    }

    pub fn number<T: std::str::FromStr>(&self, name: &str, default: T) -> Result<T> {
        match self.values.get(name) {
            None => Ok(default),
            Some(raw) => raw
                .parse()
                .map_err(|_| format!("--{name} {raw:?} is not a number")),
        }
    }
}

/// The first message of `rx` that `wanted` picks, waiting until
/// `deadline`: `None` when none came by then, an error when `rx` closed
/// (`what` names the source). Messages it does not pick are dropped.
pub async fn first_match<T>(
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<T>,
    deadline: std::time::Instant,
    what: &str,
    wanted: impl Fn(&T) -> bool,
) -> Result<Option<T>> {
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match tokio::time::timeout(left, rx.recv()).await {
            Err(_) => return Ok(None),
            Ok(None) => return Err(format!("{what} ended")),
            Ok(Some(item)) if wanted(&item) => return Ok(Some(item)),
            Ok(Some(_)) => {}
        }
    }
}

/// An error and its sources, for a message that says what went wrong
/// (reqwest's own says only "error sending request").
pub fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

const USAGE: &str = "usage: bench-drive <latency|throughput|command|webhook|broker|storm|store-subscriber> --name value ... (see bench/drive/src/main.rs)";

#[tokio::main]
async fn main() {
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let Some((command, rest)) = raw.split_first() else {
        eprintln!("{USAGE}");
        std::process::exit(2);
    };
    let outcome = match Args::parse(rest) {
        Ok(args) => run(command, &args).await,
        Err(e) => Err(e),
    };
    match outcome {
        Ok(line) => println!("{line}"),
        Err(reason) => {
            eprintln!("bench-drive {command}: {reason}");
            std::process::exit(1);
        }
    }
}

async fn run(command: &str, args: &Args) -> Result<String> {
    let limit = Duration::from_secs(args.number("max-s", 300)?);
    let work = async {
        match command {
            "latency" => ingest::latency(args).await,
            "throughput" => ingest::throughput(args).await,
            "command" => interactive::command(args).await,
            "webhook" => interactive::webhook(args).await,
            "broker" => broker::run(args).await,
            "storm" => storm::run(args).await,
            "store-subscriber" => store_subscriber::run(args).await,
            other => Err(format!("unknown subcommand {other:?}; {USAGE}")),
        }
    };
    tokio::time::timeout(limit, work)
        .await
        .map_err(|_| format!("did not finish within --max-s {} s", limit.as_secs()))?
}
