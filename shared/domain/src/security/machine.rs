//! A home's security state and its moves. Every move checks first and changes
//! after: a refused request leaves the state exactly as it was ("previous mode
//! and configuration kept").
//!
//! | From | Move | Condition | To |
//! |---|---|---|---|
//! | Off | arm (any armed mode) | checks pass | requested = mode; confirmed when the exit countdown ends (at once without one) |
//! | exit countdown | arm another mode | checks pass | the countdown goes on for the new mode |
//! | armed | arm another mode | checks pass | that mode at once, no countdown; newly watched signals start now |
//! | any | arm | a check fails | unchanged ([`Refusal`]) |
//! | any | Off with the current generation | | Off: detection stops, an alarm stops and its outputs are to be restored |
//! | any | Off with another generation | | refused: a stale request cannot end a newer armed period |
//! | armed or counting down | verified keypad-code unlock on any lock | | Off |
//! | armed with perimeter signals | confirmed inside mechanical unlock | | Off |
//! | any | outside key, remote command, failed code, ambiguous unlock | | unchanged |
//! | Off | a verified external keypad locks | | a prompt to arm, never arming |
//!
//! Generations: each arming from Off starts a new armed period (the next
//! generation) whose watched signals are frozen then (devices found later
//! count for the next arming). Arming and Off carry the generation the person
//! read; the revision is the configuration they reviewed.
//!
//! Detection: only in a confirmed armed period, only a watched signal not
//! bypassed (bypasses last for that period), only an event that happened
//! after the signal started watching (equal-time or earlier events never
//! trigger), each event id once. The first detection opens an incident: an
//! entry signal waits the entry delay (Off before its end cancels it),
//! any other alarms at once. Off after an alarm leaves a restoration
//! obligation that blocks arming until the outputs report restored.
//! Acknowledging an incident is separate from Off and belongs to one
//! resident.
//!
//! Authority: the built-in engine or a security-system connector, never
//! both. Handing the home to a connector first turns the built-in engine
//! Off and waits for restoration; handing it back needs an explicit
//! reviewed choice.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde::{Deserialize, Serialize};
use time::{Duration, OffsetDateTime};

use super::{Enrolled, Mode, SignalRef};

/// Event ids remembered per armed period to remove duplicates.
pub const SEEN_KEPT: usize = 1024;

/// A period's watched signals as a list of `{ signal, since }` (a map
/// keyed by a signal is no JSON object).
mod watching_entries {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use time::OffsetDateTime;

    use crate::security::SignalRef;

    #[derive(Serialize, Deserialize)]
    struct Entry {
        signal: SignalRef,
        #[serde(with = "time::serde::rfc3339")]
        since: OffsetDateTime,
    }

    pub fn serialize<S: Serializer>(
        map: &BTreeMap<SignalRef, OffsetDateTime>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let entries: Vec<Entry> = map
            .iter()
            .map(|(signal, since)| Entry {
                signal: *signal,
                since: *since,
            })
            .collect();
        entries.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<SignalRef, OffsetDateTime>, D::Error> {
        let entries = Vec::<Entry>::deserialize(d)?;
        Ok(entries.into_iter().map(|e| (e.signal, e.since)).collect())
    }
}

/// Who runs a home's security.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Authority {
    /// The platform's own engine.
    BuiltIn,
    /// A dedicated security-system connector.
    #[serde(rename_all = "camelCase")]
    Connector { connector_id: String },
}

/// The delays a household configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timing {
    pub exit_delay: Duration,
    pub entry_delay: Duration,
}

/// An armed period: what it watches, since when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Period {
    pub generation: u64,
    pub mode: Mode,
    /// The signals watched and when each started (later events only).
    #[serde(with = "watching_entries")]
    pub watching: BTreeMap<SignalRef, OffsetDateTime>,
    /// Left out of this period by the person who armed it.
    pub bypassed: BTreeSet<SignalRef>,
    /// Detection event ids seen in this period, oldest first.
    pub seen: VecDeque<String>,
}

/// Where an incident stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "lowercase")]
pub enum IncidentState {
    /// An entry signal fired: the alarm sounds at `alarm_at` unless the
    /// home is turned Off first.
    #[serde(rename_all = "camelCase")]
    Entry {
        #[serde(with = "time::serde::rfc3339")]
        alarm_at: OffsetDateTime,
    },
    /// The alarm sounds.
    Alarm,
    /// Over: the home was turned Off.
    Cleared,
}

/// A detection that opened an incident.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Incident {
    /// In order of opening, per home.
    pub number: u64,
    pub generation: u64,
    pub signal: SignalRef,
    pub event_id: String,
    #[serde(with = "time::serde::rfc3339")]
    pub opened_at: OffsetDateTime,
    pub state: IncidentState,
    /// Whether the alarm sounded (outputs changed).
    pub alarmed: bool,
    /// The resident who acknowledged it.
    pub acknowledged_by: Option<uuid::Uuid>,
}

