//! Device traffic: the topic a message came on and its payload, as the
//! ingest sees them from the broker. The first byte picks the channel, the
//! rest is the payload. Never panics (nor does reading what an event tells
//! home security); what decodes re-encodes to something that decodes to the
//! same message.
#![no_main]

use alyt_device::channels::{ChannelMessage, SecurityEvent, decode_any, encode};
use alyt_device::topic::{Channel, parse_topic};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, payload)) = data.split_first() else {
        return;
    };
    let channel = Channel::ALL[usize::from(pick) % Channel::ALL.len()];
    if let Ok(ChannelMessage::Event(fields)) = decode_any(channel, payload) {
        let _ = SecurityEvent::of(&fields);
    }
    if let Ok(message) = decode_any(channel, payload)
        && let Ok(bytes) = encode(&message)
    {
        let again = decode_any(channel, &bytes).expect("an encoded message decodes");
        assert_eq!(again, message, "decode(encode(m)) == m");
    }
    if let Ok(topic) = std::str::from_utf8(payload) {
        let _ = parse_topic(topic);
    }
});
