//! Password-reset requests waiting for their mail: the request only records
//! that a reset was asked for, the same way whether or not the address has an
//! account, and a worker after the response issues the link and sends it.
//!
//! Key: `RESETS/{requestId}` (a UUIDv7, so oldest first), with `ttl` a day
//! after the request: one nobody delivered by then is dropped. The request
//! names the side that asked ([`ResetSide`]), so the one worker writes the
//! mail that side's reset needs.

use alyt_domain::ids::UserId;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::{Condition, Item, Key, Query, Store, StoreError};

const PARTITION: &str = "RESETS";
/// How long an undelivered request is kept.
pub const KEEP_SECONDS: i64 = 24 * 60 * 60;

fn key(id: Uuid) -> Key {
    Key::new(PARTITION, id.to_string())
}

/// Who asked for the reset: a household person (`POST /auth/forgot-password`)
/// or a developer (`POST /developers/auth/forgot-password`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResetSide {
    /// Requests queued before households could ask were all developers'.
    #[default]
    Developer,
    Household,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResetRequest {
    pub id: Uuid,
    #[serde(default)]
    pub side: ResetSide,
    /// The account of the address; `None` when the address has none (the
    /// request is dropped unsent).
    pub user_id: Option<UserId>,
    /// Unix seconds.
    pub requested_at: i64,
}

pub struct ResetRequests<'a>(pub &'a dyn Store);

impl ResetRequests<'_> {
    /// Records a request: one put, whatever `user_id` is.
    pub async fn enqueue(
        &self,
        side: ResetSide,
        user_id: Option<UserId>,
        now: i64,
    ) -> Result<Uuid, StoreError> {
        let request = ResetRequest {
            id: Uuid::now_v7(),
            side,
            user_id,
            requested_at: now,
        };
        let item = Item::from_record(key(request.id), &request)?.with("ttl", now + KEEP_SECONDS);
        self.0.put(item, Some(Condition::item_absent())).await?;
        Ok(request.id)
    }

    /// Up to `limit` waiting requests, oldest first.
    pub async fn pending(&self, limit: u32) -> Result<Vec<ResetRequest>, StoreError> {
        let page = self
            .0
            .query(Query::partition(PARTITION).limit(limit))
            .await?;
        Ok(page.records()?.0)
    }

    /// Takes a request for delivery; `false` when another worker took it
    /// first (each request is delivered at most once).
    pub async fn claim(&self, id: Uuid) -> Result<bool, StoreError> {
        super::applied(
            self.0
                .delete(&key(id), Some(Condition::item_present()))
                .await,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_queued_before_households_could_ask_reads_as_a_developers() {
        let older = serde_json::json!({
            "id": "0190b5a0-0000-7000-8000-000000000001",
            "userId": null,
            "requestedAt": 1_800_000_000,
        });
        let request: ResetRequest = serde_json::from_value(older).unwrap();
        assert_eq!(request.side, ResetSide::Developer);
        let household = ResetRequest {
            side: ResetSide::Household,
            ..request
        };
        let written = serde_json::to_value(&household).unwrap();
        assert_eq!(written["side"], "household");
        assert_eq!(
            serde_json::from_value::<ResetRequest>(written).unwrap(),
            household
        );
    }
}
