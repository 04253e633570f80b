//! Home security as a household reads it: the status of a home (modes,
//! countdowns, readiness per mode with what blocks it, every thing security
//! uses, the open incident) and the history of its incidents. Anyone with
//! sight of the home's security reads both (household members, the
//! tenant's roles, guests, platform staff); keys, widgets and connector
//! credentials have no home-security access.

use std::collections::BTreeSet;

use alyt_domain::access::{Principal, SecurityAccess};
use alyt_domain::ids::{PropertyId, TenantId};
use alyt_domain::room::PinnedThing;
use alyt_domain::security::enrolment::{Output, Selection};
use alyt_domain::security::machine::{ArmingChecks, BlockReason, IncidentState};
use alyt_domain::security::outputs::{DrivenOutput, Stage};
use alyt_domain::security::{Deterrent, Location, LockSource, Mode, Settings, Signal};
use alyt_store::PageKey;
use alyt_store::repo::security::{IncidentRecord, Security, SecurityRecord, home_incidents};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use uuid::Uuid;

use super::access::security_for;
use super::hub;
use super::inventory::{Inventory, inventory};
use crate::paging::Paging;
use crate::{App, Error};

/// A thing as home security sees it.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SecurityThingView {
    pub thing: PinnedThing,
    pub name: String,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, required = true))]
    pub room_id: Option<Uuid>,
    /// The household's choice: auto, include or exclude.
    pub selection: Selection,
    /// Detection signals it offers (by capabilities and features).
    pub signals: Vec<Signal>,
    /// Signals enrolled under the selection.
    pub enrolled: Vec<Signal>,
    /// Signals of the enrolled ones that are not ready now, and why.
    pub not_ready: Vec<SignalBlock>,
    pub lock: bool,
    /// A lock with an external keypad (prompts to arm, disarms with a
    /// verified code).
    pub keypad: bool,
    pub camera: bool,
    pub outputs: Vec<Output>,
}

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SignalBlock {
    pub signal: Signal,
    pub why: BlockReason,
}

/// A signal that keeps a mode from arming.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Blocking {
    pub thing_id: Uuid,
    pub name: String,
    pub signal: Signal,
    pub why: BlockReason,
}

/// Whether a mode can be armed now.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ModeReadiness {
    /// Arming this mode now would be accepted (the same checks a mode
    /// request runs, with no bypass).
    pub ready: bool,
    /// Why arming this mode now would be refused, as the refusal says it
    /// (null: ready): nothing selected is watched in this mode, signals
    /// not ready, the hub, outputs still to restore, another authority.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub why: Option<String>,
    /// Disabled, unknown, unavailable or open signals the mode watches
    /// (bypass them or fix them).
    pub blockers: Vec<Blocking>,
}

#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Readiness {
    pub away: ModeReadiness,
    pub home: ModeReadiness,
    pub sleep: ModeReadiness,
}

/// An entry of the incident history: a detection's incident, or a keypad
/// disarm with its source.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct IncidentView {
    pub number: u64,
    pub generation: u64,
    /// `detection` (a watched signal fired) or `keypad-disarm` (a verified
    /// keypad code turned the home Off).
    pub kind: String,
    /// The thing that detected, or the lock whose keypad it was.
    pub thing_id: Uuid,
    /// The signal that fired (null: a keypad disarm).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub signal: Option<Signal>,
    /// `entry` (the alarm sounds at `alarmAt` unless turned Off), `alarm`,
    /// `cleared`.
    pub state: String,
    #[serde(with = "time::serde::rfc3339::option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime, required = true))]
    pub alarm_at: Option<OffsetDateTime>,
    /// Whether the alarm sounded.
    pub alarmed: bool,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub opened_at: OffsetDateTime,
    /// The resident who acknowledged it (acknowledging is separate from Off).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, required = true))]
    pub acknowledged_by: Option<Uuid>,
    /// Where a keypad disarm came from (null: a detection).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub source: Option<LockSourceView>,
}

/// Where a keypad disarm came from: a device of the home (`deviceId`), or
/// an endpoint of a connector's integration (`connectorId`,
/// `integrationId`).
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct LockSourceView {
    /// `device` or `endpoint`.
    pub kind: String,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, required = true))]
    pub device_id: Option<Uuid>,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, required = true))]
    pub connector_id: Option<Uuid>,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, required = true))]
    pub integration_id: Option<Uuid>,
}

