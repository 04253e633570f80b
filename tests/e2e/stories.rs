//! Stories that need nothing but the API, the mail and a device's MQTT
//! connection, so they run on the local platform (by default) and on the
//! hosted stack in the emulated AWS region (`ALYT_E2E_TARGET=emulated`; see
//! `alyt_tests::region`). Each signs up addresses of its own: on the
//! emulated region the stories share one table.

use std::time::Duration;

use alyt_tests::Target;
use alyt_tests::developers::{
    PASSWORD, get_me, login, sandbox_home, sign_up, sign_up_and_verify, token_of, wait_for_link,
};
use alyt_tests::device::{Credentials, PlayedDevice};
use alyt_tests::household::fresh_address;
use alyt_tests::region::Story;
use serde_json::{Value, json};

/// Enters the developers group (sign-up, the mailed link, sign-in), the
/// auth group (the sandbox household's sign-in) and the homes group (the
/// sandbox home and its rooms): on the emulated region, three functions
/// behind their template routes, with the mail read from the emulated SES.
#[tokio::test]
async fn a_developer_signs_up_verifies_by_mail_signs_in_and_finds_the_sandbox_home() {
    let t = Story::start().await;
    let email = fresh_address("ada");

    let response = sign_up(&t, &email, PASSWORD).await;
    assert_eq!(response.status(), 202, "{}", response.text().await.unwrap());
    // Hosted mail leaves after SES accepted it: wait for it.
    let link = wait_for_link(&t, &email, "verify-email")
        .await
        .expect("a verification mail");
    assert!(
        link.starts_with(&t.url("/developers/auth/verify-email?token=")),
        "the link leads back to this API: {link}"
    );

    // The link verifies once, and signs the developer in.
    let (status, session) = t
        .post_json(
            "/developers/auth/verify-email",
            None,
            json!({ "token": token_of(&link) }),
        )
        .await;
    assert_eq!(status, 200, "{session}");
    assert_eq!(session["kind"], "developer");
    let (status, _) = t
        .post_json(
            "/developers/auth/verify-email",
            None,
            json!({ "token": token_of(&link) }),
        )
        .await;
    assert_eq!(status, 410);

    // A fresh sign-in with the password.
    let response = login(&t, &email, PASSWORD, None).await;
    assert_eq!(response.status(), 200, "{}", response.text().await.unwrap());
    let tokens: Value = response.json().await.unwrap();
    let access = tokens["accessToken"].as_str().unwrap().to_owned();
    let me = get_me(&t, &access).await;
    assert_eq!(
        (me["email"].as_str(), me["status"].as_str()),
        (Some(&*email), Some("ACTIVE"))
    );
    let sandbox = me["sandboxTenantId"]
        .as_str()
        .expect("a sandbox")
        .to_owned();

    // The sandbox's home and rooms, read with the developer session.
    let dev = alyt_tests::developers::DeveloperSession {
        email: email.clone(),
        password: PASSWORD.into(),
        access_token: access.clone(),
        refresh_token: tokens["refreshToken"].as_str().unwrap().into(),
        developer_id: me["id"].as_str().unwrap().into(),
        user_id: me["userId"].as_str().unwrap().into(),
        sandbox_tenant_id: sandbox.clone(),
    };
    let home = sandbox_home(&t, &dev).await;
    let (status, rooms) = t
        .get_json(
            &format!("/rooms?tenantId={sandbox}&propertyId={}", home.property_id),
            Some(&access),
        )
        .await;
    assert_eq!(status, 200, "{rooms}");
    let mut names: Vec<&str> = rooms["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["Bedroom", "Kitchen", "Living Room", "Office"]);

    // The developer owns the sandbox household: its sign-in is the auth
    // group's, and that session sees the same home.
    let household = t.household_login(&email, PASSWORD).await;
    let household_token = household["accessToken"].as_str().unwrap();
    let (status, who) = t.get_json("/auth/me", Some(household_token)).await;
    assert_eq!(status, 200, "{who}");
    assert_eq!(who["claims"]["email"], email.as_str());
    assert_eq!(who["homes"][0]["clientId"], home.client_id.as_str());
    assert_eq!(who["homes"][0]["role"], "OWNER");
}

/// A household's own light, registered through the API in the home of a
/// freshly signed-up developer's sandbox household (whose owner the
/// developer is), and connected with the credentials registration answered.
struct OwnDevice {
    token: String,
    tenant: String,
    id: String,
    device: PlayedDevice,
}

impl OwnDevice {
    async fn register_and_connect(t: &Story, name: &str) -> Self {
        let email = fresh_address(name);
        let dev = sign_up_and_verify(t, &email).await;
        let home = sandbox_home(t, &dev).await;
        let household = t.household_login(&email, PASSWORD).await;
        let token = household["accessToken"].as_str().unwrap().to_owned();
        let (status, registered) = t
            .post_json(
                "/devices/register",
                Some(&token),
                json!({
                    "tenantId": dev.sandbox_tenant_id,
                    "propertyId": home.property_id,
                    "name": "Hall light",
                    "kind": "OTHER",
                    "capabilities": ["LIGHT"],
                    "serial": format!("SN-{}", uuid::Uuid::now_v7().simple()),
                }),
            )
            .await;
        assert_eq!(status, 201, "{registered}");
        let prefix = registered["topicPrefix"].as_str().unwrap();
        // Locally a password for the embedded broker; hosted an IoT Core
        // certificate, admitted by the template's DevicePolicy.
        let credentials = Credentials::of(&registered);
        let device = PlayedDevice::connect(t, &credentials, prefix)
            .await
            .expect("the device's credentials log in");
        Self {
            token,
            tenant: dev.sandbox_tenant_id.clone(),
            id: registered["device"]["id"].as_str().unwrap().to_owned(),
            device,
        }
    }

    fn path(&self, rest: &str) -> String {
        let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
        let tenant = format!("tenantId={}", self.tenant);
        let query = if query.is_empty() {
            tenant
        } else {
            format!("{tenant}&{query}")
        };
        format!("/devices/{}{path}?{query}", self.id)
    }

    /// GETs `rest` (a path under the device) until `check` holds.
    async fn until(
        &self,
        t: &Story,
        rest: &str,
        what: &str,
        check: impl Fn(&Value) -> bool,
    ) -> Value {
        // Hosted, a message goes device -> rule -> SQS -> ingest: allow for
        // the poller's long poll and a cold ingest instance.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        loop {
            let (status, body) = t.get_json(&self.path(rest), Some(&self.token)).await;
            assert_eq!(status, 200, "{body}");
            if check(&body) {
                return body;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "timed out waiting for {what}: {body}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// Hosted: the device's certificate through the template's DevicePolicy,
/// its publish matched by the topic rule's SQL, the rule's SQS action, the
/// ingest function through its event source mapping.
#[tokio::test]
async fn a_household_device_connects_reports_telemetry_and_its_history_shows_it() {
    let t = Story::start().await;
    let own = OwnDevice::register_and_connect(&t, "telemetry").await;

    own.device.publish("availability", &json!("online")).await;
    own.device
        .publish(
            "telemetry",
            &json!({ "metrics": { "watts": 6.5, "lux": 310 } }),
        )
        .await;

    let watts = own
        .until(&t, "/telemetry?metric=watts", "the reading", |body| {
            !body["items"].as_array().unwrap().is_empty()
        })
        .await;
    assert_eq!(watts["items"][0]["value"], 6.5);
    let (status, lux) = t
        .get_json(&own.path("/telemetry?metric=lux"), Some(&own.token))
        .await;
    assert_eq!(status, 200, "{lux}");
    assert_eq!(lux["items"][0]["value"], 310.0);
}

/// Hosted: the API function publishes through the IoT data plane to the
/// device's subscription; the device's answer comes back through the rule.
#[tokio::test]
async fn a_command_sent_through_the_api_reaches_the_device_and_its_answer_is_recorded() {
    let t = Story::start().await;
    let mut own = OwnDevice::register_and_connect(&t, "command").await;

    let (status, row) = t
        .post_json(
            &own.path("/commands"),
            Some(&own.token),
            json!({ "command": "set", "payload": { "capability": "light", "key": "brightness", "value": 70 } }),
        )
        .await;
    assert_eq!(status, 202, "{row}");
    assert_eq!(row["state"], "sent", "published at once: {row}");
    let id = row["commandId"].as_str().unwrap().to_owned();

    let (topic, command) = own.device.next(Duration::from_secs(15)).await;
    assert_eq!(topic, format!("{}/commands", own.device.prefix));
    assert_eq!(
        command,
        json!({ "commandId": id, "command": "set",
                "payload": { "capability": "light", "key": "brightness", "value": 70 } })
    );
    own.device
        .publish(
            "status",
            &json!({ "light": { "power": true, "brightness": 70 } }),
        )
        .await;
    own.device
        .publish(
            "response",
            &json!({ "commandId": id, "command": "set", "status": "ok" }),
        )
        .await;

    let commands = own
        .until(&t, "/commands", "the answer", |body| {
            body["items"][0]["state"] == "answered"
        })
        .await;
    assert_eq!(commands["items"][0]["commandId"], id.as_str());
    assert_eq!(commands["items"][0]["resultStatus"], "ok");
    own.until(&t, "", "the reported brightness", |device| {
        device["reported"]["payload"]["light"]["brightness"] == 70
    })
    .await;
}

/// A message no retry can store is dropped (hosted: not reported as a batch
/// failure, so SQS deletes it rather than redriving it to the DLQ), counted
/// by its reason (hosted: `Alyt/IngestDroppedMessages`), and the pipeline
/// goes on with the next.
#[tokio::test]
async fn poison_telemetry_is_dropped_and_the_next_reading_is_stored() {
    let t = Story::start().await;
    let own = OwnDevice::register_and_connect(&t, "poison").await;

    let hundred: serde_json::Map<String, Value> =
        (0..100).map(|n| (format!("m{n}"), json!(n))).collect();
    // More readings than one message may carry: refused by the schema.
    own.device
        .publish("telemetry", &json!({ "metrics": hundred }))
        .await;
    own.device
        .publish("telemetry", &json!({ "metrics": { "watts": 7.5 } }))
        .await;

    let watts = own
        .until(&t, "/telemetry?metric=watts", "the good reading", |body| {
            !body["items"].as_array().unwrap().is_empty()
        })
        .await;
    assert_eq!(watts["items"][0]["value"], 7.5);
    for dropped in ["m0", "m99"] {
        let (status, body) = t
            .get_json(
                &own.path(&format!("/telemetry?metric={dropped}")),
                Some(&own.token),
            )
            .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["items"], json!([]), "{dropped}");
    }
    // Counted by its reason (hosted: the ingest function's metric line,
    // printed once its batch is done).
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let rejected = t.ingest_rejections();
        if rejected.get("bad_length") == Some(&1) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the poison message counted: {rejected:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The post-deploy smoke (`infra/smoke`, the last step of a deploy in
/// infra/README.md) passes: hosted pointed at the stack as an operator
/// points it (`--stack`: its state, outputs and alarms read from
/// CloudFormation and CloudWatch, the region's moto), locally at the API;
/// then every HTTP check, signed in as a household's owner with a home.
#[tokio::test]
async fn the_post_deploy_smoke_passes() {
    let t = Story::start().await;
    let household = alyt_tests::household::Household::sign_up(&t, "smoke").await;

    let venv = std::env::var("ALYT_VENV")
        .unwrap_or_else(|_| format!("{}/target/alyt-venv", env!("ALYT_REPO_ROOT")));
    let mut smoke = std::process::Command::new(format!("{venv}/bin/python"));
    smoke
        .arg(format!("{}/infra/smoke", env!("ALYT_REPO_ROOT")))
        .env("ALYT_SMOKE_EMAIL", &household.dev.email)
        .env("ALYT_SMOKE_PASSWORD", PASSWORD);
    match t.stack() {
        Some((stack, endpoint)) => {
            smoke
                .args(["--stack", stack, "--region", "eu-west-1"])
                .env("AWS_ENDPOINT_URL", endpoint)
                .env("AWS_ACCESS_KEY_ID", "emulated")
                .env("AWS_SECRET_ACCESS_KEY", "emulated");
        }
        None => {
            let api = t.url("");
            smoke.args([
                "--api",
                api.strip_suffix("v1").expect("the API's base ends in v1"),
            ]);
        }
    }
    let output = tokio::task::spawn_blocking(move || smoke.output())
        .await
        .unwrap()
        .expect("the test venv's python runs infra/smoke (tests/run makes the venv)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}{stderr}");
    assert!(!stdout.contains("FAIL"), "{stdout}");
    let home = format!("home {}, its stream opened", household.home);
    assert!(stdout.contains(&home), "signed in and streamed: {stdout}");
    if t.stack().is_some() {
        // The template's alarms, read as CloudFormation named them.
        assert!(stdout.contains("alarms, none in ALARM"), "{stdout}");
    }
}