/// A home's security state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SecurityState {
    pub authority: Authority,
    /// A hand-over waiting for restoration to complete.
    pub switching_to: Option<Authority>,
    /// What the household asked for (not protection by itself).
    pub requested: Mode,
    /// What is in force.
    pub confirmed: Mode,
    /// The configuration's revision (settings, selections).
    pub revision: u64,
    /// The latest armed period's generation (0: never armed).
    pub generation: u64,
    /// While the exit countdown runs.
    #[serde(with = "time::serde::rfc3339::option", default)]
    pub exit_until: Option<OffsetDateTime>,
    pub period: Option<Period>,
    /// The latest incident (open, or cleared and kept for acknowledgement).
    pub incident: Option<Incident>,
    pub incidents: u64,
    /// Outputs changed by an alarm are still to be restored.
    pub restoration_pending: bool,
}

impl Default for SecurityState {
    fn default() -> Self {
        Self {
            authority: Authority::BuiltIn,
            switching_to: None,
            requested: Mode::Off,
            confirmed: Mode::Off,
            revision: 0,
            generation: 0,
            exit_until: None,
            period: None,
            incident: None,
            incidents: 0,
            restoration_pending: false,
        }
    }
}

/// A mode request as the household sends it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModeRequest {
    pub mode: Mode,
    /// The configuration revision the person reviewed.
    pub revision: u64,
    /// The generation the person read.
    pub generation: u64,
    /// Signals to leave out of this armed period.
    pub bypass: BTreeSet<SignalRef>,
}

/// Why a signal blocks arming (shown before arming).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum BlockReason {
    Disabled,
    Unknown,
    Unavailable,
    Open,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Blocker {
    pub signal: SignalRef,
    pub why: BlockReason,
}

/// What the inventory says now, for an arming decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArmingChecks {
    /// The enrolled, selected signals as they are now.
    pub enrolled: Vec<Enrolled>,
    /// Signals not ready now, and why.
    pub blocking: Vec<Blocker>,
    /// A hosted home's hub: current connection, acknowledged configuration,
    /// matching generation and protection state (`Err`: what is missing).
    pub hub: Result<(), String>,
}

impl ArmingChecks {
    /// Why arming `mode` with `bypass` would be refused by what the
    /// inventory says now (`None`: it would arm, state permitting). The
    /// mode request and the readiness the household reads both ask this,
    /// so a mode shown ready is never refused for its signals.
    pub fn refusal(&self, mode: Mode, bypass: &BTreeSet<SignalRef>) -> Option<Refusal> {
        if let Err(why) = &self.hub {
            return Some(Refusal::Hub(why.clone()));
        }
        let blockers = self.blockers(mode, bypass);
        if !blockers.is_empty() {
            return Some(Refusal::NotReady { blockers });
        }
        let nothing_watched = !self
            .enrolled
            .iter()
            .any(|e| e.watched_in(mode) && !bypass.contains(&e.signal));
        nothing_watched.then_some(Refusal::NothingToWatch)
    }

    /// The signals not ready now that arming `mode` with `bypass` would
    /// watch (none: nothing blocks it).
    pub fn blockers(&self, mode: Mode, bypass: &BTreeSet<SignalRef>) -> Vec<Blocker> {
        self.blocking
            .iter()
            .filter(|b| {
                !bypass.contains(&b.signal)
                    && self
                        .enrolled
                        .iter()
                        .any(|e| e.signal == b.signal && e.watched_in(mode))
            })
            .copied()
            .collect()
    }
}

/// Why a move was refused; the state is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("a security-system connector controls this home")]
    OtherAuthority,
    #[error("the home is being handed to another authority; wait for restoration to complete")]
    Switching,
    #[error("the configuration changed (revision {current}); review it again")]
    StaleRevision { current: u64 },
    #[error("the home's armed period changed (generation {current}); read the status again")]
    StaleGeneration { current: u64 },
    #[error("outputs changed by the last alarm are not restored yet")]
    RestorationPending,
    #[error("signals are not ready: {}", blockers.len())]
    NotReady { blockers: Vec<Blocker> },
    #[error("the hub cannot protect this home now: {0}")]
    Hub(String),
    #[error("no selected signal is watched in this mode")]
    NothingToWatch,
    #[error("no such incident")]
    NoIncident,
    #[error("the incident was already acknowledged")]
    AlreadyAcknowledged { by: uuid::Uuid },
    #[error("handing security back to the built-in engine needs an explicit reviewed choice")]
    NotReviewed,
}

/// Why the home went Off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OffCause {
    Request,
    Keypad,
    InsideUnlock,
    Handover,
}

