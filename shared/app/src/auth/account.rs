//! A person's account: signing in to a household session, who they are
//! (the Me answer), signing out, and the password reset by mail that the
//! household and developer sides share.

use std::net::IpAddr;

use alyt_domain::access::{Claims, HouseholdRole, Persona, Principal, SessionKind};
use alyt_domain::ids::{ClientId, PropertyId, TenantId};
use alyt_domain::membership::GrantStatus;
use alyt_domain::password::check_password;
use alyt_domain::presence::NEEDS_NETWORK;
use alyt_domain::secret::sha256_hex;
use alyt_mail::reset::{ResetMails, ResetPayload};
use alyt_store::repo::identity::{Sessions, UserRecord, Users, email_key};
use alyt_store::repo::limits::Limits;
use alyt_store::repo::resets::{ResetRequests, ResetSide};
use alyt_store::repo::tenancy::Tenancy;
use alyt_store::repo::tokens::{OneTimeTokens, Purpose};
use serde::Serialize;
use time::OffsetDateTime;

use super::passwords::hash_password_blocking;
use super::sessions::{SessionSigner, TokenPair};
use super::{attempts, credentials, totp};
use crate::{App, Error};

/// Signs a person in to a household session: the password (counted by the
/// failed-attempt limiter, see [`credentials::check`]), then the TOTP code
/// of an account with MFA on.
pub async fn sign_in(
    app: &App,
    signer: &dyn SessionSigner,
    email: &str,
    password: String,
    code: Option<&str>,
    client: Option<IpAddr>,
) -> Result<TokenPair, Error> {
    let user = checked_person(app, email, password, code, client).await?;
    super::sessions::start(app, signer, &user, SessionKind::Household, client).await
}

/// The person whose password (and, with MFA on, TOTP code) this is, the
/// attempt counted like any household sign-in's.
pub async fn checked_person(
    app: &App,
    email: &str,
    password: String,
    code: Option<&str>,
    client: Option<IpAddr>,
) -> Result<UserRecord, Error> {
    let (user, attempt) = credentials::check(app, "login", email, password, client).await?;
    attempt.succeeded(app).await?;
    if user.mfa.as_ref().is_some_and(|m| m.enabled_at.is_some()) {
        totp::require_code(app, &user, code, client).await?;
    }
    Ok(user)
}

/// Signs this household session out: its refresh token family is revoked,
/// so neither the refresh token nor an access token of the session works
/// any more (other sessions of the person stay signed in).
pub async fn sign_out(app: &App, caller: &Principal) -> Result<(), Error> {
    let Principal::Person {
        kind: SessionKind::Household,
        session,
        ..
    } = caller
    else {
        return Err(Error::forbidden(
            "only a household session signs out here (developers: /v1/developers/auth/logout)",
        ));
    };
    Sessions(&*app.store).revoke(*session).await?;
    Ok(())
}

/// The signed-in person of a household session.
pub async fn me(app: &App, caller: &Principal) -> Result<MeResponse, Error> {
    let Principal::Person {
        claims,
        kind: SessionKind::Household,
        ..
    } = caller
    else {
        return Err(Error::unauthorized(
            "this operation needs a household session (sign in with /v1/auth/login)",
        ));
    };
    me_of(app, claims.clone()).await
}

#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Preferences {
    /// 'metric' or 'imperial'; null when the person has not chosen.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub units: Option<String>,
}

#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct MeHome {
    pub client_id: ClientId,
    pub tenant_id: TenantId,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub property_id: Option<PropertyId>,
    pub role: HouseholdRole,
    /// End of a guest's stay.
    #[serde(with = "time::serde::rfc3339::option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub until: Option<OffsetDateTime>,
    /// `active`, `upcoming`, `ended`, or `needs-network` when the network
    /// condition was not met at the last check.
    pub status: GrantStatus,
    /// Why the home is not in the claims, for `needs-network`; null
    /// otherwise.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub message: Option<String>,
}

#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct MeResponse {
    pub claims: Claims,
    pub persona: Persona,
    pub preferences: Preferences,
    /// One entry per grant the person holds, open or not.
    pub homes: Vec<MeHome>,
}

/// The signed-in person: their claims, persona, preferences and the homes
/// they hold (each grant with its status now).
async fn me_of(app: &App, claims: Claims) -> Result<MeResponse, Error> {
    let user = Users(&*app.store)
        .get(claims.sub)
        .await?
        .ok_or_else(|| Error::unauthorized("the account no longer exists"))?;
    let now = app.clock.now();
    let homes = Tenancy(&*app.store)
        .grants_of(user.id)
        .await?
        .into_iter()
        .map(|g| {
            let status = GrantStatus::at(g.starts_at, g.ends_at, now);
            let unmet = g.network.as_ref().is_some_and(|n| n.met == Some(false));
            let (status, message) = if status == GrantStatus::Active && unmet {
                (GrantStatus::NeedsNetwork, Some(NEEDS_NETWORK.to_owned()))
            } else {
                (status, None)
            };
            MeHome {
                client_id: g.client_id,
                tenant_id: g.tenant_id,
                property_id: g.property_id,
                role: g.role,
                until: g.ends_at,
                status,
                message,
            }
        })
        .collect();
    Ok(MeResponse {
        persona: claims.persona(),
        claims,
        preferences: Preferences { units: user.units },
        homes,
    })
}

