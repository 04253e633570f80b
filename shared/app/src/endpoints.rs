//! Endpoints: things reached through a connector. Reading one, re-reading
//! it from its connector, commanding it and changing how the household uses
//! it, and the connector calls other use cases share (a room action, a
//! routine step, an alarm's outputs, presence).
//!
//! Every state change is stored with its `thing.state` event in one
//! transaction, conditioned on the endpoint's revision (a concurrent change
//! is re-read and the read-back applied on top).

use std::collections::BTreeMap;

use alyt_connectors::{CommandAnswer, CommandCall, ConnectorError, ConnectorServer, ReadCall};
use alyt_domain::access::{Denied, HomeAccess, Principal};
use alyt_domain::device::{AcceptedCommand, CommandError, CommandRequest};
use alyt_domain::ids::{EndpointId, IntegrationId, PropertyId, RoomId, TenantId};
use alyt_domain::integration::{Presentation, PresentedAs, endpoint_descriptors, presentable};
use alyt_events::PlatformEvent;
use alyt_store::TxWrite;
use alyt_store::repo::integrations::{
    ConnectorRecord, EndpointRecord, IntegrationRecord, Integrations, PlacedBy, endpoint_write,
};
use alyt_store::repo::rooms::Rooms;
use serde_json::{Map, Value};
use time::OffsetDateTime;

use crate::access::{home_for, siren_command, tenant_gate};
use crate::{App, Error, ErrorKind};

pub fn no_such_endpoint() -> Error {
    Error::not_found("no such endpoint")
}

/// Endpoint `id` of `tenant` when the caller has `needed` in its home (403
/// for a missing scope or a weaker role; 404 for a missing or foreign one).
/// Two gets. A LIVE key reaches the endpoints of its own connector's
/// integrations to read, refresh and command them (two gets: the endpoint
/// and its integration); it never configures one (403), and any other
/// endpoint answers as missing.
pub async fn endpoint_for(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    id: EndpointId,
    needed: HomeAccess,
) -> Result<EndpointRecord, Error> {
    caller.require_scope(needed.scope())?;
    if let Some(connector) = caller.acts_for_connector(tenant) {
        if needed == HomeAccess::Configure {
            return Err(Denied::ConnectorOnly.into());
        }
        let repo = Integrations(&*app.store);
        let endpoint = repo
            .endpoint(tenant, id)
            .await?
            .ok_or_else(no_such_endpoint)?;
        let integration = repo.get(tenant, endpoint.integration_id).await?;
        return match integration {
            Some(i) if i.connector_id == connector => Ok(endpoint),
            _ => Err(no_such_endpoint()),
        };
    }
    tenant_gate(caller, tenant, no_such_endpoint)?;
    let endpoint = Integrations(&*app.store)
        .endpoint(tenant, id)
        .await?
        .ok_or_else(no_such_endpoint)?;
    match home_for(app, caller, tenant, endpoint.property_id, needed).await {
        Ok(_) => Ok(endpoint),
        Err(e) if e.kind == ErrorKind::NotFound => Err(no_such_endpoint()),
        Err(e) => Err(e),
    }
}

// ---------------------------------------------------------------------------
// Talking to the connector

/// An installed connector, ready to call.
#[derive(Clone)]
pub struct Installed {
    pub integration: IntegrationRecord,
    pub connector: ConnectorRecord,
}

impl Installed {
    pub fn server(&self, app: &App) -> ConnectorServer {
        ConnectorServer {
            base_url: self.connector.server_url.clone(),
            runtime_token: self.connector.runtime_token.clone(),
            policy: app.events.outbound,
        }
    }
}

/// The integration of an endpoint and its connector. Two gets.
pub async fn installed(
    app: &App,
    tenant: TenantId,
    integration: IntegrationId,
) -> Result<Installed, Error> {
    let repo = Integrations(&*app.store);
    let integration = repo
        .get(tenant, integration)
        .await?
        .ok_or_else(|| Error::conflict("the endpoint's integration was removed"))?;
    let connector = repo
        .connector(integration.connector_id)
        .await?
        .ok_or_else(|| Error::conflict("the integration's connector no longer exists"))?;
    Ok(Installed {
        integration,
        connector,
    })
}

/// What a person reads when a connector did not answer (never its URL or
/// token).
pub fn connector_problem(connector: &ConnectorRecord, e: &ConnectorError) -> String {
    let why = match e {
        ConnectorError::Refused(_) => "its address is not allowed from this platform".to_owned(),
        ConnectorError::Unreachable(reason) => reason.clone(),
        ConnectorError::Status(401 | 403) => "it refused the platform's credentials".to_owned(),
        ConnectorError::Status(code) => format!("it answered HTTP {code}"),
        ConnectorError::InvalidAnswer(_) => {
            "it answered something that is not the protocol".to_owned()
        }
    };
    format!(
        "the connector {:?} could not be reached: {why}",
        connector.name
    )
}

