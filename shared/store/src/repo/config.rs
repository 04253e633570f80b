//! Platform configuration items (see `DATA_MODEL.md`): the JWT signing key
//! `CONFIG#jwt/SIGNING` `{ kid, secret, previous? }`, created once with a
//! conditional put and rotated with a conditional update (the key before
//! it stays as `previous`, still accepted), and the bootstrap marker `CONFIG#bootstrap/DONE` `{ ownerId }`,
//! written in the first start's transaction.

use alyt_domain::ids::UserId;

use crate::{Condition, Item, Key, Store, StoreError, TxWrite};

fn signing_key() -> Key {
    Key::new("CONFIG#jwt", "SIGNING")
}

fn bootstrap_marker() -> Key {
    Key::new("CONFIG#bootstrap", "DONE")
}

/// The platform's token signing key as stored (the secret base64url-encoded),
/// with the key it replaced, when it was rotated.
#[derive(Clone, PartialEq, Eq)]
pub struct SigningKey {
    pub kid: String,
    pub secret: String,
    pub previous: Option<Box<SigningKey>>,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey")
            .field("kid", &self.kid)
            .field("previous", &self.previous.as_ref().map(|p| &p.kid))
            .finish()
    }
}

impl SigningKey {
    fn from_item(item: &Item) -> Result<Self, StoreError> {
        let corrupt = || StoreError::Unavailable("the JWT signing key item is corrupt".into());
        let text = |name: &str| item.get_str(name).map(str::to_owned);
        let previous = match (text("previousKid"), text("previousSecret")) {
            (Some(kid), Some(secret)) => Some(Box::new(SigningKey {
                kid,
                secret,
                previous: None,
            })),
            (None, None) => None,
            _ => return Err(corrupt()),
        };
        Ok(Self {
            kid: text("kid").ok_or_else(corrupt)?,
            secret: text("secret").ok_or_else(corrupt)?,
            previous,
        })
    }

    fn to_item(&self) -> Item {
        let item = Item::new(signing_key())
            .with("kid", self.kid.clone())
            .with("secret", self.secret.clone());
        match &self.previous {
            Some(previous) => item
                .with("previousKid", previous.kid.clone())
                .with("previousSecret", previous.secret.clone()),
            None => item,
        }
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
        match self
            .0
            .put(candidate.to_item(), Some(Condition::item_absent()))
            .await
        {
            Ok(()) => Ok(candidate),
            Err(StoreError::ConditionFailed {
                current: Some(current),
            }) => SigningKey::from_item(&current),
            Err(e) => Err(e),
        }
    }

    /// Makes `next` the signing key, the current one its `previous` (still
    /// accepted; the one before that no longer), if the current key is
    /// still `current_kid`: of two rotations at once one wins, the other
    /// gets `ConditionFailed`. Answers the keys as stored.
    pub async fn rotate_signing_key(
        &self,
        current_kid: &str,
        next: SigningKey,
    ) -> Result<SigningKey, StoreError> {
        let Some(item) = self.0.get(&signing_key()).await? else {
            return Err(StoreError::ConditionFailed { current: None });
        };
        let current = SigningKey::from_item(&item)?;
        if current.kid != current_kid {
            return Err(StoreError::ConditionFailed {
                current: Some(Box::new(item)),
            });
        }
        let rotated = SigningKey {
            previous: Some(Box::new(SigningKey {
                previous: None,
                ..current
            })),
            ..next
        };
        self.0
            .put(rotated.to_item(), Some(Condition::eq("kid", current_kid)))
            .await?;
        Ok(rotated)
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
