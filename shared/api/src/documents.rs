//! The contract documents and the event type catalogue, as served. The
//! developers group serves them (they are the developer API's reference),
//! so only its function embeds the committed contract: the homes function,
//! which once answered them through its catch-all route, stays within
//! Lambda's size goal. (Building the document is [`crate::openapi`]'s.)

use axum::body::Bytes;
use axum::http::header;
use axum::response::IntoResponse;

use crate::committed::{COMMITTED_ASYNCAPI, COMMITTED_OPENAPI};
use crate::event_types::{__path_list_event_types, list_event_types};
use crate::routing::{Operations, operations};

pub fn routes() -> Operations {
    operations!(get_openapi, get_asyncapi, list_event_types)
}

/// This document.
#[utoipa::path(
    get,
    path = "/v1/openapi.json",
    tag = "meta",
    operation_id = "getOpenApi",
    responses((status = 200, description = "The OpenAPI 3.1 document", content_type = "application/json", body = Object))
)]
pub async fn get_openapi() -> impl IntoResponse {
    served(COMMITTED_OPENAPI)
}

/// The AsyncAPI 3.0 document of the broker channels devices use.
#[utoipa::path(
    get,
    path = "/v1/asyncapi.json",
    tag = "meta",
    operation_id = "getAsyncApi",
    responses((status = 200, description = "The AsyncAPI 3.0 document", content_type = "application/json", body = Object))
)]
pub async fn get_asyncapi() -> impl IntoResponse {
    served(COMMITTED_ASYNCAPI)
}

/// A committed document as embedded: compact JSON already (build.rs; the
/// contract test holds it equal to the generated document), so nothing is
/// parsed or copied per request.
fn served(committed: &'static [u8]) -> impl IntoResponse + use<> {
    (
        [(header::CONTENT_TYPE, "application/json")],
        Bytes::from_static(committed),
    )
}
