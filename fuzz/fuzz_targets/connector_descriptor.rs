//! A connector descriptor as a developer submits it (`POST
//! /developers/submissions`): read and checked against every rule of the
//! spec. Never panics; a descriptor that is accepted writes back as JSON the
//! reader accepts again.
#![no_main]

use alyt_domain::integration::descriptor::parse_descriptor;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    if let Ok(descriptor) = parse_descriptor(&value, "descriptor") {
        let again = serde_json::to_value(&descriptor).expect("a descriptor writes as JSON");
        assert_eq!(parse_descriptor(&again, "descriptor"), Ok(descriptor));
    }
});
