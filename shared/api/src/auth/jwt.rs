//! Session and app access tokens: JWTs signed with HS256 (pinned: no other
//! algorithm is accepted, so `none` and key-confusion attacks fail), with
//! `typ: at+jwt`. Refresh tokens are not JWTs: they are opaque random secrets
//! stored hashed.
//!
//! A session's access token (household or developer) carries the spec's
//! Claims object and nothing else: `sub`, `email`, `platformRole` when there
//! is one, `tenants`, `clients`, `iat`, `exp`, `jti`. The object is closed,
//! so a payload with any other field is refused. Its `jti` is the session id:
//! what kind of session it is (household or developer) and whose developer
//! account it signs in are the session record's, which every request reads
//! anyway ([`crate::auth::caller`]), so the token never says its own kind.
//!
//! An app token (five minutes, exchanged for an App ID and secret) is not a
//! person's token and has a shape of its own, closed too: `sub` (the key id),
//! `dev`, `aud: alyt:app`, `iss`, `iat`, `exp`, `jti`. The audience tells the
//! two apart: a session token has none, so neither verifies as the other.
//!
//! Keys rotate: a token names the key that signed it by `kid`, the signer
//! signs with the current key and also accepts the one before it, so a
//! token issued just before a rotation verifies until it expires. Where the
//! keys come from is a [`SigningKeySource`]: hosted, a Secrets Manager
//! secret (its AWSCURRENT and AWSPREVIOUS versions, rotated by putting a
//! new value; docs/OPERATIONS.md); locally the store (`CONFIG#jwt/SIGNING`,
//! created once with a conditional put). The signer reads its source again
//! every [`SigningKeySource::refresh_every`] and at once (at most every
//! [`UNKNOWN_KID_RECHECK_SECONDS`]) when a token names a key it does not
//! know: another instance may have seen a rotation first.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use alyt_domain::Clock;
use alyt_domain::access::Claims;
use alyt_domain::ids::{DeveloperId, KeyId, SessionId};
use alyt_store::repo::config::{Config, SigningKey};
use alyt_store::{Store, StoreError};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

use alyt_domain::secret as secrets;

impl alyt_app::auth::sessions::SessionSigner for TokenSigner {
    fn issue_session(&self, claims: &Claims) -> String {
        TokenSigner::issue_session(self, claims)
    }
}

const ISSUER: &str = "alyt";
const TYP: &str = "at+jwt";
/// The audience of app tokens, and only of them.
const APP_AUDIENCE: &str = "alyt:app";

pub use alyt_app::grants::SESSION_TOKEN_SECONDS;
pub const APP_TOKEN_SECONDS: i64 = 5 * 60;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
    /// A person's session token: its claims and the session its `jti`
    /// names. Whether the session is live, and of which kind, is the
    /// session record's to say.
    Session { claims: Claims, session: SessionId },
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
    keys: RwLock<Arc<KeyRing>>,
    /// Where the keys are read again; none for a fixed key.
    source: Option<Arc<dyn SigningKeySource>>,
    /// When (Unix seconds) the source is read again.
    refresh_at: AtomicI64,
    /// When a token naming an unknown key may next make the source be read.
    unknown_kid_recheck_at: AtomicI64,
    /// Serialises reads of the source (one refresh at a time).
    refreshing: tokio::sync::Mutex<()>,
    /// Tokens this signer verified, with their expiry: verifying is an HMAC
    /// and two JSON decodes (7% of a device list's time, measured under M1), and a
    /// client presents the same token for minutes. Only a token whose
    /// signature verified is kept, and its expiry is checked on every use.
    /// At most [`VERIFIED_CACHE`] entries; emptied when full and whenever
    /// the keys change (a token of a key no longer accepted must fail).
    verified: Mutex<HashMap<String, (i64, Verified)>>,
}

/// Verified tokens kept per process (about 1 KB each).
pub const VERIFIED_CACHE: usize = 1024;

