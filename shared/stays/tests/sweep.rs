//! The stay sweep on the embedded store with a clock the test moves: a
//! guest is checked in once when the check-in passes and out once the
//! check-out passes (signed out first, grant gone, household told, audit
//! entry, events), also when two sweeps run at once (two Lambda instances);
//! a guest who never accepted is checked out too, and the invitation's link
//! dies with the stay.

use std::sync::Arc;

use alyt_domain::access::{HouseholdRole, SessionKind};
use alyt_domain::ids::{ClientId, InvitationId, PropertyId, SessionId, TenantId, UserId};
use alyt_domain::stay::StayState;
use alyt_domain::{Clock, ManualClock};
use alyt_events::log::Cursor;
use alyt_events::{EventKind, EventLog};
use alyt_stays::GuestStays;
use alyt_store::Store;
use alyt_store::conformance::{household_grant, invitation, start_time};
use alyt_store::repo::audit::Audit;
use alyt_store::repo::identity::{SessionRecord, Sessions};
use alyt_store::repo::invitations::Invitations;
use alyt_store::repo::members::Members;
use alyt_store::repo::stays::{StayRecord, Stays};
use alyt_store::sqlite::SqliteStore;
use time::Duration;

struct World {
    store: Arc<dyn Store>,
    clock: Arc<ManualClock>,
    tenant: TenantId,
    client: ClientId,
    home: PropertyId,
}

fn world() -> World {
    let clock = Arc::new(ManualClock::new(start_time()));
    World {
        store: Arc::new(SqliteStore::in_memory(clock.clone()).unwrap()),
        clock,
        tenant: TenantId::new(),
        client: ClientId::new(),
        home: PropertyId::new(),
    }
}

impl World {
    fn stays(&self) -> GuestStays {
        GuestStays::new(self.store.clone(), self.clock.clone())
    }

    fn stay(&self, key: &str, state: StayState) -> StayRecord {
        let now = self.clock.now();
        StayRecord {
            reservation_key: key.into(),
            tenant_id: self.tenant,
            client_id: self.client,
            property_id: self.home,
            email: "guest@example.com".into(),
            name: None,
            check_in: now + Duration::hours(1),
            check_out: now + Duration::hours(3),
            require_network: false,
            phone_thing_id: None,
            state,
            user_id: None,
            invitation_id: None,
            checked_in_at: None,
            checked_out_at: None,
            opened_by: None,
            created_at: now,
            updated_at: now,
            rev: 0,
        }
    }

    /// A guest holding the grant of a stay, signed in once.
    async fn member_stay(&self, key: &str) -> (StayRecord, UserId, SessionId) {
        let user = UserId::new();
        let stay = StayRecord {
            user_id: Some(user),
            ..self.stay(key, StayState::Member)
        };
        let grant = alyt_store::repo::tenancy::GrantRecord {
            property_id: Some(self.home),
            starts_at: Some(stay.check_in),
            ends_at: Some(stay.check_out),
            reservation_key: Some(key.into()),
            ..household_grant(self.tenant, self.client, user, HouseholdRole::Guest)
        };
        Members(&*self.store)
            .add(&grant, self.stays().opened_writes(&stay).unwrap())
            .await
            .unwrap();
        let session = SessionRecord {
            id: SessionId::new(),
            user_id: user,
            kind: SessionKind::Household,
            developer: None,
            generation: 0,
            revoked: false,
            stay_ended: false,
            created_at: start_time(),
            expires_at: self.clock.unix_seconds() + 30 * 86_400,
        };
        Sessions(&*self.store)
            .start(&session, &format!("refresh-{key}"))
            .await
            .unwrap();
        (stay, user, session.id)
    }

    async fn kinds(&self) -> Vec<EventKind> {
        let log = EventLog::new(self.store.clone(), self.clock.clone());
        let page = log
            .read(&Cursor::resume(&[self.tenant], None), None, 1000)
            .await
            .unwrap();
        page.events.into_iter().map(|e| e.kind).collect()
    }

