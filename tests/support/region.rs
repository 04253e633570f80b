//! Where a story runs, chosen by one setting, `ALYT_E2E_TARGET`:
//!
//! - unset or `local`: a fresh local platform per test ([`TestPlatform`]);
//! - `emulated`: the hosted stack in the emulated AWS region
//!   (`infra/emulate`: infra/template.yaml's functions, routes, topic rule,
//!   event sources and schedules, the real function binaries, DynamoDB,
//!   SQS and SES in moto, an MQTT front for IoT Core). One region per test
//!   process, started by the first story that asks and stopped when the
//!   process ends (the emulator stops when its stdin closes); its stories
//!   share it, so each signs up addresses of its own. Its data directory
//!   (the emulator's log, each function's log, the outbox) is kept in the
//!   system's temp dir (`alyt-emulated-*`).
//!
//! The emulated region runs the function binaries in `target/debug` as they
//! are: build them first (`cargo build --workspace --bins`; the emulator
//! warns when one is older than the sources). `ALYT_VENV` names the Python
//! venv with moto and cfn-lint, as for the other tests that use moto.
//!
//! ```text
//! cargo build --workspace --bins
//! ALYT_E2E_TARGET=emulated cargo test --workspace --test e2e stories::
//! ```

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::OnceLock;

use crate::device::Broker;
use crate::{Target, TestPlatform};

/// The setting that picks the target.
pub const TARGET_ENV: &str = "ALYT_E2E_TARGET";

/// How much more often the emulated region fires the template's schedules
/// (`--schedule-speedup`): the once-a-minute sweeps every 30 s (the stay
/// sweep runs once per invocation), so a story sees a guest checked out
/// within half a minute. No more: each invocation still loops for 55 s, so
/// this multiplies the scheduled functions' loops at once, and at 6 their
/// DynamoDB traffic on moto (one request at a time) slowed requests past
/// their timeouts. The functions still read the wall clock.
pub const SCHEDULE_SPEEDUP: u32 = 2;

/// A story's platform: the local one, or the emulated region.
pub enum Story {
    Local(Box<TestPlatform>),
    Emulated(Emulated),
}

impl Story {
    /// The target `ALYT_E2E_TARGET` names.
    pub async fn start() -> Self {
        Self::start_with(|_| {}).await
    }

    /// [`Story::start`], with the local platform's test configuration
    /// changed by `configure` (e.g. a quicker stay sweep). The emulated
    /// region is the process's, as it runs: its schedules fire
    /// [`SCHEDULE_SPEEDUP`] times as often as the template says.
    pub async fn start_with(configure: fn(&mut alyt_local::Config)) -> Self {
        match std::env::var(TARGET_ENV).as_deref() {
            Err(_) | Ok("") | Ok("local") => {
                Story::Local(Box::new(TestPlatform::start_with(configure).await))
            }
            Ok("emulated") => Story::Emulated(Emulated::connect()),
            Ok(other) => panic!("{TARGET_ENV}={other}: expected local or emulated"),
        }
    }
}

impl Target for Story {
    fn url(&self, path: &str) -> String {
        match self {
            Story::Local(t) => Target::url(&**t, path),
            Story::Emulated(t) => t.url(path),
        }
    }

    fn http(&self) -> &reqwest::Client {
        match self {
            Story::Local(t) => Target::http(&**t),
            Story::Emulated(t) => t.http(),
        }
    }

    fn outbox_dir(&self) -> PathBuf {
        match self {
            Story::Local(t) => t.outbox_dir(),
            Story::Emulated(t) => t.outbox_dir(),
        }
    }

    fn broker(&self) -> Broker {
        match self {
            Story::Local(t) => t.broker(),
            Story::Emulated(t) => t.broker(),
        }
    }

    fn one_verification_at_a_time(&self) -> bool {
        matches!(self, Story::Emulated(_))
    }

    fn device_patience(&self) -> std::time::Duration {
        match self {
            Story::Local(t) => t.device_patience(),
            Story::Emulated(t) => t.device_patience(),
        }
    }
}

impl Story {
    /// The event stream's own base URL where the API cannot stream: hosted,
    /// the stream function's URL (`STREAM=`, which the API's 421 names);
    /// locally `None` (the API serves the stream itself).
    pub fn stream_url(&self) -> Option<&str> {
        match self {
            Story::Local(_) => None,
            Story::Emulated(t) => t.region.stream.as_deref(),
        }
    }

    /// Hosted, the stack as CloudFormation shows it: its name (`STACK=`)
    /// and the AWS endpoint that answers for the region (`AWS_ENDPOINT_URL=`,
    /// moto); locally `None` (there is no stack).
    pub fn stack(&self) -> Option<(&str, &str)> {
        match self {
            Story::Local(_) => None,
            Story::Emulated(t) => Some((&t.region.stack, &t.region.aws_endpoint)),
        }
    }

