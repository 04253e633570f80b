//! The webhook delivery rules, pure: the retry schedule, the moves of a
//! delivery row and endpoint health. The worker (`delivery.rs`) applies them to
//! stored rows.
//!
//! Row states: `pending` (never attempted) -> an attempt -> `delivered`, or
//! `retrying` with the next attempt per [`retry_delay`], and after the 20th
//! failed attempt `failed`. A row whose endpoint is disabled is `held`
//! instead of attempted; a re-enable requeues it as `pending`, a new series.

use alyt_store::repo::webhooks::{DeliveryRecord, DeliveryStatus};
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

/// Attempts of one series, the first included.
pub const MAX_ATTEMPTS: u32 = 20;
/// The consecutive failure that disables an endpoint.
pub const DISABLE_AFTER: u32 = 50;
/// The first retry comes this long after the first attempt ...
pub const FIRST_RETRY: Duration = Duration::seconds(30);
/// ... and the delay doubles up to this.
pub const MAX_RETRY: Duration = Duration::hours(1);
/// How long a claimed attempt keeps its row from other workers. Longer than
/// the 10 s request timeout plus the writes around it; a worker that dies
/// mid-attempt loses the row to the next one after this (the attempt counts).
pub const LEASE: Duration = Duration::seconds(60);

/// The wait after the `attempt`-th attempt (1-based) failed: 30 s, 1 min,
/// 2 min, doubling, capped at 1 hour; `None` after the last attempt.
pub fn retry_delay(attempt: u32) -> Option<Duration> {
    if attempt == 0 || attempt >= MAX_ATTEMPTS {
        return None;
    }
    // 30 s * 2^(n-1) passes an hour at n = 8; cap before shifting further.
    let doubled = FIRST_RETRY * 2i32.pow((attempt - 1).min(7));
    Some(doubled.min(MAX_RETRY))
}

/// Every wait of a series, in order (19 of them).
pub fn retry_schedule() -> Vec<Duration> {
    (1..MAX_ATTEMPTS).map_while(retry_delay).collect()
}

/// How one attempt went, as the worker saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttemptOutcome {
    /// A 2xx within the timeout.
    Delivered { status: u16 },
    /// Any other answer (a redirect included), or none.
    Failed {
        status: Option<u16>,
        error: Option<String>,
    },
}

impl AttemptOutcome {
    /// The outcome of an HTTP answer: only a 2xx is delivered.
    pub fn from_status(status: u16) -> Self {
        if (200..300).contains(&status) {
            AttemptOutcome::Delivered { status }
        } else {
            AttemptOutcome::Failed {
                status: Some(status),
                error: Some(format!("the endpoint answered {status}")),
            }
        }
    }

    pub fn is_success(&self) -> bool {
        matches!(self, AttemptOutcome::Delivered { .. })
    }
}

/// Why a row cannot be claimed now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NotClaimable {
    #[error("the delivery is not waiting for an attempt")]
    NotWaiting,
    #[error("the next attempt is not due yet")]
    NotDue,
    #[error("every attempt has been made")]
    Exhausted,
}

fn bumped(row: &DeliveryRecord, now: OffsetDateTime) -> DeliveryRecord {
    DeliveryRecord {
        rev: row.rev + 1,
        updated_at: now,
        ..row.clone()
    }
}

/// A new row for an event (pending, due at `now`; held for a disabled endpoint).
pub fn new_delivery(
    endpoint: &alyt_store::repo::webhooks::WebhookEndpointRecord,
    event: &crate::EventEnvelope,
    payload: String,
    now: OffsetDateTime,
) -> DeliveryRecord {
    let disabled = endpoint.status == alyt_store::repo::webhooks::EndpointStatus::Disabled;
    DeliveryRecord {
        id: Uuid::new_v4(),
        endpoint_id: endpoint.id,
        developer_id: endpoint.developer_id,
        tenant_id: event.tenant_id,
        event_id: event.id.to_string(),
        event_kind: event.kind.to_string(),
        status: if disabled {
            DeliveryStatus::Held
        } else {
            DeliveryStatus::Pending
        },
        attempts: 0,
        next_attempt_at: (!disabled).then_some(now),
        last_attempt_at: None,
        last_response_code: None,
        last_error: None,
        payload,
        signature: None,
        rev: 0,
        created_at: now,
        updated_at: now,
    }
}