/// The outcome of reading one endpoint.
pub enum ReadOutcome {
    Read(EndpointRecord),
    /// Could not be read; the endpoint as stored after the failed check.
    Failed(EndpointRecord, String),
}

/// Reads `endpoints` (all of `installed`) from the connector in one call and
/// stores each result (app, lastSeen, the check) with a `thing.state`
/// event when the state changed. Endpoints the connector does not mention,
/// or reports an error for, are failed.
pub async fn read_and_store(
    app: &App,
    installed: &Installed,
    endpoints: Vec<EndpointRecord>,
) -> Result<Vec<ReadOutcome>, Error> {
    if endpoints.is_empty() {
        return Ok(Vec::new());
    }
    let call = ReadCall {
        integration_id: installed.integration.id.to_string(),
        tenant_id: installed.integration.tenant_id.to_string(),
        config: installed.integration.config.clone(),
        external_ids: endpoints.iter().map(|e| e.external_id.clone()).collect(),
    };
    let answer = app.connectors.read(&installed.server(app), &call).await;
    let mut reads: BTreeMap<String, Result<Map<String, Value>, String>> = BTreeMap::new();
    match answer {
        Ok(answer) => {
            for thing in answer.things {
                let read = match (thing.state, thing.error) {
                    (Some(app), None) => Ok(app),
                    (_, Some(error)) => Err(error),
                    (None, None) => Err("the connector sent no state".to_owned()),
                };
                reads.insert(thing.external_id, read);
            }
        }
        Err(e) => {
            let why = connector_problem(&installed.connector, &e);
            for endpoint in &endpoints {
                reads.insert(endpoint.external_id.clone(), Err(why.clone()));
            }
        }
    }
    let mut outcomes = Vec::with_capacity(endpoints.len());
    for endpoint in endpoints {
        let read = reads
            .remove(&endpoint.external_id)
            .unwrap_or_else(|| Err("the connector did not report this thing".to_owned()));
        let outcome = match read {
            Ok(new_state) => ReadOutcome::Read(store_check(app, endpoint, Some(new_state)).await?),
            Err(why) => {
                let stored = store_check(app, endpoint, None).await?;
                ReadOutcome::Failed(stored, why)
            }
        };
        outcomes.push(outcome);
    }
    Ok(outcomes)
}

/// Stores one check of an endpoint: `Some(app)` read back (reachable,
/// seen now, the state replaced), `None` failed (unreachable). Conditioned
/// on the revision read; on a race the endpoint is read again and the check
/// applied on top (up to 4 times, then 409).
pub async fn store_check(
    app: &App,
    endpoint: EndpointRecord,
    read_back: Option<Map<String, Value>>,
) -> Result<EndpointRecord, Error> {
    let before = endpoint.clone();
    // Never stored: PINs, credentials, private media URLs.
    let read_back = read_back.map(|mut read| {
        alyt_domain::never_stored::strip_secrets(&mut read);
        read
    });
    let stored = check_stored(app, endpoint, read_back).await?;
    if stored.state != before.state {
        alyt_security::HomeSecurity::new(app.store.clone(), app.clock.clone())
            .endpoint_changed(&before, &stored)
            .await;
    }
    Ok(stored)
}

async fn check_stored(
    app: &App,
    endpoint: EndpointRecord,
    read_back: Option<Map<String, Value>>,
) -> Result<EndpointRecord, Error> {
    rewrite_endpoint(app, endpoint, |stored, next| {
        let now = app.clock.now();
        next.checked_at = Some(now);
        next.updated_at = now;
        let Some(new_state) = &read_back else {
            next.reachable = false;
            return Ok(Vec::new());
        };
        next.reachable = true;
        next.last_seen = Some(now);
        if *new_state == stored.state && stored.state_updated_at.is_some() {
            return Ok(Vec::new());
        }
        next.state = new_state.clone();
        next.state_updated_at = Some(now);
        thing_state_event(app, next, now)
    })
    .await?
    .ok_or_else(no_such_endpoint)
}

/// The `thing.state` event of an endpoint's new state, to
/// write in the same transaction.
fn thing_state_event(
    app: &App,
    endpoint: &EndpointRecord,
    at: OffsetDateTime,
) -> Result<Vec<TxWrite>, Error> {
    let event = PlatformEvent::ThingState(endpoint.thing_state(at));
    app.event_writes(endpoint.tenant_id, Some(endpoint.property_id), vec![event])
}

/// Why a command to an endpoint did not apply.
pub enum CommandFailure {
    /// The thing's descriptors or the thing itself refused it (a person's
    /// mistake: 400/422).
    Refused(Error),
    /// The thing or its connector could not be reached (502).
    Unreachable(String),
}

