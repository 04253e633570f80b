//! Alyt's application: every use case as a plain async function over the
//! ports and the repositories, with its own [`Error`]. The HTTP groups parse
//! a request, call one function here and map its answer; the workers (the
//! routine runner, the household timers) call the same functions. Nothing
//! here knows HTTP.

pub mod access;
pub mod auth;
pub mod catalogue;
pub mod commands;
pub mod context;
pub mod dashboard;
pub mod developers;
pub mod devices;
pub mod endpoints;
pub mod error;
pub mod first_start;
pub mod grants;
pub mod homes;
pub mod integrations;
pub mod music;
pub mod notifications;
pub mod overview;
pub mod paging;
pub mod passes;
pub mod people;
pub mod ports;
pub mod presence;
pub mod quota;
pub mod rooms;
pub mod routines;
pub mod security;
pub mod streams;
pub mod text;
pub mod things;
pub mod virtual_quota;
pub mod widgets;

pub use context::{Adapters, App, EventsSettings};
pub use error::{Error, ErrorKind, Result};
