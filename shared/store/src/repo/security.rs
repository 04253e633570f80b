//! Home security records (the rules are [`alyt_domain::security`]).
//!
//! Keys (see `DATA_MODEL.md`, "Home security"):
//! * the home's security `TENANT#{t}` / `SECURITY#{p}`: its state (mode,
//!   armed period, open incident, restoration), settings and per-thing
//!   selections; every change a put conditioned on `rev` (or on being
//!   absent, the first). While something is due (a countdown, outputs to
//!   drive, a hub to send its configuration to or compare with the home's
//!   things), in gsi2 `SECURITYDUE` / `{due µs:020}#{p}`: the timers take
//!   it on time.
//! * a mode request `SECREQ#{p}#{requestId}` / `REQUEST`: the body's
//!   fingerprint and the answer given, kept a day (`ttl`), written in the
//!   transaction of the change it made (or alone for a refusal), so a
//!   repeated request answers the same and a reused id with another body
//!   is refused.
//! * an incident `INCIDENTS#{p}` / `{number:020}`: the home's incident
//!   history, newest first.

use super::{page, record, ts};
use std::collections::BTreeMap;

use alyt_domain::ids::{PropertyId, TenantId};
use alyt_domain::security::enrolment::Selection;
use alyt_domain::security::hub::HubSync;
use alyt_domain::security::machine::{Incident, SecurityState};
use alyt_domain::security::outputs::OutputsJob;
use alyt_domain::security::{Delegation, KeypadDisarm, Settings};
use serde::{Deserialize, Serialize};
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

use super::history::{due_by, micros};
use crate::{Condition, Index, Item, Key, ListScope, PageKey, Store, StoreError, TxWrite};

/// The sweep's index partition.
const DUE: &str = "SECURITYDUE";

/// How long a mode request's answer is kept for repeats.
pub const REQUEST_KEPT: Duration = Duration::days(1);

/// A home's security.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SecurityRecord {
    pub tenant_id: TenantId,
    pub property_id: PropertyId,
    pub state: SecurityState,
    pub settings: Settings,
    /// The household's choice per thing (absent: auto). Kept by thing id,
    /// so an exclusion survives rediscovery.
    #[serde(default)]
    pub selections: BTreeMap<Uuid, Selection>,
    /// The outputs of the last alarm, from the alarm until they are all
    /// restored (none: nothing to drive or put back).
    #[serde(default)]
    pub outputs: Option<OutputsJob>,
    /// What the platform knows of the assigned hub (none: no hub).
    #[serde(default)]
    pub hub: Option<HubSync>,
    /// TVs given control of the home's security, by widget token id.
    #[serde(default)]
    pub delegations: BTreeMap<Uuid, Delegation>,
    #[serde(with = "ts::rfc3339")]
    pub updated_at: OffsetDateTime,
    pub rev: u64,
}

impl SecurityRecord {
    /// When a countdown of this home ends, its outputs are next driven, or
    /// its hub is next sent its configuration or compared with the home's
    /// things (none of them: none).
    pub fn due(&self) -> Option<OffsetDateTime> {
        let entry = self.state.incident.as_ref().and_then(|i| match i.state {
            alyt_domain::security::machine::IncidentState::Entry { alarm_at } => Some(alarm_at),
            _ => None,
        });
        let outputs = self.outputs.as_ref().and_then(|job| job.next_at);
        let reconfigurable = self.state.reconfigurable();
        let hub = self.hub.as_ref().and_then(|h| h.due(reconfigurable));
        [self.state.exit_until, entry, outputs, hub]
            .into_iter()
            .flatten()
            .min()
    }

    /// A home's security before anyone touched it: Off, the defaults.
    pub fn new(tenant: TenantId, property: PropertyId, now: OffsetDateTime) -> Self {
        Self {
            tenant_id: tenant,
            property_id: property,
            state: SecurityState::default(),
            settings: Settings::default(),
            selections: BTreeMap::new(),
            outputs: None,
            hub: None,
            delegations: BTreeMap::new(),
            updated_at: now,
            rev: 0,
        }
    }
}

/// The answer a mode request got, for its repeats.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModeRequestRecord {
    pub request_id: Uuid,
    pub property_id: PropertyId,
    /// SHA-256 of the request's canonical body.
    pub fingerprint: String,
    pub status: u16,
    pub answer: serde_json::Value,
    #[serde(with = "ts::rfc3339")]
    pub at: OffsetDateTime,
}

/// One entry of a home's incident history: a detection's incident, or a
/// keypad disarm with its source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IncidentRecord {
    pub tenant_id: TenantId,
    pub property_id: PropertyId,
    #[serde(default)]
    pub incident: Option<Incident>,
    #[serde(default)]
    pub keypad_disarm: Option<KeypadDisarm>,
    #[serde(with = "ts::rfc3339")]
    pub updated_at: OffsetDateTime,
}

