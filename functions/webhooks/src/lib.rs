//! The webhook worker as a Lambda. EventBridge invokes it once a minute (its
//! finest schedule); each invocation runs a dispatch pass (recorded events ->
//! delivery rows) and a delivery pass (due rows, retries, disables) every
//! [`PASS_INTERVAL`] until [`WINDOW`] has passed, so a new event is delivered
//! within about its visibility lag plus a second although the schedule fires
//! once a minute. The outbound policy is the hosted one: https to public
//! addresses only, no redirects.
//!
//! An invocation that starts late may overlap the next one for a moment:
//! harmless, since the dispatcher's enqueue is idempotent and its cursor
//! moves conditionally, and every delivery attempt is claimed with a
//! conditional write.

use std::time::Duration;

use alyt_events::worker::Worker;
use tokio::time::Instant;

/// How often the passes run inside an invocation.
pub const PASS_INTERVAL: Duration = Duration::from_secs(1);
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

/// Runs dispatch + delivery passes every [`PASS_INTERVAL`], the first at
/// once, none starting at or after `window` from now.
pub async fn on_schedule(worker: &Worker, window: Duration) -> Totals {
    let until = Instant::now() + window;
    let mut totals = Totals::default();
    let mut next = Instant::now();
    loop {
        totals.passes += 1;
        match worker.dispatch().await {
            Ok(report) => {
                totals.dispatched_events += report.events;
                totals.queued += report.queued + report.held;
            }
            Err(e) => {
                totals.failed_passes += 1;
                tracing::warn!(error = %e, "webhook dispatch failed");
            }
        }
        match worker.deliver().await {
            Ok(report) => {
                totals.attempted += report.attempted;
                totals.delivered += report.delivered;
                totals.retrying += report.retrying;
                totals.failed += report.failed;
                totals.held += report.held;
                totals.disabled += report.disabled.len() as u32;
            }
            Err(e) => {
                totals.failed_passes += 1;
                tracing::warn!(error = %e, "webhook delivery pass failed");
            }
        }
        next = (next + PASS_INTERVAL).max(Instant::now());
        if next >= until {
            return totals;
        }
        tokio::time::sleep_until(next).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loop_stops_before_the_next_minute_and_before_the_timeout() {
        assert_eq!(window(Duration::from_secs(90)), WINDOW);
        assert_eq!(window(Duration::from_secs(30)), Duration::from_secs(15));
        assert_eq!(window(Duration::from_secs(5)), Duration::ZERO);
    }
}
