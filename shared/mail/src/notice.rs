//! The mail that tells a developer one of their webhook endpoints was
//! disabled (the webhook worker's [`DisabledNotice`]).

use std::sync::Arc;

use alyt_events::delivery::DisabledEndpoint;
use alyt_events::worker::{DisabledNotice, disabled_text};
use alyt_store::repo::developers::DeveloperRecord;
use async_trait::async_trait;

use crate::{Email, Mailer};

/// The disabled-endpoint mail through the runtime's [`Mailer`].
pub struct MailNotice(pub Arc<dyn Mailer>);

#[async_trait]
impl DisabledNotice for MailNotice {
    async fn endpoint_disabled(
        &self,
        developer: &DeveloperRecord,
        disabled: &DisabledEndpoint,
        description: Option<&str>,
    ) -> Result<(), String> {
        self.0
            .send(Email {
                to: developer.email.clone(),
                subject: "Your Alyt webhook endpoint was disabled".into(),
                text: disabled_text(disabled, description),
                link: None,
            })
            .await
            .map_err(|e| e.to_string())
    }
}
