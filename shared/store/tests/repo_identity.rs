//! Rules of the identity repositories that must hold under concurrency.

use std::collections::BTreeMap;
use std::sync::Arc;

use alyt_domain::ManualClock;
use alyt_domain::ids::UserId;
use alyt_store::conformance::start_time;
use alyt_store::repo::CreateError;
use alyt_store::repo::identity::{UserRecord, Users};
use alyt_store::sqlite::SqliteStore;

fn user(email: &str) -> UserRecord {
    UserRecord {
        name: None,
        id: UserId::new(),
        email: email.into(),
        password_hash: "$argon2id$placeholder".into(),
        email_verified_at: None,
        platform_role: None,
        tenants: BTreeMap::new(),
        developer_id: None,
        mfa: None,
        units: None,
        created_at: start_time(),
    }
}

fn store() -> SqliteStore {
    SqliteStore::in_memory(Arc::new(ManualClock::new(start_time()))).unwrap()
}

#[tokio::test]
async fn a_totp_step_is_accepted_once_and_saving_the_user_never_rolls_it_back() {
    let store = store();
    let users = Users(&store);
    let mut u = user("a@example.com");
    users.create(&u).await.unwrap();
    assert!(users.accept_totp_step(u.id, 100).await.unwrap());
    assert!(
        !users.accept_totp_step(u.id, 100).await.unwrap(),
        "the same step twice"
    );
    assert!(
        !users.accept_totp_step(u.id, 99).await.unwrap(),
        "an older step"
    );
    // A record read before the acceptance, saved after it.
    u.units = Some("metric".into());
    users.save(&u).await.unwrap();
    assert!(
        !users.accept_totp_step(u.id, 100).await.unwrap(),
        "save kept the step"
    );
    assert!(users.accept_totp_step(u.id, 101).await.unwrap());
    assert_eq!(
        users.get(u.id).await.unwrap().unwrap().units.as_deref(),
        Some("metric")
    );
}

#[tokio::test]
async fn one_account_per_address_ignoring_case() {
    let store = store();
    let users = Users(&store);
    users.create(&user("Jamie@Example.com")).await.unwrap();
    let again = users.create(&user("jamie@example.COM")).await;
    assert!(
        matches!(again, Err(CreateError::Taken("email"))),
        "{again:?}"
    );
    let found = users
        .find_by_email("JAMIE@example.com")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found.email, "Jamie@Example.com");
}
