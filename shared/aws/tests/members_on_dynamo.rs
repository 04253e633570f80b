//! The owner guard of `repo::members` on the DynamoDB adapter (moto): the
//! rule rests on a conditional counter in a transaction, so it is checked on
//! the real SDK path too, not only on the embedded store
//! (`shared/store/tests/repo_members.rs` has the model-based proptest).

use std::sync::Arc;

use alyt_domain::ManualClock;
use alyt_domain::access::HouseholdRole;
use alyt_domain::ids::{ClientId, TenantId, UserId};
use alyt_store::conformance::start_time;
use alyt_store::repo::members::{MemberError, Members, first_owner_write};
use alyt_store::repo::tenancy::{GrantRecord, grant_write};
use alyt_store::{Key, Store};

fn grant(tenant: TenantId, client: ClientId, role: HouseholdRole) -> GrantRecord {
    GrantRecord {
        client_id: client,
        tenant_id: tenant,
        user_id: UserId::new(),
        role,
        property_id: None,
        starts_at: None,
        ends_at: None,
        granted_by: None,
        created_at: start_time(),
    }
}

async fn count(store: &dyn Store, client: ClientId) -> Option<i64> {
    store
        .get(&Key::new(format!("CLIENT#{client}"), "OWNERS"))
        .await
        .unwrap()
        .and_then(|i| i.get_i64("count"))
}

#[tokio::test]
async fn two_owners_removing_each_other_at_once_leave_one_on_dynamodb() {
    let clock = Arc::new(ManualClock::new(start_time()));
    let store = Arc::new(alyt_aws::testing::fresh_table(clock).await);
    let (tenant, client) = (TenantId::new(), ClientId::new());
    let first = grant(tenant, client, HouseholdRole::Owner);
    store
        .transact(vec![
            grant_write(&first).unwrap(),
            first_owner_write(client),
        ])
        .await
        .unwrap();
    let second = grant(tenant, client, HouseholdRole::Owner);
    Members(&*store).add(&second, vec![]).await.unwrap();
    assert_eq!(count(&*store, client).await, Some(2));
    assert!(matches!(
        Members(&*store).add(&second, vec![]).await,
        Err(MemberError::AlreadyMember)
    ));

    let (a, b) = (store.clone(), store.clone());
    let (ra, rb) = tokio::join!(
        tokio::spawn(async move { Members(&*a).remove(&first, vec![]).await }),
        tokio::spawn(async move { Members(&*b).remove(&second, vec![]).await }),
    );
    let results = [ra.unwrap(), rb.unwrap()];
    assert_eq!(
        results.iter().filter(|r| r.is_ok()).count(),
        1,
        "{results:?}"
    );
    assert!(
        results
            .iter()
            .any(|r| matches!(r, Err(MemberError::LastOwner))),
        "{results:?}"
    );
    assert_eq!(count(&*store, client).await, Some(1));
    let (left, _) = Members(&*store).list(client, 10, None).await.unwrap();
    assert_eq!(left.len(), 1);
}

#[tokio::test]
async fn a_household_without_a_count_gets_it_from_its_grants_on_dynamodb() {
    let clock = Arc::new(ManualClock::new(start_time()));
    let store = alyt_aws::testing::fresh_table(clock).await;
    let (tenant, client) = (TenantId::new(), ClientId::new());
    let owners = [
        grant(tenant, client, HouseholdRole::Owner),
        grant(tenant, client, HouseholdRole::Owner),
    ];
    let member = grant(tenant, client, HouseholdRole::Member);
    store
        .transact(vec![
            grant_write(&owners[0]).unwrap(),
            grant_write(&owners[1]).unwrap(),
            grant_write(&member).unwrap(),
        ])
        .await
        .unwrap();
    let members = Members(&store);
    assert_eq!(members.owner_count(client).await.unwrap(), 2);
    members.remove(&member, vec![]).await.unwrap();
    members.remove(&owners[0], vec![]).await.unwrap();
    assert!(matches!(
        members.remove(&owners[1], vec![]).await,
        Err(MemberError::LastOwner)
    ));
    assert_eq!(count(&store, client).await, Some(1));
}
