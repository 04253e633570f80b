//! The OpenAPI 3.1 document, assembled from every group's annotated handlers.
//! A committed copy lives at `shared/api/contract/openapi.json`; a test fails
//! when the generated document drifts from it.

use utoipa::OpenApi;
use utoipa::openapi::OpenApi as Document;
use utoipa::openapi::server::{Server, ServerBuilder, ServerVariableBuilder};
use utoipa_axum::router::OpenApiRouter;

use alyt_events::EventKind;

use crate::groups::Group;
use crate::routing::Operations;

/// The contract version: the API description started at 0.1.0 and follows
/// SemVer (a breaking change moves the major, which the path prefix `/v1`
/// carries). 0.1.0 is the first kept release (`contract/releases/`): the
/// development snapshots before it were never released to anyone. From
/// there a test holds this version to the change since the last kept
/// release (`alyt-contract-diff`): 0.2.0 added the invitation mail budgets'
/// 429 and the reason an alarm output part was not restored; 0.3.0 an
/// endpoint's `enabled` state
/// (shown on the endpoint, set by `PATCH /endpoints/{id}`, a disabled
/// endpoint's commands refused with 409); 0.4.0 the console's first
/// minutes: a developer's effective quotas as staff read them
/// (`GET /developers/admin/developers/{id}/quota`), a webhook endpoint
/// edited (`PATCH /developers/webhooks/{id}`) and disabled by hand
/// (`POST …/disable`, reason `manual`), the MOTION, CONTACT and LOCK
/// simulator profiles, and why a security mode is not ready; 0.5.0 every
/// failure documented (a `default` problem answer, 429 with `Retry-After`,
/// 401 on secured operations, the RateLimit fields on every answer) and
/// who may call each secured operation (`x-scopes`, `x-session-only`);
/// 0.6.0 the event type catalogue (`GET /v1/event-types`) and a webhook
/// secret's rotation with a grace period (`POST …/rotate-secret`,
/// `secretGraceEndsAt`), a logged delivery replayed
/// (`POST …/deliveries/{deliveryId}/replay`), an endpoint recovered
/// (`POST …/recover`, `GET …/recovery`, `recover` on enable), and
/// EventBridge destinations (`kind`, `eventBridge`; `url` optional when
/// creating one); 0.7.0 how a device of one's own connects (`connection`
/// in the registration and credential answers: the broker, the client id,
/// mosquitto examples) and a virtual device detached from the simulator
/// and attached again (`POST …/detach`, `…/attach`, `detachedAt`),
/// simulation scripts and their runs (`…/simulator/scripts`, `…/runs`,
/// `…/runs/{runId}/stop`, `…/sample-scripts`, a virtual device's `runId`);
/// 0.7.1 descriptions only (a profile, the music step, a speaker's source
/// modes and a detector's signal say what they are).
pub const API_VERSION: &str = "0.7.1";

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Alyt API",
        version = "0.7.1",
        description = "Household and developer API of the Alyt smart-home platform. Errors are RFC 9457 problem bodies; every response carries the IETF RateLimit fields; every list is { items, nextCursor }."
    ),
    tags(
        (name = "auth", description = "Household sign-in, sessions and the caller's claims"),
        (name = "developers", description = "Developer accounts, keys, quotas, connectors, webhooks and the event stream"),
        (name = "simulator", description = "The sandbox's virtual devices and their scenarios"),
        (name = "homes", description = "Properties, rooms, things, endpoints and capabilities"),
        (name = "integrations", description = "Connecting connectors to homes, discovery, an integration's endpoints"),
        (name = "catalogue", description = "The connector definitions households can install: built-in and published"),
        (name = "people", description = "A household's people: members, grants and ends of membership"),
        (name = "security", description = "Home security: modes, readiness, selections, incidents. No emergency dispatch and no evidence sharing."),
        (name = "meta", description = "Machine-readable contracts"),
    ),
    components(schemas(
        alyt_domain::device::DeviceOnlineData,
        alyt_domain::device::DeviceOfflineData,
        alyt_domain::device::DeviceTelemetryData,
        alyt_domain::device::CommandResultData,
        alyt_domain::integration::ThingStateData,
        alyt_domain::notification::NotificationRaisedData,
        alyt_domain::submission::SubmissionStateData,
        alyt_domain::stay::GuestStayData,
        alyt_events::envelope::WebhookPingData,
    )),
    modifiers(&BearerScheme)
)]
struct ApiDoc;

