//! The network condition at work (spec: Authentication 8; B `GET
//! /members/phones`, `GET /properties/{id}/presence`): which phones a
//! household's network watches, what giving a person the condition needs,
//! and the check made at every sign-in and refresh.
//!
//! A phone is a thing of the household's network controller: an endpoint
//! with the NETWORK capability and the `presence` feature (the reference
//! virtual bridge reports phones so). The check reads the phone live through
//! its connector (a missing, failed, stale or unidentified read is no
//! signal), then compares the caller's address as the edge saw it (never a
//! client-supplied header) with the home's internet address, which a hub's
//! broker connection shows (ingest keeps it salted and hashed). Without
//! either signal the condition is not met. Only the outcome is stored on
//! the grant ("last seen home").
//!
//! * `GET /v1/tenants/{t}/clients/{c}/members/phones` (owner, staff): the
//!   phones, for choosing a person's condition phone.
//! * `GET /v1/properties/{propertyId}/presence?tenantId&endpointId`:
//!   internal (platform OWNER and STAFF only): one live check of a phone.

use std::net::IpAddr;

use alyt_domain::access::{HouseholdRole, PlatformRole, Principal};
use alyt_domain::device::{DeviceCapability, Lenient};
use alyt_domain::ids::{ClientId, EndpointId, PropertyId, TenantId};
use alyt_domain::presence::{PHONE_FEATURE, PhoneRead, PresenceSignal, decide, judge_phone};
use alyt_store::repo::integrations::{EndpointRecord, Integrations};
use alyt_store::repo::tenancy::{ClientRecord, GrantNetwork, GrantRecord, Tenancy};
use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

use super::{NO_HOUSEHOLD, managed_household};
use super::{NoHousehold, NotPeopleManager};
use crate::auth::Caller;
use crate::conventions::extract::{ApiPath, ApiQuery};
use crate::conventions::problem::{NoValidToken, Problem};
use crate::groups::homes::endpoints::{ReadOutcome, installed, read_and_store};
use crate::routing::{Operations, operations};
use crate::{ApiError, AppState};

pub fn routes() -> Operations {
    Operations::new().merge(operations!(list_phones))
}

/// The internal operation (served with the homes group's paths).
pub fn internal_routes() -> Operations {
    Operations::new().merge(operations!(get_presence))
}

/// Whether an endpoint is a phone the home network watches.
pub fn is_phone(endpoint: &EndpointRecord) -> bool {
    endpoint
        .capability_set
        .contains(&Lenient::Known(DeviceCapability::Network))
        && endpoint.features.iter().any(|f| f == PHONE_FEATURE)
}

/// Every phone the networks of `household`'s homes watch.
async fn household_phones(
    state: &AppState,
    household: &ClientRecord,
) -> Result<Vec<EndpointRecord>, ApiError> {
    let mut phones = Vec::new();
    let integrations = Integrations(&*state.store);
    for home in Tenancy(&*state.store).household_homes(household.id).await? {
        let things = integrations
            .home_things(household.tenant_id, home.id)
            .await?;
        phones.extend(things.endpoints.into_iter().filter(is_phone));
    }
    Ok(phones)
}

/// The condition a grant asks for, checked: never for an owner; a phone of
/// the household's network must be named (without one there is no signal
/// to prove presence by). `None` when the grant has no condition.
pub(super) async fn checked_network(
    state: &AppState,
    household: &ClientRecord,
    role: HouseholdRole,
    require_network: Option<bool>,
    phone_thing_id: Option<EndpointId>,
) -> Result<Option<GrantNetwork>, ApiError> {
    if require_network != Some(true) {
        if phone_thing_id.is_some() {
            return Err(ApiError::validation(
                "phoneThingId",
                "a phone is chosen only together with requireNetwork",
            ));
        }
        return Ok(None);
    }
    if role == HouseholdRole::Owner {
        return Err(ApiError::validation(
            "requireNetwork",
            "an owner cannot be given the network condition",
        ));
    }
    let phones = household_phones(state, household).await?;
    let hub_link = household_has_address(state, household).await?;
    if phones.is_empty() && !hub_link {
        return Err(ApiError::validation(
            "requireNetwork",
            "the home has no presence signal yet: connect the network controller or wait for the hub link, then set the condition",
        ));
    }
    match phone_thing_id {
        Some(phone) if !phones.iter().any(|p| p.id == phone) => Err(ApiError::validation(
            "phoneThingId",
            "phoneThingId is not a phone the home network watches",
        )),
        None if !hub_link => Err(ApiError::validation(
            "phoneThingId",
            "choose the person's phone (GET …/members/phones lists the phones the home network watches)",
        )),
        phone => Ok(Some(GrantNetwork {
            phone_thing_id: phone,
            checked_at: None,
            met: None,
            last_seen: None,
        })),
    }
}

