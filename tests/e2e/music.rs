//! Music for routines over HTTP, against the virtual bridge's speaker
//! systems and streaming-provider account: what a home can play (speakers,
//! their modes and saved favourites, the household's accounts, never a
//! credential), every uri form and every refusal when a routine is saved,
//! playback on a cloud speaker, the check again right before playback,
//! provider search with its paging limits, and a revoked, rate-limited,
//! slow or expired provider.

use std::time::Duration;

use alyt_connectors::bridge::VirtualBridge;
use alyt_tests::TestPlatform;
use alyt_tests::developers::sign_up_and_verify;
use serde_json::{Value, json};

use crate::endpoints::{
    Installed, PAIRING_CODE, Served, endpoints_by_name, install_into, patch, serve_as,
};
use crate::routine_runs::finished;

/// A developer's sandbox home with the speaker bridge (a local speaker, and
/// a cloud speaker found on rediscovery) and a streaming account whose
/// sessions last `session`.
struct Home {
    speakers: Installed,
    account: Account,
}

struct Account {
    integration: String,
    bridge: VirtualBridge,
    _served: Served,
}

async fn home(t: &TestPlatform, email: &str, session: Duration) -> Home {
    let developer = sign_up_and_verify(t, email).await;
    let (_, homes) = t
        .get_json(
            &format!("/properties?tenantId={}", developer.sandbox_tenant_id),
            Some(&developer.access_token),
        )
        .await;
    let property = homes["items"][0]["id"].as_str().unwrap().to_owned();
    let served = serve_as(t, developer.clone(), "speakers", |token| {
        VirtualBridge::new(token, PAIRING_CODE)
    })
    .await;
    let speakers = install_into(t, served, property.clone()).await;
    speakers
        .bridge
        .add_cloud_speaker("cloud-kitchen", "Kitchen cloud speaker", Some("Kitchen"));
    speakers
        .bridge
        .add_local_speaker("speaker-bedroom", "Bedroom speaker", Some("Bedroom"));
    // A speaker that does not say what it can play.
    speakers.bridge.add_thing(alyt_connectors::DiscoveredThing {
        capabilities: None,
        ..alyt_connectors::bridge::music::cloud_speaker(
            "speaker-old",
            "Old speaker",
            Some("Office"),
        )
    });
    let (status, found) = t
        .post_json(
            &format!("/integrations/{}/discover", speakers.integration),
            Some(speakers.token()),
            json!({ "tenantId": speakers.tenant, "propertyId": property }),
        )
        .await;
    assert_eq!(status, 200, "{found}");

    let served = serve_as(t, developer.clone(), "streamy", |token| {
        VirtualBridge::streaming(token, PAIRING_CODE, "streamy", session)
    })
    .await;
    let integration = connect(t, &speakers, &served).await;
    Home {
        speakers,
        account: Account {
            integration,
            bridge: served.bridge.clone(),
            _served: served,
        },
    }
}

/// Connects a served connector in the speakers' home (challenge, then the
/// code): the integration's id.
async fn connect(t: &TestPlatform, home: &Installed, served: &Served) -> String {
    let (status, answer) = t
        .post_json(
            "/integrations",
            Some(home.token()),
            json!({
                "tenantId": home.tenant,
                "propertyId": home.property,
                "connectorId": served.connector,
                "input": { "host": "streamy.example" },
            }),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    let (status, answer) = t
        .post_json(
            "/integrations/challenge",
            Some(home.token()),
            json!({ "token": answer["token"], "input": { "pairingCode": PAIRING_CODE } }),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["status"], "connected", "{answer}");
    answer["integrationId"].as_str().unwrap().to_owned()
}

async fn music(t: &TestPlatform, i: &Installed) -> Value {
    let (status, music) = t
        .get_json(
            &format!(
                "/properties/{}/routines/music?tenantId={}",
                i.property, i.tenant
            ),
            Some(i.token()),
        )
        .await;
    assert_eq!(status, 200, "{music}");
    music
}

fn speaker<'a>(music: &'a Value, name: &str) -> Option<&'a Value> {
    music["speakers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
}

fn music_step(speaker: &str, uri: &str, volume: Option<Value>) -> Value {
    let mut step = json!({ "kind": "music", "speakerId": speaker, "uri": uri, "name": "Chosen" });
    if let Some(volume) = volume {
        step["volume"] = volume;
    }
    step
}

