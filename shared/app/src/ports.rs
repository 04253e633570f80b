//! Edge ports the use cases call without knowing the runtime: mail, the bot
//! check, device credentials and the simulator runner. Local adapters live
//! here or in the crate that owns the port (mail: `alyt-mail`; device
//! credentials: `alyt_device::credentials`); hosted ones in `alyt-aws`.

use std::net::IpAddr;

use async_trait::async_trait;

pub use alyt_device::credentials::{
    CredentialError, DeviceCredentialIssuer, DeviceCredentials, IssuedCredential,
    PasswordCredentials,
};
pub use alyt_mail::{Email, MailError, Mailer, NoMailer, OutboxMailer, render_eml};

/// The bot check of developer sign-up (Cloudflare Turnstile when hosted).
#[async_trait]
pub trait BotCheck: Send + Sync + 'static {
    /// Whether the token proves a human. Errors (the checker is unreachable)
    /// count as "no": sign-up fails closed.
    async fn verify(&self, token: &str, remote_ip: Option<IpAddr>) -> bool;
}

/// Turnstile's documented test response token, which its test keys accept.
pub const TURNSTILE_TEST_TOKEN: &str = "XXXX.DUMMY.TOKEN.XXXX";

/// Local bot check: accepts exactly Turnstile's test token, as Turnstile does
/// with its always-passing test secret; anything else fails.
pub struct TestTokenBotCheck;

#[async_trait]
impl BotCheck for TestTokenBotCheck {
    async fn verify(&self, token: &str, _remote_ip: Option<IpAddr>) -> bool {
        token == TURNSTILE_TEST_TOKEN
    }
}

/// A bot check that fails closed: for runtimes that offer no sign-up.
pub struct NoBotCheck;

#[async_trait]
impl BotCheck for NoBotCheck {
    async fn verify(&self, _token: &str, _remote_ip: Option<IpAddr>) -> bool {
        false
    }
}

/// The simulator runner could not be told (it is down or not reachable).
/// Callers log it and go on: the store is the truth, and the runner lists
/// it when it (re)starts.
#[derive(Debug, thiserror::Error)]
#[error("the simulator runner: {0}")]
pub struct SimulatorUnavailable(pub String);

/// Controls the runner of the virtual devices without knowing
/// where it runs: in process locally, a long-running task hosted. Every
/// call comes after the store write it reports, so a runner that misses a
/// call catches up from the store.
#[async_trait]
pub trait SimulatorControl: Send + Sync + 'static {
    /// Starts the virtual device as stored (profile, scenario, seed).
    async fn start(
        &self,
        device: &alyt_store::repo::simulator::VirtualDeviceRecord,
    ) -> Result<(), SimulatorUnavailable>;

    /// Applies the scenario the record now holds.
    async fn set_scenario(
        &self,
        device: &alyt_store::repo::simulator::VirtualDeviceRecord,
    ) -> Result<(), SimulatorUnavailable>;

    /// Stops the device (clean DISCONNECT: no last will).
    async fn stop(&self, device: alyt_domain::ids::DeviceId) -> Result<(), SimulatorUnavailable>;

    /// A script run was started or stopped in the store: play it, or stop
    /// playing it. A runner that finds runs in the store (hosted: by
    /// polling) need not be told.
    async fn runs_changed(&self) -> Result<(), SimulatorUnavailable> {
        Ok(())
    }

    /// The heartbeat window virtual devices are registered with, when this
    /// runtime's devices report faster than the spec's (test platforms).
    fn heartbeat_window_seconds(&self) -> Option<u32> {
        None
    }

    /// The telemetry seed of a new virtual device: random, or derived from a
    /// platform seed (deterministic mode).
    fn seed(&self, device: alyt_domain::ids::DeviceId) -> u64 {
        alyt_simulator::device_seed(None, device)
    }
}

/// A runner that is told nothing and finds every change in the store
/// (hosted: `functions/simulator-runner` polls the virtual-device index).
/// `platform_seed` (`ALYT_SIMULATOR_SEED`) makes new devices' seeds
/// deterministic.
#[derive(Debug, Clone, Copy, Default)]
pub struct StoreWatchedSimulator {
    pub platform_seed: Option<u64>,
}

#[async_trait]
impl SimulatorControl for StoreWatchedSimulator {
    async fn start(
        &self,
        _device: &alyt_store::repo::simulator::VirtualDeviceRecord,
    ) -> Result<(), SimulatorUnavailable> {
        Ok(())
    }

    async fn set_scenario(
        &self,
        _device: &alyt_store::repo::simulator::VirtualDeviceRecord,
    ) -> Result<(), SimulatorUnavailable> {
        Ok(())
    }

    async fn stop(&self, _device: alyt_domain::ids::DeviceId) -> Result<(), SimulatorUnavailable> {
        Ok(())
    }

    fn seed(&self, device: alyt_domain::ids::DeviceId) -> u64 {
        alyt_simulator::device_seed(self.platform_seed, device)
    }
}
