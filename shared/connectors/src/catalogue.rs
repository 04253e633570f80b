//! The built-in catalogue definitions: the reference providers that ship with
//! the platform (descriptor `source: 'built-in'`). They are data, listed beside
//! the published third-party definitions; each descriptor passes the same
//! checks as a submission's.

use serde_json::{Value, json};

/// The code the built-in virtual bridge shows when its link button is
/// pressed (it is virtual: its help text says the code).
pub const VIRTUAL_BRIDGE_CODE: &str = "4711";

/// The built-in virtual bridge's slug.
pub const VIRTUAL_BRIDGE: &str = "virtual-bridge";

/// One built-in definition.
#[derive(Debug, Clone, PartialEq)]
pub struct BuiltInDefinition {
    /// Stable across releases.
    pub id: &'static str,
    pub slug: &'static str,
    pub semver: &'static str,
    pub descriptor: Value,
    pub prose: &'static str,
    /// RFC 3339.
    pub published_at: &'static str,
}

/// Every built-in definition, by slug.
pub fn built_in_definitions() -> Vec<BuiltInDefinition> {
    vec![BuiltInDefinition {
        id: "0193a000-0000-7000-8000-00000000b001",
        slug: VIRTUAL_BRIDGE,
        semver: "1.0.0",
        descriptor: json!({
            "kind": "VIRTUAL_BRIDGE",
            "name": "Virtual bridge",
            "icon": "lightbulb-group",
            "promise": "A LAN lighting bridge with lights, plugs, sensors and a speaker, for trying the platform",
            "connectivity": "local",
            "brings": ["light", "switch", "energy", "sensor", "speaker"],
            "connect": {
                "method": "form",
                "fields": [{
                    "key": "host",
                    "label": "Bridge address",
                    "kind": "text",
                    "secret": false,
                    "required": true,
                    "placeholder": "192.168.1.20"
                }],
                "help": "Any address will do; when asked, type the code the bridge shows: 4711."
            },
            "discovery": { "verb": "Find things" },
            "disconnect": { "consequence": "The bridge's things leave your rooms." },
            "builtIn": { "reason": "The platform's reference connector server (the connector protocol's worked example)." },
            "author": { "kind": "svc", "name": "Alyt" },
            "version": "1.0.0",
            "source": "built-in",
            "visibility": "public",
            "verification": { "level": "proven", "at": "2026-11-26" },
            "listed": true
        }),
        prose: "The virtual bridge is the platform's reference connector: an in-memory LAN \
                bridge that pairs with a code, discovers lights, plugs, sensors and a \
                speaker, and applies commands the way real hardware does.",
        published_at: "2026-11-26T00:00:00Z",
    }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use alyt_domain::integration::descriptor::{DescriptorSource, parse_descriptor};

    #[test]
    fn every_built_in_passes_the_submission_checks_and_says_it_is_built_in() {
        let all = built_in_definitions();
        assert!(!all.is_empty());
        for definition in &all {
            let descriptor = parse_descriptor(&definition.descriptor, "descriptor")
                .unwrap_or_else(|p| panic!("{}: {p}", definition.slug));
            assert_eq!(descriptor.source, DescriptorSource::BuiltIn);
            assert!(descriptor.built_in.is_some());
            assert_eq!(descriptor.version, definition.semver);
            if definition.slug == VIRTUAL_BRIDGE {
                let help = descriptor.connect.help.unwrap_or_default();
                assert!(help.contains(VIRTUAL_BRIDGE_CODE), "{help}");
            }
            assert!(
                definition
                    .id
                    .parse::<alyt_domain::ids::ConnectorId>()
                    .is_ok()
            );
            assert!(
                time::OffsetDateTime::parse(
                    definition.published_at,
                    &time::format_description::well_known::Rfc3339
                )
                .is_ok()
            );
        }
        let mut slugs: Vec<_> = all.iter().map(|d| d.slug).collect();
        slugs.sort();
        slugs.dedup();
        assert_eq!(slugs.len(), all.len());
    }
}
