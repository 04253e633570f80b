//! The hosted bot check: Cloudflare Turnstile's siteverify. Fails closed: an
//! unreachable or erroring checker counts as "not a human", and so does a
//! secret that cannot be read.

use std::net::IpAddr;
use std::time::Duration;

use alyt_app::ports::BotCheck;
use async_trait::async_trait;
use serde::Deserialize;

const SITEVERIFY: &str = "https://challenges.cloudflare.com/turnstile/v0/siteverify";

pub struct Turnstile {
    secret: TurnstileSecret,
    endpoint: String,
    http: reqwest::Client,
}

/// Where the Turnstile secret comes from.
pub enum TurnstileSecret {
    /// Given as it is (the emulated region's stand-in, tests).
    Fixed(String),
    /// Read at run time from Secrets Manager, cached (hosted).
    Stored(alyt_aws::secrets::CachedSecret),
}

impl TurnstileSecret {
    async fn value(&self) -> Option<String> {
        match self {
            TurnstileSecret::Fixed(secret) => Some(secret.clone()),
            TurnstileSecret::Stored(stored) => match stored.current().await {
                Ok(version) => String::from_utf8(version.value).ok(),
                Err(e) => {
                    tracing::warn!(error = %e, "cannot read the Turnstile secret; refusing");
                    None
                }
            },
        }
    }
}

#[derive(Deserialize)]
struct Verdict {
    success: bool,
}

impl Turnstile {
    pub fn new(secret: TurnstileSecret) -> Self {
        Self::with_endpoint(secret, SITEVERIFY.into())
    }

    /// Against a stand-in of the siteverify endpoint (tests, the emulated
    /// region: `ALYT_TURNSTILE_VERIFY_URL`).
    pub fn with_endpoint(secret: TurnstileSecret, endpoint: String) -> Self {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(5))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("an HTTP client with static settings builds");
        Self {
            secret,
            endpoint,
            http,
        }
    }
}

#[async_trait]
impl BotCheck for Turnstile {
    async fn verify(&self, token: &str, remote_ip: Option<IpAddr>) -> bool {
        if token.is_empty() || token.len() > 2048 {
            return false;
        }
        let Some(secret) = self.secret.value().await else {
            return false;
        };
        let ip = remote_ip.map(|ip| ip.to_string());
        let mut form = vec![("secret", secret.as_str()), ("response", token)];
        if let Some(ip) = ip.as_deref() {
            form.push(("remoteip", ip));
        }
        let verdict = async {
            self.http
                .post(&self.endpoint)
                .form(&form)
                .send()
                .await?
                .error_for_status()?
                .json::<Verdict>()
                .await
        }
        .await;
        match verdict {
            Ok(v) => v.success,
            Err(e) => {
                tracing::warn!(error = %e, "turnstile siteverify failed; refusing");
                false
            }
        }
    }
}
