//! Lambda entry of the event streams: `GET /v1/developers/events/stream`
//! and a home's `GET /v1/properties/{propertyId}/events/stream`, served with
//! Lambda response streaming on a function URL. The routes, their
//! authorization and the stream itself are the ones the local platform
//! serves ([`alyt_api::groups::developers::stream`],
//! [`alyt_api::groups::homes::live`], [`alyt_events::stream`]); here connections end a little before Lambda's
//! 15-minute limit and clients resume with `Last-Event-ID`.

use alyt_lambda_http::{DevicePlane, HttpConfig, RateCounts, hosted_state};

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    alyt_aws::lambda::init_logs();
    let mut config = HttpConfig::from_env()?;
    // The stream function writes nothing but its connections' slot leases
    // (its role allows nothing else): its rate limit counts in this instance
    // alone, and the usage it meters is never flushed (keyed stream
    // connections are not counted).
    config.rate_counts = RateCounts::ThisInstanceOnly;
    // Hosted events settings (the default): polling four times a second,
    // 14 min 45 s. This is the stream's own host ([`hosted_state`] leaves
    // the stream where it is; only the group functions point elsewhere).
    let aws = alyt_aws::sdk_config().await;
    let state = hosted_state(&config, &aws, DevicePlane::none()).await?;
    lambda_http::run_with_streaming_response(alyt_stream::app(state)).await
}
