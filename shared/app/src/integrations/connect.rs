//! Connecting a connector to a home: the connector's `v1/connect`, its
//! challenges (answered once, with the platform's own one-time token), and
//! the integration stored and discovered when it connects.

use std::collections::BTreeMap;

use alyt_connectors::{ConnectAnswer, ConnectCall, ConnectField};
use alyt_domain::access::Principal;
use alyt_domain::ids::{ConnectorId, IntegrationId, PropertyId, TenantId};
use alyt_domain::secret::{random_token, sha256_hex};
use alyt_store::repo::integrations::{
    ChallengeRecord, ConnectorRecord, IntegrationRecord, Integrations,
};
use alyt_store::repo::tenancy::PropertyRecord;
use serde::Serialize;

use super::discovery::discover_into;
use super::{
    MAX_INPUT_FIELDS, MAX_INPUT_KEY_CHARS, MAX_INPUT_VALUE_CHARS, Need, installable, server,
};
use crate::access::{home_for, no_such_property};
use crate::endpoints::{Installed, connector_problem};
use crate::{App, Error};

/// Characters of a connector's reason or prompt passed on to a person.
pub const MAX_MESSAGE_CHARS: usize = 500;

fn challenge_gone() -> Error {
    Error::gone("this connect challenge is unknown, already answered or expired; connect again")
}

/// The Connect result (spec: Integrations and catalogue).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum ConnectResult {
    /// Connected and discovered: `things` endpoints are in the home.
    Connected {
        #[serde(rename = "integrationId")]
        integration_id: IntegrationId,
        /// Things discovery found (0 when discovery failed: run it again).
        things: u32,
        /// Always false: discovery has finished when this answers.
        discovering: bool,
    },
    /// The connector needs more input: answer with `POST
    /// /v1/integrations/challenge` `{ token, input }` within ten minutes.
    Challenge {
        /// One-time; good for one answer.
        token: String,
        prompt: String,
        fields: Vec<ConnectField>,
    },
    /// The connector refused (wrong code, bad credentials...).
    Rejected { reason: String },
}

/// Connect input: what a person typed, by field key. Secrets: never logged.
pub type Input = BTreeMap<String, String>;

/// The input within bounds; a value is never echoed (it may be a password).
pub fn check_input(input: &Input) -> Result<(), Error> {
    if input.len() > MAX_INPUT_FIELDS {
        return Err(Error::validation(
            "input",
            format!("input holds at most {MAX_INPUT_FIELDS} fields"),
        ));
    }
    for (key, value) in input {
        let chars = key.chars().count();
        if chars == 0 || chars > MAX_INPUT_KEY_CHARS || key.chars().any(char::is_control) {
            return Err(Error::validation(
                "input",
                format!("input keys must be 1 to {MAX_INPUT_KEY_CHARS} printable characters"),
            ));
        }
        if value.chars().count() > MAX_INPUT_VALUE_CHARS {
            // Never the value itself: it may be a password.
            return Err(Error::validation(
                format!("input.{key}"),
                format!("input values have at most {MAX_INPUT_VALUE_CHARS} characters"),
            ));
        }
    }
    Ok(())
}

