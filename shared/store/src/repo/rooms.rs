//! Rooms of a home, the lookup of a room by id, and a home's dashboard.
//!
//! Keys (see `DATA_MODEL.md`):
//! * room `PROPERTY#{p}/ROOM#{r}`: a home's rooms are one query (the room
//!   list, the overview);
//! * room ref `ROOMREF#{r}/ROOMREF` `{ tenantId, propertyId }`: finds a
//!   room's home from its id alone (`/rooms/{id}` names no home) with one
//!   strongly consistent get. Written and deleted in the same transaction as
//!   the room;
//! * dashboard `PROPERTY#{p}/DASHBOARD`: the home's pins (one item, at most
//!   40 pins).
//!
//! Room members are not stored on the room: a device names its room
//! (`roomId`), and a home's devices are one gsi1 query
//! (`Devices::list_by_property`), so a room view never reads per member.

use super::{page, record, ts};
use alyt_domain::ids::{PropertyId, RoomId, TenantId};
use alyt_domain::room::ActionRef;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;

use crate::{Condition, Item, Key, ListScope, PageKey, Query, SortKey, Store, StoreError, TxWrite};

fn yes() -> bool {
    true
}

/// A room as stored. Fields added after the first rooms were written read
/// with defaults (`listening` true, no choice, no quiet hours, rev 0), and
/// attributes this build does not know are ignored, so old and newer rows
/// both read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RoomRecord {
    pub id: RoomId,
    pub tenant_id: TenantId,
    pub property_id: PropertyId,
    pub name: String,
    /// Null means derived from the name in the resolved view.
    #[serde(default)]
    pub icon: Option<String>,
    /// Whether voice-capable things in the room listen for the wake word.
    #[serde(default = "yes")]
    pub listening: bool,
    /// The tile actions a person chose, as stored (null: the defaults).
    #[serde(default)]
    pub chosen_actions: Option<Vec<ActionRef>>,
    #[serde(default)]
    pub quiet_hours_start: Option<i64>,
    #[serde(default)]
    pub quiet_hours_end: Option<i64>,
    #[serde(with = "ts::rfc3339")]
    pub created_at: OffsetDateTime,
    /// Bumped by every rewrite; rewrites are conditioned on it.
    #[serde(default)]
    pub rev: u64,
}

impl RoomRecord {
    /// A new room: icon from the name, listening, defaults for the rest.
    pub fn new(tenant: TenantId, property: PropertyId, name: &str, now: OffsetDateTime) -> Self {
        Self {
            id: RoomId::new(),
            tenant_id: tenant,
            property_id: property,
            name: name.to_owned(),
            icon: None,
            listening: true,
            chosen_actions: None,
            quiet_hours_start: None,
            quiet_hours_end: None,
            created_at: now,
            rev: 0,
        }
    }
}

/// Where a room lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RoomRef {
    pub tenant_id: TenantId,
    pub property_id: PropertyId,
}

/// A home's dashboard as stored. Pins are kept as raw JSON so that a pin
/// kind added later never fails the read (`alyt_domain::room::read_pins`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DashboardRecord {
    pub property_id: PropertyId,
    pub tenant_id: TenantId,
    #[serde(default)]
    pub pins: Vec<Value>,
    #[serde(with = "ts::rfc3339")]
    pub updated_at: OffsetDateTime,
}

pub fn room_key(property: PropertyId, id: RoomId) -> Key {
    Key::new(format!("PROPERTY#{property}"), format!("ROOM#{id}"))
}
pub fn room_ref_key(id: RoomId) -> Key {
    Key::new(format!("ROOMREF#{id}"), "ROOMREF")
}
pub fn dashboard_key(property: PropertyId) -> Key {
    Key::new(format!("PROPERTY#{property}"), "DASHBOARD")
}

/// The writes creating a room: the room and its ref, both create-only.
pub fn room_writes(room: &RoomRecord) -> Result<Vec<TxWrite>, StoreError> {
    let reference = RoomRef {
        tenant_id: room.tenant_id,
        property_id: room.property_id,
    };
    Ok(vec![
        TxWrite::Put {
            item: Item::from_record(room_key(room.property_id, room.id), room)?,
            condition: Some(Condition::item_absent()),
        },
        TxWrite::Put {
            item: Item::from_record(room_ref_key(room.id), &reference)?,
            condition: Some(Condition::item_absent()),
        },
    ])
}

/// The condition "the stored room is at `rev`" (rooms written before revs
/// existed have none and count as 0).
fn at_rev(rev: u64) -> Condition {
    let is = Condition::eq("rev", rev);
    if rev == 0 {
        Condition::not_exists("rev")
            .or(is)
            .and(Condition::item_present())
    } else {
        is
    }
}

pub struct Rooms<'a>(pub &'a dyn Store);

