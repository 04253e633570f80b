//! A home's routines over HTTP: created, listed, read, changed and deleted
//! by those who configure the home, every step's target checked against
//! the home (a thing and its command, a room, a speaker placed in a room),
//! every problem naming its field, and nobody else's routine reachable.

use alyt_tests::TestPlatform;
use alyt_tests::developers::sign_up_and_verify;
use serde_json::{Value, json};

use crate::endpoints::{endpoints_by_name, install_bridge};

fn id<'a>(things: &'a Value, name: &str) -> &'a str {
    things[name]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("no {name:?} in {things}"))
}

#[tokio::test]
async fn a_home_keeps_its_routines_with_every_target_checked() {
    let t = TestPlatform::start().await;
    let i = install_bridge(&t, "routines@example.com").await;
    let things = endpoints_by_name(&t, &i).await;
    let (lamp, speaker) = (id(&things, "Hall lamp"), id(&things, "Living room speaker"));
    let (status, rooms) = t
        .get_json(
            &format!("/rooms?tenantId={}&propertyId={}", i.tenant, i.property),
            Some(i.token()),
        )
        .await;
    assert_eq!(status, 200, "{rooms}");
    let room = rooms["items"][0]["id"].as_str().unwrap().to_owned();
    let collection = format!("/properties/{}/routines?tenantId={}", i.property, i.tenant);
    let body = json!({
        "name": "Good morning",
        "triggers": [{ "kind": "time", "at": "07:30", "days": ["mon", "fri"] }, { "kind": "manual" }],
        "do": [
            { "kind": "thing", "thing": { "kind": "endpoint", "id": lamp },
              "command": { "command": "set", "payload": { "capability": "light", "key": "power", "value": true } } },
            { "kind": "room", "roomId": room, "capability": "light", "action": "on" },
            { "kind": "delay", "seconds": 30 },
            { "kind": "music", "speakerId": speaker, "uri": "FV:2", "name": "Morning radio", "volume": 25 },
            { "kind": "security", "mode": "off" }
        ]
    });

    let (status, created) = t
        .post_json(&collection, Some(i.token()), body.clone())
        .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["name"], "Good morning");
    assert_eq!(created["enabled"], true);
    assert_eq!(created["propertyId"], i.property.as_str());
    assert_eq!(created["do"], body["do"]);
    assert_eq!(created["triggers"], body["triggers"]);
    assert!(created["nextDue"].is_string(), "{created}");
    let routine = created["id"].as_str().unwrap().to_owned();
    let one = format!("/routines/{routine}?tenantId={}", i.tenant);

    let (status, listed) = t.get_json(&collection, Some(i.token())).await;
    assert_eq!(status, 200, "{listed}");
    assert_eq!(listed["items"], json!([created]));
    let (status, read) = t.get_json(&one, Some(i.token())).await;
    assert_eq!(status, 200);
    assert_eq!(read, created);

    // Every target outside the home, and every malformed field, is a 400
    // naming the field; nothing is stored.
    let with = |pointer: &str, value: Value| {
        let mut b = body.clone();
        *b.pointer_mut(pointer).unwrap() = value;
        b
    };
    let nowhere = "0190a6b2-0000-7000-8000-00000000dead";
    let cases = [
        (with("/do/0/thing/id", json!(nowhere)), "do[0].thing"),
        (
            with("/do/0/command/payload/capability", json!("thermostat")),
            "do[0].command.payload.capability",
        ),
        (with("/do/1/roomId", json!(nowhere)), "do[1].roomId"),
        (with("/do/3/speakerId", json!(lamp)), "do[3].speakerId"),
        (with("/do/3/speakerId", json!(nowhere)), "do[3].speakerId"),
        (with("/do/3/uri", json!("radio")), "do[3].uri"),
        (with("/do/3/volume", json!(101)), "do[3].volume"),
        (with("/do/2/seconds", json!(0)), "do[2].seconds"),
        (with("/triggers/0/days", json!([])), "triggers[0].days"),
        (with("/name", json!("")), "name"),
    ];
    for (bad, field) in cases {
        let (status, problem) = t.post_json(&collection, Some(i.token()), bad).await;
        assert_eq!(status, 400, "{field}: {problem}");
        assert_eq!(problem["field"], field, "{problem}");
    }
    let (_, listed) = t.get_json(&collection, Some(i.token())).await;
    assert_eq!(listed["items"].as_array().unwrap().len(), 1);

    // A change is checked whole; disabling it leaves nothing due.
    let (status, problem) = t
        .send_json(
            "PATCH",
            &one,
            Some(i.token()),
            Some(json!({ "colour": "red" })),
        )
        .await;
    assert_eq!(status, 400, "{problem}");
    assert_eq!(problem["field"], "colour");
    let (status, problem) = t
        .send_json(
            "PATCH",
            &one,
            Some(i.token()),
            Some(json!({ "do": [{ "kind": "room", "roomId": nowhere, "capability": "light", "action": "on" }] })),
        )
        .await;
    assert_eq!(status, 400, "{problem}");
    assert_eq!(problem["field"], "do[0].roomId");
    let (status, changed) = t
        .send_json(
            "PATCH",
            &one,
            Some(i.token()),
            Some(json!({ "enabled": false, "name": "Slow morning" })),
        )
        .await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(changed["name"], "Slow morning");
    assert_eq!(changed["enabled"], false);
    assert_eq!(changed["nextDue"], Value::Null);
    assert_eq!(changed["do"], body["do"], "untouched fields stay");

    // Another developer (another tenant) reaches none of it.
    let other = sign_up_and_verify(&t, "routines-other@example.com").await;
    let (status, _) = t.get_json(&one, Some(&other.access_token)).await;
    assert_eq!(status, 404);
    let (status, _) = t.get_json(&collection, Some(&other.access_token)).await;
    assert_eq!(status, 404);
    let (status, _) = t
        .send_json("DELETE", &one, Some(&other.access_token), None)
        .await;
    assert_eq!(status, 404);

    // Deleted: gone.
    let (status, _) = t.send_json("DELETE", &one, Some(i.token()), None).await;
    assert_eq!(status, 204);
    let (status, _) = t.get_json(&one, Some(i.token())).await;
    assert_eq!(status, 404);
}

