//! Tenants, households (clients), homes (properties), rooms and household grants.
//!
//! Keys: `TENANT#{t}/TENANT` (code guard `TENANTCODE#{code}/TENANTCODE`),
//! `TENANT#{t}/CLIENT#{c}`, `TENANT#{t}/PROPERTY#{p}` (gsi1 `CLIENT#{c}` / `PROPERTY#{p}`),
//! `PROPERTY#{p}/ROOM#{r}` (with its ref, see `rooms`), grants `CLIENT#{c}/MEMBER#{user}` (gsi1 `USER#{user}` / `GRANT#{c}`;
//! what changes them is `members`).

use super::{CreateError, record, ts};
use alyt_domain::access::HouseholdRole;
use alyt_domain::ids::{ClientId, DeveloperId, EndpointId, PropertyId, RoomId, TenantId, UserId};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::{
    Condition, Index, Item, Key, ListScope, Page, PageKey, Query, SortKey, Store, StoreError,
    TxWrite,
};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TenantRecord {
    pub id: TenantId,
    pub name: String,
    /// Short unique code; sandbox tenants use the reserved X band (`X` + 7 characters).
    pub code: String,
    pub sandbox: bool,
    /// The developer a sandbox belongs to.
    #[serde(default)]
    pub developer_id: Option<DeveloperId>,
    #[serde(with = "ts::rfc3339")]
    pub created_at: OffsetDateTime,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientRecord {
    pub id: ClientId,
    pub tenant_id: TenantId,
    pub name: String,
    pub email: Option<String>,
    #[serde(with = "ts::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "ts::rfc3339")]
    pub updated_at: OffsetDateTime,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PropertyRecord {
    pub id: PropertyId,
    pub tenant_id: TenantId,
    pub client_id: ClientId,
    pub name: String,
    pub timezone: String,
    pub address: Option<String>,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    #[serde(with = "ts::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "ts::rfc3339")]
    pub updated_at: OffsetDateTime,
}

pub use super::rooms::{RoomRecord, room_writes};

/// A person's membership of a household.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GrantRecord {
    pub client_id: ClientId,
    pub tenant_id: TenantId,
    pub user_id: UserId,
    pub role: HouseholdRole,
    #[serde(default)]
    pub property_id: Option<PropertyId>,
    /// A guest's stay window; claims mention the home only inside it.
    #[serde(with = "ts::option", default)]
    pub starts_at: Option<OffsetDateTime>,
    #[serde(with = "ts::option", default)]
    pub ends_at: Option<OffsetDateTime>,
    /// Who granted it (none for a household's first owner).
    #[serde(default)]
    pub granted_by: Option<UserId>,
    /// The booking's reservation key of a guest's stay (guests API, or an
    /// invitation that named one).
    #[serde(default)]
    pub reservation_key: Option<String>,
    /// The network condition: present when the person is in claims only
    /// while the home sees their phone on its network.
    #[serde(default)]
    pub network: Option<GrantNetwork>,
    #[serde(with = "ts::rfc3339")]
    pub created_at: OffsetDateTime,
}

/// A grant's network condition: the phone the home watches and the outcome
/// of the last check ("last seen home"), never an address.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GrantNetwork {
    /// The phone thing (an endpoint of the home's network controller);
    /// `None`: the home's address decides alone.
    pub phone_thing_id: Option<EndpointId>,
    #[serde(with = "ts::option", default)]
    pub checked_at: Option<OffsetDateTime>,
    /// The outcome of the last check; `None` before the first.
    #[serde(default)]
    pub met: Option<bool>,
    /// When a check last found the phone on the home's network.
    #[serde(with = "ts::option", default)]
    pub last_seen: Option<OffsetDateTime>,
}

impl GrantRecord {
    /// Whether the person is in claims only while the home sees their phone.
    pub fn require_network(&self) -> bool {
        self.network.is_some()
    }

    /// Whether the grant is in force at `now` (the stay window, when there is one).
    pub fn in_force(&self, now: OffsetDateTime) -> bool {
        self.starts_at.is_none_or(|s| s <= now) && self.ends_at.is_none_or(|e| now < e)
    }
}

