//! The developers operation group (under /v1/developers): the
//! developer account, MFA, keys and app tokens, quotas and usage, and the
//! platform-staff admin operations.

use crate::routing::Operations;

pub mod account;
pub mod admin;
pub mod connectors;
pub mod keys;
pub mod mfa;
pub mod moves;
pub mod quota;
pub mod review;
pub mod sandbox;
pub mod session;
pub mod simulator;
pub mod simulator_scripts;
pub mod stream;
pub mod submissions;
pub mod webhook_recovery;
pub mod webhooks;

pub fn routes() -> Operations {
    Operations::new()
        .merge(account::routes())
        .merge(mfa::routes())
        .merge(keys::routes())
        .merge(admin::routes())
        .merge(quota::routes())
        .merge(webhooks::routes())
        .merge(webhook_recovery::routes())
        .merge(stream::routes())
        .merge(simulator::routes())
        .merge(simulator_scripts::routes())
        .merge(connectors::routes())
        .merge(submissions::routes())
        .merge(review::routes())
}