impl Rooms<'_> {
    /// Where room `id` lives. One get.
    pub async fn locate(&self, id: RoomId) -> Result<Option<RoomRef>, StoreError> {
        record(self.0, &room_ref_key(id)).await
    }

    /// One room of a home. One get.
    pub async fn get(
        &self,
        property: PropertyId,
        id: RoomId,
    ) -> Result<Option<RoomRecord>, StoreError> {
        record(self.0, &room_key(property, id)).await
    }

    /// Room `id` of `tenant`, wherever it lives: two gets (ref, room).
    pub async fn find(
        &self,
        tenant: TenantId,
        id: RoomId,
    ) -> Result<Option<RoomRecord>, StoreError> {
        match self.locate(id).await? {
            Some(at) if at.tenant_id == tenant => Ok(self
                .get(at.property_id, id)
                .await?
                .filter(|r| r.tenant_id == tenant)),
            _ => Ok(None),
        }
    }

    /// One page of a home's rooms, oldest first (room ids are UUIDv7). One
    /// query.
    pub async fn page(
        &self,
        property: PropertyId,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<RoomRecord>, Option<PageKey>), StoreError> {
        page(
            self.0,
            home_rooms(property)
                .query()
                .sort(SortKey::BeginsWith("ROOM#".into()))
                .limit(limit)
                .after(after),
        )
        .await
    }

    /// Every room of a home: one query per 1,000 rooms.
    pub async fn all(&self, property: PropertyId) -> Result<Vec<RoomRecord>, StoreError> {
        let mut rooms = Vec::new();
        let mut after = None;
        loop {
            let (mut page, next) = self.page(property, Query::MAX_LIMIT, after).await?;
            rooms.append(&mut page);
            match next {
                Some(next) => after = Some(next),
                None => return Ok(rooms),
            }
        }
    }

    /// Creates a room with its ref. One transaction.
    pub async fn create(&self, room: &RoomRecord) -> Result<(), StoreError> {
        self.0.transact(room_writes(room)?).await
    }

    /// Writes `room` (with `rev` one past `read.rev`) if the stored room is
    /// still `read`'s revision; false when it changed or vanished. One put.
    pub async fn replace(&self, room: &RoomRecord, read_rev: u64) -> Result<bool, StoreError> {
        let mut next = room.clone();
        next.rev = read_rev + 1;
        let item = Item::from_record(room_key(room.property_id, room.id), &next)?;
        super::applied(self.0.put(item, Some(at_rev(read_rev))).await)
    }

    /// Deletes a room and its ref. One transaction.
    pub async fn delete(&self, room: &RoomRecord) -> Result<(), StoreError> {
        self.0
            .transact(vec![
                TxWrite::Delete {
                    key: room_key(room.property_id, room.id),
                    condition: None,
                },
                TxWrite::Delete {
                    key: room_ref_key(room.id),
                    condition: None,
                },
            ])
            .await
    }

    /// A home's dashboard. One get.
    pub async fn dashboard(
        &self,
        property: PropertyId,
    ) -> Result<Option<DashboardRecord>, StoreError> {
        record(self.0, &dashboard_key(property)).await
    }

    /// Replaces a home's dashboard. One put.
    pub async fn put_dashboard(&self, dashboard: &DashboardRecord) -> Result<(), StoreError> {
        let item = Item::from_record(dashboard_key(dashboard.property_id), dashboard)?;
        self.0.put(item, None).await
    }
}

/// The list of a home's rooms.
pub fn home_rooms(property: PropertyId) -> ListScope {
    ListScope::Table(format!("PROPERTY#{property}"))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use alyt_domain::SystemClock;

    use super::*;
    use crate::sqlite::SqliteStore;

    fn now() -> OffsetDateTime {
        OffsetDateTime::now_utc().replace_nanosecond(0).unwrap()
    }

    #[tokio::test]
    async fn rooms_are_found_by_id_listed_replaced_by_rev_and_deleted() {
        let store = SqliteStore::in_memory(Arc::new(SystemClock)).unwrap();
        let rooms = Rooms(&store);
        let (tenant, property) = (TenantId::new(), PropertyId::new());
        let kitchen = RoomRecord::new(tenant, property, "Kitchen", now());
        let office = RoomRecord::new(tenant, property, "Office", now());
        rooms.create(&kitchen).await.unwrap();
        rooms.create(&office).await.unwrap();
        assert!(
            rooms
                .create(&kitchen)
                .await
                .unwrap_err()
                .is_condition_failure()
        );

        assert_eq!(
            rooms.find(tenant, kitchen.id).await.unwrap(),
            Some(kitchen.clone())
        );
        assert_eq!(rooms.find(TenantId::new(), kitchen.id).await.unwrap(), None);
        let (first, next) = rooms.page(property, 1, None).await.unwrap();
        assert_eq!(first, std::slice::from_ref(&kitchen));
        let (second, _) = rooms.page(property, 1, next).await.unwrap();
        assert_eq!(second, std::slice::from_ref(&office));
        assert_eq!(rooms.all(property).await.unwrap().len(), 2);

        let mut renamed = kitchen.clone();
        renamed.name = "Cookhouse".into();
        assert!(rooms.replace(&renamed, 0).await.unwrap());
        assert!(!rooms.replace(&renamed, 0).await.unwrap(), "stale rev");
        let stored = rooms.find(tenant, kitchen.id).await.unwrap().unwrap();
        assert_eq!((stored.name.as_str(), stored.rev), ("Cookhouse", 1));

        rooms.delete(&stored).await.unwrap();
        assert_eq!(rooms.find(tenant, kitchen.id).await.unwrap(), None);
        assert_eq!(rooms.locate(kitchen.id).await.unwrap(), None);
        assert!(!rooms.replace(&stored, 1).await.unwrap(), "gone");
    }

    #[tokio::test]
    async fn an_old_room_row_reads_with_defaults() {
        let store = SqliteStore::in_memory(Arc::new(SystemClock)).unwrap();
        let (tenant, property, id) = (TenantId::new(), PropertyId::new(), RoomId::new());
        let item = Item::new(room_key(property, id))
            .with("id", id.to_string())
            .with("tenantId", tenant.to_string())
            .with("propertyId", property.to_string())
            .with("name", "Den")
            .with("createdAt", "2025-01-01T00:00:00Z")
            .with(
                "someFutureField",
                serde_json::json!({ "kind": "NEW_THING" }),
            );
        store.put(item, None).await.unwrap();
        let room = Rooms(&store).get(property, id).await.unwrap().unwrap();
        assert!(room.listening);
        assert_eq!((room.icon, room.chosen_actions, room.rev), (None, None, 0));
    }
}
