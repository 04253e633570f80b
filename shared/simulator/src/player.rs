//! The player: a script run's traffic ([`crate::script::play`]) sent to the
//! broker on time, each role a real MQTT client logging in as the virtual
//! device it was given, and each command a role receives answered as the
//! script says ([`Checked::answer_at`]).
//!
//! Every message goes at QoS 1, so the broker stores all a run sends and
//! two runs can be compared message by message. A role whose connection
//! fails (refused, or lost while the script has it connected) fails the
//! run: a run that could not send what it plays is not a repeat.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use alyt_device::channels::decode_command;
use alyt_device::{Channel, ChannelMessage, CommandResponse, encode};
use rumqttc::{Event, Packet, QoS};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::runner::{Link, RunnerConfig, VirtualDeviceSpec};
use crate::script::{Checked, Emitted, Traffic};

/// How long a role waits for the broker to accept its connection.
const CONNECT_WAIT: Duration = Duration::from_secs(10);

/// How a run's playing ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlayEnd {
    /// Every message was sent and the script's duration passed.
    Done,
    /// Asked to stop.
    Stopped,
    /// A role could not send what the script plays.
    Failed(String),
}

/// A run being played. Dropping it does not stop it: call [`Playing::stop`].
pub struct Playing {
    played: Arc<AtomicU64>,
    stop: watch::Sender<bool>,
    roles: JoinSet<Result<(), String>>,
    /// The first role's failure (kept here: [`Playing::finish`] may be
    /// dropped and called again).
    failure: Option<String>,
}

impl Playing {
    /// Starts playing `traffic` now: role `i` speaks as `devices[i]`.
    /// Needs a tokio runtime.
    pub fn start(
        config: &RunnerConfig,
        script: Arc<Checked>,
        traffic: Vec<Emitted>,
        devices: Vec<VirtualDeviceSpec>,
    ) -> Self {
        let origin = Instant::now();
        let played = Arc::new(AtomicU64::new(0));
        let (stop, stopped) = watch::channel(false);
        let mut per_role: Vec<Vec<Emitted>> = vec![Vec::new(); devices.len()];
        for emitted in traffic {
            if let Some(list) = per_role.get_mut(emitted.role) {
                list.push(emitted);
            }
        }
        let mut roles = JoinSet::new();
        for (role, (device, items)) in devices.into_iter().zip(per_role).enumerate() {
            let task = RoleTask {
                role,
                device,
                config: config.clone(),
                script: script.clone(),
                origin,
                played: played.clone(),
                stopped: stopped.clone(),
                link: None,
                answers: Vec::new(),
            };
            roles.spawn(task.run(items));
        }
        Self {
            played,
            stop,
            roles,
            failure: None,
        }
    }

    /// Messages sent so far.
    pub fn played(&self) -> u64 {
        self.played.load(Ordering::Relaxed)
    }

    /// Asks every role to disconnect cleanly; [`Playing::finish`] then
    /// answers [`PlayEnd::Stopped`].
    pub fn stop(&self) {
        let _ = self.stop.send(true);
    }

    /// Waits for the run's end. The first failing role stops the others.
    /// Cancel-safe: a dropped call loses nothing.
    pub async fn finish(&mut self) -> PlayEnd {
        while let Some(joined) = self.roles.join_next().await {
            let outcome = joined.unwrap_or_else(|e| Err(format!("a role's task ended: {e}")));
            if let Err(reason) = outcome
                && self.failure.is_none()
            {
                self.failure = Some(reason);
                self.stop();
            }
        }
        match self.failure.clone() {
            Some(reason) => PlayEnd::Failed(reason),
            None if *self.stop.borrow() => PlayEnd::Stopped,
            None => PlayEnd::Done,
        }
    }
}

/// One role of a run: its connection, its items and its pending answers.
struct RoleTask {
    role: usize,
    device: VirtualDeviceSpec,
    config: RunnerConfig,
    script: Arc<Checked>,
    origin: Instant,
    played: Arc<AtomicU64>,
    stopped: watch::Receiver<bool>,
    link: Option<Link>,
    /// Answers to send: (when, bytes).
    answers: Vec<(Instant, Vec<u8>)>,
}

/// What ended a wait.
enum Woke {
    Due,
    Stop,
}

impl RoleTask {
    async fn run(mut self, items: Vec<Emitted>) -> Result<(), String> {
        let outcome = self.play(items).await;
        if let Some(mut link) = self.link.take() {
            link.disconnect().await;
        }
        outcome
    }

