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
//!   in `integrations.rs`, the work in `alyt_app::music::search_account`).
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

use alyt_domain::ids::PropertyId;
use axum::Json;
use axum::extract::State;

use crate::auth::Caller;
use crate::conventions::extract::{ApiPath, ApiQuery};
use crate::conventions::responses::{
    BadTenantOrProperty, KeyWithoutThingsRead, NoSuchHome, NoValidToken,
};
use crate::groups::devices::TenantParam;
use crate::routing::{Operations, operations};
use crate::{ApiError, AppState};

pub fn routes() -> Operations {
    operations!(routine_music)
}

use alyt_app::music::{self, RoutineMusic};
pub use alyt_app::music::{MusicAccount, MusicList, MusicSpeaker};

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