/// Whether a hub of one of the household's homes has shown the home's
/// internet address.
async fn household_has_address(
    state: &AppState,
    household: &ClientRecord,
) -> Result<bool, ApiError> {
    let tenancy = Tenancy(&*state.store);
    for home in tenancy.household_homes(household.id).await? {
        if tenancy.home_address(home.id).await?.is_some() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Whether `address` is the internet address of the home the grant's
/// condition is about: a guest's home, the phone's home, or else any home of
/// the household. `None` when either address is unknown.
async fn same_address(
    state: &AppState,
    grant: &GrantRecord,
    phone_home: Option<PropertyId>,
    address: Option<IpAddr>,
) -> Result<Option<bool>, ApiError> {
    let Some(address) = address else {
        return Ok(None);
    };
    let tenancy = Tenancy(&*state.store);
    let homes = match grant.property_id.or(phone_home) {
        Some(home) => vec![home],
        None => tenancy
            .household_homes(grant.client_id)
            .await?
            .into_iter()
            .map(|h| h.id)
            .collect(),
    };
    let mut known = false;
    for home in homes {
        if let Some(record) = tenancy.home_address(home).await? {
            if record.matches(address) {
                return Ok(Some(true));
            }
            known = true;
        }
    }
    Ok(known.then_some(false))
}

/// One live read of phone `endpoint` of `tenant` through its connector, and
/// the phone's home.
async fn read_phone(
    state: &AppState,
    tenant: TenantId,
    endpoint: Option<EndpointId>,
) -> Result<(PhoneRead, Option<PropertyId>), ApiError> {
    let Some(id) = endpoint else {
        return Ok((PhoneRead::NoSignal("no phone"), None));
    };
    let Some(phone) = Integrations(&*state.store).endpoint(tenant, id).await? else {
        return Ok((PhoneRead::NoSignal("missing"), None));
    };
    let home = Some(phone.property_id);
    if !is_phone(&phone) {
        return Ok((PhoneRead::NoSignal("unidentified"), home));
    }
    let Ok(connector) = installed(state, tenant, phone.integration_id).await else {
        return Ok((PhoneRead::NoSignal("missing"), home));
    };
    let outcome = read_and_store(state, &connector, vec![phone]).await?;
    let read = match outcome.into_iter().next() {
        Some(ReadOutcome::Read(read)) => judge_phone(&read.state, state.clock.now()),
        _ => PhoneRead::NoSignal("not responding"),
    };
    Ok((read, home))
}

/// Checks the condition of `grant` now, for a caller at `address` (as the
/// edge saw it), and stores the outcome on it (the grant as read; a
/// concurrent change wins and this outcome is dropped). Whether the person
/// is in claims.
pub(crate) async fn check_condition(
    state: &AppState,
    grant: &GrantRecord,
    address: Option<IpAddr>,
) -> Result<bool, ApiError> {
    let Some(network) = &grant.network else {
        return Ok(true);
    };
    let (read, phone_home) = read_phone(state, grant.tenant_id, network.phone_thing_id).await?;
    let same = match read {
        PhoneRead::NoSignal(_) => same_address(state, grant, phone_home, address).await?,
        _ => None,
    };
    let presence = decide(&read, same);
    let now = state.clock.now();
    let next = GrantRecord {
        network: Some(GrantNetwork {
            checked_at: Some(now),
            met: Some(presence.met),
            last_seen: if presence.met {
                Some(now)
            } else {
                network.last_seen
            },
            ..network.clone()
        }),
        ..grant.clone()
    };
    if let Err(e) = alyt_store::repo::members::Members(&*state.store)
        .change(grant, &next, vec![])
        .await
    {
        tracing::debug!(error = %e, "the network check's outcome was not stored");
    }
    tracing::info!(client = %grant.client_id, user = %grant.user_id, met = presence.met, signal = ?presence.signal, "network condition checked");
    Ok(presence.met)
}

/// A phone the home network watches.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Phone {
    /// The phone thing's id (an endpoint): a person's `phoneThingId`.
    pub thing_id: EndpointId,
    pub name: String,
    pub property_id: PropertyId,
    /// On the network at the controller's last read; null when not known.
    #[schema(required = true)]
    pub connected: Option<bool>,
    /// When the controller last saw it; null when not known.
    #[schema(required = true)]
    pub last_seen: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PhoneList {
    pub items: Vec<Phone>,
    /// Always null: every phone of the household is in one answer.
    #[schema(required = true)]
    pub next_cursor: Option<String>,
}

/// The phones the household's home network watches.
#[utoipa::path(
    get,
    path = "/v1/tenants/{tenantId}/clients/{clientId}/members/phones",
    tag = "people",
    operation_id = "listMemberPhones",
    params(
        ("tenantId" = TenantId, Path, description = "The tenant"),
        ("clientId" = ClientId, Path, description = "The household"),
    ),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The phones, for choosing a person's condition phone", body = PhoneList),
        (status = 400, description = "A malformed id", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        NotPeopleManager,
        NoHousehold,
    )
)]
pub async fn list_phones(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath((tenant, client)): ApiPath<(TenantId, ClientId)>,
) -> Result<Json<PhoneList>, ApiError> {
    let household = managed_household(&state, &caller, tenant, client, NO_HOUSEHOLD).await?;
    let items = household_phones(&state, &household)
        .await?
        .into_iter()
        .map(|p| {
            let network = p.state.get("network");
            Phone {
                thing_id: p.id,
                name: p.name,
                property_id: p.property_id,
                connected: network
                    .and_then(|n| n.get("connected"))
                    .and_then(|v| v.as_bool()),
                last_seen: network
                    .and_then(|n| n.get("lastSeen"))
                    .and_then(|v| v.as_str())
                    .map(str::to_owned),
            }
        })
        .collect();
    Ok(Json(PhoneList {
        items,
        next_cursor: None,
    }))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct PresenceQuery {
    pub tenant_id: TenantId,
    /// The phone thing to check.
    pub endpoint_id: EndpointId,
}

/// One live check of a phone's presence.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PresenceCheck {
    pub endpoint_id: EndpointId,
    pub property_id: PropertyId,
    pub present: bool,
    pub signal: PresenceSignal,
    /// Why there was no signal (`missing`, `stale`, `unidentified`, `not
    /// responding`); null when the phone answered.
    #[schema(required = true)]
    pub reason: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub checked_at: OffsetDateTime,
}

