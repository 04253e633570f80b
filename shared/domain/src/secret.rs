//! High-entropy secrets (keys, refresh and one-time tokens, device
//! passwords): made from the system's random source, stored only as their
//! SHA-256 and looked up by it, compared in constant time. Passwords people
//! choose are hashed with argon2id instead (in the API). Secrets are never
//! logged.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// A random secret of 256 bits, base64url without padding (43 characters).
pub fn random_token() -> String {
    URL_SAFE_NO_PAD.encode(random_bytes::<32>())
}

pub fn random_bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    rand::rng().fill_bytes(&mut bytes);
    bytes
}

/// SHA-256 of a secret, hex: the form a high-entropy secret is stored in.
pub fn sha256_hex(secret: impl AsRef<[u8]>) -> String {
    hex::encode(Sha256::digest(secret.as_ref()))
}

pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.ct_eq(b).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_and_distinct() {
        let a = random_token();
        assert_eq!(a.len(), 43);
        assert_ne!(a, random_token());
        assert_eq!(sha256_hex("abc").len(), 64);
        assert!(constant_time_eq(b"same", b"same"));
        assert!(!constant_time_eq(b"same", b"diff"));
    }
}
