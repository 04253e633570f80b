//! Home security over HTTP: the status with every thing security uses (by
//! capabilities and features), readiness with what blocks each mode, arming
//! with the reviewed revision and generation, the exit countdown, a change
//! between armed modes at once, Off that a stale generation cannot send, a
//! repeated request answered the same and a reused request id refused, settings
//! and selections only while Off (an exclusion surviving rediscovery), and who
//! may do what.

use std::time::Duration;

use alyt_tests::TestPlatform;
use serde_json::{Value, json};
use uuid::Uuid;

use crate::endpoints::{Installed, endpoints_by_name, install_bridge};

async fn status(t: &TestPlatform, i: &Installed) -> Value {
    let (code, body) = t
        .get_json(
            &format!("/home-security/{}?tenantId={}", i.property, i.tenant),
            Some(i.token()),
        )
        .await;
    assert_eq!(code, 200, "{body}");
    body
}

fn thing<'a>(status: &'a Value, name: &str) -> &'a Value {
    status["things"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no {name:?} in {status}"))
}

async fn mode(t: &TestPlatform, i: &Installed, body: Value) -> (u16, Value) {
    let mut body = body;
    body["tenantId"] = json!(i.tenant);
    t.post_json(
        &format!("/home-security/{}/mode", i.property),
        Some(i.token()),
        body,
    )
    .await
}

fn arm(mode: &str, revision: u64, generation: u64) -> Value {
    json!({ "mode": mode, "requestId": Uuid::new_v4(), "revision": revision, "generation": generation })
}

async fn refresh(t: &TestPlatform, i: &Installed, endpoint: &str) {
    let (code, body) = t
        .post_json(
            &format!("/endpoints/{endpoint}/refresh?tenantId={}", i.tenant),
            Some(i.token()),
            json!({}),
        )
        .await;
    assert_eq!(code, 200, "{body}");
}

async fn patch_settings(t: &TestPlatform, i: &Installed, body: Value) -> (u16, Value) {
    let mut body = body;
    body["tenantId"] = json!(i.tenant);
    t.send_json(
        "PATCH",
        &format!("/home-security/{}/settings", i.property),
        Some(i.token()),
        Some(body),
    )
    .await
}

async fn discover(t: &TestPlatform, i: &Installed) {
    let (code, body) = t
        .post_json(
            &format!("/integrations/{}/discover", i.integration),
            Some(i.token()),
            json!({ "tenantId": i.tenant, "propertyId": i.property }),
        )
        .await;
    assert_eq!(code, 200, "{body}");
}

/// A sandbox home with the bridge's security things discovered.
async fn security_home(t: &TestPlatform, email: &str) -> Installed {
    let i = install_bridge(t, email).await;
    i.bridge.add_security_things();
    discover(t, &i).await;
    i
}

#[tokio::test]
async fn a_home_arms_and_turns_off_with_every_check() {
    let t = TestPlatform::start().await;
    let i = security_home(&t, "security@example.com").await;
    let things = endpoints_by_name(&t, &i).await;
    let door = things["Front door"]["id"].as_str().unwrap().to_owned();
    let garage = things["Garage camera"]["id"].as_str().unwrap().to_owned();

    // What security sees, by capabilities and features.
    let s = status(&t, &i).await;
    assert_eq!(s["authority"], "builtin");
    assert_eq!(
        (s["requestedMode"].as_str(), s["confirmedMode"].as_str()),
        (Some("off"), Some("off"))
    );
    assert_eq!(
        (s["revision"].as_u64(), s["generation"].as_u64()),
        (Some(0), Some(0))
    );
    assert_eq!(s["access"], "configure");
    assert_eq!(thing(&s, "Front door")["enrolled"], json!(["contact"]));
    assert_eq!(thing(&s, "Hall motion")["enrolled"], json!(["motion"]));
    assert_eq!(
        thing(&s, "Bedroom window")["enrolled"],
        json!(["vibration"])
    );
    assert_eq!(thing(&s, "Garden camera")["enrolled"], json!(["camera"]));
    let plain = thing(&s, "Garage camera");
    assert_eq!(plain["camera"], true);
    assert_eq!(
        plain["enrolled"],
        json!([]),
        "a camera without detection stays a camera"
    );
    assert_eq!(plain["signals"], json!(["camera"]));
    let lock = thing(&s, "Front lock");
    assert_eq!(
        (lock["lock"].as_bool(), lock["keypad"].as_bool()),
        (Some(true), Some(true))
    );
    assert_eq!(lock["enrolled"], json!([]), "a lock is an access device");
    let siren = thing(&s, "Hall siren");
    assert_eq!(siren["outputs"], json!(["siren"]));
    assert_eq!(siren["enrolled"], json!([]), "a siren is an output only");
    assert_eq!(thing(&s, "Hall lamp")["outputs"], json!(["light"]));
    assert_eq!(
        thing(&s, "Living room speaker")["outputs"],
        json!(["speaker"])
    );
    assert_eq!(s["readiness"]["away"]["ready"], true, "{s}");

    // An open door blocks every mode that watches it, and is named.
    assert!(
        i.bridge
            .set_state("door-front", "sensor.contact", "open", json!(true))
    );
    refresh(&t, &i, &door).await;
    let s = status(&t, &i).await;
    assert_eq!(s["readiness"]["away"]["ready"], false);
    assert_eq!(
        s["readiness"]["home"]["blockers"],
        json!([{ "thingId": door, "name": "Front door", "signal": "contact", "why": "open" }])
    );
    let first = arm("away", 0, 0);
    let (code, refused) = mode(&t, &i, first.clone()).await;
    assert_eq!(code, 409, "{refused}");
    assert!(
        refused["type"]
            .as_str()
            .unwrap()
            .ends_with("security-refused")
    );
    assert!(
        refused["detail"].as_str().unwrap().contains("front door"),
        "{refused}"
    );
    // The same request again answers the same; its id with another body is
    // refused; nothing changed.
    let (code, again) = mode(&t, &i, first.clone()).await;
    assert_eq!((code, &again), (409, &refused));
    let mut other = first.clone();
    other["mode"] = json!("home");
    let (code, reused) = mode(&t, &i, other).await;
    assert_eq!(code, 409, "{reused}");
    assert!(
        reused["type"]
            .as_str()
            .unwrap()
            .ends_with("request-id-reused")
    );
    assert_eq!(status(&t, &i).await["requestedMode"], "off");

    // Bypassing the door arms; the exit countdown runs (30 s by default).
    let mut bypassed = arm("away", 0, 0);
    bypassed["bypass"] = json!([{ "kind": "endpoint", "id": door }]);
    let (code, s) = mode(&t, &i, bypassed.clone()).await;
    assert_eq!(code, 200, "{s}");
    assert_eq!(
        (s["requestedMode"].as_str(), s["confirmedMode"].as_str()),
        (Some("away"), Some("off"))
    );
    assert_eq!(s["generation"], 1);
    assert!(s["exitUntil"].is_string(), "{s}");
    let (code, repeated) = mode(&t, &i, bypassed).await;
    assert_eq!(
        (code, &repeated),
        (200, &s),
        "a repeat answers what the first got"
    );
    // No configuration while arming.
    let (code, problem) = patch_settings(&t, &i, json!({ "exitDelaySeconds": 1 })).await;
    assert_eq!(code, 409, "{problem}");
    // Off with a stale generation cannot end it; with its own it does.
    let (code, stale) = mode(&t, &i, arm("off", 0, 0)).await;
    assert_eq!(code, 409, "{stale}");
    assert!(
        stale["detail"].as_str().unwrap().contains("generation 1"),
        "{stale}"
    );
    let (code, s) = mode(&t, &i, arm("off", 0, 1)).await;
    assert_eq!(code, 200, "{s}");
    assert_eq!(
        (s["requestedMode"].as_str(), s["confirmedMode"].as_str()),
        (Some("off"), Some("off"))
    );

    // Settings: a new revision, which the next arming must carry.
    let bedroom = things["Bedroom window"]["roomId"]
        .as_str()
        .unwrap()
        .to_owned();
    let (code, s) = patch_settings(
        &t,
        &i,
        json!({ "exitDelaySeconds": 1, "sleepingRooms": [bedroom] }),
    )
    .await;
    assert_eq!(code, 200, "{s}");
    assert_eq!(s["revision"], 1);
    assert_eq!(s["settings"]["exitDelaySeconds"], 1);
    let (code, problem) = patch_settings(&t, &i, json!({ "entryDelaySeconds": 301 })).await;
    assert_eq!(code, 400, "{problem}");
    assert_eq!(problem["field"], "entryDelaySeconds");
    let (code, problem) =
        patch_settings(&t, &i, json!({ "sleepingRooms": [Uuid::new_v4()] })).await;
    assert_eq!(
        (code, problem["field"].as_str()),
        (400, Some("sleepingRooms"))
    );
    let (code, stale) = mode(&t, &i, arm("away", 0, 1)).await;
    assert_eq!(code, 409, "{stale}");
    assert!(
        stale["detail"].as_str().unwrap().contains("revision 1"),
        "{stale}"
    );

    // The door closed: Away arms after the one-second countdown.
    assert!(
        i.bridge
            .set_state("door-front", "sensor.contact", "open", json!(false))
    );
    refresh(&t, &i, &door).await;
    let (code, s) = mode(&t, &i, arm("away", 1, 1)).await;
    assert_eq!(code, 200, "{s}");
    assert_eq!(s["confirmedMode"], "off");
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let s = status(&t, &i).await;
    assert_eq!(
        (s["requestedMode"].as_str(), s["confirmedMode"].as_str()),
        (Some("away"), Some("away"))
    );
    assert!(
        s["armedSince"].is_string() && s["exitUntil"].is_null(),
        "{s}"
    );
    assert_eq!(s["generation"], 2);
    // From Away to Home: at once, same armed period.
    let (code, s) = mode(&t, &i, arm("home", 1, 2)).await;
    assert_eq!(code, 200, "{s}");
    assert_eq!(
        (s["requestedMode"].as_str(), s["confirmedMode"].as_str()),
        (Some("home"), Some("home"))
    );
    assert_eq!(s["generation"], 2);
    let (code, _) = mode(&t, &i, arm("off", 1, 2)).await;
    assert_eq!(code, 200);

    // Selections: include the plain camera, exclude the door; the exclusion
    // survives rediscovery.
    let select = |kind: &'static str, id: String, selection: &'static str| {
        let t = &t;
        let i = &i;
        async move {
            t.send_json(
                "PUT",
                &format!("/home-security/{}/devices/{kind}/{id}", i.property),
                Some(i.token()),
                Some(json!({ "tenantId": i.tenant, "selection": selection })),
            )
            .await
        }
    };
    let (code, s) = select("endpoint", garage.clone(), "include").await;
    assert_eq!(code, 200, "{s}");
    assert_eq!(thing(&s, "Garage camera")["enrolled"], json!(["camera"]));
    let (code, s) = select("endpoint", door.clone(), "exclude").await;
    assert_eq!(code, 200, "{s}");
    assert_eq!(s["revision"], 3);
    discover(&t, &i).await;
    let s = status(&t, &i).await;
    assert_eq!(thing(&s, "Front door")["selection"], "exclude");
    assert_eq!(thing(&s, "Front door")["enrolled"], json!([]));
    let (code, _) = select("device", door.clone(), "include").await;
    assert_eq!(code, 404, "the kind must match the thing");
    let (code, problem) = select("robot", door, "include").await;
    assert_eq!((code, problem["field"].as_str()), (400, Some("kind")));

    // The household heard every move; no incident yet.
    let (code, heard) = t
        .get_json(
            &format!(
                "/notifications?tenantId={}&propertyId={}&limit=50",
                i.tenant, i.property
            ),
            Some(i.token()),
        )
        .await;
    assert_eq!(code, 200, "{heard}");
    let kinds: Vec<&str> = heard["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n["kind"].as_str())
        .filter(|k| k.starts_with("security."))
        .collect();
    for kind in ["security.arming", "security.armed", "security.off"] {
        assert!(kinds.contains(&kind), "{kind} in {kinds:?}");
    }
    let (code, incidents) = t
        .get_json(
            &format!(
                "/home-security/{}/incidents?tenantId={}",
                i.property, i.tenant
            ),
            Some(i.token()),
        )
        .await;
    assert_eq!((code, &incidents["items"]), (200, &json!([])));
    let (code, _) = t
        .post_json(
            &format!("/home-security/{}/incidents/1/acknowledge", i.property),
            Some(i.token()),
            json!({ "tenantId": i.tenant }),
        )
        .await;
    assert_eq!(code, 404);
}

/// Who may read, control and configure a home's security.
#[tokio::test]
async fn members_control_owners_configure_the_tenants_admin_only_sees_and_keys_have_no_access() {
    use alyt_tests::principals::{Principals, Who};

    let t = TestPlatform::start_with(|config| config.rate_limit.quota = 100_000).await;
    let p = Principals::seed(&t).await;
    let first = t.platform.first_start.as_ref().unwrap();
    let (tenant, home) = (first.tenant_id.to_string(), first.property_id.to_string());
    let read = format!("/home-security/{home}?tenantId={tenant}");
    let set = format!("/home-security/{home}/mode");
    let configure = format!("/home-security/{home}/settings");
    let cases = [
        (Who::Anonymous, 401, 401, 401),
        (Who::HouseholdOwner, 200, 200, 200),
        (Who::HouseholdMember, 200, 200, 403),
        (Who::HouseholdGuest, 200, 403, 403),
        // The tenant's ADMIN without a household grant only sees: the
        // household configures and controls its own protection.
        (Who::TenantAdmin, 200, 403, 403),
        (Who::TenantInstaller, 200, 403, 403),
        // The first owner is also the demo household's OWNER.
        (Who::PlatformOwner, 200, 200, 200),
        (Who::PlatformStaff, 200, 403, 403),
        (Who::PlatformSupport, 200, 403, 403),
        (Who::DeveloperSession, 404, 404, 404),
        (Who::DevKey, 404, 404, 404),
    ];
    for (who, reads, controls, configures) in cases {
        let (code, body) = t.get_json(&read, p.token(who)).await;
        assert_eq!(code, reads, "{who:?} reads: {body}");
        // Off with the current generation: allowed to whoever controls.
        let (code, body) = t
            .post_json(
                &set,
                p.token(who),
                json!({ "tenantId": tenant, "mode": "off", "requestId": Uuid::new_v4(), "revision": 0, "generation": 0 }),
            )
            .await;
        assert_eq!(code, controls, "{who:?} controls: {body}");
        let (code, body) = t
            .send_json(
                "PATCH",
                &configure,
                p.token(who),
                Some(json!({ "tenantId": tenant, "exitDelaySeconds": 20 })),
            )
            .await;
        assert_eq!(code, configures, "{who:?} configures: {body}");
    }
    // A developer's key in its own sandbox: no home-security access at all.
    let dev = &p.developer;
    let (_, homes) = t
        .get_json(
            &format!("/properties?tenantId={}", dev.sandbox_tenant_id),
            Some(&dev.access_token),
        )
        .await;
    let sandbox_home = homes["items"][0]["id"].as_str().unwrap();
    let path = format!(
        "/home-security/{sandbox_home}?tenantId={}",
        dev.sandbox_tenant_id
    );
    let (code, _) = t.get_json(&path, Some(&dev.access_token)).await;
    assert_eq!(code, 200, "the developer owns the sandbox's household");
    let (code, problem) = t.get_json(&path, p.token(Who::DevKey)).await;
    assert_eq!(code, 403, "{problem}");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("no home-security access")
    );
}

