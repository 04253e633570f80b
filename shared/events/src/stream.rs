//! The developer event stream, one implementation for both runtimes: parsing
//! the filter and the resume point, the server-sent event framing, keepalive
//! comments, the connection's time limit, and the feed loop that reads the
//! event log after the client's position.
//!
//! The local platform serves it as an axum SSE route (up to one hour) and
//! wakes it through an [`EventSignal`] when an event is committed; the
//! hosted platform serves the same body from a Lambda with response
//! streaming on a function URL (up to 15 minutes) and polls (a Lambda has no
//! way to hear another function's commit; the poll is the hosted latency).
//! Clients resume with `Last-Event-ID` (standard `EventSource` clients send
//! it on reconnect) or `after=`; the event log's commit order makes a resume
//! of one tenant have no gap and no duplicate (several tenants: see
//! [`crate::log::Cursor::resume`]).

use std::collections::{BTreeSet, VecDeque};
use std::convert::Infallible;
use std::time::Duration;

use alyt_domain::ids::TenantId;
use bytes::Bytes;
use futures_util::Stream;
use futures_util::future::BoxFuture;
use tokio::sync::watch;
use tokio::time::Instant;

use crate::audience::{Audience, EventSubjects};
use crate::envelope::{EventEnvelope, EventId, EventKind};
use crate::log::{Cursor, EventLog};

/// A comment line every this often.
pub const KEEPALIVE: Duration = Duration::from_secs(15);
/// The longest connection the local platform keeps.
pub const LOCAL_MAX_DURATION: Duration = Duration::from_secs(60 * 60);
/// The hosted stream runs in a Lambda, which ends at 15 minutes; it closes
/// the connection a little before, cleanly, and clients resume.
pub const HOSTED_MAX_DURATION: Duration = Duration::from_secs(14 * 60 + 45);
/// Events read per store call.
pub const PAGE: u32 = 100;
/// What the client is told to wait before reconnecting (`retry:`), in ms.
pub const RECONNECT_MS: u64 = 1_000;
/// The `Content-Type` of the stream.
pub const CONTENT_TYPE: &str = "text/event-stream; charset=utf-8";

/// How one runtime runs the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamLimits {
    pub keepalive: Duration,
    pub max_duration: Duration,
    /// How often the log is read when nothing wakes the stream (the fallback
    /// locally, the only way hosted).
    pub poll: Duration,
    /// How many streams one caller (a key, a signed-in person, a widget)
    /// may hold open at once, across every instance ([`PER_CALLER_ENV`]).
    pub per_caller: u32,
    /// How often an open stream checks its caller again ([`Recheck`]).
    pub recheck: Duration,
}

/// The environment variable that sets [`StreamLimits::per_caller`] in both
/// runtimes (default [`PER_CALLER`]).
pub const PER_CALLER_ENV: &str = "ALYT_STREAMS_PER_CALLER";
/// Open streams per caller by default: a console tab or two, an SDK
/// consumer and a spare, not a fleet.
pub const PER_CALLER: u32 = 5;

impl StreamLimits {
    /// These limits with [`PER_CALLER_ENV`] applied when it holds a number
    /// of at least 1.
    pub fn with_env(self) -> Self {
        let per_caller = std::env::var(PER_CALLER_ENV)
            .ok()
            .and_then(|v| v.trim().parse::<u32>().ok())
            .filter(|n| *n >= 1)
            .unwrap_or(self.per_caller);
        Self { per_caller, ..self }
    }
}

impl StreamLimits {
    /// The local platform: woken by the [`EventSignal`], a slow poll as a fallback.
    pub const LOCAL: StreamLimits = StreamLimits {
        keepalive: KEEPALIVE,
        max_duration: LOCAL_MAX_DURATION,
        poll: Duration::from_secs(2),
        per_caller: PER_CALLER,
        recheck: RECHECK,
    };
    /// The hosted function: four reads a second per tenant (one query each).
    pub const HOSTED: StreamLimits = StreamLimits {
        keepalive: KEEPALIVE,
        max_duration: HOSTED_MAX_DURATION,
        poll: Duration::from_millis(250),
        per_caller: PER_CALLER,
        recheck: RECHECK,
    };
}