/// How soon a token naming an unknown key may make the signer read its
/// source again (a flood of forged `kid`s costs one read per this).
pub const UNKNOWN_KID_RECHECK_SECONDS: i64 = 10;

/// A signing key as its source gives it: its id (the JWT's `kid`) and its
/// secret bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct SigningSecret {
    pub kid: String,
    pub secret: Vec<u8>,
}

impl std::fmt::Debug for SigningSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the secret, even in a debug line.
        f.debug_struct("SigningSecret")
            .field("kid", &self.kid)
            .finish()
    }
}

/// The key to sign with and the one before it, still accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SigningKeys {
    pub current: SigningSecret,
    pub previous: Option<SigningSecret>,
}

/// Where a runtime's signing keys live.
#[async_trait::async_trait]
pub trait SigningKeySource: Send + Sync {
    /// The keys as they are now.
    async fn keys(&self) -> Result<SigningKeys, StoreError>;

    /// How often (seconds) the keys are read again.
    fn refresh_every(&self) -> i64;
}

/// The keys in the store (`CONFIG#jwt/SIGNING`), created on first use: the
/// local platform's, and the hosted one's when no secret is configured.
pub struct StoredSigningKeys(pub Arc<dyn Store>);

#[async_trait::async_trait]
impl SigningKeySource for StoredSigningKeys {
    async fn keys(&self) -> Result<SigningKeys, StoreError> {
        stored_keys(&*self.0).await
    }

    /// A rotation is written by this process or an operator's command;
    /// a minute is soon enough for other processes to follow.
    fn refresh_every(&self) -> i64 {
        60
    }
}

/// The keys in `store`, the current one created when there is none.
async fn stored_keys(store: &dyn Store) -> Result<SigningKeys, StoreError> {
    let candidate = SigningKey {
        kid: format!("k{}", &secrets::sha256_hex(secrets::random_token())[..8]),
        secret: URL_SAFE_NO_PAD.encode(secrets::random_bytes::<32>()),
        previous: None,
    };
    let stored = Config(store).signing_key_or(candidate).await?;
    let decoded = |key: &SigningKey| {
        let secret = URL_SAFE_NO_PAD
            .decode(&key.secret)
            .map_err(|_| StoreError::Unavailable("the JWT signing key item is corrupt".into()))?;
        Ok::<_, StoreError>(SigningSecret {
            kid: key.kid.clone(),
            secret,
        })
    };
    Ok(SigningKeys {
        current: decoded(&stored)?,
        previous: stored.previous.as_deref().map(decoded).transpose()?,
    })
}

/// The keys a signer holds, ready to sign and verify.
struct KeyRing {
    current: RingKey,
    previous: Option<RingKey>,
}

struct RingKey {
    kid: String,
    encoding: EncodingKey,
    decoding: DecodingKey,
}

impl RingKey {
    fn new(key: &SigningSecret) -> Self {
        Self {
            kid: key.kid.clone(),
            encoding: EncodingKey::from_secret(&key.secret),
            decoding: DecodingKey::from_secret(&key.secret),
        }
    }
}

impl KeyRing {
    fn new(keys: &SigningKeys) -> Self {
        Self {
            current: RingKey::new(&keys.current),
            // The same key twice is one key.
            previous: keys
                .previous
                .as_ref()
                .filter(|p| p.kid != keys.current.kid)
                .map(RingKey::new),
        }
    }

    fn kids(&self) -> (String, Option<String>) {
        (
            self.current.kid.clone(),
            self.previous.as_ref().map(|p| p.kid.clone()),
        )
    }

    fn by_kid(&self, kid: &str) -> Option<&RingKey> {
        std::iter::once(&self.current)
            .chain(self.previous.as_ref())
            .find(|key| key.kid == kid)
    }
}

