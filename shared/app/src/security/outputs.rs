//! The alarm's outputs, driven (sirens, the speaker alarm, night
//! lights): the rules are `alyt_domain::security::outputs`, the job is on
//! the home's security record; this is the part that talks to the
//! connectors. Both runtimes' timers call [`drive_due`] every second.
//!
//! One driver at a time holds a home's outputs (a lease on the record).
//! While the alarm sounds it plans the outputs once (sirens; the
//! night-light rooms' lights when it is night at the home; the
//! speaker-alarm rooms' speakers), saves each one's native state by reading
//! it, and marks an output touched *before* its first write, every write on
//! the record's revision: an alarm write is sent only while that alarm
//! still sounds (an old alarm command after Off is never sent), and a
//! write whose outcome is unknown keeps the obligation to restore. Every
//! write first checks that the thing is still in the home through the
//! integration it was planned with. After Off it puts every touched output
//! back, reads it again and records what was not restored; a failure (no
//! answer is a failure) is tried again after `RETRY`, and the restoration
//! stays pending (arming and configuration wait) until every touched
//! output is restored or has left the home.
//!
//! Outputs are connector endpoints (written and read back at once) and
//! MQTT devices (written through the command path; a restoration is done
//! once the device answered and reports the native state; no answer within
//! `DEVICE_ANSWER` sends it again). A speaker on MQTT cannot sound the
//! alarm and is reported as left alone.

use std::collections::BTreeMap;

use alyt_domain::device::{CommandEvent, CommandRequest, UndeliverableReason};
use alyt_domain::ids::DeviceId;
use alyt_domain::ids::{EndpointId, IntegrationId};
use alyt_domain::integration::music::{PlayAnswer, PlayCall, SoundAnswer, SoundCall};
use alyt_domain::room::PinnedThingKind;
use alyt_domain::security::Deterrent;
use alyt_domain::security::enrolment::{Output, Selection};
use alyt_domain::security::machine::{Effect, IncidentState};
use alyt_domain::security::outputs::{
    ALARM_COMMANDS_KEPT, BEAT, DEVICE_ANSWER, DrivenOutput, FLASH_BRIGHTNESS, LEASE, Native,
    OutputsJob, RETRY, RestoreWrite, SPEAKER_ALARM_VOLUME, Sound, Stage, flash_on, is_night,
    native_of, restore_writes, unrestored,
};
use alyt_store::StoreError;
use alyt_store::repo::commands::Commands;
use alyt_store::repo::devices::{DeviceRecord, Devices};
use alyt_store::repo::integrations::{EndpointRecord, Integrations};
use alyt_store::repo::security::{Security, SecurityRecord};
use alyt_store::repo::tenancy::{PropertyRecord, Tenancy};
use serde_json::{Map, Value, json};
use time::OffsetDateTime;
use uuid::Uuid;

use super::inventory::inventory;
use super::update;
use crate::endpoints::{
    Installed, ReadOutcome, connector_problem, installed, read_and_store, store_check,
};
use crate::{App, Error};
use alyt_connectors::{CommandAnswer, CommandCall};

/// What a pass did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct OutputsReport {
    /// Homes with outputs to drive.
    pub homes: u32,
    /// Homes another driver held.
    pub held: u32,
    pub failed: u32,
}

/// Drives the outputs of every home that is due (an alarm to sound or
/// beat, a restoration to try).
pub async fn drive_due(app: &App, due: &[SecurityRecord]) -> Result<OutputsReport, StoreError> {
    let mut report = OutputsReport::default();
    let driven = |r: &&SecurityRecord| r.outputs.as_ref().is_some_and(|job| job.next_at.is_some());
    for record in due.iter().filter(driven) {
        let Some(home) = Tenancy(&*app.store)
            .property(record.tenant_id, record.property_id)
            .await?
        else {
            continue;
        };
        report.homes += 1;
        match drive(app, &home).await {
            Ok(true) => {}
            Ok(false) => report.held += 1,
            Err(e) => {
                report.failed += 1;
                tracing::warn!(home = %home.id, error = %e.detail, "a home's alarm outputs could not be driven");
            }
        }
    }
    Ok(report)
}

