//! Developer accounts and their keys.
//!
//! Keys: `DEVELOPER#{dev}/DEVELOPER` (gsi1 `DEVELOPERS` / `{createdAt}#{dev}` for the
//! admin list), keys `DEVELOPER#{dev}/KEY#{key}`, and the secret lookup
//! `KEYHASH#{sha256}/KEYHASH` written in the same transaction as the key, so a
//! key authenticates with one strongly consistent read the moment it exists.

use super::{CreateError, page, record, ts};
use alyt_domain::access::{KeyKind, Scope};
use alyt_domain::ids::{DeveloperId, KeyId, TenantId, UserId};
use serde::{Deserialize, Serialize};
use serde_json::json;
use time::OffsetDateTime;

use super::identity::{MfaRecord, UserRecord, email_guard, user_key};
use crate::{
    Condition, Index, Item, Key, ListScope, PageKey, SortKey, Store, StoreError, TxWrite,
    UpdateAction,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "UPPERCASE")]
pub enum DeveloperType {
    Individual,
    Brand,
    Integrator,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum DeveloperStatus {
    PendingEmail,
    Active,
    Suspended,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeveloperRecord {
    pub id: DeveloperId,
    pub user_id: UserId,
    pub email: String,
    #[serde(rename = "type")]
    pub kind: DeveloperType,
    pub display_name: String,
    pub organisation: Option<String>,
    pub website: Option<String>,
    pub status: DeveloperStatus,
    pub sandbox_tenant_id: Option<TenantId>,
    #[serde(with = "ts::option", default)]
    pub verified_at: Option<OffsetDateTime>,
    #[serde(with = "ts::option", default)]
    pub mfa_enabled_at: Option<OffsetDateTime>,
    #[serde(with = "ts::rfc3339")]
    pub created_at: OffsetDateTime,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KeyRecord {
    pub id: KeyId,
    pub developer_id: DeveloperId,
    pub kind: KeyKind,
    pub name: String,
    /// The first characters of the secret, shown for recognition.
    pub prefix: String,
    pub scopes: Vec<Scope>,
    /// The connector definition a LIVE key belongs to.
    pub definition_id: Option<String>,
    #[serde(with = "ts::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "ts::option", default)]
    pub expires_at: Option<OffsetDateTime>,
    #[serde(with = "ts::option", default)]
    pub last_used_at: Option<OffsetDateTime>,
    #[serde(with = "ts::option", default)]
    pub revoked_at: Option<OffsetDateTime>,
    pub rotated_from_id: Option<KeyId>,
    /// SHA-256 (hex) of the current secret.
    pub secret_hash: String,
}

fn developer_key(id: DeveloperId) -> Key {
    Key::new(format!("DEVELOPER#{id}"), "DEVELOPER")
}
fn key_key(developer: DeveloperId, id: KeyId) -> Key {
    Key::new(format!("DEVELOPER#{developer}"), format!("KEY#{id}"))
}
fn hash_key(hash: &str) -> Key {
    Key::new(format!("KEYHASH#{hash}"), "KEYHASH")
}
// The user and email-guard keys of `identity` (kept private there), needed to
// write a developer's user in the same transaction as the developer.

fn rfc3339(at: OffsetDateTime) -> String {
    at.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

/// The writes of a sign-up: the user, the guard on its address and the
/// developer, all created together or not at all.
pub fn sign_up_writes(
    user: &UserRecord,
    developer: &DeveloperRecord,
) -> Result<Vec<TxWrite>, StoreError> {
    Ok(vec![
        TxWrite::Put {
            item: Item::from_record(user_key(user.id), user)?,
            condition: Some(Condition::item_absent()),
        },
        TxWrite::Put {
            item: Item::new(email_guard(&user.email)).with("userId", user.id.to_string()),
            condition: Some(Condition::item_absent()),
        },
        TxWrite::Put {
            item: developer_item(developer)?,
            condition: Some(Condition::item_absent()),
        },
    ])
}

/// The writes that verify a developer and attach its sandbox tenant: the
/// developer (as read, `before`) moves to ACTIVE with `sandbox`, only while it
/// is still in the status it was read in and has no sandbox yet (so a sandbox
/// is provisioned once however often verification runs); its user becomes the
/// sandbox's ADMIN (`user` carries the new tenants map) with a verified address.
pub fn verify_writes(
    before: &DeveloperRecord,
    user: &UserRecord,
    sandbox: TenantId,
    at: OffsetDateTime,
) -> Result<Vec<TxWrite>, StoreError> {
    let tenants = serde_json::to_value(&user.tenants)
        .map_err(|e| StoreError::Invalid(format!("tenants are not serialisable: {e}")))?;
    let verified_at = rfc3339(before.verified_at.unwrap_or(at));
    let email_verified_at = rfc3339(user.email_verified_at.unwrap_or(at));
    let status = serde_json::to_value(before.status)
        .map_err(|e| StoreError::Invalid(format!("status is not serialisable: {e}")))?;
    Ok(vec![
        TxWrite::Update {
            key: developer_key(before.id),
            actions: vec![
                UpdateAction::Set("status".into(), json!(DeveloperStatus::Active)),
                UpdateAction::Set("sandboxTenantId".into(), json!(sandbox)),
                UpdateAction::Set("verifiedAt".into(), json!(verified_at)),
            ],
            condition: Some(
                Condition::eq("status", status).and(
                    Condition::not_exists("sandboxTenantId")
                        .or(Condition::eq("sandboxTenantId", serde_json::Value::Null)),
                ),
            ),
        },
        TxWrite::Update {
            key: user_key(user.id),
            actions: vec![
                UpdateAction::Set("tenants".into(), tenants),
                UpdateAction::Set("emailVerifiedAt".into(), json!(email_verified_at)),
            ],
            condition: Some(Condition::item_present()),
        },
    ])
}

/// A sortable timestamp: UTC with all nine subsecond digits, so that string
/// order is time order (RFC 3339 as `time` writes it drops trailing zeros, and
/// `05.1Z` would sort after `05.12Z` and `05Z` after both).
fn sortable(at: OffsetDateTime) -> String {
    let format = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:9]Z"
    );
    at.to_offset(time::UtcOffset::UTC)
        .format(&format)
        .unwrap_or_default()
}

pub fn developer_item(developer: &DeveloperRecord) -> Result<Item, StoreError> {
    let created = sortable(developer.created_at);
    Ok(Item::from_record(developer_key(developer.id), developer)?
        .with(Index::Gsi1.pk_attr(), "DEVELOPERS")
        .with(Index::Gsi1.sk_attr(), format!("{created}#{}", developer.id)))
}

pub struct Developers<'a>(pub &'a dyn Store);

impl Developers<'_> {
    pub async fn get(&self, id: DeveloperId) -> Result<Option<DeveloperRecord>, StoreError> {
        record(self.0, &developer_key(id)).await
    }

