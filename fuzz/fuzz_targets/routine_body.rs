//! A routine body as a household sends it (`POST
//! /properties/{propertyId}/routines`): read by kind and checked against
//! every rule, music uris included. Never panics; a body that is accepted
//! writes back as JSON the reader accepts again, unchanged.
#![no_main]

use alyt_domain::routine::parse_routine;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    if let Ok(body) = parse_routine(&value) {
        let again = serde_json::to_value(&body).expect("a routine writes as JSON");
        assert_eq!(parse_routine(&again), Ok(body));
    }
});
