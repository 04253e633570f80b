//! Alyt's storage port.
//!
//! [`Store`] is shaped after the DynamoDB operations the platform needs (single-table
//! design, see `DATA_MODEL.md`): get, conditional put/update/delete, ordered queries by
//! partition with sort-key conditions and pagination, queries on sparse secondary
//! indexes, atomic multi-item transactions and TTL expiry. Two adapters implement it
//! with the same semantics: `sqlite::SqliteStore` (embedded, local platform; feature
//! `sqlite`) and the DynamoDB adapter in `alyt-aws`. `conformance` (feature
//! `test-support`, for tests only) holds the one suite both must pass.

#[cfg(feature = "test-support")]
pub mod conformance;
pub mod counting;
#[cfg(feature = "test-support")]
pub mod fixtures;
pub mod logs;
pub mod meter;
mod model;
pub mod pages;
pub mod repo;
#[cfg(feature = "sqlite")]
pub mod sqlite;

pub use model::*;