impl TokenSigner {
    fn over(keys: &SigningKeys, source: Option<Arc<dyn SigningKeySource>>, now: i64) -> Self {
        let refresh_at = source
            .as_ref()
            .map_or(i64::MAX, |s| now + s.refresh_every());
        Self {
            keys: RwLock::new(Arc::new(KeyRing::new(keys))),
            source,
            refresh_at: AtomicI64::new(refresh_at),
            unknown_kid_recheck_at: AtomicI64::new(now),
            refreshing: tokio::sync::Mutex::new(()),
            verified: Mutex::new(HashMap::new()),
        }
    }

    /// A signer of one fixed key.
    pub fn from_secret(kid: impl Into<String>, secret: &[u8]) -> Self {
        let keys = SigningKeys {
            current: SigningSecret {
                kid: kid.into(),
                secret: secret.to_vec(),
            },
            previous: None,
        };
        Self::over(&keys, None, 0)
    }

    /// A random key of this process, never stored (see
    /// [`crate::state::TokenKey::ThisProcessOnly`]).
    pub fn this_process_only() -> Self {
        Self::from_secret("process", &secrets::random_bytes::<32>())
    }

    /// The platform's signing key in the store, created on first use.
    pub async fn load(store: &dyn Store) -> Result<Self, StoreError> {
        let keys = stored_keys(store).await?;
        Ok(Self::over(&keys, None, 0))
    }

    /// A signer over `source`'s keys, read now and again every
    /// [`SigningKeySource::refresh_every`] (see [`TokenSigner::keep_fresh`]).
    pub async fn from_source(
        source: Arc<dyn SigningKeySource>,
        now: i64,
    ) -> Result<Self, StoreError> {
        let keys = source.keys().await?;
        Ok(Self::over(&keys, Some(source), now))
    }

    /// Reads the keys again when it is time (one atomic load otherwise).
    /// A failed read keeps the keys held and tries again in a minute: a
    /// source that is briefly unreachable must not stop sign-ins.
    pub async fn keep_fresh(&self, now: i64) {
        if now < self.refresh_at.load(Ordering::Relaxed) {
            return;
        }
        self.refresh(now).await;
    }

    async fn refresh(&self, now: i64) {
        let Some(source) = &self.source else {
            return;
        };
        let _one_at_a_time = self.refreshing.lock().await;
        match source.keys().await {
            Ok(keys) => {
                let ring = KeyRing::new(&keys);
                let changed = self.ring().kids() != ring.kids();
                *self.keys.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(ring);
                if changed {
                    self.cache().clear();
                    tracing::info!(kid = %keys.current.kid, "token signing keys changed");
                }
                self.refresh_at
                    .store(now + source.refresh_every(), Ordering::Relaxed);
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the token signing keys; keeping those held");
                self.refresh_at.store(now + 60, Ordering::Relaxed);
            }
        }
    }

    /// [`TokenSigner::verify`], the keys read first when it is time, and
    /// again (at most every [`UNKNOWN_KID_RECHECK_SECONDS`]) when the token
    /// names a key this signer does not hold.
    pub async fn verify_fresh(
        &self,
        token: &str,
        clock: &dyn Clock,
    ) -> Result<Verified, TokenError> {
        let now = clock.unix_seconds();
        self.keep_fresh(now).await;
        let verified = self.verify(token, clock);
        if verified.is_ok() || self.source.is_none() || !self.names_unknown_key(token) {
            return verified;
        }
        let recheck_at = self.unknown_kid_recheck_at.load(Ordering::Relaxed);
        if now < recheck_at
            || self
                .unknown_kid_recheck_at
                .compare_exchange(
                    recheck_at,
                    now + UNKNOWN_KID_RECHECK_SECONDS,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                )
                .is_err()
        {
            return verified;
        }
        self.refresh(now).await;
        self.verify(token, clock)
    }

    fn names_unknown_key(&self, token: &str) -> bool {
        jsonwebtoken::decode_header(token)
            .ok()
            .and_then(|header| header.kid)
            .is_some_and(|kid| self.ring().by_kid(&kid).is_none())
    }

