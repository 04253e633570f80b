//! Developer sign-up, email verification (with sandbox provisioning), sessions,
//! password changes and MFA.

use utoipa_axum::router::OpenApiRouter;

use crate::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
}
