//! A thing command body (`POST /devices|endpoints/{id}/commands`): parsed,
//! then validated against the descriptors of a thing with every capability.
//! Never panics; an accepted `set` carries a value inside the control's range.
#![no_main]

use alyt_domain::device::{CommandRequest, DeviceCapability};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(body) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    let Ok(request) = CommandRequest::parse(&body) else {
        return;
    };
    let features: Vec<String> = vec!["color".into(), "color_temp".into()];
    let _ = request.validate_for_device(DeviceCapability::ALL.iter().copied(), Some(&features));
    let _ = request.validate_for_device(DeviceCapability::ALL.iter().copied(), None);
});
