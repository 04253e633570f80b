//! Virtual devices: which devices the simulator runs, with their profile, the
//! scenario as set and the seed of their telemetry, so the runner can list them
//! at start and every device resumes in its last scenario. The device itself
//! (row, unit, credential) is an ordinary device written by registration; this
//! record sits beside it.
//!
//! Keys:
//!
//! | item | pk | sk | index |
//! |---|---|---|---|
//! | virtual device | `SIM#{tenantId}` | `DEVICE#{deviceId}` | gsi1 `SIMULATOR` / `{deviceId}` (every virtual device of the platform, for the runner) |
//! | simulator key | `CONFIG#simulator` | `KEY` | |
//! | script | `SIM#{tenantId}` | `SCRIPT#{scriptId}` | |
//! | script run | `SIM#{tenantId}` | `RUN#{runId}` | gsi1 `SIMRUN` / `{runId}` while it has not ended (the players' list) |
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
    /// The script run that holds the device: the run's player speaks for
    /// it, and the runner leaves it alone until the run ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<uuid::Uuid>,
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
        self.sandbox_page(tenant, "DEVICE#", limit, after).await
    }

    /// One page of one kind of a sandbox's items (those whose sort key
    /// begins with `kind`), in id order: oldest first, as ids are UUIDv7.
    /// One query.
    async fn sandbox_page<T: crate::Record>(
        &self,
        tenant: TenantId,
        kind: &str,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<T>, Option<PageKey>), StoreError> {
        super::page(
            self.0,
            tenant_virtual_devices(tenant)
                .query()
                .sort(SortKey::BeginsWith(kind.to_owned()))
                .limit(limit)
                .after(after),
        )
        .await
    }

    /// One page of every virtual device of the platform (gsi1), for the
    /// runner at start and when it polls. One index query.
    pub async fn list_all(
        &self,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<VirtualDeviceRecord>, Option<PageKey>), StoreError> {
        super::page(
            self.0,
            Query::on_index(Index::Gsi1, ALL_PARTITION)
                .limit(limit)
                .after(after),
        )
        .await
    }

    /// Every virtual device the runner should run: the stored records
    /// neither detached nor held by a script run whose device row still exists (one gsi1 query per 1,000 records plus one
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
            live.extend(records.into_iter().filter(|r| {
                alive.contains(&r.device_id) && r.detached_at.is_none() && r.run_id.is_none()
            }));
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
            Some(until) => time_value(until)?,
            None => serde_json::Value::Null,
        };
        super::update_if(
            self.0,
            &virtual_device_key(tenant, device),
            vec![
                UpdateAction::Set("scenario".into(), scenario.into()),
                UpdateAction::Set("scenarioUntil".into(), until),
                UpdateAction::Set("updatedAt".into(), time_value(at)?),
            ],
            Condition::item_present(),
        )
        .await
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
        let (change, condition) = match detached {
            // A device a script run holds stays with the run.
            Some(since) => (
                UpdateAction::Set("detachedAt".into(), time_value(since)?),
                Condition::item_present()
                    .and(Condition::not_exists("detachedAt"))
                    .and(Condition::not_exists("runId")),
            ),
            None => (
                UpdateAction::Remove("detachedAt".into()),
                Condition::exists("detachedAt"),
            ),
        };
        super::update_if(
            self.0,
            &virtual_device_key(tenant, device),
            vec![
                change,
                UpdateAction::Set("updatedAt".into(), time_value(at)?),
            ],
            condition,
        )
        .await
    }

    /// Deletes the record; the record as it was, `None` when there was none
    /// (so exactly one caller gives back the VIRTUAL_DEVICES place).
    pub async fn delete(
        &self,
        tenant: TenantId,
        device: DeviceId,
    ) -> Result<Option<VirtualDeviceRecord>, StoreError> {
        super::delete_if(
            self.0,
            &virtual_device_key(tenant, device),
            Condition::item_present(),
        )
        .await
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
        self.sandbox_page(tenant, "SCRIPT#", limit, after).await
    }

    /// Deletes a script; whether there was one.
    pub async fn delete_script(
        &self,
        tenant: TenantId,
        id: uuid::Uuid,
    ) -> Result<bool, StoreError> {
        super::applied(
            self.0
                .delete(&script_key(tenant, id), Some(Condition::item_present()))
                .await,
        )
    }
}

