//! Household membership: who manages a household's people, what a new grant
//! must say, where a grant stands, and the words of the notifications that
//! announce grants and ends of membership. No I/O; the owner guard ("a home
//! always keeps at least one Owner") is a conditional counter in the store.

use serde::Serialize;
use time::OffsetDateTime;

use crate::access::{Denied, HouseholdRole, PlatformRole, Principal, Scope, TenantRole};
use crate::ids::{ClientId, PropertyId, TenantId, UserId};

/// Where a grant stands now (the Me response's homes and the members list).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "kebab-case")]
pub enum GrantStatus {
    Active,
    /// A stay that has not started.
    Upcoming,
    /// A stay that is over (the grant is gone once checked out).
    Ended,
    /// In force, but the network condition was not met at the last check:
    /// the home is not in the person's claims until their phone is on its
    /// network.
    NeedsNetwork,
}

impl GrantStatus {
    pub fn at(
        starts_at: Option<OffsetDateTime>,
        ends_at: Option<OffsetDateTime>,
        now: OffsetDateTime,
    ) -> Self {
        if starts_at.is_some_and(|s| now < s) {
            GrantStatus::Upcoming
        } else if ends_at.is_some_and(|e| now >= e) {
            GrantStatus::Ended
        } else {
            GrantStatus::Active
        }
    }
}

/// Who manages a household's people (list, grant, remove): the household's
/// OWNER, the tenant's ADMIN and platform OWNER/STAFF ("owner, staff"). Keys
/// never do (no key scope covers people; guests have their own operations):
/// a key bound to the tenant is refused, any other finds nothing. Anyone
/// else in the tenant is refused by role; outside it, the household answers
/// as missing.
pub fn may_manage_people(
    caller: &Principal,
    tenant: TenantId,
    client: ClientId,
) -> Result<(), Denied> {
    if matches!(caller, Principal::Key { .. }) {
        return Err(if caller.reaches_tenant(tenant) {
            Denied::SessionOnly
        } else {
            Denied::NotFound
        });
    }
    match caller.platform_role() {
        Some(PlatformRole::Owner | PlatformRole::Staff) => return Ok(()),
        Some(PlatformRole::Support) => return Err(Denied::Role),
        None => {}
    }
    match caller.tenant_role(tenant) {
        Some(TenantRole::Admin) => return Ok(()),
        Some(TenantRole::Installer) => return Err(Denied::Role),
        None => {}
    }
    match caller.household_grant(client) {
        Some(grant) if grant.tenant_id == tenant && grant.role == HouseholdRole::Owner => Ok(()),
        Some(grant) if grant.tenant_id == tenant => Err(Denied::Role),
        _ if caller.reaches_tenant(tenant) => Err(Denied::Role),
        _ => Err(Denied::NotFound),
    }
}

/// Who manages a household's guest stays by reservation key (owner, staff, or a
/// key with `guests:write`): everyone [`may_manage_people`] lets in, and a DEV
/// key with `guests:write` in its sandbox (a booking system under development).
/// A LIVE key acts only for its connector's integrations, which hold no stays.
pub fn may_manage_guests(
    caller: &Principal,
    tenant: TenantId,
    client: ClientId,
) -> Result<(), Denied> {
    match caller {
        Principal::Key { .. } if !caller.reaches_tenant(tenant) => Err(Denied::NotFound),
        Principal::Key { .. } if caller.acts_for_connector(tenant).is_some() => {
            Err(Denied::ConnectorOnly)
        }
        Principal::Key { .. } => caller.require_scope(Scope::GuestsWrite),
        Principal::Person { .. } | Principal::Widget { .. } | Principal::Routine { .. } => {
            may_manage_people(caller, tenant, client)
        }
    }
}

/// What a new grant asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrantTerms {
    pub role: HouseholdRole,
    pub property_id: Option<PropertyId>,
    pub starts_at: Option<OffsetDateTime>,
    pub expires_at: Option<OffsetDateTime>,
}

