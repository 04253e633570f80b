//! The event stream's hosted application: the same route, authorization and
//! stream as the local platform ([`alyt_api::groups::developers::stream`]), under
//! the shared HTTP conventions. The Lambda main serves it with response
//! streaming; the fixture test drives it with a function-URL event.

use alyt_api::AppState;

/// The router the function URL serves.
pub fn app(state: AppState) -> axum::Router {
    alyt_api::serve(alyt_api::groups::developers::stream::routes(), state)
}
