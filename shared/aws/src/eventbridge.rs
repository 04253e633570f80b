//! Deliveries to developers' EventBridge buses: one `PutEvents` entry per
//! delivery ([`alyt_events::bus`]), with the function's role hosted (the
//! developer's bus policy lets our account put events: docs/EVENTBRIDGE.md)
//! and locally against a configured endpoint URL (an EventBridge-compatible
//! server, e.g. moto's). One client per region, made when first needed.

use std::collections::HashMap;
use std::sync::Mutex;

use alyt_events::bus::{ACCEPTED, BusEntry, EventBus};
use alyt_events::outbound::SendResult;
use alyt_store::repo::webhooks::EventBridgeTarget;
use async_trait::async_trait;
use aws_config::SdkConfig;
use aws_sdk_eventbridge::Client;
use aws_sdk_eventbridge::config::Region;
use aws_sdk_eventbridge::error::{DisplayErrorContext, ProvideErrorMetadata};
use aws_sdk_eventbridge::primitives::DateTime;
use aws_sdk_eventbridge::types::PutEventsRequestEntry;

/// The environment variable that points EventBridge calls at another
/// endpoint (the local platform's, and tests' moto).
pub const ENDPOINT_URL_ENV: &str = "ALYT_EVENTBRIDGE_ENDPOINT_URL";

/// How long a `PutEvents` call may take before it counts as failed.
const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

pub struct EventBridgeBus {
    config: SdkConfig,
    endpoint_url: Option<String>,
    clients: Mutex<HashMap<String, Client>>,
}

impl EventBridgeBus {
    /// Over `config` (credentials: the function's role hosted), calling
    /// `endpoint_url` instead of the regional endpoint when given.
    pub fn new(config: SdkConfig, endpoint_url: Option<String>) -> Self {
        Self {
            config,
            endpoint_url,
            clients: Mutex::default(),
        }
    }

    /// The local platform's: calls `endpoint_url` (an EventBridge-compatible
    /// server) with the credentials of `AWS_ACCESS_KEY_ID` and
    /// `AWS_SECRET_ACCESS_KEY` when set (else placeholders, which emulators
    /// accept), never looking further (no instance metadata off AWS).
    pub fn local(endpoint_url: String) -> Self {
        let var = |name: &str| std::env::var(name).unwrap_or_else(|_| "local".into());
        let credentials = aws_sdk_eventbridge::config::Credentials::new(
            var("AWS_ACCESS_KEY_ID"),
            var("AWS_SECRET_ACCESS_KEY"),
            None,
            None,
            "alyt-local",
        );
        let config = SdkConfig::builder()
            .behavior_version(aws_config::BehaviorVersion::latest())
            .http_client(crate::https_client())
            .region(Region::new("us-east-1"))
            .credentials_provider(aws_sdk_eventbridge::config::SharedCredentialsProvider::new(
                credentials,
            ))
            .build();
        Self::new(config, Some(endpoint_url))
    }

    /// The default configuration, and [`ENDPOINT_URL_ENV`] when set.
    pub async fn from_env() -> Self {
        Self::with_config(crate::sdk_config().await)
    }

    /// Over a configuration the function already loaded, and
    /// [`ENDPOINT_URL_ENV`] when set.
    pub fn with_config(config: SdkConfig) -> Self {
        let endpoint_url = std::env::var(ENDPOINT_URL_ENV)
            .ok()
            .filter(|url| !url.trim().is_empty());
        Self::new(config, endpoint_url)
    }

    fn client(&self, region: &str) -> Client {
        let mut clients = self.clients.lock().unwrap_or_else(|e| e.into_inner());
        clients
            .entry(region.to_owned())
            .or_insert_with(|| {
                let mut config = aws_sdk_eventbridge::config::Builder::from(&self.config)
                    .region(Region::new(region.to_owned()));
                if let Some(url) = &self.endpoint_url {
                    config = config.endpoint_url(url);
                }
                Client::from_conf(config.build())
            })
            .clone()
    }
}

#[async_trait]
impl EventBus for EventBridgeBus {
    async fn put(&self, target: &EventBridgeTarget, entry: BusEntry) -> SendResult {
        let time = DateTime::from_nanos(entry.time.unix_timestamp_nanos())
            .unwrap_or_else(|_| DateTime::from_secs(entry.time.unix_timestamp()));
        let request_entry = PutEventsRequestEntry::builder()
            .event_bus_name(&target.event_bus_arn)
            .source(target.source())
            .detail_type(entry.detail_type)
            .detail(entry.detail)
            .time(time)
            .build();
        let call = self
            .client(&target.region)
            .put_events()
            .entries(request_entry)
            .send();
        let answer = match tokio::time::timeout(TIMEOUT, call).await {
            Err(_) => return SendResult::Failed("EventBridge did not answer within 10 s".into()),
            Ok(Err(e)) => return SendResult::Failed(short(reason(&e))),
            Ok(Ok(answer)) => answer,
        };
        if answer.failed_entry_count() == 0 {
            return SendResult::Answered(ACCEPTED);
        }
        let why = answer
            .entries()
            .iter()
            .find_map(|e| {
                e.error_code()
                    .map(|code| format!("{code}: {}", e.error_message().unwrap_or_default()))
            })
            .unwrap_or_else(|| "the bus refused the entry".into());
        SendResult::Failed(short(why))
    }
}

/// What the service said (`ResourceNotFoundException: Event bus x does not
/// exist.`), or why nothing was said (a connection, a timeout).
fn reason<E, R>(e: &aws_sdk_eventbridge::error::SdkError<E, R>) -> String
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
    R: std::fmt::Debug,
{
    match (e.code(), e.message()) {
        (Some(code), Some(message)) => format!("{code}: {message}"),
        (Some(code), None) => code.to_owned(),
        _ => format!("{}", DisplayErrorContext(e)),
    }
}

/// A reason as the delivery log keeps it: at most 300 characters.
fn short(mut reason: String) -> String {
    if let Some((cut, _)) = reason.char_indices().nth(300) {
        reason.truncate(cut);
        reason.push('…');
    }
    reason
}
