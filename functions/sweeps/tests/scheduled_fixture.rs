//! events/sweeps/scheduled.json (EventBridge's scheduled event) through the
//! sweep handler on DynamoDB (moto): an ONLINE device silent past its window
//! goes OFFLINE 'heartbeat' with one event; a second run changes nothing. The
//! same invocation loops the command bridge: a pending command whose first
//! publish fails is sent by a later pass of that invocation.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use alyt_device::ingest::{Ingest, NoSecurity};
use alyt_device::liveness_sweep::LivenessSweep;
use alyt_device::{
    Channel, DeviceIdentity, DevicePublisher, InboundMessage, NoPublisher, PublishError,
};
use alyt_domain::device::{
    AcceptedCommand, CommandId, CommandRow, CommandState, DeviceCapability, DeviceKind,
    DeviceStatus, Lenient,
};
use alyt_domain::ids::{DeviceId, PropertyId, TenantId};
use alyt_domain::{Clock, ManualClock};
use alyt_events::{EventKind, EventLog};
use alyt_store::Store;
use alyt_store::repo::commands::Commands;
use alyt_store::repo::devices::{DeviceRecord, device_item, device_key};
use alyt_sweeps::{Sweeps, on_schedule};

fn scheduled_event() -> serde_json::Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../events/sweeps/scheduled.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn sweeps(
    store: Arc<dyn Store>,
    clock: Arc<ManualClock>,
    events: EventLog,
    publisher: Arc<dyn DevicePublisher>,
) -> Sweeps {
    Sweeps {
        store: store.clone(),
        clock: clock.clone(),
        publisher,
        liveness: LivenessSweep::new(store.clone(), clock.clone(), events),
        deprecation_notices: alyt_events::deprecations::DeprecationNotices::new(
            store.clone(),
            clock.clone(),
        ),
        stays: alyt_stays::GuestStays::new(store, clock),
        reset_mails: None,
    }
}

fn sensor(
    tenant: TenantId,
    property: PropertyId,
    id: DeviceId,
    clock: &ManualClock,
) -> DeviceRecord {
    DeviceRecord {
        id,
        name: "Hall sensor".into(),
        kind: Lenient::Known(DeviceKind::Sensor),
        capabilities: BTreeSet::from([Lenient::Known(DeviceCapability::Sensor)]),
        heartbeat_window_seconds: 90,
        ..alyt_store::fixtures::device(tenant, Some(property), clock.now())
    }
}

