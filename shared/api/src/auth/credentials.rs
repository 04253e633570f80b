//! Checking an email and password, the same way for every kind of sign-in: the
//! failed-attempt limit first, then a verify that costs the same whether or not
//! the account exists (a decoy hash for unknown addresses), then one answer for
//! every failure, so neither timing nor wording tells whether an address exists.

use alyt_store::repo::identity::{UserRecord, Users, email_key};

use super::attempts;
use super::secrets::{decoy_hash, verify_password_blocking};
use crate::{ApiError, AppState};

pub fn wrong_credentials() -> ApiError {
    ApiError::unauthorized("the email or the password is wrong")
}

/// The account whose password this is. `purpose` names the attempt counter
/// ("login", "dev-login"): failures are counted per purpose and address.
pub async fn check(
    state: &AppState,
    purpose: &str,
    email: &str,
    password: String,
) -> Result<UserRecord, ApiError> {
    let email = email_key(email);
    attempts::check(state, purpose, &email).await?;
    let user = Users(&*state.store).find_by_email(&email).await?;
    let hash = user
        .as_ref()
        .map(|u| u.password_hash.clone())
        .unwrap_or_else(|| decoy_hash().to_owned());
    let password_ok = verify_password_blocking(password, hash).await;
    match user.filter(|_| password_ok) {
        Some(user) => Ok(user),
        None => Err(refuse(state, purpose, &email).await),
    }
}

/// Counts a failure and gives the one answer (for checks after the password,
/// such as "this account is not a developer").
pub async fn refuse(state: &AppState, purpose: &str, email: &str) -> ApiError {
    match attempts::record_failure(state, purpose, &email_key(email)).await {
        Ok(()) => wrong_credentials(),
        Err(e) => e,
    }
}
