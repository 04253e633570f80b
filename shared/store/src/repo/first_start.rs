//! The first start's records: the first platform OWNER and a demo household
//! (tenant, client, property with four rooms) the owner holds, so a newcomer
//! can sign in at once. A simulated demo ([`Demo::Simulated`], what a newcomer
//! gets) is the owner's own developer sandbox (code in the X band, an ACTIVE
//! developer account of the owner's user): only a sandbox may hold virtual
//! devices, and the caller fills it with them. An empty demo is a plain
//! household with no things (what the test suite uses). Idempotent and safe to
//! re-run after a crash: the user is created first (the email guard makes that
//! once-only), then the household and the bootstrap marker (`repo::config`) in
//! one transaction. The password policy (a generated password, its argon2id
//! hash) stays with the caller, which hands over only the hash.

use std::collections::BTreeMap;

use alyt_domain::access::{PlatformRole, TenantRole};
use alyt_domain::ids::{ClientId, DeveloperId, PropertyId, RoomId, TenantId, UserId};
use time::OffsetDateTime;

use super::CreateError;
use super::config::bootstrap_done_write;
use super::developers::{DeveloperRecord, DeveloperStatus, DeveloperType, developer_item};
use super::identity::{UserRecord, Users};
use super::tenancy::{NewHome, TenantRecord, create_tenant_writes, new_home_writes};
use crate::{Store, StoreError};

/// The owner a first start creates (unless an earlier, interrupted start
/// created the account already: then that account gets the demo tenant).
#[derive(Debug)]
pub struct FirstOwner<'a> {
    pub email: &'a str,
    /// The password's argon2id hash (PHC string).
    pub password_hash: String,
    pub now: OffsetDateTime,
    pub demo: Demo,
}

/// What the demo household is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Demo {
    /// A plain household with four empty rooms.
    Empty,
    /// The owner's developer sandbox, with this tenant code (X band), for
    /// the caller to fill with virtual devices.
    Simulated { code: String },
}

/// What a first start created.
#[derive(Debug, Clone, PartialEq)]
pub struct DemoHousehold {
    pub owner_email: String,
    pub tenant_id: TenantId,
    pub client_id: ClientId,
    pub property_id: PropertyId,
    /// The home's rooms as created.
    pub rooms: Vec<(RoomId, String)>,
    /// A simulated demo's developer account (the owner's), ACTIVE, whose
    /// sandbox the demo is.
    pub developer: Option<DeveloperRecord>,
}

/// Creates the first owner and the demo household; `None` when another
/// start (this one earlier, or a concurrent instance) did it.
pub async fn create(
    store: &dyn Store,
    owner: FirstOwner<'_>,
) -> Result<Option<DemoHousehold>, StoreError> {
    let users = Users(store);
    let tenant_id = TenantId::new();
    let now = owner.now;
    let simulated = matches!(owner.demo, Demo::Simulated { .. });
    let user = match users.find_by_email(owner.email).await? {
        // A previous start created the owner and stopped before the household.
        Some(mut existing) => {
            existing.tenants.insert(tenant_id, TenantRole::Admin);
            if simulated && existing.developer_id.is_none() {
                existing.developer_id = Some(DeveloperId::new());
            }
            users.save(&existing).await?;
            existing
        }
        None => {
            let user = UserRecord {
                name: None,
                id: UserId::new(),
                email: owner.email.to_owned(),
                password_hash: owner.password_hash,
                email_verified_at: Some(now),
                platform_role: Some(PlatformRole::Owner),
                tenants: BTreeMap::from([(tenant_id, TenantRole::Admin)]),
                developer_id: simulated.then(DeveloperId::new),
                mfa: None,
                units: None,
                created_at: now,
            };
            match users.create(&user).await {
                Ok(()) => user,
                Err(CreateError::Taken(_)) => return Ok(None),
                Err(CreateError::Store(e)) => return Err(e),
            }
        }
    };

    // The owner's developer account whose sandbox a simulated demo is.
    let developer = match (&owner.demo, user.developer_id) {
        (Demo::Simulated { .. }, Some(id)) => Some(DeveloperRecord {
            id,
            user_id: user.id,
            email: user.email.clone(),
            kind: DeveloperType::Individual,
            display_name: "Demo".into(),
            organisation: None,
            website: None,
            status: DeveloperStatus::Active,
            sandbox_tenant_id: Some(tenant_id),
            verified_at: Some(now),
            mfa_enabled_at: None,
            created_at: now,
        }),
        _ => None,
    };
    let tenant = TenantRecord {
        id: tenant_id,
        name: "Demo".into(),
        code: match &owner.demo {
            Demo::Simulated { code } => code.clone(),
            Demo::Empty => format!("D{}", &tenant_id.to_string()[..7].to_uppercase()),
        },
        sandbox: developer.is_some(),
        developer_id: developer.as_ref().map(|d| d.id),
        created_at: now,
    };
    let mut writes = create_tenant_writes(&tenant)?;
    if let Some(developer) = &developer {
        writes.push(crate::TxWrite::Put {
            item: developer_item(developer)?,
            condition: Some(crate::Condition::item_absent()),
        });
    }
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
    match store.transact(writes).await {
        Ok(()) => Ok(Some(DemoHousehold {
            owner_email: user.email,
            tenant_id,
            client_id: home.client.id,
            property_id: home.property.id,
            rooms: home.rooms.iter().map(|r| (r.id, r.name.clone())).collect(),
            developer,
        })),
        // Another instance finished the first start first.
        Err(e) if e.is_condition_failure() => Ok(None),
        Err(e) => Err(e),
    }
}
