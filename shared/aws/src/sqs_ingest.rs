//! Hosted ingest: SQS batches filled by the IoT topic rule. Each record's body
//! is the rule's output `{ messageId, topic, payload (base64), receivedAt (ms) }`
//! (see infra/template.yaml). Store failures are reported as batch item
//! failures, so SQS retries just those records (and moves them to the DLQ after
//! repeated failures). What retrying cannot help is never reported: a body that
//! cannot be read is dropped and logged, and a message that fails its schema or
//! whose writes the store refuses as invalid is dropped and counted by ingest
//! ([`Outcome::Rejected`]).

use alyt_device::ingest::{Ingest, Outcome};
use alyt_device::{InboundMessage, parse_topic};
use aws_lambda_events::event::sqs::{BatchItemFailure, SqsBatchResponse, SqsEvent};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::Deserialize;

/// The topic rule's output for one device message.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleMessage {
    pub message_id: String,
    pub topic: String,
    /// The raw MQTT payload, base64 (the rule encodes it so any bytes survive).
    pub payload: String,
    /// Milliseconds since the epoch when IoT Core received it.
    pub received_at: i64,
}

/// Why a record's body was dropped.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BadRecord {
    #[error("the body is not the topic rule's JSON: {0}")]
    Body(String),
    #[error("the topic is not a device channel")]
    Topic,
    #[error("the payload is not base64")]
    Payload,
}

pub fn to_inbound(body: &str) -> Result<InboundMessage, BadRecord> {
    let rule: RuleMessage =
        serde_json::from_str(body).map_err(|e| BadRecord::Body(e.to_string()))?;
    let (identity, channel) = parse_topic(&rule.topic).ok_or(BadRecord::Topic)?;
    let payload = STANDARD
        .decode(&rule.payload)
        .map_err(|_| BadRecord::Payload)?;
    let received_at =
        time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(rule.received_at) * 1_000_000)
            .map_err(|_| BadRecord::Body("receivedAt is out of range".into()))?;
    Ok(InboundMessage {
        message_id: rule.message_id,
        identity,
        channel,
        topic: rule.topic,
        payload: payload.into(),
        retained: false,
        // IoT Core publishes the last will on the availability topic; ingest
        // treats every 'offline' there alike.
        last_will: false,
        received_at,
    })
}

/// Applies a batch; returns the records SQS should retry.
// The response types are non-exhaustive: fill them through Default.
#[allow(clippy::field_reassign_with_default)]
pub async fn handle_batch(ingest: &Ingest, event: SqsEvent) -> SqsBatchResponse {
    let mut failures = Vec::new();
    for record in event.records {
        let id = record.message_id.clone().unwrap_or_default();
        let message = match record.body.as_deref().map(to_inbound) {
            Some(Ok(message)) => message,
            Some(Err(bad)) => {
                tracing::warn!(sqs_message = %id, error = %bad, "dropping an unreadable ingest record");
                continue;
            }
            None => continue,
        };
        match ingest.handle(&message).await {
            Ok(Outcome::Rejected(reason)) => {
                tracing::debug!(topic = %message.topic, reason, "device message dropped")
            }
            Ok(_) => {}
            Err(e) => {
                tracing::warn!(sqs_message = %id, error = %e, "ingest failed; SQS will retry");
                let mut failure = BatchItemFailure::default();
                failure.item_identifier = id;
                failures.push(failure);
            }
        }
    }
    let mut response = SqsBatchResponse::default();
    response.batch_item_failures = failures;
    response
}
