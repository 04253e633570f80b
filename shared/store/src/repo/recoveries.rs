//! Webhook endpoint recoveries: the redelivery of what an endpoint missed
//! over a range of events, worked a batch at a time by the webhook worker
//! (the rules are `alyt_events::recovery`'s).
//!
//! Keys:
//! * recovery `WEBHOOK#{w}/RECOVERY`: one per endpoint (the latest), beside
//!   its delivery rows. Started with a condition that no recovery of the
//!   endpoint is running, so at most one runs per endpoint.
//! * gsi1 `WHRECOVER` / `WEBHOOK#{w}` while running: the worker's list.
//!
//! Every write is conditioned on `rev`, so two workers never both advance a
//! recovery and a restart resumes from the last position written.

use alyt_domain::ids::{DeveloperId, TenantId, WebhookId};
use serde::{Deserialize, Serialize};
use serde_json::json;
use time::{Duration, OffsetDateTime};

use super::{every_page, record, ts};
use crate::{Condition, Index, Item, Key, Query, Store, StoreError};

/// How long a finished recovery stays readable.
pub const RECOVERY_KEPT: Duration = Duration::days(30);
/// The index partition of running recoveries.
const RUNNING: &str = "WHRECOVER";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum RecoveryStatus {
    Running,
    /// Every event of the range was looked at.
    Done,
    /// Given up: the endpoint was removed.
    Cancelled,
}

/// One recovery of one endpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecoveryRecord {
    pub endpoint_id: WebhookId,
    pub developer_id: DeveloperId,
    pub status: RecoveryStatus,
    /// The first and last event id of the range (both included).
    pub from_event_id: String,
    pub to_event_id: String,
    /// The tenants whose logs are read, one after another.
    pub tenants: Vec<TenantId>,
    /// The tenant being read (an index into `tenants`).
    pub tenant_index: u32,
    /// The last event id looked at in that tenant's log.
    pub position: Option<String>,
    /// The last event queued (the next batch waits until it was attempted).
    pub last_queued: Option<String>,
    /// Events of the range the endpoint's filter matched.
    pub matched: u64,
    /// Of those, queued again (never delivered, failed, or waiting for a retry).
    pub queued: u64,
    /// Of those, left alone (delivered, or about to be attempted).
    pub skipped: u64,
    pub rev: u64,
    #[serde(with = "ts::rfc3339")]
    pub started_at: OffsetDateTime,
    #[serde(with = "ts::rfc3339")]
    pub updated_at: OffsetDateTime,
    #[serde(with = "ts::option", default)]
    pub finished_at: Option<OffsetDateTime>,
}

pub fn recovery_key(endpoint: WebhookId) -> Key {
    Key::new(format!("WEBHOOK#{endpoint}"), "RECOVERY")
}

fn recovery_item(record: &RecoveryRecord) -> Result<Item, StoreError> {
    let mut item = Item::from_record(recovery_key(record.endpoint_id), record)?;
    if record.status == RecoveryStatus::Running {
        item.set(Index::Gsi1.pk_attr(), RUNNING);
        item.set(
            Index::Gsi1.sk_attr(),
            format!("WEBHOOK#{}", record.endpoint_id),
        );
    }
    item.set(
        crate::attr::TTL,
        (record.updated_at + RECOVERY_KEPT).unix_timestamp(),
    );
    Ok(item)
}

/// What a start found.
#[derive(Debug, Clone, PartialEq)]
pub enum Started {
    Started,
    /// One is running already: it, as it is now.
    Running(Box<RecoveryRecord>),
}

pub struct Recoveries<'a>(pub &'a dyn Store);

impl Recoveries<'_> {
    /// Stores a new recovery unless one of the endpoint is running (one
    /// conditional put; a finished one is replaced).
    pub async fn start(&self, record: &RecoveryRecord) -> Result<Started, StoreError> {
        let condition =
            Condition::item_absent().or(Condition::ne("status", json!(RecoveryStatus::Running)));
        match self.0.put(recovery_item(record)?, Some(condition)).await {
            Ok(()) => Ok(Started::Started),
            Err(StoreError::ConditionFailed {
                current: Some(current),
            }) => Ok(Started::Running(Box::new(current.to_record()?))),
            Err(e) if e.is_condition_failure() => match self.get(record.endpoint_id).await? {
                Some(current) => Ok(Started::Running(Box::new(current))),
                None => Err(e),
            },
            Err(e) => Err(e),
        }
    }

    /// The endpoint's latest recovery.
    pub async fn get(&self, endpoint: WebhookId) -> Result<Option<RecoveryRecord>, StoreError> {
        record(self.0, &recovery_key(endpoint)).await
    }

    /// Every running recovery (one query per 1,000; the index may lag:
    /// callers re-read before working one).
    pub async fn running(&self) -> Result<Vec<RecoveryRecord>, StoreError> {
        every_page(self.0, Query::on_index(Index::Gsi1, RUNNING)).await
    }

    /// Stores `next` if the recovery is still `current` (same `rev`);
    /// `next.rev` must be `current.rev + 1`. False when it changed.
    pub async fn advance(
        &self,
        current: &RecoveryRecord,
        next: &RecoveryRecord,
    ) -> Result<bool, StoreError> {
        if next.rev != current.rev + 1 || next.endpoint_id != current.endpoint_id {
            return Err(StoreError::Invalid(
                "a recovery moves one revision at a time".into(),
            ));
        }
        super::applied(
            self.0
                .put(
                    recovery_item(next)?,
                    Some(Condition::eq("rev", json!(current.rev))),
                )
                .await,
        )
    }
}
