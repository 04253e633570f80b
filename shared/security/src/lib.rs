//! Home security over time: the one place that stores a home's security with
//! what it announces, takes detections from the home's things, and ends
//! countdowns on time. The rules are `alyt_domain::security`, the records
//! `repo::security`; this crate knows the store and the event log, not HTTP.
//! Used by the API's security operations, by the endpoints whose state shows a
//! detection, and by both runtimes' timers (every second).
//!
//! * [`HomeSecurity::commit`]: a change and its announcements in one
//!   transaction: a notification to the household (with its
//!   `notification.raised` event) per effect, and the incident's record.
//! * [`HomeSecurity::current`]: a home's security as of now (countdowns
//!   that ended applied and stored).
//! * [`HomeSecurity::detect`]: a detection event of one signal.
//! * `impl SecurityFeed for HomeSecurity`: what ingest reads from device
//!   events (detections, lock moves, hub reports), with the device as
//!   ingest read it; only enrolled detectors and locks count.
//! * [`HomeSecurity::sweep`]: every home whose countdown is due.
//!
//! An alarm opens an outputs job on the record ([`settle`]); the API's
//! output driver sounds and restores the outputs (it needs the connectors).
//! An Off before any output was touched completes restoration in the same
//! write.

use std::sync::Arc;

use alyt_device::DeviceIdentity;
use alyt_device::ingest::{Detection, SecurityFeed};
use alyt_domain::Clock;
use alyt_domain::security::Mode;
use alyt_domain::security::hub::{HubAck, HubProtection};
use alyt_domain::security::machine::{Effect, Incident, LockEvent, OffCause};
use alyt_domain::security::outputs::OutputsJob;
use alyt_domain::security::{KeypadDisarm, LockSource, Signal, SignalRef};
use alyt_events::{EventLog, PlatformEvent};
use alyt_store::repo::devices::DeviceRecord;
use alyt_store::repo::integrations::EndpointRecord;
use alyt_store::repo::notifications::{NotificationRecord, notification_item};
use alyt_store::repo::security::{
    IncidentRecord, Security, SecurityError, SecurityRecord, incident_write, security_write,
};
use alyt_store::repo::tenancy::{PropertyRecord, Tenancy};
use alyt_store::{Store, StoreError, TxWrite};
use async_trait::async_trait;
use time::OffsetDateTime;
use uuid::Uuid;

/// What a hub reports (its `security.config` and `security.state` events):
/// a domain type, which ingest reads from the hub's events.
pub use alyt_domain::security::hub::HubReport;

/// Attempts of a change against a record that keeps moving.
const WRITE_ATTEMPTS: usize = 5;
/// Homes one sweep takes up.
const SWEEP_BATCH: u32 = 100;

/// Why a home's security could not be stored.
#[derive(Debug, thiserror::Error)]
pub enum KeepError {
    #[error("the home's security kept changing; try again")]
    Busy,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What a sweep did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SweepReport {
    pub due: u32,
    pub moved: u32,
    pub raced: u32,
}

/// A change in the making: the record as read (none: never stored), the
/// record to write (ticked to `now`), the effects so far.
pub struct Draft {
    pub read: Option<SecurityRecord>,
    pub next: SecurityRecord,
    pub effects: Vec<Effect>,
    pub now: OffsetDateTime,
}

/// What a [`HomeSecurity::rewrite`] decision asks for.
pub struct Decision<T> {
    /// What the rewrite answers.
    pub value: T,
    /// Write the record even when no effect asks for it.
    pub write: bool,
    /// More writes for the same transaction (a request id's answer).
    pub extra: Vec<TxWrite>,
}

impl<T> Decision<T> {
    /// Write only what the effects call for.
    pub fn keep(value: T) -> Self {
        Self::write_if(false, value)
    }

    /// Write the record.
    pub fn write(value: T) -> Self {
        Self::write_if(true, value)
    }

    pub fn write_if(write: bool, value: T) -> Self {
        Self {
            value,
            write,
            extra: Vec::new(),
        }
    }