/// Shared by the household and developer forgot-password operations: records
/// that `side` asked for a reset of `email`'s account, within the address's
/// mail budget.
pub async fn ask_for_reset(app: &App, email: &str, side: ResetSide) -> Result<(), Error> {
    // The request never tells a known address from an unknown one, by its
    // answer or by its work: for any address it reads the email guard, counts
    // the address's reset mails (10 per 15 minutes, whichever side asked) and
    // records a reset request naming the account or none: three store calls
    // (get, update, put), no mail. The link is issued and mailed after the
    // response by ResetMails::deliver: locally by a task of this process,
    // started here for every request alike; hosted by the sweeps function
    // every 2 s (a Lambda is frozen once it has answered, so work left
    // running after the response would not be done).
    let email = email_key(email);
    if email.is_empty() {
        return Err(Error::validation("email", "email must not be empty"));
    }
    let account = Users(&*app.store).id_by_email(&email).await?;
    // Bound the mails one address receives (silently: the answer never changes).
    if within_mail_budget(app, &format!("reset-mail:{email}")).await? {
        ResetRequests(&*app.store)
            .enqueue(side, account, app.clock.unix_seconds())
            .await?;
        if app.deliver_after_response {
            let mails = reset_mails(app);
            tokio::spawn(async move {
                if let Err(e) = mails.deliver().await {
                    tracing::warn!(error = %e, "reset mails wait for the next pass");
                }
            });
        }
    }
    Ok(())
}

/// The reset mails of the API's own process (the local platform delivers
/// them after the response; hosted, the sweeps function builds its own).
pub fn reset_mails(app: &App) -> ResetMails {
    ResetMails {
        store: app.store.clone(),
        clock: app.clock.clone(),
        mailer: app.mailer.clone(),
        public_url: app.public_url.clone(),
    }
}

/// Reset mails one address may get in [`RESET_MAIL_WINDOW_SECONDS`].
pub const RESET_MAILS: i64 = 10;
pub const RESET_MAIL_WINDOW_SECONDS: i64 = 15 * 60;

/// Counts one reset mail for `subject` and says whether it is within the
/// budget (one update that answers the new count, so parallel requests
/// cannot all pass).
async fn within_mail_budget(app: &App, subject: &str) -> Result<bool, Error> {
    let now = app.clock.unix_seconds();
    let window = now - now.rem_euclid(RESET_MAIL_WINDOW_SECONDS);
    let sent = Limits(&*app.store)
        .add_in_window(
            &sha256_hex(subject),
            window,
            1,
            window + 2 * RESET_MAIL_WINDOW_SECONDS,
        )
        .await?;
    Ok(sent <= RESET_MAILS)
}

/// The answer for every dead link: unknown, spent or expired look the same.
pub fn dead_link() -> Error {
    Error::gone("this link is no longer valid; ask for a new one")
}

/// Shared by the household and developer reset operations. A completed reset
/// starts the account's failed-attempt counters over ([`attempts::restart`]);
/// the link itself is never counted by them.
pub async fn reset_with_token(app: &App, token: &str, password: String) -> Result<(), Error> {
    if token.chars().count() < 16 {
        return Err(Error::validation(
            "token",
            "the token has at least 16 characters",
        ));
    }
    // Check the password before spending the token, so a refused password can
    // be corrected with the same link.
    let tokens = OneTimeTokens(&*app.store);
    let hash = sha256_hex(token);
    let users = Users(&*app.store);
    let now = app.clock.unix_seconds();
    let payload: ResetPayload = tokens
        .peek(Purpose::ResetPassword, &hash, now)
        .await?
        .ok_or_else(dead_link)?;
    let user = users.get(payload.user_id).await?.ok_or_else(dead_link)?;
    check_password(&password, &user.email)
        .map_err(|rejected| Error::validation("password", rejected.to_string()))?;
    let spent: Option<ResetPayload> = tokens.consume(Purpose::ResetPassword, &hash, now).await?;
    if spent.is_none() {
        return Err(dead_link());
    }
    // The mailbox is proven: guesses against the old password, from however
    // many addresses, stop keeping the owner out.
    attempts::restart(app, &user.email).await?;
    let phc = hash_password_blocking(password).await;
    users.set_password(user.id, &phc).await?;
    Sessions(&*app.store).revoke_all_of(user.id).await?;
    Ok(())
}
