//! A sandbox's simulation scripts and their runs: written, listed, read
//! and removed as its virtual devices are (the sandbox's ADMIN writes; a
//! key with `simulator:write` bound to it, or a session reaching it,
//! reads). A script is checked before it is stored
//! ([`alyt_simulator::script`]), each refusal naming its field under
//! `script.`. A run plays a stored script against chosen virtual devices
//! with a seed: the devices leave the simulator for the run, a player
//! ([`alyt_simulator::conductor`]) sends the run's traffic and answers its
//! commands, and the devices come back at its end.

use std::collections::BTreeMap;

use alyt_domain::access::Principal;
use alyt_domain::ids::{DeviceId, TenantId};
use alyt_simulator::Profile;
use alyt_simulator::script::{self, Script, Traffic};
use alyt_store::PageKey;
use alyt_store::repo::simulator::{
    MAX_ACTIVE_RUNS, MAX_SCRIPTS, RunRecord, RunStart, ScriptRecord, Simulators, run_status,
    tenant_virtual_devices,
};

use super::simulator::{may_read, may_write};
use crate::paging::Paging;
use crate::{App, Error};

/// A missing script and a tenant the caller does not reach answer alike,
/// so an answer never tells that a tenant exists.
fn no_such_script() -> Error {
    Error::not_found("no such tenant or script")
}

fn alike(e: Error) -> Error {
    match e.kind {
        crate::ErrorKind::NotFound => no_such_script(),
        _ => e,
    }
}

/// Checks and stores a script in the sandbox (its ADMIN only).
pub async fn create_script(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    script: serde_json::Value,
) -> Result<ScriptRecord, Error> {
    may_write(app, caller, tenant).await?;
    let parsed: Script = serde_json::from_value(script.clone())
        .map_err(|e| Error::validation("script", format!("not a script: {e}")))?;
    let checked = parsed
        .check()
        .map_err(|e| Error::validation(format!("script.{}", e.field), e.detail))?;
    // How many messages a run sends does not depend on its seed (only the
    // values do): one play tells.
    if script::traffic(&checked, 0).len() > script::MAX_RUN_MESSAGES {
        return Err(too_long());
    }
    let simulators = Simulators(&*app.store);
    let (held, _) = simulators
        .scripts_page(tenant, MAX_SCRIPTS as u32, None)
        .await?;
    if held.len() >= MAX_SCRIPTS {
        return Err(Error::conflict(format!(
            "a sandbox holds at most {MAX_SCRIPTS} scripts; delete one first"
        )));
    }
    let record = ScriptRecord {
        id: uuid::Uuid::now_v7(),
        tenant_id: tenant,
        name: parsed.name.trim().to_owned(),
        script,
        created_at: app.clock.now(),
    };
    simulators.create_script(&record).await?;
    Ok(record)
}

/// One page of the sandbox's scripts, oldest first.
pub async fn scripts_page(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    paging: &Paging,
) -> Result<(Vec<ScriptRecord>, Option<PageKey>), Error> {
    let limit = paging.limit()?;
    let after = paging.after_within(&tenant_virtual_devices(tenant))?;
    may_read(app, caller, tenant).await?;
    Ok(Simulators(&*app.store)
        .scripts_page(tenant, limit, after)
        .await?)
}

/// One script of the sandbox.
pub async fn script(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    id: &str,
) -> Result<ScriptRecord, Error> {
    may_read(app, caller, tenant).await.map_err(alike)?;
    let id: uuid::Uuid = id.parse().map_err(|_| no_such_script())?;
    Simulators(&*app.store)
        .script(tenant, id)
        .await?
        .ok_or_else(no_such_script)
}

/// Removes a script (the sandbox's ADMIN only).
pub async fn delete_script(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    id: &str,
) -> Result<(), Error> {
    may_write(app, caller, tenant).await.map_err(alike)?;
    let id: uuid::Uuid = id.parse().map_err(|_| no_such_script())?;
    if !Simulators(&*app.store).delete_script(tenant, id).await? {
        return Err(no_such_script());
    }
    Ok(())
}

/// The largest seed: JSON readers keep integers exact up to 2^53 - 1.
pub const MAX_SEED: u64 = (1 << 53) - 1;