/// The incident whose alarm sounds now, if it is `job`'s.
fn sounding(record: &SecurityRecord, incident: u64) -> bool {
    record
        .state
        .incident
        .as_ref()
        .is_some_and(|i| i.number == incident && i.state == IncidentState::Alarm)
}

/// One turn for a home: claim its outputs, sound or restore them, let go.
/// False when another driver holds them.
async fn drive(app: &App, home: &PropertyRecord) -> Result<bool, Error> {
    let (claimed, record) = update(app, home, |record, _, now| {
        let job = record.outputs.as_mut()?;
        if job.lease_until.is_some_and(|until| until > now) {
            return None;
        }
        job.lease_until = Some(now + LEASE);
        Some(job.incident)
    })
    .await?;
    let Some(incident) = claimed else {
        return Ok(record.outputs.is_none_or(|job| job.next_at.is_none()));
    };
    let outcome = if sounding(&record, incident) {
        sound(app, home, incident).await
    } else {
        restore(app, home).await
    };
    // Let go (the next turn may be another driver's).
    update(app, home, |record, _, _| {
        let job = record.outputs.as_mut()?;
        job.lease_until.take().map(|_| ())
    })
    .await?;
    outcome.map(|()| true)
}

// ---------------------------------------------------------------------------
// Sounding

/// A planned output with where it is reached now.
struct Reached {
    installed: Installed,
    endpoint: EndpointRecord,
}

/// The thing, if it is still in `home` through the integration it was
/// planned with (every write checks this first).
async fn reach(app: &App, home: &PropertyRecord, output: &DrivenOutput) -> Result<Reached, String> {
    let gone = || "it is no longer in this home".to_owned();
    let endpoint = Integrations(&*app.store)
        .endpoint(home.tenant_id, EndpointId(output.endpoint_id))
        .await
        .map_err(|e| e.to_string())?
        .filter(|e| e.property_id == home.id && e.integration_id.0 == output.integration_id)
        .ok_or_else(gone)?;
    let installed = installed(app, home.tenant_id, endpoint.integration_id)
        .await
        .map_err(|e| e.detail)?;
    Ok(Reached {
        installed,
        endpoint,
    })
}

/// The device, if it is still in `home` and takes commands itself (a hub's
/// radio child does not).
async fn reach_device(app: &App, home: &PropertyRecord, id: Uuid) -> Result<DeviceRecord, String> {
    Devices(&*app.store)
        .get(home.tenant_id, DeviceId(id))
        .await
        .map_err(|e| e.to_string())?
        .filter(|d| {
            d.property_id == Some(home.id) && d.deleted_at.is_none() && d.parent_device_id.is_none()
        })
        .ok_or_else(|| "it is no longer in this home".to_owned())
}

/// A device's state nested by capability (`{ light: { power } }`), from
/// what it last reported (its firmware and radio facts left out).
fn device_state(payload: Map<String, Value>) -> Map<String, Value> {
    payload
        .into_iter()
        .filter(|(capability, value)| {
            value.is_object() && alyt_domain::capability::is_valid_capability_id(capability)
        })
        .collect()
}

