//! The developer's road to production, walked from outside by two
//! developers, platform staff and a household: a connector is drafted,
//! submitted, sent back with a note, submitted again, approved (its LIVE
//! key can be issued only now), published to the catalogue, installed by a
//! household of another tenant, succeeded by 1.1.0 and deprecated. Every
//! move is heard on the developer's event stream and mailed to them; the
//! other developer never sees any of it.

use std::time::Duration;

use alyt_tests::TestPlatform;
use alyt_tests::developers::{
    create_connector, descriptor, issue_live_key, mails_to, review, sign_up_and_verify,
    submit_version,
};
use alyt_tests::principals::{Principals, Who};
use alyt_tests::webhooks::SseReader;
use serde_json::{Value, json};

use crate::endpoints::serve_bridge;

const PAIRING_CODE: &str = "4711";

fn submission(connector: &str, semver: &str) -> Value {
    json!({
        "connectorId": connector,
        "semver": semver,
        "descriptor": descriptor("LAN lights", semver),
        "prose": "Lights on the household's network.",
        "aiDeclaration": "none",
    })
}

async fn catalogue(t: &TestPlatform, token: &str) -> Vec<Value> {
    let (status, page) = t
        .get_json("/catalogue/definitions?limit=200", Some(token))
        .await;
    assert_eq!(status, 200, "{page}");
    page["items"].as_array().unwrap().clone()
}

fn slugs(items: &[Value]) -> Vec<&str> {
    items.iter().map(|d| d["slug"].as_str().unwrap()).collect()
}

/// Connects `connector` to the demo home as its household owner; the
/// status and the final answer.
async fn connect(
    t: &TestPlatform,
    owner: &str,
    tenant: &str,
    property: &str,
    connector: &str,
) -> (u16, Value) {
    let (status, answer) = t
        .post_json(
            "/integrations",
            Some(owner),
            json!({
                "tenantId": tenant,
                "propertyId": property,
                "connectorId": connector,
                "input": { "host": "192.168.1.20" },
            }),
        )
        .await;
    if status != 200 {
        return (status, answer);
    }
    assert_eq!(answer["status"], "challenge", "{answer}");
    t.post_json(
        "/integrations/challenge",
        Some(owner),
        json!({ "token": answer["token"], "input": { "pairingCode": PAIRING_CODE } }),
    )
    .await
}