/// The row while attempt `attempts + 1` is in flight: counted, and hidden
/// from other workers until the lease ends.
pub fn claim(row: &DeliveryRecord, now: OffsetDateTime) -> Result<DeliveryRecord, NotClaimable> {
    if !row.status.is_due_state() {
        return Err(NotClaimable::NotWaiting);
    }
    if row.attempts >= MAX_ATTEMPTS {
        return Err(NotClaimable::Exhausted);
    }
    if row.next_attempt_at.is_none_or(|next| next > now) {
        return Err(NotClaimable::NotDue);
    }
    Ok(DeliveryRecord {
        attempts: row.attempts + 1,
        last_attempt_at: Some(now),
        next_attempt_at: Some(now + LEASE),
        ..bumped(row, now)
    })
}

/// The claimed row after its attempt: delivered, retrying at the attempt's
/// start plus the schedule's delay, or failed after the last attempt.
pub fn settle(
    claimed: &DeliveryRecord,
    outcome: &AttemptOutcome,
    signature: Option<String>,
    now: OffsetDateTime,
) -> DeliveryRecord {
    let started = claimed.last_attempt_at.unwrap_or(now);
    let mut next = DeliveryRecord {
        signature,
        ..bumped(claimed, now)
    };
    match outcome {
        AttemptOutcome::Delivered { status } => {
            next.status = DeliveryStatus::Delivered;
            next.next_attempt_at = None;
            next.last_response_code = Some(*status);
            next.last_error = None;
        }
        AttemptOutcome::Failed { status, error } => {
            next.last_response_code = *status;
            next.last_error = error.clone();
            match retry_delay(claimed.attempts) {
                Some(delay) => {
                    next.status = DeliveryStatus::Retrying;
                    next.next_attempt_at = Some(started + delay);
                }
                None => {
                    next.status = DeliveryStatus::Failed;
                    next.next_attempt_at = None;
                }
            }
        }
    }
    next
}

/// A row that can no longer be attempted: failed with the reason.
pub fn give_up(row: &DeliveryRecord, reason: &str, now: OffsetDateTime) -> DeliveryRecord {
    DeliveryRecord {
        status: DeliveryStatus::Failed,
        next_attempt_at: None,
        last_error: Some(reason.to_owned()),
        ..bumped(row, now)
    }
}

/// A waiting row set aside while its endpoint is disabled (kept, visible).
pub fn hold(row: &DeliveryRecord, now: OffsetDateTime) -> DeliveryRecord {
    DeliveryRecord {
        status: DeliveryStatus::Held,
        next_attempt_at: None,
        ..bumped(row, now)
    }
}

/// A held row after a re-enable: a new series (new delivery id, attempts from
/// zero), due at once. Receivers deduplicate on the envelope id.
pub fn requeue(row: &DeliveryRecord, now: OffsetDateTime) -> DeliveryRecord {
    DeliveryRecord {
        id: Uuid::new_v4(),
        status: DeliveryStatus::Pending,
        attempts: 0,
        next_attempt_at: Some(now),
        ..bumped(row, now)
    }
}

/// A row sent again now, in its series (same delivery id, attempts go on):
/// a replay of a logged delivery, or a recovery of one waiting for a retry.
pub fn bring_forward(row: &DeliveryRecord, now: OffsetDateTime) -> DeliveryRecord {
    DeliveryRecord {
        status: DeliveryStatus::Pending,
        next_attempt_at: Some(now),
        ..bumped(row, now)
    }
}

/// Endpoint health as a value: the model the store's counter follows (a
/// failure adds one, a success resets, the 50th consecutive failure of an
/// active endpoint disables it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Health {
    pub consecutive_failures: u32,
    pub disabled: bool,
}

