//! Test support: one moto server (DynamoDB's API in server mode) per test process,
//! so tests exercise the real SDK code path. Enabled by the `test-support` feature.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use alyt_domain::Clock;
use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use tokio::sync::OnceCell;

use crate::dynamo::{DynamoStore, create_table};

/// How long moto may take to accept connections.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// Lines of moto's output kept for failure messages.
const LOG_TAIL: usize = 40;

/// Runs moto and ties its life to ours: the shell waits on its stdin (our pipe)
/// and kills moto at EOF, which the kernel delivers however this process ends
/// (statics are never dropped, so nothing else would stop it). Moto's own exit
/// ends the shell too, which lets startup fail fast.
const SUPERVISOR: &str = r#"
exec 3<&0 </dev/null
"$0" -c "$ALYT_MOTO_SCRIPT" 127.0.0.1 "$1" 1>&2 3<&- &
moto=$!
{ read _ <&3; kill $moto 2>/dev/null; } &
watcher=$!
wait $moto
status=$?
kill $watcher 2>/dev/null
exit $status
"#;

/// moto's app served one request at a time. `moto_server` serves threads, and
/// moto does not make a conditional write atomic across threads (two concurrent
/// `version = :v` updates both succeed), where DynamoDB does; serialising the
/// requests gives the atomicity the conformance suite asserts. Single-threaded
/// werkzeug also speaks HTTP/1.0, so no idle keep-alive connection blocks others.
const MOTO_SCRIPT: &str = r#"
import os, sys
from werkzeug.serving import run_simple
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
os.environ.setdefault("MOTO_PORT", sys.argv[2])
run_simple(sys.argv[1], int(sys.argv[2]), DomainDispatcherApplication(create_backend_app), threaded=False, request_handler=MotoRequestHandler)
"#;

pub struct MotoServer {
    endpoint: String,
    // Held open for the whole process: closing it stops moto.
    _stdin: ChildStdin,
    _child: Child,
}

impl MotoServer {
    /// The server's URL, e.g. `http://127.0.0.1:40123`.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// A client for this server with static test credentials.
    pub fn client(&self) -> aws_sdk_dynamodb::Client {
        aws_sdk_dynamodb::Client::new(&self.sdk_config())
    }

    /// The SDK configuration of this server's clients: its endpoint, static
    /// test credentials, us-east-1. Every client of this module is built
    /// from it.
    pub fn sdk_config(&self) -> aws_config::SdkConfig {
        aws_config::SdkConfig::builder()
            .behavior_version(BehaviorVersion::latest())
            .http_client(crate::https_client())
            .endpoint_url(&self.endpoint)
            .region(Region::new(MOTO_REGION))
            .credentials_provider(aws_sdk_dynamodb::config::SharedCredentialsProvider::new(
                Credentials::new("testing", "testing", None, None, "alyt-tests"),
            ))
            .build()
    }
}

impl MotoServer {
    /// A Secrets Manager client for this server with static test
    /// credentials (one per test: each test has its runtime).
    #[cfg(feature = "secrets")]
    pub fn secrets_client(&self) -> aws_sdk_secretsmanager::Client {
        aws_sdk_secretsmanager::Client::new(&self.sdk_config())
    }

    /// An EventBridge client for this server (buses, rules, targets).
    #[cfg(feature = "eventbridge")]
    pub fn eventbridge_client(&self) -> aws_sdk_eventbridge::Client {
        aws_sdk_eventbridge::Client::new(&self.sdk_config())
    }

