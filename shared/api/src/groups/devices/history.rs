//! What a device reported over time (part of the homes group):
//!
//! * `GET /v1/devices/{deviceId}/telemetry?tenantId&metric`: one metric's
//!   time series (kept 30 days), newest first by default, within an optional
//!   `[from, to)` range. A key needs `telemetry:read`.
//! * `GET /v1/devices/{deviceId}/events?tenantId` and `.../alerts`: what the
//!   device published on its `events` and `alerts` channels (kept 90 days),
//!   newest first. A key needs `devices:read`.
//!
//! Whoever may read the device may read its history (404 otherwise, as
//! `GET /devices/{id}`). Each list is one store query after the device read.

use crate::routing::{Operations, operations};
use alyt_app::devices::history::{self as use_case, Series};
use alyt_domain::ids::{DeviceId, TenantId};
use alyt_store::repo::history::{DeviceLogEntry, LogChannel};
use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

use crate::auth::Caller;
use crate::conventions::extract::{ApiPath, ApiQuery};
use crate::conventions::list::{ListResponse, PageParams, listed};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{
    BadDeviceLogPage, KeyWithoutDevicesRead, NoSuchDevice, NoValidToken,
};
use crate::{ApiError, AppState};

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(device_telemetry))
        .merge(operations!(device_events))
        .merge(operations!(device_alerts))
}

/// Sort order of a time series.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// Newest first (the default).
    #[default]
    Desc,
    /// Oldest first (for drawing a chart left to right).
    Asc,
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct TelemetryQuery {
    pub tenant_id: TenantId,
    /// The metric name as the device publishes it (1-64 characters).
    pub metric: String,
    /// Points at or after this time (RFC 3339).
    #[serde(default, with = "time::serde::rfc3339::option")]
    #[param(value_type = Option<String>, format = DateTime)]
    pub from: Option<OffsetDateTime>,
    /// Points before this time (RFC 3339).
    #[serde(default, with = "time::serde::rfc3339::option")]
    #[param(value_type = Option<String>, format = DateTime)]
    pub to: Option<OffsetDateTime>,
    /// `desc` (newest first, default) or `asc`.
    #[serde(default)]
    #[param(inline)]
    pub order: Order,
    /// Items per page, 1 to 200 (default 50).
    pub limit: Option<u32>,
    /// The `nextCursor` of the previous page (same device and metric).
    pub cursor: Option<String>,
}

/// One reading of a metric.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TelemetryPointView {
    pub metric: String,
    #[schema(required = true)]
    pub value: Option<f64>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub at: OffsetDateTime,
}

/// One metric's readings, newest first unless `order=asc`.
#[utoipa::path(
    get,
    path = "/v1/devices/{deviceId}/telemetry",
    tag = "homes",
    operation_id = "listDeviceTelemetry",
    params(("deviceId" = DeviceId, Path, description = "The device"), TelemetryQuery),
    security(("bearer" = ["telemetry:read"])),
    responses(
        (status = 200, description = "One page of readings", body = ListResponse<TelemetryPointView>),
        (status = 400, description = "Missing or malformed tenantId, deviceId, metric, from, to, order, limit or cursor", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        (status = 403, description = "A key without telemetry:read", body = Problem, content_type = "application/problem+json"),
        NoSuchDevice,
    )
)]
pub async fn device_telemetry(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(device_id): ApiPath<DeviceId>,
    ApiQuery(query): ApiQuery<TelemetryQuery>,
) -> Result<Json<ListResponse<TelemetryPointView>>, ApiError> {
    let series = Series::checked(
        query.metric,
        query.from,
        query.to,
        query.order == Order::Asc,
    )?;
    let paging = PageParams::new(query.limit, query.cursor).paging();
    let found = use_case::telemetry_page(
        &state,
        &caller,
        query.tenant_id,
        device_id,
        &series,
        &paging,
    )
    .await?;
    Ok(listed(found, |p| TelemetryPointView {
        metric: series.metric.clone(),
        value: p.value,
        at: p.at,
    }))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct DeviceLogQuery {
    pub tenant_id: TenantId,
    /// Entries at or after this time (RFC 3339).
    #[serde(default, with = "time::serde::rfc3339::option")]
    #[param(value_type = Option<String>, format = DateTime)]
    pub from: Option<OffsetDateTime>,
    /// Entries before this time (RFC 3339).
    #[serde(default, with = "time::serde::rfc3339::option")]
    #[param(value_type = Option<String>, format = DateTime)]
    pub to: Option<OffsetDateTime>,
    /// Items per page, 1 to 200 (default 50).
    pub limit: Option<u32>,
    /// The `nextCursor` of the previous page (same device and list).
    pub cursor: Option<String>,
}

/// One event or alert a device published.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeviceLogEntryView {
    pub device_id: DeviceId,
    /// What the device published (a JSON object).
    #[schema(value_type = Object)]
    pub payload: serde_json::Value,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub at: OffsetDateTime,
}

impl From<DeviceLogEntry> for DeviceLogEntryView {
    fn from(entry: DeviceLogEntry) -> Self {
        Self {
            device_id: entry.device_id,
            payload: entry.payload,
            at: entry.at,
        }
    }
}

/// One page of what the device published on `channel`.
async fn device_log(
    state: &AppState,
    caller: &alyt_domain::access::Principal,
    device_id: DeviceId,
    query: DeviceLogQuery,
    channel: LogChannel,
) -> Result<Json<ListResponse<DeviceLogEntryView>>, ApiError> {
    let range = use_case::range(query.from, query.to)?;
    let paging = PageParams::new(query.limit, query.cursor).paging();
    let found = use_case::log_page(
        state,
        caller,
        query.tenant_id,
        device_id,
        channel,
        range,
        &paging,
    )
    .await?;
    Ok(listed(found, Into::into))
}

/// What the device published on its `events` channel, newest first.
#[utoipa::path(
    get,
    path = "/v1/devices/{deviceId}/events",
    tag = "homes",
    operation_id = "listDeviceEvents",
    params(("deviceId" = DeviceId, Path, description = "The device"), DeviceLogQuery),
    security(("bearer" = ["devices:read"])),
    responses(
        (status = 200, description = "One page of events", body = ListResponse<DeviceLogEntryView>),
        BadDeviceLogPage,
        NoValidToken,
        KeyWithoutDevicesRead,
        NoSuchDevice,
    )
)]
pub async fn device_events(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(device_id): ApiPath<DeviceId>,
    ApiQuery(query): ApiQuery<DeviceLogQuery>,
) -> Result<Json<ListResponse<DeviceLogEntryView>>, ApiError> {
    device_log(&state, &caller, device_id, query, LogChannel::Event).await
}

/// What the device published on its `alerts` channel, newest first (each
/// also raised a notification).
#[utoipa::path(
    get,
    path = "/v1/devices/{deviceId}/alerts",
    tag = "homes",
    operation_id = "listDeviceAlerts",
    params(("deviceId" = DeviceId, Path, description = "The device"), DeviceLogQuery),
    security(("bearer" = ["devices:read"])),
    responses(
        (status = 200, description = "One page of alerts", body = ListResponse<DeviceLogEntryView>),
        BadDeviceLogPage,
        NoValidToken,
        KeyWithoutDevicesRead,
        NoSuchDevice,
    )
)]
pub async fn device_alerts(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(device_id): ApiPath<DeviceId>,
    ApiQuery(query): ApiQuery<DeviceLogQuery>,
) -> Result<Json<ListResponse<DeviceLogEntryView>>, ApiError> {
    device_log(&state, &caller, device_id, query, LogChannel::Alert).await
}
