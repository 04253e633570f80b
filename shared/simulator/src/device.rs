//! One virtual device's behaviour, with no I/O: its state, how it answers
//! commands, and what it publishes at each instant. The runner feeds it
//! events (connected, a command arrived, time passed) with an explicit `now`
//! and publishes the [`Output`]s it answers; tests do the same without a
//! broker.
//!
//! Timing ([`Timing`]):
//! * on connect: availability `online` and a status report; the heartbeat
//!   (a status report) every `heartbeat`, telemetry every `telemetry`,
//!   both counted from the connection;
//! * every status report restarts the heartbeat (it is one);
//! * BURST: telemetry every `burst_interval` (20 a second);
//! * FLAPPING: [`Output::DropConnection`] `flap_period` after each connect;
//! * SLOW: a command is worked `slow_delay` after it arrived;
//! * BURST on a detector or the lock: a detection (or a keypad move) every
//!   `detection`, alternating its rise and its end;
//! * a timed scenario reverts at its `until`: [`VirtualDevice::next_wake`]
//!   includes that instant, and the tick there reports the change.
//!
//! Scenario effects are computed when a report is built, never written
//! into the state: the battery reads 8 % only while LOW_BATTERY lasts, and
//! the true state shows again afterwards.
//!
//! Reproducibility: random numbers are drawn only when a telemetry message
//! is built, from a generator seeded once, so a seed fixes the sequence of
//! telemetry values (for the same commands; the hub's uptime also depends
//! on when the device connected).

use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

pub use alyt_device::JsonObject;
use alyt_device::channels::decode_command;
use alyt_device::{Availability, CommandMessage, CommandResponse, StatusReport, Telemetry};
use alyt_domain::capability::CapabilityDescriptor;
use alyt_domain::device::{COMMAND_VERB_MAX_CHARS, CommandId, CommandRequest, has_length};
use serde_json::{Value, json};
use time::OffsetDateTime;

use crate::profile::{FIRMWARE, Profile};
use crate::rng::SimRng;
use crate::scenario::{Scenario, ScenarioSetting};

/// The battery level reported in the LOW_BATTERY scenario.
pub const LOW_BATTERY_LEVEL: f64 = 8.0;
/// At or below this level `battery.low` is true.
pub const LOW_BATTERY_THRESHOLD: f64 = 15.0;
/// The fault reported in the SENSOR_ERROR scenario.
pub const SENSOR_ERROR_FAULT: &str = "sensor_error";
/// Response statuses.
pub const STATUS_OK: &str = "ok";
pub const STATUS_REJECTED: &str = "rejected";

/// How often a device reports, and the scenario timings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    /// Status report period. The default, 30 s, is a third of the platform's
    /// default heartbeat window (90 s), so two lost reports do not mark the
    /// device offline.
    pub heartbeat: Duration,
    /// Telemetry period (NORMAL). Default 20 s.
    pub telemetry: Duration,
    /// Telemetry period in BURST: 50 ms, twenty a second.
    pub burst_interval: Duration,
    /// How long a command waits in SLOW: 5 s.
    pub slow_delay: Duration,
    /// How long a connection lasts in FLAPPING: 30 s.
    pub flap_period: Duration,
    /// BURST on a detector or the lock: how often it detects (or is moved
    /// at its keypad). Default 1 s.
    pub detection: Duration,
}

impl Default for Timing {
    fn default() -> Self {
        Self {
            heartbeat: Duration::from_secs(30),
            telemetry: Duration::from_secs(20),
            burst_interval: Duration::from_millis(50),
            slow_delay: Duration::from_secs(5),
            flap_period: Duration::from_secs(30),
            detection: Duration::from_secs(1),
        }
    }
}

/// A virtual hub's side of a hub-run home: it puts the configuration's chunks
/// together (any order, repeats ignored, checked against the digest),
/// acknowledges it, and reports its protection state at the generation the
/// platform sent; it is always ready.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct HubProtection {
    reassembly: alyt_domain::security::hub::Reassembly,
    generation: u64,
    mode: Option<alyt_domain::security::Mode>,
}

