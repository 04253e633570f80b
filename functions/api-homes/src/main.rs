//! Lambda entry of the homes group.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    // JSON logs for CloudWatch; no ANSI colours, no timestamps (Lambda adds them).
    tracing_subscriber::fmt()
        .json()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_current_span(true)
        .without_time()
        .init();
    let state = alyt_api_homes::hosted_state().await?;
    lambda_http::run(alyt_api_homes::router(state)).await
}
