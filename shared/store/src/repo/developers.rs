//! Developer accounts and their keys.
//!
//! Keys: `DEVELOPER#{dev}/DEVELOPER` (gsi1 `DEVELOPERS` / `{createdAt}#{dev}` for the
//! admin list), keys `DEVELOPER#{dev}/KEY#{key}`, and the secret lookup
//! `KEYHASH#{sha256}/KEYHASH` written in the same transaction as the key, so a
//! key authenticates with one strongly consistent read the moment it exists.

use alyt_domain::access::{KeyKind, Scope};
use alyt_domain::ids::{DeveloperId, KeyId, TenantId, UserId};
use serde::{Deserialize, Serialize};
use serde_json::json;
use time::OffsetDateTime;

use super::ts;
use crate::{
    Condition, Index, Item, Key, Query, SortKey, Store, StoreError, TxWrite, UpdateAction,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum DeveloperType {
    Individual,
    Brand,
    Integrator,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
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

pub fn developer_item(developer: &DeveloperRecord) -> Result<Item, StoreError> {
    let created = developer
        .created_at
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default();
    Ok(Item::from_record(developer_key(developer.id), developer)?
        .with(Index::Gsi1.pk_attr(), "DEVELOPERS")
        .with(Index::Gsi1.sk_attr(), format!("{created}#{}", developer.id)))
}

pub struct Developers<'a>(pub &'a dyn Store);

impl Developers<'_> {
    pub async fn get(&self, id: DeveloperId) -> Result<Option<DeveloperRecord>, StoreError> {
        self.0
            .get(&developer_key(id))
            .await?
            .map(|i| i.to_record())
            .transpose()
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
        self.0
            .get(&key_key(developer, id))
            .await?
            .map(|i| i.to_record())
            .transpose()
    }

    pub async fn keys(&self, developer: DeveloperId) -> Result<Vec<KeyRecord>, StoreError> {
        let page = self
            .0
            .query(
                Query::partition(format!("DEVELOPER#{developer}"))
                    .sort(SortKey::BeginsWith("KEY#".into())),
            )
            .await?;
        page.items.iter().map(Item::to_record).collect()
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

    /// Best-effort `lastUsedAt`; written at most once a minute per key by the caller.
    pub async fn touch_key(&self, key: &KeyRecord, at: OffsetDateTime) -> Result<(), StoreError> {
        let at = at
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default();
        self.0
            .update(
                &key_key(key.developer_id, key.id),
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