#[tokio::test]
async fn the_scheduled_sweep_marks_a_silent_device_offline_once() {
    let clock = Arc::new(ManualClock::new(time::OffsetDateTime::now_utc()));
    let store = Arc::new(alyt_aws::testing::fresh_table(clock.clone()).await);
    let events = EventLog::new(store.clone(), clock.clone());
    let (tenant, property, id) = (TenantId::new(), PropertyId::new(), DeviceId::new());
    let device = sensor(tenant, property, id, &clock);
    store
        .put(device_item(&device).unwrap(), None)
        .await
        .unwrap();
    // A status report brings it online through the real ingest.
    let ingest = Ingest::new(
        store.clone(),
        clock.clone(),
        events.clone(),
        Arc::new(NoSecurity),
    );
    ingest
        .handle(&InboundMessage {
            message_id: "m-1".into(),
            identity: DeviceIdentity::new(tenant, property, id),
            channel: Channel::Status,
            topic: "t".into(),
            payload: bytes::Bytes::from_static(br#"{"sensor":{}}"#),
            retained: false,
            last_will: false,
            received_at: clock.now(),
            source_address: None,
            packet: None,
        })
        .await
        .unwrap();

    // No bridge window: one bridge pass per invocation, nothing pending.
    let sweeps = sweeps(
        store.clone(),
        clock.clone(),
        events.clone(),
        Arc::new(NoPublisher),
    );
    let quiet = on_schedule(&sweeps, scheduled_event(), Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(
        quiet.heartbeat.marked_offline, 0,
        "inside its window it stays online"
    );
    assert_eq!(quiet.bridge.passes, 1);

    clock.advance(time::Duration::seconds(91));
    let report = on_schedule(&sweeps, scheduled_event(), Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(report.heartbeat.marked_offline, 1);
    let again = on_schedule(&sweeps, scheduled_event(), Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(again.heartbeat.marked_offline, 0);

    let stored: DeviceRecord = store
        .get(&device_key(tenant, id))
        .await
        .unwrap()
        .unwrap()
        .to_record()
        .unwrap();
    assert_eq!(stored.status, Lenient::Known(DeviceStatus::Offline));
    clock.advance(time::Duration::milliseconds(1));
    let page = events.read_after(tenant, None, None, 100).await.unwrap();
    let offline: Vec<_> = page
        .events
        .iter()
        .filter(|e| e.kind == EventKind::DeviceOffline)
        .collect();
    assert_eq!(offline.len(), 1);
    assert_eq!(offline[0].data["reason"], "heartbeat");
}

/// Fails the first publish, then records every payload.
#[derive(Default)]
struct FlakyPublisher {
    calls: Mutex<Vec<(String, Vec<u8>)>>,
}

#[async_trait::async_trait]
impl DevicePublisher for FlakyPublisher {
    async fn publish(
        &self,
        identity: &DeviceIdentity,
        payload: Vec<u8>,
    ) -> Result<(), PublishError> {
        let mut calls = self.calls.lock().unwrap();
        calls.push((identity.topic(Channel::Commands), payload));
        if calls.len() == 1 {
            return Err(PublishError::Failed("the first try fails".into()));
        }
        Ok(())
    }
}

#[tokio::test]
async fn one_invocation_keeps_retrying_pending_commands_every_two_seconds() {
    let clock = Arc::new(ManualClock::new(time::OffsetDateTime::now_utc()));
    let store = Arc::new(alyt_aws::testing::fresh_table(clock.clone()).await);
    let events = EventLog::new(store.clone(), clock.clone());
    let (tenant, property, id) = (TenantId::new(), PropertyId::new(), DeviceId::new());
    store
        .put(
            device_item(&sensor(tenant, property, id, &clock)).unwrap(),
            None,
        )
        .await
        .unwrap();
    let commands = Commands(&*store);
    let row = CommandRow::accept(
        CommandId::at(clock.now()),
        id,
        AcceptedCommand {
            command: "identify".into(),
            payload: None,
        },
        clock.now(),
    );
    commands.create(tenant, &row).await.unwrap();

    let publisher = Arc::new(FlakyPublisher::default());
    let sweeps = sweeps(store.clone(), clock.clone(), events, publisher.clone());
    // Passes at 0 s and 2 s; the next (4 s) would start after the window.
    let started = std::time::Instant::now();
    let report = on_schedule(&sweeps, scheduled_event(), Duration::from_millis(2500))
        .await
        .unwrap();
    assert!(started.elapsed() >= Duration::from_secs(2));
    assert_eq!(report.bridge.passes, 2);
    assert_eq!(report.bridge.failed, 1, "the first publish failed");
    assert_eq!(report.bridge.sent, 1, "the second pass delivered it");
    assert_eq!(report.bridge.failed_passes, 0);

    let calls = publisher.calls.lock().unwrap().clone();
    assert_eq!(calls.len(), 2);
    assert_eq!(
        calls[0].0,
        format!("alyt/{tenant}/{property}/{id}/commands"),
        "published on the device's commands topic"
    );
    let payload: serde_json::Value = serde_json::from_slice(&calls[1].1).unwrap();
    assert_eq!(payload["commandId"], row.command_id.to_string());
    assert_eq!(payload["command"], "identify");

    let stored = commands.get(id, row.command_id).await.unwrap().unwrap().row;
    assert_eq!(stored.state, Lenient::Known(CommandState::Sent));
    assert_eq!(stored.attempts, 2);
}

/// The stay sweep runs in the same invocation, on DynamoDB: a guest whose
/// check-in passed is checked in once (one guest.checked_in), and out once
/// the check-out passed, with their grant gone.
#[tokio::test]
async fn the_scheduled_sweep_checks_a_guest_in_and_out_once() {
    use alyt_domain::access::HouseholdRole;
    use alyt_domain::ids::{ClientId, UserId};
    use alyt_domain::stay::StayState;
    use alyt_store::repo::members::Members;
    use alyt_store::repo::stays::{StayRecord, Stays};
    use alyt_store::repo::tenancy::GrantRecord;

    let clock = Arc::new(ManualClock::new(time::OffsetDateTime::now_utc()));
    let store: Arc<dyn Store> = Arc::new(alyt_aws::testing::fresh_table(clock.clone()).await);
    let events = EventLog::new(store.clone(), clock.clone());
    let (tenant, client, home, user) = (
        TenantId::new(),
        ClientId::new(),
        PropertyId::new(),
        UserId::new(),
    );
    let now = clock.now();
    let stay = StayRecord {
        reservation_key: "BK-77".into(),
        tenant_id: tenant,
        client_id: client,
        property_id: home,
        email: "guest@example.com".into(),
        name: None,
        check_in: now + time::Duration::minutes(1),
        check_out: now + time::Duration::minutes(5),
        require_network: false,
        phone_thing_id: None,
        state: StayState::Member,
        user_id: Some(user),
        invitation_id: None,
        checked_in_at: None,
        checked_out_at: None,
        opened_by: None,
        created_at: now,
        updated_at: now,
        rev: 0,
    };
    let grant = GrantRecord {
        client_id: client,
        tenant_id: tenant,
        user_id: user,
        role: HouseholdRole::Guest,
        property_id: Some(home),
        starts_at: Some(stay.check_in),
        ends_at: Some(stay.check_out),
        granted_by: None,
        reservation_key: Some("BK-77".into()),
        network: None,
        created_at: now,
    };
    let sweeps = sweeps(
        store.clone(),
        clock.clone(),
        events.clone(),
        Arc::new(NoPublisher),
    );
    Members(&*store)
        .add(&grant, sweeps.stays.opened_writes(&stay).unwrap())
        .await
        .unwrap();

    clock.advance(time::Duration::minutes(1));
    let report = on_schedule(&sweeps, scheduled_event(), Duration::ZERO)
        .await
        .unwrap();
    assert_eq!((report.stays.checked_in, report.stays.checked_out), (1, 0));
    let again = on_schedule(&sweeps, scheduled_event(), Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(again.stays.checked_in, 0, "marked once");
    clock.advance(time::Duration::minutes(4));
    let report = on_schedule(&sweeps, scheduled_event(), Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(report.stays.checked_out, 1);
    let stored = Stays(&*store).get(client, "BK-77").await.unwrap().unwrap();
    assert_eq!(stored.state, StayState::CheckedOut);
    assert!(Members(&*store).get(client, user).await.unwrap().is_none());
    clock.advance(time::Duration::milliseconds(1));
    let page = events.read_after(tenant, None, None, 100).await.unwrap();
    let kinds: Vec<EventKind> = page.events.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [
            EventKind::GuestInvited,
            EventKind::GuestCheckedIn,
            EventKind::NotificationRaised,
            EventKind::GuestCheckedOut,
        ]
    );
}
