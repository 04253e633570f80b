//! Leases on event-stream connections: how many streams one principal (a
//! key, a signed-in person, a widget) holds open at once, counted in the
//! store so the cap holds across every instance that serves streams (the
//! hosted stream function runs one connection per Lambda instance).
//!
//! | item | pk | sk | notes |
//! |---|---|---|---|
//! | lease | `STREAMS#{holder}` | `SLOT#{n}` (n < the cap) | `connection`; `ttl` = the lease's end |
//!
//! `{holder}` is an opaque name the caller chooses (`key#{id}`, ...). A
//! connection takes a free slot (absent, or its lease ran out: a crashed
//! instance's lease frees itself at its `ttl`), renews it while it streams and
//! deletes it when it ends. Costs per connection: one query and one
//! conditional put to open, one conditional put per renewal, one conditional
//! delete to close.

use uuid::Uuid;

use crate::{Condition, Item, Key, Query, SortKey, Store, StoreError};

fn partition(holder: &str) -> String {
    format!("STREAMS#{holder}")
}

fn slot_key(holder: &str, slot: u32) -> Key {
    Key::new(partition(holder), format!("SLOT#{slot}"))
}

const CONNECTION: &str = "connection";

/// A slot held by one connection until `expires_at` (Unix seconds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamLease {
    pub holder: String,
    pub slot: u32,
    pub connection: Uuid,
    pub expires_at: i64,
}

/// Why no lease was given.
#[derive(Debug, thiserror::Error)]
pub enum LeaseError {
    /// Every slot is held; the earliest lease ends at `retry_at` (Unix
    /// seconds) unless renewed.
    #[error("every stream slot is held")]
    Full { retry_at: i64 },
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub struct StreamLeases<'a>(pub &'a dyn Store);

impl StreamLeases<'_> {
    /// Takes one of `max` slots of `holder` for `connection` until
    /// `now + ttl_seconds`. One query, then one conditional put per slot
    /// tried (another connection may take a free slot first).
    pub async fn acquire(
        &self,
        holder: &str,
        max: u32,
        connection: Uuid,
        now: i64,
        ttl_seconds: i64,
    ) -> Result<StreamLease, LeaseError> {
        let page = self
            .0
            .query(
                Query::partition(partition(holder))
                    .sort(SortKey::BeginsWith("SLOT#".into()))
                    .limit(max.saturating_mul(2).max(1)),
            )
            .await?;
        let held: Vec<(u32, i64)> = page
            .items
            .iter()
            .filter_map(|item| {
                let slot = item.sk().strip_prefix("SLOT#")?.parse().ok()?;
                Some((slot, item.expires_at().unwrap_or(i64::MAX)))
            })
            .collect();
        for slot in (0..max).filter(|s| !held.iter().any(|(h, _)| h == s)) {
            let lease = StreamLease {
                holder: holder.to_owned(),
                slot,
                connection,
                expires_at: now + ttl_seconds,
            };
            // Free: absent, or its lease ran out (reads hide such an item;
            // the condition still sees it).
            let free = Condition::item_absent().or(Condition::le(crate::model::attr::TTL, now));
            match self.put(&lease, free).await {
                Ok(()) => return Ok(lease),
                Err(e) if e.is_condition_failure() => continue,
                Err(e) => return Err(e.into()),
            }
        }
        let retry_at = held
            .iter()
            .filter(|(slot, _)| *slot < max)
            .map(|(_, end)| *end)
            .min()
            .unwrap_or(now + ttl_seconds);
        Err(LeaseError::Full { retry_at })
    }

    /// Extends the lease to `now + ttl_seconds` while this connection still
    /// holds it; `Ok(false)` when it does not (it ran out and was taken).
    pub async fn renew(
        &self,
        lease: &mut StreamLease,
        now: i64,
        ttl_seconds: i64,
    ) -> Result<bool, StoreError> {
        let mut next = lease.clone();
        next.expires_at = now + ttl_seconds;
        let mine = Condition::eq(CONNECTION, lease.connection.to_string());
        match self.put(&next, mine).await {
            Ok(()) => {
                *lease = next;
                Ok(true)
            }
            Err(e) if e.is_condition_failure() => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Gives the slot back (nothing when another connection holds it now).
    pub async fn release(&self, lease: &StreamLease) -> Result<(), StoreError> {
        let mine = Condition::eq(CONNECTION, lease.connection.to_string());
        match self
            .0
            .delete(&slot_key(&lease.holder, lease.slot), Some(mine))
            .await
        {
            Ok(_) => Ok(()),
            Err(e) if e.is_condition_failure() => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// The leases of `holder` that have not run out.
    pub async fn held(&self, holder: &str) -> Result<usize, StoreError> {
        let page = self
            .0
            .query(Query::partition(partition(holder)).sort(SortKey::BeginsWith("SLOT#".into())))
            .await?;
        Ok(page.items.len())
    }

    async fn put(&self, lease: &StreamLease, condition: Condition) -> Result<(), StoreError> {
        let item = Item::new(slot_key(&lease.holder, lease.slot))
            .with(CONNECTION, lease.connection.to_string())
            .with(crate::model::attr::TTL, lease.expires_at);
        self.0.put(item, Some(condition)).await
    }
}
