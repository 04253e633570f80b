//! Devices, their units (the physical boards), their last reported state and
//! their broker credentials.
//!
//! Keys (see `DATA_MODEL.md`):
//! * device `TENANT#{t}/DEVICE#{d}`; gsi1 `PROPERTY#{p}` / `DEVICE#{d}` while
//!   it has a property; gsi2 `PARENT#{hub}` / `CHILD#{protocolId}` for a child
//!   acquired through a hub; gsi3 `ONLINE#{shard}` / `{lastSeen}#{d}` while
//!   its status is ONLINE (see [`online_partition`]): the heartbeat sweep
//!   finds silent devices without a scan.
//! * unit `DEVICE#{d}/UNIT#{u}`: unit ids are UUIDv7, so the partition lists a
//!   device's units oldest first; the device's `currentUnitId` names the
//!   current one, so a page of devices batch-gets its units by key.
//! * serial guard `SERIAL#{serial}/SERIAL`: a burned-in serial registers once.
//! * hub child guard `CHILD#{hub}#{protocolId}/CHILD`: (parentDeviceId,
//!   protocolId) is unique (an index cannot enforce that; the guard can).
//! * reported state `DEVICE#{d}/REPORTED`.
//! * broker credential `DEVCRED#{username}/DEVCRED`: one strongly consistent
//!   get per MQTT CONNECT.
//!
//! Registration writes the device, its first unit, the serial guard, the
//! credential (and for a hub child the child guard, plus a check that the hub
//! still exists) in one transaction: either the device exists with a unit and a
//! working credential, or nothing was written.

use super::{page, record, ts};
use std::collections::{BTreeSet, HashMap};

use alyt_domain::device::{
    DEFAULT_HEARTBEAT_WINDOW_SECONDS, DeviceCapability, DeviceKind, DeviceStatus, FirmwareChannel,
    Lenient, Protocol,
};
use alyt_domain::ids::{ClientId, DeviceId, PropertyId, RoomId, TenantId};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::{
    CancelReason, Condition, Index, Item, Key, ListScope, PageKey, Query, SortKey, Store,
    StoreError, TxWrite,
};

fn default_window() -> u32 {
    DEFAULT_HEARTBEAT_WINDOW_SECONDS
}

/// The logical device, as stored.
///
/// Enums read from the store are [`Lenient`]: a value written by a newer build
/// reads (and rewrites) unchanged instead of failing the whole row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeviceRecord {
    pub id: DeviceId,
    pub tenant_id: TenantId,
    pub property_id: Option<PropertyId>,
    /// The household (client) its property belongs to, copied when the
    /// device is placed (a property never changes household), so deciding
    /// whether household people reach the device needs no property read.
    /// Absent on rows written by older builds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<ClientId>,
    pub room_id: Option<RoomId>,
    pub name: String,
    pub kind: Lenient<DeviceKind>,
    /// A set (stored as a sorted list); unknown values survive a rewrite.
    pub capabilities: BTreeSet<Lenient<DeviceCapability>>,
    /// Features the device honours (reported in its status).
    #[serde(default)]
    pub features: Vec<String>,
    pub current_unit_id: Option<Uuid>,
    pub parent_device_id: Option<DeviceId>,
    pub protocol: Option<Lenient<Protocol>>,
    pub protocol_id: Option<String>,
    pub firmware_channel: Lenient<FirmwareChannel>,
    pub status: Lenient<DeviceStatus>,
    #[serde(with = "ts::option", default)]
    pub last_seen: Option<OffsetDateTime>,
    /// When the status report whose payload is kept (`REPORTED`) was
    /// received: a report older than it, delivered late (SQS redelivers out
    /// of order, a DLQ replay), changes neither the payload nor the
    /// features. Absent before the first report, and on rows of older
    /// builds (whose next report is taken as the latest).
    #[serde(with = "ts::option", default, skip_serializing_if = "Option::is_none")]
    pub reported_at: Option<OffsetDateTime>,
    #[serde(with = "ts::option", default)]
    pub deleted_at: Option<OffsetDateTime>,
    #[serde(with = "ts::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "ts::rfc3339")]
    pub updated_at: OffsetDateTime,
    /// Null until settings are first patched.
    #[serde(default)]
    pub settings: Option<DeviceSettingsRecord>,
    /// The heartbeat window liveness is judged with (not part of the row the
    /// API shows; it appears as `liveness.windowSeconds`).
    #[serde(default = "default_window")]
    pub heartbeat_window_seconds: u32,
    /// A simulator device: lives only in a sandbox, never in a house.
    #[serde(rename = "virtual", default)]
    pub is_virtual: bool,
}