async fn save(t: &TestPlatform, i: &Installed, steps: Value) -> (u16, Value) {
    t.post_json(
        &format!("/properties/{}/routines?tenantId={}", i.property, i.tenant),
        Some(i.token()),
        json!({ "name": "Music", "do": steps }),
    )
    .await
}

async fn search(t: &TestPlatform, h: &Home, query: &str) -> (u16, Value) {
    t.get_json(
        &format!(
            "/integrations/{}/search?tenantId={}&{query}",
            h.account.integration, h.speakers.tenant
        ),
        Some(h.speakers.token()),
    )
    .await
}

#[tokio::test]
async fn a_home_lists_what_its_routines_can_play_and_every_uri_is_checked_on_save() {
    let t = TestPlatform::start().await;
    let h = home(&t, "music-choices@example.com", Duration::from_secs(3600)).await;
    let i = &h.speakers;
    let things = endpoints_by_name(&t, i).await;
    let local = things["Living room speaker"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let cloud = things["Kitchen cloud speaker"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let lamp = things["Hall lamp"]["id"].as_str().unwrap().to_owned();

    let listed = music(&t, i).await;
    let living = speaker(&listed, "Living room speaker").unwrap();
    assert_eq!(living["id"], local.as_str());
    assert_eq!(living["system"], "local");
    assert_eq!(
        living["sourceModes"],
        json!(["library", "search", "favorites"])
    );
    assert_eq!(
        living["favourites"],
        json!([
            { "uri": "FV:1", "name": "Morning radio", "kind": "radio" },
            { "uri": "FV:2", "name": "Jazz classics", "kind": "favorite" }
        ])
    );
    let kitchen = speaker(&listed, "Kitchen cloud speaker").unwrap();
    assert_eq!(kitchen["system"], "cloud");
    assert_eq!(kitchen["sourceModes"], json!(["favorites"]));
    assert_eq!(kitchen["favourites"][1]["uri"], "speaker:playlist:p1");
    assert_eq!(
        listed["accounts"],
        json!([{ "integrationId": h.account.integration, "provider": "streamy", "name": "streamy account" }])
    );
    // Never a credential: no bridge key, no session.
    let text = listed.to_string();
    assert!(!text.contains("bk_") && !text.contains("ses_"), "{text}");
    let (status, account) = t
        .get_json(
            &format!(
                "/integrations/{}?tenantId={}",
                h.account.integration, i.tenant
            ),
            Some(i.token()),
        )
        .await;
    assert_eq!(status, 200, "{account}");
    assert_eq!(
        account["account"],
        json!({ "provider": "streamy", "name": "streamy account" })
    );
    assert!(!account.to_string().contains("ses_"), "{account}");
    let (_, bridge) = t
        .get_json(
            &format!("/integrations/{}?tenantId={}", i.integration, i.tenant),
            Some(i.token()),
        )
        .await;
    assert!(bridge["account"].is_null(), "{bridge}");

    // One without its music detail plays nothing (fails closed).
    assert!(speaker(&listed, "Old speaker").is_none(), "{listed}");
    let old = things["Old speaker"]["id"].as_str().unwrap().to_owned();
    let (status, problem) = save(&t, i, json!([music_step(&old, "FV:1", None)])).await;
    assert_eq!(status, 400, "{problem}");
    assert_eq!(problem["field"], "do[0].speakerId");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("does not say what it can play"),
        "{problem}"
    );

    // A speaker in no room is not offered; placed in a room, it is.
    let (status, moved) = patch(&t, i, &cloud, json!({ "roomId": null })).await;
    assert_eq!(status, 200, "{moved}");
    assert!(speaker(&music(&t, i).await, "Kitchen cloud speaker").is_none());
    let kitchen_room = kitchen["roomId"].as_str().unwrap();
    let (status, _) = patch(&t, i, &cloud, json!({ "roomId": kitchen_room })).await;
    assert_eq!(status, 200);
    assert!(speaker(&music(&t, i).await, "Kitchen cloud speaker").is_some());

    // Every allowed form saves.
    for (speaker, uri) in [
        (&local, "streamy:track:7"),
        (&local, "streamy:playlist:3"),
        (&local, "FV:2"),
        (&cloud, "speaker:favorite:f1"),
        (&cloud, "speaker:playlist:p1"),
    ] {
        let (status, saved) = save(&t, i, json!([music_step(speaker, uri, Some(json!(40)))])).await;
        assert_eq!(status, 201, "{uri}: {saved}");
    }
    // Every refusal names its field.
    let cases = [
        (
            music_step(&local, "other:track:1", None),
            "do[0].uri",
            "no connected other account",
        ),
        (
            music_step(&local, "FV:99", None),
            "do[0].uri",
            "not a favourite",
        ),
        (
            music_step(&local, "speaker:favorite:f1", None),
            "do[0].uri",
            "not a favourite",
        ),
        (
            music_step(&local, "nonsense", None),
            "do[0].uri",
            "a uri of the form",
        ),
        (
            music_step(&cloud, "streamy:track:7", None),
            "do[0].uri",
            "cloud speaker",
        ),
        (
            music_step(&cloud, "FV:1", None),
            "do[0].uri",
            "not a favourite",
        ),
        (
            music_step(&local, "FV:2", Some(json!(101))),
            "do[0].volume",
            "0 to 100",
        ),
        (
            music_step(&local, "FV:2", Some(json!("loud"))),
            "do[0].volume",
            "",
        ),
        (
            music_step(&lamp, "FV:2", None),
            "do[0].speakerId",
            "no such speaker",
        ),
    ];
    for (step, field, says) in cases {
        let (status, problem) = save(&t, i, json!([step])).await;
        assert_eq!(status, 400, "{step}: {problem}");
        assert_eq!(problem["field"], field, "{step}: {problem}");
        assert!(
            problem["detail"].as_str().unwrap().contains(says),
            "{step}: {problem}"
        );
    }
    // A speaker system that cannot say what is saved: 502, nothing stored.
    assert!(i.bridge.set_reachable("speaker-living", false));
    let (status, problem) = save(&t, i, json!([music_step(&local, "FV:2", None)])).await;
    assert_eq!(status, 502, "{problem}");
    let (_, routines) = t
        .get_json(
            &format!("/properties/{}/routines?tenantId={}", i.property, i.tenant),
            Some(i.token()),
        )
        .await;
    assert_eq!(routines["items"].as_array().unwrap().len(), 5);
    assert!(i.bridge.set_reachable("speaker-living", true));

    // A speaker whose stored transport (its integration) belongs to another
    // home is neither offered nor accepted.
    let store = t.platform.store();
    let repo = alyt_store::repo::integrations::Integrations(&*store);
    let tenant = serde_json::from_value(json!(i.tenant)).unwrap();
    let id = serde_json::from_value(json!(i.integration)).unwrap();
    let mut moved = repo.get(tenant, id).await.unwrap().unwrap();
    moved.property_id = alyt_domain::ids::PropertyId::new();
    repo.replace(&moved).await.unwrap();
    let listed = music(&t, i).await;
    assert!(
        speaker(&listed, "Living room speaker").is_none(),
        "{listed}"
    );
    assert!(
        speaker(&listed, "Kitchen cloud speaker").is_none(),
        "{listed}"
    );
    let (status, problem) = save(&t, i, json!([music_step(&local, "FV:2", None)])).await;
    assert_eq!(status, 400, "{problem}");
    assert_eq!(problem["field"], "do[0].speakerId");
    assert!(
        problem["detail"].as_str().unwrap().contains("another home"),
        "{problem}"
    );
}

/// Only a connector's SPEAKER endpoint plays a music step: a speaker device
/// (the sandbox's virtual one, which has an enabled setting) has no way to
/// play a chosen uri, so it is neither listed nor accepted, enabled or not.
#[tokio::test]
async fn a_speaker_device_is_never_a_music_speaker_enabled_or_not() {
    let t = TestPlatform::start().await;
    let h = home(&t, "music-device@example.com", Duration::from_secs(3600)).await;
    let i = &h.speakers;
    let (status, page) = t
        .get_json(
            &format!("/developers/simulator/devices?tenantId={}", i.tenant),
            Some(i.token()),
        )
        .await;
    assert_eq!(status, 200, "{page}");
    let device = page["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["profile"] == "SPEAKER")
        .map(|d| d["device"].clone())
        .expect("the sandbox's virtual speaker");
    assert_eq!(device["propertyId"], i.property.as_str(), "{device}");
    let id = device["id"].as_str().unwrap();
    for enabled in [true, false] {
        let (status, row) = t
            .send_json(
                "PATCH",
                &format!("/devices/{id}/settings?tenantId={}", i.tenant),
                Some(i.token()),
                Some(json!({ "byCapability": {}, "enabled": enabled })),
            )
            .await;
        assert_eq!(status, 200, "{row}");
        let listed = music(&t, i).await;
        assert!(
            !listed["speakers"]
                .as_array()
                .unwrap()
                .iter()
                .any(|s| s["id"] == id),
            "{listed}"
        );
        let (status, problem) = save(&t, i, json!([music_step(id, "FV:1", None)])).await;
        assert_eq!(status, 400, "{problem}");
        assert_eq!(problem["field"], "do[0].speakerId", "{problem}");
    }
}

#[tokio::test]
async fn music_plays_on_a_cloud_speaker_and_is_checked_again_before_playback() {
    let t = TestPlatform::start().await;
    let h = home(&t, "music-play@example.com", Duration::from_secs(3600)).await;
    let i = &h.speakers;
    let things = endpoints_by_name(&t, i).await;
    let local = things["Living room speaker"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let cloud = things["Kitchen cloud speaker"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, routine) = save(
        &t,
        i,
        json!([
            music_step(&cloud, "speaker:playlist:p1", Some(json!(10))),
            music_step(&local, "streamy:track:7", None),
            { "kind": "delay", "seconds": 1 }
        ]),
    )
    .await;
    assert_eq!(status, 201, "{routine}");
    let routine = routine["id"].as_str().unwrap();
    let run = format!("/routines/{routine}/run?tenantId={}", i.tenant);

    // The living-room and bedroom speakers play as one group.
    assert!(
        i.bridge
            .group_speakers("speaker-living", &["speaker-bedroom"])
    );
    let (status, first) = t.post_json(&run, Some(i.token()), json!({})).await;
    assert_eq!(status, 202, "{first}");
    assert_eq!(
        i.bridge.thing_state("speaker-bedroom").unwrap()["media_player"]["source"],
        "streamy:track:7"
    );
    assert_eq!(first["steps"][0]["outcome"], "applied", "{first}");
    assert_eq!(first["steps"][0]["speaker"], "Kitchen cloud speaker");
    assert_eq!(first["steps"][1]["outcome"], "applied", "{first}");
    let kitchen = i.bridge.thing_state("cloud-kitchen").unwrap();
    assert_eq!(kitchen["media_player"]["source"], "speaker:playlist:p1");
    assert_eq!(kitchen["media_player"]["volume"], 10);
    assert_eq!(
        i.bridge.thing_state("speaker-living").unwrap()["media_player"]["source"],
        "streamy:track:7"
    );
    // The volume was left alone where the step gives none.
    assert_eq!(
        i.bridge.thing_state("speaker-living").unwrap()["media_player"]["volume"],
        20
    );

    // Played again although the speaker already plays it (never
    // deduplicated against what it seems to play).
    let plays = i.bridge.calls()["v1/music/play"];
    // The account is removed: the next run's provider step fails right
    // before playback; the others still run.
    let (status, _) = t
        .send_json(
            "DELETE",
            &format!(
                "/integrations/{}?tenantId={}",
                h.account.integration, i.tenant
            ),
            Some(i.token()),
            None,
        )
        .await;
    assert_eq!(status, 204);
    let (status, second) = t.post_json(&run, Some(i.token()), json!({})).await;
    assert_eq!(status, 202, "{second}");
    assert_eq!(second["steps"][0]["outcome"], "applied", "{second}");
    assert_eq!(second["steps"][1]["outcome"], "failed", "{second}");
    assert_eq!(
        second["steps"][1]["reason"],
        "the household has no connected streamy account"
    );
    assert_eq!(i.bridge.calls()["v1/music/play"], plays + 1);

    // A play that gets no answer within 10 s: recorded, never sent again
    // (the speaker may have started), and the later steps still run.
    i.bridge
        .set_slow_call("v1/music/play", Duration::from_secs(11));
    let (status, _) = t.post_json(&run, Some(i.token()), json!({})).await;
    assert_eq!(status, 202);
    let third = finished(&t, i, routine, Duration::from_secs(30)).await;
    i.bridge.set_slow_call("v1/music/play", Duration::ZERO);
    assert_eq!(third["steps"][0]["outcome"], "failed", "{third}");
    assert!(
        third["steps"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("not retried"),
        "{third}"
    );
    assert_eq!(third["steps"][2]["outcome"], "applied", "{third}");
    assert_eq!(i.bridge.calls()["v1/music/play"], plays + 2);

    // A speaker system answering garbage: a recorded failure.
    i.bridge.set_garbled("v1/music/play", true);
    let (status, fourth) = t.post_json(&run, Some(i.token()), json!({})).await;
    assert_eq!(status, 202, "{fourth}");
    assert_eq!(fourth["steps"][0]["outcome"], "failed", "{fourth}");
    assert!(
        fourth["steps"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("not the protocol"),
        "{fourth}"
    );
}

#[tokio::test]
async fn search_pages_within_its_limits_and_says_what_the_provider_refused() {
    let t = TestPlatform::start().await;
    let h = home(&t, "music-search@example.com", Duration::from_secs(3600)).await;

    let (status, page) = search(&t, &h, "q=song&type=track").await;
    assert_eq!(status, 200, "{page}");
    let items = page["items"].as_array().unwrap();
    assert_eq!(items.len(), 10);
    assert_eq!(
        items[0],
        json!({ "uri": "streamy:track:1", "name": "Song 0001", "type": "track", "subtitle": "Artist 02" })
    );
    // Follow the cursors: pages up to offset 1000, then no further.
    let mut cursor = page["nextCursor"].as_str().unwrap().to_owned();
    let mut pages = 1;
    let last = loop {
        let (status, page) = search(&t, &h, &format!("q=song&type=track&cursor={cursor}")).await;
        assert_eq!(status, 200, "{page}");
        pages += 1;
        match page["nextCursor"].as_str() {
            Some(next) => cursor = next.to_owned(),
            None => break page,
        }
    };
    assert_eq!(pages, 101);
    assert_eq!(last["items"][0]["name"], "Song 1001");
    // A cursor is bound to its query and type.
    for query in [
        format!("q=jazz&type=track&cursor={cursor}"),
        format!("q=song&type=album&cursor={cursor}"),
        "q=song&type=track&cursor=garbage".to_owned(),
    ] {
        let (status, problem) = search(&t, &h, &query).await;
        assert_eq!(status, 400, "{query}: {problem}");
        assert_eq!(problem["field"], "cursor");
    }
    for (query, field) in [
        ("q=&type=track", "q"),
        ("q=song&type=video", "type"),
        ("q=song&type=track&limit=11", "limit"),
    ] {
        let (status, problem) = search(&t, &h, query).await;
        assert_eq!(status, 400, "{query}: {problem}");
        if field != "type" {
            assert_eq!(problem["field"], field, "{problem}");
        }
    }
    let (status, albums) = search(&t, &h, "q=album&type=album&limit=3").await;
    assert_eq!(status, 200);
    assert_eq!(albums["items"].as_array().unwrap().len(), 3);
    assert_eq!(albums["items"][0]["uri"], "streamy:album:1");
    // The speakers' integration is no account.
    let (status, problem) = t
        .get_json(
            &format!(
                "/integrations/{}/search?tenantId={}&q=x&type=track",
                h.speakers.integration, h.speakers.tenant
            ),
            Some(h.speakers.token()),
        )
        .await;
    assert_eq!(status, 409, "{problem}");

    // An ended session is renewed and the search asked again.
    h.account.bridge.expire_sessions();
    let before = h.account.bridge.journal().len();
    let (status, page) = search(&t, &h, "q=jazz&type=artist").await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(
        h.account.bridge.journal()[before..],
        ["v1/music/search", "v1/refresh", "v1/music/search"]
    );

    // Rate limited: 503 with when to try again.
    h.account.bridge.set_rate_limited(Some(42));
    let response = t
        .http
        .get(t.url(&format!(
            "/integrations/{}/search?tenantId={}&q=song&type=track",
            h.account.integration, h.speakers.tenant
        )))
        .bearer_auth(h.speakers.token())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 503);
    assert_eq!(response.headers()["retry-after"], "42");
    let problem: Value = response.json().await.unwrap();
    assert!(
        problem["type"]
            .as_str()
            .unwrap()
            .ends_with("provider-rate-limited"),
        "{problem}"
    );
    h.account.bridge.set_rate_limited(None);

    // Slow past the 10 s limit: 502, the connector named.
    h.account.bridge.set_slow(Duration::from_secs(11));
    let (status, problem) = search(&t, &h, "q=song&type=track").await;
    assert_eq!(status, 502, "{problem}");
    h.account.bridge.set_slow(Duration::ZERO);

    // Revoked: 409 saying to connect again.
    h.account.bridge.revoke_access();
    let (status, problem) = search(&t, &h, "q=song&type=track").await;
    assert_eq!(status, 409, "{problem}");
    assert!(
        problem["type"]
            .as_str()
            .unwrap()
            .ends_with("provider-access-revoked"),
        "{problem}"
    );
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("connect it again"),
        "{problem}"
    );
}

#[tokio::test]
async fn a_session_about_to_end_is_renewed_before_the_search() {
    let t = TestPlatform::start().await;
    // Sessions of five seconds are always within the renewal margin.
    let h = home(&t, "music-session@example.com", Duration::from_secs(5)).await;
    let (status, page) = search(&t, &h, "q=playlist&type=playlist").await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["items"][0]["uri"], "streamy:playlist:1");
    assert_eq!(
        h.account.bridge.journal(),
        [
            "v1/connect",
            "v1/connect",
            "v1/discover",
            "v1/refresh",
            "v1/music/search"
        ]
    );
}

/// A speaker the household disabled is not offered, a music step naming it
/// is refused on save, and a routine saved before fails that step right
/// before playback (nothing sent to it) while the later steps still run.
#[tokio::test]
async fn a_disabled_speaker_is_not_offered_refused_on_save_and_fails_before_playback() {
    let t = TestPlatform::start().await;
    let h = home(&t, "music-disabled@example.com", Duration::from_secs(3600)).await;
    let i = &h.speakers;
    let things = endpoints_by_name(&t, i).await;
    let local = things["Living room speaker"]["id"].as_str().unwrap();
    let cloud = things["Kitchen cloud speaker"]["id"].as_str().unwrap();
    let (status, routine) = save(
        &t,
        i,
        json!([
            music_step(cloud, "speaker:playlist:p1", Some(json!(10))),
            music_step(local, "streamy:track:7", None)
        ]),
    )
    .await;
    assert_eq!(status, 201, "{routine}");
    let routine = routine["id"].as_str().unwrap();

    let (status, thing) = patch(&t, i, cloud, json!({ "enabled": false })).await;
    assert_eq!(status, 200, "{thing}");
    let listed = music(&t, i).await;
    assert!(
        speaker(&listed, "Kitchen cloud speaker").is_none(),
        "{listed}"
    );
    assert!(speaker(&listed, "Living room speaker").is_some());
    let (status, problem) = save(
        &t,
        i,
        json!([music_step(cloud, "speaker:playlist:p1", None)]),
    )
    .await;
    assert_eq!(status, 400, "{problem}");
    assert_eq!(problem["field"], "do[0].speakerId");
    assert!(
        problem["detail"].as_str().unwrap().contains("disabled"),
        "{problem}"
    );

    let plays = i.bridge.calls().get("v1/music/play").copied().unwrap_or(0);
    let (status, run) = t
        .post_json(
            &format!("/routines/{routine}/run?tenantId={}", i.tenant),
            Some(i.token()),
            json!({}),
        )
        .await;
    assert_eq!(status, 202, "{run}");
    assert_eq!(run["steps"][0]["outcome"], "failed", "{run}");
    assert_eq!(
        run["steps"][0]["reason"],
        "the speaker is disabled; enable it to play music on it"
    );
    assert_eq!(run["steps"][1]["outcome"], "applied", "{run}");
    assert_eq!(
        i.bridge.calls()["v1/music/play"],
        plays + 1,
        "only the enabled one"
    );
    assert_ne!(
        i.bridge.thing_state("cloud-kitchen").unwrap()["media_player"]["volume"],
        10,
        "not even its volume was set"
    );

    // Enabled again, it is offered and saves.
    let (status, _) = patch(&t, i, cloud, json!({ "enabled": true })).await;
    assert_eq!(status, 200);
    assert!(speaker(&music(&t, i).await, "Kitchen cloud speaker").is_some());
    let (status, saved) = save(
        &t,
        i,
        json!([music_step(cloud, "speaker:playlist:p1", None)]),
    )
    .await;
    assert_eq!(status, 201, "{saved}");
}
