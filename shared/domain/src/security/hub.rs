//! A hub-run home: arming it requires the assigned hub's current
//! connection, acknowledged configuration, matching generation and
//! protection state, with no automatic local or cloud fallback; its
//! configuration is at most 24 KiB in 1024-byte chunks (24 at most), 200
//! detectors, 64 outputs and 64 disarmers. Plain data and rules, no I/O.
//!
//! * [`HubConfig`]: what the hub needs to protect the home (its detectors
//!   with what each mode watches, its outputs, its disarming keypad locks,
//!   the delays), versioned by the household's configuration revision and
//!   named by its SHA-256 [`digest`](HubConfig::digest).
//! * [`HubConfig::chunks`]: the encoded configuration cut into
//!   [`CHUNK_BYTES`] pieces, each a `security.config` command on the hub's
//!   commands channel ([`ConfigChunk`]); the hub answers with a
//!   `security.config` event naming the revision and digest it applied.
//! * [`Reassembly`]: the hub's side (the virtual hub uses it): chunks in any
//!   order, repeats ignored, the whole checked against its digest.
//! * [`HubSync`]: what the platform knows of the hub: the configuration it
//!   is to hold and when it was sent, what the hub acknowledged, the
//!   protection state it reported (`security.state` events: generation,
//!   mode, ready).
//! * [`Wanted`]: the configuration the home needs now, built from its inventory
//!   as it is at that moment, so a thing discovered after the hub acknowledged
//!   counts for the next arming decision, while the active generation stays
//!   frozen. [`arming_check`] holds every arming to it: the limits, then the
//!   hub's acknowledgement of that very configuration, then its generation.
//!   [`HubSync::rebuilt`] records it as the one to send; [`HubSync::due`] says
//!   when the timers next send or compare, never while a mode is active or
//!   outputs wait to be restored (the armed period's configuration stays
//!   frozen; Off sends the new one).

use std::collections::BTreeMap;

use base64::Engine;
use serde::{Deserialize, Serialize};
use time::{Duration, OffsetDateTime};

use super::Mode;
use super::Signal;
use super::enrolment::Output;

pub const MAX_CONFIG_BYTES: usize = 24 * 1024;
pub const CHUNK_BYTES: usize = 1024;
pub const MAX_CHUNKS: usize = 24;
pub const MAX_DETECTORS: usize = 200;
pub const MAX_OUTPUTS: usize = 64;
pub const MAX_DISARMERS: usize = 64;
/// How soon an unacknowledged configuration is pushed again.
pub const PUSH_AGAIN: Duration = Duration::seconds(10);
/// How soon the timers compare an idle hub-run home's configuration with
/// the hub's again: a thing found by any path (a hub's pairing, a
/// registration, a connector's discovery) reaches the hub within this even
/// when nobody reads the home (reading or arming it compares at once).
pub const CHECK_AGAIN: Duration = Duration::seconds(60);
/// How a refusal over a limit begins.
pub const CONFIG_REFUSED: &str = "the configuration cannot go to the hub";

/// The command a configuration chunk travels as.
pub const CONFIG_COMMAND: &str = "security.config";
/// The command a mode change travels as.
pub const MODE_COMMAND: &str = "security.mode";
/// The hub's event type for an applied configuration (and the command's).
pub const CONFIG_EVENT: &str = "security.config";
/// The hub's event type for its protection state.
pub const STATE_EVENT: &str = "security.state";

/// One detection signal the hub watches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HubDetector {
    pub thing_id: uuid::Uuid,
    pub signal: Signal,
    /// Which modes watch it.
    pub modes: Vec<Mode>,
    /// An entry: the entry delay applies.
    pub entry: bool,
}

/// One output the hub drives in an alarm.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HubOutput {
    pub thing_id: uuid::Uuid,
    pub output: Output,
}

/// What a hub needs to protect a home.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HubConfig {
    /// The household's configuration revision it carries.
    pub revision: u64,
    pub exit_delay_seconds: u32,
    pub entry_delay_seconds: u32,
    pub detectors: Vec<HubDetector>,
    pub outputs: Vec<HubOutput>,
    /// Locks whose verified keypad code turns the home Off.
    pub disarmers: Vec<uuid::Uuid>,
}

