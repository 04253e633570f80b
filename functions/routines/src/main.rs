//! Lambda entry of the routine runner (and home security's countdowns). A
//! routine's steps are the household's own use cases (thing commands, room
//! actions, music through connectors, the security mode), so the runner
//! links the application crate and runs them as a request does; it serves
//! no HTTP and links no HTTP crate.
//!
//! EventBridge fires once a minute; each invocation repeats the runner's
//! pass every second until shortly before its deadline, starting no step
//! after that, so a step that takes long (a connector call has 10 s) still
//! ends inside the invocation. Two invocations that overlap are safe: every
//! step of a run is claimed before it runs (`runner` module docs).

use std::time::Duration;

use alyt_app::passes::{self, Beats, Report, Worker};
use alyt_app::routines::runner::RunnerReport;
use alyt_hosted::{DevicePlane, HostedConfig, hosted_app};
use lambda_runtime::{Error, LambdaEvent, service_fn};

/// Kept free at the end of an invocation for the steps under way (a music
/// step makes up to four connector calls of 10 s).
const LAST_STEP_ROOM: Duration = Duration::from_secs(45);

#[tokio::main]
async fn main() -> Result<(), Error> {
    alyt_aws::lambda::init_logs();
    // The runner signs and verifies no token: it never reads the key.
    let config = HostedConfig::from_env()?;
    if config.iot.is_none() {
        return Err(
            "the routine runner sends device commands: set the ALYT_IOT_* variables".into(),
        );
    }
    let aws = alyt_aws::sdk_config().await;
    let devices = DevicePlane::from_config(&config, &aws);
    let app = hosted_app(&config, &aws, devices)?;
    // Home security's timers, then the routine runner, every second.
    let passes = passes::routines(&app, &Beats::HOSTED);
    lambda_runtime::run(service_fn(|event: LambdaEvent<serde_json::Value>| {
        let routine_passes = &passes;
        async move {
            let remaining = alyt_aws::lambda::time_left(event.context.deadline);
            let until = tokio::time::Instant::now() + remaining.saturating_sub(LAST_STEP_ROOM);
            let mut total = RunnerReport::default();
            let mut failed_passes = 0u32;
            for (_, outcome) in passes::drive(routine_passes, Worker::Routines, until).await {
                match outcome {
                    Ok(Report::Routines(r)) => {
                        total.started += r.started;
                        total.missed += r.missed;
                        total.progressed += r.progressed;
                        total.finished += r.finished;
                        total.raced += r.raced;
                    }
                    Ok(_) => {}
                    // Logged by the pass.
                    Err(_) => failed_passes += 1,
                }
            }
            Ok::<_, Error>(serde_json::json!({
                "started": total.started,
                "missed": total.missed,
                "progressed": total.progressed,
                "finished": total.finished,
                "raced": total.raced,
                "failedPasses": failed_passes,
            }))
        }
    }))
    .await
}