/// The partition of the runner's index of the runs not ended yet.
pub const ACTIVE_RUNS_PARTITION: &str = "SIMRUN";

/// Where a run stands.
pub mod run_status {
    /// Created; waiting for a player to take it.
    pub const PENDING: &str = "PENDING";
    /// A player is publishing its traffic.
    pub const RUNNING: &str = "RUNNING";
    /// Every message of the run was published.
    pub const DONE: &str = "DONE";
    /// Stopped by its developer before its end.
    pub const STOPPED: &str = "STOPPED";
    /// Ended early by a fault (`reason` says which).
    pub const FAILED: &str = "FAILED";

    /// Whether a run in `status` is over.
    pub fn is_ended(status: &str) -> bool {
        !matches!(status, PENDING | RUNNING)
    }
}

/// A script run: a stored script played against chosen virtual devices with
/// a seed. The script is copied in at start, so changing or deleting it
/// later does not change a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunRecord {
    pub id: uuid::Uuid,
    pub tenant_id: TenantId,
    pub script_id: uuid::Uuid,
    pub script_name: String,
    pub script: serde_json::Value,
    /// The seed, as a decimal string.
    pub seed: String,
    /// Each role's virtual device.
    pub devices: std::collections::BTreeMap<String, DeviceId>,
    /// One of [`run_status`].
    pub status: String,
    /// Messages the run publishes in all, and published so far.
    pub total: u64,
    #[serde(default)]
    pub played: u64,
    /// SHA-256 (hex) of the traffic the run plays: runs of one script with
    /// one seed have the same.
    pub traffic_sha256: String,
    pub duration_ms: u64,
    /// Why it failed or who stopped it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The player that took it (a runner instance).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<String>,
    #[serde(with = "ts::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "ts::option", default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<OffsetDateTime>,
    #[serde(with = "ts::option", default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<OffsetDateTime>,
}

impl RunRecord {
    pub fn seed(&self) -> u64 {
        self.seed.parse().unwrap_or(0)
    }

    pub fn is_ended(&self) -> bool {
        run_status::is_ended(&self.status)
    }
}

pub fn run_key(tenant: TenantId, id: uuid::Uuid) -> Key {
    Key::new(format!("SIM#{tenant}"), format!("RUN#{id}"))
}

/// Runs a sandbox may have going at once.
pub const MAX_ACTIVE_RUNS: usize = 5;

/// Why a run could not be started.
#[derive(Debug, thiserror::Error)]
pub enum RunStart {
    /// A device was deleted, detached or taken by another run meanwhile.
    #[error("a device of the run was taken meanwhile")]
    DeviceTaken,
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn time_value(t: OffsetDateTime) -> Result<serde_json::Value, StoreError> {
    serde_json::to_value(Rfc3339(t)).map_err(|e| StoreError::Invalid(e.to_string()))
}

impl Simulators<'_> {
    /// Stores a new run and has it hold its devices, all or nothing (one
    /// transaction): each device must exist, not be detached and not be
    /// held by another run.
    pub async fn start_run(&self, run: &RunRecord) -> Result<(), RunStart> {
        let item = Item::from_record(run_key(run.tenant_id, run.id), run)?
            .with(Index::Gsi1.pk_attr(), ACTIVE_RUNS_PARTITION)
            .with(Index::Gsi1.sk_attr(), run.id.to_string());
        let mut writes = vec![crate::TxWrite::Put {
            item,
            condition: Some(Condition::item_absent()),
        }];
        for device in run.devices.values() {
            writes.push(crate::TxWrite::Update {
                key: virtual_device_key(run.tenant_id, *device),
                actions: vec![UpdateAction::Set("runId".into(), run.id.to_string().into())],
                condition: Some(
                    Condition::item_present()
                        .and(Condition::not_exists("runId"))
                        .and(Condition::not_exists("detachedAt")),
                ),
            });
        }
        match self.0.transact(writes).await {
            Ok(()) => Ok(()),
            Err(e) if e.is_condition_failure() => Err(RunStart::DeviceTaken),
            Err(e) => Err(e.into()),
        }
    }

    pub async fn run(
        &self,
        tenant: TenantId,
        id: uuid::Uuid,
    ) -> Result<Option<RunRecord>, StoreError> {
        super::record(self.0, &run_key(tenant, id)).await
    }