    /// Creates the user, its address guard and the developer in one transaction.
    pub async fn sign_up(
        &self,
        user: &UserRecord,
        developer: &DeveloperRecord,
    ) -> Result<(), CreateError> {
        match self.0.transact(sign_up_writes(user, developer)?).await {
            Err(e) if e.is_condition_failure() => Err(CreateError::Taken("email")),
            other => Ok(other?),
        }
    }

    /// Replaces the password and profile of a sign-up nobody verified yet (a
    /// repeated sign-up with the same address): only while the developer is
    /// still PENDING_EMAIL. Returns whether it was replaced.
    pub async fn replace_pending(
        &self,
        user_id: UserId,
        password_hash: &str,
        developer: &DeveloperRecord,
    ) -> Result<bool, StoreError> {
        let result = self
            .0
            .transact(vec![
                TxWrite::Put {
                    item: developer_item(developer)?,
                    condition: Some(Condition::eq(
                        "status",
                        json!(DeveloperStatus::PendingEmail),
                    )),
                },
                TxWrite::Update {
                    key: user_key(user_id),
                    actions: vec![UpdateAction::Set(
                        "passwordHash".into(),
                        json!(password_hash),
                    )],
                    condition: Some(Condition::item_present()),
                },
            ])
            .await;
        super::applied(result)
    }

