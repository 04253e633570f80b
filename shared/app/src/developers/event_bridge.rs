//! An EventBridge destination as a developer names it: their AWS account,
//! a region, and either their bus's ARN or a partner-style event source
//! name (`aws.partner/…`, whose bus carries the same name). Checked here,
//! each refusal naming its field, into the target the worker puts events on.

use alyt_store::repo::webhooks::EventBridgeTarget;

use crate::Error;

/// What a developer gives.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewEventBridge {
    pub account_id: String,
    pub region: String,
    pub event_bus_arn: Option<String>,
    pub event_source_name: Option<String>,
}

/// Longest bus or event source name EventBridge takes.
const NAME_MAX: usize = 256;

/// The target of a checked destination.
pub fn checked(new: &NewEventBridge) -> Result<EventBridgeTarget, Error> {
    let account_id = new.account_id.trim();
    if account_id.len() != 12 || !account_id.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Error::validation(
            "eventBridge.accountId",
            "an AWS account id is 12 digits",
        ));
    }
    let region = new.region.trim();
    if !is_region(region) {
        return Err(Error::validation(
            "eventBridge.region",
            "not an AWS region (like eu-west-1)",
        ));
    }
    let (event_bus_arn, event_source_name) = match (
        new.event_bus_arn.as_deref(),
        new.event_source_name.as_deref(),
    ) {
        (Some(arn), None) => (checked_arn(arn.trim(), account_id, region)?, None),
        (None, Some(source)) => {
            let source = source.trim();
            if !source.starts_with("aws.partner/")
                || source.split('/').filter(|s| !s.is_empty()).count() < 3
                || !is_name(source)
            {
                return Err(Error::validation(
                    "eventBridge.eventSourceName",
                    "a partner event source name looks like aws.partner/{partner}/{name}",
                ));
            }
            (
                format!("arn:aws:events:{region}:{account_id}:event-bus/{source}"),
                Some(source.to_owned()),
            )
        }
        _ => {
            return Err(Error::validation(
                "eventBridge",
                "give either eventBusArn or eventSourceName",
            ));
        }
    };
    Ok(EventBridgeTarget {
        account_id: account_id.to_owned(),
        region: region.to_owned(),
        event_bus_arn,
        event_source_name,
    })
}

/// `arn:{partition}:events:{region}:{account}:event-bus/{name}` in the
/// given account and region.
fn checked_arn(arn: &str, account_id: &str, region: &str) -> Result<String, Error> {
    let refuse = |why: &str| Error::validation("eventBridge.eventBusArn", why.to_owned());
    let parts: Vec<&str> = arn.splitn(6, ':').collect();
    let [
        arn_word,
        partition,
        service,
        arn_region,
        arn_account,
        resource,
    ] = parts[..]
    else {
        return Err(refuse(
            "a bus ARN looks like arn:aws:events:{region}:{account}:event-bus/{name}",
        ));
    };
    let name = resource.strip_prefix("event-bus/").unwrap_or_default();
    if arn_word != "arn"
        || !matches!(partition, "aws" | "aws-cn" | "aws-us-gov")
        || service != "events"
        || !is_name(name)
    {
        return Err(refuse(
            "a bus ARN looks like arn:aws:events:{region}:{account}:event-bus/{name}",
        ));
    }
    if arn_region != region || arn_account != account_id {
        return Err(refuse(
            "the bus ARN names another account or region than accountId and region",
        ));
    }
    Ok(arn.to_owned())
}

/// `eu-west-1`, `us-gov-west-1`, `ap-southeast-2`: letters, dashes, a number.
fn is_region(region: &str) -> bool {
    let mut parts = region.split('-');
    let Some(first) = parts.next() else {
        return false;
    };
    let rest: Vec<&str> = parts.collect();
    let Some((number, middle)) = rest.split_last() else {
        return false;
    };
    first.len() == 2
        && first.bytes().all(|b| b.is_ascii_lowercase())
        && !middle.is_empty()
        && middle
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_lowercase()))
        && !number.is_empty()
        && number.len() <= 2
        && number.bytes().all(|b| b.is_ascii_digit())
}

/// A bus or event source name: 1 to 256 of letters, digits, `.-_/`.
fn is_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= NAME_MAX
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b'/'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn by_arn(arn: &str) -> NewEventBridge {
        NewEventBridge {
            account_id: "123456789012".into(),
            region: "eu-west-1".into(),
            event_bus_arn: Some(arn.into()),
            event_source_name: None,
        }
    }

    fn field(new: &NewEventBridge) -> Option<String> {
        checked(new).err().and_then(|e| e.field)
    }

    #[test]
    fn a_bus_is_named_by_its_arn_or_a_partner_event_source() {
        let target = checked(&by_arn(
            "arn:aws:events:eu-west-1:123456789012:event-bus/alyt",
        ))
        .unwrap();
        assert_eq!(target.source(), "alyt");
        let partner = checked(&NewEventBridge {
            event_bus_arn: None,
            event_source_name: Some("aws.partner/alyt.io/dev/home".into()),
            ..by_arn("")
        })
        .unwrap();
        assert_eq!(
            partner.event_bus_arn,
            "arn:aws:events:eu-west-1:123456789012:event-bus/aws.partner/alyt.io/dev/home"
        );
        assert_eq!(partner.source(), "aws.partner/alyt.io/dev/home");
    }

    #[test]
    fn each_refusal_names_its_field() {
        let arn = "arn:aws:events:eu-west-1:123456789012:event-bus/alyt";
        let cases = [
            (
                NewEventBridge {
                    account_id: "12345".into(),
                    ..by_arn(arn)
                },
                "eventBridge.accountId",
            ),
            (
                NewEventBridge {
                    region: "Europe".into(),
                    ..by_arn(arn)
                },
                "eventBridge.region",
            ),
            (
                by_arn("arn:aws:events:us-east-1:123456789012:event-bus/alyt"),
                "eventBridge.eventBusArn",
            ),
            (
                by_arn("arn:aws:sqs:eu-west-1:123456789012:queue"),
                "eventBridge.eventBusArn",
            ),
            (
                by_arn("arn:aws:events:eu-west-1:123456789012:event-bus/"),
                "eventBridge.eventBusArn",
            ),
            (
                NewEventBridge {
                    event_source_name: Some("aws.partner/x".into()),
                    ..by_arn(arn)
                },
                "eventBridge",
            ),
            (
                NewEventBridge {
                    event_bus_arn: None,
                    event_source_name: Some("partner/alyt/x".into()),
                    ..by_arn(arn)
                },
                "eventBridge.eventSourceName",
            ),
            (
                NewEventBridge {
                    event_bus_arn: None,
                    ..by_arn(arn)
                },
                "eventBridge",
            ),
        ];
        for (new, expected) in cases {
            assert_eq!(field(&new).as_deref(), Some(expected), "{new:?}");
        }
    }

    proptest! {
        /// Any ARN of the given account and region with a valid name is
        /// taken as it is; any text at all is refused or taken, never a panic.
        #[test]
        fn arns_of_the_account_and_region_are_taken(name in "[A-Za-z0-9._/-]{1,256}") {
            let arn = format!("arn:aws:events:eu-west-1:123456789012:event-bus/{name}");
            prop_assert_eq!(checked(&by_arn(&arn)).unwrap().event_bus_arn, arn);
        }

        #[test]
        fn any_text_is_refused_or_taken(arn in "\\PC{0,80}", region in "\\PC{0,20}", account in "\\PC{0,14}") {
            let _ = checked(&NewEventBridge { account_id: account, region, event_bus_arn: Some(arn), event_source_name: None });
        }
    }
}
