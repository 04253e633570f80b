//! The device plane's broker side: topic rules shared by both runtimes and the
//! embedded MQTT broker of the local platform.

pub mod broker;
pub mod channels;
pub mod topic;

pub use broker::{
    Broker, BrokerConfig, BrokerError, BrokerStats, DeviceAuthenticator, InboundMessage,
    start_broker,
};
pub use channels::{
    Availability, ChannelMessage, CommandMessage, CommandResponse, JsonObject, MAX_DEPTH,
    MAX_PAYLOAD_BYTES, RejectReason, Rejected, StatusReport, Telemetry, decode_any, decode_inbound,
    encode, encode_command, payload_schema,
};
pub use topic::{
    Channel, DeviceIdentity, TOPIC_ROOT, may_publish, may_subscribe, may_will, parse_topic,
};
