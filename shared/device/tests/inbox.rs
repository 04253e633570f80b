//! The broker's durable inbox on a real directory: what it keeps, what it
//! reads back after a stop or a crash, and what it forgets.

use std::net::IpAddr;
use std::path::Path;

use alyt_device::inbox::{Inbox, SEGMENT_BYTES, decode, decode_segment, encode};
use alyt_device::{Channel, DeviceIdentity, InboundMessage, PublishPacket};
use bytes::Bytes;
use proptest::prelude::*;
use time::OffsetDateTime;

const TENANT: &str = "0190d0f0-0000-7000-8000-0000000000a1";
const PROPERTY: &str = "0190d0f0-0000-7000-8000-0000000000b1";
const DEVICE: &str = "0190d0f0-0000-7000-8000-0000000000da";

fn identity() -> DeviceIdentity {
    DeviceIdentity::new(
        TENANT.parse().unwrap(),
        PROPERTY.parse().unwrap(),
        DEVICE.parse().unwrap(),
    )
}

fn message(n: usize, payload: Vec<u8>) -> InboundMessage {
    let identity = identity();
    InboundMessage {
        message_id: format!("message-{n}"),
        identity,
        channel: Channel::Telemetry,
        topic: identity.topic(Channel::Telemetry),
        payload: Bytes::from(payload),
        retained: false,
        last_will: false,
        received_at: OffsetDateTime::from_unix_timestamp_nanos(
            1_780_000_000_123_456_789 + n as i128,
        )
        .unwrap(),
        source_address: Some(IpAddr::from([192, 0, 2, 7])),
        packet: Some(PublishPacket {
            id: (n % 65_535 + 1) as u16,
            maybe_resent: n.is_multiple_of(2),
        }),
    }
}

fn segments(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "inbox")
        })
        .count()
}

fn only_segment(dir: &Path) -> std::path::PathBuf {
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(paths.len(), 1, "one segment");
    paths.remove(0)
}

fn ids(messages: &[InboundMessage]) -> Vec<String> {
    messages.iter().map(|m| m.message_id.clone()).collect()
}

#[test]
fn unhandled_messages_are_read_back_in_order_and_handled_ones_are_forgotten() {
    let dir = tempfile::tempdir().unwrap();
    let (inbox, recovered) = Inbox::open(dir.path()).unwrap();
    assert!(recovered.messages.is_empty());
    // Enough messages for several segments.
    let payload = vec![b'x'; 1000];
    let per_segment = SEGMENT_BYTES as usize / 1100;
    let total = per_segment * 4;
    let entries: Vec<_> = (0..total)
        .map(|n| inbox.append(&message(n, payload.clone())).unwrap())
        .collect();
    assert!(segments(dir.path()) >= 4, "appends spread over segments");
    // Ingest handles every message but two: one early, one in the last
    // segment (the one still taking appends).
    let kept = [3, total - 2];
    for (n, entry) in entries.into_iter().enumerate().rev() {
        if kept.contains(&n) {
            drop(entry);
        } else {
            entry.settle();
        }
    }
    assert_eq!(inbox.unsettled(), 2);
    assert_eq!(
        segments(dir.path()),
        2,
        "only the segments holding an unhandled message are left"
    );
    drop(inbox);

    // What a crash now leaves: the next start reads back the unhandled
    // messages, in order, with whatever else their segments held.
    let (inbox, recovered) = Inbox::open(dir.path()).unwrap();
    assert_eq!(recovered.torn_segments, 0);
    let read_back = ids(&recovered.messages);
    let position = |n: usize| {
        read_back
            .iter()
            .position(|id| *id == format!("message-{n}"))
            .unwrap_or_else(|| panic!("message-{n} read back"))
    };
    let (early, late) = (position(kept[0]), position(kept[1]));
    assert!(early < late, "read back in the order appended");
    assert_eq!(recovered.messages[early], message(kept[0], payload.clone()));
    assert!(
        read_back.len() < total / 2,
        "handled segments are not read back ({} of {total})",
        read_back.len()
    );

    // Once ingest handled them again, a new append and a clean stop leave
    // nothing to read back.
    inbox.recovered_handled();
    inbox.append(&message(total, payload)).unwrap().settle();
    assert_eq!(inbox.close(), 0);
    assert_eq!(segments(dir.path()), 0);
    let (_, recovered) = Inbox::open(dir.path()).unwrap();
    assert!(recovered.messages.is_empty());
}

