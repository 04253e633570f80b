//! Music in routines: the speaker a step names and the uri it plays,
//! checked on save and again before playback (its system and modes, a
//! connected account of the provider in the household or a choice saved on
//! the speaker's system), the step itself (volume, source, read-back), what
//! a home's routines can play (for anyone who sees the home), and a search
//! of a streaming-provider account's catalogue (for whoever reads the
//! account's integration).

use std::collections::BTreeMap;

use alyt_connectors::{
    ConnectorError, FavouritesCall, IntegrationCall, PlayAnswer, PlayCall, RefreshAnswer,
    SearchAnswer, SearchCall,
};
use alyt_domain::access::{HomeAccess, Principal};
use alyt_domain::device::CommandRequest;
use alyt_domain::ids::{EndpointId, IntegrationId, PropertyId, RoomId, TenantId};
use alyt_domain::integration::EndpointKind;
use alyt_domain::integration::music::{
    MAX_QUERY_CHARS, MAX_SEARCH_OFFSET, MusicChoice, MusicItem, MusicNeed, SEARCH_PAGE, SearchType,
    SourceMode, SpeakerMusic, SpeakerSystem,
};
use alyt_domain::routine::{MusicStep, MusicUri};
use alyt_store::repo::integrations::{EndpointRecord, IntegrationRecord, Integrations};
use alyt_store::repo::routines::{StepOutcome, StepResult};
use alyt_store::repo::tenancy::{PropertyRecord, Tenancy};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use time::Duration;

use crate::access::home_for;
use crate::endpoints::{
    Installed, ReadOutcome, command_endpoint, connector_problem, installed, read_and_store,
};
use crate::{App, Error};

/// Why a speaker or a uri cannot be used.
pub enum Refusal {
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

    /// The error of a refusal of the field at `field`.
    pub fn at(self, field: String) -> Error {
        match self {
            Refusal::Refused(why) => Error::validation(field, why),
            Refusal::Unavailable(why) => Error::bad_gateway(why),
        }
    }
}

impl From<alyt_store::StoreError> for Refusal {
    fn from(e: alyt_store::StoreError) -> Self {
        Refusal::Unavailable(format!("the platform could not read the speaker: {e}"))
    }
}

/// A speaker a music step may use, as checked now.
pub struct Speaker {
    pub endpoint: EndpointRecord,
    pub installed: Installed,
    pub music: SpeakerMusic,
}

