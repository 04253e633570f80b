//! What every operation group shares at the HTTP edge: problem bodies and
//! the API error, JSON/query/path extraction, list envelopes and cursors,
//! the rate limiter and its RateLimit fields, request ids, checked text
//! fields, the caller's address as the edge reports it, and the tenant a
//! household operation names in its query (or its body).

pub mod client;
pub mod extract;
pub mod list;
pub mod problem;
pub mod ratelimit;
pub mod request_id;
pub mod responses;
pub mod tenant;
pub mod text;
