//! The store calls log (`ALYT_STORE_CALLS_LOG`, see
//! [`crate::Config::store_calls_log`]): one JSON line per request with its
//! store calls (`bench/store-calls` makes docs/STORE_CALLS.md of them) and
//! what they reached, and one per pass of a worker that reached the store.
//! What is reached is the DynamoDB action and partition pattern each call
//! needs hosted ([`alyt_store::counting::Reach`]): `infra/check_template.py`
//! holds every function's table policy to what the tests saw its code reach.

use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};

use alyt_store::counting::{Reach, reach_during, reach_of};
use axum::body::{Body, BodyDataStream, Bytes};
use futures_util::Stream;

/// The file: lines appended whole (one `write` each on a file opened for
/// appending), so the test processes sharing it never interleave a line.
pub(crate) struct StoreCallsLog(std::sync::Mutex<std::fs::File>);

/// The log of this process, once a platform with one started (every
/// platform of a process logs to the same `ALYT_STORE_CALLS_LOG`).
static LOG: OnceLock<Arc<StoreCallsLog>> = OnceLock::new();

impl StoreCallsLog {
    pub(crate) fn open(path: &std::path::Path) -> std::io::Result<Arc<Self>> {
        if let Some(log) = LOG.get() {
            return Ok(log.clone());
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        Ok(LOG
            .get_or_init(|| Arc::new(Self(std::sync::Mutex::new(file))))
            .clone())
    }

    pub(crate) fn request(
        &self,
        method: &str,
        path: &str,
        status: u16,
        calls: &BTreeMap<&str, usize>,
        reach: &BTreeSet<Reach>,
    ) {
        self.write(serde_json::json!({
            "method": method, "path": path, "status": status, "calls": calls,
            "reach": reach.iter().map(Reach::to_string).collect::<Vec<_>>(),
        }));
    }

    fn write(&self, line: serde_json::Value) {
        use std::io::Write;
        let mut line = line.to_string();
        line.push('\n');
        let mut file = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = file.write_all(line.as_bytes()) {
            tracing::warn!(error = %e, "a store-calls line could not be written");
        }
    }
}

/// Runs a pass of `worker` (the hosted function doing that work), logging
/// what its store calls reached when there is a log.
pub(crate) async fn recorded<F: Future>(worker: &'static str, work: F) -> F::Output {
    let Some(log) = LOG.get() else {
        return work.await;
    };
    let (output, reach) = reach_of(work).await;
    if !reach.is_empty() {
        log.write(serde_json::json!({
            "worker": worker,
            "reach": reach.iter().map(Reach::to_string).collect::<Vec<_>>(),
        }));
    }
    output
}

/// A streaming response's body (the event streams), whose store calls are
/// made as it is polled, after the request's line was written: what they
/// reach is logged as one `streamed` line for the path when the body ends
/// or the client goes.
pub(crate) struct ReachedBody {
    inner: BodyDataStream,
    path: String,
    reach: BTreeSet<Reach>,
    log: Arc<StoreCallsLog>,
}

impl ReachedBody {
    pub(crate) fn wrap(body: Body, path: String, log: Arc<StoreCallsLog>) -> Body {
        Body::from_stream(ReachedBody {
            inner: body.into_data_stream(),
            path,
            reach: BTreeSet::new(),
            log,
        })
    }
}

impl Stream for ReachedBody {
    type Item = Result<Bytes, axum::Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        reach_during(&mut this.reach, || Pin::new(&mut this.inner).poll_next(cx))
    }
}

impl Drop for ReachedBody {
    fn drop(&mut self) {
        if !self.reach.is_empty() {
            self.log.write(serde_json::json!({
                "streamed": self.path,
                "reach": self.reach.iter().map(Reach::to_string).collect::<Vec<_>>(),
            }));
        }
    }
}