/// The `bearer` scheme every operation's `security` names.
struct BearerScheme;

impl utoipa::Modify for BearerScheme {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "`Authorization: Bearer <token>`: a household or developer session's access token (a JWT from /v1/auth/login or /v1/developers/auth/login), a developer key (`svc_dev_…`, DEV or LIVE as the key's record says) or its five-minute app token, or a widget token (`wt_…`). Each secured operation says who may call it, machine-readably: `x-session-only: true` when only a signed-in person may (a key is refused, 401 or 403), else `x-scopes`, the scopes a key needs (all of them; `[]`: any key). The scopes listed here are the same as `x-scopes`. Sessions and widget tokens are checked by role and grant, not scopes.",
                    ))
                    .build(),
            ),
        );
    }
}

/// Every operation of the API: the contract documents and every group.
pub fn all_operations() -> Operations {
    Group::ALL
        .into_iter()
        .fold(Operations::default(), |operations, group| {
            operations.merge(group.routes())
        })
}

/// The whole API's document, including groups this runtime does not serve
/// (as JSON: [`merge_tagged_newtypes`] rewrites some of utoipa's output).
pub fn document() -> serde_json::Value {
    let mut document = OpenApiRouter::with_openapi(ApiDoc::openapi())
        .merge(all_operations().contract())
        .into_openapi();
    document.servers = Some(vec![
        local_server(),
        hosted_server(
            "https://{apiId}.execute-api.{region}.amazonaws.com",
            "A hosted stack's HTTP API (its ApiUrl output)",
            "apiId",
            "The HTTP API's id",
        ),
    ]);
    // API Gateway buffers responses, so a hosted stack streams from a
    // function URL of its own.
    for path in [STREAM_PATH, HOME_STREAM_PATH] {
        if let Some(stream) = document
            .paths
            .paths
            .get_mut(path)
            .and_then(|item| item.get.as_mut())
        {
            stream.servers = Some(vec![
                local_server(),
                hosted_server(
                    "https://{urlId}.lambda-url.{region}.on.aws",
                    "A hosted stack's event stream (its EventStreamUrl output); the HTTP API answers this path with 421 naming it",
                    "urlId",
                    "The stream function URL's id",
                ),
            ]);
        }
    }
    let mut document = merge_tagged_newtypes(document);
    reference_list_items(&mut document);
    open_free_form_objects(&mut document);
    document_events(&mut document);
    document_failures_and_access(&mut document);
    document
}

