//! Invitations to a household (`POST /invitations`): the pending invitations
//! of a household and their one-time links. The life of a link is the domain's
//! [`InvitationLink`](alyt_domain::invitation::InvitationLink); this is how
//! the store keeps it under concurrency.
//!
//! Keys (see `DATA_MODEL.md`, "People"):
//! * invitation `CLIENT#{c}/INVITATION#{id}`: the terms, who invited, the
//!   SHA-256 of the current link's token, when that link runs out, and how
//!   many links were sent. Lives while pending (accepting or withdrawing
//!   deletes it).
//! * invitee guard `CLIENT#{c}/INVITEE#{lowercased address}` `{ invitationId }`:
//!   one pending invitation per address and household.
//! * the link `TOKEN#invitation#{sha256}/TOKEN` `{ tenantId, clientId,
//!   invitationId }` with `ttl` at the link's end (`repo::tokens`): it exists
//!   only while the link can work. Accepting deletes it, conditioned on its
//!   presence and `ttl > now`, in the transaction that makes the grant, so of
//!   many concurrent accepts exactly one succeeds; a resend swaps it for a
//!   new one in one transaction conditioned on the invitation's current
//!   token hash.

use super::{page, record, ts};
use alyt_domain::access::HouseholdRole;
use alyt_domain::ids::{ClientId, InvitationId, PropertyId, TenantId, UserId};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use uuid::Uuid;

use super::identity::email_key;
use super::tokens::{self, Purpose};
use crate::{
    CancelReason, Condition, Item, Key, ListScope, PageKey, SortKey, Store, StoreError, TxWrite,
    UpdateAction,
};

/// A pending invitation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InvitationRecord {
    pub id: InvitationId,
    pub tenant_id: TenantId,
    pub client_id: ClientId,
    /// The address invited, as typed.
    pub email: String,
    /// How the inviter called the person.
    pub name: Option<String>,
    pub role: HouseholdRole,
    /// A guest's home and stay.
    pub property_id: Option<PropertyId>,
    #[serde(with = "ts::option", default)]
    pub starts_at: Option<OffsetDateTime>,
    #[serde(with = "ts::option", default)]
    pub expires_at: Option<OffsetDateTime>,
    #[serde(default)]
    pub require_network: bool,
    #[serde(default)]
    pub phone_thing_id: Option<Uuid>,
    #[serde(default)]
    pub reservation_key: Option<String>,
    pub invited_by: Option<UserId>,
    #[serde(with = "ts::rfc3339")]
    pub created_at: OffsetDateTime,
    /// When the current link was sent.
    #[serde(with = "ts::rfc3339")]
    pub sent_at: OffsetDateTime,
    /// When the current link stops working.
    #[serde(with = "ts::rfc3339")]
    pub link_expires_at: OffsetDateTime,
    /// How many links were sent (1 for the first).
    pub sends: u32,
    /// SHA-256 (hex) of the current link's token: only that link works.
    pub token_hash: String,
}

/// What a link's token item says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct LinkPayload {
    tenant_id: TenantId,
    client_id: ClientId,
    invitation_id: InvitationId,
}

