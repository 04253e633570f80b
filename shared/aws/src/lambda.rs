//! What every Lambda shares: JSON logs and settings from the environment
//! (the table, the IoT endpoints, the mail sender). Each part needs only the
//! features of the clients it builds, so a worker links only the AWS SDK
//! crates it calls. The group Lambdas' wiring (hosted state, router,
//! `lambda_http::run`) is alyt-lambda-http.

#[cfg(any(feature = "iot-certs", feature = "iot-publish"))]
use aws_config::SdkConfig;

/// The IoT policy attached to every device certificate (the stack's
/// `DevicePolicy`).
pub const IOT_DEVICE_POLICY_ENV: &str = "ALYT_IOT_DEVICE_POLICY";
/// The account's IoT data endpoint, a host name such as
/// `abc123-ats.iot.eu-west-1.amazonaws.com` (`aws iot describe-endpoint
/// --endpoint-type iot:Data-ATS`): devices connect to it, and commands are
/// published through it.
pub const IOT_DATA_ENDPOINT_ENV: &str = "ALYT_IOT_DATA_ENDPOINT";
/// Overrides the URL of IoT's control-plane API (certificates, things), like
/// `ALYT_DYNAMODB_ENDPOINT`: for tests against moto.
pub const IOT_ENDPOINT_ENV: &str = "ALYT_IOT_ENDPOINT";
/// Overrides the URL Publish calls go to (default `https://` + the data
/// endpoint): for tests against moto.
pub const IOT_DATA_PLANE_URL_ENV: &str = "ALYT_IOT_DATA_PLANE_URL";

/// What is left of an invocation whose deadline is `deadline_ms` (the
/// runtime's `Context::deadline`, milliseconds since the epoch); zero once
/// it has passed.
pub fn time_left(deadline_ms: u64) -> std::time::Duration {
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    std::time::Duration::from_millis(deadline_ms.saturating_sub(now_ms))
}

fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// Where commands are published: enough for a function that only sends
/// (the sweeps function).
#[derive(Debug, Clone)]
pub struct IotDataConfig {
    /// `ALYT_IOT_DATA_ENDPOINT`: the host name devices connect to.
    pub data_endpoint: String,
    /// `ALYT_IOT_DATA_PLANE_URL`: the data-plane API URL when it is not
    /// `https://{data_endpoint}`.
    pub data_plane_url: Option<String>,
}

impl IotDataConfig {
    /// `None` when `ALYT_IOT_DATA_ENDPOINT` is not set.
    pub fn from_env() -> Option<Self> {
        let endpoint = env_var(IOT_DATA_ENDPOINT_ENV)?;
        // Accept a pasted URL too; devices are shown the bare host.
        let host = endpoint
            .trim_start_matches("https://")
            .trim_end_matches('/')
            .to_owned();
        Some(Self {
            data_endpoint: host,
            data_plane_url: env_var(IOT_DATA_PLANE_URL_ENV),
        })
    }

    /// The URL the data-plane client talks to.
    pub fn url(&self) -> String {
        self.data_plane_url
            .clone()
            .unwrap_or_else(|| format!("https://{}", self.data_endpoint))
    }

    #[cfg(feature = "iot-publish")]
    pub fn publisher(&self, aws: &SdkConfig) -> crate::IotDataPublisher {
        let config = aws_sdk_iotdataplane::config::Builder::from(aws)
            .endpoint_url(self.url())
            .build();
        crate::IotDataPublisher::new(aws_sdk_iotdataplane::Client::from_conf(config))
    }
}

/// Device certificates and command publishing on IoT Core.
#[derive(Debug, Clone)]
pub struct IotConfig {
    /// `ALYT_IOT_DEVICE_POLICY`
    pub device_policy: String,
    /// `ALYT_IOT_ENDPOINT`: the control-plane API URL, when not AWS's.
    pub api_endpoint: Option<String>,
    pub data: IotDataConfig,
}

impl IotConfig {
    /// `None` when neither `ALYT_IOT_DEVICE_POLICY` nor `ALYT_IOT_DATA_ENDPOINT`
    /// is set; an error when only one is (certificates without a broker to
    /// name, or a broker without certificates, is a broken deployment).
    pub fn from_env() -> Result<Option<Self>, String> {
        match (env_var(IOT_DEVICE_POLICY_ENV), IotDataConfig::from_env()) {
            (Some(device_policy), Some(data)) => Ok(Some(Self {
                device_policy,
                api_endpoint: env_var(IOT_ENDPOINT_ENV),
                data,
            })),
            (None, None) => Ok(None),
            (Some(_), None) => Err(format!(
                "{IOT_DEVICE_POLICY_ENV} is set but {IOT_DATA_ENDPOINT_ENV} is not"
            )),
            (None, Some(_)) => Err(format!(
                "{IOT_DATA_ENDPOINT_ENV} is set but {IOT_DEVICE_POLICY_ENV} is not"
            )),
        }
    }

    #[cfg(feature = "iot-certs")]
    pub fn credentials(&self, aws: &SdkConfig) -> crate::IotCredentials {
        let mut config = aws_sdk_iot::config::Builder::from(aws);
        if let Some(url) = &self.api_endpoint {
            config = config.endpoint_url(url);
        }
        crate::IotCredentials::new(
            aws_sdk_iot::Client::from_conf(config.build()),
            self.device_policy.clone(),
            Some(self.data.data_endpoint.clone()),
        )
    }
}

