//! Session and app access tokens: JWTs signed with HS256 (pinned: no other
//! algorithm is accepted, so `none` and key-confusion attacks fail), with
//! `typ: at+jwt` and a distinct audience per kind, so a household token is never
//! accepted as a developer or app token. Refresh tokens are not JWTs: they are
//! opaque random secrets stored hashed.
//!
//! The signing secret lives in the store (`CONFIG#jwt/SIGNING`), created once
//! with a conditional put, so every Lambda and the local platform share it with
//! no further infrastructure. Tokens name it by `kid`, which leaves room for
//! rotation.

use std::collections::HashMap;
use std::sync::Mutex;

use alyt_domain::Clock;
use alyt_domain::access::Claims;
use alyt_domain::ids::{DeveloperId, KeyId, SessionId};
use alyt_store::repo::config::{Config, SigningKey};
use alyt_store::{Store, StoreError};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

use super::secrets;

const ISSUER: &str = "alyt";
const TYP: &str = "at+jwt";

/// Household session tokens live 15 minutes, app tokens five (spec: Limits).
pub const SESSION_TOKEN_SECONDS: i64 = 15 * 60;
pub const APP_TOKEN_SECONDS: i64 = 5 * 60;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    Household,
    Developer,
    App,
}

impl Audience {
    pub fn as_str(self) -> &'static str {
        match self {
            Audience::Household => "alyt:household",
            Audience::Developer => "alyt:developer",
            Audience::App => "alyt:app",
        }
    }
    fn parse(s: &str) -> Option<Self> {
        [Audience::Household, Audience::Developer, Audience::App]
            .into_iter()
            .find(|a| a.as_str() == s)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct SessionTokenClaims {
    #[serde(flatten)]
    claims: Claims,
    aud: String,
    iss: String,
    sid: SessionId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    dev: Option<DeveloperId>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct AppTokenClaims {
    /// The App ID (the key id).
    sub: KeyId,
    dev: DeveloperId,
    aud: String,
    iss: String,
    iat: i64,
    exp: i64,
    jti: String,
}

/// A verified token.
#[derive(Debug, Clone, PartialEq)]
pub enum Verified {
    Session {
        audience: Audience,
        claims: Claims,
        session: SessionId,
        developer: Option<DeveloperId>,
    },
    App {
        key_id: KeyId,
        developer: DeveloperId,
    },
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TokenError {
    #[error("the token is malformed or its signature is wrong")]
    Invalid,
    #[error("the token has expired")]
    Expired,
}

pub struct TokenSigner {
    kid: String,
    encoding: EncodingKey,
    decoding: DecodingKey,
    /// Tokens this signer verified, with their expiry: verifying is an HMAC
    /// and two JSON decodes (7% of a device list's time, issue 16 M1), and a
    /// client presents the same token for minutes. Only a token whose
    /// signature verified is kept, and its expiry is checked on every use.
    /// At most [`VERIFIED_CACHE`] entries; emptied when full.
    verified: Mutex<HashMap<String, (i64, Verified)>>,
}

/// Verified tokens kept per process (about 1 KB each).
pub const VERIFIED_CACHE: usize = 1024;

impl TokenSigner {
    pub fn from_secret(kid: impl Into<String>, secret: &[u8]) -> Self {
        Self {
            kid: kid.into(),
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            verified: Mutex::new(HashMap::new()),
        }
    }

    /// A random key of this process, never stored (see
    /// [`crate::state::TokenKey::ThisProcessOnly`]).
    pub fn this_process_only() -> Self {
        Self::from_secret("process", &secrets::random_bytes::<32>())
    }

    /// The platform's signing key, created on first use.
    pub async fn load(store: &dyn Store) -> Result<Self, StoreError> {
        let candidate = SigningKey {
            kid: format!("k{}", &secrets::sha256_hex(secrets::random_token())[..8]),
            secret: URL_SAFE_NO_PAD.encode(secrets::random_bytes::<32>()),
        };
        let stored = Config(store).signing_key_or(candidate).await?;
        let secret = URL_SAFE_NO_PAD
            .decode(&stored.secret)
            .map_err(|_| StoreError::Unavailable("the JWT signing key item is corrupt".into()))?;
        Ok(Self::from_secret(stored.kid, &secret))
    }

    fn header(&self) -> Header {
        let mut header = Header::new(Algorithm::HS256);
        header.typ = Some(TYP.into());
        header.kid = Some(self.kid.clone());
        header
    }

    pub fn issue_session(
        &self,
        audience: Audience,
        claims: &Claims,
        session: SessionId,
        developer: Option<DeveloperId>,
    ) -> String {
        let body = SessionTokenClaims {
            claims: claims.clone(),
            aud: audience.as_str().into(),
            iss: ISSUER.into(),
            sid: session,
            dev: developer,
        };
        jsonwebtoken::encode(&self.header(), &body, &self.encoding).expect("HS256 encoding")
    }

    pub fn issue_app(&self, key_id: KeyId, developer: DeveloperId, now: i64) -> String {
        let body = AppTokenClaims {
            sub: key_id,
            dev: developer,
            aud: Audience::App.as_str().into(),
            iss: ISSUER.into(),
            iat: now,
            exp: now + APP_TOKEN_SECONDS,
            jti: secrets::random_token(),
        };
        jsonwebtoken::encode(&self.header(), &body, &self.encoding).expect("HS256 encoding")
    }

    /// Verifies signature, algorithm, type, issuer and audience, and expiry
    /// against `clock` (not the system time, so tests can move time).
    pub fn verify(&self, token: &str, clock: &dyn Clock) -> Result<Verified, TokenError> {
        let known = self.cache().get(token).cloned();
        let (exp, verified) = match known {
            Some(known) => known,
            None => {
                let checked = self.check(token)?;
                let mut cache = self.cache();
                if cache.len() >= VERIFIED_CACHE {
                    cache.clear();
                }
                cache.insert(token.to_owned(), checked.clone());
                checked
            }
        };
        if clock.unix_seconds() >= exp {
            return Err(TokenError::Expired);
        }
        Ok(verified)
    }

    /// The session of a genuine session token, expired or not (to tell a
    /// guest whose stay ended why their token no longer works).
    pub fn session_of(&self, token: &str) -> Option<SessionId> {
        match self.check(token).ok()?.1 {
            Verified::Session { session, .. } => Some(session),
            Verified::App { .. } => None,
        }
    }

    fn cache(&self) -> std::sync::MutexGuard<'_, HashMap<String, (i64, Verified)>> {
        self.verified.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The signature, algorithm, type, issuer and audience of `token`, and
    /// its claims with their expiry (not judged here).
    fn check(&self, token: &str) -> Result<(i64, Verified), TokenError> {
        let header = jsonwebtoken::decode_header(token).map_err(|_| TokenError::Invalid)?;
        if header.alg != Algorithm::HS256 || header.typ.as_deref() != Some(TYP) {
            return Err(TokenError::Invalid);
        }
        if header.kid.as_deref() != Some(self.kid.as_str()) {
            return Err(TokenError::Invalid);
        }
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_issuer(&[ISSUER]);
        validation.set_audience(&[
            Audience::Household.as_str(),
            Audience::Developer.as_str(),
            Audience::App.as_str(),
        ]);
        validation.validate_exp = false;
        validation.set_required_spec_claims(&["exp", "aud", "iss", "sub"]);
        let data = jsonwebtoken::decode::<serde_json::Value>(token, &self.decoding, &validation)
            .map_err(|_| TokenError::Invalid)?;
        let audience = data
            .claims
            .get("aud")
            .and_then(|a| a.as_str())
            .and_then(Audience::parse)
            .ok_or(TokenError::Invalid)?;
        let (exp, verified) = match audience {
            Audience::App => {
                let c: AppTokenClaims =
                    serde_json::from_value(data.claims).map_err(|_| TokenError::Invalid)?;
                (
                    c.exp,
                    Verified::App {
                        key_id: c.sub,
                        developer: c.dev,
                    },
                )
            }
            Audience::Household | Audience::Developer => {
                let c: SessionTokenClaims =
                    serde_json::from_value(data.claims).map_err(|_| TokenError::Invalid)?;
                (
                    c.claims.exp,
                    Verified::Session {
                        audience,
                        claims: c.claims,
                        session: c.sid,
                        developer: c.dev,
                    },
                )
            }
        };
        Ok((exp, verified))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alyt_domain::ManualClock;
    use alyt_domain::ids::UserId;
    use std::collections::BTreeMap;

    fn claims(now: i64) -> Claims {
        Claims {
            sub: UserId::new(),
            email: "a@example.com".into(),
            platform_role: None,
            tenants: BTreeMap::new(),
            clients: BTreeMap::new(),
            iat: now,
            exp: now + SESSION_TOKEN_SECONDS,
            jti: "j".into(),
        }
    }

    fn clock() -> ManualClock {
        ManualClock::new(time::macros::datetime!(2026-06-01 12:00 UTC))
    }

    #[test]
    fn a_session_token_verifies_with_its_audience_until_it_expires() {
        let clock = clock();
        let signer = TokenSigner::from_secret("k1", b"0123456789abcdef0123456789abcdef");
        let c = claims(clock.unix_seconds());
        let sid = SessionId::new();
        let token = signer.issue_session(Audience::Developer, &c, sid, None);
        match signer.verify(&token, &clock).unwrap() {
            Verified::Session {
                audience,
                claims,
                session,
                ..
            } => {
                assert_eq!(audience, Audience::Developer);
                assert_eq!(claims, c);
                assert_eq!(session, sid);
            }
            other => panic!("{other:?}"),
        }
        clock.advance(time::Duration::seconds(SESSION_TOKEN_SECONDS));
        assert_eq!(signer.verify(&token, &clock), Err(TokenError::Expired));
    }

    /// `token` with its body changed to claim platform OWNER (the
    /// signature left as it was).
    fn made_owner(token: &str) -> String {
        let mut parts: Vec<String> = token.split('.').map(str::to_owned).collect();
        let mut json: serde_json::Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(&parts[1]).unwrap()).unwrap();
        json["platformRole"] = "OWNER".into();
        parts[1] = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&json).unwrap());
        parts.join(".")
    }

    #[test]
    fn a_known_token_still_expires_and_no_other_string_rides_on_it() {
        let clock = clock();
        let signer = TokenSigner::from_secret("k1", b"0123456789abcdef0123456789abcdef");
        let c = claims(clock.unix_seconds());
        let good = signer.issue_session(Audience::Household, &c, SessionId::new(), None);
        let first = signer.verify(&good, &clock).unwrap();
        assert_eq!(signer.verify(&good, &clock).unwrap(), first, "known now");
        // A copy with another body is checked on its own, and refused.
        assert_eq!(
            signer.verify(&made_owner(&good), &clock),
            Err(TokenError::Invalid)
        );
        // Another signer (another key) knows nothing of it.
        let other = TokenSigner::from_secret("k1", b"another secret of thirty-two b..");
        assert_eq!(other.verify(&good, &clock), Err(TokenError::Invalid));
        // Expiry is judged on every use.
        clock.advance(time::Duration::seconds(SESSION_TOKEN_SECONDS));
        assert_eq!(signer.verify(&good, &clock), Err(TokenError::Expired));
        // Bounded.
        for _ in 0..VERIFIED_CACHE + 10 {
            let c = claims(clock.unix_seconds());
            let token = signer.issue_session(Audience::Household, &c, SessionId::new(), None);
            assert!(signer.verify(&token, &clock).is_ok());
        }
        assert!(signer.cache().len() <= VERIFIED_CACHE);
    }

    #[test]
    fn foreign_signatures_other_algorithms_and_tampering_are_refused() {
        let clock = clock();
        let signer = TokenSigner::from_secret("k1", b"0123456789abcdef0123456789abcdef");
        let other = TokenSigner::from_secret("k1", b"another secret of thirty-two b..");
        let token = other.issue_session(
            Audience::Household,
            &claims(clock.unix_seconds()),
            SessionId::new(),
            None,
        );
        assert_eq!(signer.verify(&token, &clock), Err(TokenError::Invalid));

        // alg=none with the same body.
        let good = signer.issue_session(
            Audience::Household,
            &claims(clock.unix_seconds()),
            SessionId::new(),
            None,
        );
        let body = good.split('.').nth(1).unwrap();
        let none_header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"at+jwt","kid":"k1"}"#);
        assert_eq!(
            signer.verify(&format!("{none_header}.{body}."), &clock),
            Err(TokenError::Invalid)
        );

        // A changed body breaks the signature.
        assert_eq!(
            signer.verify(&made_owner(&good), &clock),
            Err(TokenError::Invalid)
        );
        assert_eq!(signer.verify("garbage", &clock), Err(TokenError::Invalid));
    }

    #[test]
    fn app_tokens_are_their_own_kind_and_last_five_minutes() {
        let clock = clock();
        let signer = TokenSigner::from_secret("k1", b"0123456789abcdef0123456789abcdef");
        let key = KeyId::new();
        let dev = DeveloperId::new();
        let token = signer.issue_app(key, dev, clock.unix_seconds());
        assert_eq!(
            signer.verify(&token, &clock).unwrap(),
            Verified::App {
                key_id: key,
                developer: dev
            }
        );
        clock.advance(time::Duration::seconds(APP_TOKEN_SECONDS));
        assert_eq!(signer.verify(&token, &clock), Err(TokenError::Expired));
    }
}
