//! Helpers for events-out tests: a loopback webhook receiver that verifies
//! every signature and counts deliveries by envelope id, a clock the test
//! moves (the local platform's delivery clock), and a server-sent event
//! reader.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use alyt_domain::Clock;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use serde_json::Value;
use time::OffsetDateTime;

/// The wall clock plus an offset the test moves forward.
#[derive(Debug, Default)]
pub struct OffsetClock {
    offset_ms: AtomicI64,
}

impl OffsetClock {
    pub fn advance(&self, by: Duration) {
        self.offset_ms
            .fetch_add(by.as_millis() as i64, Ordering::SeqCst);
    }
}

impl Clock for OffsetClock {
    fn now(&self) -> OffsetDateTime {
        OffsetDateTime::now_utc()
            + time::Duration::milliseconds(self.offset_ms.load(Ordering::SeqCst))
    }
}

/// One request the receiver saw.
#[derive(Debug, Clone)]
pub struct Seen {
    pub envelope: Value,
    pub event_header: String,
    pub delivery_header: String,
    pub signature_header: String,
    pub body: String,
    /// The signature checked out against the secret (at the signature's own
    /// time window, with the test's clock).
    pub verified: bool,
    pub answered: u16,
}

struct ReceiverState {
    secret: Mutex<String>,
    clock: Arc<dyn Clock>,
    answer: Mutex<u16>,
    seen: Mutex<Vec<Seen>>,
}

/// A webhook receiver on 127.0.0.1 answering `answer` (200 by default).
#[derive(Clone)]
pub struct Receiver {
    pub addr: SocketAddr,
    state: Arc<ReceiverState>,
}

