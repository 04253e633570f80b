//! The scheduled sweeps as a Lambda: EventBridge invokes it once a minute (the
//! finest schedule), and each invocation runs the heartbeat sweep. The event's
//! content does not matter; the time comes from the platform clock.

use alyt_device::liveness_sweep::{LivenessSweep, SweepReport};
use alyt_store::StoreError;

/// One scheduled invocation.
pub async fn on_schedule(
    sweep: &LivenessSweep,
    _event: serde_json::Value,
) -> Result<SweepReport, StoreError> {
    let report = sweep.run().await?;
    tracing::info!(
        checked = report.checked,
        marked_offline = report.marked_offline,
        raced = report.raced,
        "heartbeat sweep"
    );
    Ok(report)
}
