//! A household's stories, on the local platform (by default) and on the
//! hosted stack in the emulated AWS region (`ALYT_E2E_TARGET=emulated`; see
//! `alyt_tests::region`): signing in and arranging a room, an invitation
//! accepted, a guest's stay let out by the stay sweep, a routine run at its
//! time, home security armed after its countdown, and the console served
//! beside the API. The hosted stack has no demo household: each story's
//! household is the sandbox of a developer it signs up
//! (`alyt_tests::household`), who owns it. Each story's doc names the
//! template's functions it enters when hosted.

use std::time::Duration;

use alyt_tests::Target;
use alyt_tests::developers::{mails_to, token_of, wait_for_link};
use alyt_tests::household::{Household, fresh_address, until};
use alyt_tests::region::Story;
use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::rooms::{Home, create_room, get_room, room_until, value_of};

/// A password the policy accepts, for the people a household lets in.
const NEW_PASSWORD: &str = "orange kettle harbour";

fn names(list: &Value) -> Vec<&str> {
    let mut names: Vec<&str> = list
        .as_array()
        .unwrap_or_else(|| panic!("a list: {list}"))
        .iter()
        .map(|o| o["name"].as_str().unwrap())
        .collect();
    names.sort();
    names
}

fn text(at: OffsetDateTime) -> String {
    at.format(&Rfc3339).unwrap()
}

fn instant(value: &Value) -> OffsetDateTime {
    OffsetDateTime::parse(
        value.as_str().unwrap_or_else(|| panic!("{value}")),
        &Rfc3339,
    )
    .unwrap()
}

/// Where the console is served: the API's origin, without `/v1`.
fn console_url(t: &impl Target, path: &str) -> String {
    let api = t.url("");
    let origin = api.strip_suffix("/v1").expect("the API is under /v1");
    format!("{origin}{path}")
}

/// Hosted: ApiAuthFunction (the household's sign-in and `/auth/me`),
/// ApiHomesFunction (the room, the light registered into it, the room's
/// view and its action, the command published through the IoT data
/// plane); the light's reports reach IngestFunction through the topic rule.
#[tokio::test]
async fn a_household_signs_in_adds_a_room_places_a_light_and_turns_the_room_off() {
    let t = Story::start().await;
    let house = Household::sign_up(&t, "rooms").await;
    let (status, me) = t.get_json("/auth/me", Some(&house.token)).await;
    assert_eq!(status, 200, "{me}");
    assert_eq!(me["homes"][0]["clientId"], house.client.as_str(), "{me}");
    assert_eq!(me["homes"][0]["role"], "OWNER", "{me}");

    let home = Home {
        tenant: house.tenant.clone(),
        property: house.home.clone(),
    };
    let room = create_room(&t, &house.token, &home, "Guest Bathroom").await;
    assert_eq!(room["icon"], "shower", "derived from the name: {room}");
    assert_eq!(room["things"], json!([]));
    let room = room["id"].as_str().unwrap().to_owned();
    let (status, rooms) = t
        .get_json(
            &format!("/rooms?tenantId={}&propertyId={}", house.tenant, house.home),
            Some(&house.token),
        )
        .await;
    assert_eq!(status, 200, "{rooms}");
    assert!(
        names(&rooms["items"]).contains(&"Guest Bathroom"),
        "{rooms}"
    );

    // A light registered into the room is one of its things.
    let (registered, mut lamp) = house
        .add_device(&t, "Spa lamp", &["LIGHT"], json!({ "roomId": room }))
        .await;
    let view = get_room(&t, &house.token, &home, &room).await;
    assert_eq!(names(&view["things"]), ["Spa lamp"], "{view}");
    assert_eq!(
        view["primaryActions"],
        json!([{ "capability": "light", "action": "lights" }])
    );
    lamp.publish("availability", &json!("online")).await;
    lamp.publish(
        "status",
        &json!({ "light": { "power": true, "brightness": 40 } }),
    )
    .await;
    room_until(&t, &house.token, &home, &room, "the lamp on", |v| {
        value_of(v, "lights") == &json!(true)
    })
    .await;

    // The room's lights off: the lamp is told, and what it reports back is
    // what the room shows.
    let (status, result) = t
        .post_json(
            &format!("/rooms/{room}/actions"),
            Some(&house.token),
            json!({ "tenantId": house.tenant, "capability": "light", "action": "lights", "value": false }),
        )
        .await;
    assert_eq!(status, 200, "{result}");
    assert_eq!(names(&result["applied"]), ["Spa lamp"], "{result}");
    let (topic, command) = lamp.next(Duration::from_secs(15)).await;
    assert_eq!(
        topic,
        format!("{}/commands", registered["topicPrefix"].as_str().unwrap())
    );
    assert_eq!(
        command["payload"],
        json!({ "capability": "light", "key": "power", "value": false })
    );
    lamp.publish(
        "response",
        &json!({ "commandId": command["commandId"], "command": command["command"], "status": "ok" }),
    )
    .await;
    lamp.publish(
        "status",
        &json!({ "light": { "power": false, "brightness": 40 } }),
    )
    .await;
    room_until(&t, &house.token, &home, &room, "the lamp off", |v| {
        value_of(v, "lights") == &json!(false)
    })
    .await;
}

