//! The group Lambdas' wiring (feature `http`): the hosted state (DynamoDB,
//! SES, Turnstile, IoT Core), the caller's address from API Gateway's request
//! context, and `lambda_http::run`. A function's main.rs names its groups and
//! calls [`run`].

use std::net::IpAddr;
use std::sync::Arc;

use alyt_api::conventions::ratelimit::{RateLimitPolicy, RateLimiter, SYNC_INTERVAL};
use alyt_api::ports::{BotCheck, DeviceCredentialIssuer, Mailer, NoBotCheck, NoMailer};
use alyt_api::{Adapters, AppState, ClientAddr, Group, OneGroup, Settings, TokenKey};
use alyt_device::{DevicePublisher, NoPublisher};
use alyt_domain::{Clock, SystemClock};
use aws_config::SdkConfig;
use lambda_http::request::RequestContext;

use super::{IOT_DATA_ENDPOINT_ENV, IOT_DEVICE_POLICY_ENV, IotConfig, env_var, init_logs};
use crate::DynamoStore;
use crate::iot::NoDeviceCredentials;
use crate::mail::SesMailer;
use crate::turnstile::Turnstile;

/// What reaches devices: where commands are published and where device
/// credentials come from.
#[derive(Clone)]
pub struct DevicePlane {
    pub publisher: Arc<dyn DevicePublisher>,
    pub credentials: Arc<dyn DeviceCredentialIssuer>,
}

impl DevicePlane {
    /// For hosted code without IoT configuration: publishing fails (rows stay
    /// pending for the sweeps function) and device registration is refused.
    /// Never passwords: IoT Core could not check them, so a device would get
    /// credentials that can never connect.
    pub fn none() -> Self {
        Self {
            publisher: Arc::new(NoPublisher),
            credentials: Arc::new(NoDeviceCredentials),
        }
    }

    /// Certificates issued by IoT Core and commands through its data plane.
    pub fn iot(config: &IotConfig, aws: &SdkConfig) -> Self {
        Self {
            publisher: Arc::new(config.data.publisher(aws)),
            credentials: Arc::new(config.credentials(aws)),
        }
    }
}

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
    /// `ALYT_TURNSTILE_VERIFY_URL`: where the Turnstile check is asked, when
    /// not Cloudflare's siteverify (the emulated region's stand-in, like
    /// `AWS_ENDPOINT_URL` for the AWS clients). Never set by the template.
    pub turnstile_verify_url: Option<String>,
    /// `ALYT_IOT_*`: the device plane; required by the groups that reach
    /// devices (see [`HostedConfig::check_for`]).
    pub iot: Option<IotConfig>,
    /// `ALYT_RATE_LIMIT_QUOTA` / `ALYT_RATE_LIMIT_WINDOW_SECONDS`: the
    /// request-rate policy, counted across instances through the table.
    pub rate_limit: RateLimitPolicy,
    /// `ALYT_STREAM_URL`: the event stream's function URL. A group function
    /// behind API Gateway cannot stream, so its stream operation answers 421
    /// naming it.
    pub stream_url: Option<String>,
    /// Whether this function reads the platform's token key (every one
    /// that signs or verifies tokens) or, a worker that does neither, uses
    /// a key of its own ([`TokenKey::ThisProcessOnly`]) so its role need
    /// not read `CONFIG#jwt`. Set by the function, not the environment.
    pub token_key: TokenKey,
    /// Where this function's request counts go. Set by the function, not
    /// the environment.
    pub rate_counts: RateCounts,
}

/// Where a hosted function's rate-limit counts go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateCounts {
    /// Counted in the instance and shared through the table (every function
    /// whose role may write the rate-limit items).
    SharedThroughTable,
    /// Counted in this instance alone: a function whose role only reads
    /// (the event stream).
    ThisInstanceOnly,
}

