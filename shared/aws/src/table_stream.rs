//! The table's stream as the telemetry sequencer reads it: a Lambda batch of
//! DynamoDB stream records, decoded into the feed records
//! `alyt_device::sequencer` takes (the embedded store's feed is read by
//! polling instead; the sequencer is the same).
//!
//! The event source mapping has a tumbling window: only then does Lambda
//! name the stream shard a batch comes from (`shardId`), and the sequencer
//! keeps its place per stream shard. The window's state is not used: the
//! answer hands back an empty one, as a windowed mapping requires of every
//! answer.

use alyt_device::sequencer::{FeedRecord, Sequenced, Sequencer};
use alyt_store::{Item, StoreError, attr};
use serde_json::{Map, Number, Value, json};

/// One batch of the stream: its shard, and its new items marked for a feed,
/// in the shard's order.
#[derive(Debug, Clone)]
pub struct FeedBatch {
    pub shard_id: String,
    pub records: Vec<FeedRecord>,
}

/// Whether `payload` is a batch of the table's stream.
pub fn is_stream_batch(payload: &Value) -> bool {
    payload
        .pointer("/Records/0/eventSource")
        .and_then(Value::as_str)
        == Some("aws:dynamodb")
}

/// The feed records of a stream batch: its inserted items that carry the
/// feed attribute (the mapping's filter lets only those through; others
/// are skipped here too).
pub fn feed_batch(payload: &Value) -> Result<FeedBatch, StoreError> {
    let shard_id = payload
        .get("shardId")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            StoreError::Invalid(
                "a stream batch without shardId: the mapping needs a tumbling window".into(),
            )
        })?
        .to_owned();
    let mut records = Vec::new();
    let listed = payload.get("Records").and_then(Value::as_array);
    for record in listed.into_iter().flatten() {
        if record.get("eventName").and_then(Value::as_str) != Some("INSERT") {
            continue;
        }
        let (Some(sequence), Some(Value::Object(image))) = (
            record
                .pointer("/dynamodb/SequenceNumber")
                .and_then(Value::as_str),
            record.pointer("/dynamodb/NewImage"),
        ) else {
            continue;
        };
        // A record that can never be read must not hold the shard back.
        let item = match item_of(image) {
            Ok(item) => item,
            Err(e) => {
                tracing::warn!(sequence, error = %e, "a stream record cannot be read: skipped");
                continue;
            }
        };
        if item.get(attr::FEED).is_some() {
            records.push(FeedRecord {
                sequence: sequence.to_owned(),
                item,
            });
        }
    }
    Ok(FeedBatch { shard_id, records })
}

/// Sequences one stream batch; the answer a windowed mapping expects. An
/// error fails the batch, which Lambda sends again (nothing is raised
/// twice).
pub async fn sequence(sequencer: &Sequencer, payload: &Value) -> Result<Value, StoreError> {
    let batch = feed_batch(payload)?;
    let done: Sequenced = sequencer.apply(&batch.shard_id, &batch.records).await?;
    tracing::info!(
        shard = %batch.shard_id,
        raised = done.raised,
        repeated = done.repeated,
        skipped = done.skipped,
        "telemetry sequenced"
    );
    Ok(json!({ "state": {}, "batchItemFailures": [] }))
}

/// An item from a stream image (DynamoDB's JSON: `{"S": ..}`, `{"N": ..}`,
/// `{"M": ..}`, ...), as the DynamoDB store reads items.
fn item_of(image: &Map<String, Value>) -> Result<Item, StoreError> {
    let attrs = image
        .iter()
        .map(|(name, typed)| Ok((name.clone(), value_of(typed)?)))
        .collect::<Result<Map<_, _>, StoreError>>()?;
    Item::from_attrs(attrs)
}

fn value_of(typed: &Value) -> Result<Value, StoreError> {
    let unreadable = || StoreError::Invalid(format!("a stream image value is unreadable: {typed}"));
    let Some((tag, inner)) = typed.as_object().and_then(|o| o.iter().next()) else {
        return Err(unreadable());
    };
    Ok(match (tag.as_str(), inner) {
        ("NULL", _) => Value::Null,
        ("BOOL", Value::Bool(b)) => Value::Bool(*b),
        ("S", Value::String(s)) => Value::String(s.clone()),
        ("N", Value::String(n)) => Value::Number(number(n).ok_or_else(unreadable)?),
        ("L", Value::Array(list)) => {
            Value::Array(list.iter().map(value_of).collect::<Result<_, _>>()?)
        }
        ("M", Value::Object(map)) => Value::Object(
            map.iter()
                .map(|(name, v)| Ok((name.clone(), value_of(v)?)))
                .collect::<Result<Map<_, _>, StoreError>>()?,
        ),
        _ => return Err(unreadable()),
    })
}

