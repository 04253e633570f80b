//! The group Lambdas' wiring: the hosted application (alyt-hosted) in the
//! HTTP state, the caller's address from API Gateway's request context, and
//! `lambda_http::run`. A function's main.rs names its group and calls
//! [`run`]; its Cargo.toml turns on `devices` when its handlers reach
//! devices ([`reaches_devices`]).
//!
//! This crate, not alyt-aws or alyt-hosted, knows alyt-api: the adapters
//! stay below the HTTP layer, and a worker that serves no HTTP links
//! neither.

pub mod token_keys;

use std::net::IpAddr;
use std::sync::Arc;

use alyt_api::conventions::ratelimit::{RateLimitPolicy, RateLimiter, SYNC_INTERVAL};
use alyt_api::ports::{BotCheck, Mailer};
use alyt_api::{AppState, ClientAddr, Group, OneGroup, Settings, TokenKey};
use alyt_aws::SdkConfig;
use alyt_aws::lambda::{IOT_DATA_ENDPOINT_ENV, IOT_DEVICE_POLICY_ENV, init_logs};
use alyt_domain::Clock;
pub use alyt_hosted::{DevicePlane, HostedConfig, NoDeviceCredentials, env_var, turnstile};
use lambda_http::request::RequestContext;

/// Whether `group`'s handlers reach devices: the homes group registers
/// devices and publishes commands, and the security group publishes a hub's
/// mode and an alarm's output commands. Their functions link the device
/// plane (feature `devices`) and need the IoT configuration; the others
/// (developers' virtual devices use the simulator's own passwords) do not.
pub const fn reaches_devices(group: Group) -> bool {
    matches!(group, Group::Homes | Group::Security)
}

/// Settings of a function that serves HTTP, from its environment (set by
/// the SAM template): the application's, and the HTTP layer's own.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    pub hosted: HostedConfig,
    /// `ALYT_RATE_LIMIT_QUOTA` / `ALYT_RATE_LIMIT_WINDOW_SECONDS`: the
    /// request-rate policy, counted across instances through the table.
    pub rate_limit: RateLimitPolicy,
    /// `ALYT_STREAM_URL`: the event stream's function URL. A group function
    /// behind API Gateway cannot stream, so its stream operation answers 421
    /// naming it.
    pub stream_url: Option<String>,
    /// Whether this function reads the platform's token key (every one
    /// that signs or verifies tokens) or uses a key of its own
    /// ([`TokenKey::ThisProcessOnly`]) so its role need not read
    /// `CONFIG#jwt`. Set by the function, not the environment.
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

