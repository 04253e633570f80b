//! Mail: the [`Mailer`] port the API and the workers send through, its local
//! adapters ([`OutboxMailer`], [`NoMailer`]; SES is in `alyt-aws`), and the
//! mails a worker sends with no HTTP around it: password reset links
//! ([`reset::ResetMails`], the sweeps function: a household person's or a
//! developer's, each with its own words and reset path) and the notice of a
//! disabled webhook endpoint ([`MailNotice`], the webhooks function).

use std::path::PathBuf;

use async_trait::async_trait;

mod notice;
pub mod reset;

pub use notice::MailNotice;

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