    /// A bus of its own whose every `alyt` entry lands in a queue of its
    /// own (a rule's target): the bus's ARN and the queue's URL.
    #[cfg(feature = "eventbridge")]
    pub async fn bus_with_queue(&self) -> (String, String) {
        let client = self.eventbridge_client();
        let name = format!("alyt-test-{}", uuid::Uuid::new_v4());
        let arn = client
            .create_event_bus()
            .name(&name)
            .send()
            .await
            .expect("moto creates the bus")
            .event_bus_arn()
            .unwrap_or_default()
            .to_owned();
        let queue = self
            .sqs("CreateQueue", serde_json::json!({ "QueueName": name }))
            .await["QueueUrl"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        client
            .put_rule()
            .name("everything")
            .event_bus_name(&name)
            .event_pattern(r#"{"source":[{"prefix":""}]}"#)
            .send()
            .await
            .expect("moto puts the rule");
        let target = aws_sdk_eventbridge::types::Target::builder()
            .id("queue")
            .arn(format!("arn:aws:sqs:{MOTO_REGION}:{MOTO_ACCOUNT}:{name}"))
            .build()
            .expect("a target");
        client
            .put_targets()
            .rule("everything")
            .event_bus_name(&name)
            .targets(target)
            .send()
            .await
            .expect("moto puts the target");
        (arn, queue)
    }

    /// The entries that reached a queue of [`Self::bus_with_queue`] since
    /// the last call (up to ten), as EventBridge wrote them.
    #[cfg(feature = "eventbridge")]
    pub async fn received(&self, queue: &str) -> Vec<serde_json::Value> {
        let answer = self
            .sqs(
                "ReceiveMessage",
                serde_json::json!({ "QueueUrl": queue, "MaxNumberOfMessages": 10 }),
            )
            .await;
        let mut entries = Vec::new();
        for message in answer["Messages"].as_array().into_iter().flatten() {
            let body = message["Body"].as_str().unwrap_or_default();
            entries.push(serde_json::from_str(body).expect("an EventBridge entry"));
            self.sqs(
                "DeleteMessage",
                serde_json::json!({ "QueueUrl": queue, "ReceiptHandle": message["ReceiptHandle"] }),
            )
            .await;
        }
        entries
    }

    /// One call of moto's SQS.
    #[cfg(feature = "eventbridge")]
    async fn sqs(&self, action: &str, body: serde_json::Value) -> serde_json::Value {
        self.json_call("sqs", &format!("AmazonSQS.{action}"), body)
            .await
    }

    /// Every record of `table`'s stream so far, from its start, as Lambda
    /// hands them to a windowed event source mapping: batches of at most
    /// `batch` records of one shard each (with its `shardId`), shard by
    /// shard, each shard's in order. The test stands where Lambda's poller
    /// would (there is no Lambda here); the records are moto's own.
    pub async fn stream_batches(&self, table: &str, batch: usize) -> Vec<serde_json::Value> {
        let described = self
            .client()
            .describe_table()
            .table_name(table)
            .send()
            .await
            .expect("moto describes the table");
        let stream = described
            .table()
            .and_then(|t| t.latest_stream_arn())
            .expect("the table has a stream")
            .to_owned();
        let shards = self
            .streams("DescribeStream", serde_json::json!({ "StreamArn": stream }))
            .await;
        let mut batches = Vec::new();
        let listed = shards["StreamDescription"]["Shards"].as_array();
        for shard in listed.into_iter().flatten() {
            let shard_id = shard["ShardId"].as_str().unwrap_or_default().to_owned();
            let iterator = self
                .streams(
                    "GetShardIterator",
                    serde_json::json!({
                        "StreamArn": stream,
                        "ShardId": shard_id,
                        "ShardIteratorType": "TRIM_HORIZON"
                    }),
                )
                .await;
            let mut records = Vec::new();
            let mut next = iterator["ShardIterator"].clone();
            while next.is_string() {
                let read = self
                    .streams(
                        "GetRecords",
                        serde_json::json!({ "ShardIterator": next, "Limit": 1000 }),
                    )
                    .await;
                let page = read["Records"].as_array().cloned().unwrap_or_default();
                if page.is_empty() {
                    break;
                }
                records.extend(page);
                next = read["NextShardIterator"].clone();
            }
            for chunk in records.chunks(batch.max(1)) {
                batches.push(serde_json::json!({
                    "Records": chunk,
                    "window": { "start": "2026-01-01T00:00:00Z", "end": "2026-01-01T00:00:01Z" },
                    "state": {},
                    "shardId": shard_id,
                    "eventSourceARN": stream,
                    "isFinalInvokeForWindow": false,
                    "isWindowTerminatedEarly": false
                }));
            }
        }
        batches
    }

    /// One call of moto's DynamoDB Streams.
    async fn streams(&self, action: &str, body: serde_json::Value) -> serde_json::Value {
        let target = format!("DynamoDBStreams_20120810.{action}");
        self.json_call("dynamodb", &target, body).await
    }

    /// One call of a JSON-protocol service of moto (unsigned: moto routes by
    /// the target and the credential scope's service, and checks no
    /// signature).
    async fn json_call(
        &self,
        service: &str,
        target: &str,
        body: serde_json::Value,
    ) -> serde_json::Value {
        let answer = reqwest::Client::new()
            .post(&self.endpoint)
            .header("X-Amz-Target", target)
            .header("Content-Type", "application/x-amz-json-1.0")
            .header(
                "Authorization",
                format!(
                    "AWS4-HMAC-SHA256 Credential=testing/20260101/{MOTO_REGION}/{service}/aws4_request, \
                     SignedHeaders=host, Signature=0"
                ),
            )
            .body(body.to_string())
            .send()
            .await
            .unwrap_or_else(|e| panic!("{target}: {e}"));
        let status = answer.status();
        let text = answer.text().await.unwrap_or_default();
        assert!(status.is_success(), "{target}: {status} {text}");
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{target} answered {text}: {e}"))
    }

    /// The platform's EventBridge adapter pointed at this server.
    #[cfg(feature = "eventbridge")]
    pub fn eventbridge_bus(&self) -> crate::eventbridge::EventBridgeBus {
        crate::eventbridge::EventBridgeBus::new(self.sdk_config(), Some(self.endpoint.clone()))
    }
}

/// moto's account, and the region of its test clients.
pub const MOTO_ACCOUNT: &str = "123456789012";
pub const MOTO_REGION: &str = "us-east-1";

static MOTO: OnceCell<MotoServer> = OnceCell::const_new();

/// The moto server of this test process, started on first use.
pub async fn moto() -> &'static MotoServer {
    MOTO.get_or_init(start).await
}

/// A store on a new, empty, uniquely named table of the shared moto server.
pub async fn fresh_table(clock: Arc<dyn Clock>) -> DynamoStore {
    let server = moto().await;
    // A client per table: each #[tokio::test] has its own runtime, and pooled
    // connections must not outlive the runtime that opened them.
    let client = server.client();
    let table = format!("alyt-test-{}", uuid::Uuid::new_v4());
    create_table(&client, &table)
        .await
        .unwrap_or_else(|e| panic!("creating table {table} on moto failed: {e}"));
    DynamoStore::new(client, table, clock)
}

fn repo_root() -> PathBuf {
    if let Some(root) = option_env!("ALYT_REPO_ROOT").filter(|r| !r.is_empty()) {
        return PathBuf::from(root);
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .find(|dir| {
            std::fs::read_to_string(dir.join("Cargo.toml")).is_ok_and(|t| t.contains("[workspace]"))
        })
        .unwrap_or(manifest)
        .to_path_buf()
}

fn find_moto() -> Result<PathBuf, String> {
    let mut looked = Vec::new();
    let venv = match std::env::var_os("ALYT_VENV") {
        Some(venv) => PathBuf::from(venv),
        None => repo_root().join("target/alyt-venv"),
    };
    // The python of the venv that has moto (its moto_server marks it).
    if venv.join("bin/moto_server").is_file() {
        return Ok(venv.join("bin/python"));
    }
    looked.push(venv.join("bin/moto_server").display().to_string());
    for dir in std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()) {
        if dir.join("moto_server").is_file() && dir.join("python3").is_file() {
            return Ok(dir.join("python3"));
        }
    }
    looked.push("$PATH".into());
    Err(looked.join(", "))
}

fn free_port() -> u16 {
    // The port is released before moto binds it; a collision in between is
    // unlikely and shows up as a startup failure with moto's message.
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("no free loopback port")
}

async fn start() -> MotoServer {
    let binary = find_moto().unwrap_or_else(|looked| {
        panic!(
            "moto_server not found (looked in {looked}). The DynamoDB adapter tests need \
             moto's server mode; set it up with the test command in the README:\n  \
             python3 -m venv target/alyt-venv && target/alyt-venv/bin/pip install \
             'moto[server]==5.*' cfn-lint\n(or point ALYT_VENV at a venv that has it)"
        )
    });
    let port = free_port();
    let mut child = Command::new("sh")
        .env("ALYT_MOTO_SCRIPT", MOTO_SCRIPT)
        .arg("-c")
        .arg(SUPERVISOR)
        .arg(&binary)
        .arg(port.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("starting {} failed: {e}", binary.display()));
    let stdin = child.stdin.take().expect("piped stdin");

    // Drain moto's output (a full pipe would block it), keeping the tail.
    let log = Arc::new(Mutex::new(VecDeque::with_capacity(LOG_TAIL)));
    let stderr = child.stderr.take().expect("piped stderr");
    let sink = Arc::clone(&log);
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let mut tail = sink.lock().unwrap_or_else(|e| e.into_inner());
            if tail.len() == LOG_TAIL {
                tail.pop_front();
            }
            tail.push_back(line);
        }
    });
    let tail = || {
        let lines = log.lock().unwrap_or_else(|e| e.into_inner());
        lines.iter().cloned().collect::<Vec<_>>().join("\n")
    };

    let started = Instant::now();
    loop {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            break;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!(
                "moto_server exited during startup ({status}); its output:\n{}",
                tail()
            );
        }
        if started.elapsed() > STARTUP_TIMEOUT {
            panic!(
                "moto_server did not accept connections on port {port} within {STARTUP_TIMEOUT:?}; \
                 its output:\n{}",
                tail()
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    MotoServer {
        endpoint: format!("http://127.0.0.1:{port}"),
        _stdin: stdin,
        _child: child,
    }
}
