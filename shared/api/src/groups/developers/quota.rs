//! Developer quotas and usage: `GET /v1/developers/quota` and `GET
//! /v1/developers/usage`.
//!
//! The reads are [`alyt_app::developers::quota`]'s. The counting of every
//! keyed request is `alyt_app::quota` (called by the caller extractor);
//! `GET /usage` adds this process's unwritten counts to the stored ones.
//!
//! This is separate from the per-process rate limiter and its RateLimit fields.

use crate::routing::{Operations, operations};
use alyt_domain::quota::{QuotaKind, QuotaSource, QuotaWindow};
use alyt_store::repo::usage::{EffectiveQuota, EffectiveQuotas};
use axum::Json;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use crate::auth::Caller;
use crate::conventions::responses::{
    DeveloperNotActive, NoDeveloperSessionOrKey, RequestsQuotaSpent,
};
use crate::{ApiError, AppState};
use alyt_app::developers::quota;

pub fn routes() -> Operations {
    Operations::new()
        .merge(operations!(get_quota))
        .merge(operations!(get_usage))
}

pub use alyt_app::quota::{CACHE_TTL, effective_cached, forget_cached};

pub use alyt_app::developers::quota::{KeyUsage, KindUsage, UsageByKind, UsageResponse};

// ---------------------------------------------------------------------------
// GET /quota

/// The quota that applies to the developer for one kind.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EffectiveQuotaView {
    pub kind: QuotaKind,
    /// Uses allowed per window (for VIRTUAL_DEVICES: devices held at once).
    pub ceiling: u64,
    pub window: QuotaWindow,
    /// At most this many uses a minute; absent without a burst limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false, nullable = false, minimum = 1)]
    pub burst_per_minute: Option<u32>,
    /// `override` when staff set a value for this developer, else `default`.
    pub source: QuotaSource,
}

impl From<&EffectiveQuota> for EffectiveQuotaView {
    fn from(q: &EffectiveQuota) -> Self {
        Self {
            kind: q.kind,
            ceiling: q.value.ceiling,
            window: q.value.window,
            burst_per_minute: q.value.burst_per_minute,
            source: q.source,
        }
    }
}

/// The developer's effective quota of every kind.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct QuotaResponse {
    #[serde(rename = "REQUESTS")]
    #[schema(rename = "REQUESTS")]
    pub requests: EffectiveQuotaView,
    #[serde(rename = "VIRTUAL_DEVICES")]
    #[schema(rename = "VIRTUAL_DEVICES")]
    pub virtual_devices: EffectiveQuotaView,
    #[serde(rename = "MQTT_MESSAGES")]
    #[schema(rename = "MQTT_MESSAGES")]
    pub mqtt_messages: EffectiveQuotaView,
}

impl From<&EffectiveQuotas> for QuotaResponse {
    fn from(q: &EffectiveQuotas) -> Self {
        Self {
            requests: q.get(QuotaKind::Requests).into(),
            virtual_devices: q.get(QuotaKind::VirtualDevices).into(),
            mqtt_messages: q.get(QuotaKind::MqttMessages).into(),
        }
    }
}

/// The developer's effective quotas: each kind's override when staff set one,
/// else the platform default. A developer session or any key of the developer
/// (no scope needed; the request counts like any keyed request).
#[utoipa::path(
    get,
    path = "/v1/developers/quota",
    tag = "developers",
    operation_id = "getDeveloperQuota",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The effective quota per kind", body = QuotaResponse),
        NoDeveloperSessionOrKey,
        DeveloperNotActive,
        RequestsQuotaSpent,
    )
)]
pub async fn get_quota(
    State(state): State<AppState>,
    Caller(caller): Caller,
) -> Result<Json<QuotaResponse>, ApiError> {
    let quotas = quota::developer_quotas(&state, &caller).await?;
    Ok(Json((&quotas).into()))
}

// ---------------------------------------------------------------------------
// GET /usage

