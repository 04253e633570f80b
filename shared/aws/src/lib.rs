//! Hosted adapters: the DynamoDB store, IoT Core device certificates and
//! command publishing, the SES mailer, the Turnstile bot check, and the glue
//! every group Lambda shares.

mod codec;
mod dynamo;
mod expr;
pub mod iot;
pub mod iot_publisher;
pub mod lambda;
pub mod mail;
pub mod sqs_ingest;
pub mod turnstile;

#[cfg(feature = "test-support")]
pub mod testing;

pub use dynamo::{DynamoStore, ENDPOINT_ENV, create_table};
pub use iot::{IotCredentials, NoDeviceCredentials};
pub use iot_publisher::IotDataPublisher;