    /// Sets (or, with `None`, clears) the MFA state of a developer's user and the
    /// developer's `mfaEnabledAt` together. Only the `mfa` attribute of the user is
    /// written, so the last accepted TOTP step stays (a code is never reusable).
    pub async fn set_mfa(
        &self,
        user: UserId,
        developer: DeveloperId,
        mfa: Option<&MfaRecord>,
    ) -> Result<(), StoreError> {
        let mfa_value = serde_json::to_value(mfa)
            .map_err(|e| StoreError::Invalid(format!("mfa is not serialisable: {e}")))?;
        let enabled_at = mfa
            .and_then(|m| m.enabled_at)
            .map(|at| json!(rfc3339(at)))
            .unwrap_or(serde_json::Value::Null);
        self.0
            .transact(vec![
                TxWrite::Update {
                    key: user_key(user),
                    actions: vec![UpdateAction::Set("mfa".into(), mfa_value)],
                    condition: Some(Condition::item_present()),
                },
                TxWrite::Update {
                    key: developer_key(developer),
                    actions: vec![UpdateAction::Set("mfaEnabledAt".into(), enabled_at)],
                    condition: Some(Condition::item_present()),
                },
            ])
            .await
    }

    pub async fn save(&self, developer: &DeveloperRecord) -> Result<(), StoreError> {
        self.0
            .put(developer_item(developer)?, Some(Condition::item_present()))
            .await
    }

    pub async fn key(
        &self,
        developer: DeveloperId,
        id: KeyId,
    ) -> Result<Option<KeyRecord>, StoreError> {
        record(self.0, &key_key(developer, id)).await
    }

    pub async fn keys(&self, developer: DeveloperId) -> Result<Vec<KeyRecord>, StoreError> {
        let page = self
            .0
            .query(
                developer_keys(developer)
                    .query()
                    .sort(SortKey::BeginsWith("KEY#".into())),
            )
            .await?;
        page.items.iter().map(Item::to_record).collect()
    }

    /// One page of a developer's keys, oldest first.
    pub async fn keys_page(
        &self,
        developer: DeveloperId,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<KeyRecord>, Option<PageKey>), StoreError> {
        page(
            self.0,
            developer_keys(developer)
                .query()
                .sort(SortKey::BeginsWith("KEY#".into()))
                .limit(limit)
                .after(after),
        )
        .await
    }

    /// Stores a new key and its secret lookup in one transaction.
    pub async fn create_key(&self, key: &KeyRecord) -> Result<(), StoreError> {
        self.0
            .transact(vec![
                TxWrite::Put {
                    item: Item::from_record(key_key(key.developer_id, key.id), key)?,
                    condition: Some(Condition::item_absent()),
                },
                TxWrite::Put {
                    item: hash_item(key),
                    condition: Some(Condition::item_absent()),
                },
            ])
            .await
    }

    /// The key whose secret hashes to `hash`, if any.
    pub async fn key_by_secret_hash(&self, hash: &str) -> Result<Option<KeyRecord>, StoreError> {
        let Some(lookup) = self.0.get(&hash_key(hash)).await? else {
            return Ok(None);
        };
        let (Some(developer), Some(id)) = (
            lookup.get_str("developerId").and_then(|s| s.parse().ok()),
            lookup.get_str("keyId").and_then(|s| s.parse().ok()),
        ) else {
            return Ok(None);
        };
        self.key(developer, id).await
    }

