//! The device plane: topic rules and channel schemas shared by both runtimes,
//! device credentials and the password check, the AsyncAPI document, and (feature `broker`, the local platform only) the
//! embedded MQTT broker, so that Lambdas never compile rmqtt.

pub mod asyncapi;
pub mod bridge;
#[cfg(feature = "broker")]
pub mod broker;
pub mod channels;
pub mod connect;
pub mod credentials;
pub mod inbox;
pub mod ingest;
pub mod liveness_sweep;
pub mod meter;
pub mod pairing;
pub mod plane;
pub mod sequencer;
pub mod topic;

#[cfg(feature = "broker")]
pub use broker::{
    Broker, BrokerConfig, BrokerError, BrokerPublisher, BrokerStats, BrokerStop, start_broker,
};
pub use channels::{
    Availability, ChannelMessage, CommandMessage, CommandResponse, JsonObject, MAX_DEPTH,
    MAX_PAYLOAD_BYTES, RejectReason, Rejected, StatusReport, Telemetry, decode_any, decode_inbound,
    encode, encode_command, payload_schema,
};
pub use plane::{
    Delivery, DeviceAuthenticator, DevicePublisher, InboundMessage, NoPublisher, PublishError,
    PublishPacket, Receipt, publish_digest,
};
pub use topic::{
    Channel, DeviceIdentity, TOPIC_ROOT, may_publish, may_subscribe, may_will, parse_topic,
};
