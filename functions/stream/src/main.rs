//! Lambda entry of the developer event stream: `GET
//! /v1/developers/events/stream` served with Lambda response streaming on a
//! function URL. The route, its authorization and the stream itself are the
//! ones the local platform serves ([`alyt_api::groups::developers::stream`],
//! [`alyt_events::stream`]); here connections end a little before Lambda's
//! 15-minute limit and clients resume with `Last-Event-ID`.

use alyt_aws::lambda::{HostedConfig, hosted_state};

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    alyt_aws::lambda::init_logs();
    let config = HostedConfig::from_env()?;
    // Hosted events settings (the default): polling four times a second, 14 min 45 s.
    let mut state = hosted_state(&config).await?;
    // This is the stream's own host, whatever ALYT_STREAM_URL says.
    state.events.stream_elsewhere = None;
    // The stream function only reads the table (its role allows nothing
    // else): its rate limit counts in this instance alone, and the usage it
    // meters is never flushed (keyed stream connections are not counted).
    state.limiter = std::sync::Arc::new(alyt_api::conventions::ratelimit::RateLimiter::new(
        config.rate_limit.clone(),
        state.clock.clone(),
    ));
    lambda_http::run_with_streaming_response(alyt_stream::app(state)).await
}
