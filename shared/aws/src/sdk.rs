//! The AWS SDK configuration every adapter starts from.

use aws_config::{BehaviorVersion, SdkConfig};
use aws_smithy_http_client::tls::{Provider, rustls_provider::CryptoMode};
use aws_smithy_runtime_api::client::http::SharedHttpClient;

/// The HTTPS client of every AWS call: rustls on ring, the crypto library
/// the platform already links (the SDKs' default is rustls on aws-lc-rs, a
/// second library in every bootstrap; the workspace turns it off).
pub fn https_client() -> SharedHttpClient {
    aws_smithy_http_client::Builder::new()
        .tls_provider(Provider::Rustls(CryptoMode::Ring))
        .build_https()
}

/// The default AWS configuration (environment, profile, the function's role)
/// on [`https_client`].
pub async fn sdk_config() -> SdkConfig {
    aws_config::defaults(BehaviorVersion::latest())
        .http_client(https_client())
        .load()
        .await
}
