//! The shared Store conformance suite against the DynamoDB adapter on moto.

use std::sync::Arc;

use alyt_domain::ManualClock;
use alyt_store::conformance::{Fixture, start_time};

async fn fresh_store() -> Fixture {
    let clock = Arc::new(ManualClock::new(start_time()));
    let store = alyt_aws::testing::fresh_table(clock.clone()).await;
    let (client, table) = (store.client().clone(), store.table().to_owned());
    Fixture {
        store: Arc::new(store),
        clock,
        // Another instance (its own memory of log heads) on the same table.
        another: Arc::new(move |clock| {
            Arc::new(alyt_aws::DynamoStore::new(
                client.clone(),
                table.clone(),
                clock,
            ))
        }),
    }
}

alyt_store::store_conformance_suite!(fresh_store);