/// Why a configuration cannot go to a hub.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("{0} detectors; a hub takes at most {MAX_DETECTORS}")]
    Detectors(usize),
    #[error("{0} outputs; a hub takes at most {MAX_OUTPUTS}")]
    Outputs(usize),
    #[error("{0} disarming locks; a hub takes at most {MAX_DISARMERS}")]
    Disarmers(usize),
    #[error("the configuration is {0} bytes; a hub takes at most {MAX_CONFIG_BYTES}")]
    TooLarge(usize),
}

/// One piece of a configuration, as the `security.config` command's
/// payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigChunk {
    pub revision: u64,
    /// The home's current generation (the hub reports it back in its
    /// protection state).
    pub generation: u64,
    /// SHA-256 (hex) of the whole encoded configuration.
    pub digest: String,
    pub index: u32,
    pub count: u32,
    /// Up to [`CHUNK_BYTES`] bytes of the encoded configuration, base64.
    pub data: String,
}

impl HubConfig {
    /// The configuration as the hub receives it, within the limits.
    pub fn encode(&self) -> Result<Vec<u8>, ConfigError> {
        if self.detectors.len() > MAX_DETECTORS {
            return Err(ConfigError::Detectors(self.detectors.len()));
        }
        if self.outputs.len() > MAX_OUTPUTS {
            return Err(ConfigError::Outputs(self.outputs.len()));
        }
        if self.disarmers.len() > MAX_DISARMERS {
            return Err(ConfigError::Disarmers(self.disarmers.len()));
        }
        let bytes =
            serde_json::to_vec(&Wire::from(self)).map_err(|_| ConfigError::TooLarge(usize::MAX))?;
        if bytes.len() > MAX_CONFIG_BYTES {
            return Err(ConfigError::TooLarge(bytes.len()));
        }
        Ok(bytes)
    }

    /// SHA-256 (hex) of `encoded`.
    pub fn digest(encoded: &[u8]) -> String {
        crate::secret::sha256_hex(encoded)
    }

    /// What a hub must hold to take an arming with this configuration.
    pub fn wanted(&self) -> Wanted {
        Wanted {
            revision: self.revision,
            digest: self.encode().map(|bytes| Self::digest(&bytes)),
        }
    }

    /// The encoded configuration in chunks (at most [`MAX_CHUNKS`]: the
    /// size limit makes sure).
    pub fn chunks(&self, generation: u64) -> Result<Vec<ConfigChunk>, ConfigError> {
        let encoded = self.encode()?;
        let digest = Self::digest(&encoded);
        let pieces: Vec<&[u8]> = encoded.chunks(CHUNK_BYTES).collect();
        let count = pieces.len() as u32;
        Ok(pieces
            .into_iter()
            .enumerate()
            .map(|(index, piece)| ConfigChunk {
                revision: self.revision,
                generation,
                digest: digest.clone(),
                index: index as u32,
                count,
                data: base64::engine::general_purpose::STANDARD.encode(piece),
            })
            .collect())
    }
}

/// Why chunks do not make a configuration.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReassemblyError {
    #[error("a chunk is out of bounds")]
    OutOfBounds,
    #[error("a chunk is not base64 or larger than a chunk may be")]
    BadChunk,
    #[error("the chunks do not match their digest")]
    Digest,
    #[error("the configuration does not decode")]
    Decode,
}

/// A hub putting a configuration together.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reassembly {
    digest: String,
    count: u32,
    parts: BTreeMap<u32, Vec<u8>>,
}

