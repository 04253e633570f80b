//! The scheduled sweeps as a Lambda. EventBridge invokes it once a minute (its
//! finest schedule); each invocation runs
//!
//! * the heartbeat sweep once (ONLINE devices silent past their window go
//!   OFFLINE 'heartbeat'), and the stay sweep once (guests checked in once
//!   and out on time, `alyt-stays`), and, at the same time,
//! * the command bridge sweep every 2 s until
//!   [`BRIDGE_WINDOW`] has passed, so pending commands are retried every 2 s
//!   as the spec asks although the schedule itself fires once a minute;
//!   each pass also mails the waiting password-reset links (the API records
//!   a request and answers at once, the same way for every address; see
//!   `alyt_mail::reset::ResetMails`).
//!
//! The event's content does not matter; the platform clock gives the time.
//! An invocation that starts late may overlap the next one for a moment:
//! harmless, since every command state move is a conditional write.

use std::sync::Arc;
use std::time::Duration;

use alyt_app::passes::{self, Beats, CommandBridge, Report, SweepParts, Worker};
use alyt_device::DevicePublisher;
use alyt_device::liveness_sweep::{LivenessSweep, SweepReport};
use alyt_domain::Clock;
use alyt_store::{Store, StoreError};
use tokio::time::Instant;

/// How long one invocation keeps the bridge sweep going: stops 5 s before
/// the next minute's invocation takes over.
pub const BRIDGE_WINDOW: Duration = Duration::from_secs(55);
/// Kept free before the function's timeout, so a last pass never gets cut.
pub const DEADLINE_MARGIN: Duration = Duration::from_secs(3);

/// What the sweeps need: the store, the clock and the device publisher.
pub struct Sweeps {
    pub store: Arc<dyn Store>,
    pub clock: Arc<dyn Clock>,
    pub publisher: Arc<dyn DevicePublisher>,
    pub liveness: LivenessSweep,
    pub stays: alyt_stays::GuestStays,
    /// Tells households of the connector versions deprecated since.
    pub deprecation_notices: alyt_events::deprecations::DeprecationNotices,
    /// Mails waiting reset links on every bridge pass, when set.
    pub reset_mails: Option<alyt_mail::reset::ResetMails>,
}

/// The bridge passes of one invocation, added up.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BridgeTotals {
    pub passes: u32,
    /// Passes that stopped on a store error (the next pass tries again).
    pub failed_passes: u32,
    pub sent: u32,
    /// Publishes that failed (the rows stay pending).
    pub failed: u32,
    pub undeliverable: u32,
    pub raced: u32,
}

/// What one invocation did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScheduleReport {
    pub heartbeat: SweepReport,
    pub stays: alyt_stays::SweepReport,
    /// Deprecation notices written (those that fail wait for the next
    /// invocation).
    pub deprecation_notices: usize,
    pub bridge: BridgeTotals,
}

/// How long the bridge may loop when the invocation has `remaining` before
/// its timeout.
pub fn bridge_window(remaining: Duration) -> Duration {
    BRIDGE_WINDOW.min(remaining.saturating_sub(DEADLINE_MARGIN))
}

/// One scheduled invocation: the sweeps function's passes of the registry
/// ([`alyt_app::passes::sweeps`]) on their hosted beats for `window` (each
/// once when it is zero): bridge passes with the waiting reset mails every
/// 2 s, the heartbeat and stay sweeps and the deprecation notices once. A
/// failed heartbeat or stay sweep is the invocation's error, reported after
/// the bridge passes ran.
pub async fn on_schedule(
    sweeps: &Sweeps,
    _event: serde_json::Value,
    window: Duration,
) -> Result<ScheduleReport, StoreError> {
    let passes = passes::sweeps(&sweeps.parts(), &Beats::HOSTED);
    let outcomes = passes::drive(&passes, Worker::Sweeps, Instant::now() + window).await;
    let mut bridge = BridgeTotals::default();
    let (mut heartbeat, mut stays) = (None, None);
    let mut deprecation_notices = 0;
    for (name, outcome) in outcomes {
        match (name, outcome) {
            (_, Ok(Report::Bridge(report))) => bridge.add(Ok(report)),
            (passes::BRIDGE_SWEEP, Err(e)) => bridge.add(Err(e)),
            (_, Ok(Report::Heartbeat(report))) => heartbeat = Some(Ok(report)),
            (passes::HEARTBEAT_SWEEP, Err(e)) => heartbeat = Some(Err(e)),
            (_, Ok(Report::Stays(report))) => stays = Some(Ok(report)),
            (passes::STAY_SWEEP, Err(e)) => stays = Some(Err(e)),
            (_, Ok(Report::DeprecationNotices(written))) => deprecation_notices += written,
            // Reset mails and notices that failed wait for the next pass
            // (logged by the pass).
            _ => {}
        }
    }
    let never = || StoreError::Unavailable("the sweep did not run".into());
    let heartbeat = heartbeat.unwrap_or_else(|| Err(never()));
    let stays = stays.unwrap_or_else(|| Err(never()));
    let heartbeat =
        heartbeat.inspect_err(|e| tracing::error!(error = %e, "heartbeat sweep failed"))?;
    let stays = stays.inspect_err(|e| tracing::error!(error = %e, "stay sweep failed"))?;
    tracing::info!(
        due = stays.due,
        checked_in = stays.checked_in,
        checked_out = stays.checked_out,
        raced = stays.raced,
        failed = stays.failed,
        "stay sweep"
    );
    tracing::info!(
        checked = heartbeat.checked,
        marked_offline = heartbeat.marked_offline,
        raced = heartbeat.raced,
        "heartbeat sweep"
    );
    tracing::info!(
        passes = bridge.passes,
        failed_passes = bridge.failed_passes,
        sent = bridge.sent,
        failed = bridge.failed,
        undeliverable = bridge.undeliverable,
        raced = bridge.raced,
        "bridge sweeps"
    );
    Ok(ScheduleReport {
        heartbeat,
        stays,
        deprecation_notices,
        bridge,
    })
}

impl Sweeps {
    /// The registry's parts of the sweeps function.
    fn parts(&self) -> SweepParts {
        SweepParts {
            bridge: Some(CommandBridge {
                store: self.store.clone(),
                publisher: self.publisher.clone(),
                clock: self.clock.clone(),
            }),
            reset_mails: self.reset_mails.clone(),
            liveness: Some(self.liveness.clone()),
            stays: Some(self.stays.clone()),
            notices: Some(self.deprecation_notices.clone()),
        }
    }
}

impl BridgeTotals {
    fn add(&mut self, pass: Result<alyt_device::bridge::SweepReport, StoreError>) {
        self.passes += 1;
        match pass {
            Ok(report) => {
                self.sent += report.sent;
                self.failed += report.failed;
                self.undeliverable += report.undeliverable;
                self.raced += report.raced;
            }
            Err(_) => self.failed_passes += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bridge_stops_before_the_next_minute_and_before_the_timeout() {
        assert_eq!(bridge_window(Duration::from_secs(60)), BRIDGE_WINDOW);
        assert_eq!(
            bridge_window(Duration::from_secs(10)),
            Duration::from_secs(7)
        );
        assert_eq!(bridge_window(Duration::from_secs(1)), Duration::ZERO);
    }
}