/// A parameter of the stream request that is wrong: the field and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {detail}")]
pub struct BadParameter {
    pub field: &'static str,
    pub detail: String,
}

/// What a client asked for: the kinds (all when `None`) and where to resume.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StreamRequest {
    pub kinds: Option<BTreeSet<EventKind>>,
    pub after: Option<EventId>,
}

impl StreamRequest {
    /// From the `events` and `after` query parameters and the
    /// `Last-Event-ID` header. The header wins over `after=`: an
    /// `EventSource` reconnects to the URL it was opened with (whose
    /// `after=` is where it began) and sends the last id it saw.
    pub fn parse(
        events: Option<&str>,
        after: Option<&str>,
        last_event_id: Option<&str>,
    ) -> Result<Self, BadParameter> {
        let kinds = match events.map(str::trim).filter(|s| !s.is_empty()) {
            None => None,
            Some(list) => {
                let mut kinds = BTreeSet::new();
                for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                    let kind = name.parse::<EventKind>().map_err(|_| BadParameter {
                        field: "events",
                        detail: format!(
                            "unknown event kind {name:?}; the kinds are {}",
                            EventKind::ALL.map(EventKind::as_str).join(", ")
                        ),
                    })?;
                    kinds.insert(kind);
                }
                Some(kinds)
            }
        };
        let id = |field: &'static str, raw: &str| {
            raw.trim().parse::<EventId>().map_err(|e| BadParameter {
                field,
                detail: e.to_string(),
            })
        };
        let after = match last_event_id.map(str::trim).filter(|s| !s.is_empty()) {
            Some(header) => Some(id("Last-Event-ID", header)?),
            None => match after.map(str::trim).filter(|s| !s.is_empty()) {
                Some(query) => Some(id("after", query)?),
                None => None,
            },
        };
        Ok(Self { kinds, after })
    }
}

/// One event as a server-sent event: `event:`, `id:`, `data:` (the envelope
/// as one line of JSON) and the blank line that ends it.
pub fn format_event(event: &EventEnvelope) -> String {
    // serde_json never writes a raw newline, so the data is one line.
    let data = serde_json::to_string(event).unwrap_or_else(|_| "{}".into());
    format!(
        "event: {}\nid: {}\ndata: {}\n\n",
        event.kind.as_str(),
        event.id,
        data
    )
}

/// A comment line (ignored by `EventSource`, keeps proxies from closing).
pub fn comment(text: &str) -> String {
    format!(": {}\n\n", text.replace(['\r', '\n'], " "))
}

/// Wakes streams (and the local webhook dispatcher) when an event is written.
/// A counter in a watch channel, so a wake-up that lands while a reader is
/// busy is seen at its next wait, never lost. It also tells open streams
/// that the process is stopping ([`EventSignal::stop`]): they end at once
/// with a comment, and their clients resume elsewhere or after the restart.
#[derive(Debug, Clone)]
pub struct EventSignal {
    events: std::sync::Arc<watch::Sender<u64>>,
    stopping: std::sync::Arc<watch::Sender<bool>>,
}

impl Default for EventSignal {
    fn default() -> Self {
        Self {
            events: std::sync::Arc::new(watch::channel(0).0),
            stopping: std::sync::Arc::new(watch::channel(false).0),
        }
    }
}

impl EventSignal {
    pub fn notify(&self) {
        self.events.send_modify(|n| *n = n.wrapping_add(1));
    }

    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.events.subscribe()
    }

    /// The process is stopping: every stream ends now. Returns how many
    /// streams were open (each holds one subscription to the stop).
    pub fn stop(&self) -> usize {
        self.stopping.send_replace(true);
        self.stopping.receiver_count()
    }

    /// Whether (and when) the process stops.
    pub fn stopping(&self) -> watch::Receiver<bool> {
        self.stopping.subscribe()
    }
}