impl HttpConfig {
    pub fn from_env() -> Result<Self, lambda_http::Error> {
        Ok(Self {
            hosted: HostedConfig::from_env()?,
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
        if let (Some(group), None) = (reaching, &self.hosted.iot) {
            let group = format!("{group:?}").to_lowercase();
            return Err(format!(
                "the {group} group reaches devices: set {IOT_DEVICE_POLICY_ENV} and {IOT_DATA_ENDPOINT_ENV}"
            )
            .into());
        }
        Ok(())
    }
}

/// The hosted application ([`alyt_hosted::hosted_app`]) in the HTTP state,
/// with `devices` as the device plane (the caller picks it, so a function
/// that reaches no devices never refers to IoT Core's clients).
pub async fn hosted_state(
    config: &HttpConfig,
    aws: &SdkConfig,
    devices: DevicePlane,
) -> Result<AppState, lambda_http::Error> {
    let app = alyt_hosted::hosted_app(&config.hosted, aws, devices)?;
    let (store, clock) = (app.store.clone(), app.clock.clone());
    // The template names the key secret; without it (tools, tests) the
    // key item in the table.
    let token_key = match (&config.token_key, &config.hosted.token_key_secret_id) {
        (TokenKey::Stored, Some(id)) => {
            TokenKey::Source(Arc::new(token_keys::SecretsManagerSigningKeys::new(
                alyt_aws::secrets::Secrets::from_config(aws),
                id.clone(),
            )))
        }
        (chosen, _) => chosen.clone(),
    };
    let mut state = AppState::over(
        app,
        Settings {
            public_url: config.hosted.public_url.clone(),
            token_key,
            ..Default::default()
        },
    )
    .await?;
    let limiter = RateLimiter::new(config.rate_limit.clone(), clock);
    state.limiter = Arc::new(match config.rate_counts {
        // Every instance counts locally and shares its counts through the
        // table (see alyt_api::conventions::ratelimit for the tolerance and
        // the cost).
        RateCounts::SharedThroughTable => limiter.shared_through(store, SYNC_INTERVAL),
        RateCounts::ThisInstanceOnly => limiter,
    });
    Ok(state)
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
    let app = alyt_hosted::app_with(
        store,
        clock,
        mailer,
        bot_check,
        DevicePlane::none(),
        public_url,
    )?;
    AppState::over(
        app,
        Settings {
            public_url: public_url.to_owned(),
            ..Default::default()
        },
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
    // A request the caller gave no id is known by API Gateway's: the
    // access log line, the answer's `x-request-id` and every log line of
    // the function then carry the same id (infra/README.md).
    if !request
        .headers()
        .contains_key(alyt_api::conventions::request_id::HEADER)
        && let Some(id) = gateway_request_id(&request)
        && let Ok(value) = axum::http::HeaderValue::from_str(&id)
    {
        request
            .headers_mut()
            .insert(alyt_api::conventions::request_id::HEADER, value);
    }
    next.run(request).await
}

fn gateway_request_id(request: &axum::extract::Request) -> Option<String> {
    match request.extensions().get::<RequestContext>()? {
        RequestContext::ApiGatewayV2(context) => context.request_id.clone(),
        #[allow(unreachable_patterns)]
        _ => None,
    }
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
    config: &HttpConfig,
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
fn plane_for<G: OneGroup>(config: &HttpConfig, aws: &SdkConfig) -> DevicePlane {
    #[cfg(not(feature = "devices"))]
    const {
        assert!(
            !reaches_devices(G::GROUP),
            "this group reaches devices: its function needs alyt-lambda-http's `devices` feature"
        );
    }
    #[cfg(feature = "devices")]
    if const { reaches_devices(G::GROUP) } {
        return DevicePlane::from_config(&config.hosted, aws);
    }
    #[cfg(not(feature = "devices"))]
    let _ = aws;
    if config.hosted.iot.is_some() {
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
    let config = HttpConfig::from_env()?;
    config.check_for(&[G::GROUP])?;
    let aws = alyt_aws::sdk_config().await;
    let devices = plane_for::<G>(&config, &aws);
    #[allow(unused_mut)]
    let mut state = group_state(&config, &aws, devices).await?;
    // A new EventBridge destination's test event, with the function's role.
    #[cfg(feature = "eventbridge")]
    {
        state.event_bus = std::sync::Arc::new(alyt_aws::eventbridge::EventBridgeBus::with_config(
            aws.clone(),
        ));
    }
    alyt_aws::lambda::keep_flushing(state.meter.clone()).await;
    lambda_http::run(with_client_addr(alyt_api::app_with(state, G::routes()))).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use alyt_aws::lambda::{IotConfig, IotDataConfig};
    use alyt_domain::ids::{DeviceId, PropertyId, TenantId};

    fn config(iot: Option<IotConfig>) -> HttpConfig {
        HttpConfig {
            hosted: HostedConfig {
                table: "t".into(),
                public_url: String::new(),
                mail_from: None,
                turnstile_secret_id: None,
                turnstile_secret: None,
                token_key_secret_id: None,
                turnstile_verify_url: None,
                iot,
            },
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

    async fn request_id_seen(headers: &[(&str, &str)], gateway_id: Option<&str>) -> String {
        use lambda_http::aws_lambda_events::apigw::ApiGatewayV2httpRequestContext;
        use tower::ServiceExt;
        let app = with_client_addr(axum::Router::new().route(
            "/",
            axum::routing::get(|headers: axum::http::HeaderMap| async move {
                headers[alyt_api::conventions::request_id::HEADER]
                    .to_str()
                    .unwrap()
                    .to_owned()
            }),
        ));
        let mut request = axum::http::Request::get("/");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let mut request = request.body(axum::body::Body::empty()).unwrap();
        let mut context = ApiGatewayV2httpRequestContext::default();
        context.request_id = gateway_id.map(str::to_owned);
        request
            .extensions_mut()
            .insert(RequestContext::ApiGatewayV2(context));
        let response = app.oneshot(request).await.unwrap();
        let body = axum::body::to_bytes(response.into_body(), 1024)
            .await
            .unwrap();
        String::from_utf8(body.to_vec()).unwrap()
    }

    /// The access log's request id and the app's are one (infra/README.md),
    /// unless the caller chose its own.
    #[tokio::test]
    async fn a_request_without_an_id_is_known_by_api_gateways() {
        assert_eq!(
            request_id_seen(&[], Some("JKJaXmPLvHcESHA=")).await,
            "JKJaXmPLvHcESHA="
        );
        assert_eq!(
            request_id_seen(
                &[("x-request-id", "caller-chosen-1")],
                Some("JKJaXmPLvHcESHA=")
            )
            .await,
            "caller-chosen-1"
        );
    }
}
