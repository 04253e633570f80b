//! What devices report over time: telemetry points (a time series per device
//! and metric) and the device log (what the `events` and `alerts` channels
//! carried). Written by ingest inside its one transaction per message; read
//! by the device history operations.
//!
//! Keys (see `DATA_MODEL.md`):
//! * telemetry point `TELEMETRY#{d}#{metric}/{micros:020}#{messageId}`,
//!   `value` (number or null), `ttl` after [`TELEMETRY_RETENTION_DAYS`]: one
//!   partition per series, ordered by time, so a time range is one query.
//! * device log entry `DEVLOG#{d}/{CHANNEL}#{micros:020}#{messageId}`
//!   (`EVENT` or `ALERT`), `payload`, `ttl` after [`DEVICE_LOG_RETENTION_DAYS`].
//!
//! The message id in the sort key keeps two messages of the same microsecond
//! apart and makes a redelivered message overwrite itself.

use super::{page, ts};
use alyt_domain::ids::DeviceId;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;

use crate::{Item, Key, ListScope, PageKey, SortKey, Store, StoreError};

/// How long telemetry points are kept.
pub const TELEMETRY_RETENTION_DAYS: i64 = 30;
/// How long device events and alerts are kept.
pub const DEVICE_LOG_RETENTION_DAYS: i64 = 90;

/// Fixed-width UTC microseconds, so sort keys order by time.
pub fn micros(at: OffsetDateTime) -> String {
    format!("{:020}", (at.unix_timestamp_nanos() / 1_000).max(0))
}

/// The query of a gsi2 due index (`{partition}` / `{due µs:020}#…`): what
/// is due by `now`, the longest due first. `~` sorts after the `#` that
/// follows the time, so what is due at exactly `now` is in.
pub fn due_by(partition: &str, now: OffsetDateTime, limit: u32) -> crate::Query {
    crate::Query::on_index(crate::Index::Gsi2, partition)
        .sort(crate::SortKey::Le(format!("{}~", micros(now))))
        .limit(limit)
}

/// The partition of one telemetry series.
pub fn telemetry_partition(device: DeviceId, metric: &str) -> String {
    format!("TELEMETRY#{device}#{metric}")
}

/// The item of one telemetry point.
pub fn telemetry_item(
    device: DeviceId,
    metric: &str,
    value: Option<f64>,
    at: OffsetDateTime,
    message_id: &str,
) -> Item {
    let ttl = (at + time::Duration::days(TELEMETRY_RETENTION_DAYS)).unix_timestamp();
    Item::new(Key::new(
        telemetry_partition(device, metric),
        format!("{}#{message_id}", micros(at)),
    ))
    .with("value", value.map_or(Value::Null, Value::from))
    .with("at", rfc3339(at))
    .with("ttl", ttl)
}

/// One telemetry point as read back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TelemetryPoint {
    pub value: Option<f64>,
    #[serde(with = "ts::rfc3339")]
    pub at: OffsetDateTime,
}

/// Which device log a message went to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogChannel {
    Event,
    Alert,
}

impl LogChannel {
    fn prefix(self) -> &'static str {
        match self {
            LogChannel::Event => "EVENT#",
            LogChannel::Alert => "ALERT#",
        }
    }
}

/// One entry of a device's events or alerts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeviceLogEntry {
    pub device_id: DeviceId,
    pub channel: LogChannel,
    /// What the device published (a JSON object).
    pub payload: Value,
    #[serde(with = "ts::rfc3339")]
    pub at: OffsetDateTime,
}

/// The partition of a device's events and alerts.
pub fn device_log_partition(device: DeviceId) -> String {
    format!("DEVLOG#{device}")
}

pub fn device_log_item(entry: &DeviceLogEntry, message_id: &str) -> Result<Item, StoreError> {
    let ttl = (entry.at + time::Duration::days(DEVICE_LOG_RETENTION_DAYS)).unix_timestamp();
    let key = Key::new(
        device_log_partition(entry.device_id),
        format!(
            "{}{}#{message_id}",
            entry.channel.prefix(),
            micros(entry.at)
        ),
    );
    Ok(Item::from_record(key, entry)?.with("ttl", ttl))
}

fn rfc3339(at: OffsetDateTime) -> String {
    at.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

/// A time range; either end open. `from` is inclusive, `to` exclusive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Range {
    pub from: Option<OffsetDateTime>,
    pub to: Option<OffsetDateTime>,
}

impl Range {
    /// The sort-key condition for keys `{prefix}{micros}#...`.
    fn sort_key(self, prefix: &str) -> SortKey {
        // '#' (0x23) < '$' (0x24): `{prefix}{t}$` is above every key of time t.
        let low = self
            .from
            .map_or_else(|| prefix.to_owned(), |f| format!("{prefix}{}", micros(f)));
        match self.to {
            // Exclusive end: below every key of time `to`.
            Some(to) => SortKey::Between(low, format!("{prefix}{}", micros(to))),
            None => SortKey::Between(low, format!("{prefix}~")),
        }
    }
}

