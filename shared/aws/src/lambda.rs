//! What every group Lambda shares: configuration from the environment, the
//! hosted state (DynamoDB, SES, Turnstile), the caller's address from API
//! Gateway's request context, JSON logs, and `lambda_http::run`. A function's
//! main.rs names its groups and calls [`run`].

use std::net::IpAddr;
use std::sync::Arc;

use alyt_api::ports::{BotCheck, Mailer, NoBotCheck, NoMailer};
use alyt_api::ratelimit::RateLimitPolicy;
use alyt_api::{Adapters, AppState, ClientAddr, Group, Settings};
use alyt_domain::{Clock, SystemClock};
use lambda_http::request::RequestContext;

use crate::DynamoStore;
use crate::mail::SesMailer;
use crate::turnstile::Turnstile;

/// Settings of a hosted function, from its environment (set by the SAM template).
#[derive(Debug, Clone)]
pub struct HostedConfig {
    /// `ALYT_TABLE`: the DynamoDB table.
    pub table: String,
    /// `ALYT_PUBLIC_URL`: the API's public base with /v1, for links in mail.
    pub public_url: String,
    /// `ALYT_MAIL_FROM`: the SES-verified sender; no mail is sent without it.
    pub mail_from: Option<String>,
    /// `ALYT_TURNSTILE_SECRET`: the Turnstile secret; sign-up is refused without it.
    pub turnstile_secret: Option<String>,
}

impl HostedConfig {
    pub fn from_env() -> Result<Self, lambda_http::Error> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        Ok(Self {
            table: var("ALYT_TABLE").ok_or("ALYT_TABLE is not set")?,
            public_url: var("ALYT_PUBLIC_URL").unwrap_or_default(),
            mail_from: var("ALYT_MAIL_FROM"),
            turnstile_secret: var("ALYT_TURNSTILE_SECRET"),
        })
    }
}

/// The hosted adapters behind the same [`AppState`] the local platform builds.
pub async fn hosted_state(config: &HostedConfig) -> Result<AppState, lambda_http::Error> {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let aws = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
    let store = DynamoStore::from_env(config.table.clone(), clock.clone()).await;
    let mailer: Arc<dyn Mailer> = match &config.mail_from {
        Some(from) => Arc::new(SesMailer::new(
            aws_sdk_sesv2::Client::new(&aws),
            from.clone(),
        )),
        None => Arc::new(NoMailer),
    };
    let bot_check: Arc<dyn BotCheck> = match &config.turnstile_secret {
        Some(secret) => Arc::new(Turnstile::new(secret.clone())),
        None => Arc::new(NoBotCheck),
    };
    Ok(state_with(
        Arc::new(store),
        clock,
        mailer,
        bot_check,
        &config.public_url,
    )
    .await?)
}

pub async fn state_with(
    store: Arc<dyn alyt_store::Store>,
    clock: Arc<dyn Clock>,
    mailer: Arc<dyn Mailer>,
    bot_check: Arc<dyn BotCheck>,
    public_url: &str,
) -> Result<AppState, alyt_store::StoreError> {
    AppState::build(
        Adapters {
            store,
            clock,
            mailer,
            bot_check,
            // Hosted publishing (IoT Core data plane) is not written yet:
            // accepted commands stay pending for the bridge sweep.
            publisher: Arc::new(alyt_device::NoPublisher),
            credentials: std::sync::Arc::new(alyt_api::ports::PasswordCredentials),
        },
        Settings {
            rate_limit: RateLimitPolicy::default(),
            public_url: public_url.to_owned(),
        },
    )
    .await
}

/// The router of `groups`, with the caller's address taken from API Gateway's
/// request context (never from a client-supplied header).
pub fn router(state: AppState, groups: &[Group]) -> axum::Router {
    alyt_api::app(state, groups).layer(axum::middleware::from_fn(client_addr))
}

async fn client_addr(
    mut request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    if let Some(ip) = source_ip(&request) {
        request.extensions_mut().insert(ClientAddr(ip));
    }
    next.run(request).await
}

fn source_ip(request: &axum::extract::Request) -> Option<IpAddr> {
    // lambda_http keeps API Gateway's request context in the extensions.
    match request.extensions().get::<RequestContext>()? {
        RequestContext::ApiGatewayV2(context) => context.http.source_ip.as_deref()?.parse().ok(),
        #[allow(unreachable_patterns)]
        _ => None,
    }
}

/// Entry of a group function: JSON logs, hosted state, serve.
pub async fn run(groups: &[Group]) -> Result<(), lambda_http::Error> {
    // JSON for CloudWatch; Lambda stamps the time itself.
    tracing_subscriber::fmt()
        .json()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_current_span(true)
        .without_time()
        .init();
    let config = HostedConfig::from_env()?;
    let state = hosted_state(&config).await?;
    lambda_http::run(router(state, groups)).await
}
