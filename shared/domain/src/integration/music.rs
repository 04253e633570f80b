//! Music in routines: the connector protocol's music calls and the rules of
//! what a speaker may play. No I/O.
//!
//! Three kinds of integration take part, all in the connector protocol:
//! * a **speaker system** reports its speakers as SPEAKER endpoints whose
//!   provider detail (`capabilities.music`) says which system it is
//!   (`local`: plays provider uris and its favourites; `cloud`: only
//!   favourites and playlists saved on the speaker system) and its source
//!   modes (`library`, `search`, `favorites`). A speaker without that
//!   detail can play nothing (missing capabilities fail closed).
//! * a **streaming-provider account**: a connect whose answer names an
//!   `account` (`provider`, a display name, when its session expires). Its
//!   catalogue is searched through `v1/music/search`; an expired session is
//!   refreshed through `v1/refresh` first.
//! * favourites and playlists saved on a speaker system are read live
//!   (`v1/music/favourites`), and a music step plays through
//!   `v1/music/play` (the volume before it through `v1/command`).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use time::OffsetDateTime;

use crate::routine::MusicUri;

pub const FAVOURITES_PATH: &str = "v1/music/favourites";
pub const PLAY_PATH: &str = "v1/music/play";
pub const SEARCH_PATH: &str = "v1/music/search";
pub const REFRESH_PATH: &str = "v1/refresh";

/// Results of one search page, at most.
pub const SEARCH_PAGE: u32 = 10;
/// The furthest a search pages.
pub const MAX_SEARCH_OFFSET: u32 = 1000;
/// Characters of a search query.
pub const MAX_QUERY_CHARS: usize = 200;

/// A streaming-provider account, as a connect answers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderAccount {
    /// The `<provider>` of the uris it plays (`streamy` in
    /// `streamy:track:42`).
    pub provider: String,
    /// For people ("Ana's Streamy").
    pub name: String,
    /// When the provider session ends (none: it does not expire).
    #[serde(default, with = "time::serde::rfc3339::option")]
    pub session_expires_at: Option<OffsetDateTime>,
}

impl ProviderAccount {
    /// Whether the provider name is one a uri can carry.
    pub fn provider_ok(&self) -> bool {
        matches!(
            MusicUri::parse(&format!("{}:track:x", self.provider)),
            Ok(MusicUri::Provider { .. })
        )
    }
}

/// Which kind of speaker system a speaker belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum SpeakerSystem {
    /// On the home network: plays provider uris and its favourites.
    Local,
    /// Reached through the vendor's cloud: only favourites and playlists
    /// saved on the speaker system.
    Cloud,
}

/// Where a speaker can take music from: its library, a search, or what is
/// saved on the speaker system (favourites, playlists, radio).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum SourceMode {
    Library,
    Search,
    /// Favourites, playlists and radio saved on the speaker system.
    Favorites,
}

/// What a speaker says it can play (its provider detail `music`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpeakerMusic {
    pub system: SpeakerSystem,
    pub source_modes: BTreeSet<SourceMode>,
}

/// What playing a uri on a speaker needs besides the speaker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MusicNeed {
    /// A connected account of this provider in the household.
    Account { provider: String },
    /// One of the speaker system's own favourites or playlists.
    Choice,
}

impl SpeakerMusic {
    /// Read from an endpoint's provider detail; `None` when it is missing
    /// or malformed (such a speaker can play nothing). A cloud speaker never
    /// offers the library or search, whatever it says.
    pub fn of(capabilities: Option<&Map<String, Value>>) -> Option<Self> {
        let detail = capabilities?.get("music")?;
        let mut music: SpeakerMusic = serde_json::from_value(detail.clone()).ok()?;
        if music.system == SpeakerSystem::Cloud {
            music.source_modes.retain(|m| *m == SourceMode::Favorites);
        }
        Some(music)
    }

    /// What `uri` needs to play on this speaker, or why it cannot.
    pub fn needs(&self, uri: &MusicUri) -> Result<MusicNeed, &'static str> {
        match uri {
            MusicUri::Provider { provider, .. } => {
                if self.system == SpeakerSystem::Cloud {
                    return Err(
                        "a cloud speaker plays only favourites and playlists saved on its speaker system, not a provider uri",
                    );
                }
                if !self.source_modes.contains(&SourceMode::Library)
                    && !self.source_modes.contains(&SourceMode::Search)
                {
                    return Err("the speaker offers no library or search source");
                }
                Ok(MusicNeed::Account {
                    provider: provider.clone(),
                })
            }
            MusicUri::Favourite(_)
            | MusicUri::SpeakerFavorite(_)
            | MusicUri::SpeakerPlaylist(_) => {
                if !self.source_modes.contains(&SourceMode::Favorites) {
                    return Err("the speaker offers no favourites or playlists");
                }
                Ok(MusicNeed::Choice)
            }
        }
    }
}

