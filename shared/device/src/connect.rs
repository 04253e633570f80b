//! How a device of one's own connects, told with its credential: the
//! broker's address, the client id, and commands a developer can paste
//! into a shell (mosquitto's clients) to publish a reading and to hear the
//! device's commands. Built from the credential just issued, so the
//! examples carry the secret shown this once (and never anything else's).

use serde::Serialize;

use crate::credentials::DeviceCredentials;

/// Where devices reach the broker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokerAddress {
    pub host: String,
    pub port: u16,
    /// MQTT over TLS (IoT Core) or plain MQTT (the local broker).
    pub tls: bool,
}

/// IoT Core's MQTT port (TLS with the device's certificate).
pub const IOT_CORE_PORT: u16 = 8883;

/// What a device needs besides its credential.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Connection {
    /// The broker's host name or address.
    pub host: String,
    pub port: u16,
    /// `mqtts` (TLS, IoT Core with the device certificate) or `mqtt` (the
    /// local platform's broker, username and password).
    pub protocol: String,
    /// The MQTT client id the device must use (one session per device: a
    /// second connection with it takes the session over).
    pub client_id: String,
    /// Shell commands with this credential filled in (mosquitto's
    /// clients): publish one reading, then listen for commands. They share
    /// the device's one session, so run one at a time.
    pub examples: ConnectionExamples,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ConnectionExamples {
    /// Publishes a temperature reading on `{topicPrefix}/telemetry` (QoS 1).
    pub publish: String,
    /// Subscribes to `{topicPrefix}/commands` and prints each command.
    pub subscribe: String,
}

/// The connection of a device given `credentials`, on `broker` (the
/// certificate names its own endpoint hosted), publishing under
/// `topic_prefix`; `None` when no broker address is known.
pub fn connection(
    credentials: &DeviceCredentials,
    broker: Option<&BrokerAddress>,
    topic_prefix: &str,
) -> Option<Connection> {
    let (broker, client_id, auth) = match credentials {
        DeviceCredentials::Password {
            client_id,
            username,
            password,
        } => (
            broker?.clone(),
            client_id,
            format!("-u {} -P {}", quoted(username), quoted(password)),
        ),
        DeviceCredentials::Certificate {
            client_id,
            endpoint,
            ..
        } => {
            let broker = match endpoint {
                Some(host) => BrokerAddress {
                    host: host.clone(),
                    port: IOT_CORE_PORT,
                    tls: true,
                },
                None => broker?.clone(),
            };
            // The certificate and key as the answer gave them, saved to
            // files; Amazon's root CA from amazontrust.com.
            (
                broker,
                client_id,
                "--cafile AmazonRootCA1.pem --cert device.pem.crt --key private.pem.key".to_owned(),
            )
        }
    };
    let base = format!(
        "-h {} -p {} -i {} {auth} -q 1",
        broker.host,
        broker.port,
        quoted(client_id)
    );
    let reading = r#"{"metric":"temperature","value":21.5,"payload":null}"#;
    Some(Connection {
        protocol: if broker.tls { "mqtts" } else { "mqtt" }.to_owned(),
        host: broker.host,
        port: broker.port,
        client_id: client_id.clone(),
        examples: ConnectionExamples {
            publish: format!(
                "mosquitto_pub {base} -t {} -m {}",
                quoted(&format!("{topic_prefix}/telemetry")),
                quoted(reading)
            ),
            subscribe: format!(
                "mosquitto_sub {base} -v -t {}",
                quoted(&format!("{topic_prefix}/commands"))
            ),
        },
    })
}

/// `text` as one POSIX shell word.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn password() -> DeviceCredentials {
        DeviceCredentials::Password {
            client_id: "dev-1".into(),
            username: "dev-1".into(),
            password: "it's secret".into(),
        }
    }

    #[test]
    fn a_password_device_is_told_the_local_broker_and_its_login() {
        let local = BrokerAddress {
            host: "127.0.0.1".into(),
            port: 1883,
            tls: false,
        };
        let c = connection(&password(), Some(&local), "alyt/t/p/d").unwrap();
        assert_eq!(
            (c.host.as_str(), c.port, c.protocol.as_str()),
            ("127.0.0.1", 1883, "mqtt")
        );
        assert_eq!(
            c.examples.publish,
            r#"mosquitto_pub -h 127.0.0.1 -p 1883 -i 'dev-1' -u 'dev-1' -P 'it'\''s secret' -q 1 -t 'alyt/t/p/d/telemetry' -m '{"metric":"temperature","value":21.5,"payload":null}'"#
        );
        assert!(
            c.examples
                .subscribe
                .ends_with("-v -t 'alyt/t/p/d/commands'")
        );
        assert!(connection(&password(), None, "alyt/t/p/d").is_none());
    }

    #[test]
    fn a_certificate_device_is_told_its_iot_endpoint_over_tls() {
        let certificate = DeviceCredentials::Certificate {
            client_id: "dev-1".into(),
            certificate_id: "c".into(),
            certificate_pem: "pem".into(),
            private_key: "key".into(),
            endpoint: Some("abc-ats.iot.eu-west-1.amazonaws.com".into()),
        };
        let c = connection(&certificate, None, "alyt/t/p/d").unwrap();
        assert_eq!((c.port, c.protocol.as_str()), (8883, "mqtts"));
        assert!(
            c.examples
                .publish
                .contains("--cert device.pem.crt --key private.pem.key")
        );
        assert!(
            !c.examples.publish.contains("key\""),
            "the key is a file, not inline"
        );
    }
}