    /// The device messages ingest dropped, by reason: locally as the
    /// platform counts them in process; hosted, the
    /// `Alyt/IngestDroppedMessages` embedded-metric lines the ingest
    /// function printed (what CloudWatch would turn into the metric),
    /// summed from its log.
    pub fn ingest_rejections(&self) -> std::collections::BTreeMap<String, u64> {
        match self {
            Story::Local(t) => t
                .platform
                .ingest_stats()
                .rejected()
                .into_iter()
                .map(|(reason, n)| (reason.to_owned(), n))
                .collect(),
            Story::Emulated(t) => {
                let log = t.region.data.join("logs/IngestFunction.log");
                let mut dropped = std::collections::BTreeMap::new();
                for line in std::fs::read_to_string(log).unwrap_or_default().lines() {
                    let Ok(metric) = serde_json::from_str::<serde_json::Value>(line) else {
                        continue;
                    };
                    if let (Some(reason), Some(n)) = (
                        metric["Reason"].as_str(),
                        metric["IngestDroppedMessages"].as_u64(),
                    ) {
                        *dropped.entry(reason.to_owned()).or_default() += n;
                    }
                }
                dropped
            }
        }
    }
}

/// The emulated region as one test sees it: the process's region, with an
/// HTTP client of the test's own runtime.
pub struct Emulated {
    region: &'static RunningRegion,
    http: reqwest::Client,
}

impl Emulated {
    /// The process's region, started now if no story has started it yet.
    pub fn connect() -> Self {
        static REGION: OnceLock<RunningRegion> = OnceLock::new();
        Self {
            region: REGION.get_or_init(RunningRegion::start),
            http: reqwest::Client::new(),
        }
    }

    /// The data directory: `outbox/` (the mail SES sent) and `logs/` (each
    /// function's log).
    pub fn data_dir(&self) -> &Path {
        &self.region.data
    }
}

impl Target for Emulated {
    fn url(&self, path: &str) -> String {
        format!("{}{}", self.region.api, path)
    }

    fn http(&self) -> &reqwest::Client {
        &self.http
    }

    fn outbox_dir(&self) -> PathBuf {
        self.region.data.join("outbox")
    }

    fn broker(&self) -> Broker {
        let (host, port) = self.region.mqtt.rsplit_once(':').expect("MQTT=host:port");
        Broker {
            host: host.to_owned(),
            port: port.parse().expect("a port"),
            // The emulated IoT Core's TLS certificate is signed by this CA.
            ca: Some(self.region.data.join("iot/ca.pem")),
        }
    }

    fn one_verification_at_a_time(&self) -> bool {
        true
    }

    fn device_patience(&self) -> std::time::Duration {
        std::time::Duration::from_secs(30)
    }
}

/// `infra/emulate`, running for as long as this process does.
struct RunningRegion {
    api: String,
    /// The stream function's URL (`STREAM=`).
    stream: Option<String>,
    mqtt: String,
    data: PathBuf,
    /// The stack's name in the region's CloudFormation (`STACK=`).
    stack: String,
    /// moto's endpoint, where the region's AWS APIs answer (`AWS_ENDPOINT_URL=`).
    aws_endpoint: String,
    _process: Child,
    /// Held open for the life of the process: when the process ends, the
    /// pipe closes and the emulator stops everything it started.
    _stdin: ChildStdin,
}

impl RunningRegion {
    fn start() -> Self {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("tests/ sits in the repository");
        // Kept after the run: the functions' logs explain a failed story.
        let dir = tempfile::Builder::new()
            .prefix("alyt-emulated-")
            .tempdir()
            .expect("temp dir")
            .keep();
        let log_path = dir.join("emulate.log");
        let log = std::fs::File::create(&log_path).expect("the emulator's log");
        let mut process = Command::new(root.join("infra/emulate"))
            .args(["--no-build", "--exit-with-stdin", "--schedule-speedup"])
            .arg(SCHEDULE_SPEEDUP.to_string())
            .arg("--data")
            .arg(&dir)
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("infra/emulate runs");
        let stdin = process.stdin.take().expect("piped stdin");
        let mut lines = BufReader::new(process.stdout.take().expect("piped stdout")).lines();
        let (mut api, mut stream, mut mqtt, mut data) = (None, None, None, None);
        let (mut stack, mut aws_endpoint) = (None, None);
        while api.is_none() || mqtt.is_none() || data.is_none() || aws_endpoint.is_none() {
            let Some(Ok(line)) = lines.next() else {
                let log = std::fs::read_to_string(&log_path).unwrap_or_default();
                panic!("the emulated region did not start:\n{log}");
            };
            if let Some(url) = line.strip_prefix("API=") {
                api = Some(url.to_owned());
            } else if let Some(url) = line.strip_prefix("STREAM=") {
                stream = Some(url.to_owned());
            } else if let Some(address) = line.strip_prefix("MQTT=") {
                mqtt = Some(address.to_owned());
            } else if let Some(path) = line.strip_prefix("DATA=") {
                data = Some(PathBuf::from(path));
            } else if let Some(name) = line.strip_prefix("STACK=") {
                stack = Some(name.to_owned());
            } else if let Some(url) = line.strip_prefix("AWS_ENDPOINT_URL=") {
                aws_endpoint = Some(url.to_owned());
            }
        }
        Self {
            api: api.expect("API="),
            stream,
            mqtt: mqtt.expect("MQTT="),
            data: data.expect("DATA="),
            stack: stack.expect("STACK= comes before AWS_ENDPOINT_URL="),
            aws_endpoint: aws_endpoint.expect("AWS_ENDPOINT_URL="),
            _process: process,
            _stdin: stdin,
        }
    }
}