impl CommandFailure {
    pub fn reason(&self) -> String {
        match self {
            CommandFailure::Refused(e) => e.detail.clone(),
            CommandFailure::Unreachable(why) => why.clone(),
        }
    }
}

/// `request` checked against the endpoint's own descriptors (as it is
/// presented), with the presentation it was checked under.
pub fn accept_for_endpoint(
    endpoint: &EndpointRecord,
    request: CommandRequest,
) -> Result<(AcceptedCommand, Option<Presentation>), CommandError> {
    let capabilities = endpoint.known_capabilities();
    let presentation = Presentation::of(&capabilities, endpoint.presented_as());
    let descriptors = endpoint_descriptors(
        &capabilities,
        &endpoint.features,
        &endpoint.state,
        presentation,
    );
    request
        .validate(descriptors.iter().map(|d| &**d), Some(&endpoint.features))
        .map(|accepted| (accepted, presentation))
}

/// The command path of an endpoint (this operation, room and property
/// actions): validated against the thing's own descriptors, sent to the
/// connector with the native capability, and the read-back state stored.
pub async fn command_endpoint(
    app: &App,
    installed: &Installed,
    endpoint: EndpointRecord,
    request: CommandRequest,
) -> Result<EndpointRecord, CommandFailure> {
    if !endpoint.enabled {
        return Err(CommandFailure::Refused(Error::conflict(format!(
            "{} is disabled; enable it (PATCH /v1/endpoints/{} {{\"enabled\": true}}) to command it",
            endpoint.name, endpoint.id
        ))));
    }
    let (accepted, presentation) = accept_for_endpoint(&endpoint, request)
        .map_err(|e| CommandFailure::Refused(Error::validation(e.field.clone(), e.to_string())))?;
    let mut payload = accepted.payload;
    if let (Some(p), Some(payload)) = (presentation, payload.as_mut())
        && let Some(Value::String(capability)) = payload.get("capability").cloned()
    {
        payload.insert("capability".into(), p.to_native(&capability).into());
    }
    let call = CommandCall {
        integration_id: installed.integration.id.to_string(),
        tenant_id: installed.integration.tenant_id.to_string(),
        config: installed.integration.config.clone(),
        external_id: endpoint.external_id.clone(),
        command: accepted.command,
        payload,
    };
    let answer = app.connectors.command(&installed.server(app), &call).await;
    let stored = |read_back| store_check(app, endpoint.clone(), read_back);
    match answer {
        Ok(CommandAnswer::Applied { state: read_back }) => stored(Some(read_back))
            .await
            .map_err(CommandFailure::Refused),
        Ok(CommandAnswer::Rejected { reason }) => Err(CommandFailure::Refused(
            Error::unprocessable(format!("the thing refused the command: {reason}")),
        )),
        Ok(CommandAnswer::Failed { reason }) => {
            stored(None).await.map_err(CommandFailure::Refused)?;
            Err(CommandFailure::Unreachable(reason))
        }
        Err(e) => Err(CommandFailure::Unreachable(connector_problem(
            &installed.connector,
            &e,
        ))),
    }
}

/// Re-reads one endpoint from its connector and stores what it read; a
/// thing that could not be read is judged offline and the read fails
/// (the connector is unavailable).
pub async fn refresh(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    id: EndpointId,
) -> Result<EndpointRecord, Error> {
    let endpoint = endpoint_for(app, caller, tenant, id, HomeAccess::Control).await?;
    let installed = installed(app, tenant, endpoint.integration_id).await?;
    let outcome = read_and_store(app, &installed, vec![endpoint]).await?;
    match outcome.into_iter().next() {
        Some(ReadOutcome::Read(endpoint)) => Ok(endpoint),
        Some(ReadOutcome::Failed(endpoint, why)) => Err(Error::bad_gateway(format!(
            "{} could not be read: {why}",
            endpoint.name
        ))),
        None => Err(Error::internal("a read of one endpoint returned nothing")),
    }
}

/// Sends a checked command to an endpoint through its connector and answers
/// the endpoint with the state the connector read back. A siren is home
/// security's output: only someone who controls the home's security
/// commands it.
pub async fn command(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    id: EndpointId,
    request: CommandRequest,
) -> Result<EndpointRecord, Error> {
    let endpoint = endpoint_for(app, caller, tenant, id, HomeAccess::Control).await?;
    if alyt_domain::security::enrolment::is_siren(
        &endpoint.known_capabilities(),
        &endpoint.features,
    ) {
        siren_command(app, caller, endpoint.tenant_id, endpoint.property_id).await?;
    }
    let installed = installed(app, tenant, endpoint.integration_id).await?;
    let name = endpoint.name.clone();
    match command_endpoint(app, &installed, endpoint, request).await {
        Ok(endpoint) => Ok(endpoint),
        Err(CommandFailure::Refused(e)) => Err(e),
        Err(CommandFailure::Unreachable(why)) => Err(Error::bad_gateway(format!(
            "{name} could not be reached: {why}"
        ))),
    }
}