    /// With `extra` in the same transaction (written: the record is too).
    pub fn with(mut self, extra: Vec<TxWrite>) -> Self {
        self.write |= !extra.is_empty();
        self.extra = extra;
        self
    }
}

/// What a rewrite did: the decision's value, the record as it stands, and
/// every effect (the tick's and the decision's).
pub struct Rewritten<T> {
    pub value: T,
    pub record: SecurityRecord,
    pub effects: Vec<Effect>,
}

#[derive(Clone)]
pub struct HomeSecurity {
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
}

impl HomeSecurity {
    pub fn new(store: Arc<dyn Store>, clock: Arc<dyn Clock>) -> Self {
        Self { store, clock }
    }

    fn repo(&self) -> Security<'_> {
        Security(&*self.store)
    }

    /// The one way a home's security changes: read it (a fresh record when
    /// there is none), tick it to now, let `decide` change the draft, and
    /// commit the change with its announcements; again from the read when
    /// the record moved first. `decide` says whether to write (a tick that
    /// moved anything is written whatever it says). Nothing is written when
    /// `decide` fails.
    pub async fn rewrite<T, E, F>(
        &self,
        home: &PropertyRecord,
        mut decide: impl FnMut(Draft) -> F,
    ) -> Result<Rewritten<T>, E>
    where
        F: Future<Output = Result<(Draft, Decision<T>), E>>,
        E: From<KeepError>,
    {
        for _ in 0..WRITE_ATTEMPTS {
            let read = self
                .repo()
                .get(home.tenant_id, home.id)
                .await
                .map_err(KeepError::Store)?;
            let now = self.clock.now();
            let mut next = read
                .clone()
                .unwrap_or_else(|| SecurityRecord::new(home.tenant_id, home.id, now));
            let effects = next.state.tick(now);
            let draft = Draft {
                read,
                next,
                effects,
                now,
            };
            let (draft, decision) = decide(draft).await?;
            let Draft {
                read,
                next,
                effects,
                now,
            } = draft;
            if !decision.write && effects.is_empty() {
                return Ok(Rewritten {
                    value: decision.value,
                    record: next,
                    effects,
                });
            }
            match self
                .commit(home, read.as_ref(), next, &effects, decision.extra, now)
                .await
            {
                Ok(record) => {
                    return Ok(Rewritten {
                        value: decision.value,
                        record,
                        effects,
                    });
                }
                Err(SecurityError::Changed) => continue,
                Err(SecurityError::Store(e)) => return Err(KeepError::Store(e).into()),
            }
        }
        Err(KeepError::Busy.into())
    }

    /// Writes `next` in place of `read` (none: the first) with the
    /// announcements of `effects` and `extra`, in one transaction.
    /// [`SecurityError::Changed`] when the record (or a request id in
    /// `extra`) moved first.
    pub async fn commit(
        &self,
        home: &PropertyRecord,
        read: Option<&SecurityRecord>,
        mut next: SecurityRecord,
        effects: &[Effect],
        extra: Vec<TxWrite>,
        now: OffsetDateTime,
    ) -> Result<SecurityRecord, SecurityError> {
        let mut effects = effects.to_vec();
        settle(&mut next, &mut effects, now);
        next.updated_at = now;
        let (write, written) = security_write(read, &next)?;
        let mut writes = vec![write];
        writes.extend(extra);
        let before = read.and_then(|r| r.state.incident.as_ref());
        writes.extend(self.announcements(home, before, &written, &effects, now)?);
        self.repo().write(writes).await?;
        Ok(written)
    }

    /// A home's security as of now: countdowns that ended are applied and
    /// stored with what they announce.
    pub async fn current(&self, home: &PropertyRecord) -> Result<SecurityRecord, KeepError> {
        let done = self
            .rewrite(home, async |draft| {
                Ok::<_, KeepError>((draft, Decision::keep(())))
            })
            .await?;
        Ok(done.record)
    }

