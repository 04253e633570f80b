//! A webhook endpoint speaks for the key it is bound to: when that key is
//! revoked or expires, or its developer is suspended, the endpoint is
//! disabled (with the reason, shown in its list) and nothing more is sent
//! for it. The rule is checked where events become deliveries (the
//! dispatcher) and again right before a delivery is sent (the worker), so a
//! row queued before the key died is held, never sent. Revoking a key also
//! disables its endpoints at once (the keys operation); expiry and
//! suspension have no operation of their own and are caught by these checks.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use alyt_domain::ids::{DeveloperId, KeyId};
use alyt_store::repo::developers::{DeveloperRecord, DeveloperStatus, Developers, KeyRecord};
use alyt_store::repo::webhooks::{DisabledReason, EndpointStatus, WebhookEndpointRecord, Webhooks};
use alyt_store::{Store, StoreError};
use time::OffsetDateTime;

/// Why an endpoint bound to `key` of `developer` may not send at `now`
/// (`None`: it may). A key or developer that no longer exists counts as
/// revoked or suspended.
pub fn broken_binding(
    key: Option<&KeyRecord>,
    developer: Option<&DeveloperRecord>,
    now: OffsetDateTime,
) -> Option<DisabledReason> {
    match developer {
        Some(d) if d.status == DeveloperStatus::Active => {}
        _ => return Some(DisabledReason::DeveloperSuspended),
    }
    match key {
        None => Some(DisabledReason::KeyRevoked),
        Some(k) if k.revoked_at.is_some() => Some(DisabledReason::KeyRevoked),
        Some(k) if k.expires_at.is_some_and(|at| at <= now) => Some(DisabledReason::KeyExpired),
        Some(_) => None,
    }
}

/// Checks endpoints' bindings, reading each key and developer once.
#[derive(Debug, Default)]
pub struct BindingCheck {
    keys: HashMap<(DeveloperId, KeyId), Option<KeyRecord>>,
    developers: HashMap<DeveloperId, Option<DeveloperRecord>>,
}

impl BindingCheck {
    /// Forgets what was read (the next check reads afresh).
    pub fn forget(&mut self) {
        self.keys.clear();
        self.developers.clear();
    }

    /// Why `endpoint` may not send now, if so. Two gets the first time a key
    /// and its developer are seen.
    pub async fn broken(
        &mut self,
        store: &dyn Store,
        endpoint: &WebhookEndpointRecord,
        now: OffsetDateTime,
    ) -> Result<Option<DisabledReason>, StoreError> {
        let developers = Developers(store);
        let key_id = (endpoint.developer_id, endpoint.key_id);
        if let Entry::Vacant(slot) = self.keys.entry(key_id) {
            slot.insert(
                developers
                    .key(endpoint.developer_id, endpoint.key_id)
                    .await?,
            );
        }
        if let Entry::Vacant(slot) = self.developers.entry(endpoint.developer_id) {
            slot.insert(developers.get(endpoint.developer_id).await?);
        }
        Ok(broken_binding(
            self.keys[&key_id].as_ref(),
            self.developers[&endpoint.developer_id].as_ref(),
            now,
        ))
    }

    /// Whether `endpoint` may send now. One that may not and is still active
    /// is disabled with the reason (and `endpoint` updated to match).
    pub async fn enforce(
        &mut self,
        store: &dyn Store,
        endpoint: &mut WebhookEndpointRecord,
        now: OffsetDateTime,
    ) -> Result<bool, StoreError> {
        let Some(reason) = self.broken(store, endpoint, now).await? else {
            return Ok(true);
        };
        if endpoint.status == EndpointStatus::Active {
            disable(store, endpoint, reason, now).await?;
        }
        Ok(false)
    }
}

/// Disables `endpoint` for `reason` and updates it to what is stored.
pub async fn disable(
    store: &dyn Store,
    endpoint: &mut WebhookEndpointRecord,
    reason: DisabledReason,
    now: OffsetDateTime,
) -> Result<(), StoreError> {
    let repo = Webhooks(store);
    match repo
        .disable_for(endpoint.developer_id, endpoint.id, reason, now)
        .await?
    {
        Some(disabled) => {
            tracing::info!(
                endpoint = %disabled.id,
                developer = %disabled.developer_id,
                reason = ?reason,
                "webhook endpoint disabled: its key or developer is no longer sound"
            );
            *endpoint = disabled;
        }
        // Disabled (or removed) meanwhile: read what is there now.
        None => {
            if let Some(fresh) = repo.endpoint(endpoint.developer_id, endpoint.id).await? {
                *endpoint = fresh;
            }
        }
    }
    Ok(())
}

/// Disables every endpoint bound to `key` (the key was revoked). One query
/// of the developer's endpoints and one write per active one bound to it.
pub async fn disable_bound_to(
    store: &dyn Store,
    key: &KeyRecord,
    reason: DisabledReason,
    now: OffsetDateTime,
) -> Result<u32, StoreError> {
    let mut disabled = 0;
    for mut endpoint in Webhooks(store).list_endpoints(key.developer_id).await? {
        if endpoint.key_id == key.id && endpoint.status == EndpointStatus::Active {
            disable(store, &mut endpoint, reason, now).await?;
            disabled += 1;
        }
    }
    Ok(disabled)
}
