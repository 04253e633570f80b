//! Edge ports the handlers use without knowing the runtime: mail, the bot
//! check and device credentials. Local adapters live here; hosted ones in
//! `alyt-aws`.

use std::net::IpAddr;
use std::path::PathBuf;

use async_trait::async_trait;

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

/// What a device is given to reach the broker with, shown once (at
/// registration, replacement and rotation).
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum DeviceCredentials {
    /// The embedded broker (local platform): MQTT username and password.
    #[serde(rename = "password", rename_all = "camelCase")]
    Password {
        /// The device id; equal to `username` (one session per device).
        client_id: String,
        /// The device id.
        username: String,
        /// Shown once; stored only as a SHA-256 hash.
        password: String,
    },
    /// IoT Core (hosted): an X.509 certificate and its private key. The
    /// MQTT client id must be `clientId` (the IoT thing name).
    #[serde(rename = "certificate", rename_all = "camelCase")]
    Certificate {
        /// The device id, which is also the IoT thing name.
        client_id: String,
        certificate_id: String,
        certificate_pem: String,
        /// Shown once; never stored by the platform.
        private_key: String,
        /// The broker's host name (the account's IoT data endpoint), when known.
        #[serde(skip_serializing_if = "Option::is_none")]
        endpoint: Option<String>,
    },
}

/// A credential just issued: what the device is shown, and what the store
/// keeps (a hash or a certificate id, never the secret itself).
#[derive(Debug, Clone)]
pub struct IssuedCredential {
    pub shown: DeviceCredentials,
    /// SHA-256 (hex) of the password; empty for a certificate.
    pub secret_hash: String,
    pub certificate_id: Option<String>,
}

#[derive(Debug, thiserror::Error)]
#[error("device credential: {0}")]
pub struct CredentialError(pub String);

/// Where device credentials come from. The device id is the MQTT client id,
/// the username (embedded broker) and the IoT thing name (hosted).
#[async_trait]
pub trait DeviceCredentialIssuer: Send + Sync + 'static {
    /// A new credential for `device`, which reaches only the subtree
    /// `alyt/{tenant}/{property}/{device}`. Nothing is stored here: the
    /// caller writes the record in its own transaction and calls
    /// [`revoke`](Self::revoke) if that write fails.
    async fn issue(
        &self,
        tenant: alyt_domain::ids::TenantId,
        property: alyt_domain::ids::PropertyId,
        device: alyt_domain::ids::DeviceId,
    ) -> Result<IssuedCredential, CredentialError>;

    /// Makes one issued credential unusable at the broker (hosted: the
    /// certificate is deactivated, detached and deleted) while the device
    /// keeps its broker identity for the credential that replaces it
    /// (rotation, a new board). The store record is the caller's to replace
    /// or delete; locally replacing it is the revocation.
    async fn revoke(
        &self,
        device: alyt_domain::ids::DeviceId,
        certificate_id: Option<&str>,
    ) -> Result<(), CredentialError>;

    /// Ends the device at the broker: every credential it has is revoked and
    /// its broker identity (hosted: the IoT thing) removed. For a deleted
    /// device, or one whose registration was not written.
    async fn retire(
        &self,
        device: alyt_domain::ids::DeviceId,
        certificate_id: Option<&str>,
    ) -> Result<(), CredentialError> {
        self.revoke(device, certificate_id).await
    }
}

/// Embedded-broker credentials: a 256-bit random password per device, kept
/// as its SHA-256 in the store (checked by the broker's authenticator).
pub struct PasswordCredentials;

#[async_trait]
impl DeviceCredentialIssuer for PasswordCredentials {
    async fn issue(
        &self,
        _tenant: alyt_domain::ids::TenantId,
        _property: alyt_domain::ids::PropertyId,
        device: alyt_domain::ids::DeviceId,
    ) -> Result<IssuedCredential, CredentialError> {
        let password = crate::auth::secrets::random_token();
        let secret_hash = crate::auth::secrets::sha256_hex(&password);
        Ok(IssuedCredential {
            shown: DeviceCredentials::Password {
                client_id: device.to_string(),
                username: device.to_string(),
                password,
            },
            secret_hash,
            certificate_id: None,
        })
    }

    async fn revoke(
        &self,
        _device: alyt_domain::ids::DeviceId,
        _certificate_id: Option<&str>,
    ) -> Result<(), CredentialError> {
        // The authenticator reads the store on every CONNECT: once the record
        // is gone no login succeeds; open sessions are closed by the publisher.
        Ok(())
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
        crate::developers::simulator::device_seed(None, device)
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
        crate::developers::simulator::device_seed(self.platform_seed, device)
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