    /// Replaces the key's secret: the old secret stops working at once, the id
    /// (App ID) stays. Conditioned on the old secret still being current.
    pub async fn rotate_secret(
        &self,
        key: &KeyRecord,
        new_hash: &str,
        new_prefix: &str,
    ) -> Result<KeyRecord, StoreError> {
        let rotated = KeyRecord {
            secret_hash: new_hash.to_owned(),
            prefix: new_prefix.to_owned(),
            ..key.clone()
        };
        self.0
            .transact(vec![
                TxWrite::Update {
                    key: key_key(key.developer_id, key.id),
                    actions: vec![
                        UpdateAction::Set("secretHash".into(), json!(new_hash)),
                        UpdateAction::Set("prefix".into(), json!(new_prefix)),
                    ],
                    condition: Some(
                        Condition::eq("secretHash", key.secret_hash.as_str()).and(
                            Condition::not_exists("revokedAt")
                                .or(Condition::eq("revokedAt", serde_json::Value::Null)),
                        ),
                    ),
                },
                TxWrite::Delete {
                    key: hash_key(&key.secret_hash),
                    condition: None,
                },
                TxWrite::Put {
                    item: hash_item(&rotated),
                    condition: Some(Condition::item_absent()),
                },
            ])
            .await?;
        Ok(rotated)
    }

    pub async fn revoke_key(&self, key: &KeyRecord, at: OffsetDateTime) -> Result<(), StoreError> {
        let at = at
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default();
        self.0
            .transact(vec![
                TxWrite::Update {
                    key: key_key(key.developer_id, key.id),
                    actions: vec![UpdateAction::Set("revokedAt".into(), json!(at))],
                    condition: Some(Condition::item_present()),
                },
                TxWrite::Delete {
                    key: hash_key(&key.secret_hash),
                    condition: None,
                },
            ])
            .await
    }

    /// Best-effort `lastUsedAt` (the usage meter writes it, at most once per
    /// key per flush). A deleted key stays deleted.
    pub async fn touch_key_at(
        &self,
        developer: DeveloperId,
        key: KeyId,
        at: OffsetDateTime,
    ) -> Result<(), StoreError> {
        let at = at
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default();
        self.0
            .update(
                &key_key(developer, key),
                vec![UpdateAction::Set("lastUsedAt".into(), json!(at))],
                Some(Condition::item_present()),
            )
            .await
            .map(|_| ())
    }
}

fn hash_item(key: &KeyRecord) -> Item {
    Item::new(hash_key(&key.secret_hash))
        .with("developerId", key.developer_id.to_string())
        .with("keyId", key.id.to_string())
}

impl Developers<'_> {
    /// One page of every developer, newest first.
    pub async fn admin_page(
        &self,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<DeveloperRecord>, Option<PageKey>), StoreError> {
        page(
            self.0,
            all_developers()
                .query()
                .backward()
                .limit(limit)
                .after(after),
        )
        .await
    }
}

/// The list of a developer's keys.
pub fn developer_keys(developer: DeveloperId) -> ListScope {
    ListScope::Table(format!("DEVELOPER#{developer}"))
}

/// The list of every developer (platform staff).
pub fn all_developers() -> ListScope {
    ListScope::Index(Index::Gsi1, "DEVELOPERS".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sortable_timestamps_sort_in_time_order() {
        let base = time::macros::datetime!(2026-01-01 00:00:05 UTC);
        let times: Vec<OffsetDateTime> = [0, 100_000_000, 120_000_000, 123_456_789, 999_999_999]
            .into_iter()
            .map(|ns| base.replace_nanosecond(ns).unwrap())
            .chain([base + time::Duration::seconds(1)])
            .collect();
        let texts: Vec<String> = times.iter().copied().map(sortable).collect();
        let mut sorted = texts.clone();
        sorted.sort();
        assert_eq!(sorted, texts);
        assert_eq!(texts[1], "2026-01-01T00:00:05.100000000Z");
        // Offsets are normalised to UTC.
        let elsewhere = base.to_offset(time::macros::offset!(+02:00));
        assert_eq!(sortable(elsewhere), texts[0]);
    }
}
