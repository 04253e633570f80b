//! A home at a glance (part of the homes group).
//!
//! * `GET /v1/properties/{propertyId}/overview?tenantId`: `{ property { id,
//!   name, timezone }, rooms[] (room views), house { primaryActions,
//!   actionValues } (the all-the-house tile: the default actions over every
//!   thing of the home), unassigned[] (Thing views of things without a
//!   room) }`. A device naming a room that no longer exists counts as
//!   unassigned. The house's listening value is true when a room with a
//!   voice member listens (or an unassigned voice thing reports listening).
//! * `GET/PUT /v1/properties/{propertyId}/dashboard?tenantId`: `{
//!   propertyId, pins[] }`, at most 40 pins, each `{ kind: 'thing', thing: {
//!   kind: 'device'|'endpoint', id } }` or `{ kind: 'routine', routineId }`;
//!   PUT replaces the list (41 pins: 400 `pins`). Pins are checked for shape,
//!   and a routine pin must name a routine of this home (400
//!   `pins[i].routineId`); a pinned thing or routine that is later removed
//!   stays until the list is saved again (clients skip pins they cannot
//!   draw). Reading is any member;
//!   writing is configuration (OWNER, tenant roles, platform OWNER/STAFF).
//! * `POST /v1/properties/{propertyId}/actions` (run-action request): the
//!   room action fan-out over every thing of the home. `voice.listening` sets
//!   every room's flag; voice members of rooms whose flag changed, and
//!   unassigned voice things, are commanded; the others are skipped.
//!
//! Who: as rooms (`crate::access::access_to`): seeing needs any membership
//! (`things:read` for keys), actions control (`things:control`), the
//! dashboard PUT configuration (`rooms:write`).
//!
//! * `POST /v1/properties/{propertyId}/refresh?tenantId`: asks each
//!   connector of the home for the current state of its endpoints (one call
//!   per integration, all at once), stores what each read back (with
//!   `thing.state` when it changed) and answers the overview plus `failed`:
//!   a `{ thingId, name, reason }` per endpoint that could not be read (it is
//!   then judged offline). Devices report by themselves and are not asked.
//!   Needs control (`things:control`).
//!
//! Store calls (besides authenticating the caller), n the home's live
//! devices: overview 1 get (the home) + 1 query (its rooms, per 1,000) + 1
//! gsi1 query (its devices and endpoints, per 1,000) + 1 batch get per 50
//! devices (none for a home without devices; endpoints need none): 4 calls
//! for a home of up to 50 devices, whatever the number of rooms, endpoints
//! and members. Dashboard GET 2 gets, PUT 1
//! get + 1 put. A property action reads as the overview, then the command
//! path per commanded thing (and 1 conditional put per room whose listening
//! flag changes).

use crate::routing::{Operations, operations};
use alyt_app::dashboard;
use alyt_app::overview::{self, HomeRead, house};
use alyt_domain::ids::PropertyId;
use alyt_domain::room::Pin;
use alyt_store::repo::tenancy::PropertyRecord;
use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::Caller;
use crate::conventions::extract::{ApiJson, ApiPath, ApiQuery};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{
    BadTenantOrProperty, KeyWithoutThingsRead, MayNotControlThings, NoSuchProperty, NoValidToken,
};
use crate::conventions::tenant::TenantQuery;
use crate::groups::devices::{TenantParam, Thing};
use crate::groups::homes::rooms::{
    ActionResult, RoomView, RunActionRequest, ThingOutcome, room_view,
};
use crate::{ApiError, AppState};

pub use alyt_app::overview::House;

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(get_overview))
        .merge(operations!(get_dashboard, put_dashboard))
        .merge(operations!(run_property_action))
        .merge(operations!(refresh_property))
}

/// The home of an overview.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OverviewProperty {
    pub id: PropertyId,
    pub name: String,
    pub timezone: String,
}

/// A home at a glance.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Overview {
    pub property: OverviewProperty,
    pub rooms: Vec<RoomView>,
    pub house: House,
    /// Things without a room.
    pub unassigned: Vec<Thing>,
}

fn overview_of(property: &PropertyRecord, home: &HomeRead) -> Overview {
    let rooms = home
        .rooms
        .iter()
        .map(|r| room_view(r, home.in_room(r.id)))
        .collect();
    Overview {
        property: OverviewProperty {
            id: property.id,
            name: property.name.clone(),
            timezone: property.timezone.clone(),
        },
        rooms,
        house: house(home).tile,
        unassigned: home.unassigned.iter().map(|m| m.thing.clone()).collect(),
    }
}

