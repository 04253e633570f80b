//! Shared helpers for the black-box tests: a local platform on free ports in a
//! temporary data directory, and an HTTP client that talks to it over a socket.
//! Stories that need nothing but the API and the mail ([`Target`]) also run
//! on the hosted stack in the emulated AWS region ([`region`]).

use std::path::{Path, PathBuf};

pub mod developers;
pub mod device;
pub mod household;
pub mod principals;
pub mod region;
pub mod webhooks;

pub use alyt_local::Platform;

/// What a story needs of the platform it runs on: its API over HTTP and the
/// mail it sent. The local platform ([`TestPlatform`]) and the emulated
/// region ([`region::Emulated`]) are both one.
// The tests await these on their own runtime's thread and never spawn them,
// so the futures need no Send bound.
#[allow(async_fn_in_trait)]
pub trait Target {
    /// The full URL of an API path such as `/capabilities`.
    fn url(&self, path: &str) -> String;

    fn http(&self) -> &reqwest::Client;

    /// The directory every mail the platform sent lands in, as `.eml` files
    /// whose names sort oldest first.
    fn outbox_dir(&self) -> PathBuf;

    /// Where its devices connect over MQTT.
    fn broker(&self) -> device::Broker;

    /// Whether this process's stories verify developers one at a time
    /// ([`developers::sign_up_and_verify`]): a verification builds the
    /// developer's sandbox (household, home, rooms, virtual devices and
    /// their certificates), about 1.5 s on the emulated region, whose moto
    /// takes DynamoDB requests one at a time, so six at once queue past the
    /// developers function's 10 s timeout. The local platforms are one per
    /// test.
    fn one_verification_at_a_time(&self) -> bool {
        false
    }

    /// How long a device's report may take to show in what the API reads:
    /// locally ingest runs in the platform's process; on the emulated region
    /// the report crosses the MQTT front, the topic rule, SQS and the ingest
    /// function, beside every other story of the process on two cores.
    fn device_patience(&self) -> std::time::Duration {
        std::time::Duration::from_secs(10)
    }

    /// POSTs JSON and returns the status and the JSON body (Null when empty).
    async fn post_json(
        &self,
        path: &str,
        bearer: Option<&str>,
        body: serde_json::Value,
    ) -> (u16, serde_json::Value) {
        self.send_json("POST", path, bearer, Some(body)).await
    }

    /// GETs and returns the status and the JSON body.
    async fn get_json(&self, path: &str, bearer: Option<&str>) -> (u16, serde_json::Value) {
        self.send_json("GET", path, bearer, None).await
    }

    /// Sends `method` with an optional JSON body; returns the status and the
    /// JSON body (Null when empty).
    async fn send_json(
        &self,
        method: &str,
        path: &str,
        bearer: Option<&str>,
        body: Option<serde_json::Value>,
    ) -> (u16, serde_json::Value) {
        let mut request = self
            .http()
            .request(method.parse().expect("an HTTP method"), self.url(path));
        if let Some(body) = body {
            request = request.json(&body);
        }
        if let Some(token) = bearer {
            request = request.bearer_auth(token);
        }
        answer(request.send().await.expect("request sent")).await
    }

    /// Signs in through /auth/login; panics unless it succeeds.
    async fn household_login(&self, email: &str, password: &str) -> serde_json::Value {
        let (status, body) = self
            .post_json(
                "/auth/login",
                None,
                serde_json::json!({ "email": email, "password": password }),
            )
            .await;
        assert_eq!(status, 200, "login failed: {body}");
        body
    }
}

impl Target for TestPlatform {
    fn url(&self, path: &str) -> String {
        format!("{}{}", self.platform.base_url(), path)
    }

    fn http(&self) -> &reqwest::Client {
        &self.http
    }

    fn outbox_dir(&self) -> PathBuf {
        self.platform.data_dir.join("outbox")
    }

    fn broker(&self) -> device::Broker {
        let addr = self.platform.mqtt_addr;
        device::Broker {
            host: addr.ip().to_string(),
            port: addr.port(),
            ca: None,
        }
    }
}

