//! Virtual devices: which devices the simulator runs, with their profile, the
//! scenario as set and the seed of their telemetry, so the runner can list them
//! at start and every device resumes in its last scenario. The device itself
//! (row, unit, credential) is an ordinary device written by registration; this
//! record sits beside it.
//!
//! Keys (see DATA_MODEL.md, "Simulator"):
//!
//! | item | pk | sk | index |
//! |---|---|---|---|
//! | virtual device | `SIM#{tenantId}` | `DEVICE#{deviceId}` | gsi1 `SIMULATOR` / `{deviceId}` (every virtual device of the platform, for the runner) |
//! | simulator key | `CONFIG#simulator` | `KEY` | |
//!
//! Profiles and scenarios are kept as their wire names (`LIGHT`, `BURST`):
//! the store does not know the simulator's types, and a name written by a
//! newer build reads unchanged.

use super::{record, ts};
use std::collections::HashSet;

use alyt_domain::ids::{DeveloperId, DeviceId, PropertyId, TenantId};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::devices::{DeviceRecord, device_key};
use crate::{
    Condition, Index, Item, Key, ListScope, PageKey, Query, SortKey, Store, StoreError,
    UpdateAction,
};

/// The partition of the runner's index (every virtual device).
pub const ALL_PARTITION: &str = "SIMULATOR";

/// One virtual device, as the simulator needs it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VirtualDeviceRecord {
    pub device_id: DeviceId,
    pub tenant_id: TenantId,
    pub property_id: PropertyId,
    /// The developer whose sandbox holds it (its VIRTUAL_DEVICES count).
    pub developer_id: DeveloperId,
    /// `HUB`, `SPEAKER`, `LIGHT`, `SENSOR` or `THERMOSTAT`.
    pub profile: String,
    /// The scenario as set (`NORMAL`, `BURST`, ...).
    pub scenario: String,
    /// When a scenario set with `seconds` ends (NORMAL from then on).
    #[serde(with = "ts::option", default)]
    pub scenario_until: Option<OffsetDateTime>,
    /// The telemetry seed, as a decimal string (a u64 does not fit every
    /// JSON number reader).
    pub seed: String,
    /// Since when the device is detached from the simulator: a developer's
    /// client speaks for it with a credential of its own, and the runner
    /// leaves it alone until it is attached again.
    #[serde(with = "ts::option", default, skip_serializing_if = "Option::is_none")]
    pub detached_at: Option<OffsetDateTime>,
    #[serde(with = "ts::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "ts::rfc3339")]
    pub updated_at: OffsetDateTime,
}

impl VirtualDeviceRecord {
    /// The seed as a number (0 for a corrupt value: still deterministic).
    pub fn seed(&self) -> u64 {
        self.seed.parse().unwrap_or(0)
    }
}

pub fn virtual_device_key(tenant: TenantId, device: DeviceId) -> Key {
    Key::new(format!("SIM#{tenant}"), format!("DEVICE#{device}"))
}

fn key_item() -> Key {
    Key::new("CONFIG#simulator", "KEY")
}

/// The item of a virtual device, in the runner's index.
pub fn virtual_device_item(record: &VirtualDeviceRecord) -> Result<Item, StoreError> {
    Ok(Item::from_record(
        virtual_device_key(record.tenant_id, record.device_id),
        record,
    )?
    .with(Index::Gsi1.pk_attr(), ALL_PARTITION)
    .with(Index::Gsi1.sk_attr(), record.device_id.to_string()))
}

fn records(items: Vec<Item>) -> Result<Vec<VirtualDeviceRecord>, StoreError> {
    items.iter().map(Item::to_record).collect()
}

pub struct Simulators<'a>(pub &'a dyn Store);

