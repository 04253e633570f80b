//! The event streams' hosted application: the same routes, authorization and
//! streams as the local platform (the developer stream,
//! [`alyt_api::groups::developers::stream`], and a home's,
//! [`alyt_api::groups::homes::live`]), under
//! the shared HTTP conventions. The Lambda main serves it with response
//! streaming; the fixture test drives it with a function-URL event.

use alyt_api::AppState;

/// The router the function URL serves.
pub fn app(state: AppState) -> axum::Router {
    use alyt_api::groups::{developers, homes};
    let routes = developers::stream::routes().merge(homes::live::routes());
    alyt_api::serve(routes, state)
}
