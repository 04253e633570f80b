//! Shared helpers for the black-box tests: a local platform on free ports in a
//! temporary data directory, and an HTTP client that talks to it over a socket.

use std::path::Path;

pub use alyt_local::Platform;

pub struct TestPlatform {
    pub platform: Platform,
    pub http: reqwest::Client,
    pub data_dir: tempfile::TempDir,
}

impl TestPlatform {
    /// Starts a fresh platform in a new temporary data directory.
    pub async fn start() -> Self {
        let data_dir = tempfile::tempdir().expect("temp dir");
        let platform = start_in(data_dir.path()).await;
        Self {
            platform,
            http: reqwest::Client::new(),
            data_dir,
        }
    }

    /// The full URL of an API path such as `/capabilities`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.platform.base_url(), path)
    }

    /// Stops the platform and starts it again on the same data directory.
    pub async fn restart(self) -> Self {
        self.platform.shutdown().await;
        let platform = start_in(self.data_dir.path()).await;
        Self { platform, ..self }
    }
}

pub async fn start_in(dir: &Path) -> Platform {
    alyt_local::spawn(alyt_local::Config::for_tests(dir.to_path_buf()))
        .await
        .expect("the local platform starts")
}