impl Simulators<'_> {
    /// Writes a new virtual device record (once per device).
    pub async fn create(&self, record: &VirtualDeviceRecord) -> Result<(), StoreError> {
        self.0
            .put(virtual_device_item(record)?, Some(Condition::item_absent()))
            .await
    }

    pub async fn get(
        &self,
        tenant: TenantId,
        device: DeviceId,
    ) -> Result<Option<VirtualDeviceRecord>, StoreError> {
        record(self.0, &virtual_device_key(tenant, device)).await
    }

    /// One page of a tenant's virtual devices, oldest first (device ids are
    /// UUIDv7). One query.
    pub async fn list_by_tenant(
        &self,
        tenant: TenantId,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<VirtualDeviceRecord>, Option<PageKey>), StoreError> {
        let page = self
            .0
            .query(
                tenant_virtual_devices(tenant)
                    .query()
                    .sort(SortKey::BeginsWith("DEVICE#".into()))
                    .limit(limit)
                    .after(after),
            )
            .await?;
        Ok((records(page.items)?, page.next))
    }

    /// One page of every virtual device of the platform (gsi1), for the
    /// runner at start and when it polls. One index query.
    pub async fn list_all(
        &self,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<VirtualDeviceRecord>, Option<PageKey>), StoreError> {
        let page = self
            .0
            .query(
                Query::on_index(Index::Gsi1, ALL_PARTITION)
                    .limit(limit)
                    .after(after),
            )
            .await?;
        Ok((records(page.items)?, page.next))
    }

    /// Every virtual device the runner should run: the stored records not
    /// detached whose device row still exists (one gsi1 query per 1,000 records plus one
    /// batch get per 100). The local platform calls it at start; the hosted
    /// runner at start and on every poll.
    pub async fn live(&self) -> Result<Vec<VirtualDeviceRecord>, StoreError> {
        let mut live = Vec::new();
        let mut after = None;
        loop {
            let (records, next) = self.list_all(1000, after).await?;
            let keys: Vec<Key> = records
                .iter()
                .map(|r| device_key(r.tenant_id, r.device_id))
                .collect();
            let mut alive = HashSet::new();
            for item in super::get_all(self.0, &keys).await? {
                let row: DeviceRecord = item.to_record()?;
                if row.deleted_at.is_none() {
                    alive.insert(row.id);
                }
            }
            live.extend(
                records
                    .into_iter()
                    .filter(|r| alive.contains(&r.device_id) && r.detached_at.is_none()),
            );
            match next {
                Some(next) => after = Some(next),
                None => break,
            }
        }
        Ok(live)
    }

    /// Stores the scenario as set; `None` when the record does not exist
    /// (deleted meanwhile). One conditional update.
    pub async fn set_scenario(
        &self,
        tenant: TenantId,
        device: DeviceId,
        scenario: &str,
        until: Option<OffsetDateTime>,
        at: OffsetDateTime,
    ) -> Result<Option<VirtualDeviceRecord>, StoreError> {
        let until = match until {
            Some(until) => serde_json::to_value(Rfc3339(until))
                .map_err(|e| StoreError::Invalid(e.to_string()))?,
            None => serde_json::Value::Null,
        };
        let updated_at =
            serde_json::to_value(Rfc3339(at)).map_err(|e| StoreError::Invalid(e.to_string()))?;
        match self
            .0
            .update(
                &virtual_device_key(tenant, device),
                vec![
                    UpdateAction::Set("scenario".into(), scenario.into()),
                    UpdateAction::Set("scenarioUntil".into(), until),
                    UpdateAction::Set("updatedAt".into(), updated_at),
                ],
                Some(Condition::item_present()),
            )
            .await
        {
            Ok(item) => Ok(Some(item.to_record()?)),
            Err(StoreError::ConditionFailed { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Detaches the device from the simulator at `at` (`Some`), or attaches
    /// it again (`None`); the record as it is then, `None` when it is
    /// missing or already in that state. One conditional update.
    pub async fn set_detached(
        &self,
        tenant: TenantId,
        device: DeviceId,
        detached: Option<OffsetDateTime>,
        at: OffsetDateTime,
    ) -> Result<Option<VirtualDeviceRecord>, StoreError> {
        let time = |t: OffsetDateTime| {
            serde_json::to_value(Rfc3339(t)).map_err(|e| StoreError::Invalid(e.to_string()))
        };
        let (change, condition) = match detached {
            Some(since) => (
                UpdateAction::Set("detachedAt".into(), time(since)?),
                Condition::item_present().and(Condition::not_exists("detachedAt")),
            ),
            None => (
                UpdateAction::Remove("detachedAt".into()),
                Condition::exists("detachedAt"),
            ),
        };
        match self
            .0
            .update(
                &virtual_device_key(tenant, device),
                vec![change, UpdateAction::Set("updatedAt".into(), time(at)?)],
                Some(condition),
            )
            .await
        {
            Ok(item) => Ok(Some(item.to_record()?)),
            Err(StoreError::ConditionFailed { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Deletes the record; the record as it was, `None` when there was none
    /// (so exactly one caller gives back the VIRTUAL_DEVICES place).
    pub async fn delete(
        &self,
        tenant: TenantId,
        device: DeviceId,
    ) -> Result<Option<VirtualDeviceRecord>, StoreError> {
        match self
            .0
            .delete(
                &virtual_device_key(tenant, device),
                Some(Condition::item_present()),
            )
            .await
        {
            Ok(Some(item)) => Ok(Some(item.to_record()?)),
            Ok(None) | Err(StoreError::ConditionFailed { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The simulator key (32 random bytes, created once in the store): the
    /// secret virtual-device passwords derive from.
    pub async fn key(&self) -> Result<Vec<u8>, StoreError> {
        let candidate = URL_SAFE_NO_PAD.encode(alyt_domain::secret::random_bytes::<32>());
        let stored = self.key_or_create(candidate).await?;
        URL_SAFE_NO_PAD
            .decode(stored)
            .map_err(|_| StoreError::Unavailable("the simulator key item is corrupt".into()))
    }

    /// The simulator key as stored (base64url): the stored one, or
    /// `candidate` when none was stored yet (created once with a conditional
    /// put, as the JWT signing key).
    pub async fn key_or_create(&self, candidate: String) -> Result<String, StoreError> {
        let key = key_item();
        let corrupt = || StoreError::Unavailable("the simulator key item is corrupt".into());
        if let Some(item) = self.0.get(&key).await? {
            return item
                .get_str("secret")
                .map(str::to_owned)
                .ok_or_else(corrupt);
        }
        let item = Item::new(key).with("secret", candidate.clone());
        match self.0.put(item, Some(Condition::item_absent())).await {
            Ok(()) => Ok(candidate),
            // Another process created it first: use theirs.
            Err(StoreError::ConditionFailed {
                current: Some(current),
            }) => current
                .get_str("secret")
                .map(str::to_owned)
                .ok_or_else(corrupt),
            Err(e) => Err(e),
        }
    }
}

/// An instant serialised as the records store it.
#[derive(Serialize)]
struct Rfc3339(#[serde(with = "ts::rfc3339")] OffsetDateTime);

/// The list of a tenant's virtual devices.
/// A stored simulation script of a sandbox: the script as its developer
/// wrote it (JSON, checked by `alyt_simulator::script` before it is stored).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScriptRecord {
    pub id: uuid::Uuid,
    pub tenant_id: TenantId,
    pub name: String,
    pub script: serde_json::Value,
    #[serde(with = "ts::rfc3339")]
    pub created_at: OffsetDateTime,
}

pub fn script_key(tenant: TenantId, id: uuid::Uuid) -> Key {
    Key::new(format!("SIM#{tenant}"), format!("SCRIPT#{id}"))
}

/// Scripts a sandbox may hold.
pub const MAX_SCRIPTS: usize = 50;

impl Simulators<'_> {
    /// Stores a new script (one conditional put).
    pub async fn create_script(&self, record: &ScriptRecord) -> Result<(), StoreError> {
        let item = Item::from_record(script_key(record.tenant_id, record.id), record)?;
        self.0.put(item, Some(Condition::item_absent())).await
    }

    pub async fn script(
        &self,
        tenant: TenantId,
        id: uuid::Uuid,
    ) -> Result<Option<ScriptRecord>, StoreError> {
        super::record(self.0, &script_key(tenant, id)).await
    }

    /// One page of a sandbox's scripts, oldest first (ids are UUIDv7). One query.
    pub async fn scripts_page(
        &self,
        tenant: TenantId,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<ScriptRecord>, Option<PageKey>), StoreError> {
        super::page(
            self.0,
            tenant_virtual_devices(tenant)
                .query()
                .sort(SortKey::BeginsWith("SCRIPT#".into()))
                .limit(limit)
                .after(after),
        )
        .await
    }

    /// Deletes a script; whether there was one.
    pub async fn delete_script(
        &self,
        tenant: TenantId,
        id: uuid::Uuid,
    ) -> Result<bool, StoreError> {
        match self
            .0
            .delete(&script_key(tenant, id), Some(Condition::item_present()))
            .await
        {
            Ok(_) => Ok(true),
            Err(e) if e.is_condition_failure() => Ok(false),
            Err(e) => Err(e),
        }
    }
}

pub fn tenant_virtual_devices(tenant: TenantId) -> ListScope {
    ListScope::Table(format!("SIM#{tenant}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sqlite::SqliteStore;
    use alyt_domain::SystemClock;
    use std::sync::Arc;

    fn record(tenant: TenantId) -> VirtualDeviceRecord {
        let now = OffsetDateTime::now_utc();
        VirtualDeviceRecord {
            device_id: DeviceId::new(),
            tenant_id: tenant,
            property_id: PropertyId::new(),
            developer_id: DeveloperId::new(),
            profile: "LIGHT".into(),
            scenario: "NORMAL".into(),
            scenario_until: None,
            seed: u64::MAX.to_string(),
            detached_at: None,
            created_at: now,
            updated_at: now,
        }
    }

    #[tokio::test]
    async fn records_list_per_tenant_and_platform_wide_and_keep_scenarios() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("t.db"), Arc::new(SystemClock)).unwrap();
        let sims = Simulators(&store);
        let (a, b) = (TenantId::new(), TenantId::new());
        let (ra, rb) = (record(a), record(b));
        sims.create(&ra).await.unwrap();
        sims.create(&rb).await.unwrap();
        assert!(sims.create(&ra).await.is_err(), "created once");

        let (mine, next) = sims.list_by_tenant(a, 10, None).await.unwrap();
        assert_eq!(mine, vec![ra.clone()]);
        assert!(next.is_none());
        assert_eq!(mine[0].seed(), u64::MAX);

        let (first, next) = sims.list_all(1, None).await.unwrap();
        assert_eq!(first.len(), 1);
        let (second, _) = sims.list_all(1, next).await.unwrap();
        assert_eq!(second.len(), 1);
        assert_ne!(first[0].device_id, second[0].device_id);

        let until = OffsetDateTime::now_utc() + time::Duration::seconds(60);
        let set = sims
            .set_scenario(a, ra.device_id, "BURST", Some(until), until)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(set.scenario, "BURST");
        assert_eq!(
            set.scenario_until.map(|u| u.unix_timestamp()),
            Some(until.unix_timestamp())
        );
        let cleared = sims
            .set_scenario(a, ra.device_id, "SLOW", None, until)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(cleared.scenario_until, None);

        assert!(sims.delete(a, ra.device_id).await.unwrap().is_some());
        assert!(sims.delete(a, ra.device_id).await.unwrap().is_none());
        assert!(
            sims.set_scenario(a, ra.device_id, "SLOW", None, until)
                .await
                .unwrap()
                .is_none()
        );
        let (all, _) = sims.list_all(10, None).await.unwrap();
        assert_eq!(all, vec![rb]);
    }

    #[tokio::test]
    async fn the_key_is_created_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("t.db"), Arc::new(SystemClock)).unwrap();
        let sims = Simulators(&store);
        assert_eq!(sims.key_or_create("one".into()).await.unwrap(), "one");
        assert_eq!(sims.key_or_create("two".into()).await.unwrap(), "one");
    }
}
