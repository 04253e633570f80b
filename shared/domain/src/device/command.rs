//! Command history rows and their state machine.
//!
//! | state | event | next | attempts |
//! |---|---|---|---|
//! | (new) | accepted ([`CommandRow::accept`]) | `pending` | 0 |
//! | `pending` | broker delivery succeeded ([`CommandEvent::Published`]) | `sent` (sentAt = now) | +1 |
//! | `pending` | broker delivery failed ([`CommandEvent::PublishFailed`]) | `pending` (retried by later sweeps) | +1 |
//! | `pending` | no property, or already acknowledged ([`CommandEvent::Undeliverable`]) | `undeliverable` | = |
//! | `sent`, unanswered [`REDELIVER_AFTER`] after its last publish | published again ([`CommandEvent::Published`]) | `sent` (sentAt = now) | +1 |
//! | `sent` | that publish failed ([`CommandEvent::PublishFailed`]) | `pending` | +1 |
//! | `sent` | its device lost its property ([`CommandEvent::Undeliverable`]) | `undeliverable` | = |
//! | `sent` or `pending` | device response ([`CommandEvent::Response`]) | `answered` (result status and answeredAt recorded; emits `command.result`) | = |
//!
//! Anything else changes nothing ([`CommandRow::apply`] answers `None`):
//! `answered` and `undeliverable` are final, and a duplicate response (SQS
//! delivers at least once) finds the row answered and records nothing. A
//! response to a row still `pending` is accepted: the device can answer
//! before the row's move to `sent` is stored.
//!
//! Why a sent row is published again: a new command is written `sent` before it
//! is published (one write on the request path instead of three), so a crash
//! between the write and the publish, or a QoS 1 delivery the broker lost,
//! would otherwise leave a row that claims to be sent and never reaches its
//! device. The bridge sweep publishes a `sent` row no response answered within
//! [`REDELIVER_AFTER`] again, at most [`MAX_PUBLISHES`] publishes in all; a
//! device can see one command twice, which MQTT QoS 1 allows anyway, and
//! recognises it by its commandId.
//!
//! `answered` is this module's name for the spec's "(result recorded)": the
//! spec names only pending, sent and undeliverable, and a row that carries a
//! result is no longer merely sent.
//!
//! A row read from the store keeps a state this build does not know
//! ([`Lenient::Unknown`]); such a row is treated as final.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use time::{Duration, OffsetDateTime};

use super::command_id::CommandId;
use super::enums::wire_enum;
use super::events::CommandResultData;
use super::lenient::Lenient;
use super::request::AcceptedCommand;
use crate::ids::DeviceId;

/// How long a `sent` row waits for its device's response before the bridge
/// sweep publishes it again (the SLOW scenario answers after 5 s).
pub const REDELIVER_AFTER: Duration = Duration::seconds(30);

/// Publishes of a row after which an unanswered `sent` row is left alone
/// (the first and two more): a device that got it and never answers does
/// not receive it forever.
pub const MAX_PUBLISHES: u32 = 3;

wire_enum! {
    /// Where a command history row is.
    CommandState ("command state") {
        /// Accepted, not yet delivered to the broker.
        Pending = "pending",
        /// Published on the device's commands channel.
        Sent = "sent",
        /// Given up: no property, or already acknowledged.
        Undeliverable = "undeliverable",
        /// The device answered; the result is recorded.
        Answered = "answered",
    }
}

wire_enum! {
    /// Why a row became undeliverable.
    UndeliverableReason ("undeliverable reason") {
        /// The device belongs to no property, so it has no topic.
        NoProperty = "no-property",
        /// The device already acknowledged this command id.
        AlreadyAcknowledged = "already-acknowledged",
        /// Made moot before it was answered: home security restores what
        /// an alarm command would change, so the old alarm command is
        /// never delivered after Off.
        Superseded = "superseded",
    }
}

/// Something that happens to a command row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandEvent {
    /// The broker accepted the publish on the device's commands channel.
    Published,
    /// The broker could not deliver it (the device is not subscribed, ...).
    PublishFailed,
    /// The sweep gave up on it.
    Undeliverable(UndeliverableReason),
    /// The device answered with this status (1-32 characters, checked by the
    /// channel decoder).
    Response { status: String },
}

/// One row of a device's command history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CommandRow {
    pub command_id: CommandId,
    pub device_id: DeviceId,
    /// The verb sent on the commands channel (`set`, `press`, or a device
    /// verb of the flat form).
    pub command: String,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub payload: Option<Map<String, Value>>,
    #[cfg_attr(feature = "openapi", schema(value_type = CommandState))]
    pub state: Lenient<CommandState>,
    /// Publishes tried so far (successful or not).
    pub attempts: u32,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub sent_at: Option<OffsetDateTime>,
    /// The device's response status, once answered.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub result_status: Option<String>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub answered_at: Option<OffsetDateTime>,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<UndeliverableReason>))]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub undeliverable_reason: Option<Lenient<UndeliverableReason>>,
}

