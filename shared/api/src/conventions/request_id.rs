//! Request ids: taken from a well-formed incoming `x-request-id` (so a caller or a
//! gateway can correlate) or made fresh, echoed in the response, put on the
//! tracing span and into every problem body.

use axum::extract::{MatchedPath, Request};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;

pub const HEADER: &str = "x-request-id";

tokio::task_local! {
    static REQUEST_ID: String;
}

/// The id of the request being served, if called inside one.
pub fn current() -> Option<String> {
    REQUEST_ID.try_with(Clone::clone).ok()
}

/// A short token of URL-safe characters; `=` too, which API Gateway's
/// request ids end with (the hosted adapter passes them on).
fn acceptable(id: &str) -> bool {
    (8..=128).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.=".contains(&b))
}

pub async fn middleware(request: Request, next: Next) -> Response {
    let id = request
        .headers()
        .get(HEADER)
        .and_then(|v| v.to_str().ok())
        .filter(|v| acceptable(v))
        .map(str::to_owned)
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    // The route's template, not the path: a path can carry a secret (an
    // invitation link's token). Only a path no route matched is logged as sent.
    let path = match request.extensions().get::<MatchedPath>() {
        Some(route) => route.as_str().to_owned(),
        None => request.uri().path().to_owned(),
    };
    let span = tracing::info_span!(
        "request",
        request_id = %id,
        method = %request.method(),
        path = %path,
    );
    let mut response = REQUEST_ID
        .scope(id.clone(), next.run(request).instrument(span.clone()))
        .await;
    span.in_scope(|| {
        tracing::info!(status = response.status().as_u16(), "served");
    });
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(HEADER, value);
    }
    response
}
