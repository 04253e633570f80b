//! Checking an email and password, the same way for every kind of sign-in: the
//! attempt is counted first (see [`attempts`]: per account and client address,
//! and per account over every address, before the password is checked; an
//! unknown address is counted like a known one), then a verify that costs the
//! same whether or not the account exists (a decoy hash for unknown
//! addresses), then one answer for every failure, so neither timing nor
//! wording tells whether an address exists.

use std::net::IpAddr;

use alyt_store::repo::identity::{UserRecord, Users, email_key};

use super::attempts::{self, Attempt};
use super::passwords::{decoy_hash, verify_password_blocking};
use crate::{App, Error};

pub fn wrong_credentials() -> Error {
    Error::unauthorized("the email or the password is wrong")
}

/// The account whose password this is, and the counted attempt: the caller
/// calls [`Attempt::succeeded`] once it accepts the sign-in (an attempt left
/// alone counts as a failure). `purpose` names the attempt counter ("login",
/// "dev-login").
pub async fn check(
    app: &App,
    purpose: &str,
    email: &str,
    password: String,
    client: Option<IpAddr>,
) -> Result<(UserRecord, Attempt), Error> {
    let email = email_key(email);
    let attempt = attempts::begin(app, purpose, &email, client).await?;
    let user = Users(&*app.store).find_by_email(&email).await?;
    let hash = user
        .as_ref()
        .map(|u| u.password_hash.clone())
        .unwrap_or_else(|| decoy_hash().to_owned());
    let password_ok = verify_password_blocking(password, hash).await;
    match user.filter(|_| password_ok) {
        Some(user) => Ok((user, attempt)),
        None => Err(wrong_credentials()),
    }
}
