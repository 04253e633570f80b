//! Tenant notifications (`notification.raised`): what a household should hear
//! about, in words a person reads.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::ids::DeviceId;

/// `notification.raised`: `{ id, kind, title, body, deviceId|null, at }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct NotificationRaisedData {
    pub id: Uuid,
    /// What raised it: `device.alert`, `membership.granted`,
    /// `membership.ended` or `webhook.disabled`.
    pub kind: String,
    pub title: String,
    pub body: String,
    /// The device that raised it; null when none did.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub device_id: Option<DeviceId>,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub at: OffsetDateTime,
}

const TITLE_MAX: usize = 120;
const BODY_MAX: usize = 1_000;

/// The title and body of a device alert. The alerts channel is free-form, so
/// this takes the common words devices use (`title`, `condition`, `type`,
/// `code` for the title; `message`, `body`, `description`, `detail` for the
/// body) and falls back to the device name and a compact form of the payload.
/// Both are trimmed to a readable length and never empty.
pub fn alert_text(device_name: &str, payload: &Map<String, Value>) -> (String, String) {
    let text = |keys: &[&str]| {
        keys.iter().find_map(|k| {
            payload
                .get(*k)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        })
    };
    let title = match text(&["title", "condition", "type", "code"]) {
        Some(what) => format!("{device_name}: {what}"),
        None => format!("Alert from {device_name}"),
    };
    let body = text(&["message", "body", "description", "detail"])
        .unwrap_or_else(|| Value::Object(payload.clone()).to_string());
    (clip(&title, TITLE_MAX), clip(&body, BODY_MAX))
}

/// At most `max` characters, cut at a character boundary with an ellipsis.
fn clip(text: &str, max: usize) -> String {
    let clean: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if clean.chars().count() <= max {
        return clean;
    }
    let mut cut: String = clean.chars().take(max - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn object(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn alerts_read_their_common_words() {
        let (title, body) = alert_text(
            "Kitchen smoke",
            &object(json!({ "condition": "smoke", "message": "Smoke detected" })),
        );
        assert_eq!(title, "Kitchen smoke: smoke");
        assert_eq!(body, "Smoke detected");
    }

    #[test]
    fn an_alert_without_words_still_says_something() {
        let (title, body) = alert_text("Sensor", &object(json!({ "level": 3 })));
        assert_eq!(title, "Alert from Sensor");
        assert_eq!(body, r#"{"level":3}"#);
    }

    proptest! {
        #[test]
        fn any_alert_gives_bounded_printable_text(
            name in "\\PC{1,200}",
            message in any::<String>(),
            condition in any::<String>(),
        ) {
            let (title, body) = alert_text(
                &name,
                &object(json!({ "condition": condition, "message": message })),
            );
            prop_assert!(!title.is_empty() && !body.is_empty());
            prop_assert!(title.chars().count() <= TITLE_MAX);
            prop_assert!(body.chars().count() <= BODY_MAX);
            prop_assert!(!title.chars().chain(body.chars()).any(char::is_control));
        }
    }
}
