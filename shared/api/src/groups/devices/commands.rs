//! Device commands (part of the homes group).
//!
//! * `POST /v1/devices/{deviceId}/commands?tenantId`: the thing envelope
//!   `{ command: 'set', payload: { capability, key, value } }`, `press`, or
//!   the flat form `{ command, payload }`, validated against the device's own
//!   descriptors and reported features (400 naming the field). The row is
//!   written `sent` and published on the device's commands channel at once
//!   (`alyt_device::bridge::send_new`); when the publish fails (the device
//!   is not connected, or the runtime cannot publish) it goes back to
//!   `pending` and the bridge sweep retries it. Answers 202 with the row. Who: a key with
//!   `devices:commands` reaching the tenant; tenant ADMIN or INSTALLER,
//!   platform OWNER or STAFF; household OWNER or MEMBER for the devices of
//!   their homes, a GUEST in its pinned home only. Platform SUPPORT gets 403.
//!   A foreign or missing device answers like `GET /devices/{id}` (404).
//! * `GET /v1/devices/{deviceId}/commands?tenantId`: the device's command
//!   history, newest first, paginated; whoever may read the device (a key
//!   needs `devices:read`).
//!
//! The stored device state never changes here: it changes when the device
//! reports back (ingest).
//!
//! Store calls (besides authenticating the caller): POST 1 get of the device
//! and 1 put, then the publish (1 conditional put more only when the publish
//! failed); GET 1 get of the device and one query. (A device row from an
//! older build, which does not name its household, costs household people
//! one property read more.)

use crate::routing::{Operations, operations};
use alyt_domain::device::{CommandRequest, CommandRow};
use alyt_domain::ids::DeviceId;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde_json::Value;

use crate::auth::Caller;
use crate::conventions::extract::{ApiJson, ApiPath, ApiQuery};
use crate::conventions::list::{ListResponse, TenantPage, listed};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{KeyWithoutDevicesRead, NoSuchDevice, NoValidToken};
use crate::groups::devices::TenantParam;
use crate::{ApiError, AppState};

pub fn routes() -> Operations {
    Operations::new().merge(operations!(send_command, list_commands))
}

/// Sends a command to a device: validated, queued, published at once.
#[utoipa::path(
    post,
    path = "/v1/devices/{deviceId}/commands",
    tag = "homes",
    operation_id = "sendDeviceCommand",
    params(("deviceId" = DeviceId, Path, description = "The device"), TenantParam),
    request_body = CommandRequest,
    security(("bearer" = ["devices:commands"])),
    responses(
        (status = 202, description = "Accepted: the command row (sent, or pending until the device can be reached)", body = CommandRow),
        (status = 400, description = "A malformed body, or a command the device's descriptors refuse (the field is named)", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        (status = 403, description = "A key without devices:commands, or platform SUPPORT; a siren (home security's output) from anyone who does not control the home's security", body = Problem, content_type = "application/problem+json"),
        NoSuchDevice,
    )
)]
pub async fn send_command(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(device_id): ApiPath<DeviceId>,
    ApiQuery(query): ApiQuery<TenantParam>,
    ApiJson(body): ApiJson<Value>,
) -> Result<(StatusCode, Json<CommandRow>), ApiError> {
    let request = CommandRequest::parse(&body).map_err(alyt_app::commands::invalid)?;
    let row =
        alyt_app::commands::send(&state, &caller, query.tenant_id, device_id, request).await?;
    Ok((StatusCode::ACCEPTED, Json(row)))
}

/// A device's command history, newest first.
#[utoipa::path(
    get,
    path = "/v1/devices/{deviceId}/commands",
    tag = "homes",
    operation_id = "listDeviceCommands",
    params(("deviceId" = DeviceId, Path, description = "The device"), TenantPage),
    security(("bearer" = ["devices:read"])),
    responses(
        (status = 200, description = "One page of command rows, newest first", body = ListResponse<CommandRow>),
        (status = 400, description = "Missing or malformed tenantId, deviceId, limit or cursor", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        KeyWithoutDevicesRead,
        NoSuchDevice,
    )
)]
pub async fn list_commands(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(device_id): ApiPath<DeviceId>,
    ApiQuery(query): ApiQuery<TenantPage>,
) -> Result<Json<ListResponse<CommandRow>>, ApiError> {
    let paging = query.page().paging();
    let found =
        alyt_app::commands::history_page(&state, &caller, query.tenant_id, device_id, &paging)
            .await?;
    Ok(listed(found, |s| s.row))
}