    fn ring(&self) -> Arc<KeyRing> {
        self.keys.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn header(kid: &str) -> Header {
        let mut header = Header::new(Algorithm::HS256);
        header.typ = Some(TYP.into());
        header.kid = Some(kid.to_owned());
        header
    }

    /// `body` signed with the current key.
    fn sign<T: Serialize>(&self, body: &T) -> String {
        let ring = self.ring();
        jsonwebtoken::encode(
            &Self::header(&ring.current.kid),
            body,
            &ring.current.encoding,
        )
        .expect("HS256 encoding")
    }

    /// A session's access token: `claims` and nothing else, their `jti`
    /// the session's id (see [`alyt_app::grants::build_claims`]).
    pub fn issue_session(&self, claims: &Claims) -> String {
        self.sign(claims)
    }

    pub fn issue_app(&self, key_id: KeyId, developer: DeveloperId, now: i64) -> String {
        let body = AppTokenClaims {
            sub: key_id,
            dev: developer,
            aud: APP_AUDIENCE.into(),
            iss: ISSUER.into(),
            iat: now,
            exp: now + APP_TOKEN_SECONDS,
            jti: secrets::random_token(),
        };
        self.sign(&body)
    }

    /// Verifies signature, algorithm, type and the payload's shape, and
    /// expiry against `clock` (not the system time, so tests can move time).
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

    /// The signature, algorithm and type of `token`, and its claims with
    /// their expiry (not judged here). An audience makes it an app token
    /// (that audience, and the issuer); without one it is a session token.
    fn check(&self, token: &str) -> Result<(i64, Verified), TokenError> {
        let header = jsonwebtoken::decode_header(token).map_err(|_| TokenError::Invalid)?;
        if header.alg != Algorithm::HS256 || header.typ.as_deref() != Some(TYP) {
            return Err(TokenError::Invalid);
        }
        let ring = self.ring();
        let Some(key) = header.kid.as_deref().and_then(|kid| ring.by_kid(kid)) else {
            return Err(TokenError::Invalid);
        };
        let mut validation = Validation::new(Algorithm::HS256);
        // Checked when present; which of them must be present is the
        // shape's (below).
        validation.set_issuer(&[ISSUER]);
        validation.set_audience(&[APP_AUDIENCE]);
        validation.validate_exp = false;
        validation.set_required_spec_claims(&["exp", "sub"]);
        let payload = jsonwebtoken::decode::<serde_json::Value>(token, &key.decoding, &validation)
            .map_err(|_| TokenError::Invalid)?
            .claims;
        if payload.get("aud").is_some() {
            let c: AppTokenClaims =
                serde_json::from_value(payload).map_err(|_| TokenError::Invalid)?;
            if c.aud != APP_AUDIENCE || c.iss != ISSUER {
                return Err(TokenError::Invalid);
            }
            return Ok((
                c.exp,
                Verified::App {
                    key_id: c.sub,
                    developer: c.dev,
                },
            ));
        }
        let claims: Claims =
            serde_json::from_value(payload.clone()).map_err(|_| TokenError::Invalid)?;
        // Closed: the payload is exactly what its claims say, with no field
        // besides them at any depth.
        if serde_json::to_value(&claims).ok() != Some(payload) {
            return Err(TokenError::Invalid);
        }
        let session = claims.jti.parse().map_err(|_| TokenError::Invalid)?;
        Ok((claims.exp, Verified::Session { claims, session }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alyt_domain::ManualClock;
    use alyt_domain::access::{ClientGrant, HouseholdRole, PlatformRole, TenantRole};
    use alyt_domain::ids::{ClientId, TenantId, UserId};
    use std::collections::{BTreeMap, BTreeSet};

    const SECRET: &[u8] = b"0123456789abcdef0123456789abcdef";

    fn claims(now: i64) -> Claims {
        Claims {
            sub: UserId::new(),
            email: "a@example.com".into(),
            platform_role: None,
            tenants: BTreeMap::new(),
            clients: BTreeMap::new(),
            iat: now,
            exp: now + SESSION_TOKEN_SECONDS,
            jti: SessionId::new().to_string(),
        }
    }

    fn clock() -> ManualClock {
        ManualClock::new(time::macros::datetime!(2026-06-01 12:00 UTC))
    }

    /// The payload of `token`, read without checking anything.
    fn payload(token: &str) -> serde_json::Value {
        let body = token.split('.').nth(1).unwrap();
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(body).unwrap()).unwrap()
    }

    /// `token` with its payload replaced by `json`, signed again with
    /// `SECRET` under the same header: a token this platform could have
    /// issued, with another body.
    fn resigned(token: &str, json: &serde_json::Value) -> String {
        let header = jsonwebtoken::decode_header(token).unwrap();
        jsonwebtoken::encode(&header, json, &EncodingKey::from_secret(SECRET)).unwrap()
    }

    fn keys(json: &serde_json::Value) -> BTreeSet<&str> {
        json.as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect()
    }

    #[test]
    fn a_session_token_verifies_with_its_session_until_it_expires() {
        let clock = clock();
        let signer = TokenSigner::from_secret("k1", SECRET);
        let c = claims(clock.unix_seconds());
        let token = signer.issue_session(&c);
        assert_eq!(
            signer.verify(&token, &clock).unwrap(),
            Verified::Session {
                claims: c.clone(),
                session: c.jti.parse().unwrap(),
            }
        );
        clock.advance(time::Duration::seconds(SESSION_TOKEN_SECONDS));
        assert_eq!(signer.verify(&token, &clock), Err(TokenError::Expired));
    }

    #[test]
    fn a_session_token_carries_exactly_the_spec_claims() {
        let clock = clock();
        let signer = TokenSigner::from_secret("k1", SECRET);
        let mut c = claims(clock.unix_seconds());
        let spec = ["sub", "email", "tenants", "clients", "iat", "exp", "jti"];
        let token = signer.issue_session(&c);
        assert_eq!(keys(&payload(&token)), spec.into_iter().collect());

        // With every claim filled in: platformRole joins, and nothing else.
        c.platform_role = Some(PlatformRole::Staff);
        let tenant = TenantId::new();
        c.tenants.insert(tenant, TenantRole::Admin);
        c.clients.insert(
            ClientId::new(),
            ClientGrant {
                role: HouseholdRole::Owner,
                tenant_id: tenant,
                property_id: None,
            },
        );
        let full = payload(&signer.issue_session(&c));
        assert_eq!(
            keys(&full),
            spec.into_iter().chain(["platformRole"]).collect()
        );
        let header = jsonwebtoken::decode_header(&token).unwrap();
        assert_eq!(header.alg, Algorithm::HS256);
        assert_eq!(header.typ.as_deref(), Some("at+jwt"));
        assert_eq!(header.kid.as_deref(), Some("k1"));
    }

    #[test]
    fn a_session_token_with_any_other_claim_is_refused() {
        let clock = clock();
        let signer = TokenSigner::from_secret("k1", SECRET);
        let mut c = claims(clock.unix_seconds());
        let tenant = TenantId::new();
        c.clients.insert(
            ClientId::new(),
            ClientGrant {
                role: HouseholdRole::Member,
                tenant_id: tenant,
                property_id: None,
            },
        );
        let token = signer.issue_session(&c);
        let genuine = payload(&token);
        assert_eq!(
            signer.verify(&resigned(&token, &genuine), &clock),
            Ok(Verified::Session {
                claims: c.clone(),
                session: c.jti.parse().unwrap(),
            }),
            "signed again unchanged, it still verifies"
        );
        // The claims tokens carried before, one at a time, and any other.
        for (field, value) in [
            ("aud", serde_json::json!("alyt:household")),
            ("iss", serde_json::json!("alyt")),
            ("sid", serde_json::json!(c.jti)),
            ("dev", serde_json::json!(DeveloperId::new())),
            ("nbf", serde_json::json!(c.iat)),
            ("platformRole", serde_json::Value::Null),
        ] {
            let mut extra = genuine.clone();
            extra[field] = value;
            assert_eq!(
                signer.verify(&resigned(&token, &extra), &clock),
                Err(TokenError::Invalid),
                "{field}"
            );
        }
        // Closed at every depth: a grant with a field of its own.
        let mut nested = genuine.clone();
        let grant = nested["clients"].as_object_mut().unwrap().values_mut();
        grant.into_iter().next().unwrap()["extra"] = true.into();
        assert_eq!(
            signer.verify(&resigned(&token, &nested), &clock),
            Err(TokenError::Invalid)
        );
        // No expiry, or a jti that names no session: refused too.
        let mut no_exp = genuine.clone();
        no_exp.as_object_mut().unwrap().remove("exp");
        assert_eq!(
            signer.verify(&resigned(&token, &no_exp), &clock),
            Err(TokenError::Invalid)
        );
        let mut random_jti = genuine.clone();
        random_jti["jti"] = "not-a-session".into();
        assert_eq!(
            signer.verify(&resigned(&token, &random_jti), &clock),
            Err(TokenError::Invalid)
        );
    }

    #[test]
    fn app_and_session_tokens_never_pass_for_each_other() {
        let clock = clock();
        let signer = TokenSigner::from_secret("k1", SECRET);
        let now = clock.unix_seconds();
        let app = signer.issue_app(KeyId::new(), DeveloperId::new(), now);
        let session = signer.issue_session(&claims(now));

        // An app token's payload made to look like a session's, by adding
        // the claims it lacks: the audience still makes it an app token,
        // which must not carry them.
        let mut app_body = payload(&app);
        let as_session = serde_json::to_value(claims(now)).unwrap();
        for (k, v) in as_session.as_object().unwrap() {
            if app_body.get(k).is_none() {
                app_body[k] = v.clone();
            }
        }
        assert_eq!(
            signer.verify(&resigned(&app, &app_body), &clock),
            Err(TokenError::Invalid)
        );
        // The same without its audience: a session token with fields the
        // spec's Claims do not have.
        app_body.as_object_mut().unwrap().remove("aud");
        assert_eq!(
            signer.verify(&resigned(&app, &app_body), &clock),
            Err(TokenError::Invalid)
        );

        // A session token given the app audience (or any other) is not an
        // app token: it has no key, and the wrong shape.
        for aud in [APP_AUDIENCE, "alyt:developer", "alyt:household"] {
            let mut body = payload(&session);
            body["aud"] = aud.into();
            assert_eq!(
                signer.verify(&resigned(&session, &body), &clock),
                Err(TokenError::Invalid),
                "{aud}"
            );
        }
        // An app token with another audience or issuer is refused.
        for (field, value) in [("aud", "alyt:developer"), ("iss", "elsewhere")] {
            let mut body = payload(&app);
            body[field] = value.into();
            assert_eq!(
                signer.verify(&resigned(&app, &body), &clock),
                Err(TokenError::Invalid),
                "{field}"
            );
        }
        assert!(signer.session_of(&app).is_none());
        assert!(signer.session_of(&session).is_some());
    }

    /// `token` with its body changed to claim platform OWNER (the
    /// signature left as it was).
    fn made_owner(token: &str) -> String {
        let mut parts: Vec<String> = token.split('.').map(str::to_owned).collect();
        let mut json = payload(token);
        json["platformRole"] = "OWNER".into();
        parts[1] = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&json).unwrap());
        parts.join(".")
    }

    #[test]
    fn a_known_token_still_expires_and_no_other_string_rides_on_it() {
        let clock = clock();
        let signer = TokenSigner::from_secret("k1", SECRET);
        let c = claims(clock.unix_seconds());
        let good = signer.issue_session(&c);
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
            let token = signer.issue_session(&claims(clock.unix_seconds()));
            assert!(signer.verify(&token, &clock).is_ok());
        }
        assert!(signer.cache().len() <= VERIFIED_CACHE);
    }

