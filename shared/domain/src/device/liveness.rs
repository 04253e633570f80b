//! Device liveness: the judgement shown on every device row and the status
//! transitions driven by reports, last wills and the heartbeat sweep.
//!
//! | stored status | judged state |
//! |---|---|
//! | ONLINE, heard from within the window | `online` |
//! | ONLINE, silent past the window (or never heard from) | `not_heard_from` |
//! | OFFLINE | `offline` |
//! | PROVISIONING / DISABLED / AWAITING_REPLACEMENT | the same word in lower case |
//!
//! `not_heard_from` is the gap between the window elapsing and the heartbeat
//! sweep storing OFFLINE: [`on_heartbeat_expired`] fires under exactly the
//! same condition, so a device judged `not_heard_from` is one the next sweep
//! marks offline.
//!
//! "Silent past the window" means strictly more than `window_seconds` since
//! `lastSeen`; a device heard from exactly `window_seconds` ago is online.
//!
//! Transitions (each emits one platform event):
//!
//! | from | trigger | to | event |
//! |---|---|---|---|
//! | ONLINE | last will | OFFLINE | `device.offline`, reason `last-will` |
//! | ONLINE | heartbeat window elapsed | OFFLINE | `device.offline`, reason `heartbeat` |
//! | OFFLINE | any report | ONLINE | `device.online` |
//! | PROVISIONING | first report | ONLINE | `device.online` (decision: the spec leaves moves out of PROVISIONING open; a registered device that connects and reports has come online) |
//!
//! A message can arrive late (SQS redelivers, an operator replays a
//! dead-letter queue): [`on_report_sent`] and [`on_last_will_sent`] judge a
//! message by when it was sent, not when it arrived. A message older than
//! the newest one heard from the device moves nothing (its `lastSeen` stays
//! the newest), and a report older than the heartbeat window by the time
//! it arrives does not bring the device online (it shows the device was
//! alive then, not now).
//!
//! Everything else is no transition: DISABLED and AWAITING_REPLACEMENT
//! devices keep their status whatever they publish (their reports are still
//! recorded by the caller), a last will or sweep on an OFFLINE device changes
//! nothing, and a report from an ONLINE device only refreshes `lastSeen`.
//! Hence online and offline events alternate per device.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::enums::{DeviceStatus, LivenessState, OfflineReason};
use super::lenient::Lenient;

/// The heartbeat window used when none is configured: three missed
/// 30-second heartbeats.
pub const DEFAULT_HEARTBEAT_WINDOW_SECONDS: u32 = 90;

/// The spec's liveness object of a device row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Liveness {
    pub state: LivenessState,
    #[serde(with = "time::serde::rfc3339::option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub last_seen: Option<OffsetDateTime>,
    /// Whole seconds between `lastSeen` and the judgement (0 when `lastSeen`
    /// is ahead of the clock); null when the device was never heard from.
    #[cfg_attr(feature = "openapi", schema(minimum = 0))]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub seconds_since_last_seen: Option<u64>,
    /// The heartbeat window used for the judgement.
    pub window_seconds: u32,
}

/// Judges a device's liveness at `now` (see the module docs).
pub fn liveness(
    status: DeviceStatus,
    last_seen: Option<OffsetDateTime>,
    now: OffsetDateTime,
    window_seconds: u32,
) -> Liveness {
    let state = match status {
        DeviceStatus::Online if silent_past_window(last_seen, now, window_seconds) => {
            LivenessState::NotHeardFrom
        }
        DeviceStatus::Online => LivenessState::Online,
        DeviceStatus::Offline => LivenessState::Offline,
        DeviceStatus::Provisioning => LivenessState::Provisioning,
        DeviceStatus::Disabled => LivenessState::Disabled,
        DeviceStatus::AwaitingReplacement => LivenessState::AwaitingReplacement,
    };
    Liveness {
        state,
        last_seen,
        seconds_since_last_seen: last_seen.map(|seen| elapsed_seconds(seen, now)),
        window_seconds,
    }
}