/// A grant that cannot be made as asked: the request field and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {detail}")]
pub struct TermsProblem {
    pub field: &'static str,
    pub detail: &'static str,
}

fn problem(field: &'static str, detail: &'static str) -> TermsProblem {
    TermsProblem { field, detail }
}

/// A GUEST is pinned to one home for a stay that ends; an OWNER or MEMBER holds
/// the whole household with no stay. Whether the home belongs to the household
/// is the caller's check (it needs the store).
pub fn check_terms(terms: &GrantTerms, now: OffsetDateTime) -> Result<(), TermsProblem> {
    match terms.role {
        HouseholdRole::Guest => {
            if terms.property_id.is_none() {
                return Err(problem("propertyId", "a guest is pinned to one home"));
            }
            let Some(expires) = terms.expires_at else {
                return Err(problem("expiresAt", "a guest's stay needs an end"));
            };
            if expires <= now {
                return Err(problem("expiresAt", "the stay must end in the future"));
            }
            if terms.starts_at.is_some_and(|s| s >= expires) {
                return Err(problem("startsAt", "the stay must start before it ends"));
            }
            Ok(())
        }
        HouseholdRole::Owner | HouseholdRole::Member => {
            if terms.property_id.is_some() {
                return Err(problem(
                    "propertyId",
                    "only a guest is pinned to one home; owners and members hold the whole household",
                ));
            }
            if terms.starts_at.is_some() {
                return Err(problem("startsAt", "only a guest's grant has a stay"));
            }
            if terms.expires_at.is_some() {
                return Err(problem("expiresAt", "only a guest's grant has a stay"));
            }
            Ok(())
        }
    }
}

/// Why a membership cannot be ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum RemovalRefused {
    #[error("a person cannot remove themselves from the people list")]
    Yourself,
    #[error("a home always keeps at least one owner; make someone else an owner first")]
    LastOwner,
}

/// The rule that needs no store: nobody removes themselves. (The last
/// owner is guarded by the store's owner count.)
pub fn check_removal(caller: Option<UserId>, member: UserId) -> Result<(), RemovalRefused> {
    if caller == Some(member) {
        return Err(RemovalRefused::Yourself);
    }
    Ok(())
}

/// An address shown to people who may not know it whole (notifications,
/// which also reach a tenant's webhooks): the first character of the local
/// part, then the domain. `anna@example.com` is `a•••@example.com`.
pub fn mask_email(email: &str) -> String {
    match email.trim().rsplit_once('@') {
        Some((local, domain)) if !local.is_empty() && !domain.is_empty() => {
            let first: String = local.chars().take(1).collect();
            format!("{first}•••@{domain}")
        }
        _ => "•••".to_owned(),
    }
}

/// Who made a membership change, in words that name no one's address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangedBy {
    HouseholdOwner,
    TenantAdmin,
    PlatformStaff,
    /// The person accepted an invitation (whoever sent it).
    Invitation,
}

impl ChangedBy {
    /// The strongest role the caller acted by (the same order as
    /// [`may_manage_people`]).
    pub fn of(caller: &Principal, tenant: TenantId) -> Self {
        if caller.platform_role().is_some() {
            ChangedBy::PlatformStaff
        } else if caller.tenant_role(tenant).is_some() {
            ChangedBy::TenantAdmin
        } else {
            ChangedBy::HouseholdOwner
        }
    }

    fn words(self) -> &'static str {
        match self {
            ChangedBy::HouseholdOwner => "an owner of the household",
            ChangedBy::TenantAdmin => "the service provider",
            ChangedBy::PlatformStaff => "platform staff",
            ChangedBy::Invitation => "an invitation",
        }
    }
}

/// The role as words in a sentence (\"as a guest\").
pub fn role_words(role: HouseholdRole) -> &'static str {
    match role {
        HouseholdRole::Owner => "an owner",
        HouseholdRole::Member => "a member",
        HouseholdRole::Guest => "a guest",
    }
}

/// The kinds of `notification.raised` that membership raises.
pub const KIND_MEMBERSHIP_GRANTED: &str = "membership.granted";
pub const KIND_MEMBERSHIP_ENDED: &str = "membership.ended";

