//! Lambda entry of the IoT Core custom authorizer.
//!
//! Environment: `ALYT_TABLE` (the credentials' table) and
//! `ALYT_IOT_ARN_PREFIX` (`arn:{partition}:iot:{region}:{account}`, the
//! prefix of the policy's resources).

use std::sync::Arc;

use alyt_aws::DynamoStore;
use alyt_device::credentials::StoreDeviceAuthenticator;
use alyt_domain::{Clock, SystemClock};
use alyt_iot_authorizer::Authorizer;
use lambda_runtime::{Error, LambdaEvent, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    alyt_aws::lambda::init_logs();
    let table = alyt_aws::lambda::table_from_env()?;
    let arn_prefix = std::env::var("ALYT_IOT_ARN_PREFIX")
        .ok()
        .filter(|p| p.starts_with("arn:"))
        .ok_or("ALYT_IOT_ARN_PREFIX (arn:{partition}:iot:{region}:{account}) is not set")?;
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let store = Arc::new(DynamoStore::from_env(table, clock).await);
    let authorizer = Authorizer {
        authenticator: Arc::new(StoreDeviceAuthenticator::new(store)),
        arn_prefix,
    };
    lambda_runtime::run(service_fn(|event: LambdaEvent<serde_json::Value>| {
        let authorizer = &authorizer;
        async move { Ok::<_, Error>(authorizer.handle(event.payload).await) }
    }))
    .await
}
