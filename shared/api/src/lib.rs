//! Alyt's HTTP API: one axum router per operation group under full `/v1` paths,
//! and the conventions every group shares (problem errors, JSON and query
//! extraction, rate limiting, request ids, list envelopes and cursors, OpenAPI).
//!
//! A router never knows its runtime: the local binary and each Lambda build an
//! [`AppState`] from their own adapters and call [`app`] with the groups they serve.

pub mod access;
pub mod app;
pub mod auth;
pub mod bootstrap;
pub mod client;
pub mod commands;
pub mod developers;
pub mod device_history;
pub mod device_lifecycle;
pub mod devices;
pub mod endpoints;
pub mod extract;
pub mod groups;
pub mod homes;
pub mod household_auth;
pub mod integrations;
pub mod list;
pub mod notifications;
pub mod openapi;
pub mod overview;
pub mod people;
pub mod ports;
pub mod problem;
pub mod ratelimit;
pub mod request_id;
pub mod rooms;
pub mod state;

pub use app::{app, serve, with_conventions};
pub use client::{Client, ClientAddr};
pub use groups::Group;
pub use problem::ApiError;
pub use state::{Adapters, AppState, EventsSettings, Settings};
