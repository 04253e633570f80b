//! Lambda entry of the console's files: the same routes the local platform
//! serves at `/`, `/invitation` and `/reset-password` ([`alyt_console::routes`]), on the
//! stack's HTTP API, so the app's calls to `/v1` are same-origin; its live
//! views stream from the stream function's URL (`ALYT_STREAM_URL`), which
//! the page's policy allows, and its sign-up shows Turnstile with
//! `ALYT_TURNSTILE_SITE_KEY`. It reads nothing from the table.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    alyt_aws::lambda::init_logs();
    let settings = alyt_console::ConsoleSettings::from_env();
    lambda_http::run(alyt_console::routes_with::<()>(&settings)).await
}
