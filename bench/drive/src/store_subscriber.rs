//! M2's fair peer: what a user would assemble instead of the platform's
//! broker, Mosquitto plus a subscriber that stores every device message in
//! SQLite. This is that subscriber: it subscribes to every topic at QoS 1
//! and inserts each message as it comes (its own commit, WAL with
//! synchronous=NORMAL, as the platform commits a device message), so the
//! machine does the storing work while bench/run measures Mosquitto's
//! publish -> PUBACK. It ends once `--idle-s` pass without a message after
//! the first, and prints how many it stored.
//!
//! ```text
//! bench-drive store-subscriber --mqtt HOST:PORT --db PATH [--idle-s 3]
//! ```

use std::time::Duration;

use rumqttc::{AsyncClient, Event, MqttOptions, NetworkOptions, Packet, QoS};

use crate::api::host_port;
use crate::{Args, Result};

pub async fn run(args: &Args) -> Result<String> {
    let (host, port) = host_port(args, "mqtt")?;
    let path = args.text("db")?;
    let idle = Duration::from_secs(args.number("idle-s", 3)?);
    let db = rusqlite::Connection::open(&path).map_err(|e| format!("opening {path}: {e}"))?;
    db.execute_batch(
        "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;
         CREATE TABLE IF NOT EXISTS messages (
           topic TEXT NOT NULL, payload BLOB NOT NULL, stored_at INTEGER NOT NULL);",
    )
    .map_err(|e| format!("preparing {path}: {e}"))?;

    let mut options = MqttOptions::new("m2-store-subscriber", host.as_str(), port);
    options.set_keep_alive(Duration::from_secs(30));
    options.set_clean_session(true);
    let (client, mut events) = AsyncClient::new(options, 100);
    let mut network = NetworkOptions::new();
    network.set_tcp_nodelay(true);
    network.set_connection_timeout(5);
    events.set_network_options(network);
    client
        .subscribe("#", QoS::AtLeastOnce)
        .await
        .map_err(|e| format!("subscribing: {e}"))?;

    let mut stored = 0u64;
    let mut subscribed = false;
    loop {
        // Before the first message it waits as long as the run's --max-s.
        let wait = if stored == 0 {
            Duration::from_secs(3600)
        } else {
            idle
        };
        let event = match tokio::time::timeout(wait, events.poll()).await {
            Err(_) => break,
            Ok(Err(e)) => return Err(format!("the connection to {host}:{port} failed: {e}")),
            Ok(Ok(event)) => event,
        };
        match event {
            Event::Incoming(Packet::SubAck(_)) if !subscribed => {
                subscribed = true;
                eprintln!("subscribed");
            }
            Event::Incoming(Packet::Publish(publish)) => {
                let at = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_micros() as i64);
                db.execute(
                    "INSERT INTO messages (topic, payload, stored_at) VALUES (?1, ?2, ?3)",
                    rusqlite::params![publish.topic, publish.payload.as_ref(), at],
                )
                .map_err(|e| format!("storing a message: {e}"))?;
                stored += 1;
            }
            _ => {}
        }
    }
    Ok(format!("stored={stored}"))
}