/// What starting a run asks for.
#[derive(Debug, Clone)]
pub struct RunRequest {
    pub script_id: String,
    /// Each role of the script and the virtual device that plays it.
    pub devices: BTreeMap<String, String>,
    /// `None`: a random seed (the answer names it, so the run can be
    /// repeated).
    pub seed: Option<u64>,
}

fn too_long() -> Error {
    Error::validation(
        "script",
        format!(
            "a run of this script would send more than {} messages; shorten durationMs or its BURST scenarios",
            script::MAX_RUN_MESSAGES
        ),
    )
}

fn no_such_run() -> Error {
    Error::not_found("no such tenant or run")
}

/// Starts a run of a stored script (the sandbox's ADMIN only): every role
/// given a virtual device of its profile that is neither detached nor in
/// another run, each refusal naming its field (`devices.lamp`). At most
/// [`MAX_ACTIVE_RUNS`] runs of a sandbox go at once. The run is PENDING
/// until a player takes it (at once locally, within a poll hosted).
pub async fn start_run(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    request: RunRequest,
) -> Result<RunRecord, Error> {
    if request.seed.is_some_and(|s| s > MAX_SEED) {
        return Err(Error::validation(
            "seed",
            format!("0 to {MAX_SEED} (exact in every JSON reader)"),
        ));
    }
    let developer = may_write(app, caller, tenant).await?;
    let simulators = Simulators(&*app.store);
    let stored = match request.script_id.parse::<uuid::Uuid>() {
        Ok(id) => simulators.script(tenant, id).await?,
        Err(_) => None,
    }
    .ok_or_else(|| Error::validation("scriptId", "no such script in this sandbox"))?;
    let parsed: Script = serde_json::from_value(stored.script.clone())
        .map_err(|e| Error::conflict(format!("the stored script no longer reads: {e}")))?;
    let checked = parsed
        .check()
        .map_err(|e| Error::conflict(format!("the stored script no longer checks: {e}")))?;
    let devices = chosen_devices(app, tenant, &parsed, &request.devices).await?;
    let active = simulators
        .active_runs()
        .await?
        .into_iter()
        .filter(|r| r.tenant_id == tenant)
        .count();
    if active >= MAX_ACTIVE_RUNS {
        return Err(Error::conflict(format!(
            "a sandbox plays at most {MAX_ACTIVE_RUNS} runs at once; stop one first"
        )));
    }
    let seed = request
        .seed
        .unwrap_or_else(|| rand::random::<u64>() & MAX_SEED);
    let traffic = script::traffic(&checked, seed);
    if traffic.len() > script::MAX_RUN_MESSAGES {
        return Err(too_long().with_field("scriptId"));
    }
    let total = traffic
        .iter()
        .filter(|e| matches!(e.traffic, Traffic::Publish { .. }))
        .count() as u64;
    // The run's messages count against the sandbox's MQTT_MESSAGES like the
    // simulator's, and ingest drops what is past the ceiling: a run that
    // cannot be stored whole is refused rather than played in part.
    let messages = super::quota::usage_of(app, developer)
        .await?
        .quotas
        .mqtt_messages;
    if messages.count + total > messages.ceiling {
        let retry_after = messages.resets_at.map_or(60, |at| {
            (at - app.clock.now()).whole_seconds().max(1) as u64
        });
        return Err(Error::quota_exceeded(
            "MQTT_MESSAGES",
            retry_after,
            format!(
                "the run sends {total} messages and the sandbox has {} of its MQTT_MESSAGES left this window",
                messages.ceiling.saturating_sub(messages.count)
            ),
        ));
    }
    let run = RunRecord {
        id: uuid::Uuid::now_v7(),
        tenant_id: tenant,
        script_id: stored.id,
        script_name: stored.name,
        script: stored.script,
        seed: seed.to_string(),
        devices,
        status: run_status::PENDING.to_owned(),
        total,
        played: 0,
        traffic_sha256: script::digest(&traffic),
        duration_ms: checked.duration_ms(),
        reason: None,
        player: None,
        created_at: app.clock.now(),
        started_at: None,
        ended_at: None,
    };
    match simulators.start_run(&run).await {
        Ok(()) => {}
        Err(RunStart::DeviceTaken) => {
            return Err(Error::conflict(
                "a device of the run was deleted, detached or given to another run meanwhile",
            ));
        }
        Err(RunStart::Store(e)) => return Err(e.into()),
    }
    tracing::info!(run = %run.id, %tenant, script = %run.script_id, seed, "script run created");
    if let Err(e) = app.simulator.runs_changed().await {
        tracing::warn!(run = %run.id, error = %e, "the simulator runner was not told; it finds the run in the store");
    }
    Ok(run)
}