/// What kind of saved choice a speaker system offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum ChoiceKind {
    Favorite,
    Playlist,
    Radio,
}

/// A favourite, playlist or radio station saved on a speaker system: its
/// uri (`FV:<id>`, `speaker:favorite:<id>`, `speaker:playlist:<id>`) is
/// what a music step stores.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct MusicChoice {
    pub uri: String,
    pub name: String,
    pub kind: ChoiceKind,
}

/// `POST v1/music/favourites`: the saved choices of some speakers.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FavouritesCall {
    pub integration_id: String,
    pub tenant_id: String,
    pub config: Map<String, Value>,
    pub external_ids: Vec<String>,
}

/// One speaker's saved choices, or why they could not be read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpeakerChoices {
    pub external_id: String,
    #[serde(default)]
    pub choices: Vec<MusicChoice>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FavouritesAnswer {
    pub speakers: Vec<SpeakerChoices>,
}

/// `POST v1/music/play`: play `uri` on one speaker now (its volume was set
/// before, through `v1/command`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayCall {
    pub integration_id: String,
    pub tenant_id: String,
    pub config: Map<String, Value>,
    pub external_id: String,
    pub uri: String,
}

/// The answer to `v1/music/play`. `playing` carries the speaker's state
/// read back after the change; the platform reads it again before it calls
/// the step applied.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum PlayAnswer {
    Playing {
        #[serde(default)]
        state: Map<String, Value>,
    },
    /// The speaker refuses this uri (not its favourite, not playable there).
    Rejected { reason: String },
    /// It could not be reached or failed.
    Failed { reason: String },
}

/// What a search looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum SearchType {
    Track,
    Playlist,
    Album,
    Artist,
}

impl SearchType {
    pub fn as_str(self) -> &'static str {
        match self {
            SearchType::Track => "track",
            SearchType::Playlist => "playlist",
            SearchType::Album => "album",
            SearchType::Artist => "artist",
        }
    }
}

/// `POST v1/music/search`: a page of a provider account's catalogue.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchCall {
    pub integration_id: String,
    pub tenant_id: String,
    pub config: Map<String, Value>,
    pub q: String,
    #[serde(rename = "type")]
    pub kind: SearchType,
    pub offset: u32,
    pub limit: u32,
}

/// One search result: its uri is what a music step stores.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct MusicItem {
    pub uri: String,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: SearchType,
    /// The artist of a track or album, the owner of a playlist.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub subtitle: Option<String>,
}

/// The answer to `v1/music/search`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum SearchAnswer {
    /// A page from `offset`, and how many results there are in all.
    Ok { items: Vec<MusicItem>, total: u32 },
    /// The session in `config` ended: refresh it (`v1/refresh`) and ask
    /// again.
    Expired,
    /// The person withdrew the platform's access at the provider.
    Revoked { reason: String },
    /// The provider limits calls; try again after this long.
    #[serde(rename_all = "camelCase")]
    RateLimited {
        #[serde(default)]
        retry_after_seconds: Option<u32>,
    },
}

