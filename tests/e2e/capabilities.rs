use alyt_tests::TestPlatform;
use serde_json::Value;

#[tokio::test]
async fn capabilities_are_served_with_rate_limit_fields() {
    let t = TestPlatform::start().await;
    let response = t.http.get(t.url("/capabilities")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let headers = response.headers().clone();
    assert_eq!(headers["content-type"], "application/json");
    let policy = headers["ratelimit-policy"].to_str().unwrap();
    assert!(policy.starts_with("\"default\";q="), "{policy}");
    let current = headers["ratelimit"].to_str().unwrap();
    assert!(current.starts_with("\"default\";r="), "{current}");
    assert!(headers.contains_key("x-request-id"));

    let body: Value = response.json().await.unwrap();
    assert!(body["schemaVersion"].as_u64().is_some());
    let items = body["items"].as_array().unwrap();
    let ids: Vec<&str> = items.iter().map(|i| i["id"].as_str().unwrap()).collect();
    for expected in ["light", "voice", "thermostat", "lock", "media_player"] {
        assert!(ids.contains(&expected), "{expected} missing from {ids:?}");
    }
    // The light renders power, brightness and colour temperature, as the simulator reports them.
    let light = items.iter().find(|i| i["id"] == "light").unwrap();
    let keys: Vec<&str> = light["controls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["key"].as_str().unwrap())
        .collect();
    for key in ["power", "brightness", "colorTemp"] {
        assert!(keys.contains(&key), "light lacks {key}: {keys:?}");
    }

    // The remaining count goes down with each request of the same caller.
    let remaining = |v: &str| {
        v.split("r=")
            .nth(1)
            .unwrap()
            .split(';')
            .next()
            .unwrap()
            .parse::<u32>()
            .unwrap()
    };
    let second = t.http.get(t.url("/capabilities")).send().await.unwrap();
    assert_eq!(
        remaining(second.headers()["ratelimit"].to_str().unwrap()),
        remaining(current) - 1
    );
}

#[tokio::test]
async fn openapi_document_is_served() {
    let t = TestPlatform::start().await;
    let doc: Value = t
        .http
        .get(t.url("/openapi.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"]["version"], "0.7.1");
    assert!(doc["paths"]["/v1/capabilities"]["get"].is_object());
}

#[tokio::test]
async fn unknown_paths_get_a_json_404_with_the_request_id() {
    let t = TestPlatform::start().await;
    let response = t.http.get(t.url("/no-such-thing")).send().await.unwrap();
    assert_eq!(response.status(), 404);
    assert_eq!(
        response.headers()["content-type"],
        "application/problem+json"
    );
    assert!(response.headers().contains_key("ratelimit"));
    let id = response.headers()["x-request-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["status"], 404);
    assert_eq!(body["requestId"], id.as_str());

    // Outside /v1 too (`/` itself is the console's page, and
    // `/console/{file}` its files).
    for path in ["/nope", "/console/a/b"] {
        let outside = t
            .http
            .get(format!("http://{}{path}", t.platform.http_addr))
            .send()
            .await
            .unwrap();
        assert_eq!(outside.status(), 404, "{path}");
        assert_eq!(
            outside.headers()["content-type"],
            "application/problem+json",
            "{path}"
        );
    }
    let console = t
        .http
        .get(format!("http://{}/", t.platform.http_addr))
        .send()
        .await
        .unwrap();
    assert_eq!(console.status(), 200);
    assert_eq!(
        console.headers()["content-type"],
        "text/html; charset=utf-8"
    );
}

#[tokio::test]
async fn wrong_method_gets_a_json_405() {
    let t = TestPlatform::start().await;
    let response = t.http.delete(t.url("/capabilities")).send().await.unwrap();
    assert_eq!(response.status(), 405);
    assert_eq!(
        response.headers()["content-type"],
        "application/problem+json"
    );
}

#[tokio::test]
async fn asyncapi_document_describes_every_broker_channel() {
    let t = TestPlatform::start().await;
    let doc: Value = t
        .http
        .get(t.url("/asyncapi.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(doc["asyncapi"], "3.0.0");
    for channel in [
        "status",
        "telemetry",
        "events",
        "alerts",
        "commands",
        "response",
        "availability",
    ] {
        assert_eq!(
            doc["channels"][channel]["address"],
            format!("alyt/{{tenantId}}/{{propertyId}}/{{deviceId}}/{channel}")
        );
    }
    // The response channel's schema requires what the spec requires.
    let response = &doc["components"]["messages"]["response"]["payload"];
    let mut required: Vec<&str> = response["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    required.sort();
    assert_eq!(required, ["command", "commandId", "status"]);
}
