//! The developer event stream (`GET /v1/developers/events/stream`) read as
//! an EventSource would: each event is handed on with the instant its bytes
//! arrived.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::Value;
use tokio::sync::mpsc;

use crate::api::Api;
use crate::{Result, chain};

#[derive(Debug, Clone)]
pub struct StreamEvent {
    /// When the chunk holding the event's end was read.
    pub at: Instant,
    pub kind: String,
    pub data: Value,
}

/// Opens the stream for `kinds` (comma separated) and returns its events.
/// It waits for the first block the server sends (its `retry:` line), so
/// the stream is live when this returns.
pub async fn open(api: &Api, kinds: &str) -> Result<mpsc::UnboundedReceiver<StreamEvent>> {
    let path = format!("/developers/events/stream?events={kinds}");
    let mut response = api
        .request(Method::GET, &path)
        .header("accept", "text/event-stream")
        // The stream lasts as long as the measurement; no overall timeout.
        .timeout(Duration::from_secs(3600))
        .send()
        .await
        .map_err(|e| format!("GET {path}: {}", chain(&e)))?;
    let status = response.status().as_u16();
    if status != 200 {
        let body = response.text().await.unwrap_or_default();
        return Err(format!("GET {path} answered {status}: {body}"));
    }
    let mut buffer = String::new();
    let first = tokio::time::timeout(Duration::from_secs(10), response.chunk())
        .await
        .map_err(|_| format!("GET {path}: nothing within 10 s"))?
        .map_err(|e| format!("GET {path}: {e}"))?
        .ok_or_else(|| format!("GET {path}: the stream closed at once"))?;
    buffer.push_str(&String::from_utf8_lossy(&first));
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        loop {
            let at = Instant::now();
            while let Some(end) = buffer.find("\n\n") {
                let block: String = buffer.drain(..end + 2).collect();
                if let Some((kind, data)) = parse_block(&block)
                    && tx.send(StreamEvent { at, kind, data }).is_err()
                {
                    return;
                }
            }
            match response.chunk().await {
                Ok(Some(bytes)) => buffer.push_str(&String::from_utf8_lossy(&bytes)),
                Ok(None) | Err(_) => {
                    eprintln!("bench-drive: the event stream ended");
                    return;
                }
            }
        }
    });
    Ok(rx)
}

/// An event block's kind and data (`None` for comments and `retry:`).
pub fn parse_block(block: &str) -> Option<(String, Value)> {
    let mut kind = None;
    let mut data = String::new();
    for line in block.lines() {
        if let Some(v) = line.strip_prefix("event:") {
            kind = Some(v.trim_start().to_owned());
        } else if let Some(v) = line.strip_prefix("data:") {
            if !data.is_empty() {
                data.push('\n');
            }
            data.push_str(v.strip_prefix(' ').unwrap_or(v));
        }
    }
    let data = serde_json::from_str(&data).ok()?;
    Some((kind.unwrap_or_else(|| "message".to_owned()), data))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_parse_like_an_event_source() {
        let (kind, data) = parse_block(
            "event: device.telemetry\nid: 0001\ndata: {\"data\":{\"metrics\":{\"bench_seq\":3}}}\n\n",
        )
        .unwrap();
        assert_eq!(kind, "device.telemetry");
        assert_eq!(data["data"]["metrics"]["bench_seq"], 3);
        assert_eq!(parse_block(": keepalive\n\n"), None);
        assert_eq!(parse_block("retry: 1000\n\n"), None);
        let (kind, data) = parse_block("data: [1,\ndata: 2]\n\n").unwrap();
        assert_eq!(kind, "message");
        assert_eq!(data, serde_json::json!([1, 2]));
    }
}
