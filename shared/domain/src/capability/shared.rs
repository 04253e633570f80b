//! The descriptors a thing is drawn with, most of them the built-in
//! catalogue's own.

use std::collections::HashMap;
use std::ops::Deref;
use std::sync::LazyLock;

use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

use super::catalogue::catalogue;
use super::types::CapabilityDescriptor;

/// A descriptor of a thing: the built-in catalogue's own, borrowed, or one
/// made for this thing (an endpoint presented as something else keeps only
/// the controls its native capability has).
///
/// A device list writes the same few catalogue descriptors over and over (they
/// were most of the time spent writing `GET /v1/devices` in the M1 benchmark),
/// so a catalogue descriptor is written as its JSON made once per process; the
/// output is the same bytes `serde_json` would write.
#[derive(Debug, Clone, PartialEq)]
pub enum ThingDescriptor {
    Catalogue(&'static CapabilityDescriptor),
    Made(CapabilityDescriptor),
}

impl Deref for ThingDescriptor {
    type Target = CapabilityDescriptor;

    fn deref(&self) -> &CapabilityDescriptor {
        match self {
            Self::Catalogue(descriptor) => descriptor,
            Self::Made(descriptor) => descriptor,
        }
    }
}

/// The JSON of every catalogue descriptor, by id.
static CATALOGUE_JSON: LazyLock<HashMap<&'static str, Box<RawValue>>> = LazyLock::new(|| {
    catalogue()
        .items
        .iter()
        .map(|d| {
            let json = serde_json::value::to_raw_value(d).expect("a descriptor serializes");
            (d.id.as_str(), json)
        })
        .collect()
});

impl Serialize for ThingDescriptor {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Catalogue(descriptor) => match CATALOGUE_JSON.get(descriptor.id.as_str()) {
                Some(json) => json.serialize(serializer),
                None => descriptor.serialize(serializer),
            },
            Self::Made(descriptor) => descriptor.serialize(serializer),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capability::find;

    #[test]
    fn a_catalogue_descriptor_is_written_as_the_descriptor_itself() {
        for descriptor in &catalogue().items {
            let shared = ThingDescriptor::Catalogue(find(&descriptor.id).unwrap());
            assert_eq!(
                serde_json::to_string(&shared).unwrap(),
                serde_json::to_string(descriptor).unwrap()
            );
            assert_eq!(
                serde_json::to_value(&shared).unwrap(),
                serde_json::to_value(descriptor).unwrap()
            );
            assert_eq!(&*shared, descriptor);
        }
        let mut made = find("light").unwrap().clone();
        made.controls.truncate(1);
        let json = serde_json::to_value(ThingDescriptor::Made(made.clone())).unwrap();
        assert_eq!(json, serde_json::to_value(&made).unwrap());
    }
}