impl DeviceRecord {
    /// The capabilities this build knows (unknown ones are dropped, as
    /// clients must).
    pub fn known_capabilities(&self) -> BTreeSet<DeviceCapability> {
        self.capabilities
            .iter()
            .filter_map(Lenient::known)
            .collect()
    }
}

/// A device's settings (its row's `settings`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeviceSettingsRecord {
    pub device_id: DeviceId,
    /// Keyed by lower-cased capability; a capability the device lacks has no key.
    pub by_capability: Map<String, Value>,
    pub enabled: bool,
    #[serde(with = "ts::rfc3339")]
    pub updated_at: OffsetDateTime,
}

/// A physical board of a device (its row's `currentUnit`). The burned-in
/// serial lives here, not on the device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UnitRecord {
    pub id: Uuid,
    pub device_id: DeviceId,
    pub serial: String,
    pub model: Option<String>,
    pub firmware: Option<String>,
    pub mac_address: Option<String>,
    #[serde(with = "ts::rfc3339")]
    pub installed_at: OffsetDateTime,
    #[serde(with = "ts::option", default)]
    pub removed_at: Option<OffsetDateTime>,
    #[serde(default)]
    pub removed_reason: Option<String>,
}

/// The last status a device reported (its row's `reported`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportedRecord {
    pub device_id: DeviceId,
    pub payload: Value,
    #[serde(with = "ts::rfc3339")]
    pub reported_at: OffsetDateTime,
}

/// A device's broker login. The password is 256 random bits, so it is stored
/// as its SHA-256 (hex): a high-entropy secret cannot be guessed from a fast
/// hash, and a fast hash keeps every MQTT CONNECT cheap. (argon2id is for
/// passwords people choose.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeviceCredentialRecord {
    pub username: String,
    pub device_id: DeviceId,
    pub tenant_id: TenantId,
    pub property_id: PropertyId,
    /// SHA-256 of the password, lower-case hex (embedded broker). Empty for
    /// a certificate credential, which no password matches.
    #[serde(default)]
    pub secret_hash: String,
    /// IoT Core's id of the device certificate (hosted), so revoking the
    /// credential can deactivate and delete it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub certificate_id: Option<String>,
    #[serde(with = "ts::rfc3339")]
    pub created_at: OffsetDateTime,
}

/// A device with what its row shows beside it.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceView {
    pub device: DeviceRecord,
    pub unit: Option<UnitRecord>,
    pub reported: Option<ReportedRecord>,
}

