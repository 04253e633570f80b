//! The invitations repository follows the domain's model of an invitation
//! link (`alyt_domain::invitation::InvitationLink`): random sequences of
//! accepts (with any link sent so far), resends, withdrawals and waits give
//! the same answer from the store as from the model, on the SQLite store
//! with its clock moved (so expired links are hidden the way the store
//! hides them). Concurrency is the conformance suite's case, on both stores.

use std::sync::Arc;

use alyt_domain::access::HouseholdRole;
use alyt_domain::ids::{ClientId, TenantId, UserId};
use alyt_domain::invitation::{DeadLink, InvitationLink, LINK_LIFETIME, NotPending};
use alyt_domain::{Clock, ManualClock};
use alyt_store::conformance::{household_grant, invitation, start_time};
use alyt_store::repo::invitations::{InvitationError, Invitations, accept_writes};
use alyt_store::repo::members::{MemberError, Members};
use alyt_store::sqlite::SqliteStore;
use proptest::prelude::*;
use time::Duration;

#[derive(Debug, Clone)]
enum Move {
    Accept { token: u32 },
    Resend,
    Withdraw,
    Wait { hours: i64 },
}

fn moves() -> impl Strategy<Value = Vec<Move>> {
    proptest::collection::vec(
        prop_oneof![
            (0u32..4).prop_map(|token| Move::Accept { token }),
            Just(Move::Resend),
            Just(Move::Withdraw),
            (0i64..100).prop_map(|hours| Move::Wait { hours }),
        ],
        1..25,
    )
}

fn hash(token: u32) -> String {
    format!("hash-{token}")
}

/// Accepting through the link with `token`'s hash the way the API does:
/// open the link, then grant with the link spent in the same transaction.
async fn accept(store: &SqliteStore, clock: &ManualClock, token: u32) -> Result<(), DeadLink> {
    let now = clock.unix_seconds();
    let Some(open) = Invitations(store).open(&hash(token), now).await.unwrap() else {
        return Err(DeadLink);
    };
    let grant = household_grant(
        open.tenant_id,
        open.client_id,
        UserId::new(),
        HouseholdRole::Member,
    );
    match Members(store).add(&grant, accept_writes(&open, now)).await {
        Ok(()) => Ok(()),
        Err(MemberError::Refused { .. }) => Err(DeadLink),
        Err(e) => panic!("accept failed: {e}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn the_store_answers_like_the_model(moves in moves()) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let clock = Arc::new(ManualClock::new(start_time()));
            let store = SqliteStore::in_memory(clock.clone()).unwrap();
            let (tenant, client) = (TenantId::new(), ClientId::new());
            let first = invitation(tenant, client, "new@example.com", &hash(0));
            Invitations(&store).create(&first, vec![]).await.unwrap();
            let mut model = InvitationLink::sent(clock.now());
            for m in moves {
                match m {
                    Move::Accept { token } => {
                        let expected = model.accept(token, clock.now());
                        prop_assert_eq!(accept(&store, &clock, token).await, expected, "accept {}", token);
                    }
                    Move::Resend => {
                        let now = clock.now();
                        let expected = model.resend(now);
                        let read = Invitations(&store).get(client, first.id).await.unwrap();
                        let got = match read {
                            None => Err(NotPending),
                            Some(read) => {
                                let next = hash(read.sends);
                                match Invitations(&store).resend(&read, &next, now, now + LINK_LIFETIME).await {
                                    Ok(sent) => Ok(sent.sends - 1),
                                    Err(InvitationError::Gone) => Err(NotPending),
                                    Err(e) => panic!("resend failed: {e}"),
                                }
                            }
                        };
                        prop_assert_eq!(got, expected);
                    }
                    Move::Withdraw => {
                        let expected = model.withdraw();
                        let read = Invitations(&store).get(client, first.id).await.unwrap();
                        let got = match read {
                            None => Err(NotPending),
                            Some(read) => match Invitations(&store).withdraw(&read).await {
                                Ok(()) => Ok(()),
                                Err(InvitationError::Gone) => Err(NotPending),
                                Err(e) => panic!("withdraw failed: {e}"),
                            },
                        };
                        prop_assert_eq!(got, expected);
                    }
                    Move::Wait { hours } => clock.advance(Duration::hours(hours)),
                }
                // Only the model's live link opens the invitation.
                let now = clock.unix_seconds();
                for token in 0..4 {
                    let opens = Invitations(&store).open(&hash(token), now).await.unwrap().is_some();
                    prop_assert_eq!(opens, model.is_live(token, clock.now()), "link {}", token);
                }
            }
            Ok(())
        })?;
    }
}