/// The devices a run asks for, checked against the script's roles: each
/// refusal names `devices.{role}`.
async fn chosen_devices(
    app: &App,
    tenant: TenantId,
    script: &Script,
    given: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, DeviceId>, Error> {
    if let Some(extra) = given
        .keys()
        .find(|k| !script.roles.iter().any(|r| &r.name == *k))
    {
        return Err(Error::validation(
            format!("devices.{extra}"),
            "the script has no role of that name",
        ));
    }
    let simulators = Simulators(&*app.store);
    let mut chosen: BTreeMap<String, DeviceId> = BTreeMap::new();
    for role in &script.roles {
        let field = format!("devices.{}", role.name);
        let id: DeviceId = given
            .get(&role.name)
            .ok_or_else(|| Error::validation(&field, "no virtual device given for this role"))?
            .parse()
            .map_err(|_| Error::validation(&field, "not a device id"))?;
        if let Some((other, _)) = chosen.iter().find(|(_, d)| **d == id) {
            return Err(Error::validation(
                &field,
                format!("the device plays role {other} already"),
            ));
        }
        let record = simulators
            .get(tenant, id)
            .await?
            .ok_or_else(|| Error::validation(&field, "not a virtual device of this sandbox"))?;
        let wanted: Profile = role.profile.parse().map_err(|_| {
            Error::conflict("the stored script names an unknown profile").with_field(&field)
        })?;
        if record.profile != wanted.as_str() {
            return Err(Error::validation(
                &field,
                format!(
                    "a {wanted} role needs a {wanted} virtual device; this one is a {}",
                    record.profile
                ),
            ));
        }
        if record.detached_at.is_some() {
            return Err(Error::conflict(
                "the virtual device is detached from the simulator; attach it first",
            )
            .with_field(&field));
        }
        if let Some(run) = record.run_id {
            return Err(super::simulator::in_run(run).with_field(&field));
        }
        chosen.insert(role.name.clone(), id);
    }
    Ok(chosen)
}

/// One page of the sandbox's runs, oldest first.
pub async fn runs_page(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    paging: &Paging,
) -> Result<(Vec<RunRecord>, Option<PageKey>), Error> {
    let limit = paging.limit()?;
    let after = paging.after_within(&tenant_virtual_devices(tenant))?;
    may_read(app, caller, tenant).await?;
    Ok(Simulators(&*app.store)
        .runs_page(tenant, limit, after)
        .await?)
}

/// One run of the sandbox, with its progress.
pub async fn run(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    id: &str,
) -> Result<RunRecord, Error> {
    may_read(app, caller, tenant).await.map_err(alike_run)?;
    let id: uuid::Uuid = id.parse().map_err(|_| no_such_run())?;
    Simulators(&*app.store)
        .run(tenant, id)
        .await?
        .ok_or_else(no_such_run)
}

/// Stops a run that has not ended (the sandbox's ADMIN only): it ends
/// STOPPED at once, its player disconnects its clients cleanly and the
/// devices go back to the simulator. Stopping an ended run is a conflict.
pub async fn stop_run(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    id: &str,
) -> Result<RunRecord, Error> {
    may_write(app, caller, tenant).await.map_err(alike_run)?;
    let id: uuid::Uuid = id.parse().map_err(|_| no_such_run())?;
    let simulators = Simulators(&*app.store);
    let current = simulators.run(tenant, id).await?.ok_or_else(no_such_run)?;
    if current.is_ended() {
        return Err(Error::conflict(format!(
            "the run has ended already ({})",
            current.status
        )));
    }
    let ended = simulators
        .end_run(
            tenant,
            id,
            run_status::STOPPED,
            Some("stopped by its developer"),
            None,
            app.clock.now(),
        )
        .await?
        .ok_or_else(|| Error::conflict("the run ended meanwhile"))?;
    if let Err(e) = app.simulator.runs_changed().await {
        tracing::warn!(run = %id, error = %e, "the simulator runner was not told; it stops the run when it reads the store");
    }
    Ok(ended)
}

fn alike_run(e: Error) -> Error {
    match e.kind {
        crate::ErrorKind::NotFound => no_such_run(),
        _ => e,
    }
}
