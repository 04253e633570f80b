//! Music: what a home's routines can play, provider search, and
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

use alyt_connectors::IntegrationCall;
use alyt_connectors::{RefreshAnswer, SearchAnswer, SearchCall};
use alyt_domain::ids::PropertyId;
use alyt_domain::integration::music::{MAX_SEARCH_OFFSET, MusicItem, SEARCH_PAGE, SearchType};
use alyt_store::repo::integrations::{IntegrationRecord, Integrations};
use axum::Json;
use axum::extract::State;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use time::Duration;
use utoipa::ToSchema;

use crate::auth::Caller;
use crate::conventions::extract::{ApiPath, ApiQuery};
use crate::conventions::responses::{
    BadTenantOrProperty, KeyWithoutThingsRead, NoSuchHome, NoValidToken,
};
use crate::groups::devices::TenantParam;
use crate::routing::{Operations, operations};
use crate::{ApiError, AppState};
use alyt_app::endpoints::{Installed, connector_problem, installed};

pub fn routes() -> Operations {
    operations!(routine_music)
}

/// A provider session this close to its end is renewed before a search.
const RENEW_BEFORE: Duration = Duration::seconds(30);

use alyt_app::music::{self, RoutineMusic};
pub use alyt_app::music::{MusicAccount, MusicSpeaker};

// ---------------------------------------------------------------------------
// What a home's routines can play

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
        BadTenantOrProperty,
        NoValidToken,
        KeyWithoutThingsRead,
        NoSuchHome,
    )
)]
pub async fn routine_music(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(property_id): ApiPath<PropertyId>,
    ApiQuery(query): ApiQuery<TenantParam>,
) -> Result<Json<RoutineMusic>, ApiError> {
    let music = music::routine_music(&state, &caller, query.tenant_id, property_id).await?;
    Ok(Json(music))
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