/// What a move asks the world to do or tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    ExitCountdown {
        until: OffsetDateTime,
    },
    Armed {
        mode: Mode,
        generation: u64,
    },
    Off {
        generation: u64,
        cause: OffCause,
    },
    EntryCountdown {
        incident: u64,
        alarm_at: OffsetDateTime,
    },
    /// Outputs on (their native state saved first).
    Alarm {
        incident: u64,
    },
    /// Outputs off and to be restored.
    StopAlarm {
        incident: u64,
    },
    /// Ask the household whether to arm (never arms by itself).
    ArmPrompt,
    AuthoritySwitched {
        to: Authority,
    },
}

/// How a lock was unlocked (or locked), as its connector or device reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LockEvent {
    /// Unlocked with a verified keypad code.
    KeypadUnlock,
    /// Unlocked by hand from inside, confirmed by the lock.
    InsideUnlock,
    /// Unlocked from inside, not confirmed.
    AmbiguousUnlock,
    OutsideKey,
    RemoteUnlock,
    FailedCode,
    /// Locked from a verified external keypad.
    KeypadLock,
}

impl SecurityState {
    fn built_in(&self) -> Result<(), Refusal> {
        if self.switching_to.is_some() {
            return Err(Refusal::Switching);
        }
        match self.authority {
            Authority::BuiltIn => Ok(()),
            Authority::Connector { .. } => Err(Refusal::OtherAuthority),
        }
    }

    /// Why a request to arm `mode` now (with no bypass, at the current
    /// revision and generation) would be refused; `None`: it would arm.
    /// What the household reads as a mode's readiness.
    pub fn arming_refusal(&self, checks: &ArmingChecks, mode: Mode) -> Option<Refusal> {
        if let Err(refusal) = self.built_in() {
            return Some(refusal);
        }
        if self.restoration_pending {
            return Some(Refusal::RestorationPending);
        }
        checks.refusal(mode, &BTreeSet::new())
    }

    /// Armed or counting down to it.
    pub fn arming_or_armed(&self) -> bool {
        self.period.is_some()
    }

    /// Off with restoration complete: the only time a home's configuration
    /// changes (the household's settings, and what its hub holds).
    pub fn reconfigurable(&self) -> bool {
        !self.requested.is_armed() && self.period.is_none() && !self.restoration_pending
    }

    /// A mode request (arm, change, Off).
    pub fn request(
        &mut self,
        request: &ModeRequest,
        checks: &ArmingChecks,
        timing: Timing,
        now: OffsetDateTime,
    ) -> Result<Vec<Effect>, Refusal> {
        self.built_in()?;
        if request.generation != self.generation {
            return Err(Refusal::StaleGeneration {
                current: self.generation,
            });
        }
        if request.mode == Mode::Off {
            return Ok(self.turn_off(OffCause::Request));
        }
        if request.revision != self.revision {
            return Err(Refusal::StaleRevision {
                current: self.revision,
            });
        }
        if self.restoration_pending {
            return Err(Refusal::RestorationPending);
        }
        if let Some(refusal) = checks.refusal(request.mode, &request.bypass) {
            return Err(refusal);
        }
        let watched: Vec<&Enrolled> = checks
            .enrolled
            .iter()
            .filter(|e| e.watched_in(request.mode) && !request.bypass.contains(&e.signal))
            .collect();
        // Checked: now it changes.
        let mut effects = Vec::new();
        match self.period.take() {
            None => {
                // From Off: a new armed period, after the exit countdown.
                self.generation += 1;
                let starts = now + timing.exit_delay;
                self.period = Some(Period {
                    generation: self.generation,
                    mode: request.mode,
                    watching: watched.iter().map(|e| (e.signal, starts)).collect(),
                    bypassed: request.bypass.clone(),
                    seen: VecDeque::new(),
                });
                self.requested = request.mode;
                if timing.exit_delay > Duration::ZERO {
                    self.exit_until = Some(starts);
                    effects.push(Effect::ExitCountdown { until: starts });
                } else {
                    self.confirm(&mut effects);
                }
            }
            Some(mut period) => {
                // Another mode within the period: at once (a countdown
                // under way goes on); newly watched signals start now, or
                // when the countdown ends.
                let starts = self.exit_until.map_or(now, |until| until.max(now));
                period.watching = watched
                    .iter()
                    .map(|e| {
                        let since = period.watching.get(&e.signal).copied().unwrap_or(starts);
                        (e.signal, since)
                    })
                    .collect();
                period.mode = request.mode;
                period.bypassed = request.bypass.clone();
                self.period = Some(period);
                self.requested = request.mode;
                if self.exit_until.is_none() {
                    self.confirm(&mut effects);
                }
            }
        }
        Ok(effects)
    }

    fn confirm(&mut self, effects: &mut Vec<Effect>) {
        self.exit_until = None;
        self.confirmed = self.requested;
        effects.push(Effect::Armed {
            mode: self.confirmed,
            generation: self.generation,
        });
    }

