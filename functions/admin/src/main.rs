//! `alyt-admin`: operator commands against the hosted platform's table.
//!
//! ```text
//! ALYT_TABLE=<table> alyt-admin bootstrap <owner-email>
//! ```
//! creates the first platform OWNER and a demo household (the same function the
//! local platform runs on its first start) and prints the generated password
//! once. Set ALYT_OWNER_PASSWORD to choose it instead.
//!
//! ```text
//! ALYT_TABLE=<table> alyt-admin log-shards <tenant-id> <shards>
//! ```
//! grows a tenant's event log to that many shards (1 to 128; never fewer than
//! it has), for a tenant beyond one head's write rate (docs/SCALE.md says how
//! many). Writers follow within a minute; readers at once.
//!
//! Both use the normal AWS credential chain; ALYT_DYNAMODB_ENDPOINT points
//! them at another endpoint.

use std::process::ExitCode;
use std::sync::Arc;

use alyt_api::bootstrap::DemoHome;
use alyt_api::ports::{NoBotCheck, NoMailer};
use alyt_aws::DynamoStore;
use alyt_domain::ids::TenantId;
use alyt_domain::{Clock, SystemClock};
use alyt_store::repo::events::Events;

const USAGE: &str = "usage: ALYT_TABLE=<table> alyt-admin bootstrap <owner-email>\n       ALYT_TABLE=<table> alyt-admin log-shards <tenant-id> <shards>";

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = || {
        eprintln!("{USAGE}");
        ExitCode::from(2)
    };
    let Ok(table) = std::env::var("ALYT_TABLE") else {
        eprintln!("ALYT_TABLE is not set");
        return usage();
    };
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["bootstrap", email] if email.contains('@') => bootstrap(table, email).await,
        ["log-shards", tenant, shards] => match (tenant.parse(), shards.parse()) {
            (Ok(tenant), Ok(shards)) => log_shards(table, tenant, shards).await,
            _ => usage(),
        },
        _ => usage(),
    }
}

async fn log_shards(table: String, tenant: TenantId, shards: u32) -> ExitCode {
    let store = DynamoStore::from_env(table, Arc::new(SystemClock)).await;
    match Events(&store).grow(tenant, shards).await {
        Ok(()) => {
            println!(
                "The event log of tenant {tenant} has {shards} shards (writers follow within a minute)."
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("alyt-admin: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn bootstrap(table: String, email: &str) -> ExitCode {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let store = DynamoStore::from_env(table, clock.clone()).await;
    let state = match alyt_lambda_http::state_with(
        Arc::new(store),
        clock,
        Arc::new(NoMailer),
        Arc::new(NoBotCheck),
        "",
    )
    .await
    {
        Ok(state) => state,
        Err(e) => {
            eprintln!("alyt-admin: cannot reach the table: {e}");
            return ExitCode::FAILURE;
        }
    };
    let password = std::env::var("ALYT_OWNER_PASSWORD").ok();
    let demo = match DemoHome::from_setting(std::env::var("ALYT_DEMO").ok().as_deref()) {
        Ok(demo) => demo,
        Err(e) => {
            eprintln!("alyt-admin: {e}");
            return ExitCode::from(2);
        }
    };
    match alyt_api::bootstrap::ensure_first_owner(&state, email, password, demo).await {
        Ok(Some(first)) => {
            println!(
                "Created the platform owner {} and a demo household.",
                first.email
            );
            if let Some(password) = first.generated_password {
                println!("password: {password}   (shown once)");
            }
            ExitCode::SUCCESS
        }
        Ok(None) => {
            println!("The platform was bootstrapped before; nothing changed.");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("alyt-admin: {e}");
            ExitCode::FAILURE
        }
    }
}