impl HostedConfig {
    pub fn from_env() -> Result<Self, lambda_http::Error> {
        Ok(Self {
            table: env_var("ALYT_TABLE").ok_or("ALYT_TABLE is not set")?,
            public_url: env_var("ALYT_PUBLIC_URL").unwrap_or_default(),
            mail_from: env_var("ALYT_MAIL_FROM"),
            turnstile_secret: env_var("ALYT_TURNSTILE_SECRET"),
            turnstile_verify_url: env_var("ALYT_TURNSTILE_VERIFY_URL"),
            iot: IotConfig::from_env()?,
            rate_limit: RateLimitPolicy::from_env()?,
            stream_url: env_var("ALYT_STREAM_URL"),
            token_key: TokenKey::Stored,
            rate_counts: RateCounts::SharedThroughTable,
        })
    }

    /// Refuses to start a function serving `groups` without what they need:
    /// the homes group registers devices and publishes commands, and the
    /// security group publishes a hub's mode and an alarm's output commands,
    /// so without the IoT configuration either fails at cold start, where a
    /// deployment mistake shows at once, rather than on the first
    /// registration or arming.
    pub fn check_for(&self, groups: &[Group]) -> Result<(), lambda_http::Error> {
        let reaching = groups.iter().find_map(|g| match g {
            Group::Homes => Some("homes"),
            Group::Security => Some("security"),
            _ => None,
        });
        if let (Some(group), None) = (reaching, &self.iot) {
            return Err(format!(
                "the {group} group reaches devices: set {IOT_DEVICE_POLICY_ENV} and {IOT_DATA_ENDPOINT_ENV}"
            )
            .into());
        }
        Ok(())
    }
}

/// The hosted adapters behind the same [`AppState`] the local platform builds.
pub async fn hosted_state(config: &HostedConfig) -> Result<AppState, lambda_http::Error> {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let aws = crate::sdk_config().await;
    let store = DynamoStore::from_config(&aws, config.table.clone(), clock.clone());
    let mailer: Arc<dyn Mailer> = match &config.mail_from {
        Some(from) => Arc::new(SesMailer::new(
            aws_sdk_sesv2::Client::new(&aws),
            from.clone(),
        )),
        None => Arc::new(NoMailer),
    };
    let bot_check: Arc<dyn BotCheck> =
        match (&config.turnstile_secret, &config.turnstile_verify_url) {
            (Some(secret), None) => Arc::new(Turnstile::new(secret.clone())),
            (Some(secret), Some(url)) => {
                Arc::new(Turnstile::with_endpoint(secret.clone(), url.clone()))
            }
            (None, _) => Arc::new(NoBotCheck),
        };
    let devices = match &config.iot {
        Some(iot) => DevicePlane::iot(iot, &aws),
        None => DevicePlane::none(),
    };
    let store: Arc<dyn alyt_store::Store> = Arc::new(store);
    let mut state = state_with_device_plane(
        store.clone(),
        clock.clone(),
        mailer,
        bot_check,
        devices,
        Settings {
            public_url: config.public_url.clone(),
            token_key: config.token_key,
            ..Default::default()
        },
    )
    .await?;
    state.events.stream = state.events.stream.with_env();
    state.events.outbound = state.events.outbound.with_env();
    let limiter = RateLimiter::new(config.rate_limit.clone(), clock);
    state.limiter = Arc::new(match config.rate_counts {
        // Every instance counts locally and shares its counts through the
        // table (see alyt_api::conventions::ratelimit for the tolerance and
        // the cost).
        RateCounts::SharedThroughTable => limiter.shared_through(store, SYNC_INTERVAL),
        RateCounts::ThisInstanceOnly => limiter,
    });
    // The simulator runner (a long-running task) finds every change in the
    // store; `ALYT_SIMULATOR_SEED` makes new virtual devices' seeds
    // deterministic.
    let simulator = alyt_api::ports::StoreWatchedSimulator {
        platform_seed: env_var("ALYT_SIMULATOR_SEED").and_then(|s| s.parse().ok()),
    };
    Ok(state.with_simulator(Arc::new(simulator)))
}

