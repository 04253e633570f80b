//! People's accounts and their sign-in sessions.
//!
//! Keys: `USER#{id}/USER`, the email guard `EMAIL#{lowercased}/EMAIL`, sessions
//! `SESSION#{id}/SESSION` (gsi1 `USER#{id}` / `SESSION#{id}`), refresh tokens
//! `REFRESH#{sha256}/REFRESH`.

use std::collections::BTreeMap;

use alyt_domain::access::{PlatformRole, SessionKind, TenantRole};
use alyt_domain::ids::{DeveloperId, SessionId, TenantId, UserId};
use serde::{Deserialize, Serialize};
use serde_json::json;
use time::OffsetDateTime;

use super::CreateError;
use super::ts;
use crate::{
    Condition, Index, Item, Key, Query, SortKey, Store, StoreError, TxWrite, UpdateAction,
};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserRecord {
    pub id: UserId,
    /// As typed at sign-up; compared lowercased.
    pub email: String,
    /// argon2id PHC string.
    pub password_hash: String,
    #[serde(with = "ts::option", default)]
    pub email_verified_at: Option<OffsetDateTime>,
    #[serde(default)]
    pub platform_role: Option<PlatformRole>,
    #[serde(default)]
    pub tenants: BTreeMap<TenantId, TenantRole>,
    #[serde(default)]
    pub developer_id: Option<DeveloperId>,
    #[serde(default)]
    pub mfa: Option<MfaRecord>,
    /// 'metric' or 'imperial'.
    #[serde(default)]
    pub units: Option<String>,
    #[serde(with = "ts::rfc3339")]
    pub created_at: OffsetDateTime,
}

/// TOTP state. The secret must be readable to check codes, so it cannot be
/// hashed; it never leaves the platform after setup.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MfaRecord {
    pub secret_base32: String,
    #[serde(with = "ts::option", default)]
    pub enabled_at: Option<OffsetDateTime>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRecord {
    pub id: SessionId,
    pub user_id: UserId,
    pub kind: SessionKind,
    /// Generation of the newest refresh token.
    pub generation: u32,
    pub revoked: bool,
    #[serde(with = "ts::rfc3339")]
    pub created_at: OffsetDateTime,
    /// Absolute end of the session (Unix seconds; also the item's ttl).
    pub expires_at: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RefreshRecord {
    pub session_id: SessionId,
    pub generation: u32,
}

pub fn email_key(email: &str) -> String {
    email.trim().to_lowercase()
}

pub fn user_key(id: UserId) -> Key {
    Key::new(format!("USER#{id}"), "USER")
}
pub fn email_guard(email: &str) -> Key {
    Key::new(format!("EMAIL#{}", email_key(email)), "EMAIL")
}
fn session_key(id: SessionId) -> Key {
    Key::new(format!("SESSION#{id}"), "SESSION")
}
fn refresh_key(hash: &str) -> Key {
    Key::new(format!("REFRESH#{hash}"), "REFRESH")
}

pub struct Users<'a>(pub &'a dyn Store);

