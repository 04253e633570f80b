//! The IoT Core custom authorizer for devices that log in with a username
//! and password (the virtual devices of the simulator runner; real devices
//! use X.509 certificates and never reach it).
//!
//! IoT Core invokes it on every MQTT CONNECT that names it
//! (`username?x-amz-customauthorizer-name=<name>`, TLS with ALPN `mqtt` on
//! port 443). The event carries `protocolData.mqtt.{username, password
//! (base64), clientId}`; the answer is `{isAuthenticated, principalId,
//! disconnectAfterInSeconds, refreshAfterInSeconds, policyDocuments}` (AWS
//! IoT Core developer guide, "Defining your Lambda function",
//! custom-auth-lambda.html).
//!
//! The credential check is the embedded broker's
//! ([`alyt_device::credentials::StoreDeviceAuthenticator`]: one get of
//! `DEVCRED#{username}`, client id = username, SHA-256 of the password
//! compared in constant time), and the policy allows exactly what the
//! certificate devices' `DevicePolicy` (infra/template.yaml) and the
//! embedded broker's rules (`alyt_device::topic`) allow. Anything else is
//! refused. The password is never logged.

use std::sync::Arc;

use alyt_device::{Channel, DeviceAuthenticator, DeviceIdentity};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// The suffix a client appends to its MQTT username to pick an authorizer.
pub const AUTHORIZER_NAME_PARAM: &str = "x-amz-customauthorizer-name";
/// An accepted connection is closed after a day (IoT Core's maximum) ...
pub const DISCONNECT_AFTER_SECONDS: u32 = 86_400;
/// ... and its policy is asked for again every 5 minutes (IoT Core's
/// minimum), so a deleted virtual device loses its session within that.
pub const REFRESH_AFTER_SECONDS: u32 = 300;
/// Longest principal id IoT Core accepts (`[a-zA-Z0-9]{1,128}`).
const MAX_PRINCIPAL_LEN: usize = 128;

/// The parts of IoT Core's custom-authorizer event this function reads.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthorizerEvent {
    #[serde(default)]
    pub protocol_data: Option<ProtocolData>,
    #[serde(default)]
    pub connection_metadata: Option<ConnectionMetadata>,
}

#[derive(Debug, Default, Deserialize)]
pub struct ProtocolData {
    #[serde(default)]
    pub mqtt: Option<MqttData>,
}

#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MqttData {
    #[serde(default)]
    pub username: Option<String>,
    /// Base64 of the CONNECT password.
    #[serde(default)]
    pub password: Option<String>,
    /// Present only when the client sent one.
    #[serde(default)]
    pub client_id: Option<String>,
}

impl std::fmt::Debug for MqttData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MqttData")
            .field("username", &self.username)
            .field("password", &self.password.as_ref().map(|_| "<hidden>"))
            .field("client_id", &self.client_id)
            .finish()
    }
}

#[derive(Debug, Default, Deserialize)]
pub struct ConnectionMetadata {
    #[serde(default)]
    pub id: Option<String>,
}

/// An MQTT username/password login as the broker would see it.
pub struct MqttLogin {
    /// The username without any `?...` query (the authorizer name).
    pub username: String,
    pub client_id: String,
    pub password: Vec<u8>,
}

impl std::fmt::Debug for MqttLogin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MqttLogin")
            .field("username", &self.username)
            .field("client_id", &self.client_id)
            .field("password", &"<hidden>")
            .finish()
    }
}

/// The MQTT login of an event, or `None` when any of username, password
/// (valid base64) and client id is missing: such a connection is refused.
/// The username loses its query string (`?x-amz-customauthorizer-name=...`),
/// which names the authorizer and is not part of the device's username.
pub fn parse_login(event: &AuthorizerEvent) -> Option<MqttLogin> {
    let mqtt = event.protocol_data.as_ref()?.mqtt.as_ref()?;
    let username = mqtt.username.as_deref()?;
    let username = username.split_once('?').map_or(username, |(u, _)| u);
    let password = STANDARD.decode(mqtt.password.as_deref()?).ok()?;
    Some(MqttLogin {
        username: username.to_owned(),
        client_id: mqtt.client_id.clone()?,
        password,
    })
}

/// The answer to IoT Core.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthorizerResponse {
    pub is_authenticated: bool,
    pub principal_id: String,
    pub disconnect_after_in_seconds: u32,
    pub refresh_after_in_seconds: u32,
    pub policy_documents: Vec<serde_json::Value>,
}

