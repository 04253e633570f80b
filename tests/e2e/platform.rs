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

/// Two platforms run side by side on free ports without clashing.
#[tokio::test]
async fn platforms_take_free_ports() {
    let a = TestPlatform::start().await;
    let b = TestPlatform::start().await;
    assert_ne!(a.platform.http_addr.port(), 0);
    assert_ne!(a.platform.http_addr, b.platform.http_addr);
}