    async fn current(&self, key: &str) -> StayRecord {
        Stays(&*self.store)
            .get(self.client, key)
            .await
            .unwrap()
            .unwrap()
    }
}

#[tokio::test]
async fn a_guest_is_checked_in_once_and_out_once_on_time() {
    let w = world();
    let (_, user, session) = w.member_stay("BK-1").await;
    assert_eq!(w.kinds().await, [EventKind::GuestInvited]);

    let report = w.stays().sweep().await.unwrap();
    assert_eq!(report.due, 0, "nothing is due before the check-in");

    w.clock.advance(Duration::hours(1));
    let report = w.stays().sweep().await.unwrap();
    assert_eq!((report.checked_in, report.checked_out), (1, 0));
    assert!(w.current("BK-1").await.checked_in_at.is_some());
    assert_eq!(
        w.stays().sweep().await.unwrap().checked_in,
        0,
        "marked once"
    );

    w.clock.advance(Duration::hours(2) - Duration::seconds(1));
    assert_eq!(
        w.stays().sweep().await.unwrap().checked_out,
        0,
        "a second early"
    );
    w.clock.advance(Duration::seconds(1));
    let report = w.stays().sweep().await.unwrap();
    assert_eq!(report.checked_out, 1);
    let stay = w.current("BK-1").await;
    assert_eq!(stay.state, StayState::CheckedOut);
    assert!(
        Members(&*w.store)
            .get(w.client, user)
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        Sessions(&*w.store)
            .get(session)
            .await
            .unwrap()
            .unwrap()
            .revoked,
        "signed out"
    );
    let (audit, _) = Audit(&*w.store)
        .of_household(w.client, 10, None)
        .await
        .unwrap();
    assert_eq!(audit.len(), 1);
    assert_eq!(audit[0].reservation_key.as_deref(), Some("BK-1"));
    assert!(
        audit[0].detail.contains("its check-out time passed"),
        "{}",
        audit[0].detail
    );
    assert_eq!(
        w.kinds().await,
        [
            EventKind::GuestInvited,
            EventKind::GuestCheckedIn,
            EventKind::NotificationRaised,
            EventKind::GuestCheckedOut,
        ]
    );
    assert_eq!(w.stays().sweep().await.unwrap(), Default::default());
}

#[tokio::test]
async fn two_sweeps_at_once_move_each_stay_once() {
    let w = world();
    for n in 0..10 {
        w.member_stay(&format!("BK-{n}")).await;
    }
    w.clock.advance(Duration::hours(5));
    let (a, b) = (w.stays(), w.stays());
    let (ra, rb) = tokio::join!(
        tokio::spawn(async move { a.sweep().await.unwrap() }),
        tokio::spawn(async move { b.sweep().await.unwrap() })
    );
    let (ra, rb) = (ra.unwrap(), rb.unwrap());
    assert_eq!(ra.checked_in + rb.checked_in, 10, "{ra:?} {rb:?}");
    assert_eq!(ra.checked_out + rb.checked_out, 10, "{ra:?} {rb:?}");
    let kinds = w.kinds().await;
    let count = |kind| kinds.iter().filter(|k| **k == kind).count();
    assert_eq!(count(EventKind::GuestCheckedIn), 10);
    assert_eq!(count(EventKind::GuestCheckedOut), 10);
    assert_eq!(count(EventKind::NotificationRaised), 10);
}

#[tokio::test]
async fn a_guest_who_never_accepted_is_checked_out_and_the_link_dies() {
    let w = world();
    let mut waiting = invitation(w.tenant, w.client, "guest@example.com", "hash-x");
    waiting.id = InvitationId::new();
    waiting.role = HouseholdRole::Guest;
    waiting.reservation_key = Some("BK-9".into());
    let stay = StayRecord {
        invitation_id: Some(waiting.id),
        ..w.stay("BK-9", StayState::Invited)
    };
    Invitations(&*w.store)
        .create(&waiting, w.stays().opened_writes(&stay).unwrap())
        .await
        .unwrap();
    w.clock.advance(Duration::hours(4));
    let report = w.stays().sweep().await.unwrap();
    assert_eq!((report.checked_in, report.checked_out), (1, 1));
    assert_eq!(w.current("BK-9").await.state, StayState::CheckedOut);
    assert!(
        Invitations(&*w.store)
            .get(w.client, waiting.id)
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        Invitations(&*w.store)
            .open("hash-x", w.clock.unix_seconds())
            .await
            .unwrap()
            .is_none()
    );
}