    /// A detection of `signal` in `home` (an event id stable across
    /// repeats, when it happened): what it set off, if anything.
    pub async fn detect(
        &self,
        home: &PropertyRecord,
        signal: SignalRef,
        entry: bool,
        event_id: &str,
        occurred_at: OffsetDateTime,
    ) -> Result<Vec<Effect>, KeepError> {
        let done = self
            .rewrite(home, async |mut draft| {
                let timing = draft.next.settings.timing();
                let set_off = draft.next.state.detect(
                    event_id,
                    signal,
                    occurred_at,
                    entry,
                    timing,
                    draft.now,
                );
                draft.effects.extend(set_off);
                // A duplicate changes nothing; a first sighting is kept even
                // when it sets nothing off (its id, for the repeats).
                let changed = draft.read.as_ref().is_some_and(|r| *r != draft.next);
                Ok::<_, KeepError>((draft, Decision::write_if(changed, ())))
            })
            .await?;
        Ok(done.effects)
    }

    /// A lock's report in `home` (how it was unlocked or locked) from
    /// `source`: what it set off (Off by a verified keypad code or a
    /// confirmed inside unlock, a prompt to arm), if anything. A keypad
    /// disarm is entered in the incident history with its source.
    pub async fn lock_event(
        &self,
        home: &PropertyRecord,
        lock: Uuid,
        source: &LockSource,
        event: LockEvent,
    ) -> Result<Vec<Effect>, KeepError> {
        let done = self
            .rewrite(home, async |mut draft| {
                // Every keypad lock counts, even one excluded from detection:
                // a verified code is the household's own way in.
                let moved = draft.next.state.lock_event(event);
                let mut entries = Vec::new();
                for effect in &moved {
                    if let Effect::Off {
                        generation,
                        cause: OffCause::Keypad,
                    } = effect
                    {
                        let state = &mut draft.next.state;
                        state.incidents += 1;
                        entries.push(
                            incident_write(&IncidentRecord {
                                tenant_id: home.tenant_id,
                                property_id: home.id,
                                incident: None,
                                keypad_disarm: Some(KeypadDisarm {
                                    number: state.incidents,
                                    generation: *generation,
                                    lock,
                                    source: source.clone(),
                                    at: draft.now,
                                }),
                                updated_at: draft.now,
                            })
                            .map_err(KeepError::Store)?,
                        );
                    }
                }
                draft.effects.extend(moved);
                Ok::<_, KeepError>((draft, Decision::keep(()).with(entries)))
            })
            .await?;
        Ok(done.effects)
    }

    /// What a hub-run home's hub reported: the configuration it applied, or
    /// its protection state. Only the assigned hub is heard.
    pub async fn hub_report(
        &self,
        home: &PropertyRecord,
        device: Uuid,
        report: HubReport,
    ) -> Result<(), KeepError> {
        self.rewrite(home, async |mut draft| {
            let now = draft.now;
            let assigned = draft.next.settings.hub_device_id == Some(device);
            let Some(sync) = draft
                .next
                .hub
                .as_mut()
                .filter(|s| assigned && s.device_id == device)
            else {
                return Ok::<_, KeepError>((draft, Decision::keep(())));
            };
            match &report {
                HubReport::Config { revision, digest } => {
                    sync.acked = Some(HubAck {
                        revision: *revision,
                        digest: digest.clone(),
                        at: now,
                    });
                }
                HubReport::State {
                    generation,
                    mode,
                    ready,
                } => {
                    sync.protection = Some(HubProtection {
                        generation: *generation,
                        mode: *mode,
                        ready: *ready,
                        at: now,
                    });
                }
            }
            Ok((draft, Decision::write(())))
        })
        .await?;
        Ok(())
    }