impl AuthorizerResponse {
    /// A refusal: IoT Core closes the connection.
    pub fn refused() -> Self {
        Self {
            is_authenticated: false,
            principal_id: "refused".into(),
            disconnect_after_in_seconds: DISCONNECT_AFTER_SECONDS,
            refresh_after_in_seconds: REFRESH_AFTER_SECONDS,
            policy_documents: vec![],
        }
    }

    /// An accepted device with its own topic policy. `arn_prefix` is
    /// `arn:{partition}:iot:{region}:{account}`.
    pub fn allowed(identity: &DeviceIdentity, arn_prefix: &str) -> Self {
        Self {
            is_authenticated: true,
            principal_id: principal_id(&identity.device_id.to_string()),
            disconnect_after_in_seconds: DISCONNECT_AFTER_SECONDS,
            refresh_after_in_seconds: REFRESH_AFTER_SECONDS,
            policy_documents: vec![policy_document(identity, arn_prefix)],
        }
    }
}

/// IoT Core's principal id for a device: its id's letters and digits (a
/// UUID without its hyphens), at most 128 of them.
pub fn principal_id(device_id: &str) -> String {
    device_id
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(MAX_PRINCIPAL_LEN)
        .collect()
}

/// The IoT policy of one device, the same rule as `DevicePolicy` with the
/// thing variables filled in: connect only as client id = device id;
/// publish on its six device-to-platform topics (and retain on
/// `availability`, its last will); subscribe to and receive only its
/// `commands` topic.
pub fn policy_document(identity: &DeviceIdentity, arn_prefix: &str) -> serde_json::Value {
    let topic = |channel: Channel| format!("{arn_prefix}:topic/{}", identity.topic(channel));
    let publish: Vec<String> = Channel::ALL
        .into_iter()
        .filter(|c| c.is_device_to_platform())
        .map(topic)
        .collect();
    json!({
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Action": "iot:Connect",
                "Resource": format!("{arn_prefix}:client/{}", identity.device_id),
            },
            {
                "Effect": "Allow",
                "Action": "iot:Publish",
                "Resource": publish,
            },
            {
                "Effect": "Allow",
                "Action": "iot:RetainPublish",
                "Resource": topic(Channel::Availability),
            },
            {
                "Effect": "Allow",
                "Action": "iot:Subscribe",
                "Resource": format!(
                    "{arn_prefix}:topicfilter/{}",
                    identity.topic(Channel::Commands)
                ),
            },
            {
                "Effect": "Allow",
                "Action": "iot:Receive",
                "Resource": topic(Channel::Commands),
            },
        ],
    })
}

/// The function: the store's credential check and where the policy points.
pub struct Authorizer {
    pub authenticator: Arc<dyn DeviceAuthenticator>,
    /// `arn:{partition}:iot:{region}:{account}`.
    pub arn_prefix: String,
}

