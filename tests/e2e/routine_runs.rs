//! Running routines over HTTP: a manual run goes through every kind of
//! step in order (an endpoint, a virtual device answering slowly, a room
//! action, a delay, music on the bridge's speaker, a security step that
//! cannot run yet), music waits for the device's answer, and the history
//! says what each step did; scheduled occurrences run once at their time
//! on a clock the test moves, and an occurrence found too late is not run.

use std::sync::Arc;
use std::time::Duration;

use alyt_domain::ManualClock;
use alyt_local::InjectedClock;
use alyt_tests::TestPlatform;
use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::endpoints::{Installed, endpoints_by_name, install, install_bridge, serve_bridge_as};
use crate::simulator::{fast, sandbox, set_scenario, wait_all_online};

fn id(things: &Value, name: &str) -> String {
    things[name]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("no {name:?} in {things}"))
        .to_owned()
}

fn at(value: &Value) -> OffsetDateTime {
    OffsetDateTime::parse(value.as_str().unwrap(), &Rfc3339).unwrap()
}

async fn create(t: &TestPlatform, i: &Installed, body: Value) -> String {
    let (status, created) = t
        .post_json(
            &format!("/properties/{}/routines?tenantId={}", i.property, i.tenant),
            Some(i.token()),
            body,
        )
        .await;
    assert_eq!(status, 201, "{created}");
    created["id"].as_str().unwrap().to_owned()
}

async fn runs(t: &TestPlatform, i: &Installed, routine: &str) -> Vec<Value> {
    let (status, page) = t
        .get_json(
            &format!("/routines/{routine}/runs?tenantId={}", i.tenant),
            Some(i.token()),
        )
        .await;
    assert_eq!(status, 200, "{page}");
    page["items"].as_array().unwrap().clone()
}

/// Runs `routine` by hand: the run as answered (202).
async fn run_now(t: &TestPlatform, i: &Installed, routine: &str) -> Value {
    let (status, run) = t
        .post_json(
            &format!("/routines/{routine}/run?tenantId={}", i.tenant),
            Some(i.token()),
            json!({}),
        )
        .await;
    assert_eq!(status, 202, "{run}");
    run
}

