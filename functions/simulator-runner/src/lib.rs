//! The hosted simulator runner: every virtual device the store holds, run
//! by [`alyt_simulator::Simulator`] as an MQTT client, kept in step with the
//! store by polling (the API writes the store and tells nobody when hosted:
//! `StoreWatchedSimulator`). One poll is one gsi1 query per 1,000 virtual
//! devices plus one batch get per 100 (`Simulators::live`); a change is
//! picked up within one poll period.
//!
//! [`Fleet::sync`] compares what is stored with what runs: a new device is
//! started, a changed scenario is applied (the device keeps its session and
//! state), any other change restarts the device, and a device whose record
//! or row is gone is stopped (clean DISCONNECT).

use std::collections::HashMap;

use alyt_domain::ids::DeviceId;
use alyt_simulator::conductor::{Conductor, ConductorReport};
use alyt_simulator::{Simulator, VirtualDeviceSpec};
use alyt_store::repo::simulator::{Simulators, VirtualDeviceRecord};
use alyt_store::{Store, StoreError};

/// What one [`Fleet::sync`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SyncReport {
    pub started: usize,
    pub scenario_changes: usize,
    pub restarted: usize,
    pub stopped: usize,
}

/// The running devices and the records they were started from.
pub struct Fleet {
    simulator: Simulator,
    key: Vec<u8>,
    running: HashMap<DeviceId, VirtualDeviceRecord>,
}

impl Fleet {
    pub fn new(simulator: Simulator, key: Vec<u8>) -> Self {
        Self {
            simulator,
            key,
            running: HashMap::new(),
        }
    }

    pub fn simulator(&self) -> &Simulator {
        &self.simulator
    }

    fn spec(&self, record: &VirtualDeviceRecord) -> Option<VirtualDeviceSpec> {
        VirtualDeviceSpec::of_record(record, &self.key)
    }

    /// Brings the running devices in line with the store.
    pub async fn sync(&mut self, store: &dyn Store) -> Result<SyncReport, StoreError> {
        let stored = Simulators(store).live().await?;
        let mut report = SyncReport::default();
        let mut seen = std::collections::HashSet::new();
        for record in stored {
            seen.insert(record.device_id);
            let Some(spec) = self.spec(&record) else {
                tracing::warn!(device = %record.device_id, profile = %record.profile, "unknown profile; not run");
                continue;
            };
            match self.running.get(&record.device_id) {
                Some(old) if *old == record => continue,
                Some(old) if same_but_scenario(old, &record) => {
                    if self
                        .simulator
                        .set_scenario(record.device_id, spec.scenario)
                        .await
                        .is_err()
                    {
                        self.simulator.upsert(spec).await;
                    }
                    report.scenario_changes += 1;
                }
                Some(_) => {
                    self.simulator.upsert(spec).await;
                    report.restarted += 1;
                }
                None => {
                    self.simulator.upsert(spec).await;
                    report.started += 1;
                }
            }
            self.running.insert(record.device_id, record);
        }
        let gone: Vec<DeviceId> = self
            .running
            .keys()
            .filter(|id| !seen.contains(id))
            .copied()
            .collect();
        for id in gone {
            self.simulator.remove(id).await;
            self.running.remove(&id);
            report.stopped += 1;
        }
        Ok(report)
    }
}

/// One poll: runs stopped elsewhere let go of their devices before the
/// fleet takes them back, and the fleet lets go of a new run's devices
/// before the run's player takes them (two clients never share a session).
pub async fn poll(fleet: &mut Fleet, conductor: &mut Conductor, store: &dyn Store) {
    if let Err(e) = conductor.retire().await {
        tracing::warn!(error = %e, "cannot read the script runs; retrying at the next poll");
    }
    match fleet.sync(store).await {
        Ok(report) if report != SyncReport::default() => {
            tracing::info!(?report, "virtual devices synced")
        }
        Ok(_) => {}
        Err(e) => {
            tracing::warn!(error = %e, "cannot list the virtual devices; retrying at the next poll")
        }
    }
    match conductor.start().await {
        Ok(report) if report != ConductorReport::default() => {
            tracing::info!(?report, "script runs synced")
        }
        Ok(_) => {}
        Err(e) => {
            tracing::warn!(error = %e, "cannot read the script runs; retrying at the next poll")
        }
    }
}

