//! The hosted application: alyt-aws's adapters (DynamoDB, SES, Turnstile,
//! and IoT Core where the function reaches devices) assembled into an
//! [`App`] from a function's environment. It knows no HTTP: the group
//! Lambdas wrap this App in alyt-lambda-http, and a worker (the routine
//! runner) runs its use cases as they are.

use std::sync::Arc;

use alyt_app::ports::{BotCheck, DeviceCredentialIssuer, Mailer, NoBotCheck, NoMailer};
use alyt_app::{Adapters, App};
use alyt_aws::lambda::IotConfig;
use alyt_aws::secrets::{CachedSecret, Secrets};
use alyt_aws::{DynamoStore, SdkConfig};
use alyt_device::credentials::{CredentialError, IssuedCredential};
use alyt_device::{DevicePublisher, NoPublisher};
use alyt_domain::ids::{DeviceId, PropertyId, TenantId};
use alyt_domain::{Clock, SystemClock};
use async_trait::async_trait;

pub mod turnstile;

use turnstile::{Turnstile, TurnstileSecret};

/// A failure at cold start, as the Lambda runtimes take it.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

pub fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
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

/// How often a secret read at run time is read again: a rotation is live
/// everywhere within this (docs/OPERATIONS.md, "Rotating secrets").
pub const SECRETS_READ_EVERY: std::time::Duration = std::time::Duration::from_secs(300);

/// The application's settings of a hosted function, from its environment
/// (set by the SAM template).
#[derive(Debug, Clone)]
pub struct HostedConfig {
    /// `ALYT_TABLE`: the DynamoDB table.
    pub table: String,
    /// `ALYT_PUBLIC_URL`: the API's public base with /v1, for links in mail.
    pub public_url: String,
    /// `ALYT_MAIL_FROM`: the SES-verified sender; no mail is sent without it.
    pub mail_from: Option<String>,
    /// `ALYT_TURNSTILE_SECRET_ID`: the Secrets Manager secret holding the
    /// Turnstile secret, read at run time (the template's way).
    pub turnstile_secret_id: Option<String>,
    /// `ALYT_TURNSTILE_SECRET`: the Turnstile secret itself (a stand-in's,
    /// where there is no Secrets Manager). Sign-up is refused without one
    /// or the other.
    pub turnstile_secret: Option<String>,
    /// `ALYT_TOKEN_KEY_SECRET_ID`: the Secrets Manager secret whose current
    /// and previous versions sign and verify tokens (the template's way);
    /// without it, the key item in the table.
    pub token_key_secret_id: Option<String>,
    /// `ALYT_TURNSTILE_VERIFY_URL`: where the Turnstile check is asked, when
    /// not Cloudflare's siteverify (the emulated region's stand-in, like
    /// `AWS_ENDPOINT_URL` for the AWS clients). Never set by the template.
    pub turnstile_verify_url: Option<String>,
    /// `ALYT_IOT_*`: the device plane, for the functions that reach devices.
    pub iot: Option<IotConfig>,
}

impl HostedConfig {
    pub fn from_env() -> Result<Self, BoxError> {
        Ok(Self {
            table: env_var("ALYT_TABLE").ok_or("ALYT_TABLE is not set")?,
            public_url: env_var("ALYT_PUBLIC_URL").unwrap_or_default(),
            mail_from: env_var("ALYT_MAIL_FROM"),
            turnstile_secret_id: env_var("ALYT_TURNSTILE_SECRET_ID"),
            turnstile_secret: env_var("ALYT_TURNSTILE_SECRET"),
            token_key_secret_id: env_var("ALYT_TOKEN_KEY_SECRET_ID"),
            turnstile_verify_url: env_var("ALYT_TURNSTILE_VERIFY_URL"),
            iot: IotConfig::from_env()?,
        })
    }
}

/// The hosted adapters behind the same [`App`] the local platform builds,
/// with `devices` as the device plane (the caller picks it, so a function
/// that reaches no devices never refers to IoT Core's clients).
pub fn hosted_app(
    config: &HostedConfig,
    aws: &SdkConfig,
    devices: DevicePlane,
) -> Result<App, BoxError> {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let store = DynamoStore::from_config(aws, config.table.clone(), clock.clone());
    let mailer: Arc<dyn Mailer> = match &config.mail_from {
        Some(from) => Arc::new(alyt_aws::mail::SesMailer::from_config(aws, from.clone())),
        None => Arc::new(NoMailer),
    };
    let secret = match (&config.turnstile_secret_id, &config.turnstile_secret) {
        (Some(id), _) => Some(TurnstileSecret::Stored(CachedSecret::new(
            Secrets::from_config(aws),
            id.clone(),
            SECRETS_READ_EVERY,
        ))),
        (None, Some(secret)) => Some(TurnstileSecret::Fixed(secret.clone())),
        (None, None) => None,
    };
    let bot_check: Arc<dyn BotCheck> = match (secret, &config.turnstile_verify_url) {
        (Some(secret), None) => Arc::new(Turnstile::new(secret)),
        (Some(secret), Some(url)) => Arc::new(Turnstile::with_endpoint(secret, url.clone())),
        (None, _) => Arc::new(NoBotCheck),
    };
    let mut app = app_with(
        Arc::new(store),
        clock,
        mailer,
        bot_check,
        devices,
        &config.public_url,
    )?;
    app.events.stream = app.events.stream.with_env();
    app.events.outbound = app.events.outbound.with_env();
    // The simulator runner (a long-running task) finds every change in the
    // store; `ALYT_SIMULATOR_SEED` makes new virtual devices' seeds
    // deterministic.
    app.simulator = Arc::new(alyt_app::ports::StoreWatchedSimulator {
        platform_seed: env_var("ALYT_SIMULATOR_SEED").and_then(|s| s.parse().ok()),
    });
    Ok(app)
}

/// An application over the given adapters (tools and tests pick their
/// own).
pub fn app_with(
    store: Arc<dyn alyt_store::Store>,
    clock: Arc<dyn Clock>,
    mailer: Arc<dyn Mailer>,
    bot_check: Arc<dyn BotCheck>,
    devices: DevicePlane,
    public_url: &str,
) -> Result<App, alyt_store::StoreError> {
    App::new(
        Adapters {
            store,
            clock,
            mailer,
            bot_check,
            publisher: devices.publisher,
            credentials: devices.credentials,
        },
        public_url.to_owned(),
    )
}
