//! Lambda entry of the scheduled sweeps.

use std::sync::Arc;

use alyt_aws::DynamoStore;
use alyt_aws::lambda::{IOT_DATA_ENDPOINT_ENV, IotDataConfig};
use alyt_device::liveness_sweep::LivenessSweep;
use alyt_domain::{Clock, SystemClock};
use alyt_events::EventLog;
use alyt_sweeps::{Sweeps, bridge_window};
use lambda_runtime::{Error, LambdaEvent, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    alyt_aws::lambda::init_logs();
    let table = alyt_aws::lambda::table_from_env()?;
    // Fail at cold start: without it every pending command would wait forever.
    let iot = IotDataConfig::from_env().ok_or_else(|| {
        format!("{IOT_DATA_ENDPOINT_ENV} is not set: the bridge sweep publishes commands")
    })?;
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    // One SDK configuration for the table, SES and the IoT data plane.
    let aws = alyt_aws::sdk_config().await;
    let store = Arc::new(DynamoStore::from_config(&aws, table, clock.clone()));
    let events = EventLog::new(store.clone(), clock.clone());
    let reset_mails = alyt_mail::reset::ResetMails {
        store: store.clone(),
        clock: clock.clone(),
        mailer: alyt_aws::lambda::mailer_from_config(&aws),
        public_url: std::env::var("ALYT_PUBLIC_URL").unwrap_or_default(),
    };
    let sweeps = Sweeps {
        store: store.clone(),
        clock: clock.clone(),
        publisher: Arc::new(iot.publisher(&aws)),
        liveness: LivenessSweep::new(store.clone(), clock.clone(), events),
        deprecation_notices: alyt_events::deprecations::DeprecationNotices::new(
            store.clone(),
            clock.clone(),
        ),
        stays: alyt_stays::GuestStays::new(store, clock),
        reset_mails: Some(reset_mails),
    };
    lambda_runtime::run(service_fn(|event: LambdaEvent<serde_json::Value>| {
        let sweeps = &sweeps;
        async move {
            let remaining = alyt_aws::lambda::time_left(event.context.deadline);
            let report =
                alyt_sweeps::on_schedule(sweeps, event.payload, bridge_window(remaining)).await?;
            Ok::<_, Error>(serde_json::json!({
                "heartbeat": {
                    "checked": report.heartbeat.checked,
                    "markedOffline": report.heartbeat.marked_offline,
                    "raced": report.heartbeat.raced,
                },
                "stays": {
                    "due": report.stays.due,
                    "checkedIn": report.stays.checked_in,
                    "checkedOut": report.stays.checked_out,
                    "raced": report.stays.raced,
                    "failed": report.stays.failed,
                },
                "deprecationNotices": report.deprecation_notices,
                "bridge": {
                    "passes": report.bridge.passes,
                    "failedPasses": report.bridge.failed_passes,
                    "sent": report.bridge.sent,
                    "failed": report.bridge.failed,
                    "undeliverable": report.bridge.undeliverable,
                    "raced": report.bridge.raced,
                },
            }))
        }
    }))
    .await
}
