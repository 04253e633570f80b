//! The people of a household: grants and the owner guard ("a home always
//! keeps at least one Owner") on the embedded store, sequentially (proptest
//! against a model). The guard under concurrency and for households from
//! before the count is in the conformance suite, run on both adapters.

use std::collections::BTreeMap;
use std::sync::Arc;

use alyt_domain::ManualClock;
use alyt_domain::access::HouseholdRole;
use alyt_domain::ids::{ClientId, TenantId, UserId};
use alyt_store::conformance::{household_grant, start_time, stored_owner_count};
use alyt_store::repo::members::{MemberError, Members, first_owner_write};
use alyt_store::repo::tenancy::{Tenancy, grant_write};
use alyt_store::sqlite::SqliteStore;
use alyt_store::{Item, Key, Store};
use proptest::prelude::*;

fn store() -> SqliteStore {
    SqliteStore::in_memory(Arc::new(ManualClock::new(start_time()))).unwrap()
}

/// A household as `new_home_writes` leaves it: one owner, counted.
async fn household(store: &SqliteStore) -> (TenantId, ClientId, UserId) {
    let (tenant, client, owner) = (TenantId::new(), ClientId::new(), UserId::new());
    store
        .transact(vec![
            grant_write(&household_grant(
                tenant,
                client,
                owner,
                HouseholdRole::Owner,
            ))
            .unwrap(),
            first_owner_write(client),
        ])
        .await
        .unwrap();
    (tenant, client, owner)
}

#[tokio::test]
async fn grants_are_listed_found_and_removed_once() {
    let store = store();
    let members = Members(&store);
    let (tenant, client, owner) = household(&store).await;
    let anna = household_grant(tenant, client, UserId::new(), HouseholdRole::Member);
    members.add(&anna, vec![]).await.unwrap();
    assert!(matches!(
        members.add(&anna, vec![]).await,
        Err(MemberError::AlreadyMember)
    ));
    let (listed, next) = members.list(client, 10, None).await.unwrap();
    assert!(next.is_none());
    let mut ids: Vec<UserId> = listed.iter().map(|g| g.user_id).collect();
    ids.sort();
    let mut expected = vec![owner, anna.user_id];
    expected.sort();
    assert_eq!(ids, expected);
    // The person's own view (claims) sees the grant through gsi1.
    let hers = Tenancy(&store).grants_of(anna.user_id).await.unwrap();
    assert_eq!(hers, vec![anna.clone()]);

    members.remove(&anna, vec![]).await.unwrap();
    assert!(matches!(
        members.remove(&anna, vec![]).await,
        Err(MemberError::NotMember)
    ));
    assert_eq!(members.get(client, anna.user_id).await.unwrap(), None);
    assert!(
        Tenancy(&store)
            .grants_of(anna.user_id)
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn the_last_owner_stays_and_the_other_writes_of_a_refused_change_do_not_happen() {
    let store = store();
    let members = Members(&store);
    let (tenant, client, owner) = household(&store).await;
    let first = members.get(client, owner).await.unwrap().unwrap();
    let notice = Item::new(Key::new("NOTICE", "1"));
    let refused = members
        .remove(
            &first,
            vec![alyt_store::TxWrite::Put {
                item: notice.clone(),
                condition: None,
            }],
        )
        .await;
    assert!(
        matches!(refused, Err(MemberError::LastOwner)),
        "{refused:?}"
    );
    assert_eq!(store.get(&notice.key()).await.unwrap(), None);
    assert!(members.get(client, owner).await.unwrap().is_some());

    let second = household_grant(tenant, client, UserId::new(), HouseholdRole::Owner);
    members.add(&second, vec![]).await.unwrap();
    assert_eq!(stored_owner_count(&store, client).await, Some(2));
    members.remove(&first, vec![]).await.unwrap();
    assert_eq!(stored_owner_count(&store, client).await, Some(1));
    assert!(matches!(
        members.remove(&second, vec![]).await,
        Err(MemberError::LastOwner)
    ));
}

#[derive(Debug, Clone)]
enum Op {
    Add(usize, HouseholdRole),
    Remove(usize),
}

fn op() -> impl Strategy<Value = Op> {
    let role = prop_oneof![
        Just(HouseholdRole::Owner),
        Just(HouseholdRole::Member),
        Just(HouseholdRole::Guest),
    ];
    prop_oneof![
        (0..4usize, role).prop_map(|(p, r)| Op::Add(p, r)),
        (0..5usize).prop_map(Op::Remove),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any sequence of grants and removals: the store agrees with a plain
    /// model, the count is the number of owner grants, and the household
    /// never loses its last owner.
    #[test]
    fn any_sequence_keeps_an_owner_and_a_true_count(ops in proptest::collection::vec(op(), 1..30)) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let store = store();
            let members = Members(&store);
            let (tenant, client, owner) = household(&store).await;
            // People 0..4 are candidates; person 4 is the first owner.
            let people: Vec<UserId> = (0..4).map(|_| UserId::new()).chain([owner]).collect();
            let mut model: BTreeMap<usize, HouseholdRole> = BTreeMap::from([(4, HouseholdRole::Owner)]);
            for op in ops {
                match op {
                    Op::Add(p, role) => {
                        let result = members.add(&household_grant(tenant, client, people[p], role), vec![]).await;
                        match model.entry(p) {
                            std::collections::btree_map::Entry::Occupied(_) => {
                                prop_assert!(matches!(result, Err(MemberError::AlreadyMember)));
                            }
                            std::collections::btree_map::Entry::Vacant(place) => {
                                prop_assert!(result.is_ok());
                                place.insert(role);
                            }
                        }
                    }
                    Op::Remove(p) => {
                        let current = members.get(client, people[p]).await.unwrap();
                        let owners = model.values().filter(|r| **r == HouseholdRole::Owner).count();
                        match (model.get(&p), current) {
                            (None, None) => {}
                            (Some(role), Some(current)) => {
                                let result = members.remove(&current, vec![]).await;
                                if *role == HouseholdRole::Owner && owners == 1 {
                                    prop_assert!(matches!(result, Err(MemberError::LastOwner)));
                                } else {
                                    prop_assert!(result.is_ok());
                                    model.remove(&p);
                                }
                            }
                            (expected, found) => prop_assert!(false, "model {expected:?}, store {found:?}"),
                        }
                    }
                }
                let owners = model.values().filter(|r| **r == HouseholdRole::Owner).count();
                prop_assert!(owners >= 1);
                prop_assert_eq!(stored_owner_count(&store, client).await, Some(owners as i64));
                let (listed, _) = members.list(client, 10, None).await.unwrap();
                prop_assert_eq!(listed.len(), model.len());
            }
            Ok(())
        })?;
    }
}