impl HubProtection {
    /// A `security.config` or `security.mode` command: its answer and the
    /// events the hub publishes.
    fn command(&mut self, command: &CommandMessage) -> (&'static str, Vec<JsonObject>) {
        use alyt_domain::security::Mode;
        use alyt_domain::security::hub::{
            CONFIG_COMMAND, CONFIG_EVENT, ConfigChunk, MODE_COMMAND, STATE_EVENT,
        };
        let payload = Value::Object(command.payload.clone().unwrap_or_default());
        let state = |generation: u64, mode: Option<Mode>| {
            object(json!({
                "type": STATE_EVENT,
                "generation": generation,
                "mode": mode.unwrap_or(Mode::Off),
                "ready": true,
            }))
        };
        match command.command.as_str() {
            CONFIG_COMMAND => {
                let Ok(chunk) = serde_json::from_value::<ConfigChunk>(payload) else {
                    return (STATUS_REJECTED, Vec::new());
                };
                match self.reassembly.add(&chunk) {
                    None => (STATUS_OK, Vec::new()),
                    Some(Err(_)) => (STATUS_REJECTED, Vec::new()),
                    Some(Ok(config)) => {
                        self.generation = chunk.generation;
                        let applied = object(json!({
                            "type": CONFIG_EVENT,
                            "revision": config.revision,
                            "digest": chunk.digest,
                        }));
                        (STATUS_OK, vec![applied, state(self.generation, self.mode)])
                    }
                }
            }
            MODE_COMMAND => {
                let mode = payload
                    .get("mode")
                    .and_then(|m| serde_json::from_value::<Mode>(m.clone()).ok());
                let generation = payload.get("generation").and_then(Value::as_u64);
                let (Some(mode), Some(generation)) = (mode, generation) else {
                    return (STATUS_REJECTED, Vec::new());
                };
                self.mode = Some(mode);
                self.generation = generation;
                (STATUS_OK, vec![state(generation, Some(mode))])
            }
            _ => (STATUS_REJECTED, Vec::new()),
        }
    }
}

fn object(value: Value) -> JsonObject {
    value.as_object().cloned().unwrap_or_default()
}

/// Something the device does now.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// Publish on the availability channel (retained).
    Availability(Availability),
    Status(StatusReport),
    Telemetry(Telemetry),
    Response(CommandResponse),
    /// Publish on the events channel (a hub reporting a child it paired).
    Event(JsonObject),
    /// FLAPPING: drop the connection without DISCONNECT, so the broker
    /// fires the last will; connect again afterwards.
    DropConnection,
}

/// The state a profile keeps: the true values behind its reports.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ProfileState {
    Hub {
        listening: bool,
        /// The mute switch: moved by the room's choice (`set
        /// voice.listening`) or by a person's hand, and reported either way.
        mic_muted: bool,
        /// The switch is muted because the room stopped listening (and no
        /// person moved it since): listening again unmutes it. A mic a
        /// person muted stays muted.
        muted_for_room: bool,
        /// Children paired so far (each gets the next radio address).
        paired: u32,
        /// A hub-run home's protection: the configuration it is sent.
        security: HubProtection,
        wake_words: u64,
        rssi: f64,
    },
    Speaker {
        volume: f64,
        muted: bool,
        playing: bool,
    },
    Light {
        power: bool,
        brightness: f64,
        color_temp: f64,
        watts: f64,
    },
    Sensor {
        temperature: f64,
        humidity: f64,
        battery: f64,
    },
    Thermostat {
        setpoint: f64,
        ambient: f64,
        heating: bool,
        mode: String,
    },
    Motion {
        motion: bool,
        battery: f64,
    },
    Contact {
        open: bool,
        battery: f64,
    },
    Lock {
        locked: bool,
        battery: f64,
    },
}

/// What an accepted command did.
enum Effect {
    /// The state changed (or was set to what it was): report it.
    State,
    /// Restart: uptime from zero.
    Reboot,
    /// Nothing to report (identify blinks a LED).
    Nothing,
    /// An event to publish (a child paired).
    Event(JsonObject),
    /// The state changed, and an event says how (a lock opened remotely).
    StateAndEvent(JsonObject),
}

impl Profile {
    /// The state of a freshly booted device in the NORMAL scenario, nested
    /// by capability id (what its first status report carries, without
    /// `features` and `firmware`).
    pub fn initial_state(self) -> JsonObject {
        ProfileState::initial(self).to_state(0, Scenario::Normal)
    }
}

impl ProfileState {
    pub(crate) fn initial(profile: Profile) -> Self {
        match profile {
            Profile::Hub => ProfileState::Hub {
                listening: true,
                mic_muted: false,
                muted_for_room: false,
                paired: 0,
                security: HubProtection::default(),
                wake_words: 0,
                rssi: -52.0,
            },
            Profile::Speaker => ProfileState::Speaker {
                volume: 30.0,
                muted: false,
                playing: false,
            },
            Profile::Light => ProfileState::Light {
                power: false,
                brightness: 80.0,
                color_temp: 2700.0,
                watts: 0.0,
            },
            Profile::Sensor => ProfileState::Sensor {
                temperature: 21.0,
                humidity: 45.0,
                battery: 100.0,
            },
            Profile::Thermostat => ProfileState::Thermostat {
                setpoint: 21.0,
                ambient: 19.5,
                heating: true,
                mode: "heat".to_owned(),
            },
            Profile::Motion => ProfileState::Motion {
                motion: false,
                battery: 100.0,
            },
            Profile::Contact => ProfileState::Contact {
                open: false,
                battery: 100.0,
            },
            Profile::Lock => ProfileState::Lock {
                locked: true,
                battery: 100.0,
            },
        }
    }

