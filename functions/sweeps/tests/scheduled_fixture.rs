//! events/sweeps/scheduled.json (EventBridge's scheduled event) through the
//! sweep handler on DynamoDB (moto): an ONLINE device silent past its window
//! goes OFFLINE 'heartbeat' with one event; a second run changes nothing.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use alyt_device::ingest::Ingest;
use alyt_device::liveness_sweep::LivenessSweep;
use alyt_device::{Channel, DeviceIdentity, InboundMessage};
use alyt_domain::device::{DeviceCapability, DeviceKind, DeviceStatus, FirmwareChannel, Lenient};
use alyt_domain::ids::{DeviceId, PropertyId, TenantId};
use alyt_domain::{Clock, ManualClock};
use alyt_events::{EventKind, EventLog};
use alyt_store::Store;
use alyt_store::repo::devices::{DeviceRecord, device_item, device_key};

fn scheduled_event() -> serde_json::Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../events/sweeps/scheduled.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[tokio::test]
async fn the_scheduled_sweep_marks_a_silent_device_offline_once() {
    let clock = Arc::new(ManualClock::new(time::OffsetDateTime::now_utc()));
    let store = Arc::new(alyt_aws::testing::fresh_table(clock.clone()).await);
    let events = EventLog::new(store.clone(), clock.clone(), time::Duration::ZERO);
    let (tenant, property, id) = (TenantId::new(), PropertyId::new(), DeviceId::new());
    let device = DeviceRecord {
        id,
        tenant_id: tenant,
        property_id: Some(property),
        room_id: None,
        name: "Hall sensor".into(),
        kind: Lenient::Known(DeviceKind::Sensor),
        capabilities: BTreeSet::from([Lenient::Known(DeviceCapability::Sensor)]),
        features: vec![],
        current_unit_id: None,
        parent_device_id: None,
        protocol: None,
        protocol_id: None,
        firmware_channel: Lenient::Known(FirmwareChannel::Stable),
        status: Lenient::Known(DeviceStatus::Provisioning),
        last_seen: None,
        deleted_at: None,
        created_at: clock.now(),
        updated_at: clock.now(),
        settings: None,
        heartbeat_window_seconds: 90,
        is_virtual: false,
    };
    store
        .put(device_item(&device).unwrap(), None)
        .await
        .unwrap();
    // A status report brings it online through the real ingest.
    let ingest = Ingest::new(store.clone(), clock.clone(), events.clone());
    ingest
        .handle(&InboundMessage {
            message_id: "m-1".into(),
            identity: DeviceIdentity::new(tenant.to_string(), property.to_string(), id.to_string()),
            channel: Channel::Status,
            topic: "t".into(),
            payload: bytes::Bytes::from_static(br#"{"sensor":{}}"#),
            retained: false,
            last_will: false,
            received_at: clock.now(),
        })
        .await
        .unwrap();

    let sweep = LivenessSweep::new(store.clone(), clock.clone(), events.clone());
    let quiet = alyt_sweeps::on_schedule(&sweep, scheduled_event())
        .await
        .unwrap();
    assert_eq!(quiet.marked_offline, 0, "inside its window it stays online");

    clock.advance(time::Duration::seconds(91));
    let report = alyt_sweeps::on_schedule(&sweep, scheduled_event())
        .await
        .unwrap();
    assert_eq!(report.marked_offline, 1);
    let again = alyt_sweeps::on_schedule(&sweep, scheduled_event())
        .await
        .unwrap();
    assert_eq!(again.marked_offline, 0);

    let stored: DeviceRecord = store
        .get(&device_key(tenant, id))
        .await
        .unwrap()
        .unwrap()
        .to_record()
        .unwrap();
    assert_eq!(stored.status, Lenient::Known(DeviceStatus::Offline));
    clock.advance(time::Duration::milliseconds(1));
    let page = events.read_after(&[tenant], None, None, 100).await.unwrap();
    let offline: Vec<_> = page
        .events
        .iter()
        .filter(|e| e.kind == EventKind::DeviceOffline)
        .collect();
    assert_eq!(offline.len(), 1);
    assert_eq!(offline[0].data["reason"], "heartbeat");
}
