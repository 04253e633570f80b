//! Music (spec G): what a home's routines can play, provider search, and
//! the music step itself. The rules are `alyt_domain::integration::music`
//! and `alyt_domain::routine::MusicUri`; the calls are the connector
//! protocol's music calls (`shared/connectors/PROTOCOL.md`).
//!
//! * `GET /v1/properties/{propertyId}/routines/music?tenantId` (homes
//!   group): the home's speakers a music step can use, each with its
//!   system, source modes and the favourites and playlists saved on its
//!   speaker system (read live), and the household's streaming-provider
//!   accounts. Never a config or a token.
//! * `GET /v1/integrations/{id}/search` (integrations group; the handler is
//!   in `integrations.rs`, the work in [`search`]).
//! * A music step is checked on save ([`speaker_in_home`], [`check_uri`])
//!   and again right before playback ([`play_step`]).
//!
//! A speaker can be used when it is an enabled SPEAKER endpoint of the
//! home placed in one of its rooms, its integration (its transport) is
//! installed in that same home with its connector, and it says what it can
//! play (its provider detail `music`; without it, it plays nothing: fail
//! closed). A speaker the household disabled (`PATCH /v1/endpoints/{id}`
//! `{ enabled: false }`) is not listed, a music step naming it is refused
//! on save (400 naming `speakerId`, like every other refusal of the
//! speaker), and a saved step naming it fails right before playback with
//! the reason recorded (nothing is sent to the speaker; later steps run).
//! A device is never a speaker here, enabled or not (its
//! `settings.enabled`), since the device channels cannot play a chosen
//! uri.

use std::collections::BTreeMap;

use alyt_connectors::{ConnectorError, FavouritesCall, IntegrationCall, PlayAnswer, PlayCall};
use alyt_connectors::{RefreshAnswer, SearchAnswer, SearchCall};
use alyt_domain::device::CommandRequest;
use alyt_domain::ids::{EndpointId, IntegrationId, PropertyId, RoomId};
use alyt_domain::integration::EndpointKind;
use alyt_domain::integration::music::{
    MAX_SEARCH_OFFSET, MusicChoice, MusicItem, MusicNeed, SEARCH_PAGE, SearchType, SourceMode,
    SpeakerMusic, SpeakerSystem,
};
use alyt_domain::routine::{MusicStep, MusicUri};
use alyt_store::repo::integrations::{EndpointRecord, IntegrationRecord, Integrations};
use alyt_store::repo::routines::{StepOutcome, StepResult};
use alyt_store::repo::tenancy::{PropertyRecord, Tenancy};
use axum::Json;
use axum::extract::State;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use time::Duration;
use utoipa::ToSchema;

use crate::access::{HomeAccess, home_for};
use crate::auth::Caller;
use crate::conventions::extract::{ApiPath, ApiQuery};
use crate::conventions::problem::{NoValidToken, Problem};
use crate::groups::devices::TenantParam;
use crate::groups::homes::endpoints::{
    Installed, ReadOutcome, command_endpoint, connector_problem, installed, read_and_store,
};
use crate::routing::{Operations, operations};
use crate::{ApiError, AppState};

pub fn routes() -> Operations {
    operations!(routine_music)
}

/// A provider session this close to its end is renewed before a search.
const RENEW_BEFORE: Duration = Duration::seconds(30);

/// Why a speaker or a uri cannot be used.
pub(crate) enum Refusal {
    /// The person's choice is wrong (400 on save, a failed step at run).
    Refused(String),
    /// The speaker system could not be asked (502 on save).
    Unavailable(String),
}

impl Refusal {
    pub fn reason(&self) -> &str {
        match self {
            Refusal::Refused(why) | Refusal::Unavailable(why) => why,
        }
    }

    /// The API error of a refusal of the field at `field`.
    pub fn at(self, field: String) -> ApiError {
        match self {
            Refusal::Refused(why) => ApiError::validation(field, why),
            Refusal::Unavailable(why) => ApiError::bad_gateway(why),
        }
    }
}

