//! Helpers for tests that need a developer: sign-up through the verification
//! link in the platform's outbox (the local one, or the emulated SES's), sessions, keys, TOTP codes and JWT payloads.
//!
//! ```text
//! let t = TestPlatform::start().await;
//! let dev = developers::sign_up_and_verify(&t, "dev@example.com").await;
//! let (key_id, secret) = developers::create_key(&t, &dev, &["devices:read"]).await;
//! ```

use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};

use crate::Target;

/// A password the policy accepts.
pub const PASSWORD: &str = "plum tractor season 42";
/// Turnstile's test token, which the local bot check accepts.
pub const BOT_TOKEN: &str = "XXXX.DUMMY.TOKEN.XXXX";

/// A signed-in developer.
#[derive(Debug, Clone)]
pub struct DeveloperSession {
    pub email: String,
    pub password: String,
    pub access_token: String,
    pub refresh_token: String,
    pub developer_id: String,
    pub user_id: String,
    pub sandbox_tenant_id: String,
}

impl DeveloperSession {
    pub fn bearer(&self) -> String {
        bearer(&self.access_token)
    }
}

pub fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

/// A valid sign-up body.
pub fn sign_up_body(email: &str, password: &str) -> Value {
    json!({
        "email": email,
        "password": password,
        "displayName": "Test Developer",
        "type": "INDIVIDUAL",
        "botToken": BOT_TOKEN,
    })
}

pub async fn post_json(t: &impl Target, path: &str, body: &Value) -> reqwest::Response {
    t.http().post(t.url(path)).json(body).send().await.unwrap()
}

pub async fn sign_up(t: &impl Target, email: &str, password: &str) -> reqwest::Response {
    post_json(t, "/developers/auth/signup", &sign_up_body(email, password)).await
}

/// One message of the outbox.
#[derive(Debug, Clone)]
pub struct Mail {
    pub file: PathBuf,
    pub to: String,
    pub subject: String,
    pub body: String,
}

impl Mail {
    /// The first link in the body whose text contains `fragment`.
    pub fn link(&self, fragment: &str) -> Option<String> {
        self.body
            .split_whitespace()
            .find(|w| w.starts_with("http") && w.contains(fragment))
            .map(str::to_owned)
    }
}

/// Every message in the outbox, oldest first (file names are UUIDv7).
pub fn outbox(t: &impl Target) -> Vec<Mail> {
    let dir = t.outbox_dir();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "eml"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|file| {
            let text = std::fs::read_to_string(&file).unwrap();
            let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
            let header = |name: &str| {
                head.split("\r\n")
                    .find_map(|l| l.strip_prefix(name))
                    .unwrap_or_default()
                    .trim()
                    .to_owned()
            };
            Mail {
                to: header("To:"),
                subject: header("Subject:"),
                body: body.replace("\r\n", "\n"),
                file,
            }
        })
        .collect()
}

/// Messages to `to` (compared ignoring case), oldest first.
pub fn mails_to(t: &impl Target, to: &str) -> Vec<Mail> {
    outbox(t)
        .into_iter()
        .filter(|m| m.to.eq_ignore_ascii_case(to))
        .collect()
}

/// The newest link to `to` whose text contains `fragment` (e.g. `verify-email`).
pub fn newest_link(t: &impl Target, to: &str, fragment: &str) -> Option<String> {
    mails_to(t, to).iter().rev().find_map(|m| m.link(fragment))
}

