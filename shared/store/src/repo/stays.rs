//! Guest stays (`/guests/{reservationKey}`): one record per stay, keyed by its
//! reservation key in the household. The rules are the domain's [`Stay`]; the
//! lifecycle (opening, moving, the sweep, checking out) is `alyt-stays`.
//!
//! Keys (see `DATA_MODEL.md`, "People"): `CLIENT#{c}/STAY#{reservationKey}`,
//! in gsi2 `STAYDUE` / `{due µs:020}#{c}#{reservationKey}` while the stay is
//! open (due: the check-in until the sweep marked it, then the check-out),
//! so the sweep reads only the stays due by now. Every change is a put
//! conditioned on the revision read (`rev`), so of two sweeps (or a sweep
//! and a checkout by the household) exactly one moves a stay. A stay that
//! is over keeps its record (`GET` answers `checked-out`) for 90 days
//! (`ttl`), out of the index; a new stay with the same key replaces it.

use super::{record, ts};
use alyt_domain::ids::{ClientId, InvitationId, PropertyId, TenantId, UserId};
use alyt_domain::stay::{Stay, StayState, StayWindow};
use serde::{Deserialize, Serialize};
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

use super::history::{due_by, micros};
use crate::{Condition, Index, Item, Key, Store, StoreError, TxWrite};

/// How long the record of a stay that is over is kept.
pub const KEPT_AFTER_CHECKOUT: Duration = Duration::days(90);

/// The partition of the sweep's index (one: stays change a few times each,
/// far below a partition's write ceiling).
const DUE: &str = "STAYDUE";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StayRecord {
    pub reservation_key: String,
    pub tenant_id: TenantId,
    pub client_id: ClientId,
    pub property_id: PropertyId,
    /// The guest's address, as given.
    pub email: String,
    pub name: Option<String>,
    #[serde(with = "ts::rfc3339")]
    pub check_in: OffsetDateTime,
    #[serde(with = "ts::rfc3339")]
    pub check_out: OffsetDateTime,
    #[serde(default)]
    pub require_network: bool,
    #[serde(default)]
    pub phone_thing_id: Option<Uuid>,
    pub state: StayState,
    /// The guest's account once it holds the grant.
    pub user_id: Option<UserId>,
    /// The invitation waiting for the guest (while `invited`).
    pub invitation_id: Option<InvitationId>,
    #[serde(with = "ts::option", default)]
    pub checked_in_at: Option<OffsetDateTime>,
    #[serde(with = "ts::option", default)]
    pub checked_out_at: Option<OffsetDateTime>,
    /// Who opened it (null for a key).
    pub opened_by: Option<UserId>,
    #[serde(with = "ts::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "ts::rfc3339")]
    pub updated_at: OffsetDateTime,
    /// Bumped by every change; every write is conditioned on it.
    pub rev: u32,
}

impl StayRecord {
    /// The stay as the domain's rules see it.
    pub fn stay(&self) -> Stay {
        Stay {
            state: self.state,
            window: StayWindow {
                check_in: self.check_in,
                check_out: self.check_out,
            },
            checked_in_at: self.checked_in_at,
        }
    }

    /// This record with `stay`'s state, window and check-in, one revision on.
    pub fn with(&self, stay: &Stay, now: OffsetDateTime) -> StayRecord {
        StayRecord {
            state: stay.state,
            check_in: stay.window.check_in,
            check_out: stay.window.check_out,
            checked_in_at: stay.checked_in_at,
            checked_out_at: match stay.state {
                StayState::CheckedOut => Some(self.checked_out_at.unwrap_or(now)),
                _ => None,
            },
            updated_at: now,
            rev: self.rev + 1,
            ..self.clone()
        }
    }
}

fn stay_key(client: ClientId, reservation_key: &str) -> Key {
    Key::new(
        format!("CLIENT#{client}"),
        format!("STAY#{reservation_key}"),
    )
}

fn stay_item(stay: &StayRecord) -> Result<Item, StoreError> {
    let mut item = Item::from_record(stay_key(stay.client_id, &stay.reservation_key), stay)?;
    match stay.stay().due_at() {
        Some(due) => {
            item.set(Index::Gsi2.pk_attr(), DUE);
            item.set(
                Index::Gsi2.sk_attr(),
                format!(
                    "{}#{}#{}",
                    micros(due),
                    stay.client_id,
                    stay.reservation_key
                ),
            );
        }
        None => {
            let until = stay.checked_out_at.unwrap_or(stay.updated_at) + KEPT_AFTER_CHECKOUT;
            item.set("ttl", until.unix_timestamp());
        }
    }
    Ok(item)
}

/// The write that opens `stay` (revision 0): the key must be free, or hold
/// a stay that is over (a returning guest's new stay replaces it).
pub fn open_write(stay: &StayRecord) -> Result<TxWrite, StoreError> {
    let state = serde_json::to_value(StayState::CheckedOut)
        .map_err(|e| StoreError::Invalid(e.to_string()))?;
    Ok(TxWrite::Put {
        item: stay_item(stay)?,
        condition: Some(Condition::item_absent().or(Condition::eq("state", state))),
    })
}

/// The write that moves `read` to `next`; fails when the stay changed since
/// it was read.
pub fn change_write(read: &StayRecord, next: &StayRecord) -> Result<TxWrite, StoreError> {
    Ok(TxWrite::Put {
        item: stay_item(next)?,
        condition: Some(Condition::eq("rev", read.rev)),
    })
}

pub struct Stays<'a>(pub &'a dyn Store);

impl Stays<'_> {
    pub async fn get(
        &self,
        client: ClientId,
        reservation_key: &str,
    ) -> Result<Option<StayRecord>, StoreError> {
        record(self.0, &stay_key(client, reservation_key)).await
    }

    /// Up to `limit` open stays the sweep is due to look at by `now`, oldest
    /// due first. One index query (which may lag a moment on DynamoDB: the
    /// sweep reads each stay again before it moves it).
    pub async fn due(
        &self,
        now: OffsetDateTime,
        limit: u32,
    ) -> Result<Vec<StayRecord>, StoreError> {
        let page = self.0.query(due_by(DUE, now, limit)).await?;
        page.records().map(|(stays, _)| stays)
    }
}