impl Receiver {
    pub async fn start(clock: Arc<dyn Clock>) -> Receiver {
        let state = Arc::new(ReceiverState {
            secret: Mutex::new(String::new()),
            clock,
            answer: Mutex::new(200),
            seen: Mutex::new(Vec::new()),
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let app = axum::Router::new()
            .route("/hook", post(hook))
            .with_state(state.clone());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Receiver { addr, state }
    }

    pub fn url(&self) -> String {
        format!("http://{}/hook", self.addr)
    }

    pub fn set_secret(&self, secret: &str) {
        *self.state.secret.lock().unwrap() = secret.to_owned();
    }

    pub fn answer(&self, status: u16) {
        *self.state.answer.lock().unwrap() = status;
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.state.seen.lock().unwrap().clone()
    }

    /// 2xx answers per envelope id.
    pub fn delivered_by_event(&self) -> HashMap<String, usize> {
        let mut counts = HashMap::new();
        for s in self.seen() {
            if (200..300).contains(&s.answered) {
                *counts
                    .entry(s.envelope["id"].as_str().unwrap_or_default().to_owned())
                    .or_default() += 1;
            }
        }
        counts
    }

    /// Waits until `check` holds on what was seen, at most `within`.
    pub async fn until(&self, within: Duration, check: impl Fn(&[Seen]) -> bool) -> Vec<Seen> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let seen = self.seen();
            if check(&seen) {
                return seen;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the receiver did not see what was expected; it saw {} requests: {:?}",
                seen.len(),
                seen.iter()
                    .map(|s| (s.event_header.clone(), s.answered))
                    .collect::<Vec<_>>()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

async fn hook(
    State(state): State<Arc<ReceiverState>>,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    let get = |name: &str| {
        headers
            .get(name)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .unwrap_or_default()
    };
    let signature_header = get("x-svc-signature");
    let verified = alyt_events::signature::verify(
        state.secret.lock().unwrap().as_bytes(),
        signature_header.as_bytes(),
        &body,
        state.clock.now().unix_timestamp(),
    )
    .is_ok();
    let answered = *state.answer.lock().unwrap();
    state.seen.lock().unwrap().push(Seen {
        envelope: serde_json::from_slice(&body).unwrap_or_default(),
        event_header: get("x-svc-event"),
        delivery_header: get("x-svc-delivery"),
        signature_header,
        body: String::from_utf8_lossy(&body).into_owned(),
        verified,
        answered,
    });
    StatusCode::from_u16(answered).unwrap()
}

/// One server-sent event (or comment) as read off the wire.
#[derive(Debug, Clone, PartialEq)]
pub enum Sse {
    Event {
        kind: String,
        id: String,
        data: Value,
    },
    Comment(String),
    Retry(u64),
}

/// Opens an event stream (`path` such as
/// `/developers/events/stream?events=command.result`) with `token`, as a
/// client does on whichever target: where the API answers 421 (a hosted
/// stack's HTTP API buffers responses), again at the `location` its
/// problem names,
/// the stream function's URL. Returns the reader and the URL that served it.
pub async fn open_stream(t: &impl crate::Target, path: &str, token: &str) -> (SseReader, String) {
    let mut url = t.url(path);
    for _ in 0..2 {
        let response = t
            .http()
            .get(&url)
            .bearer_auth(token)
            .header("accept", "text/event-stream")
            .send()
            .await
            .expect("the stream request is sent");
        if response.status() == 421 {
            let problem: Value = response.json().await.expect("a problem body");
            url = problem["location"]
                .as_str()
                .unwrap_or_else(|| panic!("a 421 names where the stream is: {problem}"))
                .to_owned();
            continue;
        }
        assert_eq!(response.status(), 200, "the stream at {url}");
        let kind = response.headers()["content-type"]
            .to_str()
            .unwrap_or_default();
        assert!(kind.starts_with("text/event-stream"), "{url}: {kind}");
        return (SseReader::new(response), url);
    }
    panic!("{url} sent the stream elsewhere again");
}

/// Reads a `text/event-stream` response block by block.
pub struct SseReader {
    response: reqwest::Response,
    buffer: String,
    pub closed: bool,
}

impl SseReader {
    pub fn new(response: reqwest::Response) -> Self {
        Self {
            response,
            buffer: String::new(),
            closed: false,
        }
    }

    /// The next block, or `None` when the server closed the stream or
    /// `within` passed.
    pub async fn next(&mut self, within: Duration) -> Option<Vec<Sse>> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                return Some(parse_block(&block));
            }
            if self.closed {
                return None;
            }
            let chunk = tokio::time::timeout_at(deadline, self.response.chunk()).await;
            match chunk {
                Err(_) => return None,
                Ok(Ok(Some(bytes))) => self.buffer.push_str(&String::from_utf8_lossy(&bytes)),
                Ok(_) => self.closed = true,
            }
        }
    }

    /// Events (not comments) until `count` arrived or `within` passed.
    pub async fn events(&mut self, count: usize, within: Duration) -> Vec<(String, String, Value)> {
        let deadline = tokio::time::Instant::now() + within;
        let mut out = Vec::new();
        while out.len() < count {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let Some(block) = self.next(left).await else {
                break;
            };
            for item in block {
                if let Sse::Event { kind, id, data } = item {
                    out.push((kind, id, data));
                }
            }
        }
        out
    }
}

fn parse_block(block: &str) -> Vec<Sse> {
    let (mut kind, mut id, mut data) = (None, None, None);
    let mut out = Vec::new();
    for line in block.lines() {
        if let Some(comment) = line.strip_prefix(':') {
            out.push(Sse::Comment(comment.trim().to_owned()));
        } else if let Some(v) = line.strip_prefix("event: ") {
            kind = Some(v.to_owned());
        } else if let Some(v) = line.strip_prefix("id: ") {
            id = Some(v.to_owned());
        } else if let Some(v) = line.strip_prefix("data: ") {
            data = Some(serde_json::from_str(v).unwrap_or(Value::Null));
        } else if let Some(v) = line.strip_prefix("retry: ") {
            out.push(Sse::Retry(v.parse().unwrap_or_default()));
        }
    }
    if let (Some(kind), Some(id), Some(data)) = (kind, id, data) {
        out.push(Sse::Event { kind, id, data });
    }
    out
}