/// A hosted state without a device plane ([`DevicePlane::none`]): for tools
/// and tests that never reach devices.
pub async fn state_with(
    store: Arc<dyn alyt_store::Store>,
    clock: Arc<dyn Clock>,
    mailer: Arc<dyn Mailer>,
    bot_check: Arc<dyn BotCheck>,
    public_url: &str,
) -> Result<AppState, alyt_store::StoreError> {
    state_with_device_plane(
        store,
        clock,
        mailer,
        bot_check,
        DevicePlane::none(),
        Settings {
            public_url: public_url.to_owned(),
            ..Default::default()
        },
    )
    .await
}

pub async fn state_with_device_plane(
    store: Arc<dyn alyt_store::Store>,
    clock: Arc<dyn Clock>,
    mailer: Arc<dyn Mailer>,
    bot_check: Arc<dyn BotCheck>,
    devices: DevicePlane,
    settings: Settings,
) -> Result<AppState, alyt_store::StoreError> {
    AppState::build(
        Adapters {
            store,
            clock,
            mailer,
            bot_check,
            publisher: devices.publisher,
            credentials: devices.credentials,
        },
        settings,
    )
    .await
}

/// The router of `groups`, with the caller's address taken from API Gateway's
/// request context (never from a client-supplied header).
pub fn router(state: AppState, groups: &[Group]) -> axum::Router {
    with_client_addr(alyt_api::app(state, groups))
}

fn with_client_addr(app: axum::Router) -> axum::Router {
    app.layer(axum::middleware::from_fn(client_addr))
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

/// The state of a function behind API Gateway: [`hosted_state`], with its
/// stream operation pointing to the stream's own host (API Gateway buffers
/// responses, so it cannot stream).
pub async fn group_state(config: &HostedConfig) -> Result<AppState, lambda_http::Error> {
    let mut state = hosted_state(config).await?;
    state.events.stream_elsewhere = config.stream_url.clone();
    Ok(state)
}

/// Serves group `G` (chosen at compile time: the function links only its
/// handlers) until Lambda stops the instance.
pub async fn run<G: OneGroup>() -> Result<(), lambda_http::Error> {
    init_logs();
    let config = HostedConfig::from_env()?;
    config.check_for(&[G::GROUP])?;
    let state = group_state(&config).await?;
    super::keep_flushing(state.meter.clone()).await;
    lambda_http::run(with_client_addr(alyt_api::app_with(state, G::routes()))).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lambda::IotDataConfig;

    fn config(iot: Option<IotConfig>) -> HostedConfig {
        HostedConfig {
            table: "t".into(),
            public_url: String::new(),
            mail_from: None,
            turnstile_secret: None,
            turnstile_verify_url: None,
            iot,
            rate_limit: RateLimitPolicy::default(),
            stream_url: None,
            token_key: TokenKey::Stored,
            rate_counts: RateCounts::SharedThroughTable,
        }
    }

    #[test]
    fn the_homes_and_security_groups_refuse_to_start_without_iot() {
        let bare = config(None);
        let error = bare.check_for(&[Group::Homes]).unwrap_err().to_string();
        assert!(error.contains(IOT_DEVICE_POLICY_ENV), "{error}");
        let error = bare.check_for(&[Group::Security]).unwrap_err().to_string();
        assert!(error.contains("the security group"), "{error}");
        bare.check_for(&[Group::Auth, Group::Developers]).unwrap();

        let iot = IotConfig {
            device_policy: "p".into(),
            api_endpoint: None,
            data: IotDataConfig {
                data_endpoint: "x-ats.iot.eu-west-1.amazonaws.com".into(),
                data_plane_url: None,
            },
        };
        assert_eq!(iot.data.url(), "https://x-ats.iot.eu-west-1.amazonaws.com");
        config(Some(iot.clone()))
            .check_for(&[Group::Homes])
            .unwrap();
        config(Some(iot)).check_for(&[Group::Security]).unwrap();
    }
}