pub struct TestPlatform {
    pub platform: Platform,
    pub http: reqwest::Client,
    pub data_dir: tempfile::TempDir,
    /// Changes to the test configuration, applied again on restart.
    pub configure: fn(&mut alyt_local::Config),
}

impl TestPlatform {
    /// Starts a fresh platform in a new temporary data directory.
    pub async fn start() -> Self {
        Self::start_with(|_| {}).await
    }

    /// Starts a fresh platform whose test configuration `configure` changes
    /// (e.g. fast simulator timings); a restart applies it again.
    pub async fn start_with(configure: fn(&mut alyt_local::Config)) -> Self {
        let data_dir = tempfile::tempdir().expect("temp dir");
        let platform = start_configured(data_dir.path(), configure).await;
        Self {
            platform,
            http: reqwest::Client::new(),
            data_dir,
            configure,
        }
    }

    /// [`Target::url`].
    pub fn url(&self, path: &str) -> String {
        Target::url(self, path)
    }

    /// Starts a fresh platform whose test configuration a closure changes
    /// (it may capture, e.g. an injected clock); a restart does not apply it.
    pub async fn start_with_config(configure: impl FnOnce(&mut alyt_local::Config)) -> Self {
        let data_dir = tempfile::tempdir().expect("temp dir");
        let mut config = alyt_local::Config::for_tests(data_dir.path().to_path_buf());
        configure(&mut config);
        let platform = alyt_local::spawn(config)
            .await
            .expect("the local platform starts");
        Self {
            platform,
            http: reqwest::Client::new(),
            data_dir,
            configure: |_| {},
        }
    }

    /// Stops the platform and starts it again on the same data directory.
    pub async fn restart(self) -> Self {
        self.platform.shutdown().await;
        let platform = start_configured(self.data_dir.path(), self.configure).await;
        Self { platform, ..self }
    }
}

impl TestPlatform {
    /// The platform owner's email and password from the first start.
    pub fn owner(&self) -> (String, String) {
        let first = self
            .platform
            .first_start
            .as_ref()
            .expect("a fresh platform created its owner");
        (
            first.email.clone(),
            first
                .generated_password
                .clone()
                .expect("the test platform generates the owner password"),
        )
    }

    /// [`Target::post_json`].
    pub async fn post_json(
        &self,
        path: &str,
        bearer: Option<&str>,
        body: serde_json::Value,
    ) -> (u16, serde_json::Value) {
        Target::post_json(self, path, bearer, body).await
    }

    /// [`Target::get_json`].
    pub async fn get_json(&self, path: &str, bearer: Option<&str>) -> (u16, serde_json::Value) {
        Target::get_json(self, path, bearer).await
    }

    /// [`Target::send_json`].
    pub async fn send_json(
        &self,
        method: &str,
        path: &str,
        bearer: Option<&str>,
        body: Option<serde_json::Value>,
    ) -> (u16, serde_json::Value) {
        Target::send_json(self, method, path, bearer, body).await
    }

    /// [`Target::household_login`].
    pub async fn household_login(&self, email: &str, password: &str) -> serde_json::Value {
        Target::household_login(self, email, password).await
    }
}

async fn answer(response: reqwest::Response) -> (u16, serde_json::Value) {
    let status = response.status().as_u16();
    let bytes = response.bytes().await.unwrap_or_default();
    let body = serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null);
    (status, body)
}

/// A problem body without its request id, for comparing two answers.
pub fn without_request_id(mut problem: serde_json::Value) -> serde_json::Value {
    if let Some(map) = problem.as_object_mut() {
        map.remove("requestId");
    }
    problem
}

pub async fn start_in(dir: &Path) -> Platform {
    start_configured(dir, |_| {}).await
}

async fn start_configured(dir: &Path, configure: fn(&mut alyt_local::Config)) -> Platform {
    let mut config = alyt_local::Config::for_tests(dir.to_path_buf());
    configure(&mut config);
    alyt_local::spawn(config)
        .await
        .expect("the local platform starts")
}