    async fn play(&mut self, items: Vec<Emitted>) -> Result<(), String> {
        for item in items {
            if let Woke::Stop = self.wait_until(self.at(item.at_ms)).await? {
                return Ok(());
            }
            match item.traffic {
                Traffic::Connect => self.connect().await?,
                Traffic::Publish {
                    channel,
                    retain,
                    bytes,
                } => self.publish(channel, retain, bytes).await?,
                Traffic::Disconnect => {
                    if let Some(mut link) = self.link.take() {
                        link.disconnect().await;
                    }
                }
                Traffic::DropConnection => {
                    if let Some(mut link) = self.link.take() {
                        link.drop_connection().await;
                    }
                }
            }
        }
        // Commands are still answered until the script's end.
        let end = self.at(self.script.duration_ms());
        self.wait_until(end).await?;
        Ok(())
    }

    fn at(&self, at_ms: u64) -> Instant {
        self.origin + Duration::from_millis(at_ms)
    }

    fn name(&self) -> String {
        format!("role {} (device {})", self.role, self.device.device_id)
    }

    async fn connect(&mut self) -> Result<(), String> {
        let identity = self.device.identity();
        let mut link = Link::open(&self.device, &identity, &self.config);
        let connack = tokio::time::timeout(CONNECT_WAIT, async {
            loop {
                match link.events.recv().await {
                    Some(Ok(Event::Incoming(Packet::ConnAck(_)))) => return Ok(()),
                    Some(Ok(_)) => {}
                    Some(Err(e)) => return Err(e.to_string()),
                    None => return Err("the connection closed".to_owned()),
                }
            }
        })
        .await;
        match connack {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                link.drop_connection().await;
                return Err(format!("{} could not connect: {e}", self.name()));
            }
            Err(_) => {
                link.drop_connection().await;
                return Err(format!(
                    "{} could not connect within {} s",
                    self.name(),
                    CONNECT_WAIT.as_secs()
                ));
            }
        }
        link.client
            .subscribe(identity.topic(Channel::Commands), QoS::AtLeastOnce)
            .await
            .map_err(|e| format!("{} could not subscribe to its commands: {e}", self.name()))?;
        self.link = Some(link);
        Ok(())
    }

    async fn publish(
        &mut self,
        channel: Channel,
        retain: bool,
        bytes: Vec<u8>,
    ) -> Result<(), String> {
        let topic = self.device.identity().topic(channel);
        let name = self.name();
        let Some(link) = &self.link else {
            // The script has the role away: play() emits nothing then.
            return Err(format!("{name} had no connection to publish on"));
        };
        link.client
            .publish(topic, QoS::AtLeastOnce, retain, bytes)
            .await
            .map_err(|e| format!("{name} could not publish: {e}"))?;
        self.played.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Serves the connection (commands, answers, pings) until `until`, or
    /// until asked to stop. A lost connection is a failure.
    async fn wait_until(&mut self, until: Instant) -> Result<Woke, String> {
        loop {
            if *self.stopped.borrow() {
                return Ok(Woke::Stop);
            }
            let next_answer = self.answers.iter().map(|(at, _)| *at).min();
            let wake = next_answer.map_or(until, |a| a.min(until));
            let name = self.name();
            let event = async {
                match self.link.as_mut() {
                    Some(link) => link.events.recv().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                () = tokio::time::sleep_until(wake) => {
                    if next_answer.is_some_and(|a| a <= Instant::now()) {
                        self.send_due_answers().await?;
                        continue;
                    }
                    return Ok(Woke::Due);
                }
                changed = self.stopped.changed() => {
                    if changed.is_err() || *self.stopped.borrow() {
                        return Ok(Woke::Stop);
                    }
                }
                event = event => match event {
                    Some(Ok(Event::Incoming(Packet::Publish(message)))) => {
                        self.command(&message.payload);
                    }
                    Some(Ok(_)) => {}
                    Some(Err(e)) => {
                        self.link = None;
                        return Err(format!("{name} lost its connection: {e}"));
                    }
                    None => {
                        self.link = None;
                        return Err(format!("{name} lost its connection"));
                    }
                },
            }
        }
    }

    /// A command came: its answer is queued as the script says now.
    fn command(&mut self, bytes: &[u8]) {
        let Ok(command) = decode_command(bytes) else {
            tracing::debug!("a script run's device ignored a malformed command");
            return;
        };
        let elapsed = Instant::now().saturating_duration_since(self.origin);
        let answer = self.script.answer_at(self.role, elapsed.as_millis() as u64);
        let Some(status) = answer.status else {
            return;
        };
        let response = ChannelMessage::Response(CommandResponse {
            command_id: command.command_id,
            command: command.command,
            status,
        });
        if let Ok(bytes) = encode(&response) {
            self.answers.push((Instant::now() + answer.delay, bytes));
        }
    }

    async fn send_due_answers(&mut self) -> Result<(), String> {
        let now = Instant::now();
        let (due, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.answers)
            .into_iter()
            .partition(|(at, _)| *at <= now);
        self.answers = later;
        for (_, bytes) in due {
            // An answer due while the role is away is lost, as a device's.
            if self.link.is_some() {
                self.publish(Channel::Response, false, bytes).await?;
            }
        }
        Ok(())
    }
}
