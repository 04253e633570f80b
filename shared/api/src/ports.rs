//! Edge ports the handlers use without knowing the runtime: mail, the bot
//! check, device credentials and the simulator runner. Local adapters live
//! here or in the crate that owns the port (device credentials:
//! `alyt_device::credentials`); hosted ones in `alyt-aws`.

use std::net::IpAddr;
use std::path::PathBuf;

use async_trait::async_trait;

pub use alyt_device::credentials::{
    CredentialError, DeviceCredentialIssuer, DeviceCredentials, IssuedCredential,
    PasswordCredentials,
};

/// One message to a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Email {
    pub to: String,
    pub subject: String,
    pub text: String,
    /// The one link the message is about (verification, reset), if any.
    pub link: Option<String>,
}

#[derive(Debug, thiserror::Error)]
#[error("mail could not be sent: {0}")]
pub struct MailError(pub String);

#[async_trait]
pub trait Mailer: Send + Sync + 'static {
    async fn send(&self, email: Email) -> Result<(), MailError>;
}

/// Local mail: one RFC 5322 `.eml` file per message in a folder, and a log line
/// with the link, so a newcomer can finish a sign-up by clicking it.
pub struct OutboxMailer {
    dir: PathBuf,
}

impl OutboxMailer {
    pub fn new(dir: PathBuf) -> Self {
        Self { dir }
    }
}

/// Renders a plain-text RFC 5322 message (CRLF line ends, no raw 8-bit headers).
pub fn render_eml(email: &Email, from: &str, date: time::OffsetDateTime, id: &str) -> String {
    let date = date
        .format(&time::format_description::well_known::Rfc2822)
        .unwrap_or_default();
    let clean = |s: &str| s.replace(['\r', '\n'], " ");
    let mut body = email.text.replace("\r\n", "\n").replace('\n', "\r\n");
    if !body.ends_with("\r\n") {
        body.push_str("\r\n");
    }
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nDate: {date}\r\nMessage-ID: <{id}@alyt.local>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n{body}",
        to = clean(&email.to),
        subject = clean(&email.subject),
    )
}

#[async_trait]
impl Mailer for OutboxMailer {
    async fn send(&self, email: Email) -> Result<(), MailError> {
        let now = time::OffsetDateTime::now_utc();
        let id = uuid::Uuid::now_v7().to_string();
        let text = render_eml(&email, "Alyt <no-reply@alyt.local>", now, &id);
        tokio::fs::create_dir_all(&self.dir)
            .await
            .map_err(|e| MailError(e.to_string()))?;
        let path = self.dir.join(format!("{id}.eml"));
        tokio::fs::write(&path, text)
            .await
            .map_err(|e| MailError(e.to_string()))?;
        match &email.link {
            Some(link) => {
                tracing::info!(to = %email.to, subject = %email.subject, %link, file = %path.display(), "mail written to the outbox")
            }
            None => {
                tracing::info!(to = %email.to, subject = %email.subject, file = %path.display(), "mail written to the outbox")
            }
        }
        Ok(())
    }
}

/// A mailer that refuses: for runtimes whose operations send no mail yet.
pub struct NoMailer;

#[async_trait]
impl Mailer for NoMailer {
    async fn send(&self, _email: Email) -> Result<(), MailError> {
        Err(MailError("this runtime has no mailer configured".into()))
    }
}

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

/// Controls the runner of the virtual devices (spec H) without knowing
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eml_has_headers_crlf_and_no_header_injection() {
        let email = Email {
            to: "dev@example.com\r\nBcc: evil@example.com".into(),
            subject: "Verify\nyour address".into(),
            text: "Click:\nhttp://127.0.0.1/x".into(),
            link: None,
        };
        let eml = render_eml(
            &email,
            "Alyt <no-reply@alyt.local>",
            time::macros::datetime!(2026-06-01 12:00 UTC),
            "id1",
        );
        assert!(eml.starts_with(
            "From: Alyt <no-reply@alyt.local>\r\nTo: dev@example.com  Bcc: evil@example.com\r\n"
        ));
        assert!(eml.contains("Subject: Verify your address\r\n"));
        assert!(eml.contains("Date: Mon, 01 Jun 2026 12:00:00 +0000\r\n"));
        assert!(eml.ends_with("\r\n\r\nClick:\r\nhttp://127.0.0.1/x\r\n"));
        assert!(!eml.lines().any(|l| l.starts_with("Bcc:")));
    }
}
