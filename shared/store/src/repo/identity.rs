//! People's accounts and their sign-in sessions.
//!
//! Keys: `USER#{id}/USER`, the email guard `EMAIL#{lowercased}/EMAIL`, sessions
//! `SESSION#{id}/SESSION` (gsi1 `USER#{id}` / `SESSION#{id}`), refresh tokens
//! `REFRESH#{sha256}/REFRESH`.

use super::{CONFLICT_ATTEMPTS, CreateError, conflict_pause, record, ts};
use std::collections::BTreeMap;

use alyt_domain::access::{PlatformRole, SessionKind, TenantRole};
use alyt_domain::ids::{DeveloperId, SessionId, TenantId, UserId};
use alyt_domain::session::{RefreshOutcome, RefreshView, decide_refresh};
use serde::{Deserialize, Serialize};
use serde_json::json;
use time::OffsetDateTime;

use crate::{
    CancelReason, Condition, Index, Item, Key, Query, SortKey, Store, StoreError, TxWrite,
    UpdateAction,
};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserRecord {
    pub id: UserId,
    /// As typed at sign-up; compared lowercased.
    pub email: String,
    /// How the person is called (given when accepting an invitation);
    /// developers carry theirs on the developer record.
    #[serde(default)]
    pub name: Option<String>,
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
    /// The developer account a developer session signs in (none for a
    /// household session). Its access tokens carry only the spec's claims,
    /// so this is where a request finds it. Absent from developer sessions
    /// started before it was kept: those find it on their user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub developer: Option<DeveloperId>,
    /// Generation of the newest refresh token.
    pub generation: u32,
    pub revoked: bool,
    /// Revoked because the person's guest stay ended: what they are told
    /// when they use it again (instead of a bare 401).
    #[serde(default)]
    pub stay_ended: bool,
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

/// The writes that create `user` and claim its address (both conditioned
/// on absence: the second fails when the address has an account), for a
/// transaction that does more (accepting an invitation).
pub fn create_writes(user: &UserRecord) -> Result<Vec<TxWrite>, StoreError> {
    let guard = Item::new(email_guard(&user.email)).with("userId", user.id.to_string());
    Ok(vec![
        TxWrite::Put {
            item: Item::from_record(user_key(user.id), user)?,
            condition: Some(Condition::item_absent()),
        },
        TxWrite::Put {
            item: guard,
            condition: Some(Condition::item_absent()),
        },
    ])
}

/// Records that `user`'s address was proven at `at` (an invitation accepted
/// by an account that never verified it), for the accepting transaction.
pub fn verify_email_write(user: UserId, at: OffsetDateTime) -> Result<TxWrite, StoreError> {
    let at = at
        .format(&time::format_description::well_known::Rfc3339)
        .map_err(|e| StoreError::Invalid(e.to_string()))?;
    Ok(TxWrite::Update {
        key: user_key(user),
        actions: vec![UpdateAction::Set("emailVerifiedAt".into(), at.into())],
        condition: Some(Condition::item_present()),
    })
}

impl Users<'_> {
    /// Creates the user and claims the address in one transaction.
    pub async fn create(&self, user: &UserRecord) -> Result<(), CreateError> {
        match self.0.transact(create_writes(user)?).await {
            Err(e) if e.is_condition_failure() => Err(CreateError::Taken("email")),
            other => Ok(other?),
        }
    }

    pub async fn get(&self, id: UserId) -> Result<Option<UserRecord>, StoreError> {
        record(self.0, &user_key(id)).await
    }

    /// The accounts of `ids` that exist, in no particular order (one batch
    /// get per 100 ids).
    pub async fn get_many(&self, ids: &[UserId]) -> Result<Vec<UserRecord>, StoreError> {
        let keys: Vec<Key> = ids.iter().map(|id| user_key(*id)).collect();
        super::get_all(self.0, &keys)
            .await?
            .iter()
            .map(Item::to_record)
            .collect()
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
        super::applied(
            self.0
                .update(
                    &user_key(id),
                    vec![UpdateAction::Set("totpLastStep".into(), json!(step))],
                    Some(Condition::item_present().and(newer)),
                )
                .await,
        )
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

/// How presenting a refresh token ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Refreshed {
    /// The token was the newest of its live family: the session is now at
    /// the next generation, whose token was stored.
    Rotated(SessionRecord),
    /// An unknown token, one of another kind of session, or one of an
    /// expired or revoked family: nothing changed.
    Refused,
    /// The session was signed out because the person's guest stay ended.
    StayEnded,
    /// A rotated token came back, or a concurrent refresh of the same token
    /// won: reuse, so this session (the whole family) is now revoked.
    Revoked(SessionId),
}

/// Attempts of a session transaction that keeps meeting DynamoDB's
/// transaction conflicts (another transaction on the session in flight).
/// A transaction cancelled only because another one held its items (on
/// DynamoDB, TransactionConflict): no condition decided anything.
fn is_conflict(error: &StoreError) -> bool {
    matches!(error, StoreError::TransactionCanceled { reasons }
        if reasons.contains(&CancelReason::Conflict) && !error.is_condition_failure())
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
        record(self.0, &session_key(id)).await
    }

    pub async fn find_refresh(&self, hash: &str) -> Result<Option<RefreshRecord>, StoreError> {
        record(self.0, &refresh_key(hash)).await
    }

    /// Presents a refresh token (by its hash) for a session of `kind` at
    /// `now_unix`: rotates it to `next_hash` when it is the newest token of a
    /// live family, and revokes the family when it is not (reuse), also when a
    /// concurrent refresh of the same token won the race. Of any number of
    /// concurrent refreshes of one token exactly one rotates it, on both
    /// stores.
    pub async fn refresh(
        &self,
        presented_hash: &str,
        kind: SessionKind,
        now_unix: i64,
        next_hash: &str,
    ) -> Result<Refreshed, StoreError> {
        let Some(token) = self.find_refresh(presented_hash).await? else {
            return Ok(Refreshed::Refused);
        };
        let Some(session) = self.get(token.session_id).await?.filter(|s| s.kind == kind) else {
            return Ok(Refreshed::Refused);
        };
        if session.revoked && session.stay_ended {
            return Ok(Refreshed::StayEnded);
        }
        let view = RefreshView {
            family_revoked: session.revoked,
            current_generation: session.generation,
            presented_generation: token.generation,
            expired: now_unix >= session.expires_at,
        };
        match decide_refresh(view) {
            RefreshOutcome::Refused => Ok(Refreshed::Refused),
            RefreshOutcome::ReuseDetected => {
                self.revoke_family(session.id).await?;
                Ok(Refreshed::Revoked(session.id))
            }
            RefreshOutcome::Rotate { .. } => {
                match self.rotate(&session, token.generation, next_hash).await? {
                    Rotation::Rotated(session) => Ok(Refreshed::Rotated(session)),
                    // A concurrent refresh of the same token won: this one
                    // presented a token that is now rotated, which is reuse.
                    Rotation::Lost => {
                        self.revoke_family(session.id).await?;
                        Ok(Refreshed::Revoked(session.id))
                    }
                }
            }
        }
    }

    /// Moves the session from generation `from` to `from + 1` and stores the new
    /// token, in one transaction conditioned on `from` still being the newest and
    /// the session live: of concurrent rotations exactly one wins.
    ///
    /// On DynamoDB a rotation racing another transaction on the session can be
    /// cancelled for the conflict alone (TransactionConflict), which decides
    /// nothing: the session is read again, and if the other write moved it on
    /// (rotated or revoked) this rotation lost; if not, it is tried again after
    /// a pause. A conflict never counts as a win or a loss by itself.
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
        let writes = vec![
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
        ];
        let mut attempt = 0;
        loop {
            match self.0.transact(writes.clone()).await {
                Ok(()) => {
                    return Ok(Rotation::Rotated(SessionRecord {
                        generation: from + 1,
                        ..session.clone()
                    }));
                }
                Err(e) if e.is_condition_failure() => return Ok(Rotation::Lost),
                Err(e) if is_conflict(&e) && attempt + 1 < CONFLICT_ATTEMPTS => {
                    let moved_on = self
                        .get(session.id)
                        .await?
                        .is_none_or(|now| now.generation != from || now.revoked);
                    if moved_on {
                        return Ok(Rotation::Lost);
                    }
                    conflict_pause(attempt).await;
                    attempt += 1;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Revokes a family in a refresh race. Other refreshes' transactions hold
    /// the session then, and on DynamoDB a single-item write to an item in a
    /// transaction fails (TransactionConflictException) in a way the store
    /// cannot tell from an outage; a transaction's conflict is a cancel
    /// reason, so the revocation goes through one and is retried until the
    /// session is revoked (by this write or another).
    async fn revoke_family(&self, id: SessionId) -> Result<(), StoreError> {
        let revoke = vec![TxWrite::Update {
            key: session_key(id),
            actions: vec![UpdateAction::Set("revoked".into(), json!(true))],
            condition: Some(Condition::item_present()),
        }];
        let mut attempt = 0;
        loop {
            match self.0.transact(revoke.clone()).await {
                // Revoked, or gone (expired): either way it refreshes no more.
                Ok(()) => return Ok(()),
                Err(e) if e.is_condition_failure() => return Ok(()),
                Err(e) if is_conflict(&e) && attempt + 1 < CONFLICT_ATTEMPTS => {
                    if self.get(id).await?.is_none_or(|now| now.revoked) {
                        return Ok(());
                    }
                    conflict_pause(attempt).await;
                    attempt += 1;
                }
                Err(e) => return Err(e),
            }
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
        self.revoke_all_where(user, false).await
    }

    /// Revokes every live session of a guest whose stay ended, saying so.
    pub async fn end_stay_of(&self, user: UserId) -> Result<usize, StoreError> {
        self.revoke_all_where(user, true).await
    }

    async fn revoke_all_where(&self, user: UserId, stay_ended: bool) -> Result<usize, StoreError> {
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
                    let mut why = vec![UpdateAction::Set("revoked".into(), json!(true))];
                    if stay_ended {
                        why.push(UpdateAction::Set("stayEnded".into(), json!(true)));
                    }
                    match self
                        .0
                        .update(
                            &session_key(session.id),
                            why,
                            Some(Condition::item_present()),
                        )
                        .await
                    {
                        Ok(_) | Err(StoreError::ConditionFailed { .. }) => {}
                        Err(e) => return Err(e),
                    }
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