    /// An endpoint's state moved from `before` to `after`: each detection
    /// signal of its families that rose (motion, an opened contact, vibration,
    /// a camera's motion) is a detection for its home's security. Best effort:
    /// a failure is logged, the endpoint's own change stands.
    pub async fn endpoint_changed(&self, before: &EndpointRecord, after: &EndpointRecord) {
        let families = alyt_domain::security::enrolment::families(
            &after.known_capabilities(),
            &after.features,
        );
        let detecting = |record: &EndpointRecord, signal: Signal| {
            let (capability, key) = signal.state_key();
            record.state.get(capability).and_then(|c| c.get(key))
                == Some(&serde_json::Value::Bool(true))
        };
        let rose: Vec<Signal> = families
            .signals
            .union(&families.includable)
            .copied()
            .filter(|s| detecting(after, *s) && !detecting(before, *s))
            .collect();
        let lock_event = |record: &EndpointRecord| {
            let lock = record.state.get("lock")?;
            let action: LockEvent = serde_json::from_value(lock.get("lastAction")?.clone()).ok()?;
            Some((action, lock.get("actionAt").cloned()))
        };
        // A lock reports how it was last moved (`lock.lastAction` and when,
        // `lock.actionAt`); keypad moves count only from a keypad lock.
        let moved = if families.lock && lock_event(after) != lock_event(before) {
            lock_event(after)
                .map(|(action, _)| action)
                .filter(|action| {
                    families.keypad
                        || !matches!(action, LockEvent::KeypadUnlock | LockEvent::KeypadLock)
                })
        } else {
            None
        };
        if rose.is_empty() && moved.is_none() {
            return;
        }
        let home = match Tenancy(&*self.store)
            .property(after.tenant_id, after.property_id)
            .await
        {
            Ok(Some(home)) => home,
            _ => return,
        };
        let at = after.state_updated_at.unwrap_or_else(|| self.clock.now());
        for signal in rose {
            let event = format!(
                "{}:{signal:?}:{}",
                after.id,
                at.unix_timestamp_nanos() / 1000
            );
            let signal_ref = SignalRef {
                thing_id: after.id.0,
                signal,
            };
            let entry = signal == Signal::Contact;
            if let Err(e) = self.detect(&home, signal_ref, entry, &event, at).await {
                tracing::warn!(endpoint = %after.id, error = %e, "a detection could not be recorded");
            }
        }
        let Some(action) = moved else {
            return;
        };
        // The source names the connector too: read once, only for a move.
        let integration = alyt_store::repo::integrations::Integrations(&*self.store)
            .get(after.tenant_id, after.integration_id)
            .await;
        let source = match integration {
            Ok(Some(integration)) => LockSource::Endpoint {
                connector_id: integration.connector_id.0,
                integration_id: after.integration_id.0,
            },
            Ok(None) => return,
            Err(e) => {
                tracing::warn!(endpoint = %after.id, error = %e, "a lock's move could not be read");
                return;
            }
        };
        if let Err(e) = self.lock_event(&home, after.id.0, &source, action).await {
            tracing::warn!(endpoint = %after.id, error = %e, "a lock's move could not be recorded");
        }
    }

    /// Ends every countdown that is due (exit: the mode is confirmed;
    /// entry: the alarm sounds).
    pub async fn sweep(&self) -> Result<SweepReport, StoreError> {
        self.sweep_these(self.due().await?).await
    }

    /// The homes whose security is due now (a countdown, outputs to drive,
    /// a hub to push to), at most a batch: one query the timers share.
    pub async fn due(&self) -> Result<Vec<SecurityRecord>, StoreError> {
        self.repo().due(self.clock.now(), SWEEP_BATCH).await
    }

    /// [`HomeSecurity::sweep`] over records already read by
    /// [`HomeSecurity::due`].
    pub async fn sweep_these(&self, due: Vec<SecurityRecord>) -> Result<SweepReport, StoreError> {
        let mut report = SweepReport {
            due: due.len() as u32,
            ..Default::default()
        };
        for record in due {
            let Some(home) = Tenancy(&*self.store)
                .property(record.tenant_id, record.property_id)
                .await?
            else {
                continue;
            };
            match self.current(&home).await {
                Ok(_) => report.moved += 1,
                Err(KeepError::Busy) => report.raced += 1,
                Err(KeepError::Store(e)) => {
                    tracing::warn!(home = %home.id, error = %e, "a security countdown could not be ended");
                }
            }
        }
        Ok(report)
    }