/// The mailer of a function that only sends (the sweeps' reset mails, the
/// webhooks worker's notices): SES from `ALYT_MAIL_FROM`, or none when it
/// is not set; over the SDK configuration the function loaded once.
#[cfg(feature = "ses")]
pub fn mailer_from_config(aws: &aws_config::SdkConfig) -> std::sync::Arc<dyn alyt_mail::Mailer> {
    match env_var("ALYT_MAIL_FROM") {
        Some(from) => std::sync::Arc::new(crate::mail::SesMailer::new(
            aws_sdk_sesv2::Client::new(aws),
            from,
        )),
        None => std::sync::Arc::new(alyt_mail::NoMailer),
    }
}

/// Keeps `meter`'s counts flowing to the table: a flush every
/// [`alyt_store::meter::FLUSH_EVERY`] while the instance runs (a frozen
/// instance flushes when it next thaws) and a last one when Lambda stops the
/// instance (SIGTERM, which Lambda sends only to a runtime with an extension:
/// the runtime's no-op one is registered here). Call before the runtime's
/// `run`. Outside Lambda (no `AWS_LAMBDA_RUNTIME_API`) only the ticker runs.
#[cfg(feature = "metering")]
pub async fn keep_flushing(meter: alyt_store::meter::UsageMeter) {
    let ticking = meter.clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(alyt_store::meter::FLUSH_EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            ticking.flush().await;
        }
    });
    if env_var("AWS_LAMBDA_RUNTIME_API").is_some() {
        lambda_runtime::spawn_graceful_shutdown_handler(move || async move {
            let flushed = meter.flush().await;
            tracing::info!(?flushed, "usage flushed at shutdown");
        })
        .await;
    }
}

/// Logs of every Lambda: JSON for CloudWatch, filtered by `RUST_LOG`,
/// without a time (Lambda stamps each line itself).
pub fn init_logs() {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let (filter, unreadable) = log_filter(env_var("RUST_LOG").as_deref());
    tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .json()
                .with_current_span(true)
                .without_time(),
        )
        .with(filter)
        .init();
    if let Some(given) = unreadable {
        tracing::warn!(%given, "RUST_LOG is not a list of target=level directives; logging at info");
    }
}

/// The filter of `RUST_LOG` (`info`, `alyt_api=debug,info`; default
/// info): targets and levels, which is what the template's `LogLevel`
/// documents. tracing-subscriber's `Targets` reads them without the regex
/// engine `EnvFilter` links (span and field filters), about a megabyte of
/// every bootstrap. An unreadable value is returned to be logged.
fn log_filter(given: Option<&str>) -> (tracing_subscriber::filter::Targets, Option<String>) {
    use tracing_subscriber::filter::{LevelFilter, Targets};
    let info = || Targets::new().with_default(LevelFilter::INFO);
    match given.map(str::trim).filter(|g| !g.is_empty()) {
        None => (info(), None),
        Some(given) => match given.parse::<Targets>() {
            Ok(targets) => (targets, None),
            Err(_) => (info(), Some(given.to_owned())),
        },
    }
}

/// One CloudWatch embedded-metric log line: printed on its own line by a
/// function, it becomes metric `Alyt/{name}` with the given dimensions,
/// with no metrics API call.
pub fn metric_line(
    name: &str,
    unit: &str,
    dimensions: &[(&str, &str)],
    value: i64,
    now_ms: u64,
) -> String {
    let mut line = serde_json::json!({
        "_aws": {
            "Timestamp": now_ms,
            "CloudWatchMetrics": [{
                "Namespace": "Alyt",
                "Dimensions": [dimensions.iter().map(|(key, _)| *key).collect::<Vec<_>>()],
                "Metrics": [{ "Name": name, "Unit": unit }],
            }],
        },
    });
    for (key, dimension) in dimensions {
        line[*key] = serde_json::json!(dimension);
    }
    line[name] = serde_json::json!(value);
    line.to_string()
}

/// Milliseconds since the Unix epoch (an embedded metric's timestamp).
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The DynamoDB table of the stack (`ALYT_TABLE`), for functions that build
/// their store themselves.
pub fn table_from_env() -> Result<String, &'static str> {
    std::env::var("ALYT_TABLE").map_err(|_| "ALYT_TABLE is not set")
}

#[cfg(test)]
mod tests {
    use super::log_filter;

    /// The template's documented `LogLevel` forms filter by target and
    /// level; anything else logs at info and is reported.
    #[test]
    fn rust_log_is_read_as_targets_and_levels() {
        use tracing::Level;
        let (filter, unreadable) = log_filter(Some("alyt_api=debug,warn"));
        assert!(unreadable.is_none());
        assert!(filter.would_enable("alyt_api::groups", &Level::DEBUG));
        assert!(!filter.would_enable("hyper", &Level::INFO));
        assert!(filter.would_enable("hyper", &Level::WARN));

        let (filter, unreadable) = log_filter(None);
        assert!(unreadable.is_none());
        assert!(filter.would_enable("alyt_api", &Level::INFO));
        assert!(!filter.would_enable("alyt_api", &Level::DEBUG));

        let (filter, unreadable) = log_filter(Some("alyt_api=loud"));
        assert_eq!(unreadable.as_deref(), Some("alyt_api=loud"));
        assert!(filter.would_enable("alyt_api", &Level::INFO));
    }
}
