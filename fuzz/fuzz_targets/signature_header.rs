//! The webhook signature header (`t=<unix>,v1=<hex>`): what a receiver
//! parses and what the platform's own verifier accepts. Never panics
//! (whatever the timestamp), and a header verifies only when it carries the
//! genuine signature of its own timestamp.
#![no_main]

use alyt_events::signature::{parse, sign, verify};
use libfuzzer_sys::fuzz_target;

const SECRET: &[u8] = b"whsec_fuzz";
const BODY: &[u8] = b"{\"id\":\"fuzz\"}";
const NOW: i64 = 1_700_000_000;

fuzz_target!(|data: &[u8]| {
    let parsed = parse(data);
    let verified = verify(SECRET, data, BODY, NOW).is_ok();
    let Ok(header) = parsed else {
        assert!(!verified, "an unparseable header verified");
        return;
    };
    if verified {
        let genuine = sign(SECRET, header.timestamp, BODY);
        let hex = genuine.rsplit("v1=").next().unwrap_or_default().to_owned();
        let carried = header
            .signatures
            .iter()
            .any(|s| s.iter().map(|b| format!("{b:02x}")).collect::<String>() == hex);
        assert!(carried, "verified without the genuine v1 signature");
    }
});
