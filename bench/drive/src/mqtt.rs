//! An MQTT client (rumqttc, TCP_NODELAY, no reconnect) whose event loop
//! runs in its own task and reports each QoS 1 PUBACK with the time since
//! its PUBLISH was written: the same client code for the platform's broker
//! and for the peer broker.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use rumqttc::{
    AsyncClient, ConnectReturnCode, ConnectionError, Event, MqttOptions, NetworkOptions, Outgoing,
    Packet, QoS,
};
use tokio::sync::{mpsc, oneshot};

use crate::Result;

/// One acknowledged publish.
#[derive(Debug, Clone, Copy)]
pub struct Ack {
    /// From the PUBLISH written and flushed to the socket to its PUBACK read.
    pub latency: Duration,
}

pub struct Connection {
    pub client: AsyncClient,
    /// Every PUBACK, in arrival order; closed when the connection is lost.
    pub acks: mpsc::UnboundedReceiver<Ack>,
    /// Why the connection ended, when it did.
    pub lost: oneshot::Receiver<String>,
    driver: tokio::task::JoinHandle<()>,
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.driver.abort();
    }
}

/// Connects (`credentials`: username and password, or anonymous) and waits
/// for the CONNACK, at most 10 s. `inflight`: QoS 1 publishes awaiting
/// their PUBACK before the client holds the next.
pub async fn connect(
    host: &str,
    port: u16,
    client_id: &str,
    credentials: Option<(&str, &str)>,
    inflight: u16,
) -> Result<Connection> {
    let mut options = MqttOptions::new(client_id, host, port);
    options.set_keep_alive(Duration::from_secs(30));
    options.set_inflight(inflight);
    if let Some((username, password)) = credentials {
        options.set_credentials(username, password);
    }
    let (client, mut events) = AsyncClient::new(options, usize::from(inflight) * 4);
    let mut network = NetworkOptions::new();
    network.set_tcp_nodelay(true);
    network.set_connection_timeout(5);
    events.set_network_options(network);

    let (acks_tx, acks) = mpsc::unbounded_channel();
    let (connected_tx, connected_rx) = oneshot::channel::<Result<()>>();
    let (lost_tx, lost) = oneshot::channel();
    let who = format!("{client_id} at {host}:{port}");
    let driver = tokio::spawn(async move {
        let mut connected_tx = Some(connected_tx);
        let mut written: HashMap<u16, Instant> = HashMap::new();
        let reason = loop {
            match events.poll().await {
                Ok(Event::Incoming(Packet::ConnAck(ack))) => {
                    if let Some(tx) = connected_tx.take() {
                        let _ = tx.send(if ack.code == ConnectReturnCode::Success {
                            Ok(())
                        } else {
                            Err(format!("the broker refused {who}: {:?}", ack.code))
                        });
                    }
                }
                Ok(Event::Outgoing(Outgoing::Publish(pkid))) => {
                    written.insert(pkid, Instant::now());
                }
                Ok(Event::Incoming(Packet::PubAck(ack))) => {
                    let now = Instant::now();
                    if let Some(at) = written.remove(&ack.pkid) {
                        let _ = acks_tx.send(Ack { latency: now - at });
                    }
                }
                Ok(_) => {}
                Err(ConnectionError::ConnectionRefused(code)) => {
                    break format!("the broker refused {who}: {code:?}");
                }
                Err(e) => break format!("the connection of {who} failed: {e}"),
            }
        };
        match connected_tx.take() {
            Some(tx) => {
                let _ = tx.send(Err(reason));
            }
            None => {
                let _ = lost_tx.send(reason);
            }
        }
    });
    let connected = tokio::time::timeout(Duration::from_secs(10), connected_rx).await;
    let outcome = match connected {
        Err(_) => Err(format!(
            "no CONNACK from {host}:{port} within 10 s for {client_id}"
        )),
        Ok(Err(_)) => Err(format!(
            "the client task of {client_id} ended before its CONNACK"
        )),
        Ok(Ok(outcome)) => outcome,
    };
    if let Err(e) = outcome {
        driver.abort();
        return Err(e);
    }
    Ok(Connection {
        client,
        acks,
        lost,
        driver,
    })
}

impl Connection {
    /// Enqueues a QoS 1 publish (waits while the request channel is full).
    pub async fn publish(&self, topic: &str, payload: Vec<u8>) -> Result<()> {
        self.client
            .publish(topic, QoS::AtLeastOnce, false, payload)
            .await
            .map_err(|e| format!("publish on {topic}: {e}"))
    }

    /// The next PUBACK, at most `within`; an error when the connection was
    /// lost or nothing came.
    pub async fn next_ack(&mut self, within: Duration) -> Result<Ack> {
        match tokio::time::timeout(within, self.acks.recv()).await {
            Ok(Some(ack)) => Ok(ack),
            Ok(None) => Err(self.why_lost()),
            Err(_) => Err(format!("no PUBACK within {} ms", within.as_millis())),
        }
    }

    /// The reason the connection ended (once it did).
    pub fn why_lost(&mut self) -> String {
        self.lost
            .try_recv()
            .unwrap_or_else(|_| "the connection ended".to_owned())
    }
}

/// A telemetry message carrying a sequence number as its one metric.
pub fn reading(seq: u64) -> Vec<u8> {
    format!("{{\"metrics\":{{\"bench_seq\":{seq}}}}}").into_bytes()
}
