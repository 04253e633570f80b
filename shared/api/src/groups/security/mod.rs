//! Home security over HTTP (spec I): one home's status, its mode, its
//! settings and selections, its incidents. The rules are
//! `alyt_domain::security`; the records `repo::security`.
//!
//! * `GET /v1/home-security/{propertyId}?tenantId`: the status. A hub-run
//!   home's hub is judged against the configuration its things need now;
//!   when they changed while Off, the read notes the new configuration for
//!   the timers to send (`hub::note_read`).
//! * `POST /v1/home-security/{propertyId}/mode` `{ tenantId, mode,
//!   requestId, revision, generation, bypass[] }`: arm, change or Off. A
//!   repeated request (same id, same body) answers what the first got; the
//!   same id with another body is 409 `request-id-reused`. Refusals are 409
//!   with what to do (`security-refused`); the state is unchanged.
//! * `PATCH /v1/home-security/{propertyId}/settings` (owner; Off and
//!   restoration complete, else 409), `PUT
//!   /v1/home-security/{propertyId}/devices/{kind}/{id}` `{ selection }`:
//!   each bumps the revision the next arming must carry.
//! * `GET …/incidents` (newest first), `POST …/incidents/{number}/acknowledge`
//!   (one resident; separate from Off).
//!
//! Who (Authentication 9, `Principal::security_access`): household members
//! control the mode and acknowledge; the household's owners also
//! configure; the tenant's roles, guests and platform staff only read;
//! keys, widgets and connector credentials have no access at all (403).
//!
//! The platform offers no emergency dispatch and shares no evidence.
//!
//! Time: the exit and entry countdowns end when the home is next read or
//! changed (issue 20's sweep slice moves them on their own).

mod authority;
mod delegations;

use std::collections::BTreeSet;

use alyt_domain::access::{HomeAccess, Principal, SecurityAccess};
use alyt_domain::ids::{PropertyId, TenantId};
use alyt_domain::room::{PinnedThing, PinnedThingKind};
use alyt_domain::secret::sha256_hex;
use alyt_domain::security::enrolment::{Output, Selection};
use alyt_domain::security::hub::CONFIG_REFUSED;
use alyt_domain::security::machine::{
    ArmingChecks, BlockReason, IncidentState, ModeRequest, Refusal,
};
use alyt_domain::security::outputs::{DrivenOutput, Stage};
use alyt_domain::security::{
    Deterrent, Location, LockSource, MAX_DELAY_SECONDS, Mode, Settings, Signal,
};
use alyt_security::{Decision, Draft, KeepError};
use alyt_store::repo::security::{
    IncidentRecord, ModeRequestRecord, Security, SecurityRecord, home_incidents, request_write,
};
use alyt_store::repo::tenancy::PropertyRecord;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use self::inventory::{Inventory, inventory};
use crate::access::home_for;
use crate::auth::Caller;
use crate::conventions::extract::{ApiJson, ApiPath, ApiQuery, PathText};
use crate::conventions::list::{ListResponse, PageParams};
use crate::conventions::problem::{NoValidToken, Problem};
use crate::groups::devices::TenantPageQuery;
use crate::groups::devices::TenantParam;
use crate::routing::{Operations, operations};
use crate::{ApiError, AppState};

pub use alyt_app::security::{hub, outputs, timers};
use alyt_app::security::{inventory, keeper, update};

impl From<KeepError> for ApiError {
    fn from(e: KeepError) -> Self {
        alyt_app::Error::from(e).into()
    }
}

pub fn routes() -> Operations {
    operations!(
        get_security,
        request_mode,
        change_security_settings,
        select_security_thing,
        list_incidents,
        acknowledge_incident
    )
    .merge(authority::routes())
    .merge(delegations::routes())
}

/// The home and the caller's access, when the caller has `needed`.
async fn access_for(
    state: &AppState,
    caller: &Principal,
    tenant: TenantId,
    property: PropertyId,
    needed: SecurityAccess,
) -> Result<(PropertyRecord, SecurityAccess), ApiError> {
    let home = home_for(state, caller, tenant, property, HomeAccess::See).await?;
    let access = crate::access::security_access(state, caller, &home).await?;
    if access < needed {
        return Err(ApiError::forbidden(match needed {
            SecurityAccess::Configure => {
                "home-security settings are changed by the household's owners"
            }
            _ => "home security is controlled by the household's members and owners",
        }));
    }
    Ok((home, access))
}