/// The outputs this alarm drives, with their native state read now (an
/// output that cannot be read is left alone: what is not saved is not
/// changed).
async fn plan(
    app: &App,
    home: &PropertyRecord,
    record: &SecurityRecord,
    now: OffsetDateTime,
) -> Result<(bool, Vec<DrivenOutput>), Error> {
    let own = home.latitude.zip(home.longitude);
    let place = record
        .settings
        .location
        .map(|l| (l.latitude, l.longitude))
        .or(own);
    let night = place.is_some_and(|(lat, lon)| is_night(lat, lon, &home.timezone, now));
    let things = inventory(app, record, home.id).await?;
    let settings = &record.settings;
    let mut wanted: Vec<(Uuid, Output)> = Vec::new();
    let mut devices: BTreeMap<Uuid, Result<Map<String, Value>, String>> = BTreeMap::new();
    for thing in &things.things {
        if thing.selection == Selection::Exclude {
            continue;
        }
        if thing.kind == PinnedThingKind::Device {
            devices.insert(thing.id, Err("it is no longer in this home".into()));
        }
        for output in &thing.families.outputs {
            if settings.drives(*output, thing.room_id.map(|r| r.0), night) {
                wanted.push((thing.id, *output));
            }
        }
    }
    // A device's native state is what it last reported.
    let device_ids: Vec<Uuid> = devices.keys().copied().collect();
    for id in device_ids {
        if let Ok(reached) = reach_device(app, home, id).await {
            let view = Devices(&*app.store).views(vec![reached]).await?;
            let reported = view.into_iter().next().and_then(|v| v.reported);
            devices.insert(
                id,
                match reported.map(|r| r.payload) {
                    Some(Value::Object(payload)) => Ok(device_state(payload)),
                    _ => Err("it has not reported its state".into()),
                },
            );
        }
    }
    // Read each integration's outputs in one call.
    let repo = Integrations(&*app.store);
    let mut by_integration: BTreeMap<IntegrationId, Vec<EndpointRecord>> = BTreeMap::new();
    for (id, _) in wanted.iter().filter(|(id, _)| !devices.contains_key(id)) {
        if let Some(endpoint) = repo.endpoint(home.tenant_id, EndpointId(*id)).await?
            && endpoint.property_id == home.id
        {
            let list = by_integration.entry(endpoint.integration_id).or_default();
            if !list.iter().any(|e| e.id == endpoint.id) {
                list.push(endpoint);
            }
        }
    }
    let mut read: BTreeMap<Uuid, Result<EndpointRecord, String>> = BTreeMap::new();
    for (integration, endpoints) in by_integration {
        let connector = match installed(app, home.tenant_id, integration).await {
            Ok(connector) => connector,
            Err(e) => {
                for endpoint in endpoints {
                    read.insert(endpoint.id.0, Err(e.detail.clone()));
                }
                continue;
            }
        };
        for outcome in read_and_store(app, &connector, endpoints).await? {
            match outcome {
                ReadOutcome::Read(endpoint) => {
                    read.insert(endpoint.id.0, Ok(endpoint));
                }
                ReadOutcome::Failed(endpoint, why) => {
                    read.insert(endpoint.id.0, Err(why));
                }
            }
        }
    }
    let outputs = wanted
        .into_iter()
        .map(|(id, output)| {
            let name = things.thing(id).map(|t| t.name.clone()).unwrap_or_default();
            if let Some(reported) = devices.get(&id) {
                let stage = match (reported, output) {
                    (_, Output::Speaker) => Stage::Abandoned {
                        why: "a speaker on MQTT cannot sound the alarm (a connector's speaker can)"
                            .into(),
                    },
                    (Ok(_), _) => Stage::Saved,
                    (Err(why), _) => Stage::Abandoned {
                        why: format!("its state could not be saved, so it was left alone: {why}"),
                    },
                };
                return DrivenOutput {
                    endpoint_id: id,
                    integration_id: Uuid::nil(),
                    name,
                    output,
                    native: reported
                        .as_ref()
                        .map(|s| native_of(output, s))
                        .unwrap_or_default(),
                    stage,
                    error: None,
                    attempts: 0,
                    device: true,
                    waiting: Vec::new(),
                    waiting_since: None,
                    alarm_commands: Vec::new(),
                };
            }
            let (integration_id, native, stage) = match read.get(&id) {
                Some(Ok(endpoint)) => (
                    endpoint.integration_id.0,
                    native_of(output, &endpoint.state),
                    Stage::Saved,
                ),
                Some(Err(why)) => (
                    Uuid::nil(),
                    Native::new(),
                    Stage::Abandoned {
                        why: format!("its state could not be saved, so it was left alone: {why}"),
                    },
                ),
                None => (
                    Uuid::nil(),
                    Native::new(),
                    Stage::Abandoned {
                        why: "it is no longer in this home".into(),
                    },
                ),
            };
            DrivenOutput {
                endpoint_id: id,
                integration_id,
                name,
                output,
                native,
                stage,
                error: None,
                attempts: 0,
                device: false,
                waiting: Vec::new(),
                waiting_since: None,
                alarm_commands: Vec::new(),
            }
        })
        .collect();
    Ok((night, outputs))
}

