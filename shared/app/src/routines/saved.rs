//! A home's saved routines: reading, creating, changing and deleting them
//! (reading needs sight of the home, the others configure it). Every
//! step's target is checked against the home (a thing step's thing is in it
//! and its command passes the thing's own descriptors; a room step's room
//! is one of its rooms; a music step's speaker is a SPEAKER endpoint placed
//! in one of its rooms), naming the field (`do[2].speakerId`). A routine
//! with a security step is saved only by someone who controls the home's
//! security, and each run checks that again.

use std::collections::BTreeSet;

use alyt_domain::access::{HomeAccess, Principal};
use alyt_domain::device::CommandRequest;
use alyt_domain::ids::{DeviceId, EndpointId, PropertyId, RoomId, RoutineId, TenantId};
use alyt_domain::room::PinnedThingKind;
use alyt_domain::routine::{
    RoutineBody, Step, Trigger, home_timezone, next_occurrence, parse_routine,
};
use alyt_store::PageKey;
use alyt_store::repo::devices::Devices;
use alyt_store::repo::integrations::Integrations;
use alyt_store::repo::rooms::Rooms;
use alyt_store::repo::routines::{RoutineError, RoutineRecord, Routines, home_routines};
use alyt_store::repo::tenancy::{PropertyRecord, Tenancy};
use serde_json::Value;
use time::OffsetDateTime;

use crate::access::{access_to, home_for, tenant_gate};
use crate::endpoints::accept_for_endpoint;
use crate::music::{check_uri, speaker_in_home};
use crate::paging::Paging;
use crate::{App, Error};

fn no_such_routine() -> Error {
    Error::not_found("no such routine")
}

/// A routine write the store refused: it changed (or, for a new one, its
/// id was taken) since it was read.
fn write_refused(e: RoutineError) -> Error {
    match e {
        RoutineError::Store(e) => Error::from(e),
        RoutineError::Changed | RoutineError::AlreadyRun => {
            Error::conflict("the routine changed meanwhile; read it again")
        }
    }
}

fn invalid(p: alyt_domain::routine::RoutineProblem) -> Error {
    Error::validation(p.field.clone(), p.detail)
}

/// The routine `id` of `tenant` with its home, when the caller has `needed`
/// there (403 for a key without the scope or less access; 404 otherwise).
pub async fn routine_for(
    app: &App,
    caller: &alyt_domain::access::Principal,
    tenant: TenantId,
    id: RoutineId,
    needed: HomeAccess,
) -> Result<(RoutineRecord, PropertyRecord), Error> {
    caller.require_scope(needed.scope())?;
    tenant_gate(caller, tenant, no_such_routine)?;
    let routine = Routines(&*app.store)
        .get(tenant, id)
        .await?
        .ok_or_else(no_such_routine)?;
    let home = Tenancy(&*app.store)
        .property(tenant, routine.property_id)
        .await?
        .ok_or_else(no_such_routine)?;
    match access_to(caller, &home) {
        None => Err(no_such_routine()),
        Some(access) if access < needed => Err(Error::forbidden(
            "routines are changed by those who configure the home",
        )),
        Some(_) => Ok((routine, home)),
    }
}

/// A security step changes the home's mode, so only someone who may change
/// it saves one (a key, a widget or a nested routine
/// gains no security authority): 403 otherwise. Each run checks again.
async fn check_security_steps(
    app: &App,
    caller: &alyt_domain::access::Principal,
    home: &PropertyRecord,
    body: &RoutineBody,
) -> Result<(), Error> {
    if !body
        .steps
        .iter()
        .any(|s| matches!(s, Step::Security { .. }))
    {
        return Ok(());
    }
    let access = crate::access::security_access(app, caller, home).await?;
    if access < alyt_domain::access::SecurityAccess::Control {
        return Err(Error::forbidden(
            "a routine with a security step is saved only by someone who controls the home's security",
        ));
    }
    Ok(())
}

/// Every step's target is in `home`, and a thing's command passes its own
/// descriptors.
async fn check_targets(app: &App, home: &PropertyRecord, body: &RoutineBody) -> Result<(), Error> {
    let store = &*app.store;
    for (i, step) in body.steps.iter().enumerate() {
        let at = format!("do[{i}]");
        match step {
            Step::Thing { thing, command } => {
                let request = CommandRequest::parse(command).map_err(|e| {
                    Error::validation(format!("{at}.command.{}", e.field), e.to_string())
                })?;
                let missing =
                    || Error::validation(format!("{at}.thing"), "no such thing in this home");
                let checked = match thing.kind {
                    PinnedThingKind::Device => {
                        let device = Devices(store)
                            .get(home.tenant_id, DeviceId(thing.id))
                            .await?
                            .filter(|d| d.property_id == Some(home.id) && d.deleted_at.is_none())
                            .ok_or_else(missing)?;
                        request
                            .validate_for_device(
                                device.known_capabilities(),
                                Some(&device.features),
                            )
                            .map(|_| ())
                    }
                    PinnedThingKind::Endpoint => {
                        let endpoint = Integrations(store)
                            .endpoint(home.tenant_id, EndpointId(thing.id))
                            .await?
                            .filter(|e| e.property_id == home.id)
                            .ok_or_else(missing)?;
                        accept_for_endpoint(&endpoint, request).map(|_| ())
                    }
                };
                checked.map_err(|e| {
                    Error::validation(format!("{at}.command.{}", e.field), e.to_string())
                })?;
            }
            Step::Room { room_id, .. } => {
                if Rooms(store).get(home.id, RoomId(*room_id)).await?.is_none() {
                    return Err(Error::validation(
                        format!("{at}.roomId"),
                        "no such room in this home",
                    ));
                }
            }
            Step::Music(music) => {
                let speaker = speaker_in_home(app, home, music.speaker_id)
                    .await
                    .map_err(|r| r.at(format!("{at}.speakerId")))?;
                check_uri(app, home, &speaker, &music.uri)
                    .await
                    .map_err(|r| r.at(format!("{at}.uri")))?;
            }
            Step::Delay { .. } | Step::Security { .. } => {}
        }
    }
    Ok(())
}

