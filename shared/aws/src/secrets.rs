//! Secrets read at run time from Secrets Manager, not resolved into a
//! function's environment when it is deployed: the token signing keys
//! (both the current version and the one before it, so a rotation never
//! refuses a token signed a moment earlier) and the Turnstile secret.
//!
//! Rotation is Secrets Manager's own: putting a new value makes it
//! `AWSCURRENT` and moves the old one to `AWSPREVIOUS`
//! (docs/OPERATIONS.md, "Rotating secrets"). Callers cache what they read
//! and read again on their own interval.

use aws_sdk_secretsmanager::error::DisplayErrorContext;
use aws_sdk_secretsmanager::operation::get_secret_value::GetSecretValueError;

/// The stage Secrets Manager gives the newest value.
pub const CURRENT: &str = "AWSCURRENT";
/// The stage of the value the newest one replaced.
pub const PREVIOUS: &str = "AWSPREVIOUS";

/// One version of a secret: its id and its value.
#[derive(Clone, PartialEq, Eq)]
pub struct SecretVersion {
    pub version_id: String,
    pub value: Vec<u8>,
}

impl std::fmt::Debug for SecretVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the value, even in a debug line.
        f.debug_struct("SecretVersion")
            .field("version_id", &self.version_id)
            .finish()
    }
}

/// A secret's current version and, once it was rotated, the one before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretVersions {
    pub current: SecretVersion,
    pub previous: Option<SecretVersion>,
}

#[derive(Debug, thiserror::Error)]
#[error("secret {id}: {message}")]
pub struct SecretError {
    pub id: String,
    pub message: String,
}

/// Reads secrets (`secretsmanager:GetSecretValue` on each, nothing else).
#[derive(Clone)]
pub struct Secrets {
    client: aws_sdk_secretsmanager::Client,
}

impl Secrets {
    pub fn new(client: aws_sdk_secretsmanager::Client) -> Self {
        Self { client }
    }

    /// Secrets Manager on `aws` (the function's [`crate::sdk_config`]).
    pub fn from_config(aws: &aws_config::SdkConfig) -> Self {
        Self::new(aws_sdk_secretsmanager::Client::new(aws))
    }

    /// The current value of secret `id` (a name or an ARN).
    pub async fn current(&self, id: &str) -> Result<SecretVersion, SecretError> {
        self.stage(id, CURRENT)
            .await?
            .ok_or_else(|| error(id, "has no current value"))
    }

    /// The current value of secret `id` and the previous one, when it was
    /// rotated (a secret never rotated has no `AWSPREVIOUS`).
    pub async fn versions(&self, id: &str) -> Result<SecretVersions, SecretError> {
        let (current, previous) = tokio::join!(self.current(id), self.stage(id, PREVIOUS));
        Ok(SecretVersions {
            current: current?,
            previous: previous?,
        })
    }

    async fn stage(&self, id: &str, stage: &str) -> Result<Option<SecretVersion>, SecretError> {
        let answer = self
            .client
            .get_secret_value()
            .secret_id(id)
            .version_stage(stage)
            .send()
            .await;
        let value = match answer {
            Ok(value) => value,
            // A stage no version carries (AWSPREVIOUS before the first
            // rotation) is not an error of the secret.
            Err(e)
                if stage != CURRENT
                    && matches!(
                        e.as_service_error(),
                        Some(GetSecretValueError::ResourceNotFoundException(_))
                    ) =>
            {
                return Ok(None);
            }
            Err(e) => return Err(error(id, &DisplayErrorContext(e).to_string())),
        };
        let version_id = value
            .version_id()
            .ok_or_else(|| error(id, "a version without an id"))?
            .to_owned();
        let bytes = match (value.secret_string(), value.secret_binary()) {
            (Some(text), _) => text.as_bytes().to_vec(),
            (None, Some(binary)) => binary.as_ref().to_vec(),
            (None, None) => return Err(error(id, "a version without a value")),
        };
        Ok(Some(SecretVersion {
            version_id,
            value: bytes,
        }))
    }
}

fn error(id: &str, message: &str) -> SecretError {
    SecretError {
        id: id.to_owned(),
        message: message.to_owned(),
    }
}

/// One secret's current value, read again at most every `every`: what a
/// function needs on a request path (a value per cold start would miss a
/// rotation for hours; a read per request costs a call and its latency).
/// When a read fails, the value held is used until the next try, so a
/// brief outage of Secrets Manager does not stop sign-ups.
pub struct CachedSecret {
    secrets: Secrets,
    id: String,
    every: std::time::Duration,
    held: tokio::sync::Mutex<Option<(SecretVersion, std::time::Instant)>>,
}

impl CachedSecret {
    pub fn new(secrets: Secrets, id: String, every: std::time::Duration) -> Self {
        Self {
            secrets,
            id,
            every,
            held: tokio::sync::Mutex::new(None),
        }
    }

    /// The secret's value: the one held while it is fresh, else read now.
    pub async fn current(&self) -> Result<SecretVersion, SecretError> {
        let mut held = self.held.lock().await;
        if let Some((value, read_at)) = &*held
            && read_at.elapsed() < self.every
        {
            return Ok(value.clone());
        }
        match self.secrets.current(&self.id).await {
            Ok(value) => {
                *held = Some((value.clone(), std::time::Instant::now()));
                Ok(value)
            }
            Err(e) => match &mut *held {
                Some((value, read_at)) => {
                    tracing::warn!(error = %e, "cannot read the secret again; using the value held");
                    // Try again after a tenth of the interval, not at once.
                    *read_at = std::time::Instant::now() - self.every + self.every / 10;
                    Ok(value.clone())
                }
                None => Err(e),
            },
        }
    }
}