    /// The state nested by capability id, with `scenario`'s effects.
    pub(crate) fn to_state(&self, uptime: u64, scenario: Scenario) -> JsonObject {
        let state = match self {
            ProfileState::Hub {
                listening,
                mic_muted,
                wake_words,
                rssi,
                ..
            } => json!({
                "voice": { "listening": listening, "micMuted": mic_muted, "wakeWords": wake_words },
                "hub": { "uptime": uptime, "rssi": number(*rssi), "firmware": FIRMWARE },
            }),
            ProfileState::Speaker {
                volume,
                muted,
                playing,
            } => json!({
                "media_player": { "volume": number(*volume), "muted": muted, "playing": playing },
            }),
            ProfileState::Light {
                power,
                brightness,
                color_temp,
                watts,
            } => json!({
                "light": {
                    "power": power,
                    "brightness": number(*brightness),
                    "colorTemp": number(*color_temp),
                    "watts": number(*watts),
                },
            }),
            ProfileState::Sensor {
                temperature,
                humidity,
                battery,
            } => json!({
                "sensor": sensor_state(scenario),
                "sensor.temperature": { "temperature": number(*temperature) },
                "sensor.humidity": { "humidity": number(*humidity) },
                "battery": battery_state(*battery, scenario),
            }),
            ProfileState::Thermostat {
                setpoint,
                ambient,
                heating,
                mode,
            } => json!({
                "thermostat": {
                    "setpoint": number(*setpoint),
                    "ambient": number(*ambient),
                    "heating": heating,
                    "mode": mode,
                },
            }),
            ProfileState::Motion { motion, battery } => json!({
                "sensor": sensor_state(scenario),
                "sensor.motion": { "motion": motion },
                "battery": battery_state(*battery, scenario),
            }),
            ProfileState::Contact { open, battery } => json!({
                "sensor": sensor_state(scenario),
                "sensor.contact": { "open": open },
                "battery": battery_state(*battery, scenario),
            }),
            ProfileState::Lock { locked, battery } => json!({
                "lock": { "locked": locked, "jammed": false },
                "battery": battery_state(*battery, scenario),
            }),
        };
        match state {
            Value::Object(state) => state,
            _ => JsonObject::new(),
        }
    }

    /// Every metric with `scenario`'s effects (SENSOR_ERROR drops the
    /// profile's failing metric, LOW_BATTERY reads 8 %).
    fn metrics(&self, profile: Profile, uptime: u64, scenario: Scenario) -> BTreeMap<String, f64> {
        let flag = |b: bool| if b { 1.0 } else { 0.0 };
        let all: Vec<(&str, f64)> = match self {
            ProfileState::Hub {
                wake_words, rssi, ..
            } => vec![
                ("uptime", uptime as f64),
                ("wakeWords", *wake_words as f64),
                ("rssi", *rssi),
            ],
            ProfileState::Speaker {
                volume, playing, ..
            } => vec![("volume", *volume), ("playing", flag(*playing))],
            ProfileState::Light {
                power,
                brightness,
                watts,
                ..
            } => vec![
                ("power", flag(*power)),
                ("brightness", *brightness),
                ("watts", *watts),
            ],
            ProfileState::Sensor {
                temperature,
                humidity,
                battery,
            } => vec![
                ("temperature", *temperature),
                ("humidity", *humidity),
                ("battery", battery_level(*battery, scenario)),
            ],
            ProfileState::Thermostat {
                setpoint,
                ambient,
                heating,
                ..
            } => vec![
                ("setpoint", *setpoint),
                ("ambient", *ambient),
                ("heating", flag(*heating)),
            ],
            ProfileState::Motion { motion, battery } => vec![
                ("motion", flag(*motion)),
                ("battery", battery_level(*battery, scenario)),
            ],
            ProfileState::Contact { open, battery } => vec![
                ("open", flag(*open)),
                ("battery", battery_level(*battery, scenario)),
            ],
            ProfileState::Lock { locked, battery } => vec![
                ("locked", flag(*locked)),
                ("battery", battery_level(*battery, scenario)),
            ],
        };
        let failed = (scenario == Scenario::SensorError).then(|| profile.failing_metric());
        all.into_iter()
            .filter(|(name, _)| Some(*name) != failed)
            .map(|(name, value)| (name.to_owned(), value))
            .collect()
    }