/// Why a registration wrote nothing.
#[derive(Debug, thiserror::Error)]
pub enum RegisterError {
    /// The burned-in serial is registered already (to any device, anywhere).
    #[error("a device with this serial is registered already")]
    SerialTaken,
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub fn device_key(tenant: TenantId, id: DeviceId) -> Key {
    Key::new(format!("TENANT#{tenant}"), format!("DEVICE#{id}"))
}
pub fn unit_key(device: DeviceId, unit: Uuid) -> Key {
    Key::new(format!("DEVICE#{device}"), format!("UNIT#{unit}"))
}
pub fn reported_key(device: DeviceId) -> Key {
    Key::new(format!("DEVICE#{device}"), "REPORTED")
}
pub fn serial_guard(serial: &str) -> Key {
    Key::new(format!("SERIAL#{serial}"), "SERIAL")
}
/// The guard that registers `unit`'s burned-in serial to `device`.
fn serial_guard_item(device: &DeviceRecord, unit: &UnitRecord) -> Item {
    Item::new(serial_guard(&unit.serial))
        .with("deviceId", device.id.to_string())
        .with("unitId", unit.id.to_string())
        .with("tenantId", device.tenant_id.to_string())
}
pub fn child_guard(parent: DeviceId, protocol_id: &str) -> Key {
    Key::new(format!("CHILD#{parent}#{protocol_id}"), "CHILD")
}

/// The writes that create `child`, a device its hub paired and reports
/// (no unit, no credential): the device and its (hub, protocolId) guard, both
/// only if absent. The caller's transaction also writes the hub as it was
/// read, which keeps a deleted hub from gaining a child.
pub fn paired_child_writes(child: &DeviceRecord) -> Result<Vec<TxWrite>, StoreError> {
    let (Some(parent), Some(protocol_id)) = (child.parent_device_id, &child.protocol_id) else {
        return Err(StoreError::Invalid(
            "a paired child names its hub and its protocolId".into(),
        ));
    };
    Ok(vec![
        TxWrite::Put {
            item: device_item(child)?,
            condition: Some(Condition::item_absent()),
        },
        TxWrite::Put {
            item: Item::new(child_guard(parent, protocol_id))
                .with("deviceId", child.id.to_string()),
            condition: Some(Condition::item_absent()),
        },
    ])
}
pub fn credential_key(username: &str) -> Key {
    Key::new(format!("DEVCRED#{username}"), "DEVCRED")
}
/// A room of a property (the rooms' key of `tenancy`).
fn room_key(property: PropertyId, room: RoomId) -> Key {
    Key::new(format!("PROPERTY#{property}"), format!("ROOM#{room}"))
}

/// The item of a device, with its index keys.
pub fn device_item(device: &DeviceRecord) -> Result<Item, StoreError> {
    let mut item = Item::from_record(device_key(device.tenant_id, device.id), device)?;
    // A deleted device stays readable by key (history) but leaves every index:
    // property lists, its hub's children and the heartbeat sweep.
    if device.deleted_at.is_some() {
        return Ok(item);
    }
    if let Some(property) = device.property_id {
        item.set(Index::Gsi1.pk_attr(), format!("PROPERTY#{property}"));
        item.set(Index::Gsi1.sk_attr(), format!("DEVICE#{}", device.id));
    }
    if let (Some(parent), Some(protocol_id)) = (device.parent_device_id, &device.protocol_id) {
        item.set(Index::Gsi2.pk_attr(), format!("PARENT#{parent}"));
        item.set(Index::Gsi2.sk_attr(), format!("CHILD#{protocol_id}"));
    }
    // Sparse: only ONLINE devices are in the sweep's index (gsi3 is shared
    // with other partitions, e.g. `PENDING` command rows; partitions differ).
    if device.status.known() == Some(DeviceStatus::Online) {
        item.set(
            Index::Gsi3.pk_attr(),
            online_partition(online_shard(device.id)),
        );
        item.set(
            Index::Gsi3.sk_attr(),
            online_sort_key(device.last_seen, device.id),
        );
    }
    Ok(item)
}

/// Shards of the ONLINE index. Every device write of an ONLINE device also
/// writes its index entry, and one DynamoDB index partition takes about
/// 1,000 writes/s: 8 partitions carry ~8,000 device writes/s (reports of
/// ONLINE devices, mostly heartbeats) before the shard count must grow.
/// Changing it re-shards: every ONLINE device must be rewritten.
pub const ONLINE_SHARDS: u32 = 8;

/// The shard of a device in the ONLINE index: FNV-1a of its id (stable
/// across builds and runtimes, unlike std's hasher), modulo [`ONLINE_SHARDS`].
pub fn online_shard(id: DeviceId) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for byte in id.to_string().bytes() {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash % ONLINE_SHARDS
}

/// The gsi3 partition of the ONLINE devices of `shard`.
pub fn online_partition(shard: u32) -> String {
    format!("ONLINE#{shard}")
}

/// The fixed-width time (UTC microseconds, 20 digits) of the ONLINE index;
/// never heard from sorts first (all zeros).
pub fn online_time(at: Option<OffsetDateTime>) -> String {
    let micros = at.map_or(0, |at| (at.unix_timestamp_nanos() / 1_000).max(0));
    format!("{micros:020}")
}

/// The gsi3 sort key of an ONLINE device: `{lastSeen}#{deviceId}`.
pub fn online_sort_key(last_seen: Option<OffsetDateTime>, id: DeviceId) -> String {
    format!("{}#{id}", online_time(last_seen))
}

/// Why a warranty replacement was not written.
#[derive(Debug, thiserror::Error)]
pub enum ReplaceUnitError {
    /// The new board's serial is registered already.
    #[error("a device with this serial is registered already")]
    SerialTaken,
    /// The device changed (or was deleted) since it was read: read again.
    #[error("the device changed meanwhile")]
    Changed,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The optimistic check every lifecycle write of a device makes: the device
/// is exactly as read (every change bumps `updatedAt`).
fn unchanged_device(read_updated_at: OffsetDateTime) -> Result<Condition, StoreError> {
    let read = read_updated_at
        .format(&time::format_description::well_known::Rfc3339)
        .map_err(|e| StoreError::Invalid(e.to_string()))?;
    Ok(Condition::eq("updatedAt", read))
}

/// `true` when the transaction was written, `false` when a condition failed.
fn written(result: Result<(), StoreError>) -> Result<bool, StoreError> {
    match result {
        Ok(()) => Ok(true),
        Err(StoreError::TransactionCanceled { .. }) => Ok(false),
        Err(e) => Err(e),
    }
}

/// What [`Devices::register`] writes.
pub struct Registration<'a> {
    pub device: &'a DeviceRecord,
    pub unit: &'a UnitRecord,
    pub credential: &'a DeviceCredentialRecord,
}

pub struct Devices<'a>(pub &'a dyn Store);

