//! A caller's event-stream slots: each open stream holds one, across every
//! instance, so a caller keeps at most its cap of streams open at once. A
//! slot is a lease in the store: it frees itself [`LEASE_SECONDS`] after its
//! last renewal (a crashed instance's slot too), an open stream renews it
//! once a minute, and a stream that ends gives it back at once.

use std::sync::Arc;

use alyt_domain::access::Principal;
use alyt_store::Store;
use alyt_store::repo::streams::{LeaseError, StreamLease, StreamLeases};

use crate::{App, Error};

/// How long a slot lasts unrenewed.
pub const LEASE_SECONDS: i64 = 120;
/// An open stream renews its slot when less than this is left: once a
/// minute, at one of its rechecks.
pub const RENEW_BELOW_SECONDS: i64 = 60;

/// The name a caller's stream slots are kept under: its key, its person,
/// its widget (an app token counts as its key).
fn holder(caller: &Principal) -> String {
    match caller {
        Principal::Key { key_id, .. } => format!("key#{key_id}"),
        Principal::Person { claims, .. } => format!("user#{}", claims.sub),
        Principal::Widget { token_id, .. } => format!("widget#{token_id}"),
        Principal::Routine { routine, .. } => format!("routine#{routine}"),
    }
}

/// A stream's slot, given back when it is dropped (the stream ended: the
/// client left, the time is up, or the caller lost the right).
pub struct StreamSlot {
    store: Arc<dyn Store>,
    lease: StreamLease,
}

/// Takes one of the caller's `per_caller` slots; too many streams (retry
/// when the oldest lease runs out) when all are held.
pub async fn take_slot(
    app: &App,
    caller: &Principal,
    per_caller: u32,
) -> Result<StreamSlot, Error> {
    let now = app.clock.unix_seconds();
    let lease = StreamLeases(&*app.store)
        .acquire(
            &holder(caller),
            per_caller,
            uuid::Uuid::new_v4(),
            now,
            LEASE_SECONDS,
        )
        .await
        .map_err(|e| match e {
            LeaseError::Full { retry_at } => {
                Error::too_many_streams(per_caller, (retry_at - now).max(1) as u64)
            }
            LeaseError::Store(e) => e.into(),
        })?;
    Ok(StreamSlot {
        store: app.store.clone(),
        lease,
    })
}

impl StreamSlot {
    /// Whether the stream still holds its slot, renewing it when due at
    /// `now`; a slot lost to another connection ends the stream, so the cap
    /// holds. A store that fails keeps the stream going: the next check asks
    /// again.
    pub async fn keep(&mut self, now: i64) -> bool {
        if self.lease.expires_at - now >= RENEW_BELOW_SECONDS {
            return true;
        }
        match StreamLeases(&*self.store)
            .renew(&mut self.lease, now, LEASE_SECONDS)
            .await
        {
            Ok(kept) => kept,
            Err(e) => {
                tracing::warn!(error = %e, "could not renew a stream slot");
                true
            }
        }
    }
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let (store, lease) = (self.store.clone(), self.lease.clone());
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if let Err(e) = StreamLeases(&*store).release(&lease).await {
                    // The lease runs out by itself within LEASE_SECONDS.
                    tracing::warn!(error = %e, "could not give a stream slot back");
                }
            });
        }
    }
}
