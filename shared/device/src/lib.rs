//! The device plane's broker side: topic rules shared by both runtimes and the
//! embedded MQTT broker of the local platform.

pub mod broker;
pub mod topic;

pub use broker::{
    Broker, BrokerConfig, BrokerError, BrokerStats, DeviceAuthenticator, InboundMessage,
    start_broker,
};
pub use topic::{
    Channel, DeviceIdentity, TOPIC_ROOT, may_publish, may_subscribe, may_will, parse_topic,
};