/// `POST v1/refresh` (the integration's call body): a new session for a
/// provider account.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum RefreshAnswer {
    /// The new config to keep, and when its session ends.
    #[serde(rename_all = "camelCase")]
    Refreshed {
        config: Map<String, Value>,
        #[serde(default, with = "time::serde::rfc3339::option")]
        session_expires_at: Option<OffsetDateTime>,
    },
    Revoked {
        reason: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn speaker(detail: Value) -> Option<SpeakerMusic> {
        SpeakerMusic::of(json!({ "music": detail }).as_object())
    }

    #[test]
    fn what_a_speaker_plays_follows_its_system_and_modes() {
        let local = speaker(
            json!({ "system": "local", "sourceModes": ["library", "search", "favorites"] }),
        )
        .unwrap();
        let cloud =
            speaker(json!({ "system": "cloud", "sourceModes": ["library", "favorites"] })).unwrap();
        let track = MusicUri::parse("streamy:track:42").unwrap();
        let favourite = MusicUri::parse("FV:2").unwrap();
        let playlist = MusicUri::parse("speaker:playlist:p1").unwrap();
        assert_eq!(
            local.needs(&track),
            Ok(MusicNeed::Account {
                provider: "streamy".into()
            })
        );
        assert_eq!(local.needs(&favourite), Ok(MusicNeed::Choice));
        // A cloud speaker claiming a library still cannot play a bare uri.
        assert!(cloud.needs(&track).unwrap_err().contains("cloud speaker"));
        assert_eq!(cloud.source_modes, [SourceMode::Favorites].into());
        assert_eq!(cloud.needs(&playlist), Ok(MusicNeed::Choice));
        // Modes it does not offer fail closed.
        let radio_only =
            speaker(json!({ "system": "local", "sourceModes": ["favorites"] })).unwrap();
        assert!(radio_only.needs(&track).is_err());
        let library_only =
            speaker(json!({ "system": "local", "sourceModes": ["library"] })).unwrap();
        assert!(library_only.needs(&favourite).is_err());
        // No detail, or detail that does not read: nothing plays.
        assert_eq!(SpeakerMusic::of(None), None);
        assert_eq!(
            speaker(json!({ "system": "hifi", "sourceModes": [] })),
            None
        );
        assert_eq!(speaker(json!({ "sourceModes": ["library"] })), None);
    }

    #[test]
    fn answers_read_by_status() {
        let ok: SearchAnswer = serde_json::from_value(json!({
            "status": "ok", "total": 1,
            "items": [{ "uri": "streamy:track:1", "name": "One", "type": "track" }]
        }))
        .unwrap();
        assert!(matches!(ok, SearchAnswer::Ok { total: 1, .. }));
        let limited: SearchAnswer =
            serde_json::from_value(json!({ "status": "rate-limited", "retryAfterSeconds": 30 }))
                .unwrap();
        assert_eq!(
            limited,
            SearchAnswer::RateLimited {
                retry_after_seconds: Some(30)
            }
        );
        let expired: SearchAnswer = serde_json::from_value(json!({ "status": "expired" })).unwrap();
        assert_eq!(expired, SearchAnswer::Expired);
        let account: ProviderAccount = serde_json::from_value(json!({
            "provider": "streamy", "name": "Ana's Streamy",
            "sessionExpiresAt": "2026-11-26T10:00:00Z"
        }))
        .unwrap();
        assert!(account.provider_ok());
        let bad = ProviderAccount {
            provider: "Stream Y".into(),
            ..account
        };
        assert!(!bad.provider_ok());
    }
}

/// `v1/security/sound`: a speaker sounds the home-security alarm.
pub const SOUND_PATH: &str = "v1/security/sound";

/// A speaker sounds `sound` (the siren, or the fixed deterrent recording)
/// at `volume` (the speaker alarm's 50%), unmuted, on its own (the
/// platform ungrouped it first). The platform saved the speaker's state
/// before and puts it back after, through `v1/command` and `v1/music/play`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SoundCall {
    pub integration_id: String,
    pub tenant_id: String,
    pub config: Map<String, Value>,
    pub external_id: String,
    pub sound: crate::security::outputs::Sound,
    /// Which fixed recording, for the deterrent.
    #[serde(default)]
    pub recording: crate::security::Deterrent,
    pub volume: u8,
}

/// The answer to `v1/security/sound` (`sounding` with the speaker's state
/// after).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum SoundAnswer {
    Sounding {
        #[serde(default)]
        state: Map<String, Value>,
    },
    Rejected {
        reason: String,
    },
    Failed {
        reason: String,
    },
}

/// `v1/security/authority`: a dedicated security-system connector takes
/// over (or gives back) a home's security.
pub const AUTHORITY_PATH: &str = "v1/security/authority";

/// The platform hands `property_id`'s security to the connector (`active`:
/// its engine runs the home from now; the platform's own has stopped and
/// restored its outputs first) or takes it back (`active` false: stop
/// before the platform's engine starts again).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthorityCall {
    pub integration_id: String,
    pub tenant_id: String,
    pub config: Map<String, Value>,
    pub property_id: String,
    pub active: bool,
}

/// The answer to `v1/security/authority`: `active` or `inactive` as asked,
/// or `rejected` (not a security system).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum AuthorityAnswer {
    Active,
    Inactive,
    Rejected { reason: String },
}