    /// Off: detection stops, an entry countdown is cancelled, an alarm
    /// stops and leaves its outputs to restore. Waits for nothing.
    fn turn_off(&mut self, cause: OffCause) -> Vec<Effect> {
        let mut effects = Vec::new();
        let was_on = self.period.is_some() || self.requested.is_armed();
        self.period = None;
        self.exit_until = None;
        self.requested = Mode::Off;
        self.confirmed = Mode::Off;
        if let Some(incident) = self.incident.as_mut()
            && incident.state != IncidentState::Cleared
        {
            if incident.alarmed {
                self.restoration_pending = true;
                effects.push(Effect::StopAlarm {
                    incident: incident.number,
                });
            }
            incident.state = IncidentState::Cleared;
        }
        if was_on {
            effects.push(Effect::Off {
                generation: self.generation,
                cause,
            });
        }
        effects
    }

    /// Time passes: the exit countdown ends (the mode is confirmed), an
    /// entry countdown ends (the alarm sounds).
    pub fn tick(&mut self, now: OffsetDateTime) -> Vec<Effect> {
        let mut effects = Vec::new();
        if self.exit_until.is_some_and(|until| until <= now) {
            self.confirm(&mut effects);
        }
        if let Some(incident) = self.incident.as_mut()
            && let IncidentState::Entry { alarm_at } = incident.state
            && alarm_at <= now
        {
            incident.state = IncidentState::Alarm;
            incident.alarmed = true;
            effects.push(Effect::Alarm {
                incident: incident.number,
            });
        }
        effects
    }

    /// A detection event of `signal` that happened at `occurred_at`.
    pub fn detect(
        &mut self,
        event_id: &str,
        signal: SignalRef,
        occurred_at: OffsetDateTime,
        entry: bool,
        timing: Timing,
        now: OffsetDateTime,
    ) -> Vec<Effect> {
        if self.authority != Authority::BuiltIn || !self.confirmed.is_armed() {
            return Vec::new();
        }
        let Some(period) = self.period.as_mut() else {
            return Vec::new();
        };
        let Some(since) = period.watching.get(&signal) else {
            return Vec::new();
        };
        if occurred_at <= *since || period.seen.iter().any(|s| s == event_id) {
            return Vec::new();
        }
        if period.seen.len() == SEEN_KEPT {
            period.seen.pop_front();
        }
        period.seen.push_back(event_id.to_owned());
        let open = self
            .incident
            .as_ref()
            .is_some_and(|i| i.state != IncidentState::Cleared);
        if open {
            return Vec::new();
        }
        self.incidents += 1;
        let number = self.incidents;
        let delayed = entry && timing.entry_delay > Duration::ZERO;
        let (state, effect) = if delayed {
            let alarm_at = now + timing.entry_delay;
            (
                IncidentState::Entry { alarm_at },
                Effect::EntryCountdown {
                    incident: number,
                    alarm_at,
                },
            )
        } else {
            (IncidentState::Alarm, Effect::Alarm { incident: number })
        };
        self.incident = Some(Incident {
            number,
            generation: period.generation,
            signal,
            event_id: event_id.to_owned(),
            opened_at: now,
            state,
            alarmed: !delayed,
            acknowledged_by: None,
        });
        vec![effect]
    }

    /// A lock's report. Only a verified keypad unlock, or a confirmed
    /// inside unlock while perimeter signals are watched, turns the home
    /// Off; a keypad lock while Off prompts to arm.
    pub fn lock_event(&mut self, event: LockEvent) -> Vec<Effect> {
        if self.authority != Authority::BuiltIn {
            return Vec::new();
        }
        match event {
            LockEvent::KeypadUnlock if self.arming_or_armed() => self.turn_off(OffCause::Keypad),
            LockEvent::InsideUnlock
                if self.period.as_ref().is_some_and(|p| {
                    self.confirmed.is_armed() && p.watching.keys().any(|s| s.signal.is_perimeter())
                }) =>
            {
                self.turn_off(OffCause::InsideUnlock)
            }
            LockEvent::KeypadLock if !self.arming_or_armed() => vec![Effect::ArmPrompt],
            _ => Vec::new(),
        }
    }

    /// A resident acknowledges incident `number` (the latest).
    pub fn acknowledge(&mut self, number: u64, person: uuid::Uuid) -> Result<(), Refusal> {
        let incident = self
            .incident
            .as_mut()
            .filter(|i| i.number == number)
            .ok_or(Refusal::NoIncident)?;
        match incident.acknowledged_by {
            Some(by) if by != person => Err(Refusal::AlreadyAcknowledged { by }),
            _ => {
                incident.acknowledged_by = Some(person);
                Ok(())
            }
        }
    }

    /// The outputs report restored: arming may go on, a hand-over completes.
    pub fn restored(&mut self) -> Vec<Effect> {
        self.restoration_pending = false;
        match self.switching_to.take() {
            Some(to) => {
                self.authority = to.clone();
                vec![Effect::AuthoritySwitched { to }]
            }
            None => Vec::new(),
        }
    }

