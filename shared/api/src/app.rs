//! Assembly of the HTTP application: the groups a runtime serves plus the
//! conventions every response follows. What handlers share is
//! [`crate::state`]; this module is the only one that knows every group.

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::response::{IntoResponse, Response};
use tower_http::catch_panic::CatchPanicLayer;
use utoipa_axum::router::OpenApiRouter;

use crate::ratelimit;
use crate::state::AppState;
use crate::{
    ApiError, developers, homes, household_auth, integrations, openapi, people, request_id,
};

/// Largest request body any operation accepts.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// The operation groups; each is one Lambda when hosted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    Auth,
    Developers,
    Homes,
    /// Connecting connectors to homes, discovery and an integration's
    /// endpoints (spec G).
    Integrations,
    /// A household's people: members, grants, ends of membership (spec B).
    People,
}

impl Group {
    pub const ALL: [Group; 5] = [
        Group::Auth,
        Group::Developers,
        Group::Homes,
        Group::Integrations,
        Group::People,
    ];

    pub fn routes(self) -> OpenApiRouter<AppState> {
        match self {
            Group::Auth => household_auth::routes(),
            Group::Developers => developers::routes(),
            Group::Homes => homes::routes(),
            Group::Integrations => integrations::routes(),
            Group::People => people::routes(),
        }
    }
}

/// The application serving `groups` (plus the contract documents), with the
/// shared conventions.
pub fn app(state: AppState, groups: &[Group]) -> Router {
    let mut routes = openapi::routes();
    for group in groups {
        routes = routes.merge(group.routes());
    }
    let (router, _document) = routes.split_for_parts();
    with_conventions(router, state)
}

/// Applies what every response follows: JSON 404 and 405, problem bodies for
/// panics, the body limit, rate limiting with the RateLimit fields on every
/// response (errors included), and request ids (outermost, so every problem
/// body and log line carries one).
pub fn with_conventions(router: Router<AppState>, state: AppState) -> Router {
    router
        .fallback(|| async { ApiError::not_found("no operation at this path") })
        .method_not_allowed_fallback(|| async { ApiError::method_not_allowed() })
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(CatchPanicLayer::custom(on_panic))
        .layer(axum::middleware::from_fn_with_state(
            state.limiter.clone(),
            ratelimit::middleware,
        ))
        .layer(axum::middleware::from_fn(request_id::middleware))
        .with_state(state)
}

fn on_panic(_: Box<dyn std::any::Any + Send + 'static>) -> Response {
    ApiError::internal("a handler panicked").into_response()
}
