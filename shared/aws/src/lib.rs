//! Hosted adapters: the DynamoDB implementation of the `alyt_store::Store` port.

mod codec;
mod dynamo;
mod expr;
#[cfg(feature = "test-support")]
pub mod testing;

pub use dynamo::{DynamoStore, ENDPOINT_ENV, create_table};
