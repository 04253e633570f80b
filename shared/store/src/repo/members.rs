//! A household's people: its grants (memberships) and the owner guard.
//!
//! Keys (see `DATA_MODEL.md`, "People"): grant `CLIENT#{c}/MEMBER#{u}`
//! (gsi1 `USER#{u}` / `GRANT#{c}`, written by [`grant_write`]); owner count
//! `CLIENT#{c}/OWNERS` `{ count }`. "A home always keeps at least one Owner"
//! holds under concurrency because every grant or removal of an OWNER moves
//! the count in the same transaction, and a removal only when `count > 1`:
//! two owners removing each other at once cannot both succeed.

use super::{CONFLICT_ATTEMPTS, conflict_pause, page, record};
use alyt_domain::access::HouseholdRole;
use alyt_domain::ids::{ClientId, UserId};
use time::OffsetDateTime;

pub use super::tenancy::first_owner_write;
use super::tenancy::{GrantRecord, grant_item, grant_key, grant_write, owners_key};
use crate::{
    CancelReason, Condition, Item, ListScope, PageKey, SortKey, Store, StoreError, TxWrite,
    UpdateAction,
};

/// Why a membership change did not happen.
#[derive(Debug, thiserror::Error)]
pub enum MemberError {
    #[error("this person is already a member of the household")]
    AlreadyMember,
    #[error("no such member")]
    NotMember,
    #[error("a home always keeps at least one owner")]
    LastOwner,
    /// The condition of write `write` of the caller's `also` failed (for
    /// example a spent invitation link): nothing was written.
    #[error("write {write} of the change was refused")]
    Refused { write: usize },
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub struct Members<'a>(pub &'a dyn Store);

