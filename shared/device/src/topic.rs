//! Broker topics and the per-device topic rules, as plain functions (no I/O).
//!
//! Topics are `alyt/{tenantId}/{propertyId}/{deviceId}/{channel}`. A device's
//! credential reaches only its own subtree: it may publish on the six
//! device-to-platform channels and subscribe to exactly its own `commands`
//! topic. The embedded broker calls these functions from its hooks; the hosted
//! IoT policy in infra/template.yaml expresses the same rule with thing-name
//! policy variables, so keep the two in step.

use std::fmt;

use alyt_domain::ids::{DeviceId, PropertyId, TenantId};

/// The first topic level of every Alyt topic.
pub const TOPIC_ROOT: &str = "alyt";

/// The last topic level: what a message on the topic is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Channel {
    Status,
    Telemetry,
    Events,
    Alerts,
    Commands,
    Response,
    Availability,
}

impl Channel {
    pub const ALL: [Channel; 7] = [
        Channel::Status,
        Channel::Telemetry,
        Channel::Events,
        Channel::Alerts,
        Channel::Commands,
        Channel::Response,
        Channel::Availability,
    ];

    /// The topic level of this channel.
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Status => "status",
            Channel::Telemetry => "telemetry",
            Channel::Events => "events",
            Channel::Alerts => "alerts",
            Channel::Commands => "commands",
            Channel::Response => "response",
            Channel::Availability => "availability",
        }
    }

    /// The channel named by a topic level; exact and case-sensitive, like MQTT.
    pub fn parse(level: &str) -> Option<Channel> {
        Channel::ALL.into_iter().find(|c| c.as_str() == level)
    }

    /// Whether a device publishes on this channel (every channel but `commands`,
    /// which only the platform publishes).
    pub fn is_device_to_platform(self) -> bool {
        self != Channel::Commands
    }
}

impl fmt::Display for Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who an authenticated device connection is: the ids that make its topic
/// subtree. Broker rules derive everything from this, never from the MQTT
/// client id or username. The ids are typed, so every identity is usable as
/// a topic subtree (a UUID never holds '/', '+', '#' or NUL).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DeviceIdentity {
    pub tenant_id: TenantId,
    pub property_id: PropertyId,
    pub device_id: DeviceId,
}

impl DeviceIdentity {
    pub fn new(tenant_id: TenantId, property_id: PropertyId, device_id: DeviceId) -> Self {
        Self {
            tenant_id,
            property_id,
            device_id,
        }
    }

    /// `alyt/{tenantId}/{propertyId}/{deviceId}`
    pub fn topic_prefix(&self) -> String {
        format!(
            "{TOPIC_ROOT}/{}/{}/{}",
            self.tenant_id, self.property_id, self.device_id
        )
    }

    /// `alyt/{tenantId}/{propertyId}/{deviceId}/{channel}`
    pub fn topic(&self, channel: Channel) -> String {
        format!("{}/{}", self.topic_prefix(), channel.as_str())
    }
}

/// Splits a concrete device topic into its identity and channel. `None` for
/// anything that is not exactly `alyt/{t}/{p}/{d}/{channel}` with ids in
/// their one written form (lowercase, hyphenated UUIDs): wildcards, NUL,
/// empty or extra levels, an unknown channel, or another spelling of an id.
pub fn parse_topic(topic: &str) -> Option<(DeviceIdentity, Channel)> {
    let mut levels = topic.split('/');
    let (root, tenant, property, device, channel) = (
        levels.next()?,
        levels.next()?,
        levels.next()?,
        levels.next()?,
        levels.next()?,
    );
    if levels.next().is_some() || root != TOPIC_ROOT {
        return None;
    }
    let identity = DeviceIdentity::new(
        tenant.parse().ok()?,
        property.parse().ok()?,
        device.parse().ok()?,
    );
    let channel = Channel::parse(channel)?;
    // UUID parsing also takes uppercase, braces and the simple form; only the
    // spelling the platform writes names a device's topic.
    (identity.topic(channel) == topic).then_some((identity, channel))
}

/// Whether `identity` may publish to `topic`: only its own
/// status, telemetry, events, alerts, availability and response topics.
pub fn may_publish(identity: &DeviceIdentity, topic: &str) -> bool {
    matches!(
        parse_topic(topic),
        Some((owner, channel)) if channel.is_device_to_platform() && owner == *identity
    )
}

/// Whether `identity` may subscribe to `filter`: only exactly its own commands
/// topic. No wildcard filter is accepted, even one that would only match its
/// own subtree, so a device never sees what another publishes.
pub fn may_subscribe(identity: &DeviceIdentity, filter: &str) -> bool {
    filter == identity.topic(Channel::Commands)
}

