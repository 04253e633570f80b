//! Sending an invitation (what `POST …/invitations`, a guest's stay and a
//! resend share): the invitation record with its first link, the mail with
//! the link, and the reservation keys of guest stays. The use cases are
//! `invitations` (the household's and the invitee's side) and `guests`
//! (stays by reservation key).
//!
//! Two guards live here because every path that mails a link goes through
//! them:
//!
//! * **Who is granted at once.** An address's verified account is granted
//!   at once (and its other sessions signed out). A sandbox tenant
//!   never does ([`grants_accounts_at_once`]): a developer, or any DEV key
//!   with `guests:write`, could otherwise sign any person out and learn which
//!   addresses have accounts. There every address gets an invitation and the
//!   same answer; an existing account accepts the link with its password.
//! * **Mail budgets** ([`spend_mail_budget`]): at most
//!   [`MAILS_PER_ADDRESS_PER_DAY`] invitation mails a day to one address
//!   (from every household together) and [`MAILS_PER_HOUSEHOLD_PER_DAY`]
//!   from one household (sends and resends alike), so nobody can use
//!   invitations to flood an inbox with text they chose. Counted before the
//!   record is written; a refusal takes its count back and is
//!   `TooManyMails`, retried after the end of the day (UTC).

use alyt_domain::access::Principal;
use alyt_domain::ids::{InvitationId, UserId};
use alyt_domain::invitation::LINK_LIFETIME;
use alyt_domain::membership::{GrantTerms, role_words};
use alyt_domain::secret::{random_token, sha256_hex};
use alyt_store::TxWrite;
use alyt_store::repo::identity::{Sessions, UserRecord, Users, email_key};
use alyt_store::repo::invitations::{InvitationError, InvitationRecord, Invitations};
use alyt_store::repo::limits::Limits;
use alyt_store::repo::members::Members;
use alyt_store::repo::tenancy::{ClientRecord, GrantNetwork, PropertyRecord, Tenancy};
use time::OffsetDateTime;

use super::{already_member, stay_key_in_use};
use crate::ports::Email;
use crate::{App, Error};

const RESERVATION_KEY_MAX: usize = 100;
pub(super) const NO_INVITATION: &str = "no such household or pending invitation";

/// The checked terms of a new invitation.
pub(super) struct Terms {
    pub email: String,
    pub name: Option<String>,
    pub grant: GrantTerms,
    pub reservation_key: Option<String>,
    /// The network condition, checked against the household's phones.
    pub network: Option<GrantNetwork>,
}

/// A booking's reservation key: 1-100 letters, digits, `.`, `_`, `:`, `-`.
pub fn checked_reservation_key(key: &str) -> Result<String, Error> {
    let ok = !key.is_empty()
        && key.len() <= RESERVATION_KEY_MAX
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'));
    if !ok {
        return Err(Error::validation(
            "reservationKey",
            format!(
                "a reservation key has 1 to {RESERVATION_KEY_MAX} letters, digits, '.', '_', ':' or '-'"
            ),
        ));
    }
    Ok(key.to_owned())
}

/// Records invitation `id` (with `also`, a guest's stay, in the same
/// transaction) and mails its first link.
pub(super) async fn invite(
    app: &App,
    caller: &Principal,
    household: &ClientRecord,
    home: Option<&PropertyRecord>,
    terms: Terms,
    id: InvitationId,
    also: Vec<TxWrite>,
) -> Result<InvitationRecord, Error> {
    spend_mail_budget(app, household, &terms.email).await?;
    let now = app.clock.now();
    let token = random_token();
    let invitation = InvitationRecord {
        id,
        tenant_id: household.tenant_id,
        client_id: household.id,
        email: terms.email,
        name: terms.name,
        role: terms.grant.role,
        property_id: terms.grant.property_id,
        starts_at: terms.grant.starts_at,
        expires_at: terms.grant.expires_at,
        require_network: terms.network.is_some(),
        phone_thing_id: terms
            .network
            .as_ref()
            .and_then(|n| n.phone_thing_id)
            .map(|id| id.0),
        reservation_key: terms.reservation_key,
        invited_by: caller.user_id(),
        created_at: now,
        sent_at: now,
        link_expires_at: now + LINK_LIFETIME,
        sends: 1,
        token_hash: sha256_hex(&token),
    };
    Invitations(&*app.store)
        .create(&invitation, also)
        .await
        .map_err(invitation_error)?;
    mail_link(app, household, home, &invitation, &token).await;
    tracing::info!(tenant = %household.tenant_id, client = %household.id, invitation = %invitation.id, role = ?invitation.role, "invitation sent");
    Ok(invitation)
}