/// Why an invitation change did not happen.
#[derive(Debug, thiserror::Error)]
pub enum InvitationError {
    /// The address already has a pending invitation to the household.
    #[error("this address already has a pending invitation")]
    AlreadyInvited(InvitationId),
    /// The invitation was accepted, withdrawn or changed meanwhile.
    #[error("the invitation is no longer pending")]
    Gone,
    /// The condition of write `write` of the caller's `also` failed (a
    /// guest's reservation key already in use): nothing was written.
    #[error("write {write} of the change was refused")]
    Refused { write: usize },
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn invitation_key(client: ClientId, id: InvitationId) -> Key {
    Key::new(format!("CLIENT#{client}"), format!("INVITATION#{id}"))
}

fn invitee_key(client: ClientId, email: &str) -> Key {
    Key::new(
        format!("CLIENT#{client}"),
        format!("INVITEE#{}", email_key(email)),
    )
}

/// The list of a household's pending invitations.
pub fn household_invitations(client: ClientId) -> ListScope {
    ListScope::Table(format!("CLIENT#{client}"))
}

fn link_write(invitation: &InvitationRecord) -> Result<TxWrite, StoreError> {
    let payload = LinkPayload {
        tenant_id: invitation.tenant_id,
        client_id: invitation.client_id,
        invitation_id: invitation.id,
    };
    let item = Item::from_record(
        tokens::key(Purpose::Invitation, &invitation.token_hash),
        &payload,
    )?
    .with("ttl", invitation.link_expires_at.unix_timestamp());
    Ok(TxWrite::Put {
        item,
        condition: Some(Condition::item_absent()),
    })
}

/// The invitation's record, conditioned on its current link: a write made
/// from a stale read (a resend or an accept in between) fails.
fn as_read(invitation: &InvitationRecord) -> Condition {
    Condition::item_present().and(Condition::eq("tokenHash", invitation.token_hash.clone()))
}

/// The writes that accept `invitation` through its current link at `now`
/// (Unix seconds), for the transaction that grants the membership: write 0
/// spends the link (it fails when the link is unknown, spent or expired),
/// write 1 deletes the invitation as read, write 2 frees the address.
pub fn accept_writes(invitation: &InvitationRecord, now_unix: i64) -> Vec<TxWrite> {
    let mut writes = vec![tokens::consume_write(
        Purpose::Invitation,
        &invitation.token_hash,
        now_unix,
    )];
    writes.extend(removal_writes(invitation));
    writes
}

/// The writes that withdraw `invitation` (as read: write 0 fails when it
/// was accepted, withdrawn or resent since), for a transaction that does
/// more (a guest checked out before accepting).
pub fn withdraw_writes(invitation: &InvitationRecord) -> Vec<TxWrite> {
    let mut writes = Vec::from(removal_writes(invitation));
    writes.push(TxWrite::Delete {
        key: tokens::key(Purpose::Invitation, &invitation.token_hash),
        condition: None,
    });
    writes
}

/// The writes that remove `invitation` however it ends: the invitation as
/// read (fails when it was accepted, withdrawn or resent since), then its
/// invitee guard, which frees the address for a new invitation.
fn removal_writes(invitation: &InvitationRecord) -> [TxWrite; 2] {
    [
        TxWrite::Delete {
            key: invitation_key(invitation.client_id, invitation.id),
            condition: Some(as_read(invitation)),
        },
        TxWrite::Delete {
            key: invitee_key(invitation.client_id, &invitation.email),
            condition: None,
        },
    ]
}

/// The write that moves the stay of a pending guest `invitation` (as read)
/// to new dates.
pub fn stay_write(
    invitation: &InvitationRecord,
    starts_at: OffsetDateTime,
    expires_at: OffsetDateTime,
) -> Result<TxWrite, StoreError> {
    Ok(TxWrite::Update {
        key: invitation_key(invitation.client_id, invitation.id),
        actions: vec![
            UpdateAction::Set("startsAt".into(), rfc3339(starts_at)?),
            UpdateAction::Set("expiresAt".into(), rfc3339(expires_at)?),
        ],
        condition: Some(as_read(invitation)),
    })
}

fn rfc3339(at: OffsetDateTime) -> Result<serde_json::Value, StoreError> {
    at.format(&time::format_description::well_known::Rfc3339)
        .map(Into::into)
        .map_err(|e| StoreError::Invalid(e.to_string()))
}

pub struct Invitations<'a>(pub &'a dyn Store);