/// A routine's security step is home-security authority: only someone who
/// controls the home's security saves one (a key in its own sandbox, the
/// tenant's ADMIN and platform staff get a 403 problem, on create and on
/// change), and every run checks the person who saved it again.
#[tokio::test]
async fn only_someone_who_controls_home_security_saves_a_routine_that_changes_it() {
    use alyt_store::repo::identity::Users;
    use alyt_store::repo::members::Members;
    use alyt_tests::principals::{Principals, Who, seed_person};

    let t = TestPlatform::start_with(|config| config.rate_limit.quota = 100_000).await;
    let p = Principals::seed(&t).await;
    let first = t.platform.first_start.as_ref().unwrap();
    let (tenant, home) = (first.tenant_id.to_string(), first.property_id.to_string());
    let collection = format!("/properties/{home}/routines?tenantId={tenant}");
    let arm = json!({ "name": "Lock up", "do": [{ "kind": "security", "mode": "away" }] });
    let refused = |who: &str, status: u16, problem: &Value| {
        assert_eq!(status, 403, "{who}: {problem}");
        assert_eq!(problem["status"], 403, "{who}: {problem}");
        assert!(problem["detail"].is_string(), "{who}: {problem}");
    };
    for who in [Who::TenantAdmin, Who::PlatformStaff] {
        let (status, problem) = t.post_json(&collection, p.token(who), arm.clone()).await;
        refused(&format!("{who:?}"), status, &problem);
    }

    // A DEV key configures its sandbox home, but gains no security
    // authority through a routine.
    let dev = &p.developer;
    let sandbox = alyt_tests::developers::sandbox_home(&t, dev).await;
    let sandbox_routines = format!(
        "/properties/{}/routines?tenantId={}",
        sandbox.property_id, dev.sandbox_tenant_id
    );
    let (_, key) = alyt_tests::developers::create_key(&t, dev, &["rooms:write"]).await;
    let (status, problem) = t
        .post_json(&sandbox_routines, Some(&key), arm.clone())
        .await;
    refused("a DEV key", status, &problem);
    let (status, created) = t
        .post_json(
            &sandbox_routines,
            Some(&key),
            json!({ "name": "Try", "do": [{ "kind": "delay", "seconds": 1 }] }),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let (status, problem) = t
        .send_json(
            "PATCH",
            &format!(
                "/routines/{}?tenantId={}",
                created["id"].as_str().unwrap(),
                dev.sandbox_tenant_id
            ),
            Some(&key),
            Some(json!({ "do": [{ "kind": "security", "mode": "off" }] })),
        )
        .await;
    refused("a DEV key's change", status, &problem);

    // An owner saves it; once that owner is gone from the household, a
    // member's run no longer changes the home's security.
    let saver = seed_person(
        &t,
        "saver@example.com",
        None,
        None,
        Some(alyt_domain::access::HouseholdRole::Owner),
    )
    .await;
    let (status, created) = t.post_json(&collection, Some(&saver), arm.clone()).await;
    assert_eq!(status, 201, "{created}");
    let run = format!(
        "/routines/{}/run?tenantId={tenant}",
        created["id"].as_str().unwrap()
    );
    let (status, body) = t
        .post_json(&run, p.token(Who::HouseholdMember), json!({}))
        .await;
    assert_eq!(status, 202, "{body}");
    let reason = body["steps"][0]["reason"].as_str().unwrap();
    assert!(reason.contains("no selected signal is watched"), "{reason}");
    let store = t.platform.store();
    let user = Users(&*store)
        .find_by_email("saver@example.com")
        .await
        .unwrap()
        .unwrap();
    let grant = Members(&*store)
        .get(first.client_id, user.id)
        .await
        .unwrap()
        .unwrap();
    Members(&*store).remove(&grant, vec![]).await.unwrap();
    let (status, body) = t
        .post_json(&run, p.token(Who::HouseholdMember), json!({}))
        .await;
    assert_eq!(status, 202, "{body}");
    assert_eq!(body["steps"][0]["outcome"], "failed", "{body}");
    let reason = body["steps"][0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("the person who saved the routine does not control"),
        "{reason}"
    );
}
