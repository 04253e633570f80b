//! Presence: a household's phones and the network condition a grant may
//! carry (it counts only while the home sees the person's phone, or the
//! person comes from the home's address), checked at sign-in and refresh.
//! The phones are listed for those who manage the household's people; a
//! phone is checked on demand by platform OWNER and STAFF only.

use std::net::IpAddr;

use alyt_domain::access::{HouseholdRole, PlatformRole, Principal};
use alyt_domain::device::{DeviceCapability, Lenient};
use alyt_domain::ids::{ClientId, EndpointId, PropertyId, TenantId};
use alyt_domain::presence::{PHONE_FEATURE, PhoneRead, PresenceSignal, decide, judge_phone};
use alyt_store::repo::integrations::{EndpointRecord, Integrations};
use alyt_store::repo::tenancy::{ClientRecord, GrantNetwork, GrantRecord, Tenancy};
use serde::Serialize;
use time::OffsetDateTime;

use crate::endpoints::{ReadOutcome, installed, read_and_store};
use crate::people::{NO_HOUSEHOLD, managed_household};
use crate::{App, Error};

/// Whether an endpoint is a phone the home network watches.
pub fn is_phone(endpoint: &EndpointRecord) -> bool {
    endpoint
        .capability_set
        .contains(&Lenient::Known(DeviceCapability::Network))
        && endpoint.features.iter().any(|f| f == PHONE_FEATURE)
}

/// Every phone the networks of `household`'s homes watch.
pub async fn household_phones(
    app: &App,
    household: &ClientRecord,
) -> Result<Vec<EndpointRecord>, Error> {
    let mut phones = Vec::new();
    let integrations = Integrations(&*app.store);
    for home in Tenancy(&*app.store).household_homes(household.id).await? {
        let things = integrations
            .home_things(household.tenant_id, home.id)
            .await?;
        phones.extend(things.endpoints.into_iter().filter(is_phone));
    }
    Ok(phones)
}

/// The phones the networks of the household's homes watch, for those who
/// manage its people.
pub async fn phones(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    client: ClientId,
) -> Result<Vec<EndpointRecord>, Error> {
    let household = managed_household(app, caller, tenant, client, NO_HOUSEHOLD).await?;
    household_phones(app, &household).await
}