/// [`access_for`] with the home's security (ticked to now and stored when
/// time moved it).
async fn security_for(
    state: &AppState,
    caller: &Principal,
    tenant: TenantId,
    property: PropertyId,
    needed: SecurityAccess,
) -> Result<(PropertyRecord, SecurityRecord, SecurityAccess), ApiError> {
    let (home, access) = access_for(state, caller, tenant, property, needed).await?;
    let record = keeper(state).current(&home).await?;
    Ok((home, record, access))
}

/// Whether `user` controls `home`'s security now (their grants as they
/// stand, not as a token once said). Err: why not, after `who`.
async fn controls_now(
    state: &AppState,
    home: &PropertyRecord,
    user: alyt_domain::ids::UserId,
    who: &str,
) -> Result<(), String> {
    let user = alyt_store::repo::identity::Users(&*state.store)
        .get(user)
        .await
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("{who} no longer exists"))?;
    let session = alyt_domain::ids::SessionId::new();
    let claims = crate::auth::sessions::build_claims(state, &user, session, None)
        .await
        .map_err(|e| e.detail)?;
    let person = Principal::Person {
        claims,
        kind: alyt_domain::access::SessionKind::Household,
        session,
        developer: None,
    };
    let access = person
        .security_access(home.tenant_id, home.client_id)
        .map_err(|e| e.to_string())?;
    if person
        .home_access(home.tenant_id, home.client_id, home.id)
        .is_none()
        || access < SecurityAccess::Control
    {
        return Err(format!("{who} does not control this home's security"));
    }
    Ok(())
}

/// A routine's security step: `mode` for `home`. `people` are who the run
/// acts for (who ran it, or for a schedule who saved it) and who saved the
/// routine; both must control the home's security now (Authentication 9:
/// access is rechecked when actions execute; a key or a widget has none,
/// and running someone else's routine lends no authority). The request
/// carries the home's current revision and generation. Err: why it did
/// not apply.
pub(crate) async fn routine_mode(
    state: &AppState,
    home: &PropertyRecord,
    people: (
        Option<alyt_domain::ids::UserId>,
        Option<alyt_domain::ids::UserId>,
    ),
    mode: Mode,
) -> Result<(), String> {
    let (actor, saved_by) = people;
    let Some(actor) = actor else {
        return Err("a routine run by a key or a widget cannot change home security".into());
    };
    controls_now(state, home, actor, "the person the routine acts for").await?;
    let Some(saved_by) = saved_by else {
        return Err("a routine saved by a key cannot change home security".into());
    };
    if saved_by != actor {
        controls_now(state, home, saved_by, "the person who saved the routine").await?;
    }
    let done = keeper(state)
        .rewrite(home, async |mut draft| {
            let next = &mut draft.next;
            let things = inventory(state, next, home.id).await?;
            // A changed configuration goes to the hub even when this is
            // refused for it (kept: the refusal writes the record for it).
            let noted = hub::note(next, &things, draft.now);
            let request = ModeRequest {
                mode,
                revision: next.state.revision,
                generation: next.state.generation,
                bypass: BTreeSet::new(),
            };
            let checks = things.checks(&next.settings);
            let timing = next.settings.timing();
            let outcome = match next.state.request(&request, &checks, timing, draft.now) {
                Ok(more) => {
                    draft.effects.extend(more);
                    Ok(())
                }
                Err(refusal) => Err(refusal_problem(&refusal, &things, next)),
            };
            Ok::<_, ApiError>((draft, Decision::write_if(noted, outcome)))
        })
        .await
        .map_err(|e| e.detail)?;
    done.value.map_err(|e| e.detail)?;
    hub::send_mode(state, home, &done.record).await;
    Ok(())
}

// ---------------------------------------------------------------------------
// The status

/// A thing as home security sees it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SecurityThingView {
    pub thing: PinnedThing,
    pub name: String,
    #[schema(value_type = Option<String>, required = true)]
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

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignalBlock {
    pub signal: Signal,
    pub why: BlockReason,
}

/// A signal that keeps a mode from arming.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Blocking {
    pub thing_id: Uuid,
    pub name: String,
    pub signal: Signal,
    pub why: BlockReason,
}

