//! The bridge's music, so routines' music steps are tested for real over
//! the protocol:
//!
//! * **Speakers.** A SPEAKER thing whose provider detail says
//!   `music: { system, sourceModes }` plays through `v1/music/play`. The
//!   default living-room speaker is on a **local** speaker system (plays
//!   provider uris and the system's `FV:` favourites;
//!   [`VirtualBridge::add_local_speaker`] adds another, and
//!   [`VirtualBridge::group_speakers`] groups them: a group plays together,
//!   each member's state naming the group's coordinator in
//!   `media_player.group`); [`VirtualBridge::add_cloud_speaker`] adds a
//!   speaker of a **cloud**
//!   speaker system, which plays only what is saved on that system
//!   (`speaker:favorite:<id>`, `speaker:playlist:<id>`) and refuses a bare
//!   provider uri. Playing sets `media_player.playing` and
//!   `media_player.source`; [`VirtualBridge::set_silent`] makes a speaker
//!   say it plays while it stays quiet (the read-back tells).
//! * **Saved choices** (favourites, playlists, radio) are read through
//!   `v1/music/favourites`: [`default_choices`].
//! * **A streaming-provider account** ([`VirtualBridge::streaming`]): no
//!   things; the connect answers an `account` and a session in the config
//!   that ends after the bridge's session lifetime; `v1/music/search` pages
//!   a catalogue of tracks, playlists, albums and artists
//!   ([`catalogue`]); `v1/refresh` gives a new session. Switches a test
//!   flips: [`VirtualBridge::revoke_access`],
//!   [`VirtualBridge::set_rate_limited`], [`VirtualBridge::expire_sessions`]
//!   and [`VirtualBridge::set_slow`].

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use alyt_domain::device::{DeviceCapability, Lenient};
use alyt_domain::integration::EndpointKind;
use alyt_domain::integration::music::{
    ChoiceKind, FavouritesAnswer, FavouritesCall, MusicChoice, MusicItem, PlayAnswer, PlayCall,
    ProviderAccount, RefreshAnswer, SearchAnswer, SearchCall, SearchType, SpeakerChoices,
    SpeakerMusic, SpeakerSystem,
};
use alyt_domain::routine::MusicUri;
use serde_json::{Map, Value, json};

use super::{Bridge, NOT_RESPONDING, UNKNOWN_THING, VirtualBridge, object, random_secret, write};
use crate::{DiscoveredThing, IntegrationCall};

/// Tracks in the provider's catalogue (more than a search may page through).
pub const CATALOGUE_TRACKS: u32 = 1200;

/// The music side of a bridge.
#[derive(Default)]
pub(super) struct Music {
    /// Saved on the speaker systems: `FV:` for the local one, `speaker:`
    /// for the cloud one.
    choices: Vec<MusicChoice>,
    /// Speakers that answer `playing` and stay quiet.
    silent: BTreeSet<String>,
    /// Set on a streaming-provider bridge.
    pub(super) provider: Option<Provider>,
}

impl Music {
    pub(super) fn new() -> Self {
        Self {
            choices: default_choices(),
            ..Self::default()
        }
    }
}

/// A streaming provider's side: its sessions and switches.
pub(super) struct Provider {
    name: String,
    lifetime: Duration,
    /// Live sessions: token -> when it ends.
    sessions: BTreeMap<String, Instant>,
    revoked: bool,
    rate_limited: Option<u32>,
    catalogue: Vec<MusicItem>,
}

impl Provider {
    /// A new session: its token and when it ends, as the protocol says it.
    fn open_session(&mut self) -> (String, Option<time::OffsetDateTime>) {
        let token = random_secret("ses_");
        self.sessions
            .insert(token.clone(), Instant::now() + self.lifetime);
        let ends = time::OffsetDateTime::now_utc() + self.lifetime;
        (token, Some(ends))
    }