impl Devices<'_> {
    /// Registers a device with its first unit and credential in one
    /// transaction (one store call). A serial registers once: a second
    /// registration of the same serial is [`RegisterError::SerialTaken`].
    /// (A warranty replacement, a new unit of an existing device, is a
    /// different operation; it does not exist yet.)
    pub async fn register(&self, registration: Registration<'_>) -> Result<(), RegisterError> {
        let Registration {
            device,
            unit,
            credential,
        } = registration;
        let absent = || Some(Condition::item_absent());
        let writes = vec![
            TxWrite::Put {
                item: device_item(device)?,
                condition: absent(),
            },
            TxWrite::Put {
                item: Item::from_record(unit_key(device.id, unit.id), unit)?,
                condition: absent(),
            },
            TxWrite::Put {
                item: serial_guard_item(device, unit),
                condition: absent(),
            },
            TxWrite::Put {
                item: Item::from_record(credential_key(&credential.username), credential)?,
                condition: absent(),
            },
        ];
        const SERIAL: usize = 2;
        match self.0.transact(writes).await {
            Ok(()) => Ok(()),
            Err(StoreError::TransactionCanceled { reasons }) => {
                if reasons.get(SERIAL) == Some(&CancelReason::ConditionFailed) {
                    Err(RegisterError::SerialTaken)
                } else {
                    Err(StoreError::TransactionCanceled { reasons }.into())
                }
            }
            Err(e) => Err(e.into()),
        }
    }

    /// One device of a tenant (deleted ones included; callers decide).
    pub async fn get(
        &self,
        tenant: TenantId,
        id: DeviceId,
    ) -> Result<Option<DeviceRecord>, StoreError> {
        record(self.0, &device_key(tenant, id)).await
    }

    /// One page of a tenant's devices, in id order (UUIDv7: oldest first).
    /// One query.
    pub async fn list_by_tenant(
        &self,
        tenant: TenantId,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<DeviceRecord>, Option<PageKey>), StoreError> {
        page(
            self.0,
            tenant_devices(tenant)
                .query()
                .sort(SortKey::BeginsWith("DEVICE#".into()))
                .limit(limit)
                .after(after),
        )
        .await
    }

    /// One page of a property's devices (gsi1), in id order. One query. The
    /// index spans tenants only through the property id; callers filter on
    /// `tenant_id` for the tenant they authorized.
    pub async fn list_by_property(
        &self,
        property: PropertyId,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<DeviceRecord>, Option<PageKey>), StoreError> {
        page(
            self.0,
            home_devices(property)
                .query()
                .sort(SortKey::BeginsWith("DEVICE#".into()))
                .limit(limit)
                .after(after),
        )
        .await
    }

    /// A device's units, oldest first. One query.
    pub async fn units(&self, device: DeviceId) -> Result<Vec<UnitRecord>, StoreError> {
        page(
            self.0,
            Query::partition(format!("DEVICE#{device}")).sort(SortKey::BeginsWith("UNIT#".into())),
        )
        .await
        .map(|(units, _)| units)
    }

    pub async fn current_unit(
        &self,
        device: &DeviceRecord,
    ) -> Result<Option<UnitRecord>, StoreError> {
        let Some(unit) = device.current_unit_id else {
            return Ok(None);
        };
        record(self.0, &unit_key(device.id, unit)).await
    }

    pub async fn reported(&self, device: DeviceId) -> Result<Option<ReportedRecord>, StoreError> {
        record(self.0, &reported_key(device)).await
    }

    /// The current unit and the reported state of every device, in the
    /// devices' order: one batch get per 50 devices (two keys each, 100 keys
    /// a batch); none for an empty list.
    pub async fn views(&self, devices: Vec<DeviceRecord>) -> Result<Vec<DeviceView>, StoreError> {
        Ok(self.views_and(devices, Vec::new()).await?.0)
    }

    /// [`Devices::views`] and the items of `extra` keys that exist, read in
    /// the same batch gets (a caller saves a round trip for items it needs
    /// anyway).
    pub async fn views_and(
        &self,
        devices: Vec<DeviceRecord>,
        extra: Vec<Key>,
    ) -> Result<(Vec<DeviceView>, HashMap<Key, Item>), StoreError> {
        // The keys in order: the extras, then each device's unit (when it
        // has one) and reported state; a found item goes back to the slot
        // of its key, matched without building keys again.
        let mut keys = Vec::with_capacity(devices.len() * 2 + extra.len());
        keys.extend(extra);
        let extras = keys.len();
        for device in &devices {
            if let Some(unit) = device.current_unit_id {
                keys.push(unit_key(device.id, unit));
            }
            keys.push(reported_key(device.id));
        }
        let found = super::get_all(self.0, &keys).await?;
        let mut slots: Vec<Option<Item>> = vec![None; keys.len()];
        {
            let slot_of: HashMap<(&str, &str), usize> = keys
                .iter()
                .enumerate()
                .map(|(slot, key)| ((key.pk.as_str(), key.sk.as_str()), slot))
                .collect();
            for item in found {
                if let Some(&slot) = slot_of.get(&(item.pk(), item.sk())) {
                    slots[slot] = Some(item);
                }
            }
        }
        let mut slots = slots.into_iter();
        let mut keys = keys.into_iter();
        let extras: HashMap<Key, Item> = keys
            .by_ref()
            .take(extras)
            .zip(slots.by_ref())
            .filter_map(|(key, item)| Some((key, item?)))
            .collect();
        let views = devices
            .into_iter()
            .map(|device| {
                let unit = match device.current_unit_id {
                    Some(_) => slots.next().flatten().map(|i| i.to_record()).transpose()?,
                    None => None,
                };
                let reported = slots.next().flatten().map(|i| i.to_record()).transpose()?;
                Ok(DeviceView {
                    device,
                    unit,
                    reported,
                })
            })
            .collect::<Result<_, StoreError>>()?;
        Ok((views, extras))
    }

    /// The broker credential of `username`. One get.
    pub async fn credential(
        &self,
        username: &str,
    ) -> Result<Option<DeviceCredentialRecord>, StoreError> {
        if username.is_empty() {
            return Ok(None);
        }
        record(self.0, &credential_key(username)).await
    }

    /// Writes `device` if its stored `updatedAt` is still `read_updated_at`
    /// (the one the caller read); false when it changed or vanished. One put.
    pub async fn replace(
        &self,
        device: &DeviceRecord,
        read_updated_at: OffsetDateTime,
    ) -> Result<bool, StoreError> {
        super::applied(
            self.0
                .put(
                    device_item(device)?,
                    Some(unchanged_device(read_updated_at)?),
                )
                .await,
        )
    }

    /// One page of the ONLINE devices of `shard` last heard from strictly
    /// before `before` (or never), oldest first. One query on gsi3.
    pub async fn online_silent_since(
        &self,
        shard: u32,
        before: OffsetDateTime,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<DeviceRecord>, Option<PageKey>), StoreError> {
        page(
            self.0,
            Query::on_index(Index::Gsi3, online_partition(shard))
                // `{t}#{id}` < `{before}#` exactly when t < before.
                .sort(SortKey::Lt(format!("{}#", online_time(Some(before)))))
                .limit(limit)
                .after(after),
        )
        .await
    }

    /// The live children a hub acquired (gsi2 `PARENT#{hub}`), every page.
    pub async fn children(&self, hub: DeviceId) -> Result<Vec<DeviceRecord>, StoreError> {
        super::every_page(
            self.0,
            Query::on_index(Index::Gsi2, format!("PARENT#{hub}")),
        )
        .await
    }

    /// Deletes one device (its hub's children are the caller's to delete
    /// first): the row stays with `deletedAt` (out of every index), the serial
    /// guards of its boards and its child guard go (so a board or radio
    /// address can be registered again) and the broker credential goes (no
    /// new login succeeds). One transaction, conditional on the device as
    /// read; `false` when it changed meanwhile.
    pub async fn delete(
        &self,
        device: &DeviceRecord,
        units: &[UnitRecord],
        at: OffsetDateTime,
    ) -> Result<bool, StoreError> {
        let mut deleted = device.clone();
        deleted.deleted_at = Some(at);
        deleted.updated_at = at.max(device.updated_at + time::Duration::microseconds(1));
        let mut writes = vec![TxWrite::Put {
            item: device_item(&deleted)?,
            condition: Some(unchanged_device(device.updated_at)?),
        }];
        for unit in units {
            // Only the guards that still name this device (a serial is never
            // released from under another device).
            writes.push(TxWrite::Delete {
                key: serial_guard(&unit.serial),
                condition: Some(
                    Condition::not_exists("deviceId")
                        .or(Condition::eq("deviceId", device.id.to_string())),
                ),
            });
        }
        if let (Some(parent), Some(protocol_id)) = (device.parent_device_id, &device.protocol_id) {
            writes.push(TxWrite::Delete {
                key: child_guard(parent, protocol_id),
                condition: None,
            });
        }
        writes.push(TxWrite::Delete {
            key: credential_key(&device.id.to_string()),
            condition: None,
        });
        written(self.0.transact(writes).await)
    }

    /// A warranty replacement: `new_unit` becomes the device's current board
    /// (its serial registers once), the old board is marked removed, the
    /// device goes back to PROVISIONING until the new board reports, and the
    /// broker credential is replaced by `credential` (the old board can no
    /// longer log in). One transaction, conditional on the device as read.
    pub async fn replace_unit(
        &self,
        device: &DeviceRecord,
        old_unit: Option<&UnitRecord>,
        new_unit: &UnitRecord,
        credential: &DeviceCredentialRecord,
        reason: &str,
        at: OffsetDateTime,
    ) -> Result<DeviceRecord, ReplaceUnitError> {
        let mut updated = device.clone();
        updated.current_unit_id = Some(new_unit.id);
        updated.status = Lenient::Known(DeviceStatus::Provisioning);
        updated.updated_at = at.max(device.updated_at + time::Duration::microseconds(1));
        let mut writes = vec![
            TxWrite::Put {
                item: serial_guard_item(device, new_unit),
                condition: Some(Condition::item_absent()),
            },
            TxWrite::Put {
                item: device_item(&updated)?,
                // The caller refuses a deleted device; deleting bumps
                // `updatedAt`, so this also fails if it was deleted since.
                condition: Some(unchanged_device(device.updated_at)?),
            },
            TxWrite::Put {
                item: Item::from_record(unit_key(device.id, new_unit.id), new_unit)?,
                condition: Some(Condition::item_absent()),
            },
            TxWrite::Put {
                item: Item::from_record(credential_key(&credential.username), credential)?,
                condition: None,
            },
        ];
        if let Some(old) = old_unit {
            let mut removed = old.clone();
            removed.removed_at = Some(at);
            removed.removed_reason = Some(reason.to_owned());
            writes.push(TxWrite::Put {
                item: Item::from_record(unit_key(device.id, old.id), &removed)?,
                condition: Some(Condition::item_present()),
            });
        }
        match self.0.transact(writes).await {
            Ok(()) => Ok(updated),
            Err(StoreError::TransactionCanceled { reasons }) => {
                if reasons.first() == Some(&CancelReason::ConditionFailed) {
                    Err(ReplaceUnitError::SerialTaken)
                } else {
                    Err(ReplaceUnitError::Changed)
                }
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Replaces a live device's broker credential (rotation): the old secret
    /// stops working at once. `false` when the device is gone or changed.
    pub async fn replace_credential(
        &self,
        device: &DeviceRecord,
        credential: &DeviceCredentialRecord,
    ) -> Result<bool, StoreError> {
        let writes = vec![
            TxWrite::Check {
                key: device_key(device.tenant_id, device.id),
                condition: unchanged_device(device.updated_at)?,
            },
            TxWrite::Put {
                item: Item::from_record(credential_key(&credential.username), credential)?,
                condition: None,
            },
        ];
        written(self.0.transact(writes).await)
    }

    /// Whether `room` is a room of `property`. One get.
    pub async fn room_exists(
        &self,
        property: PropertyId,
        room: RoomId,
    ) -> Result<bool, StoreError> {
        Ok(self.0.get(&room_key(property, room)).await?.is_some())
    }
}

/// The list of a tenant's devices.
pub fn tenant_devices(tenant: TenantId) -> ListScope {
    ListScope::Table(format!("TENANT#{tenant}"))
}

/// The list of the devices of a home.
pub fn home_devices(property: PropertyId) -> ListScope {
    ListScope::Index(Index::Gsi1, format!("PROPERTY#{property}"))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use alyt_domain::SystemClock;

    use super::*;
    use crate::counting::CountingStore;
    use crate::sqlite::SqliteStore;

    fn now() -> OffsetDateTime {
        OffsetDateTime::now_utc().replace_nanosecond(0).unwrap()
    }

    fn new_device(
        tenant: TenantId,
        property: PropertyId,
        serial: &str,
    ) -> (DeviceRecord, UnitRecord, DeviceCredentialRecord) {
        let id = DeviceId::new();
        let unit = UnitRecord {
            id: Uuid::now_v7(),
            device_id: id,
            serial: serial.into(),
            model: Some("ALSIML".into()),
            firmware: None,
            mac_address: None,
            installed_at: now(),
            removed_at: None,
            removed_reason: None,
        };
        let device = DeviceRecord {
            id,
            tenant_id: tenant,
            property_id: Some(property),
            client_id: None,
            room_id: None,
            name: format!("light {serial}"),
            kind: DeviceKind::Other.into(),
            capabilities: [DeviceCapability::Light.into()].into(),
            features: vec![],
            current_unit_id: Some(unit.id),
            parent_device_id: None,
            protocol: None,
            protocol_id: None,
            firmware_channel: FirmwareChannel::Stable.into(),
            status: DeviceStatus::Provisioning.into(),
            last_seen: None,
            reported_at: None,
            deleted_at: None,
            created_at: now(),
            updated_at: now(),
            settings: None,
            heartbeat_window_seconds: DEFAULT_HEARTBEAT_WINDOW_SECONDS,
            is_virtual: false,
        };
        let credential = DeviceCredentialRecord {
            username: id.to_string(),
            device_id: id,
            tenant_id: tenant,
            property_id: property,
            secret_hash: "00".repeat(32),
            certificate_id: None,
            created_at: now(),
        };
        (device, unit, credential)
    }

    async fn register(
        store: &dyn Store,
        parts: &(DeviceRecord, UnitRecord, DeviceCredentialRecord),
    ) -> Result<(), RegisterError> {
        Devices(store)
            .register(Registration {
                device: &parts.0,
                unit: &parts.1,
                credential: &parts.2,
            })
            .await
    }

    #[tokio::test]
    async fn register_is_one_call_and_a_serial_registers_once() {
        let store = CountingStore::new(SqliteStore::in_memory(Arc::new(SystemClock)).unwrap());
        let (tenant, property) = (TenantId::new(), PropertyId::new());
        let first = new_device(tenant, property, "SN-1");
        register(&store, &first).await.unwrap();
        assert_eq!(store.take_total(), 1, "one transaction");

        let devices = Devices(&store);
        let got = devices.get(tenant, first.0.id).await.unwrap().unwrap();
        assert_eq!(got, first.0);
        assert_eq!(
            devices.current_unit(&got).await.unwrap(),
            Some(first.1.clone())
        );
        assert_eq!(
            devices.credential(&first.2.username).await.unwrap(),
            Some(first.2.clone())
        );
        assert_eq!(
            devices.units(first.0.id).await.unwrap(),
            vec![first.1.clone()]
        );

        // The same serial again, even in another tenant: refused, nothing written.
        let again = new_device(TenantId::new(), PropertyId::new(), "SN-1");
        assert!(matches!(
            register(&store, &again).await,
            Err(RegisterError::SerialTaken)
        ));
        assert!(
            devices
                .get(again.0.tenant_id, again.0.id)
                .await
                .unwrap()
                .is_none()
        );
        assert!(
            devices
                .credential(&again.2.username)
                .await
                .unwrap()
                .is_none()
        );
    }

    #[tokio::test]
    async fn a_hub_pairs_a_child_once_per_protocol_id() {
        let store = CountingStore::new(SqliteStore::in_memory(Arc::new(SystemClock)).unwrap());
        let (tenant, property) = (TenantId::new(), PropertyId::new());
        let hub = new_device(tenant, property, "HUB-1");
        register(&store, &hub).await.unwrap();
        let child = || {
            let mut device = new_device(tenant, property, "unused").0;
            device.current_unit_id = None;
            device.parent_device_id = Some(hub.0.id);
            device.protocol = Some(Protocol::Zigbee.into());
            device.protocol_id = Some("0x00124b0001".into());
            device
        };
        let first = child();
        store
            .transact(paired_child_writes(&first).unwrap())
            .await
            .unwrap();
        // Another device with the same (hub, protocolId) is refused.
        let err = store
            .transact(paired_child_writes(&child()).unwrap())
            .await
            .unwrap_err();
        assert!(err.is_condition_failure(), "{err:?}");
        // The children of a hub are on gsi2.
        let page = store
            .query(Query::on_index(Index::Gsi2, format!("PARENT#{}", hub.0.id)))
            .await
            .unwrap();
        assert_eq!(page.items.len(), 1);
        assert!(
            paired_child_writes(&hub.0).is_err(),
            "a hub is nobody's child"
        );
    }

    #[tokio::test]
    async fn a_page_of_devices_with_units_and_reports_costs_two_calls() {
        let store = CountingStore::new(SqliteStore::in_memory(Arc::new(SystemClock)).unwrap());
        let (tenant, property) = (TenantId::new(), PropertyId::new());
        let mut ids = Vec::new();
        for n in 0..30 {
            let parts = new_device(tenant, property, &format!("SN-{n}"));
            ids.push(parts.0.id);
            register(&store, &parts).await.unwrap();
        }
        let reported = ReportedRecord {
            device_id: ids[3],
            payload: serde_json::json!({ "light": { "on": true } }),
            reported_at: now(),
        };
        store
            .put(
                Item::from_record(reported_key(ids[3]), &reported).unwrap(),
                None,
            )
            .await
            .unwrap();
        store.take_total();

        let devices = Devices(&store);
        let (page, next) = devices.list_by_tenant(tenant, 20, None).await.unwrap();
        let views = devices.views(page).await.unwrap();
        assert_eq!(
            store.take_total(),
            2,
            "one query and one batch get for 20 devices"
        );
        assert_eq!(views.len(), 20);
        assert!(views.iter().all(|v| v.unit.is_some()));
        assert_eq!(views[3].reported, Some(reported));
        assert!(views.iter().filter(|v| v.reported.is_some()).count() == 1);
        let (rest, end) = devices.list_by_tenant(tenant, 20, next).await.unwrap();
        assert_eq!(rest.len(), 10);
        assert!(end.is_none());
        let ordered: Vec<DeviceId> = views
            .iter()
            .map(|v| v.device.id)
            .chain(rest.iter().map(|d| d.id))
            .collect();
        let mut sorted = ids.clone();
        sorted.sort_by_key(|id| id.to_string());
        assert_eq!(ordered, sorted);

        // By property (gsi1), then the views: a page of 60 needs two batches.
        store.take_total();
        let (by_property, _) = devices.list_by_property(property, 200, None).await.unwrap();
        assert_eq!(by_property.len(), 30);
        devices.views(by_property).await.unwrap();
        assert_eq!(store.take_total(), 2);
        // No devices: no batch get.
        let views = devices.views(Vec::new()).await.unwrap();
        assert!(views.is_empty());
        assert_eq!(store.take_total(), 0);
    }

    #[test]
    fn stored_rows_from_a_newer_build_still_read() {
        let (device, _, _) = new_device(TenantId::new(), PropertyId::new(), "SN-X");
        let mut value = serde_json::to_value(&device).unwrap();
        value["status"] = "QUARANTINED".into();
        value["capabilities"] = serde_json::json!(["HOLOGRAM", "LIGHT"]);
        value
            .as_object_mut()
            .unwrap()
            .remove("heartbeatWindowSeconds");
        let read: DeviceRecord = serde_json::from_value(value).unwrap();
        assert_eq!(read.status.as_str(), "QUARANTINED");
        assert_eq!(read.known_capabilities(), [DeviceCapability::Light].into());
        assert_eq!(
            read.heartbeat_window_seconds,
            DEFAULT_HEARTBEAT_WINDOW_SECONDS
        );
        let again = serde_json::to_value(&read).unwrap();
        assert_eq!(
            again["capabilities"],
            serde_json::json!(["LIGHT", "HOLOGRAM"])
        );
        assert_eq!(again["virtual"], false);
    }
}