/// Whether a mode can be armed now.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModeReadiness {
    /// Arming this mode now would be accepted (the same checks a mode
    /// request runs, with no bypass).
    pub ready: bool,
    /// Why arming this mode now would be refused, as the refusal says it
    /// (null: ready): nothing selected is watched in this mode, signals
    /// not ready, the hub, outputs still to restore, another authority.
    #[schema(required = true)]
    pub why: Option<String>,
    /// Disabled, unknown, unavailable or open signals the mode watches
    /// (bypass them or fix them).
    pub blockers: Vec<Blocking>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Readiness {
    pub away: ModeReadiness,
    pub home: ModeReadiness,
    pub sleep: ModeReadiness,
}

/// An entry of the incident history: a detection's incident, or a keypad
/// disarm with its source.
#[derive(Debug, Serialize, ToSchema)]
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
    #[schema(required = true)]
    pub signal: Option<Signal>,
    /// `entry` (the alarm sounds at `alarmAt` unless turned Off), `alarm`,
    /// `cleared`.
    pub state: String,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime, required = true)]
    pub alarm_at: Option<OffsetDateTime>,
    /// Whether the alarm sounded.
    pub alarmed: bool,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub opened_at: OffsetDateTime,
    /// The resident who acknowledged it (acknowledging is separate from Off).
    #[schema(value_type = Option<String>, required = true)]
    pub acknowledged_by: Option<Uuid>,
    /// Where a keypad disarm came from (null: a detection).
    #[schema(required = true)]
    pub source: Option<LockSourceView>,
}

/// Where a keypad disarm came from: a device of the home (`deviceId`), or
/// an endpoint of a connector's integration (`connectorId`,
/// `integrationId`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LockSourceView {
    /// `device` or `endpoint`.
    pub kind: String,
    #[schema(value_type = Option<String>, required = true)]
    pub device_id: Option<Uuid>,
    #[schema(value_type = Option<String>, required = true)]
    pub connector_id: Option<Uuid>,
    #[schema(value_type = Option<String>, required = true)]
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
    fn of_record(record: &IncidentRecord) -> Option<Self> {
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
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SettingsView {
    /// 0-300.
    pub exit_delay_seconds: u32,
    /// 0-300.
    pub entry_delay_seconds: u32,
    #[schema(value_type = Vec<String>)]
    pub sleeping_rooms: BTreeSet<Uuid>,
    #[schema(value_type = Vec<String>)]
    pub night_light_rooms: BTreeSet<Uuid>,
    #[schema(value_type = Vec<String>)]
    pub speaker_alarm_rooms: BTreeSet<Uuid>,
    /// Where the home is, for the night lights' sunset and sunrise (null:
    /// the home's own coordinates; without either, night lights stay off).
    #[schema(required = true)]
    pub location: Option<Location>,
    /// The hub that runs the home's protection (null: the platform).
    #[schema(value_type = Option<String>, required = true)]
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
#[derive(Debug, Serialize, ToSchema)]
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
    #[schema(required = true)]
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
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HubView {
    #[schema(value_type = String)]
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
    #[schema(value_type = Option<Object>, required = true)]
    pub protection: Option<serde_json::Value>,
    /// Why the hub cannot take an arming now (null: it can).
    #[schema(required = true)]
    pub problem: Option<String>,
}

/// A home's security now.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SecurityStatus {
    pub property_id: PropertyId,
    /// `builtin`, or `connector` (a security-system connector runs it).
    pub authority: String,
    /// The security system's integration when `authority` is `connector`.
    #[schema(value_type = Option<String>, required = true)]
    pub authority_integration_id: Option<String>,
    /// A hand-over to a security system waiting for the outputs to be
    /// restored (its integration id).
    #[schema(value_type = Option<String>, required = true)]
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
    #[schema(value_type = Option<String>, format = DateTime, required = true)]
    pub exit_until: Option<OffsetDateTime>,
    /// When the armed period's detection began (null: not armed).
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime, required = true)]
    pub armed_since: Option<OffsetDateTime>,
    /// The confirmed mode holds, but part of the runtime cannot be reached.
    pub degraded: bool,
    /// A hub-run home whose hub cannot be reached: the household keeps
    /// seeing the confirmed mode, but the runtime that protects it is away.
    pub runtime_unavailable: bool,
    /// The hub that runs the home's protection (null: the platform).
    #[schema(required = true)]
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
    #[schema(required = true)]
    pub incident: Option<IncidentView>,
    pub settings: SettingsView,
    /// What the caller may do: `see`, `control` or `configure`.
    pub access: String,
}