/// The condition a grant asks for, checked: never for an owner; a phone of
/// the household's network must be named (without one there is no signal
/// to prove presence by). `None` when the grant has no condition.
pub async fn checked_network(
    app: &App,
    household: &ClientRecord,
    role: HouseholdRole,
    require_network: Option<bool>,
    phone_thing_id: Option<EndpointId>,
) -> Result<Option<GrantNetwork>, Error> {
    if require_network != Some(true) {
        if phone_thing_id.is_some() {
            return Err(Error::validation(
                "phoneThingId",
                "a phone is chosen only together with requireNetwork",
            ));
        }
        return Ok(None);
    }
    if role == HouseholdRole::Owner {
        return Err(Error::validation(
            "requireNetwork",
            "an owner cannot be given the network condition",
        ));
    }
    let phones = household_phones(app, household).await?;
    let hub_link = household_has_address(app, household).await?;
    if phones.is_empty() && !hub_link {
        return Err(Error::validation(
            "requireNetwork",
            "the home has no presence signal yet: connect the network controller or wait for the hub link, then set the condition",
        ));
    }
    match phone_thing_id {
        Some(phone) if !phones.iter().any(|p| p.id == phone) => Err(Error::validation(
            "phoneThingId",
            "phoneThingId is not a phone the home network watches",
        )),
        None if !hub_link => Err(Error::validation(
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
pub async fn household_has_address(app: &App, household: &ClientRecord) -> Result<bool, Error> {
    let tenancy = Tenancy(&*app.store);
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
pub async fn same_address(
    app: &App,
    grant: &GrantRecord,
    phone_home: Option<PropertyId>,
    address: Option<IpAddr>,
) -> Result<Option<bool>, Error> {
    let Some(address) = address else {
        return Ok(None);
    };
    let tenancy = Tenancy(&*app.store);
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
pub async fn read_phone(
    app: &App,
    tenant: TenantId,
    endpoint: Option<EndpointId>,
) -> Result<(PhoneRead, Option<PropertyId>), Error> {
    let Some(id) = endpoint else {
        return Ok((PhoneRead::NoSignal("no phone"), None));
    };
    let Some(phone) = Integrations(&*app.store).endpoint(tenant, id).await? else {
        return Ok((PhoneRead::NoSignal("missing"), None));
    };
    let home = Some(phone.property_id);
    if !is_phone(&phone) {
        return Ok((PhoneRead::NoSignal("unidentified"), home));
    }
    let Ok(connector) = installed(app, tenant, phone.integration_id).await else {
        return Ok((PhoneRead::NoSignal("missing"), home));
    };
    let outcome = read_and_store(app, &connector, vec![phone]).await?;
    let read = match outcome.into_iter().next() {
        Some(ReadOutcome::Read(read)) => judge_phone(&read.state, app.clock.now()),
        _ => PhoneRead::NoSignal("not responding"),
    };
    Ok((read, home))
}

/// One live check of a phone's presence.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PresenceCheck {
    pub endpoint_id: EndpointId,
    pub property_id: PropertyId,
    pub present: bool,
    pub signal: PresenceSignal,
    /// Why there was no signal (`missing`, `stale`, `unidentified`, `not
    /// responding`); null when the phone answered.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub reason: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub checked_at: OffsetDateTime,
}

/// Internal operations answer only platform OWNER and STAFF; SUPPORT learns
/// it may not (forbidden); to everyone else the operation does not exist
/// (not found).
fn internal_caller(caller: &Principal) -> Result<(), Error> {
    caller
        .require_platform(&[PlatformRole::Owner, PlatformRole::Staff])
        .map(|_| ())
        .map_err(|denied| match denied {
            alyt_domain::access::Denied::Role => {
                Error::forbidden("this internal operation is for platform OWNER and STAFF")
            }
            _ => Error::not_found("no operation at this path"),
        })
}

/// One live check of phone `endpoint` of home `property` (platform OWNER
/// and STAFF only): the phone read through its connector, judged without
/// an address.
pub async fn check_phone(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    property: PropertyId,
    endpoint: EndpointId,
) -> Result<PresenceCheck, Error> {
    internal_caller(caller)?;
    let missing = || Error::not_found("no such home or phone");
    let home = Tenancy(&*app.store)
        .property(tenant, property)
        .await?
        .ok_or_else(missing)?;
    let phone = Integrations(&*app.store)
        .endpoint(tenant, endpoint)
        .await?
        .filter(|e| e.property_id == home.id)
        .ok_or_else(missing)?;
    let (read, _) = read_phone(app, tenant, Some(phone.id)).await?;
    let presence = decide(&read, None);
    Ok(PresenceCheck {
        endpoint_id: phone.id,
        property_id: home.id,
        present: presence.met,
        signal: presence.signal,
        reason: match read {
            PhoneRead::NoSignal(why) => Some(why.to_owned()),
            _ => None,
        },
        checked_at: app.clock.now(),
    })
}

/// Checks the condition of `grant` now, for a caller at `address` (as the
/// edge saw it), and stores the outcome on it (the grant as read; a
/// concurrent change wins and this outcome is dropped). Whether the person
/// is in claims.
pub async fn check_condition(
    app: &App,
    grant: &GrantRecord,
    address: Option<IpAddr>,
) -> Result<bool, Error> {
    let Some(network) = &grant.network else {
        return Ok(true);
    };
    let (read, phone_home) = read_phone(app, grant.tenant_id, network.phone_thing_id).await?;
    let same = match read {
        PhoneRead::NoSignal(_) => same_address(app, grant, phone_home, address).await?,
        _ => None,
    };
    let presence = decide(&read, same);
    let now = app.clock.now();
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
    if let Err(e) = alyt_store::repo::members::Members(&*app.store)
        .change(grant, &next, vec![])
        .await
    {
        tracing::debug!(error = %e, "the network check's outcome was not stored");
    }
    tracing::info!(client = %grant.client_id, user = %grant.user_id, met = presence.met, signal = ?presence.signal, "network condition checked");
    Ok(presence.met)
}
