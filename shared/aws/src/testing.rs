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
        let config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .http_client(crate::https_client())
            .region(Region::new("us-east-1"))
            .credentials_provider(Credentials::new(
                "testing",
                "testing",
                None,
                None,
                "alyt-tests",
            ))
            .endpoint_url(&self.endpoint)
            .build();
        aws_sdk_dynamodb::Client::from_conf(config)
    }
}

impl MotoServer {
    /// A Secrets Manager client for this server with static test
    /// credentials (one per test: each test has its runtime).
    #[cfg(feature = "secrets")]
    pub fn secrets_client(&self) -> aws_sdk_secretsmanager::Client {
        let config = aws_sdk_secretsmanager::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .http_client(crate::https_client())
            .region(Region::new("us-east-1"))
            .credentials_provider(Credentials::new(
                "testing",
                "testing",
                None,
                None,
                "alyt-tests",
            ))
            .endpoint_url(&self.endpoint)
            .build();
        aws_sdk_secretsmanager::Client::from_conf(config)
    }
}

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