    /// One telemetry period of life: readings drift, the thermostat heats.
    /// The number of draws depends only on the state, so a seed replays.
    fn evolve(&mut self, rng: &mut SimRng) {
        match self {
            ProfileState::Hub {
                listening,
                mic_muted,
                wake_words,
                rssi,
                ..
            } => {
                *rssi = (*rssi + rng.jitter(2.0)).clamp(-85.0, -35.0).round();
                if rng.chance(0.2) && *listening && !*mic_muted {
                    *wake_words += 1;
                }
            }
            // Volume and playback only change by command.
            ProfileState::Speaker { .. } => {}
            ProfileState::Light {
                power,
                brightness,
                watts,
                ..
            } => {
                let noise = rng.jitter(0.1);
                *watts = light_watts(*power, *brightness, noise);
            }
            ProfileState::Sensor {
                temperature,
                humidity,
                battery,
            } => {
                *temperature = round_to((*temperature + rng.jitter(0.2)).clamp(15.0, 28.0), 0.1);
                *humidity = (*humidity + rng.jitter(1.5)).clamp(30.0, 70.0).round();
                if rng.chance(0.02) {
                    *battery = (*battery - 1.0).max(20.0);
                }
            }
            ProfileState::Thermostat {
                setpoint,
                ambient,
                heating,
                mode,
            } => {
                let target = match mode.as_str() {
                    "off" => None,
                    "eco" => Some(*setpoint - 2.0),
                    _ => Some(*setpoint),
                };
                *heating = target.is_some_and(|t| *ambient < t - 0.2);
                let drift = if *heating { 0.15 } else { -0.05 };
                *ambient = round_to((*ambient + drift + rng.jitter(0.05)).clamp(10.0, 30.0), 0.1);
            }
            ProfileState::Motion { battery, .. }
            | ProfileState::Contact { battery, .. }
            | ProfileState::Lock { battery, .. } => {
                if rng.chance(0.02) {
                    *battery = (*battery - 1.0).max(20.0);
                }
            }
        }
    }

    /// BURST on a detector or the lock: the next detection or keypad move (the
    /// rise, then its end), as the state change and the event home security
    /// reads (`{ type, value?, id?, at? }` from a detector, `{ type: 'lock',
    /// action }` from a lock). The event's id is the instant, so a replay after
    /// a restart never repeats one. `None` for other profiles.
    fn detect(&mut self, now: OffsetDateTime) -> Option<JsonObject> {
        let id = now.unix_timestamp_nanos().to_string();
        let at = now
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default();
        let event = match self {
            ProfileState::Motion { motion, .. } => {
                *motion = !*motion;
                json!({ "type": "motion", "value": *motion, "id": id, "at": at })
            }
            ProfileState::Contact { open, .. } => {
                *open = !*open;
                json!({ "type": "contact", "value": *open, "id": id, "at": at })
            }
            ProfileState::Lock { locked, .. } => {
                *locked = !*locked;
                let action = if *locked {
                    "keypad-lock"
                } else {
                    "keypad-unlock"
                };
                json!({ "type": "lock", "action": action, "id": id, "at": at })
            }
            _ => return None,
        };
        Some(object(event))
    }