    /// One page of a sandbox's runs, oldest first (ids are UUIDv7). One query.
    pub async fn runs_page(
        &self,
        tenant: TenantId,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<RunRecord>, Option<PageKey>), StoreError> {
        self.sandbox_page(tenant, "RUN#", limit, after).await
    }

    /// Every run of the platform not ended yet (gsi1), for the players.
    pub async fn active_runs(&self) -> Result<Vec<RunRecord>, StoreError> {
        super::every_page(
            self.0,
            Query::on_index(Index::Gsi1, ACTIVE_RUNS_PARTITION).limit(100),
        )
        .await
    }

    /// A player takes a pending run: RUNNING from `at`. `None` when the run
    /// is no longer pending (another player took it, or it was stopped).
    pub async fn claim_run(
        &self,
        tenant: TenantId,
        id: uuid::Uuid,
        player: &str,
        at: OffsetDateTime,
    ) -> Result<Option<RunRecord>, StoreError> {
        self.update_run(
            tenant,
            id,
            vec![
                UpdateAction::Set("status".into(), run_status::RUNNING.into()),
                UpdateAction::Set("player".into(), player.into()),
                UpdateAction::Set("startedAt".into(), time_value(at)?),
            ],
            Condition::eq("status", run_status::PENDING),
        )
        .await
    }

    /// Records how many messages a running run has published. `None` when
    /// it is no longer running (stopped meanwhile).
    pub async fn run_progress(
        &self,
        tenant: TenantId,
        id: uuid::Uuid,
        played: u64,
    ) -> Result<Option<RunRecord>, StoreError> {
        self.update_run(
            tenant,
            id,
            vec![UpdateAction::Set("played".into(), (played as i64).into())],
            Condition::eq("status", run_status::RUNNING),
        )
        .await
    }

    async fn update_run(
        &self,
        tenant: TenantId,
        id: uuid::Uuid,
        actions: Vec<UpdateAction>,
        condition: Condition,
    ) -> Result<Option<RunRecord>, StoreError> {
        super::update_if(self.0, &run_key(tenant, id), actions, condition).await
    }

    /// Ends a run not ended yet (`status` one of DONE, STOPPED, FAILED) and
    /// gives its devices back to the simulator, in one transaction (a device
    /// deleted meanwhile has nothing to give back). The run as ended, `None`
    /// when it had ended already.
    pub async fn end_run(
        &self,
        tenant: TenantId,
        id: uuid::Uuid,
        status: &str,
        reason: Option<&str>,
        played: Option<u64>,
        at: OffsetDateTime,
    ) -> Result<Option<RunRecord>, StoreError> {
        // A device deleted between the read and the transaction fails it:
        // read again and retry (a few times; deletes are rare).
        for _ in 0..3 {
            let Some(run) = self.run(tenant, id).await? else {
                return Ok(None);
            };
            if run.is_ended() {
                return Ok(None);
            }
            let mut actions = vec![
                UpdateAction::Set("status".into(), status.into()),
                UpdateAction::Set("endedAt".into(), time_value(at)?),
                UpdateAction::Remove(Index::Gsi1.pk_attr().into()),
                UpdateAction::Remove(Index::Gsi1.sk_attr().into()),
            ];
            if let Some(reason) = reason {
                actions.push(UpdateAction::Set("reason".into(), reason.into()));
            }
            if let Some(played) = played {
                actions.push(UpdateAction::Set("played".into(), (played as i64).into()));
            }
            let mut writes = vec![crate::TxWrite::Update {
                key: run_key(tenant, id),
                actions,
                condition: Some(Condition::eq("status", run.status.as_str())),
            }];
            let keys: Vec<Key> = run
                .devices
                .values()
                .map(|d| virtual_device_key(tenant, *d))
                .collect();
            for item in super::get_all(self.0, &keys).await? {
                let device: VirtualDeviceRecord = item.to_record()?;
                if device.run_id == Some(id) {
                    writes.push(crate::TxWrite::Update {
                        key: virtual_device_key(tenant, device.device_id),
                        actions: vec![
                            UpdateAction::Remove("runId".into()),
                            UpdateAction::Set("updatedAt".into(), time_value(at)?),
                        ],
                        condition: Some(Condition::eq("runId", id.to_string())),
                    });
                }
            }
            match self.0.transact(writes).await {
                Ok(()) => return self.run(tenant, id).await,
                Err(e) if e.is_condition_failure() => continue,
                Err(e) => return Err(e),
            }
        }
        Err(StoreError::Unavailable(
            "the run changed under every attempt to end it".into(),
        ))
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
            run_id: None,
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

    fn run_of(tenant: TenantId, devices: &[&VirtualDeviceRecord]) -> RunRecord {
        RunRecord {
            id: uuid::Uuid::now_v7(),
            tenant_id: tenant,
            script_id: uuid::Uuid::now_v7(),
            script_name: "s".into(),
            script: serde_json::json!({}),
            seed: "7".into(),
            devices: devices
                .iter()
                .enumerate()
                .map(|(i, d)| (format!("r{i}"), d.device_id))
                .collect(),
            status: run_status::PENDING.into(),
            total: 10,
            played: 0,
            traffic_sha256: "00".into(),
            duration_ms: 1000,
            reason: None,
            player: None,
            created_at: OffsetDateTime::now_utc(),
            started_at: None,
            ended_at: None,
        }
    }

    #[tokio::test]
    async fn a_run_holds_its_devices_until_it_ends_and_only_one_run_holds_a_device() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("t.db"), Arc::new(SystemClock)).unwrap();
        let sims = Simulators(&store);
        let tenant = TenantId::new();
        let (a, b) = (record(tenant), record(tenant));
        sims.create(&a).await.unwrap();
        sims.create(&b).await.unwrap();
        let now = OffsetDateTime::now_utc();

