//! Tenant notifications (`notification.raised`): device alerts, grants and ends
//! of membership, disabled webhooks. Each notification is written in the same
//! transaction as its `notification.raised` event.
//!
//! Keys (see `DATA_MODEL.md`): `NOTIFY#{t}/{micros:020}#{id}` (a tenant's,
//! newest last); gsi1 `NOTIFY#PROPERTY#{p}` / `{micros:020}#{id}` for the
//! notifications of one home (what a household lists).

use super::{page, ts};
use alyt_domain::ids::{ClientId, DeviceId, PropertyId, TenantId};
use alyt_domain::notification::NotificationRaisedData;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use uuid::Uuid;

use super::history::micros;
use crate::{Index, Item, Key, ListScope, PageKey, Store, StoreError};

/// What raised a notification.
pub const KIND_DEVICE_ALERT: &str = "device.alert";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NotificationRecord {
    pub id: Uuid,
    pub tenant_id: TenantId,
    /// The home it concerns, when it concerns one.
    pub property_id: Option<PropertyId>,
    /// The household it concerns when it concerns a whole household (a
    /// membership), so that the household lists it without a home.
    #[serde(default)]
    pub client_id: Option<ClientId>,
    pub kind: String,
    pub title: String,
    pub body: String,
    pub device_id: Option<DeviceId>,
    #[serde(with = "ts::rfc3339")]
    pub at: OffsetDateTime,
}

impl NotificationRecord {
    /// The `notification.raised` payload announcing it.
    pub fn raised(&self) -> NotificationRaisedData {
        NotificationRaisedData {
            id: self.id,
            kind: self.kind.clone(),
            title: self.title.clone(),
            body: self.body.clone(),
            device_id: self.device_id,
            at: self.at,
        }
    }
}

pub fn notification_item(record: &NotificationRecord) -> Result<Item, StoreError> {
    let sort = format!("{}#{}", micros(record.at), record.id);
    let mut item = Item::from_record(
        Key::new(format!("NOTIFY#{}", record.tenant_id), sort.clone()),
        record,
    )?;
    if let Some(property) = record.property_id {
        item.set(Index::Gsi1.pk_attr(), format!("NOTIFY#PROPERTY#{property}"));
        item.set(Index::Gsi1.sk_attr(), sort);
    }
    Ok(item)
}

pub struct Notifications<'a>(pub &'a dyn Store);

impl Notifications<'_> {
    /// One page of a tenant's notifications, newest first. One query.
    pub async fn of_tenant(
        &self,
        tenant: TenantId,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<NotificationRecord>, Option<PageKey>), StoreError> {
        page(
            self.0,
            tenant_notifications(tenant)
                .query()
                .backward()
                .limit(limit)
                .after(after),
        )
        .await
    }

    /// One page of one home's notifications, newest first. One index query;
    /// the caller filters on the tenant it authorized.
    pub async fn of_property(
        &self,
        property: PropertyId,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<NotificationRecord>, Option<PageKey>), StoreError> {
        page(
            self.0,
            home_notifications(property)
                .query()
                .backward()
                .limit(limit)
                .after(after),
        )
        .await
    }
}

/// The list of a tenant's notifications.
pub fn tenant_notifications(tenant: TenantId) -> ListScope {
    ListScope::Table(format!("NOTIFY#{tenant}"))
}

/// The list of a home's notifications.
pub fn home_notifications(property: PropertyId) -> ListScope {
    ListScope::Index(Index::Gsi1, format!("NOTIFY#PROPERTY#{property}"))
}
