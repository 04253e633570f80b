//! `alyt-admin` against DynamoDB (moto). `bootstrap` creates the owner once, then
//! reports that nothing changed; the owner can sign in through the hosted
//! router built on the same table.

use std::process::Command;
use std::sync::Arc;

use alyt_domain::{Clock, SystemClock};

#[tokio::test]
async fn bootstrap_creates_the_owner_once() {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let store = alyt_aws::testing::fresh_table(clock).await;
    let endpoint = alyt_aws::testing::moto().await.endpoint().to_owned();
    let run = |extra: &[(&str, &str)]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_alyt-admin"));
        command
            .args(["bootstrap", "root@example.com"])
            .env("ALYT_TABLE", store.table())
            .env("ALYT_DYNAMODB_ENDPOINT", &endpoint)
            .env("AWS_ACCESS_KEY_ID", "testing")
            .env("AWS_SECRET_ACCESS_KEY", "testing")
            .env("AWS_REGION", "us-east-1");
        for (k, v) in extra {
            command.env(k, v);
        }
        command.output().unwrap()
    };
    let first = run(&[("ALYT_OWNER_PASSWORD", "plum tractor season")]);
    let stdout = String::from_utf8_lossy(&first.stdout);
    assert!(
        first.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert!(
        stdout.contains("Created the platform owner root@example.com"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("plum tractor season"),
        "a chosen password is never echoed"
    );

    let second = run(&[]);
    assert!(second.status.success());
    assert!(String::from_utf8_lossy(&second.stdout).contains("nothing changed"));

    let user = alyt_store::repo::identity::Users(&store)
        .find_by_email("root@example.com")
        .await
        .unwrap()
        .expect("the owner exists");
    assert_eq!(
        user.platform_role,
        Some(alyt_domain::access::PlatformRole::Owner)
    );
    assert!(alyt_app::auth::passwords::verify_password(
        "plum tractor season",
        &user.password_hash
    ));
}

#[test]
fn bad_usage_is_exit_2() {
    let output = Command::new(env!("CARGO_BIN_EXE_alyt-admin"))
        .arg("bootstrap")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("usage"));
}

/// `alyt-admin log-shards` grows a tenant's event log on the table, and
/// refuses to shrink it (the log keeps the shards it has).
#[tokio::test]
async fn log_shards_grows_a_tenants_log_and_never_shrinks_it() {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let store = alyt_aws::testing::fresh_table(clock).await;
    let endpoint = alyt_aws::testing::moto().await.endpoint().to_owned();
    let tenant = alyt_domain::ids::TenantId::new();
    let run = |shards: &str| {
        Command::new(env!("CARGO_BIN_EXE_alyt-admin"))
            .args(["log-shards", &tenant.to_string(), shards])
            .env("ALYT_TABLE", store.table())
            .env("ALYT_DYNAMODB_ENDPOINT", &endpoint)
            .env("AWS_ACCESS_KEY_ID", "testing")
            .env("AWS_SECRET_ACCESS_KEY", "testing")
            .env("AWS_REGION", "us-east-1")
            .output()
            .unwrap()
    };
    let events = alyt_store::repo::events::Events(&store);
    assert_eq!(events.shards(tenant).await.unwrap(), 1);
    let grown = run("16");
    assert!(
        grown.status.success(),
        "{}",
        String::from_utf8_lossy(&grown.stderr)
    );
    assert!(String::from_utf8_lossy(&grown.stdout).contains("has 16 shards"));
    assert_eq!(events.shards(tenant).await.unwrap(), 16);

    let shrunk = run("4");
    assert_eq!(shrunk.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&shrunk.stderr).contains("only grow"));
    assert_eq!(events.shards(tenant).await.unwrap(), 16);
    assert_eq!(run("many").status.code(), Some(2), "not a number: usage");
}