impl Authorizer {
    /// Answers one event. Never an error: anything unreadable is refused.
    pub async fn handle(&self, event: serde_json::Value) -> AuthorizerResponse {
        let event: AuthorizerEvent = serde_json::from_value(event).unwrap_or_default();
        let connection = event
            .connection_metadata
            .as_ref()
            .and_then(|m| m.id.clone())
            .unwrap_or_default();
        let Some(login) = parse_login(&event) else {
            tracing::info!(%connection, "refused: no MQTT username, password and client id");
            return AuthorizerResponse::refused();
        };
        let identity = self
            .authenticator
            .authenticate(&login.client_id, &login.username, &login.password)
            .await;
        match identity {
            // The policy's connect rule names the device id; a credential
            // whose username is not its device id gets nothing it could use.
            Some(identity) if identity.device_id.to_string() == login.client_id => {
                tracing::info!(%connection, device = %identity.device_id, "device admitted");
                AuthorizerResponse::allowed(&identity, &self.arn_prefix)
            }
            _ => {
                tracing::info!(%connection, username = %login.username, "refused: credentials");
                AuthorizerResponse::refused()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ARN: &str = "arn:aws:iot:eu-west-1:123456789012";

    fn identity() -> DeviceIdentity {
        DeviceIdentity::new(
            "0190d0f0-0000-7000-8000-000000000001".parse().unwrap(),
            "0190d0f0-0000-7000-8000-000000000002".parse().unwrap(),
            "0190d0f0-0000-7000-8000-000000000003".parse().unwrap(),
        )
    }

    fn event(mqtt: serde_json::Value) -> AuthorizerEvent {
        serde_json::from_value(json!({
            "signatureVerified": false,
            "protocols": ["tls", "mqtt"],
            "protocolData": { "mqtt": mqtt },
            "connectionMetadata": { "id": "c-1" },
        }))
        .unwrap()
    }

    #[test]
    fn the_login_is_read_and_the_authorizer_query_dropped() {
        let login = parse_login(&event(json!({
            "username": "dev-1?x-amz-customauthorizer-name=alyt-devices",
            "password": STANDARD.encode("secret"),
            "clientId": "dev-1",
        })))
        .unwrap();
        assert_eq!(login.username, "dev-1");
        assert_eq!(login.client_id, "dev-1");
        assert_eq!(login.password, b"secret");
        assert!(!format!("{login:?}").contains("secret"));
    }

    #[test]
    fn a_login_without_any_part_is_none() {
        let full = json!({"username": "d", "password": STANDARD.encode("p"), "clientId": "d"});
        for missing in ["username", "password", "clientId"] {
            let mut mqtt = full.clone();
            mqtt.as_object_mut().unwrap().remove(missing);
            assert!(parse_login(&event(mqtt)).is_none(), "{missing}");
        }
        let bad = json!({"username": "d", "password": "not base64!", "clientId": "d"});
        assert!(parse_login(&event(bad)).is_none());
        assert!(parse_login(&AuthorizerEvent::default()).is_none());
    }

    #[test]
    fn the_policy_is_the_device_subtree_only() {
        let id = identity();
        let doc = policy_document(&id, ARN);
        let prefix = format!("{ARN}:topic/{}", id.topic_prefix());
        let st = doc["Statement"].as_array().unwrap();
        assert_eq!(st.len(), 5);
        assert!(st.iter().all(|s| s["Effect"] == "Allow"));
        assert_eq!(st[0]["Action"], "iot:Connect");
        assert_eq!(st[0]["Resource"], format!("{ARN}:client/{}", id.device_id));
        assert_eq!(st[1]["Action"], "iot:Publish");
        let publish: Vec<&str> = st[1]["Resource"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap())
            .collect();
        let expected: Vec<String> = [
            "status",
            "telemetry",
            "events",
            "alerts",
            "response",
            "availability",
        ]
        .iter()
        .map(|c| format!("{prefix}/{c}"))
        .collect();
        assert_eq!(publish.len(), 6);
        for topic in &expected {
            assert!(publish.contains(&topic.as_str()), "{topic}");
        }
        assert!(!publish.iter().any(|t| t.ends_with("/commands")));
        assert_eq!(st[2]["Action"], "iot:RetainPublish");
        assert_eq!(st[2]["Resource"], format!("{prefix}/availability"));
        assert_eq!(st[3]["Action"], "iot:Subscribe");
        assert_eq!(
            st[3]["Resource"],
            format!("{ARN}:topicfilter/{}/commands", id.topic_prefix())
        );
        assert_eq!(st[4]["Action"], "iot:Receive");
        assert_eq!(st[4]["Resource"], format!("{prefix}/commands"));
        // No wildcard anywhere.
        let text = doc.to_string();
        assert!(!text.contains('*') && !text.contains('#') && !text.contains('+'));
    }

    #[test]
    fn responses_have_the_shape_iot_core_reads() {
        let allowed = serde_json::to_value(AuthorizerResponse::allowed(&identity(), ARN)).unwrap();
        assert_eq!(allowed["isAuthenticated"], true);
        assert_eq!(
            allowed["principalId"],
            identity().device_id.to_string().replace('-', "")
        );
        assert_eq!(allowed["disconnectAfterInSeconds"], 86_400);
        assert_eq!(allowed["refreshAfterInSeconds"], 300);
        assert_eq!(allowed["policyDocuments"].as_array().unwrap().len(), 1);
        let refused = serde_json::to_value(AuthorizerResponse::refused()).unwrap();
        assert_eq!(refused["isAuthenticated"], false);
        assert_eq!(refused["policyDocuments"], json!([]));
    }

    #[test]
    fn principal_ids_are_alphanumeric_and_bounded() {
        assert_eq!(principal_id("a-b_c/1"), "abc1");
        assert_eq!(principal_id(&"x".repeat(300)).len(), 128);
    }
}