fn tenant_key(id: TenantId) -> Key {
    Key::new(format!("TENANT#{id}"), "TENANT")
}
fn code_guard(code: &str) -> Key {
    Key::new(format!("TENANTCODE#{code}"), "TENANTCODE")
}
fn client_key(tenant: TenantId, id: ClientId) -> Key {
    Key::new(format!("TENANT#{tenant}"), format!("CLIENT#{id}"))
}
pub fn property_key(tenant: TenantId, id: PropertyId) -> Key {
    Key::new(format!("TENANT#{tenant}"), format!("PROPERTY#{id}"))
}
pub(crate) fn grant_key(client: ClientId, user: UserId) -> Key {
    Key::new(format!("CLIENT#{client}"), format!("MEMBER#{user}"))
}

pub struct Tenancy<'a>(pub &'a dyn Store);

/// The writes that create a tenant with its code guard.
pub fn create_tenant_writes(tenant: &TenantRecord) -> Result<Vec<TxWrite>, StoreError> {
    Ok(vec![
        TxWrite::Put {
            item: Item::from_record(tenant_key(tenant.id), tenant)?,
            condition: Some(Condition::item_absent()),
        },
        TxWrite::Put {
            item: Item::new(code_guard(&tenant.code)).with("tenantId", tenant.id.to_string()),
            condition: Some(Condition::item_absent()),
        },
    ])
}

pub fn client_write(client: &ClientRecord) -> Result<TxWrite, StoreError> {
    Ok(TxWrite::Put {
        item: Item::from_record(client_key(client.tenant_id, client.id), client)?,
        condition: Some(Condition::item_absent()),
    })
}

pub fn property_write(property: &PropertyRecord) -> Result<TxWrite, StoreError> {
    let item = Item::from_record(property_key(property.tenant_id, property.id), property)?
        .with(
            Index::Gsi1.pk_attr(),
            format!("CLIENT#{}", property.client_id),
        )
        .with(Index::Gsi1.sk_attr(), format!("PROPERTY#{}", property.id));
    Ok(TxWrite::Put {
        item,
        condition: Some(Condition::item_absent()),
    })
}

/// A household's owner count (`CLIENT#{c}/OWNERS` `{ count }`), moved with
/// every OWNER grant and removal (see `repo::members`).
pub(crate) fn owners_key(client: ClientId) -> Key {
    Key::new(format!("CLIENT#{client}"), "OWNERS")
}

/// The owner count of a new household (its first owner's grant is in the
/// same transaction).
pub fn first_owner_write(client: ClientId) -> TxWrite {
    TxWrite::Put {
        item: Item::new(owners_key(client)).with("count", 1),
        condition: Some(Condition::item_absent()),
    }
}

/// A grant's item, in the person's index (their homes, for claims).
pub(crate) fn grant_item(grant: &GrantRecord) -> Result<Item, StoreError> {
    Ok(
        Item::from_record(grant_key(grant.client_id, grant.user_id), grant)?
            .with(Index::Gsi1.pk_attr(), format!("USER#{}", grant.user_id))
            .with(Index::Gsi1.sk_attr(), format!("GRANT#{}", grant.client_id)),
    )
}

pub fn grant_write(grant: &GrantRecord) -> Result<TxWrite, StoreError> {
    Ok(TxWrite::Put {
        item: grant_item(grant)?,
        condition: Some(Condition::item_absent()),
    })
}