/// [`liveness`] of a status read from the store. A status this build does
/// not know is judged `offline`: the platform never claims a device is
/// reachable when it cannot tell.
pub fn liveness_of_stored(
    status: &Lenient<DeviceStatus>,
    last_seen: Option<OffsetDateTime>,
    now: OffsetDateTime,
    window_seconds: u32,
) -> Liveness {
    liveness(
        status.known().unwrap_or(DeviceStatus::Offline),
        last_seen,
        now,
        window_seconds,
    )
}

/// A status change with the platform event it emits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Transition {
    /// -> ONLINE; emits `device.online`.
    Online,
    /// -> OFFLINE; emits `device.offline` with this reason.
    Offline(OfflineReason),
}

impl Transition {
    /// The status to store.
    pub fn next_status(self) -> DeviceStatus {
        match self {
            Transition::Online => DeviceStatus::Online,
            Transition::Offline(_) => DeviceStatus::Offline,
        }
    }

    /// The platform event kind it emits.
    pub fn event_type(self) -> &'static str {
        match self {
            Transition::Online => "device.online",
            Transition::Offline(_) => "device.offline",
        }
    }
}

/// The device published anything (on any channel): OFFLINE and PROVISIONING
/// devices come online. The caller also stores `lastSeen`.
pub fn on_report(status: DeviceStatus) -> Option<Transition> {
    match status {
        DeviceStatus::Offline | DeviceStatus::Provisioning => Some(Transition::Online),
        DeviceStatus::Online | DeviceStatus::Disabled | DeviceStatus::AwaitingReplacement => None,
    }
}

/// A report the device sent at `sent`, judged at `now` against the newest
/// message heard before it (`last_seen`): [`on_report`] if it is the newest
/// and still within the window, else no transition (module docs).
pub fn on_report_sent(
    status: DeviceStatus,
    last_seen: Option<OffsetDateTime>,
    sent: OffsetDateTime,
    now: OffsetDateTime,
    window_seconds: u32,
) -> Option<Transition> {
    let newest = last_seen.is_none_or(|seen| sent >= seen);
    let still_alive = !silent_past_window(Some(sent), now, window_seconds);
    (newest && still_alive).then(|| on_report(status)).flatten()
}

/// A last will sent at `sent`: [`on_last_will`] unless the device was
/// heard from after it (it reconnected; the will arrived late).
pub fn on_last_will_sent(
    status: DeviceStatus,
    last_seen: Option<OffsetDateTime>,
    sent: OffsetDateTime,
) -> Option<Transition> {
    let newest = last_seen.is_none_or(|seen| sent >= seen);
    newest.then(|| on_last_will(status)).flatten()
}

/// The `lastSeen` after a report sent at `sent`: the newer of the two.
pub fn last_seen_after(last_seen: Option<OffsetDateTime>, sent: OffsetDateTime) -> OffsetDateTime {
    last_seen.map_or(sent, |seen| seen.max(sent))
}

/// Whether a report sent at `sent` that moves no status must store the
/// device's `lastSeen`: when the stored one is half the heartbeat window or
/// more behind it. Telemetry stores `lastSeen` no more often than that (a
/// write saved per message), and a device still never looks silent: one
/// that reports at least every half window has a stored `lastSeen` less
/// than a whole window old whenever it is judged (and one that reports
/// less often stores every report). Reports of other channels always store
/// it.
pub fn last_seen_due(
    last_seen: Option<OffsetDateTime>,
    sent: OffsetDateTime,
    window_seconds: u32,
) -> bool {
    let half = time::Duration::milliseconds(i64::from(window_seconds) * 500);
    last_seen.is_none_or(|seen| sent - seen >= half)
}

/// The broker fired the device's last will (its connection dropped).
pub fn on_last_will(status: DeviceStatus) -> Option<Transition> {
    (status == DeviceStatus::Online).then_some(Transition::Offline(OfflineReason::LastWill))
}

/// The heartbeat sweep looked at the device at `now`: an ONLINE device silent
/// for more than `window_seconds` (or never heard from) goes offline.
pub fn on_heartbeat_expired(
    status: DeviceStatus,
    last_seen: Option<OffsetDateTime>,
    now: OffsetDateTime,
    window_seconds: u32,
) -> Option<Transition> {
    (status == DeviceStatus::Online && silent_past_window(last_seen, now, window_seconds))
        .then_some(Transition::Offline(OfflineReason::Heartbeat))
}

