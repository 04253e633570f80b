//! Guest stays over time: what opening a stay records, the check-in the sweep
//! (every minute) marks once, and the check-out (by the sweep at check-out
//! time, or now by the household or a booking system).
//!
//! A check-out signs the guest out first (their sessions and their widget
//! tokens), then, in one transaction conditioned on the stay
//! as read: the stay becomes `checked-out`, the guest's grant (or the
//! invitation still waiting) is removed through `repo::members` (or
//! `repo::invitations`), the household's notification, an audit entry and
//! `guest.checked_out`. A check-out that fails after the sign-out is tried
//! again by the next sweep (the stay is still due) and finishes; two sweeps
//! at once move a stay once (the loser's transaction fails on the revision),
//! so no event is ever raised twice.
//!
//! The API (household and booking operations) and both runtimes' sweeps
//! (the local periodic task, the hosted sweeps Lambda) call this crate; it
//! knows the store and the event log, not HTTP.

use std::sync::Arc;

use alyt_domain::Clock;
use alyt_domain::access::HouseholdRole;
use alyt_domain::ids::UserId;
use alyt_domain::membership::mask_email;
use alyt_domain::stay::{
    GuestStayData, KIND_STAY_ENDED, StayEnd, StayState, SweepStep, ended_notice,
};
use alyt_events::{EventLog, PlatformEvent};
use alyt_store::repo::audit::{AuditRecord, KIND_GUEST_CHECKED_OUT, audit_write};
use alyt_store::repo::identity::Sessions;
use alyt_store::repo::invitations::{Invitations, withdraw_writes};
use alyt_store::repo::members::{MemberError, Members};
use alyt_store::repo::notifications::{NotificationRecord, notification_item};
use alyt_store::repo::stays::{StayRecord, Stays, change_write, open_write};
use alyt_store::repo::tenancy::Tenancy;
use alyt_store::repo::widgets::Widgets;
use alyt_store::{Store, StoreError, TxWrite};
use time::OffsetDateTime;
use uuid::Uuid;

/// How often the stay sweep runs. Hosted, the sweeps Lambda runs it on each
/// of its once-a-minute invocations.
pub const SWEEP_INTERVAL: std::time::Duration = std::time::Duration::from_secs(60);

/// How many due stays one sweep page reads.
const SWEEP_PAGE: u32 = 100;
/// Pages one sweep reads at most (a stay that keeps failing stays due and
/// waits for the next sweep rather than holding this one).
const SWEEP_PAGES: usize = 10;

/// What a move of a stay came to.
#[derive(Debug, Clone, PartialEq)]
pub enum Moved {
    /// The stay as it is now.
    Done(Box<StayRecord>),
    /// Someone else moved it first (another sweep, a check-out): nothing
    /// was written by this call.
    Raced,
}

/// What one sweep did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SweepReport {
    pub due: u32,
    pub checked_in: u32,
    pub checked_out: u32,
    pub raced: u32,
    /// Stays whose move failed on a store error (they stay due).
    pub failed: u32,
}

/// The data of a guest event about `stay`, at `at`.
pub fn event_data(stay: &StayRecord, at: OffsetDateTime) -> GuestStayData {
    GuestStayData {
        reservation_key: stay.reservation_key.clone(),
        client_id: stay.client_id,
        property_id: stay.property_id,
        state: stay.state,
        check_in: stay.check_in,
        check_out: stay.check_out,
        at,
    }
}

/// Guest stays over the store, on a clock.
#[derive(Clone)]
pub struct GuestStays {
    pub store: Arc<dyn Store>,
    pub clock: Arc<dyn Clock>,
}

impl GuestStays {
    pub fn new(store: Arc<dyn Store>, clock: Arc<dyn Clock>) -> Self {
        Self { store, clock }
    }

    fn log(&self) -> EventLog {
        EventLog::new(self.store.clone(), self.clock.clone())
    }

