//! The homes operation group: properties, rooms, things, endpoints and the
//! capability catalogue. (Only the catalogue exists so far.)

use alyt_domain::capability::{CapabilityCatalogue, catalogue};
use axum::Json;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use crate::problem::Problem;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_capabilities))
}

/// The capability catalogue: every descriptor a client renders things from.
#[utoipa::path(
    get,
    path = "/v1/capabilities",
    tag = "homes",
    operation_id = "getCapabilities",
    responses(
        (status = 200, description = "The catalogue", body = CapabilityCatalogue),
        (status = 429, description = "Rate limit spent", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn get_capabilities() -> Json<&'static CapabilityCatalogue> {
    Json(catalogue())
}