/// A home at a glance: its rooms, the house tile and unassigned things.
#[utoipa::path(
    get,
    path = "/v1/properties/{propertyId}/overview",
    tag = "homes",
    operation_id = "getPropertyOverview",
    params(("propertyId" = PropertyId, Path, description = "The home"), TenantParam),
    security(("bearer" = ["things:read"])),
    responses(
        (status = 200, description = "The overview", body = Overview),
        BadTenantOrProperty,
        NoValidToken,
        KeyWithoutThingsRead,
        NoSuchProperty,
    )
)]
pub async fn get_overview(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(property_id): ApiPath<PropertyId>,
    ApiQuery(query): ApiQuery<TenantParam>,
) -> Result<Json<Overview>, ApiError> {
    let (property, home) =
        overview::overview(&state, &caller, query.tenant_id, property_id).await?;
    Ok(Json(overview_of(&property, &home)))
}

/// A home's dashboard.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Dashboard {
    pub property_id: PropertyId,
    /// At most 40, in the order drawn.
    pub pins: Vec<Pin>,
}

/// The body of `PUT /v1/properties/{propertyId}/dashboard`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PutDashboardRequest {
    /// At most 40 pins, in the order drawn.
    #[schema(max_items = 40)]
    pub pins: Vec<Pin>,
}

/// A home's dashboard pins.
#[utoipa::path(
    get,
    path = "/v1/properties/{propertyId}/dashboard",
    tag = "homes",
    operation_id = "getDashboard",
    params(("propertyId" = PropertyId, Path, description = "The home"), TenantParam),
    security(("bearer" = ["things:read"])),
    responses(
        (status = 200, description = "The pins (none until some are saved)", body = Dashboard),
        BadTenantOrProperty,
        NoValidToken,
        KeyWithoutThingsRead,
        NoSuchProperty,
    )
)]
pub async fn get_dashboard(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(property_id): ApiPath<PropertyId>,
    ApiQuery(query): ApiQuery<TenantParam>,
) -> Result<Json<Dashboard>, ApiError> {
    let (property_id, pins) = dashboard::get(&state, &caller, query.tenant_id, property_id).await?;
    Ok(Json(Dashboard { property_id, pins }))
}

/// Replaces a home's dashboard pins (configuration).
#[utoipa::path(
    put,
    path = "/v1/properties/{propertyId}/dashboard",
    tag = "homes",
    operation_id = "putDashboard",
    params(("propertyId" = PropertyId, Path, description = "The home"), TenantParam),
    request_body = PutDashboardRequest,
    security(("bearer" = ["rooms:write"])),
    responses(
        (status = 200, description = "The saved dashboard", body = Dashboard),
        (status = 400, description = "A field is wrong (named in `field`): pins (more than 40), a pin's fields, or a routine pin naming no routine of this home", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        (status = 403, description = "A key without rooms:write, or a caller who may not configure the home", body = Problem, content_type = "application/problem+json"),
        NoSuchProperty,
    )
)]
pub async fn put_dashboard(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(property_id): ApiPath<PropertyId>,
    ApiQuery(query): ApiQuery<TenantParam>,
    ApiJson(body): ApiJson<PutDashboardRequest>,
) -> Result<Json<Dashboard>, ApiError> {
    let property =
        dashboard::put(&state, &caller, query.tenant_id, property_id, &body.pins).await?;
    Ok(Json(Dashboard {
        property_id: property,
        pins: body.pins,
    }))
}

/// Runs an action over every thing of the home.
#[utoipa::path(
    post,
    path = "/v1/properties/{propertyId}/actions",
    tag = "homes",
    operation_id = "runPropertyAction",
    params(("propertyId" = PropertyId, Path, description = "The home"), TenantQuery),
    request_body = RunActionRequest,
    security(("bearer" = ["things:control"])),
    responses(
        (status = 200, description = "Per thing: applied, skipped or failed (with the reason)", body = ActionResult),
        (status = 400, description = "A field is wrong (named in `field`): capability, action, value", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        MayNotControlThings,
        NoSuchProperty,
    )
)]
pub async fn run_property_action(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(property_id): ApiPath<PropertyId>,
    ApiQuery(query): ApiQuery<TenantQuery>,
    ApiJson(body): ApiJson<RunActionRequest>,
) -> Result<Json<ActionResult>, ApiError> {
    let tenant = body.tenant(&query)?;
    let action = body.reference()?;
    let result = overview::run_property_action(
        &state,
        &caller,
        tenant,
        property_id,
        &action,
        body.value.as_ref(),
    )
    .await?;
    Ok(Json(result))
}

