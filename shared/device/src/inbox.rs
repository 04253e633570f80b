//! The embedded broker's durable inbox: a QoS 1 publish is appended here
//! before its PUBACK, and stays until ingest has handled it for good.
//!
//! Appending is one `write` to a file the operating system holds, so a
//! message survives the process dying (SIGKILL, a panic) from the moment
//! it is acknowledged, the same promise as ingest's own commits
//! (`Durability::Written`: SQLite's WAL with synchronous=NORMAL). The
//! PUBACK no longer waits on ingest's transaction, which cost M2 its p99
//! (queueing behind every other device's transactions on two cores).
//!
//! The inbox is a run of segment files (`{seq}.inbox`, 64 KiB each). A
//! segment is deleted once every message in it was handled and a newer one
//! takes the appends; what a stop or a crash leaves is read back by
//! [`Inbox::open`] and handed to ingest before any new publish. Ingest
//! deduplicates on the message id, so a message handled before the crash
//! whose segment was not deleted yet is not stored twice.
//!
//! A record: `len: u32 LE`, `check: 8 bytes` (SHA-256 of the body, first
//! eight bytes), then the body (see [`encode`]). A record cut short by a
//! crash in the middle of its write, or one that does not check, ends its
//! segment's reading: its publish was never acknowledged.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use sha2::{Digest, Sha256};
use time::OffsetDateTime;

use crate::plane::{InboundMessage, PublishPacket};
use crate::topic::parse_topic;

/// A segment takes appends until it is this large: small enough that a
/// restart after a crash reads back a few hundred messages at most (most of
/// them handled already), large enough that files are made rarely.
pub const SEGMENT_BYTES: u64 = 64 * 1024;

const SUFFIX: &str = "inbox";
const HEADER: usize = 4 + 8;
/// Bigger than any MQTT publish the broker takes; a length past it is a
/// torn or foreign record.
const MAX_RECORD: usize = 16 * 1024 * 1024;

/// The inbox of one data directory (the platform holds the directory's
/// lock, so one process appends).
pub struct Inbox {
    dir: PathBuf,
    state: Mutex<State>,
}

impl std::fmt::Debug for Inbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inbox").field("dir", &self.dir).finish()
    }
}

struct State {
    /// The segment taking appends, `None` after a failed write (the next
    /// append starts a new one, so a torn record is always a segment's
    /// last).
    current: Option<Segment>,
    next_seq: u64,
    /// Messages appended and not yet handled, by segment.
    unsettled: BTreeMap<u64, usize>,
    /// Segments read back at open, deleted once their messages are handled.
    recovered: Vec<PathBuf>,
}

struct Segment {
    seq: u64,
    file: File,
    len: u64,
}

/// What [`Inbox::open`] read back: the messages acknowledged before the
/// last stop, in the order they were appended.
#[derive(Debug, Default)]
pub struct Recovered {
    pub messages: Vec<InboundMessage>,
    /// Segments whose reading ended at a record cut short or not checking.
    pub torn_segments: usize,
}

/// One appended message. [`Entry::settle`] once ingest handled it; dropped
/// unsettled, the message stays in the inbox until the next start.
#[derive(Debug)]
#[must_use = "an entry dropped unsettled keeps its message for the next start"]
pub struct Entry {
    inbox: Arc<Inbox>,
    seq: u64,
}

impl Entry {
    pub fn settle(self) {
        self.inbox.settle(self.seq);
    }
}

impl crate::plane::Settles for Entry {
    fn settle(self: Box<Self>) {
        Entry::settle(*self);
    }
}