/// How a stream asks, every `every`, whether its caller may still hear it:
/// a revoked or rotated key, a revoked widget, a suspended developer or a
/// person who lost the home ends the stream within one interval, not at the
/// connection's time limit. The check also keeps the connection's lease
/// (the cap on one caller's open streams) renewed.
pub struct Recheck {
    pub every: Duration,
    pub still_allowed: Box<dyn FnMut() -> BoxFuture<'static, bool> + Send + Sync>,
}

/// How often a stream's caller is checked again, by default.
pub const RECHECK: Duration = Duration::from_secs(5);

/// Everything a feed needs.
pub struct Feed {
    pub log: EventLog,
    pub tenants: Vec<TenantId>,
    /// Which of the tenants' events the caller hears (a LIVE key: only those
    /// about its connector's integrations; a household: its home's).
    pub audience: Audience,
    pub request: StreamRequest,
    pub limits: StreamLimits,
    pub wake: Option<watch::Receiver<u64>>,
    /// Turns true when the process stops ([`EventSignal::stopping`]): the
    /// stream ends at once (none: it runs to its time limit, as a hosted
    /// function's does).
    pub stop: Option<watch::Receiver<bool>>,
    /// The caller checked again while the stream is open (none: the stream
    /// runs to its time limit).
    pub recheck: Option<Recheck>,
}

struct State {
    feed: Feed,
    subjects: EventSubjects,
    cursor: Cursor,
    pending: VecDeque<String>,
    deadline: Instant,
    next_keepalive: Instant,
    next_check: Instant,
    started: bool,
    done: bool,
}

/// The stream's body: a first `retry:` line, then every event of the
/// tenants after the resume point in id order (filtered by kind), a comment
/// every keepalive interval, and a closing comment at the time limit. A store
/// error ends the stream (the client resumes).
pub fn body(feed: Feed) -> impl Stream<Item = Result<Bytes, Infallible>> + Send + 'static {
    let now = Instant::now();
    let state = State {
        cursor: Cursor::resume(&feed.tenants, feed.request.after.as_ref()),
        deadline: now + feed.limits.max_duration,
        next_keepalive: now + feed.limits.keepalive,
        next_check: now
            + feed
                .recheck
                .as_ref()
                .map_or(feed.limits.max_duration, |r| r.every),
        feed,
        subjects: EventSubjects::default(),
        pending: VecDeque::new(),
        started: false,
        done: false,
    };
    futures_util::stream::unfold(state, |mut state| async move {
        let chunk = next_chunk(&mut state).await?;
        Some((Ok(Bytes::from(chunk)), state))
    })
}

async fn next_chunk(state: &mut State) -> Option<String> {
    loop {
        if let Some(chunk) = state.pending.pop_front() {
            return Some(chunk);
        }
        if state.done {
            return None;
        }
        if !state.started {
            state.started = true;
            return Some(format!("retry: {RECONNECT_MS}\n{}", comment("connected")));
        }
        if state.feed.stop.as_ref().is_some_and(|stop| *stop.borrow()) {
            state.done = true;
            return Some(comment(
                "the platform is stopping; reconnect with Last-Event-ID",
            ));
        }
        let now = Instant::now();
        if now >= state.deadline {
            state.done = true;
            return Some(comment(
                "the connection's time is up; reconnect with Last-Event-ID",
            ));
        }
        let due = now >= state.next_check;
        let check = match state.feed.recheck.as_mut() {
            Some(recheck) if due => {
                state.next_check = now + recheck.every;
                Some((recheck.still_allowed)())
            }
            _ => None,
        };
        if let Some(check) = check
            && !check.await
        {
            state.done = true;
            return Some(comment(
                "the credential of this stream no longer allows it; sign in again",
            ));
        }
        let feed = &state.feed;
        let page = match feed
            .log
            .read(&state.cursor, feed.request.kinds.as_ref(), PAGE)
            .await
        {
            Ok(page) => page,
            Err(e) => {
                tracing::warn!(error = %e, "the event stream could not read the log");
                state.done = true;
                return Some(comment("events are briefly unavailable; reconnect"));
            }
        };
        let moved = page.cursor != state.cursor;
        for event in &page.events {
            match state
                .subjects
                .hears(feed.log.store(), feed.audience, event)
                .await
            {
                Ok(true) => state.pending.push_back(format_event(event)),
                Ok(false) => {}
                Err(e) => {
                    tracing::warn!(error = %e, "the event stream could not read an integration");
                    // What was read before this event is sent; the client
                    // resumes after the last id it saw.
                    state.done = true;
                    state
                        .pending
                        .push_back(comment("events are briefly unavailable; reconnect"));
                    break;
                }
            }
        }
        if state.done {
            continue;
        }
        state.cursor = page.cursor;
        if !page.events.is_empty() {
            state.next_keepalive = Instant::now() + feed.limits.keepalive;
        }
        if moved || !state.pending.is_empty() {
            // More may follow at once (a full page, or filtered events skipped).
            continue;
        }
        if wait(state).await {
            state.next_keepalive = Instant::now() + state.feed.limits.keepalive;
            state.pending.push_back(comment("keepalive"));
        }
    }
}