/// A connector's text passed on to a person: trimmed and bounded.
fn message(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

// ---------------------------------------------------------------------------
// Connecting

/// Where a connect is going: the home, the connector and the integration id
/// the connector was told.
struct Connecting {
    home: PropertyRecord,
    connector: ConnectorRecord,
    integration_id: IntegrationId,
}

/// Calls the connector's `v1/connect` and turns its answer into the Connect
/// result (storing the integration and discovering, or the challenge).
async fn connect(
    app: &App,
    connecting: Connecting,
    input: Input,
    challenge_token: Option<String>,
) -> Result<ConnectResult, Error> {
    let Connecting {
        home,
        connector,
        integration_id,
    } = connecting;
    let call = ConnectCall {
        integration_id: integration_id.to_string(),
        tenant_id: home.tenant_id.to_string(),
        input,
        challenge_token,
    };
    let answer = app
        .connectors
        .connect(&server(app, &connector), &call)
        .await
        .map_err(|e| {
            tracing::warn!(connector = %connector.id, integration = %integration_id, error = %e, "connect failed");
            Error::bad_gateway(connector_problem(&connector, &e))
        })?;
    let now = app.clock.now();
    match answer {
        ConnectAnswer::Connected { config, account } => {
            if account.as_ref().is_some_and(|a| !a.provider_ok()) {
                return Err(Error::bad_gateway(format!(
                    "the connector {:?} named an account whose provider is not a lowercase word",
                    connector.name
                )));
            }
            let integration = IntegrationRecord {
                id: integration_id,
                tenant_id: home.tenant_id,
                property_id: home.id,
                connector_id: connector.id,
                name: connector.name.clone(),
                config,
                created_at: now,
                discovered_at: None,
                version_id: connector.listing.as_ref().map(|l| l.version_id),
                account,
            };
            match Integrations(&*app.store).create(&integration).await {
                Ok(()) => {}
                Err(e) if e.is_condition_failure() => {
                    return Err(Error::conflict("this integration is already connected"));
                }
                Err(e) => return Err(e.into()),
            }
            tracing::info!(integration = %integration.id, connector = %connector.id, tenant = %home.tenant_id, "integration connected");
            // LIVE keys of the connector hear this tenant from now on: the
            // dispatcher follows it before discovery records any event.
            alyt_events::dispatch::follow_installation(
                &*app.store,
                home.tenant_id,
                &connector.id.to_string(),
                now,
            )
            .await?;
            let installed = Installed {
                integration,
                connector,
            };
            let things = match discover_into(app, &installed).await {
                Ok(found) => found.things,
                Err(e) => {
                    // The integration stands; discovery can run again.
                    tracing::warn!(integration = %installed.integration.id, error = %e.detail, "discovery after connect failed");
                    0
                }
            };
            Ok(ConnectResult::Connected {
                integration_id,
                things,
                discovering: false,
            })
        }
        ConnectAnswer::Challenge {
            token: connector_token,
            prompt,
            fields,
        } => {
            let token = random_token();
            let challenge = ChallengeRecord {
                integration_id,
                tenant_id: home.tenant_id,
                property_id: home.id,
                connector_id: connector.id,
                connector_token,
            };
            Integrations(&*app.store)
                .put_challenge(&sha256_hex(&token), &challenge, now)
                .await?;
            Ok(ConnectResult::Challenge {
                token,
                prompt: message(&prompt),
                fields,
            })
        }
        ConnectAnswer::Rejected { reason } => Ok(ConnectResult::Rejected {
            reason: message(&reason),
        }),
    }
}

/// Connects connector `connector_id` to home `property_id` of `tenant` with
/// what a person typed, when the caller configures the home.
pub async fn connect_integration(
    app: &App,
    caller: &Principal,
    tenant: TenantId,
    property_id: PropertyId,
    connector_id: ConnectorId,
    input: Input,
) -> Result<ConnectResult, Error> {
    check_input(&input)?;
    let home = home_for(
        app,
        caller,
        tenant,
        property_id,
        Need::Configure.in_home(no_such_property),
    )
    .await?;
    let connector = installable(app, tenant, connector_id).await?;
    let connecting = Connecting {
        home,
        connector,
        integration_id: IntegrationId::new(),
    };
    connect(app, connecting, input, None).await
}

/// Answers the connect challenge `token` with what a person typed.
pub async fn answer_challenge(
    app: &App,
    caller: &Principal,
    token: &str,
    input: Input,
) -> Result<ConnectResult, Error> {
    check_input(&input)?;
    caller.require_scope(Need::Configure.scope())?;
    let (connecting, connector_token) = take_challenge(app, caller, token).await?;
    connect(app, connecting, input, Some(connector_token)).await
}

/// The connection a challenge's `token` continues, taken once, whoever
/// presents it (before anything else), in a home the caller configures;
/// with the connector's token of that challenge.
async fn take_challenge(
    app: &App,
    caller: &Principal,
    token: &str,
) -> Result<(Connecting, String), Error> {
    if token.is_empty() {
        return Err(Error::validation(
            "token",
            "token must be the challenge's token",
        ));
    }
    let challenge = Integrations(&*app.store)
        .take_challenge(&sha256_hex(token), app.clock.now())
        .await?
        .ok_or_else(challenge_gone)?;
    let home = home_for(
        app,
        caller,
        challenge.tenant_id,
        challenge.property_id,
        Need::Configure.in_home(no_such_property),
    )
    .await?;
    let connector = installable(app, challenge.tenant_id, challenge.connector_id).await?;
    let connecting = Connecting {
        home,
        connector,
        integration_id: challenge.integration_id,
    };
    Ok((connecting, challenge.connector_token))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_is_bounded_and_values_never_echoed() {
        let mut input = Input::new();
        input.insert("password".into(), "s3cret".repeat(1000));
        let e = check_input(&input).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("input.password"));
        assert!(!e.detail.contains("s3cret"));
        let many: Input = (0..=MAX_INPUT_FIELDS)
            .map(|n| (format!("k{n}"), String::new()))
            .collect();
        assert!(check_input(&many).is_err());
        assert!(check_input(&Input::from([("host".into(), "bridge".into())])).is_ok());
    }

    #[test]
    fn messages_are_bounded() {
        assert_eq!(message("  wrong code "), "wrong code");
        assert_eq!(
            message(&"x".repeat(600)).chars().count(),
            MAX_MESSAGE_CHARS + 1
        );
    }
}
