//! The webhook worker as a Lambda. EventBridge invokes it once a minute (its
//! finest schedule); each invocation runs a dispatch pass (recorded events ->
//! delivery rows) and a delivery pass (due rows, retries, disables) every
//! [`alyt_events::worker::PASS_INTERVAL`] until [`WINDOW`] has passed, so a new event is delivered
//! within about a second although the schedule fires once a minute. The outbound policy is the hosted one: https to public
//! addresses only, no redirects.
//!
//! New events also trigger it at once: the table's stream (keys only,
//! filtered to inserted event-log items) invokes it with a batch of
//! committed events, and it runs one dispatch + delivery pass at once
//! ([`on_new_events`]), so a delivery does not wait for the next second of a
//! scheduled loop that may not be running.
//!
//! An invocation that starts late may overlap the next one for a moment:
//! harmless, since the dispatcher's enqueue is idempotent and its cursor
//! moves conditionally, and every delivery attempt is claimed with a
//! conditional write.

use std::time::Duration;

use alyt_app::passes::{self, Beats, Report};
use alyt_events::worker::Worker;
use alyt_store::repo::events::is_event_partition;
use tokio::time::Instant;

/// How long one invocation keeps going: stops 5 s before the next minute's
/// invocation takes over.
pub const WINDOW: Duration = Duration::from_secs(55);
/// Kept free before the function's timeout: a delivery pass may wait up to
/// the 10 s request timeout.
pub const DEADLINE_MARGIN: Duration = Duration::from_secs(15);

/// How long the passes may loop when the invocation has `remaining`.
pub fn window(remaining: Duration) -> Duration {
    WINDOW.min(remaining.saturating_sub(DEADLINE_MARGIN))
}

/// What one invocation did, added up.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    pub passes: u32,
    /// Passes that stopped on a store error (the next pass tries again).
    pub failed_passes: u32,
    pub dispatched_events: u32,
    pub queued: u32,
    pub attempted: u32,
    pub delivered: u32,
    pub retrying: u32,
    pub failed: u32,
    pub held: u32,
    pub disabled: u32,
}

/// What invoked the function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    /// EventBridge's schedule (or anything that is not a stream batch).
    Schedule,
    /// The table's stream: this many new platform events were recorded.
    NewEvents(usize),
}

/// Tells a DynamoDB stream batch (records with `eventSource`
/// `aws:dynamodb`) from the scheduled event. Only inserted items of the
/// event log count (the event source mapping filters to those; this checks
/// again with [`is_event_partition`]).
pub fn trigger_of(payload: &serde_json::Value) -> Trigger {
    let Some(records) = payload.get("Records").and_then(|r| r.as_array()) else {
        return Trigger::Schedule;
    };
    let from_stream = |r: &&serde_json::Value| {
        r.get("eventSource").and_then(|s| s.as_str()) == Some("aws:dynamodb")
    };
    if !records.iter().any(|r| from_stream(&r)) {
        return Trigger::Schedule;
    }
    let new_events = records
        .iter()
        .filter(from_stream)
        .filter(|r| r.get("eventName").and_then(|n| n.as_str()) == Some("INSERT"))
        .filter(|r| {
            r.pointer("/dynamodb/Keys/pk/S")
                .and_then(|pk| pk.as_str())
                .is_some_and(is_event_partition)
        })
        .count();
    Trigger::NewEvents(new_events)
}

/// One dispatch + delivery pass for events the table's stream announced
/// (they are committed, so readable at once).
pub async fn on_new_events(worker: &Worker) -> Totals {
    on_schedule(worker, Duration::ZERO).await
}

/// The webhooks function's passes of the registry
/// ([`alyt_app::passes::webhooks`]): dispatch then delivery every
/// [`alyt_events::worker::PASS_INTERVAL`], the first at once, none starting
/// at or after `window` from now.
pub async fn on_schedule(worker: &Worker, window: Duration) -> Totals {
    let passes = passes::webhooks(worker, &Beats::HOSTED);
    let mut totals = Totals::default();
    let until = Instant::now() + window;
    for (name, outcome) in passes::drive(&passes, passes::Worker::Webhooks, until).await {
        if name == passes::WEBHOOK_DISPATCH {
            totals.passes += 1;
        }
        totals.add(outcome);
    }
    totals
}

impl Totals {
    /// One pass's outcome (failures are logged by the pass).
    fn add(&mut self, outcome: passes::Outcome) {
        match outcome {
            Ok(Report::Dispatch(report)) => {
                self.dispatched_events += report.events;
                self.queued += report.queued + report.held;
            }
            Ok(Report::Delivery(report)) => {
                self.attempted += report.attempted;
                self.delivered += report.delivered;
                self.retrying += report.retrying;
                self.failed += report.failed;
                self.held += report.held;
                self.disabled += report.disabled.len() as u32;
            }
            Ok(_) => {}
            Err(_) => self.failed_passes += 1,
        }
    }
}

/// The webhook backlog (how long the oldest due delivery has waited) as a
/// CloudWatch embedded-metric log line: printed once per invocation, it
/// becomes the `Alyt/WebhookBacklogAgeSeconds` metric (dimension `Stage`)
/// the template's alarm watches, with no metrics API call.
pub fn backlog_metric(stage: &str, age: Option<time::Duration>, now_ms: u64) -> String {
    let seconds = age.map_or(0, |a| a.whole_seconds().max(0));
    alyt_aws::lambda::metric_line(
        "WebhookBacklogAgeSeconds",
        "Seconds",
        &[("Stage", stage)],
        seconds,
        now_ms,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> serde_json::Value {
        let path = format!("{}/events/webhooks/{name}", env!("ALYT_REPO_ROOT"));
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
    }

    #[test]
    fn the_backlog_metric_is_an_embedded_metric_line_cloudwatch_reads() {
        let line = backlog_metric(
            "prod",
            Some(time::Duration::seconds(754)),
            1_700_000_000_000,
        );
        let parsed: serde_json::Value = serde_json::from_str(&line).unwrap();
        let directive = &parsed["_aws"]["CloudWatchMetrics"][0];
        assert_eq!(directive["Namespace"], "Alyt");
        assert_eq!(directive["Dimensions"], serde_json::json!([["Stage"]]));
        assert_eq!(directive["Metrics"][0]["Name"], "WebhookBacklogAgeSeconds");
        assert_eq!(parsed["_aws"]["Timestamp"], 1_700_000_000_000u64);
        assert_eq!(parsed["Stage"], "prod");
        assert_eq!(parsed["WebhookBacklogAgeSeconds"], 754);
        let idle: serde_json::Value =
            serde_json::from_str(&backlog_metric("prod", None, 0)).unwrap();
        assert_eq!(idle["WebhookBacklogAgeSeconds"], 0);
    }

    #[test]
    fn a_stream_batch_counts_inserted_events_and_a_schedule_is_a_schedule() {
        assert_eq!(trigger_of(&fixture("scheduled.json")), Trigger::Schedule);
        // Two inserted events; a modified event item and another entity's
        // insert do not count.
        assert_eq!(
            trigger_of(&fixture("dynamodb-stream.json")),
            Trigger::NewEvents(2)
        );
        assert_eq!(trigger_of(&serde_json::json!({})), Trigger::Schedule);
    }

    #[test]
    fn the_loop_stops_before_the_next_minute_and_before_the_timeout() {
        assert_eq!(window(Duration::from_secs(90)), WINDOW);
        assert_eq!(window(Duration::from_secs(30)), Duration::from_secs(15));
        assert_eq!(window(Duration::from_secs(5)), Duration::ZERO);
    }
}
