//! What the platform never stores: PIN values, credential-bearing values and
//! private media URLs (a URL with `user:pass@` in it, or a signing or token
//! query parameter), at any depth of a JSON object. One rule for every path
//! that brings a thing's words in: a connector's endpoint state, and a
//! device's MQTT status, events, alerts and telemetry detail, stripped before
//! anything is written or raised.

use serde_json::{Map, Value};

/// Keys whose values are never stored, compared without case.
const SECRET_KEYS: &[&str] = &[
    "pin",
    "pincode",
    "passcode",
    "code",
    "usercode",
    "keypadcode",
    "password",
    "secret",
    "token",
    "accesstoken",
    "credentials",
];

/// Query parameters that make a URL a private, credential-bearing one.
const SECRET_QUERY: &[&str] = &[
    "token",
    "access_token",
    "sig",
    "signature",
    "key",
    "auth",
    "x-amz-signature",
    "x-amz-credential",
];

/// A private media URL: one with credentials in it (`user:pass@`) or a
/// signing or token query parameter.
fn private_url(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let Some(rest) = ["http://", "https://", "rtsp://", "rtsps://"]
        .iter()
        .find_map(|scheme| lower.strip_prefix(scheme))
    else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if authority.contains('@') {
        return true;
    }
    rest.split_once('?').is_some_and(|(_, query)| {
        query.split('&').any(|pair| {
            let name = pair.split('=').next().unwrap_or("");
            SECRET_QUERY.contains(&name)
        })
    })
}

/// Removes from `object` what the platform never stores, at any depth;
/// answers how many values were removed.
pub fn strip_secrets(object: &mut Map<String, Value>) -> usize {
    let mut removed = 0;
    object.retain(|key, value| {
        let secret = SECRET_KEYS.contains(&key.to_ascii_lowercase().as_str())
            || value.as_str().is_some_and(private_url);
        if secret {
            removed += 1;
        }
        !secret
    });
    for value in object.values_mut() {
        removed += strip_value(value);
    }
    removed
}

fn strip_value(value: &mut Value) -> usize {
    match value {
        Value::Object(map) => strip_secrets(map),
        Value::Array(items) => {
            let before = items.len();
            items.retain(|v| !v.as_str().is_some_and(private_url));
            let mut removed = before - items.len();
            for item in items.iter_mut() {
                removed += strip_value(item);
            }
            removed
        }
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pins_credentials_and_private_urls_are_never_kept() {
        let mut state = json!({
            "lock": { "locked": false, "lastAction": "keypad-unlock", "PIN": "1234", "userCode": 77 },
            "camera": {
                "streaming": true,
                "snapshotUrl": "https://cam.example/snap.jpg?token=abc",
                "stream": "rtsp://admin:hunter2@192.168.1.9/live",
                "publicPage": "https://cam.example/help",
                "clips": ["https://cdn.example/c.mp4?X-Amz-Signature=f", "https://cdn.example/open.mp4"]
            },
            "light": { "power": true, "brightness": 40 }
        })
        .as_object()
        .unwrap()
        .clone();
        assert_eq!(strip_secrets(&mut state), 5);
        assert_eq!(
            Value::Object(state),
            json!({
                "lock": { "locked": false, "lastAction": "keypad-unlock" },
                "camera": {
                    "streaming": true,
                    "publicPage": "https://cam.example/help",
                    "clips": ["https://cdn.example/open.mp4"]
                },
                "light": { "power": true, "brightness": 40 }
            })
        );
    }
}
