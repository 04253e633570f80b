//! First start: the first platform OWNER and a demo household (tenant, client,
//! property with four rooms) that the owner holds, so a newcomer can sign in at
//! once. Idempotent and safe to re-run after a crash: the user is created first
//! (the email guard makes that once-only), then the household and a marker in
//! one transaction. Hosted, the same function runs from the admin path.

use std::collections::BTreeMap;

use alyt_domain::access::{PlatformRole, TenantRole};
use alyt_domain::ids::{ClientId, PropertyId, TenantId, UserId};
use alyt_store::repo::CreateError;
use alyt_store::repo::config::{Config, bootstrap_done_write};
use alyt_store::repo::identity::{UserRecord, Users};
use alyt_store::repo::tenancy::{NewHome, TenantRecord, create_tenant_writes, new_home_writes};

use crate::auth::secrets::{hash_password_blocking, random_token};
use crate::{ApiError, AppState};

/// What a first start created; the password is shown once, then only its hash exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirstStart {
    pub email: String,
    /// Set when the password was generated here (not given by the operator).
    pub generated_password: Option<String>,
    pub tenant_id: TenantId,
    pub client_id: ClientId,
    pub property_id: PropertyId,
}

/// Creates the first owner and the demo household unless that was done before.
pub async fn ensure_first_owner(
    state: &AppState,
    email: &str,
    password: Option<String>,
) -> Result<Option<FirstStart>, ApiError> {
    if Config(&*state.store).bootstrapped().await? {
        return Ok(None);
    }
    let now = state.clock.now();
    let users = Users(&*state.store);
    let tenant_id = TenantId::new();
    let generated = password.is_none().then(random_token);
    let password = password.or_else(|| generated.clone()).unwrap_or_default();
    let user = match users.find_by_email(email).await? {
        // A previous start created the owner and stopped before the household.
        Some(mut existing) => {
            existing.tenants.insert(tenant_id, TenantRole::Admin);
            users.save(&existing).await?;
            existing
        }
        None => {
            let user = UserRecord {
                id: UserId::new(),
                email: email.to_owned(),
                password_hash: hash_password_blocking(password).await,
                email_verified_at: Some(now),
                platform_role: Some(PlatformRole::Owner),
                tenants: BTreeMap::from([(tenant_id, TenantRole::Admin)]),
                developer_id: None,
                mfa: None,
                units: None,
                created_at: now,
            };
            match users.create(&user).await {
                Ok(()) => user,
                Err(CreateError::Taken(_)) => return Ok(None),
                Err(CreateError::Store(e)) => return Err(e.into()),
            }
        }
    };

    let tenant = TenantRecord {
        id: tenant_id,
        name: "Demo".into(),
        code: format!("D{}", &tenant_id.to_string()[..7].to_uppercase()),
        sandbox: false,
        developer_id: None,
        created_at: now,
    };
    let mut writes = create_tenant_writes(&tenant)?;
    let (home, home_writes) = new_home_writes(NewHome {
        tenant_id,
        household: "Demo household",
        household_email: Some(user.email.clone()),
        home: "Demo home",
        timezone: "UTC",
        rooms: &["Living Room", "Kitchen", "Bedroom", "Office"],
        owner: user.id,
        now,
    })?;
    writes.extend(home_writes);
    writes.push(bootstrap_done_write(user.id));
    match state.store.transact(writes).await {
        Ok(()) => Ok(Some(FirstStart {
            email: user.email,
            generated_password: generated,
            tenant_id,
            client_id: home.client.id,
            property_id: home.property.id,
        })),
        // Another instance finished the bootstrap first.
        Err(e) if e.is_condition_failure() => Ok(None),
        Err(e) => Err(e.into()),
    }
}
