//! A developer's account: signing in.

use alyt_store::repo::developers::{DeveloperStatus, Developers};
use alyt_store::repo::identity::UserRecord;

use crate::{App, Error};

/// The sign-in's credential work, which the HTTP layer owns: the password
/// check counted by the failed-attempt limiter, marking an attempt a
/// success, and the TOTP code when MFA is on. Its refusals are answered as
/// they are.
#[async_trait::async_trait]
pub trait Credentials: Send + Sync {
    type Error: From<Error> + Send;
    /// A counted attempt, still a failure until [`Credentials::succeeded`].
    type Attempt: Send;

    /// The account whose password this is, and its counted attempt.
    async fn check(&self) -> Result<(UserRecord, Self::Attempt), Self::Error>;

    /// The answer of a wrong password (an account that is not a developer's
    /// answers exactly so, and its attempt stays counted as a failure).
    fn wrong_credentials(&self) -> Self::Error;

    /// Marks the attempt a success.
    async fn succeeded(&self, attempt: Self::Attempt) -> Result<(), Self::Error>;

    /// The account's TOTP code, when MFA is on.
    async fn second_factor(&self, user: &UserRecord) -> Result<(), Self::Error>;
}

/// The developer signing in, once the credentials are right, the account is
/// a developer's and active, and its second factor (when on) was given: the
/// person, for the caller to start a developer session.
pub async fn sign_in<C: Credentials>(app: &App, credentials: &C) -> Result<UserRecord, C::Error> {
    let (user, attempt) = credentials.check().await?;
    let developer = match user.developer_id {
        Some(id) => Developers(&*app.store)
            .get(id)
            .await
            .map_err(Error::from)?
            .filter(|d| d.user_id == user.id),
        None => None,
    };
    // A right password on an account that is not a developer: the same
    // answer, and the attempt stays counted as a failure.
    let Some(developer) = developer else {
        return Err(credentials.wrong_credentials());
    };
    credentials.succeeded(attempt).await?;
    match developer.status {
        DeveloperStatus::Active => {}
        DeveloperStatus::PendingEmail => {
            return Err(Error::forbidden(
                "verify your email address first with the link we mailed you (sign up again with the same address for a new link)",
            )
            .into());
        }
        DeveloperStatus::Suspended => return Err(suspended().into()),
    }
    credentials.second_factor(&user).await?;
    Ok(user)
}

/// The refusal of a suspended developer account.
pub fn suspended() -> Error {
    Error::forbidden("this developer account is suspended; contact support")
}