    /// The household changed the configuration (a new revision to review).
    pub fn reconfigured(&mut self) {
        self.revision += 1;
    }

    /// Hands the home to `to`. To a connector: the built-in engine goes
    /// Off first and the hand-over completes once restoration has. Back to
    /// the built-in engine: only as an explicit reviewed choice.
    pub fn switch_authority(
        &mut self,
        to: Authority,
        reviewed: bool,
    ) -> Result<Vec<Effect>, Refusal> {
        if to == self.authority || self.switching_to.as_ref() == Some(&to) {
            return Ok(Vec::new());
        }
        if self.switching_to.is_some() {
            return Err(Refusal::Switching);
        }
        if to == Authority::BuiltIn && !reviewed {
            return Err(Refusal::NotReviewed);
        }
        let mut effects = self.turn_off(OffCause::Handover);
        if self.restoration_pending {
            self.switching_to = Some(to);
        } else {
            self.authority = to.clone();
            effects.push(Effect::AuthoritySwitched { to });
        }
        Ok(effects)
    }
}

#[cfg(test)]
mod tests {
    //! The state machine against a plain model of the table above
    //! (proptest-state-machine): any sequence of requests (fresh or stale,
    //! ready or not), time, detections (duplicated, late, early), lock events,
    //! acknowledgements, restorations and hand-overs leaves the state where the
    //! model says; a refusal changes nothing.

    use std::collections::{BTreeMap, BTreeSet};

    use proptest::prelude::*;
    use proptest_state_machine::{ReferenceStateMachine, StateMachineTest, prop_state_machine};

    use super::*;
    use crate::security::Signal;

    const EXIT: i64 = 30;
    const ENTRY: i64 = 15;

    fn timing() -> Timing {
        Timing {
            exit_delay: Duration::seconds(EXIT),
            entry_delay: Duration::seconds(ENTRY),
        }
    }