/// [`newest_link`], waiting up to 10 s for it: for mail that leaves after
/// the response (password resets), and for any mail of the hosted stack,
/// where SES hands a message on after accepting it (the emulated region
/// writes it to its outbox within about 50 ms).
pub async fn wait_for_link(t: &impl Target, to: &str, fragment: &str) -> Option<String> {
    for _ in 0..200 {
        if let Some(link) = newest_link(t, to, fragment) {
            return Some(link);
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    None
}

/// The `token` query parameter of a link.
pub fn token_of(link: &str) -> String {
    link.split_once("token=")
        .map(|(_, rest)| rest.split('&').next().unwrap_or_default().to_owned())
        .expect("the link carries a token")
}

/// Accepts the newest invitation link mailed to `to` with `body` (a new
/// person's `name` and `password`, or an existing account's `password`):
/// the answer (200 with a token pair when it worked). This is how an
/// existing account joins a sandbox household, which never grants at once.
pub async fn accept_mailed_invitation(t: &impl Target, to: &str, body: Value) -> (u16, Value) {
    let link = newest_link(t, to, "/invitation?token=").expect("an invitation was mailed");
    let token = token_of(&link);
    t.post_json(&format!("/auth/invitations/{token}/accept"), None, body)
        .await
}

/// Signs up `email` with [`PASSWORD`], follows the verification link from the
/// outbox and returns the developer session, with ids from `GET /developers/me`.
pub async fn sign_up_and_verify(t: &impl Target, email: &str) -> DeveloperSession {
    sign_up_and_verify_with(t, email, PASSWORD).await
}

pub async fn sign_up_and_verify_with(
    t: &impl Target,
    email: &str,
    password: &str,
) -> DeveloperSession {
    let response = sign_up(t, email, password).await;
    assert_eq!(response.status(), 202, "{}", response.text().await.unwrap());
    let link = wait_for_link(t, email, "verify-email")
        .await
        .expect("a verification mail");
    // Held across the tests' runtimes (a tokio mutex is not tied to one).
    static VERIFYING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    let one_at_a_time = match t.one_verification_at_a_time() {
        true => Some(VERIFYING.lock().await),
        false => None,
    };
    let response = t.http().get(&link).send().await.unwrap();
    drop(one_at_a_time);
    assert_eq!(response.status(), 200, "{}", response.text().await.unwrap());
    let tokens: Value = response.json().await.unwrap();
    let access_token = tokens["accessToken"].as_str().unwrap().to_owned();
    let me = get_me(t, &access_token).await;
    DeveloperSession {
        email: email.to_owned(),
        password: password.to_owned(),
        refresh_token: tokens["refreshToken"].as_str().unwrap().to_owned(),
        developer_id: me["id"].as_str().unwrap().to_owned(),
        user_id: me["userId"].as_str().unwrap().to_owned(),
        sandbox_tenant_id: me["sandboxTenantId"]
            .as_str()
            .expect("a sandbox")
            .to_owned(),
        access_token,
    }
}

/// `GET /developers/me`, which must answer 200.
/// The first home of a developer's sandbox and the household it belongs to.
pub struct SandboxHome {
    pub property_id: String,
    pub client_id: String,
}

pub async fn sandbox_home(t: &impl Target, dev: &DeveloperSession) -> SandboxHome {
    let (status, homes) = t
        .get_json(
            &format!("/properties?tenantId={}", dev.sandbox_tenant_id),
            Some(&dev.access_token),
        )
        .await;
    assert_eq!(status, 200, "{homes}");
    SandboxHome {
        property_id: homes["items"][0]["id"].as_str().unwrap().to_owned(),
        client_id: homes["items"][0]["clientId"].as_str().unwrap().to_owned(),
    }
}

pub async fn get_me(t: &impl Target, access_token: &str) -> Value {
    let response = t
        .http()
        .get(t.url("/developers/me"))
        .header("authorization", bearer(access_token))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "{}", response.text().await.unwrap());
    response.json().await.unwrap()
}

/// `POST /developers/auth/login`.
pub async fn login(
    t: &impl Target,
    email: &str,
    password: &str,
    totp: Option<&str>,
) -> reqwest::Response {
    let mut body = json!({ "email": email, "password": password });
    if let Some(code) = totp {
        body["totp"] = code.into();
    }
    post_json(t, "/developers/auth/login", &body).await
}

/// Creates a DEV key with `scopes`; returns its id and its secret.
pub async fn create_key(
    t: &impl Target,
    session: &DeveloperSession,
    scopes: &[&str],
) -> (String, String) {
    let created = create_key_response(t, session, scopes).await;
    (
        created["id"].as_str().unwrap().to_owned(),
        created["secret"].as_str().unwrap().to_owned(),
    )
}

/// Creates a DEV key with `scopes`; returns the whole 201 body.
pub async fn create_key_response(
    t: &impl Target,
    session: &DeveloperSession,
    scopes: &[&str],
) -> Value {
    let response = t
        .http()
        .post(t.url("/developers/keys"))
        .header("authorization", session.bearer())
        .json(&json!({ "name": "test key", "scopes": scopes }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201, "{}", response.text().await.unwrap());
    response.json().await.unwrap()
}

/// Issues a LIVE key to a developer as platform staff (`staff_token`: a
/// platform OWNER or STAFF session) for the connector definition
/// `definition_id`; returns the whole 201 body (the key and its secret).
pub async fn issue_live_key(
    t: &impl Target,
    staff_token: &str,
    developer_id: &str,
    scopes: &[&str],
    definition_id: &str,
) -> Value {
    let response = t
        .http()
        .post(t.url(&format!(
            "/developers/admin/developers/{developer_id}/live-keys"
        )))
        .header("authorization", bearer(staff_token))
        .json(&json!({ "name": "live key", "scopes": scopes, "definitionId": definition_id }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201, "{}", response.text().await.unwrap());
    response.json().await.unwrap()
}

/// Exchanges App ID + App secret for an app token (the whole 200 body).
pub async fn app_token(t: &impl Target, key_id: &str, secret: &str) -> reqwest::Response {
    post_json(
        t,
        "/developers/apps/token",
        &json!({ "appId": key_id, "appSecret": secret }),
    )
    .await
}

/// The payload of a JWT, decoded (not verified).
pub fn jwt_payload(token: &str) -> Value {
    let payload = token.split('.').nth(1).expect("a JWT has three parts");
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap()
}

/// TOTP: the RFC 6238 code (HMAC-SHA1, 6 digits, 30 s) of `step` for a base32 secret.
pub fn totp_at_step(secret_base32: &str, step: i64) -> String {
    let bytes = totp_rs::Secret::Encoded(secret_base32.to_owned())
        .to_bytes()
        .expect("a base32 secret");
    totp_rs::TOTP::new_unchecked(
        totp_rs::Algorithm::SHA1,
        6,
        1,
        30,
        bytes,
        None,
        String::new(),
    )
    .generate((step * 30) as u64)
}

/// The current TOTP step of the wall clock (the local platform's clock).
pub fn current_step() -> i64 {
    (SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
        / 30) as i64
}

/// A code the platform has not accepted yet: the step after `last` (or the
/// oldest one the one-step skew allows), waiting only if that step is not yet
/// within the skew. Advances `last`.
pub async fn fresh_code(secret_base32: &str, last: &mut Option<i64>) -> String {
    let step = last.map_or(current_step() - 1, |l| (l + 1).max(current_step() - 1));
    while step > current_step() + 1 {
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    *last = Some(step);
    totp_at_step(secret_base32, step)
}

/// A connector descriptor of the spec that passes every check, for a
/// version numbered `semver`.
pub fn descriptor(name: &str, semver: &str) -> Value {
    json!({
        "kind": "LAN_LIGHTS",
        "name": name,
        "icon": "lightbulb-group",
        "promise": "Your LAN lights in your rooms",
        "connectivity": "local",
        "brings": ["light", "switch"],
        "connect": {
            "method": "form",
            "fields": [{ "key": "host", "label": "Bridge address", "kind": "text", "secret": false, "required": true }]
        },
        "discovery": { "verb": "Find lights" },
        "disconnect": { "consequence": "The lights leave your rooms." },
        "author": { "kind": "maker", "name": "Test Developer" },
        "version": semver,
        "source": "installed",
        "visibility": "public",
        "verification": { "level": "declared" },
        "listed": true
    })
}

/// Creates a connector of the developer (its server at `server_url`);
/// returns the connector's id.
pub async fn create_connector(
    t: &impl Target,
    dev: &DeveloperSession,
    slug: &str,
    server_url: &str,
) -> String {
    let (status, body) = t
        .post_json(
            "/developers/connectors",
            Some(&dev.access_token),
            json!({ "slug": slug, "name": slug, "serverUrl": server_url }),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    body["connector"]["id"].as_str().unwrap().to_owned()
}

/// Submits version `semver` of a connector; returns the 201 body.
pub async fn submit_version(
    t: &impl Target,
    dev: &DeveloperSession,
    connector: &str,
    semver: &str,
) -> Value {
    let (status, body) = t
        .post_json(
            "/developers/submissions",
            Some(&dev.access_token),
            json!({
                "connectorId": connector,
                "semver": semver,
                "descriptor": descriptor("LAN lights", semver),
                "prose": "Lights on the household's network.",
                "aiDeclaration": "none",
            }),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    body
}

/// A staff review move (`approve`, `reject`, `request-changes`, `publish`,
/// `deprecate`) with an optional note; the status and body.
pub async fn review(
    t: &impl Target,
    staff_token: &str,
    version: &str,
    action: &str,
    note: Option<&str>,
) -> (u16, Value) {
    let body = note.map(|note| json!({ "note": note }));
    t.send_json(
        "POST",
        &format!("/developers/admin/submissions/{version}/{action}"),
        Some(staff_token),
        body,
    )
    .await
}

/// Submits version 1.0.0 of the developer's connector and has staff
/// approve it (what a LIVE key needs); returns the version's id.
pub async fn approve_connector(
    t: &impl Target,
    staff_token: &str,
    dev: &DeveloperSession,
    connector: &str,
) -> String {
    let version = submit_version(t, dev, connector, "1.0.0").await["versionId"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, body) = review(t, staff_token, &version, "approve", None).await;
    assert_eq!(status, 200, "{body}");
    version
}
