//! Hosted adapters: the DynamoDB store, the SES mailer, the Turnstile bot check,
//! and the glue every group Lambda shares.

mod codec;
mod dynamo;
mod expr;
pub mod lambda;
pub mod mail;
pub mod sqs_ingest;
pub mod turnstile;

#[cfg(feature = "test-support")]
pub mod testing;

pub use dynamo::{DynamoStore, ENDPOINT_ENV, create_table};
