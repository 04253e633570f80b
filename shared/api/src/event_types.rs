//! The event type catalogue (`GET /v1/event-types`): every kind with what it
//! means, its JSON Schema and an example envelope. The schemas are the
//! committed contract's (the envelope of each kind, made self-contained), so
//! they are the ones the SDKs are generated from and webhooks deliver.

use std::sync::OnceLock;

use alyt_events::{EventId, EventKind};
use axum::Json;
use serde::Serialize;
use serde_json::{Map, Value, json};
use utoipa::ToSchema;

use crate::committed::COMMITTED_OPENAPI;
use crate::conventions::list::ListResponse;

/// One kind of platform event.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventType {
    /// The kind: the envelope's `type`, and what webhook filters and the
    /// stream's `events` name.
    #[serde(rename = "type")]
    pub kind: String,
    pub description: String,
    /// A JSON Schema (2020-12) of the whole envelope of this kind,
    /// self-contained (what it refers to is in its `$defs`).
    #[schema(value_type = Object)]
    pub schema: Value,
    /// An envelope of this kind, as a delivery carries it.
    #[schema(value_type = Object)]
    pub example: Value,
}

/// Every kind of event the platform raises, one page.
#[utoipa::path(
    get,
    path = "/v1/event-types",
    tag = "meta",
    operation_id = "listEventTypes",
    responses(
        (status = 200, description = "Every event kind with its description, JSON Schema and an example; all on one page (`nextCursor` is null)", body = ListResponse<EventType>),
    )
)]
pub async fn list_event_types() -> Json<&'static ListResponse<EventType>> {
    static CATALOGUE: OnceLock<ListResponse<EventType>> = OnceLock::new();
    Json(CATALOGUE.get_or_init(|| {
        let contract: Value =
            serde_json::from_slice(COMMITTED_OPENAPI).expect("the committed contract is JSON");
        ListResponse {
            items: event_types(&contract),
            next_cursor: None,
        }
    }))
}

/// The catalogue as `contract` describes the envelopes.
pub fn event_types(contract: &Value) -> Vec<EventType> {
    let envelopes = contract["components"]["schemas"]["EventEnvelope"]["oneOf"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    EventKind::ALL
        .iter()
        .enumerate()
        .map(|(n, &kind)| {
            let envelope = envelopes
                .iter()
                .find(|e| e["properties"]["type"]["const"] == kind.as_str())
                .unwrap_or_else(|| panic!("the contract has no envelope of {}", kind.as_str()));
            EventType {
                kind: kind.as_str().to_owned(),
                description: kind.description().to_owned(),
                schema: self_contained(contract, envelope),
                example: json!({
                    "id": EventId::new(time::macros::datetime!(2026-11-30 09:15:02.417 UTC), n as u32 + 1).to_string(),
                    "type": kind.as_str(),
                    "tenantId": "0192f3a1-2a00-7b10-8c21-0d3e4f5a6b7c",
                    "createdAt": "2026-11-30T09:15:02.417Z",
                    "data": kind.example_data(),
                }),
            }
        })
        .collect()
}

/// `schema` with every component it refers to (transitively) in `$defs`,
/// its references rewritten to point there.
fn self_contained(contract: &Value, schema: &Value) -> Value {
    const COMPONENTS: &str = "#/components/schemas/";
    fn collect(contract: &Value, value: &Value, found: &mut Map<String, Value>) {
        match value {
            Value::Object(map) => {
                if let Some(name) = map
                    .get("$ref")
                    .and_then(Value::as_str)
                    .and_then(|r| r.strip_prefix(COMPONENTS))
                    && !found.contains_key(name)
                {
                    let target = contract["components"]["schemas"][name].clone();
                    found.insert(name.to_owned(), target.clone());
                    collect(contract, &target, found);
                }
                map.values().for_each(|v| collect(contract, v, found));
            }
            Value::Array(items) => items.iter().for_each(|v| collect(contract, v, found)),
            _ => {}
        }
    }
    fn rewrite(value: &mut Value) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(reference)) = map.get_mut("$ref")
                    && let Some(name) = reference.strip_prefix(COMPONENTS)
                {
                    *reference = format!("#/$defs/{name}");
                }
                map.values_mut().for_each(rewrite);
            }
            Value::Array(items) => items.iter_mut().for_each(rewrite),
            _ => {}
        }
    }
    let mut defs = Map::new();
    collect(contract, schema, &mut defs);
    let mut out = schema.clone();
    out["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
    if !defs.is_empty() {
        out["$defs"] = Value::Object(defs);
    }
    rewrite(&mut out);
    out
}