/// A store whose transactions fail while `failing` is set (an outage in the
/// middle of a check-out); everything else passes through.
struct Outage {
    inner: Arc<dyn Store>,
    failing: std::sync::atomic::AtomicBool,
}

#[async_trait::async_trait]
impl Store for Outage {
    async fn get(
        &self,
        key: &alyt_store::Key,
    ) -> Result<Option<alyt_store::Item>, alyt_store::StoreError> {
        self.inner.get(key).await
    }
    async fn batch_get(
        &self,
        keys: &[alyt_store::Key],
    ) -> Result<Vec<alyt_store::Item>, alyt_store::StoreError> {
        self.inner.batch_get(keys).await
    }
    async fn put(
        &self,
        item: alyt_store::Item,
        condition: Option<alyt_store::Condition>,
    ) -> Result<(), alyt_store::StoreError> {
        self.inner.put(item, condition).await
    }
    async fn update(
        &self,
        key: &alyt_store::Key,
        actions: Vec<alyt_store::UpdateAction>,
        condition: Option<alyt_store::Condition>,
    ) -> Result<alyt_store::Item, alyt_store::StoreError> {
        self.inner.update(key, actions, condition).await
    }
    async fn delete(
        &self,
        key: &alyt_store::Key,
        condition: Option<alyt_store::Condition>,
    ) -> Result<Option<alyt_store::Item>, alyt_store::StoreError> {
        self.inner.delete(key, condition).await
    }
    async fn query(
        &self,
        query: alyt_store::Query,
    ) -> Result<alyt_store::Page, alyt_store::StoreError> {
        self.inner.query(query).await
    }
    async fn transact(
        &self,
        writes: Vec<alyt_store::TxWrite>,
    ) -> Result<(), alyt_store::StoreError> {
        if self.failing.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(alyt_store::StoreError::Unavailable(
                "the table is unreachable".into(),
            ));
        }
        self.inner.transact(writes).await
    }
}

/// A check-out that fails after the sign-out is finished by the next sweep:
/// the guest stays signed out, the stay stays due, and nothing is half done.
#[tokio::test]
async fn a_check_out_that_fails_midway_finishes_on_the_next_sweep() {
    let w = world();
    let (_, user, session) = w.member_stay("BK-F").await;
    w.clock.advance(Duration::hours(1));
    assert_eq!(w.stays().sweep().await.unwrap().checked_in, 1);
    w.clock.advance(Duration::hours(2));

    let outage = Arc::new(Outage {
        inner: w.store.clone(),
        failing: true.into(),
    });
    let flaky = GuestStays::new(outage.clone(), w.clock.clone());
    let report = flaky.sweep().await.unwrap();
    assert_eq!((report.checked_out, report.failed), (0, 1));
    assert!(
        Sessions(&*w.store)
            .get(session)
            .await
            .unwrap()
            .unwrap()
            .revoked,
        "signed out first"
    );
    assert_eq!(
        w.current("BK-F").await.state,
        StayState::Member,
        "nothing half done"
    );
    assert!(
        Members(&*w.store)
            .get(w.client, user)
            .await
            .unwrap()
            .is_some()
    );

    outage
        .failing
        .store(false, std::sync::atomic::Ordering::SeqCst);
    let report = flaky.sweep().await.unwrap();
    assert_eq!(report.checked_out, 1);
    assert_eq!(w.current("BK-F").await.state, StayState::CheckedOut);
    assert!(
        Members(&*w.store)
            .get(w.client, user)
            .await
            .unwrap()
            .is_none()
    );
    let kinds = w.kinds().await;
    assert_eq!(
        kinds
            .iter()
            .filter(|k| **k == EventKind::GuestCheckedOut)
            .count(),
        1
    );
}