impl Members<'_> {
    /// One page of a household's grants, by user id. One query.
    pub async fn list(
        &self,
        client: ClientId,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<GrantRecord>, Option<PageKey>), StoreError> {
        page(
            self.0,
            household_members(client)
                .query()
                .sort(SortKey::BeginsWith("MEMBER#".into()))
                .limit(limit)
                .after(after),
        )
        .await
    }

    pub async fn get(
        &self,
        client: ClientId,
        user: UserId,
    ) -> Result<Option<GrantRecord>, StoreError> {
        record(self.0, &grant_key(client, user)).await
    }

    /// How many owners the household has (counted from its grants the
    /// first time for a household from before the count). One get.
    pub async fn owner_count(&self, client: ClientId) -> Result<i64, StoreError> {
        self.ensure_owner_count(client).await
    }

    /// Writes a new grant with `also` (its notification and event) in one
    /// transaction; an OWNER's grant moves the owner count with it.
    pub async fn add(&self, grant: &GrantRecord, also: Vec<TxWrite>) -> Result<(), MemberError> {
        let owner = grant.role == HouseholdRole::Owner;
        if owner {
            self.ensure_owner_count(grant.client_id).await?;
        }
        let mut writes = vec![grant_write(grant)?];
        if owner {
            writes.push(TxWrite::Update {
                key: owners_key(grant.client_id),
                actions: vec![UpdateAction::Add("count".into(), 1)],
                condition: Some(Condition::exists("count")),
            });
        }
        writes.extend(also);
        // The count exists (ensured above), so only the grant and `also`
        // can fail.
        let also_from = if owner { 2 } else { 1 };
        self.commit(writes, also_from, MemberError::AlreadyMember, None)
            .await
    }

    /// Deletes `grant` (as read: a concurrent change of it fails the write)
    /// with `also` in one transaction. The last OWNER is never removed.
    pub async fn remove(&self, grant: &GrantRecord, also: Vec<TxWrite>) -> Result<(), MemberError> {
        let owner = grant.role == HouseholdRole::Owner;
        if owner {
            self.ensure_owner_count(grant.client_id).await?;
        }
        let role =
            serde_json::to_value(grant.role).map_err(|e| StoreError::Invalid(e.to_string()))?;
        let mut writes = vec![TxWrite::Delete {
            key: grant_key(grant.client_id, grant.user_id),
            condition: Some(Condition::item_present().and(Condition::eq("role", role))),
        }];
        if owner {
            writes.push(TxWrite::Update {
                key: owners_key(grant.client_id),
                actions: vec![UpdateAction::Add("count".into(), -1)],
                condition: Some(Condition::gt("count", 1)),
            });
        }
        writes.extend(also);
        let on_count = owner.then_some(MemberError::LastOwner);
        let also_from = if owner { 2 } else { 1 };
        self.commit(writes, also_from, MemberError::NotMember, on_count)
            .await
    }

    /// Replaces `read` (as read: a concurrent change of its role fails the
    /// write) by `next`, with `also` in one transaction. A change to or from
    /// OWNER moves the owner count; the last OWNER is never demoted.
    pub async fn change(
        &self,
        read: &GrantRecord,
        next: &GrantRecord,
        also: Vec<TxWrite>,
    ) -> Result<(), MemberError> {
        let was_owner = read.role == HouseholdRole::Owner;
        let is_owner = next.role == HouseholdRole::Owner;
        if was_owner != is_owner {
            self.ensure_owner_count(read.client_id).await?;
        }
        let role =
            serde_json::to_value(read.role).map_err(|e| StoreError::Invalid(e.to_string()))?;
        let mut writes = vec![TxWrite::Put {
            item: grant_item(next)?,
            condition: Some(Condition::item_present().and(Condition::eq("role", role))),
        }];
        let mut on_count = None;
        if was_owner != is_owner {
            let (delta, condition) = if is_owner {
                (1, Condition::exists("count"))
            } else {
                on_count = Some(MemberError::LastOwner);
                (-1, Condition::gt("count", 1))
            };
            writes.push(TxWrite::Update {
                key: owners_key(read.client_id),
                actions: vec![UpdateAction::Add("count".into(), delta)],
                condition: Some(condition),
            });
        }
        let also_from = writes.len();
        writes.extend(also);
        self.commit(writes, also_from, MemberError::NotMember, on_count)
            .await
    }

    /// Runs a membership transaction whose first write is the grant and
    /// (for owners) whose second is the owner count, then from `also_from`
    /// the caller's writes: a failed caller's write is [`MemberError::Refused`] (checked
    /// first: it says why the change cannot be made at all), a failed first
    /// write `on_grant`, a failed second one `on_count`.
    async fn commit(
        &self,
        writes: Vec<TxWrite>,
        also_from: usize,
        on_grant: MemberError,
        on_count: Option<MemberError>,
    ) -> Result<(), MemberError> {
        let mut on_count = on_count;
        let mut attempt = 0;
        loop {
            attempt += 1;
            match self.0.transact(writes.clone()).await {
                Ok(()) => return Ok(()),
                Err(StoreError::TransactionCanceled { reasons }) => {
                    if let Some(failed) = reasons
                        .iter()
                        .skip(also_from)
                        .position(|r| *r == CancelReason::ConditionFailed)
                    {
                        return Err(MemberError::Refused { write: failed });
                    }
                    if reasons.first() == Some(&CancelReason::ConditionFailed) {
                        return Err(on_grant);
                    }
                    if reasons.get(1) == Some(&CancelReason::ConditionFailed)
                        && let Some(refusal) = on_count.take()
                    {
                        return Err(refusal);
                    }
                    if reasons.contains(&CancelReason::Conflict) && attempt < CONFLICT_ATTEMPTS {
                        conflict_pause(attempt).await;
                        continue;
                    }
                    return Err(StoreError::TransactionCanceled { reasons }.into());
                }
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// The owner count. Households created before the count existed get it
    /// from their grants the first time an owner changes (written only if
    /// still absent; a concurrent writer's count wins).
    async fn ensure_owner_count(&self, client: ClientId) -> Result<i64, StoreError> {
        if let Some(item) = self.0.get(&owners_key(client)).await? {
            return Ok(item.get_i64("count").unwrap_or(0));
        }
        let mut owners = 0;
        let mut after = None;
        loop {
            let (grants, next) = self.list(client, 1_000, after).await?;
            owners += grants
                .iter()
                .filter(|g| g.role == HouseholdRole::Owner)
                .count() as i64;
            match next {
                Some(next) => after = Some(next),
                None => break,
            }
        }
        match self
            .0
            .put(
                Item::new(owners_key(client)).with("count", owners),
                Some(Condition::item_absent()),
            )
            .await
        {
            Ok(()) => Ok(owners),
            Err(StoreError::ConditionFailed { current }) => {
                Ok(current.and_then(|i| i.get_i64("count")).unwrap_or(owners))
            }
            Err(e) => Err(e),
        }
    }
}

/// The write that moves the stay of a guest's `grant` (as read) to new
/// dates; fails when the grant was removed or changed role meanwhile.
pub fn stay_window_write(
    grant: &GrantRecord,
    starts_at: OffsetDateTime,
    ends_at: OffsetDateTime,
) -> Result<TxWrite, StoreError> {
    let text = |at: OffsetDateTime| -> Result<serde_json::Value, StoreError> {
        at.format(&time::format_description::well_known::Rfc3339)
            .map(Into::into)
            .map_err(|e| StoreError::Invalid(e.to_string()))
    };
    let role = serde_json::to_value(grant.role).map_err(|e| StoreError::Invalid(e.to_string()))?;
    Ok(TxWrite::Update {
        key: grant_key(grant.client_id, grant.user_id),
        actions: vec![
            UpdateAction::Set("startsAt".into(), text(starts_at)?),
            UpdateAction::Set("endsAt".into(), text(ends_at)?),
        ],
        condition: Some(Condition::item_present().and(Condition::eq("role", role))),
    })
}

/// The list of a household's members.
pub fn household_members(client: ClientId) -> ListScope {
    ListScope::Table(format!("CLIENT#{client}"))
}