impl From<alyt_store::StoreError> for Refusal {
    fn from(e: alyt_store::StoreError) -> Self {
        Refusal::Unavailable(format!("the platform could not read the speaker: {e}"))
    }
}

/// A speaker a music step may use, as checked now.
pub(crate) struct Speaker {
    pub endpoint: EndpointRecord,
    pub installed: Installed,
    pub music: SpeakerMusic,
}

/// Speaker `id` of `home`, checked (see the module docs).
pub(crate) async fn speaker_in_home(
    state: &AppState,
    home: &PropertyRecord,
    id: uuid::Uuid,
) -> Result<Speaker, Refusal> {
    let endpoint = Integrations(&*state.store)
        .endpoint(home.tenant_id, EndpointId(id))
        .await?
        .filter(|e| e.property_id == home.id && e.kind == EndpointKind::Speaker)
        .ok_or_else(|| Refusal::Refused("no such speaker in this home".into()))?;
    if !endpoint.enabled {
        return Err(Refusal::Refused(
            "the speaker is disabled; enable it to play music on it".into(),
        ));
    }
    if endpoint.room_id.is_none() {
        return Err(Refusal::Refused(
            "the speaker is in no room of this home; place it in a room first".into(),
        ));
    }
    let installed = installed(state, home.tenant_id, endpoint.integration_id)
        .await
        .map_err(|e| Refusal::Refused(e.detail))?;
    if installed.integration.property_id != home.id {
        return Err(Refusal::Refused(
            "the speaker's system is connected in another home".into(),
        ));
    }
    let music = SpeakerMusic::of(endpoint.capabilities.as_ref()).ok_or_else(|| {
        Refusal::Refused("the speaker does not say what it can play, so it plays nothing".into())
    })?;
    Ok(Speaker {
        endpoint,
        installed,
        music,
    })
}

/// Whether `speaker` may play `uri` for `home`: its form, the speaker's
/// system and modes, and then either a connected account of the provider in
/// the household or a choice saved on the speaker's system (read live).
pub(crate) async fn check_uri(
    state: &AppState,
    home: &PropertyRecord,
    speaker: &Speaker,
    uri: &str,
) -> Result<(), Refusal> {
    let parsed = MusicUri::parse(uri).map_err(|why| Refusal::Refused(why.into()))?;
    match speaker
        .music
        .needs(&parsed)
        .map_err(|why| Refusal::Refused(why.into()))?
    {
        MusicNeed::Account { provider } => {
            let accounts = household_accounts(state, home)
                .await
                .map_err(|e| Refusal::Unavailable(e.detail))?;
            if accounts
                .iter()
                .any(|a| a.account.as_ref().is_some_and(|a| a.provider == provider))
            {
                Ok(())
            } else {
                Err(Refusal::Refused(format!(
                    "the household has no connected {provider} account"
                )))
            }
        }
        MusicNeed::Choice => {
            let mut saved = saved_choices(state, &speaker.installed, [&speaker.endpoint]).await;
            match saved.remove(&speaker.endpoint.external_id) {
                Some(Ok(choices)) if choices.iter().any(|c| c.uri == uri) => Ok(()),
                Some(Ok(_)) => Err(Refusal::Refused(
                    "not a favourite or playlist saved on this speaker's system".into(),
                )),
                Some(Err(why)) => Err(Refusal::Unavailable(why)),
                None => Err(Refusal::Unavailable(
                    "the speaker system did not say what is saved on it".into(),
                )),
            }
        }
    }
}

