//! The hosted request-rate limiter on DynamoDB (moto): two instances over one
//! table, each counting locally and sharing its counts at most once a second,
//! let through the quota plus at most the documented slack (instances x one
//! interval x what each serves in it), with one table write per instance per
//! second, none per request.

use std::sync::Arc;

use alyt_api::conventions::ratelimit::{Bucket, RateLimitPolicy, RateLimiter, SYNC_INTERVAL};
use alyt_domain::ManualClock;
use alyt_store::Store;
use alyt_store::conformance::start_time;

#[tokio::test]
async fn two_instances_share_one_quota_within_the_slack() {
    let clock = Arc::new(ManualClock::new(start_time()));
    let store = Arc::new(alyt_store::counting::CountingStore::new(
        alyt_aws::testing::fresh_table(clock.clone()).await,
    ));
    let quota = 20;
    let instance = || {
        RateLimiter::new(
            RateLimitPolicy {
                name: "default".into(),
                quota,
                window_seconds: 3600,
            },
            clock.clone(),
        )
        .shared_through(store.clone() as Arc<dyn Store>, SYNC_INTERVAL)
    };
    let instances = [instance(), instance()];
    let caller = Bucket::User(alyt_domain::ids::UserId::new());
    let per_second = 3;
    let mut allowed = 0;
    let mut requests = 0;
    for _second in 0..20 {
        for limiter in &instances {
            for _ in 0..per_second {
                requests += 1;
                let charged = limiter.charge(&caller);
                allowed += u32::from(charged.decision.allowed);
                if let Some(push) = charged.push {
                    limiter.push(push).await;
                }
            }
        }
        clock.advance(time::Duration::seconds(1));
    }
    let slack = instances.len() as u32 * per_second;
    assert!(
        (quota..=quota + slack).contains(&allowed),
        "{allowed} allowed of {requests}, quota {quota}, slack {slack}"
    );
    let writes = store.take().get("update").copied().unwrap_or(0);
    assert!(
        writes <= 2 * 20,
        "{writes} writes for {requests} requests: at most one per instance per second"
    );
}
