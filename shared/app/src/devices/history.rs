//! What a device reported over time: one metric's time series (kept 30
//! days) and what it published on its `events` and `alerts` channels (kept
//! 90 days). Whoever may read the device may read its history (a key needs
//! `telemetry:read` for the series, `devices:read` for the logs); a device
//! the caller does not reach is not found. Each list is one store query
//! after the device read.

use alyt_domain::access::{Principal, Scope};
use alyt_domain::ids::{DeviceId, TenantId};
use alyt_store::PageKey;
use alyt_store::repo::history::{
    DeviceLogEntry, History, LogChannel, Range, TelemetryPoint, device_log_list, telemetry_list,
};
use time::OffsetDateTime;

use crate::access::device_for;
use crate::paging::Paging;
use crate::{App, Error};

/// The range `[from, to)`; `to` must be later than `from`.
pub fn range(from: Option<OffsetDateTime>, to: Option<OffsetDateTime>) -> Result<Range, Error> {
    if let (Some(from), Some(to)) = (from, to)
        && from >= to
    {
        return Err(Error::validation("to", "to must be later than from"));
    }
    Ok(Range { from, to })
}

/// A metric's name: 1 to 64 characters.
pub fn checked_metric(metric: String) -> Result<String, Error> {
    if metric.is_empty() || metric.chars().count() > 64 {
        return Err(Error::validation(
            "metric",
            "metric must be 1 to 64 characters",
        ));
    }
    Ok(metric)
}

/// Which readings of a device a telemetry list reads, checked.
#[derive(Debug, Clone)]
pub struct Series {
    pub metric: String,
    pub range: Range,
    /// Oldest first (for drawing a chart left to right); newest first
    /// otherwise.
    pub oldest_first: bool,
}

impl Series {
    /// The metric (1 to 64 characters), then the range, checked.
    pub fn checked(
        metric: String,
        from: Option<OffsetDateTime>,
        to: Option<OffsetDateTime>,
        oldest_first: bool,
    ) -> Result<Self, Error> {
        let metric = checked_metric(metric)?;
        let range = range(from, to)?;
        Ok(Self {
            metric,
            range,
            oldest_first,
        })
    }
}

/// One page of `series` of device `device_id` of `tenant`, when the caller
/// may read the device with `telemetry:read`.
pub async fn telemetry_page(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    device_id: DeviceId,
    series: &Series,
    paging: &Paging,
) -> Result<(Vec<TelemetryPoint>, Option<PageKey>), Error> {
    let limit = paging.limit()?;
    let device = device_for(app, caller, tenant, device_id, Scope::TelemetryRead).await?;
    let after = paging.after_within(&telemetry_list(device.id, &series.metric))?;
    Ok(History(&*app.store)
        .telemetry(
            device.id,
            &series.metric,
            series.range,
            series.oldest_first,
            limit,
            after,
        )
        .await?)
}

/// One page of what device `device_id` of `tenant` published on `channel`
/// within `range`, newest first, when the caller may read the device.
pub async fn log_page(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    device_id: DeviceId,
    channel: LogChannel,
    range: Range,
    paging: &Paging,
) -> Result<(Vec<DeviceLogEntry>, Option<PageKey>), Error> {
    let limit = paging.limit()?;
    let device = device_for(app, caller, tenant, device_id, Scope::DevicesRead).await?;
    let after = paging.after_within(&device_log_list(device.id))?;
    Ok(History(&*app.store)
        .device_log(device.id, channel, range, limit, after)
        .await?)
}