impl From<&LockSource> for LockSourceView {
    fn from(source: &LockSource) -> Self {
        match source {
            LockSource::Device { device_id } => Self {
                kind: "device".into(),
                device_id: Some(*device_id),
                connector_id: None,
                integration_id: None,
            },
            LockSource::Endpoint {
                connector_id,
                integration_id,
            } => Self {
                kind: "endpoint".into(),
                device_id: None,
                connector_id: Some(*connector_id),
                integration_id: Some(*integration_id),
            },
        }
    }
}

impl IncidentView {
    /// A history entry as the household reads it (none: an entry of
    /// neither kind, which no writer makes).
    pub fn of_record(record: &IncidentRecord) -> Option<Self> {
        if let Some(incident) = &record.incident {
            return Some(Self::from(incident));
        }
        let disarm = record.keypad_disarm.as_ref()?;
        Some(Self {
            number: disarm.number,
            generation: disarm.generation,
            kind: "keypad-disarm".into(),
            thing_id: disarm.lock,
            signal: None,
            state: "cleared".into(),
            alarm_at: None,
            alarmed: false,
            opened_at: disarm.at,
            acknowledged_by: None,
            source: Some(LockSourceView::from(&disarm.source)),
        })
    }
}

impl From<&alyt_domain::security::machine::Incident> for IncidentView {
    fn from(i: &alyt_domain::security::machine::Incident) -> Self {
        let (state, alarm_at) = match i.state {
            IncidentState::Entry { alarm_at } => ("entry", Some(alarm_at)),
            IncidentState::Alarm => ("alarm", None),
            IncidentState::Cleared => ("cleared", None),
        };
        Self {
            number: i.number,
            generation: i.generation,
            kind: "detection".into(),
            thing_id: i.signal.thing_id,
            signal: Some(i.signal.signal),
            state: state.into(),
            alarm_at,
            alarmed: i.alarmed,
            opened_at: i.opened_at,
            acknowledged_by: i.acknowledged_by,
            source: None,
        }
    }
}

/// The household's settings.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SettingsView {
    /// 0-300.
    pub exit_delay_seconds: u32,
    /// 0-300.
    pub entry_delay_seconds: u32,
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>))]
    pub sleeping_rooms: BTreeSet<Uuid>,
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>))]
    pub night_light_rooms: BTreeSet<Uuid>,
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>))]
    pub speaker_alarm_rooms: BTreeSet<Uuid>,
    /// Where the home is, for the night lights' sunset and sunrise (null:
    /// the home's own coordinates; without either, night lights stay off).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub location: Option<Location>,
    /// The hub that runs the home's protection (null: the platform).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, required = true))]
    pub hub_device_id: Option<Uuid>,
    /// The fixed recording the speaker alarm alternates with the siren.
    pub deterrent: Deterrent,
}

impl From<&Settings> for SettingsView {
    fn from(s: &Settings) -> Self {
        Self {
            exit_delay_seconds: s.exit_delay_seconds,
            entry_delay_seconds: s.entry_delay_seconds,
            sleeping_rooms: s.sleeping_rooms.clone(),
            night_light_rooms: s.night_light_rooms.clone(),
            speaker_alarm_rooms: s.speaker_alarm_rooms.clone(),
            location: s.location,
            hub_device_id: s.hub_device_id,
            deterrent: s.deterrent,
        }
    }
}

/// An output the last alarm drives or drove.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct OutputView {
    pub thing_id: Uuid,
    pub name: String,
    pub output: Output,
    /// `saved` (its native state saved, nothing sent), `touched` (changed,
    /// or maybe changed: to restore), `restored`, `abandoned` (left alone,
    /// or it left the home).
    pub stage: String,
    /// After `restored`: the parts that could not be put back
    /// (`capability.key`; an unsupported source is never called restored).
    pub unrestored: Vec<String>,
    /// Why it was abandoned, the last failure, or (after `restored` with
    /// parts in `unrestored`) why the thing would not take them back.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub error: Option<String>,
    /// Restoration attempts so far.
    pub attempts: u32,
}

impl From<&DrivenOutput> for OutputView {
    fn from(o: &DrivenOutput) -> Self {
        let (stage, unrestored, why) = match &o.stage {
            Stage::Saved => ("saved", Vec::new(), None),
            Stage::Touched => ("touched", Vec::new(), None),
            Stage::Restored { unrestored } => ("restored", unrestored.clone(), None),
            Stage::Abandoned { why } => ("abandoned", Vec::new(), Some(why.clone())),
        };
        Self {
            thing_id: o.endpoint_id,
            name: o.name.clone(),
            output: o.output,
            stage: stage.into(),
            unrestored,
            error: why.or_else(|| o.error.clone()),
            attempts: o.attempts,
        }
    }
}