impl CommandRow {
    /// A newly accepted command: `pending`, never tried.
    pub fn accept(
        command_id: CommandId,
        device_id: DeviceId,
        accepted: AcceptedCommand,
        now: OffsetDateTime,
    ) -> Self {
        Self {
            command_id,
            device_id,
            command: accepted.command,
            payload: accepted.payload,
            state: Lenient::Known(CommandState::Pending),
            attempts: 0,
            created_at: now,
            sent_at: None,
            result_status: None,
            answered_at: None,
            undeliverable_reason: None,
        }
    }

    /// The state, if this build knows it.
    pub fn state(&self) -> Option<CommandState> {
        self.state.known()
    }

    /// Whether no event can move the row any more (answered, undeliverable,
    /// or a state this build does not know).
    pub fn is_final(&self) -> bool {
        !matches!(
            self.state(),
            Some(CommandState::Pending | CommandState::Sent)
        )
    }

    /// The row after `event` at `now`, or `None` when the event changes
    /// nothing (see the module docs).
    pub fn apply(&self, event: &CommandEvent, now: OffsetDateTime) -> Option<CommandRow> {
        let state = self.state()?;
        let mut next = self.clone();
        match (state, event) {
            (CommandState::Pending | CommandState::Sent, CommandEvent::Published) => {
                next.state = CommandState::Sent.into();
                next.attempts = self.attempts.saturating_add(1);
                next.sent_at = Some(now);
            }
            (CommandState::Pending | CommandState::Sent, CommandEvent::PublishFailed) => {
                next.state = CommandState::Pending.into();
                next.attempts = self.attempts.saturating_add(1);
            }
            (CommandState::Pending | CommandState::Sent, CommandEvent::Undeliverable(reason)) => {
                next.state = CommandState::Undeliverable.into();
                next.undeliverable_reason = Some((*reason).into());
            }
            (CommandState::Pending | CommandState::Sent, CommandEvent::Response { status }) => {
                next.state = CommandState::Answered.into();
                next.result_status = Some(status.clone());
                next.answered_at = Some(now);
            }
            _ => return None,
        }
        Some(next)
    }

    /// When the bridge sweep should next look at the row: a pending row
    /// from its acceptance on (every sweep, oldest first), a sent row
    /// [`REDELIVER_AFTER`] after its last publish while it has publishes
    /// left; never for the others.
    pub fn recheck_at(&self) -> Option<OffsetDateTime> {
        match self.state()? {
            CommandState::Pending => Some(self.created_at),
            CommandState::Sent if self.attempts < MAX_PUBLISHES => {
                Some(self.sent_at? + REDELIVER_AFTER)
            }
            _ => None,
        }
    }

    /// The `command.result` data of an answered row.
    pub fn result_data(&self) -> Option<CommandResultData> {
        if self.state() != Some(CommandState::Answered) {
            return None;
        }
        Some(CommandResultData {
            device_id: self.device_id,
            command_id: self.command_id,
            command: self.command.clone(),
            status: self.result_status.clone()?,
            at: self.answered_at?,
        })
    }
}

/// What the bridge sweep does with a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SweepAction {
    /// Publish it, then apply [`CommandEvent::Published`] or
    /// [`CommandEvent::PublishFailed`].
    Publish,
    /// Apply [`CommandEvent::Undeliverable`] with this reason.
    GiveUp(UndeliverableReason),
    /// Not the sweep's business (final, or not due yet).
    Skip,
}

