//! Arming, changing and turning off a home's security: one use case for a
//! person's request and for a routine's step, so a routine is refused
//! exactly as its person would be.

use alyt_domain::access::{Principal, SecurityAccess};
use alyt_domain::ids::{PropertyId, RoutineId, TenantId, UserId};
use alyt_domain::room::PinnedThing;
use alyt_domain::security::Mode;
use alyt_domain::security::hub::CONFIG_REFUSED;
use alyt_domain::security::machine::{ModeRequest, Refusal};
use alyt_domain::security::outputs::Stage;
use alyt_security::{Decision, Draft};
use alyt_store::repo::security::{ModeRequestRecord, Security, SecurityRecord, request_write};
use alyt_store::repo::tenancy::PropertyRecord;
use serde_json::Value;
use uuid::Uuid;

pub use super::access::{access_for, security_for};
use super::inventory::{Inventory, inventory};
use super::status::{SecurityStatus, status};
use super::{hub, keeper};
use crate::grants::{NoPerson, routine_principal};
use crate::{App, Error, ErrorKind};

/// What a mode request asks.
#[derive(Debug, Clone)]
pub struct ModeOrder {
    pub mode: Mode,
    /// The configuration revision and the generation the request is based
    /// on (a stale one is refused); `None`: the home as it stands, which is
    /// what a routine acts on.
    pub seen: Option<(u64, u64)>,
    /// Things whose signals this armed period leaves out.
    pub bypass: Vec<PinnedThing>,
}

/// A request that is answered the same when repeated: its id, the
/// fingerprint of its body, and the answer as the caller's protocol renders
/// it (kept with the change, in the same transaction).
pub struct Repeatable {
    pub request_id: Uuid,
    pub fingerprint: String,
    pub render: fn(&Result<SecurityStatus, Error>) -> (u16, Value),
}

/// What a mode request came to.
enum Decided {
    /// Decided now, with nothing kept.
    Now(Result<Box<SecurityStatus>, Error>),
    /// The kept answer: decided now, or by the first of its repeats.
    Kept(ModeRequestRecord),
}

/// A person's mode request: the kept answer (the first one's, for a
/// repeat; compare its fingerprint). The hub follows every mode change.
pub async fn request_mode(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    property: PropertyId,
    order: &ModeOrder,
    request: &Repeatable,
) -> Result<ModeRequestRecord, Error> {
    match decide(app, caller, tenant, property, order, Some(request)).await? {
        Decided::Kept(record) => Ok(record),
        Decided::Now(_) => Err(Error::internal("a repeatable request kept no answer")),
    }
}

/// A routine's security step: `mode` for `home`, on its current revision
/// and generation. `people` are who the run acts for (who ran it, or for a
/// schedule who saved it) and who saved the routine; both must control the
/// home's security now, checked as their requests would be (a key or a
/// widget has no security access, and running someone else's routine
/// lends no authority). Err: why it did not apply.
pub async fn routine_mode(
    app: &App,
    routine: RoutineId,
    home: &PropertyRecord,
    people: (Option<UserId>, Option<UserId>),
    mode: Mode,
) -> Result<(), String> {
    let (actor, saved_by) = people;
    let Some(actor) = actor else {
        return Err("a routine run by a key or a widget cannot change home security".into());
    };
    let acting = controlling(app, routine, home, actor, "the person the routine acts for").await?;
    let Some(saved_by) = saved_by else {
        return Err("a routine saved by a key cannot change home security".into());
    };
    if saved_by != actor {
        controlling(
            app,
            routine,
            home,
            saved_by,
            "the person who saved the routine",
        )
        .await?;
    }
    let order = ModeOrder {
        mode,
        seen: None,
        bypass: Vec::new(),
    };
    match decide(app, &acting, home.tenant_id, home.id, &order, None).await {
        Ok(Decided::Now(outcome)) => outcome.map(drop).map_err(|e| e.detail),
        Ok(Decided::Kept(_)) => Ok(()),
        Err(e) => Err(e.detail),
    }
}

