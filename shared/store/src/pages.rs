//! Log pages: the items of one append stored as one item.
//!
//! A writer that appends many items of a shard at once (the telemetry
//! sequencer: a stream batch's `device.telemetry` events) pays for one
//! item instead of one per event. The page sits in the shard's partition
//! under the position of its last item, and holds every item (each with
//! its own position as its sort key) as a deflated JSON array, base64 in a
//! string attribute (both stores keep strings; neither needs a binary
//! type). Positions inside a page are consecutive in the shard: nothing
//! else was appended there between the page's first and last (one commit),
//! so a reader expands a page where it finds it and the log stays in
//! position order. Readers never see pages ([`crate::logs`] expands them).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use crate::{Item, Key, StoreError, attr};

/// The attribute of a page holding its items.
pub const PAGE: &str = "page";
/// The attribute of a page holding how many items it has.
pub const PAGE_COUNT: &str = "count";
/// A page's items decompressed: past this, the page is refused as corrupt
/// rather than read into memory (a page holds what one item may, 400 KB
/// compressed, and JSON deflates about tenfold).
const MAX_EXPANDED_BYTES: usize = 64 << 20;
/// Deflate's level: 6 is zlib's default, within a few percent of the best
/// ratio at a fraction of 9's time.
const LEVEL: u8 = 6;

/// The page of `items` (each already carrying its own key: the shard's
/// partition and its position) stored in `partition` under `last`, its
/// last item's position. It expires with its last item to expire.
pub fn page_item(partition: &str, last: &str, items: &[Item]) -> Item {
    let array = Value::Array(
        items
            .iter()
            .map(|item| Value::Object(item.attrs().clone()))
            .collect(),
    );
    let json = serde_json::to_vec(&array).unwrap_or_default();
    let deflated = miniz_oxide::deflate::compress_to_vec(&json, LEVEL);
    let mut page = Item::new(Key::new(partition, last))
        .with(PAGE, STANDARD.encode(deflated))
        .with(PAGE_COUNT, items.len() as i64);
    if let Some(expires) = items.iter().filter_map(Item::expires_at).max() {
        page.set(attr::TTL, expires);
    }
    page
}

/// Whether `item` is a page.
pub fn is_page(item: &Item) -> bool {
    item.get(PAGE).is_some()
}

/// The items of a page, in position order; any other item as it is.
pub fn expand(item: Item) -> Result<Vec<Item>, StoreError> {
    let Some(encoded) = item.get_str(PAGE) else {
        return Ok(vec![item]);
    };
    let corrupt = |why: String| StoreError::Invalid(format!("log page {}: {why}", item.sk()));
    let deflated = STANDARD
        .decode(encoded)
        .map_err(|e| corrupt(e.to_string()))?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&deflated, MAX_EXPANDED_BYTES)
        .map_err(|e| corrupt(format!("{e:?}")))?;
    let Value::Array(values) = serde_json::from_slice(&json).map_err(|e| corrupt(e.to_string()))?
    else {
        return Err(corrupt("not an array".into()));
    };
    values
        .into_iter()
        .map(|value| match value {
            Value::Object(attrs) => Item::from_attrs(attrs),
            _ => Err(corrupt("an entry is not an object".into())),
        })
        .collect()
}

/// Every item of `items`, pages expanded, in the order given.
pub fn expand_all(items: Vec<Item>) -> Result<Vec<Item>, StoreError> {
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        out.extend(expand(item)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn event(position: &str, data: &str, ttl: i64) -> Item {
        Item::new(Key::new("EVENTS#t", position))
            .with("id", position)
            .with("data", data)
            .with(attr::TTL, ttl)
    }

    #[test]
    fn a_page_gives_back_its_items_in_order() {
        let items = vec![
            event("a", "one", 10),
            event("b", "two", 30),
            event("c", "x", 20),
        ];
        let page = page_item("EVENTS#t", "c", &items);
        assert!(is_page(&page));
        assert_eq!(page.key(), Key::new("EVENTS#t", "c"));
        assert_eq!(page.expires_at(), Some(30), "expires with its last item");
        assert_eq!(page.get_i64(PAGE_COUNT), Some(3));
        let back = expand(page).unwrap();
        assert_eq!(back.len(), 3);
        for (a, b) in back.iter().zip(&items) {
            assert_eq!(a.attrs(), b.attrs());
        }
    }

    #[test]
    fn an_item_that_is_no_page_is_itself() {
        let item = event("a", "one", 10);
        assert_eq!(expand(item.clone()).unwrap(), vec![item]);
    }

    #[test]
    fn a_page_of_similar_events_is_far_smaller_than_its_events() {
        let items: Vec<Item> = (0..100)
            .map(|n| {
                event(
                    &format!("{n:016}-00000000"),
                    &format!(r#"{{"deviceId":"d-{n}","metrics":{{"temperature":21.{n}}}}}"#),
                    1_700_000_000,
                )
            })
            .collect();
        let plain: usize = items
            .iter()
            .map(|i| serde_json::to_vec(i.attrs()).unwrap().len())
            .sum();
        let page = page_item("EVENTS#t", "last", &items);
        let stored = page.get_str(PAGE).unwrap().len();
        assert!(stored * 4 < plain, "{stored} bytes stored for {plain}");
    }

    #[test]
    fn a_corrupt_page_is_refused_not_read() {
        let page = Item::new(Key::new("EVENTS#t", "a")).with(PAGE, "not base64!");
        assert!(matches!(expand(page), Err(StoreError::Invalid(_))));
        let page = Item::new(Key::new("EVENTS#t", "a")).with(PAGE, STANDARD.encode(b"garbage"));
        assert!(matches!(expand(page), Err(StoreError::Invalid(_))));
    }

    proptest! {
        /// Whatever the items hold, a page gives them back as they were.
        #[test]
        fn any_items_round_trip(datas in proptest::collection::vec(".{0,40}", 1..20)) {
            let items: Vec<Item> = datas
                .iter()
                .enumerate()
                .map(|(n, d)| event(&format!("p{n:04}"), d, n as i64))
                .collect();
            let back = expand(page_item("EVENTS#t", "p", &items)).unwrap();
            prop_assert_eq!(back, items);
        }
    }
}
