//! Lambda entry of the scheduled sweeps.

use std::sync::Arc;

use alyt_aws::DynamoStore;
use alyt_device::liveness_sweep::LivenessSweep;
use alyt_domain::{Clock, SystemClock};
use alyt_events::{EventLog, VISIBILITY_LAG};
use lambda_runtime::{Error, LambdaEvent, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    tracing_subscriber::fmt()
        .json()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .without_time()
        .init();
    let table = std::env::var("ALYT_TABLE").map_err(|_| "ALYT_TABLE is not set")?;
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let store = Arc::new(DynamoStore::from_env(table, clock.clone()).await);
    let events = EventLog::new(store.clone(), clock.clone(), VISIBILITY_LAG);
    let sweep = LivenessSweep::new(store, clock, events);
    lambda_runtime::run(service_fn(|event: LambdaEvent<serde_json::Value>| {
        let sweep = &sweep;
        async move {
            let report = alyt_sweeps::on_schedule(sweep, event.payload).await?;
            Ok::<_, Error>(serde_json::json!({
                "checked": report.checked,
                "markedOffline": report.marked_offline,
                "raced": report.raced,
            }))
        }
    }))
    .await
}
