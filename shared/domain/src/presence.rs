//! The network condition: a person with `requireNetwork` is in claims only
//! while the home proves their phone is on its network, judged at sign-in and
//! at every refresh. Plain rules, no I/O: what a read of the phone says, and
//! what the signals together decide.
//!
//! Signals in order: the network controller's presence of the person's
//! phone (a missing, stale or unidentified read counts as no signal), then
//! the caller's address as the edge saw it compared with the home's
//! internet address (known only once a hub of the home connected). The
//! first signal there is decides; with none, the condition is not met.
//! Only the outcome is kept ("last seen home"), never an address.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use time::{Duration, OffsetDateTime};

/// A phone the network controller last saw longer ago than this is stale.
pub const STALE_AFTER: Duration = Duration::minutes(5);

/// The feature a network controller's phone things carry (with the NETWORK
/// capability): what makes a thing a phone the home network watches.
pub const PHONE_FEATURE: &str = "presence";

/// What one read of the phone says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PhoneRead {
    /// On the home network now.
    OnNetwork,
    /// Seen recently, and not on the network.
    Away,
    /// No signal: the phone could not be read (missing, not responding),
    /// was last seen too long ago, or its state says nothing usable.
    NoSignal(&'static str),
}

/// What the read state of a phone thing (`{ network: { connected,
/// lastSeen } }`) says at `now`.
pub fn judge_phone(state: &Map<String, Value>, now: OffsetDateTime) -> PhoneRead {
    let Some(network) = state.get("network").and_then(Value::as_object) else {
        return PhoneRead::NoSignal("unidentified");
    };
    let connected = network.get("connected").and_then(Value::as_bool);
    let last_seen = network
        .get("lastSeen")
        .and_then(Value::as_str)
        .and_then(|s| {
            OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339).ok()
        });
    match (connected, last_seen) {
        (Some(_), Some(seen)) if now - seen > STALE_AFTER => PhoneRead::NoSignal("stale"),
        (Some(true), Some(_)) => PhoneRead::OnNetwork,
        (Some(false), Some(_)) => PhoneRead::Away,
        _ => PhoneRead::NoSignal("unidentified"),
    }
}

/// What of an address identifies a home's internet connection: an IPv4
/// address whole (an IPv4-mapped IPv6 address as its IPv4 address), an IPv6
/// address by its /64 (a home's devices share the prefix, not the address).
pub fn address_key(address: std::net::IpAddr) -> String {
    use std::net::IpAddr;
    match address {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let s = v6.segments();
                format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
            }
        },
    }
}

/// Which signal decided a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "kebab-case")]
pub enum PresenceSignal {
    /// The network controller's read of the phone.
    NetworkController,
    /// The caller's address against the home's internet address.
    HomeAddress,
    /// Neither was available.
    None,
}

/// The outcome of one check of the condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Presence {
    pub met: bool,
    pub signal: PresenceSignal,
}

/// Decides the condition from the phone's read and, when that gives no
/// signal, whether the caller's address is the home's (`None`: either is
/// unknown).
pub fn decide(phone: &PhoneRead, same_address: Option<bool>) -> Presence {
    match (phone, same_address) {
        (PhoneRead::OnNetwork, _) => Presence {
            met: true,
            signal: PresenceSignal::NetworkController,
        },
        (PhoneRead::Away, _) => Presence {
            met: false,
            signal: PresenceSignal::NetworkController,
        },
        (PhoneRead::NoSignal(_), Some(same)) => Presence {
            met: same,
            signal: PresenceSignal::HomeAddress,
        },
        (PhoneRead::NoSignal(_), None) => Presence {
            met: false,
            signal: PresenceSignal::None,
        },
    }
}

/// The sentence a person reads when their condition is not met.
pub const NEEDS_NETWORK: &str = "This home is available while your phone is on the home's network: connect to its Wi-Fi, then refresh.";

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    fn now() -> OffsetDateTime {
        OffsetDateTime::UNIX_EPOCH + Duration::days(20_000)
    }

    fn state(connected: Value, seen: Option<OffsetDateTime>) -> Map<String, Value> {
        let mut network = json!({ "connected": connected });
        if let Some(seen) = seen {
            network["lastSeen"] = seen
                .format(&time::format_description::well_known::Rfc3339)
                .unwrap()
                .into();
        }
        json!({ "network": network }).as_object().unwrap().clone()
    }

    #[test]
    fn a_fresh_read_says_on_or_away_and_anything_else_is_no_signal() {
        let fresh = Some(now() - Duration::minutes(1));
        assert_eq!(
            judge_phone(&state(json!(true), fresh), now()),
            PhoneRead::OnNetwork
        );
        assert_eq!(
            judge_phone(&state(json!(false), fresh), now()),
            PhoneRead::Away
        );
        let old = Some(now() - STALE_AFTER - Duration::seconds(1));
        assert_eq!(
            judge_phone(&state(json!(true), old), now()),
            PhoneRead::NoSignal("stale")
        );
        assert_eq!(
            judge_phone(&state(json!("yes"), fresh), now()),
            PhoneRead::NoSignal("unidentified")
        );
        assert_eq!(
            judge_phone(&state(json!(true), None), now()),
            PhoneRead::NoSignal("unidentified")
        );
        assert_eq!(
            judge_phone(&Map::new(), now()),
            PhoneRead::NoSignal("unidentified")
        );
    }

    #[test]
    fn addresses_are_compared_by_what_identifies_a_home() {
        let key = |s: &str| address_key(s.parse().unwrap());
        assert_eq!(key("203.0.113.7"), "203.0.113.7");
        assert_eq!(key("::ffff:203.0.113.7"), "203.0.113.7");
        assert_eq!(
            key("2001:db8:1:2:aaaa::1"),
            key("2001:db8:1:2:bbbb::9"),
            "one /64"
        );
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
    }

    #[test]
    fn the_phone_decides_first_then_the_address() {
        assert!(decide(&PhoneRead::OnNetwork, Some(false)).met);
        assert!(!decide(&PhoneRead::Away, Some(true)).met);
        assert_eq!(
            decide(&PhoneRead::NoSignal("stale"), Some(true)),
            Presence {
                met: true,
                signal: PresenceSignal::HomeAddress
            }
        );
        assert_eq!(
            decide(&PhoneRead::NoSignal("stale"), None),
            Presence {
                met: false,
                signal: PresenceSignal::None
            }
        );
    }

    proptest! {
        /// Whatever a phone reports, the condition is met only by a fresh
        /// "connected" read, or without a phone signal by the home's address.
        #[test]
        fn met_only_with_proof(
            connected in prop_oneof![Just(json!(true)), Just(json!(false)), Just(json!(null)), Just(json!(1))],
            minutes_ago in proptest::option::of(0i64..20),
            same_address in proptest::option::of(any::<bool>()),
        ) {
            let read = judge_phone(
                &state(connected.clone(), minutes_ago.map(|m| now() - Duration::minutes(m))),
                now(),
            );
            let presence = decide(&read, same_address);
            let fresh_on = connected == json!(true) && minutes_ago.is_some_and(|m| m <= 5);
            if presence.met {
                prop_assert!(fresh_on || (matches!(read, PhoneRead::NoSignal(_)) && same_address == Some(true)));
            }
            if fresh_on {
                prop_assert!(presence.met);
            }
        }
    }
}
