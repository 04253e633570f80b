//! A device played by the test over MQTT, on whichever target the story
//! runs: locally the embedded broker with the username and password
//! registration answered; hosted (the emulated region) the MQTT front
//! standing in for IoT Core, over TLS with the X.509 certificate
//! registration issued, as a real device connects to IoT Core.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rumqttc::{AsyncClient, Event, LastWill, MqttOptions, Packet, QoS, Transport};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::Target;

/// Where a target's devices connect.
#[derive(Debug, Clone)]
pub struct Broker {
    pub host: String,
    pub port: u16,
    /// The CA of the broker's TLS certificate (hosted: what Amazon's root CA
    /// is to a real device); `None` is plain TCP (the embedded broker).
    pub ca: Option<PathBuf>,
}

/// What `POST /devices/register` answered a device to log in with.
#[derive(Debug, Clone)]
pub enum Credentials {
    /// The embedded broker's login.
    Password { username: String, password: String },
    /// IoT Core's: a certificate and its key; the client id is the thing.
    Certificate {
        client_id: String,
        certificate_pem: String,
        private_key: String,
    },
}

impl Credentials {
    /// The `credentials` of a registration's answer.
    pub fn of(registration: &Value) -> Self {
        let c = &registration["credentials"];
        let text = |name: &str| {
            c[name]
                .as_str()
                .unwrap_or_else(|| panic!("credentials.{name}: {registration}"))
                .to_owned()
        };
        match c["kind"].as_str() {
            Some("password") => Credentials::Password {
                username: text("username"),
                password: text("password"),
            },
            Some("certificate") => Credentials::Certificate {
                client_id: text("clientId"),
                certificate_pem: text("certificatePem"),
                private_key: text("privateKey"),
            },
            other => panic!("credentials of kind {other:?}: {registration}"),
        }
    }

    pub fn client_id(&self) -> &str {
        match self {
            Credentials::Password { username, .. } => username,
            Credentials::Certificate { client_id, .. } => client_id,
        }
    }
}

/// A connected device: its client, what arrived on its subscriptions (JSON
/// payloads), and the task driving the connection (abort it to drop the
/// socket without a DISCONNECT, so the last will goes out).
pub struct PlayedDevice {
    pub client: AsyncClient,
    pub incoming: mpsc::UnboundedReceiver<(String, Value)>,
    pub driver: tokio::task::JoinHandle<()>,
    pub prefix: String,
}

impl PlayedDevice {
    /// Connects with `credentials` and a retained `offline` last will on
    /// `{prefix}/availability`, subscribed to `{prefix}/commands`; `None`
    /// when the broker refuses the login.
    pub async fn connect(
        target: &impl Target,
        credentials: &Credentials,
        prefix: &str,
    ) -> Option<Self> {
        let broker = target.broker();
        let mut options = MqttOptions::new(credentials.client_id(), &broker.host, broker.port);
        options.set_keep_alive(Duration::from_secs(30));
        options.set_last_will(LastWill::new(
            format!("{prefix}/availability"),
            "offline",
            QoS::AtLeastOnce,
            true,
        ));
        if let Credentials::Password { username, password } = credentials {
            options.set_credentials(username, password);
        }
        if let Some(ca) = &broker.ca {
            options.set_transport(Transport::tls_with_config(
                rumqttc::TlsConfiguration::Rustls(tls_config(ca, credentials)),
            ));
        }
        let (client, mut events) = AsyncClient::new(options, 20);
        let (tx, incoming) = mpsc::unbounded_channel();
        let (ready_tx, ready_rx) = tokio::sync::oneshot::channel();
        let mut ready_tx = Some(ready_tx);
        let driver = tokio::spawn(async move {
            loop {
                match events.poll().await {
                    Ok(Event::Incoming(Packet::ConnAck(ack))) => {
                        if let Some(ready) = ready_tx.take() {
                            let _ = ready.send(ack.code == rumqttc::ConnectReturnCode::Success);
                        }
                    }
                    Ok(Event::Incoming(Packet::Publish(p))) => {
                        if let Ok(v) = serde_json::from_slice::<Value>(&p.payload) {
                            let _ = tx.send((p.topic.clone(), v));
                        }
                    }
                    Ok(_) => {}
                    Err(e) => {
                        if let Some(ready) = ready_tx.take() {
                            eprintln!("the device's connection failed: {e}");
                            let _ = ready.send(false);
                        }
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                }
            }
        });
        let admitted = tokio::time::timeout(Duration::from_secs(15), ready_rx)
            .await
            .expect("CONNACK within 15 s")
            .unwrap_or(false);
        if !admitted {
            driver.abort();
            return None;
        }
        client
            .subscribe(format!("{prefix}/commands"), QoS::AtLeastOnce)
            .await
            .unwrap();
        Some(Self {
            client,
            incoming,
            driver,
            prefix: prefix.to_owned(),
        })
    }

    /// Publishes JSON on one of its channels with QoS 1.
    pub async fn publish(&self, channel: &str, payload: &Value) {
        self.client
            .publish(
                format!("{}/{channel}", self.prefix),
                QoS::AtLeastOnce,
                false,
                payload.to_string(),
            )
            .await
            .unwrap();
    }

    /// The next message on its subscriptions, within `within`.
    pub async fn next(&mut self, within: Duration) -> (String, Value) {
        tokio::time::timeout(within, self.incoming.recv())
            .await
            .expect("a message arrives in time")
            .expect("the connection is driven")
    }
}

impl Drop for PlayedDevice {
    fn drop(&mut self) {
        self.driver.abort();
    }
}

/// rustls with the ring provider: trusting the broker's CA, presenting the
/// device's certificate when it has one.
fn tls_config(ca: &std::path::Path, credentials: &Credentials) -> Arc<rustls::ClientConfig> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};

    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(ca).expect("the broker's CA") {
        roots.add(cert.expect("a CA certificate")).unwrap();
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots);
    let mut config = match credentials {
        Credentials::Certificate {
            certificate_pem,
            private_key,
            ..
        } => {
            let chain = CertificateDer::pem_slice_iter(certificate_pem.as_bytes())
                .collect::<Result<Vec<_>, _>>()
                .expect("the device certificate");
            let key = PrivateKeyDer::from_pem_slice(private_key.as_bytes()).expect("its key");
            builder.with_client_auth_cert(chain, key).unwrap()
        }
        Credentials::Password { .. } => builder.with_no_client_auth(),
    };
    // IoT Core's ALPN for certificate devices on port 443.
    config.alpn_protocols = vec![b"x-amzn-mqtt-ca".to_vec()];
    Arc::new(config)
}
