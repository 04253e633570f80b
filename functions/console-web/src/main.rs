//! Lambda entry of the console's files: the same routes the local platform
//! serves at `/` ([`alyt_console::routes`]), on the stack's HTTP API, so the
//! app's calls to `/v1` are same-origin. It reads nothing from the table.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    alyt_aws::lambda::init_logs();
    lambda_http::run(alyt_console::routes::<()>()).await
}