async fn sound(app: &App, home: &PropertyRecord, incident: u64) -> Result<(), Error> {
    let record = Security(&*app.store)
        .get(home.tenant_id, home.id)
        .await?
        .ok_or_else(|| Error::not_found("no security"))?;
    if record.outputs.as_ref().is_some_and(|job| !job.planned) {
        let now = app.clock.now();
        let (night, outputs) = plan(app, home, &record, now).await?;
        update(app, home, |record, _, now| {
            if !sounding(record, incident) {
                return None;
            }
            let job = record.outputs.as_mut().filter(|job| !job.planned)?;
            job.planned = true;
            job.night = night;
            job.outputs = outputs.clone();
            job.next_at = Some(now + BEAT);
            Some(())
        })
        .await?;
    }
    // First writes: each saved output is marked touched first (only while
    // this alarm sounds), then written.
    let saved: Vec<DrivenOutput> = current_job(app, home)
        .await?
        .map(|job| {
            job.outputs
                .into_iter()
                .filter(|o| o.stage == Stage::Saved)
                .collect()
        })
        .unwrap_or_default();
    for output in saved {
        let (touched, record) = update(app, home, |record, _, _| {
            if !sounding(record, incident) {
                return None;
            }
            let driven = record
                .outputs
                .as_mut()?
                .output_mut(output.endpoint_id, output.output)
                .filter(|o| o.stage == Stage::Saved)?;
            driven.stage = Stage::Touched;
            Some(())
        })
        .await?;
        if touched.is_none() {
            continue;
        }
        let beat = record.outputs.as_ref().map_or(0, |job| job.beat);
        let result = alarm_write(app, home, &output, beat, true, record.settings.deterrent).await;
        note_written(app, home, &output, result).await?;
    }
    // The beat: lights flash, speakers alternate.
    let (beat, record) = update(app, home, |record, _, now| {
        if !sounding(record, incident) {
            return None;
        }
        let job = record.outputs.as_mut()?;
        if job.next_at.is_some_and(|at| at > now) {
            return None;
        }
        job.beat += 1;
        job.next_at = Some(now + BEAT);
        Some((job.beat, job.outputs.clone()))
    })
    .await?;
    if let Some((beat, outputs)) = beat {
        for output in outputs.iter().filter(|o| o.stage == Stage::Touched) {
            if output.output == Output::Siren {
                continue;
            }
            // An old beat is never sent after Off.
            if !still_sounding(app, home, incident).await? {
                break;
            }
            let deterrent = record.settings.deterrent;
            let result = alarm_write(app, home, output, beat, false, deterrent).await;
            note_written(app, home, output, result).await?;
        }
    }
    Ok(())
}

async fn current_job(app: &App, home: &PropertyRecord) -> Result<Option<OutputsJob>, Error> {
    Ok(Security(&*app.store)
        .get(home.tenant_id, home.id)
        .await?
        .and_then(|r| r.outputs))
}

async fn still_sounding(app: &App, home: &PropertyRecord, incident: u64) -> Result<bool, Error> {
    Ok(Security(&*app.store)
        .get(home.tenant_id, home.id)
        .await?
        .is_some_and(|r| sounding(&r, incident)))
}

