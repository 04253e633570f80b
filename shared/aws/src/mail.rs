//! The hosted mailer: Amazon SES (v2 SendEmail), plain text.

use alyt_mail::{Email, MailError, Mailer};
use async_trait::async_trait;
use aws_sdk_sesv2::types::{Body, Content, Destination, EmailContent, Message};

pub struct SesMailer {
    client: aws_sdk_sesv2::Client,
    from: String,
}

impl SesMailer {
    pub fn new(client: aws_sdk_sesv2::Client, from: String) -> Self {
        Self { client, from }
    }

    /// SES on `aws` (the function's [`crate::sdk_config`]), sending as `from`.
    pub fn from_config(aws: &aws_config::SdkConfig, from: String) -> Self {
        Self::new(aws_sdk_sesv2::Client::new(aws), from)
    }
}

fn content(text: &str) -> Result<Content, MailError> {
    Content::builder()
        .data(text)
        .charset("UTF-8")
        .build()
        .map_err(|e| MailError(e.to_string()))
}

#[async_trait]
impl Mailer for SesMailer {
    async fn send(&self, email: Email) -> Result<(), MailError> {
        let message = Message::builder()
            .subject(content(&email.subject)?)
            .body(Body::builder().text(content(&email.text)?).build())
            .build();
        self.client
            .send_email()
            .from_email_address(&self.from)
            .destination(Destination::builder().to_addresses(&email.to).build())
            .content(EmailContent::builder().simple(message).build())
            .send()
            .await
            .map_err(|e| MailError(aws_sdk_sesv2::error::DisplayErrorContext(e).to_string()))?;
        // The address is personal data and the body may carry a link with a
        // token: log neither.
        tracing::info!(subject = %email.subject, "mail sent through SES");
        Ok(())
    }
}
