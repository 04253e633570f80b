//! A developer's account: sign-up, email verification (with the sandbox's
//! provisioning), signing in and out, password changes and the developer's
//! own record. MFA is [`super::mfa`]'s.
//!
//! Sign-up answers the same whether or not the address has an account, so it
//! cannot be used to find out who is registered: a new address gets a
//! verification link, a verified account gets a "you already have an account"
//! mail. A repeated sign-up of an address nobody verified yet replaces the
//! pending password and profile and sends a new link; each link is bound to the
//! password it was issued with, so only the newest link works (whoever signed up
//! first cannot make the owner of the address activate a password they chose).

use std::net::IpAddr;

use alyt_domain::access::{Principal, SessionKind};
use alyt_domain::password::check_password;
use alyt_domain::secret::{random_token, sha256_hex};
use alyt_mail::Email;
use alyt_store::repo::CreateError;
use alyt_store::repo::developers::{DeveloperRecord, DeveloperStatus, DeveloperType, Developers};
use alyt_store::repo::identity::{Sessions, UserRecord, Users};
use alyt_store::repo::tokens::{OneTimeTokens, Purpose};
use serde::{Deserialize, Serialize};

use super::developer_session;
use super::sandbox::{self, Verification};
use crate::auth::account::dead_link;
use crate::auth::passwords::{hash_password_blocking, verify_password_blocking};
use crate::auth::sessions::{self, SessionSigner, TokenPair};
use crate::auth::{attempts, credentials, totp};
use crate::text::{checked_email, optional_text, required_text};
use crate::{App, Error};

/// A verification link is valid for a day; a reset link for an hour.
pub const VERIFY_EMAIL_SECONDS: i64 = 24 * 3600;
pub use alyt_mail::reset::RESET_PASSWORD_SECONDS;
const DISPLAY_NAME_MAX: usize = 80;
const ORGANISATION_MAX: usize = 120;
const WEBSITE_MAX: usize = 2048;

fn checked_website(value: Option<&str>) -> Result<Option<String>, Error> {
    let website = optional_text("website", value, WEBSITE_MAX)?;
    if let Some(w) = &website {
        let rest = w
            .strip_prefix("https://")
            .or_else(|| w.strip_prefix("http://"));
        if rest.is_none_or(|r| r.is_empty() || r.contains(char::is_whitespace)) {
            return Err(Error::validation(
                "website",
                "website must be an http(s) URL like https://example.com",
            ));
        }
    }
    Ok(website)
}

fn policy(field: &str, password: &str, email: &str) -> Result<(), Error> {
    check_password(password, email)
        .map_err(|rejected| Error::validation(field, rejected.to_string()))
}

async fn send(app: &App, email: Email) -> Result<(), Error> {
    app.mailer.send(email).await.map_err(|e| {
        tracing::warn!(error = %e, "mail could not be sent");
        Error::unavailable("the email could not be sent; try again shortly")
    })
}

/// A sign-up as the person sent it.
pub struct SignUp {
    pub email: String,
    pub password: String,
    pub display_name: String,
    pub kind: DeveloperType,
    pub bot_token: String,
    pub organisation: Option<String>,
    pub website: Option<String>,
}

/// What a verification link carries (stored with the token's hash).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct VerifyPayload {
    developer_id: alyt_domain::ids::DeveloperId,
    user_id: alyt_domain::ids::UserId,
    /// SHA-256 of the password hash the link was issued with: a later sign-up of
    /// the same pending address kills the link.
    password_fingerprint: String,
}

/// Signs a developer up: checks the fields, the password policy and the bot
/// token, and mails a verification link (valid 24 hours, once). The outcome
/// is the same whether or not the address already has an account (that one
/// gets a mail saying so instead).
pub async fn sign_up(app: &App, request: SignUp, remote: Option<IpAddr>) -> Result<(), Error> {
    let sign_up = checked_sign_up(&request)?;
    // Last: a bot-check token is spent when checked, and a refused field above
    // should not cost the person a new challenge.
    if !app.bot_check.verify(&request.bot_token, remote).await {
        return Err(Error::validation(
            "botToken",
            "the bot check failed; solve the challenge again",
        ));
    }
    register_developer(app, sign_up, request.password).await
}

/// A sign-up whose fields passed their checks (the password is checked
/// against the policy but kept apart, to be hashed).
struct CheckedSignUp {
    email: String,
    kind: DeveloperType,
    display_name: String,
    organisation: Option<String>,
    website: Option<String>,
}

fn checked_sign_up(request: &SignUp) -> Result<CheckedSignUp, Error> {
    let email = checked_email(&request.email)?;
    let display_name = required_text("displayName", &request.display_name, DISPLAY_NAME_MAX)?;
    let organisation = optional_text(
        "organisation",
        request.organisation.as_deref(),
        ORGANISATION_MAX,
    )?;
    let website = checked_website(request.website.as_deref())?;
    policy("password", &request.password, &email)?;
    Ok(CheckedSignUp {
        email,
        kind: request.kind,
        display_name,
        organisation,
        website,
    })
}

