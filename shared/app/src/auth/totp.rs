//! TOTP (RFC 6238: HMAC-SHA1, 6 digits, 30 s) for accounts with MFA on. A code
//! is accepted once: the matched step must be newer than the last accepted one,
//! which the store advances with a conditional write.

use std::net::IpAddr;

use alyt_domain::session::{TOTP_STEP_SECONDS, accept_totp_step, totp_window};
use alyt_store::repo::identity::{UserRecord, Users};
use totp_rs::{Algorithm, Secret, TOTP};

use super::attempts;
use crate::{App, Error};
use alyt_domain::secret::constant_time_eq;

/// A new random secret (160 bits), base32.
pub fn new_secret() -> String {
    Secret::Raw(alyt_domain::secret::random_bytes::<20>().to_vec())
        .to_encoded()
        .to_string()
}

fn totp_for(secret_base32: &str, account: &str) -> Option<TOTP> {
    let bytes = Secret::Encoded(secret_base32.to_owned()).to_bytes().ok()?;
    Some(TOTP::new_unchecked(
        Algorithm::SHA1,
        6,
        0,
        TOTP_STEP_SECONDS as u64,
        bytes,
        Some("Alyt".into()),
        account.replace(':', ""),
    ))
}

fn totp(secret_base32: &str) -> Option<TOTP> {
    totp_for(secret_base32, "account")
}

/// The `otpauth://` URI an authenticator app scans.
pub fn otpauth_uri(secret_base32: &str, account: &str) -> Option<String> {
    Some(totp_for(secret_base32, account)?.get_url())
}

/// The code for `unix_seconds` (tests and enrolment checks).
pub fn code_at(secret_base32: &str, unix_seconds: i64) -> Option<String> {
    Some(totp(secret_base32)?.generate(unix_seconds.max(0) as u64))
}

/// Steps within the skew window whose code equals `code`.
pub fn matching_steps(secret_base32: &str, code: &str, unix_seconds: i64) -> Vec<i64> {
    let Some(totp) = totp(secret_base32) else {
        return Vec::new();
    };
    totp_window(unix_seconds)
        .filter(|step| {
            let expected = totp.generate((step * TOTP_STEP_SECONDS).max(0) as u64);
            constant_time_eq(expected.as_bytes(), code.as_bytes())
        })
        .collect()
}

fn is_six_digits(code: &str) -> bool {
    code.len() == 6 && code.bytes().all(|b| b.is_ascii_digit())
}

/// Checks a code against `secret_base32` for `user` and spends its step.
/// Attempts are counted per account and client address, and per account
/// over every address, before the code is checked (see [`attempts`]); past
/// a limit the answer is 429.
pub async fn verify(
    app: &App,
    user: &UserRecord,
    secret_base32: &str,
    code: &str,
    client: Option<IpAddr>,
) -> Result<(), Error> {
    if !is_six_digits(code) {
        return Err(Error::validation("totp", "a TOTP code is 6 digits"));
    }
    let attempt = attempts::begin(app, "totp", &user.email, client).await?;
    let steps = matching_steps(secret_base32, code, app.clock.unix_seconds());
    // The stored last step decides; the conditional write makes it race-free.
    let accepted = match accept_totp_step(&steps, None) {
        Some(step) => Users(&*app.store).accept_totp_step(user.id, step).await?,
        None => false,
    };
    if !accepted {
        return Err(
            Error::unauthorized("the TOTP code is wrong or was already used").with_field("totp"),
        );
    }
    attempt.succeeded(app).await
}

/// For sign-in of an account with MFA on: a code must come with the password.
pub async fn require_code(
    app: &App,
    user: &UserRecord,
    code: Option<&str>,
    client: Option<IpAddr>,
) -> Result<(), Error> {
    let Some(mfa) = user.mfa.as_ref().filter(|m| m.enabled_at.is_some()) else {
        return Ok(());
    };
    let Some(code) = code else {
        return Err(
            Error::unauthorized("this account needs a TOTP code: send it as totp")
                .with_field("totp"),
        );
    };
    verify(app, user, &mfa.secret_base32, code, client).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_match_their_step_and_one_either_side() {
        let secret = new_secret();
        let t = 1_800_000_000;
        let code = code_at(&secret, t).unwrap();
        assert_eq!(code.len(), 6);
        let step = t / TOTP_STEP_SECONDS;
        assert!(matching_steps(&secret, &code, t).contains(&step));
        assert!(matching_steps(&secret, &code, t + TOTP_STEP_SECONDS).contains(&step));
        assert!(!matching_steps(&secret, &code, t + 3 * TOTP_STEP_SECONDS).contains(&step));
        let uri = otpauth_uri(&secret, "dev@example.com").unwrap();
        assert!(
            uri.starts_with("otpauth://totp/Alyt:dev%40example.com?secret="),
            "{uri}"
        );
    }
}