impl Health {
    /// The health after one attempt, and whether this attempt disabled it.
    pub fn record(self, success: bool) -> (Health, bool) {
        if success {
            return (
                Health {
                    consecutive_failures: 0,
                    ..self
                },
                false,
            );
        }
        let failures = self.consecutive_failures.saturating_add(1);
        let disables = !self.disabled && failures >= DISABLE_AFTER;
        (
            Health {
                consecutive_failures: failures,
                disabled: self.disabled || disables,
            },
            disables,
        )
    }

    /// A re-enable: active, count from zero.
    pub fn enable(self) -> Health {
        Health::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alyt_domain::ids::{DeveloperId, KeyId, TenantId, WebhookId};
    use alyt_store::repo::webhooks::{EndpointStatus, WebhookEndpointRecord, WebhookRoute};
    use proptest::prelude::*;
    use time::macros::datetime;

    #[test]
    fn the_whole_schedule() {
        let s = |n: i64| Duration::seconds(n);
        let hour = Duration::hours(1);
        assert_eq!(
            retry_schedule(),
            vec![
                s(30),
                s(60),
                s(120),
                s(240),
                s(480),
                s(960),
                s(1920),
                hour,
                hour,
                hour,
                hour,
                hour,
                hour,
                hour,
                hour,
                hour,
                hour,
                hour,
                hour,
            ]
        );
        assert_eq!(retry_schedule().len() as u32, MAX_ATTEMPTS - 1);
        // 13 h 3 min 30 s from the first attempt to the last: within the day.
        let total: Duration = retry_schedule().into_iter().sum();
        assert_eq!(total, Duration::seconds(47_010));
        assert_eq!(retry_delay(0), None);
        assert_eq!(retry_delay(MAX_ATTEMPTS), None);
        assert_eq!(retry_delay(u32::MAX), None);
    }

    fn row(now: OffsetDateTime) -> DeliveryRecord {
        let endpoint = WebhookEndpointRecord {
            id: WebhookId::new(),
            developer_id: DeveloperId::new(),
            key_id: KeyId::new(),
            route: WebhookRoute::Tenant {
                tenant_id: TenantId::new(),
            },
            url: "https://example.com/hook".into(),
            events: vec!["device.online".into()],
            description: None,
            secret: "whsec_x".into(),
            previous_secret: None,
            previous_secret_until: None,
            event_bridge: None,
            status: EndpointStatus::Active,
            consecutive_failures: 0,
            disabled_at: None,
            disabled_reason: None,
            created_at: now,
        };
        let event = crate::EventEnvelope {
            id: crate::EventId::new(now, 1),
            kind: crate::EventKind::DeviceOnline,
            tenant_id: TenantId::new(),
            created_at: now,
            data: serde_json::json!({}),
        };
        new_delivery(&endpoint, &event, "{}".into(), now)
    }

    #[test]
    fn a_claim_counts_and_leases() {
        let t0 = datetime!(2026-06-01 12:00 UTC);
        let r = row(t0);
        assert_eq!(
            claim(&r, t0 - Duration::seconds(1)),
            Err(NotClaimable::NotDue)
        );
        let c = claim(&r, t0).unwrap();
        assert_eq!(
            (c.attempts, c.rev, c.next_attempt_at),
            (1, 1, Some(t0 + LEASE))
        );
        assert_eq!(c.status, DeliveryStatus::Pending);
        assert_eq!(claim(&c, t0), Err(NotClaimable::NotDue), "leased");
        let d = settle(&c, &AttemptOutcome::from_status(204), None, t0);
        assert_eq!(d.status, DeliveryStatus::Delivered);
        assert_eq!(claim(&d, t0 + LEASE), Err(NotClaimable::NotWaiting));
        assert_eq!(
            AttemptOutcome::from_status(302),
            AttemptOutcome::Failed {
                status: Some(302),
                error: Some("the endpoint answered 302".into())
            }
        );
    }

    proptest! {
        /// Any sequence of outcomes and (late) worker times: at most 20
        /// attempts; each retry is exactly the schedule's delay after its
        /// attempt started; delivered and failed are final; failed only after
        /// the 20th failure; the delivery id never changes within a series.
        #[test]
        fn delivery_rows_follow_the_schedule(outcomes in proptest::collection::vec(any::<bool>(), 1..40),
                                             lateness in proptest::collection::vec(0i64..5000, 40)) {
            let t0 = datetime!(2026-06-01 12:00 UTC);
            let mut r = row(t0);
            let id = r.id;
            let mut now = t0;
            let mut failures = 0u32;
            for (n, success) in outcomes.iter().enumerate() {
                let Some(due) = r.next_attempt_at else { break };
                prop_assert!(due >= now || n == 0);
                now = due + Duration::milliseconds(lateness[n]);
                let claimed = claim(&r, now).unwrap();
                prop_assert_eq!(claimed.attempts, r.attempts + 1);
                let outcome = if *success { AttemptOutcome::from_status(200) } else { AttemptOutcome::from_status(500) };
                let next = settle(&claimed, &outcome, Some("sig".into()), now + Duration::seconds(3));
                prop_assert_eq!(next.rev, r.rev + 2);
                prop_assert_eq!(next.id, id);
                prop_assert!(next.attempts <= MAX_ATTEMPTS);
                if *success {
                    prop_assert_eq!(next.status, DeliveryStatus::Delivered);
                    prop_assert_eq!(next.next_attempt_at, None);
                } else {
                    failures += 1;
                    if failures == MAX_ATTEMPTS {
                        prop_assert_eq!(next.status, DeliveryStatus::Failed);
                    } else {
                        prop_assert_eq!(next.status, DeliveryStatus::Retrying);
                        prop_assert_eq!(next.next_attempt_at, Some(now + retry_delay(failures).unwrap()));
                    }
                }
                r = next;
            }
            if r.status == DeliveryStatus::Failed || r.status == DeliveryStatus::Delivered {
                prop_assert!(claim(&r, now + Duration::days(2)).is_err());
            }
        }

        /// Health: disabled exactly when 50 failures ran with no success
        /// between them since the last enable; the disabling attempt is
        /// reported exactly once.
        #[test]
        fn endpoint_health(steps in proptest::collection::vec(prop_oneof![8 => Just(Some(false)), 1 => Just(Some(true)), 1 => Just(None)], 0..300)) {
            let mut health = Health::default();
            let mut run = 0u32;
            let mut disabled = false;
            for step in steps {
                match step {
                    None => { health = health.enable(); run = 0; disabled = false; }
                    Some(success) => {
                        let (next, disabled_now) = health.record(success);
                        run = if success { 0 } else { run + 1 };
                        prop_assert_eq!(disabled_now, !disabled && run == DISABLE_AFTER);
                        disabled |= disabled_now;
                        prop_assert_eq!(next.consecutive_failures, run);
                        prop_assert_eq!(next.disabled, disabled);
                        health = next;
                    }
                }
            }
        }

        /// Held rows keep their event and payload, and a requeue starts a
        /// fresh series due at once.
        #[test]
        fn hold_and_requeue(attempts in 0u32..MAX_ATTEMPTS, wait in 0i64..100_000) {
            let t0 = datetime!(2026-06-01 12:00 UTC);
            let mut r = row(t0);
            r.attempts = attempts;
            let held = hold(&r, t0);
            prop_assert_eq!(held.status, DeliveryStatus::Held);
            prop_assert!(claim(&held, t0 + Duration::days(1)).is_err());
            let later = t0 + Duration::seconds(wait);
            let again = requeue(&held, later);
            prop_assert_eq!((again.status, again.attempts, again.next_attempt_at), (DeliveryStatus::Pending, 0, Some(later)));
            prop_assert_ne!(again.id, r.id);
            prop_assert_eq!(&again.payload, &r.payload);
            prop_assert_eq!(&again.event_id, &r.event_id);
            prop_assert!(claim(&again, later).is_ok());
        }
    }
}
