//! The IoT Core connection settings the runner builds. Only the settings:
//! connecting through IoT Core and its custom authorizer cannot be tested
//! here (no IoT Core), see infra/README.md.

use alyt_simulator::RunnerConfig;

#[test]
fn iot_core_is_tls_on_443_with_the_authorizer_named_in_the_username() {
    let config = RunnerConfig::iot_core(
        "a1b2c3d4e5f6g7-ats.iot.eu-west-1.amazonaws.com",
        "alyt-devices",
    )
    .expect("this machine has root certificates");
    assert_eq!(
        config.broker_host,
        "a1b2c3d4e5f6g7-ats.iot.eu-west-1.amazonaws.com"
    );
    assert_eq!(config.broker_port, 443);
    assert_eq!(
        config.username_suffix,
        "?x-amz-customauthorizer-name=alyt-devices"
    );
    assert!(config.tls.is_some());
}

#[test]
fn the_plain_config_has_no_suffix_and_no_tls() {
    let config = RunnerConfig::new("127.0.0.1", 1883);
    assert!(config.username_suffix.is_empty());
    assert!(config.tls.is_none());
}
