//! Password hashing (argon2id), beside the high-entropy secrets of
//! [`alyt_domain::secret`] (re-exported here): keys, refresh and one-time
//! tokens are stored as their SHA-256 and looked up by it; passwords people
//! choose are hashed with argon2id. Secrets are never logged.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};

pub use alyt_domain::secret::{constant_time_eq, random_bytes, random_token, sha256_hex};

/// argon2id with OWASP's minimum parameters: 19 MiB, 2 passes, 1 lane.
fn argon2() -> Argon2<'static> {
    let params = Params::new(19 * 1024, 2, 1, None).expect("valid argon2 parameters");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// Hashes a password (PHC string). CPU-heavy: call from a blocking task.
pub fn hash_password(password: &str) -> String {
    let salt = SaltString::encode_b64(&random_bytes::<16>()).expect("16-byte salt encodes");
    argon2()
        .hash_password(password.as_bytes(), &salt)
        .expect("argon2 hashing cannot fail with valid parameters")
        .to_string()
}

/// Verifies a password against a PHC string in constant time. CPU-heavy.
pub fn verify_password(password: &str, phc: &str) -> bool {
    PasswordHash::new(phc)
        .map(|hash| argon2().verify_password(password.as_bytes(), &hash).is_ok())
        .unwrap_or(false)
}

/// A hash to verify against when the account does not exist, so an unknown
/// email costs the same time as a wrong password.
pub fn decoy_hash() -> &'static str {
    static DECOY: std::sync::LazyLock<String> =
        std::sync::LazyLock::new(|| hash_password("decoy password that matches nothing"));
    &DECOY
}

pub async fn hash_password_blocking(password: String) -> String {
    tokio::task::spawn_blocking(move || hash_password(&password))
        .await
        .expect("hashing task")
}

pub async fn verify_password_blocking(password: String, phc: String) -> bool {
    tokio::task::spawn_blocking(move || verify_password(&password, &phc))
        .await
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_verify_only_against_their_hash() {
        let hash = hash_password("plum tractor season");
        assert!(
            hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{hash}"
        );
        assert!(verify_password("plum tractor season", &hash));
        assert!(!verify_password("plum tractor seasoN", &hash));
        assert!(!verify_password("plum tractor season", "not a hash"));
        assert_ne!(hash, hash_password("plum tractor season"), "salted");
    }
}