/// The answer of a property refresh: the overview after the reads, and a
/// failed entry per thing that could not be read.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RefreshResult {
    #[serde(flatten)]
    pub overview: Overview,
    /// Things whose connector could not read them (they are judged offline
    /// until a read succeeds).
    pub failed: Vec<ThingOutcome>,
}

/// Asks each connector of the home for the current state of its things,
/// stores what it read and answers the overview.
#[utoipa::path(
    post,
    path = "/v1/properties/{propertyId}/refresh",
    tag = "homes",
    operation_id = "refreshProperty",
    params(("propertyId" = PropertyId, Path, description = "The home"), TenantParam),
    security(("bearer" = ["things:control"])),
    responses(
        (status = 200, description = "The overview after the reads, plus a failed entry per thing that could not be read", body = RefreshResult),
        BadTenantOrProperty,
        NoValidToken,
        MayNotControlThings,
        NoSuchProperty,
    )
)]
pub async fn refresh_property(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(property_id): ApiPath<PropertyId>,
    ApiQuery(query): ApiQuery<TenantParam>,
) -> Result<Json<RefreshResult>, ApiError> {
    let done = overview::refresh(&state, &caller, query.tenant_id, property_id).await?;
    Ok(Json(RefreshResult {
        overview: overview_of(&done.property, &done.home),
        failed: done.failed,
    }))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use alyt_domain::SystemClock;
    use alyt_domain::access::{Claims, PlatformRole, Principal, SessionKind};
    use alyt_domain::device::{
        DEFAULT_HEARTBEAT_WINDOW_SECONDS, DeviceCapability, DeviceKind, DeviceStatus,
        FirmwareChannel,
    };
    use alyt_domain::ids::{DeviceId, SessionId, UserId};
    use alyt_store::Store;
    use alyt_store::repo::devices::{DeviceRecord, device_item};
    use alyt_store::repo::tenancy::{NewHome, new_home_writes};
    use alyt_store::sqlite::SqliteStore;
    use time::OffsetDateTime;

    use super::*;
    use crate::access::{HomeAccess, home_for, room_for};
    use crate::{Adapters, Settings};
    use alyt_app::overview::read_home;
    use alyt_app::rooms::seen_room;
    use alyt_domain::ids::{RoomId, TenantId};
    use alyt_store::counting::CountingStore;

    fn light(home: &PropertyRecord, room: Option<RoomId>, now: OffsetDateTime) -> DeviceRecord {
        DeviceRecord {
            id: DeviceId::new(),
            tenant_id: home.tenant_id,
            property_id: Some(home.id),
            client_id: Some(home.client_id),
            room_id: room,
            name: "light".into(),
            kind: DeviceKind::Other.into(),
            capabilities: [DeviceCapability::Light.into()].into(),
            features: vec![],
            current_unit_id: Some(uuid::Uuid::now_v7()),
            parent_device_id: None,
            protocol: None,
            protocol_id: None,
            firmware_channel: FirmwareChannel::Stable.into(),
            status: DeviceStatus::Online.into(),
            last_seen: Some(now),
            reported_at: None,
            deleted_at: None,
            created_at: now,
            updated_at: now,
            settings: None,
            heartbeat_window_seconds: DEFAULT_HEARTBEAT_WINDOW_SECONDS,
            is_virtual: false,
        }
    }

    fn staff() -> Principal {
        Principal::Person {
            claims: Claims {
                sub: UserId::new(),
                email: "staff@example.com".into(),
                platform_role: Some(PlatformRole::Staff),
                tenants: BTreeMap::new(),
                clients: BTreeMap::new(),
                iat: 0,
                exp: 0,
                jti: "j".into(),
            },
            kind: SessionKind::Household,
            session: SessionId::new(),
            developer: None,
        }
    }

    fn lamp_endpoint(
        tenant: TenantId,
        integration: alyt_domain::ids::IntegrationId,
        home: &alyt_store::repo::tenancy::PropertyRecord,
        room: Option<RoomId>,
        n: u32,
        now: OffsetDateTime,
    ) -> alyt_store::repo::integrations::EndpointRecord {
        let external = format!("lamp-{n}");
        alyt_store::repo::integrations::EndpointRecord {
            id: alyt_store::repo::integrations::EndpointRecord::id_for(integration, &external),
            tenant_id: tenant,
            integration_id: integration,
            property_id: home.id,
            room_id: room,
            placed_by: None,
            kind: alyt_domain::integration::EndpointKind::Light.into(),
            external_id: external,
            name: format!("Lamp {n}"),
            address: None,
            capabilities: None,
            capability_set: vec![DeviceCapability::Light.into()],
            features: vec![],
            presented_as: None,
            enabled: true,
            state: serde_json::json!({ "light": { "power": n.is_multiple_of(2) } })
                .as_object()
                .cloned()
                .unwrap(),
            state_updated_at: Some(now),
            last_seen: Some(now),
            checked_at: Some(now),
            reachable: true,
            created_at: now,
            updated_at: now,
            rev: 0,
        }
    }

    /// The room view and the overview read the same number of times
    /// whatever the number of members: never a read per member.
    #[tokio::test]
    async fn views_never_read_per_member() {
        let store = Arc::new(CountingStore::new(
            SqliteStore::in_memory(Arc::new(SystemClock)).unwrap(),
        ));
        let state = AppState::build(
            Adapters {
                store: store.clone(),
                clock: Arc::new(SystemClock),
                mailer: Arc::new(crate::ports::NoMailer),
                bot_check: Arc::new(crate::ports::NoBotCheck),
                publisher: Arc::new(alyt_device::NoPublisher),
                credentials: Arc::new(crate::ports::PasswordCredentials),
            },
            Settings {
                rate_limit: Default::default(),
                public_url: "http://127.0.0.1/v1".into(),
                ..Default::default()
            },
        )
        .await
        .unwrap();
        let now = OffsetDateTime::now_utc();
        let tenant = TenantId::new();
        let (created, writes) = new_home_writes(NewHome {
            tenant_id: tenant,
            household: "Counted",
            household_email: None,
            home: "Counted home",
            timezone: "UTC",
            rooms: &["Living Room", "Kitchen", "Bedroom", "Office"],
            owner: UserId::new(),
            now,
        })
        .unwrap();
        store.transact(writes).await.unwrap();
        let home = created.property;
        let (living, kitchen) = (created.rooms[0].id, created.rooms[1].id);
        let caller = staff();
        let add = |room: Option<RoomId>| {
            let item = device_item(&light(&home, room, now)).unwrap();
            let store = store.clone();
            async move { store.put(item, None).await.unwrap() }
        };
        // One member in the living room, 30 in the kitchen, 2 unassigned.
        add(Some(living)).await;
        for _ in 0..30 {
            add(Some(kitchen)).await;
        }
        add(None).await;
        add(None).await;
        // Endpoints live beside the devices: 10 in the kitchen, 1 unassigned.
        // They cost no read of their own.
        let integration = alyt_domain::ids::IntegrationId::new();
        for n in 0..11 {
            let room = (n < 10).then_some(kitchen);
            let endpoint = lamp_endpoint(tenant, integration, &home, room, n, now);
            let write = alyt_store::repo::integrations::endpoint_write(&endpoint, None).unwrap();
            store.transact(vec![write]).await.unwrap();
        }
        store.take();

        // A room view: where the room is, the home's things, then the room,
        // the home and the states in one batch (per 50 devices).
        let expected_room: BTreeMap<&str, usize> =
            [("get", 1), ("query", 1), ("batch_get", 1)].into();
        for (room, members) in [(living, 1), (kitchen, 40)] {
            let (record, in_room) = seen_room(&state, &caller, tenant, room).await.unwrap();
            let view = room_view(&record, &in_room);
            assert_eq!(view.things.len(), members);
            assert_eq!(store.take(), expected_room, "room of {members}");
        }
        // Operations on a room find it with one get and one batch get.
        let (record, _) = room_for(&state, &caller, tenant, living, HomeAccess::See)
            .await
            .unwrap();
        assert_eq!(record.id, living);
        assert_eq!(store.take(), [("get", 1), ("batch_get", 1)].into());

        // The overview: 1 get, 2 queries, 1 batch get per 50 devices.
        let property = home_for(&state, &caller, tenant, home.id, HomeAccess::See)
            .await
            .unwrap();
        let overview = overview_of(&property, &read_home(&state, &property).await.unwrap());
        assert_eq!(overview.rooms.len(), 4);
        assert_eq!(overview.unassigned.len(), 3);
        assert_eq!(overview.rooms[1].endpoints.len(), 10);
        assert_eq!(
            store.take(),
            [("get", 1), ("query", 2), ("batch_get", 1)].into()
        );
        for _ in 0..20 {
            add(Some(kitchen)).await;
        }
        store.take();
        let overview = overview_of(&property, &read_home(&state, &property).await.unwrap());
        assert_eq!(overview.rooms[1].things.len(), 60);
        assert_eq!(
            store.take(),
            [("query", 2), ("batch_get", 2)].into(),
            "53 devices: two batches"
        );
    }
}