impl Inbox {
    /// Opens the inbox in `dir` (made when missing) and reads back what the
    /// last run left. New appends go to a new segment.
    pub fn open(dir: &Path) -> io::Result<(Arc<Self>, Recovered)> {
        std::fs::create_dir_all(dir)?;
        let mut segments = Vec::new();
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if let Some(seq) = segment_seq(&path) {
                segments.push((seq, path));
            }
        }
        segments.sort();
        let mut recovered = Recovered::default();
        for (_, path) in &segments {
            let mut bytes = Vec::new();
            File::open(path)?.read_to_end(&mut bytes)?;
            let (messages, torn) = decode_segment(&bytes);
            recovered.messages.extend(messages);
            recovered.torn_segments += usize::from(torn);
        }
        let next_seq = segments.last().map_or(1, |(seq, _)| seq + 1);
        let inbox = Self {
            dir: dir.to_owned(),
            state: Mutex::new(State {
                current: None,
                next_seq,
                unsettled: BTreeMap::new(),
                recovered: segments.into_iter().map(|(_, path)| path).collect(),
            }),
        };
        Ok((Arc::new(inbox), recovered))
    }

    /// Appends `message`; once this returns, the message survives the
    /// process dying.
    pub fn append(self: &Arc<Self>, message: &InboundMessage) -> io::Result<Entry> {
        let record = encode_record(message);
        let mut state = self.lock();
        let full = state.current.as_ref().is_some_and(|segment| {
            segment.len > 0 && segment.len + record.len() as u64 > SEGMENT_BYTES
        });
        if full {
            self.retire_current(&mut state);
        }
        if state.current.is_none() {
            let seq = state.next_seq;
            let file = OpenOptions::new()
                .create_new(true)
                .append(true)
                .open(self.segment_path(seq))?;
            state.next_seq += 1;
            state.current = Some(Segment { seq, file, len: 0 });
        }
        let segment = state.current.as_mut().expect("a segment was just opened");
        let seq = segment.seq;
        let written = segment.file.write_all(&record);
        segment.len += record.len() as u64;
        if let Err(e) = written {
            // What was written of the record is a torn tail: nothing may
            // follow it in this segment.
            self.retire_current(&mut state);
            return Err(e);
        }
        *state.unsettled.entry(seq).or_default() += 1;
        Ok(Entry {
            inbox: self.clone(),
            seq,
        })
    }

    /// Every message read back at open was handled: their segments go.
    pub fn recovered_handled(&self) {
        let paths = std::mem::take(&mut self.lock().recovered);
        for path in paths {
            remove(&path);
        }
    }

    /// Messages appended and not handled yet.
    pub fn unsettled(&self) -> usize {
        self.lock().unsettled.values().sum()
    }

    /// At a stop, after ingest finished: deletes the segment taking appends
    /// when every message in it was handled. What is left is read back at
    /// the next start.
    pub fn close(&self) -> usize {
        let mut state = self.lock();
        self.retire_current(&mut state);
        state.unsettled.values().sum()
    }

    fn settle(&self, seq: u64) {
        let mut state = self.lock();
        let retired = state
            .current
            .as_ref()
            .is_none_or(|segment| segment.seq != seq);
        let Some(count) = state.unsettled.get_mut(&seq) else {
            return;
        };
        *count -= 1;
        if *count == 0 {
            state.unsettled.remove(&seq);
            if retired {
                remove(&self.segment_path(seq));
            }
        }
    }

    /// Stops appending to the current segment; deletes it when nothing in
    /// it waits.
    fn retire_current(&self, state: &mut State) {
        if let Some(segment) = state.current.take()
            && !state.unsettled.contains_key(&segment.seq)
        {
            remove(&self.segment_path(segment.seq));
        }
    }

    fn segment_path(&self, seq: u64) -> PathBuf {
        self.dir.join(format!("{seq:016}.{SUFFIX}"))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn remove(path: &Path) {
    if let Err(e) = std::fs::remove_file(path)
        && e.kind() != io::ErrorKind::NotFound
    {
        tracing::warn!(path = %path.display(), error = %e, "an inbox segment could not be deleted; it is read back at the next start");
    }
}

fn segment_seq(path: &Path) -> Option<u64> {
    if path.extension()? != SUFFIX {
        return None;
    }
    path.file_stem()?.to_str()?.parse().ok()
}

/// The messages of one segment's bytes, and whether its reading ended
/// early (a record cut short or not checking).
pub fn decode_segment(mut bytes: &[u8]) -> (Vec<InboundMessage>, bool) {
    let mut messages = Vec::new();
    while !bytes.is_empty() {
        let Some((message, rest)) = decode_record(bytes) else {
            return (messages, true);
        };
        messages.push(message);
        bytes = rest;
    }
    (messages, false)
}

fn decode_record(bytes: &[u8]) -> Option<(InboundMessage, &[u8])> {
    let len = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
    if len > MAX_RECORD {
        return None;
    }
    let check = bytes.get(4..HEADER)?;
    let body = bytes.get(HEADER..HEADER + len)?;
    if check != &checksum(body)[..] {
        return None;
    }
    Some((decode(body)?, &bytes[HEADER + len..]))
}

fn encode_record(message: &InboundMessage) -> Vec<u8> {
    let body = encode(message);
    let mut record = Vec::with_capacity(HEADER + body.len());
    record.extend_from_slice(&(body.len() as u32).to_le_bytes());
    record.extend_from_slice(&checksum(&body));
    record.extend_from_slice(&body);
    record
}

fn checksum(body: &[u8]) -> [u8; 8] {
    let digest = Sha256::digest(body);
    let mut check = [0u8; 8];
    check.copy_from_slice(&digest[..8]);
    check
}

const VERSION: u8 = 1;
const RETAINED: u8 = 1;
const PACKET: u8 = 2;
const MAYBE_RESENT: u8 = 4;
const FROM_V4: u8 = 8;
const FROM_V6: u8 = 16;

/// The body: version `1`, the message id and topic (`u16` length each),
/// the payload (`u32` length), flags, the packet id (`u16`), when it was
/// received (Unix nanoseconds, `i128`), then the source address's 4 or 16
/// bytes when a flag says so. The identity and channel are the topic's
/// (the broker took it only on the device's own topics). Last wills are
/// never appended (nobody waits on them).
pub fn encode(message: &InboundMessage) -> Vec<u8> {
    let mut body = Vec::with_capacity(64 + message.topic.len() + message.payload.len());
    body.push(VERSION);
    put_short(&mut body, message.message_id.as_bytes());
    put_short(&mut body, message.topic.as_bytes());
    body.extend_from_slice(&(message.payload.len() as u32).to_le_bytes());
    body.extend_from_slice(&message.payload);
    let mut flags = 0;
    if message.retained {
        flags |= RETAINED;
    }
    if let Some(packet) = message.packet {
        flags |= PACKET;
        if packet.maybe_resent {
            flags |= MAYBE_RESENT;
        }
    }
    match message.source_address {
        Some(IpAddr::V4(_)) => flags |= FROM_V4,
        Some(IpAddr::V6(_)) => flags |= FROM_V6,
        None => {}
    }
    body.push(flags);
    body.extend_from_slice(&message.packet.map_or(0, |p| p.id).to_le_bytes());
    body.extend_from_slice(&message.received_at.unix_timestamp_nanos().to_le_bytes());
    match message.source_address {
        Some(IpAddr::V4(ip)) => body.extend_from_slice(&ip.octets()),
        Some(IpAddr::V6(ip)) => body.extend_from_slice(&ip.octets()),
        None => {}
    }
    body
}

/// The message a body holds; `None` for anything [`encode`] did not write.
pub fn decode(body: &[u8]) -> Option<InboundMessage> {
    let mut read = Reader(body);
    if read.take(1)?[0] != VERSION {
        return None;
    }
    let message_id = String::from_utf8(read.short()?.to_vec()).ok()?;
    let topic = String::from_utf8(read.short()?.to_vec()).ok()?;
    let payload_len = u32::from_le_bytes(read.take(4)?.try_into().ok()?) as usize;
    let payload = Bytes::copy_from_slice(read.take(payload_len)?);
    let flags = read.take(1)?[0];
    let packet_id = u16::from_le_bytes(read.take(2)?.try_into().ok()?);
    let nanos = i128::from_le_bytes(read.take(16)?.try_into().ok()?);
    let received_at = OffsetDateTime::from_unix_timestamp_nanos(nanos).ok()?;
    let source_address = if flags & FROM_V4 != 0 {
        Some(IpAddr::from(<[u8; 4]>::try_from(read.take(4)?).ok()?))
    } else if flags & FROM_V6 != 0 {
        Some(IpAddr::from(<[u8; 16]>::try_from(read.take(16)?).ok()?))
    } else {
        None
    };
    if !read.0.is_empty() {
        return None;
    }
    let (identity, channel) = parse_topic(&topic)?;
    Some(InboundMessage {
        message_id,
        identity,
        channel,
        topic,
        payload,
        retained: flags & RETAINED != 0,
        last_will: false,
        received_at,
        source_address,
        packet: (flags & PACKET != 0).then_some(PublishPacket {
            id: packet_id,
            maybe_resent: flags & MAYBE_RESENT != 0,
        }),
    })
}

fn put_short(body: &mut Vec<u8>, bytes: &[u8]) {
    // Message ids and device topics are far below 64 KiB; the broker
    // refuses longer topics.
    let len = bytes.len().min(usize::from(u16::MAX));
    body.extend_from_slice(&(len as u16).to_le_bytes());
    body.extend_from_slice(&bytes[..len]);
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    fn short(&mut self) -> Option<&'a [u8]> {
        let len = u16::from_le_bytes(self.take(2)?.try_into().ok()?);
        self.take(usize::from(len))
    }
}
