//! A routine's runs as the household reads them, newest first, each with
//! its steps' outcomes. Reading needs sight of the routine's home
//! (`things:read` for keys).

use alyt_domain::access::{HomeAccess, Principal};
use alyt_domain::ids::{RoutineId, TenantId};
use alyt_store::PageKey;
use alyt_store::repo::routines::{Routines, RunRecord, routine_runs};

use super::saved::routine_for;
use crate::paging::Paging;
use crate::{App, Error};

/// One page of the runs of routine `id` (newest first), when the caller
/// sees its home.
pub async fn runs_page(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    id: RoutineId,
    paging: &Paging,
) -> Result<(Vec<RunRecord>, Option<PageKey>), Error> {
    let limit = paging.limit()?;
    let (routine, _) = routine_for(app, caller, tenant, id, HomeAccess::See).await?;
    let after = paging.after_within(&routine_runs(routine.id))?;
    Ok(Routines(&*app.store).runs(routine.id, limit, after).await?)
}
