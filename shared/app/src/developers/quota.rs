//! A developer's own quotas and usage, as the developer reads them: the
//! effective quota of every kind, and the counts of the current windows
//! (with this process's counts not yet written) and of each key today. A
//! developer session (of an active developer) or any key of the developer
//! may read them, whatever its scopes; household sessions may not.

use alyt_domain::access::{Principal, SessionKind};
use alyt_domain::ids::{DeveloperId, KeyId};
use alyt_domain::quota::{QuotaKind, QuotaSource, QuotaValue, QuotaWindow, unix_minute};
use alyt_store::repo::developers::Developers;
use alyt_store::repo::usage::{Counter, EffectiveQuotas, Quotas, Usage};
use serde::Serialize;
use time::OffsetDateTime;

use super::{SignedIn, active_developer};
use crate::{App, Error};

/// The developer a caller speaks for: a developer session (of an active
/// developer) or any key of the developer, whatever its scopes. Household
/// sessions are the wrong kind of token (unauthorized), as on every
/// developer operation.
pub async fn calling_developer(app: &App, caller: &Principal) -> Result<DeveloperId, Error> {
    match caller {
        Principal::Key { developer, .. } => Ok(*developer),
        Principal::Person {
            claims,
            kind: SessionKind::Developer,
            session,
            developer: Some(developer),
        } => {
            let signed_in = SignedIn {
                user: claims.sub,
                developer: *developer,
                session: *session,
            };
            active_developer(app, &signed_in).await?;
            Ok(*developer)
        }
        Principal::Person { .. } | Principal::Widget { .. } | Principal::Routine { .. } => Err(
            Error::unauthorized("this operation needs a developer session or a developer key"),
        ),
    }
}

/// The caller's developer's effective quotas: each kind's override when
/// staff set one, else the platform default.
pub async fn developer_quotas(app: &App, caller: &Principal) -> Result<EffectiveQuotas, Error> {
    let developer = calling_developer(app, caller).await?;
    Ok(Quotas(&*app.store).effective(developer).await?)
}

/// Usage of one kind in its current window.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct KindUsage {
    /// Uses in the current window; for VIRTUAL_DEVICES the devices held now.
    pub count: u64,
    pub ceiling: u64,
    pub window: QuotaWindow,
    /// The current window (`2026-11-21`, `2026-11`); null for a standing count.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub window_key: Option<String>,
    /// When the count starts again from zero; null for a standing count
    /// (VIRTUAL_DEVICES counts the devices that exist, which no window resets).
    #[serde(with = "time::serde::rfc3339::option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub resets_at: Option<OffsetDateTime>,
    /// The burst limit, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "openapi",
        schema(required = false, nullable = false, minimum = 1)
    )]
    pub burst_per_minute: Option<u32>,
    /// Uses in the current minute, when there is a burst limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(required = false, nullable = false))]
    pub burst_count: Option<u64>,
    pub source: QuotaSource,
}

/// Usage per kind.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UsageByKind {
    #[serde(rename = "REQUESTS")]
    #[cfg_attr(feature = "openapi", schema(rename = "REQUESTS"))]
    pub requests: KindUsage,
    #[serde(rename = "VIRTUAL_DEVICES")]
    #[cfg_attr(feature = "openapi", schema(rename = "VIRTUAL_DEVICES"))]
    pub virtual_devices: KindUsage,
    #[serde(rename = "MQTT_MESSAGES")]
    #[cfg_attr(feature = "openapi", schema(rename = "MQTT_MESSAGES"))]
    pub mqtt_messages: KindUsage,
}

/// Requests one key made in the day of [`UsageResponse::day`].
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct KeyUsage {
    pub key_id: KeyId,
    pub name: String,
    pub requests: u64,
}

/// The developer's usage now.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct UsageResponse {
    /// When the counts were read.
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub at: OffsetDateTime,
    pub quotas: UsageByKind,
    /// The UTC day of the per-key counts (`2026-11-21`).
    pub day: String,
    /// Every key that is not revoked, and revoked keys that made requests
    /// today, oldest first.
    pub keys: Vec<KeyUsage>,
}

/// The caller's developer's usage now: each quota kind's count against its
/// ceiling and window (with the burst minute for requests), and each key's
/// requests today.
pub async fn developer_usage(app: &App, caller: &Principal) -> Result<UsageResponse, Error> {
    let developer = calling_developer(app, caller).await?;
    usage_of(app, developer).await
}

/// A developer's usage now: each quota kind's count against its ceiling and
/// window (with the burst minute for requests), and each key's requests today.
/// One read of the quotas and keys, then one batch read of every counter.
pub(crate) async fn usage_of(app: &App, developer: DeveloperId) -> Result<UsageResponse, Error> {
    let now = app.clock.now();
    let (quota_repo, developers) = (Quotas(&*app.store), Developers(&*app.store));
    let (quotas, keys) = tokio::join!(quota_repo.effective(developer), developers.keys(developer),);
    let (quotas, keys) = (quotas?, keys?);
    let day = QuotaWindow::Day.key(now);

    // One read of every counter: the three kinds, the minute, each key.
    let mut counters: Vec<Counter> = quotas
        .iter()
        .map(|q| {
            if q.kind.is_standing() {
                Counter::Standing {
                    developer,
                    kind: q.kind,
                }
            } else {
                Counter::Window {
                    developer,
                    kind: q.kind,
                    window_key: q.value.window.key(now),
                }
            }
        })
        .collect();
    counters.push(Counter::Burst {
        developer,
        minute: unix_minute(now),
    });
    counters.extend(keys.iter().map(|k| Counter::KeyDay {
        key: k.id,
        day: day.clone(),
    }));
    // The store's counts plus what this process counted and has not written
    // yet, so a process's own requests show at once.
    let stored = Usage(&*app.store).counts(&counters).await?;
    let counts: Vec<u64> = counters
        .iter()
        .zip(stored)
        .map(|(counter, n)| n + app.meter.unwritten(counter))
        .collect();
    let burst_count = counts[QuotaKind::ALL.len()];

    let kind_usage = |kind: QuotaKind| {
        let index = QuotaKind::ALL.iter().position(|k| *k == kind).unwrap_or(0);
        let quota = quotas.get(kind);
        let value: QuotaValue = quota.value;
        let standing = kind.is_standing();
        KindUsage {
            count: counts[index],
            ceiling: value.ceiling,
            window: value.window,
            window_key: (!standing).then(|| value.window.key(now)),
            resets_at: (!standing).then(|| value.window.end(now)),
            burst_per_minute: value.burst_per_minute,
            burst_count: value
                .burst_per_minute
                .filter(|_| kind == QuotaKind::Requests)
                .map(|_| burst_count),
            source: quota.source,
        }
    };
    let key_counts = &counts[QuotaKind::ALL.len() + 1..];
    let keys = keys
        .into_iter()
        .zip(key_counts)
        .filter(|(key, requests)| key.revoked_at.is_none() || **requests > 0)
        .map(|(key, requests)| KeyUsage {
            key_id: key.id,
            name: key.name,
            requests: *requests,
        })
        .collect();
    Ok(UsageResponse {
        at: now,
        quotas: UsageByKind {
            requests: kind_usage(QuotaKind::Requests),
            virtual_devices: kind_usage(QuotaKind::VirtualDevices),
            mqtt_messages: kind_usage(QuotaKind::MqttMessages),
        },
        day,
        keys,
    })
}
