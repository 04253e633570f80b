//! Widget tokens: what a phone's home-screen widget signs in with. One
//! person, one home; stored only as the SHA-256 of the token. A member under
//! the network condition cannot mint one, and removing a person or checking a
//! guest out revokes theirs before the grant goes.
//!
//! Keys (see `DATA_MODEL.md`): `CLIENT#{c}` / `WIDGET#{userId}#{id}` (a
//! person's tokens in a household: what removal and check-out revoke), and
//! the lookup `WIDGETHASH#{sha256}` / `WIDGETHASH` holding the same record
//! (a bearer token is authenticated with one get). Both are written and
//! deleted together.

use super::{record, ts};
use alyt_domain::ids::{ClientId, PropertyId, TenantId, UserId, WidgetTokenId};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::{Condition, Item, Key, SortKey, Store, StoreError, TxWrite};

/// The most tokens one person holds for one household.
pub const MAX_PER_PERSON: usize = 20;

/// How long a widget token lives: a home-screen widget is set up once and
/// forgotten, so a leaked one must not work for ever; after this the person
/// mints a new one (the grant is checked on every use besides).
pub const LIFETIME: time::Duration = time::Duration::days(90);

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WidgetTokenRecord {
    pub id: WidgetTokenId,
    /// SHA-256 (hex) of the token.
    pub token_hash: String,
    pub user_id: UserId,
    pub tenant_id: TenantId,
    pub client_id: ClientId,
    pub property_id: PropertyId,
    /// What the person calls it ("Kitchen phone").
    pub name: String,
    /// A phone widget or a TV.
    #[serde(default)]
    pub surface: alyt_domain::access::Surface,
    #[serde(with = "ts::rfc3339")]
    pub created_at: OffsetDateTime,
    /// When it stops working; a record written before tokens expired has
    /// none and lives [`LIFETIME`] from its creation.
    #[serde(with = "ts::option", default)]
    pub expires_at: Option<OffsetDateTime>,
}

impl WidgetTokenRecord {
    /// When the token stops working.
    pub fn expires_at(&self) -> OffsetDateTime {
        self.expires_at.unwrap_or(self.created_at + LIFETIME)
    }
}

fn token_key(client: ClientId, user: UserId, id: WidgetTokenId) -> Key {
    Key::new(format!("CLIENT#{client}"), format!("WIDGET#{user}#{id}"))
}

fn lookup_key(hash: &str) -> Key {
    Key::new(format!("WIDGETHASH#{hash}"), "WIDGETHASH")
}

/// The writes that revoke `token` (nothing when it is gone already).
pub fn revoke_writes(token: &WidgetTokenRecord) -> Vec<TxWrite> {
    vec![
        TxWrite::Delete {
            key: token_key(token.client_id, token.user_id, token.id),
            condition: None,
        },
        TxWrite::Delete {
            key: lookup_key(&token.token_hash),
            condition: None,
        },
    ]
}

pub struct Widgets<'a>(pub &'a dyn Store);

impl Widgets<'_> {
    pub async fn create(&self, token: &WidgetTokenRecord) -> Result<(), StoreError> {
        self.0
            .transact(vec![
                TxWrite::Put {
                    item: Item::from_record(
                        token_key(token.client_id, token.user_id, token.id),
                        token,
                    )?,
                    condition: Some(Condition::item_absent()),
                },
                TxWrite::Put {
                    item: Item::from_record(lookup_key(&token.token_hash), token)?,
                    condition: Some(Condition::item_absent()),
                },
            ])
            .await
    }

    /// The token whose SHA-256 is `hash`. One get.
    pub async fn by_hash(&self, hash: &str) -> Result<Option<WidgetTokenRecord>, StoreError> {
        record(self.0, &lookup_key(hash)).await
    }

    /// Every token `user` holds in household `client`, oldest first (at most
    /// [`MAX_PER_PERSON`]). One query.
    pub async fn of_person(
        &self,
        client: ClientId,
        user: UserId,
    ) -> Result<Vec<WidgetTokenRecord>, StoreError> {
        let page = self
            .0
            .query(
                crate::Query::partition(format!("CLIENT#{client}"))
                    .sort(SortKey::BeginsWith(format!("WIDGET#{user}#")))
                    .limit(MAX_PER_PERSON as u32 * 2),
            )
            .await?;
        page.records().map(|(tokens, _)| tokens)
    }

    pub async fn revoke(&self, token: &WidgetTokenRecord) -> Result<(), StoreError> {
        self.0.transact(revoke_writes(token)).await
    }

    /// Revokes every token `user` holds in household `client` (a removal or
    /// a check-out); how many there were.
    pub async fn revoke_all_of(&self, client: ClientId, user: UserId) -> Result<usize, StoreError> {
        let tokens = self.of_person(client, user).await?;
        for token in &tokens {
            self.revoke(token).await?;
        }
        Ok(tokens.len())
    }
}