/// Armed, and a watched signal cannot be reached now (its thing is
/// unavailable or gone): the confirmed mode holds, protection is partial.
fn degraded(record: &SecurityRecord, inventory: &Inventory) -> bool {
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

fn readiness_of(
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

fn status(
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

/// A home's security status: modes, countdowns, readiness per mode with
/// what blocks it, every thing security uses, the open incident.
#[utoipa::path(
    get,
    path = "/v1/home-security/{propertyId}",
    tag = "security",
    operation_id = "getHomeSecurity",
    params(("propertyId" = PropertyId, Path, description = "The home"), TenantParam),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The status (the platform offers no emergency dispatch and shares no evidence)", body = SecurityStatus),
        (status = 400, description = "Missing or malformed tenantId or propertyId", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        (status = 403, description = "A key, a widget or a connector credential: no home-security access", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such home (or not the caller's)", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn get_security(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(property_id): ApiPath<PropertyId>,
    ApiQuery(query): ApiQuery<TenantParam>,
) -> Result<Json<SecurityStatus>, ApiError> {
    let (home, record, access) = security_for(
        &state,
        &caller,
        query.tenant_id,
        property_id,
        SecurityAccess::See,
    )
    .await?;
    let things = inventory(&state, &record, home.id).await?;
    // A hub-run home whose things changed: its hub is sent the new
    // configuration on the timers' next beat.
    if let Err(e) = hub::note_read(&state, &home, &record, &things).await {
        tracing::warn!(home = %home.id, error = %e.detail, "a hub's new configuration could not be noted");
    }
    Ok(Json(status(&record, &things, access)))
}

// ---------------------------------------------------------------------------
// The mode

/// A mode request.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModeBody {
    #[schema(value_type = String)]
    pub tenant_id: TenantId,
    pub mode: Mode,
    /// A UUID per request: a repeat with the same body answers the same;
    /// the same id with another body is refused.
    pub request_id: Uuid,
    /// The configuration revision the person reviewed (any value for Off).
    pub revision: u64,
    /// The generation the person read (Off with an older one is refused: it
    /// cannot end a newer armed period).
    pub generation: u64,
    /// Things whose signals this armed period leaves out.
    #[serde(default)]
    pub bypass: Vec<PinnedThing>,
}

/// The recovery message of a refusal.
fn refusal_problem(refusal: &Refusal, inventory: &Inventory, record: &SecurityRecord) -> ApiError {
    let advice = match refusal {
        Refusal::StaleRevision { .. } | Refusal::StaleGeneration { .. } => {
            "read the status again and send its revision and generation"
        }
        Refusal::RestorationPending => {
            "bring the outputs named back online (the platform tries again every few seconds) or remove them from the home, then arm again"
        }
        Refusal::NotReady { .. } => "close, fix or bypass the signals named, then arm again",
        Refusal::OtherAuthority | Refusal::Switching => {
            "use the security system that runs this home"
        }
        Refusal::Hub(why) if why.starts_with(CONFIG_REFUSED) => {
            "exclude things from security (or remove them) until the home is within the hub's limits, then arm again"
        }
        Refusal::Hub(_) => "bring the hub online and let it acknowledge its configuration",
        Refusal::NothingToWatch => "select detectors for this mode, or choose another mode",
        _ => "",
    };
    let mut detail = refusal.to_string();
    if let (Refusal::RestorationPending, Some(job)) = (refusal, &record.outputs) {
        let owed: Vec<String> = job
            .outputs
            .iter()
            .filter(|o| o.stage == Stage::Touched)
            .map(|o| match &o.error {
                Some(why) => format!("{} ({why})", o.name),
                None => o.name.clone(),
            })
            .collect();
        if !owed.is_empty() {
            detail = format!("{detail}: {}", owed.join(", "));
        }
    }
    if let Refusal::NotReady { blockers } = refusal {
        let names: Vec<String> = blockers
            .iter()
            .map(|b| {
                let name = inventory
                    .thing(b.signal.thing_id)
                    .map_or("a thing", |t| t.name.as_str());
                format!("{name} ({:?}: {:?})", b.signal.signal, b.why).to_lowercase()
            })
            .collect();
        detail = format!("signals are not ready: {}", names.join(", "));
    }
    ApiError::conflict_typed("security-refused", format!("{detail}; {advice}"))
}

/// Arms, changes or turns off a home's security.
#[utoipa::path(
    post,
    path = "/v1/home-security/{propertyId}/mode",
    tag = "security",
    operation_id = "setHomeSecurityMode",
    params(("propertyId" = PropertyId, Path, description = "The home")),
    request_body = ModeBody,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The status after the request (a repeat answers the same)", body = SecurityStatus),
        (status = 400, description = "A field is wrong (named)", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        (status = 403, description = "Not a member of the household, or a key, widget or connector credential", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such home (or not the caller's)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Refused with what to do (`security-refused`: stale revision or generation, signals not ready, restoration pending, another authority), or a request id used for another body (`request-id-reused`); nothing changed", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn request_mode(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(property_id): ApiPath<PropertyId>,
    ApiJson(body): ApiJson<ModeBody>,
) -> Result<Response, ApiError> {
    let (home, access) = access_for(
        &state,
        &caller,
        body.tenant_id,
        property_id,
        SecurityAccess::Control,
    )
    .await?;
    let mut bypass: Vec<PinnedThing> = body.bypass.clone();
    bypass.sort_by_key(|t| t.id);
    bypass.dedup();
    let canonical = serde_json::json!({
        "tenantId": body.tenant_id, "mode": body.mode, "revision": body.revision,
        "generation": body.generation, "bypass": bypass,
    });
    let fingerprint = sha256_hex(canonical.to_string());
    let repo = Security(&*state.store);
    let done = keeper(&state)
        .rewrite(&home, async |mut draft| {
            if let Some(stored) = repo.request(home.id, body.request_id).await? {
                return Ok::<_, ApiError>((draft, Decision::keep(stored)));
            }
            let Draft {
                read,
                next,
                effects,
                now,
            } = &mut draft;
            let things = inventory(&state, next, home.id).await?;
            // Written with the answer, refused or not.
            hub::note(next, &things, *now);
            let request = ModeRequest {
                mode: body.mode,
                revision: body.revision,
                generation: body.generation,
                bypass: things.signals_of(&bypass.iter().map(|t| t.id).collect()),
            };
            let checks = things.checks(&next.settings);
            let timing = next.settings.timing();
            // What this request answers, kept for its repeats. A refusal
            // changes nothing but that (and the countdowns time ended, if
            // any).
            let (status_code, answer) = match next.state.request(&request, &checks, timing, *now) {
                Ok(more) => {
                    effects.extend(more);
                    alyt_security::settle(next, effects, *now);
                    let shown = SecurityRecord {
                        rev: read.as_ref().map_or(0, |r| r.rev + 1),
                        ..next.clone()
                    };
                    let shown = status(&shown, &things, access);
                    (200u16, serde_json::to_value(shown).unwrap_or_default())
                }
                Err(refusal) => (409u16, refusal_problem(&refusal, &things, next).body_json()),
            };
            let record = ModeRequestRecord {
                request_id: body.request_id,
                property_id: home.id,
                fingerprint: fingerprint.clone(),
                status: status_code,
                answer,
                at: *now,
            };
            let kept = request_write(&record)?;
            Ok((draft, Decision::write(record).with(vec![kept])))
        })
        .await?;
    let answer = done.value;
    let hub_behind = done.record.hub.as_ref().is_some_and(|h| {
        h.protection
            .as_ref()
            .is_some_and(|p| p.generation != done.record.state.generation)
    });
    // The hub follows every mode change; a hub that missed one (it was
    // away) is told again, so the next request finds it current.
    if answer.status == 200 || hub_behind {
        hub::send_mode(&state, &home, &done.record).await;
    }
    if answer.fingerprint != fingerprint {
        return Err(ApiError::conflict_typed(
            "request-id-reused",
            "this requestId was used for another request; use a new UUID for a new request",
        ));
    }
    Ok(answer_response(answer.status, answer.answer))
}

fn answer_response(status: u16, answer: Value) -> Response {
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    if code.is_success() {
        (code, Json(answer)).into_response()
    } else {
        (
            code,
            [(axum::http::header::CONTENT_TYPE, "application/problem+json")],
            Json(answer),
        )
            .into_response()
    }
}

// ---------------------------------------------------------------------------
// Settings and selections

/// A change of settings: any of the fields.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SettingsPatch {
    #[schema(value_type = String)]
    pub tenant_id: TenantId,
    pub exit_delay_seconds: Option<u32>,
    pub entry_delay_seconds: Option<u32>,
    #[schema(value_type = Option<Vec<String>>)]
    pub sleeping_rooms: Option<BTreeSet<Uuid>>,
    #[schema(value_type = Option<Vec<String>>)]
    pub night_light_rooms: Option<BTreeSet<Uuid>>,
    #[schema(value_type = Option<Vec<String>>)]
    pub speaker_alarm_rooms: Option<BTreeSet<Uuid>>,
    /// The hub that runs the home's protection (a HUB device of this home;
    /// null: the platform's own engine).
    #[serde(default, deserialize_with = "crate::conventions::extract::present")]
    #[schema(value_type = Option<String>)]
    pub hub_device_id: Option<Option<Uuid>>,
    /// `voice` (default) or `dog`: the fixed recording the speaker alarm
    /// alternates with the siren.
    pub deterrent: Option<Deterrent>,
    /// The home's location for night lights (null: forget it).
    #[serde(default, deserialize_with = "crate::conventions::extract::present")]
    #[schema(value_type = Option<Location>)]
    pub location: Option<Option<Location>>,
}

/// Configuration changes only while Off with restoration complete.
fn configurable(record: &SecurityRecord) -> Result<(), ApiError> {
    if record.state.requested.is_armed() || record.state.period.is_some() {
        return Err(ApiError::conflict_typed(
            "security-refused",
            "the home is armed or arming; turn it off, then change its configuration",
        ));
    }
    if record.state.restoration_pending {
        return Err(ApiError::conflict_typed(
            "security-refused",
            "outputs changed by the last alarm are not restored yet; wait, then change the configuration",
        ));
    }
    Ok(())
}

/// Rewrites the home's security with `change` (after the checks), a new
/// revision to review.
async fn reconfigure(
    state: &AppState,
    home: &PropertyRecord,
    change: impl Fn(&mut SecurityRecord) -> Result<(), ApiError>,
) -> Result<SecurityRecord, ApiError> {
    let done = keeper(state)
        .rewrite(home, async |mut draft| {
            configurable(&draft.next)?;
            change(&mut draft.next)?;
            draft.next.state.reconfigured();
            Ok::<_, ApiError>((draft, Decision::write(())))
        })
        .await?;
    if done.record.settings.hub_device_id.is_none() && done.record.hub.is_none() {
        return Ok(done.record);
    }
    // A hub-run home's hub gets the new configuration now (or the timers
    // push it again).
    if let Err(e) = hub::sync(state, home).await {
        tracing::warn!(home = %home.id, error = %e.detail, "a hub configuration could not be sent");
    }
    Ok(Security(&*state.store)
        .get(home.tenant_id, home.id)
        .await?
        .unwrap_or(done.record))
}

/// Changes a home's security settings (owners; Off with restoration
/// complete).
#[utoipa::path(
    patch,
    path = "/v1/home-security/{propertyId}/settings",
    tag = "security",
    operation_id = "changeHomeSecuritySettings",
    params(("propertyId" = PropertyId, Path, description = "The home")),
    request_body = SettingsPatch,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The status with the new settings and revision", body = SecurityStatus),
        (status = 400, description = "A field is wrong (named): delays 0-300 s, rooms of this home", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        (status = 403, description = "Not an owner of the household (or a key, widget or connector credential)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such home (or not the caller's)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The home is armed or its outputs are not restored yet: what to do first", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn change_security_settings(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(property_id): ApiPath<PropertyId>,
    ApiJson(patch): ApiJson<SettingsPatch>,
) -> Result<Json<SecurityStatus>, ApiError> {
    let (home, _, access) = security_for(
        &state,
        &caller,
        patch.tenant_id,
        property_id,
        SecurityAccess::Configure,
    )
    .await?;
    for (field, value) in [
        ("exitDelaySeconds", patch.exit_delay_seconds),
        ("entryDelaySeconds", patch.entry_delay_seconds),
    ] {
        if value.is_some_and(|v| v > MAX_DELAY_SECONDS) {
            return Err(ApiError::validation(
                field,
                format!("0 to {MAX_DELAY_SECONDS} seconds"),
            ));
        }
    }
    if let Some(Some(hub)) = patch.hub_device_id {
        let device = alyt_store::repo::devices::Devices(&*state.store)
            .get(home.tenant_id, alyt_domain::ids::DeviceId(hub))
            .await?
            .filter(|d| d.property_id == Some(home.id) && d.deleted_at.is_none());
        let is_hub = device.is_some_and(|d| {
            d.parent_device_id.is_none()
                && d.known_capabilities()
                    .contains(&alyt_domain::device::DeviceCapability::Hub)
        });
        if !is_hub {
            return Err(ApiError::validation(
                "hubDeviceId",
                "a hub (a device with the HUB capability) of this home",
            ));
        }
    }
    if let Some(Some(place)) = patch.location
        && !place.is_valid()
    {
        return Err(ApiError::validation(
            "location",
            "latitude -90 to 90, longitude -180 to 180",
        ));
    }
    let rooms: BTreeSet<Uuid> = alyt_store::repo::tenancy::Tenancy(&*state.store)
        .rooms(home.id)
        .await?
        .iter()
        .map(|r| r.id.0)
        .collect();
    for (field, chosen) in [
        ("sleepingRooms", &patch.sleeping_rooms),
        ("nightLightRooms", &patch.night_light_rooms),
        ("speakerAlarmRooms", &patch.speaker_alarm_rooms),
    ] {
        if let Some(chosen) = chosen
            && let Some(stranger) = chosen.iter().find(|r| !rooms.contains(r))
        {
            return Err(ApiError::validation(
                field,
                format!("{stranger} is not a room of this home"),
            ));
        }
    }
    let written = reconfigure(&state, &home, |record| {
        let s = &mut record.settings;
        if let Some(v) = patch.exit_delay_seconds {
            s.exit_delay_seconds = v;
        }
        if let Some(v) = patch.entry_delay_seconds {
            s.entry_delay_seconds = v;
        }
        if let Some(v) = &patch.sleeping_rooms {
            s.sleeping_rooms = v.clone();
        }
        if let Some(v) = &patch.night_light_rooms {
            s.night_light_rooms = v.clone();
        }
        if let Some(v) = &patch.speaker_alarm_rooms {
            s.speaker_alarm_rooms = v.clone();
        }
        if let Some(v) = patch.location {
            s.location = v;
        }
        if let Some(v) = patch.hub_device_id {
            s.hub_device_id = v;
        }
        if let Some(v) = patch.deterrent {
            s.deterrent = v;
        }
        Ok(())
    })
    .await?;
    let things = inventory(&state, &written, home.id).await?;
    Ok(Json(status(&written, &things, access)))
}

/// A thing's selection.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SelectionBody {
    #[schema(value_type = String)]
    pub tenant_id: TenantId,
    /// `auto` follows the capabilities, `include` is the manual fallback,
    /// `exclude` leaves the thing out (and survives rediscovery).
    pub selection: Selection,
}

/// Chooses whether a thing takes part in security (owners; Off with
/// restoration complete).
#[utoipa::path(
    put,
    path = "/v1/home-security/{propertyId}/devices/{kind}/{thingId}",
    tag = "security",
    operation_id = "selectHomeSecurityThing",
    params(
        ("propertyId" = PropertyId, Path, description = "The home"),
        ("kind" = String, Path, description = "`device` or `endpoint`"),
        ("thingId" = String, Path, description = "The thing"),
    ),
    request_body = SelectionBody,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The status with the selection and a new revision", body = SecurityStatus),
        (status = 400, description = "A field is wrong (named)", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        (status = 403, description = "Not an owner of the household (or a key, widget or connector credential)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such home, or no such thing of use to security in it", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The home is armed or its outputs are not restored yet: what to do first", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn select_security_thing(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath((property_id, PathText(kind), PathText(thing))): ApiPath<(
        PropertyId,
        PathText,
        PathText,
    )>,
    ApiJson(body): ApiJson<SelectionBody>,
) -> Result<Json<SecurityStatus>, ApiError> {
    let thing_id: Uuid = thing
        .parse()
        .map_err(|_| ApiError::validation("thingId", "thingId must be a UUID"))?;
    let kind = match kind.as_str() {
        "device" => PinnedThingKind::Device,
        "endpoint" => PinnedThingKind::Endpoint,
        _ => return Err(ApiError::validation("kind", "device or endpoint")),
    };
    let (home, record, access) = security_for(
        &state,
        &caller,
        body.tenant_id,
        property_id,
        SecurityAccess::Configure,
    )
    .await?;
    let things = inventory(&state, &record, home.id).await?;
    if !things.thing(thing_id).is_some_and(|t| t.kind == kind) {
        return Err(ApiError::not_found(
            "no such thing of use to home security in this home",
        ));
    }
    let written = reconfigure(&state, &home, |record| {
        match body.selection {
            Selection::Auto => record.selections.remove(&thing_id),
            other => record.selections.insert(thing_id, other),
        };
        Ok(())
    })
    .await?;
    let things = inventory(&state, &written, home.id).await?;
    Ok(Json(status(&written, &things, access)))
}

// ---------------------------------------------------------------------------
// Incidents

/// A home's incidents, newest first.
#[utoipa::path(
    get,
    path = "/v1/home-security/{propertyId}/incidents",
    tag = "security",
    operation_id = "listHomeSecurityIncidents",
    params(("propertyId" = PropertyId, Path, description = "The home"), TenantPageQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "One page of incidents", body = ListResponse<IncidentView>),
        (status = 400, description = "Missing or malformed tenantId, limit or cursor", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        (status = 403, description = "A key, a widget or a connector credential", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such home (or not the caller's)", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn list_incidents(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(property_id): ApiPath<PropertyId>,
    ApiQuery(query): ApiQuery<TenantPageQuery>,
) -> Result<Json<ListResponse<IncidentView>>, ApiError> {
    let page = PageParams::new(query.limit, query.cursor);
    let limit = page.limit()?;
    let (home, _, _) = security_for(
        &state,
        &caller,
        query.tenant_id,
        property_id,
        SecurityAccess::See,
    )
    .await?;
    let scope = home_incidents(home.id);
    let (records, next) = Security(&*state.store)
        .incidents(home.id, limit, page.after_within(&scope)?)
        .await?;
    Ok(Json(ListResponse::page(
        records.iter().filter_map(IncidentView::of_record).collect(),
        next.as_ref(),
    )))
}

/// The body of an acknowledgement.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AcknowledgeBody {
    #[schema(value_type = String)]
    pub tenant_id: TenantId,
}

/// A resident acknowledges the latest incident (separate from Off; one
/// resident's, for good).
#[utoipa::path(
    post,
    path = "/v1/home-security/{propertyId}/incidents/{number}/acknowledge",
    tag = "security",
    operation_id = "acknowledgeHomeSecurityIncident",
    params(
        ("propertyId" = PropertyId, Path, description = "The home"),
        ("number" = u64, Path, description = "The incident's number"),
    ),
    request_body = AcknowledgeBody,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The incident, acknowledged", body = IncidentView),
        (status = 400, description = "A field is wrong (named)", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        (status = 403, description = "Not a member of the household (or a key, widget or connector credential)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such home, or not its latest incident", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Another resident acknowledged it", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn acknowledge_incident(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath((property_id, PathText(number))): ApiPath<(PropertyId, PathText)>,
    ApiJson(body): ApiJson<AcknowledgeBody>,
) -> Result<Json<IncidentView>, ApiError> {
    let number: u64 = number
        .parse()
        .map_err(|_| ApiError::validation("number", "an incident number"))?;
    let (home, _, _) = security_for(
        &state,
        &caller,
        body.tenant_id,
        property_id,
        SecurityAccess::Control,
    )
    .await?;
    let person = caller
        .user_id()
        .ok_or_else(|| ApiError::forbidden("a resident acknowledges, not a key"))?;

    let done = keeper(&state)
        .rewrite(&home, async |mut draft| {
            match draft.next.state.acknowledge(number, person.0) {
                Ok(()) => {}
                Err(Refusal::NoIncident) => {
                    return Err(ApiError::not_found(
                        "no such incident (only the latest is acknowledged)",
                    ));
                }
                Err(Refusal::AlreadyAcknowledged { .. }) => {
                    return Err(ApiError::conflict(
                        "another resident acknowledged this incident",
                    ));
                }
                Err(other) => return Err(ApiError::conflict(other.to_string())),
            }
            let incident = draft
                .next
                .state
                .incident
                .clone()
                .ok_or_else(|| ApiError::not_found("no such incident"))?;
            Ok((draft, Decision::write(incident)))
        })
        .await?;
    Ok(Json(IncidentView::from(&done.value)))
}