    /// Applies a command the descriptors accepted (`value` already checked
    /// against the control: type, range, step, options). `Err` for a
    /// control this profile does not act on.
    fn apply(&mut self, capability: &str, key: &str, value: Option<&Value>) -> Result<Effect, ()> {
        let as_bool = || value.and_then(Value::as_bool).ok_or(());
        let as_number = || value.and_then(Value::as_f64).ok_or(());
        match (self, capability, key) {
            (
                ProfileState::Hub {
                    listening,
                    mic_muted,
                    muted_for_room,
                    ..
                },
                "voice",
                "listening",
            ) => {
                // The room's choice moves the mute switch: off mutes it,
                // on unmutes it only if the room muted it (never a mic a
                // person muted by hand).
                *listening = as_bool()?;
                if !*listening && !*mic_muted {
                    *mic_muted = true;
                    *muted_for_room = true;
                } else if *listening && *muted_for_room {
                    *mic_muted = false;
                    *muted_for_room = false;
                }
                Ok(Effect::State)
            }
            (ProfileState::Hub { .. }, "hub", "identify") => Ok(Effect::Nothing),
            // A simulated Zigbee bulb joins; the hub reports it.
            (ProfileState::Hub { paired, .. }, "hub", "pair") => {
                *paired += 1;
                let event = json!({
                    "type": alyt_device::pairing::CHILD_PAIRED,
                    "protocol": "ZIGBEE",
                    "protocolId": format!("0x00158d{:010x}", *paired),
                    "name": format!("Zigbee bulb {}", *paired),
                    "kind": "OTHER",
                    "capabilities": ["LIGHT"],
                });
                Ok(Effect::Event(
                    event.as_object().cloned().unwrap_or_default(),
                ))
            }
            (ProfileState::Hub { .. }, "hub", "reboot") => Ok(Effect::Reboot),
            (ProfileState::Speaker { volume, .. }, "media_player", "volume") => {
                *volume = as_number()?;
                Ok(Effect::State)
            }
            (ProfileState::Speaker { muted, .. }, "media_player", "muted") => {
                *muted = as_bool()?;
                Ok(Effect::State)
            }
            (ProfileState::Speaker { playing, .. }, "media_player", "play" | "next") => {
                *playing = true;
                Ok(Effect::State)
            }
            (ProfileState::Speaker { playing, .. }, "media_player", "pause") => {
                *playing = false;
                Ok(Effect::State)
            }
            (
                ProfileState::Light {
                    power,
                    brightness,
                    color_temp,
                    watts,
                },
                "light",
                key,
            ) => {
                match key {
                    "power" => *power = as_bool()?,
                    "brightness" => *brightness = as_number()?,
                    "colorTemp" => *color_temp = as_number()?,
                    _ => return Err(()),
                }
                *watts = light_watts(*power, *brightness, 0.0);
                Ok(Effect::State)
            }
            (ProfileState::Thermostat { setpoint, .. }, "thermostat", "setpoint") => {
                *setpoint = as_number()?;
                Ok(Effect::State)
            }
            (ProfileState::Thermostat { mode, .. }, "thermostat", "mode") => {
                *mode = value.and_then(Value::as_str).ok_or(())?.to_owned();
                Ok(Effect::State)
            }
            // Opened by command: a remote unlock (never a keypad or an
            // inside one), which home security hears as such.
            (ProfileState::Lock { locked, .. }, "lock", "locked") => {
                let locking = as_bool()?;
                let unlocked_now = *locked && !locking;
                *locked = locking;
                if unlocked_now {
                    let event = json!({ "type": "lock", "action": "remote-unlock" });
                    Ok(Effect::StateAndEvent(object(event)))
                } else {
                    Ok(Effect::State)
                }
            }
            _ => Err(()),
        }
    }
}

/// A battery-powered device's `battery` state under `scenario`.
fn battery_state(battery: f64, scenario: Scenario) -> Value {
    let level = battery_level(battery, scenario);
    json!({ "level": number(level), "low": level <= LOW_BATTERY_THRESHOLD })
}

/// A sensor's `sensor` state: the fault SENSOR_ERROR reports.
fn sensor_state(scenario: Scenario) -> Value {
    json!({ "fault": (scenario == Scenario::SensorError).then_some(SENSOR_ERROR_FAULT) })
}

fn battery_level(battery: f64, scenario: Scenario) -> f64 {
    if scenario == Scenario::LowBattery {
        LOW_BATTERY_LEVEL
    } else {
        battery
    }
}

/// A 9 W bulb dimmed linearly above a 0.5 W floor; nothing when off.
fn light_watts(power: bool, brightness: f64, noise: f64) -> f64 {
    if power {
        round_to((0.5 + 8.5 * brightness / 100.0 + noise).max(0.0), 0.01)
    } else {
        0.0
    }
}

fn round_to(value: f64, step: f64) -> f64 {
    (value / step).round() * step
}

/// Whole numbers as JSON integers (a brightness of 40 reads back as `40`,
/// the way the command sent it), others as doubles rounded to what the
/// device measures.
fn number(value: f64) -> Value {
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        json!(value as i64)
    } else {
        json!((value * 100.0).round() / 100.0)
    }
}

/// A command as it arrived: decoded, or only its id and verb (a malformed
/// body that still says which command it is, answered 'rejected').
#[derive(Debug, Clone, PartialEq)]
enum Incoming {
    Valid(CommandMessage),
    Malformed {
        command_id: CommandId,
        command: String,
    },
}

impl Incoming {
    fn command_id(&self) -> CommandId {
        match self {
            Incoming::Valid(c) => c.command_id,
            Incoming::Malformed { command_id, .. } => *command_id,
        }
    }

    fn verb(&self) -> &str {
        match self {
            Incoming::Valid(c) => &c.command,
            Incoming::Malformed { command, .. } => command,
        }
    }
}