/// The one topic a device's last will may name: its own availability topic
/// (the broker then reports 'offline' for it when its socket drops).
pub fn may_will(identity: &DeviceIdentity, topic: &str) -> bool {
    topic == identity.topic(Channel::Availability)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Short names for fixed ids, so that topics in tests stay readable:
    /// `at("alyt/t1/p1/d1/status")` spells them as the platform does.
    const NAMED: [(&str, &str); 6] = [
        ("t1", "0190d0f0-0000-7000-8000-0000000000a1"),
        ("t2", "0190d0f0-0000-7000-8000-0000000000a2"),
        ("p1", "0190d0f0-0000-7000-8000-0000000000b1"),
        ("p2", "0190d0f0-0000-7000-8000-0000000000b2"),
        ("d1", "0190d0f0-0000-7000-8000-0000000000c1"),
        ("d2", "0190d0f0-0000-7000-8000-0000000000c2"),
    ];

    fn named(name: &str) -> &'static str {
        NAMED
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, id)| *id)
            .unwrap()
    }

    fn at(template: &str) -> String {
        template
            .split('/')
            .map(|level| match NAMED.iter().find(|(n, _)| *n == level) {
                Some((_, id)) => id,
                None => level,
            })
            .collect::<Vec<_>>()
            .join("/")
    }

    fn device() -> DeviceIdentity {
        DeviceIdentity::new(
            named("t1").parse().unwrap(),
            named("p1").parse().unwrap(),
            named("d1").parse().unwrap(),
        )
    }

    #[test]
    fn channels_round_trip_through_their_level() {
        for channel in Channel::ALL {
            assert_eq!(Channel::parse(channel.as_str()), Some(channel));
        }
        assert_eq!(Channel::parse("Status"), None);
        assert_eq!(Channel::parse(""), None);
        assert_eq!(Channel::parse("commands/"), None);
    }

    #[test]
    fn prefix_and_topics() {
        assert_eq!(device().topic_prefix(), at("alyt/t1/p1/d1"));
        assert_eq!(
            device().topic(Channel::Telemetry),
            at("alyt/t1/p1/d1/telemetry")
        );
    }

    #[test]
    fn a_device_publishes_on_its_six_channels_only() {
        let d = device();
        for channel in Channel::ALL {
            let allowed = may_publish(&d, &d.topic(channel));
            assert_eq!(allowed, channel != Channel::Commands, "{channel}");
        }
        for topic in [
            "alyt/t1/p1/d1",
            "alyt/t1/p1/d1/",
            "alyt/t1/p1/d1/status/",
            "alyt/t1/p1/d1/status/x",
            "/alyt/t1/p1/d1/status",
            "alyt/t1/p1/d2/status",
            "alyt/t1/p2/d1/status",
            "alyt/t2/p1/d1/status",
            "Alyt/t1/p1/d1/status",
            "alyt/t1/p1/d1/+",
            "alyt/t1/p1/+/status",
            "alyt/t1/p1/d1/#",
            "alyt/#",
            "#",
            "alyt/t1/p1/d1/status\0",
            "alyt/t1//d1/status",
            "",
        ] {
            assert!(!may_publish(&d, &at(topic)), "{topic:?}");
        }
    }

    #[test]
    fn a_device_subscribes_to_exactly_its_commands() {
        let d = device();
        assert!(may_subscribe(&d, &at("alyt/t1/p1/d1/commands")));
        for filter in [
            "alyt/#",
            "#",
            "+/+/+/+/+",
            "alyt/t1/p1/d1/#",
            "alyt/t1/p1/d1/+",
            "alyt/t1/p1/+/commands",
            "alyt/t1/p1/d2/commands",
            "alyt/t1/p1/d1/status",
            "alyt/t1/p1/d1/commands/#",
            "$share/g/alyt/t1/p1/d1/commands",
            "",
        ] {
            assert!(!may_subscribe(&d, &at(filter)), "{filter:?}");
        }
    }

    #[test]
    fn levels_that_are_not_an_id_as_the_platform_writes_it_match_nothing() {
        let d = device();
        let d1 = named("d1");
        for bad in [
            "",
            "a/b",
            "+",
            "#",
            "a+",
            "a#",
            "a\0",
            "device-1",
            &d1.to_uppercase(),
            &format!("{{{d1}}}"),
            &d1.replace('-', ""),
            &format!("urn:uuid:{d1}"),
        ] {
            for template in ["alyt/{}/p1/d1", "alyt/t1/{}/d1", "alyt/t1/p1/{}"] {
                for channel in Channel::ALL {
                    let topic = format!("{}/{channel}", at(&template.replace("{}", bad)));
                    assert_eq!(parse_topic(&topic), None, "{topic:?}");
                    assert!(!may_publish(&d, &topic), "{topic:?}");
                    assert!(!may_subscribe(&d, &topic), "{topic:?}");
                    assert!(!may_will(&d, &topic), "{topic:?}");
                }
            }
        }
        // "d1/status" as a device level would otherwise make
        // alyt/t1/p1/d1/status/status look like its own topic.
        assert!(!may_publish(&d, &at("alyt/t1/p1/d1/status/status")));
    }

    #[test]
    fn the_will_must_be_the_own_availability_topic() {
        let d = device();
        assert!(may_will(&d, &at("alyt/t1/p1/d1/availability")));
        assert!(!may_will(&d, &at("alyt/t1/p1/d1/status")));
        assert!(!may_will(&d, &at("alyt/t1/p1/d2/availability")));
        assert!(!may_will(&d, &at("alyt/t1/p1/d1/availability?x=1")));
    }

    /// Ids from a small pool, so that two generated identities often share
    /// levels.
    fn pool_id() -> BoxedStrategy<String> {
        proptest::sample::select(
            NAMED
                .iter()
                .map(|(_, id)| id.to_string())
                .collect::<Vec<_>>(),
        )
        .boxed()
    }

    /// Levels near an id: pool ids, other spellings of them, and junk.
    fn id_like() -> BoxedStrategy<String> {
        prop_oneof![
            pool_id(),
            pool_id().prop_map(|id| id.to_uppercase()),
            pool_id().prop_map(|id| id.replace('-', "")),
            "[ab/+#\0]{0,4}",
            "\\PC{0,6}",
        ]
        .boxed()
    }

    fn identity() -> impl Strategy<Value = DeviceIdentity> {
        (pool_id(), pool_id(), pool_id()).prop_map(|(t, p, d)| {
            DeviceIdentity::new(t.parse().unwrap(), p.parse().unwrap(), d.parse().unwrap())
        })
    }

    fn channel() -> impl Strategy<Value = Channel> {
        proptest::sample::select(Channel::ALL.to_vec())
    }

    /// Topics near the valid ones: built from levels that may be ids, channels,
    /// wildcards or junk, so that the property tests probe the boundaries.
    fn topic_like() -> impl Strategy<Value = String> {
        let level = prop_oneof![
            id_like(),
            Just("alyt".to_owned()),
            channel().prop_map(|c| c.as_str().to_owned()),
            Just("+".to_owned()),
            Just("#".to_owned()),
            Just(String::new()),
            "\\PC{0,4}",
        ];
        prop_oneof![
            proptest::collection::vec(level, 0..8).prop_map(|l| l.join("/")),
            "\\PC{0,40}",
            "[alyt/+#ab\0]{0,30}",
        ]
    }

    proptest! {
        #[test]
        fn own_topics_are_exactly_the_allowed_ones(id in identity(), topic in topic_like()) {
            let expected = Channel::ALL
                .into_iter()
                .any(|c| c.is_device_to_platform() && topic == id.topic(c));
            prop_assert_eq!(may_publish(&id, &topic), expected);
            prop_assert_eq!(may_subscribe(&id, &topic), topic == id.topic(Channel::Commands));
        }

        #[test]
        fn identities_reach_their_own_channels(id in identity(), c in channel()) {
            prop_assert_eq!(may_publish(&id, &id.topic(c)), c != Channel::Commands);
            prop_assert_eq!(may_subscribe(&id, &id.topic(c)), c == Channel::Commands);
            prop_assert_eq!(parse_topic(&id.topic(c)), Some((id, c)));
        }

        #[test]
        fn no_identity_reaches_another_subtree(a in identity(), b in identity(), c in channel()) {
            prop_assume!(a != b);
            prop_assert!(!may_publish(&a, &b.topic(c)));
            prop_assert!(!may_subscribe(&a, &b.topic(c)));
            prop_assert!(!may_will(&a, &b.topic(c)));
        }

        #[test]
        fn wildcards_nul_and_empty_levels_are_never_allowed(id in identity(), topic in topic_like()) {
            let bad = topic.contains(['+', '#', '\0']) || topic.split('/').any(str::is_empty);
            if bad {
                prop_assert!(!may_publish(&id, &topic));
                prop_assert!(!may_subscribe(&id, &topic));
                prop_assert!(parse_topic(&topic).is_none());
            }
        }

        #[test]
        fn another_spelling_of_an_id_is_allowed_nothing(id in identity(), c in channel(), which in 0..3usize) {
            let mut levels: Vec<String> = id.topic(c).split('/').map(str::to_owned).collect();
            levels[1 + which] = levels[1 + which].to_uppercase();
            let topic = levels.join("/");
            prop_assert_eq!(parse_topic(&topic), None);
            prop_assert!(!may_publish(&id, &topic));
            prop_assert!(!may_subscribe(&id, &topic));
            prop_assert!(!may_will(&id, &topic));
        }

        #[test]
        fn parse_accepts_only_what_it_can_rebuild(topic in topic_like()) {
            if let Some((id, c)) = parse_topic(&topic) {
                prop_assert_eq!(id.topic(c), topic);
            }
        }
    }
}
