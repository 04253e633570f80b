//! Alyt's domain: plain types and rules with no I/O and no async.
//!
//! Everything the routers, the store repositories and the device plane agree on
//! lives here, so that the rules can be tested without a runtime.

pub mod access;
pub mod capability;
pub mod clock;
pub mod device;
pub mod ids;
pub mod integration;
pub mod invitation;
pub mod membership;
pub mod never_stored;
pub mod notification;
pub mod password;
pub mod presence;
pub mod quota;
pub mod room;
pub mod routine;
pub mod secret;
pub mod security;
pub mod session;
pub mod stay;
pub mod submission;

pub use clock::{Clock, ManualClock, SystemClock};