fn silent_past_window(
    last_seen: Option<OffsetDateTime>,
    now: OffsetDateTime,
    window_seconds: u32,
) -> bool {
    match last_seen {
        None => true,
        Some(seen) => now - seen > time::Duration::seconds(i64::from(window_seconds)),
    }
}

fn elapsed_seconds(seen: OffsetDateTime, now: OffsetDateTime) -> u64 {
    u64::try_from((now - seen).whole_seconds()).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use time::Duration;

    use super::*;

    proptest! {
        /// A device reporting at any steady interval shorter than the
        /// window, with `lastSeen` stored only when due, is never judged
        /// silent between its reports.
        #[test]
        fn a_device_storing_last_seen_when_due_never_looks_silent(
            window in 2u32..600,
            interval_ms in 1u64..600_000,
            reports in 1usize..200,
        ) {
            let interval = Duration::milliseconds(interval_ms as i64);
            prop_assume!(interval < Duration::seconds(i64::from(window)));
            let mut stored = Some(t0());
            let mut sent = t0();
            for _ in 0..reports {
                // Judged just before the next report arrives.
                let judged = liveness(DeviceStatus::Online, stored, sent + interval, window);
                prop_assert_eq!(judged.state, LivenessState::Online);
                sent += interval;
                if last_seen_due(stored, sent, window) {
                    stored = Some(sent);
                }
            }
        }
    }

    #[test]
    fn last_seen_is_due_at_half_the_window() {
        let seen = t0();
        assert!(last_seen_due(None, seen, 90));
        assert!(!last_seen_due(Some(seen), seen + Duration::seconds(44), 90));
        assert!(last_seen_due(Some(seen), seen + Duration::seconds(45), 90));
        assert!(
            !last_seen_due(Some(seen), seen - Duration::seconds(5), 90),
            "a late report"
        );
    }

    fn t0() -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(1_800_000_000).unwrap()
    }

    #[test]
    fn online_turns_not_heard_from_strictly_after_the_window() {
        let seen = t0();
        let at = |secs| {
            liveness(
                DeviceStatus::Online,
                Some(seen),
                seen + Duration::seconds(secs),
                60,
            )
        };
        assert_eq!(at(0).state, LivenessState::Online);
        assert_eq!(at(60).state, LivenessState::Online);
        assert_eq!(at(61).state, LivenessState::NotHeardFrom);
        let l = at(61);
        assert_eq!(l.seconds_since_last_seen, Some(61));
        assert_eq!(l.window_seconds, 60);
        assert_eq!(l.last_seen, Some(seen));
        // Sub-second silence past the window counts too.
        let l = liveness(
            DeviceStatus::Online,
            Some(seen),
            seen + Duration::milliseconds(60_001),
            60,
        );
        assert_eq!(l.state, LivenessState::NotHeardFrom);
        assert_eq!(l.seconds_since_last_seen, Some(60));
    }

    #[test]
    fn other_statuses_map_one_to_one_whatever_the_clock() {
        let long_ago = Some(t0() - Duration::days(30));
        for (status, state) in [
            (DeviceStatus::Offline, LivenessState::Offline),
            (DeviceStatus::Provisioning, LivenessState::Provisioning),
            (DeviceStatus::Disabled, LivenessState::Disabled),
            (
                DeviceStatus::AwaitingReplacement,
                LivenessState::AwaitingReplacement,
            ),
        ] {
            assert_eq!(liveness(status, long_ago, t0(), 60).state, state);
            assert_eq!(liveness(status, None, t0(), 60).state, state);
        }
    }

    #[test]
    fn never_heard_from_and_clock_skew() {
        let l = liveness(DeviceStatus::Online, None, t0(), 60);
        assert_eq!(l.state, LivenessState::NotHeardFrom);
        assert_eq!(l.seconds_since_last_seen, None);
        // lastSeen ahead of the clock: zero seconds, online.
        let l = liveness(
            DeviceStatus::Online,
            Some(t0() + Duration::seconds(5)),
            t0(),
            60,
        );
        assert_eq!(l.state, LivenessState::Online);
        assert_eq!(l.seconds_since_last_seen, Some(0));
    }

    #[test]
    fn unknown_stored_status_is_judged_offline() {
        let l = liveness_of_stored(&Lenient::Unknown("SLEEPING".into()), None, t0(), 60);
        assert_eq!(l.state, LivenessState::Offline);
        let l = liveness_of_stored(&DeviceStatus::Disabled.into(), None, t0(), 60);
        assert_eq!(l.state, LivenessState::Disabled);
    }

    #[test]
    fn liveness_serializes_as_the_spec_names_it() {
        let l = liveness(
            DeviceStatus::Online,
            Some(t0()),
            t0() + Duration::seconds(3),
            90,
        );
        let v = serde_json::to_value(&l).unwrap();
        assert_eq!(
            v,
            serde_json::json!({
                "state": "online",
                "lastSeen": "2027-01-15T08:00:00Z",
                "secondsSinceLastSeen": 3,
                "windowSeconds": 90
            })
        );
        let v = serde_json::to_value(liveness(DeviceStatus::Provisioning, None, t0(), 90)).unwrap();
        assert_eq!(v["lastSeen"], serde_json::Value::Null);
        assert_eq!(v["secondsSinceLastSeen"], serde_json::Value::Null);
        assert_eq!(
            serde_json::from_value::<Liveness>(v)
                .unwrap()
                .window_seconds,
            90
        );
    }

    #[test]
    fn the_spec_table() {
        assert_eq!(
            on_last_will(DeviceStatus::Online),
            Some(Transition::Offline(OfflineReason::LastWill))
        );
        assert_eq!(
            on_heartbeat_expired(
                DeviceStatus::Online,
                Some(t0()),
                t0() + Duration::seconds(91),
                90
            ),
            Some(Transition::Offline(OfflineReason::Heartbeat))
        );
        assert_eq!(
            on_heartbeat_expired(
                DeviceStatus::Online,
                Some(t0()),
                t0() + Duration::seconds(90),
                90
            ),
            None
        );
        assert_eq!(on_report(DeviceStatus::Offline), Some(Transition::Online));
        assert_eq!(
            on_report(DeviceStatus::Provisioning),
            Some(Transition::Online)
        );
        for status in [
            DeviceStatus::Offline,
            DeviceStatus::Provisioning,
            DeviceStatus::Disabled,
            DeviceStatus::AwaitingReplacement,
        ] {
            assert_eq!(on_last_will(status), None, "{status}");
            assert_eq!(
                on_heartbeat_expired(status, None, t0(), 1),
                None,
                "{status}"
            );
        }
        for status in [
            DeviceStatus::Online,
            DeviceStatus::Disabled,
            DeviceStatus::AwaitingReplacement,
        ] {
            assert_eq!(on_report(status), None, "{status}");
        }
        assert_eq!(Transition::Online.next_status(), DeviceStatus::Online);
        assert_eq!(Transition::Online.event_type(), "device.online");
        let offline = Transition::Offline(OfflineReason::Heartbeat);
        assert_eq!(offline.next_status(), DeviceStatus::Offline);
        assert_eq!(offline.event_type(), "device.offline");
    }

    #[derive(Debug, Clone)]
    enum Input {
        Report,
        LastWill,
        Sweep,
    }

    fn input() -> impl Strategy<Value = (Input, u32)> {
        (
            prop_oneof![
                Just(Input::Report),
                Just(Input::LastWill),
                Just(Input::Sweep)
            ],
            // Gaps around the window, so both sides of it are exercised.
            prop_oneof![0u32..5, 55u32..65, 0u32..600],
        )
    }

    fn any_status() -> impl Strategy<Value = DeviceStatus> {
        proptest::sample::select(DeviceStatus::ALL.to_vec())
    }

    proptest! {
        /// Whatever happens in whatever order, online and offline events
        /// alternate, the stored status is the last transition's, and the
        /// judged liveness agrees with the sweep.
        #[test]
        fn events_alternate_and_status_follows_the_last_transition(
            start in any_status(),
            start_seen in proptest::option::of(0i64..120),
            inputs in proptest::collection::vec(input(), 0..60),
            window in 1u32..120,
        ) {
            let mut status = start;
            let mut now = t0();
            let mut last_seen = start_seen.map(|ago| now - Duration::seconds(ago));
            let mut last: Option<Transition> = None;
            for (input, gap) in inputs {
                now += Duration::seconds(i64::from(gap));
                // What the judgement says just before the input arrives.
                let judged = liveness(status, last_seen, now, window).state;
                let transition = match input {
                    Input::Report => {
                        last_seen = Some(now);
                        on_report(status)
                    }
                    Input::LastWill => on_last_will(status),
                    Input::Sweep => {
                        let t = on_heartbeat_expired(status, last_seen, now, window);
                        prop_assert_eq!(t.is_some(), judged == LivenessState::NotHeardFrom);
                        t
                    }
                };
                if let Some(t) = transition {
                    let same_kind = matches!(
                        (last, t),
                        (Some(Transition::Online), Transition::Online)
                            | (Some(Transition::Offline(_)), Transition::Offline(_))
                    );
                    prop_assert!(!same_kind, "two {} in a row", t.event_type());
                    prop_assert_ne!(t.next_status(), status, "a transition changes the status");
                    status = t.next_status();
                    last = Some(t);
                }
                if let Some(t) = last {
                    prop_assert_eq!(status, t.next_status());
                } else {
                    prop_assert_eq!(status, start);
                }
                // Disabled and awaiting-replacement devices never move.
                if matches!(start, DeviceStatus::Disabled | DeviceStatus::AwaitingReplacement) {
                    prop_assert_eq!(status, start);
                }
                // The judgement right after a report is never a silent one.
                if matches!(input, Input::Report) && status == DeviceStatus::Online {
                    prop_assert_eq!(
                        liveness(status, last_seen, now, window).state,
                        LivenessState::Online
                    );
                }
            }
        }
    }

    #[test]
    fn a_late_report_moves_nothing_back() {
        let seen = t0();
        let earlier = seen - Duration::seconds(5);
        assert_eq!(last_seen_after(Some(seen), earlier), seen);
        assert_eq!(last_seen_after(Some(earlier), seen), seen);
        assert_eq!(last_seen_after(None, earlier), earlier);
        // An offline device does not come online for a message older than
        // the newest heard, nor for one older than its window by now.
        let now = seen + Duration::seconds(10);
        assert_eq!(
            on_report_sent(DeviceStatus::Offline, Some(seen), earlier, now, 60),
            None
        );
        assert_eq!(
            on_report_sent(
                DeviceStatus::Offline,
                Some(seen),
                seen + Duration::seconds(1),
                seen + Duration::seconds(120),
                60
            ),
            None
        );
        assert_eq!(
            on_report_sent(DeviceStatus::Offline, Some(seen), seen, now, 60),
            Some(Transition::Online)
        );
    }

    #[test]
    fn a_last_will_older_than_the_newest_report_is_ignored() {
        let seen = t0();
        assert_eq!(
            on_last_will_sent(
                DeviceStatus::Online,
                Some(seen),
                seen - Duration::seconds(1)
            ),
            None
        );
        assert_eq!(
            on_last_will_sent(DeviceStatus::Online, Some(seen), seen),
            Some(Transition::Offline(OfflineReason::LastWill))
        );
    }

    proptest! {
        /// Whatever order a device's messages arrive in, `lastSeen` ends at
        /// the newest one sent, and no message older than one already
        /// applied changes the status.
        #[test]
        fn any_arrival_order_keeps_the_newest(offsets in proptest::collection::vec(0i64..600, 1..20)) {
            let mut last_seen = None;
            let mut status = DeviceStatus::Offline;
            let mut newest_applied: Option<OffsetDateTime> = None;
            for offset in &offsets {
                let sent = t0() + Duration::seconds(*offset);
                let now = t0() + Duration::seconds(600);
                let transition = on_report_sent(status, last_seen, sent, now, 60);
                if transition.is_some() {
                    prop_assert!(newest_applied.is_none_or(|n| sent >= n));
                    status = transition.unwrap().next_status();
                }
                last_seen = Some(last_seen_after(last_seen, sent));
                newest_applied = last_seen;
            }
            let newest = offsets.iter().max().copied().unwrap();
            prop_assert_eq!(last_seen, Some(t0() + Duration::seconds(newest)));
        }
    }
}
