//! `alyt-admin`: operator commands against the hosted platform's table.
//!
//! ```text
//! ALYT_TABLE=<table> alyt-admin bootstrap <owner-email>
//! ```
//! creates the first platform OWNER and a demo household (the same function the
//! local platform runs on its first start) and prints the generated password
//! once. Set ALYT_OWNER_PASSWORD to choose it instead. Uses the normal AWS
//! credential chain; ALYT_DYNAMODB_ENDPOINT points it at another endpoint.

use std::process::ExitCode;
use std::sync::Arc;

use alyt_api::bootstrap::DemoHome;
use alyt_api::ports::{NoBotCheck, NoMailer};
use alyt_aws::DynamoStore;
use alyt_domain::{Clock, SystemClock};

const USAGE: &str = "usage: ALYT_TABLE=<table> alyt-admin bootstrap <owner-email>";

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [command, email] = args.as_slice() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    if command != "bootstrap" || !email.contains('@') {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    }
    let Ok(table) = std::env::var("ALYT_TABLE") else {
        eprintln!("ALYT_TABLE is not set\n{USAGE}");
        return ExitCode::from(2);
    };
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
