//! Virtual devices: the profiles, the seven scenarios, and the runner that
//! keeps each device connected to the broker as a real MQTT client with its
//! own credential.
//!
//! * [`Profile`]: what a device is (kind, capabilities, model code,
//!   descriptors, initial state) and [`SANDBOX_DEVICES`];
//! * [`Scenario`] / [`ScenarioSetting`]: a scenario, optionally until an
//!   instant (then NORMAL);
//! * [`VirtualDevice`]: one device's behaviour with no I/O, driven by an
//!   explicit `now` and a seeded generator;
//! * [`device_password`]: the derived password a virtual device logs in
//!   with, and [`DerivedPasswordIssuer`], the credential port that registers
//!   virtual devices with it;
//! * [`stored`]: a stored virtual device read as these types
//!   ([`runner_setting`]), and [`device_seed`];
//! * (feature `runner`, on by default) [`Simulator`]: the fleet of running
//!   devices, one tokio task and one rumqttc client each, with the
//!   [`MessageBudget`] port for the tenant's MQTT_MESSAGES quota;
//! * [`script`]: repeatable simulations (a script checked, and the exact
//!   traffic of a run for a seed), played by [`player`] and kept in step
//!   with the stored runs by [`conductor`] (feature `runner`).

#[cfg(feature = "runner")]
pub mod conductor;
pub mod device;
pub mod password;
#[cfg(feature = "runner")]
pub mod player;
pub mod profile;
mod rng;
#[cfg(feature = "runner")]
pub mod runner;
pub mod scenario;
pub mod script;
pub mod stored;

pub use device::{Output, Timing, VirtualDevice};
pub use password::{DerivedPasswordIssuer, device_password};
pub use profile::{Profile, SANDBOX_DEVICES, UnknownProfile};
#[cfg(feature = "runner")]
pub use runner::{
    DeviceSnapshot, MessageBudget, RunnerConfig, Simulator, SimulatorError, Unlimited,
    VirtualDeviceSpec,
};
pub use scenario::{Scenario, ScenarioSetting, UnknownScenario};
pub use stored::{device_seed, runner_setting, scenario_setting};

#[cfg(test)]
mod tests;
