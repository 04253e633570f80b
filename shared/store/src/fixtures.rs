//! Records other crates' tests need in a store, written through the
//! repositories: an active developer with a live key (what a webhook
//! endpoint must be bound to before anything is sent for it).

use alyt_domain::access::KeyKind;
use alyt_domain::ids::{DeveloperId, KeyId, UserId};
use time::OffsetDateTime;

use crate::repo::developers::{
    DeveloperRecord, DeveloperStatus, DeveloperType, Developers, KeyRecord,
};
use crate::repo::identity::UserRecord;
use crate::{Store, StoreError};

/// Signs up an ACTIVE developer (`{id}@fixtures.test`) and gives it a DEV
/// key with no scopes; returns the key.
pub async fn active_developer_key(
    store: &dyn Store,
    now: OffsetDateTime,
) -> Result<KeyRecord, StoreError> {
    let developer_id = DeveloperId::new();
    let email = format!("{developer_id}@fixtures.test");
    let user = UserRecord {
        name: None,
        id: UserId::new(),
        email: email.clone(),
        password_hash: "not-a-real-hash".into(),
        email_verified_at: Some(now),
        platform_role: None,
        tenants: Default::default(),
        developer_id: Some(developer_id),
        mfa: None,
        units: None,
        created_at: now,
    };
    let developer = DeveloperRecord {
        id: developer_id,
        user_id: user.id,
        email,
        kind: DeveloperType::Individual,
        display_name: "Fixture developer".into(),
        organisation: None,
        website: None,
        status: DeveloperStatus::Active,
        sandbox_tenant_id: None,
        verified_at: Some(now),
        mfa_enabled_at: None,
        created_at: now,
    };
    let developers = Developers(store);
    developers
        .sign_up(&user, &developer)
        .await
        .map_err(|e| StoreError::Invalid(format!("fixture sign-up: {e:?}")))?;
    let key = KeyRecord {
        id: KeyId::new(),
        developer_id,
        kind: KeyKind::Dev,
        name: "fixture key".into(),
        prefix: "svc_dev_fixt".into(),
        scopes: Vec::new(),
        definition_id: None,
        created_at: now,
        expires_at: None,
        last_used_at: None,
        revoked_at: None,
        rotated_from_id: None,
        secret_hash: format!("fixture-{}", KeyId::new()),
    };
    developers.create_key(&key).await?;
    Ok(key)
}
