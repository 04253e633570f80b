//! The hosted token signing keys: a Secrets Manager secret whose
//! `AWSCURRENT` version signs and whose `AWSPREVIOUS` version is still
//! accepted (docs/OPERATIONS.md, "Rotating secrets": putting a new value is
//! the rotation). The secret's value is the HMAC key as it is; a key's id
//! (a token's `kid`) comes from its version id, so every instance names a
//! version alike without storing anything beside it.

use alyt_api::auth::jwt::{SigningKeySource, SigningKeys, SigningSecret};
use alyt_aws::secrets::{SecretVersion, Secrets};
use alyt_store::StoreError;

/// A key shorter than this is refused: HS256 wants 256 bits, and the
/// template generates 64 characters.
pub const MIN_KEY_BYTES: usize = 32;

pub struct SecretsManagerSigningKeys {
    secrets: Secrets,
    id: String,
}

impl SecretsManagerSigningKeys {
    pub fn new(secrets: Secrets, id: String) -> Self {
        Self { secrets, id }
    }
}

/// The `kid` of a version: `sm-` and the first 12 characters of its id.
pub fn kid_of(version_id: &str) -> String {
    format!("sm-{}", version_id.chars().take(12).collect::<String>())
}

fn signing_secret(version: SecretVersion) -> Result<SigningSecret, StoreError> {
    if version.value.len() < MIN_KEY_BYTES {
        return Err(StoreError::Unavailable(format!(
            "the token signing key secret's version {} is shorter than {MIN_KEY_BYTES} bytes",
            version.version_id
        )));
    }
    Ok(SigningSecret {
        kid: kid_of(&version.version_id),
        secret: version.value,
    })
}

#[async_trait::async_trait]
impl SigningKeySource for SecretsManagerSigningKeys {
    async fn keys(&self) -> Result<SigningKeys, StoreError> {
        let versions = self
            .secrets
            .versions(&self.id)
            .await
            .map_err(|e| StoreError::Unavailable(e.to_string()))?;
        Ok(SigningKeys {
            current: signing_secret(versions.current)?,
            // A previous version too short to sign with is not accepted
            // either (it never signed anything).
            previous: versions.previous.and_then(|p| signing_secret(p).ok()),
        })
    }

    fn refresh_every(&self) -> i64 {
        alyt_hosted::SECRETS_READ_EVERY.as_secs() as i64
    }
}
