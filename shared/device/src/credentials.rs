//! Device credentials: what a device is given to reach the broker with, the
//! port that issues and revokes them (passwords for the embedded broker here,
//! IoT Core certificates in `alyt-aws`, derived passwords for virtual devices
//! in `alyt-simulator`), and the store-backed check of a password login that
//! the embedded broker and the hosted IoT custom authorizer share.

use std::sync::Arc;

use alyt_domain::ids::{DeviceId, PropertyId, TenantId};
use alyt_domain::secret::{constant_time_eq, random_token, sha256_hex};
use alyt_store::Store;
use alyt_store::repo::devices::Devices;
use async_trait::async_trait;

use crate::plane::DeviceAuthenticator;
use crate::topic::DeviceIdentity;

/// What a device is given to reach the broker with, shown once (at
/// registration, replacement and rotation).
#[derive(Debug, Clone, serde::Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum DeviceCredentials {
    /// The embedded broker (local platform): MQTT username and password.
    #[serde(rename = "password", rename_all = "camelCase")]
    Password {
        /// The device id; equal to `username` (one session per device).
        client_id: String,
        /// The device id.
        username: String,
        /// Shown once; stored only as a SHA-256 hash.
        password: String,
    },
    /// IoT Core (hosted): an X.509 certificate and its private key. The
    /// MQTT client id must be `clientId` (the IoT thing name).
    #[serde(rename = "certificate", rename_all = "camelCase")]
    Certificate {
        /// The device id, which is also the IoT thing name.
        client_id: String,
        certificate_id: String,
        certificate_pem: String,
        /// Shown once; never stored by the platform.
        private_key: String,
        /// The broker's host name (the account's IoT data endpoint), when known.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "openapi", schema(nullable = false))]
        endpoint: Option<String>,
    },
}

/// A credential just issued: what the device is shown, and what the store
/// keeps (a hash or a certificate id, never the secret itself).
#[derive(Debug, Clone)]
pub struct IssuedCredential {
    pub shown: DeviceCredentials,
    /// SHA-256 (hex) of the password; empty for a certificate.
    pub secret_hash: String,
    pub certificate_id: Option<String>,
}

impl IssuedCredential {
    /// A password login: client id and username are the device id, and the
    /// store keeps only the password's SHA-256.
    pub fn password(device: DeviceId, password: String) -> Self {
        let secret_hash = sha256_hex(&password);
        Self {
            shown: DeviceCredentials::Password {
                client_id: device.to_string(),
                username: device.to_string(),
                password,
            },
            secret_hash,
            certificate_id: None,
        }
    }
}

#[derive(Debug, thiserror::Error)]
#[error("device credential: {0}")]
pub struct CredentialError(pub String);

/// Where device credentials come from. The device id is the MQTT client id,
/// the username (embedded broker) and the IoT thing name (hosted).
#[async_trait]
pub trait DeviceCredentialIssuer: Send + Sync + 'static {
    /// A new credential for `device`, which reaches only the subtree
    /// `alyt/{tenant}/{property}/{device}`. Nothing is stored here: the
    /// caller writes the record in its own transaction and calls
    /// [`revoke`](Self::revoke) if that write fails.
    async fn issue(
        &self,
        tenant: TenantId,
        property: PropertyId,
        device: DeviceId,
    ) -> Result<IssuedCredential, CredentialError>;

    /// Makes one issued credential unusable at the broker (hosted: the
    /// certificate is deactivated, detached and deleted) while the device
    /// keeps its broker identity for the credential that replaces it
    /// (rotation, a new board). The store record is the caller's to replace
    /// or delete; locally replacing it is the revocation.
    async fn revoke(
        &self,
        device: DeviceId,
        certificate_id: Option<&str>,
    ) -> Result<(), CredentialError>;

    /// Ends the device at the broker: every credential it has is revoked and
    /// its broker identity (hosted: the IoT thing) removed. For a deleted
    /// device, or one whose registration was not written.
    async fn retire(
        &self,
        device: DeviceId,
        certificate_id: Option<&str>,
    ) -> Result<(), CredentialError> {
        self.revoke(device, certificate_id).await
    }
}

/// Embedded-broker credentials: a 256-bit random password per device, kept
/// as its SHA-256 in the store (checked by the broker's authenticator).
pub struct PasswordCredentials;

#[async_trait]
impl DeviceCredentialIssuer for PasswordCredentials {
    async fn issue(
        &self,
        _tenant: TenantId,
        _property: PropertyId,
        device: DeviceId,
    ) -> Result<IssuedCredential, CredentialError> {
        Ok(IssuedCredential::password(device, random_token()))
    }

    async fn revoke(
        &self,
        _device: DeviceId,
        _certificate_id: Option<&str>,
    ) -> Result<(), CredentialError> {
        // The authenticator reads the store on every CONNECT: once the record
        // is gone no login succeeds; open sessions are closed by the publisher.
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// Password logins

/// Logs devices in to the embedded broker with the credentials issued at
/// registration: the username names a `DEVCRED` item (one get), the client id
/// must equal it, and the SHA-256 of the password must match the stored hash
/// (compared in constant time). Anything else is refused.
pub struct StoreDeviceAuthenticator {
    store: Arc<dyn Store>,
}

impl StoreDeviceAuthenticator {
    pub fn new(store: Arc<dyn Store>) -> Self {
        Self { store }
    }
}

/// Longest username worth a store read (device ids are 36 characters).
const MAX_USERNAME_LEN: usize = 64;

#[async_trait]
impl DeviceAuthenticator for StoreDeviceAuthenticator {
    async fn authenticate(
        &self,
        client_id: &str,
        username: &str,
        password: &[u8],
    ) -> Option<DeviceIdentity> {
        if username.is_empty() || username.len() > MAX_USERNAME_LEN || client_id != username {
            return None;
        }
        let credential = match Devices(&*self.store).credential(username).await {
            Ok(found) => found?,
            Err(e) => {
                tracing::warn!(error = %e, "device login: the credential could not be read");
                return None;
            }
        };
        let presented = sha256_hex(password);
        if !constant_time_eq(presented.as_bytes(), credential.secret_hash.as_bytes()) {
            return None;
        }
        Some(DeviceIdentity::new(
            credential.tenant_id,
            credential.property_id,
            credential.device_id,
        ))
    }
}
