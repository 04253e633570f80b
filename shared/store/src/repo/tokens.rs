//! One-time tokens (email verification, password reset, invitation links):
//! stored only as the SHA-256 of the token, consumed with a conditional delete so
//! a token works once even under concurrent use.
//!
//! Key: `TOKEN#{purpose}#{sha256}/TOKEN`, with `ttl` at expiry.

use serde::Serialize;

use crate::{Condition, Item, Key, Store, StoreError, TxWrite};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    VerifyEmail,
    ResetPassword,
    /// An invitation's link (`repo::invitations` owns it).
    Invitation,
}

impl Purpose {
    fn tag(self) -> &'static str {
        match self {
            Purpose::VerifyEmail => "verify-email",
            Purpose::ResetPassword => "reset-password",
            Purpose::Invitation => "invitation",
        }
    }
}

pub(crate) fn key(purpose: Purpose, hash: &str) -> Key {
    Key::new(format!("TOKEN#{}#{hash}", purpose.tag()), "TOKEN")
}

/// Spends a live token inside a larger transaction (the transaction fails when
/// the token is unknown, spent or expired), so the token goes exactly when the
/// change it authorises is made.
pub fn consume_write(purpose: Purpose, hash: &str, now_unix: i64) -> TxWrite {
    TxWrite::Delete {
        key: key(purpose, hash),
        condition: Some(Condition::item_present().and(Condition::gt("ttl", now_unix))),
    }
}

pub struct OneTimeTokens<'a>(pub &'a dyn Store);

impl OneTimeTokens<'_> {
    pub async fn issue<T: Serialize>(
        &self,
        purpose: Purpose,
        hash: &str,
        payload: &T,
        expires_at: i64,
    ) -> Result<(), StoreError> {
        let item = Item::from_record(key(purpose, hash), payload)?.with("ttl", expires_at);
        self.0.put(item, Some(Condition::item_absent())).await
    }

    /// Reads a live token without spending it (to check a request before
    /// consuming); only [`consume`](Self::consume) decides who gets it.
    pub async fn peek<T: crate::Record>(
        &self,
        purpose: Purpose,
        hash: &str,
        now_unix: i64,
    ) -> Result<Option<T>, StoreError> {
        match self.0.get(&key(purpose, hash)).await? {
            Some(item) if item.expires_at().is_some_and(|ttl| ttl > now_unix) => {
                Ok(Some(item.to_record()?))
            }
            _ => Ok(None),
        }
    }

    /// Takes the token: returns its payload once, `None` when unknown, spent or
    /// expired.
    pub async fn consume<T: crate::Record>(
        &self,
        purpose: Purpose,
        hash: &str,
        now_unix: i64,
    ) -> Result<Option<T>, StoreError> {
        // Expired items may linger on DynamoDB until TTL deletion: check it here.
        let live = Condition::item_present().and(Condition::gt("ttl", now_unix));
        super::delete_if(self.0, &key(purpose, hash), live).await
    }
}
