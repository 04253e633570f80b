//! Guest stays, managed by reservation key (`/guests/{reservationKey}`): a
//! guest's stay in one home, from check-in to check-out, as a plain model.
//!
//! A stay is `invited` while the guest has not accepted the invitation,
//! `member` once they hold the grant, and `checked-out` for good (a returning
//! guest needs a new stay). The stay sweep (every minute) marks the check-in
//! once when its time has passed and checks the guest out once the check-out
//! time has passed; the household (or a booking system with `guests:write`) can
//! check a guest out at any time. New dates for an open stay move it; the same
//! dates change nothing. The store keeps this state in conditional writes on
//! the stay's revision (`alyt-stays`), so two sweeps at once never check in or
//! out twice.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

/// Where a stay stands (what `GET /guests/{reservationKey}` answers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "kebab-case")]
pub enum StayState {
    /// An invitation waits for the guest.
    Invited,
    /// The guest holds the grant.
    Member,
    /// The stay is over (checked out, or ended by the household).
    CheckedOut,
}

/// A stay's window: check-in strictly before check-out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StayWindow {
    pub check_in: OffsetDateTime,
    pub check_out: OffsetDateTime,
}

/// Why a stay's dates are refused: the request field and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {detail}")]
pub struct WindowProblem {
    pub field: &'static str,
    pub detail: &'static str,
}

impl StayWindow {
    /// A window a new or moved stay may have at `now`: it ends in the future
    /// and starts before it ends.
    pub fn checked(
        check_in: OffsetDateTime,
        check_out: OffsetDateTime,
        now: OffsetDateTime,
    ) -> Result<Self, WindowProblem> {
        if check_out <= now {
            return Err(WindowProblem {
                field: "checkOut",
                detail: "the stay must end in the future",
            });
        }
        if check_in >= check_out {
            return Err(WindowProblem {
                field: "checkIn",
                detail: "the stay must start before it ends",
            });
        }
        Ok(Self {
            check_in,
            check_out,
        })
    }

    /// Whether the guest's claims mention the home at `now` (to the second:
    /// from check-in, up to but not including check-out).
    pub fn contains(&self, now: OffsetDateTime) -> bool {
        self.check_in <= now && now < self.check_out
    }
}

/// One stay as the rules see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stay {
    pub state: StayState,
    pub window: StayWindow,
    /// When the sweep marked the check-in (once).
    pub checked_in_at: Option<OffsetDateTime>,
}

/// What the stay sweep does with a stay at a given time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SweepStep {
    /// Mark the check-in (emits guest.checked_in).
    CheckIn,
    /// Check the guest out (sessions and widget tokens revoked first; emits
    /// guest.checked_out).
    CheckOut,
}

/// What new dates do to an open stay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DatesChange {
    /// The same dates: the existing stay is the answer.
    Same,
    /// The stay moved to the new dates.
    Moved,
}

/// A change refused because the stay is over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the stay is over; a returning guest needs a new stay")]
pub struct StayOver;

impl Stay {
    /// A new stay: `member` when the guest already holds an account the
    /// grant can go to, `invited` otherwise.
    pub fn opened(window: StayWindow, has_verified_account: bool) -> Self {
        Self {
            state: if has_verified_account {
                StayState::Member
            } else {
                StayState::Invited
            },
            window,
            checked_in_at: None,
        }
    }

    /// When the sweep has something to do with this stay next; `None` once
    /// it is over.
    pub fn due_at(&self) -> Option<OffsetDateTime> {
        match self.state {
            StayState::CheckedOut => None,
            _ if self.checked_in_at.is_none() => Some(self.window.check_in),
            _ => Some(self.window.check_out),
        }
    }

    /// What the sweep does at `now`: the check-in first (a sweep that comes
    /// late still announces it before the check-out), then the check-out.
    pub fn sweep(&self, now: OffsetDateTime) -> Option<SweepStep> {
        match self.due_at() {
            Some(due) if due <= now && self.checked_in_at.is_none() => Some(SweepStep::CheckIn),
            Some(due) if due <= now => Some(SweepStep::CheckOut),
            _ => None,
        }
    }

