//! Hosted ingest: SQS batches filled by the IoT topic rule. Each record's body
//! is the rule's output `{ messageId, topic, payload (base64), receivedAt (ms),
//! sourceIp }`
//! (see infra/template.yaml). Store failures are reported as batch item
//! failures, so SQS retries just those records (and moves them to the DLQ after
//! repeated failures). What retrying cannot help is never reported: a body that
//! cannot be read is dropped and logged, and a message that fails its schema or
//! whose writes the store refuses as invalid is dropped and counted by ingest
//! ([`Outcome::Rejected`]).

use std::collections::BTreeMap;

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
    /// The device connection's address (the rule's `sourceip()`).
    #[serde(default)]
    pub source_ip: Option<String>,
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
        source_address: rule.source_ip.as_deref().and_then(|ip| ip.parse().ok()),
        packet: None,
    })
}

/// Applies a batch; returns the records SQS should retry.
// The response types are non-exhaustive: fill them through Default.
#[allow(clippy::field_reassign_with_default)]
pub async fn handle_batch(ingest: &Ingest, event: SqsEvent) -> SqsBatchResponse {
    handle_batch_counting(ingest, event).await.0
}

/// The reason an SQS record whose body cannot be read is counted under.
pub const UNREADABLE: &str = "unreadable";

/// [`handle_batch`], with the messages it dropped for good, by reason (a
/// channel's rejection label, [`alyt_device::ingest::UNSTORABLE`], or
/// [`UNREADABLE`]): the ingest function prints them as the
/// `Alyt/IngestDroppedMessages` metric ([`dropped_metric_lines`]).
pub async fn handle_batch_counting(
    ingest: &Ingest,
    event: SqsEvent,
) -> (SqsBatchResponse, BTreeMap<&'static str, i64>) {
    let mut failures = Vec::new();
    let mut dropped = BTreeMap::new();
    for record in event.records {
        let id = record.message_id.clone().unwrap_or_default();
        let message = match record.body.as_deref().map(to_inbound) {
            Some(Ok(message)) => message,
            Some(Err(bad)) => {
                tracing::warn!(sqs_message = %id, error = %bad, "dropping an unreadable ingest record");
                *dropped.entry(UNREADABLE).or_default() += 1;
                continue;
            }
            None => continue,
        };
        match ingest.handle(&message).await {
            Ok(Outcome::Rejected(reason)) => {
                tracing::debug!(topic = %message.topic, reason, "device message dropped");
                *dropped.entry(reason).or_default() += 1;
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
    (response, dropped)
}

/// The embedded-metric lines of a batch's drops: `Alyt/IngestDroppedMessages`
/// by `Stage` and `Reason`, one line per reason.
pub fn dropped_metric_lines(
    stage: &str,
    dropped: &BTreeMap<&'static str, i64>,
    now_ms: u64,
) -> Vec<String> {
    dropped
        .iter()
        .map(|(reason, count)| {
            crate::lambda::metric_line(
                "IngestDroppedMessages",
                "Count",
                &[("Stage", stage), ("Reason", reason)],
                *count,
                now_ms,
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(extra: &str) -> String {
        format!(
            r#"{{"messageId":"m-1","topic":"alyt/0190b5a0-1111-7000-8000-000000000001/0190b5a0-2222-7000-8000-000000000002/0190b5a0-3333-7000-8000-000000000003/availability","payload":"b25saW5l","receivedAt":1780315200000{extra}}}"#
        )
    }

    #[test]
    fn the_rules_source_ip_is_the_messages_source_address() {
        let with = to_inbound(&body(r#","sourceIp":"203.0.113.7""#)).unwrap();
        assert_eq!(with.source_address, Some("203.0.113.7".parse().unwrap()));
        assert_eq!(&with.payload[..], b"online");
        // Older rules sent none; an unreadable one is no address.
        assert_eq!(to_inbound(&body("")).unwrap().source_address, None);
        let junk = to_inbound(&body(r#","sourceIp":"not an address""#)).unwrap();
        assert_eq!(junk.source_address, None);
    }
}
