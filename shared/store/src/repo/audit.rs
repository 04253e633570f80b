//! A household's audit trail: what happened to its people (a guest's
//! check-out among them) and when, for its owners to read.
//! Entries are written in the transaction of the change they record.
//!
//! Keys (see `DATA_MODEL.md`): `AUDIT#{c}` / `{µs:020}#{id}`, newest last.

use super::{page, ts};
use alyt_domain::ids::{ClientId, PropertyId, TenantId, UserId};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use uuid::Uuid;

use super::history::micros;
use crate::{Item, Key, ListScope, PageKey, Store, StoreError, TxWrite};

/// What an audit entry records.
pub const KIND_GUEST_CHECKED_OUT: &str = "guest.checked_out";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditRecord {
    pub id: Uuid,
    pub tenant_id: TenantId,
    pub client_id: ClientId,
    pub property_id: Option<PropertyId>,
    pub kind: String,
    /// Who acted; null for the platform itself (a sweep) or a key.
    pub actor: Option<UserId>,
    /// Whom it concerns.
    pub subject: Option<UserId>,
    /// The booking's reservation key, for stays.
    pub reservation_key: Option<String>,
    /// What happened, in a sentence that names no address whole.
    pub detail: String,
    #[serde(with = "ts::rfc3339")]
    pub at: OffsetDateTime,
}

/// The write of `entry`, for the transaction of the change it records.
pub fn audit_write(entry: &AuditRecord) -> Result<TxWrite, StoreError> {
    let key = Key::new(
        format!("AUDIT#{}", entry.client_id),
        format!("{}#{}", micros(entry.at), entry.id),
    );
    Ok(TxWrite::Put {
        item: Item::from_record(key, entry)?,
        condition: None,
    })
}

/// The list of a household's audit entries.
pub fn household_audit(client: ClientId) -> ListScope {
    ListScope::Table(format!("AUDIT#{client}"))
}

pub struct Audit<'a>(pub &'a dyn Store);

impl Audit<'_> {
    /// One page of a household's audit entries, newest first. One query.
    pub async fn of_household(
        &self,
        client: ClientId,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<AuditRecord>, Option<PageKey>), StoreError> {
        page(
            self.0,
            household_audit(client)
                .query()
                .backward()
                .limit(limit)
                .after(after),
        )
        .await
    }
}