/// Records an output's last failure (or clears it).
/// Records how an alarm write went: its failure (or none), and a device's
/// alarm command ids (to supersede at restoration).
async fn note_written(
    app: &App,
    home: &PropertyRecord,
    output: &DrivenOutput,
    written: Result<Vec<u64>, String>,
) -> Result<(), Error> {
    let (error, sent) = match written {
        Ok(sent) => (None, sent),
        Err(why) => (Some(why), Vec::new()),
    };
    update(app, home, |record, _, _| {
        let driven = record
            .outputs
            .as_mut()?
            .output_mut(output.endpoint_id, output.output)?;
        if driven.error == error && sent.is_empty() {
            return None;
        }
        driven.error = error.clone();
        driven.alarm_commands.extend(&sent);
        let over = driven
            .alarm_commands
            .len()
            .saturating_sub(ALARM_COMMANDS_KEPT);
        driven.alarm_commands.drain(..over);
        Some(())
    })
    .await?;
    Ok(())
}

/// A device's alarm commands not yet answered are superseded: the bridge
/// sweep never delivers them after Off.
async fn supersede(app: &App, home: &PropertyRecord, device: &DeviceRecord, ids: &[u64]) {
    let commands = Commands(&*app.store);
    for id in ids {
        let Some(command) = alyt_domain::device::CommandId::new(*id) else {
            continue;
        };
        let Ok(Some(stored)) = commands.get(device.id, command).await else {
            continue;
        };
        let event = CommandEvent::Undeliverable(UndeliverableReason::Superseded);
        if let Some(next) = stored.row.apply(&event, app.clock.now())
            && let Err(e) = commands
                .transition(home.tenant_id, &stored.row, &next)
                .await
        {
            tracing::warn!(device = %device.id, error = %e, "an alarm command could not be superseded");
        }
    }
}

/// An alarm write to one output at `beat` (`first`: its first).
async fn alarm_write(
    app: &App,
    home: &PropertyRecord,
    output: &DrivenOutput,
    beat: u64,
    first: bool,
    deterrent: Deterrent,
) -> Result<Vec<u64>, String> {
    if output.device {
        let device = reach_device(app, home, output.endpoint_id).await?;
        let mut writes = Vec::new();
        match output.output {
            Output::Siren => writes.push(("switch", "power", json!(true))),
            Output::Light => {
                if first && output.native.contains_key("light.brightness") {
                    writes.push(("light", "brightness", json!(FLASH_BRIGHTNESS)));
                }
                writes.push(("light", "power", json!(flash_on(beat))));
            }
            Output::Speaker => return Err("a speaker on MQTT cannot sound the alarm".into()),
        }
        let mut sent = Vec::new();
        for (capability, key, value) in writes {
            sent.push(command_device(app, home, &device, capability, key, value).await?);
        }
        return Ok(sent);
    }
    let reached = reach(app, home, output).await?;
    match output.output {
        Output::Siren => set(app, &reached, "switch", "power", json!(true)).await?,
        Output::Light => {
            if first && output.native.contains_key("light.brightness") {
                set(
                    app,
                    &reached,
                    "light",
                    "brightness",
                    json!(FLASH_BRIGHTNESS),
                )
                .await?;
            }
            set(app, &reached, "light", "power", json!(flash_on(beat))).await?
        }
        Output::Speaker => {
            // It sounds on its own, in its room.
            if first
                && output
                    .native
                    .get("media_player.group")
                    .is_some_and(Value::is_string)
            {
                set(app, &reached, "media_player", "group", Value::Null).await?;
            }
            sound_speaker(app, &reached, Sound::of_beat(beat), deterrent).await?
        }
    }
    Ok(Vec::new())
}