    #[test]
    fn foreign_signatures_other_algorithms_and_tampering_are_refused() {
        let clock = clock();
        let signer = TokenSigner::from_secret("k1", SECRET);
        let other = TokenSigner::from_secret("k1", b"another secret of thirty-two b..");
        let token = other.issue_session(&claims(clock.unix_seconds()));
        assert_eq!(signer.verify(&token, &clock), Err(TokenError::Invalid));

        // alg=none with the same body.
        let good = signer.issue_session(&claims(clock.unix_seconds()));
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
        let signer = TokenSigner::from_secret("k1", SECRET);
        let key = KeyId::new();
        let dev = DeveloperId::new();
        let token = signer.issue_app(key, dev, clock.unix_seconds());
        assert_eq!(
            keys(&payload(&token)),
            ["sub", "dev", "aud", "iss", "iat", "exp", "jti"]
                .into_iter()
                .collect()
        );
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

    // Rotation, with the keys in a real (SQLite) store rotated the way an
    // operator's rotation writes them.
    mod rotation {
        use super::*;
        use alyt_store::sqlite::SqliteStore;
        use std::sync::atomic::AtomicBool;

        fn new_key(kid: &str) -> SigningKey {
            SigningKey {
                kid: kid.into(),
                secret: URL_SAFE_NO_PAD.encode(secrets::random_bytes::<32>()),
                previous: None,
            }
        }

        async fn stored(clock: &Arc<ManualClock>) -> (Arc<dyn Store>, TokenSigner) {
            let store: Arc<dyn Store> = Arc::new(SqliteStore::in_memory(clock.clone()).unwrap());
            let source = Arc::new(StoredSigningKeys(store.clone()));
            let signer = TokenSigner::from_source(source, clock.unix_seconds())
                .await
                .unwrap();
            (store, signer)
        }

        fn kid_of(token: &str) -> String {
            jsonwebtoken::decode_header(token).unwrap().kid.unwrap()
        }

        async fn rotate(store: &dyn Store, to: &str) {
            let current = Config(store)
                .signing_key_or(new_key("unused"))
                .await
                .unwrap();
            Config(store)
                .rotate_signing_key(&current.kid, new_key(to))
                .await
                .unwrap();
        }

        #[tokio::test]
        async fn a_token_of_the_previous_key_verifies_until_the_key_after_next() {
            let clock = Arc::new(clock());
            let (store, signer) = stored(&clock).await;
            let before = signer.issue_session(&claims(clock.unix_seconds()));

            rotate(&*store, "k-second").await;
            clock.advance(time::Duration::seconds(60));
            signer.keep_fresh(clock.unix_seconds()).await;
            let after = signer.issue_session(&claims(clock.unix_seconds()));
            assert_eq!(kid_of(&after), "k-second", "new tokens use the new key");
            assert!(signer.verify_fresh(&before, &*clock).await.is_ok());
            assert!(signer.verify_fresh(&after, &*clock).await.is_ok());

            rotate(&*store, "k-third").await;
            clock.advance(time::Duration::seconds(60));
            assert_eq!(
                signer.verify_fresh(&before, &*clock).await,
                Err(TokenError::Invalid),
                "two rotations later the first key is no longer accepted (nor kept as verified)"
            );
            assert!(signer.verify_fresh(&after, &*clock).await.is_ok());
        }

        #[tokio::test]
        async fn a_token_of_a_key_seen_first_elsewhere_makes_the_signer_look_again() {
            let clock = Arc::new(clock());
            let (store, signer) = stored(&clock).await;
            // Another instance rotated and signed at once; this one's
            // refresh is not due for a minute.
            rotate(&*store, "k-elsewhere").await;
            let elsewhere = TokenSigner::from_source(
                Arc::new(StoredSigningKeys(store.clone())),
                clock.unix_seconds(),
            )
            .await
            .unwrap();
            let token = elsewhere.issue_session(&claims(clock.unix_seconds()));
            assert!(signer.verify_fresh(&token, &*clock).await.is_ok());
        }

        #[tokio::test]
        async fn of_two_rotations_from_one_key_only_one_is_made() {
            let clock = Arc::new(clock());
            let (store, _signer) = stored(&clock).await;
            let first = Config(&*store)
                .signing_key_or(new_key("unused"))
                .await
                .unwrap();
            Config(&*store)
                .rotate_signing_key(&first.kid, new_key("k-a"))
                .await
                .unwrap();
            let late = Config(&*store)
                .rotate_signing_key(&first.kid, new_key("k-b"))
                .await;
            assert!(matches!(late, Err(StoreError::ConditionFailed { .. })));
            let now = Config(&*store)
                .signing_key_or(new_key("unused"))
                .await
                .unwrap();
            assert_eq!(now.kid, "k-a");
            assert_eq!(now.previous.map(|p| p.kid), Some(first.kid));
        }

        /// A source that fails when told to: Secrets Manager or the table
        /// briefly unreachable (no real part can be made to fail on cue).
        struct Flaky {
            inner: StoredSigningKeys,
            failing: AtomicBool,
        }

        #[async_trait::async_trait]
        impl SigningKeySource for Flaky {
            async fn keys(&self) -> Result<SigningKeys, StoreError> {
                if self.failing.load(Ordering::Relaxed) {
                    return Err(StoreError::Unavailable("unreachable".into()));
                }
                self.inner.keys().await
            }
            fn refresh_every(&self) -> i64 {
                60
            }
        }

        #[tokio::test]
        async fn an_unreachable_source_keeps_the_keys_held() {
            let clock = Arc::new(clock());
            let store: Arc<dyn Store> = Arc::new(SqliteStore::in_memory(clock.clone()).unwrap());
            let source = Arc::new(Flaky {
                inner: StoredSigningKeys(store.clone()),
                failing: AtomicBool::new(false),
            });
            let signer = TokenSigner::from_source(source.clone(), clock.unix_seconds())
                .await
                .unwrap();
            let token = signer.issue_session(&claims(clock.unix_seconds()));
            source.failing.store(true, Ordering::Relaxed);
            clock.advance(time::Duration::seconds(120));
            let fresh = signer.issue_session(&claims(clock.unix_seconds()));
            assert!(signer.verify_fresh(&token, &*clock).await.is_ok());
            assert!(signer.verify_fresh(&fresh, &*clock).await.is_ok());
        }

        #[tokio::test]
        async fn a_forged_key_id_makes_the_signer_look_again_at_most_every_ten_seconds() {
            let clock = Arc::new(clock());
            let (store, signer) = stored(&clock).await;
            let forged = TokenSigner::from_secret("k-forged", SECRET)
                .issue_session(&claims(clock.unix_seconds()));
            assert_eq!(
                signer.verify_fresh(&forged, &*clock).await,
                Err(TokenError::Invalid)
            );
            // A rotation now is not seen by the next unknown kid within the
            // ten seconds, then is.
            rotate(&*store, "k-next").await;
            let next = TokenSigner::from_source(
                Arc::new(StoredSigningKeys(store.clone())),
                clock.unix_seconds(),
            )
            .await
            .unwrap()
            .issue_session(&claims(clock.unix_seconds()));
            assert_eq!(
                signer.verify_fresh(&next, &*clock).await,
                Err(TokenError::Invalid)
            );
            clock.advance(time::Duration::seconds(UNKNOWN_KID_RECHECK_SECONDS));
            assert!(signer.verify_fresh(&next, &*clock).await.is_ok());
        }
    }
}