/// Waits for a wake-up, the poll interval, the keepalive or the deadline;
/// `true` when a keepalive is due.
async fn wait(state: &mut State) -> bool {
    let limits = state.feed.limits;
    let keepalive = state.next_keepalive;
    let until = state.deadline.min(keepalive).min(state.next_check);
    let poll = tokio::time::sleep(limits.poll);
    let woken = async {
        match state.feed.wake.as_mut() {
            Some(wake) => {
                if wake.changed().await.is_err() {
                    // The signal is gone: fall back to polling.
                    std::future::pending::<()>().await;
                }
            }
            None => std::future::pending::<()>().await,
        }
    };
    let stopping = async {
        match state.feed.stop.clone() {
            Some(mut stop) => {
                // Gone with its sender: nothing will stop this stream early.
                if stop.wait_for(|stopping| *stopping).await.is_err() {
                    std::future::pending::<()>().await;
                }
            }
            None => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = poll => {}
        _ = woken => {}
        _ = stopping => {}
        _ = tokio::time::sleep_until(until) => {}
    }
    Instant::now() >= keepalive && Instant::now() < state.deadline
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_parses_kinds_and_prefers_last_event_id() {
        let r = StreamRequest::parse(
            Some("device.online, notification.raised"),
            Some("1780315200000000-00000007"),
            None,
        )
        .unwrap();
        assert_eq!(
            r.kinds.unwrap().into_iter().collect::<Vec<_>>(),
            vec![EventKind::DeviceOnline, EventKind::NotificationRaised]
        );
        assert_eq!(r.after.unwrap().as_str(), "1780315200000000-00000007");
        let r = StreamRequest::parse(
            None,
            Some("1780315200000000-00000007"),
            Some("1780315200000001-00000000"),
        )
        .unwrap();
        assert_eq!(r.after.unwrap().as_str(), "1780315200000001-00000000");
        assert_eq!(r.kinds, None);
        assert_eq!(
            StreamRequest::parse(Some("device.exploded"), None, None)
                .unwrap_err()
                .field,
            "events"
        );
        assert_eq!(
            StreamRequest::parse(None, Some("42"), None)
                .unwrap_err()
                .field,
            "after"
        );
        assert_eq!(
            StreamRequest::parse(None, None, Some("x"))
                .unwrap_err()
                .field,
            "Last-Event-ID"
        );
    }

    #[test]
    fn events_are_framed_as_the_spec_says() {
        let at = time::macros::datetime!(2026-06-01 12:00 UTC);
        let event = EventEnvelope {
            id: EventId::new(at, 7),
            kind: EventKind::WebhookPing,
            tenant_id: TenantId::new(),
            created_at: at,
            data: serde_json::json!({ "text": "two\nlines" }),
        };
        let text = format_event(&event);
        let lines: Vec<&str> = text.split('\n').collect();
        assert_eq!(lines[0], "event: webhook.ping");
        assert_eq!(lines[1], "id: 1780315200000000-00000007");
        assert!(lines[2].starts_with("data: {"));
        assert_eq!(&lines[3..], ["", ""]);
        let data: EventEnvelope = serde_json::from_str(&lines[2]["data: ".len()..]).unwrap();
        assert_eq!(data, event);
        assert_eq!(comment("a\nb"), ": a b\n\n");
    }
}