/// Internal: the network presence of one phone thing (platform staff and the
/// platform's own components only).
#[utoipa::path(
    get,
    path = "/v1/properties/{propertyId}/presence",
    tag = "people",
    operation_id = "getPresence",
    params(("propertyId" = PropertyId, Path, description = "The home"), PresenceQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "One live check", body = PresenceCheck),
        (status = 400, description = "A malformed id or query", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        (status = 403, description = "Platform SUPPORT: staff operations are for OWNER and STAFF", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such operation for the caller, or no such home or phone", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn get_presence(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiPath(property): ApiPath<PropertyId>,
    ApiQuery(query): ApiQuery<PresenceQuery>,
) -> Result<Json<PresenceCheck>, ApiError> {
    internal_caller(&caller)?;
    let missing = || ApiError::not_found("no such home or phone");
    let home = Tenancy(&*state.store)
        .property(query.tenant_id, property)
        .await?
        .ok_or_else(missing)?;
    let phone = Integrations(&*state.store)
        .endpoint(query.tenant_id, query.endpoint_id)
        .await?
        .filter(|e| e.property_id == home.id)
        .ok_or_else(missing)?;
    let (read, _) = read_phone(&state, query.tenant_id, Some(phone.id)).await?;
    let presence = decide(&read, None);
    Ok(Json(PresenceCheck {
        endpoint_id: phone.id,
        property_id: home.id,
        present: presence.met,
        signal: presence.signal,
        reason: match read {
            PhoneRead::NoSignal(why) => Some(why.to_owned()),
            _ => None,
        },
        checked_at: state.clock.now(),
    }))
}

/// Internal operations answer only platform OWNER and STAFF; SUPPORT learns
/// it may not (403); to everyone else the path does not exist (404).
fn internal_caller(caller: &Principal) -> Result<(), ApiError> {
    caller
        .require_platform(&[PlatformRole::Owner, PlatformRole::Staff])
        .map(|_| ())
        .map_err(|denied| match denied {
            alyt_domain::access::Denied::Role => {
                ApiError::forbidden("this internal operation is for platform OWNER and STAFF")
            }
            _ => ApiError::not_found("no operation at this path"),
        })
}