impl Users<'_> {
    /// Creates the user and claims the address in one transaction.
    pub async fn create(&self, user: &UserRecord) -> Result<(), CreateError> {
        let guard = Item::new(email_guard(&user.email)).with("userId", user.id.to_string());
        let writes = vec![
            TxWrite::Put {
                item: Item::from_record(user_key(user.id), user)?,
                condition: Some(Condition::item_absent()),
            },
            TxWrite::Put {
                item: guard,
                condition: Some(Condition::item_absent()),
            },
        ];
        match self.0.transact(writes).await {
            Err(e) if e.is_condition_failure() => Err(CreateError::Taken("email")),
            other => Ok(other?),
        }
    }

    pub async fn get(&self, id: UserId) -> Result<Option<UserRecord>, StoreError> {
        self.0
            .get(&user_key(id))
            .await?
            .map(|i| i.to_record())
            .transpose()
    }

    /// The accounts of `ids` that exist, in no particular order (one batch
    /// get per 100 ids).
    pub async fn get_many(&self, ids: &[UserId]) -> Result<Vec<UserRecord>, StoreError> {
        let mut users = Vec::with_capacity(ids.len());
        for chunk in ids.chunks(crate::MAX_BATCH_GET_KEYS) {
            let keys: Vec<Key> = chunk.iter().map(|id| user_key(*id)).collect();
            for item in self.0.batch_get(&keys).await? {
                users.push(item.to_record()?);
            }
        }
        Ok(users)
    }

    /// The id of the account of `email`: one read, whether or not there is one
    /// (for answers that must not tell the two apart by their cost).
    pub async fn id_by_email(&self, email: &str) -> Result<Option<UserId>, StoreError> {
        Ok(self
            .0
            .get(&email_guard(email))
            .await?
            .and_then(|guard| guard.get_str("userId").and_then(|s| s.parse().ok())))
    }

    pub async fn find_by_email(&self, email: &str) -> Result<Option<UserRecord>, StoreError> {
        let Some(guard) = self.0.get(&email_guard(email)).await? else {
            return Ok(None);
        };
        let Some(id) = guard.get_str("userId").and_then(|s| s.parse().ok()) else {
            return Ok(None);
        };
        self.get(id).await
    }

    /// Writes the record's fields over the stored user. An update of exactly
    /// those fields, not a whole-item put: `totpLastStep`, which only
    /// [`accept_totp_step`](Self::accept_totp_step) advances, is never rolled
    /// back (a rollback would make a used code valid again).
    pub async fn save(&self, user: &UserRecord) -> Result<(), StoreError> {
        let fields = Item::from_record(user_key(user.id), user)?;
        let actions = fields
            .attrs()
            .iter()
            .filter(|(name, _)| *name != crate::attr::PK && *name != crate::attr::SK)
            .map(|(name, value)| UpdateAction::Set(name.clone(), value.clone()))
            .collect();
        self.0
            .update(&user_key(user.id), actions, Some(Condition::item_present()))
            .await
            .map(|_| ())
    }

    pub async fn set_password(&self, id: UserId, hash: &str) -> Result<(), StoreError> {
        self.0
            .update(
                &user_key(id),
                vec![UpdateAction::Set("passwordHash".into(), json!(hash))],
                Some(Condition::item_present()),
            )
            .await
            .map(|_| ())
    }

    /// Records `step` as the last accepted TOTP step, only if it is newer than the
    /// stored one: a code can be used once even by concurrent requests.
    pub async fn accept_totp_step(&self, id: UserId, step: i64) -> Result<bool, StoreError> {
        let newer = Condition::not_exists("totpLastStep").or(Condition::lt("totpLastStep", step));
        match self
            .0
            .update(
                &user_key(id),
                vec![UpdateAction::Set("totpLastStep".into(), json!(step))],
                Some(Condition::item_present().and(newer)),
            )
            .await
        {
            Ok(_) => Ok(true),
            Err(StoreError::ConditionFailed { .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }
}

pub struct Sessions<'a>(pub &'a dyn Store);

/// How a refresh attempt ended in the store.
#[derive(Debug, Clone, PartialEq)]
pub enum Rotation {
    Rotated(SessionRecord),
    /// The presented generation is no longer the newest (or the session was
    /// revoked meanwhile): the caller decides between reuse and refusal.
    Lost,
}

impl Sessions<'_> {
    /// Starts a session with its first refresh token (generation 0).
    pub async fn start(
        &self,
        session: &SessionRecord,
        refresh_hash: &str,
    ) -> Result<(), StoreError> {
        let session_item = Item::from_record(session_key(session.id), session)?
            .with("ttl", session.expires_at)
            .with(Index::Gsi1.pk_attr(), format!("USER#{}", session.user_id))
            .with(Index::Gsi1.sk_attr(), format!("SESSION#{}", session.id));
        let refresh = RefreshRecord {
            session_id: session.id,
            generation: 0,
        };
        self.0
            .transact(vec![
                TxWrite::Put {
                    item: session_item,
                    condition: Some(Condition::item_absent()),
                },
                TxWrite::Put {
                    item: Item::from_record(refresh_key(refresh_hash), &refresh)?
                        .with("ttl", session.expires_at),
                    condition: Some(Condition::item_absent()),
                },
            ])
            .await
    }

    pub async fn get(&self, id: SessionId) -> Result<Option<SessionRecord>, StoreError> {
        self.0
            .get(&session_key(id))
            .await?
            .map(|i| i.to_record())
            .transpose()
    }

    pub async fn find_refresh(&self, hash: &str) -> Result<Option<RefreshRecord>, StoreError> {
        self.0
            .get(&refresh_key(hash))
            .await?
            .map(|i| i.to_record())
            .transpose()
    }

    /// Moves the session from generation `from` to `from + 1` and stores the new
    /// token, in one transaction conditioned on `from` still being the newest and
    /// the session live: of concurrent rotations exactly one wins.
    pub async fn rotate(
        &self,
        session: &SessionRecord,
        from: u32,
        new_refresh_hash: &str,
    ) -> Result<Rotation, StoreError> {
        let next = RefreshRecord {
            session_id: session.id,
            generation: from + 1,
        };
        let result = self
            .0
            .transact(vec![
                TxWrite::Update {
                    key: session_key(session.id),
                    actions: vec![UpdateAction::Set("generation".into(), json!(from + 1))],
                    condition: Some(
                        Condition::eq("generation", from).and(Condition::eq("revoked", false)),
                    ),
                },
                TxWrite::Put {
                    item: Item::from_record(refresh_key(new_refresh_hash), &next)?
                        .with("ttl", session.expires_at),
                    condition: Some(Condition::item_absent()),
                },
            ])
            .await;
        match result {
            Ok(()) => Ok(Rotation::Rotated(SessionRecord {
                generation: from + 1,
                ..session.clone()
            })),
            Err(e) if e.is_condition_failure() => Ok(Rotation::Lost),
            Err(e) => Err(e),
        }
    }

    pub async fn revoke(&self, id: SessionId) -> Result<(), StoreError> {
        match self
            .0
            .update(
                &session_key(id),
                vec![UpdateAction::Set("revoked".into(), json!(true))],
                Some(Condition::item_present()),
            )
            .await
        {
            Ok(_) | Err(StoreError::ConditionFailed { .. }) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Revokes every live session of a user (password change or reset).
    pub async fn revoke_all_of(&self, user: UserId) -> Result<usize, StoreError> {
        let mut revoked = 0;
        let mut after = None;
        loop {
            let page = self
                .0
                .query(
                    Query::on_index(Index::Gsi1, format!("USER#{user}"))
                        .sort(SortKey::BeginsWith("SESSION#".into()))
                        .after(after),
                )
                .await?;
            for item in &page.items {
                let session: SessionRecord = item.to_record()?;
                if !session.revoked {
                    self.revoke(session.id).await?;
                    revoked += 1;
                }
            }
            match page.next {
                Some(next) => after = Some(next),
                None => return Ok(revoked),
            }
        }
    }
}