    /// The notifications (with their `notification.raised` events) `effects`
    /// call for, and the incident's record when it changed from `before`.
    fn announcements(
        &self,
        home: &PropertyRecord,
        before: Option<&Incident>,
        record: &SecurityRecord,
        effects: &[Effect],
        now: OffsetDateTime,
    ) -> Result<Vec<TxWrite>, StoreError> {
        let mut writes = Vec::new();
        let mut events = Vec::new();
        for effect in effects {
            let Some((kind, title, body)) = notice(home, effect) else {
                continue;
            };
            let notification = NotificationRecord {
                id: Uuid::now_v7(),
                tenant_id: home.tenant_id,
                property_id: Some(home.id),
                client_id: Some(home.client_id),
                kind: kind.into(),
                title,
                body,
                device_id: None,
                at: now,
            };
            events.push(PlatformEvent::NotificationRaised(notification.raised()));
            writes.push(TxWrite::Put {
                item: notification_item(&notification)?,
                condition: None,
            });
        }
        if let Some(incident) = &record.state.incident
            && before != Some(incident)
        {
            writes.push(incident_write(&IncidentRecord {
                tenant_id: home.tenant_id,
                property_id: home.id,
                incident: Some(incident.clone()),
                keypad_disarm: None,
                updated_at: now,
            })?);
        }
        if !events.is_empty() {
            let log = EventLog::new(self.store.clone(), self.clock.clone());
            writes.extend(log.writes(home.tenant_id, Some(home.id), events)?);
        }
        Ok(writes)
    }
}

/// What device events tell a home's security, as ingest hands them over.
#[async_trait]
impl SecurityFeed for HomeSecurity {
    /// Counts only from a detector of that signal in a home.
    async fn detected(
        &self,
        device: &DeviceRecord,
        detection: Detection,
    ) -> Result<(), StoreError> {
        let families = alyt_domain::security::enrolment::families(
            &device.known_capabilities(),
            &device.features,
        );
        let (Some(property), true) = (
            device.property_id,
            families.signals.contains(&detection.signal),
        ) else {
            return Ok(());
        };
        let Some(home) = Tenancy(&*self.store)
            .property(device.tenant_id, property)
            .await?
        else {
            return Ok(());
        };
        let signal = SignalRef {
            thing_id: device.id.0,
            signal: detection.signal,
        };
        let entry = detection.signal == Signal::Contact;
        self.detect(
            &home,
            signal,
            entry,
            &detection.event_id,
            detection.occurred_at,
        )
        .await
        .map_err(retry_later)?;
        Ok(())
    }

    /// Counts only from a lock in a home, and a keypad move only from a
    /// lock registered (or paired) with a keypad; a keypad disarm is kept
    /// with the device as its source.
    async fn lock_moved(&self, device: &DeviceRecord, action: LockEvent) -> Result<(), StoreError> {
        let Some(property) = device.property_id else {
            return Ok(());
        };
        let Some(home) = Tenancy(&*self.store)
            .property(device.tenant_id, property)
            .await?
        else {
            return Ok(());
        };
        let families = alyt_domain::security::enrolment::families(
            &device.known_capabilities(),
            &device.features,
        );
        let keypad_move = matches!(action, LockEvent::KeypadUnlock | LockEvent::KeypadLock);
        if !families.lock || (keypad_move && !families.keypad) {
            return Ok(());
        }
        let source = LockSource::Device {
            device_id: device.id.0,
        };
        self.lock_event(&home, device.id.0, &source, action)
            .await
            .map_err(retry_later)?;
        Ok(())
    }

