use alyt_store::{Item, Key};
use alyt_tests::TestPlatform;

/// What was stored survives a stop and a start on the same data directory.
#[tokio::test]
async fn the_platform_restarts_on_its_own_data() {
    let t = TestPlatform::start().await;
    t.platform
        .store()
        .put(
            Item::new(Key::new("E2E#restart", "X")).with("kept", true),
            None,
        )
        .await
        .unwrap();

    let t = t.restart().await;
    let kept = t
        .platform
        .store()
        .get(&Key::new("E2E#restart", "X"))
        .await
        .unwrap()
        .expect("the item survives a restart");
    assert_eq!(kept.get("kept"), Some(&serde_json::Value::Bool(true)));
    // It serves again (on a fresh free port).
    let response = t.http.get(t.url("/capabilities")).send().await.unwrap();
    assert_eq!(response.status(), 200);
}

/// One process per data directory: a second start on a directory in use is
/// refused with a message naming the holder's pid; once the first stops, the
/// directory opens again.
#[tokio::test]
async fn a_data_directory_in_use_refuses_a_second_platform() {
    let t = TestPlatform::start().await;
    let dir = t.platform.data_dir.clone();
    let second = alyt_local::spawn(alyt_local::Config::for_tests(dir.clone())).await;
    let Err(refused) = second else {
        panic!("a second platform opened a data directory in use");
    };
    assert!(
        matches!(&refused, alyt_local::StartError::DataDirInUse { pid, .. } if *pid == std::process::id().to_string()),
        "{refused}"
    );
    let said = refused.to_string();
    assert!(
        said.contains("in use") && said.contains(&std::process::id().to_string()),
        "{said}"
    );
    let t = t.restart().await;
    assert_eq!(
        t.platform.data_dir, dir,
        "the stopped platform let go of it"
    );
}

/// Two platforms run side by side on free ports without clashing.
#[tokio::test]
async fn platforms_take_free_ports() {
    let a = TestPlatform::start().await;
    let b = TestPlatform::start().await;
    assert_ne!(a.platform.http_addr.port(), 0);
    assert_ne!(a.platform.http_addr, b.platform.http_addr);
}

/// The embedded broker listens on its own free port and, with no device
/// credentials issued, refuses anonymous and unknown logins at CONNACK.
#[tokio::test]
async fn the_broker_listens_and_refuses_unknown_devices() {
    use rumqttc::{AsyncClient, ConnectReturnCode, Event, MqttOptions, Packet};
    let t = TestPlatform::start().await;
    let addr = t.platform.mqtt_addr;
    assert_ne!(addr.port(), 0);
    assert_ne!(addr, t.platform.http_addr);

    for credentials in [None, Some(("someone", "guess"))] {
        let mut options = MqttOptions::new("e2e-probe", addr.ip().to_string(), addr.port());
        if let Some((user, password)) = credentials {
            options.set_credentials(user, password);
        }
        let (_client, mut events) = AsyncClient::new(options, 10);
        let refused = tokio::time::timeout(std::time::Duration::from_secs(10), async {
            loop {
                match events.poll().await {
                    Ok(Event::Incoming(Packet::ConnAck(ack))) => {
                        break ack.code != ConnectReturnCode::Success;
                    }
                    Ok(_) => continue,
                    // A refused login may also surface as an error or a closed socket.
                    Err(_) => break true,
                }
            }
        })
        .await
        .expect("the broker answers within 10 s");
        assert!(refused, "login {credentials:?} must be refused");
    }
}
