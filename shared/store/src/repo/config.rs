//! Platform configuration items (see `DATA_MODEL.md`): the JWT signing key
//! `CONFIG#jwt/SIGNING` `{ kid, secret }`, created once with a conditional
//! put, and the bootstrap marker `CONFIG#bootstrap/DONE` `{ ownerId }`,
//! written in the first start's transaction.

use alyt_domain::ids::UserId;

use crate::{Condition, Item, Key, Store, StoreError, TxWrite};

fn signing_key() -> Key {
    Key::new("CONFIG#jwt", "SIGNING")
}

fn bootstrap_marker() -> Key {
    Key::new("CONFIG#bootstrap", "DONE")
}

/// The platform's token signing key as stored (the secret base64url-encoded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SigningKey {
    pub kid: String,
    pub secret: String,
}

impl SigningKey {
    fn from_item(item: &Item) -> Result<Self, StoreError> {
        let corrupt = || StoreError::Unavailable("the JWT signing key item is corrupt".into());
        Ok(Self {
            kid: item.get_str("kid").ok_or_else(corrupt)?.to_owned(),
            secret: item.get_str("secret").ok_or_else(corrupt)?.to_owned(),
        })
    }
}

pub struct Config<'a>(pub &'a dyn Store);

impl Config<'_> {
    /// The stored signing key, or `candidate` stored now when there is none
    /// (another instance that stored one first wins: its key is answered).
    pub async fn signing_key_or(&self, candidate: SigningKey) -> Result<SigningKey, StoreError> {
        if let Some(item) = self.0.get(&signing_key()).await? {
            return SigningKey::from_item(&item);
        }
        let item = Item::new(signing_key())
            .with("kid", candidate.kid.clone())
            .with("secret", candidate.secret.clone());
        match self.0.put(item, Some(Condition::item_absent())).await {
            Ok(()) => Ok(candidate),
            Err(StoreError::ConditionFailed {
                current: Some(current),
            }) => SigningKey::from_item(&current),
            Err(e) => Err(e),
        }
    }

    /// Whether the first start (first owner and demo household) is done.
    pub async fn bootstrapped(&self) -> Result<bool, StoreError> {
        Ok(self.0.get(&bootstrap_marker()).await?.is_some())
    }
}

/// The write that marks the first start done; part of its transaction, so
/// of two instances starting together only one finishes it.
pub fn bootstrap_done_write(owner: UserId) -> TxWrite {
    TxWrite::Put {
        item: Item::new(bootstrap_marker()).with("ownerId", owner.to_string()),
        condition: Some(Condition::item_absent()),
    }
}
