//! `DynamoStore::from_env` with the endpoint override, against moto. Alone in its
//! binary because it sets environment variables.

use std::sync::Arc;

use alyt_domain::ManualClock;
use alyt_store::conformance::start_time;
use alyt_store::{Item, Key, Store};

#[tokio::test]
async fn from_env_honours_the_endpoint_override() {
    let server = alyt_aws::testing::moto().await;
    let table = "alyt-from-env";
    alyt_aws::create_table(&server.client(), table)
        .await
        .unwrap();
    // SAFETY: the only test of this binary; no other thread reads the environment.
    unsafe {
        std::env::set_var(alyt_aws::ENDPOINT_ENV, server.endpoint());
        std::env::set_var("AWS_ACCESS_KEY_ID", "testing");
        std::env::set_var("AWS_SECRET_ACCESS_KEY", "testing");
        std::env::set_var("AWS_REGION", "us-east-1");
        std::env::set_var("AWS_EC2_METADATA_DISABLED", "true");
    }
    let clock = Arc::new(ManualClock::new(start_time()));
    let store = alyt_aws::DynamoStore::from_env(table, clock).await;
    store
        .put(Item::new(Key::new("ENV", "1")), None)
        .await
        .unwrap();
    assert!(store.get(&Key::new("ENV", "1")).await.unwrap().is_some());
}