/// A `set` sent to the connector with the native capability (the
/// platform's own write, not a household command), its read-back stored.
async fn set(
    app: &App,
    reached: &Reached,
    capability: &str,
    key: &str,
    value: Value,
) -> Result<(), WriteError> {
    let call = CommandCall {
        integration_id: reached.installed.integration.id.to_string(),
        tenant_id: reached.installed.integration.tenant_id.to_string(),
        config: reached.installed.integration.config.clone(),
        external_id: reached.endpoint.external_id.clone(),
        command: "set".into(),
        payload: Some(
            json!({ "capability": capability, "key": key, "value": value })
                .as_object()
                .cloned()
                .unwrap_or_default(),
        ),
    };
    let answer = app
        .connectors
        .command(&reached.installed.server(app), &call)
        .await;
    match answer {
        Ok(CommandAnswer::Applied { state: read_back }) => {
            keep(app, reached, read_back).await;
            Ok(())
        }
        Ok(CommandAnswer::Rejected { reason }) => Err(WriteError::Refused(format!(
            "{capability}.{key} was refused: {reason}"
        ))),
        Ok(CommandAnswer::Failed { reason }) => Err(WriteError::Failed(format!(
            "{capability}.{key} failed: {reason}"
        ))),
        Err(e) => Err(WriteError::Failed(connector_problem(
            &reached.installed.connector,
            &e,
        ))),
    }
}

/// Why a write did not apply.
enum WriteError {
    /// The thing refused it (it will not take it later either).
    Refused(String),
    /// It failed or gave no answer (it may or may not have applied).
    Failed(String),
}

impl From<WriteError> for String {
    fn from(e: WriteError) -> Self {
        match e {
            WriteError::Refused(why) | WriteError::Failed(why) => why,
        }
    }
}

/// A `set` to a device through the command path (a row in its history,
/// published now or by the bridge sweep); its command id.
async fn command_device(
    app: &App,
    home: &PropertyRecord,
    device: &DeviceRecord,
    capability: &str,
    key: &str,
    value: Value,
) -> Result<u64, String> {
    let request = CommandRequest::Set {
        capability: capability.into(),
        key: key.into(),
        value,
    };
    crate::commands::accept_and_publish(app, home.tenant_id, device, request)
        .await
        .map(|row| row.command_id.get())
        .map_err(|e| format!("{capability}.{key}: {}", e.detail))
}

/// Stores what a write read back (best effort: the write stands).
async fn keep(app: &App, reached: &Reached, read_back: Map<String, Value>) {
    if let Err(e) = store_check(app, reached.endpoint.clone(), Some(read_back)).await {
        tracing::warn!(endpoint = %reached.endpoint.id, error = %e.detail, "an output's state could not be stored");
    }
}

async fn sound_speaker(
    app: &App,
    reached: &Reached,
    sound: Sound,
    recording: Deterrent,
) -> Result<(), String> {
    let call = SoundCall {
        integration_id: reached.installed.integration.id.to_string(),
        tenant_id: reached.installed.integration.tenant_id.to_string(),
        config: reached.installed.integration.config.clone(),
        external_id: reached.endpoint.external_id.clone(),
        sound,
        recording,
        volume: SPEAKER_ALARM_VOLUME,
    };
    let answer = app
        .connectors
        .security_sound(&reached.installed.server(app), &call)
        .await;
    match answer {
        Ok(SoundAnswer::Sounding { state: read_back }) => {
            keep(app, reached, read_back).await;
            Ok(())
        }
        Ok(SoundAnswer::Rejected { reason }) => {
            Err(format!("the speaker refused the alarm: {reason}"))
        }
        Ok(SoundAnswer::Failed { reason }) => Err(format!("the speaker failed: {reason}")),
        Err(e) => Err(connector_problem(&reached.installed.connector, &e)),
    }
}

// ---------------------------------------------------------------------------
// Restoring

/// How one output's restoration went.
enum Put {
    /// Back, except the parts named (and why, when the thing said).
    Back(Vec<String>, Option<String>),
    /// It left the home: no longer the platform's to write.
    Left(String),
    /// Not now (refused, no answer): tried again.
    Failed(String),
    /// A device's restoration commands went out (their ids): their answers
    /// decide.
    Sent(Vec<u64>),
    /// Still waiting for the device's answers.
    Waiting,
}

