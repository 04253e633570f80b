//! TOTP for developer accounts (RFC 6238: HMAC-SHA1, 6 digits, 30 s steps, one
//! step of skew). Setup stores a pending secret; enable proves a code from it;
//! from then on sign-in needs a code, and disable needs a fresh one. A code is
//! accepted once: the last accepted step is stored with a conditional write.
//! Only the developer's own session manages it (a key is refused).

use std::net::IpAddr;

use alyt_domain::access::Principal;
use alyt_store::repo::developers::Developers;
use alyt_store::repo::identity::{MfaRecord, UserRecord, Users};
use serde::Serialize;

use super::{SignedIn, active_developer, developer_session};
use crate::auth::totp;
use crate::{App, Error, ErrorKind};

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct MfaSetup {
    /// The shared secret, base32 (for typing into an authenticator app).
    pub secret: String,
    /// The same secret as an `otpauth://totp/...` URI (for a QR code).
    pub otpauth_uri: String,
}

fn six_digits(code: &str) -> Result<(), Error> {
    if code.len() == 6 && code.bytes().all(|b| b.is_ascii_digit()) {
        Ok(())
    } else {
        Err(Error::validation("code", "code must be 6 digits"))
    }
}

async fn signed_in_user(app: &App, caller: &Principal) -> Result<(SignedIn, UserRecord), Error> {
    let me = developer_session(caller)?;
    active_developer(app, &me).await?;
    let user = Users(&*app.store)
        .get(me.user)
        .await?
        .ok_or_else(|| Error::unauthorized("the account no longer exists"))?;
    Ok((me, user))
}

/// Checks `code` against `secret` and spends its step. A wrong or reused code
/// is a bad `code` here (the caller is signed in; the session is fine);
/// attempts count towards the TOTP limit of the account and address.
async fn prove(
    app: &App,
    user: &UserRecord,
    secret: &str,
    code: &str,
    client: Option<std::net::IpAddr>,
) -> Result<(), Error> {
    six_digits(code)?;
    totp::verify(app, user, secret, code, client)
        .await
        .map_err(|e| match e.kind {
            ErrorKind::Unauthorized | ErrorKind::Invalid | ErrorKind::BadRequest => {
                Error::validation(
                    "code",
                    "the code is wrong or was already used; wait for the next one",
                )
            }
            _ => e,
        })
}

fn enabled(user: &UserRecord) -> Option<&MfaRecord> {
    user.mfa.as_ref().filter(|m| m.enabled_at.is_some())
}

/// Starts enrolling TOTP: a new secret, pending until a code from it is proved
/// with [`enable`]. Running it again replaces a pending secret.
pub async fn setup(app: &App, caller: &Principal) -> Result<MfaSetup, Error> {
    let (me, user) = signed_in_user(app, caller).await?;
    if enabled(&user).is_some() {
        return Err(Error::conflict(
            "MFA is already on; disable it before setting up a new secret",
        ));
    }
    let secret = totp::new_secret();
    let otpauth_uri = totp::otpauth_uri(&secret, &user.email)
        .ok_or_else(|| Error::internal("a fresh TOTP secret did not encode"))?;
    let pending = MfaRecord {
        secret_base32: secret.clone(),
        enabled_at: None,
    };
    Developers(&*app.store)
        .set_mfa(me.user, me.developer, Some(&pending))
        .await?;
    Ok(MfaSetup {
        secret,
        otpauth_uri,
    })
}

/// Turns MFA on by proving `code` from the pending secret. From then on
/// sign-in needs a code.
pub async fn enable(
    app: &App,
    caller: &Principal,
    code: &str,
    client: Option<IpAddr>,
) -> Result<(), Error> {
    six_digits(code)?;
    let (me, user) = signed_in_user(app, caller).await?;
    let pending = match &user.mfa {
        Some(m) if m.enabled_at.is_some() => {
            return Err(Error::conflict("MFA is already on"));
        }
        Some(m) => m.clone(),
        None => {
            return Err(Error::conflict(
                "there is no pending secret; run mfa/setup first",
            ));
        }
    };
    prove(app, &user, &pending.secret_base32, code, client).await?;
    let on = MfaRecord {
        enabled_at: Some(app.clock.now()),
        ..pending
    };
    Developers(&*app.store)
        .set_mfa(me.user, me.developer, Some(&on))
        .await?;
    Ok(())
}

/// Turns MFA off; needs a fresh `code` from the enabled secret.
pub async fn disable(
    app: &App,
    caller: &Principal,
    code: &str,
    client: Option<IpAddr>,
) -> Result<(), Error> {
    six_digits(code)?;
    let (me, user) = signed_in_user(app, caller).await?;
    let Some(mfa) = enabled(&user).cloned() else {
        return Err(Error::conflict("MFA is not on"));
    };
    prove(app, &user, &mfa.secret_base32, code, client).await?;
    Developers(&*app.store)
        .set_mfa(me.user, me.developer, None)
        .await?;
    Ok(())
}
