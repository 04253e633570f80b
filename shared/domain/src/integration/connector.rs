//! The connector protocol: what the platform sends a connector server and
//! what it accepts back. The spec names the results (connect result,
//! endpoint fields) but not the calls, so the calls are ours; they are
//! versioned by path (`/v1/...` under the connector's server URL) and
//! documented in `shared/connectors/PROTOCOL.md`.
//!
//! Every call is an HTTP POST of JSON with `Authorization: Bearer <runtime
//! token>` (the connector's runtime token, separate from any app secret).
//! Everything here is plain data: the HTTP client lives in `alyt-connectors`.
//! Answers are read leniently where a newer connector may say more (unknown
//! fields are ignored) and strictly where the platform acts on them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::EndpointKind;
use crate::device::{DeviceCapability, Lenient};

/// Path of each call under the connector's server URL.
pub const CONNECT_PATH: &str = "v1/connect";
pub const DISCOVER_PATH: &str = "v1/discover";
pub const READ_PATH: &str = "v1/read";
pub const COMMAND_PATH: &str = "v1/command";
pub const DISCONNECT_PATH: &str = "v1/disconnect";

/// A connector's answer body is refused beyond this size.
pub const MAX_ANSWER_BYTES: usize = 1024 * 1024;
/// At most this many things per discovery answer are taken.
pub const MAX_DISCOVERED_THINGS: usize = 500;

/// A connect-form field the connector asks for (spec: Connect field).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ConnectField {
    pub key: String,
    pub label: String,
    pub kind: ConnectFieldKind,
    /// A secret field is never shown back nor logged.
    pub secret: bool,
    pub required: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub placeholder: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub help: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub options: Option<Vec<ConnectFieldOption>>,
}

/// The kind of a connect field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum ConnectFieldKind {
    Text,
    Password,
    Email,
    Select,
}

/// One choice of a `select` field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ConnectFieldOption {
    pub value: String,
    pub label: String,
}

/// `POST v1/connect`: a household connects the connector (first call), or
/// answers a challenge (`challengeToken` set).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectCall {
    pub integration_id: String,
    pub tenant_id: String,
    /// What the person typed, by field key.
    pub input: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub challenge_token: Option<String>,
}

/// The connector's answer to `v1/connect`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum ConnectAnswer {
    /// Connected: `config` is what the platform keeps and sends back on
    /// every later call (the integration configuration, where a LAN thing's
    /// secrets live). Opaque to the platform; never shown to anyone.
    Connected {
        #[serde(default)]
        config: Map<String, Value>,
        /// Present when the integration is a streaming-provider account
        /// (see [`super::music`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        account: Option<super::music::ProviderAccount>,
    },
    /// More input is needed (a code sent by SMS, a button on a bridge).
    Challenge {
        token: String,
        prompt: String,
        #[serde(default)]
        fields: Vec<ConnectField>,
    },
    Rejected {
        reason: String,
    },
}

/// `POST v1/discover`, `v1/disconnect`: the integration and its config.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IntegrationCall {
    pub integration_id: String,
    pub tenant_id: String,
    pub config: Map<String, Value>,
}

/// One thing a connector found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoveredThing {
    /// The provider's stable id (never an IP address: addresses change).
    pub external_id: String,
    /// Read leniently: an unknown kind becomes `OTHER`.
    pub kind: Lenient<EndpointKind>,
    pub name: String,
    /// The room the provider places the thing in, if it knows one.
    #[serde(default)]
    pub room: Option<String>,
    #[serde(default)]
    pub address: Option<String>,
    /// Capabilities this build does not know are dropped on use.
    #[serde(default)]
    pub capability_set: Vec<Lenient<DeviceCapability>>,
    /// Provider detail the platform keeps as given (e.g. a speaker's
    /// source modes).
    #[serde(default)]
    pub capabilities: Option<Map<String, Value>>,
    #[serde(default)]
    pub features: Vec<String>,
    /// Current values keyed by capability: `{ "light": { "power": true } }`.
    #[serde(default)]
    pub state: Map<String, Value>,
}

/// The connector's answer to `v1/discover`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverAnswer {
    pub things: Vec<DiscoveredThing>,
    /// The provider's room words and the room names they mean
    /// (`{ "lounge": "living room" }`), folded before rooms are matched.
    #[serde(default)]
    pub room_synonyms: BTreeMap<String, String>,
}

/// `POST v1/read`: current state of some things.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadCall {
    pub integration_id: String,
    pub tenant_id: String,
    pub config: Map<String, Value>,
    pub external_ids: Vec<String>,
}

/// One thing's read: its state, or why it could not be read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThingRead {
    pub external_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The connector's answer to `v1/read` (things it does not mention could
/// not be read).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadAnswer {
    pub things: Vec<ThingRead>,
}

/// `POST v1/command`: one validated command for one thing.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandCall {
    pub integration_id: String,
    pub tenant_id: String,
    pub config: Map<String, Value>,
    pub external_id: String,
    pub command: String,
    pub payload: Option<Map<String, Value>>,
}

/// The connector's answer to `v1/command`. `applied` carries the state the
/// connector read back after the change: that is what the platform stores,
/// never what was requested.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum CommandAnswer {
    Applied {
        state: Map<String, Value>,
    },
    /// The thing refused it (unsupported, out of range for this model).
    Rejected {
        reason: String,
    },
    /// The thing could not be reached or failed.
    Failed {
        reason: String,
    },
}
