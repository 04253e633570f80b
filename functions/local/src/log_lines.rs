//! Where the local platform's log lines go: standard output, in batches.
//!
//! Every request logs a line. Written one by one, each line was a `write`
//! of its own on the request's thread; handed to a logging thread one by
//! one (tracing-appender's non-blocking writer), each line woke that
//! thread. Either cost a fifth of the throughput of a warm device list
//! (docs/PROFILING.md). Here a line is copied into a shared buffer under a
//! lock, and a thread of its own writes the buffer out every
//! [`FLUSH_EVERY`] (or at once past [`FLUSH_AT_BYTES`]), so a line reaches
//! the terminal at most that late. A clean stop writes out the rest; a
//! killed process loses at most the last [`FLUSH_EVERY`] of lines.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use tracing_subscriber::fmt::MakeWriter;

/// How long a line may wait in the buffer.
pub const FLUSH_EVERY: Duration = Duration::from_millis(20);
/// A buffer this large is written out by the line that filled it.
pub const FLUSH_AT_BYTES: usize = 64 * 1024;

/// The writer to give `tracing_subscriber::fmt().with_writer(..)`.
#[derive(Clone)]
pub struct LogLines {
    shared: Arc<Shared>,
}

struct Shared {
    buffer: Mutex<Vec<u8>>,
    stopping: AtomicBool,
    /// Where lines are written out: standard output (a test's own sink).
    out: fn(&[u8]),
}

impl Shared {
    fn new(out: fn(&[u8])) -> Self {
        Self {
            buffer: Mutex::new(Vec::with_capacity(FLUSH_AT_BYTES)),
            stopping: AtomicBool::new(false),
            out,
        }
    }
}

/// Writes out what is buffered when dropped (at the end of `main`).
pub struct Flushed {
    shared: Arc<Shared>,
    flusher: Option<JoinHandle<()>>,
}

impl LogLines {
    /// The writer and its guard; starts the thread that writes lines out.
    pub fn to_stdout() -> (Self, Flushed) {
        let shared = Arc::new(Shared::new(write_stdout));
        let flusher = {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("alyt-log".into())
                .spawn(move || {
                    while !shared.stopping.load(Ordering::Acquire) {
                        std::thread::park_timeout(FLUSH_EVERY);
                        shared.write_out();
                    }
                })
                .ok()
        };
        (
            Self {
                shared: shared.clone(),
            },
            Flushed { shared, flusher },
        )
    }
}

impl Shared {
    fn buffer(&self) -> MutexGuard<'_, Vec<u8>> {
        // A line is appended whole or not at all: a poisoned buffer is sound.
        self.buffer.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Writes the buffered lines to standard output (taken out of the lock
    /// first, so loggers never wait for the terminal).
    fn write_out(&self) {
        let lines = std::mem::take(&mut *self.buffer());
        if !lines.is_empty() {
            (self.out)(&lines);
        }
    }
}

fn write_stdout(lines: &[u8]) {
    let mut out = std::io::stdout().lock();
    // Nowhere to report a failing standard output; the platform serves on.
    let _ = out.write_all(lines).and_then(|()| out.flush());
}

/// One line being written (tracing formats a line, then writes it whole).
pub struct Line<'a>(&'a Shared);

impl Write for Line<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let mut buffer = self.0.buffer();
        buffer.extend_from_slice(bytes);
        if buffer.len() >= FLUSH_AT_BYTES {
            let full = std::mem::take(&mut *buffer);
            drop(buffer);
            (self.0.out)(&full);
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for LogLines {
    type Writer = Line<'a>;

    fn make_writer(&'a self) -> Line<'a> {
        Line(&self.shared)
    }
}

impl Drop for Flushed {
    fn drop(&mut self) {
        self.shared.stopping.store(true, Ordering::Release);
        if let Some(flusher) = self.flusher.take() {
            flusher.thread().unpark();
            let _ = flusher.join();
        }
        self.shared.write_out();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nowhere(_: &[u8]) {}

    #[test]
    fn lines_are_kept_whole_and_in_order_until_written_out() {
        let shared = Shared::new(nowhere);
        for n in 0..100 {
            writeln!(Line(&shared), "line {n}").unwrap();
        }
        let kept = String::from_utf8(shared.buffer().clone()).unwrap();
        let expected: String = (0..100).map(|n| format!("line {n}\n")).collect();
        assert_eq!(kept, expected);
    }

    #[test]
    fn a_full_buffer_is_written_out_by_the_line_that_filled_it() {
        let shared = Shared::new(nowhere);
        // tracing writes a line with one `write_all`.
        let long = format!("{}\n", "x".repeat(FLUSH_AT_BYTES));
        Line(&shared).write_all(long.as_bytes()).unwrap();
        assert!(shared.buffer().is_empty(), "the full buffer left at once");
    }
}
