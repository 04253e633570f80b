//! JSON values <-> DynamoDB attribute values.

use std::collections::HashMap;

use alyt_store::{Item, Key, StoreError, attr};
use aws_sdk_dynamodb::types::AttributeValue;
use serde_json::{Map, Number, Value};

pub(crate) type Attrs = HashMap<String, AttributeValue>;

pub(crate) fn to_attr(value: &Value) -> AttributeValue {
    match value {
        Value::Null => AttributeValue::Null(true),
        Value::Bool(b) => AttributeValue::Bool(*b),
        Value::Number(n) => AttributeValue::N(n.to_string()),
        Value::String(s) => AttributeValue::S(s.clone()),
        Value::Array(list) => AttributeValue::L(list.iter().map(to_attr).collect()),
        Value::Object(map) => AttributeValue::M(
            map.iter()
                .map(|(name, v)| (name.clone(), to_attr(v)))
                .collect(),
        ),
    }
}

pub(crate) fn from_attr(value: &AttributeValue) -> Result<Value, StoreError> {
    Ok(match value {
        AttributeValue::Null(_) => Value::Null,
        AttributeValue::Bool(b) => Value::Bool(*b),
        AttributeValue::N(n) => Value::Number(parse_number(n)?),
        AttributeValue::S(s) => Value::String(s.clone()),
        AttributeValue::L(list) => {
            Value::Array(list.iter().map(from_attr).collect::<Result<_, _>>()?)
        }
        AttributeValue::M(map) => Value::Object(
            map.iter()
                .map(|(name, v)| Ok((name.clone(), from_attr(v)?)))
                .collect::<Result<Map<_, _>, StoreError>>()?,
        ),
        // Sets and binaries are never written by this adapter.
        other => {
            return Err(StoreError::Unavailable(format!(
                "stored attribute has an unsupported type: {other:?}"
            )));
        }
    })
}

/// Integers come back as integers (so `get_i64` works), everything else as f64.
fn parse_number(text: &str) -> Result<Number, StoreError> {
    if let Ok(i) = text.parse::<i64>() {
        return Ok(i.into());
    }
    if let Ok(u) = text.parse::<u64>() {
        return Ok(u.into());
    }
    text.parse::<f64>()
        .ok()
        .and_then(Number::from_f64)
        .ok_or_else(|| {
            StoreError::Unavailable(format!("stored number {text:?} is not representable"))
        })
}

pub(crate) fn item_to_attrs(item: &Item) -> Attrs {
    item.attrs()
        .iter()
        .map(|(name, v)| (name.clone(), to_attr(v)))
        .collect()
}

pub(crate) fn item_from_attrs(attrs: &Attrs) -> Result<Item, StoreError> {
    let map = attrs
        .iter()
        .map(|(name, v)| Ok((name.clone(), from_attr(v)?)))
        .collect::<Result<Map<_, _>, StoreError>>()?;
    Item::from_attrs(map)
        .map_err(|e| StoreError::Unavailable(format!("stored item is corrupt: {e}")))
}

pub(crate) fn key_attrs(key: &Key) -> Attrs {
    HashMap::from([
        (attr::PK.to_owned(), AttributeValue::S(key.pk.clone())),
        (attr::SK.to_owned(), AttributeValue::S(key.sk.clone())),
    ])
}

/// The DynamoDB type descriptor of a value, as `attribute_type` expects it.
pub(crate) fn type_tag(value: &Value) -> &'static str {
    match value {
        Value::Null => "NULL",
        Value::Bool(_) => "BOOL",
        Value::Number(_) => "N",
        Value::String(_) => "S",
        Value::Array(_) => "L",
        Value::Object(_) => "M",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_round_trip() {
        for value in [
            json!(null),
            json!(true),
            json!(42),
            json!(-7),
            json!(0.5),
            json!(1.0),
            json!(u64::MAX),
            json!(i64::MIN),
            json!("text"),
            json!(""),
            json!([]),
            json!({}),
            json!(["a", 1, null, [false]]),
            json!({"light": {"power": true, "brightness": 80, "level": 0.25}}),
        ] {
            assert_eq!(from_attr(&to_attr(&value)).unwrap(), value, "{value}");
        }
    }

    #[test]
    fn integers_stay_integers() {
        let v = from_attr(&AttributeValue::N("12".into())).unwrap();
        assert_eq!(v.as_i64(), Some(12));
        let v = from_attr(&AttributeValue::N("1.5E+2".into())).unwrap();
        assert_eq!(v.as_f64(), Some(150.0));
    }

    #[test]
    fn items_need_string_keys() {
        let attrs = HashMap::from([("pk".to_owned(), AttributeValue::S("P".into()))]);
        assert!(item_from_attrs(&attrs).is_err());
        let item = Item::new(Key::new("P", "S")).with("n", 3);
        assert_eq!(item_from_attrs(&item_to_attrs(&item)).unwrap(), item);
    }
}