pub(super) fn invitation_error(e: InvitationError) -> Error {
    match e {
        InvitationError::AlreadyInvited(id) => Error::conflict(format!(
            "this address already has a pending invitation ({id}); resend or withdraw it"
        )),
        InvitationError::Gone => Error::not_found(NO_INVITATION),
        // The only conditioned writes callers add: a guest's stay.
        InvitationError::Refused { .. } => stay_key_in_use(),
        InvitationError::Store(e) => e.into(),
    }
}

/// The page of the console that opens an invitation link.
fn invitation_link(app: &App, token: &str) -> String {
    let site = app
        .public_url
        .strip_suffix("/v1")
        .unwrap_or(&app.public_url);
    format!("{site}/invitation?token={token}")
}

/// Mails the link of `invitation` (the notification channel). A failed
/// mail is logged and the invitation stands: resending sends a new link.
pub(super) async fn mail_link(
    app: &App,
    household: &ClientRecord,
    home: Option<&PropertyRecord>,
    invitation: &InvitationRecord,
    token: &str,
) {
    let link = invitation_link(app, token);
    let greeting = match &invitation.name {
        Some(name) => format!("Hello {name},"),
        None => "Hello,".to_owned(),
    };
    let mut what = format!(
        "You are invited to join {} as {}",
        household.name,
        role_words(invitation.role)
    );
    if let (Some(home), Some(end)) = (home, invitation.expires_at) {
        what.push_str(&format!(
            ", for a stay at {} until {}",
            home.name,
            rfc3339(end)
        ));
    }
    let email = Email {
        to: invitation.email.clone(),
        subject: format!("You are invited to {} on Alyt", household.name),
        text: format!(
            "{greeting}\n\n{what}.\n\nOpen this link to accept (it works once, for 7 days):\n\n{link}\n\nIf you did not expect this, ignore this message: nothing happens unless you accept.\n"
        ),
        link: Some(link),
    };
    if let Err(e) = app.mailer.send(email).await {
        tracing::warn!(invitation = %invitation.id, error = %e, "the invitation mail was not sent; resending sends a new link");
    }
}

