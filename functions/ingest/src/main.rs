//! Lambda entry of ingest: SQS batches from the IoT topic rule, reporting
//! partial batch failures.

use std::sync::Arc;

use alyt_aws::DynamoStore;
use alyt_device::ingest::Ingest;
use alyt_domain::{Clock, SystemClock};
use alyt_events::EventLog;
use alyt_security::HomeSecurity;
use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use lambda_runtime::{Error, LambdaEvent, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    alyt_aws::lambda::init_logs();
    let table = alyt_aws::lambda::table_from_env()?;
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let store = Arc::new(DynamoStore::from_env(table, clock.clone()).await);
    let events = EventLog::new(store.clone(), clock.clone());
    let security = Arc::new(HomeSecurity::new(store.clone(), clock.clone()));
    let ingest = Ingest::new(store, clock, events, security);
    alyt_aws::lambda::keep_flushing(ingest.meter().usage().clone()).await;
    // The dropped-messages metric's dimension.
    let stage = std::env::var("ALYT_STAGE").unwrap_or_else(|_| "local".into());
    lambda_runtime::run(service_fn(|event: LambdaEvent<SqsEvent>| {
        let (ingest, stage) = (ingest.clone(), &stage);
        async move {
            let (response, dropped) =
                alyt_aws::sqs_ingest::handle_batch_counting(&ingest, event.payload).await;
            let now_ms = alyt_aws::lambda::now_ms();
            for line in alyt_aws::sqs_ingest::dropped_metric_lines(stage, &dropped, now_ms) {
                println!("{line}");
            }
            Ok::<SqsBatchResponse, Error>(response)
        }
    }))
    .await
}