/// The household's streaming-provider accounts: the tenant's integrations
/// with an account, installed in a home of `home`'s household.
async fn household_accounts(
    state: &AppState,
    home: &PropertyRecord,
) -> Result<Vec<IntegrationRecord>, ApiError> {
    let repo = Integrations(&*state.store);
    let mut clients: BTreeMap<PropertyId, bool> = BTreeMap::new();
    let mut accounts = Vec::new();
    let mut after = None;
    loop {
        let (page, next) = repo.page(home.tenant_id, 100, after).await?;
        for integration in page {
            if integration.account.is_none() {
                continue;
            }
            let same_household = match clients.get(&integration.property_id) {
                Some(same) => *same,
                None => {
                    let same = Tenancy(&*state.store)
                        .property(home.tenant_id, integration.property_id)
                        .await?
                        .is_some_and(|p| p.client_id == home.client_id);
                    clients.insert(integration.property_id, same);
                    same
                }
            };
            if same_household {
                accounts.push(integration);
            }
        }
        match next {
            Some(next) => after = Some(next),
            None => return Ok(accounts),
        }
    }
}

/// The choices saved on the speaker system of `speakers` (all of
/// `installed`), by external id: one call.
async fn saved_choices<'a>(
    state: &AppState,
    installed: &Installed,
    speakers: impl IntoIterator<Item = &'a EndpointRecord>,
) -> BTreeMap<String, Result<Vec<MusicChoice>, String>> {
    let external_ids: Vec<String> = speakers
        .into_iter()
        .map(|e| e.external_id.clone())
        .collect();
    let call = FavouritesCall {
        integration_id: installed.integration.id.to_string(),
        tenant_id: installed.integration.tenant_id.to_string(),
        config: installed.integration.config.clone(),
        external_ids: external_ids.clone(),
    };
    match state
        .connectors
        .music_favourites(&installed.server(state), &call)
        .await
    {
        Ok(answer) => answer
            .speakers
            .into_iter()
            .map(|s| {
                let read = match s.error {
                    Some(error) => Err(format!("the speaker system could not say: {error}")),
                    None => Ok(s.choices),
                };
                (s.external_id, read)
            })
            .collect(),
        Err(e) => {
            let why = connector_problem(&installed.connector, &e);
            external_ids
                .into_iter()
                .map(|id| (id, Err(why.clone())))
                .collect()
        }
    }
}

// ---------------------------------------------------------------------------
// The music step at run time

/// Whether a speaker's state reads as playing `uri`.
fn plays(state: &Map<String, Value>, uri: &str) -> bool {
    let player = state.get("media_player");
    let playing = player
        .and_then(|p| p.get("playing"))
        .and_then(Value::as_bool);
    let source = player.and_then(|p| p.get("source")).and_then(Value::as_str);
    playing == Some(true) && source.is_none_or(|s| s == uri)
}

/// Plays a music step: the speaker and the uri checked again, the volume
/// set first (when given), then the source, then a read-back that must say
/// playing. Never retried, never skipped because the speaker seems to play
/// it already; every failure is the step's reason.
pub(crate) async fn play_step(
    state: &AppState,
    home: &PropertyRecord,
    index: u32,
    step: &MusicStep,
) -> StepResult {
    let mut result = StepResult::new(index, "music", StepOutcome::Failed, state.clock.now());
    result.music = Some(step.name.clone());
    let speaker = match speaker_in_home(state, home, step.speaker_id).await {
        Ok(speaker) => speaker,
        Err(refusal) => {
            result.reason = Some(refusal.reason().to_owned());
            return result;
        }
    };
    result.speaker = Some(speaker.endpoint.name.clone());
    result.reason = Some(match play(state, home, &speaker, step).await {
        Ok(()) => {
            result.outcome = StepOutcome::Applied;
            result.at = state.clock.now();
            return StepResult {
                reason: None,
                ..result
            };
        }
        Err(why) => why,
    });
    result.at = state.clock.now();
    result
}