/// `routine` acting for `person`, when that person controls `home`'s
/// security now. Err: why not, after `who`.
async fn controlling(
    app: &App,
    routine: RoutineId,
    home: &PropertyRecord,
    person: UserId,
    who: &str,
) -> Result<Principal, String> {
    let principal = routine_principal(app, routine, person)
        .await
        .map_err(|e| match e {
            NoPerson::Gone => format!("{who} no longer exists"),
            NoPerson::Unreadable(why) => why,
        })?;
    match access_for(
        app,
        &principal,
        home.tenant_id,
        home.id,
        SecurityAccess::Control,
    )
    .await
    {
        Ok(_) => Ok(principal),
        Err(e) if matches!(e.kind, ErrorKind::NotFound | ErrorKind::Forbidden) => {
            Err(format!("{who} does not control this home's security"))
        }
        Err(e) => Err(e.detail),
    }
}

async fn decide(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    property: PropertyId,
    order: &ModeOrder,
    request: Option<&Repeatable>,
) -> Result<Decided, Error> {
    let (home, access) = access_for(app, caller, tenant, property, SecurityAccess::Control).await?;
    let repo = Security(&*app.store);
    let done = keeper(app)
        .rewrite(&home, async |mut draft| {
            if let Some(request) = request
                && let Some(stored) = repo.request(home.id, request.request_id).await?
            {
                return Ok::<_, Error>((draft, Decision::keep(Decided::Kept(stored))));
            }
            let Draft {
                read,
                next,
                effects,
                now,
            } = &mut draft;
            let things = inventory(app, next, home.id).await?;
            // A changed configuration goes to the hub even when this is
            // refused for it (the refusal writes the record for it).
            let noted = hub::note(next, &things, *now);
            let (revision, generation) = order
                .seen
                .unwrap_or((next.state.revision, next.state.generation));
            let mode_request = ModeRequest {
                mode: order.mode,
                revision,
                generation,
                bypass: things.signals_of(&order.bypass.iter().map(|t| t.id).collect()),
            };
            let checks = things.checks(&next.settings);
            let timing = next.settings.timing();
            // A refusal changes nothing but the countdowns time ended, if
            // any (and the answer kept for the request's repeats).
            let outcome = match next.state.request(&mode_request, &checks, timing, *now) {
                Ok(more) => {
                    effects.extend(more);
                    alyt_security::settle(next, effects, *now);
                    let shown = SecurityRecord {
                        rev: read.as_ref().map_or(0, |r| r.rev + 1),
                        ..next.clone()
                    };
                    Ok(status(&shown, &things, access))
                }
                Err(refusal) => Err(refusal_problem(&refusal, &things, next)),
            };
            let Some(request) = request else {
                return Ok((
                    draft,
                    Decision::write_if(noted, Decided::Now(outcome.map(Box::new))),
                ));
            };
            let (status, answer) = (request.render)(&outcome);
            let record = ModeRequestRecord {
                request_id: request.request_id,
                property_id: home.id,
                fingerprint: request.fingerprint.clone(),
                status,
                answer,
                at: *now,
            };
            let kept = request_write(&record)?;
            Ok((
                draft,
                Decision::write(Decided::Kept(record)).with(vec![kept]),
            ))
        })
        .await?;
    let applied = match &done.value {
        Decided::Now(outcome) => outcome.is_ok(),
        Decided::Kept(record) => record.status == 200,
    };
    let hub_behind = done.record.hub.as_ref().is_some_and(|h| {
        h.protection
            .as_ref()
            .is_some_and(|p| p.generation != done.record.state.generation)
    });
    // The hub follows every mode change; a hub that missed one (it was
    // away) is told again, so the next request finds it current.
    if applied || hub_behind {
        hub::send_mode(app, &home, &done.record).await;
    }
    Ok(done.value)
}

/// The recovery message of a refusal.
pub fn refusal_problem(refusal: &Refusal, inventory: &Inventory, record: &SecurityRecord) -> Error {
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
    Error::conflict_typed("security-refused", format!("{detail}; {advice}"))
}
