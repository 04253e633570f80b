//! Password reset mails. A reset request (`POST .../forgot-password`) only
//! records that someone asked; [`ResetMails::deliver`] issues the link and
//! mails it afterwards: locally by a task of the API's process, hosted by the
//! sweeps function (a Lambda is frozen once it has answered).

use std::sync::Arc;

use alyt_domain::Clock;
use alyt_domain::ids::UserId;
use alyt_domain::secret::{random_token, sha256_hex};
use alyt_store::repo::identity::Users;
use alyt_store::repo::resets::ResetRequests;
use alyt_store::repo::tokens::{OneTimeTokens, Purpose};
use alyt_store::{Store, StoreError};
use serde::{Deserialize, Serialize};

use crate::{Email, Mailer};

/// A reset link is valid for an hour.
pub const RESET_PASSWORD_SECONDS: i64 = 3600;

/// What a reset token stands for (stored under its hash; read back when the
/// link is used).
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResetPayload {
    pub user_id: UserId,
}

/// What delivering reset mails needs: the API's state, or a worker's own.
#[derive(Clone)]
pub struct ResetMails {
    pub store: Arc<dyn Store>,
    pub clock: Arc<dyn Clock>,
    pub mailer: Arc<dyn Mailer>,
    /// The API's base with /v1, for the link.
    pub public_url: String,
}

impl ResetMails {
    /// Takes the waiting reset requests (each at most once, however many
    /// workers run) and mails a fresh link to each one that names a developer
    /// account; a request naming none is dropped. Answers the mails sent.
    pub async fn deliver(&self) -> Result<usize, StoreError> {
        let requests = ResetRequests(&*self.store);
        let mut sent = 0;
        for request in requests.pending(25).await? {
            if !requests.claim(request.id).await? {
                continue;
            }
            let Some(user_id) = request.user_id else {
                continue;
            };
            let Some(user) = Users(&*self.store)
                .get(user_id)
                .await?
                .filter(|u| u.developer_id.is_some())
            else {
                continue;
            };
            let token = random_token();
            OneTimeTokens(&*self.store)
                .issue(
                    Purpose::ResetPassword,
                    &sha256_hex(&token),
                    &ResetPayload { user_id: user.id },
                    self.clock.unix_seconds() + RESET_PASSWORD_SECONDS,
                )
                .await?;
            let link = format!(
                "{}/developers/auth/reset-password?token={token}",
                self.public_url
            );
            let email = Email {
                to: user.email.clone(),
                subject: "Reset your Alyt developer password".into(),
                text: format!(
                    "Someone (probably you) asked to reset the password of your Alyt developer account.\n\nReset link (valid one hour, once):\n\n{link}\n\nSend its token with your new password as POST {}/developers/auth/reset-password {{ \"token\", \"password\" }}. Every session of the account is signed out.\n\nIf it was not you, ignore this message: nothing changed.\n",
                    self.public_url
                ),
                link: Some(link),
            };
            // The request is spent either way: whoever asked can ask again.
            match self.mailer.send(email).await {
                Ok(()) => sent += 1,
                Err(e) => tracing::warn!(error = %e, "a reset mail could not be sent"),
            }
        }
        Ok(sent)
    }
}