async fn play(
    state: &AppState,
    home: &PropertyRecord,
    speaker: &Speaker,
    step: &MusicStep,
) -> Result<(), String> {
    check_uri(state, home, speaker, &step.uri)
        .await
        .map_err(|r| r.reason().to_owned())?;
    if let Some(volume) = step.volume {
        let request = CommandRequest::Set {
            capability: "media_player".into(),
            key: "volume".into(),
            value: volume.into(),
        };
        command_endpoint(state, &speaker.installed, speaker.endpoint.clone(), request)
            .await
            .map_err(|f| {
                format!(
                    "the volume could not be set, so nothing was played: {}",
                    f.reason()
                )
            })?;
    }
    let call = PlayCall {
        integration_id: speaker.installed.integration.id.to_string(),
        tenant_id: home.tenant_id.to_string(),
        config: speaker.installed.integration.config.clone(),
        external_id: speaker.endpoint.external_id.clone(),
        uri: step.uri.clone(),
    };
    let answer = state
        .connectors
        .music_play(&speaker.installed.server(state), &call)
        .await;
    match answer {
        Ok(PlayAnswer::Playing { .. }) => {}
        Ok(PlayAnswer::Rejected { reason }) => {
            return Err(format!("the speaker refused it: {reason}"));
        }
        Ok(PlayAnswer::Failed { reason }) => {
            return Err(format!("the speaker could not play it: {reason}"));
        }
        Err(ConnectorError::Unreachable(why)) => {
            return Err(format!(
                "the speaker system did not answer ({why}); not retried, as it may have started"
            ));
        }
        Err(e) => return Err(connector_problem(&speaker.installed.connector, &e)),
    }
    let read = read_and_store(state, &speaker.installed, vec![speaker.endpoint.clone()])
        .await
        .map_err(|e| e.detail)?;
    match read.into_iter().next() {
        Some(ReadOutcome::Read(endpoint)) if plays(&endpoint.state, &step.uri) => Ok(()),
        Some(ReadOutcome::Read(_)) => Err(
            "the speaker said it would play, but reading it back shows it is not playing this"
                .into(),
        ),
        Some(ReadOutcome::Failed(_, why)) => {
            Err(format!("the speaker could not be read back: {why}"))
        }
        None => Err("the speaker could not be read back".into()),
    }
}

// ---------------------------------------------------------------------------
// What a home's routines can play

/// A speaker a music step can use.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MusicSpeaker {
    /// The endpoint id: a music step's `speakerId`.
    pub id: EndpointId,
    pub name: String,
    pub room_id: RoomId,
    pub integration_id: IntegrationId,
    pub system: SpeakerSystem,
    pub source_modes: Vec<SourceMode>,
    /// Favourites, playlists and radio saved on its speaker system: their
    /// `uri` is what a music step plays (empty without the favourites
    /// mode).
    pub favourites: Vec<MusicChoice>,
    /// Why the favourites could not be read now (null: they were).
    #[schema(required = true)]
    pub favourites_error: Option<String>,
}

/// A streaming-provider account of the household.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MusicAccount {
    /// Search it with `GET /integrations/{integrationId}/search`.
    pub integration_id: IntegrationId,
    /// The `<provider>` of the uris it finds.
    pub provider: String,
    pub name: String,
}

/// What a home's routines can play.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RoutineMusic {
    pub speakers: Vec<MusicSpeaker>,
    pub accounts: Vec<MusicAccount>,
}

