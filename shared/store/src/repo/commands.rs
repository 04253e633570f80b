//! Device command history (the rules are [`alyt_domain::device::CommandRow`]).
//!
//! Keys (see `DATA_MODEL.md`):
//! * command row `DEVICE#{d}/COMMAND#{commandId:020}`: the zero-padded id
//!   sorts numerically, so a backward query reads a device's history newest
//!   first. The row also carries `tenantId` (the device's key needs it).
//! * sparse gsi3 `PENDING` / `{createdAt}#{deviceId}#{commandId}` (createdAt in
//!   zero-padded microseconds) while the
//!   row is `pending`: the bridge sweep reads the oldest pending rows of
//!   every device with one query. The index attributes are removed when the
//!   row leaves `pending`, so the index only ever holds the work to do.
//!   Ceiling: every accepted command writes the single `PENDING` partition
//!   (and writes it again when it leaves), and one DynamoDB partition takes
//!   about 1,000 writes/s, so about 500 commands/s platform-wide. The next
//!   step is sharding the partition (`PENDING#{n}` with n = hash(deviceId) mod
//!   N, the sweep querying the N shards).
//! * command ids are made from the clock (`CommandId::at`), not counted:
//!   a new row is one conditional put (absent), and a collision (same
//!   device, microsecond and three random digits) fails that condition. The
//!   per-device counter `DEVICE#{d}/COMMANDSEQ` of older builds is no longer
//!   read or written.
//!
//! State moves are conditional writes on the state (and attempts) the caller
//! read: two writers racing (the immediate publish and the sweep, or a
//! response) never both win; the loser reads again.

use alyt_domain::device::{CommandId, CommandRow};
use alyt_domain::ids::{DeviceId, TenantId};
use serde_json::json;
use time::OffsetDateTime;

use crate::{
    Condition, Index, Item, Key, ListScope, Page, PageKey, Query, SortKey, Store, StoreError,
    TxWrite,
};

/// The gsi3 partition of pending rows.
/// Shards of the pending-command index: every accepted command is written
/// into it and moved out of it, so one index partition (~1,000 writes/s,
/// two writes per command) would cap the platform near 500 commands/s; 8
/// shards carry ~4,000. The shard is the device's ONLINE shard (FNV-1a of
/// its id), so one device's rows stay in order within one shard.
pub const PENDING_SHARDS: u32 = super::devices::ONLINE_SHARDS;

/// The gsi3 partition of the pending rows of `shard`.
pub fn pending_partition(shard: u32) -> String {
    format!("PENDING#{shard}")
}

/// The single partition rows were written to before sharding; the sweep
/// still reads it so rows accepted by an older build are delivered.
pub const LEGACY_PENDING_PARTITION: &str = "PENDING";

/// Every partition the bridge sweep reads.
pub fn pending_partitions() -> Vec<String> {
    (0..PENDING_SHARDS)
        .map(pending_partition)
        .chain([LEGACY_PENDING_PARTITION.to_owned()])
        .collect()
}

pub fn command_key(device: DeviceId, id: CommandId) -> Key {
    Key::new(
        format!("DEVICE#{device}"),
        format!("COMMAND#{:020}", id.get()),
    )
}

/// A command row with the tenant of its device.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredCommand {
    pub tenant_id: TenantId,
    pub row: CommandRow,
}

/// The item of a row: with the gsi3 attributes exactly while the sweep has
/// work with it ([`CommandRow::recheck_at`]).
pub fn command_item(tenant: TenantId, row: &CommandRow) -> Result<Item, StoreError> {
    let mut item = Item::from_record(command_key(row.device_id, row.command_id), row)?;
    item.set("tenantId", tenant.to_string());
    if let Some(due) = row.recheck_at() {
        item.set(
            Index::Gsi3.pk_attr(),
            pending_partition(super::devices::online_shard(row.device_id)),
        );
        item.set(
            Index::Gsi3.sk_attr(),
            format!(
                "{}#{}#{:020}",
                due_prefix(due),
                row.device_id,
                row.command_id.get()
            ),
        );
    }
    // (A put replaces the whole item, so a row the sweep is done with loses
    // them.)
    Ok(item)
}