    /// Applies a sweep step taken at `now`.
    pub fn apply(&mut self, step: SweepStep, now: OffsetDateTime) {
        match step {
            SweepStep::CheckIn => self.checked_in_at = Some(now),
            SweepStep::CheckOut => self.state = StayState::CheckedOut,
        }
    }

    /// The invited guest accepted: they hold the grant now.
    pub fn accepted(&mut self) -> Result<(), StayOver> {
        match self.state {
            StayState::CheckedOut => Err(StayOver),
            _ => {
                self.state = StayState::Member;
                Ok(())
            }
        }
    }

    /// New dates (already [checked](StayWindow::checked)) for the stay.
    /// A check-in already marked stays marked.
    pub fn change_dates(&mut self, window: StayWindow) -> Result<DatesChange, StayOver> {
        if self.state == StayState::CheckedOut {
            return Err(StayOver);
        }
        if window == self.window {
            return Ok(DatesChange::Same);
        }
        self.window = window;
        Ok(DatesChange::Moved)
    }

    /// Checked out now, by the household or the booking system (the same
    /// answer again once it is over).
    pub fn check_out(&mut self) -> bool {
        let was_open = self.state != StayState::CheckedOut;
        self.state = StayState::CheckedOut;
        was_open
    }
}

/// The data of `guest.invited`, `guest.checked_in` and `guest.checked_out`
/// (payloads the spec leaves to us): the stay by its reservation key, its
/// home and window, and the state it is in after the event. No address:
/// every subscriber of the tenant hears it, and the booking system knows
/// its guest by the key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct GuestStayData {
    pub reservation_key: String,
    pub client_id: crate::ids::ClientId,
    pub property_id: crate::ids::PropertyId,
    /// `invited` or `member` (guest.invited, guest.checked_in),
    /// `checked-out` (guest.checked_out).
    pub state: StayState,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub check_in: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub check_out: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub at: OffsetDateTime,
}

/// The kind of `notification.raised` a stay's end raises.
pub const KIND_STAY_ENDED: &str = "stay.ended";

/// Why a stay ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StayEnd {
    /// Its check-out time passed (the stay sweep).
    CheckOutTime,
    /// The household's owner (or staff) checked the guest out.
    Household,
    /// A booking system checked the guest out with its key.
    BookingSystem,
    /// The guest became an owner or member of the household: the stay is
    /// over, their access is not.
    BecameResident,
}

impl StayEnd {
    fn words(self) -> &'static str {
        match self {
            StayEnd::CheckOutTime => "its check-out time passed",
            StayEnd::Household => "the household checked the guest out",
            StayEnd::BookingSystem => "the booking system checked the guest out",
            StayEnd::BecameResident => "the guest became a resident of the household",
        }
    }
}