async fn incidents(t: &TestPlatform, i: &Installed) -> Vec<Value> {
    let (code, page) = t
        .get_json(
            &format!(
                "/home-security/{}/incidents?tenantId={}",
                i.property, i.tenant
            ),
            Some(i.token()),
        )
        .await;
    assert_eq!(code, 200, "{page}");
    page["items"].as_array().unwrap().clone()
}

/// The status once the last alarm's outputs are restored (the output
/// driver runs every second).
async fn restored(t: &TestPlatform, i: &Installed) -> Value {
    for _ in 0..60 {
        let s = status(t, i).await;
        if s["restorationPending"] == false {
            return s;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    panic!("never restored: {}", status(t, i).await);
}

/// Waits until the bridge's `external_id` has `capability.key` = `value`
/// (the output driver runs every second).
async fn sounding(i: &Installed, external_id: &str, capability: &str, key: &str, value: Value) {
    for _ in 0..60 {
        if i.bridge.thing_state(external_id).unwrap()[capability][key] == value {
            return;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    panic!(
        "{external_id} never had {capability}.{key} = {value}: {:?}",
        i.bridge.thing_state(external_id)
    );
}

/// Arming `mode_name` now is refused (409, nothing changed) with a detail
/// that says `why`.
async fn arming_refused(t: &TestPlatform, i: &Installed, mode_name: &str, why: &str) -> Value {
    let s = status(t, i).await;
    let (code, refused) = mode(
        t,
        i,
        arm(
            mode_name,
            s["revision"].as_u64().unwrap(),
            s["generation"].as_u64().unwrap(),
        ),
    )
    .await;
    assert_eq!(code, 409, "{refused}");
    let detail = refused["detail"].as_str().unwrap();
    assert!(detail.contains(why), "{refused}");
    refused
}

/// The armed home once the one-second exit countdown is over (the last
/// alarm's outputs restored first: arming waits for them).
async fn armed(t: &TestPlatform, i: &Installed, mode_name: &str) -> Value {
    let s = restored(t, i).await;
    let (code, armed) = mode(
        t,
        i,
        arm(
            mode_name,
            s["revision"].as_u64().unwrap(),
            s["generation"].as_u64().unwrap(),
        ),
    )
    .await;
    assert_eq!(code, 200, "{armed}");
    tokio::time::sleep(Duration::from_millis(1300)).await;
    let s = status(t, i).await;
    assert_eq!(s["confirmedMode"], mode_name, "{s}");
    s
}

async fn off(t: &TestPlatform, i: &Installed) -> Value {
    let s = status(t, i).await;
    let (code, s) = mode(t, i, arm("off", 0, s["generation"].as_u64().unwrap())).await;
    assert_eq!(code, 200, "{s}");
    s
}

#[tokio::test]
async fn detections_open_incidents_that_off_clears_and_entry_delays_hold_the_alarm() {
    let t = TestPlatform::start().await;
    let i = security_home(&t, "security-incidents@example.com").await;
    let things = endpoints_by_name(&t, &i).await;
    let motion = things["Hall motion"]["id"].as_str().unwrap().to_owned();
    let door = things["Front door"]["id"].as_str().unwrap().to_owned();
    let (code, s) = patch_settings(
        &t,
        &i,
        json!({ "exitDelaySeconds": 1, "entryDelaySeconds": 1 }),
    )
    .await;
    assert_eq!(code, 200, "{s}");

    // Motion while Off is nothing.
    assert!(
        i.bridge
            .set_state("motion-hall", "sensor.motion", "motion", json!(true))
    );
    refresh(&t, &i, &motion).await;
    assert!(status(&t, &i).await["incident"].is_null());
    assert!(
        i.bridge
            .set_state("motion-hall", "sensor.motion", "motion", json!(false))
    );
    refresh(&t, &i, &motion).await;

    // Armed Away: motion sounds the alarm at once, once.
    armed(&t, &i, "away").await;
    assert!(
        i.bridge
            .set_state("motion-hall", "sensor.motion", "motion", json!(true))
    );
    refresh(&t, &i, &motion).await;
    refresh(&t, &i, &motion).await;
    let s = status(&t, &i).await;
    let incident = &s["incident"];
    assert_eq!(incident["state"], "alarm", "{s}");
    assert_eq!(incident["thingId"], motion.as_str());
    assert_eq!(incident["signal"], "motion");
    assert_eq!(incident["alarmed"], true);
    assert_eq!(incidents(&t, &i).await.len(), 1);
    // The alarm switches the hall siren on.
    sounding(&i, "siren-hall", "switch", "power", json!(true)).await;
    // Acknowledged by one resident (again by the same is fine); separate
    // from Off: the home stays armed.
    let number = incident["number"].as_u64().unwrap();
    let ack = format!(
        "/home-security/{}/incidents/{number}/acknowledge",
        i.property
    );
    let (code, acked) = t
        .post_json(&ack, Some(i.token()), json!({ "tenantId": i.tenant }))
        .await;
    assert_eq!(code, 200, "{acked}");
    assert!(acked["acknowledgedBy"].is_string(), "{acked}");
    let (code, _) = t
        .post_json(&ack, Some(i.token()), json!({ "tenantId": i.tenant }))
        .await;
    assert_eq!(code, 200);
    assert_eq!(status(&t, &i).await["confirmedMode"], "away");
    // Off clears it; the siren the alarm switched on is put back.
    let s = off(&t, &i).await;
    assert!(s["incident"].is_null(), "{s}");
    let s = restored(&t, &i).await;
    assert_eq!(s["outputs"][0]["name"], "Hall siren", "{s}");
    assert_eq!(
        i.bridge.thing_state("siren-hall").unwrap()["switch"]["power"],
        false
    );
    let history = incidents(&t, &i).await;
    assert_eq!(history[0]["state"], "cleared", "{history:?}");
    assert!(history[0]["acknowledgedBy"].is_string());
    assert!(
        i.bridge
            .set_state("motion-hall", "sensor.motion", "motion", json!(false))
    );
    refresh(&t, &i, &motion).await;

    // The front door is an entry: the alarm waits the entry delay, and Off
    // before its end cancels it without an alarm.
    armed(&t, &i, "home").await;
    assert!(
        i.bridge
            .set_state("door-front", "sensor.contact", "open", json!(true))
    );
    refresh(&t, &i, &door).await;
    let s = status(&t, &i).await;
    assert_eq!(s["incident"]["state"], "entry", "{s}");
    assert!(s["incident"]["alarmAt"].is_string());
    let s = off(&t, &i).await;
    assert!(s["incident"].is_null());
    let history = incidents(&t, &i).await;
    assert_eq!(
        (
            history[0]["state"].as_str(),
            history[0]["alarmed"].as_bool()
        ),
        (Some("cleared"), Some(false))
    );
    assert!(
        i.bridge
            .set_state("door-front", "sensor.contact", "open", json!(false))
    );
    refresh(&t, &i, &door).await;

    // Not turned off in time: the sweep sounds the alarm when the delay
    // ends, without anyone reading the home.
    armed(&t, &i, "home").await;
    assert!(
        i.bridge
            .set_state("door-front", "sensor.contact", "open", json!(true))
    );
    refresh(&t, &i, &door).await;
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let history = incidents(&t, &i).await;
    assert_eq!(history.len(), 3);
    assert_eq!(history[0]["state"], "alarm", "{history:?}");
    let (_, heard) = t
        .get_json(
            &format!(
                "/notifications?tenantId={}&propertyId={}&limit=100",
                i.tenant, i.property
            ),
            Some(i.token()),
        )
        .await;
    let kinds: Vec<&str> = heard["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n["kind"].as_str())
        .collect();
    for kind in ["security.alarm", "security.entry", "security.alarm-stopped"] {
        assert!(kinds.contains(&kind), "{kind} in {kinds:?}");
    }
    off(&t, &i).await;
}

/// Locks: a verified keypad code on any lock (even one excluded from
/// detection) or a confirmed inside unlock turns the home Off; an outside
/// key, a remote unlock, a failed code or an ambiguous unlock never does;
/// locking from the keypad while Off asks whether to arm and never arms.
#[tokio::test]
async fn a_keypad_code_on_any_lock_or_a_confirmed_inside_unlock_disarms() {
    let t = TestPlatform::start().await;
    let i = security_home(&t, "security-locks@example.com").await;
    let things = endpoints_by_name(&t, &i).await;
    let lock = things["Front lock"]["id"].as_str().unwrap().to_owned();
    let (code, _) = patch_settings(&t, &i, json!({ "exitDelaySeconds": 1 })).await;
    assert_eq!(code, 200);

    // No setting narrows which keypads disarm: the field is gone.
    let (code, refused) = patch_settings(&t, &i, json!({ "keypadLocks": [lock] })).await;
    assert_eq!(code, 400, "{refused}");
    assert!(
        refused["detail"].as_str().unwrap().contains("keypadLocks"),
        "{refused}"
    );
    let s = status(&t, &i).await;
    assert!(s["settings"].get("keypadLocks").is_none(), "{s}");

    // A verified keypad code disarms even when its lock is excluded from
    // detection.
    let (code, s) = t
        .send_json(
            "PUT",
            &format!("/home-security/{}/devices/endpoint/{lock}", i.property),
            Some(i.token()),
            Some(json!({ "tenantId": i.tenant, "selection": "exclude" })),
        )
        .await;
    assert_eq!(code, 200, "{s}");
    assert_eq!(thing(&s, "Front lock")["selection"], "exclude");
    armed(&t, &i, "away").await;
    assert!(i.bridge.move_lock("lock-front", "keypad-unlock"));
    refresh(&t, &i, &lock).await;
    assert_eq!(
        status(&t, &i).await["confirmedMode"],
        "off",
        "an excluded lock's keypad code did not disarm"
    );
    // The incident history keeps the disarm with where it came from.
    let history = incidents(&t, &i).await;
    let disarm = &history[0];
    assert_eq!(disarm["kind"], "keypad-disarm", "{disarm}");
    assert_eq!(disarm["thingId"], lock.as_str());
    assert_eq!(
        disarm["source"],
        json!({ "kind": "endpoint", "deviceId": null,
                "connectorId": i.connector, "integrationId": i.integration }),
        "{disarm}"
    );

    armed(&t, &i, "away").await;
    for action in [
        "outside-key",
        "remote-unlock",
        "failed-code",
        "ambiguous-unlock",
    ] {
        assert!(i.bridge.move_lock("lock-front", action));
        refresh(&t, &i, &lock).await;
        assert_eq!(
            status(&t, &i).await["confirmedMode"],
            "away",
            "{action} disarmed"
        );
    }
    assert!(i.bridge.move_lock("lock-front", "keypad-unlock"));
    refresh(&t, &i, &lock).await;
    let s = status(&t, &i).await;
    assert_eq!(
        (s["requestedMode"].as_str(), s["confirmedMode"].as_str()),
        (Some("off"), Some("off"))
    );

    armed(&t, &i, "away").await;
    assert!(i.bridge.move_lock("lock-front", "inside-unlock"));
    refresh(&t, &i, &lock).await;
    assert_eq!(status(&t, &i).await["confirmedMode"], "off");

    assert!(i.bridge.move_lock("lock-front", "keypad-lock"));
    refresh(&t, &i, &lock).await;
    assert_eq!(
        status(&t, &i).await["requestedMode"],
        "off",
        "a prompt never arms"
    );
    let (_, heard) = t
        .get_json(
            &format!(
                "/notifications?tenantId={}&propertyId={}&limit=100",
                i.tenant, i.property
            ),
            Some(i.token()),
        )
        .await;
    let bodies: Vec<String> = heard["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| format!("{}: {}", n["kind"], n["body"]))
        .collect();
    assert!(
        bodies.iter().any(|b| b.contains("security.arm-prompt")),
        "{bodies:?}"
    );
    assert!(
        bodies.iter().any(|b| b.contains("with a keypad code")),
        "{bodies:?}"
    );
    assert!(
        bodies.iter().any(|b| b.contains("unlocked from inside")),
        "{bodies:?}"
    );
}

/// A device detects over MQTT: its events (`{ type: motion, id, at }`)
/// reach its home's security once per event id, and never from before the
/// armed period.
#[tokio::test]
async fn a_device_detects_over_mqtt_once_per_event() {
    use crate::device_plane::{connect, owner_token};
    use rumqttc::QoS;

    let t = TestPlatform::start().await;
    let token = owner_token(&t).await;
    let first = t.platform.first_start.as_ref().unwrap();
    let (tenant, home) = (first.tenant_id.to_string(), first.property_id.to_string());
    let (code, body) = t
        .post_json(
            "/devices/register",
            Some(&token),
            json!({
                "tenantId": tenant, "propertyId": home, "name": "Landing motion",
                "kind": "OTHER", "capabilities": ["SENSOR"], "serial": "SN-SEC-0001",
            }),
        )
        .await;
    assert_eq!(code, 201, "{body}");
    let d = crate::device_plane::Registered {
        tenant: tenant.clone(),
        device: body["device"]["id"].as_str().unwrap().to_owned(),
        prefix: body["topicPrefix"].as_str().unwrap().to_owned(),
        username: body["credentials"]["username"].as_str().unwrap().to_owned(),
        password: body["credentials"]["password"].as_str().unwrap().to_owned(),
    };
    let (client, driver) = connect(&t, &d).await;
    let publish = |channel: &'static str, payload: String| {
        let client = client.clone();
        let topic = format!("{}/{channel}", d.prefix);
        async move {
            client
                .publish(topic, QoS::AtLeastOnce, channel == "availability", payload)
                .await
                .unwrap();
        }
    };
    publish("availability", "online".into()).await;
    publish("status", r#"{"features":["motion"]}"#.into()).await;
    let read = format!("/home-security/{home}?tenantId={tenant}");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let motion_enrolled = |s: &Value| {
        s["things"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "Landing motion" && t["enrolled"] == json!(["motion"]))
    };
    loop {
        let (_, s) = t.get_json(&read, Some(&token)).await;
        if motion_enrolled(&s) && s["readiness"]["away"]["ready"] == true {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never enrolled: {s}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (code, s) = t
        .send_json(
            "PATCH",
            &format!("/home-security/{home}/settings"),
            Some(&token),
            Some(json!({ "tenantId": tenant, "exitDelaySeconds": 1 })),
        )
        .await;
    assert_eq!(code, 200, "{s}");
    let (code, s) = t
        .post_json(
            &format!("/home-security/{home}/mode"),
            Some(&token),
            json!({ "tenantId": tenant, "mode": "away", "requestId": Uuid::new_v4(),
                    "revision": s["revision"], "generation": s["generation"] }),
        )
        .await;
    assert_eq!(code, 200, "{s}");
    tokio::time::sleep(Duration::from_millis(1300)).await;
    let before = time::OffsetDateTime::now_utc() - time::Duration::minutes(5);
    let stamp = |at: time::OffsetDateTime| {
        at.format(&time::format_description::well_known::Rfc3339)
            .unwrap()
    };
    // An event from before the armed period, arriving late: nothing.
    publish(
        "events",
        json!({ "type": "motion", "id": "m-0", "at": stamp(before) }).to_string(),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (_, s) = t.get_json(&read, Some(&token)).await;
    assert!(s["incident"].is_null(), "{s}");
    // One event, sent twice: one incident.
    for _ in 0..2 {
        publish(
            "events",
            json!({ "type": "motion", "id": "m-1" }).to_string(),
        )
        .await;
    }
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (_, s) = t.get_json(&read, Some(&token)).await;
        if s["incident"]["state"] == "alarm" {
            assert_eq!(s["incident"]["thingId"], d.device.as_str());
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "no alarm: {s}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (_, page) = t
        .get_json(
            &format!("/home-security/{home}/incidents?tenantId={tenant}"),
            Some(&token),
        )
        .await;
    assert_eq!(page["items"].as_array().unwrap().len(), 1, "{page}");
    driver.abort();
}

/// What is never stored: a lock reporting the code it was opened with and
/// a camera's signed snapshot URL keep neither, in what the platform stores
/// and shows.
#[tokio::test]
async fn pins_and_private_media_urls_are_never_stored() {
    let t = TestPlatform::start().await;
    let i = install_bridge(&t, "security-secrets@example.com").await;
    i.bridge.add_security_things();
    assert!(i.bridge.set_state(
        "camera-garden",
        "camera",
        "snapshotUrl",
        json!("https://cam.example/s.jpg?token=s3cr3t")
    ));
    discover(&t, &i).await;
    let things = endpoints_by_name(&t, &i).await;
    let lock = things["Front lock"]["id"].as_str().unwrap().to_owned();
    assert!(i.bridge.move_lock("lock-front", "keypad-unlock"));
    assert!(
        i.bridge
            .set_state("lock-front", "lock", "pin", json!("4711"))
    );
    refresh(&t, &i, &lock).await;

    let store = t.platform.store();
    let repo = alyt_store::repo::integrations::Integrations(&*store);
    let tenant = serde_json::from_value(json!(i.tenant)).unwrap();
    for (name, secret) in [("Front lock", "4711"), ("Garden camera", "s3cr3t")] {
        let id = serde_json::from_value(things[name]["id"].clone()).unwrap();
        let stored = repo.endpoint(tenant, id).await.unwrap().unwrap();
        let text = serde_json::to_string(&stored).unwrap();
        assert!(!text.contains(secret), "{name} stored {text}");
        let (_, shown) = t
            .get_json(
                &format!(
                    "/endpoints/{}?tenantId={}",
                    things[name]["id"].as_str().unwrap(),
                    i.tenant
                ),
                Some(i.token()),
            )
            .await;
        assert!(!shown.to_string().contains(secret), "{name} shown {shown}");
    }
    // What is not a secret stays.
    let id = serde_json::from_value(json!(lock)).unwrap();
    let stored = repo.endpoint(tenant, id).await.unwrap().unwrap();
    assert_eq!(stored.state["lock"]["lastAction"], "keypad-unlock");
}

/// A watched detector that stops answering leaves the mode confirmed and
/// the home reported degraded until it answers again.
#[tokio::test]
async fn an_unreachable_detector_degrades_an_armed_home() {
    let t = TestPlatform::start().await;
    let i = security_home(&t, "security-degraded@example.com").await;
    let things = endpoints_by_name(&t, &i).await;
    let motion = things["Hall motion"]["id"].as_str().unwrap().to_owned();
    let (code, _) = patch_settings(&t, &i, json!({ "exitDelaySeconds": 1 })).await;
    assert_eq!(code, 200);
    let s = armed(&t, &i, "away").await;
    assert_eq!(s["degraded"], false);
    assert!(i.bridge.set_reachable("motion-hall", false));
    let _ = t
        .post_json(
            &format!("/endpoints/{motion}/refresh?tenantId={}", i.tenant),
            Some(i.token()),
            json!({}),
        )
        .await;
    let s = status(&t, &i).await;
    assert_eq!(
        (s["confirmedMode"].as_str(), s["degraded"].as_bool()),
        (Some("away"), Some(true)),
        "{s}"
    );
    assert!(i.bridge.set_reachable("motion-hall", true));
    refresh(&t, &i, &motion).await;
    assert_eq!(status(&t, &i).await["degraded"], false);
    off(&t, &i).await;
    assert_eq!(status(&t, &i).await["degraded"], false);
}

/// An armed home of the first household with a lock device of its own
/// (LOCK and SENSOR, over MQTT) registered with `features` (none: the
/// field left out) that then
/// reports `reported` in its status; the home arms once the lock's motion
/// is ready. The owner's token, the status path, the device and a publisher
/// on its channels.
struct ArmedLock {
    token: String,
    read: String,
    device: String,
    tenant: String,
    home: String,
    client: rumqttc::AsyncClient,
    prefix: String,
    driver: tokio::task::JoinHandle<()>,
}

impl ArmedLock {
    async fn publish(&self, channel: &str, payload: String) {
        self.client
            .publish(
                format!("{}/{channel}", self.prefix),
                rumqttc::QoS::AtLeastOnce,
                channel == "availability",
                payload,
            )
            .await
            .unwrap();
    }

    async fn unlock(&self, action: &str) {
        self.publish(
            "events",
            json!({ "type": "lock", "action": action }).to_string(),
        )
        .await;
    }

    /// The requested mode once it is `want`, or after a few seconds.
    async fn mode_within(&self, t: &TestPlatform, want: &str, wait: Duration) -> String {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let (_, s) = t.get_json(&self.read, Some(&self.token)).await;
            let mode = s["requestedMode"].as_str().unwrap().to_owned();
            if mode == want || tokio::time::Instant::now() >= deadline {
                return mode;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

async fn armed_lock(t: &TestPlatform, features: Value, reported: Value, keypad: bool) -> ArmedLock {
    use crate::device_plane::{connect, owner_token};

    let token = owner_token(t).await;
    let first = t.platform.first_start.as_ref().unwrap();
    let (tenant, home) = (first.tenant_id.to_string(), first.property_id.to_string());
    let mut register = json!({
        "tenantId": tenant, "propertyId": home, "name": "Door lock",
        "kind": "OTHER", "capabilities": ["LOCK", "SENSOR"], "serial": "SN-SEC-0002",
    });
    if features != json!([]) {
        register["features"] = features;
    }
    let (code, body) = t
        .post_json("/devices/register", Some(&token), register)
        .await;
    assert_eq!(code, 201, "{body}");
    let d = crate::device_plane::Registered {
        tenant: tenant.clone(),
        device: body["device"]["id"].as_str().unwrap().to_owned(),
        prefix: body["topicPrefix"].as_str().unwrap().to_owned(),
        username: body["credentials"]["username"].as_str().unwrap().to_owned(),
        password: body["credentials"]["password"].as_str().unwrap().to_owned(),
    };
    let (client, driver) = connect(t, &d).await;
    let lock = ArmedLock {
        token,
        read: format!("/home-security/{home}?tenantId={tenant}"),
        device: d.device.clone(),
        tenant,
        home,
        client,
        prefix: d.prefix.clone(),
        driver,
    };
    lock.publish("availability", "online".into()).await;
    lock.publish("status", json!({ "features": reported }).to_string())
        .await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let s = loop {
        let (_, s) = t.get_json(&lock.read, Some(&lock.token)).await;
        let ready = s["things"].as_array().unwrap().iter().any(|t| {
            t["name"] == "Door lock" && t["keypad"] == keypad && t["enrolled"] == json!(["motion"])
        });
        if ready && s["readiness"]["away"]["ready"] == true {
            break s;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never enrolled: {s}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let (code, s) = t
        .post_json(
            &format!("/home-security/{}/mode", lock.home),
            Some(&lock.token),
            json!({ "tenantId": lock.tenant, "mode": "away", "requestId": Uuid::new_v4(),
                    "revision": s["revision"], "generation": s["generation"] }),
        )
        .await;
    assert_eq!(code, 200, "{s}");
    assert_eq!(s["requestedMode"], "away");
    lock
}

/// A lock device with the keypad its owner registered it with (its status
/// adds what it senses) disarms with a verified code over MQTT, never with
/// a failed one; the incident history shows the disarm and its source.
#[tokio::test]
async fn a_lock_device_disarms_with_its_keypad_code_over_mqtt() {
    let t = TestPlatform::start().await;
    let lock = armed_lock(&t, json!(["keypad"]), json!(["motion"]), true).await;
    lock.unlock("failed-code").await;
    assert_eq!(
        lock.mode_within(&t, "off", Duration::from_millis(500))
            .await,
        "away",
        "a failed code never disarms"
    );
    lock.unlock("keypad-unlock").await;
    assert_eq!(
        lock.mode_within(&t, "off", Duration::from_secs(10)).await,
        "off",
        "the keypad code did not disarm"
    );
    let (code, page) = t
        .get_json(
            &format!(
                "/home-security/{}/incidents?tenantId={}",
                lock.home, lock.tenant
            ),
            Some(&lock.token),
        )
        .await;
    assert_eq!(code, 200, "{page}");
    let disarm = &page["items"][0];
    assert_eq!(disarm["kind"], "keypad-disarm", "{page}");
    assert_eq!(disarm["thingId"], lock.device.as_str());
    assert_eq!(
        disarm["source"],
        json!({ "kind": "device", "deviceId": lock.device, "connectorId": null, "integrationId": null }),
        "{page}"
    );
    lock.driver.abort();
}

/// A lock registered without a keypad that later claims one in its own
/// status report is still no keypad lock: its "keypad" unlock disarms
/// nothing.
#[tokio::test]
async fn a_lock_that_reports_a_keypad_it_was_not_registered_with_never_disarms() {
    let t = TestPlatform::start().await;
    let lock = armed_lock(&t, json!([]), json!(["motion", "keypad"]), false).await;
    lock.unlock("keypad-unlock").await;
    assert_eq!(
        lock.mode_within(&t, "off", Duration::from_secs(2)).await,
        "away",
        "a keypad the device claimed for itself disarmed"
    );
    let (_, s) = t.get_json(&lock.read, Some(&lock.token)).await;
    let me = s["things"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "Door lock")
        .unwrap();
    assert_eq!(me["keypad"], false, "{s}");
    lock.driver.abort();
}

/// A home at the equator where it is night now (local solar time about
/// 00:30), or day (about 12:30).
fn place(night: bool) -> Value {
    let now = time::OffsetDateTime::now_utc();
    let hours = f64::from(now.hour()) + f64::from(now.minute()) / 60.0;
    let local = if night { 0.5 } else { 12.5 };
    let mut longitude = (local - hours) * 15.0;
    if longitude < -180.0 {
        longitude += 360.0;
    }
    if longitude > 180.0 {
        longitude -= 360.0;
    }
    json!({ "latitude": 0.0, "longitude": longitude })
}

/// The alarm's outputs: the siren on, the night-light room's light flashing at
/// full intensity and its speaker at 50% alternating the siren with the
/// deterrent recording, each one's native state saved first; Off puts every one
/// back (colour, intensity and on/off; group, volume, mute, source, position
/// and whether it plays). A source the speaker cannot play again is reported as
/// not restored. An output that does not answer keeps the restoration pending:
/// arming and settings are refused with what to do (409) until it is back. In
/// daytime the night lights are left alone.
#[tokio::test]
async fn an_alarm_drives_its_outputs_and_off_puts_every_one_back() {
    let t = TestPlatform::start().await;
    let i = install_bridge(&t, "security-outputs@example.com").await;
    i.bridge.add_security_things();
    i.bridge.add_alarm_outputs();
    discover(&t, &i).await;
    let s = status(&t, &i).await;
    let bedroom = thing(&s, "Bedroom light")["roomId"].clone();
    assert_eq!(thing(&s, "Bedroom speaker")["roomId"], bedroom);
    let (code, s) = patch_settings(
        &t,
        &i,
        json!({ "exitDelaySeconds": 1, "entryDelaySeconds": 1,
                "nightLightRooms": [bedroom], "speakerAlarmRooms": [bedroom],
                "location": place(true) }),
    )
    .await;
    assert_eq!(code, 200, "{s}");
    let (code, refused) = patch_settings(
        &t,
        &i,
        json!({ "location": { "latitude": 91, "longitude": 0 } }),
    )
    .await;
    assert_eq!(code, 400, "{refused}");

    // The speaker plays a track in a group, muted, 42 s in.
    i.bridge
        .add_local_speaker("speaker-kitchen", "Kitchen speaker", Some("Kitchen"));
    assert!(
        i.bridge
            .group_speakers("speaker-kitchen", &["speaker-bedroom"])
    );
    for (key, value) in [
        ("source", json!("prov:track:7")),
        ("playing", json!(true)),
        ("position", json!(42)),
        ("muted", json!(true)),
    ] {
        assert!(
            i.bridge
                .set_state("speaker-bedroom", "media_player", key, value)
        );
    }
    let speaker_before = i.bridge.thing_state("speaker-bedroom").unwrap();
    let light_before = i.bridge.thing_state("light-bedroom").unwrap();

    // Armed Away, motion: the alarm.
    armed(&t, &i, "away").await;
    let motion = endpoints_by_name(&t, &i).await["Hall motion"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        i.bridge
            .set_state("motion-hall", "sensor.motion", "motion", json!(true))
    );
    refresh(&t, &i, &motion).await;
    sounding(&i, "siren-hall", "switch", "power", json!(true)).await;
    sounding(&i, "light-bedroom", "light", "brightness", json!(100)).await;
    sounding(&i, "speaker-bedroom", "media_player", "volume", json!(50)).await;
    let speaker = i.bridge.thing_state("speaker-bedroom").unwrap();
    assert_eq!(speaker["media_player"]["muted"], false, "{speaker:?}");
    assert_eq!(speaker["media_player"]["group"], Value::Null, "on its own");
    // The beats: the deterrent recording follows the siren, the light
    // flashes off and on.
    sounding(
        &i,
        "speaker-bedroom",
        "media_player",
        "source",
        json!("alarm:siren"),
    )
    .await;
    sounding(
        &i,
        "speaker-bedroom",
        "media_player",
        "source",
        json!("alarm:deterrent:voice"),
    )
    .await;
    sounding(&i, "light-bedroom", "light", "power", json!(false)).await;
    sounding(&i, "light-bedroom", "light", "power", json!(true)).await;
    let s = status(&t, &i).await;
    let stages: Vec<(&str, &str)> = s["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["name"].as_str().unwrap(), o["stage"].as_str().unwrap()))
        .collect();
    assert_eq!(stages.len(), 3, "{stages:?}");
    assert!(
        stages.iter().all(|(_, stage)| *stage == "touched"),
        "{stages:?}"
    );

    // Off: everything as it was.
    off(&t, &i).await;
    let s = restored(&t, &i).await;
    assert_eq!(
        i.bridge.thing_state("speaker-bedroom").unwrap(),
        speaker_before
    );
    assert_eq!(i.bridge.thing_state("light-bedroom").unwrap(), light_before);
    assert_eq!(
        i.bridge.thing_state("siren-hall").unwrap()["switch"]["power"],
        false
    );
    for output in s["outputs"].as_array().unwrap() {
        assert_eq!(output["stage"], "restored", "{output}");
        assert_eq!(output["unrestored"], json!([]), "{output}");
    }
    // No alarm write comes after Off.
    let sounds = i.bridge.calls()["v1/security/sound"];
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(i.bridge.calls()["v1/security/sound"], sounds);
    assert!(
        i.bridge
            .set_state("motion-hall", "sensor.motion", "motion", json!(false))
    );
    refresh(&t, &i, &motion).await;

    // A source it cannot play again (its line-in) is not called restored;
    // and while the speaker does not answer, the restoration waits, and
    // arming and settings are refused with what to do.
    assert!(i.bridge.set_state(
        "speaker-bedroom",
        "media_player",
        "source",
        json!("line-in")
    ));
    armed(&t, &i, "away").await;
    assert!(
        i.bridge
            .set_state("motion-hall", "sensor.motion", "motion", json!(true))
    );
    refresh(&t, &i, &motion).await;
    sounding(&i, "speaker-bedroom", "media_player", "volume", json!(50)).await;
    assert!(i.bridge.set_reachable("speaker-bedroom", false));
    off(&t, &i).await;
    tokio::time::sleep(Duration::from_millis(2000)).await;
    let s = status(&t, &i).await;
    assert_eq!(s["restorationPending"], true, "{s}");
    let (code, refused) = mode(
        &t,
        &i,
        arm(
            "away",
            s["revision"].as_u64().unwrap(),
            s["generation"].as_u64().unwrap(),
        ),
    )
    .await;
    assert_eq!(code, 409, "{refused}");
    assert_eq!(refused["type"], "urn:alyt:problem:security-refused");
    let detail = refused["detail"].as_str().unwrap();
    assert!(detail.contains("Bedroom speaker"), "{detail}");
    let (code, refused) = patch_settings(&t, &i, json!({ "exitDelaySeconds": 2 })).await;
    assert_eq!(code, 409, "{refused}");
    assert!(i.bridge.set_reachable("speaker-bedroom", true));
    let s = restored(&t, &i).await;
    let speaker = s["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["name"] == "Bedroom speaker")
        .unwrap();
    assert_eq!(speaker["stage"], "restored", "{speaker}");
    assert_eq!(
        speaker["unrestored"],
        json!(["media_player.source"]),
        "{speaker}"
    );
    assert!(speaker["attempts"].as_u64().unwrap() >= 2, "{speaker}");
    let after = i.bridge.thing_state("speaker-bedroom").unwrap();
    assert_eq!(after["media_player"]["volume"], 20);
    assert_eq!(after["media_player"]["group"], "speaker-kitchen");
    assert!(
        i.bridge
            .set_state("motion-hall", "sensor.motion", "motion", json!(false))
    );
    refresh(&t, &i, &motion).await;

    // In daytime the night lights are left alone.
    let (code, s) = patch_settings(
        &t,
        &i,
        json!({ "location": place(false), "deterrent": "dog" }),
    )
    .await;
    assert_eq!(code, 200, "{s}");
    armed(&t, &i, "away").await;
    assert!(
        i.bridge
            .set_state("motion-hall", "sensor.motion", "motion", json!(true))
    );
    refresh(&t, &i, &motion).await;
    sounding(&i, "speaker-bedroom", "media_player", "volume", json!(50)).await;
    let s = status(&t, &i).await;
    let names: Vec<&str> = s["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["name"].as_str().unwrap())
        .collect();
    assert!(!names.contains(&"Bedroom light"), "{names:?}");
    // The deterrent the household chose.
    sounding(
        &i,
        "speaker-bedroom",
        "media_player",
        "source",
        json!("alarm:deterrent:dog"),
    )
    .await;
    assert_eq!(i.bridge.thing_state("light-bedroom").unwrap(), light_before);
    off(&t, &i).await;
    restored(&t, &i).await;
}

/// A speaker that played nothing before the alarm is put back to nothing: the
/// alarm's source is dropped and it stops (a local system can). A speaker whose
/// system cannot drop a source is never called restored: it is reported with
/// `media_player.source` unrestored and the system's reason.
#[tokio::test]
async fn a_speaker_that_played_nothing_loses_the_alarms_source_or_says_it_could_not() {
    let t = TestPlatform::start().await;
    let i = install_bridge(&t, "security-silence@example.com").await;
    i.bridge.add_security_things();
    i.bridge.add_alarm_outputs();
    i.bridge
        .add_cloud_speaker("speaker-cloud", "Cloud speaker", Some("Bedroom"));
    discover(&t, &i).await;
    let s = status(&t, &i).await;
    let bedroom = thing(&s, "Bedroom speaker")["roomId"].clone();
    assert_eq!(thing(&s, "Cloud speaker")["roomId"], bedroom);
    let (code, s) = patch_settings(
        &t,
        &i,
        json!({ "exitDelaySeconds": 1, "entryDelaySeconds": 1,
                "speakerAlarmRooms": [bedroom], "location": place(false) }),
    )
    .await;
    assert_eq!(code, 200, "{s}");
    for speaker in ["speaker-bedroom", "speaker-cloud"] {
        let before = i.bridge.thing_state(speaker).unwrap();
        assert!(before["media_player"].get("source").is_none(), "{before:?}");
    }

    armed(&t, &i, "away").await;
    let motion = endpoints_by_name(&t, &i).await["Hall motion"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        i.bridge
            .set_state("motion-hall", "sensor.motion", "motion", json!(true))
    );
    refresh(&t, &i, &motion).await;
    for speaker in ["speaker-bedroom", "speaker-cloud"] {
        sounding(&i, speaker, "media_player", "source", json!("alarm:siren")).await;
    }
    off(&t, &i).await;
    let s = restored(&t, &i).await;
    let output = |name: &str| {
        s["outputs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {s}"))
            .clone()
    };

    // The local speaker: quiet, on no source, as it was.
    let local = output("Bedroom speaker");
    assert_eq!(local["stage"], "restored", "{local}");
    assert_eq!(local["unrestored"], json!([]), "{local}");
    let after = i.bridge.thing_state("speaker-bedroom").unwrap();
    assert_eq!(after["media_player"]["source"], Value::Null, "{after:?}");
    assert_eq!(after["media_player"]["playing"], false, "{after:?}");
    assert_eq!(after["media_player"]["volume"], 20, "{after:?}");

    // The cloud speaker stopped but still names the alarm's source: not
    // restored, and the status says why.
    let cloud = output("Cloud speaker");
    assert_eq!(cloud["stage"], "restored", "{cloud}");
    assert_eq!(
        cloud["unrestored"],
        json!(["media_player.source"]),
        "{cloud}"
    );
    assert!(
        cloud["error"]
            .as_str()
            .unwrap_or_default()
            .contains("cannot clear its source"),
        "{cloud}"
    );
    let after = i.bridge.thing_state("speaker-cloud").unwrap();
    assert_eq!(after["media_player"]["playing"], false, "{after:?}");
}

async fn authority(t: &TestPlatform, i: &Installed, body: Value) -> (u16, Value) {
    let mut body = body;
    body["tenantId"] = json!(i.tenant);
    t.send_json(
        "PUT",
        &format!("/home-security/{}/authority", i.property),
        Some(i.token()),
        Some(body),
    )
    .await
}

/// One authority per home: handing the home to a security-system
/// connector turns the built-in engine Off first (its alarm stopped, its
/// outputs restored) and only then tells the connector to take over; the
/// built-in engine then refuses to arm and ignores detections. A connector
/// that is not a security system is refused and the home stays built-in.
/// Back to the built-in engine only with an explicit reviewed choice, the
/// connector told to stop first.
#[tokio::test]
async fn one_authority_runs_a_home_and_the_hand_over_waits_for_restoration() {
    let t = TestPlatform::start().await;
    let i = security_home(&t, "security-authority@example.com").await;
    let (code, s) = patch_settings(&t, &i, json!({ "exitDelaySeconds": 1 })).await;
    assert_eq!(code, 200, "{s}");
    let integration = i.integration.to_string();
    let property = i.property.to_string();

    // Not a security system: refused, nothing handed over.
    let (code, refused) = authority(
        &t,
        &i,
        json!({ "authority": "connector", "integrationId": integration }),
    )
    .await;
    assert_eq!(code, 409, "{refused}");
    assert!(
        refused["detail"]
            .as_str()
            .unwrap()
            .contains("not a security system"),
        "{refused}"
    );
    let s = status(&t, &i).await;
    assert_eq!(s["authority"], "builtin", "{s}");
    let (code, refused) = authority(&t, &i, json!({ "authority": "connector" })).await;
    assert_eq!(code, 400, "{refused}");

    // Sounding: the hand-over stops the alarm and waits for the siren to
    // be put back, then the security system takes over.
    i.bridge.be_security_system();
    armed(&t, &i, "away").await;
    let motion = endpoints_by_name(&t, &i).await["Hall motion"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        i.bridge
            .set_state("motion-hall", "sensor.motion", "motion", json!(true))
    );
    refresh(&t, &i, &motion).await;
    sounding(&i, "siren-hall", "switch", "power", json!(true)).await;
    let (code, s) = authority(
        &t,
        &i,
        json!({ "authority": "connector", "integrationId": integration }),
    )
    .await;
    assert_eq!(code, 202, "{s}");
    assert_eq!(s["switchingTo"], integration.as_str(), "{s}");
    assert_eq!(s["confirmedMode"], "off");
    assert!(
        !i.bridge.runs_security_of(&property),
        "not before restoration"
    );
    let s = restored(&t, &i).await;
    assert_eq!(
        i.bridge.thing_state("siren-hall").unwrap()["switch"]["power"],
        false
    );
    for _ in 0..40 {
        if i.bridge.runs_security_of(&property) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(i.bridge.runs_security_of(&property));
    let s = if s["authority"] == "connector" {
        s
    } else {
        status(&t, &i).await
    };
    assert_eq!(s["authority"], "connector", "{s}");
    assert_eq!(s["authorityIntegrationId"], integration.as_str());
    assert!(s["switchingTo"].is_null());

    // The built-in engine neither arms nor detects now.
    arming_refused(&t, &i, "away", "security-system connector").await;
    assert!(
        i.bridge
            .set_state("motion-hall", "sensor.motion", "motion", json!(false))
    );
    refresh(&t, &i, &motion).await;
    let before = incidents(&t, &i).await.len();
    assert!(
        i.bridge
            .set_state("motion-hall", "sensor.motion", "motion", json!(true))
    );
    refresh(&t, &i, &motion).await;
    assert_eq!(incidents(&t, &i).await.len(), before);

    // Back only with a reviewed choice; the connector stops first.
    let (code, refused) = authority(&t, &i, json!({ "authority": "builtin" })).await;
    assert_eq!(code, 409, "{refused}");
    assert!(
        refused["detail"].as_str().unwrap().contains("reviewed"),
        "{refused}"
    );
    assert!(i.bridge.runs_security_of(&property));
    let (code, s) = authority(&t, &i, json!({ "authority": "builtin", "reviewed": true })).await;
    assert_eq!(code, 200, "{s}");
    assert_eq!(s["authority"], "builtin");
    assert!(!i.bridge.runs_security_of(&property));
    assert!(
        i.bridge
            .set_state("motion-hall", "sensor.motion", "motion", json!(false))
    );
    refresh(&t, &i, &motion).await;
    armed(&t, &i, "away").await;
    off(&t, &i).await;
}

/// The sandbox's virtual hub (a real MQTT client of the embedded broker).
async fn virtual_hub(t: &TestPlatform, i: &Installed) -> String {
    let (code, page) = t
        .get_json(
            &format!("/developers/simulator/devices?tenantId={}", i.tenant),
            Some(i.token()),
        )
        .await;
    assert_eq!(code, 200, "{page}");
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["profile"] == "HUB")
        .map(|d| d["device"]["id"].as_str().unwrap().to_owned())
        .expect("a sandbox has a virtual hub")
}

/// Sets a virtual device's scenario (`SLOW`, `OFFLINE`, `NORMAL`, ...).
async fn scenario(t: &TestPlatform, i: &Installed, device: &str, name: &str) {
    let (code, body) = t
        .post_json(
            &format!("/developers/simulator/devices/{device}/scenario"),
            Some(i.token()),
            json!({ "tenantId": i.tenant, "scenario": name }),
        )
        .await;
    assert!(code == 200 || code == 202, "{code} {body}");
}

/// The status once `check` holds (the hub answers over MQTT).
async fn status_until(
    t: &TestPlatform,
    i: &Installed,
    what: &str,
    check: impl Fn(&Value) -> bool,
) -> Value {
    for _ in 0..80 {
        let s = status(t, i).await;
        if check(&s) {
            return s;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    panic!("never {what}: {}", status(t, i).await);
}

/// A hub-run home: assigning the home's hub sends it the configuration over its
/// commands channel in chunks; the (virtual) hub acknowledges it and reports
/// its protection state. Arming needs the hub connected, the configuration
/// acknowledged and its generation current; a hub that drops off makes the
/// runtime unavailable and arming is refused with no fallback; back online, it
/// arms again, and its generation follows every arming.
#[tokio::test]
async fn a_hub_run_home_arms_only_with_its_hub_connected_and_acknowledged() {
    let t = TestPlatform::start_with(crate::simulator::fast).await;
    let i = security_home(&t, "security-hub@example.com").await;
    let hub = virtual_hub(&t, &i).await;
    let door = endpoints_by_name(&t, &i).await["Front door"]["id"]
        .as_str()
        .unwrap()
        .to_owned();

    // Only a hub of this home is a hub.
    let (code, refused) = patch_settings(&t, &i, json!({ "hubDeviceId": door })).await;
    assert_eq!(code, 400, "{refused}");
    // A slow hub (answers after 5 s): connected, but until it acknowledges
    // the configuration the home cannot be armed.
    scenario(&t, &i, &hub, "SLOW").await;
    let (code, s) =
        patch_settings(&t, &i, json!({ "exitDelaySeconds": 1, "hubDeviceId": hub })).await;
    assert_eq!(code, 200, "{s}");
    assert_eq!(s["settings"]["hubDeviceId"], hub.as_str());
    arming_refused(&t, &i, "away", "not acknowledged").await;
    scenario(&t, &i, &hub, "NORMAL").await;
    let s = status_until(&t, &i, "acknowledged", |s| {
        s["hub"]["acknowledged"] == true && s["hub"]["problem"].is_null()
    })
    .await;
    assert_eq!(s["hub"]["connected"], true);
    assert_eq!(s["hub"]["protection"]["generation"], s["generation"]);
    assert_eq!(s["runtimeUnavailable"], false);
    assert_eq!(s["readiness"]["away"]["ready"], true, "{s}");

    // Armed and off: the hub's generation follows.
    let s = armed(&t, &i, "away").await;
    let generation = s["generation"].clone();
    status_until(&t, &i, "at the new generation", |s| {
        s["hub"]["protection"]["generation"] == generation
            && s["hub"]["protection"]["mode"] == "away"
    })
    .await;
    off(&t, &i).await;

    // A changed configuration is acknowledged again.
    let (code, s) = patch_settings(&t, &i, json!({ "entryDelaySeconds": 5 })).await;
    assert_eq!(code, 200, "{s}");
    let revision = s["revision"].clone();
    status_until(&t, &i, "the new revision acknowledged", |s| {
        s["hub"]["revision"] == revision && s["hub"]["acknowledged"] == true
    })
    .await;

    // The hub drops off: the runtime is unavailable and arming is refused,
    // with no fallback to the platform's engine.
    scenario(&t, &i, &hub, "OFFLINE").await;
    let s = status_until(&t, &i, "runtime unavailable", |s| {
        s["runtimeUnavailable"] == true
    })
    .await;
    assert_eq!(s["readiness"]["away"]["ready"], false, "{s}");
    arming_refused(&t, &i, "away", "hub is not connected").await;
    assert_eq!(status(&t, &i).await["confirmedMode"], "off");

    // Back: it arms again.
    scenario(&t, &i, &hub, "NORMAL").await;
    status_until(&t, &i, "connected again", |s| {
        s["runtimeUnavailable"] == false && s["hub"]["problem"].is_null()
    })
    .await;
    armed(&t, &i, "away").await;
    off(&t, &i).await;

    // Without a hub the platform runs the home again.
    let (code, s) = patch_settings(&t, &i, json!({ "hubDeviceId": null })).await;
    assert_eq!(code, 200, "{s}");
    assert!(s["hub"].is_null(), "{s}");
}

/// A motion sensor the bridge reports from now on (found by the next
/// discovery): `motion-extra-{n}`, "Extra motion {n}", in the Hall.
fn add_motion_sensor(i: &Installed, n: usize) {
    let mut sensor = alyt_connectors::bridge::security::security_things().remove(0);
    assert_eq!(sensor.external_id, "motion-hall");
    sensor.external_id = format!("motion-extra-{n}");
    sensor.name = format!("Extra motion {n}");
    i.bridge.add_thing(sensor);
}

/// The detection signals a home's security enrols (what its hub watches).
fn detectors(s: &Value) -> usize {
    s["things"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["enrolled"].as_array().unwrap().len())
        .sum()
}

/// The status once the hub acknowledged the configuration the home needs
/// now and may take an arming.
async fn hub_acknowledged(t: &TestPlatform, i: &Installed) -> Value {
    status_until(t, i, "acknowledged", |s| {
        s["hub"]["acknowledged"] == true && s["hub"]["problem"].is_null()
    })
    .await
}

/// A hub-run home whose things change after its hub acknowledged: newly
/// discovered devices count for the next arming decision while the active
/// generation stays frozen, and a home has at most 200 detectors. A detector
/// found while armed leaves the armed period and the hub alone, and a mode
/// change waits for Off; after Off, or found while Off, the hub is not
/// acknowledged and arming is refused until it takes the new configuration
/// (sent again in chunks); a home pushed over 200 detectors is refused at its
/// next arming, and arms again once back within the limit.
#[tokio::test]
async fn a_detector_found_after_the_hub_acknowledged_counts_for_the_next_arming() {
    let t = TestPlatform::start_with(crate::simulator::fast).await;
    let i = security_home(&t, "security-hub-found@example.com").await;
    let hub = virtual_hub(&t, &i).await;
    let (code, s) =
        patch_settings(&t, &i, json!({ "exitDelaySeconds": 1, "hubDeviceId": hub })).await;
    assert_eq!(code, 200, "{s}");
    hub_acknowledged(&t, &i).await;

    // Found while armed: the armed period and its hub are left alone.
    let armed_away = armed(&t, &i, "away").await;
    add_motion_sensor(&i, 1);
    discover(&t, &i).await;
    let s = status(&t, &i).await;
    assert_eq!(s["confirmedMode"], "away", "{s}");
    assert_eq!(s["generation"], armed_away["generation"], "{s}");
    assert_eq!(s["hub"]["acknowledged"], false, "{s}");
    let problem = s["hub"]["problem"].as_str().unwrap_or_default();
    assert!(problem.contains("once the home is off"), "{s}");
    tokio::time::sleep(Duration::from_secs(2)).await;
    let s = status(&t, &i).await;
    assert_eq!(
        s["hub"]["acknowledged"], false,
        "no configuration went to the hub while armed: {s}"
    );
    assert_eq!(s["hub"]["protection"]["mode"], "away", "{s}");
    assert_eq!(s["hub"]["protection"]["generation"], s["generation"]);
    arming_refused(&t, &i, "home", "once the home is off").await;

    // Off: the next arming is refused until the hub takes the new
    // configuration (asked at once: the arming is the first to see it).
    let s = off(&t, &i).await;
    let (code, refused) = mode(
        &t,
        &i,
        arm(
            "away",
            s["revision"].as_u64().unwrap(),
            s["generation"].as_u64().unwrap(),
        ),
    )
    .await;
    assert_eq!(code, 409, "{refused}");
    assert_eq!(refused["type"], "urn:alyt:problem:security-refused");
    assert!(
        refused["detail"]
            .as_str()
            .unwrap()
            .contains("not acknowledged"),
        "{refused}"
    );
    hub_acknowledged(&t, &i).await;
    armed(&t, &i, "away").await;
    off(&t, &i).await;
    // Slowed (so that what it has not answered yet can be seen) only once
    // it answered every mode it was sent.
    status_until(&t, &i, "the hub off", |s| {
        s["hub"]["protection"]["mode"] == "off"
            && s["hub"]["protection"]["generation"] == s["generation"]
    })
    .await;

    // Found while Off: the status says so at once and arming waits for the
    // hub's acknowledgement.
    scenario(&t, &i, &hub, "SLOW").await;
    add_motion_sensor(&i, 2);
    discover(&t, &i).await;
    let s = status(&t, &i).await;
    assert_eq!(s["hub"]["acknowledged"], false, "{s}");
    assert_eq!(s["readiness"]["away"]["ready"], false, "{s}");
    arming_refused(&t, &i, "away", "not acknowledged").await;
    scenario(&t, &i, &hub, "NORMAL").await;
    hub_acknowledged(&t, &i).await;
    armed(&t, &i, "away").await;
    off(&t, &i).await;

    // Pushed over 200 detectors after the acknowledgement: refused at the
    // next arming, like a home that had them when its hub was assigned.
    let s = status(&t, &i).await;
    let more = 201 - detectors(&s);
    for n in 0..more {
        add_motion_sensor(&i, 100 + n);
    }
    discover(&t, &i).await;
    let s = status(&t, &i).await;
    assert_eq!(detectors(&s), 201);
    assert_eq!(s["hub"]["acknowledged"], false, "{s}");
    let problem = s["hub"]["problem"].as_str().unwrap_or_default();
    assert!(problem.contains("201 detectors"), "{problem}");
    assert_eq!(s["readiness"]["away"]["ready"], false);
    let refused = arming_refused(&t, &i, "away", "201 detectors").await;
    assert_eq!(refused["type"], "urn:alyt:problem:security-refused");

    // One excluded: within the limit again, the hub takes all 200 and the
    // home arms.
    let one = thing(&s, "Extra motion 100")["thing"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (code, s) = t
        .send_json(
            "PUT",
            &format!("/home-security/{}/devices/endpoint/{one}", i.property),
            Some(i.token()),
            Some(json!({ "tenantId": i.tenant, "selection": "exclude" })),
        )
        .await;
    assert_eq!(code, 200, "{s}");
    assert_eq!(detectors(&s), 200);
    hub_acknowledged(&t, &i).await;
    armed(&t, &i, "away").await;
    off(&t, &i).await;
}

/// A TV: a widget token minted for a TV has no home-security access until its
/// person delegates control to it, for a while; then it controls the mode but
/// never the configuration; a phone widget is never delegated; the delegation
/// ends when revoked or when its time is up.
#[tokio::test]
async fn a_tv_controls_security_only_with_a_current_delegation() {
    let t = TestPlatform::start().await;
    let first = t.platform.first_start.as_ref().unwrap();
    let (tenant, home) = (first.tenant_id.to_string(), first.property_id.to_string());
    let owner = crate::device_plane::owner_token(&t).await;
    let mint = |surface: &'static str| {
        let (t, owner, tenant, home) = (&t, owner.clone(), tenant.clone(), home.clone());
        async move {
            let (code, token) = t
                .post_json(
                    &format!("/properties/{home}/widget-tokens?tenantId={tenant}"),
                    Some(&owner),
                    json!({ "name": format!("Living room {surface}"), "surface": surface }),
                )
                .await;
            assert_eq!(code, 201, "{token}");
            assert_eq!(token["surface"], surface);
            (
                token["id"].as_str().unwrap().to_owned(),
                token["token"].as_str().unwrap().to_owned(),
            )
        }
    };
    let (tv_id, tv) = mint("tv").await;
    let (phone_id, phone) = mint("phone").await;
    let security = format!("/home-security/{home}?tenantId={tenant}");
    let delegations = format!("/home-security/{home}/delegations");
    let delegate = |id: String, seconds: i64| {
        let (t, owner, tenant, delegations) =
            (&t, owner.clone(), tenant.clone(), delegations.clone());
        async move {
            let until = time::OffsetDateTime::now_utc() + time::Duration::seconds(seconds);
            t.send_json(
                "PUT",
                &format!("{delegations}/{id}"),
                Some(&owner),
                Some(json!({ "tenantId": tenant,
                    "until": until.format(&time::format_description::well_known::Rfc3339).unwrap() })),
            )
            .await
        }
    };

    // No delegation: nothing, for the TV as for the phone.
    for token in [&tv, &phone] {
        let (code, body) = t.get_json(&security, Some(token)).await;
        assert_eq!(code, 403, "{body}");
    }
    // A phone is never delegated; a delegation is for at most 30 days.
    let (code, refused) = delegate(phone_id.clone(), 3600).await;
    assert_eq!(code, 400, "{refused}");
    let (code, refused) = delegate(tv_id.clone(), 31 * 24 * 3600).await;
    assert_eq!(code, 400, "{refused}");

    // Delegated: the TV controls the mode, not the configuration.
    let (code, given) = delegate(tv_id.clone(), 3600).await;
    assert_eq!(code, 200, "{given}");
    let (code, s) = t.get_json(&security, Some(&tv)).await;
    assert_eq!(code, 200, "{s}");
    assert_eq!(s["access"], "control");
    let (code, off) = t
        .post_json(
            &format!("/home-security/{home}/mode"),
            Some(&tv),
            json!({ "tenantId": tenant, "mode": "off", "requestId": Uuid::new_v4(),
                    "revision": s["revision"], "generation": s["generation"] }),
        )
        .await;
    assert_eq!(code, 200, "{off}");
    let (code, refused) = t
        .send_json(
            "PATCH",
            &format!("/home-security/{home}/settings"),
            Some(&tv),
            Some(json!({ "tenantId": tenant, "exitDelaySeconds": 10 })),
        )
        .await;
    assert_eq!(code, 403, "{refused}");
    let (code, body) = t.get_json(&security, Some(&phone)).await;
    assert_eq!(code, 403, "the phone gained nothing: {body}");

    // Revoked: nothing again.
    let (code, _) = t
        .send_json(
            "DELETE",
            &format!("{delegations}/{tv_id}?tenantId={tenant}"),
            Some(&owner),
            None,
        )
        .await;
    assert_eq!(code, 204);
    let (code, body) = t.get_json(&security, Some(&tv)).await;
    assert_eq!(code, 403, "{body}");

    // A delegation whose time is up is over.
    let (code, given) = delegate(tv_id.clone(), 2).await;
    assert_eq!(code, 200, "{given}");
    let (code, _) = t.get_json(&security, Some(&tv)).await;
    assert_eq!(code, 200);
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let (code, body) = t.get_json(&security, Some(&tv)).await;
    assert_eq!(code, 403, "{body}");
}

/// A siren is home security's output: a key or a phone widget cannot sound
/// or silence it with a generic command (no security authority through a
/// device command), whoever controls the home's security can, and a room
/// action leaves it alone.
#[tokio::test]
async fn a_siren_answers_only_to_whoever_controls_security() {
    let t = TestPlatform::start().await;
    let i = security_home(&t, "security-siren@example.com").await;
    let siren = endpoints_by_name(&t, &i).await["Hall siren"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (_, key) =
        alyt_tests::developers::create_key(&t, &i.developer, &["things:read", "things:control"])
            .await;
    let path = format!("/endpoints/{siren}/commands?tenantId={}", i.tenant);
    let on = json!({ "command": "set", "payload": { "capability": "switch", "key": "power", "value": true } });
    let (code, refused) = t.post_json(&path, Some(&key), on.clone()).await;
    assert_eq!(code, 403, "{refused}");
    assert!(
        refused["detail"].as_str().unwrap().contains("siren"),
        "{refused}"
    );
    assert_eq!(
        i.bridge.thing_state("siren-hall").unwrap()["switch"]["power"],
        false
    );
    let (code, applied) = t.post_json(&path, Some(i.token()), on).await;
    assert_eq!(code, 200, "{applied}");
    assert_eq!(
        i.bridge.thing_state("siren-hall").unwrap()["switch"]["power"],
        true
    );

    // "Hall: switches off" leaves the siren alone.
    let s = status(&t, &i).await;
    let hall = thing(&s, "Hall siren")["roomId"]
        .as_str()
        .unwrap()
        .to_owned();
    let (code, result) = t
        .post_json(
            &format!("/rooms/{hall}/actions"),
            Some(i.token()),
            json!({ "tenantId": i.tenant, "capability": "switch", "action": "switches", "value": false }),
        )
        .await;
    assert_eq!(code, 200, "{result}");
    let skipped: Vec<&str> = result["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert!(skipped.contains(&"Hall siren"), "{result}");
    assert_eq!(
        i.bridge.thing_state("siren-hall").unwrap()["switch"]["power"],
        true
    );
}

/// The sandbox's virtual device of `profile`: its row.
async fn virtual_device(t: &TestPlatform, i: &Installed, profile: &str) -> Value {
    let (code, page) = t
        .get_json(
            &format!("/developers/simulator/devices?tenantId={}", i.tenant),
            Some(i.token()),
        )
        .await;
    assert_eq!(code, 200, "{page}");
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["profile"] == profile)
        .map(|d| d["device"].clone())
        .unwrap_or_else(|| panic!("no virtual {profile}"))
}

/// What the device last reported, once `check` holds.
async fn reported_until(
    t: &TestPlatform,
    i: &Installed,
    device: &str,
    what: &str,
    check: impl Fn(&Value) -> bool,
) -> Value {
    for _ in 0..80 {
        let (_, row) = t
            .get_json(
                &format!("/devices/{device}?tenantId={}", i.tenant),
                Some(i.token()),
            )
            .await;
        let reported = row["reported"]["payload"].clone();
        if check(&reported) {
            return reported;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    panic!("{device} never {what}");
}

/// An MQTT light as a night light (the sandbox's virtual light, a real MQTT
/// client): the alarm flashes it at full intensity through the command
/// path, and Off sends it back to what it reported before; the restoration
/// is complete only once the device answered and reports its old state.
#[tokio::test]
async fn an_mqtt_light_flashes_in_an_alarm_and_is_put_back_once_it_answers() {
    let t = TestPlatform::start_with(crate::simulator::fast).await;
    let i = security_home(&t, "security-mqtt-light@example.com").await;
    let light = virtual_device(&t, &i, "LIGHT").await;
    let light_id = light["id"].as_str().unwrap().to_owned();
    let kitchen = light["roomId"].clone();
    // Its state before: on, dimmed to 30.
    for (key, value) in [("power", json!(true)), ("brightness", json!(30))] {
        let (code, row) = t
            .post_json(
                &format!("/devices/{light_id}/commands?tenantId={}", i.tenant),
                Some(i.token()),
                json!({ "command": "set", "payload": { "capability": "light", "key": key, "value": value } }),
            )
            .await;
        assert_eq!(code, 202, "{row}");
    }
    reported_until(&t, &i, &light_id, "on at 30", |r| {
        r["light"]["power"] == true && r["light"]["brightness"] == 30
    })
    .await;
    let (code, s) = patch_settings(
        &t,
        &i,
        json!({ "exitDelaySeconds": 1, "nightLightRooms": [kitchen], "location": place(true) }),
    )
    .await;
    assert_eq!(code, 200, "{s}");

    armed(&t, &i, "away").await;
    let motion = endpoints_by_name(&t, &i).await["Hall motion"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        i.bridge
            .set_state("motion-hall", "sensor.motion", "motion", json!(true))
    );
    refresh(&t, &i, &motion).await;
    sounding(&i, "siren-hall", "switch", "power", json!(true)).await;
    reported_until(&t, &i, &light_id, "at full intensity", |r| {
        r["light"]["brightness"] == 100
    })
    .await;
    // It flashes: off at the next beat.
    reported_until(&t, &i, &light_id, "flashing off", |r| {
        r["light"]["power"] == false
    })
    .await;

    off(&t, &i).await;
    let s = restored(&t, &i).await;
    let output = s["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["thingId"] == light_id.as_str())
        .cloned()
        .unwrap_or_else(|| panic!("the light is an output: {s}"));
    assert_eq!(output["stage"], "restored", "{output}");
    assert_eq!(output["unrestored"], json!([]), "{output}");
    let after = reported_until(&t, &i, &light_id, "back on at 30", |r| {
        r["light"]["power"] == true && r["light"]["brightness"] == 30
    })
    .await;
    assert_eq!(after["light"]["power"], true);

    // An alarm command the device never answered (it went silent) is
    // superseded when the restoration starts: the bridge sweep never
    // delivers it after Off.
    assert!(
        i.bridge
            .set_state("motion-hall", "sensor.motion", "motion", json!(false))
    );
    refresh(&t, &i, &motion).await;
    armed(&t, &i, "away").await;
    assert!(
        i.bridge
            .set_state("motion-hall", "sensor.motion", "motion", json!(true))
    );
    refresh(&t, &i, &motion).await;
    reported_until(&t, &i, &light_id, "at full intensity again", |r| {
        r["light"]["brightness"] == 100
    })
    .await;
    let history = format!(
        "/devices/{light_id}/commands?tenantId={}&limit=200",
        i.tenant
    );
    let ids = |page: &Value| -> Vec<String> {
        page["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["commandId"].as_str().unwrap().to_owned())
            .collect()
    };
    let (_, page) = t.get_json(&history, Some(i.token())).await;
    let before = ids(&page);
    scenario(&t, &i, &light_id, "OFFLINE").await;
    // The next beat goes to a device that does not answer.
    let mut waited = 0;
    loop {
        let (_, page) = t.get_json(&history, Some(i.token())).await;
        let beat_unanswered = page["items"].as_array().unwrap().iter().any(|c| {
            !before.contains(&c["commandId"].as_str().unwrap().to_owned())
                && c["state"] == "sent"
                && c["resultStatus"].is_null()
        });
        if beat_unanswered {
            break;
        }
        waited += 1;
        assert!(waited < 60, "no beat went unanswered: {page}");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    off(&t, &i).await;
    let mut waited = 0;
    loop {
        let (_, page) = t.get_json(&history, Some(i.token())).await;
        let superseded = page["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["state"] == "undeliverable" && c["undeliverableReason"] == "superseded");
        if superseded {
            break;
        }
        waited += 1;
        assert!(waited < 60, "no alarm command was superseded: {page}");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert_eq!(
        status(&t, &i).await["restorationPending"],
        true,
        "the light did not answer yet"
    );
}

/// A detector the household disabled (an endpoint's `enabled: false`) is
/// shown before arming as disabled, blocks the modes that watch it, and is
/// ready again once enabled.
#[tokio::test]
async fn a_disabled_endpoint_detector_is_shown_before_arming_until_it_is_enabled() {
    let t = TestPlatform::start().await;
    let i = security_home(&t, "security-disabled@example.com").await;
    let things = endpoints_by_name(&t, &i).await;
    let motion = things["Hall motion"]["id"].as_str().unwrap().to_owned();
    assert_eq!(status(&t, &i).await["readiness"]["away"]["ready"], true);

    let (code, thing) = crate::endpoints::patch(&t, &i, &motion, json!({ "enabled": false })).await;
    assert_eq!(code, 200, "{thing}");
    let s = status(&t, &i).await;
    assert_eq!(s["readiness"]["away"]["ready"], false, "{s}");
    assert_eq!(
        s["readiness"]["away"]["blockers"],
        json!([{ "thingId": motion, "name": "Hall motion", "signal": "motion", "why": "disabled" }])
    );
    let (code, refused) = mode(&t, &i, arm("away", 0, 0)).await;
    assert_eq!(code, 409, "{refused}");
    assert!(
        refused["detail"]
            .as_str()
            .unwrap()
            .contains("hall motion (motion: disabled)"),
        "{refused}"
    );

    let (code, _) = crate::endpoints::patch(&t, &i, &motion, json!({ "enabled": true })).await;
    assert_eq!(code, 200);
    let s = status(&t, &i).await;
    assert_eq!(s["readiness"]["away"]["ready"], true, "{s}");
}
