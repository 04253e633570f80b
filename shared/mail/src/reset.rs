//! Password reset mails. A reset request (`POST /auth/forgot-password` from
//! a household person, `POST /developers/auth/forgot-password` from a
//! developer) only records that someone asked and which side asked;
//! [`ResetMails::deliver`] issues the token and mails it afterwards: locally
//! by a task of the API's process, hosted by the sweeps function (a Lambda is
//! frozen once it has answered).
//!
//! Either side's token resets the same account through either reset
//! operation; the mail names the one of the side that asked. A household
//! mail goes to any account of the address (household sign-in takes every
//! account's password), a developer mail only to a developer account. Both
//! mails carry the token in a link to the console's reset page
//! (`/reset-password?token=…`, with `&side=developer` for a developer's),
//! which takes the new password, and name the exact API call that takes it.

use std::sync::Arc;

use alyt_domain::Clock;
use alyt_domain::ids::UserId;
use alyt_domain::secret::{random_token, sha256_hex};
use alyt_store::repo::identity::Users;
use alyt_store::repo::resets::{ResetRequests, ResetSide};
use alyt_store::repo::tokens::{OneTimeTokens, Purpose};
use alyt_store::{Store, StoreError};
use serde::{Deserialize, Serialize};

use crate::{Email, Mailer};

/// A reset link is valid for an hour.
pub const RESET_PASSWORD_SECONDS: i64 = 3600;

/// What a reset token stands for (stored under its hash; read back when the
/// link is used).
#[derive(Debug, Clone, Serialize, Deserialize)]
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
    /// workers run) and mails a fresh link to each one that names an account
    /// of its side (any account for a household's, a developer account for a
    /// developer's); a request naming none is dropped. Answers the mails sent.
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
                .filter(|u| request.side == ResetSide::Household || u.developer_id.is_some())
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
            let email = reset_mail(request.side, &self.public_url, &user.email, &token);
            // The request is spent either way: whoever asked can ask again.
            match self.mailer.send(email).await {
                Ok(()) => sent += 1,
                Err(e) => tracing::warn!(error = %e, "a reset mail could not be sent"),
            }
        }
        Ok(sent)
    }
}

/// The mail of one side's reset: the link carries the token to the
/// console's reset page (beside the API, as an invitation's link), and the
/// text names the reset call of the side that asked, for API clients.
fn reset_mail(side: ResetSide, public_url: &str, to: &str, token: &str) -> Email {
    let (path, subject, account) = match side {
        ResetSide::Household => (
            "/auth/reset-password",
            "Reset your Alyt password",
            "your Alyt account",
        ),
        ResetSide::Developer => (
            "/developers/auth/reset-password",
            "Reset your Alyt developer password",
            "your Alyt developer account",
        ),
    };
    let site = public_url.strip_suffix("/v1").unwrap_or(public_url);
    let link = match side {
        ResetSide::Household => format!("{site}/reset-password?token={token}"),
        ResetSide::Developer => format!("{site}/reset-password?token={token}&side=developer"),
    };
    Email {
        to: to.to_owned(),
        subject: subject.into(),
        text: format!(
            "Someone (probably you) asked to reset the password of {account}.\n\nOpen this link to choose a new password (valid one hour, once):\n\n{link}\n\nOr send its token with your new password as POST {public_url}{path} {{ \"token\", \"password\" }}. Every session of the account is signed out.\n\nIf it was not you, ignore this message: nothing changed.\n"
        ),
        link: Some(link),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_side_gets_its_own_words_and_reset_path() {
        let url = "https://api.example.com/v1";
        let household = reset_mail(ResetSide::Household, url, "a@example.com", "tok123");
        assert_eq!(household.subject, "Reset your Alyt password");
        assert_eq!(
            household.link.as_deref(),
            Some("https://api.example.com/reset-password?token=tok123")
        );
        assert!(household.text.contains("of your Alyt account."));
        assert!(
            household
                .text
                .contains("POST https://api.example.com/v1/auth/reset-password {")
        );
        assert!(!household.text.contains("developer"), "{}", household.text);

        let developer = reset_mail(ResetSide::Developer, url, "a@example.com", "tok123");
        assert_eq!(developer.subject, "Reset your Alyt developer password");
        assert_eq!(
            developer.link.as_deref(),
            Some("https://api.example.com/reset-password?token=tok123&side=developer")
        );
        assert!(
            developer
                .text
                .contains("POST https://api.example.com/v1/developers/auth/reset-password {")
        );
        assert!(developer.text.contains("your Alyt developer account."));
    }
}
