//! The committed contract documents as compiled in (compact: build.rs),
//! which tests/contract.rs holds equal to the ones the code generates
//! (`openapi::document`, `alyt_device::asyncapi::document`). Served from
//! these copies so that a function hosting one group links none of the
//! other groups' handlers (building the document would reach every one),
//! and no cold start spends time assembling the contract; the event type
//! catalogue reads its schemas from them.

pub const COMMITTED_OPENAPI: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/openapi.json"));
pub const COMMITTED_ASYNCAPI: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/asyncapi.json"));
