//! Lambda entry of the webhook worker.

use std::sync::Arc;
use std::time::Duration;

use alyt_aws::DynamoStore;
use alyt_domain::{Clock, SystemClock};
use alyt_events::worker::Worker;
use alyt_events::{EventLog, HttpSender, OutboundPolicy};
use alyt_mail::MailNotice;
use alyt_store::Store;
use lambda_runtime::{Error, LambdaEvent, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    alyt_aws::lambda::init_logs();
    let table = alyt_aws::lambda::table_from_env()?;
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    // One SDK configuration for the table, the developers' buses and SES.
    let aws = alyt_aws::sdk_config().await;
    let store: Arc<dyn Store> = Arc::new(DynamoStore::from_config(&aws, table, clock.clone()));
    let worker = Worker {
        store: store.clone(),
        clock: clock.clone(),
        log: EventLog::new(store, clock),
        sender: Arc::new(HttpSender::new()?),
        // Developers' buses, with the function's role (their bus policies
        // let this account put events: docs/EVENTBRIDGE.md).
        bus: Arc::new(alyt_aws::eventbridge::EventBridgeBus::with_config(
            aws.clone(),
        )),
        // Hosted: https to public addresses only (ALYT_WEBHOOKS_PRIVATE_NETWORKS,
        // which the template never sets, opens it for the emulated region).
        policy: OutboundPolicy::HOSTED.with_env(),
        notice: Arc::new(MailNotice(alyt_aws::lambda::mailer_from_config(&aws))),
    };
    let stage = std::env::var("ALYT_STAGE").unwrap_or_else(|_| "local".into());
    lambda_runtime::run(service_fn(|event: LambdaEvent<serde_json::Value>| {
        let (worker, stage) = (&worker, &stage);
        async move {
            let now_ms = alyt_aws::lambda::now_ms();
            let remaining = Duration::from_millis(event.context.deadline.saturating_sub(now_ms));
            let t = match alyt_webhooks::trigger_of(&event.payload) {
                alyt_webhooks::Trigger::Schedule => {
                    alyt_webhooks::on_schedule(worker, alyt_webhooks::window(remaining)).await
                }
                alyt_webhooks::Trigger::NewEvents(0) => alyt_webhooks::Totals::default(),
                // The stream reports committed events: readable at once.
                alyt_webhooks::Trigger::NewEvents(_) => alyt_webhooks::on_new_events(worker).await,
            };
            tracing::info!(?t, "webhook passes");
            match alyt_events::delivery::backlog_age(worker.store.as_ref(), worker.clock.now())
                .await
            {
                Ok(age) => println!("{}", alyt_webhooks::backlog_metric(stage, age, now_ms)),
                Err(e) => tracing::warn!(error = %e, "the webhook backlog could not be read"),
            }
            Ok::<_, Error>(serde_json::json!({
                "passes": t.passes,
                "failedPasses": t.failed_passes,
                "dispatchedEvents": t.dispatched_events,
                "queued": t.queued,
                "attempted": t.attempted,
                "delivered": t.delivered,
                "retrying": t.retrying,
                "failed": t.failed,
                "held": t.held,
                "disabled": t.disabled,
            }))
        }
    }))
    .await
}