/// The start of a gsi3 sort key: `at` in zero-padded microseconds.
fn due_prefix(at: OffsetDateTime) -> String {
    format!("{:020}", at.unix_timestamp_nanos().max(0) / 1_000)
}

/// The condition that `current` is still what is stored.
fn unchanged(current: &CommandRow) -> Condition {
    Condition::eq("state", json!(current.state))
        .and(Condition::eq("attempts", json!(current.attempts)))
}

/// The write moving `current` to `next` (for a transaction); fails its
/// condition when the stored row is no longer `current`.
pub fn transition_write(
    tenant: TenantId,
    current: &CommandRow,
    next: &CommandRow,
) -> Result<TxWrite, StoreError> {
    Ok(TxWrite::Put {
        item: command_item(tenant, next)?,
        condition: Some(unchanged(current)),
    })
}

fn stored(item: &Item) -> Result<StoredCommand, StoreError> {
    let tenant_id = item
        .get_str("tenantId")
        .and_then(|t| t.parse().ok())
        .ok_or_else(|| {
            StoreError::Unavailable(format!(
                "command row {}/{} has no tenantId",
                item.pk(),
                item.sk()
            ))
        })?;
    Ok(StoredCommand {
        tenant_id,
        row: item.to_record()?,
    })
}

fn page_of(page: Page) -> Result<(Vec<StoredCommand>, Option<PageKey>), StoreError> {
    let rows = page.items.iter().map(stored).collect::<Result<_, _>>()?;
    Ok((rows, page.next))
}

pub struct Commands<'a>(pub &'a dyn Store);

impl Commands<'_> {
    /// Writes a newly accepted row (it must not exist yet: a condition
    /// failure means its id is taken; make another).
    pub async fn create(&self, tenant: TenantId, row: &CommandRow) -> Result<(), StoreError> {
        self.0
            .put(command_item(tenant, row)?, Some(Condition::item_absent()))
            .await
    }

    pub async fn get(
        &self,
        device: DeviceId,
        id: CommandId,
    ) -> Result<Option<StoredCommand>, StoreError> {
        self.0
            .get(&command_key(device, id))
            .await?
            .as_ref()
            .map(stored)
            .transpose()
    }

    /// Stores `next` if the row is still `current`. `Ok(false)` when another
    /// writer moved it first (nothing written).
    pub async fn transition(
        &self,
        tenant: TenantId,
        current: &CommandRow,
        next: &CommandRow,
    ) -> Result<bool, StoreError> {
        super::applied(
            self.0
                .put(command_item(tenant, next)?, Some(unchanged(current)))
                .await,
        )
    }

    /// One page of a device's history, newest first. One query.
    pub async fn history(
        &self,
        device: DeviceId,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<StoredCommand>, Option<PageKey>), StoreError> {
        let page = self
            .0
            .query(
                command_list(device)
                    .query()
                    .sort(SortKey::BeginsWith("COMMAND#".into()))
                    .backward()
                    .limit(limit)
                    .after(after),
            )
            .await?;
        page_of(page)
    }

    /// One page of the rows of one partition of [`pending_partitions`]
    /// the sweep is due to look at by `now` (pending rows, and sent rows
    /// waiting for a redelivery), oldest due first (gsi3). One query.
    pub async fn due(
        &self,
        partition: &str,
        now: OffsetDateTime,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<StoredCommand>, Option<PageKey>), StoreError> {
        // `~` sorts after the `#` that follows the time, so rows due at
        // exactly `now` are in.
        let until = format!("{}~", due_prefix(now));
        let page = self
            .0
            .query(
                Query::on_index(Index::Gsi3, partition)
                    .sort(SortKey::Le(until))
                    .limit(limit)
                    .after(after),
            )
            .await?;
        page_of(page)
    }
}

/// The list of a device's commands.
pub fn command_list(device: DeviceId) -> ListScope {
    ListScope::Table(format!("DEVICE#{device}"))
}