/// What every operation may answer besides what its handler lists, and who
/// may call it, written once for all (the handlers list what is theirs):
/// - every answer carries the IETF RateLimit fields (`RateLimit`,
///   `RateLimit-Policy`: the request rate's, and a stream cap's where one
///   applied), a 429 also `Retry-After`;
/// - every operation may answer 429 (the request rate is spent) and any
///   other failure as a problem body (`default`: 500 when the platform
///   failed, 503 when it is briefly unavailable);
/// - a secured operation may answer 401, and says who may call it:
///   `x-session-only: true` (its handler's annotation: a signed-in person
///   only), else `x-scopes`, the scopes a key needs (`[]`: any key).
fn document_failures_and_access(document: &mut serde_json::Value) {
    use serde_json::{Value, json};
    const PROBLEM: &str = "application/problem+json";
    document["components"]["headers"] = json!({
        "RateLimit": {
            "description": "The caller's quota now, per policy (IETF RateLimit fields): `\"<policy>\";r=<requests left>;t=<seconds until the window resets>`, comma-separated when more than one policy applied.",
            "schema": { "type": "string" },
            "example": "\"requests\";r=118;t=42",
        },
        "RateLimit-Policy": {
            "description": "The policies that applied: `\"<policy>\";q=<quota>;w=<window in seconds>`.",
            "schema": { "type": "string" },
            "example": "\"requests\";q=120;w=60",
        },
        "Retry-After": {
            "description": "Seconds to wait before sending the request again.",
            "schema": { "type": "integer", "minimum": 0 },
        },
    });
    let limits = json!({
        "RateLimit": { "$ref": "#/components/headers/RateLimit" },
        "RateLimit-Policy": { "$ref": "#/components/headers/RateLimit-Policy" },
    });
    let mut limited_retry = limits.clone();
    limited_retry["Retry-After"] = json!({ "$ref": "#/components/headers/Retry-After" });
    let problem = |description: &str, headers: &Value| {
        json!({
            "description": description,
            "headers": headers,
            "content": { PROBLEM: { "schema": { "$ref": "#/components/schemas/Problem" } } },
        })
    };
    document["components"]["responses"] = json!({
        "TooManyRequests": problem("The caller's request rate is spent (`rate-limited`): wait `Retry-After` seconds.", &limited_retry),
        "Unauthorized": problem("No valid token: missing, malformed, expired or revoked.", &limits),
        "Failure": problem("Any other failure, as a problem body: 500 when the platform failed (the `requestId` finds it in the logs), 503 when a part it needs is briefly unavailable (retry with backoff, after `Retry-After` when given).", &limited_retry),
    });
    let Some(paths) = document["paths"].as_object_mut() else {
        return;
    };
    for operation in paths
        .values_mut()
        .filter_map(Value::as_object_mut)
        .flat_map(|item| item.values_mut())
        .filter(|operation| operation.get("operationId").is_some())
    {
        let secured = operation.get("security").is_some();
        let responses = operation["responses"]
            .as_object_mut()
            .expect("every operation lists its responses");
        for (status, response) in responses.iter_mut() {
            let headers = if status == "429" {
                &limited_retry
            } else {
                &limits
            };
            let own = response["headers"].as_object().cloned().unwrap_or_default();
            let mut merged = headers.as_object().cloned().unwrap_or_default();
            merged.extend(own);
            response["headers"] = Value::Object(merged);
        }
        let mut add = |status: &str, name: &str| {
            responses
                .entry(status)
                .or_insert_with(|| json!({ "$ref": format!("#/components/responses/{name}") }));
        };
        add("429", "TooManyRequests");
        add("default", "Failure");
        if secured {
            add("401", "Unauthorized");
        }
        if secured && operation.get("x-session-only") != Some(&Value::Bool(true)) {
            let scopes: Vec<Value> = operation["security"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|requirement| {
                    requirement["bearer"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default()
                })
                .collect();
            operation["x-scopes"] = Value::Array(scopes);
        }
    }
}

/// The schema of the `data` each event kind carries in the platform event
/// envelope: a match, so a new kind cannot be left out.
fn event_data(kind: EventKind) -> &'static str {
    match kind {
        EventKind::DeviceOnline => "DeviceOnlineData",
        EventKind::DeviceOffline => "DeviceOfflineData",
        EventKind::DeviceTelemetry => "DeviceTelemetryData",
        EventKind::CommandResult => "CommandResultData",
        EventKind::ThingState => "ThingStateData",
        EventKind::NotificationRaised => "NotificationRaisedData",
        EventKind::SubmissionState => "SubmissionStateData",
        EventKind::WebhookPing => "WebhookPingData",
        EventKind::GuestInvited | EventKind::GuestCheckedIn | EventKind::GuestCheckedOut => {
            "GuestStayData"
        }
    }
}

/// `device.online` -> `DeviceOnlineEvent`: the name generators give the
/// kind's envelope.
fn event_title(kind: &str) -> String {
    let words = kind.split(['.', '_']).map(|word| {
        let mut chars = word.chars();
        chars
            .next()
            .map(|first| first.to_uppercase().chain(chars).collect::<String>())
            .unwrap_or_default()
    });
    words.chain(["Event".to_owned()]).collect()
}