    fn session_live(&self, config: &Map<String, Value>) -> bool {
        config
            .get("session")
            .and_then(Value::as_str)
            .and_then(|token| self.sessions.get(token))
            .is_some_and(|ends| Instant::now() < *ends)
    }

    /// The config and account a connect answers.
    pub(super) fn connected(
        &mut self,
        mut config: Map<String, Value>,
    ) -> (Map<String, Value>, ProviderAccount) {
        let (session, ends) = self.open_session();
        config.insert("session".into(), session.into());
        let account = ProviderAccount {
            provider: self.name.clone(),
            name: format!("{} account", self.name),
            session_expires_at: ends,
        };
        (config, account)
    }
}

/// What the speaker systems have saved: two favourites of the local system,
/// a favourite and a playlist of the cloud one.
pub fn default_choices() -> Vec<MusicChoice> {
    let choice = |uri: &str, name: &str, kind| MusicChoice {
        uri: uri.into(),
        name: name.into(),
        kind,
    };
    vec![
        choice("FV:1", "Morning radio", ChoiceKind::Radio),
        choice("FV:2", "Jazz classics", ChoiceKind::Favorite),
        choice("speaker:favorite:f1", "Evening calm", ChoiceKind::Favorite),
        choice("speaker:playlist:p1", "Dinner party", ChoiceKind::Playlist),
    ]
}

/// A provider's catalogue: [`CATALOGUE_TRACKS`] tracks `Song 0001`... by 40
/// artists, 60 albums, 30 playlists and the 40 artists.
pub fn catalogue(provider: &str) -> Vec<MusicItem> {
    let item = |kind: SearchType, id: u32, name: String, subtitle: Option<String>| MusicItem {
        uri: format!("{provider}:{}:{id}", kind.as_str()),
        name,
        kind,
        subtitle,
    };
    let artist = |n: u32| format!("Artist {:02}", n % 40 + 1);
    let mut items = Vec::new();
    for n in 1..=CATALOGUE_TRACKS {
        items.push(item(
            SearchType::Track,
            n,
            format!("Song {n:04}"),
            Some(artist(n)),
        ));
    }
    for n in 1..=60 {
        items.push(item(
            SearchType::Album,
            n,
            format!("Album {n:02}"),
            Some(artist(n)),
        ));
    }
    for n in 1..=30 {
        items.push(item(
            SearchType::Playlist,
            n,
            format!("Playlist {n:02}"),
            Some(format!("{provider} editors")),
        ));
    }
    for n in 1..=40 {
        items.push(item(SearchType::Artist, n, artist(n - 1), None));
    }
    items
}

/// A speaker of the local speaker system (like the default living-room
/// one).
pub fn local_speaker(external_id: &str, name: &str, room: Option<&str>) -> DiscoveredThing {
    DiscoveredThing {
        capabilities: Some(object(json!({ "music": {
            "system": "local",
            "sourceModes": ["library", "search", "favorites"]
        } }))),
        state: object(
            json!({ "media_player": { "volume": 20, "muted": false, "playing": false } }),
        ),
        ..cloud_speaker(external_id, name, room)
    }
}

/// A speaker of a cloud speaker system.
pub fn cloud_speaker(external_id: &str, name: &str, room: Option<&str>) -> DiscoveredThing {
    DiscoveredThing {
        external_id: external_id.into(),
        kind: Lenient::Known(EndpointKind::Speaker),
        name: name.into(),
        room: room.map(str::to_owned),
        address: None,
        capability_set: vec![Lenient::Known(DeviceCapability::MediaPlayer)],
        capabilities: Some(object(
            json!({ "music": { "system": "cloud", "sourceModes": ["favorites"] } }),
        )),
        features: vec![],
        state: object(
            json!({ "media_player": { "volume": 30, "muted": false, "playing": false } }),
        ),
    }
}