async fn restore(app: &App, home: &PropertyRecord) -> Result<(), Error> {
    let Some(job) = current_job(app, home)
        .await?
        .filter(|job| job.next_at.is_some())
    else {
        return Ok(());
    };
    let mut results: Vec<(DrivenOutput, Put)> = Vec::new();
    for output in job.outputs.iter().filter(|o| o.stage == Stage::Touched) {
        let put = put_back(app, home, output).await;
        results.push((output.clone(), put));
    }
    let handed = update(app, home, |record, effects, now| {
        let job = record.outputs.as_mut()?;
        for (output, put) in &results {
            let Some(driven) = job
                .output_mut(output.endpoint_id, output.output)
                .filter(|o| o.stage == Stage::Touched)
            else {
                continue;
            };
            if !matches!(put, Put::Waiting) {
                driven.attempts += 1;
            }
            match put {
                Put::Waiting => {}
                Put::Sent(ids) => {
                    driven.waiting = ids.clone();
                    driven.waiting_since = Some(now);
                    driven.error = Some("waiting for the device to answer".into());
                }
                Put::Back(parts, why) => {
                    driven.stage = Stage::Restored {
                        unrestored: parts.clone(),
                    };
                    // A part not put back says why, when the thing said.
                    driven.error = why.clone().filter(|_| !parts.is_empty());
                    driven.waiting.clear();
                }
                Put::Left(why) => {
                    driven.stage = Stage::Abandoned { why: why.clone() };
                }
                Put::Failed(why) => {
                    driven.error = Some(why.clone());
                    driven.waiting.clear();
                }
            }
        }
        let mut handed_to = None;
        if job.owes_restoration() {
            job.next_at = Some(now + RETRY);
        } else {
            // Done: the job stays to show what was (not) restored until
            // the next alarm.
            job.next_at = None;
            let more = record.state.restored();
            handed_to = more.iter().find_map(|e| match e {
                Effect::AuthoritySwitched { to } => Some(to.clone()),
                _ => None,
            });
            effects.extend(more);
        }
        Some(handed_to)
    })
    .await?;
    // A hand-over waited for the restoration: the security system takes
    // over now.
    if let (Some(Some(to)), _) = &handed {
        super::complete_handover(app, home, to).await;
    }
    Ok(())
}

/// Puts a device back: sends the commands that restore it, then (on later
/// turns) waits for its answers and compares what it reports. A device that
/// does not answer within `DEVICE_ANSWER` is sent them again.
async fn put_back_device(app: &App, home: &PropertyRecord, output: &DrivenOutput) -> Put {
    let device = match reach_device(app, home, output.endpoint_id).await {
        Ok(device) => device,
        Err(why) => return Put::Left(why),
    };
    let reported = |device: DeviceRecord| async move {
        let view = Devices(&*app.store).views(vec![device]).await.ok()?;
        match view.into_iter().next()?.reported?.payload {
            Value::Object(payload) => Some(device_state(payload)),
            _ => None,
        }
    };
    if !output.waiting.is_empty() {
        let mut answered = true;
        for id in &output.waiting {
            let Some(command) = alyt_domain::device::CommandId::new(*id) else {
                continue;
            };
            let row = Commands(&*app.store).get(device.id, command).await;
            let done = matches!(&row, Ok(Some(stored)) if stored.row.result_status.is_some()
                || stored.row.state() == Some(alyt_domain::device::CommandState::Undeliverable));
            answered &= done;
        }
        if !answered {
            let late = output
                .waiting_since
                .is_none_or(|since| since + DEVICE_ANSWER <= app.clock.now());
            return if late {
                Put::Failed("the device did not answer; its restoration is sent again".into())
            } else {
                Put::Waiting
            };
        }
        // Answered (a refusal shows in what it reports).
        return match reported(device).await {
            Some(now) => Put::Back(unrestored(&output.native, &now), None),
            None => Put::Failed("the device has not reported its state".into()),
        };
    }
    // No old alarm command reaches the device after this.
    supersede(app, home, &device, &output.alarm_commands).await;
    let Some(now) = reported(device.clone()).await else {
        return Put::Failed("the device has not reported its state".into());
    };
    let mut sent = Vec::new();
    for write in restore_writes(output.output, &output.native, &now) {
        let (capability, key, value) = match write {
            RestoreWrite::Set {
                capability,
                key,
                value,
            } => (capability, key, value),
            RestoreWrite::ClearSource => ("media_player", "source", Value::Null),
            // A device plays no music uri: its report tells what is left.
            RestoreWrite::Play { .. } => continue,
        };
        match command_device(app, home, &device, capability, key, value).await {
            Ok(id) => sent.push(id),
            Err(why) => return Put::Failed(why),
        }
    }
    if sent.is_empty() {
        Put::Back(unrestored(&output.native, &now), None)
    } else {
        Put::Sent(sent)
    }
}