/// Changes an endpoint's presentation, name, room or enabled state (the
/// household OWNER's): only a light or a switch can be presented as one, a
/// room must be of the endpoint's home.
pub async fn change(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    id: EndpointId,
    changes: EndpointChanges,
) -> Result<EndpointRecord, Error> {
    let endpoint = endpoint_for(app, caller, tenant, id, HomeAccess::Configure).await?;
    if let Some(Some(_)) = changes.presented_as
        && !presentable(&endpoint.known_capabilities())
    {
        return Err(Error::validation(
            "presentedAs",
            "only a light or a switch can be presented as a light or a switch",
        ));
    }
    if let Some(Some(room)) = changes.room_id {
        check_room(app, tenant, endpoint.property_id, room).await?;
    }
    change_endpoint(app, endpoint, changes).await
}

/// Checked changes to an endpoint: each `Some` is set (`Some(None)` clears).
#[derive(Debug, Clone, Default)]
pub struct EndpointChanges {
    pub presented_as: Option<Option<PresentedAs>>,
    /// A checked name ([`alyt_domain::room::check_name`]).
    pub name: Option<String>,
    pub room_id: Option<Option<RoomId>>,
    pub enabled: Option<bool>,
}

/// Writes `changes` to the endpoint (a room set by a person is placed by
/// them, so discovery leaves it there); answers it as stored.
async fn change_endpoint(
    app: &App,
    endpoint: EndpointRecord,
    changes: EndpointChanges,
) -> Result<EndpointRecord, Error> {
    let EndpointChanges {
        presented_as,
        name,
        room_id,
        enabled,
    } = changes;
    let now = app.clock.now();
    rewrite_endpoint(app, endpoint, |_, e| {
        if let Some(presented_as) = presented_as {
            e.presented_as = presented_as.map(|p| p.as_str().to_owned());
        }
        if let Some(name) = &name {
            e.name = name.clone();
        }
        if let Some(room) = room_id {
            e.room_id = room;
            e.placed_by = Some(PlacedBy::Person);
        }
        if let Some(enabled) = enabled {
            e.enabled = enabled;
        }
        e.updated_at = now;
        Ok(Vec::new())
    })
    .await?
    .ok_or_else(no_such_endpoint)
}

/// Applies `change(stored, next)` to the endpoint and writes it with the
/// writes `change` returns (its events) in one transaction, conditioned on
/// the revision read (re-read and re-applied on a race, at most four tries,
/// then 409). `None` when the endpoint vanished meanwhile.
async fn rewrite_endpoint(
    app: &App,
    mut endpoint: EndpointRecord,
    change: impl Fn(&EndpointRecord, &mut EndpointRecord) -> Result<Vec<TxWrite>, Error>,
) -> Result<Option<EndpointRecord>, Error> {
    let repo = Integrations(&*app.store);
    for _ in 0..4 {
        let mut next = endpoint.clone();
        let mut writes = change(&endpoint, &mut next)?;
        writes.insert(0, endpoint_write(&next, Some(endpoint.rev))?);
        match repo.write(writes).await {
            Ok(()) => {
                next.rev = endpoint.rev + 1;
                return Ok(Some(next));
            }
            Err(e) if e.is_condition_failure() => {
                match repo.endpoint(endpoint.tenant_id, endpoint.id).await? {
                    Some(again) => endpoint = again,
                    None => return Ok(None),
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(Error::conflict(format!(
        "the endpoint {} kept changing; try again",
        endpoint.id
    )))
}

/// Moves an endpoint to `room` (None: no room) as a person's choice, so
/// discovery never moves it again. An endpoint that vanished is left alone.
pub async fn move_endpoint(
    app: &App,
    endpoint: EndpointRecord,
    room: Option<RoomId>,
) -> Result<(), Error> {
    let now = app.clock.now();
    rewrite_endpoint(app, endpoint, |_, e| {
        e.room_id = room;
        e.placed_by = Some(PlacedBy::Person);
        e.updated_at = now;
        Ok(Vec::new())
    })
    .await?;
    Ok(())
}

/// Refuses `roomId` unless `room` is a room of home `property`.
async fn check_room(
    app: &App,
    tenant: TenantId,
    property: PropertyId,
    room: RoomId,
) -> Result<(), Error> {
    match Rooms(&*app.store).get(property, room).await? {
        Some(r) if r.tenant_id == tenant => Ok(()),
        _ => Err(Error::validation(
            "roomId",
            "roomId must be a room of the endpoint's home",
        )),
    }
}
