//! What a connector server answers (untrusted: a developer's server, or
//! whoever took its address): every answer type of the connector protocol.
//! Never panics; what parses survives a serialise/parse round trip.
#![no_main]

use alyt_domain::integration::connector::{
    CommandAnswer, ConnectAnswer, DiscoverAnswer, ReadAnswer,
};
use alyt_domain::integration::music::{
    FavouritesAnswer, PlayAnswer, RefreshAnswer, SearchAnswer, SpeakerMusic,
};
use libfuzzer_sys::fuzz_target;
use serde::Serialize;
use serde::de::DeserializeOwned;

fn round_trip<T: DeserializeOwned + Serialize + PartialEq + std::fmt::Debug>(data: &[u8]) {
    if let Ok(answer) = serde_json::from_slice::<T>(data) {
        let text = serde_json::to_vec(&answer).expect("an answer serialises");
        let again: T = serde_json::from_slice(&text).expect("a serialised answer parses");
        assert_eq!(again, answer);
    }
}

fuzz_target!(|data: &[u8]| {
    round_trip::<ConnectAnswer>(data);
    round_trip::<DiscoverAnswer>(data);
    round_trip::<ReadAnswer>(data);
    round_trip::<CommandAnswer>(data);
    round_trip::<FavouritesAnswer>(data);
    round_trip::<PlayAnswer>(data);
    round_trip::<SearchAnswer>(data);
    round_trip::<RefreshAnswer>(data);
    // A discovered speaker's provider detail.
    if let Ok(serde_json::Value::Object(detail)) = serde_json::from_slice(data) {
        let _ = SpeakerMusic::of(Some(&detail));
    }
});