fn same_but_scenario(a: &VirtualDeviceRecord, b: &VirtualDeviceRecord) -> bool {
    a.device_id == b.device_id
        && a.tenant_id == b.tenant_id
        && a.property_id == b.property_id
        && a.profile == b.profile
        && a.seed == b.seed
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use alyt_domain::SystemClock;
    use alyt_domain::ids::{DeveloperId, PropertyId, TenantId};
    use alyt_simulator::{RunnerConfig, Scenario, Unlimited};
    use alyt_store::repo::devices::{DeviceRecord, device_item};
    use alyt_store::repo::simulator::Simulators;
    use alyt_store::sqlite::SqliteStore;
    use time::OffsetDateTime;

    use super::*;

    async fn seed_device(store: &SqliteStore, tenant: TenantId) -> VirtualDeviceRecord {
        let now = OffsetDateTime::now_utc();
        let id = DeviceId::new();
        let property = PropertyId::new();
        let row: DeviceRecord = serde_json_row(id, tenant, property, now);
        store.put(device_item(&row).unwrap(), None).await.unwrap();
        let record = VirtualDeviceRecord {
            device_id: id,
            tenant_id: tenant,
            property_id: property,
            developer_id: DeveloperId::new(),
            profile: "LIGHT".into(),
            scenario: "NORMAL".into(),
            scenario_until: None,
            seed: "42".into(),
            detached_at: None,
            run_id: None,
            created_at: now,
            updated_at: now,
        };
        Simulators(store).create(&record).await.unwrap();
        record
    }

    fn serde_json_row(
        id: DeviceId,
        tenant: TenantId,
        property: PropertyId,
        now: OffsetDateTime,
    ) -> DeviceRecord {
        let at = now
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap();
        serde_json::from_value(serde_json::json!({
            "id": id, "tenantId": tenant, "propertyId": property, "roomId": null,
            "name": "Virtual light", "kind": "OTHER", "capabilities": ["LIGHT"],
            "currentUnitId": null, "parentDeviceId": null, "protocol": null, "protocolId": null,
            "firmwareChannel": "STABLE", "status": "PROVISIONING",
            "createdAt": at, "updatedAt": at, "virtual": true,
        }))
        .unwrap()
    }

    #[tokio::test]
    async fn sync_starts_changes_and_stops_what_the_store_says() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("t.db"), Arc::new(SystemClock)).unwrap();
        let tenant = TenantId::new();
        let a = seed_device(&store, tenant).await;
        // Nothing listens on port 9: the devices keep retrying, which is fine.
        let simulator = Simulator::new(RunnerConfig::new("127.0.0.1", 9), Arc::new(Unlimited));
        let mut fleet = Fleet::new(simulator, b"key".to_vec());

        let report = fleet.sync(&store).await.unwrap();
        assert_eq!(report.started, 1);
        assert_eq!(fleet.sync(&store).await.unwrap(), SyncReport::default());

        let now = OffsetDateTime::now_utc();
        Simulators(&store)
            .set_scenario(tenant, a.device_id, "BURST", None, now)
            .await
            .unwrap();
        assert_eq!(fleet.sync(&store).await.unwrap().scenario_changes, 1);
        let snapshot = fleet.simulator().snapshot(a.device_id).await.unwrap();
        assert_eq!(snapshot.setting.scenario, Scenario::Burst);

        Simulators(&store)
            .delete(tenant, a.device_id)
            .await
            .unwrap();
        assert_eq!(fleet.sync(&store).await.unwrap().stopped, 1);
        assert!(fleet.simulator().snapshot(a.device_id).await.is_none());
        fleet.simulator().shutdown().await;
    }

    /// A poll hands a pending run's device from the fleet to the run's
    /// player; a player that cannot reach the broker fails the run, naming
    /// why, and the next poll gives the device back to the fleet.
    #[tokio::test]
    async fn a_poll_hands_a_runs_device_to_its_player_and_takes_it_back() {
        use alyt_store::repo::simulator::{RunRecord, run_status};
        let dir = tempfile::tempdir().unwrap();
        let sqlite =
            Arc::new(SqliteStore::open(&dir.path().join("t.db"), Arc::new(SystemClock)).unwrap());
        let tenant = TenantId::new();
        let a = seed_device(&sqlite, tenant).await;
        let store: Arc<dyn Store> = sqlite;
        // Nothing listens on port 9: connections are refused at once.
        let simulator = Simulator::new(RunnerConfig::new("127.0.0.1", 9), Arc::new(Unlimited));
        let mut fleet = Fleet::new(simulator.clone(), b"key".to_vec());
        let mut conductor = Conductor::new(
            store.clone(),
            Arc::new(SystemClock),
            simulator,
            b"key".to_vec(),
            false,
        );
        poll(&mut fleet, &mut conductor, &*store).await;
        assert!(fleet.simulator().snapshot(a.device_id).await.is_some());

        let script = serde_json::json!({
            "name": "one lamp", "roles": [{ "name": "lamp", "profile": "LIGHT" }], "durationMs": 1000
        });
        let run = RunRecord {
            id: uuid::Uuid::now_v7(),
            tenant_id: tenant,
            script_id: uuid::Uuid::now_v7(),
            script_name: "one lamp".into(),
            script,
            seed: "1".into(),
            devices: [("lamp".to_owned(), a.device_id)].into(),
            status: run_status::PENDING.into(),
            total: 2,
            played: 0,
            traffic_sha256: String::new(),
            duration_ms: 1000,
            reason: None,
            player: None,
            created_at: OffsetDateTime::now_utc(),
            started_at: None,
            ended_at: None,
        };
        Simulators(&*store).start_run(&run).await.unwrap();
        poll(&mut fleet, &mut conductor, &*store).await;
        assert!(
            fleet.simulator().snapshot(a.device_id).await.is_none(),
            "the fleet let go of the run's device"
        );
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
        let ended = loop {
            let read = Simulators(&*store)
                .run(tenant, run.id)
                .await
                .unwrap()
                .unwrap();
            if read.is_ended() {
                break read;
            }
            assert!(tokio::time::Instant::now() < deadline, "{read:?}");
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        };
        assert_eq!(ended.status, run_status::FAILED);
        assert!(
            ended
                .reason
                .as_deref()
                .unwrap_or("")
                .contains("could not connect"),
            "{ended:?}"
        );
        poll(&mut fleet, &mut conductor, &*store).await;
        assert!(
            fleet.simulator().snapshot(a.device_id).await.is_some(),
            "the fleet runs the device again"
        );

        // A run left RUNNING by a player that went away (a crash) fails at
        // the next poll, saying so, and its device comes back.
        let orphan = RunRecord {
            id: uuid::Uuid::now_v7(),
            ..run
        };
        Simulators(&*store).start_run(&orphan).await.unwrap();
        Simulators(&*store)
            .claim_run(
                tenant,
                orphan.id,
                "a-player-that-crashed",
                OffsetDateTime::now_utc(),
            )
            .await
            .unwrap()
            .unwrap();
        poll(&mut fleet, &mut conductor, &*store).await;
        let failed = Simulators(&*store)
            .run(tenant, orphan.id)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(failed.status, run_status::FAILED);
        assert!(
            failed.reason.as_deref().unwrap_or("").contains("restarted"),
            "{failed:?}"
        );
        poll(&mut fleet, &mut conductor, &*store).await;
        assert!(fleet.simulator().snapshot(a.device_id).await.is_some());
        fleet.simulator().shutdown().await;
    }
}
