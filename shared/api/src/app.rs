//! Assembly of the HTTP application: the groups a runtime serves plus the
//! contract documents, under the conventions every response follows. What
//! handlers share is [`crate::state`]; the groups are [`crate::groups`].

use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::response::{IntoResponse, Response};
use tower_http::catch_panic::CatchPanicLayer;

use crate::ApiError;
use crate::conventions::ratelimit::{self, Limiting};
use crate::conventions::request_id;
use crate::groups::Group;
use crate::routing::{Operations, SecuredOperations};
use crate::state::AppState;

/// Largest request body any operation accepts.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// The application serving `groups`, with the shared conventions (the
/// contract documents come with the developers group).
pub fn app(state: AppState, groups: &[Group]) -> Router {
    let operations = groups
        .iter()
        .fold(Operations::default(), |operations, group| {
            operations.merge(group.routes())
        });
    app_with(state, operations)
}

/// The application serving `operations` (a hosted function passes its
/// [`crate::groups::OneGroup`]'s routes).
pub fn app_with(state: AppState, operations: Operations) -> Router {
    serve(operations, state)
}

/// `routes` under the shared conventions; the operations their contract
/// secures are rate-charged to the caller once it authenticated. Nothing of
/// the contract is built here ([`crate::routing`]).
pub fn serve(routes: Operations, state: AppState) -> Router {
    with_conventions(routes.router(), routes.secured(), state)
}

/// Applies what every response follows: JSON 404 and 405, problem bodies for
/// panics, the body limit, rate limiting with the RateLimit fields on every
/// response (errors included), and request ids (outermost, so every problem
/// body and log line carries one).
pub fn with_conventions(
    router: Router<AppState>,
    secured: SecuredOperations,
    state: AppState,
) -> Router {
    let limiting = Limiting {
        limiter: state.limiter.clone(),
        secured: Arc::new(secured),
    };
    router
        .fallback(|| async { ApiError::not_found("no operation at this path") })
        .method_not_allowed_fallback(|| async { ApiError::method_not_allowed() })
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(CatchPanicLayer::custom(on_panic))
        .layer(axum::middleware::from_fn_with_state(
            limiting,
            ratelimit::middleware,
        ))
        .layer(axum::middleware::from_fn(request_id::middleware))
        .with_state(state)
}

fn on_panic(_: Box<dyn std::any::Any + Send + 'static>) -> Response {
    ApiError::internal("a handler panicked").into_response()
}