impl Tenancy<'_> {
    /// Writes a set of new records in one transaction; a taken tenant code is
    /// reported as such.
    pub async fn create_all(&self, writes: Vec<TxWrite>) -> Result<(), CreateError> {
        match self.0.transact(writes).await {
            Err(e) if e.is_condition_failure() => Err(CreateError::Taken("tenant code")),
            other => Ok(other?),
        }
    }

    pub async fn tenant(&self, id: TenantId) -> Result<Option<TenantRecord>, StoreError> {
        record(self.0, &tenant_key(id)).await
    }

    pub async fn client(
        &self,
        tenant: TenantId,
        id: ClientId,
    ) -> Result<Option<ClientRecord>, StoreError> {
        record(self.0, &client_key(tenant, id)).await
    }

    /// A room and the home it is in (for the access check), in one batch get.
    pub async fn room_with_home(
        &self,
        tenant: TenantId,
        property: PropertyId,
        id: RoomId,
    ) -> Result<(Option<RoomRecord>, Option<PropertyRecord>), StoreError> {
        let room = super::rooms::room_key(property, id);
        let found = self
            .0
            .batch_get(&[room.clone(), property_key(tenant, property)])
            .await?;
        let mut out = (None, None);
        for item in found {
            if item.key() == room {
                out.0 = Some(item.to_record()?);
            } else {
                out.1 = Some(item.to_record()?);
            }
        }
        Ok(out)
    }

    pub async fn property(
        &self,
        tenant: TenantId,
        id: PropertyId,
    ) -> Result<Option<PropertyRecord>, StoreError> {
        record(self.0, &property_key(tenant, id)).await
    }

    /// One page of a tenant's properties, oldest first.
    pub async fn properties(
        &self,
        tenant: TenantId,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<PropertyRecord>, Option<PageKey>), StoreError> {
        let Page { items, next } = self
            .0
            .query(
                tenant_properties(tenant)
                    .query()
                    .sort(SortKey::BeginsWith("PROPERTY#".into()))
                    .limit(limit)
                    .after(after),
            )
            .await?;
        let records = items
            .iter()
            .map(Item::to_record)
            .collect::<Result<_, _>>()?;
        Ok((records, next))
    }

    /// Every home of household `client` (gsi1 `CLIENT#{c}` / `PROPERTY#{p}`),
    /// one index query per 1,000 homes.
    pub async fn household_homes(
        &self,
        client: ClientId,
    ) -> Result<Vec<PropertyRecord>, StoreError> {
        let mut homes = Vec::new();
        let mut after = None;
        loop {
            let Page { items, next } = self
                .0
                .query(
                    Query::on_index(Index::Gsi1, format!("CLIENT#{client}"))
                        .sort(SortKey::BeginsWith("PROPERTY#".into()))
                        .after(after),
                )
                .await?;
            for item in &items {
                homes.push(item.to_record()?);
            }
            match next {
                Some(next) => after = Some(next),
                None => return Ok(homes),
            }
        }
    }

    pub async fn rooms(&self, property: PropertyId) -> Result<Vec<RoomRecord>, StoreError> {
        let page = self
            .0
            .query(
                Query::partition(format!("PROPERTY#{property}"))
                    .sort(SortKey::BeginsWith("ROOM#".into())),
            )
            .await?;
        page.items.iter().map(Item::to_record).collect()
    }

    /// Every household grant a person holds (for claims and the Me response).
    pub async fn grants_of(&self, user: UserId) -> Result<Vec<GrantRecord>, StoreError> {
        let mut grants = Vec::new();
        let mut after = None;
        loop {
            let page = self
                .0
                .query(
                    Query::on_index(Index::Gsi1, format!("USER#{user}"))
                        .sort(SortKey::BeginsWith("GRANT#".into()))
                        .after(after),
                )
                .await?;
            for item in &page.items {
                grants.push(item.to_record()?);
            }
            match page.next {
                Some(next) => after = Some(next),
                None => return Ok(grants),
            }
        }
    }
}

/// A household's first home: the client, the property with its named rooms,
/// and the person who owns it. Used by the first-start bootstrap and by the
/// developer sandbox.
pub struct NewHome<'a> {
    pub tenant_id: TenantId,
    pub household: &'a str,
    pub household_email: Option<String>,
    pub home: &'a str,
    pub timezone: &'a str,
    pub rooms: &'a [&'a str],
    pub owner: UserId,
    pub now: OffsetDateTime,
}

/// What [`new_home_writes`] creates.
pub struct CreatedHome {
    pub client: ClientRecord,
    pub property: PropertyRecord,
    pub rooms: Vec<RoomRecord>,
}