    /// Heard only from the home's assigned hub ([`HomeSecurity::hub_report`]).
    async fn hub_reported(&self, hub: DeviceIdentity, report: HubReport) -> Result<(), StoreError> {
        let Some(home) = Tenancy(&*self.store)
            .property(hub.tenant_id, hub.property_id)
            .await?
        else {
            return Ok(());
        };
        self.hub_report(&home, hub.device_id.0, report)
            .await
            .map_err(retry_later)
    }
}

/// A store error for what could not be kept (a record that kept moving is
/// worth another try).
fn retry_later(e: KeepError) -> StoreError {
    match e {
        KeepError::Store(e) => e,
        KeepError::Busy => StoreError::Unavailable("the home's security kept changing".into()),
    }
}

/// What follows at once from `effects`: an alarm opens its outputs' job
/// (the output driver plans and sounds it); an alarm that stopped before
/// any output was touched leaves nothing to restore, so restoration is
/// complete at once. Call before showing a state that is about to be
/// committed (committing settles too).
pub fn settle(next: &mut SecurityRecord, effects: &mut Vec<Effect>, now: OffsetDateTime) {
    for effect in effects.clone() {
        match effect {
            Effect::Alarm { incident }
                if next
                    .outputs
                    .as_ref()
                    .is_none_or(|job| job.incident != incident) =>
            {
                next.outputs = Some(OutputsJob::new(incident, now));
            }
            Effect::StopAlarm { .. } => {
                let owed = next
                    .outputs
                    .as_ref()
                    .is_some_and(OutputsJob::owes_restoration);
                if owed {
                    // The driver puts them back now.
                    if let Some(job) = next.outputs.as_mut() {
                        job.next_at = Some(now);
                    }
                } else if next.state.restoration_pending {
                    if let Some(job) = next.outputs.as_mut() {
                        job.next_at = None;
                    }
                    effects.extend(next.state.restored());
                }
            }
            _ => {}
        }
    }
}

fn mode_word(mode: Mode) -> &'static str {
    match mode {
        Mode::Off => "off",
        Mode::Away => "away",
        Mode::Home => "home",
        Mode::Sleep => "sleep",
    }
}

fn off_word(cause: OffCause) -> &'static str {
    match cause {
        OffCause::Request => "by request",
        OffCause::Keypad => "with a keypad code",
        OffCause::InsideUnlock => "unlocked from inside",
        OffCause::Handover => "handed to another engine",
    }
}

/// What the household is told of an effect: kind, title, body.
fn notice(home: &PropertyRecord, effect: &Effect) -> Option<(&'static str, String, String)> {
    let name = &home.name;
    Some(match effect {
        Effect::ExitCountdown { until } => (
            "security.arming",
            "Arming".to_owned(),
            format!("{name} arms at {until}"),
        ),
        Effect::Armed { mode, .. } => (
            "security.armed",
            format!("Armed: {}", mode_word(*mode)),
            format!("{name} is armed ({})", mode_word(*mode)),
        ),
        Effect::Off { cause, .. } => (
            "security.off",
            "Security off".to_owned(),
            format!("{name} was turned off ({})", off_word(*cause)),
        ),
        Effect::EntryCountdown { alarm_at, .. } => (
            "security.entry",
            "Entry detected".to_owned(),
            format!("Turn {name} off before {alarm_at} or the alarm sounds"),
        ),
        Effect::Alarm { .. } => (
            "security.alarm",
            "Alarm".to_owned(),
            format!("The alarm sounds in {name}"),
        ),
        Effect::StopAlarm { .. } => (
            "security.alarm-stopped",
            "Alarm stopped".to_owned(),
            format!("The alarm in {name} stopped"),
        ),
        Effect::ArmPrompt => (
            "security.arm-prompt",
            "Arm the home?".to_owned(),
            format!("{name} was locked from its keypad; arm it?"),
        ),
        Effect::AuthoritySwitched { .. } => (
            "security.authority",
            "Security authority changed".to_owned(),
            format!("Another engine now runs security for {name}"),
        ),
    })
}