/// The enabled speakers of a home a music step can use, with their source
/// modes and saved favourites, and the household's streaming-provider
/// accounts.
#[utoipa::path(
    get,
    path = "/v1/properties/{propertyId}/routines/music",
    tag = "homes",
    operation_id = "getRoutineMusic",
    params(("propertyId" = PropertyId, Path, description = "The home"), TenantParam),
    security(("bearer" = ["things:read"])),
    responses(
        (status = 200, description = "Speakers and accounts (never a credential)", body = RoutineMusic),
        (status = 400, description = "Missing or malformed tenantId or propertyId", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        (status = 403, description = "A key without things:read", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such home (or not the caller's)", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn routine_music(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(property_id): ApiPath<PropertyId>,
    ApiQuery(query): ApiQuery<TenantParam>,
) -> Result<Json<RoutineMusic>, ApiError> {
    let home = home_for(
        &state,
        &caller,
        query.tenant_id,
        property_id,
        HomeAccess::See,
    )
    .await?;
    let things = Integrations(&*state.store)
        .home_things(home.tenant_id, home.id)
        .await?;
    let mut by_integration: BTreeMap<IntegrationId, Vec<EndpointRecord>> = BTreeMap::new();
    for endpoint in things.endpoints {
        if endpoint.kind == EndpointKind::Speaker && endpoint.room_id.is_some() && endpoint.enabled
        {
            by_integration
                .entry(endpoint.integration_id)
                .or_default()
                .push(endpoint);
        }
    }
    let mut speakers = Vec::new();
    for (integration, endpoints) in by_integration {
        let Ok(installed) = installed(&state, home.tenant_id, integration).await else {
            continue;
        };
        if installed.integration.property_id != home.id {
            // Its stored transport is another home's: omitted.
            continue;
        }
        let usable: Vec<(EndpointRecord, SpeakerMusic)> = endpoints
            .into_iter()
            .filter_map(|e| SpeakerMusic::of(e.capabilities.as_ref()).map(|m| (e, m)))
            .collect();
        let with_favourites = usable
            .iter()
            .filter(|(_, m)| m.source_modes.contains(&SourceMode::Favorites))
            .map(|(e, _)| e);
        let mut saved = saved_choices(&state, &installed, with_favourites).await;
        for (endpoint, music) in usable {
            let (favourites, favourites_error) = match saved.remove(&endpoint.external_id) {
                Some(Ok(choices)) => (choices, None),
                Some(Err(why)) => (Vec::new(), Some(why)),
                None => (Vec::new(), None),
            };
            speakers.push(MusicSpeaker {
                id: endpoint.id,
                name: endpoint.name.clone(),
                room_id: endpoint.room_id.unwrap_or(RoomId(uuid::Uuid::nil())),
                integration_id: integration,
                system: music.system,
                source_modes: music.source_modes.iter().copied().collect(),
                favourites,
                favourites_error,
            });
        }
    }
    let accounts = household_accounts(&state, &home)
        .await?
        .into_iter()
        .filter_map(|i| {
            let account = i.account?;
            Some(MusicAccount {
                integration_id: i.id,
                provider: account.provider,
                name: account.name,
            })
        })
        .collect();
    Ok(Json(RoutineMusic { speakers, accounts }))
}

// ---------------------------------------------------------------------------
// Provider search

/// A search page's position, bound to its query and type.
#[derive(Serialize, Deserialize)]
struct SearchCursor {
    v: u8,
    q: String,
    #[serde(rename = "type")]
    kind: SearchType,
    offset: u32,
}

fn cursor_refused() -> ApiError {
    ApiError::validation("cursor", "the cursor is not one this search handed out")
}

/// The offset a cursor continues at: 400 when it is not this search's (of
/// another query or type, malformed, or beyond the last offset).
pub(crate) fn cursor_offset(cursor: &str, q: &str, kind: SearchType) -> Result<u32, ApiError> {
    if cursor.len() > 2048 {
        return Err(cursor_refused());
    }
    let bytes = URL_SAFE_NO_PAD
        .decode(cursor)
        .map_err(|_| cursor_refused())?;
    let parsed: SearchCursor = serde_json::from_slice(&bytes).map_err(|_| cursor_refused())?;
    if parsed.v != 1 || parsed.offset > MAX_SEARCH_OFFSET {
        return Err(cursor_refused());
    }
    if parsed.q != q || parsed.kind != kind {
        return Err(ApiError::validation(
            "cursor",
            "the cursor belongs to another query or type; search again without it",
        ));
    }
    Ok(parsed.offset)
}

fn cursor_at(q: &str, kind: SearchType, offset: u32) -> String {
    let cursor = SearchCursor {
        v: 1,
        q: q.to_owned(),
        kind,
        offset,
    };
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(&cursor).unwrap_or_default())
}

/// A page of music found, and the cursor of the next (null: the last, or
/// the furthest a search pages).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MusicList {
    pub items: Vec<MusicItem>,
    #[schema(required = true)]
    pub next_cursor: Option<String>,
}

/// Renews a provider account's session and stores it; 409 when the
/// provider revoked the access, 502 when it cannot be asked.
async fn renew(state: &AppState, connector: &Installed) -> Result<Installed, ApiError> {
    let call = IntegrationCall {
        integration_id: connector.integration.id.to_string(),
        tenant_id: connector.integration.tenant_id.to_string(),
        config: connector.integration.config.clone(),
    };
    let answer = state
        .connectors
        .refresh(&connector.server(state), &call)
        .await
        .map_err(|e| ApiError::bad_gateway(connector_problem(&connector.connector, &e)))?;
    match answer {
        RefreshAnswer::Refreshed {
            config,
            session_expires_at,
        } => {
            let mut integration = connector.integration.clone();
            integration.config = config;
            if let Some(account) = integration.account.as_mut() {
                account.session_expires_at = session_expires_at;
            }
            Integrations(&*state.store).replace(&integration).await?;
            Ok(Installed {
                integration,
                connector: connector.connector.clone(),
            })
        }
        RefreshAnswer::Revoked { reason } => Err(revoked(&reason)),
    }
}

fn revoked(reason: &str) -> ApiError {
    ApiError::provider_revoked(format!(
        "the provider withdrew the platform's access to this account ({reason}); connect it again"
    ))
}

/// One page of `q` in a provider account's catalogue from `offset`: the
/// session renewed first when it ended (and once more when the provider
/// says so anyway).
pub(crate) async fn search(
    state: &AppState,
    integration: IntegrationRecord,
    q: &str,
    kind: SearchType,
    offset: u32,
    limit: u32,
) -> Result<MusicList, ApiError> {
    let Some(account) = integration.account.clone() else {
        return Err(ApiError::conflict(
            "this integration is not a streaming-provider account, so it has nothing to search",
        ));
    };
    let mut connector = installed(state, integration.tenant_id, integration.id).await?;
    let ending = account
        .session_expires_at
        .is_some_and(|at| at <= state.clock.now() + RENEW_BEFORE);
    if ending {
        connector = renew(state, &connector).await?;
    }
    let mut renewed = ending;
    loop {
        let call = SearchCall {
            integration_id: connector.integration.id.to_string(),
            tenant_id: connector.integration.tenant_id.to_string(),
            config: connector.integration.config.clone(),
            q: q.to_owned(),
            kind,
            offset,
            limit,
        };
        let answer = state
            .connectors
            .music_search(&connector.server(state), &call)
            .await
            .map_err(|e| ApiError::bad_gateway(connector_problem(&connector.connector, &e)))?;
        match answer {
            SearchAnswer::Ok { mut items, total } => {
                items.truncate(limit as usize);
                let next = offset + limit;
                let next_cursor = (next < total && next <= MAX_SEARCH_OFFSET && !items.is_empty())
                    .then(|| cursor_at(q, kind, next));
                return Ok(MusicList { items, next_cursor });
            }
            SearchAnswer::Expired if !renewed => {
                connector = renew(state, &connector).await?;
                renewed = true;
            }
            SearchAnswer::Expired => {
                return Err(ApiError::bad_gateway(
                    "the provider ended the account's session again right after it was renewed",
                ));
            }
            SearchAnswer::Revoked { reason } => return Err(revoked(&reason)),
            SearchAnswer::RateLimited {
                retry_after_seconds,
            } => {
                let after = u64::from(retry_after_seconds.unwrap_or(30).clamp(1, 3600));
                return Err(ApiError::provider_rate_limited(
                    after,
                    format!("the provider limits searches now; try again in {after} s"),
                ));
            }
        }
    }
}

/// The page size a search asks for (1-10, default 10).
pub(crate) fn search_limit(limit: Option<u32>) -> Result<u32, ApiError> {
    match limit {
        None => Ok(SEARCH_PAGE),
        Some(n) if (1..=SEARCH_PAGE).contains(&n) => Ok(n),
        Some(_) => Err(ApiError::validation(
            "limit",
            format!("1 to {SEARCH_PAGE} results per page"),
        )),
    }
}