/// The platform events in the contract: `EventEnvelope`, one shape per kind
/// (its `type` and the type of its `data`), which the streams' `data:` lines
/// carry and webhook deliveries post; and the delivery itself as the
/// document's `webhooks` entry (OpenAPI 3.1), with its signed headers.
fn document_events(document: &mut serde_json::Value) {
    use serde_json::json;
    let envelopes: Vec<serde_json::Value> = EventKind::ALL
        .iter()
        .map(|&event| {
            let (kind, data) = (event.as_str(), event_data(event));
            json!({
                "type": "object",
                "title": event_title(kind),
                "required": ["id", "type", "tenantId", "createdAt", "data"],
                "properties": {
                    "id": { "type": "string", "description": "Sortable by commit order; resume a stream after it (`Last-Event-ID`), deduplicate deliveries on it." },
                    "type": { "type": "string", "const": kind },
                    "tenantId": { "type": "string", "format": "uuid" },
                    "createdAt": { "type": "string", "format": "date-time" },
                    "data": { "$ref": format!("#/components/schemas/{data}") },
                },
            })
        })
        .collect();
    document["components"]["schemas"]["EventEnvelope"] = json!({
        "description": "A platform event as the event streams (`data:` lines) and webhook deliveries carry it; `type` says which `data` it has.",
        "oneOf": envelopes,
    });
    // What each event of a stream is: OpenAPI 3.2's `itemSchema` for a
    // sequential media type, as an extension (this is a 3.1 document).
    for path in [STREAM_PATH, HOME_STREAM_PATH] {
        let stream =
            &mut document["paths"][path]["get"]["responses"]["200"]["content"]["text/event-stream"];
        if stream.is_object() {
            stream["x-item-schema"] = json!({
                "description": "One server-sent event: `event:` its kind, `id:` the event's id (send it back as `Last-Event-ID` to resume), `data:` the envelope as JSON. Comment lines (keepalives, `: connected`) and the first `retry:` line carry no event.",
                "type": "object",
                "required": ["event", "id", "data"],
                "properties": {
                    "event": { "type": "string", "description": "The envelope's `type`." },
                    "id": { "type": "string" },
                    "data": {
                        "type": "string",
                        "contentMediaType": "application/json",
                        "contentSchema": { "$ref": "#/components/schemas/EventEnvelope" },
                    },
                },
            });
        }
    }
    document["webhooks"] = json!({
        "platformEvent": {
            "post": {
                "summary": "A platform event delivered to a webhook endpoint",
                "description": "Posted to each enabled endpoint whose filter names the event's kind, retried on failure (see the delivery schedule). Verify `X-SVC-Signature` (`t=<unix seconds>,v1=<hex HMAC-SHA256 of \"t.body\">` with the endpoint's secret) before trusting the body; deduplicate on the envelope's `id` (or `X-SVC-Delivery`).",
                "parameters": [
                    { "name": "X-SVC-Event", "in": "header", "required": true, "schema": { "type": "string" }, "description": "The event's kind (its `type`)." },
                    { "name": "X-SVC-Delivery", "in": "header", "required": true, "schema": { "type": "string" }, "description": "The delivery's id." },
                    { "name": "X-SVC-Signature", "in": "header", "required": true, "schema": { "type": "string" }, "description": "`t=…,v1=…`, Stripe-style." },
                ],
                "requestBody": {
                    "required": true,
                    "content": { "application/json": { "schema": { "$ref": "#/components/schemas/EventEnvelope" } } },
                },
                "responses": {
                    "2XX": { "description": "Received: nothing more is sent for this delivery." },
                    "default": { "description": "Not received: the delivery is retried on its schedule (an endpoint failing fifty in a row is disabled)." },
                },
            },
        },
    });
}

/// An object schema with no properties (a descriptor, a state, a payload)
/// takes any members, which JSON Schema says already; generators read it as
/// an empty object (openapi-typescript: `Record<string, never>`) unless it
/// says so with `additionalProperties: true`.
fn open_free_form_objects(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            let is_object = match map.get("type") {
                Some(Value::String(t)) => t == "object",
                Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
                _ => false,
            };
            let shaped = [
                "properties",
                "additionalProperties",
                "$ref",
                "oneOf",
                "allOf",
                "anyOf",
            ]
            .iter()
            .any(|k| map.contains_key(*k));
            if is_object && !shaped {
                map.insert("additionalProperties".into(), Value::Bool(true));
            }
            map.values_mut().for_each(open_free_form_objects);
        }
        Value::Array(items) => items.iter_mut().for_each(open_free_form_objects),
        _ => {}
    }
}