/// One membership change as a household reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MembershipNotice<'a> {
    /// The person's masked address ([`mask_email`]).
    pub person: &'a str,
    pub household: &'a str,
    pub role: HouseholdRole,
    /// A guest's home.
    pub home: Option<&'a str>,
    pub by: ChangedBy,
}

impl MembershipNotice<'_> {
    /// Title and body of a grant.
    pub fn granted(&self) -> (String, String) {
        let title = format!("{} joined {}", self.person, self.household);
        let mut body = match self.by {
            ChangedBy::Invitation => format!(
                "{} accepted an invitation and joined {} as {}.",
                self.person,
                self.household,
                role_words(self.role),
            ),
            by => format!(
                "{} was added to {} as {} by {}.",
                self.person,
                self.household,
                role_words(self.role),
                by.words()
            ),
        };
        if let Some(home) = self.home {
            body.push_str(&format!(" Their stay is at {home}."));
        }
        (title, body)
    }

    /// Title and body of an end of membership.
    pub fn ended(&self) -> (String, String) {
        let title = format!("{} left {}", self.person, self.household);
        let body = format!(
            "{} ({}) was removed from {} by {}; their sessions were signed out.",
            self.person,
            role_words(self.role),
            self.household,
            self.by.words()
        );
        (title, body)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use proptest::prelude::*;
    use time::Duration;

    use super::*;
    use crate::access::{Claims, ClientGrant, KeyKind, SessionKind};
    use crate::ids::{ConnectorId, DeveloperId, KeyId, SessionId};

    fn person(
        platform: Option<PlatformRole>,
        tenants: &[(TenantId, TenantRole)],
        clients: &[(ClientId, HouseholdRole, TenantId)],
    ) -> Principal {
        Principal::Person {
            claims: Claims {
                sub: UserId::new(),
                email: "p@example.com".into(),
                platform_role: platform,
                tenants: tenants.iter().copied().collect(),
                clients: clients
                    .iter()
                    .map(|(c, role, t)| {
                        (
                            *c,
                            ClientGrant {
                                role: *role,
                                tenant_id: *t,
                                property_id: None,
                            },
                        )
                    })
                    .collect(),
                iat: 0,
                exp: 0,
                jti: "j".into(),
            },
            kind: SessionKind::Household,
            session: SessionId::new(),
            developer: None,
        }
    }

    #[test]
    fn owners_and_staff_manage_people_and_nobody_else() {
        let (tenant, client) = (TenantId::new(), ClientId::new());
        let other_client = ClientId::new();
        let allowed = [
            person(None, &[], &[(client, HouseholdRole::Owner, tenant)]),
            person(None, &[(tenant, TenantRole::Admin)], &[]),
            person(Some(PlatformRole::Owner), &[], &[]),
            person(Some(PlatformRole::Staff), &[], &[]),
        ];
        for caller in &allowed {
            assert_eq!(may_manage_people(caller, tenant, client), Ok(()));
        }
        let by_role = [
            person(None, &[], &[(client, HouseholdRole::Member, tenant)]),
            person(None, &[], &[(client, HouseholdRole::Guest, tenant)]),
            // An owner of another household of the same tenant.
            person(None, &[], &[(other_client, HouseholdRole::Owner, tenant)]),
            person(None, &[(tenant, TenantRole::Installer)], &[]),
            person(Some(PlatformRole::Support), &[], &[]),
        ];
        for caller in &by_role {
            assert_eq!(may_manage_people(caller, tenant, client), Err(Denied::Role));
        }
        let outsider = person(None, &[(TenantId::new(), TenantRole::Admin)], &[]);
        assert_eq!(
            may_manage_people(&outsider, tenant, client),
            Err(Denied::NotFound)
        );
        let key = Principal::Key {
            key_id: KeyId::new(),
            developer: DeveloperId::new(),
            kind: KeyKind::Dev,
            scopes: BTreeSet::new(),
            tenants: [tenant].into(),
            connector: None,
        };
        assert_eq!(
            may_manage_people(&key, tenant, client),
            Err(Denied::SessionOnly)
        );
        assert_eq!(
            may_manage_people(&key, TenantId::new(), client),
            Err(Denied::NotFound)
        );
        // A grant naming the household under another tenant id is no grant here.
        let confused = person(
            None,
            &[],
            &[(client, HouseholdRole::Owner, TenantId::new())],
        );
        assert_eq!(
            may_manage_people(&confused, tenant, client),
            Err(Denied::NotFound)
        );
    }

    #[test]
    fn guest_stays_are_managed_by_owners_staff_and_dev_keys_with_the_scope() {
        let (tenant, client) = (TenantId::new(), ClientId::new());
        let owner = person(None, &[], &[(client, HouseholdRole::Owner, tenant)]);
        assert_eq!(may_manage_guests(&owner, tenant, client), Ok(()));
        let member = person(None, &[], &[(client, HouseholdRole::Member, tenant)]);
        assert_eq!(
            may_manage_guests(&member, tenant, client),
            Err(Denied::Role)
        );
        let key = |kind, scopes: &[Scope], connector| Principal::Key {
            key_id: KeyId::new(),
            developer: DeveloperId::new(),
            kind,
            scopes: scopes.iter().copied().collect(),
            tenants: [tenant].into(),
            connector,
        };
        assert_eq!(
            may_manage_guests(
                &key(KeyKind::Dev, &[Scope::GuestsWrite], None),
                tenant,
                client
            ),
            Ok(())
        );
        assert_eq!(
            may_manage_guests(
                &key(KeyKind::Dev, &[Scope::DevicesRead], None),
                tenant,
                client
            ),
            Err(Denied::MissingScope(Scope::GuestsWrite))
        );
        assert_eq!(
            may_manage_guests(
                &key(
                    KeyKind::Live,
                    &[Scope::GuestsWrite],
                    Some(ConnectorId::new())
                ),
                tenant,
                client
            ),
            Err(Denied::ConnectorOnly)
        );
        assert_eq!(
            may_manage_guests(
                &key(KeyKind::Dev, &[Scope::GuestsWrite], None),
                TenantId::new(),
                client
            ),
            Err(Denied::NotFound)
        );
    }

    #[test]
    fn guests_are_pinned_for_a_stay_and_others_are_not() {
        let now = OffsetDateTime::UNIX_EPOCH + Duration::days(20_000);
        let home = Some(PropertyId::new());
        let guest = GrantTerms {
            role: HouseholdRole::Guest,
            property_id: home,
            starts_at: Some(now + Duration::days(1)),
            expires_at: Some(now + Duration::days(3)),
        };
        assert_eq!(check_terms(&guest, now), Ok(()));
        let field = |terms: GrantTerms| check_terms(&terms, now).unwrap_err().field;
        assert_eq!(
            field(GrantTerms {
                property_id: None,
                ..guest.clone()
            }),
            "propertyId"
        );
        assert_eq!(
            field(GrantTerms {
                expires_at: None,
                ..guest.clone()
            }),
            "expiresAt"
        );
        assert_eq!(
            field(GrantTerms {
                expires_at: Some(now),
                ..guest.clone()
            }),
            "expiresAt"
        );
        assert_eq!(
            field(GrantTerms {
                starts_at: Some(now + Duration::days(3)),
                ..guest.clone()
            }),
            "startsAt"
        );
        let member = GrantTerms {
            role: HouseholdRole::Member,
            property_id: None,
            starts_at: None,
            expires_at: None,
        };
        assert_eq!(check_terms(&member, now), Ok(()));
        assert_eq!(
            field(GrantTerms {
                property_id: home,
                ..member.clone()
            }),
            "propertyId"
        );
        assert_eq!(
            field(GrantTerms {
                role: HouseholdRole::Owner,
                expires_at: Some(now + Duration::days(1)),
                ..member
            }),
            "expiresAt"
        );
    }

    #[test]
    fn nobody_removes_themselves() {
        let me = UserId::new();
        assert_eq!(check_removal(Some(me), me), Err(RemovalRefused::Yourself));
        assert_eq!(check_removal(Some(me), UserId::new()), Ok(()));
        assert_eq!(check_removal(None, me), Ok(()));
    }

    #[test]
    fn notices_name_no_address_whole() {
        let person = mask_email("anna.berg@example.com");
        assert_eq!(person, "a•••@example.com");
        let notice = MembershipNotice {
            person: &person,
            household: "The Bergs",
            role: HouseholdRole::Guest,
            home: Some("Lake house"),
            by: ChangedBy::HouseholdOwner,
        };
        let (title, body) = notice.granted();
        assert_eq!(title, "a•••@example.com joined The Bergs");
        assert_eq!(
            body,
            "a•••@example.com was added to The Bergs as a guest by an owner of the household. \
             Their stay is at Lake house."
        );
        let accepted = MembershipNotice {
            by: ChangedBy::Invitation,
            ..notice.clone()
        };
        assert_eq!(
            accepted.granted().1,
            "a•••@example.com accepted an invitation and joined The Bergs as a guest. \
             Their stay is at Lake house."
        );
        let (title, body) = notice.ended();
        assert_eq!(title, "a•••@example.com left The Bergs");
        assert!(body.contains("removed from The Bergs by an owner of the household"));
        assert_eq!(mask_email("no-at-sign"), "•••");
        assert_eq!(mask_email("@example.com"), "•••");
    }

    #[test]
    fn status_follows_the_stay() {
        let now = OffsetDateTime::UNIX_EPOCH + Duration::days(20_000);
        let hour = Duration::hours(1);
        assert_eq!(GrantStatus::at(None, None, now), GrantStatus::Active);
        assert_eq!(
            GrantStatus::at(Some(now + hour), Some(now + 2 * hour), now),
            GrantStatus::Upcoming
        );
        assert_eq!(
            GrantStatus::at(Some(now - hour), Some(now), now),
            GrantStatus::Ended
        );
        assert_eq!(
            GrantStatus::at(Some(now), Some(now + hour), now),
            GrantStatus::Active
        );
    }

    proptest! {
        #[test]
        fn masked_addresses_keep_only_the_first_character_and_the_domain(
            local in "[a-z0-9.]{1,30}",
            domain in "[a-z]{1,10}\\.[a-z]{2,5}",
        ) {
            let masked = mask_email(&format!("{local}@{domain}"));
            prop_assert_eq!(&masked, &format!("{}•••@{domain}", &local[..1]));
            // The part before the '@' never shows the local part (the
            // domain may happen to contain the same letters).
            let (shown, _) = masked.split_once('@').unwrap();
            if local.len() > 1 {
                prop_assert!(!shown.contains(&local));
            }
        }

        #[test]
        fn accepted_terms_always_describe_a_sane_grant(
            role in prop_oneof![
                Just(HouseholdRole::Owner),
                Just(HouseholdRole::Member),
                Just(HouseholdRole::Guest),
            ],
            pinned in any::<bool>(),
            starts in proptest::option::of(-100i64..100),
            expires in proptest::option::of(-100i64..100),
        ) {
            let now = OffsetDateTime::UNIX_EPOCH + Duration::days(20_000);
            let terms = GrantTerms {
                role,
                property_id: pinned.then(PropertyId::new),
                starts_at: starts.map(|h| now + Duration::hours(h)),
                expires_at: expires.map(|h| now + Duration::hours(h)),
            };
            if check_terms(&terms, now).is_ok() {
                if role == HouseholdRole::Guest {
                    let end = terms.expires_at.unwrap();
                    prop_assert!(terms.property_id.is_some() && end > now);
                    prop_assert!(terms.starts_at.is_none_or(|s| s < end));
                } else {
                    prop_assert!(terms.property_id.is_none());
                    prop_assert!(terms.starts_at.is_none() && terms.expires_at.is_none());
                }
            }
        }
    }
}