impl Invitations<'_> {
    /// Records a new invitation with its first link, and `also` (a guest's
    /// stay and its event) in the same transaction.
    pub async fn create(
        &self,
        invitation: &InvitationRecord,
        also: Vec<TxWrite>,
    ) -> Result<(), InvitationError> {
        let guard = Item::new(invitee_key(invitation.client_id, &invitation.email))
            .with("invitationId", invitation.id.to_string());
        let mut writes = vec![
            TxWrite::Put {
                item: Item::from_record(
                    invitation_key(invitation.client_id, invitation.id),
                    invitation,
                )?,
                condition: Some(Condition::item_absent()),
            },
            TxWrite::Put {
                item: guard,
                condition: Some(Condition::item_absent()),
            },
            link_write(invitation)?,
        ];
        let also_from = writes.len();
        writes.extend(also);
        match self.0.transact(writes).await {
            Ok(()) => Ok(()),
            Err(StoreError::TransactionCanceled { reasons })
                if reasons
                    .iter()
                    .skip(also_from)
                    .any(|r| *r == CancelReason::ConditionFailed) =>
            {
                let write = reasons
                    .iter()
                    .skip(also_from)
                    .position(|r| *r == CancelReason::ConditionFailed)
                    .unwrap_or(0);
                Err(InvitationError::Refused { write })
            }
            Err(e) if e.is_condition_failure() => {
                let pending = self
                    .0
                    .get(&invitee_key(invitation.client_id, &invitation.email))
                    .await?
                    .and_then(|i| i.get_str("invitationId").map(str::to_owned))
                    .and_then(|id| id.parse::<InvitationId>().ok());
                match pending {
                    Some(id) => Err(InvitationError::AlreadyInvited(id)),
                    None => Err(InvitationError::Gone),
                }
            }
            Err(e) => Err(e.into()),
        }
    }

    pub async fn get(
        &self,
        client: ClientId,
        id: InvitationId,
    ) -> Result<Option<InvitationRecord>, StoreError> {
        record(self.0, &invitation_key(client, id)).await
    }

    /// One page of a household's pending invitations, oldest first. One
    /// query.
    pub async fn list(
        &self,
        client: ClientId,
        limit: u32,
        after: Option<PageKey>,
    ) -> Result<(Vec<InvitationRecord>, Option<PageKey>), StoreError> {
        page(
            self.0,
            household_invitations(client)
                .query()
                .sort(SortKey::BeginsWith("INVITATION#".into()))
                .limit(limit)
                .after(after),
        )
        .await
    }

    /// The pending invitation whose live link has the token hash `hash` at
    /// `now` (Unix seconds); `None` for every dead link. Two gets.
    pub async fn open(
        &self,
        hash: &str,
        now_unix: i64,
    ) -> Result<Option<InvitationRecord>, StoreError> {
        let Some(link) = self.0.get(&tokens::key(Purpose::Invitation, hash)).await? else {
            return Ok(None);
        };
        if link.expires_at().is_none_or(|ttl| ttl <= now_unix) {
            return Ok(None);
        }
        let link: LinkPayload = link.to_record()?;
        Ok(self
            .get(link.client_id, link.invitation_id)
            .await?
            .filter(|i| i.tenant_id == link.tenant_id && i.token_hash == hash))
    }

    /// Sends a new link for `invitation` (as read): the old link dies, the
    /// new one (token hash `new_hash`) works until `link_expires_at`. One
    /// transaction; [`InvitationError::Gone`] when the invitation was
    /// accepted, withdrawn or resent meanwhile.
    pub async fn resend(
        &self,
        invitation: &InvitationRecord,
        new_hash: &str,
        now: OffsetDateTime,
        link_expires_at: OffsetDateTime,
    ) -> Result<InvitationRecord, InvitationError> {
        let next = InvitationRecord {
            token_hash: new_hash.to_owned(),
            sent_at: now,
            link_expires_at,
            sends: invitation.sends + 1,
            ..invitation.clone()
        };
        let writes = vec![
            TxWrite::Update {
                key: invitation_key(invitation.client_id, invitation.id),
                actions: vec![
                    UpdateAction::Set("tokenHash".into(), next.token_hash.clone().into()),
                    UpdateAction::Set("sentAt".into(), rfc3339(now)?),
                    UpdateAction::Set("linkExpiresAt".into(), rfc3339(link_expires_at)?),
                    UpdateAction::Set("sends".into(), next.sends.into()),
                ],
                condition: Some(as_read(invitation)),
            },
            TxWrite::Delete {
                key: tokens::key(Purpose::Invitation, &invitation.token_hash),
                condition: None,
            },
            link_write(&next)?,
        ];
        match self.0.transact(writes).await {
            Ok(()) => Ok(next),
            Err(e) if e.is_condition_failure() => Err(InvitationError::Gone),
            Err(e) => Err(e.into()),
        }
    }

    /// Withdraws `invitation` (as read): it and its link are gone. One
    /// transaction; [`InvitationError::Gone`] when it was accepted, withdrawn
    /// or resent meanwhile.
    pub async fn withdraw(&self, invitation: &InvitationRecord) -> Result<(), InvitationError> {
        match self.0.transact(withdraw_writes(invitation)).await {
            Ok(()) => Ok(()),
            Err(e) if e.is_condition_failure() => Err(InvitationError::Gone),
            Err(e) => Err(e.into()),
        }
    }
}