        let run = run_of(tenant, &[&a]);
        sims.start_run(&run).await.unwrap();
        let held = sims.get(tenant, a.device_id).await.unwrap().unwrap();
        assert_eq!(held.run_id, Some(run.id));
        // Taken: a second run on it writes nothing, not even for b.
        let other = run_of(tenant, &[&b, &a]);
        assert!(matches!(
            sims.start_run(&other).await,
            Err(RunStart::DeviceTaken)
        ));
        assert_eq!(
            sims.get(tenant, b.device_id).await.unwrap().unwrap().run_id,
            None
        );
        assert!(sims.run(tenant, other.id).await.unwrap().is_none());
        // Held devices are neither detachable nor the runner's.
        assert!(
            sims.set_detached(tenant, a.device_id, Some(now), now)
                .await
                .unwrap()
                .is_none()
        );
        assert_eq!(sims.active_runs().await.unwrap().len(), 1);

        let claimed = sims
            .claim_run(tenant, run.id, "p1", now)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(claimed.status, run_status::RUNNING);
        assert!(
            sims.claim_run(tenant, run.id, "p2", now)
                .await
                .unwrap()
                .is_none(),
            "taken once"
        );
        assert_eq!(
            sims.run_progress(tenant, run.id, 4)
                .await
                .unwrap()
                .unwrap()
                .played,
            4
        );

        let ended = sims
            .end_run(tenant, run.id, run_status::DONE, None, Some(10), now)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (ended.status.as_str(), ended.played),
            (run_status::DONE, 10)
        );
        assert!(ended.ended_at.is_some());
        assert!(
            sims.end_run(tenant, run.id, run_status::STOPPED, None, None, now)
                .await
                .unwrap()
                .is_none(),
            "ends once"
        );
        assert!(
            sims.run_progress(tenant, run.id, 5)
                .await
                .unwrap()
                .is_none()
        );
        assert_eq!(
            sims.get(tenant, a.device_id).await.unwrap().unwrap().run_id,
            None
        );
        assert!(sims.active_runs().await.unwrap().is_empty());
        let (page, _) = sims.runs_page(tenant, 10, None).await.unwrap();
        assert_eq!(page.len(), 1);
    }

    #[tokio::test]
    async fn a_run_whose_device_was_deleted_still_ends() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("t.db"), Arc::new(SystemClock)).unwrap();
        let sims = Simulators(&store);
        let tenant = TenantId::new();
        let (a, b) = (record(tenant), record(tenant));
        sims.create(&a).await.unwrap();
        sims.create(&b).await.unwrap();
        let run = run_of(tenant, &[&a, &b]);
        sims.start_run(&run).await.unwrap();
        sims.delete(tenant, a.device_id).await.unwrap();
        let now = OffsetDateTime::now_utc();
        let ended = sims
            .end_run(tenant, run.id, run_status::FAILED, Some("gone"), None, now)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(ended.reason.as_deref(), Some("gone"));
        assert_eq!(
            sims.get(tenant, b.device_id).await.unwrap().unwrap().run_id,
            None
        );
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