/// When the routine is next due: its earliest time trigger's next
/// occurrence in the home's timezone, while enabled.
fn next_due(
    body: &RoutineBody,
    home: &PropertyRecord,
    now: OffsetDateTime,
) -> Option<OffsetDateTime> {
    if !body.enabled {
        return None;
    }
    let tz = home_timezone(&home.timezone);
    body.triggers
        .iter()
        .filter_map(|t| match t {
            Trigger::Time { at, days } => next_occurrence(*at, days, &tz, now).map(|o| o.at),
            Trigger::Manual => None,
        })
        .min()
}

/// One page of the routines of home `property` (oldest first), when the
/// caller sees it.
pub async fn page(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    property: PropertyId,
    paging: &Paging,
) -> Result<(Vec<RoutineRecord>, Option<PageKey>), Error> {
    let limit = paging.limit()?;
    let home = home_for(app, caller, tenant, property, HomeAccess::See).await?;
    let after = paging.after_within(&home_routines(home.id))?;
    Ok(Routines(&*app.store).of_home(home.id, limit, after).await?)
}

/// Routine `id`, when the caller sees its home.
pub async fn get(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    id: RoutineId,
) -> Result<RoutineRecord, Error> {
    Ok(routine_for(app, caller, tenant, id, HomeAccess::See)
        .await?
        .0)
}

/// Creates a routine in a home (those who configure it): `body` checked
/// whole, its targets in the home.
pub async fn create(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    property: PropertyId,
    body: &Value,
) -> Result<RoutineRecord, Error> {
    let home = home_for(app, caller, tenant, property, HomeAccess::Configure).await?;
    let body = parse_routine(body).map_err(invalid)?;
    check_security_steps(app, caller, &home, &body).await?;
    check_targets(app, &home, &body).await?;
    let now = app.clock.now();
    let record = RoutineRecord {
        id: RoutineId::new(),
        tenant_id: home.tenant_id,
        client_id: home.client_id,
        property_id: home.id,
        next_due: next_due(&body, &home, now),
        body,
        created_by: caller.user_id(),
        saved_by: caller.user_id(),
        created_at: now,
        updated_at: now,
        rev: 0,
    };
    Routines(&*app.store)
        .create(&record)
        .await
        .map_err(write_refused)?;
    Ok(record)
}

/// Changes any of a routine's name, enabled, triggers and do; the result
/// is checked whole, as on create.
pub async fn change(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    id: RoutineId,
    patch: Value,
) -> Result<RoutineRecord, Error> {
    let (read, home) = routine_for(app, caller, tenant, id, HomeAccess::Configure).await?;
    let Value::Object(patch) = patch else {
        return Err(Error::validation(
            "body",
            "an object of the fields to change",
        ));
    };
    let fields: BTreeSet<&str> = ["name", "enabled", "triggers", "do"].into();
    let mut merged = serde_json::to_value(&read.body).map_err(Error::internal)?;
    for (key, value) in patch {
        if !fields.contains(key.as_str()) {
            return Err(Error::validation(
                key.clone(),
                "not a field of a routine (name, enabled, triggers, do)",
            ));
        }
        merged[key.as_str()] = value;
    }
    let body = parse_routine(&merged).map_err(invalid)?;
    check_security_steps(app, caller, &home, &body).await?;
    check_targets(app, &home, &body).await?;
    let now = app.clock.now();
    let next = RoutineRecord {
        next_due: next_due(&body, &home, now),
        body,
        saved_by: caller.user_id(),
        updated_at: now,
        ..read.clone()
    };
    Routines(&*app.store)
        .change(&read, &next)
        .await
        .map_err(write_refused)
}

/// Deletes a routine (those who configure its home).
pub async fn delete(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    id: RoutineId,
) -> Result<(), Error> {
    let (read, _) = routine_for(app, caller, tenant, id, HomeAccess::Configure).await?;
    Routines(&*app.store)
        .delete(&read)
        .await
        .map_err(write_refused)
}
