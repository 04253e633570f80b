//! `console/icons.json` lists every icon token the platform can send (room
//! icons, the capability catalogue's, each category's fallback): the
//! console's build draws exactly those into its sprite. Regenerate with
//! `ALYT_UPDATE_CONTRACTS=1` (then `npm run build` in console/).

use std::collections::BTreeSet;
use std::path::PathBuf;

use alyt_domain::capability::{ThingCategory, catalogue};
use alyt_domain::room::ROOM_ICONS;
use serde_json::{Value, json};

/// Every `icon` value anywhere in `value`.
fn icons_in(value: &Value, found: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                match (key.as_str(), v) {
                    ("icon", Value::String(token)) => {
                        found.insert(token.clone());
                    }
                    _ => icons_in(v, found),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| icons_in(v, found)),
        _ => {}
    }
}

#[test]
fn the_console_draws_every_icon_the_platform_sends() {
    let mut tokens: BTreeSet<String> = ROOM_ICONS.iter().map(|t| t.to_string()).collect();
    icons_in(&serde_json::to_value(catalogue()).unwrap(), &mut tokens);
    let categories: serde_json::Map<String, Value> = ThingCategory::ALL
        .iter()
        .map(|c| (c.as_str().to_owned(), json!(c.icon())))
        .collect();
    let generated = serde_json::to_string_pretty(&json!({
        "categories": categories,
        "tokens": tokens,
        // The console's own: the generic fallback and the home cards.
        "interface": ["help-circle-outline", "home"],
    }))
    .unwrap()
        + "\n";
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../console/icons.json");
    if std::env::var_os("ALYT_UPDATE_CONTRACTS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "console/icons.json is not the platform's icon tokens; regenerate with ALYT_UPDATE_CONTRACTS=1 cargo test -p alyt-console, then npm run build in console/"
    );
}
