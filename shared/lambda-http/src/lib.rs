//! The group Lambdas' wiring: the hosted state from alyt-aws's adapters
//! (DynamoDB, SES, Turnstile, and IoT Core where the group reaches devices),
//! the caller's address from API Gateway's request context, and
//! `lambda_http::run`. A function's main.rs names its group and calls
//! [`run`]; its Cargo.toml turns on `devices` when its handlers reach
//! devices ([`reaches_devices`]).
//!
//! This crate, not alyt-aws, knows alyt-api: the adapters stay below the
//! HTTP layer, and a worker that serves no HTTP links neither.

use std::net::IpAddr;
use std::sync::Arc;

use alyt_api::conventions::ratelimit::{RateLimitPolicy, RateLimiter, SYNC_INTERVAL};
use alyt_api::ports::{BotCheck, DeviceCredentialIssuer, Mailer, NoBotCheck, NoMailer};
use alyt_api::{Adapters, AppState, ClientAddr, Group, OneGroup, Settings, TokenKey};
use alyt_aws::lambda::{IOT_DATA_ENDPOINT_ENV, IOT_DEVICE_POLICY_ENV, IotConfig, init_logs};
use alyt_aws::{DynamoStore, SdkConfig};
use alyt_device::credentials::{CredentialError, IssuedCredential};
use alyt_device::{DevicePublisher, NoPublisher};
use alyt_domain::ids::{DeviceId, PropertyId, TenantId};
use alyt_domain::{Clock, SystemClock};
use async_trait::async_trait;
use lambda_http::request::RequestContext;

pub mod turnstile;

use turnstile::Turnstile;

fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// Whether `group`'s handlers reach devices: the homes group registers
/// devices and publishes commands, and the security group publishes a hub's
/// mode and an alarm's output commands. Their functions link the device
/// plane (feature `devices`) and need the IoT configuration; the others
/// (developers' virtual devices use the simulator's own passwords) do not.
pub const fn reaches_devices(group: Group) -> bool {
    matches!(group, Group::Homes | Group::Security)
}

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
    #[cfg(feature = "devices")]
    pub fn iot(config: &IotConfig, aws: &SdkConfig) -> Self {
        Self {
            publisher: Arc::new(config.data.publisher(aws)),
            credentials: Arc::new(config.credentials(aws)),
        }
    }

    /// [`iot`](Self::iot) when the function has the IoT configuration,
    /// [`none`](Self::none) otherwise.
    #[cfg(feature = "devices")]
    pub fn from_config(config: &HostedConfig, aws: &SdkConfig) -> Self {
        match &config.iot {
            Some(iot) => Self::iot(iot, aws),
            None => Self::none(),
        }
    }
}

/// A refusing issuer for hosted functions without the IoT configuration:
/// a password would be useless there (IoT Core cannot check it), so a
/// registration fails visibly instead.
pub struct NoDeviceCredentials;

#[async_trait]
impl DeviceCredentialIssuer for NoDeviceCredentials {
    async fn issue(
        &self,
        _tenant: TenantId,
        _property: PropertyId,
        _device: DeviceId,
    ) -> Result<IssuedCredential, CredentialError> {
        Err(CredentialError(
            "this function has no IoT configuration and issues no device credentials".into(),
        ))
    }

