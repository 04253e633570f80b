//! Hosted adapters: the DynamoDB store, IoT Core device certificates and
//! command publishing, SQS decoding into ingest, the SES mailer, secrets
//! read at run time from Secrets Manager, and what
//! every Lambda shares (`lambda`). Each adapter is behind the feature of the
//! AWS client it calls (see Cargo.toml), so a function links only those it
//! uses. The ports it implements are the store's, the device plane's and
//! mail's; the HTTP layer's wiring is alyt-lambda-http, above this crate.

#[cfg(feature = "dynamo")]
mod codec;
#[cfg(feature = "dynamo")]
mod dynamo;
#[cfg(feature = "eventbridge")]
pub mod eventbridge;
#[cfg(feature = "dynamo")]
mod expr;
#[cfg(feature = "iot-certs")]
pub mod iot;
#[cfg(feature = "iot-publish")]
pub mod iot_publisher;
pub mod lambda;
#[cfg(feature = "ses")]
pub mod mail;
#[cfg(feature = "sdk")]
mod sdk;
#[cfg(feature = "secrets")]
pub mod secrets;
#[cfg(feature = "sqs")]
pub mod sqs_ingest;
#[cfg(feature = "sqs")]
pub mod table_stream;

#[cfg(feature = "test-support")]
pub mod testing;

#[cfg(feature = "sdk")]
pub use aws_config::SdkConfig;
#[cfg(feature = "dynamo")]
pub use dynamo::{DynamoStore, ENDPOINT_ENV, create_table};
#[cfg(feature = "iot-certs")]
pub use iot::IotCredentials;
#[cfg(feature = "iot-publish")]
pub use iot_publisher::IotDataPublisher;
#[cfg(feature = "sdk")]
pub use sdk::{https_client, sdk_config};