/// utoipa writes `T` inline into each `ListResponse_T`, so a generator
/// makes a second model of every listed type (`Device` and
/// `ListResponseDeviceItemsItem`). Each list's items name the component
/// instead when it is the same schema.
fn reference_list_items(document: &mut serde_json::Value) {
    let Some(schemas) = document["components"]["schemas"].as_object_mut() else {
        return;
    };
    let lists: Vec<(String, String)> = schemas
        .keys()
        .filter_map(|name| {
            let item = name.strip_prefix("ListResponse_")?;
            Some((name.clone(), item.to_owned()))
        })
        .collect();
    for (list, item) in lists {
        let Some(component) = schemas.get(&item).cloned() else {
            continue;
        };
        let items = &mut schemas[&list]["properties"]["items"]["items"];
        if *items == component {
            *items = serde_json::json!({ "$ref": format!("#/components/schemas/{item}") });
        }
    }
}

/// A tagged enum's newtype variant (`Step::Music(MusicStep)`, tagged with
/// `kind`) is written by utoipa as `allOf: [{$ref: MusicStep}, {kind}]`
/// inside a `oneOf`, which generators (openapi-python-client among them)
/// cannot type. Each such pair is written as the one object it means: the
/// referenced object's properties and the tag's, both required lists.
fn merge_tagged_newtypes(document: Document) -> serde_json::Value {
    use serde_json::Value;
    fn merged(schemas: &Value, parts: &[Value]) -> Option<Value> {
        let [first, second] = parts else { return None };
        let name = first["$ref"]
            .as_str()?
            .strip_prefix("#/components/schemas/")?;
        let target = &schemas[name];
        let (Some(base), Some(tag)) = (
            target["properties"].as_object(),
            second["properties"].as_object(),
        ) else {
            return None;
        };
        let mut properties = base.clone();
        properties.extend(tag.clone());
        let required: Vec<Value> = [&target["required"], &second["required"]]
            .into_iter()
            .flat_map(|r| r.as_array().cloned().unwrap_or_default())
            .collect();
        let mut object = serde_json::json!({
            "type": "object",
            "required": required,
            "properties": properties,
        });
        if let Some(description) = target.get("description") {
            object["description"] = description.clone();
        }
        Some(object)
    }
    fn walk(value: &mut Value, schemas: &Value) {
        match value {
            Value::Object(map) => {
                for key in ["oneOf", "anyOf"] {
                    if let Some(Value::Array(variants)) = map.get_mut(key) {
                        for variant in variants.iter_mut() {
                            let parts = variant["allOf"].as_array().cloned();
                            if let Some(object) = parts.and_then(|p| merged(schemas, &p)) {
                                *variant = object;
                            }
                        }
                    }
                }
                map.values_mut().for_each(|v| walk(v, schemas));
            }
            Value::Array(items) => items.iter_mut().for_each(|v| walk(v, schemas)),
            _ => {}
        }
    }
    let mut value = serde_json::to_value(&document).expect("the contract serializes");
    let schemas = value["components"]["schemas"].clone();
    walk(&mut value, &schemas);
    value
}

/// The paths served from their own host by a hosted stack.
const STREAM_PATH: &str = "/v1/developers/events/stream";
const HOME_STREAM_PATH: &str = "/v1/properties/{propertyId}/events/stream";

fn local_server() -> Server {
    ServerBuilder::new()
        .url("http://127.0.0.1:{port}")
        .description(Some("The local platform (`cargo run`; ALYT_HTTP_ADDR)"))
        .parameter(
            "port",
            ServerVariableBuilder::new()
                .default_value("8080")
                .description(Some("The port of ALYT_HTTP_ADDR")),
        )
        .build()
}

fn hosted_server(url: &str, description: &str, id: &str, id_description: &str) -> Server {
    ServerBuilder::new()
        .url(url)
        .description(Some(description))
        .parameter(
            id,
            ServerVariableBuilder::new()
                .default_value("example")
                .description(Some(id_description)),
        )
        .parameter(
            "region",
            ServerVariableBuilder::new()
                .default_value("eu-west-1")
                .description(Some("The stack's AWS region")),
        )
        .build()
}

pub use crate::committed::{COMMITTED_ASYNCAPI, COMMITTED_OPENAPI};