/// The writes creating a [`NewHome`]: client, property, rooms, then the owner's
/// grant and the household's owner count (last), for the caller's transaction.
pub fn new_home_writes(home: NewHome<'_>) -> Result<(CreatedHome, Vec<TxWrite>), StoreError> {
    let NewHome {
        tenant_id,
        household,
        household_email,
        home,
        timezone,
        rooms,
        owner,
        now,
    } = home;
    let client = ClientRecord {
        id: ClientId::new(),
        tenant_id,
        name: household.into(),
        email: household_email,
        created_at: now,
        updated_at: now,
    };
    let property = PropertyRecord {
        id: PropertyId::new(),
        tenant_id,
        client_id: client.id,
        name: home.into(),
        timezone: timezone.into(),
        address: None,
        latitude: None,
        longitude: None,
        created_at: now,
        updated_at: now,
    };
    let rooms: Vec<RoomRecord> = rooms
        .iter()
        .map(|name| RoomRecord::new(tenant_id, property.id, name, now))
        .collect();
    let grant = GrantRecord {
        reservation_key: None,
        network: None,
        client_id: client.id,
        tenant_id,
        user_id: owner,
        role: HouseholdRole::Owner,
        property_id: None,
        starts_at: None,
        ends_at: None,
        granted_by: None,
        created_at: now,
    };
    let mut writes = vec![client_write(&client)?, property_write(&property)?];
    for room in &rooms {
        writes.extend(room_writes(room)?);
    }
    writes.push(grant_write(&grant)?);
    writes.push(first_owner_write(client.id));
    Ok((
        CreatedHome {
            client,
            property,
            rooms,
        },
        writes,
    ))
}

/// The list of a tenant's homes.
pub fn tenant_properties(tenant: TenantId) -> ListScope {
    ListScope::Table(format!("TENANT#{tenant}"))
}

/// A home's internet address as its hub's broker connection showed it (the
/// second signal of the network condition), kept as a salted SHA-256 of
/// [`address_key`](alyt_domain::presence::address_key), never in clear.
/// Key: `PROPERTY#{p}` / `NETADDR`; rewritten by ingest when a hub of the
/// home comes online.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HomeAddressRecord {
    pub salt: String,
    /// SHA-256 (hex) of `{salt}:{address key}`.
    pub hash: String,
    /// The hub that showed it.
    pub device_id: alyt_domain::ids::DeviceId,
    #[serde(with = "ts::rfc3339")]
    pub seen_at: OffsetDateTime,
}

fn home_address_key(property: PropertyId) -> Key {
    Key::new(format!("PROPERTY#{property}"), "NETADDR")
}

impl HomeAddressRecord {
    /// The record of `address` shown by hub `device` at `at`, with a fresh
    /// salt.
    pub fn of(
        address: std::net::IpAddr,
        device: alyt_domain::ids::DeviceId,
        at: OffsetDateTime,
    ) -> Self {
        let salt = uuid::Uuid::new_v4().simple().to_string();
        let hash = Self::hash(&salt, address);
        Self {
            salt,
            hash,
            device_id: device,
            seen_at: at,
        }
    }

    fn hash(salt: &str, address: std::net::IpAddr) -> String {
        use sha2::Digest;
        let key = alyt_domain::presence::address_key(address);
        hex::encode(sha2::Sha256::digest(format!("{salt}:{key}").as_bytes()))
    }

    /// Whether `address` is this home's.
    pub fn matches(&self, address: std::net::IpAddr) -> bool {
        Self::hash(&self.salt, address) == self.hash
    }
}

/// The write recording the home's address (for ingest's transaction).
pub fn home_address_write(
    property: PropertyId,
    record: &HomeAddressRecord,
) -> Result<TxWrite, StoreError> {
    Ok(TxWrite::Put {
        item: Item::from_record(home_address_key(property), record)?,
        condition: None,
    })
}

impl Tenancy<'_> {
    /// The home's internet address as last seen by a hub, if any. One get.
    pub async fn home_address(
        &self,
        property: PropertyId,
    ) -> Result<Option<HomeAddressRecord>, StoreError> {
        record(self.0, &home_address_key(property)).await
    }
}