/// A hub-run home's hub.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct HubView {
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub device_id: Uuid,
    /// Its broker connection is current.
    pub connected: bool,
    /// The configuration revision last sent.
    pub revision: u64,
    /// Whether the hub holds the configuration the home needs now: false
    /// while a thing found since (or a changed setting) is on its way to
    /// the hub, which must acknowledge it before the next arming.
    pub acknowledged: bool,
    /// The protection state it reported: its generation, mode and whether
    /// it can protect the home (null: none yet).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>, required = true))]
    pub protection: Option<serde_json::Value>,
    /// Why the hub cannot take an arming now (null: it can).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub problem: Option<String>,
}

/// A home's security now.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SecurityStatus {
    pub property_id: PropertyId,
    /// `builtin`, or `connector` (a security-system connector runs it).
    pub authority: String,
    /// The security system's integration when `authority` is `connector`.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, required = true))]
    pub authority_integration_id: Option<String>,
    /// A hand-over to a security system waiting for the outputs to be
    /// restored (its integration id).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, required = true))]
    pub switching_to: Option<String>,
    /// What the household asked for (not protection by itself).
    pub requested_mode: Mode,
    /// What is in force.
    pub confirmed_mode: Mode,
    /// The configuration revision an arming must carry.
    pub revision: u64,
    /// The armed period's generation an arming or Off must carry.
    pub generation: u64,
    /// When the exit countdown ends (null: none runs).
    #[serde(with = "time::serde::rfc3339::option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime, required = true))]
    pub exit_until: Option<OffsetDateTime>,
    /// When the armed period's detection began (null: not armed).
    #[serde(with = "time::serde::rfc3339::option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime, required = true))]
    pub armed_since: Option<OffsetDateTime>,
    /// The confirmed mode holds, but part of the runtime cannot be reached.
    pub degraded: bool,
    /// A hub-run home whose hub cannot be reached: the household keeps
    /// seeing the confirmed mode, but the runtime that protects it is away.
    pub runtime_unavailable: bool,
    /// The hub that runs the home's protection (null: the platform).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub hub: Option<HubView>,
    pub readiness: Readiness,
    /// Every thing with a use for security, with its selection.
    pub things: Vec<SecurityThingView>,
    /// Outputs changed by the last alarm are still to be restored (arming
    /// and settings wait for it).
    pub restoration_pending: bool,
    /// The outputs of the last alarm until they are all restored: sirens,
    /// the night-light rooms' lights (flashing at full intensity, only
    /// between sunset and sunrise at the home's location), the
    /// speaker-alarm rooms' speakers (at 50%, the siren alternating with
    /// the deterrent recording).
    pub outputs: Vec<OutputView>,
    /// The open incident (null: none).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub incident: Option<IncidentView>,
    pub settings: SettingsView,
    /// What the caller may do: `see`, `control` or `configure`.
    pub access: String,
}

/// Armed, and a watched signal cannot be reached now (its thing is
/// unavailable or gone): the confirmed mode holds, protection is partial.
pub fn degraded(record: &SecurityRecord, inventory: &Inventory) -> bool {
    let Some(period) = record.state.period.as_ref() else {
        return false;
    };
    record.state.confirmed.is_armed()
        && period.watching.keys().any(|watched| {
            inventory
                .thing(watched.thing_id)
                .and_then(|t| t.signals.get(&watched.signal))
                .is_none_or(|ready| *ready == Some(BlockReason::Unavailable))
        })
}

pub fn readiness_of(
    record: &SecurityRecord,
    inventory: &Inventory,
    checks: &ArmingChecks,
    mode: Mode,
) -> ModeReadiness {
    let refusal = record.state.arming_refusal(checks, mode);
    let blockers: Vec<Blocking> = checks
        .blockers(mode, &BTreeSet::new())
        .into_iter()
        .map(|b| Blocking {
            thing_id: b.signal.thing_id,
            name: inventory
                .thing(b.signal.thing_id)
                .map(|t| t.name.clone())
                .unwrap_or_default(),
            signal: b.signal.signal,
            why: b.why,
        })
        .collect();
    ModeReadiness {
        ready: refusal.is_none(),
        why: refusal.map(|r| r.to_string()),
        blockers,
    }
}

