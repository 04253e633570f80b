//! Reading enums from stored or foreign data without failing on values this
//! build does not know, as clients must: an unknown value is dropped or
//! kept as its raw token, never an error.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::enums::WireEnum;

/// An enum value read from stored data: either one this build knows or the
/// raw wire token of one it does not (written by a newer build).
///
/// Serializing writes the known value's wire name or the raw token back
/// unchanged, so a row read and rewritten by an older build keeps its value.
/// Rules act on [`Lenient::known`]; an unknown value is never guessed into a
/// known one. API input uses the strict enum instead (its `Deserialize`
/// refuses unknown values).
///
/// The OpenAPI schema is the strict enum's: `Unknown` is a reading fallback,
/// never something this build produces.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lenient<T> {
    Known(T),
    Unknown(String),
}

impl<T: WireEnum> Lenient<T> {
    /// Reads a wire name; never fails.
    pub fn from_wire(name: &str) -> Self {
        T::from_wire(name).map_or_else(|| Lenient::Unknown(name.to_owned()), Lenient::Known)
    }

    /// The known value, if this build knows it.
    pub fn known(&self) -> Option<T> {
        match self {
            Lenient::Known(value) => Some(*value),
            Lenient::Unknown(_) => None,
        }
    }

    pub fn is_known(&self) -> bool {
        matches!(self, Lenient::Known(_))
    }

    /// The wire name (for `Unknown`, the raw token it was read from).
    pub fn as_str(&self) -> &str {
        match self {
            Lenient::Known(value) => value.as_str(),
            Lenient::Unknown(raw) => raw,
        }
    }
}

impl<T> From<T> for Lenient<T> {
    fn from(value: T) -> Self {
        Lenient::Known(value)
    }
}

impl<T: WireEnum> PartialEq<T> for Lenient<T> {
    fn eq(&self, other: &T) -> bool {
        self.known() == Some(*other)
    }
}

impl<T: WireEnum> fmt::Display for Lenient<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl<T: WireEnum> Serialize for Lenient<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de, T: WireEnum> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Cow::<'de, str>::deserialize(deserializer)?;
        Ok(Lenient::from_wire(&raw))
    }
}

#[cfg(feature = "openapi")]
impl<T: utoipa::ToSchema> utoipa::PartialSchema for Lenient<T> {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        T::schema()
    }
}

#[cfg(feature = "openapi")]
impl<T: utoipa::ToSchema> utoipa::ToSchema for Lenient<T> {
    fn name() -> Cow<'static, str> {
        T::name()
    }

    fn schemas(
        schemas: &mut Vec<(
            String,
            utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
        )>,
    ) {
        T::schemas(schemas);
    }
}

/// `#[serde(deserialize_with = "drop_unknown")]` for a stored collection of
/// enum values (e.g. a device's capability set): reads the wire names and
/// keeps only the values this build knows, as clients must. Use
/// `Vec<Lenient<T>>` instead where the unknown values must survive a rewrite.
pub fn drop_unknown<'de, D, T, C>(deserializer: D) -> Result<C, D::Error>
where
    D: Deserializer<'de>,
    T: WireEnum,
    C: FromIterator<T>,
{
    let raw = Vec::<Lenient<T>>::deserialize(deserializer)?;
    Ok(raw.iter().filter_map(Lenient::known).collect())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use serde::{Deserialize, Serialize};

    use super::*;
    use crate::device::{DeviceCapability, DeviceStatus};

    #[test]
    fn known_values_read_as_known_and_unknown_ones_keep_their_token() {
        let known: Lenient<DeviceStatus> = serde_json::from_str("\"ONLINE\"").unwrap();
        assert_eq!(known, Lenient::Known(DeviceStatus::Online));
        assert_eq!(known, DeviceStatus::Online);
        let unknown: Lenient<DeviceStatus> = serde_json::from_str("\"QUARANTINED\"").unwrap();
        assert_eq!(unknown, Lenient::Unknown("QUARANTINED".into()));
        assert_eq!(unknown.known(), None);
        assert_eq!(serde_json::to_string(&unknown).unwrap(), "\"QUARANTINED\"");
        // Wire names are exact: a different case is a different (unknown) value.
        let lower: Lenient<DeviceStatus> = serde_json::from_str("\"online\"").unwrap();
        assert!(!lower.is_known());
        // Not a string at all is still an error.
        assert!(serde_json::from_str::<Lenient<DeviceStatus>>("3").is_err());
    }

    #[derive(Debug, Serialize, Deserialize, PartialEq)]
    struct StoredRow {
        status: Lenient<DeviceStatus>,
        #[serde(deserialize_with = "drop_unknown")]
        capabilities: BTreeSet<DeviceCapability>,
    }

    #[test]
    fn a_stored_row_from_a_newer_build_still_reads() {
        let row: StoredRow = serde_json::from_str(
            r#"{"status":"SLEEPING","capabilities":["LIGHT","HOLOGRAM","ENERGY"]}"#,
        )
        .unwrap();
        assert_eq!(row.status.as_str(), "SLEEPING");
        assert_eq!(
            row.capabilities,
            BTreeSet::from([DeviceCapability::Light, DeviceCapability::Energy])
        );
        let again = serde_json::to_value(&row).unwrap();
        assert_eq!(again["status"], "SLEEPING");
    }

    #[test]
    fn strict_enums_refuse_unknown_values() {
        let err = serde_json::from_str::<DeviceStatus>("\"SLEEPING\"").unwrap_err();
        assert!(err.to_string().contains("unknown variant"), "{err}");
    }
}
