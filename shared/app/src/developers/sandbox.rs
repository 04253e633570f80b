//! A developer's email verification and sandbox: one transaction spends the
//! verification token, moves the developer to ACTIVE and creates the sandbox
//! tenant (code in the reserved X band) with one household, one home, four
//! rooms and the developer as the tenant's ADMIN and the household's OWNER.
//! The developer write is conditioned on there being no sandbox yet, so
//! however often (or concurrently) verification runs, there is one sandbox.
//! Then the five virtual devices of a fresh sandbox are registered in its
//! rooms ([`super::simulator::provision_sandbox`]); that never fails the
//! verification. Who may verify is the caller's decision (the mailed link's
//! holder, or platform staff).

use alyt_domain::access::TenantRole;
use alyt_domain::ids::TenantId;
use alyt_store::repo::developers::{DeveloperRecord, DeveloperStatus, Developers, verify_writes};
use alyt_store::repo::identity::{UserRecord, Users};
use alyt_store::repo::tenancy::{
    CreatedHome, NewHome, TenantRecord, create_tenant_writes, new_home_writes,
};
use alyt_store::repo::tokens::{Purpose, consume_write};
use alyt_store::{CancelReason, StoreError, TxWrite};
use rand::Rng;

use super::simulator::provision_sandbox;
use crate::{App, Error};

/// The rooms of every sandbox home.
pub const SANDBOX_ROOMS: [&str; 4] = ["Living Room", "Kitchen", "Bedroom", "Office"];
pub const SANDBOX_HOUSEHOLD: &str = "Sandbox household";
pub const SANDBOX_HOME: &str = "Sandbox home";

/// Attempts before giving up on drawing a free tenant code (36^7 codes: a
/// collision is rare, several in a row mean something else is wrong).
const CODE_ATTEMPTS: usize = 5;

const CODE_CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/// A sandbox tenant code: `X` and 7 random uppercase letters or digits.
pub fn sandbox_code() -> String {
    let mut rng = rand::rng();
    let mut code = String::with_capacity(8);
    code.push('X');
    for _ in 0..7 {
        code.push(char::from(
            CODE_CHARS[rng.random_range(0..CODE_CHARS.len())],
        ));
    }
    code
}

/// How a verification ended.
#[derive(Debug)]
pub enum Verification {
    /// Verified now (and the sandbox created); the records as they are now.
    Verified {
        user: Box<UserRecord>,
        developer: Box<DeveloperRecord>,
    },
    /// The developer already has its sandbox (verified before): nothing was
    /// written and the token was not spent.
    AlreadyVerified,
    /// The token was unknown, spent or expired when the transaction ran.
    TokenDead,
}

// Positions of the writes whose failure means something specific.
const TOKEN_WRITE: usize = 0;
const DEVELOPER_WRITE: usize = 1;
const CODE_GUARD_WRITE: usize = 4;

struct Plan {
    writes: Vec<TxWrite>,
    user: UserRecord,
    developer: DeveloperRecord,
    home: CreatedHome,
}

fn plan(
    app: &App,
    token_hash: &str,
    developer: &DeveloperRecord,
    user: &UserRecord,
) -> Result<Plan, StoreError> {
    let now = app.clock.now();
    let tenant = TenantRecord {
        id: TenantId::new(),
        name: format!("{} (sandbox)", developer.display_name),
        code: sandbox_code(),
        sandbox: true,
        developer_id: Some(developer.id),
        created_at: now,
    };
    let mut verified_user = user.clone();
    verified_user.tenants.insert(tenant.id, TenantRole::Admin);
    verified_user.email_verified_at = Some(user.email_verified_at.unwrap_or(now));
    let verified_developer = DeveloperRecord {
        status: DeveloperStatus::Active,
        sandbox_tenant_id: Some(tenant.id),
        verified_at: Some(developer.verified_at.unwrap_or(now)),
        ..developer.clone()
    };

    // The order matters: see TOKEN_WRITE, DEVELOPER_WRITE and CODE_GUARD_WRITE.
    let mut writes = vec![consume_write(
        Purpose::VerifyEmail,
        token_hash,
        now.unix_timestamp(),
    )];
    writes.extend(verify_writes(developer, &verified_user, tenant.id, now)?);
    writes.extend(create_tenant_writes(&tenant)?);
    let (home, home_writes) = new_home_writes(NewHome {
        tenant_id: tenant.id,
        household: SANDBOX_HOUSEHOLD,
        household_email: None,
        home: SANDBOX_HOME,
        timezone: "UTC",
        rooms: &SANDBOX_ROOMS,
        owner: user.id,
        now,
    })?;
    writes.extend(home_writes);
    Ok(Plan {
        writes,
        user: verified_user,
        developer: verified_developer,
        home,
    })
}

/// Spends the verification token (by its hash), activates `developer` and
/// provisions its sandbox, all in one transaction.
pub async fn verify_and_provision(
    app: &App,
    token_hash: &str,
    developer: &DeveloperRecord,
    user: &UserRecord,
) -> Result<Verification, Error> {
    if developer.sandbox_tenant_id.is_some() {
        return Ok(Verification::AlreadyVerified);
    }
    let mut last_error = None;
    for _ in 0..CODE_ATTEMPTS {
        let Plan {
            writes,
            user,
            developer,
            home,
        } = plan(app, token_hash, developer, user)?;
        match app.store.transact(writes).await {
            Ok(()) => {
                // The five virtual devices; never fails the verification.
                provision_sandbox(app, &developer, &home).await;
                return Ok(Verification::Verified {
                    user: Box::new(user),
                    developer: Box::new(developer),
                });
            }
            Err(StoreError::TransactionCanceled { reasons }) => {
                let failed = |i: usize| reasons.get(i) == Some(&CancelReason::ConditionFailed);
                if failed(TOKEN_WRITE) {
                    return Ok(Verification::TokenDead);
                }
                if failed(DEVELOPER_WRITE) {
                    return Ok(Verification::AlreadyVerified);
                }
                // A taken tenant code draws another; a conflicting concurrent
                // transaction is retried as it is.
                let retry = failed(CODE_GUARD_WRITE) || reasons.contains(&CancelReason::Conflict);
                if !retry {
                    return Err(Error::internal(format!(
                        "sandbox provisioning was cancelled: {reasons:?}"
                    )));
                }
                last_error = Some(StoreError::TransactionCanceled { reasons });
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(last_error
        .map(Error::from)
        .unwrap_or_else(|| Error::unavailable("could not provision the sandbox; retry")))
}

/// The developer and user as stored now (after a verification elsewhere).
pub async fn reload(
    app: &App,
    developer: &DeveloperRecord,
) -> Result<Option<(DeveloperRecord, UserRecord)>, Error> {
    let Some(developer) = Developers(&*app.store).get(developer.id).await? else {
        return Ok(None);
    };
    let Some(user) = Users(&*app.store).get(developer.user_id).await? else {
        return Ok(None);
    };
    Ok(Some((developer, user)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Every code is in the reserved X band: `X` + 7 of A-Z0-9.
        #[test]
        fn sandbox_codes_are_in_the_x_band(_seed in 0u8..255) {
            let code = sandbox_code();
            prop_assert_eq!(code.len(), 8);
            prop_assert!(code.starts_with('X'));
            prop_assert!(code[1..].bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()));
        }
    }

    #[test]
    fn sandbox_codes_vary() {
        let codes: std::collections::HashSet<String> = (0..100).map(|_| sandbox_code()).collect();
        assert!(codes.len() > 95);
    }
}