pub fn status(
    record: &SecurityRecord,
    inventory: &Inventory,
    access: SecurityAccess,
) -> SecurityStatus {
    let s = &record.state;
    let checks = inventory.checks(&record.settings);
    let things = inventory
        .things
        .iter()
        .map(|t| SecurityThingView {
            thing: PinnedThing {
                kind: t.kind,
                id: t.id,
            },
            name: t.name.clone(),
            room_id: t.room_id.map(|r| r.0),
            selection: t.selection,
            signals: t
                .families
                .signals
                .union(&t.families.includable)
                .copied()
                .collect(),
            enrolled: t.signals.keys().copied().collect(),
            not_ready: t
                .signals
                .iter()
                .filter_map(|(signal, why)| {
                    why.map(|why| SignalBlock {
                        signal: *signal,
                        why,
                    })
                })
                .collect(),
            lock: t.families.lock,
            keypad: t.families.keypad,
            camera: t.families.camera,
            outputs: t.families.outputs.iter().copied().collect(),
        })
        .collect();
    let open = s
        .incident
        .as_ref()
        .filter(|i| i.state != IncidentState::Cleared);
    SecurityStatus {
        property_id: record.property_id,
        authority: match s.authority {
            alyt_domain::security::machine::Authority::BuiltIn => "builtin",
            alyt_domain::security::machine::Authority::Connector { .. } => "connector",
        }
        .into(),
        authority_integration_id: match &s.authority {
            alyt_domain::security::machine::Authority::Connector { connector_id } => {
                Some(connector_id.clone())
            }
            alyt_domain::security::machine::Authority::BuiltIn => None,
        },
        switching_to: match &s.switching_to {
            Some(alyt_domain::security::machine::Authority::Connector { connector_id }) => {
                Some(connector_id.clone())
            }
            _ => None,
        },
        requested_mode: s.requested,
        confirmed_mode: s.confirmed,
        revision: s.revision,
        generation: s.generation,
        exit_until: s.exit_until,
        armed_since: s
            .period
            .as_ref()
            .filter(|_| s.confirmed.is_armed())
            .and_then(|p| p.watching.values().min().copied()),
        degraded: degraded(record, inventory),
        runtime_unavailable: inventory.hub_connected == Some(false),
        hub: record.settings.hub_device_id.map(|device_id| HubView {
            device_id,
            connected: inventory.hub_connected == Some(true),
            revision: record.hub.as_ref().map_or(0, |h| h.revision),
            acknowledged: inventory.hub_acknowledged(record),
            protection: record
                .hub
                .as_ref()
                .and_then(|h| h.protection.as_ref())
                .and_then(|p| serde_json::to_value(p).ok()),
            problem: inventory.hub_check.clone().err(),
        }),
        readiness: Readiness {
            away: readiness_of(record, inventory, &checks, Mode::Away),
            home: readiness_of(record, inventory, &checks, Mode::Home),
            sleep: readiness_of(record, inventory, &checks, Mode::Sleep),
        },
        things,
        restoration_pending: s.restoration_pending,
        outputs: record
            .outputs
            .iter()
            .flat_map(|job| job.outputs.iter().map(OutputView::from))
            .collect(),
        incident: open.map(IncidentView::from),
        settings: SettingsView::from(&record.settings),
        access: match access {
            SecurityAccess::See => "see",
            SecurityAccess::Control => "control",
            SecurityAccess::Configure => "configure",
        }
        .into(),
    }
}

// ---------------------------------------------------------------------------
// Reading

/// Home `property`'s security status, for anyone who sees it. A hub-run
/// home whose things changed: its hub is sent the new configuration on the
/// timers' next beat.
pub async fn read_status(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    property: PropertyId,
) -> Result<SecurityStatus, Error> {
    let (home, record, access) =
        security_for(app, caller, tenant, property, SecurityAccess::See).await?;
    let things = inventory(app, &record, home.id).await?;
    if let Err(e) = hub::note_read(app, &home, &record, &things).await {
        tracing::warn!(home = %home.id, error = %e.detail, "a hub's new configuration could not be noted");
    }
    Ok(status(&record, &things, access))
}

/// One page of home `property`'s incidents (newest first), for anyone who
/// sees its security.
pub async fn incidents_page(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    property: PropertyId,
    paging: &Paging,
) -> Result<(Vec<IncidentView>, Option<PageKey>), Error> {
    let limit = paging.limit()?;
    let (home, _, _) = security_for(app, caller, tenant, property, SecurityAccess::See).await?;
    let after = paging.after_within(&home_incidents(home.id))?;
    let (records, next) = Security(&*app.store)
        .incidents(home.id, limit, after)
        .await?;
    let views = records.iter().filter_map(IncidentView::of_record).collect();
    Ok((views, next))
}
