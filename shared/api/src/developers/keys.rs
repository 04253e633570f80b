//! Developer keys (DEV/LIVE), rotation, revocation and the app token exchange.

use utoipa_axum::router::OpenApiRouter;

use crate::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
}