/// The bridge sweep's decision for one row at `now`. `has_property`: the
/// device has a property (so a topic). `acknowledged`: a response for this
/// command id is already on record although the row is still pending;
/// publishing it again would run the command twice.
pub fn sweep_action(
    row: &CommandRow,
    has_property: bool,
    acknowledged: bool,
    now: OffsetDateTime,
) -> SweepAction {
    if row.recheck_at().is_none_or(|due| due > now) {
        SweepAction::Skip
    } else if !has_property {
        SweepAction::GiveUp(UndeliverableReason::NoProperty)
    } else if acknowledged && row.state() == Some(CommandState::Pending) {
        SweepAction::GiveUp(UndeliverableReason::AlreadyAcknowledged)
    } else {
        SweepAction::Publish
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use time::Duration;

    use super::*;

    fn t0() -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(1_800_000_000).unwrap()
    }

    fn row() -> CommandRow {
        CommandRow::accept(
            CommandId::new(7).unwrap(),
            DeviceId::new(),
            AcceptedCommand {
                command: "set".into(),
                payload: Some(
                    serde_json::json!({ "capability": "light", "key": "power", "value": true })
                        .as_object()
                        .unwrap()
                        .clone(),
                ),
            },
            t0(),
        )
    }

    fn response(status: &str) -> CommandEvent {
        CommandEvent::Response {
            status: status.into(),
        }
    }

    #[test]
    fn the_happy_path() {
        let r = row();
        assert_eq!(r.state(), Some(CommandState::Pending));
        assert_eq!(r.attempts, 0);
        assert_eq!(sweep_action(&r, true, false, t0()), SweepAction::Publish);
        let failed = r.apply(&CommandEvent::PublishFailed, t0()).unwrap();
        assert_eq!(failed.state(), Some(CommandState::Pending));
        assert_eq!(failed.attempts, 1);
        let sent = failed
            .apply(&CommandEvent::Published, t0() + Duration::seconds(2))
            .unwrap();
        assert_eq!(sent.state(), Some(CommandState::Sent));
        assert_eq!(sent.attempts, 2);
        assert_eq!(sent.sent_at, Some(t0() + Duration::seconds(2)));
        // Not answered yet, and not due again before REDELIVER_AFTER.
        assert_eq!(
            sweep_action(&sent, true, false, t0() + Duration::seconds(31)),
            SweepAction::Skip
        );
        let at = t0() + Duration::seconds(3);
        let answered = sent.apply(&response("ok"), at).unwrap();
        assert_eq!(answered.state(), Some(CommandState::Answered));
        assert_eq!(answered.result_status.as_deref(), Some("ok"));
        assert_eq!(answered.answered_at, Some(at));
        assert!(answered.is_final());
        let data = answered.result_data().unwrap();
        assert_eq!((data.status.as_str(), data.at), ("ok", at));
        assert_eq!(data.command, "set");
        // A duplicate response records nothing.
        assert_eq!(answered.apply(&response("rejected"), at), None);
        assert_eq!(sent.result_data(), None);
    }

    #[test]
    fn undeliverable_rows() {
        let r = row();
        assert_eq!(
            sweep_action(&r, false, false, t0()),
            SweepAction::GiveUp(UndeliverableReason::NoProperty)
        );
        assert_eq!(
            sweep_action(&r, true, true, t0()),
            SweepAction::GiveUp(UndeliverableReason::AlreadyAcknowledged)
        );
        let dead = r
            .apply(
                &CommandEvent::Undeliverable(UndeliverableReason::NoProperty),
                t0(),
            )
            .unwrap();
        assert_eq!(dead.state(), Some(CommandState::Undeliverable));
        assert_eq!(dead.attempts, 0);
        assert!(dead.is_final());
        assert_eq!(dead.apply(&response("ok"), t0()), None);
        assert_eq!(dead.apply(&CommandEvent::Published, t0()), None);
        assert_eq!(sweep_action(&dead, true, false, t0()), SweepAction::Skip);
        assert_eq!(dead.recheck_at(), None);
        let v = serde_json::to_value(&dead).unwrap();
        assert_eq!(v["state"], "undeliverable");
        assert_eq!(v["undeliverableReason"], "no-property");
    }

    #[test]
    fn an_unanswered_sent_row_is_published_again_a_bounded_number_of_times() {
        let sent = row().apply(&CommandEvent::Published, t0()).unwrap();
        let due = t0() + REDELIVER_AFTER;
        assert_eq!(sent.recheck_at(), Some(due));
        let early = due - Duration::seconds(1);
        assert_eq!(sweep_action(&sent, true, false, early), SweepAction::Skip);
        assert_eq!(sweep_action(&sent, true, false, due), SweepAction::Publish);
        // Its device lost its property meanwhile: given up.
        assert_eq!(
            sweep_action(&sent, false, false, due),
            SweepAction::GiveUp(UndeliverableReason::NoProperty)
        );
        let again = sent.apply(&CommandEvent::Published, due).unwrap();
        assert_eq!(again.state(), Some(CommandState::Sent));
        assert_eq!((again.attempts, again.sent_at), (2, Some(due)));
        // A redelivery the broker refused leaves it pending (retried every
        // sweep, like any pending row).
        let refused = sent.apply(&CommandEvent::PublishFailed, due).unwrap();
        assert_eq!(refused.state(), Some(CommandState::Pending));
        assert_eq!(refused.attempts, 2);
        assert_eq!(refused.recheck_at(), Some(refused.created_at));
        // The last publish: the sweep leaves it alone after that.
        let last = again
            .apply(&CommandEvent::Published, due + REDELIVER_AFTER)
            .unwrap();
        assert_eq!(last.attempts, MAX_PUBLISHES);
        assert_eq!(last.recheck_at(), None);
        let much_later = due + Duration::days(1);
        assert_eq!(
            sweep_action(&last, true, false, much_later),
            SweepAction::Skip
        );
        // The device answers the last one still.
        assert!(last.apply(&response("ok"), much_later).is_some());
    }

    #[test]
    fn a_response_to_a_pending_row_is_recorded() {
        let answered = row().apply(&response("ok"), t0()).unwrap();
        assert_eq!(answered.state(), Some(CommandState::Answered));
        assert_eq!(answered.sent_at, None);
    }

    #[test]
    fn rows_serialize_with_the_specs_names_and_read_back() {
        let r = row();
        let v = serde_json::to_value(&r).unwrap();
        let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "answeredAt",
                "attempts",
                "command",
                "commandId",
                "createdAt",
                "deviceId",
                "payload",
                "resultStatus",
                "sentAt",
                "state",
                "undeliverableReason"
            ]
        );
        assert_eq!(v["commandId"], "7");
        assert_eq!(v["state"], "pending");
        assert_eq!(serde_json::from_value::<CommandRow>(v.clone()).unwrap(), r);
        // A state from a newer build reads, and the row is final here.
        let mut newer = v;
        newer["state"] = "expired".into();
        let read: CommandRow = serde_json::from_value(newer).unwrap();
        assert_eq!(read.state(), None);
        assert!(read.is_final());
        assert_eq!(read.apply(&response("ok"), t0()), None);
        assert_eq!(sweep_action(&read, true, false, t0()), SweepAction::Skip);
        assert_eq!(serde_json::to_value(&read).unwrap()["state"], "expired");
    }

    fn any_event() -> impl Strategy<Value = CommandEvent> {
        prop_oneof![
            Just(CommandEvent::Published),
            Just(CommandEvent::PublishFailed),
            Just(CommandEvent::Undeliverable(UndeliverableReason::NoProperty)),
            Just(CommandEvent::Undeliverable(
                UndeliverableReason::AlreadyAcknowledged
            )),
            "[a-z]{1,8}".prop_map(|status| CommandEvent::Response { status }),
        ]
    }

    fn allowed(from: CommandState, to: CommandState) -> bool {
        use CommandState::*;
        matches!(
            (from, to),
            (Pending | Sent, Pending | Sent | Undeliverable | Answered)
        )
    }

    proptest! {
        /// Final states never move, a result is recorded at most once,
        /// attempts only grow, and every move is an edge of the table.
        #[test]
        fn the_command_state_machine(events in proptest::collection::vec((any_event(), 0i64..10), 0..40)) {
            let mut current = row();
            let mut now = t0();
            let mut results = 0;
            for (event, gap) in events {
                now += Duration::seconds(gap);
                let before = current.clone();
                let next = current.apply(&event, now);
                if before.is_final() {
                    prop_assert!(next.is_none(), "a final row moved on {:?}", event);
                }
                if let Some(next) = next {
                    let (from, to) = (before.state().unwrap(), next.state().unwrap());
                    prop_assert!(allowed(from, to), "{} -> {}", from, to);
                    prop_assert!(next.attempts >= before.attempts);
                    prop_assert!(next.attempts <= before.attempts + 1);
                    if before.result_status.is_some() {
                        prop_assert_eq!(&next.result_status, &before.result_status);
                    }
                    if next.result_status.is_some() && before.result_status.is_none() {
                        results += 1;
                        prop_assert_eq!(to, CommandState::Answered);
                        prop_assert_eq!(next.answered_at, Some(now));
                    }
                    // sentAt is the last publish: set by a publish only.
                    if event == CommandEvent::Published {
                        prop_assert_eq!(next.sent_at, Some(now));
                    } else {
                        prop_assert_eq!(next.sent_at, before.sent_at);
                    }
                    // The sweep is due for exactly the rows still in play.
                    prop_assert_eq!(
                        next.recheck_at().is_some(),
                        to == CommandState::Pending
                            || (to == CommandState::Sent && next.attempts < MAX_PUBLISHES)
                    );
                    // What never changes.
                    prop_assert_eq!(next.command_id, before.command_id);
                    prop_assert_eq!(&next.command, &before.command);
                    prop_assert_eq!(&next.payload, &before.payload);
                    prop_assert_eq!(next.created_at, before.created_at);
                    current = next;
                }
                // The state and its fields agree.
                let state = current.state().unwrap();
                prop_assert_eq!(current.result_status.is_some(), state == CommandState::Answered);
                prop_assert_eq!(current.answered_at.is_some(), state == CommandState::Answered);
                prop_assert_eq!(
                    current.undeliverable_reason.is_some(),
                    state == CommandState::Undeliverable
                );
                if state == CommandState::Sent {
                    prop_assert!(current.sent_at.is_some());
                }
                prop_assert_eq!(current.result_data().is_some(), state == CommandState::Answered);
            }
            prop_assert!(results <= 1);
        }
    }
}
