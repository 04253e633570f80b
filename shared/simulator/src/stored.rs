//! A virtual device as the store holds it
//! ([`VirtualDeviceRecord`], profile and scenario as their wire names), read
//! as the simulator's types; and the seed its telemetry starts from. The API
//! (its views), the local platform and the hosted runner read records alike.

use alyt_domain::ids::DeviceId;
use alyt_store::repo::simulator::VirtualDeviceRecord;
use sha2::{Digest, Sha256};

use crate::{Profile, ScenarioSetting};

/// The scenario a record holds. A name this build does not know (a newer
/// build wrote it) runs NORMAL.
pub fn scenario_setting(record: &VirtualDeviceRecord) -> ScenarioSetting {
    ScenarioSetting {
        scenario: record.scenario.parse().unwrap_or_default(),
        until: record.scenario_until,
    }
}

/// The runner's view of a stored record: its profile and scenario; `None`
/// for a profile this build does not know.
pub fn runner_setting(record: &VirtualDeviceRecord) -> Option<(Profile, ScenarioSetting)> {
    let profile = record.profile.parse().ok()?;
    Some((profile, scenario_setting(record)))
}

/// A device's telemetry seed: derived from the platform seed (deterministic
/// mode, `ALYT_SIMULATOR_SEED`) and the device id, or random.
pub fn device_seed(platform_seed: Option<u64>, device: DeviceId) -> u64 {
    match platform_seed {
        Some(seed) => {
            let digest = Sha256::new()
                .chain_update(seed.to_be_bytes())
                .chain_update(device.to_string().as_bytes())
                .finalize();
            let mut first = [0u8; 8];
            first.copy_from_slice(&digest[..8]);
            u64::from_be_bytes(first)
        }
        None => u64::from_be_bytes(alyt_domain::secret::random_bytes::<8>()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_derive_from_the_platform_seed() {
        let a = DeviceId::new();
        let b = DeviceId::new();
        assert_eq!(device_seed(Some(7), a), device_seed(Some(7), a));
        assert_ne!(device_seed(Some(7), a), device_seed(Some(7), b));
        assert_ne!(device_seed(Some(7), a), device_seed(Some(8), a));
    }
}