/// Speaker `id` of `home`, checked (see the module docs).
pub async fn speaker_in_home(
    app: &App,
    home: &PropertyRecord,
    id: uuid::Uuid,
) -> Result<Speaker, Refusal> {
    let endpoint = Integrations(&*app.store)
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
    let installed = installed(app, home.tenant_id, endpoint.integration_id)
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
pub async fn check_uri(
    app: &App,
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
            let accounts = household_accounts(app, home)
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
            let mut saved = saved_choices(app, &speaker.installed, [&speaker.endpoint]).await;
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
pub async fn household_accounts(
    app: &App,
    home: &PropertyRecord,
) -> Result<Vec<IntegrationRecord>, Error> {
    let repo = Integrations(&*app.store);
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
                    let same = Tenancy(&*app.store)
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
pub async fn saved_choices<'a>(
    app: &App,
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
    match app
        .connectors
        .music_favourites(&installed.server(app), &call)
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
pub async fn play_step(
    app: &App,
    home: &PropertyRecord,
    index: u32,
    step: &MusicStep,
) -> StepResult {
    let mut result = StepResult::new(index, "music", StepOutcome::Failed, app.clock.now());
    result.music = Some(step.name.clone());
    let speaker = match speaker_in_home(app, home, step.speaker_id).await {
        Ok(speaker) => speaker,
        Err(refusal) => {
            result.reason = Some(refusal.reason().to_owned());
            return result;
        }
    };
    result.speaker = Some(speaker.endpoint.name.clone());
    result.reason = Some(match play(app, home, &speaker, step).await {
        Ok(()) => {
            result.outcome = StepOutcome::Applied;
            result.at = app.clock.now();
            return StepResult {
                reason: None,
                ..result
            };
        }
        Err(why) => why,
    });
    result.at = app.clock.now();
    result
}

async fn play(
    app: &App,
    home: &PropertyRecord,
    speaker: &Speaker,
    step: &MusicStep,
) -> Result<(), String> {
    check_uri(app, home, speaker, &step.uri)
        .await
        .map_err(|r| r.reason().to_owned())?;
    if let Some(volume) = step.volume {
        let request = CommandRequest::Set {
            capability: "media_player".into(),
            key: "volume".into(),
            value: volume.into(),
        };
        command_endpoint(app, &speaker.installed, speaker.endpoint.clone(), request)
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
    let answer = app
        .connectors
        .music_play(&speaker.installed.server(app), &call)
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
    let read = read_and_store(app, &speaker.installed, vec![speaker.endpoint.clone()])
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

/// A speaker a music step can use.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub favourites_error: Option<String>,
}

/// A streaming-provider account of the household.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct MusicAccount {
    /// Search it with `GET /integrations/{integrationId}/search`.
    pub integration_id: IntegrationId,
    /// The `<provider>` of the uris it finds.
    pub provider: String,
    pub name: String,
}

/// What a home's routines can play.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RoutineMusic {
    pub speakers: Vec<MusicSpeaker>,
    pub accounts: Vec<MusicAccount>,
}

/// What a home's routines can play: its enabled speakers placed in a
/// room, with their source modes and the favourites saved on their
/// speaker systems (read live), and the household's streaming-provider
/// accounts. Never a config or a token.
pub async fn routine_music(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    property: PropertyId,
) -> Result<RoutineMusic, Error> {
    let home = home_for(app, caller, tenant, property, HomeAccess::See).await?;
    let things = Integrations(&*app.store)
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
        let Ok(installed) = installed(app, home.tenant_id, integration).await else {
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
        let mut saved = saved_choices(app, &installed, with_favourites).await;
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
    let accounts = household_accounts(app, &home)
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
    Ok(RoutineMusic { speakers, accounts })
}

// ---------------------------------------------------------------------------
// Provider search

/// A provider session this close to its end is renewed before a search.
const RENEW_BEFORE: Duration = Duration::seconds(30);

/// A search page's position, bound to its query and type.
#[derive(Serialize, Deserialize)]
struct SearchCursor {
    v: u8,
    q: String,
    #[serde(rename = "type")]
    kind: SearchType,
    offset: u32,
}

fn cursor_refused() -> Error {
    Error::validation("cursor", "the cursor is not one this search handed out")
}

/// The offset a cursor continues at: a bad `cursor` when it is not this
/// search's (of another query or type, malformed, or beyond the last
/// offset).
pub fn cursor_offset(cursor: &str, q: &str, kind: SearchType) -> Result<u32, Error> {
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
        return Err(Error::validation(
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

/// The page size a search asks for (1-10, default 10).
pub fn search_limit(limit: Option<u32>) -> Result<u32, Error> {
    match limit {
        None => Ok(SEARCH_PAGE),
        Some(n) if (1..=SEARCH_PAGE).contains(&n) => Ok(n),
        Some(_) => Err(Error::validation(
            "limit",
            format!("1 to {SEARCH_PAGE} results per page"),
        )),
    }
}

/// A page of music found, and the cursor of the next (null: the last, or
/// the furthest a search pages).
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct MusicList {
    pub items: Vec<MusicItem>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub next_cursor: Option<String>,
}

/// Renews a provider account's session and stores it; a conflict when the
/// provider revoked the access, the connector's problem when it cannot be
/// asked.
async fn renew(app: &App, connector: &Installed) -> Result<Installed, Error> {
    let call = IntegrationCall {
        integration_id: connector.integration.id.to_string(),
        tenant_id: connector.integration.tenant_id.to_string(),
        config: connector.integration.config.clone(),
    };
    let answer = app
        .connectors
        .refresh(&connector.server(app), &call)
        .await
        .map_err(|e| Error::bad_gateway(connector_problem(&connector.connector, &e)))?;
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
            Integrations(&*app.store).replace(&integration).await?;
            Ok(Installed {
                integration,
                connector: connector.connector.clone(),
            })
        }
        RefreshAnswer::Revoked { reason } => Err(revoked(&reason)),
    }
}

fn revoked(reason: &str) -> Error {
    Error::provider_revoked(format!(
        "the provider withdrew the platform's access to this account ({reason}); connect it again"
    ))
}

/// What a search asks: the text, the kind of result, the cursor of the page
/// before and the page size, as the caller sent them.
pub struct SearchRequest<'a> {
    pub q: &'a str,
    pub kind: SearchType,
    pub cursor: Option<&'a str>,
    pub limit: Option<u32>,
}

/// One page of a search of streaming-provider account `integration_id` of
/// `tenant`, when the caller sees its home: the text checked, then the page
/// size, the cursor (bound to the query and kind), and access.
pub async fn search_account(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    integration_id: IntegrationId,
    request: SearchRequest<'_>,
) -> Result<MusicList, Error> {
    let q = request.q.trim();
    if q.is_empty() || q.chars().count() > MAX_QUERY_CHARS || q.chars().any(char::is_control) {
        return Err(Error::validation(
            "q",
            format!("1 to {MAX_QUERY_CHARS} characters, no control characters"),
        ));
    }
    let limit = search_limit(request.limit)?;
    let offset = match request.cursor {
        Some(cursor) => cursor_offset(cursor, q, request.kind)?,
        None => 0,
    };
    let integration = crate::integrations::integration(app, caller, tenant, integration_id).await?;
    search(app, integration, q, request.kind, offset, limit).await
}

/// One page of `q` in a provider account's catalogue from `offset`: the
/// session renewed first when it ended (and once more when the provider
/// says so anyway). The caller has read `integration`.
pub async fn search(
    app: &App,
    integration: IntegrationRecord,
    q: &str,
    kind: SearchType,
    offset: u32,
    limit: u32,
) -> Result<MusicList, Error> {
    let Some(account) = integration.account.clone() else {
        return Err(Error::conflict(
            "this integration is not a streaming-provider account, so it has nothing to search",
        ));
    };
    let mut connector = installed(app, integration.tenant_id, integration.id).await?;
    let ending = account
        .session_expires_at
        .is_some_and(|at| at <= app.clock.now() + RENEW_BEFORE);
    if ending {
        connector = renew(app, &connector).await?;
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
        let answer = app
            .connectors
            .music_search(&connector.server(app), &call)
            .await
            .map_err(|e| Error::bad_gateway(connector_problem(&connector.connector, &e)))?;
        match answer {
            SearchAnswer::Ok { mut items, total } => {
                items.truncate(limit as usize);
                let next = offset + limit;
                let next_cursor = (next < total && next <= MAX_SEARCH_OFFSET && !items.is_empty())
                    .then(|| cursor_at(q, kind, next));
                return Ok(MusicList { items, next_cursor });
            }
            SearchAnswer::Expired if !renewed => {
                connector = renew(app, &connector).await?;
                renewed = true;
            }
            SearchAnswer::Expired => {
                return Err(Error::bad_gateway(
                    "the provider ended the account's session again right after it was renewed",
                ));
            }
            SearchAnswer::Revoked { reason } => return Err(revoked(&reason)),
            SearchAnswer::RateLimited {
                retry_after_seconds,
            } => {
                let after = u64::from(retry_after_seconds.unwrap_or(30).clamp(1, 3600));
                return Err(Error::provider_rate_limited(
                    after,
                    format!("the provider limits searches now; try again in {after} s"),
                ));
            }
        }
    }
}
