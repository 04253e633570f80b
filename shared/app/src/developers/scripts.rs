//! A sandbox's simulation scripts (issue 45, the stored part): written,
//! listed, read and removed as its virtual devices are (the sandbox's ADMIN
//! writes; a key with `simulator:write` bound to it, or a session reaching
//! it, reads). A script is checked before it is stored
//! ([`alyt_simulator::script`]), each refusal naming its field under
//! `script.`. Running one is not built yet.

use alyt_domain::access::Principal;
use alyt_domain::ids::TenantId;
use alyt_simulator::script::Script;
use alyt_store::PageKey;
use alyt_store::repo::simulator::{MAX_SCRIPTS, ScriptRecord, Simulators, tenant_virtual_devices};

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
    parsed
        .check()
        .map_err(|e| Error::validation(format!("script.{}", e.field), e.detail))?;
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
