//! Lambda entry of ingest: SQS batches from the IoT topic rule, reporting
//! partial batch failures.

use std::sync::Arc;

use alyt_aws::DynamoStore;
use alyt_device::ingest::Ingest;
use alyt_domain::{Clock, SystemClock};
use alyt_events::EventLog;
use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use lambda_runtime::{Error, LambdaEvent, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    alyt_aws::lambda::init_logs();
    let table = alyt_aws::lambda::table_from_env()?;
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let store = Arc::new(DynamoStore::from_env(table, clock.clone()).await);
    let events = EventLog::new(store.clone(), clock.clone());
    let ingest = Ingest::new(store, clock, events);
    alyt_aws::lambda::keep_flushing(ingest.meter().usage().clone()).await;
    lambda_runtime::run(service_fn(|event: LambdaEvent<SqsEvent>| {
        let ingest = ingest.clone();
        async move {
            Ok::<SqsBatchResponse, Error>(
                alyt_aws::sqs_ingest::handle_batch(&ingest, event.payload).await,
            )
        }
    }))
    .await
}
