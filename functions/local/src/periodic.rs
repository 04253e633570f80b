//! The local platform's periodic tasks (the sweeps, the housekeeping, the
//! webhook passes): each runs its pass on a beat until shutdown. A slow
//! pass delays the next one rather than bunching them up, and a pass is
//! never cut short by the shutdown signal.

use std::future::Future;
use std::time::Duration;

use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::{Instant, MissedTickBehavior};

/// When a task's passes run.
pub struct Beat {
    every: Duration,
    wake: Option<(watch::Receiver<u64>, Duration)>,
}

impl Beat {
    /// The first pass at once, then one every `every`.
    pub fn every(every: Duration) -> Self {
        Self { every, wake: None }
    }

    /// A pass `settle` after each `wake` signal, and one every `every` when
    /// nothing wakes the task (the first after one `every`: work that was
    /// waiting is picked up then). Stops when the signal's sender is gone.
    pub fn woken(wake: watch::Receiver<u64>, settle: Duration, every: Duration) -> Self {
        Self {
            every,
            wake: Some((wake, settle)),
        }
    }
}

/// Runs `pass` on `beat` until `stop` says so. `worker` names the hosted
/// function that does this work, for the store reach log
/// ([`crate::reach`]).
pub fn spawn<F, Fut>(
    worker: &'static str,
    beat: Beat,
    mut stop: watch::Receiver<bool>,
    mut pass: F,
) -> JoinHandle<()>
where
    F: FnMut() -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send,
{
    tokio::spawn(async move {
        let Beat { every, mut wake } = beat;
        let first = match wake {
            Some(_) => Instant::now() + every,
            None => Instant::now(),
        };
        let mut tick = tokio::time::interval_at(first, every);
        tick.set_missed_tick_behavior(MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = tick.tick() => {}
                woken = woken(&mut wake) => {
                    let Some(settle) = woken else { break };
                    tokio::time::sleep(settle).await;
                    tick.reset();
                }
                _ = stopped(&mut stop) => break,
            }
            crate::reach::recorded(worker, pass()).await;
        }
    })
}

/// The settle time once the wake signal fires; `None` when its sender is
/// gone; never, for a task without one.
async fn woken(wake: &mut Option<(watch::Receiver<u64>, Duration)>) -> Option<Duration> {
    match wake {
        Some((signal, settle)) => signal.changed().await.ok().map(|()| *settle),
        None => std::future::pending().await,
    }
}

/// Resolves once shutdown is asked for (or the platform handle is gone).
pub async fn stopped(signal: &mut watch::Receiver<bool>) {
    let _ = signal.wait_for(|stop| *stop).await;
}