fn rfc3339(at: OffsetDateTime) -> String {
    at.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

/// How many times a day the grants others make may sign one person out.
pub const GRANT_SIGN_OUTS_PER_DAY: i64 = 5;

/// Signs `user` out so that a grant just made to their verified account
/// names the household from their next sign-in (Authentication 8: owner
/// changes apply at once), at most [`GRANT_SIGN_OUTS_PER_DAY`] times a day
/// per person: past that the grant waits for the person's next sign-in or
/// refresh (within one access token's life), so nobody can keep signing a
/// person out by granting them homes. Whether they were signed out. One
/// counter update (and the sign-out's writes).
pub(super) async fn sign_out_for_grant(app: &App, user: UserId) -> Result<bool, Error> {
    const DAY: i64 = 86_400;
    let now = app.clock.unix_seconds();
    let day = now - now.rem_euclid(DAY);
    let subject = sha256_hex(format!("grant-sign-out#{user}"));
    let count = Limits(&*app.store)
        .add_in_window(&subject, day, 1, day + 2 * DAY)
        .await?;
    if count > GRANT_SIGN_OUTS_PER_DAY {
        tracing::info!(%user, "grant sign-out budget spent: the grant waits for the next sign-in");
        return Ok(false);
    }
    Sessions(&*app.store).revoke_all_of(user).await?;
    Ok(true)
}

/// Whether a verified account named by its address is granted at once in
/// `household`, or gets an invitation like any address:
/// always the latter in a sandbox tenant. One get.
pub(super) async fn grants_accounts_at_once(
    app: &App,
    household: &ClientRecord,
) -> Result<bool, Error> {
    let tenant = Tenancy(&*app.store).tenant(household.tenant_id).await?;
    Ok(tenant.is_some_and(|t| !t.sandbox))
}

/// The verified account of `email` that `household` grants at once, if
/// any: never in a sandbox (see [`grants_accounts_at_once`]), where every
/// address is invited, account or not. An account that is a member of the
/// household already is refused (409). Three reads: the account by its
/// address, its grant in the household, the tenant.
pub(super) async fn account_granted_at_once(
    app: &App,
    household: &ClientRecord,
    email: &str,
) -> Result<Option<UserRecord>, Error> {
    let account = Users(&*app.store).find_by_email(email).await?;
    if let Some(account) = &account
        && Members(&*app.store)
            .get(household.id, account.id)
            .await?
            .is_some()
    {
        return Err(already_member());
    }
    let at_once = grants_accounts_at_once(app, household).await?;
    Ok(account.filter(|a| at_once && a.email_verified_at.is_some()))
}

/// Invitation mails one address may get a day, from every household.
pub const MAILS_PER_ADDRESS_PER_DAY: i64 = 5;
/// Invitation mails (sends and resends) one household may send a day.
pub const MAILS_PER_HOUSEHOLD_PER_DAY: i64 = 50;

/// Counts one invitation mail to `email` from `household` against both
/// daily budgets, or refuses it (`TooManyMails`) with nothing
/// counted. Two counter updates (two more on a refusal).
pub(super) async fn spend_mail_budget(
    app: &App,
    household: &ClientRecord,
    email: &str,
) -> Result<(), Error> {
    const DAY: i64 = 86_400;
    let now = app.clock.unix_seconds();
    let day = now - now.rem_euclid(DAY);
    let ends = day + DAY;
    let limits = Limits(&*app.store);
    // Hashed: a limit's key never carries the address itself.
    let address = sha256_hex(format!("invitation-mails#{}", email_key(email)));
    let home = sha256_hex(format!("invitation-mails#{}", household.id));
    let refused = |detail: String| Error::too_many_mails((ends - now) as u64, detail);
    if limits.add_in_window(&address, day, 1, ends + DAY).await? > MAILS_PER_ADDRESS_PER_DAY {
        limits.add_in_window(&address, day, -1, ends + DAY).await?;
        return Err(refused(format!(
            "this address got its {MAILS_PER_ADDRESS_PER_DAY} invitation mails for today; send again after midnight UTC"
        )));
    }
    if limits.add_in_window(&home, day, 1, ends + DAY).await? > MAILS_PER_HOUSEHOLD_PER_DAY {
        limits.add_in_window(&home, day, -1, ends + DAY).await?;
        limits.add_in_window(&address, day, -1, ends + DAY).await?;
        return Err(refused(format!(
            "this household sent its {MAILS_PER_HOUSEHOLD_PER_DAY} invitation mails for today; send again after midnight UTC"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservation_keys_are_short_plain_words() {
        for good in ["ABC-123", "b.k:9_x", &"k".repeat(RESERVATION_KEY_MAX)] {
            assert_eq!(checked_reservation_key(good).as_deref(), Ok(good));
        }
        for bad in ["", "a b", "key/1", &"k".repeat(RESERVATION_KEY_MAX + 1)] {
            let refused = checked_reservation_key(bad).unwrap_err();
            assert_eq!(refused.field.as_deref(), Some("reservationKey"), "{bad:?}");
        }
    }
}