/// One virtual device (see the module docs).
#[derive(Debug, Clone)]
pub struct VirtualDevice {
    profile: Profile,
    descriptors: Vec<&'static CapabilityDescriptor>,
    features: Vec<String>,
    timing: Timing,
    rng: SimRng,
    state: ProfileState,
    booted_at: OffsetDateTime,
    setting: ScenarioSetting,
    /// The scenario whose effects are in place; differs from
    /// `setting.at(now)` until the tick that notices a revert.
    current: Scenario,
    connected: bool,
    next_status: Option<OffsetDateTime>,
    next_telemetry: Option<OffsetDateTime>,
    next_flap: Option<OffsetDateTime>,
    /// BURST on a detector or the lock: the next detection.
    next_detection: Option<OffsetDateTime>,
    /// SLOW: commands waiting for their answer, oldest first.
    waiting: VecDeque<(OffsetDateTime, Incoming)>,
}

impl VirtualDevice {
    /// A device booted at `now`, not yet connected.
    pub fn new(
        profile: Profile,
        setting: ScenarioSetting,
        seed: u64,
        timing: Timing,
        now: OffsetDateTime,
    ) -> Self {
        Self {
            profile,
            descriptors: profile.descriptors(),
            features: profile.feature_list(),
            timing,
            rng: SimRng::new(seed),
            state: ProfileState::initial(profile),
            booted_at: now,
            setting,
            current: setting.at(now),
            connected: false,
            next_status: None,
            next_telemetry: None,
            next_flap: None,
            next_detection: None,
            waiting: VecDeque::new(),
        }
    }

    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// The scenario in effect (as of the last event or tick).
    pub fn scenario(&self) -> Scenario {
        self.current
    }

    /// The scenario as last set (its `until` may have passed).
    pub fn setting(&self) -> ScenarioSetting {
        self.setting
    }

    /// Whether nothing may be published: OFFLINE.
    pub fn is_silent(&self) -> bool {
        self.current == Scenario::Offline
    }

    /// The state as reported at `now`, nested by capability id.
    pub fn state(&self, now: OffsetDateTime) -> JsonObject {
        self.state.to_state(self.uptime(now), self.current)
    }

    /// The status report at `now`: the state, firmware, features, and the
    /// fault in SENSOR_ERROR (at the top level for every profile; the
    /// sensor also has it as `sensor.fault`).
    pub fn status_report(&self, now: OffsetDateTime) -> StatusReport {
        let mut payload = self.state(now);
        payload.insert("firmware".into(), FIRMWARE.into());
        if self.current == Scenario::SensorError {
            payload.insert("fault".into(), SENSOR_ERROR_FAULT.into());
        }
        StatusReport {
            payload,
            features: Some(self.features.clone()),
        }
    }

    fn uptime(&self, at: OffsetDateTime) -> u64 {
        u64::try_from((at - self.booted_at).whole_seconds()).unwrap_or(0)
    }

    /// The connection is up: availability and status now (unless OFFLINE),
    /// then the schedules start.
    pub fn connected(&mut self, now: OffsetDateTime) -> Vec<Output> {
        self.connected = true;
        self.current = self.setting.at(now);
        self.next_telemetry = Some(now + self.telemetry_interval());
        self.next_status = Some(now + self.timing.heartbeat);
        self.next_flap =
            (self.current == Scenario::Flapping).then(|| now + self.timing.flap_period);
        self.next_detection = self.detection_start(now);
        if self.is_silent() {
            return Vec::new();
        }
        vec![Output::Availability(Availability::Online), self.status(now)]
    }

    /// The connection is gone: nothing is scheduled until the next connect.
    /// Commands waiting in SLOW stay and are answered after it.
    pub fn disconnected(&mut self) {
        self.connected = false;
        self.next_status = None;
        self.next_telemetry = None;
        self.next_flap = None;
        self.next_detection = None;
    }

    pub fn is_connected(&self) -> bool {
        self.connected
    }

    /// Sets the scenario; reports the change when connected.
    pub fn set_scenario(&mut self, setting: ScenarioSetting, now: OffsetDateTime) -> Vec<Output> {
        self.setting = setting;
        self.enter(setting.at(now), now)
    }

    fn enter(&mut self, next: Scenario, now: OffsetDateTime) -> Vec<Output> {
        let previous = std::mem::replace(&mut self.current, next);
        if !self.connected {
            return Vec::new();
        }
        // Telemetry restarts when its rate changes and after silence (whose
        // schedule was not kept); BURST starts at once.
        let rate_changed = (next == Scenario::Burst) != (previous == Scenario::Burst);
        if rate_changed || previous == Scenario::Offline {
            self.next_telemetry = Some(if next == Scenario::Burst {
                now
            } else {
                now + self.timing.telemetry
            });
        }
        if next != Scenario::Flapping {
            self.next_flap = None;
        } else if previous != Scenario::Flapping {
            self.next_flap = Some(now + self.timing.flap_period);
        }
        if next != Scenario::Burst {
            self.next_detection = None;
        } else if previous != Scenario::Burst {
            self.next_detection = self.detection_start(now);
        }
        match (previous, next) {
            (_, Scenario::Offline) => Vec::new(),
            // Back from silence: say so, as after a connect.
            (Scenario::Offline, _) => {
                vec![Output::Availability(Availability::Online), self.status(now)]
            }
            _ => vec![self.status(now)],
        }
    }