impl VirtualBridge {
    /// A streaming-provider account's server: no things; its connect pairs
    /// as the bridge does and answers an account of `provider` whose
    /// sessions end after `session_lifetime`.
    pub fn streaming(
        runtime_token: impl Into<String>,
        pairing_code: impl Into<String>,
        provider: &str,
        session_lifetime: Duration,
    ) -> Self {
        let bridge = Self::new(runtime_token, pairing_code);
        {
            let mut inner = bridge.lock();
            inner.things.clear();
            inner.music.provider = Some(Provider {
                name: provider.to_owned(),
                lifetime: session_lifetime,
                sessions: BTreeMap::new(),
                revoked: false,
                rate_limited: None,
                catalogue: catalogue(provider),
            });
        }
        bridge
    }

    /// Adds a speaker of the local speaker system ([`local_speaker`]).
    pub fn add_local_speaker(&self, external_id: &str, name: &str, room: Option<&str>) {
        self.add_thing(local_speaker(external_id, name, room));
    }

    /// Groups speakers of one system under `coordinator` (itself included):
    /// playing on any of them plays on all. False when one is unknown.
    pub fn group_speakers(&self, coordinator: &str, members: &[&str]) -> bool {
        let mut bridge = self.lock();
        for id in std::iter::once(&coordinator).chain(members) {
            let Some(thing) = bridge.thing_mut(id) else {
                return false;
            };
            write(
                &mut thing.info.state,
                "media_player",
                "group",
                coordinator.into(),
            );
        }
        true
    }

    /// Adds a speaker of a cloud speaker system ([`cloud_speaker`]).
    pub fn add_cloud_speaker(&self, external_id: &str, name: &str, room: Option<&str>) {
        self.add_thing(cloud_speaker(external_id, name, room));
    }

    /// Makes a speaker answer `playing` to a play and stay quiet (or not).
    pub fn set_silent(&self, external_id: &str, silent: bool) {
        let mut bridge = self.lock();
        if silent {
            bridge.music.silent.insert(external_id.to_owned());
        } else {
            bridge.music.silent.remove(external_id);
        }
    }

    /// The person withdrew the platform's access at the provider: searches
    /// and refreshes answer `revoked`.
    pub fn revoke_access(&self) {
        if let Some(p) = self.lock().music.provider.as_mut() {
            p.revoked = true;
        }
    }

    /// The provider limits calls (`Some(retry after seconds)`) or not.
    pub fn set_rate_limited(&self, retry_after_seconds: Option<u32>) {
        if let Some(p) = self.lock().music.provider.as_mut() {
            p.rate_limited = retry_after_seconds;
        }
    }

    /// Every session ends now (the platform still thinks it is live).
    pub fn expire_sessions(&self) {
        if let Some(p) = self.lock().music.provider.as_mut() {
            p.sessions.clear();
        }
    }
}

impl Bridge {
    fn speaker(&self, external_id: &str) -> Result<(SpeakerMusic, bool), String> {
        let thing = self
            .things
            .iter()
            .find(|t| t.info.external_id == external_id)
            .ok_or_else(|| UNKNOWN_THING.to_owned())?;
        if !thing.reachable {
            return Err(NOT_RESPONDING.to_owned());
        }
        let music = SpeakerMusic::of(thing.info.capabilities.as_ref())
            .ok_or_else(|| "not a speaker of a speaker system".to_owned())?;
        Ok((music, thing.reachable))
    }

    fn choices_of(&self, system: SpeakerSystem) -> Vec<MusicChoice> {
        let prefix = match system {
            SpeakerSystem::Local => "FV:",
            SpeakerSystem::Cloud => "speaker:",
        };
        self.music
            .choices
            .iter()
            .filter(|c| c.uri.starts_with(prefix))
            .cloned()
            .collect()
    }

    pub(super) fn favourites(&self, call: &FavouritesCall) -> FavouritesAnswer {
        let speakers = call
            .external_ids
            .iter()
            .map(|id| match self.speaker(id) {
                Ok((music, _)) => SpeakerChoices {
                    external_id: id.clone(),
                    choices: self.choices_of(music.system),
                    error: None,
                },
                Err(error) => SpeakerChoices {
                    external_id: id.clone(),
                    choices: Vec::new(),
                    error: Some(error),
                },
            })
            .collect();
        FavouritesAnswer { speakers }
    }

