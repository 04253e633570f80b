//! Invitations: the life of an invitation's link (one use, 7 days), as a
//! plain model.
//!
//! An invitation is pending until it is accepted or withdrawn. Its link is
//! the newest token issued for it: a resend issues a new token (the old one
//! dies) and gives it a fresh 7 days, so an owner can revive an invitation
//! whose link ran out. A link works once, within its 7 days, while the
//! invitation is pending; every other link is dead, and a dead link never
//! says why (unknown, spent, withdrawn and expired answer alike).
//!
//! The store keeps this state in conditional writes (`repo::invitations`):
//! the token item exists only while its link is live, and accepting deletes
//! it in the transaction that makes the grant, so of many concurrent accepts
//! exactly one wins. A property test there drives the repository with the
//! same moves as this model and compares every answer.

use time::{Duration, OffsetDateTime};

/// How long a link works after it was sent.
pub const LINK_LIFETIME: Duration = Duration::days(7);

/// Where an invitation stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InvitationStatus {
    Pending,
    Accepted,
    Withdrawn,
}

/// A refused move on an invitation that is no longer pending.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the invitation was already accepted or withdrawn")]
pub struct NotPending;

/// A link that does not work: unknown, spent, withdrawn or expired (one
/// answer for all four).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("this invitation link is no longer valid")]
pub struct DeadLink;

/// One invitation's link state: which token is current (tokens are counted
/// from 0, the first send) and until when it works.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvitationLink {
    pub status: InvitationStatus,
    /// The generation of the only token that can work.
    pub token: u32,
    pub link_expires_at: OffsetDateTime,
}

impl InvitationLink {
    /// A new invitation, its first link sent at `now`.
    pub fn sent(now: OffsetDateTime) -> Self {
        Self {
            status: InvitationStatus::Pending,
            token: 0,
            link_expires_at: now + LINK_LIFETIME,
        }
    }

    /// Whether token `token` opens the invitation at `now`.
    pub fn is_live(&self, token: u32, now: OffsetDateTime) -> bool {
        self.status == InvitationStatus::Pending
            && token == self.token
            && now < self.link_expires_at
    }

    /// Accepting with token `token` at `now`: works once.
    pub fn accept(&mut self, token: u32, now: OffsetDateTime) -> Result<(), DeadLink> {
        if !self.is_live(token, now) {
            return Err(DeadLink);
        }
        self.status = InvitationStatus::Accepted;
        Ok(())
    }

    /// A new link (the old one dies) valid for 7 days from `now`, whether or
    /// not the old one had run out. Returns the new token's generation.
    pub fn resend(&mut self, now: OffsetDateTime) -> Result<u32, NotPending> {
        if self.status != InvitationStatus::Pending {
            return Err(NotPending);
        }
        self.token += 1;
        self.link_expires_at = now + LINK_LIFETIME;
        Ok(self.token)
    }

    /// Withdrawing: every link of the invitation dies.
    pub fn withdraw(&mut self) -> Result<(), NotPending> {
        if self.status != InvitationStatus::Pending {
            return Err(NotPending);
        }
        self.status = InvitationStatus::Withdrawn;
        Ok(())
    }
}

/// What a pending invitation looks like to the people who manage the
/// household: waiting, or its link ran out (resend it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "kebab-case")]
pub enum PendingState {
    Waiting,
    LinkExpired,
}

impl PendingState {
    pub fn at(link_expires_at: OffsetDateTime, now: OffsetDateTime) -> Self {
        if now < link_expires_at {
            PendingState::Waiting
        } else {
            PendingState::LinkExpired
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn epoch() -> OffsetDateTime {
        OffsetDateTime::UNIX_EPOCH + Duration::days(20_000)
    }

    #[test]
    fn a_link_works_once_within_seven_days() {
        let now = epoch();
        let mut link = InvitationLink::sent(now);
        assert!(link.is_live(0, now + LINK_LIFETIME - Duration::seconds(1)));
        assert!(!link.is_live(0, now + LINK_LIFETIME));
        assert_eq!(link.accept(0, now + Duration::days(1)), Ok(()));
        assert_eq!(link.accept(0, now + Duration::days(1)), Err(DeadLink));
        assert_eq!(link.resend(now), Err(NotPending));
        assert_eq!(link.withdraw(), Err(NotPending));
    }

    #[test]
    fn a_resend_kills_the_old_link_and_revives_an_expired_invitation() {
        let now = epoch();
        let mut link = InvitationLink::sent(now);
        let later = now + Duration::days(8);
        assert!(!link.is_live(0, later));
        assert_eq!(link.resend(later), Ok(1));
        assert!(!link.is_live(0, later));
        assert!(link.is_live(1, later));
        assert_eq!(link.accept(0, later), Err(DeadLink));
        assert_eq!(link.withdraw(), Ok(()));
        assert_eq!(link.accept(1, later), Err(DeadLink));
    }

    #[test]
    fn pending_invitations_show_whether_their_link_ran_out() {
        let now = epoch();
        assert_eq!(
            PendingState::at(now + Duration::seconds(1), now),
            PendingState::Waiting
        );
        assert_eq!(PendingState::at(now, now), PendingState::LinkExpired);
    }

    #[derive(Debug, Clone)]
    enum Move {
        Accept { token: u32 },
        Resend,
        Withdraw,
        Wait { hours: i64 },
    }

    fn moves() -> impl Strategy<Value = Vec<Move>> {
        proptest::collection::vec(
            prop_oneof![
                (0u32..4).prop_map(|token| Move::Accept { token }),
                Just(Move::Resend),
                Just(Move::Withdraw),
                (0i64..200).prop_map(|hours| Move::Wait { hours }),
            ],
            0..30,
        )
    }

    proptest! {
        /// Whatever happens to an invitation: at most one accept succeeds,
        /// only with the newest token, only within 7 days of its sending,
        /// and never after a withdrawal.
        #[test]
        fn at_most_one_accept_with_the_newest_live_link(moves in moves()) {
            let mut now = epoch();
            let mut link = InvitationLink::sent(now);
            let mut sent_at = now;
            let mut accepted = 0;
            let mut withdrawn = false;
            for m in moves {
                match m {
                    Move::Accept { token } => {
                        let newest = token == link.token;
                        let fresh = now < sent_at + LINK_LIFETIME;
                        match link.accept(token, now) {
                            Ok(()) => {
                                accepted += 1;
                                prop_assert!(newest && fresh && !withdrawn);
                            }
                            Err(DeadLink) => {
                                prop_assert!(!newest || !fresh || withdrawn || accepted > 0);
                            }
                        }
                    }
                    Move::Resend => {
                        if link.resend(now).is_ok() {
                            sent_at = now;
                        } else {
                            prop_assert!(withdrawn || accepted > 0);
                        }
                    }
                    Move::Withdraw => {
                        if link.withdraw().is_ok() {
                            withdrawn = true;
                        } else {
                            prop_assert!(withdrawn || accepted > 0);
                        }
                    }
                    Move::Wait { hours } => now += Duration::hours(hours),
                }
                prop_assert!(accepted <= 1);
            }
        }
    }
}