    /// The writes that open `stay` (state `invited` or `member`) and raise
    /// `guest.invited`, for the transaction that makes its grant or its
    /// invitation.
    pub fn opened_writes(&self, stay: &StayRecord) -> Result<Vec<TxWrite>, StoreError> {
        let mut writes = vec![open_write(stay)?];
        writes.extend(self.log().writes(
            stay.tenant_id,
            Some(stay.property_id),
            vec![PlatformEvent::GuestInvited(event_data(
                stay,
                self.clock.now(),
            ))],
        )?);
        Ok(writes)
    }

    /// Marks the check-in of `read` (once): `guest.checked_in`.
    pub async fn check_in(&self, read: &StayRecord) -> Result<Moved, StoreError> {
        let now = self.clock.now();
        let mut stay = read.stay();
        if stay.checked_in_at.is_some() || stay.state == StayState::CheckedOut {
            return Ok(Moved::Raced);
        }
        stay.apply(SweepStep::CheckIn, now);
        let next = read.with(&stay, now);
        let mut writes = vec![change_write(read, &next)?];
        writes.extend(self.log().writes(
            read.tenant_id,
            Some(read.property_id),
            vec![PlatformEvent::GuestCheckedIn(event_data(&next, now))],
        )?);
        match self.store.transact(writes).await {
            Ok(()) => Ok(Moved::Done(Box::new(next))),
            Err(e) if e.is_condition_failure() => Ok(Moved::Raced),
            Err(e) => Err(e),
        }
    }

    /// Checks the guest of `read` out now (see the crate's documentation).
    /// A stay that is already over is answered as it is.
    pub async fn check_out(
        &self,
        read: &StayRecord,
        end: StayEnd,
        actor: Option<UserId>,
    ) -> Result<Moved, StoreError> {
        let now = self.clock.now();
        let mut stay = read.stay();
        if !stay.check_out() {
            return Ok(Moved::Done(Box::new(read.clone())));
        }
        let next = read.with(&stay, now);
        // Signed out first: nothing the guest holds outlives the stay.
        if let (StayState::Member, Some(user)) = (read.state, read.user_id) {
            Sessions(&*self.store).end_stay_of(user).await?;
            Widgets(&*self.store)
                .revoke_all_of(read.client_id, user)
                .await?;
        }
        let mut writes = vec![change_write(read, &next)?];
        writes.extend(self.ended_writes(read, &next, end, actor, now).await?);
        let members = Members(&*self.store);
        let grant = match (read.state, read.user_id) {
            (StayState::Member, Some(user)) => {
                members.get(read.client_id, user).await?.filter(|g| {
                    g.role == HouseholdRole::Guest
                        && g.reservation_key.as_deref() == Some(read.reservation_key.as_str())
                })
            }
            _ => None,
        };
        if let Some(grant) = grant {
            return match members.remove(&grant, writes).await {
                Ok(()) => Ok(Moved::Done(Box::new(next))),
                Err(MemberError::Refused { .. } | MemberError::NotMember) => Ok(Moved::Raced),
                Err(MemberError::Store(e)) => Err(e),
                Err(e) => Err(StoreError::Unavailable(e.to_string())),
            };
        }
        if let (StayState::Invited, Some(id)) = (read.state, read.invitation_id)
            && let Some(invitation) = Invitations(&*self.store).get(read.client_id, id).await?
        {
            writes.extend(withdraw_writes(&invitation));
        }
        match self.store.transact(writes).await {
            Ok(()) => Ok(Moved::Done(Box::new(next))),
            Err(e) if e.is_condition_failure() => Ok(Moved::Raced),
            Err(e) => Err(e),
        }
    }