    pub(super) fn play(&mut self, call: &PlayCall) -> PlayAnswer {
        let music = match self.speaker(&call.external_id) {
            Ok((music, _)) => music,
            Err(reason) => return PlayAnswer::Failed { reason },
        };
        let rejected = |reason: &str| PlayAnswer::Rejected {
            reason: reason.into(),
        };
        let Ok(uri) = MusicUri::parse(&call.uri) else {
            return rejected("not a music uri");
        };
        if let Err(why) = music.needs(&uri) {
            return rejected(why);
        }
        let saved = self.choices_of(music.system);
        let is_saved = saved.iter().any(|c| c.uri == call.uri);
        if !matches!(uri, MusicUri::Provider { .. }) && !is_saved {
            return rejected("not saved on this speaker system");
        }
        let silent = self.music.silent.contains(&call.external_id);
        let group = |t: &super::Thing| {
            t.info
                .state
                .get("media_player")
                .and_then(|p| p.get("group"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let Some(played) = self
            .things
            .iter()
            .find(|t| t.info.external_id == call.external_id)
        else {
            return PlayAnswer::Failed {
                reason: UNKNOWN_THING.into(),
            };
        };
        let played_group = group(played);
        if !silent {
            // The speaker, and every speaker grouped with it, play it.
            for thing in self.things.iter_mut() {
                let same = thing.info.external_id == call.external_id
                    || (played_group.is_some() && group(thing) == played_group);
                if same {
                    write(
                        &mut thing.info.state,
                        "media_player",
                        "playing",
                        true.into(),
                    );
                    write(
                        &mut thing.info.state,
                        "media_player",
                        "source",
                        call.uri.clone().into(),
                    );
                }
            }
        }
        let state = self
            .things
            .iter()
            .find(|t| t.info.external_id == call.external_id)
            .map(|t| t.info.state.clone())
            .unwrap_or_default();
        PlayAnswer::Playing { state }
    }

    pub(super) fn search(&self, call: &SearchCall) -> Option<SearchAnswer> {
        let provider = self.music.provider.as_ref()?;
        if provider.revoked {
            return Some(SearchAnswer::Revoked {
                reason: "the account holder withdrew this app's access".into(),
            });
        }
        if let Some(seconds) = provider.rate_limited {
            return Some(SearchAnswer::RateLimited {
                retry_after_seconds: Some(seconds),
            });
        }
        if !provider.session_live(&call.config) {
            return Some(SearchAnswer::Expired);
        }
        let q = call.q.to_lowercase();
        let found: Vec<&MusicItem> = provider
            .catalogue
            .iter()
            .filter(|i| i.kind == call.kind)
            .filter(|i| {
                i.name.to_lowercase().contains(&q)
                    || i.subtitle
                        .as_ref()
                        .is_some_and(|s| s.to_lowercase().contains(&q))
            })
            .collect();
        let items = found
            .iter()
            .skip(call.offset as usize)
            .take(call.limit.min(50) as usize)
            .map(|i| (*i).clone())
            .collect();
        Some(SearchAnswer::Ok {
            items,
            total: found.len() as u32,
        })
    }

    pub(super) fn refresh(&mut self, call: &IntegrationCall) -> Option<RefreshAnswer> {
        let provider = self.music.provider.as_mut()?;
        if provider.revoked {
            return Some(RefreshAnswer::Revoked {
                reason: "the account holder withdrew this app's access".into(),
            });
        }
        let (session, ends) = provider.open_session();
        let mut config = call.config.clone();
        config.insert("session".into(), session.into());
        Some(RefreshAnswer::Refreshed {
            config,
            session_expires_at: ends,
        })
    }
}