/// The newest run once it finished.
pub(crate) async fn finished(
    t: &TestPlatform,
    i: &Installed,
    routine: &str,
    within: Duration,
) -> Value {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        let runs = runs(t, i, routine).await;
        if let Some(run) = runs.first()
            && run["state"] == "finished"
        {
            return run.clone();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no finished run within {within:?}: {runs:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn a_manual_run_goes_through_every_step_and_music_waits_for_the_devices() {
    let t = TestPlatform::start_with(fast).await;
    let s = sandbox(&t, "runs@example.com").await;
    wait_all_online(&t, &s).await;
    let served = serve_bridge_as(&t, s.dev.clone(), "bridge-runs").await;
    let bridge = served.bridge.clone();
    let i = install(&t, served).await;
    let things = endpoints_by_name(&t, &i).await;
    let (lamp, speaker) = (id(&things, "Hall lamp"), id(&things, "Living room speaker"));
    let hall = things["Hall lamp"]["roomId"].as_str().unwrap().to_owned();
    let light = s.id("LIGHT");
    // The virtual light answers its commands after five seconds.
    let (status, body) = set_scenario(
        &t,
        &s,
        "LIGHT",
        json!({ "scenario": "SLOW", "seconds": 60 }),
    )
    .await;
    assert_eq!(status, 200, "{body}");

    let routine = create(
        &t,
        &i,
        json!({
            "name": "Evening",
            "do": [
                { "kind": "thing", "thing": { "kind": "endpoint", "id": lamp },
                  "command": { "command": "set", "payload": { "capability": "light", "key": "power", "value": true } } },
                { "kind": "thing", "thing": { "kind": "device", "id": light },
                  "command": { "command": "set", "payload": { "capability": "light", "key": "power", "value": true } } },
                { "kind": "room", "roomId": hall, "capability": "light", "action": "lights", "value": true },
                { "kind": "delay", "seconds": 1 },
                { "kind": "music", "speakerId": speaker, "uri": "FV:2", "name": "Jazz classics", "volume": 25 },
                { "kind": "security", "mode": "away" }
            ]
        }),
    )
    .await;

    let run = run_now(&t, &i, &routine).await;
    // Answered at the delay: the first three steps are done, the rest follow.
    assert_eq!(run["state"], "running", "{run}");
    assert_eq!(run["stepCount"], 6);
    assert_eq!(run["cause"]["kind"], "manual");
    assert!(run["cause"]["by"].is_string(), "{run}");
    assert_eq!(run["steps"].as_array().unwrap().len(), 4, "{run}");
    assert_eq!(
        bridge.thing_state("lamp-hall").unwrap()["light"]["power"],
        true
    );

    let run = finished(&t, &i, &routine, Duration::from_secs(30)).await;
    let steps = run["steps"].as_array().unwrap();
    let outcomes: Vec<&str> = steps
        .iter()
        .map(|s| s["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(
        outcomes,
        [
            "applied", "applied", "applied", "applied", "applied", "applied"
        ],
        "{run}"
    );
    assert_eq!(steps[0]["detail"], "Hall lamp");
    assert_eq!(steps[1]["things"][0]["thingId"], light.as_str());
    let command = steps[1]["things"][0]["commandId"].as_str().unwrap();
    assert_eq!(steps[2]["detail"], "Hall");
    assert_eq!(steps[2]["things"][0]["name"], "Hall lamp");
    assert_eq!(steps[3]["detail"], "waited 1 s");
    assert_eq!(steps[4]["speaker"], "Living room speaker");
    assert_eq!(steps[4]["music"], "Jazz classics");
    // The security step armed the home, for the developer who ran it (the
    // owner of the sandbox's household controls its security; checked when
    // the step ran).
    assert_eq!(steps[5]["detail"], "mode away");
    let (status, security) = t
        .get_json(
            &format!("/home-security/{}?tenantId={}", i.property, i.tenant),
            Some(i.token()),
        )
        .await;
    assert_eq!(status, 200, "{security}");
    assert_eq!(security["requestedMode"], "away", "{security}");

    // The speaker plays what was chosen, at the chosen volume: volume first,
    // then the source, then the read-back.
    let speaker_state = bridge.thing_state("speaker-living").unwrap();
    assert_eq!(speaker_state["media_player"]["volume"], 25);
    assert_eq!(speaker_state["media_player"]["playing"], true);
    assert_eq!(speaker_state["media_player"]["source"], "FV:2");
    let journal = bridge.journal();
    assert_eq!(
        journal[journal.len() - 4..],
        [
            "v1/music/favourites",
            "v1/command",
            "v1/music/play",
            "v1/read"
        ]
    );

    // Music waited for the slow light's answer (about five seconds).
    let (status, history) = t
        .get_json(
            &format!("/devices/{light}/commands?tenantId={}", i.tenant),
            Some(i.token()),
        )
        .await;
    assert_eq!(status, 200, "{history}");
    let row = history["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["commandId"] == command)
        .unwrap_or_else(|| panic!("no command {command} in {history}"));
    assert_eq!(row["state"], "answered", "{row}");
    assert!(at(&row["answeredAt"]) <= at(&steps[4]["at"]), "{row} {run}");
    assert!(
        at(&steps[4]["at"]) - at(&run["startedAt"]) >= time::Duration::seconds(4),
        "{run}"
    );

    // Another run; the history pages newest first.
    set_scenario(&t, &s, "LIGHT", json!({ "scenario": "NORMAL" })).await;
    let second = run_now(&t, &i, &routine).await;
    let (status, page) = t
        .get_json(
            &format!("/routines/{routine}/runs?tenantId={}&limit=1", i.tenant),
            Some(i.token()),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(page["items"][0]["id"], second["id"]);
    let cursor = page["nextCursor"].as_str().unwrap();
    let (status, page) = t
        .get_json(
            &format!(
                "/routines/{routine}/runs?tenantId={}&limit=1&cursor={cursor}",
                i.tenant
            ),
            Some(i.token()),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(page["items"][0]["id"], run["id"]);
    assert!(page["nextCursor"].is_null(), "{page}");
}

#[tokio::test]
async fn failures_are_recorded_and_later_steps_still_run() {
    let t = TestPlatform::start().await;
    let i = install_bridge(&t, "runs-fail@example.com").await;
    let things = endpoints_by_name(&t, &i).await;
    let (lamp, plug, speaker) = (
        id(&things, "Hall lamp"),
        id(&things, "Kitchen plug"),
        id(&things, "Living room speaker"),
    );
    let routine = create(
        &t,
        &i,
        json!({
            "name": "Night",
            "do": [
                { "kind": "thing", "thing": { "kind": "endpoint", "id": lamp },
                  "command": { "command": "set", "payload": { "capability": "light", "key": "power", "value": true } } },
                { "kind": "music", "speakerId": speaker, "uri": "FV:1", "name": "Morning radio" },
                { "kind": "thing", "thing": { "kind": "endpoint", "id": plug },
                  "command": { "command": "set", "payload": { "capability": "switch", "key": "power", "value": true } } }
            ]
        }),
    )
    .await;
    // The lamp stops answering and the speaker says it plays but stays
    // quiet: both fail with their reason, the plug is still switched on.
    bridge_off(&i);
    let run = run_now(&t, &i, &routine).await;
    assert_eq!(run["state"], "finished", "{run}");
    let steps = run["steps"].as_array().unwrap();
    assert_eq!(steps[0]["outcome"], "failed");
    assert!(
        steps[0]["reason"]
            .as_str()
            .unwrap()
            .contains("not responding"),
        "{run}"
    );
    assert_eq!(steps[1]["outcome"], "failed");
    assert!(
        steps[1]["reason"].as_str().unwrap().contains("not playing"),
        "{run}"
    );
    assert_eq!(steps[2]["outcome"], "applied", "{run}");
    assert_eq!(
        i.bridge.thing_state("plug-kitchen").unwrap()["switch"]["power"],
        true
    );

    // A disabled routine does not run.
    let (status, _) = t
        .send_json(
            "PATCH",
            &format!("/routines/{routine}?tenantId={}", i.tenant),
            Some(i.token()),
            Some(json!({ "enabled": false })),
        )
        .await;
    assert_eq!(status, 200);
    let (status, refused) = t
        .post_json(
            &format!("/routines/{routine}/run?tenantId={}", i.tenant),
            Some(i.token()),
            json!({}),
        )
        .await;
    assert_eq!(status, 409, "{refused}");
}

fn bridge_off(i: &Installed) {
    assert!(i.bridge.set_reachable("lamp-hall", false));
    i.bridge.set_silent("speaker-living", true);
}

/// Routines on a clock the test moves: an occurrence runs once at its time;
/// one found more than ten minutes late is passed over.
#[tokio::test]
async fn scheduled_occurrences_run_once_at_their_time() {
    let now = OffsetDateTime::now_utc();
    let start = now
        .replace_second(0)
        .unwrap()
        .replace_nanosecond(0)
        .unwrap()
        + time::Duration::minutes(1);
    let clock = Arc::new(ManualClock::new(start));
    let injected = clock.clone();
    let t = TestPlatform::start_with_config(move |config| {
        config.clock = Some(InjectedClock(injected));
        config.routine_runner_every = Duration::from_millis(100);
    })
    .await;
    let i = install_bridge(&t, "runs-schedule@example.com").await;
    let things = endpoints_by_name(&t, &i).await;
    let lamp = id(&things, "Hall lamp");
    let hhmm = |at: OffsetDateTime| format!("{:02}:{:02}", at.hour(), at.minute());
    let every_day = json!(["mon", "tue", "wed", "thu", "fri", "sat", "sun"]);
    let body = |name: &str, at: OffsetDateTime| {
        json!({
            "name": name,
            "triggers": [{ "kind": "time", "at": hhmm(at), "days": every_day }],
            "do": [{ "kind": "thing", "thing": { "kind": "endpoint", "id": lamp },
                     "command": { "command": "set", "payload": { "capability": "light", "key": "power", "value": true } } }]
        })
    };
    let early = start + time::Duration::minutes(2);
    let later = start + time::Duration::minutes(14);
    let missed = create(&t, &i, body("Missed", early)).await;
    let on_time = create(&t, &i, body("On time", later)).await;

    // Ten and a half minutes late: passed over, due again tomorrow.
    clock.set(early + time::Duration::seconds(630));
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(runs(&t, &i, &missed).await.is_empty());
    let (_, read) = t
        .get_json(
            &format!("/routines/{missed}?tenantId={}", i.tenant),
            Some(i.token()),
        )
        .await;
    assert_eq!(
        at(&read["nextDue"]),
        early + time::Duration::days(1),
        "{read}"
    );

    // Not before its time; at its time, once, however many passes see it.
    clock.set(later - time::Duration::seconds(1));
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(runs(&t, &i, &on_time).await.is_empty());
    assert_eq!(
        i.bridge.thing_state("lamp-hall").unwrap()["light"]["power"],
        false
    );
    clock.set(later);
    let run = finished(&t, &i, &on_time, Duration::from_secs(10)).await;
    assert_eq!(run["cause"]["kind"], "schedule", "{run}");
    assert_eq!(run["cause"]["trigger"], 0);
    assert_eq!(run["cause"]["localDate"], later.date().to_string(), "{run}");
    assert_eq!(run["steps"][0]["outcome"], "applied", "{run}");
    assert_eq!(
        i.bridge.thing_state("lamp-hall").unwrap()["light"]["power"],
        true
    );
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(runs(&t, &i, &on_time).await.len(), 1);
    let (_, read) = t
        .get_json(
            &format!("/routines/{on_time}?tenantId={}", i.tenant),
            Some(i.token()),
        )
        .await;
    assert_eq!(
        at(&read["nextDue"]),
        later + time::Duration::days(1),
        "{read}"
    );
}

/// Who may run a routine and read its runs: everyone who controls the home
/// runs it (members, a guest in its pinned home, those who configure it);
/// platform SUPPORT only reads; a key needs things:control to run and
/// things:read to read; nobody outside the tenant learns it exists.
#[tokio::test]
async fn who_may_run_a_routine_and_read_its_runs() {
    use alyt_tests::principals::{Principals, Who};

    let t = TestPlatform::start_with(|config| config.rate_limit.quota = 100_000).await;
    let p = Principals::seed(&t).await;
    let first = t.platform.first_start.as_ref().unwrap();
    let (tenant, home) = (first.tenant_id.to_string(), first.property_id.to_string());
    let (status, created) = t
        .post_json(
            &format!("/properties/{home}/routines?tenantId={tenant}"),
            p.token(Who::HouseholdOwner),
            json!({ "name": "Lock up", "do": [{ "kind": "security", "mode": "away" }] }),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let routine = created["id"].as_str().unwrap();
    let run = format!("/routines/{routine}/run?tenantId={tenant}");
    let read = format!("/routines/{routine}/runs?tenantId={tenant}");
    let cases = [
        (Who::Anonymous, 401, 401),
        (Who::HouseholdOwner, 202, 200),
        (Who::HouseholdMember, 202, 200),
        (Who::HouseholdGuest, 202, 200),
        (Who::PlatformOwner, 202, 200),
        (Who::PlatformStaff, 202, 200),
        (Who::PlatformSupport, 403, 200),
        (Who::TenantAdmin, 202, 200),
        (Who::TenantInstaller, 202, 200),
        (Who::DeveloperSession, 404, 404),
        (Who::DevKey, 404, 404),
        (Who::LiveKey, 404, 404),
    ];
    let mut ran = 0;
    for (who, runs, reads) in cases {
        let (status, body) = t.post_json(&run, p.token(who), json!({})).await;
        assert_eq!(status, runs, "{who:?} runs: {body}");
        if status == 202 {
            ran += 1;
            assert_eq!(body["state"], "finished", "{body}");
            assert_eq!(body["steps"][0]["outcome"], "failed");
            // The step checks the runner's own right to control security
            // when it runs: staff and the tenant's roles may run routines,
            // not arm homes; those who may arm meet a home with nothing to
            // watch.
            let reason = body["steps"][0]["reason"].as_str().unwrap();
            let expected = match who {
                Who::PlatformStaff
                | Who::TenantAdmin
                | Who::TenantInstaller
                | Who::HouseholdGuest => "does not control this home's security",
                _ => "no selected signal is watched",
            };
            assert!(reason.contains(expected), "{who:?}: {reason}");
        }
        let (status, body) = t.get_json(&read, p.token(who)).await;
        assert_eq!(status, reads, "{who:?} reads: {body}");
    }
    let (_, page) = t
        .get_json(&format!("{read}&limit=100"), p.token(Who::HouseholdOwner))
        .await;
    assert_eq!(page["items"].as_array().unwrap().len(), ran);

    // In its sandbox, a developer's key needs the scopes.
    let dev = &p.developer;
    let sandbox = &dev.sandbox_tenant_id;
    let (_, homes) = t
        .get_json(
            &format!("/properties?tenantId={sandbox}"),
            Some(&dev.access_token),
        )
        .await;
    let sandbox_home = homes["items"][0]["id"].as_str().unwrap();
    let (status, created) = t
        .post_json(
            &format!("/properties/{sandbox_home}/routines?tenantId={sandbox}"),
            Some(&dev.access_token),
            json!({ "name": "Try", "do": [{ "kind": "delay", "seconds": 1 }] }),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let routine = created["id"].as_str().unwrap();
    let (_, reader) = alyt_tests::developers::create_key(&t, dev, &["things:read"]).await;
    let (status, refused) = t
        .post_json(
            &format!("/routines/{routine}/run?tenantId={sandbox}"),
            Some(&reader),
            json!({}),
        )
        .await;
    assert_eq!(status, 403, "{refused}");
    let (status, _) = t
        .get_json(
            &format!("/routines/{routine}/runs?tenantId={sandbox}"),
            Some(&reader),
        )
        .await;
    assert_eq!(status, 200);
    let (_, runner) = alyt_tests::developers::create_key(&t, dev, &["things:control"]).await;
    let (status, started) = t
        .post_json(
            &format!("/routines/{routine}/run?tenantId={sandbox}"),
            Some(&runner),
            json!({}),
        )
        .await;
    assert_eq!(status, 202, "{started}");
    assert!(
        started["cause"]["by"].is_null(),
        "a key is nobody: {started}"
    );
}