/// Creates the pending developer and mails the verification link; an address
/// with an account gets either a fresh link (its sign-up is still pending) or
/// a mail saying it is registered. The same outcome either way, so the answer
/// tells nobody whether the address is known.
async fn register_developer(
    app: &App,
    sign_up: CheckedSignUp,
    password: String,
) -> Result<(), Error> {
    // Hashed either way, so a known address answers in the same time.
    let password_hash = hash_password_blocking(password).await;
    let CheckedSignUp {
        email,
        kind,
        display_name,
        organisation,
        website,
    } = sign_up;
    let now = app.clock.now();
    let developers = Developers(&*app.store);
    if let Some(existing) = Users(&*app.store).find_by_email(&email).await? {
        let pending = match existing.developer_id {
            Some(id) => developers
                .get(id)
                .await?
                .filter(|d| d.status == DeveloperStatus::PendingEmail),
            None => None,
        };
        match pending {
            // Nobody proved the address yet: this sign-up replaces the pending one.
            Some(pending) => {
                let developer = DeveloperRecord {
                    kind,
                    display_name,
                    organisation,
                    website,
                    ..pending
                };
                if developers
                    .replace_pending(existing.id, &password_hash, &developer)
                    .await?
                {
                    send_verification(app, &developer, &password_hash).await?;
                }
            }
            None => send(app, already_registered(app, &existing.email)).await?,
        }
        return Ok(());
    }

    let user = UserRecord {
        name: None,
        id: alyt_domain::ids::UserId::new(),
        email: email.clone(),
        password_hash: password_hash.clone(),
        email_verified_at: None,
        platform_role: None,
        tenants: Default::default(),
        developer_id: None,
        mfa: None,
        units: None,
        created_at: now,
    };
    let developer = DeveloperRecord {
        id: alyt_domain::ids::DeveloperId::new(),
        user_id: user.id,
        email,
        kind,
        display_name,
        organisation,
        website,
        status: DeveloperStatus::PendingEmail,
        sandbox_tenant_id: None,
        verified_at: None,
        mfa_enabled_at: None,
        created_at: now,
    };
    let user = UserRecord {
        name: None,
        developer_id: Some(developer.id),
        ..user
    };
    match developers.sign_up(&user, &developer).await {
        Ok(()) => send_verification(app, &developer, &password_hash).await,
        // A concurrent sign-up of the same address won; it sends its own mail.
        Err(CreateError::Taken(_)) => Ok(()),
        Err(CreateError::Store(e)) => Err(e.into()),
    }
}

async fn send_verification(
    app: &App,
    developer: &DeveloperRecord,
    password_hash: &str,
) -> Result<(), Error> {
    let token = random_token();
    let payload = VerifyPayload {
        developer_id: developer.id,
        user_id: developer.user_id,
        password_fingerprint: sha256_hex(password_hash),
    };
    OneTimeTokens(&*app.store)
        .issue(
            Purpose::VerifyEmail,
            &sha256_hex(&token),
            &payload,
            app.clock.unix_seconds() + VERIFY_EMAIL_SECONDS,
        )
        .await?;
    let link = format!(
        "{}/developers/auth/verify-email?token={token}",
        app.public_url
    );
    send(
        app,
        Email {
            to: developer.email.clone(),
            subject: "Verify your email address for Alyt developers".into(),
            text: format!(
                "Hello {name},\n\nconfirm your address to activate your Alyt developer account and your sandbox:\n\n{link}\n\nThe link works once, for 24 hours. If you did not sign up, ignore this message.\n",
                name = developer.display_name
            ),
            link: Some(link),
        },
    )
    .await
}

fn already_registered(app: &App, to: &str) -> Email {
    Email {
        to: to.to_owned(),
        subject: "You already have an Alyt account".into(),
        text: format!(
            "Someone (probably you) tried to sign up for Alyt developers with this address, which already has an account.\n\nSign in with your password, or if you forgot it, ask for a reset with POST {}/developers/auth/forgot-password.\n\nIf it was not you, ignore this message: nothing changed.\n",
            app.public_url
        ),
        link: None,
    }
}

/// Verifies the address with the token from the mailed link: the developer
/// becomes ACTIVE, the sandbox tenant is provisioned (once) and the answer is
/// a developer session. A link works once; unknown, spent and expired links
/// all get the same [`dead_link`] answer.
pub async fn verify_email(
    app: &App,
    signer: &dyn SessionSigner,
    token: &str,
) -> Result<TokenPair, Error> {
    if token.is_empty() {
        return Err(Error::validation("token", "token must not be empty"));
    }
    let hash = sha256_hex(token);
    let tokens = OneTimeTokens(&*app.store);
    let now = app.clock.unix_seconds();
    let payload: VerifyPayload = tokens
        .peek(Purpose::VerifyEmail, &hash, now)
        .await?
        .ok_or_else(dead_link)?;
    let developer = Developers(&*app.store)
        .get(payload.developer_id)
        .await?
        .filter(|d| d.user_id == payload.user_id)
        .ok_or_else(dead_link)?;
    let user = Users(&*app.store)
        .get(payload.user_id)
        .await?
        .ok_or_else(dead_link)?;
    if sha256_hex(&user.password_hash) != payload.password_fingerprint {
        // A newer sign-up of this pending address replaced the password.
        return Err(dead_link());
    }
    if developer.status == DeveloperStatus::Suspended {
        return Err(suspended());
    }
    let (developer, user) =
        match sandbox::verify_and_provision(app, &hash, &developer, &user).await? {
            Verification::Verified { user, developer } => (*developer, *user),
            Verification::TokenDead => return Err(dead_link()),
            // Verified before (another link, or staff): spend this link all the same.
            Verification::AlreadyVerified => {
                let spent: Option<VerifyPayload> =
                    tokens.consume(Purpose::VerifyEmail, &hash, now).await?;
                if spent.is_none() {
                    return Err(dead_link());
                }
                sandbox::reload(app, &developer)
                    .await?
                    .ok_or_else(dead_link)?
            }
        };
    if developer.status != DeveloperStatus::Active {
        return Err(suspended());
    }
    start(app, signer, &user).await
}