    /// The writes that end the stay `read` for a guest who keeps their
    /// access (they became an owner or member), for the transaction that
    /// changes their grant: the stay (as read) over, the household's
    /// notification, the audit entry and `guest.checked_out`.
    pub async fn closed_writes(
        &self,
        read: &StayRecord,
        actor: Option<UserId>,
    ) -> Result<Vec<TxWrite>, StoreError> {
        let now = self.clock.now();
        let mut stay = read.stay();
        stay.check_out();
        let next = read.with(&stay, now);
        let mut writes = vec![change_write(read, &next)?];
        writes.extend(
            self.ended_writes(read, &next, StayEnd::BecameResident, actor, now)
                .await?,
        );
        Ok(writes)
    }

    /// The household's notification, the audit entry and the events of the
    /// end of a stay.
    async fn ended_writes(
        &self,
        read: &StayRecord,
        next: &StayRecord,
        end: StayEnd,
        actor: Option<UserId>,
        now: OffsetDateTime,
    ) -> Result<Vec<TxWrite>, StoreError> {
        let home = Tenancy(&*self.store)
            .property(read.tenant_id, read.property_id)
            .await?
            .map_or_else(|| "the home".to_owned(), |h| h.name);
        let (title, body) = ended_notice(&mask_email(&read.email), &home, end);
        let notification = NotificationRecord {
            id: Uuid::new_v4(),
            tenant_id: read.tenant_id,
            property_id: Some(read.property_id),
            client_id: Some(read.client_id),
            kind: KIND_STAY_ENDED.to_owned(),
            title,
            body: body.clone(),
            device_id: None,
            at: now,
        };
        let audit = AuditRecord {
            id: Uuid::new_v4(),
            tenant_id: read.tenant_id,
            client_id: read.client_id,
            property_id: Some(read.property_id),
            kind: KIND_GUEST_CHECKED_OUT.to_owned(),
            actor,
            subject: read.user_id,
            reservation_key: Some(read.reservation_key.clone()),
            detail: body,
            at: now,
        };
        let mut writes = vec![
            TxWrite::Put {
                item: notification_item(&notification)?,
                condition: None,
            },
            audit_write(&audit)?,
        ];
        writes.extend(self.log().writes(
            read.tenant_id,
            Some(read.property_id),
            vec![
                PlatformEvent::NotificationRaised(notification.raised()),
                PlatformEvent::GuestCheckedOut(event_data(next, now)),
            ],
        )?);
        Ok(writes)
    }

    /// One sweep: every open stay due by now is checked in (once) and, past
    /// its check-out, checked out. Each stay is read again before it moves;
    /// a failed stay is logged and counted and stays due.
    pub async fn sweep(&self) -> Result<SweepReport, StoreError> {
        let now = self.clock.now();
        let stays = Stays(&*self.store);
        let mut report = SweepReport::default();
        for _ in 0..SWEEP_PAGES {
            let due = stays.due(now, SWEEP_PAGE).await?;
            let full = due.len() == SWEEP_PAGE as usize;
            let mut moved_any = false;
            for listed in due {
                report.due += 1;
                let Some(mut read) = stays.get(listed.client_id, &listed.reservation_key).await?
                else {
                    continue;
                };
                while let Some(step) = read.stay().sweep(now) {
                    let moved = match step {
                        SweepStep::CheckIn => self.check_in(&read).await,
                        SweepStep::CheckOut => {
                            self.check_out(&read, StayEnd::CheckOutTime, None).await
                        }
                    };
                    match moved {
                        Ok(Moved::Done(next)) => {
                            moved_any = true;
                            match step {
                                SweepStep::CheckIn => report.checked_in += 1,
                                SweepStep::CheckOut => report.checked_out += 1,
                            }
                            read = *next;
                        }
                        Ok(Moved::Raced) => {
                            report.raced += 1;
                            break;
                        }
                        Err(e) => {
                            tracing::warn!(client = %read.client_id, reservation = %read.reservation_key, error = %e, "a stay could not be moved; the next sweep tries again");
                            report.failed += 1;
                            break;
                        }
                    }
                }
            }
            if !full || !moved_any {
                break;
            }
        }
        Ok(report)
    }
}