impl Reassembly {
    /// Takes one chunk: the configuration once every chunk of its digest
    /// arrived. A chunk of another digest starts over (a newer push).
    pub fn add(&mut self, chunk: &ConfigChunk) -> Option<Result<HubConfig, ReassemblyError>> {
        if chunk.count == 0 || chunk.count as usize > MAX_CHUNKS || chunk.index >= chunk.count {
            return Some(Err(ReassemblyError::OutOfBounds));
        }
        let Ok(piece) = base64::engine::general_purpose::STANDARD.decode(&chunk.data) else {
            return Some(Err(ReassemblyError::BadChunk));
        };
        if piece.len() > CHUNK_BYTES {
            return Some(Err(ReassemblyError::BadChunk));
        }
        if chunk.digest != self.digest || chunk.count != self.count {
            *self = Self {
                digest: chunk.digest.clone(),
                count: chunk.count,
                parts: BTreeMap::new(),
            };
        }
        self.parts.insert(chunk.index, piece);
        if self.parts.len() < self.count as usize {
            return None;
        }
        let whole: Vec<u8> = self.parts.values().flatten().copied().collect();
        let result = if HubConfig::digest(&whole) != self.digest {
            Err(ReassemblyError::Digest)
        } else {
            serde_json::from_slice::<Wire>(&whole)
                .map_err(|_| ReassemblyError::Decode)
                .and_then(|wire| HubConfig::try_from(wire).map_err(|()| ReassemblyError::Decode))
        };
        self.parts.clear();
        Some(result)
    }
}

/// The configuration on the wire: compact, so the largest home the limits
/// allow (200 detectors, 64 outputs, 64 disarmers) fits in 24 KiB. Ids are
/// 32 hex digits; a detector is `[id, signal, modes, entry]` with the
/// signal `m`otion, `c`ontact, `v`ibration or ca`M`era and the modes a bit
/// set (1 Away, 2 Home, 4 Sleep); an output is `[id, kind]` (`s`iren,
/// `l`ight, s`p`eaker).
#[derive(Debug, Serialize, Deserialize)]
struct Wire {
    r: u64,
    x: u32,
    e: u32,
    d: Vec<(String, String, u8, bool)>,
    o: Vec<(String, String)>,
    k: Vec<String>,
}

const SIGNALS: [(Signal, &str); 4] = [
    (Signal::Motion, "m"),
    (Signal::Contact, "c"),
    (Signal::Vibration, "v"),
    (Signal::Camera, "M"),
];
const MODES: [(Mode, u8); 3] = [(Mode::Away, 1), (Mode::Home, 2), (Mode::Sleep, 4)];
const OUTPUTS: [(Output, &str); 3] = [
    (Output::Siren, "s"),
    (Output::Light, "l"),
    (Output::Speaker, "p"),
];

fn hex(id: &uuid::Uuid) -> String {
    id.simple().to_string()
}

impl From<&HubConfig> for Wire {
    fn from(c: &HubConfig) -> Self {
        let code = |signal| {
            SIGNALS
                .iter()
                .find(|(s, _)| *s == signal)
                .map_or("", |(_, c)| c)
        };
        let bits = |modes: &[Mode]| {
            MODES
                .iter()
                .filter(|(m, _)| modes.contains(m))
                .map(|(_, b)| b)
                .sum()
        };
        let kind = |output| {
            OUTPUTS
                .iter()
                .find(|(o, _)| *o == output)
                .map_or("", |(_, c)| c)
        };
        Self {
            r: c.revision,
            x: c.exit_delay_seconds,
            e: c.entry_delay_seconds,
            d: c.detectors
                .iter()
                .map(|d| {
                    (
                        hex(&d.thing_id),
                        code(d.signal).to_owned(),
                        bits(&d.modes),
                        d.entry,
                    )
                })
                .collect(),
            o: c.outputs
                .iter()
                .map(|o| (hex(&o.thing_id), kind(o.output).to_owned()))
                .collect(),
            k: c.disarmers.iter().map(hex).collect(),
        }
    }
}

impl TryFrom<Wire> for HubConfig {
    type Error = ();

