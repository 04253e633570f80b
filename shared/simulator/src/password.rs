//! Virtual-device passwords, derived rather than stored.
//!
//! The platform registers a virtual device with
//! `device_password(simulator_key, device_id)` and keeps only its SHA-256,
//! as for every device. After a restart the runner derives the same
//! password again from the key and the id, so no plaintext password is ever
//! written anywhere, and rotating the simulator key means re-registering the
//! virtual devices' credentials.

use alyt_device::credentials::{CredentialError, DeviceCredentialIssuer, IssuedCredential};
use alyt_domain::ids::{DeviceId, PropertyId, TenantId};
use async_trait::async_trait;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// `base64url(HMAC-SHA256(simulator_key, device id))`, unpadded; the device
/// id is its hyphenated lower-case UUID text, as in topics and usernames.
pub fn device_password(simulator_key: &[u8], device_id: DeviceId) -> String {
    // HMAC takes keys of any length; new_from_slice cannot fail for it.
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(simulator_key)
        .unwrap_or_else(|_| unreachable!("HMAC accepts keys of any length"));
    mac.update(device_id.to_string().as_bytes());
    URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
}

/// Credentials for virtual devices: the password is
/// `device_password(simulator key, device id)`, stored (as for every device)
/// only as its SHA-256. Nothing to revoke beyond the store record.
pub struct DerivedPasswordIssuer {
    key: Vec<u8>,
}

impl DerivedPasswordIssuer {
    pub fn new(key: Vec<u8>) -> Self {
        Self { key }
    }
}

#[async_trait]
impl DeviceCredentialIssuer for DerivedPasswordIssuer {
    async fn issue(
        &self,
        _tenant: TenantId,
        _property: PropertyId,
        device: DeviceId,
    ) -> Result<IssuedCredential, CredentialError> {
        Ok(IssuedCredential::password(
            device,
            device_password(&self.key, device),
        ))
    }

    async fn revoke(&self, _device: DeviceId, _: Option<&str>) -> Result<(), CredentialError> {
        // The broker authenticator reads the store on every CONNECT.
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use alyt_device::credentials::DeviceCredentials;
    use alyt_domain::secret::sha256_hex;

    use super::*;

    #[tokio::test]
    async fn derived_credentials_hash_the_derived_password() {
        let issuer = DerivedPasswordIssuer::new(b"key".to_vec());
        let device = DeviceId::new();
        let issued = issuer
            .issue(TenantId::new(), PropertyId::new(), device)
            .await
            .unwrap();
        let DeviceCredentials::Password { password, .. } = issued.shown else {
            panic!("a password");
        };
        assert_eq!(password, device_password(b"key", device));
        assert_eq!(issued.secret_hash, sha256_hex(&password));
    }

    #[test]
    fn matches_an_independent_hmac() {
        // Computed with Python's hmac/hashlib/base64.urlsafe_b64encode.
        let id: DeviceId = "0190a0c0-0000-7000-8000-000000000001".parse().unwrap();
        assert_eq!(
            device_password(b"key-1", id),
            "Zotq6EE_vN_Jp5n__ePJrxAjj9uxKd03Asf_MmplNBI"
        );
    }

    #[test]
    fn one_password_per_key_and_device() {
        let a: DeviceId = "0190a0c0-0000-7000-8000-000000000001".parse().unwrap();
        let b: DeviceId = "0190a0c0-0000-7000-8000-000000000002".parse().unwrap();
        let p = device_password(b"key-1", a);
        assert_eq!(p, device_password(b"key-1", a));
        assert_ne!(p, device_password(b"key-1", b));
        assert_ne!(p, device_password(b"key-2", a));
        assert_eq!(p.len(), 43);
        assert!(
            p.bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
        );
    }
}