/// The refusal of a suspended developer account.
pub fn suspended() -> Error {
    Error::forbidden("this developer account is suspended; contact support")
}

/// Starts a developer session for a person whose credentials were checked.
async fn start(
    app: &App,
    signer: &dyn SessionSigner,
    user: &UserRecord,
) -> Result<TokenPair, Error> {
    sessions::start(app, signer, user, SessionKind::Developer, None).await
}

/// Signs a developer in: the password (counted by the failed-attempt
/// limiter per account and client address), an account that is a
/// developer's and active, then its TOTP code when MFA is on. An unknown
/// email and a wrong password get the same answer in about the same time.
pub async fn sign_in(
    app: &App,
    signer: &dyn SessionSigner,
    email: &str,
    password: String,
    code: Option<&str>,
    client: Option<IpAddr>,
) -> Result<TokenPair, Error> {
    let (user, attempt) = credentials::check(app, "dev-login", email, password, client).await?;
    let developer = match user.developer_id {
        Some(id) => Developers(&*app.store)
            .get(id)
            .await?
            .filter(|d| d.user_id == user.id),
        None => None,
    };
    // A right password on an account that is not a developer: the same
    // answer, and the attempt stays counted as a failure.
    let Some(developer) = developer else {
        return Err(credentials::wrong_credentials());
    };
    attempt.succeeded(app).await?;
    match developer.status {
        DeveloperStatus::Active => {}
        DeveloperStatus::PendingEmail => {
            return Err(Error::forbidden(
                "verify your email address first with the link we mailed you (sign up again with the same address for a new link)",
            ));
        }
        DeveloperStatus::Suspended => return Err(suspended()),
    }
    totp::require_code(app, &user, code, client).await?;
    start(app, signer, &user).await
}

/// Signs this developer session out: its refresh token and access tokens
/// stop working.
pub async fn sign_out(app: &App, caller: &Principal) -> Result<(), Error> {
    let me = developer_session(caller)?;
    Sessions(&*app.store).revoke(me.session).await?;
    Ok(())
}

/// Changes the signed-in developer's password (the current one counted by
/// the failed-attempt limiter): every session of the account is signed out
/// and a fresh one is returned.
pub async fn change_password(
    app: &App,
    signer: &dyn SessionSigner,
    caller: &Principal,
    current_password: String,
    new_password: String,
    client: Option<IpAddr>,
) -> Result<TokenPair, Error> {
    let me = developer_session(caller)?;
    let users = Users(&*app.store);
    let user = users
        .get(me.user)
        .await?
        .ok_or_else(|| Error::unauthorized("the account no longer exists"))?;
    let attempt = attempts::begin(app, "dev-change-password", &user.email, client).await?;
    if !verify_password_blocking(current_password, user.password_hash.clone()).await {
        return Err(Error::validation(
            "currentPassword",
            "the current password is wrong",
        ));
    }
    attempt.succeeded(app).await?;
    policy("newPassword", &new_password, &user.email)?;
    let phc = hash_password_blocking(new_password).await;
    users.set_password(user.id, &phc).await?;
    Sessions(&*app.store).revoke_all_of(user.id).await?;
    let user = UserRecord {
        name: None,
        password_hash: phc,
        ..user
    };
    start(app, signer, &user).await
}

/// The signed-in developer's account (a session only: keys are refused).
pub async fn me(app: &App, caller: &Principal) -> Result<DeveloperRecord, Error> {
    let me = developer_session(caller)?;
    Developers(&*app.store)
        .get(me.developer)
        .await?
        .filter(|d| d.user_id == me.user)
        .ok_or_else(|| Error::unauthorized("the developer account no longer exists"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn websites_are_http_urls() {
        assert_eq!(checked_website(None).unwrap(), None);
        assert_eq!(checked_website(Some("  ")).unwrap(), None);
        assert!(checked_website(Some("https://example.com")).is_ok());
        for bad in ["example.com", "https://", "ftp://x", "javascript:alert(1)"] {
            let e = checked_website(Some(bad)).unwrap_err();
            assert_eq!(e.field.as_deref(), Some("website"), "{bad}");
        }
    }
}