    fn try_from(w: Wire) -> Result<Self, ()> {
        let id = |hex: &str| uuid::Uuid::parse_str(hex).map_err(|_| ());
        let detectors =
            w.d.iter()
                .map(|(thing, signal, modes, entry)| {
                    let signal = SIGNALS.iter().find(|(_, c)| c == signal).ok_or(())?.0;
                    Ok(HubDetector {
                        thing_id: id(thing)?,
                        signal,
                        modes: MODES
                            .iter()
                            .filter(|(_, b)| modes & b != 0)
                            .map(|(m, _)| *m)
                            .collect(),
                        entry: *entry,
                    })
                })
                .collect::<Result<_, ()>>()?;
        let outputs =
            w.o.iter()
                .map(|(thing, kind)| {
                    Ok(HubOutput {
                        thing_id: id(thing)?,
                        output: OUTPUTS.iter().find(|(_, c)| c == kind).ok_or(())?.0,
                    })
                })
                .collect::<Result<_, ()>>()?;
        Ok(Self {
            revision: w.r,
            exit_delay_seconds: w.x,
            entry_delay_seconds: w.e,
            detectors,
            outputs,
            disarmers: w.k.iter().map(|k| id(k)).collect::<Result<_, ()>>()?,
        })
    }
}

/// The configuration a home's hub is to hold now, built from the home's
/// inventory as it is: the household's revision it carries and its digest,
/// or why it cannot go to a hub (over a limit).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wanted {
    pub revision: u64,
    pub digest: Result<String, ConfigError>,
}

/// What a hub reports on its `events` channel: the configuration it applied
/// (a [`CONFIG_EVENT`]) or its protection state (a [`STATE_EVENT`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HubReport {
    Config {
        revision: u64,
        digest: String,
    },
    State {
        generation: u64,
        mode: Mode,
        ready: bool,
    },
}

/// What the hub acknowledged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HubAck {
    pub revision: u64,
    pub digest: String,
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
}

/// The protection state the hub reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HubProtection {
    pub generation: u64,
    pub mode: Mode,
    /// The hub can protect the home (its radios and sirens work).
    pub ready: bool,
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
}

/// What the platform knows of a home's hub.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HubSync {
    pub device_id: uuid::Uuid,
    /// The configuration the hub is to hold, as last built: its revision
    /// and digest (empty: over a limit).
    pub revision: u64,
    pub digest: String,
    /// When it was last sent (none: not yet, so at once).
    #[serde(with = "time::serde::rfc3339::option", default)]
    pub pushed_at: Option<OffsetDateTime>,
    /// Why the configuration cannot be sent (over a limit).
    #[serde(default)]
    pub error: Option<String>,
    pub acked: Option<HubAck>,
    pub protection: Option<HubProtection>,
    /// When the configuration was last built from the home's inventory.
    #[serde(with = "time::serde::rfc3339::option", default)]
    pub checked_at: Option<OffsetDateTime>,
}

impl HubSync {
    pub fn new(device_id: uuid::Uuid) -> Self {
        Self {
            device_id,
            revision: 0,
            digest: String::new(),
            pushed_at: None,
            error: None,
            acked: None,
            protection: None,
            checked_at: None,
        }
    }

    /// The hub applied the configuration it is to hold.
    pub fn acknowledged(&self) -> bool {
        !self.digest.is_empty()
            && self
                .acked
                .as_ref()
                .is_some_and(|a| a.digest == self.digest && a.revision == self.revision)
    }

    /// When to push again (the hub has not acknowledged).
    pub fn push_due(&self) -> Option<OffsetDateTime> {
        if self.acknowledged() || self.error.is_some() {
            return None;
        }
        Some(
            self.pushed_at
                .map_or(OffsetDateTime::UNIX_EPOCH, |at| at + PUSH_AGAIN),
        )
    }

    /// When the timers next send the configuration or compare it with the
    /// home's things. `reconfigurable`: the home is Off with restoration
    /// complete; otherwise never (an armed period's configuration stays
    /// frozen: the write that turns the home Off makes it due again).
    pub fn due(&self, reconfigurable: bool) -> Option<OffsetDateTime> {
        if !reconfigurable {
            return None;
        }
        let check = self
            .checked_at
            .map_or(OffsetDateTime::UNIX_EPOCH, |at| at + CHECK_AGAIN);
        Some(self.push_due().map_or(check, |push| push.min(check)))
    }

    /// The hub acknowledged exactly `wanted`.
    pub fn holds(&self, wanted: &Wanted) -> bool {
        match (&wanted.digest, &self.acked) {
            (Ok(digest), Some(acked)) => {
                acked.revision == wanted.revision && acked.digest == *digest
            }
            _ => false,
        }
    }