/// Hosted: ApiPeopleFunction (the invitation, its mail through SES, the
/// household's people), ConsoleWebFunction (the mailed link's page),
/// ApiAuthFunction (the link's preview, the acceptance, the new person's
/// sign-in) and ApiHomesFunction (the home she now sees).
#[tokio::test]
async fn an_invited_person_accepts_the_mailed_link_signs_in_and_finds_the_home() {
    let t = Story::start().await;
    let house = Household::sign_up(&t, "inviting").await;
    let email = fresh_address("nora");

    let (status, created) = t
        .post_json(
            &house.people("/invitations"),
            Some(&house.token),
            json!({ "email": email, "name": "Nora", "role": "MEMBER" }),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["status"], "invited", "{created}");
    assert_eq!(created["invitation"]["state"], "waiting", "{created}");

    // The mail's link leads to the console's page on this platform.
    let link = wait_for_link(&t, &email, "/invitation?token=")
        .await
        .expect("an invitation mail");
    assert!(
        link.starts_with(&console_url(&t, "/invitation?token=")),
        "{link}"
    );
    let mail = mails_to(&t, &email);
    assert!(
        mail[0].subject.starts_with("You are invited to"),
        "{}",
        mail[0].subject
    );
    assert!(mail[0].body.contains("Hello Nora,"), "{}", mail[0].body);
    let page = t.http().get(&link).send().await.expect("request sent");
    assert_eq!(page.status(), 200, "{link}");
    assert_eq!(page.headers()["content-type"], "text/html; charset=utf-8");
    assert!(page.text().await.unwrap().contains("/console/app.js"));

    // What the link shows without a session, then the acceptance.
    let token = token_of(&link);
    let (status, preview) = t
        .get_json(&format!("/auth/invitations/{token}"), None)
        .await;
    assert_eq!(status, 200, "{preview}");
    assert_eq!(preview["household"]["clientId"], house.client.as_str());
    assert_eq!(preview["role"], "member");
    assert_eq!(preview["hasAccount"], false);
    let (status, pair) = t
        .post_json(
            &format!("/auth/invitations/{token}/accept"),
            None,
            json!({ "name": "Nora Lind", "password": NEW_PASSWORD }),
        )
        .await;
    assert_eq!(status, 200, "{pair}");
    assert!(pair["accessToken"].is_string(), "{pair}");
    let (status, spent) = t
        .get_json(&format!("/auth/invitations/{token}"), None)
        .await;
    assert_eq!(status, 410, "the link is spent: {spent}");

    // She signs in with her new password and finds the home.
    let pair = t.household_login(&email, NEW_PASSWORD).await;
    let access = pair["accessToken"].as_str().unwrap();
    let (status, me) = t.get_json("/auth/me", Some(access)).await;
    assert_eq!(status, 200, "{me}");
    assert_eq!(me["claims"]["clients"][&house.client]["role"], "MEMBER");
    let (status, homes) = t
        .get_json(
            &format!("/properties?tenantId={}", house.tenant),
            Some(access),
        )
        .await;
    assert_eq!(status, 200, "{homes}");
    assert_eq!(homes["items"][0]["id"], house.home.as_str(), "{homes}");

    // The household sees her among its people, and nothing pending.
    let (status, people) = t
        .get_json(&house.people("/members"), Some(&house.token))
        .await;
    assert_eq!(status, 200, "{people}");
    let nora = people["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["email"] == email.as_str())
        .unwrap_or_else(|| panic!("Nora among {people}"));
    assert_eq!(nora["role"], "MEMBER");
    let (status, pending) = t
        .get_json(&house.people("/invitations"), Some(&house.token))
        .await;
    assert_eq!(status, 200, "{pending}");
    assert_eq!(pending["items"], json!([]));
}

/// The local platform's stay sweep on a quick beat (hosted, the region's
/// schedules are sped up instead: `region::SCHEDULE_SPEEDUP`).
fn quick_stay_sweep(config: &mut alyt_local::Config) {
    config.stay_sweep_every = Duration::from_millis(200);
}

/// Hosted: ApiPeopleFunction (the stay by reservation key, its invitation
/// mailed through SES, the audit trail), ApiAuthFunction (the guest's
/// acceptance, sign-in and refresh) and SweepsFunction (the stay sweep on
/// its schedule, which checks her out at the stay's end).
#[tokio::test]
async fn a_booked_guest_is_let_in_for_the_stay_and_checked_out_by_the_stay_sweep() {
    let t = Story::start_with(quick_stay_sweep).await;
    let house = Household::sign_up(&t, "stays").await;
    let email = fresh_address("vera");
    let now = OffsetDateTime::now_utc().replace_nanosecond(0).unwrap();
    let check_in = now + time::Duration::seconds(6);
    let check_out = now + time::Duration::seconds(25);
    let stay = house.people("/guests/BK-2026-001");

    let (status, opened) = t
        .send_json(
            "PUT",
            &stay,
            Some(&house.token),
            Some(json!({
                "email": email,
                "name": "Vera",
                "propertyId": house.home,
                "checkIn": text(check_in),
                "checkOut": text(check_out),
            })),
        )
        .await;
    assert_eq!(status, 201, "{opened}");
    assert_eq!(opened["state"], "invited", "{opened}");

    // She accepts the mailed link: a member of the stay.
    let link = wait_for_link(&t, &email, "/invitation?token=")
        .await
        .expect("the stay's invitation mail");
    let (status, pair) = t
        .post_json(
            &format!("/auth/invitations/{}/accept", token_of(&link)),
            None,
            json!({ "name": "Vera", "password": NEW_PASSWORD }),
        )
        .await;
    assert_eq!(status, 200, "{pair}");
    let (status, read) = t.get_json(&stay, Some(&house.token)).await;
    assert_eq!(status, 200, "{read}");
    assert_eq!(read["state"], "member", "{read}");

    // Inside the stay her sign-in names the home, for no longer than the
    // stay lasts.
    let wait = check_in - OffsetDateTime::now_utc();
    if wait.is_positive() {
        tokio::time::sleep(wait.unsigned_abs()).await;
    }
    let pair = t.household_login(&email, NEW_PASSWORD).await;
    let lives = pair["expiresIn"].as_i64().unwrap();
    assert!(
        lives <= (check_out - now).whole_seconds(),
        "the token ends with the stay: {lives} s"
    );
    let (_, me) = t.get_json("/auth/me", pair["accessToken"].as_str()).await;
    assert_eq!(
        me["claims"]["clients"][&house.client]["role"], "GUEST",
        "{me}"
    );
    assert_eq!(
        me["claims"]["clients"][&house.client]["propertyId"],
        house.home.as_str()
    );

    // After check-out time the sweep ends the stay: she is signed out, her
    // next sign-in names no home, and the audit trail says the sweep did it.
    let within = (check_out - OffsetDateTime::now_utc()).unsigned_abs() + Duration::from_secs(40);
    let over = until(&t, &stay, &house.token, within, "check-out", |s| {
        s["state"] == "checked-out"
    })
    .await;
    assert_eq!(over["reservationKey"], "BK-2026-001");
    assert!(
        OffsetDateTime::now_utc() >= check_out,
        "not before its time: {over}"
    );
    let (status, _) = t
        .post_json(
            "/auth/refresh",
            None,
            json!({ "refreshToken": pair["refreshToken"] }),
        )
        .await;
    assert_eq!(status, 401, "signed out at check-out");
    let pair = t.household_login(&email, NEW_PASSWORD).await;
    let (_, me) = t.get_json("/auth/me", pair["accessToken"].as_str()).await;
    assert!(me["claims"]["clients"].get(&house.client).is_none(), "{me}");
    let (status, audit) = t
        .get_json(&house.people("/audit"), Some(&house.token))
        .await;
    assert_eq!(status, 200, "{audit}");
    let entry = &audit["items"][0];
    assert_eq!(entry["kind"], "guest.checked_out", "{audit}");
    assert_eq!(entry["reservationKey"], "BK-2026-001");
    assert_eq!(entry["actor"], Value::Null, "the sweep acted: {entry}");
    assert!(
        entry["detail"]
            .as_str()
            .unwrap()
            .contains("its check-out time passed"),
        "{entry}"
    );
}

/// Hosted: ApiHomesFunction (the routine, its runs, the light's
/// registration), RoutinesFunction (the occurrence started on its
/// schedule's beat, the light's command published through the IoT data
/// plane) and IngestFunction (the light's answer).
#[tokio::test]
async fn a_routine_runs_at_its_time_and_its_run_is_read_back() {
    let t = Story::start().await;
    let house = Household::sign_up(&t, "routines").await;
    let (status, homes) = t
        .get_json(
            &format!("/properties?tenantId={}", house.tenant),
            Some(&house.token),
        )
        .await;
    assert_eq!(status, 200, "{homes}");
    assert_eq!(
        homes["items"][0]["timezone"], "UTC",
        "the times below are the home's"
    );
    let (registered, mut light) = house
        .add_device(&t, "Porch light", &["LIGHT"], json!({}))
        .await;
    light.publish("availability", &json!("online")).await;
    let light_id = registered["device"]["id"].as_str().unwrap().to_owned();

    // A time trigger has minutes: the next whole minute with a few seconds
    // to spare for the request.
    let now = OffsetDateTime::now_utc();
    let mut due = now
        .replace_second(0)
        .unwrap()
        .replace_nanosecond(0)
        .unwrap()
        + time::Duration::minutes(1);
    if due - now < time::Duration::seconds(5) {
        due += time::Duration::minutes(1);
    }
    let (status, created) = t
        .post_json(
            &format!(
                "/properties/{}/routines?tenantId={}",
                house.home, house.tenant
            ),
            Some(&house.token),
            json!({
                "name": "Porch at dusk",
                "triggers": [{ "kind": "time", "at": format!("{:02}:{:02}", due.hour(), due.minute()),
                               "days": ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] }],
                "do": [{ "kind": "thing", "thing": { "kind": "device", "id": light_id },
                         "command": { "command": "set", "payload": { "capability": "light", "key": "power", "value": true } } }]
            }),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(instant(&created["nextDue"]), due, "{created}");
    let routine = created["id"].as_str().unwrap().to_owned();
    let runs = format!("/routines/{routine}/runs?tenantId={}", house.tenant);
    let (_, before) = t.get_json(&runs, Some(&house.token)).await;
    assert_eq!(before["items"], json!([]), "not before its time");

    // At its time the light is told, once.
    let wait = (due - OffsetDateTime::now_utc()).unsigned_abs();
    let (_, command) = light.next(wait + Duration::from_secs(20)).await;
    assert!(OffsetDateTime::now_utc() >= due, "not before its time");
    assert_eq!(
        command["payload"],
        json!({ "capability": "light", "key": "power", "value": true })
    );
    light
        .publish(
            "response",
            &json!({ "commandId": command["commandId"], "command": "set", "status": "ok" }),
        )
        .await;

    // The run is there to read: started by the schedule, its step applied
    // with the command the light got.
    let page = until(
        &t,
        &runs,
        &house.token,
        Duration::from_secs(20),
        "a finished run",
        |p| p["items"][0]["state"] == "finished",
    )
    .await;
    assert_eq!(page["items"].as_array().unwrap().len(), 1, "{page}");
    let run = &page["items"][0];
    assert_eq!(run["cause"]["kind"], "schedule", "{run}");
    assert_eq!(run["cause"]["localDate"], due.date().to_string(), "{run}");
    assert_eq!(run["steps"][0]["outcome"], "applied", "{run}");
    assert_eq!(
        run["steps"][0]["things"][0]["commandId"], command["commandId"],
        "{run}"
    );
    let (_, read) = t
        .get_json(
            &format!("/routines/{routine}?tenantId={}", house.tenant),
            Some(&house.token),
        )
        .await;
    assert_eq!(
        instant(&read["nextDue"]),
        due + time::Duration::days(1),
        "{read}"
    );
}

/// Hosted: ApiSecurityFunction (the status, the settings, the modes),
/// RoutinesFunction (the exit countdown ended on the security timers'
/// beat, with nobody reading the status), ApiHomesFunction (the motion
/// sensor's registration, the household's notifications) and
/// IngestFunction (the sensor's report of what it detects).
#[tokio::test]
async fn a_home_arms_after_its_exit_countdown_and_disarms() {
    let t = Story::start().await;
    let house = Household::sign_up(&t, "security").await;
    let read = format!("/home-security/{}?tenantId={}", house.home, house.tenant);
    let (_, sensor) = house
        .add_device(&t, "Landing motion", &["SENSOR"], json!({}))
        .await;
    sensor.publish("availability", &json!("online")).await;
    sensor
        .publish("status", &json!({ "features": ["motion"] }))
        .await;
    let s = until(
        &t,
        &read,
        &house.token,
        Duration::from_secs(30),
        "the sensor watched and the home ready",
        |s| {
            s["things"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t["name"] == "Landing motion" && t["enrolled"] == json!(["motion"]))
                && s["readiness"]["away"]["ready"] == true
        },
    )
    .await;
    assert_eq!(s["confirmedMode"], "off", "{s}");

    let mode = |body: Value| {
        let (t, house) = (&t, &house);
        async move {
            let mut body = body;
            body["tenantId"] = json!(house.tenant);
            body["requestId"] = json!(uuid::Uuid::new_v4());
            t.post_json(
                &format!("/home-security/{}/mode", house.home),
                Some(&house.token),
                body,
            )
            .await
        }
    };
    let (status, s) = t
        .send_json(
            "PATCH",
            &format!("/home-security/{}/settings", house.home),
            Some(&house.token),
            Some(json!({ "tenantId": house.tenant, "exitDelaySeconds": 3 })),
        )
        .await;
    assert_eq!(status, 200, "{s}");

    // Away: the exit countdown runs, and the status shows it.
    let (status, s) =
        mode(json!({ "mode": "away", "revision": s["revision"], "generation": s["generation"] }))
            .await;
    assert_eq!(status, 200, "{s}");
    assert_eq!(
        (s["requestedMode"].as_str(), s["confirmedMode"].as_str()),
        (Some("away"), Some("off")),
        "{s}"
    );
    let exit_until = instant(&s["exitUntil"]);
    let generation = s["generation"].clone();
    let (_, counting) = t.get_json(&read, Some(&house.token)).await;
    assert_eq!(counting["confirmedMode"], "off", "{counting}");
    assert_eq!(instant(&counting["exitUntil"]), exit_until);

    // The countdown ends on the timers' beat, read or not: the household
    // is told the home is armed.
    let notifications = format!(
        "/notifications?tenantId={}&propertyId={}&limit=50",
        house.tenant, house.home
    );
    let kinds = |page: &Value| -> Vec<String> {
        page["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|n| n["kind"].as_str().map(str::to_owned))
            .collect()
    };
    until(
        &t,
        &notifications,
        &house.token,
        Duration::from_secs(20),
        "the armed notice",
        |page| kinds(page).iter().any(|k| k == "security.armed"),
    )
    .await;
    assert!(
        OffsetDateTime::now_utc() >= exit_until,
        "not before the end of the countdown"
    );
    let (_, s) = t.get_json(&read, Some(&house.token)).await;
    assert_eq!(
        (s["requestedMode"].as_str(), s["confirmedMode"].as_str()),
        (Some("away"), Some("away")),
        "{s}"
    );
    assert!(
        s["armedSince"].is_string() && s["exitUntil"].is_null(),
        "{s}"
    );

    // Off, with the armed period's generation.
    let (status, s) =
        mode(json!({ "mode": "off", "revision": s["revision"], "generation": generation })).await;
    assert_eq!(status, 200, "{s}");
    assert_eq!(
        (s["requestedMode"].as_str(), s["confirmedMode"].as_str()),
        (Some("off"), Some("off")),
        "{s}"
    );
    let (_, page) = t.get_json(&notifications, Some(&house.token)).await;
    let heard = kinds(&page);
    for kind in ["security.arming", "security.armed", "security.off"] {
        assert!(heard.iter().any(|k| k == kind), "{kind} in {heard:?}");
    }
}

/// Hosted: ConsoleWebFunction (`GET /`, `GET /invitation`, `GET
/// /console/{file}`: the page and its script, not the API's JSON) and
/// ApiIntegrationsFunction (the household's integrations and the
/// catalogue).
#[tokio::test]
async fn the_console_is_served_beside_the_api_and_the_household_lists_its_integrations() {
    let t = Story::start().await;
    for path in ["/", "/invitation?token=an-unread-token"] {
        let response = t
            .http()
            .get(console_url(&t, path))
            .send()
            .await
            .expect("request sent");
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(
            response.headers()["content-type"],
            "text/html; charset=utf-8",
            "{path}"
        );
        let policy = response.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .to_owned();
        assert!(policy.starts_with("default-src 'self'"), "{path}: {policy}");
        let page = response.text().await.unwrap();
        assert!(page.contains("/console/app.js"), "{path}: {page}");
    }
    let script = t
        .http()
        .get(console_url(&t, "/console/app.js"))
        .send()
        .await
        .expect("request sent");
    assert_eq!(script.status(), 200);
    assert_eq!(
        script.headers()["content-type"],
        "text/javascript; charset=utf-8"
    );

    let house = Household::sign_up(&t, "integrations").await;
    let (status, list) = t
        .get_json(
            &format!("/integrations?tenantId={}", house.tenant),
            Some(&house.token),
        )
        .await;
    assert_eq!(status, 200, "{list}");
    assert!(list["items"].is_array(), "{list}");
    let (status, catalogue) = t
        .get_json("/catalogue/definitions", Some(&house.token))
        .await;
    assert_eq!(status, 200, "{catalogue}");
    assert!(
        catalogue["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["slug"] == "virtual-bridge"),
        "{catalogue}"
    );
}