#[test]
fn a_stop_with_messages_unhandled_keeps_them_for_the_next_start() {
    let dir = tempfile::tempdir().unwrap();
    let (inbox, _) = Inbox::open(dir.path()).unwrap();
    inbox.append(&message(1, b"{}".to_vec())).unwrap().settle();
    let unhandled = inbox.append(&message(2, b"{}".to_vec())).unwrap();
    assert_eq!(inbox.close(), 1, "close names what it keeps");
    drop(unhandled);
    let (_, recovered) = Inbox::open(dir.path()).unwrap();
    assert_eq!(ids(&recovered.messages), ["message-1", "message-2"]);
}

#[test]
fn a_record_cut_short_by_a_crash_ends_its_segment_and_new_appends_go_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    let (inbox, _) = Inbox::open(dir.path()).unwrap();
    for n in 0..3 {
        drop(inbox.append(&message(n, b"{\"t\":1}".to_vec())).unwrap());
    }
    drop(inbox);
    // The process died in the middle of the third record's write.
    let path = only_segment(dir.path());
    let len = std::fs::metadata(&path).unwrap().len();
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(len - 5).unwrap();

    let (inbox, recovered) = Inbox::open(dir.path()).unwrap();
    assert_eq!(ids(&recovered.messages), ["message-0", "message-1"]);
    assert_eq!(recovered.torn_segments, 1);
    // Appends after the start do not land behind the torn record.
    drop(inbox.append(&message(9, b"{}".to_vec())).unwrap());
    drop(inbox);
    let (_, recovered) = Inbox::open(dir.path()).unwrap();
    assert_eq!(
        ids(&recovered.messages),
        ["message-0", "message-1", "message-9"]
    );
}

fn any_message() -> impl Strategy<Value = InboundMessage> {
    (
        "[ -~]{0,80}",
        proptest::collection::vec(any::<u8>(), 0..2048),
        any::<bool>(),
        proptest::option::of((any::<u16>(), any::<bool>())),
        -1_000_000_000_000_000_000i128..4_000_000_000_000_000_000i128,
        proptest::option::of(prop_oneof![
            any::<[u8; 4]>().prop_map(IpAddr::from),
            any::<[u8; 16]>().prop_map(IpAddr::from),
        ]),
        prop_oneof![
            Just(Channel::Telemetry),
            Just(Channel::Status),
            Just(Channel::Events),
            Just(Channel::Response),
        ],
    )
        .prop_map(|(id, payload, retained, packet, nanos, source, channel)| {
            let identity = identity();
            InboundMessage {
                message_id: id,
                identity,
                channel,
                topic: identity.topic(channel),
                payload: Bytes::from(payload),
                retained,
                last_will: false,
                received_at: OffsetDateTime::from_unix_timestamp_nanos(nanos).unwrap(),
                source_address: source,
                packet: packet.map(|(id, maybe_resent)| PublishPacket { id, maybe_resent }),
            }
        })
}

proptest! {
    #[test]
    fn a_message_reads_back_as_it_was_appended(message in any_message()) {
        prop_assert_eq!(decode(&encode(&message)), Some(message));
    }

    /// Whatever a crash leaves of a segment (cut anywhere, or a byte
    /// changed), reading it never fails and yields the messages before the
    /// damage, in order.
    #[test]
    fn a_damaged_segment_reads_back_a_prefix(
        messages in proptest::collection::vec(any_message(), 1..6),
        cut in any::<prop::sample::Index>(),
        flip in proptest::option::of((any::<prop::sample::Index>(), 1u8..)),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let (inbox, _) = Inbox::open(dir.path()).unwrap();
        for message in &messages {
            drop(inbox.append(message).unwrap());
        }
        drop(inbox);
        let mut bytes = std::fs::read(only_segment(dir.path())).unwrap();
        let whole = bytes.len();
        bytes.truncate(cut.index(whole + 1));
        let mut damaged = bytes.len() < whole;
        if let Some((at, by)) = flip.filter(|_| !bytes.is_empty()) {
            let at = at.index(bytes.len());
            bytes[at] ^= by;
            damaged = true;
        }
        let (read, torn) = decode_segment(&bytes);
        prop_assert!(read.len() <= messages.len());
        prop_assert_eq!(&read[..], &messages[..read.len()]);
        if !damaged {
            prop_assert!(!torn);
            prop_assert_eq!(read.len(), messages.len());
        }
    }
}
