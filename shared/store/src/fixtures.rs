//! Records other crates' tests need in a store, written through the
//! repositories: an active developer with a live key (what a webhook
//! endpoint must be bound to before anything is sent for it); and a device
//! record to start from.

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

/// A registered device of `tenant` in `home`, as registration leaves it
/// (PROVISIONING, never heard from): a light named "Kitchen light" with the
/// default heartbeat window. Not stored; a test changes what it needs with
/// `DeviceRecord { status: …, ..device(…) }`.
pub fn device(
    tenant: alyt_domain::ids::TenantId,
    home: Option<alyt_domain::ids::PropertyId>,
    now: OffsetDateTime,
) -> crate::repo::devices::DeviceRecord {
    use alyt_domain::device::{
        DEFAULT_HEARTBEAT_WINDOW_SECONDS, DeviceCapability, DeviceKind, DeviceStatus,
        FirmwareChannel, Lenient,
    };
    crate::repo::devices::DeviceRecord {
        id: alyt_domain::ids::DeviceId::new(),
        tenant_id: tenant,
        property_id: home,
        client_id: None,
        room_id: None,
        name: "Kitchen light".into(),
        kind: Lenient::Known(DeviceKind::Other),
        capabilities: std::collections::BTreeSet::from([Lenient::Known(DeviceCapability::Light)]),
        features: vec![],
        current_unit_id: None,
        parent_device_id: None,
        protocol: None,
        protocol_id: None,
        firmware_channel: Lenient::Known(FirmwareChannel::Stable),
        status: Lenient::Known(DeviceStatus::Provisioning),
        last_seen: None,
        reported_at: None,
        deleted_at: None,
        created_at: now,
        updated_at: now,
        settings: None,
        heartbeat_window_seconds: DEFAULT_HEARTBEAT_WINDOW_SECONDS,
        is_virtual: false,
    }
}