    /// The home's configuration was built again, at `now`: when it is not
    /// the one the hub is to hold, it becomes that one, to be sent at once
    /// (or, over a limit, never). True when it changed.
    pub fn rebuilt(&mut self, wanted: &Wanted, now: OffsetDateTime) -> bool {
        self.checked_at = Some(now);
        let (digest, error) = match &wanted.digest {
            Ok(digest) => (digest.clone(), None),
            Err(e) => (String::new(), Some(e.to_string())),
        };
        if self.revision == wanted.revision && self.digest == digest && self.error == error {
            return false;
        }
        self.revision = wanted.revision;
        self.digest = digest;
        self.error = error;
        self.pushed_at = None;
        true
    }
}

/// Whether a hub-run home's hub may take an arming now: connected, the
/// configuration the home needs now (`wanted`) within the limits and
/// acknowledged, its protection state at the home's `generation` and
/// ready. `sync`: what the platform knows of the hub (none: nothing sent
/// yet). `frozen`: an armed period runs, so a changed configuration waits
/// for Off. `Err`: what is missing (no fallback: the platform never
/// protects a hub-run home by itself).
pub fn arming_check(
    sync: Option<&HubSync>,
    connected: bool,
    wanted: &Wanted,
    generation: u64,
    frozen: bool,
) -> Result<(), String> {
    if !connected {
        return Err("the home's hub is not connected".into());
    }
    if let Err(error) = &wanted.digest {
        return Err(format!("{CONFIG_REFUSED}: {error}"));
    }
    let Some(sync) = sync else {
        return Err("the hub has not been sent its configuration yet".into());
    };
    if !sync.holds(wanted) {
        return Err(if frozen {
            "the home's things changed while it is armed: the hub takes the new configuration once the home is off".into()
        } else {
            "the hub has not acknowledged the current configuration yet".into()
        });
    }
    match &sync.protection {
        None => Err("the hub has not reported its protection state".into()),
        Some(p) if p.generation != generation => Err(format!(
            "the hub is at generation {}, the home at {generation}",
            p.generation
        )),
        Some(p) if !p.ready => Err("the hub reports it cannot protect the home".into()),
        Some(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn config(detectors: usize, outputs: usize, disarmers: usize) -> HubConfig {
        HubConfig {
            revision: 3,
            exit_delay_seconds: 30,
            entry_delay_seconds: 15,
            detectors: (0..detectors)
                .map(|n| HubDetector {
                    thing_id: uuid::Uuid::from_u128(n as u128),
                    signal: Signal::Motion,
                    modes: vec![Mode::Away, Mode::Sleep],
                    entry: false,
                })
                .collect(),
            outputs: (0..outputs)
                .map(|n| HubOutput {
                    thing_id: uuid::Uuid::from_u128(10_000 + n as u128),
                    output: Output::Siren,
                })
                .collect(),
            disarmers: (0..disarmers)
                .map(|n| uuid::Uuid::from_u128(20_000 + n as u128))
                .collect(),
        }
    }

    #[test]
    fn the_limits_hold_and_the_largest_allowed_home_fits_in_24_chunks() {
        assert_eq!(config(201, 0, 0).encode(), Err(ConfigError::Detectors(201)));
        assert_eq!(config(0, 65, 0).encode(), Err(ConfigError::Outputs(65)));
        assert_eq!(config(0, 0, 65).encode(), Err(ConfigError::Disarmers(65)));
        // 200 detectors, 64 outputs and 64 disarmers stay within 24 KiB.
        let largest = config(200, 64, 64);
        let chunks = largest.chunks(7).unwrap();
        assert!(chunks.len() <= MAX_CHUNKS, "{}", chunks.len());
        assert!(largest.encode().unwrap().len() <= MAX_CONFIG_BYTES);
    }

    fn wanted(revision: u64, digest: &str) -> Wanted {
        Wanted {
            revision,
            digest: Ok(digest.into()),
        }
    }

    /// The hub at `generation`, having acknowledged what it was sent.
    fn acknowledging(sync: &mut HubSync, generation: u64, at: OffsetDateTime) {
        sync.acked = Some(HubAck {
            revision: sync.revision,
            digest: sync.digest.clone(),
            at,
        });
        sync.protection = Some(HubProtection {
            generation,
            mode: Mode::Off,
            ready: true,
            at,
        });
    }

    #[test]
    fn arming_needs_a_connected_hub_with_the_config_and_generation() {
        let now = OffsetDateTime::UNIX_EPOCH;
        let mut sync = HubSync::new(uuid::Uuid::nil());
        let check = |sync: &HubSync, connected, wanted: &Wanted| {
            arming_check(Some(sync), connected, wanted, 1, false)
        };
        let d = wanted(3, "d");
        assert!(
            arming_check(None, true, &d, 1, false)
                .unwrap_err()
                .contains("not been sent")
        );
        assert!(sync.rebuilt(&d, now));
        assert!(
            check(&sync, false, &d)
                .unwrap_err()
                .contains("not connected")
        );
        assert!(check(&sync, true, &d).unwrap_err().contains("acknowledged"));
        sync.acked = Some(HubAck {
            revision: 3,
            digest: "d".into(),
            at: now,
        });
        assert!(
            check(&sync, true, &wanted(4, "d"))
                .unwrap_err()
                .contains("acknowledged")
        );
        assert!(check(&sync, true, &d).unwrap_err().contains("protection"));
        sync.protection = Some(HubProtection {
            generation: 0,
            mode: Mode::Off,
            ready: true,
            at: now,
        });
        assert!(check(&sync, true, &d).unwrap_err().contains("generation 0"));
        sync.protection = Some(HubProtection {
            generation: 1,
            mode: Mode::Off,
            ready: false,
            at: now,
        });
        assert!(
            check(&sync, true, &d)
                .unwrap_err()
                .contains("cannot protect")
        );
        sync.protection = Some(HubProtection {
            generation: 1,
            mode: Mode::Off,
            ready: true,
            at: now,
        });
        assert_eq!(check(&sync, true, &d), Ok(()));
        assert_eq!(sync.push_due(), None);
        sync.digest = "e".into();
        assert_eq!(sync.push_due(), Some(OffsetDateTime::UNIX_EPOCH));
    }

    #[test]
    fn a_detector_found_after_the_acknowledgement_counts_for_the_next_arming() {
        let start = OffsetDateTime::UNIX_EPOCH + Duration::days(1);
        let before = config(4, 1, 1);
        let mut sync = HubSync::new(uuid::Uuid::nil());
        assert!(sync.rebuilt(&before.wanted(), start));
        assert_eq!(
            sync.due(true),
            Some(OffsetDateTime::UNIX_EPOCH),
            "sent at once"
        );
        sync.pushed_at = Some(start);
        acknowledging(&mut sync, 1, start);
        assert_eq!(
            sync.due(true),
            Some(start + CHECK_AGAIN),
            "compared again later"
        );
        assert_eq!(
            arming_check(Some(&sync), true, &before.wanted(), 1, false),
            Ok(())
        );

        // A fifth detector: the hub no longer holds what the home needs.
        let after = config(5, 1, 1);
        let refused = arming_check(Some(&sync), true, &after.wanted(), 1, false);
        assert!(refused.unwrap_err().contains("not acknowledged"));
        // Armed meanwhile: the period's configuration stays frozen.
        let frozen = arming_check(Some(&sync), true, &after.wanted(), 1, true);
        assert!(frozen.unwrap_err().contains("once the home is off"));
        assert_eq!(sync.due(false), None, "an armed home's hub is left alone");

        // Off: built again, it is sent at once and counts once acknowledged.
        let later = start + Duration::seconds(5);
        assert!(sync.rebuilt(&after.wanted(), later));
        assert!(
            !sync.rebuilt(&after.wanted(), later),
            "the same is no change"
        );
        assert_eq!(sync.due(true), Some(OffsetDateTime::UNIX_EPOCH));
        assert!(!sync.acknowledged());
        sync.pushed_at = Some(later);
        assert_eq!(sync.due(true), Some(later + PUSH_AGAIN));
        acknowledging(&mut sync, 1, later);
        assert_eq!(
            arming_check(Some(&sync), true, &after.wanted(), 1, false),
            Ok(())
        );
    }

    #[test]
    fn a_home_over_a_limit_is_refused_whatever_the_hub_acknowledged() {
        let now = OffsetDateTime::UNIX_EPOCH;
        let mut sync = HubSync::new(uuid::Uuid::nil());
        sync.rebuilt(&config(200, 0, 0).wanted(), now);
        acknowledging(&mut sync, 0, now);
        let over = config(201, 0, 0).wanted();
        let refused = arming_check(Some(&sync), true, &over, 0, false).unwrap_err();
        assert!(refused.starts_with(CONFIG_REFUSED), "{refused}");
        assert!(refused.contains("201 detectors"), "{refused}");
        assert!(sync.rebuilt(&over, now));
        assert_eq!(sync.push_due(), None, "nothing is sent over a limit");
        assert_eq!(
            sync.due(true),
            Some(now + CHECK_AGAIN),
            "but it is compared again"
        );
    }

    proptest! {
        /// Chunks in any order, with repeats and a stale push's chunks in
        /// between, make the configuration again; a changed byte never
        /// does.
        #[test]
        fn chunks_in_any_order_make_the_configuration_again(
            detectors in 0usize..=200,
            outputs in 0usize..=64,
            order in proptest::collection::vec(any::<prop::sample::Index>(), 0..40),
            corrupt in any::<Option<prop::sample::Index>>(),
        ) {
            let config = config(detectors, outputs, 3);
            let chunks = config.chunks(2).unwrap();
            prop_assert!(chunks.len() <= MAX_CHUNKS);
            let mut hub = Reassembly::default();
            // A stale push's first chunk, then chunks in a random order
            // with repeats.
            let stale = super::tests::config(60, 0, 0).chunks(1).unwrap();
            prop_assert!(stale.len() > 1);
            prop_assert!(hub.add(&stale[0]).is_none());
            for i in &order {
                let chunk = &chunks[i.index(chunks.len())];
                if let Some(done) = hub.add(chunk) {
                    prop_assert_eq!(done.unwrap(), config.clone());
                }
            }
            let mut chunks = chunks;
            if let Some(i) = corrupt {
                let n = i.index(chunks.len());
                let mut bytes = base64::engine::general_purpose::STANDARD.decode(&chunks[n].data).unwrap();
                bytes[0] ^= 1;
                chunks[n].data = base64::engine::general_purpose::STANDARD.encode(bytes);
            }
            let mut hub = Reassembly::default();
            let mut last = None;
            for chunk in &chunks {
                last = hub.add(chunk).or(last);
            }
            match corrupt {
                None => prop_assert_eq!(last.unwrap().unwrap(), config),
                Some(_) => prop_assert!(last.unwrap().is_err()),
            }
        }

        /// Whatever detectors the hub acknowledged and however many were
        /// found after: an arming is taken only when the home is within
        /// the limits and the hub acknowledged exactly the configuration
        /// the home needs now; sent and acknowledged, it is taken.
        #[test]
        fn an_arming_is_taken_only_with_the_configuration_the_home_needs_now(
            acked in 0usize..=230,
            found in 0usize..=40,
            frozen in any::<bool>(),
        ) {
            let now = OffsetDateTime::UNIX_EPOCH;
            let mut sync = HubSync::new(uuid::Uuid::nil());
            sync.rebuilt(&config(acked, 2, 1).wanted(), now);
            acknowledging(&mut sync, 4, now);
            let needed = config(acked + found, 2, 1).wanted();
            let taken = arming_check(Some(&sync), true, &needed, 4, frozen).is_ok();
            prop_assert_eq!(taken, found == 0 && acked <= MAX_DETECTORS);
            if !frozen {
                let changed = sync.rebuilt(&needed, now);
                prop_assert_eq!(changed, found > 0);
                let sent = sync.push_due().is_some();
                acknowledging(&mut sync, 4, now);
                let taken = arming_check(Some(&sync), true, &needed, 4, false).is_ok();
                prop_assert_eq!(taken, acked + found <= MAX_DETECTORS);
                prop_assert_eq!(sent, changed && acked + found <= MAX_DETECTORS);
            }
        }
    }
}