    async fn revoke(
        &self,
        _device: DeviceId,
        _certificate_id: Option<&str>,
    ) -> Result<(), CredentialError> {
        Err(CredentialError(
            "this function has no IoT configuration and cannot revoke device credentials".into(),
        ))
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
    /// a group that reaches devices ([`reaches_devices`]) without the IoT
    /// configuration fails at cold start, where a deployment mistake shows
    /// at once, rather than on the first registration or arming.
    pub fn check_for(&self, groups: &[Group]) -> Result<(), lambda_http::Error> {
        let reaching = groups.iter().copied().find(|g| reaches_devices(*g));
        if let (Some(group), None) = (reaching, &self.iot) {
            let group = format!("{group:?}").to_lowercase();
            return Err(format!(
                "the {group} group reaches devices: set {IOT_DEVICE_POLICY_ENV} and {IOT_DATA_ENDPOINT_ENV}"
            )
            .into());
        }
        Ok(())
    }
}

/// The hosted adapters behind the same [`AppState`] the local platform
/// builds, with `devices` as the device plane (the caller picks it, so a
/// function that reaches no devices never refers to IoT Core's clients).
pub async fn hosted_state(
    config: &HostedConfig,
    aws: &SdkConfig,
    devices: DevicePlane,
) -> Result<AppState, lambda_http::Error> {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let store = DynamoStore::from_config(aws, config.table.clone(), clock.clone());
    let mailer: Arc<dyn Mailer> = match &config.mail_from {
        Some(from) => Arc::new(alyt_aws::mail::SesMailer::from_config(aws, from.clone())),
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
pub async fn group_state(
    config: &HostedConfig,
    aws: &SdkConfig,
    devices: DevicePlane,
) -> Result<AppState, lambda_http::Error> {
    let mut state = hosted_state(config, aws, devices).await?;
    state.events.stream_elsewhere = config.stream_url.clone();
    Ok(state)
}

/// The device plane of group `G`'s function. Decided at compile time: a
/// group that reaches no devices never refers to IoT Core's clients, so its
/// bootstrap links neither even when a build unifies `devices` in.
fn plane_for<G: OneGroup>(config: &HostedConfig, aws: &SdkConfig) -> DevicePlane {
    #[cfg(not(feature = "devices"))]
    const {
        assert!(
            !reaches_devices(G::GROUP),
            "this group reaches devices: its function needs alyt-lambda-http's `devices` feature"
        );
    }
    #[cfg(feature = "devices")]
    if const { reaches_devices(G::GROUP) } {
        return DevicePlane::from_config(config, aws);
    }
    #[cfg(not(feature = "devices"))]
    let _ = aws;
    if config.iot.is_some() {
        tracing::warn!(
            group = ?G::GROUP,
            "ALYT_IOT_* is set, but this group reaches no devices: ignored"
        );
    }
    DevicePlane::none()
}

/// Serves group `G` (chosen at compile time: the function links only its
/// handlers, and IoT Core's clients only if `G` reaches devices) until
/// Lambda stops the instance.
pub async fn run<G: OneGroup>() -> Result<(), lambda_http::Error> {
    init_logs();
    let config = HostedConfig::from_env()?;
    config.check_for(&[G::GROUP])?;
    let aws = alyt_aws::sdk_config().await;
    let devices = plane_for::<G>(&config, &aws);
    let state = group_state(&config, &aws, devices).await?;
    alyt_aws::lambda::keep_flushing(state.meter.clone()).await;
    lambda_http::run(with_client_addr(alyt_api::app_with(state, G::routes()))).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use alyt_aws::lambda::IotDataConfig;

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

    /// Only the groups whose handlers call the device ports get the device
    /// plane; the functions' features follow this list (tests/check-links).
    #[test]
    fn only_homes_and_security_reach_devices() {
        let reaching: Vec<_> = Group::ALL
            .into_iter()
            .filter(|g| reaches_devices(*g))
            .collect();
        assert_eq!(reaching, [Group::Homes, Group::Security]);
    }

    /// A group that reaches no devices refuses device credentials even when
    /// its function is given the IoT configuration.
    #[tokio::test]
    async fn a_group_without_devices_gets_no_device_plane() {
        let iot = IotConfig {
            device_policy: "p".into(),
            api_endpoint: None,
            data: IotDataConfig {
                data_endpoint: "x-ats.iot.eu-west-1.amazonaws.com".into(),
                data_plane_url: None,
            },
        };
        let aws = SdkConfig::builder().build();
        let plane = plane_for::<alyt_api::groups::hosted::Auth>(&config(Some(iot)), &aws);
        let refused = plane
            .credentials
            .issue(TenantId::new(), PropertyId::new(), DeviceId::new())
            .await
            .unwrap_err();
        assert!(refused.0.contains("no IoT configuration"), "{refused}");
    }
}