impl IncidentRecord {
    /// Its place in the home's history.
    pub fn number(&self) -> u64 {
        match (&self.incident, &self.keypad_disarm) {
            (Some(incident), _) => incident.number,
            (None, Some(disarm)) => disarm.number,
            (None, None) => 0,
        }
    }
}

/// Why a security write was refused.
#[derive(Debug, thiserror::Error)]
pub enum SecurityError {
    /// The record (or the request id) changed since it was read.
    #[error("the home's security changed meanwhile")]
    Changed,
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn security_key(tenant: TenantId, property: PropertyId) -> Key {
    Key::new(format!("TENANT#{tenant}"), format!("SECURITY#{property}"))
}

fn request_key(property: PropertyId, request: Uuid) -> Key {
    Key::new(format!("SECREQ#{property}#{request}"), "REQUEST")
}

fn incident_key(property: PropertyId, number: u64) -> Key {
    Key::new(format!("INCIDENTS#{property}"), format!("{number:020}"))
}

/// A home's incidents (read newest first).
pub fn home_incidents(property: PropertyId) -> ListScope {
    ListScope::Table(format!("INCIDENTS#{property}"))
}

/// The write of `next` in place of `read` (none: the first), its revision
/// one past.
pub fn security_write(
    read: Option<&SecurityRecord>,
    next: &SecurityRecord,
) -> Result<(TxWrite, SecurityRecord), StoreError> {
    let next = SecurityRecord {
        rev: read.map_or(0, |r| r.rev + 1),
        ..next.clone()
    };
    let condition = match read {
        None => Condition::item_absent(),
        Some(read) => Condition::item_present().and(Condition::eq("rev", read.rev)),
    };
    let mut item = Item::from_record(security_key(next.tenant_id, next.property_id), &next)?;
    if let Some(due) = next.due() {
        item.set(Index::Gsi2.pk_attr(), DUE);
        item.set(
            Index::Gsi2.sk_attr(),
            format!("{}#{}", micros(due), next.property_id),
        );
    }
    Ok((
        TxWrite::Put {
            item,
            condition: Some(condition),
        },
        next,
    ))
}

/// The write keeping a request's answer (the id must be unused).
pub fn request_write(request: &ModeRequestRecord) -> Result<TxWrite, StoreError> {
    let item = Item::from_record(
        request_key(request.property_id, request.request_id),
        request,
    )?
    .with("ttl", (request.at + REQUEST_KEPT).unix_timestamp());
    Ok(TxWrite::Put {
        item,
        condition: Some(Condition::item_absent()),
    })
}

/// The write of an incident as it is now.
pub fn incident_write(incident: &IncidentRecord) -> Result<TxWrite, StoreError> {
    let item = Item::from_record(
        incident_key(incident.property_id, incident.number()),
        incident,
    )?;
    Ok(TxWrite::Put {
        item,
        condition: None,
    })
}

pub struct Security<'a>(pub &'a dyn Store);

impl Security<'_> {
    /// A home's security (none: never touched). One get.
    pub async fn get(
        &self,
        tenant: TenantId,
        property: PropertyId,
    ) -> Result<Option<SecurityRecord>, StoreError> {
        record(self.0, &security_key(tenant, property)).await
    }

    /// Up to `limit` homes whose countdown is due by `now`, the longest due
    /// first. One index query.
    pub async fn due(
        &self,
        now: OffsetDateTime,
        limit: u32,
    ) -> Result<Vec<SecurityRecord>, StoreError> {
        page(self.0, due_by(DUE, now, limit))
            .await
            .map(|(due, _)| due)
    }

    /// The answer a request id got. One get.
    pub async fn request(
        &self,
        property: PropertyId,
        request: Uuid,
    ) -> Result<Option<ModeRequestRecord>, StoreError> {
        record(self.0, &request_key(property, request)).await
    }

    /// Writes a change in one transaction; [`SecurityError::Changed`] when
    /// a condition failed (the record or a request id moved first).
    pub async fn write(&self, writes: Vec<TxWrite>) -> Result<(), SecurityError> {
        self.0.transact(writes).await.map_err(|e| {
            if e.is_condition_failure() {
                SecurityError::Changed
            } else {
                SecurityError::Store(e)
            }
        })
    }

    /// A page of a home's incidents, newest first. One query.
    pub async fn incidents(
        &self,
        property: PropertyId,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<IncidentRecord>, Option<PageKey>), StoreError> {
        page(
            self.0,
            home_incidents(property)
                .query()
                .backward()
                .limit(limit)
                .after(after),
        )
        .await
    }

    /// One incident. One get.
    pub async fn incident(
        &self,
        property: PropertyId,
        number: u64,
    ) -> Result<Option<IncidentRecord>, StoreError> {
        record(self.0, &incident_key(property, number)).await
    }
}