#[tokio::test]
async fn a_connector_goes_from_draft_to_households_and_is_deprecated() {
    let t = TestPlatform::start().await;
    let principals = Principals::seed(&t).await;
    let staff = principals.token(Who::PlatformStaff).unwrap().to_owned();
    let household = principals.token(Who::HouseholdOwner).unwrap().to_owned();
    let first = t.platform.first_start.as_ref().unwrap();
    let (tenant, home) = (first.tenant_id.to_string(), first.property_id.to_string());

    // Developer A's connector is served by a virtual bridge; developer B has
    // a connector of its own.
    let served = serve_bridge(&t, "road-a@example.com").await;
    let a = served.developer.clone();
    let connector = served.connector.clone();
    let b = sign_up_and_verify(&t, "road-b@example.com").await;
    let b_connector = create_connector(&t, &b, "b-lights", "http://127.0.0.1:9/").await;

    // A listens to its sandbox's events.
    let response = t
        .http
        .get(t.url("/developers/events/stream?events=submission.state"))
        .bearer_auth(&a.access_token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let mut stream = SseReader::new(response);

    // Before anything is published, the catalogue holds the built-ins only
    // and no household can install A's connector.
    let before = catalogue(&t, &household).await;
    assert_eq!(slugs(&before), ["virtual-bridge"]);
    assert_eq!(before[0]["descriptor"]["source"], "built-in");
    let (status, _) = connect(&t, &household, &tenant, &home, &connector).await;
    assert_eq!(status, 404, "nothing published yet");

    // 1.0.0 as a draft, changed, then submitted.
    let mut body = submission(&connector, "1.0.0");
    body["draft"] = json!(true);
    let (status, draft) = t
        .post_json("/developers/submissions", Some(&a.access_token), body)
        .await;
    assert_eq!(status, 201, "{draft}");
    assert_eq!(draft["state"], "draft");
    assert_eq!(draft["slug"], "bridge-road-a");
    let v1 = draft["versionId"].as_str().unwrap().to_owned();
    let (status, changed) = t
        .send_json(
            "PATCH",
            &format!("/developers/submissions/{v1}"),
            Some(&a.access_token),
            Some(json!({ "prose": "Your LAN lights, in your rooms." })),
        )
        .await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(changed["state"], "draft");
    assert_eq!(changed["prose"], "Your LAN lights, in your rooms.");
    let (status, submitted) = t
        .send_json(
            "PATCH",
            &format!("/developers/submissions/{v1}"),
            Some(&a.access_token),
            Some(json!({ "submit": true })),
        )
        .await;
    assert_eq!(status, 200, "{submitted}");
    assert_eq!(submitted["state"], "submitted");
    assert!(submitted["submittedAt"].is_string());

    // B sees none of it, and cannot submit for A's connector.
    let (status, _) = t
        .get_json(
            &format!("/developers/submissions/{v1}"),
            Some(&b.access_token),
        )
        .await;
    assert_eq!(status, 404);
    let (status, _) = t
        .send_json(
            "PATCH",
            &format!("/developers/submissions/{v1}"),
            Some(&b.access_token),
            Some(json!({ "prose": "mine now" })),
        )
        .await;
    assert_eq!(status, 404);
    let (status, listed) = t
        .get_json("/developers/submissions", Some(&b.access_token))
        .await;
    assert_eq!(status, 200);
    assert_eq!(listed["items"], json!([]));
    let (status, problem) = t
        .post_json(
            "/developers/submissions",
            Some(&b.access_token),
            submission(&connector, "2.0.0"),
        )
        .await;
    assert_eq!(status, 404, "{problem}");
    assert_eq!(problem["field"], "connectorId");
    // A developer is no reviewer: the admin surface is not there for them.
    let (status, _) = review(&t, &a.access_token, &v1, "approve", None).await;
    assert_eq!(status, 404);

    // Staff find it in the queue, and send it back with a note (a note is
    // required).
    let (status, queue) = t
        .get_json("/developers/admin/submissions", Some(&staff))
        .await;
    assert_eq!(status, 200, "{queue}");
    let queued: Vec<&str> = queue["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["versionId"].as_str().unwrap())
        .collect();
    assert_eq!(queued, [v1.as_str()]);
    assert_eq!(queue["items"][0]["developerId"], a.developer_id.as_str());
    let (status, problem) = review(&t, &staff, &v1, "request-changes", None).await;
    assert_eq!(status, 400, "{problem}");
    assert_eq!(problem["field"], "note");
    let note = "Name the bridge models you support in the prose.";
    let (status, sent_back) = review(&t, &staff, &v1, "request-changes", Some(note)).await;
    assert_eq!(status, 200, "{sent_back}");
    assert_eq!(sent_back["state"], "changes-requested");
    let (_, seen) = t
        .get_json(
            &format!("/developers/submissions/{v1}"),
            Some(&a.access_token),
        )
        .await;
    assert_eq!(seen["note"], note);
    assert!(
        mails_to(&t, &a.email)
            .iter()
            .any(|m| m.body.contains(note) && m.subject.contains("changes-requested")),
        "the developer is mailed the note"
    );
    // Publishing before approval is refused.
    let (status, _) = review(&t, &staff, &v1, "publish", None).await;
    assert_eq!(status, 409);

    // A answers and submits again; staff approve. No more edits after that.
    let (status, again) = t
        .send_json(
            "PATCH",
            &format!("/developers/submissions/{v1}"),
            Some(&a.access_token),
            Some(json!({
                "prose": "Works with Acme Hue-like bridges v2 and v3.",
                "submit": true,
            })),
        )
        .await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(again["state"], "submitted");
    let (status, _) = t
        .post_json(
            &format!("/developers/admin/developers/{}/live-keys", a.developer_id),
            Some(&staff),
            json!({ "name": "live", "scopes": ["things:read"], "definitionId": connector }),
        )
        .await;
    assert_eq!(status, 409, "no LIVE key before approval");
    let (status, approved) = review(&t, &staff, &v1, "approve", None).await;
    assert_eq!(status, 200, "{approved}");
    assert_eq!(approved["state"], "approved");
    let (status, _) = t
        .send_json(
            "PATCH",
            &format!("/developers/submissions/{v1}"),
            Some(&a.access_token),
            Some(json!({ "prose": "late change" })),
        )
        .await;
    assert_eq!(status, 409);
    // Approved: A's LIVE key can be issued now; approval alone reaches no
    // household.
    let live = issue_live_key(&t, &staff, &a.developer_id, &["things:read"], &connector).await;
    let live_secret = live["secret"].as_str().unwrap().to_owned();
    let (_, who) = t.get_json("/developers/whoami", Some(&live_secret)).await;
    assert_eq!(who["tenants"], json!([]));
    // Still not in the catalogue, still not installable by households.
    assert_eq!(slugs(&catalogue(&t, &household).await), ["virtual-bridge"]);
    let (status, _) = connect(&t, &household, &tenant, &home, &connector).await;
    assert_eq!(status, 404);

    // Published: in the catalogue for everyone, with the spec's shape, and
    // a household of another tenant installs it.
    let (status, published) = review(&t, &staff, &v1, "publish", None).await;
    assert_eq!(status, 200, "{published}");
    assert_eq!(published["state"], "published");
    let listed = catalogue(&t, &household).await;
    assert_eq!(slugs(&listed), ["virtual-bridge", "bridge-road-a"]);
    let definition = &listed[1];
    let mut keys: Vec<&str> = definition
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "aiDeclaration",
            "author",
            "descriptor",
            "id",
            "name",
            "prose",
            "publishedAt",
            "semver",
            "slug"
        ]
    );
    assert_eq!(definition["id"], connector.as_str());
    assert_eq!(definition["semver"], "1.0.0");
    assert_eq!(definition["name"], "LAN lights");
    assert_eq!(definition["author"]["displayName"], "Test Developer");
    assert_eq!(definition["author"]["type"], "INDIVIDUAL");
    let (status, by_slug) = t
        .get_json(
            "/catalogue/definitions/bridge-road-a",
            Some(&b.access_token),
        )
        .await;
    assert_eq!(status, 200, "{by_slug}");
    assert_eq!(&by_slug, definition);
    let (status, answer) = connect(&t, &household, &tenant, &home, &connector).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["status"], "connected", "{answer}");
    let integration = answer["integrationId"].as_str().unwrap().to_owned();
    // The LIVE key now hears the tenant that installed it.
    let (_, who) = t.get_json("/developers/whoami", Some(&live_secret)).await;
    assert_eq!(who["tenants"], json!([tenant]));

    // 1.1.0 follows; a number that does not grow is refused.
    for stale in ["1.0.0", "0.9.0"] {
        let (status, problem) = t
            .post_json(
                "/developers/submissions",
                Some(&a.access_token),
                submission(&connector, stale),
            )
            .await;
        assert_eq!(status, 400, "{stale}: {problem}");
        assert_eq!(problem["field"], "semver");
    }
    let v2 = submit_version(&t, &a, &connector, "1.1.0").await["versionId"]
        .as_str()
        .unwrap()
        .to_owned();
    for action in ["approve", "publish"] {
        let (status, body) = review(&t, &staff, &v2, action, None).await;
        assert_eq!(status, 200, "{action}: {body}");
    }
    let listed = catalogue(&t, &household).await;
    assert_eq!(listed[1]["semver"], "1.1.0");

    // 1.0.0 is deprecated: the catalogue keeps 1.1.0, the household that
    // installed 1.0.0 is told, and its integration keeps working.
    let (status, deprecated) = review(&t, &staff, &v1, "deprecate", None).await;
    assert_eq!(status, 200, "{deprecated}");
    assert_eq!(deprecated["state"], "deprecated");
    assert_eq!(catalogue(&t, &household).await[1]["semver"], "1.1.0");
    let (status, notices) = t
        .get_json(
            &format!("/notifications?tenantId={tenant}"),
            Some(&household),
        )
        .await;
    assert_eq!(status, 200, "{notices}");
    let notice = notices["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["kind"] == "connector.deprecated")
        .unwrap_or_else(|| panic!("no deprecation notice: {notices}"))
        .clone();
    assert!(
        notice["title"].as_str().unwrap().contains("1.0.0"),
        "{notice}"
    );
    assert!(
        notice["body"].as_str().unwrap().contains("1.1.0"),
        "{notice}"
    );
    let (status, endpoints) = t
        .get_json(
            &format!("/integrations/{integration}/endpoints?tenantId={tenant}"),
            Some(&household),
        )
        .await;
    assert_eq!(status, 200, "{endpoints}");
    assert_eq!(endpoints["items"].as_array().unwrap().len(), 4);

    // Once its last published version is deprecated the connector leaves
    // the catalogue and cannot be newly installed; the installation stays.
    let (status, _) = review(&t, &staff, &v2, "deprecate", None).await;
    assert_eq!(status, 200);
    assert_eq!(slugs(&catalogue(&t, &household).await), ["virtual-bridge"]);
    let (status, problem) = connect(&t, &household, &tenant, &home, &connector).await;
    assert_eq!(status, 409, "{problem}");
    assert!(
        problem["detail"].as_str().unwrap().contains("deprecated"),
        "{problem}"
    );
    let (status, _) = t
        .get_json(
            &format!("/integrations/{integration}?tenantId={tenant}"),
            Some(&household),
        )
        .await;
    assert_eq!(status, 200);
    // Final states do not move.
    let (status, _) = review(&t, &staff, &v1, "publish", None).await;
    assert_eq!(status, 409);

    // Every move was heard on A's stream, in order; B's connector was
    // never touched.
    let heard = stream.events(11, Duration::from_secs(10)).await;
    let moves: Vec<(String, String)> = heard
        .iter()
        .filter(|(kind, _, _)| kind == "submission.state")
        .map(|(_, _, data)| {
            (
                data["data"]["semver"].as_str().unwrap().to_owned(),
                data["data"]["state"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let expected: Vec<(String, String)> = [
        ("1.0.0", "draft"),
        ("1.0.0", "submitted"),
        ("1.0.0", "changes-requested"),
        ("1.0.0", "submitted"),
        ("1.0.0", "approved"),
        ("1.0.0", "published"),
        ("1.1.0", "submitted"),
        ("1.1.0", "approved"),
        ("1.1.0", "published"),
        ("1.0.0", "deprecated"),
        ("1.1.0", "deprecated"),
    ]
    .iter()
    .map(|(v, s)| (v.to_string(), s.to_string()))
    .collect();
    assert_eq!(moves, expected);
    let (_, b_versions) = t
        .get_json(
            &format!("/developers/submissions?connectorId={b_connector}"),
            Some(&b.access_token),
        )
        .await;
    assert_eq!(b_versions["items"], json!([]));
}

/// Every malformed submission is a 400 naming the field at fault, and
/// nothing is recorded.
#[tokio::test]
async fn bad_submissions_name_the_field() {
    let t = TestPlatform::start().await;
    let dev = sign_up_and_verify(&t, "picky-submitter@example.com").await;
    // A built-in's slug is taken.
    let (status, problem) = t
        .post_json(
            "/developers/connectors",
            Some(&dev.access_token),
            json!({ "slug": "virtual-bridge", "name": "Mine", "serverUrl": "http://127.0.0.1:9/" }),
        )
        .await;
    assert_eq!(status, 409, "{problem}");
    assert_eq!(problem["field"], "slug");
    let connector = create_connector(&t, &dev, "picky-lights", "http://127.0.0.1:9/").await;
    let good = submission(&connector, "1.0.0");
    let with = |path: &[&str], value: Value| {
        let mut body = good.clone();
        let mut at = &mut body;
        for (i, key) in path.iter().enumerate() {
            if i == path.len() - 1 {
                at[*key] = value.clone();
            } else if let Ok(n) = key.parse::<usize>() {
                at = &mut at[n];
            } else {
                at = &mut at[*key];
            }
        }
        body
    };
    let pairing = json!({
        "joinSeconds": 60, "intro": "Pair it", "vendors": [], "supported": true
    });
    let cases: Vec<(Value, &str)> = vec![
        (with(&["semver"], json!("1.0")), "semver"),
        (with(&["semver"], json!("one")), "semver"),
        (with(&["prose"], json!("  ")), "prose"),
        (with(&["aiDeclaration"], json!("maybe")), "aiDeclaration"),
        (with(&["connectorId"], json!("nope")), "connectorId"),
        (with(&["colour"], json!("red")), "colour"),
        (
            with(&["descriptor", "kind"], json!("lan")),
            "descriptor.kind",
        ),
        (
            with(&["descriptor", "connectivity"], json!("radio")),
            "descriptor.connectivity",
        ),
        (
            with(
                &["descriptor", "connect", "fields", "0", "kind"],
                json!("number"),
            ),
            "descriptor.connect.fields[0].kind",
        ),
        (
            with(&["descriptor", "docsUrl"], json!("not a uri")),
            "descriptor.docsUrl",
        ),
        (
            with(&["descriptor", "pairing"], pairing),
            "descriptor.pairing.vendors",
        ),
        (
            with(&["descriptor", "version"], json!("2.0.0")),
            "descriptor.version",
        ),
        (
            with(&["descriptor", "source"], json!("built-in")),
            "descriptor.source",
        ),
        (
            with(&["descriptor", "brings"], json!(["teleporter"])),
            "descriptor.brings[0]",
        ),
    ];
    for (body, field) in cases {
        let (status, problem) = t
            .post_json(
                "/developers/submissions",
                Some(&dev.access_token),
                body.clone(),
            )
            .await;
        assert_eq!(status, 400, "{field}: {problem}");
        assert_eq!(problem["field"], field, "{problem}");
    }
    let (_, listed) = t
        .get_json("/developers/submissions", Some(&dev.access_token))
        .await;
    assert_eq!(listed["items"], json!([]));
    // The good body passes, once: the same number again is refused.
    submit_version(&t, &dev, &connector, "1.0.0").await;
    let (status, problem) = t
        .post_json("/developers/submissions", Some(&dev.access_token), good)
        .await;
    assert_eq!(status, 400, "{problem}");
    assert_eq!(problem["field"], "semver");
}

/// Ten staff approvals of one version at once: exactly one moves it, the
/// others are 409, and the developer hears one `approved`.
#[tokio::test]
async fn concurrent_review_moves_on_one_version_have_one_winner() {
    let t = TestPlatform::start().await;
    let principals = Principals::seed(&t).await;
    let staff = principals.token(Who::PlatformStaff).unwrap().to_owned();
    let dev = sign_up_and_verify(&t, "contended@example.com").await;
    let connector = create_connector(&t, &dev, "contended", "http://127.0.0.1:9/").await;
    let version = submit_version(&t, &dev, &connector, "1.0.0").await["versionId"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut moves = tokio::task::JoinSet::new();
    for i in 0..10 {
        let (http, staff, version) = (t.http.clone(), staff.clone(), version.clone());
        let action = if i % 2 == 0 { "approve" } else { "reject" };
        let url = t.url(&format!("/developers/admin/submissions/{version}/{action}"));
        moves.spawn(async move {
            http.post(url)
                .bearer_auth(staff)
                .json(&json!({ "note": "Seen." }))
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        });
    }
    let statuses = moves.join_all().await;
    assert_eq!(
        statuses.iter().filter(|s| **s == 200).count(),
        1,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 409).count(),
        9,
        "{statuses:?}"
    );
    let (_, seen) = t
        .get_json(
            &format!("/developers/submissions/{version}"),
            Some(&dev.access_token),
        )
        .await;
    assert!(
        seen["state"] == "approved" || seen["state"] == "rejected",
        "{seen}"
    );
    let mails = mails_to(&t, &dev.email)
        .iter()
        .filter(|m| m.subject.contains("approved") || m.subject.contains("rejected"))
        .count();
    assert_eq!(mails, 1);
}

/// Publishes version 1.0.0 of a new connector of `dev` with the descriptor's
/// visibility and listing as given; returns the slug.
async fn publish(
    t: &TestPlatform,
    staff: &str,
    dev: &alyt_tests::developers::DeveloperSession,
    slug: &str,
    visibility: &str,
    listed: bool,
) -> String {
    let connector = create_connector(t, dev, slug, "http://127.0.0.1:9/").await;
    let mut body = submission(&connector, "1.0.0");
    body["descriptor"]["visibility"] = json!(visibility);
    body["descriptor"]["listed"] = json!(listed);
    let (status, created) = t
        .post_json("/developers/submissions", Some(&dev.access_token), body)
        .await;
    assert_eq!(status, 201, "{created}");
    let version = created["versionId"].as_str().unwrap();
    for action in ["approve", "publish"] {
        let (status, body) = review(t, staff, version, action, None).await;
        assert_eq!(status, 200, "{action}: {body}");
    }
    slug.to_owned()
}

/// Every page of the catalogue for `query`, following the cursors.
async fn every_page(t: &TestPlatform, token: &str, query: &str) -> (Vec<String>, usize) {
    let (mut slugs, mut pages, mut cursor) = (Vec::new(), 0, None::<String>);
    loop {
        let path = match &cursor {
            Some(c) => format!("/catalogue/definitions?{query}&cursor={c}"),
            None => format!("/catalogue/definitions?{query}"),
        };
        let (status, page) = t.get_json(&path, Some(token)).await;
        assert_eq!(status, 200, "{path}: {page}");
        pages += 1;
        for item in page["items"].as_array().unwrap() {
            slugs.push(item["slug"].as_str().unwrap().to_owned());
        }
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return (slugs, pages),
        }
        assert!(pages < 50, "the cursors do not end");
    }
}

/// The catalogue pages through built-ins, public definitions and a tenant's
/// own, each once; an unlisted definition is found by its slug only, and a
/// tenant's own ones only by that tenant.
#[tokio::test]
async fn the_catalogue_pages_through_every_part_and_keeps_tenant_definitions_home() {
    let t = TestPlatform::start().await;
    let principals = Principals::seed(&t).await;
    let staff = principals.token(Who::PlatformStaff).unwrap().to_owned();
    let household = principals.token(Who::HouseholdOwner).unwrap().to_owned();
    let dev = sign_up_and_verify(&t, "cataloguer@example.com").await;
    let other = sign_up_and_verify(&t, "other-cataloguer@example.com").await;
    for slug in ["c-lights", "a-lights", "b-lights"] {
        publish(&t, &staff, &dev, slug, "public", true).await;
    }
    publish(&t, &staff, &dev, "hidden-lights", "public", false).await;
    publish(&t, &staff, &dev, "own-lights", "tenant", true).await;

    let everyone = ["virtual-bridge", "a-lights", "b-lights", "c-lights"];
    let (all, _) = every_page(&t, &household, "limit=200").await;
    assert_eq!(all, everyone);
    for limit in [1, 2, 3] {
        let (paged, pages) = every_page(&t, &household, &format!("limit={limit}")).await;
        assert_eq!(paged, everyone, "limit {limit}");
        assert!(
            pages >= everyone.len() / limit,
            "limit {limit}: {pages} pages"
        );
    }
    // The developer's own tenant also sees its tenant definition, last.
    let sandbox = format!("tenantId={}", dev.sandbox_tenant_id);
    for limit in [1, 2, 200] {
        let (own, _) = every_page(&t, &dev.access_token, &format!("{sandbox}&limit={limit}")).await;
        assert_eq!(
            own,
            [
                "virtual-bridge",
                "a-lights",
                "b-lights",
                "c-lights",
                "own-lights"
            ],
            "limit {limit}"
        );
    }
    // Another developer may not name that tenant; a household neither.
    for token in [&other.access_token, &household] {
        let (status, problem) = t
            .get_json(&format!("/catalogue/definitions?{sandbox}"), Some(token))
            .await;
        assert_eq!(status, 404, "{problem}");
    }
    let (status, _) = t
        .get_json("/catalogue/definitions/own-lights", Some(&household))
        .await;
    assert_eq!(status, 404);
    let (status, own) = t
        .get_json(
            &format!("/catalogue/definitions/own-lights?{sandbox}"),
            Some(&dev.access_token),
        )
        .await;
    assert_eq!(status, 200, "{own}");
    // Unlisted: not in the list, but found by its slug.
    let (status, hidden) = t
        .get_json("/catalogue/definitions/hidden-lights", Some(&household))
        .await;
    assert_eq!(status, 200, "{hidden}");
    assert_eq!(hidden["slug"], "hidden-lights");
    // A cursor of another list is refused.
    let (_, page) = t
        .get_json("/catalogue/definitions?limit=2", Some(&household))
        .await;
    let (_, versions) = t
        .get_json("/developers/submissions?limit=1", Some(&dev.access_token))
        .await;
    let foreign = versions["nextCursor"].as_str().unwrap();
    let (status, problem) = t
        .get_json(
            &format!("/catalogue/definitions?cursor={foreign}"),
            Some(&household),
        )
        .await;
    assert_eq!(status, 400, "{problem}");
    assert_eq!(problem["field"], "cursor");
    assert!(page["nextCursor"].is_string());
    // Unknown slugs are 404, however long.
    for slug in ["nothing-here", &"x".repeat(300)] {
        let (status, _) = t
            .get_json(&format!("/catalogue/definitions/{slug}"), Some(&household))
            .await;
        assert_eq!(status, 404, "{slug}");
    }
}

/// A new device category arrives through catalogue data alone: a published
/// definition whose `brings` names a category this build does not know is
/// served as it is (clients draw it with the `other` icon), and the
/// catalogue does not break.
#[tokio::test]
async fn a_category_the_server_does_not_know_passes_through_the_catalogue() {
    let t = TestPlatform::start().await;
    let principals = Principals::seed(&t).await;
    let household = principals.token(Who::HouseholdOwner).unwrap().to_owned();
    let staff = principals.token(Who::PlatformStaff).unwrap().to_owned();
    let dev = sign_up_and_verify(&t, "future@example.com").await;
    let slug = publish(&t, &staff, &dev, "future-lights", "public", true).await;
    // The catalogue data gains a category from a newer build (written as a
    // newer platform would have: this one refuses it in submissions).
    let store = t.platform.store();
    let integrations = alyt_store::repo::integrations::Integrations(&*store);
    let read = integrations
        .connector_by_slug(&slug)
        .await
        .unwrap()
        .unwrap();
    let mut next = read.clone();
    let listing = next.listing.as_mut().unwrap();
    listing.descriptor["brings"] = json!(["light", "aquarium"]);
    store
        .transact(vec![
            alyt_store::repo::integrations::Integrations::connector_change(&read, &next).unwrap(),
        ])
        .await
        .unwrap();
    let (status, definition) = t
        .get_json(&format!("/catalogue/definitions/{slug}"), Some(&household))
        .await;
    assert_eq!(status, 200, "{definition}");
    assert_eq!(
        definition["descriptor"]["brings"],
        json!(["light", "aquarium"])
    );
    let listed = catalogue(&t, &household).await;
    assert!(slugs(&listed).contains(&slug.as_str()));
    // Read as catalogue data, the unknown category is kept as given.
    let brings: Vec<alyt_domain::integration::descriptor::Brings> =
        serde_json::from_value(definition["descriptor"]["brings"].clone()).unwrap();
    assert_eq!(
        brings[1],
        alyt_domain::integration::descriptor::Brings::Unknown("aquarium".into())
    );
}

/// The built-in virtual bridge the catalogue lists is installable by any
/// household of the local platform, with the code its help text gives.
#[tokio::test]
async fn a_household_installs_the_built_in_virtual_bridge_from_the_catalogue() {
    let t = TestPlatform::start().await;
    let principals = Principals::seed(&t).await;
    let household = principals.token(Who::HouseholdOwner).unwrap().to_owned();
    let first = t.platform.first_start.as_ref().unwrap();
    let (tenant, home) = (first.tenant_id.to_string(), first.property_id.to_string());
    let (status, bridge) = t
        .get_json("/catalogue/definitions/virtual-bridge", Some(&household))
        .await;
    assert_eq!(status, 200, "{bridge}");
    assert_eq!(bridge["descriptor"]["source"], "built-in");
    let help = bridge["descriptor"]["connect"]["help"].as_str().unwrap();
    assert!(help.contains(PAIRING_CODE), "{help}");
    let id = bridge["id"].as_str().unwrap();
    let (status, answer) = connect(&t, &household, &tenant, &home, id).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["status"], "connected", "{answer}");
    assert_eq!(answer["things"], 4, "{answer}");
    let (status, integration) = t
        .get_json(
            &format!(
                "/integrations/{}?tenantId={tenant}",
                answer["integrationId"].as_str().unwrap()
            ),
            Some(&household),
        )
        .await;
    assert_eq!(status, 200, "{integration}");
}