/// Integers as integers, everything else as f64 (as the store reads them).
fn number(text: &str) -> Option<Number> {
    if let Ok(i) = text.parse::<i64>() {
        return Some(i.into());
    }
    if let Ok(u) = text.parse::<u64>() {
        return Some(u.into());
    }
    text.parse::<f64>().ok().and_then(Number::from_f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(records: Value) -> Value {
        json!({
            "Records": records,
            "window": {"start": "2026-12-01T00:00:00Z", "end": "2026-12-01T00:00:01Z"},
            "state": {},
            "shardId": "shardId-00000001700000000000-abcdef01",
            "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/t/stream/x",
            "isFinalInvokeForWindow": false,
            "isWindowTerminatedEarly": false
        })
    }

    fn insert(sequence: &str, image: Value) -> Value {
        json!({
            "eventID": "1",
            "eventName": "INSERT",
            "eventSource": "aws:dynamodb",
            "dynamodb": {
                "Keys": {"pk": image["pk"].clone(), "sk": image["sk"].clone()},
                "NewImage": image,
                "SequenceNumber": sequence,
                "StreamViewType": "NEW_IMAGE"
            }
        })
    }

    #[test]
    fn a_batch_gives_its_shard_and_its_fed_items_in_order() {
        let fed = |sk: &str| {
            json!({
                "pk": {"S": "TELEMETRY#d#t"}, "sk": {"S": sk},
                "feed": {"S": "telemetry"},
                "value": {"N": "21.5"}, "ttl": {"N": "1800000000"},
                "metrics": {"M": {"t": {"N": "21.5"}}},
                "propertyId": {"NULL": true},
                "flags": {"L": [{"BOOL": true}, {"S": "x"}]}
            })
        };
        let plain = json!({"pk": {"S": "DEVICE#d"}, "sk": {"S": "x"}});
        let mut modify = insert("300", fed("c"));
        modify["eventName"] = json!("MODIFY");
        let payload = batch(json!([
            insert("100", fed("a")),
            insert("150", plain),
            modify,
            insert("200", fed("b"))
        ]));
        assert!(is_stream_batch(&payload));
        let batch = feed_batch(&payload).unwrap();
        assert_eq!(batch.shard_id, "shardId-00000001700000000000-abcdef01");
        let got: Vec<(&str, &str)> = batch
            .records
            .iter()
            .map(|r| (r.sequence.as_str(), r.item.sk()))
            .collect();
        assert_eq!(got, [("100", "a"), ("200", "b")]);
        let item = &batch.records[0].item;
        assert_eq!(item.get("value"), Some(&json!(21.5)));
        assert_eq!(item.get_i64("ttl"), Some(1_800_000_000));
        assert_eq!(item.get("metrics"), Some(&json!({"t": 21.5})));
        assert_eq!(item.get("propertyId"), Some(&Value::Null));
        assert_eq!(item.get("flags"), Some(&json!([true, "x"])));
    }

    #[test]
    fn a_batch_without_its_shard_is_refused_and_an_unreadable_record_skipped() {
        let mut payload = batch(json!([]));
        payload.as_object_mut().unwrap().remove("shardId");
        assert!(matches!(feed_batch(&payload), Err(StoreError::Invalid(_))));
        let odd = json!({"pk": {"S": "P"}, "sk": {"S": "s"}, "feed": {"S": "telemetry"}, "x": {"B": "AAE="}});
        let good = json!({"pk": {"S": "P"}, "sk": {"S": "t"}, "feed": {"S": "telemetry"}});
        let payload = batch(json!([insert("1", odd), insert("2", good)]));
        let read = feed_batch(&payload).unwrap();
        assert_eq!(read.records.len(), 1);
        assert_eq!(read.records[0].item.sk(), "t");
    }

    #[test]
    fn a_schedule_or_a_queue_batch_is_no_stream_batch() {
        assert!(!is_stream_batch(
            &json!({"Records": [{"eventSource": "aws:sqs"}]})
        ));
        assert!(!is_stream_batch(&json!({"source": "aws.events"})));
    }
}