    /// When the first detection of a BURST that starts at `now` is due
    /// (at once), for the profiles that detect.
    fn detection_start(&self, now: OffsetDateTime) -> Option<OffsetDateTime> {
        let detects = matches!(
            self.profile,
            Profile::Motion | Profile::Contact | Profile::Lock
        );
        (detects && self.current == Scenario::Burst).then_some(now)
    }

    fn telemetry_interval(&self) -> Duration {
        if self.current == Scenario::Burst {
            self.timing.burst_interval
        } else {
            self.timing.telemetry
        }
    }

    fn status(&mut self, now: OffsetDateTime) -> Output {
        self.next_status = Some(now + self.timing.heartbeat);
        Output::Status(self.status_report(now))
    }

    /// A payload arrived on the commands topic. A body that does not decode
    /// but names its `commandId` and `command` is answered 'rejected'; one
    /// that does not even say that cannot be answered and is ignored.
    pub fn command_bytes(&mut self, now: OffsetDateTime, bytes: &[u8]) -> Vec<Output> {
        let incoming = match decode_command(bytes) {
            Ok(command) => Incoming::Valid(command),
            Err(_) => match malformed(bytes) {
                Some(incoming) => incoming,
                None => return Vec::new(),
            },
        };
        self.receive(now, incoming)
    }

    /// A decoded command arrived.
    pub fn command(&mut self, now: OffsetDateTime, command: CommandMessage) -> Vec<Output> {
        self.receive(now, Incoming::Valid(command))
    }

    /// A person flips a hub's physical mute switch: reported at once, and
    /// from then on the person's choice, which the room's listening never
    /// undoes. Nothing for other profiles.
    pub fn flip_mute_switch(&mut self, now: OffsetDateTime) -> Vec<Output> {
        let ProfileState::Hub {
            mic_muted,
            muted_for_room,
            ..
        } = &mut self.state
        else {
            return Vec::new();
        };
        *mic_muted = !*mic_muted;
        *muted_for_room = false;
        let mut out = self.catch_up(now);
        out.push(self.status(now));
        out
    }

    fn receive(&mut self, now: OffsetDateTime, incoming: Incoming) -> Vec<Output> {
        let mut out = self.catch_up(now);
        match self.current {
            // Silent: the command is not heard (no state change, no answer).
            Scenario::Offline => {}
            Scenario::Slow => {
                self.waiting
                    .push_back((now + self.timing.slow_delay, incoming));
            }
            _ => out.extend(self.execute(now, incoming)),
        }
        out
    }

    /// Works a command: state change and status first, then the response.
    fn execute(&mut self, now: OffsetDateTime, incoming: Incoming) -> Vec<Output> {
        let mut out = Vec::new();
        // Home security's commands to a hub (not a capability's).
        if let (Incoming::Valid(command), ProfileState::Hub { security, .. }) =
            (&incoming, &mut self.state)
            && command.command.starts_with("security.")
        {
            let (status, events) = security.command(command);
            out.extend(events.into_iter().map(Output::Event));
            out.push(Output::Response(CommandResponse {
                command_id: command.command_id,
                command: command.command.clone(),
                status: status.to_owned(),
            }));
            return out;
        }
        let status = match &incoming {
            Incoming::Valid(command) => match self.accept(command) {
                Some((capability, key, value)) => {
                    match self.state.apply(&capability, &key, value.as_ref()) {
                        Ok(Effect::State) => {
                            out.push(self.status(now));
                            STATUS_OK
                        }
                        Ok(Effect::Reboot) => {
                            self.booted_at = now;
                            out.push(self.status(now));
                            STATUS_OK
                        }
                        Ok(Effect::Nothing) => STATUS_OK,
                        Ok(Effect::Event(fields)) => {
                            out.push(Output::Event(fields));
                            STATUS_OK
                        }
                        Ok(Effect::StateAndEvent(fields)) => {
                            out.push(self.status(now));
                            out.push(Output::Event(fields));
                            STATUS_OK
                        }
                        Err(()) => STATUS_REJECTED,
                    }
                }
                None => STATUS_REJECTED,
            },
            Incoming::Malformed { .. } => STATUS_REJECTED,
        };
        out.push(Output::Response(CommandResponse {
            command_id: incoming.command_id(),
            command: incoming.verb().to_owned(),
            status: status.to_owned(),
        }));
        out
    }