pub struct History<'a>(pub &'a dyn Store);

impl History<'_> {
    /// One page of a metric's points in `range`, newest first unless
    /// `oldest_first`. One query.
    pub async fn telemetry(
        &self,
        device: DeviceId,
        metric: &str,
        range: Range,
        oldest_first: bool,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<TelemetryPoint>, Option<PageKey>), StoreError> {
        let mut query = telemetry_list(device, metric)
            .query()
            .sort(range.sort_key(""))
            .limit(limit)
            .after(after);
        if !oldest_first {
            query = query.backward();
        }
        page(self.0, query).await
    }

    /// One page of a device's events or alerts in `range`, newest first.
    /// One query.
    pub async fn device_log(
        &self,
        device: DeviceId,
        channel: LogChannel,
        range: Range,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<DeviceLogEntry>, Option<PageKey>), StoreError> {
        page(
            self.0,
            device_log_list(device)
                .query()
                .sort(range.sort_key(channel.prefix()))
                .backward()
                .limit(limit)
                .after(after),
        )
        .await
    }
}

/// The list of a device's points of one metric.
pub fn telemetry_list(device: DeviceId, metric: &str) -> ListScope {
    ListScope::Table(telemetry_partition(device, metric))
}

/// The list of a device's events and alerts.
pub fn device_log_list(device: DeviceId) -> ListScope {
    ListScope::Table(device_log_partition(device))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sqlite::SqliteStore;

    #[tokio::test]
    async fn a_range_is_from_inclusive_to_exclusive_and_pages_in_order() {
        let store = SqliteStore::in_memory(std::sync::Arc::new(alyt_domain::SystemClock)).unwrap();
        let device = DeviceId::new();
        // Recent: points past their retention (ttl) read as gone.
        let t0 = OffsetDateTime::now_utc().replace_nanosecond(0).unwrap();
        for i in 0..5 {
            let at = t0 + time::Duration::seconds(i);
            store
                .put(
                    telemetry_item(device, "temperature", Some(i as f64), at, &format!("m{i}")),
                    None,
                )
                .await
                .unwrap();
        }
        let history = History(&store);
        let range = Range {
            from: Some(t0 + time::Duration::seconds(1)),
            to: Some(t0 + time::Duration::seconds(4)),
        };
        let (newest, _) = history
            .telemetry(device, "temperature", range, false, 10, None)
            .await
            .unwrap();
        let values: Vec<_> = newest.iter().map(|p| p.value.unwrap()).collect();
        assert_eq!(values, [3.0, 2.0, 1.0]);

        let (first, next) = history
            .telemetry(device, "temperature", Range::default(), true, 2, None)
            .await
            .unwrap();
        assert_eq!(
            first.iter().map(|p| p.value).collect::<Vec<_>>(),
            [Some(0.0), Some(1.0)]
        );
        let (second, _) = history
            .telemetry(device, "temperature", Range::default(), true, 2, next)
            .await
            .unwrap();
        assert_eq!(
            second.iter().map(|p| p.value).collect::<Vec<_>>(),
            [Some(2.0), Some(3.0)]
        );
        let (other, _) = history
            .telemetry(device, "humidity", Range::default(), true, 10, None)
            .await
            .unwrap();
        assert!(other.is_empty());
    }

    #[tokio::test]
    async fn events_and_alerts_are_separate_logs() {
        let store = SqliteStore::in_memory(std::sync::Arc::new(alyt_domain::SystemClock)).unwrap();
        let device = DeviceId::new();
        let at = OffsetDateTime::now_utc();
        for (channel, id) in [
            (LogChannel::Event, "a"),
            (LogChannel::Alert, "b"),
            (LogChannel::Event, "c"),
        ] {
            let entry = DeviceLogEntry {
                device_id: device,
                channel,
                payload: serde_json::json!({ "id": id }),
                at,
            };
            store
                .put(device_log_item(&entry, id).unwrap(), None)
                .await
                .unwrap();
        }
        let history = History(&store);
        let (events, _) = history
            .device_log(device, LogChannel::Event, Range::default(), 10, None)
            .await
            .unwrap();
        assert_eq!(events.len(), 2);
        assert!(events.iter().all(|e| e.channel == LogChannel::Event));
        let (alerts, _) = history
            .device_log(device, LogChannel::Alert, Range::default(), 10, None)
            .await
            .unwrap();
        assert_eq!(alerts.len(), 1);
        assert_eq!(alerts[0].payload["id"], "b");
    }
}