    fn t0() -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(1_800_000_000).unwrap()
    }

    /// The home's signals: 0 a door contact (an entry), 1 motion in a
    /// bedroom, 2 a hall camera's detection, 3 vibration on a bedroom
    /// window.
    fn enrolled() -> Vec<Enrolled> {
        let e = |n: u128, signal, in_sleeping_room, entry| Enrolled {
            signal: SignalRef {
                thing_id: uuid::Uuid::from_u128(n),
                signal,
            },
            in_sleeping_room,
            entry,
        };
        vec![
            e(1, Signal::Contact, false, true),
            e(2, Signal::Motion, true, false),
            e(3, Signal::Camera, false, false),
            e(4, Signal::Vibration, true, false),
        ]
    }

    fn signal(i: usize) -> SignalRef {
        enrolled()[i].signal
    }

    /// Which signals a mode watches, by the spec's words.
    fn watched(mode: Mode) -> BTreeSet<usize> {
        match mode {
            Mode::Off => BTreeSet::new(),
            Mode::Away => [0, 1, 2, 3].into(),
            Mode::Home => [0, 3].into(),
            Mode::Sleep => [0, 2].into(),
        }
    }

    fn person(n: u8) -> uuid::Uuid {
        uuid::Uuid::from_u128(100 + u128::from(n))
    }

    #[derive(Debug, Clone)]
    enum Op {
        Request {
            mode: Mode,
            fresh_revision: bool,
            generation_delta: i64,
            bypass: u8,
            blocked: u8,
            hub_ok: bool,
        },
        Advance(i64),
        Detect {
            signal: usize,
            event: u8,
            offset: i64,
        },
        Lock(LockEvent),
        Acknowledge(u8),
        Restored,
        Reconfigure,
        Switch {
            to_built_in: bool,
            reviewed: bool,
        },
    }

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Inc {
        Entry(i64),
        Alarm,
        Cleared,
    }

    #[derive(Debug, Clone, PartialEq, Eq)]
    struct Model {
        now: i64,
        built_in: bool,
        /// A hand-over waiting for restoration: to the built-in engine?
        switching: Option<bool>,
        requested: Mode,
        confirmed: Mode,
        revision: u64,
        generation: u64,
        exit_until: Option<i64>,
        /// Watched signals and their start (seconds from t0).
        starts: BTreeMap<usize, i64>,
        seen: BTreeSet<u8>,
        incident: Option<(u64, Inc, bool, Option<u8>)>,
        incidents: u64,
        restoration: bool,
    }

    fn mask(bits: u8) -> BTreeSet<usize> {
        (0..4).filter(|i| bits & (1 << i) != 0).collect()
    }

    impl Model {
        fn off(&mut self) {
            self.starts.clear();
            self.seen.clear();
            self.exit_until = None;
            self.requested = Mode::Off;
            self.confirmed = Mode::Off;
            if let Some((_, state, alarmed, _)) = self.incident.as_mut()
                && *state != Inc::Cleared
            {
                if *alarmed {
                    self.restoration = true;
                }
                *state = Inc::Cleared;
            }
        }

        fn armed_or_arming(&self) -> bool {
            self.requested.is_armed()
        }
    }

    struct Reference;

    impl ReferenceStateMachine for Reference {
        type State = Model;
        type Transition = Op;

        fn init_state() -> BoxedStrategy<Model> {
            Just(Model {
                now: 0,
                built_in: true,
                switching: None,
                requested: Mode::Off,
                confirmed: Mode::Off,
                revision: 0,
                generation: 0,
                exit_until: None,
                starts: BTreeMap::new(),
                seen: BTreeSet::new(),
                incident: None,
                incidents: 0,
                restoration: false,
            })
            .boxed()
        }

        fn transitions(_: &Model) -> BoxedStrategy<Op> {
            let mode = prop_oneof![
                Just(Mode::Off),
                Just(Mode::Away),
                Just(Mode::Home),
                Just(Mode::Sleep)
            ];
            let lock = prop_oneof![
                Just(LockEvent::KeypadUnlock),
                Just(LockEvent::InsideUnlock),
                Just(LockEvent::AmbiguousUnlock),
                Just(LockEvent::OutsideKey),
                Just(LockEvent::RemoteUnlock),
                Just(LockEvent::FailedCode),
                Just(LockEvent::KeypadLock),
            ];
            prop_oneof![
                6 => (
                    mode,
                    prop::bool::weighted(0.85),
                    prop_oneof![8 => Just(0i64), 1 => Just(-1), 1 => Just(1)],
                    prop_oneof![3 => Just(0u8), 1 => 0u8..16],
                    prop_oneof![3 => Just(0u8), 1 => 0u8..16],
                    prop::bool::weighted(0.9),
                )
                    .prop_map(|(mode, fresh_revision, generation_delta, bypass, blocked, hub_ok)| {
                        Op::Request { mode, fresh_revision, generation_delta, bypass, blocked, hub_ok }
                    }),
                5 => (1i64..40).prop_map(Op::Advance),
                6 => (0usize..4, 0u8..8, -20i64..20)
                    .prop_map(|(signal, event, offset)| Op::Detect { signal, event, offset }),
                2 => lock.prop_map(Op::Lock),
                1 => (0u8..2).prop_map(Op::Acknowledge),
                2 => Just(Op::Restored),
                1 => Just(Op::Reconfigure),
                1 => (any::<bool>(), any::<bool>())
                    .prop_map(|(to_built_in, reviewed)| Op::Switch { to_built_in, reviewed }),
            ]
            .boxed()
        }

        fn apply(mut m: Model, op: &Op) -> Model {
            let now = m.now;
            let in_charge = m.built_in && m.switching.is_none();
            match op.clone() {
                Op::Request {
                    mode,
                    fresh_revision,
                    generation_delta,
                    bypass,
                    blocked,
                    hub_ok,
                } => {
                    let generation_ok = generation_delta == 0;
                    if !in_charge || !generation_ok {
                        return m;
                    }
                    if mode == Mode::Off {
                        m.off();
                        return m;
                    }
                    let watch: BTreeSet<usize> =
                        watched(mode).difference(&mask(bypass)).copied().collect();
                    let blocked_watched = !mask(blocked).is_disjoint(&watch);
                    if !fresh_revision
                        || m.restoration
                        || !hub_ok
                        || blocked_watched
                        || watch.is_empty()
                    {
                        return m;
                    }
                    if m.requested == Mode::Off {
                        m.generation += 1;
                        m.seen.clear();
                        m.starts = watch.iter().map(|s| (*s, now + EXIT)).collect();
                        m.requested = mode;
                        m.exit_until = Some(now + EXIT);
                    } else {
                        let starts = m.exit_until.map_or(now, |u| u.max(now));
                        m.starts = watch
                            .iter()
                            .map(|s| (*s, m.starts.get(s).copied().unwrap_or(starts)))
                            .collect();
                        m.requested = mode;
                        if m.exit_until.is_none() {
                            m.confirmed = mode;
                        }
                    }
                }
                Op::Advance(seconds) => {
                    m.now += seconds;
                    if m.exit_until.is_some_and(|u| u <= m.now) {
                        m.exit_until = None;
                        m.confirmed = m.requested;
                    }
                    if let Some((_, state, alarmed, _)) = m.incident.as_mut()
                        && let Inc::Entry(at) = *state
                        && at <= m.now
                    {
                        *state = Inc::Alarm;
                        *alarmed = true;
                    }
                }
                Op::Detect {
                    signal,
                    event,
                    offset,
                } => {
                    let occurred = now + offset;
                    let counts = m.built_in
                        && m.confirmed.is_armed()
                        && m.starts.get(&signal).is_some_and(|since| occurred > *since)
                        && !m.seen.contains(&event);
                    if counts {
                        m.seen.insert(event);
                        let open = m.incident.is_some_and(|(_, s, _, _)| s != Inc::Cleared);
                        if !open {
                            m.incidents += 1;
                            m.incident = Some(if signal == 0 {
                                (m.incidents, Inc::Entry(now + ENTRY), false, None)
                            } else {
                                (m.incidents, Inc::Alarm, true, None)
                            });
                        }
                    }
                }
                Op::Lock(event) => {
                    if !m.built_in {
                        return m;
                    }
                    let perimeter_watched = m.starts.keys().any(|s| *s == 0 || *s == 3);
                    match event {
                        LockEvent::KeypadUnlock if m.armed_or_arming() => m.off(),
                        LockEvent::InsideUnlock if m.confirmed.is_armed() && perimeter_watched => {
                            m.off()
                        }
                        _ => {}
                    }
                }
                Op::Acknowledge(who) => {
                    if let Some((_, _, _, by)) = m.incident.as_mut()
                        && by.is_none_or(|b| b == who)
                    {
                        *by = Some(who);
                    }
                }
                Op::Restored => {
                    m.restoration = false;
                    if let Some(to_built_in) = m.switching.take() {
                        m.built_in = to_built_in;
                    }
                }
                Op::Reconfigure => m.revision += 1,
                Op::Switch {
                    to_built_in,
                    reviewed,
                } => {
                    let already = m.built_in == to_built_in && m.switching.is_none()
                        || m.switching == Some(to_built_in);
                    if already || m.switching.is_some() || (to_built_in && !reviewed) {
                        return m;
                    }
                    m.off();
                    if m.restoration {
                        m.switching = Some(to_built_in);
                    } else {
                        m.built_in = to_built_in;
                    }
                }
            }
            m
        }
    }

    struct Machine;

    fn connector() -> Authority {
        Authority::Connector {
            connector_id: "alarm-co".into(),
        }
    }

    impl StateMachineTest for Machine {
        type SystemUnderTest = SecurityState;
        type Reference = Reference;

        fn init_test(_: &Model) -> SecurityState {
            SecurityState::default()
        }

        fn apply(mut sut: SecurityState, model: &Model, op: Op) -> SecurityState {
            // `model` is the state after `op`; time is the model's.
            let before = sut.clone();
            let now = t0() + Duration::seconds(model.now);
            let refused = match op {
                Op::Request {
                    mode,
                    fresh_revision,
                    generation_delta,
                    bypass,
                    blocked,
                    hub_ok,
                } => {
                    let request = ModeRequest {
                        mode,
                        revision: if fresh_revision {
                            sut.revision
                        } else {
                            sut.revision + 1
                        },
                        generation: sut.generation.wrapping_add_signed(generation_delta),
                        bypass: mask(bypass).into_iter().map(signal).collect(),
                    };
                    let checks = ArmingChecks {
                        enrolled: enrolled(),
                        blocking: mask(blocked)
                            .into_iter()
                            .map(|i| Blocker {
                                signal: signal(i),
                                why: BlockReason::Open,
                            })
                            .collect(),
                        hub: if hub_ok {
                            Ok(())
                        } else {
                            Err("not acknowledged".into())
                        },
                    };
                    sut.request(&request, &checks, timing(), now).is_err()
                }
                Op::Advance(_) => {
                    sut.tick(now);
                    false
                }
                Op::Detect {
                    signal: i,
                    event,
                    offset,
                } => {
                    let entry = enrolled()[i].entry;
                    let occurred = now + Duration::seconds(offset);
                    sut.detect(
                        &format!("ev-{event}"),
                        signal(i),
                        occurred,
                        entry,
                        timing(),
                        now,
                    );
                    false
                }
                Op::Lock(event) => {
                    sut.lock_event(event);
                    false
                }
                Op::Acknowledge(who) => {
                    let number = sut.incident.as_ref().map_or(0, |i| i.number);
                    sut.acknowledge(number, person(who)).is_err()
                }
                Op::Restored => {
                    sut.restored();
                    false
                }
                Op::Reconfigure => {
                    sut.reconfigured();
                    false
                }
                Op::Switch {
                    to_built_in,
                    reviewed,
                } => {
                    let to = if to_built_in {
                        Authority::BuiltIn
                    } else {
                        connector()
                    };
                    sut.switch_authority(to, reviewed).is_err()
                }
            };
            if refused {
                assert_eq!(sut, before, "a refusal changed the state");
            }
            sut
        }

        fn check_invariants(sut: &SecurityState, model: &Model) {
            assert_eq!(sut.requested, model.requested);
            assert_eq!(sut.confirmed, model.confirmed);
            assert_eq!(sut.generation, model.generation);
            assert_eq!(sut.revision, model.revision);
            assert_eq!(sut.restoration_pending, model.restoration);
            assert_eq!(sut.authority == Authority::BuiltIn, model.built_in);
            assert_eq!(
                sut.switching_to.as_ref().map(|a| *a == Authority::BuiltIn),
                model.switching
            );
            assert_eq!(
                sut.exit_until,
                model.exit_until.map(|s| t0() + Duration::seconds(s))
            );
            let watching: BTreeMap<SignalRef, OffsetDateTime> = model
                .starts
                .iter()
                .map(|(s, at)| (signal(*s), t0() + Duration::seconds(*at)))
                .collect();
            assert_eq!(
                sut.period
                    .as_ref()
                    .map(|p| p.watching.clone())
                    .unwrap_or_default(),
                watching
            );
            let incident = sut.incident.as_ref().map(|i| {
                let state = match i.state {
                    IncidentState::Entry { alarm_at } => {
                        Inc::Entry((alarm_at - t0()).whole_seconds())
                    }
                    IncidentState::Alarm => Inc::Alarm,
                    IncidentState::Cleared => Inc::Cleared,
                };
                let by = i.acknowledged_by.map(|p| (p.as_u128() - 100) as u8);
                (i.number, state, i.alarmed, by)
            });
            assert_eq!(incident, model.incident);
            // What holds whatever happened.
            if sut.confirmed.is_armed() {
                assert_eq!(sut.requested, sut.confirmed);
                assert!(sut.period.is_some());
            }
            if sut.restoration_pending {
                assert!(!sut.requested.is_armed());
            }
        }
    }

    prop_state_machine! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn security_follows_the_mode_table(sequential 1..80 => Machine);
    }

    #[test]
    fn the_state_keeps_as_json_and_reads_back_the_same() {
        let mut state = SecurityState::default();
        let checks = ArmingChecks {
            enrolled: enrolled(),
            blocking: Vec::new(),
            hub: Ok(()),
        };
        let request = ModeRequest {
            mode: Mode::Away,
            revision: 0,
            generation: 0,
            bypass: [signal(3)].into(),
        };
        state.request(&request, &checks, timing(), t0()).unwrap();
        let armed = t0() + Duration::seconds(EXIT);
        state.tick(armed);
        let at = armed + Duration::seconds(1);
        state.detect("e", signal(0), at, true, timing(), at);
        let json = serde_json::to_value(&state).unwrap();
        assert_eq!(
            json["period"]["watching"][0]["since"],
            "2027-01-15T08:00:30Z"
        );
        let back: SecurityState = serde_json::from_value(json).unwrap();
        assert_eq!(back, state);
    }

    #[test]
    fn an_event_from_before_the_armed_period_never_triggers_it() {
        let mut state = SecurityState::default();
        let checks = ArmingChecks {
            enrolled: enrolled(),
            blocking: Vec::new(),
            hub: Ok(()),
        };
        let request = ModeRequest {
            mode: Mode::Away,
            revision: 0,
            generation: 0,
            bypass: BTreeSet::new(),
        };
        let effects = state.request(&request, &checks, timing(), t0()).unwrap();
        assert_eq!(
            effects,
            [Effect::ExitCountdown {
                until: t0() + Duration::seconds(EXIT)
            }]
        );
        let armed = t0() + Duration::seconds(EXIT);
        assert_eq!(
            state.tick(armed),
            [Effect::Armed {
                mode: Mode::Away,
                generation: 1
            }]
        );
        // Motion that happened at the very start, arriving late: nothing.
        let late = state.detect(
            "a",
            signal(1),
            armed,
            false,
            timing(),
            armed + Duration::seconds(5),
        );
        assert!(late.is_empty());
        // One second later: the alarm, once however often it arrives.
        let at = armed + Duration::seconds(1);
        assert_eq!(
            state.detect("b", signal(1), at, false, timing(), at),
            [Effect::Alarm { incident: 1 }]
        );
        assert!(
            state
                .detect("b", signal(1), at, false, timing(), at)
                .is_empty()
        );
        // A stale Off cannot end it; the current one does, and the outputs
        // must be restored before the next arming.
        let stale = ModeRequest {
            mode: Mode::Off,
            generation: 0,
            ..request.clone()
        };
        assert_eq!(
            state.request(&stale, &checks, timing(), at),
            Err(Refusal::StaleGeneration { current: 1 })
        );
        let off = ModeRequest {
            mode: Mode::Off,
            generation: 1,
            ..request.clone()
        };
        let effects = state.request(&off, &checks, timing(), at).unwrap();
        assert_eq!(
            effects,
            [
                Effect::StopAlarm { incident: 1 },
                Effect::Off {
                    generation: 1,
                    cause: OffCause::Request
                }
            ]
        );
        let again = ModeRequest {
            generation: 1,
            ..request
        };
        assert_eq!(
            state.request(&again, &checks, timing(), at),
            Err(Refusal::RestorationPending)
        );
        state.restored();
        assert!(state.request(&again, &checks, timing(), at).is_ok());
        assert_eq!(state.generation, 2);
    }
}