    /// The control a command targets and the value to set, when the
    /// device's own descriptors accept it: the same rules the platform
    /// applies before sending (a device trusts no sender). Flat verbs the
    /// profile knows (`identify`, `play`, ...) press their control.
    fn accept(&self, command: &CommandMessage) -> Option<(String, String, Option<Value>)> {
        let body = json!({ "command": command.command, "payload": command.payload });
        let request = match CommandRequest::parse(&body).ok()? {
            CommandRequest::Device { command, .. } => {
                let (capability, key) = self.profile.flat_verb(&command)?;
                CommandRequest::Press {
                    capability: capability.to_owned(),
                    key: key.to_owned(),
                }
            }
            request => request,
        };
        let accepted = request
            .validate(self.descriptors.iter().copied(), Some(&self.features))
            .ok()?;
        let payload = accepted.payload?;
        let text = |field: &str| payload.get(field)?.as_str().map(str::to_owned);
        Some((
            text("capability")?,
            text("key")?,
            payload.get("value").cloned(),
        ))
    }

    /// Applies a revert whose time has come.
    fn catch_up(&mut self, now: OffsetDateTime) -> Vec<Output> {
        let due = self.setting.at(now);
        if due != self.current {
            self.enter(due, now)
        } else {
            Vec::new()
        }
    }

    /// Everything due at `now`, in publishing order. Call it at
    /// [`VirtualDevice::next_wake`] (calling it at any other time is
    /// harmless). A tick that comes late emits each due report once and
    /// skips the missed periods.
    pub fn tick(&mut self, now: OffsetDateTime) -> Vec<Output> {
        let mut out = self.catch_up(now);
        if !self.connected {
            return out;
        }
        while self.waiting.front().is_some_and(|(due, _)| *due <= now) {
            let Some((_, incoming)) = self.waiting.pop_front() else {
                break;
            };
            // Went silent meanwhile: the answer is lost, like the device.
            if !self.is_silent() {
                out.extend(self.execute(now, incoming));
            }
        }
        if self.is_silent() {
            return out;
        }
        if self.next_status.is_some_and(|at| at <= now) {
            out.push(self.status(now));
        }
        if let Some(at) = self.next_telemetry.filter(|at| *at <= now) {
            self.state.evolve(&mut self.rng);
            let metrics = self
                .state
                .metrics(self.profile, self.uptime(at), self.current);
            out.push(Output::Telemetry(Telemetry::Metrics(metrics)));
            let interval = self.telemetry_interval().max(Duration::from_millis(1));
            let mut next = at + interval;
            if next <= now {
                // Late: skip the missed periods rather than burst to catch up.
                let behind = (now - at).unsigned_abs().as_nanos() / interval.as_nanos();
                let skipped = u32::try_from(behind).unwrap_or(u32::MAX);
                next = at + interval.saturating_mul(skipped.saturating_add(1));
            }
            self.next_telemetry = Some(next);
        }
        if self.next_detection.is_some_and(|at| at <= now) {
            self.next_detection = Some(now + self.timing.detection.max(Duration::from_millis(1)));
            if let Some(event) = self.state.detect(now) {
                out.push(self.status(now));
                out.push(Output::Event(event));
            }
        }
        if self.next_flap.is_some_and(|at| at <= now) {
            self.next_flap = None;
            out.push(Output::DropConnection);
        }
        out
    }

    /// When [`VirtualDevice::tick`] next has something to do.
    pub fn next_wake(&self) -> Option<OffsetDateTime> {
        // A revert is due while its effects are still in place (even when
        // `until` has passed: the next tick applies it).
        let revert = self
            .setting
            .until
            .filter(|_| self.current != Scenario::Normal);
        let mut times = vec![revert];
        if self.connected {
            times.push(self.waiting.front().map(|(due, _)| *due));
        }
        // Silent: nothing to report until the scenario changes.
        if self.connected && !self.is_silent() {
            times.extend([
                self.next_status,
                self.next_telemetry,
                self.next_flap,
                self.next_detection,
            ]);
        }
        times.into_iter().flatten().min()
    }
}

/// The commandId and verb of a body that failed the commands schema, if it
/// has both.
fn malformed(bytes: &[u8]) -> Option<Incoming> {
    let value: Value = serde_json::from_slice(bytes).ok()?;
    let command_id = value.get("commandId")?.as_str()?.parse().ok()?;
    let command = value.get("command")?.as_str()?;
    if !has_length(command, COMMAND_VERB_MAX_CHARS) {
        return None;
    }
    Some(Incoming::Malformed {
        command_id,
        command: command.to_owned(),
    })
}