/// The developer's usage: for each kind the count of the current window, its
/// ceiling, window and reset, and the requests of each key today (UTC). Only
/// served requests count. A developer session or any key of the developer.
#[utoipa::path(
    get,
    path = "/v1/developers/usage",
    tag = "developers",
    operation_id = "getDeveloperUsage",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Counts per kind and per key", body = UsageResponse),
        NoDeveloperSessionOrKey,
        DeveloperNotActive,
        RequestsQuotaSpent,
    )
)]
pub async fn get_usage(
    State(state): State<AppState>,
    Caller(caller): Caller,
) -> Result<Json<UsageResponse>, ApiError> {
    Ok(Json(quota::developer_usage(&state, &caller).await?))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use alyt_domain::access::{KeyKind, Scope};
    use alyt_domain::ids::{DeveloperId, KeyId, TenantId, UserId};
    use alyt_domain::quota::{QuotaValue, unix_minute};
    use alyt_domain::{Clock, ManualClock};
    use alyt_store::repo::developers::{
        DeveloperRecord, DeveloperStatus, DeveloperType, Developers, KeyRecord,
    };
    use alyt_store::repo::identity::UserRecord;
    use alyt_store::repo::usage::{Counter, Quotas, Usage};
    use alyt_store::sqlite::SqliteStore;
    use time::OffsetDateTime;
    use time::macros::datetime;

    use super::*;
    use crate::auth::caller::authenticate;
    use crate::ports::{NoBotCheck, NoMailer};
    use crate::{Adapters, Settings};
    use alyt_domain::secret::sha256_hex;
    use alyt_store::counting::CountingStore;

    struct Fixture {
        state: AppState,
        store: Arc<CountingStore<SqliteStore>>,
        clock: Arc<ManualClock>,
        developer: DeveloperId,
        secret: String,
    }

    async fn fixture(start: OffsetDateTime) -> Fixture {
        let clock = Arc::new(ManualClock::new(start));
        let store = Arc::new(CountingStore::new(
            SqliteStore::in_memory(clock.clone()).unwrap(),
        ));
        let state = AppState::build(
            Adapters {
                store: store.clone(),
                clock: clock.clone(),
                mailer: Arc::new(NoMailer),
                bot_check: Arc::new(NoBotCheck),
                publisher: Arc::new(alyt_device::NoPublisher),
                credentials: std::sync::Arc::new(crate::ports::PasswordCredentials),
            },
            Settings {
                rate_limit: Default::default(),
                public_url: "http://127.0.0.1/v1".into(),
                ..Default::default()
            },
        )
        .await
        .unwrap();
        let now = clock.now();
        let user = UserRecord {
            name: None,
            id: UserId::new(),
            email: "counted@example.com".into(),
            password_hash: "x".into(),
            email_verified_at: Some(now),
            platform_role: None,
            tenants: Default::default(),
            developer_id: None,
            mfa: None,
            units: None,
            created_at: now,
        };
        let developer = DeveloperRecord {
            id: DeveloperId::new(),
            user_id: user.id,
            email: user.email.clone(),
            kind: DeveloperType::Individual,
            display_name: "Counted".into(),
            organisation: None,
            website: None,
            status: DeveloperStatus::Active,
            sandbox_tenant_id: Some(TenantId::new()),
            verified_at: Some(now),
            mfa_enabled_at: None,
            created_at: now,
        };
        let developers = Developers(&*store);
        developers.sign_up(&user, &developer).await.unwrap();
        let secret = format!("svc_dev_{}", "k".repeat(43));
        developers
            .create_key(&KeyRecord {
                id: KeyId::new(),
                developer_id: developer.id,
                kind: KeyKind::Dev,
                name: "counted".into(),
                prefix: secret[..12].into(),
                scopes: vec![Scope::DevicesRead],
                definition_id: None,
                created_at: now,
                expires_at: None,
                last_used_at: None,
                revoked_at: None,
                rotated_from_id: None,
                secret_hash: sha256_hex(&secret),
            })
            .await
            .unwrap();
        store.take();
        Fixture {
            state,
            store,
            clock,
            developer: developer.id,
            secret,
        }
    }

    fn requests(f: &Fixture) -> Counter {
        Counter::Window {
            developer: f.developer,
            kind: QuotaKind::Requests,
            window_key: QuotaWindow::Day.key(f.clock.now()),
        }
    }

    /// The store calls of one keyed request, written down: authentication
    /// reads the secret lookup, the key and the developer; counting writes
    /// nothing (the usage meter does, once per counter per flush); the quota
    /// is read once per minute per developer and process, the counters once
    /// per process.
    #[tokio::test]
    async fn a_keyed_request_costs_three_reads_and_no_write() {
        let f = fixture(datetime!(2026-11-21 10:00 UTC)).await;
        authenticate(&f.state, &f.secret).await.unwrap();
        // The first also reads the quota (cache miss) and the bounded
        // counters (the window and the minute).
        assert_eq!(
            f.store.take(),
            BTreeMap::from([("batch_get", 2), ("get", 3)])
        );
        for _ in 0..3 {
            authenticate(&f.state, &f.secret).await.unwrap();
            assert_eq!(f.store.take(), BTreeMap::from([("get", 3)]));
        }
        let counters = [
            requests(&f),
            Counter::Burst {
                developer: f.developer,
                minute: unix_minute(f.clock.now()),
            },
        ];
        let usage = Usage(&*f.state.store);
        assert_eq!(usage.counts(&counters).await.unwrap(), [0, 0]);
        assert_eq!(f.state.meter.unwritten(&counters[0]), 4);
        f.store.take();
        // One flush: the three counters and the key's lastUsedAt, once each.
        f.state.meter.flush().await;
        assert_eq!(f.store.take(), BTreeMap::from([("update", 4)]));
        assert_eq!(usage.counts(&counters).await.unwrap(), [4, 4]);
        let key = Developers(&*f.state.store)
            .keys(f.developer)
            .await
            .unwrap()
            .remove(0);
        assert_eq!(key.last_used_at, Some(f.clock.now()));
    }

    #[tokio::test]
    async fn a_spent_ceiling_refuses_until_the_window_turns_and_refusals_are_not_counted() {
        let f = fixture(datetime!(2026-11-21 23:59:00 UTC)).await;
        let two = QuotaValue {
            ceiling: 2,
            window: QuotaWindow::Day,
            burst_per_minute: None,
        };
        Quotas(&*f.state.store)
            .set_override(f.developer, QuotaKind::Requests, two, None, f.clock.now())
            .await
            .unwrap();
        forget_cached(&f.state, f.developer);
        for _ in 0..2 {
            authenticate(&f.state, &f.secret).await.unwrap();
        }
        f.store.take();
        let refused = authenticate(&f.state, &f.secret).await.unwrap_err();
        assert_eq!(refused.status.as_u16(), 429);
        assert_eq!(refused.slug, "quota-exceeded");
        assert_eq!(refused.quota, Some("REQUESTS"));
        assert_eq!(refused.retry_after, Some(60));
        // Refused in memory: nothing read but authentication, nothing written.
        assert_eq!(f.store.take(), BTreeMap::from([("get", 3)]));
        f.state.meter.flush().await;
        let usage = Usage(&*f.state.store);
        assert_eq!(usage.counts(&[requests(&f)]).await.unwrap(), [2]);

        // A second into the next day the key is served again.
        f.clock.advance(time::Duration::seconds(61));
        authenticate(&f.state, &f.secret).await.unwrap();
        f.state.meter.flush().await;
        assert_eq!(usage.counts(&[requests(&f)]).await.unwrap(), [1]);
    }

    #[tokio::test]
    async fn the_burst_turns_with_the_minute_and_staff_changes_apply_after_forgetting() {
        let f = fixture(datetime!(2026-11-21 10:00:30 UTC)).await;
        let burst = QuotaValue {
            ceiling: 100,
            window: QuotaWindow::Month,
            burst_per_minute: Some(1),
        };
        Quotas(&*f.state.store)
            .set_override(f.developer, QuotaKind::Requests, burst, None, f.clock.now())
            .await
            .unwrap();
        forget_cached(&f.state, f.developer);
        authenticate(&f.state, &f.secret).await.unwrap();
        let refused = authenticate(&f.state, &f.secret).await.unwrap_err();
        assert_eq!(refused.retry_after, Some(30));
        assert!(
            refused.detail.contains("1 per minute"),
            "{}",
            refused.detail
        );
        let month = Counter::Window {
            developer: f.developer,
            kind: QuotaKind::Requests,
            window_key: "2026-11".into(),
        };
        // The refused request counted on no counter.
        f.state.meter.flush().await;
        let usage = Usage(&*f.state.store);
        assert_eq!(
            usage.counts(std::slice::from_ref(&month)).await.unwrap(),
            [1]
        );
        f.clock.advance(time::Duration::seconds(30));
        authenticate(&f.state, &f.secret).await.unwrap();

        // A new value is used once the cache forgets the old one.
        let none = QuotaValue {
            ceiling: 0,
            window: QuotaWindow::Month,
            burst_per_minute: None,
        };
        Quotas(&*f.state.store)
            .set_override(f.developer, QuotaKind::Requests, none, None, f.clock.now())
            .await
            .unwrap();
        f.clock.advance(time::Duration::seconds(60));
        authenticate(&f.state, &f.secret).await.unwrap();
        forget_cached(&f.state, f.developer);
        let refused = authenticate(&f.state, &f.secret).await.unwrap_err();
        assert_eq!(refused.slug, "quota-exceeded");
        f.state.meter.flush().await;
        assert_eq!(usage.counts(&[month]).await.unwrap(), [3]);
    }
}