/// Title and body of the household's notification (and the audit entry's
/// text) when a stay ends; `guest` is a masked address.
pub fn ended_notice(guest: &str, home: &str, end: StayEnd) -> (String, String) {
    let after = match end {
        StayEnd::BecameResident => "They keep their access.",
        _ => "Their access ended and their sessions were signed out.",
    };
    (
        format!("{guest} checked out of {home}"),
        format!(
            "The stay of {guest} at {home} ended: {}. {after}",
            end.words()
        ),
    )
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use time::Duration;

    use super::*;

    fn at(hours: i64) -> OffsetDateTime {
        OffsetDateTime::UNIX_EPOCH + Duration::days(20_000) + Duration::hours(hours)
    }

    #[test]
    fn windows_end_in_the_future_and_start_before_they_end() {
        let now = at(0);
        assert!(StayWindow::checked(at(-1), at(1), now).is_ok());
        assert_eq!(
            StayWindow::checked(at(-2), at(0), now).unwrap_err().field,
            "checkOut"
        );
        assert_eq!(
            StayWindow::checked(at(2), at(2), now).unwrap_err().field,
            "checkIn"
        );
    }

    #[test]
    fn the_window_holds_to_the_second() {
        let window = StayWindow::checked(at(1), at(5), at(0)).unwrap();
        let second = Duration::seconds(1);
        assert!(!window.contains(at(1) - second));
        assert!(window.contains(at(1)));
        assert!(window.contains(at(1) + second));
        assert!(window.contains(at(5) - second));
        assert!(!window.contains(at(5)));
        assert!(!window.contains(at(5) + second));
    }

    #[test]
    fn the_sweep_checks_in_then_out() {
        let window = StayWindow::checked(at(1), at(5), at(0)).unwrap();
        let mut stay = Stay::opened(window, false);
        assert_eq!(stay.sweep(at(0)), None);
        assert_eq!(stay.sweep(at(6)), Some(SweepStep::CheckIn));
        stay.apply(SweepStep::CheckIn, at(6));
        assert_eq!(stay.sweep(at(6)), Some(SweepStep::CheckOut));
        stay.apply(SweepStep::CheckOut, at(6));
        assert_eq!(stay.sweep(at(100)), None);
        assert_eq!(stay.change_dates(window), Err(StayOver));
        assert_eq!(stay.accepted(), Err(StayOver));
    }

    #[derive(Debug, Clone)]
    enum Move {
        Wait(i64),
        Sweep,
        Accept,
        NewDates(i64, i64),
        CheckOut,
    }

    fn moves() -> impl Strategy<Value = Vec<Move>> {
        proptest::collection::vec(
            prop_oneof![
                (0i64..30).prop_map(Move::Wait),
                Just(Move::Sweep),
                Just(Move::Accept),
                (-5i64..40, 1i64..40).prop_map(|(s, len)| Move::NewDates(s, len)),
                Just(Move::CheckOut),
            ],
            0..40,
        )
    }

    proptest! {
        /// Whatever happens: the sweep announces the check-in at most once and
        /// never after the check-out, checks out at most once and only past
        /// the check-out time, and nothing moves a stay that is over.
        #[test]
        fn check_in_and_out_happen_once_in_order(
            verified in any::<bool>(),
            moves in moves(),
        ) {
            let mut now = at(0);
            let window = StayWindow::checked(at(2), at(10), now).unwrap();
            let mut stay = Stay::opened(window, verified);
            let (mut checked_in, mut checked_out) = (0, 0);
            for m in moves {
                match m {
                    Move::Wait(hours) => now += Duration::hours(hours),
                    Move::Sweep => {
                        while let Some(step) = stay.sweep(now) {
                            match step {
                                SweepStep::CheckIn => {
                                    prop_assert!(stay.window.check_in <= now);
                                    checked_in += 1;
                                }
                                SweepStep::CheckOut => {
                                    prop_assert!(stay.window.check_out <= now);
                                    prop_assert_eq!(checked_in, 1, "checked in before out");
                                    checked_out += 1;
                                }
                            }
                            stay.apply(step, now);
                        }
                    }
                    Move::Accept => {
                        let was_over = stay.state == StayState::CheckedOut;
                        prop_assert_eq!(stay.accepted().is_err(), was_over);
                    }
                    Move::NewDates(start, len) => {
                        let before = stay.clone();
                        if let Ok(window) = StayWindow::checked(now + Duration::hours(start), now + Duration::hours(start + len), now) {
                            match stay.change_dates(window) {
                                Ok(_) => prop_assert_ne!(before.state, StayState::CheckedOut),
                                Err(StayOver) => prop_assert_eq!(&stay, &before),
                            }
                        }
                    }
                    Move::CheckOut => {
                        if stay.check_out() {
                            checked_out += 1;
                        }
                    }
                }
                prop_assert!(checked_in <= 1 && checked_out <= 1);
                if stay.state == StayState::CheckedOut {
                    prop_assert_eq!(stay.due_at(), None);
                }
            }
        }
    }
}