/// Puts one output back to its native state and reads it again.
async fn put_back(app: &App, home: &PropertyRecord, output: &DrivenOutput) -> Put {
    if output.device {
        return put_back_device(app, home, output).await;
    }
    let reached = match reach(app, home, output).await {
        Ok(reached) => reached,
        Err(why) if why.contains("no longer in this home") => return Put::Left(why),
        Err(why) => return Put::Failed(why),
    };
    let now = match read_one(app, &reached).await {
        Ok(now) => now,
        Err(why) => return Put::Failed(why),
    };
    let mut refusals = Vec::new();
    for write in restore_writes(output.output, &output.native, &now) {
        let written = match write {
            RestoreWrite::Set {
                capability,
                key,
                value,
            } => set(app, &reached, capability, key, value).await,
            RestoreWrite::Play { uri } => play(app, &reached, &uri).await,
            // It played nothing: the alarm's source goes (its `playing`
            // comes back after this).
            RestoreWrite::ClearSource => {
                set(app, &reached, "media_player", "source", Value::Null).await
            }
        };
        match written {
            // A part the thing will not take back is reported as not
            // restored (the read-back tells), with the thing's reason.
            Ok(()) => {}
            Err(WriteError::Refused(why)) => refusals.push(why),
            Err(WriteError::Failed(why)) => return Put::Failed(why),
        }
    }
    let why = (!refusals.is_empty()).then(|| refusals.join("; "));
    match read_one(app, &reached).await {
        Ok(after) => Put::Back(unrestored(&output.native, &after), why),
        Err(why) => Put::Failed(why),
    }
}

/// The thing's state now, read from its connector (and stored).
async fn read_one(app: &App, reached: &Reached) -> Result<Map<String, Value>, String> {
    let read = read_and_store(app, &reached.installed, vec![reached.endpoint.clone()])
        .await
        .map_err(|e| e.detail)?;
    match read.into_iter().next() {
        Some(ReadOutcome::Read(endpoint)) => Ok(endpoint.state),
        Some(ReadOutcome::Failed(_, why)) => Err(why),
        None => Err("it could not be read".into()),
    }
}

/// Plays a speaker's former source again.
async fn play(app: &App, reached: &Reached, uri: &str) -> Result<(), WriteError> {
    let call = PlayCall {
        integration_id: reached.installed.integration.id.to_string(),
        tenant_id: reached.installed.integration.tenant_id.to_string(),
        config: reached.installed.integration.config.clone(),
        external_id: reached.endpoint.external_id.clone(),
        uri: uri.to_owned(),
    };
    let answer = app
        .connectors
        .music_play(&reached.installed.server(app), &call)
        .await;
    match answer {
        Ok(PlayAnswer::Playing { state: read_back }) => {
            keep(app, reached, read_back).await;
            Ok(())
        }
        Ok(PlayAnswer::Rejected { reason }) => Err(WriteError::Refused(format!(
            "its former source cannot be played again: {reason}"
        ))),
        Ok(PlayAnswer::Failed { reason }) => Err(WriteError::Failed(reason)),
        Err(e) => Err(WriteError::Failed(connector_problem(
            &reached.installed.connector,
            &e,
        ))),
    }
}
