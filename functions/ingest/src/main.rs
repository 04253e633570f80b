//! Lambda entry of ingest: SQS batches from the IoT topic rule, reporting
//! partial batch failures; and the table's stream, whose new telemetry
//! points the sequencer turns into `device.telemetry` events (the second
//! half of a telemetry message's way in).

use std::sync::Arc;

use alyt_aws::DynamoStore;
use alyt_device::ingest::Ingest;
use alyt_device::sequencer::Sequencer;
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
    let sequencer = Sequencer::new(store.clone(), clock.clone(), events.clone());
    let ingest = Ingest::new(store, clock, events, security);
    alyt_aws::lambda::keep_flushing(ingest.meter().usage().clone()).await;
    // The dropped-messages metric's dimension.
    let stage = std::env::var("ALYT_STAGE").unwrap_or_else(|_| "local".into());
    lambda_runtime::run(service_fn(|event: LambdaEvent<serde_json::Value>| {
        let (ingest, sequencer, stage) = (ingest.clone(), sequencer.clone(), &stage);
        async move {
            if alyt_aws::table_stream::is_stream_batch(&event.payload) {
                // A failure fails the batch: Lambda sends it again.
                let answer = alyt_aws::table_stream::sequence(&sequencer, &event.payload).await?;
                return Ok::<serde_json::Value, Error>(answer);
            }
            let batch: SqsEvent = serde_json::from_value(event.payload)?;
            let (response, dropped) =
                alyt_aws::sqs_ingest::handle_batch_counting(&ingest, batch).await;
            let now_ms = alyt_aws::lambda::now_ms();
            for line in alyt_aws::sqs_ingest::dropped_metric_lines(stage, &dropped, now_ms) {
                println!("{line}");
            }
            Ok(serde_json::to_value::<SqsBatchResponse>(response)?)
        }
    }))
    .await
}
