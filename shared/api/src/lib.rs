//! Alyt's HTTP API: one axum router per operation group under full `/v1` paths,
//! and the conventions every group shares (problem errors, JSON and query
//! extraction, rate limiting, request ids, list envelopes and cursors, OpenAPI).
//!
//! A router never knows its runtime: the local binary and each Lambda build an
//! [`AppState`] from their own adapters and call [`app()`] with the groups they serve.

pub mod access;
pub mod app;
pub mod auth;
pub mod committed;
pub use alyt_app::first_start as bootstrap;
pub mod conventions;
pub mod documents;
pub mod event_types;
pub mod groups;
pub mod openapi;
pub use alyt_app::ports;
pub mod routing;
pub mod state;

pub use app::{app, app_with, serve, with_conventions};
pub use conventions::client::{Client, ClientAddr, TrustedProxies};
pub use conventions::problem::ApiError;
pub use groups::{Group, OneGroup};
pub use state::{Adapters, AppState, EventsSettings, Settings, TokenKey};
