//! A simulation script as a developer stores it (`POST
//! /developers/simulator/scripts`): read and checked against every rule.
//! Never panics; an accepted script of at most a minute plays the same
//! traffic twice for one seed, within its duration and in time order.
#![no_main]

use alyt_simulator::script::{Script, digest, traffic};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(script) = serde_json::from_slice::<Script>(data) else {
        return;
    };
    let Ok(checked) = script.check() else {
        return;
    };
    // Longer scripts are checked, not played: a run's traffic is bounded,
    // but an hour of it is slow for a fuzz iteration.
    if checked.duration_ms() > 60_000 {
        return;
    }
    let seed = data.len() as u64;
    let played = traffic(&checked, seed);
    assert_eq!(digest(&played), digest(&traffic(&checked, seed)));
    assert!(played.windows(2).all(|w| w[0].at_ms <= w[1].at_ms));
    assert!(played.iter().all(|e| e.at_ms <= checked.duration_ms()));
});
