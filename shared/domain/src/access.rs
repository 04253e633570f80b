//! Who may do what: roles, claims, key scopes and the caller ("principal") that
//! every operation checks against the object it touches. Pure rules, no I/O.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::ids::{
    ClientId, ConnectorId, DeveloperId, KeyId, PropertyId, RoutineId, SessionId, TenantId, UserId,
    WidgetTokenId,
};

/// Platform staff roles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "UPPERCASE")]
pub enum PlatformRole {
    Owner,
    Staff,
    Support,
}

/// Roles within a tenant (the business running households).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "UPPERCASE")]
pub enum TenantRole {
    Admin,
    Installer,
}

/// Roles within a household (client).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "UPPERCASE")]
pub enum HouseholdRole {
    /// Homes, rooms, connectors, routines, people; configures rooms.
    Owner,
    /// Controls the home, reads history and notifications.
    Member,
    /// Controls only the pinned property during the stay.
    Guest,
}

/// One household grant inside the claims.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ClientGrant {
    pub role: HouseholdRole,
    pub tenant_id: TenantId,
    /// The pinned property (guests always have one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub property_id: Option<PropertyId>,
}

/// The claims of a session access token, exactly the spec's Claims object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Claims {
    /// The user id.
    pub sub: UserId,
    pub email: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub platform_role: Option<PlatformRole>,
    pub tenants: BTreeMap<TenantId, TenantRole>,
    pub clients: BTreeMap<ClientId, ClientGrant>,
    pub iat: i64,
    pub exp: i64,
    pub jti: String,
}

/// The console a person lands on (Me response).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Persona {
    Platform,
    Tenant,
    Installer,
    Client,
}

impl Claims {
    /// Staff land on the platform console, tenant admins on the tenant console,
    /// installers on theirs, everyone else on the household app.
    pub fn persona(&self) -> Persona {
        if self.platform_role.is_some() {
            Persona::Platform
        } else if self.tenants.values().any(|r| *r == TenantRole::Admin) {
            Persona::Tenant
        } else if !self.tenants.is_empty() {
            Persona::Installer
        } else {
            Persona::Client
        }
    }
}

/// Key scopes: the closed set of the spec (Authentication 5) plus `guests:write`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Scope {
    #[cfg_attr(feature = "openapi", schema(rename = "tenant:read"))]
    TenantRead,
    #[cfg_attr(feature = "openapi", schema(rename = "rooms:write"))]
    RoomsWrite,
    #[cfg_attr(feature = "openapi", schema(rename = "devices:read"))]
    DevicesRead,
    #[cfg_attr(feature = "openapi", schema(rename = "devices:write"))]
    DevicesWrite,
    #[cfg_attr(feature = "openapi", schema(rename = "devices:commands"))]
    DevicesCommands,
    #[cfg_attr(feature = "openapi", schema(rename = "telemetry:read"))]
    TelemetryRead,
    #[cfg_attr(feature = "openapi", schema(rename = "things:read"))]
    ThingsRead,
    #[cfg_attr(feature = "openapi", schema(rename = "things:control"))]
    ThingsControl,
    #[cfg_attr(feature = "openapi", schema(rename = "integrations:read"))]
    IntegrationsRead,
    #[cfg_attr(feature = "openapi", schema(rename = "integrations:write"))]
    IntegrationsWrite,
    #[cfg_attr(feature = "openapi", schema(rename = "notifications:read"))]
    NotificationsRead,
    #[cfg_attr(feature = "openapi", schema(rename = "notifications:write"))]
    NotificationsWrite,
    #[cfg_attr(feature = "openapi", schema(rename = "ai:chat"))]
    AiChat,
    #[cfg_attr(feature = "openapi", schema(rename = "simulator:write"))]
    SimulatorWrite,
    #[cfg_attr(feature = "openapi", schema(rename = "webhooks:write"))]
    WebhooksWrite,
    #[cfg_attr(feature = "openapi", schema(rename = "events:read"))]
    EventsRead,
    #[cfg_attr(feature = "openapi", schema(rename = "firmware:read"))]
    FirmwareRead,
    #[cfg_attr(feature = "openapi", schema(rename = "guests:write"))]
    GuestsWrite,
}

impl Scope {
    pub const ALL: [Scope; 18] = [
        Scope::TenantRead,
        Scope::RoomsWrite,
        Scope::DevicesRead,
        Scope::DevicesWrite,
        Scope::DevicesCommands,
        Scope::TelemetryRead,
        Scope::ThingsRead,
        Scope::ThingsControl,
        Scope::IntegrationsRead,
        Scope::IntegrationsWrite,
        Scope::NotificationsRead,
        Scope::NotificationsWrite,
        Scope::AiChat,
        Scope::SimulatorWrite,
        Scope::WebhooksWrite,
        Scope::EventsRead,
        Scope::FirmwareRead,
        Scope::GuestsWrite,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::TenantRead => "tenant:read",
            Scope::RoomsWrite => "rooms:write",
            Scope::DevicesRead => "devices:read",
            Scope::DevicesWrite => "devices:write",
            Scope::DevicesCommands => "devices:commands",
            Scope::TelemetryRead => "telemetry:read",
            Scope::ThingsRead => "things:read",
            Scope::ThingsControl => "things:control",
            Scope::IntegrationsRead => "integrations:read",
            Scope::IntegrationsWrite => "integrations:write",
            Scope::NotificationsRead => "notifications:read",
            Scope::NotificationsWrite => "notifications:write",
            Scope::AiChat => "ai:chat",
            Scope::SimulatorWrite => "simulator:write",
            Scope::WebhooksWrite => "webhooks:write",
            Scope::EventsRead => "events:read",
            Scope::FirmwareRead => "firmware:read",
            Scope::GuestsWrite => "guests:write",
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown scope {0:?}")]
pub struct UnknownScope(pub String);

impl FromStr for Scope {
    type Err = UnknownScope;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Scope::ALL
            .into_iter()
            .find(|scope| scope.as_str() == s)
            .ok_or_else(|| UnknownScope(s.to_owned()))
    }
}

impl Serialize for Scope {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Scope {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(|_| {
            serde::de::Error::custom(format!(
                "unknown scope {text:?}; the scopes are {}",
                Scope::ALL.map(Scope::as_str).join(", ")
            ))
        })
    }
}

/// DEV keys act in their developer's sandbox; LIVE keys for their own installed connector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "UPPERCASE")]
pub enum KeyKind {
    Dev,
    Live,
}

/// Which kind of signed-in session a person holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SessionKind {
    Household,
    Developer,
}

/// The authenticated caller of one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Principal {
    /// A signed-in person (household app, consoles, or the developer dashboard).
    Person {
        claims: Claims,
        kind: SessionKind,
        session: SessionId,
        /// Set for developer sessions.
        developer: Option<DeveloperId>,
    },
    /// A developer key, presented directly or through a five-minute app token.
    Key {
        key_id: KeyId,
        developer: DeveloperId,
        kind: KeyKind,
        scopes: BTreeSet<Scope>,
        /// DEV: the sandbox tenant; LIVE: tenants that installed the key's connector.
        tenants: BTreeSet<TenantId>,
        /// A LIVE key's connector (`None` for DEV keys, and for a LIVE key
        /// whose definition names no connector, which reaches nothing). In
        /// its tenants a LIVE key reaches only the integrations made from
        /// this connector and their endpoints: never a home, room, device,
        /// person or another integration.
        connector: Option<ConnectorId>,
    },
    /// A phone's home-screen widget or a TV: minted by a household person
    /// for one home, it reads and controls that home's things and nothing
    /// else (the scopes of [`WIDGET_SCOPES`]; no session-only operation, no
    /// role anywhere). Authentication checks the person still holds a grant
    /// in force for that home. It never has home-security access by
    /// itself; a TV gains control of its home's security only through an
    /// explicit, current delegation from its person.
    Widget {
        token_id: WidgetTokenId,
        /// Who minted it.
        user: UserId,
        tenant: TenantId,
        client: ClientId,
        property: PropertyId,
        surface: Surface,
    },
    /// A routine's step, acting for one person: that person's grants as
    /// they stand when the step runs (read from the store, never from a
    /// token). It has no session (session-only operations refuse it), no
    /// platform role and no tenant role (staff and installer authority is
    /// not lent to a routine), and no scopes to narrow it: it controls what
    /// the person's household grants let them control.
    Routine { claims: Claims, routine: RoutineId },
}

/// Where a widget token lives.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Surface {
    /// A phone's home-screen widget.
    #[default]
    Phone,
    /// A TV app.
    Tv,
}

/// What a widget token may do, as if it were a key with these scopes: read
/// and control the things of its home.
pub const WIDGET_SCOPES: [Scope; 4] = [
    Scope::ThingsRead,
    Scope::ThingsControl,
    Scope::DevicesRead,
    Scope::DevicesCommands,
];

/// Why a caller may not do something. A missing object and a foreign one are
/// the same answer (`NotFound`), so that existence never leaks across tenants.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Denied {
    #[error("this operation needs the {0} scope")]
    MissingScope(Scope),
    #[error("this operation is for signed-in people, not keys")]
    SessionOnly,
    #[error("this operation is for developer keys or developer sessions")]
    DeveloperOnly,
    #[error("your role does not allow this")]
    Role,
    #[error(
        "a LIVE key acts only for its own connector: the integrations made from it and their \
         endpoints"
    )]
    ConnectorOnly,
    #[error("not found")]
    NotFound,
    #[error(
        "keys, widgets and connector credentials have no home-security access (spec, \
         Authentication 6 and 9)"
    )]
    NoSecurity,
}

/// What a caller may do with a home's security, weakest first. Keys,
/// widgets and connector credentials have none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SecurityAccess {
    /// Read the status and the incidents (platform staff, the tenant's
    /// roles, guests).
    See,
    /// Arm, disarm, acknowledge (household members).
    Control,
    /// Settings and selections too (household owners).
    Configure,
}

impl Principal {
    /// The signed-in person (a widget acts for nobody: what it does is not
    /// done by a person).
    pub fn user_id(&self) -> Option<UserId> {
        match self {
            Principal::Person { claims, .. } | Principal::Routine { claims, .. } => {
                Some(claims.sub)
            }
            Principal::Key { .. } | Principal::Widget { .. } => None,
        }
    }

    pub fn developer_id(&self) -> Option<DeveloperId> {
        match self {
            Principal::Person { developer, .. } => *developer,
            Principal::Key { developer, .. } => Some(*developer),
            Principal::Widget { .. } | Principal::Routine { .. } => None,
        }
    }

    pub fn platform_role(&self) -> Option<PlatformRole> {
        match self {
            Principal::Person { claims, .. } => claims.platform_role,
            Principal::Key { .. } | Principal::Widget { .. } | Principal::Routine { .. } => None,
        }
    }

    /// A key needs `scope` (a widget, one of [`WIDGET_SCOPES`]); a person's
    /// session acts by its roles instead.
    pub fn require_scope(&self, scope: Scope) -> Result<(), Denied> {
        match self {
            Principal::Key { scopes, .. } if !scopes.contains(&scope) => {
                Err(Denied::MissingScope(scope))
            }
            Principal::Widget { .. } if !WIDGET_SCOPES.contains(&scope) => {
                Err(Denied::MissingScope(scope))
            }
            _ => Ok(()),
        }
    }

    pub fn require_session(&self) -> Result<&Claims, Denied> {
        match self {
            Principal::Person { claims, .. } => Ok(claims),
            Principal::Key { .. } | Principal::Widget { .. } | Principal::Routine { .. } => {
                Err(Denied::SessionOnly)
            }
        }
    }

    /// Platform staff with one of `roles`.
    pub fn require_platform(&self, roles: &[PlatformRole]) -> Result<PlatformRole, Denied> {
        match self.platform_role() {
            Some(role) if roles.contains(&role) => Ok(role),
            Some(_) => Err(Denied::Role),
            None => Err(Denied::NotFound),
        }
    }

    /// The caller's role in `tenant`, if any. A DEV key acts as the ADMIN of
    /// its developer's sandbox (its scopes narrow what it may do); a LIVE key
    /// holds no role anywhere: it acts only for its connector (see
    /// [`HomeReach::Connector`]).
    pub fn tenant_role(&self, tenant: TenantId) -> Option<TenantRole> {
        match self {
            Principal::Person { claims, .. } => claims.tenants.get(&tenant).copied(),
            Principal::Key {
                kind: KeyKind::Dev,
                tenants,
                ..
            } => tenants.contains(&tenant).then_some(TenantRole::Admin),
            Principal::Key {
                kind: KeyKind::Live,
                ..
            } => None,
            Principal::Widget { .. } | Principal::Routine { .. } => None,
        }
    }

    /// The connector a LIVE key acts for in `tenant` (one that installed
    /// it); `None` for everyone else.
    pub fn acts_for_connector(&self, tenant: TenantId) -> Option<ConnectorId> {
        match self {
            Principal::Key {
                kind: KeyKind::Live,
                tenants,
                connector: Some(connector),
                ..
            } if tenants.contains(&tenant) => Some(*connector),
            _ => None,
        }
    }

    /// The caller's household grant in `client`, if any.
    pub fn household_grant(&self, client: ClientId) -> Option<&ClientGrant> {
        match self {
            Principal::Person { claims, .. } | Principal::Routine { claims, .. } => {
                claims.clients.get(&client)
            }
            Principal::Key { .. } | Principal::Widget { .. } => None,
        }
    }

    /// Whether the caller reaches `tenant` at all (any role, any household in it,
    /// or a key bound to it). Everything outside answers as not found.
    pub fn reaches_tenant(&self, tenant: TenantId) -> bool {
        match self {
            Principal::Person { claims, .. } => {
                claims.tenants.contains_key(&tenant)
                    || claims.clients.values().any(|g| g.tenant_id == tenant)
            }
            Principal::Routine { claims, .. } => {
                claims.clients.values().any(|g| g.tenant_id == tenant)
            }
            Principal::Key { tenants, .. } => tenants.contains(&tenant),
            Principal::Widget { tenant: own, .. } => *own == tenant,
        }
    }
}

/// Which homes of one tenant a caller reaches by role (scopes are the
/// operation's own check). One rule for every operation on a tenant's homes
/// and what is in them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HomeReach {
    /// Platform staff, the tenant's ADMIN/INSTALLER, a DEV key in its sandbox.
    Everything,
    /// Household people: every home of these households, plus the homes
    /// guests are pinned to.
    Homes {
        households: BTreeSet<ClientId>,
        pinned: BTreeSet<PropertyId>,
    },
    /// A LIVE key in a tenant that installed its connector: only the
    /// integrations made from that connector and their endpoints. Every
    /// other object of the tenant is refused ([`Denied::ConnectorOnly`]);
    /// another integration or its endpoints answer as missing.
    Connector(ConnectorId),
    /// Not the caller's tenant: everything in it answers as missing.
    Nothing,
}

/// What a caller may do in one home, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum HomeAccess {
    /// See the house (platform SUPPORT).
    See,
    /// Control rooms and things (household MEMBER, a GUEST in its home).
    Control,
    /// Configure rooms (household OWNER, tenant roles, DEV keys in their
    /// sandbox, platform OWNER/STAFF).
    Configure,
}

impl HomeAccess {
    /// The scope a key needs for this access to a home's rooms and things.
    pub fn scope(self) -> Scope {
        match self {
            HomeAccess::See => Scope::ThingsRead,
            HomeAccess::Control => Scope::ThingsControl,
            HomeAccess::Configure => Scope::RoomsWrite,
        }
    }
}

impl Principal {
    pub fn home_reach(&self, tenant: TenantId) -> HomeReach {
        if self.platform_role().is_some() || self.tenant_role(tenant).is_some() {
            return HomeReach::Everything;
        }
        if let Some(connector) = self.acts_for_connector(tenant) {
            return HomeReach::Connector(connector);
        }
        // A widget reaches its one home, as a guest reaches the home it is
        // pinned to (control at most).
        if let Principal::Widget {
            tenant: own,
            property,
            ..
        } = self
        {
            return if *own == tenant {
                HomeReach::Homes {
                    households: BTreeSet::new(),
                    pinned: [*property].into(),
                }
            } else {
                HomeReach::Nothing
            };
        }
        let (Principal::Person { claims, .. } | Principal::Routine { claims, .. }) = self else {
            return HomeReach::Nothing;
        };
        let mut households = BTreeSet::new();
        let mut pinned = BTreeSet::new();
        for (client, grant) in claims.clients.iter().filter(|(_, g)| g.tenant_id == tenant) {
            match (grant.role, grant.property_id) {
                (HouseholdRole::Guest, Some(property)) => {
                    pinned.insert(property);
                }
                // A guest without a pinned home reaches nothing.
                (HouseholdRole::Guest, None) => {}
                (HouseholdRole::Owner | HouseholdRole::Member, _) => {
                    households.insert(*client);
                }
            }
        }
        if households.is_empty() && pinned.is_empty() {
            HomeReach::Nothing
        } else {
            HomeReach::Homes { households, pinned }
        }
    }

    /// The caller's access to the security of a home of household `client`
    /// in `tenant` (the home is the caller's: [`Principal::home_access`]).
    /// Keys and widgets have none (403), whatever their scopes. Only the
    /// household grant counts: members control, owners configure; everyone
    /// else who sees the home (guests, the tenant's ADMIN and INSTALLER,
    /// platform staff) only sees, since configuring a home's protection
    /// needs its owner and arming it needs someone who lives there.
    pub fn security_access(
        &self,
        tenant: TenantId,
        client: ClientId,
    ) -> Result<SecurityAccess, Denied> {
        if !matches!(self, Principal::Person { .. } | Principal::Routine { .. }) {
            return Err(Denied::NoSecurity);
        }
        let grant = self
            .household_grant(client)
            .filter(|g| g.tenant_id == tenant);
        Ok(match grant.map(|g| g.role) {
            Some(HouseholdRole::Owner) => SecurityAccess::Configure,
            Some(HouseholdRole::Member) => SecurityAccess::Control,
            Some(HouseholdRole::Guest) | None => SecurityAccess::See,
        })
    }

    /// The caller's access to the home `property` of household `client` in
    /// `tenant`; `None` when the home is not the caller's (it answers like a
    /// missing one). Platform SUPPORT sees every home; OWNER and STAFF, the
    /// tenant's roles and a DEV key in its sandbox configure; a household
    /// OWNER configures its homes, a MEMBER controls them, a GUEST controls
    /// its pinned home; a LIVE key reaches no home.
    pub fn home_access(
        &self,
        tenant: TenantId,
        client: ClientId,
        property: PropertyId,
    ) -> Option<HomeAccess> {
        match self.platform_role() {
            Some(PlatformRole::Support) => return Some(HomeAccess::See),
            Some(PlatformRole::Owner | PlatformRole::Staff) => return Some(HomeAccess::Configure),
            None => {}
        }
        match self.home_reach(tenant) {
            HomeReach::Everything => Some(HomeAccess::Configure),
            HomeReach::Connector(_) | HomeReach::Nothing => None,
            HomeReach::Homes { households, pinned } => {
                if households.contains(&client) {
                    let owner = self
                        .household_grant(client)
                        .is_some_and(|g| g.role == HouseholdRole::Owner);
                    Some(if owner {
                        HomeAccess::Configure
                    } else {
                        HomeAccess::Control
                    })
                } else if pinned.contains(&property) {
                    Some(HomeAccess::Control)
                } else {
                    None
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims() -> Claims {
        Claims {
            sub: UserId::new(),
            email: "a@example.com".into(),
            platform_role: None,
            tenants: BTreeMap::new(),
            clients: BTreeMap::new(),
            iat: 0,
            exp: 0,
            jti: "j".into(),
        }
    }

    #[test]
    fn scopes_round_trip_and_unknown_ones_are_refused() {
        for scope in Scope::ALL {
            assert_eq!(scope.as_str().parse::<Scope>().unwrap(), scope);
            let json = serde_json::to_string(&scope).unwrap();
            assert_eq!(serde_json::from_str::<Scope>(&json).unwrap(), scope);
        }
        let err = serde_json::from_str::<Scope>("\"devices:delete\"").unwrap_err();
        assert!(err.to_string().contains("unknown scope"), "{err}");
    }

    #[test]
    fn persona_follows_the_strongest_role() {
        let mut c = claims();
        assert_eq!(c.persona(), Persona::Client);
        c.tenants.insert(TenantId::new(), TenantRole::Installer);
        assert_eq!(c.persona(), Persona::Installer);
        c.tenants.insert(TenantId::new(), TenantRole::Admin);
        assert_eq!(c.persona(), Persona::Tenant);
        c.platform_role = Some(PlatformRole::Support);
        assert_eq!(c.persona(), Persona::Platform);
    }

    #[test]
    fn keys_need_scopes_and_reach_only_their_tenants() {
        let sandbox = TenantId::new();
        let key = Principal::Key {
            key_id: KeyId::new(),
            developer: DeveloperId::new(),
            kind: KeyKind::Dev,
            scopes: [Scope::DevicesRead].into(),
            tenants: [sandbox].into(),
            connector: None,
        };
        assert!(key.require_scope(Scope::DevicesRead).is_ok());
        assert_eq!(
            key.require_scope(Scope::DevicesWrite),
            Err(Denied::MissingScope(Scope::DevicesWrite))
        );
        assert!(key.reaches_tenant(sandbox));
        assert!(!key.reaches_tenant(TenantId::new()));
        assert_eq!(key.require_session(), Err(Denied::SessionOnly));
        assert_eq!(key.tenant_role(sandbox), Some(TenantRole::Admin));
        assert_eq!(key.home_reach(sandbox), HomeReach::Everything);
    }

    #[test]
    fn a_live_key_acts_only_for_its_connector_in_the_tenants_that_installed_it() {
        let (installed, other) = (TenantId::new(), TenantId::new());
        let connector = ConnectorId::new();
        let live = |connector: Option<ConnectorId>, tenants: BTreeSet<TenantId>| Principal::Key {
            key_id: KeyId::new(),
            developer: DeveloperId::new(),
            kind: KeyKind::Live,
            scopes: Scope::ALL.into(),
            tenants,
            connector,
        };
        let key = live(Some(connector), [installed].into());
        // Never the tenant's ADMIN, whatever its scopes.
        assert_eq!(key.tenant_role(installed), None);
        assert_eq!(key.home_reach(installed), HomeReach::Connector(connector));
        assert_eq!(key.acts_for_connector(installed), Some(connector));
        assert!(key.reaches_tenant(installed));
        assert_eq!(key.home_reach(other), HomeReach::Nothing);
        assert_eq!(key.acts_for_connector(other), None);
        // A definition that names no connector reaches nothing.
        let nameless = live(None, BTreeSet::new());
        assert_eq!(nameless.home_reach(installed), HomeReach::Nothing);
    }

    #[test]
    fn a_widget_controls_its_one_home_with_thing_scopes_only() {
        let (tenant, client, home) = (TenantId::new(), ClientId::new(), PropertyId::new());
        let widget = Principal::Widget {
            token_id: WidgetTokenId::new(),
            user: UserId::new(),
            tenant,
            client,
            property: home,
            surface: Surface::Phone,
        };
        assert_eq!(
            widget.home_access(tenant, client, home),
            Some(HomeAccess::Control)
        );
        assert_eq!(widget.home_access(tenant, client, PropertyId::new()), None);
        assert_eq!(widget.home_access(TenantId::new(), client, home), None);
        assert!(widget.reaches_tenant(tenant));
        assert_eq!(widget.user_id(), None, "a widget acts for no person");
        assert_eq!(widget.require_session(), Err(Denied::SessionOnly));
        for scope in Scope::ALL {
            assert_eq!(
                widget.require_scope(scope).is_ok(),
                WIDGET_SCOPES.contains(&scope),
                "{scope:?}"
            );
        }
        assert_eq!(widget.tenant_role(tenant), None);
        assert_eq!(widget.household_grant(client), None);
    }

    #[test]
    fn home_reach_by_role() {
        let tenant = TenantId::new();
        let (home_client, guest_client) = (ClientId::new(), ClientId::new());
        let pinned = PropertyId::new();
        let mut c = claims();
        c.clients.insert(
            home_client,
            ClientGrant {
                role: HouseholdRole::Member,
                tenant_id: tenant,
                property_id: None,
            },
        );
        c.clients.insert(
            guest_client,
            ClientGrant {
                role: HouseholdRole::Guest,
                tenant_id: tenant,
                property_id: Some(pinned),
            },
        );
        // A grant in another tenant never counts here.
        c.clients.insert(
            ClientId::new(),
            ClientGrant {
                role: HouseholdRole::Owner,
                tenant_id: TenantId::new(),
                property_id: None,
            },
        );
        let person = |claims: Claims| Principal::Person {
            claims,
            kind: SessionKind::Household,
            session: SessionId::new(),
            developer: None,
        };
        assert_eq!(
            person(c.clone()).home_reach(tenant),
            HomeReach::Homes {
                households: [home_client].into(),
                pinned: [pinned].into()
            }
        );
        assert_eq!(person(claims()).home_reach(tenant), HomeReach::Nothing);
        let mut staff = claims();
        staff.platform_role = Some(PlatformRole::Support);
        assert_eq!(person(staff).home_reach(tenant), HomeReach::Everything);
        let mut installer = claims();
        installer.tenants.insert(tenant, TenantRole::Installer);
        assert_eq!(person(installer).home_reach(tenant), HomeReach::Everything);
    }

    #[test]
    fn home_access_by_role() {
        let tenant = TenantId::new();
        let (owned, joined, guested) = (ClientId::new(), ClientId::new(), ClientId::new());
        let (pinned, elsewhere) = (PropertyId::new(), PropertyId::new());
        let mut c = claims();
        for (client, role, property) in [
            (owned, HouseholdRole::Owner, None),
            (joined, HouseholdRole::Member, None),
            (guested, HouseholdRole::Guest, Some(pinned)),
        ] {
            let grant = ClientGrant {
                role,
                tenant_id: tenant,
                property_id: property,
            };
            c.clients.insert(client, grant);
        }
        let person = |claims: Claims| Principal::Person {
            claims,
            kind: SessionKind::Household,
            session: SessionId::new(),
            developer: None,
        };
        let household = person(c);
        let home = PropertyId::new();
        assert_eq!(
            household.home_access(tenant, owned, home),
            Some(HomeAccess::Configure)
        );
        assert_eq!(
            household.home_access(tenant, joined, home),
            Some(HomeAccess::Control)
        );
        // A guest controls its pinned home only.
        assert_eq!(
            household.home_access(tenant, guested, pinned),
            Some(HomeAccess::Control)
        );
        assert_eq!(household.home_access(tenant, guested, elsewhere), None);
        assert_eq!(household.home_access(tenant, ClientId::new(), home), None);
        assert_eq!(
            household.home_access(TenantId::new(), owned, home),
            None,
            "a grant counts only in its tenant"
        );
        let mut support = claims();
        support.platform_role = Some(PlatformRole::Support);
        assert_eq!(
            person(support).home_access(tenant, owned, home),
            Some(HomeAccess::See)
        );
        let mut installer = claims();
        installer.tenants.insert(tenant, TenantRole::Installer);
        assert_eq!(
            person(installer).home_access(tenant, ClientId::new(), home),
            Some(HomeAccess::Configure)
        );
    }

    #[test]
    fn only_the_household_configures_or_controls_its_security_not_the_tenants_admin() {
        let tenant = TenantId::new();
        let (owned, joined) = (ClientId::new(), ClientId::new());
        let person = |claims: Claims| Principal::Person {
            claims,
            kind: SessionKind::Household,
            session: SessionId::new(),
            developer: None,
        };
        let grant = |role| ClientGrant {
            role,
            tenant_id: tenant,
            property_id: None,
        };
        let mut admin = claims();
        admin.tenants.insert(tenant, TenantRole::Admin);
        let admin_alone = person(admin.clone());
        assert_eq!(
            admin_alone.security_access(tenant, owned),
            Ok(SecurityAccess::See),
            "the tenant's ADMIN without a household grant only sees"
        );
        assert_eq!(
            admin_alone.home_access(tenant, owned, PropertyId::new()),
            Some(HomeAccess::Configure),
            "while still configuring the home's rooms"
        );
        // An ADMIN who is also the household's owner or member: the grant
        // decides.
        admin.clients.insert(owned, grant(HouseholdRole::Owner));
        admin.clients.insert(joined, grant(HouseholdRole::Member));
        let admin_at_home = person(admin);
        assert_eq!(
            admin_at_home.security_access(tenant, owned),
            Ok(SecurityAccess::Configure)
        );
        assert_eq!(
            admin_at_home.security_access(tenant, joined),
            Ok(SecurityAccess::Control)
        );
        assert_eq!(
            admin_at_home.security_access(TenantId::new(), owned),
            Ok(SecurityAccess::See),
            "a grant counts only in its tenant"
        );
        let mut staff = claims();
        staff.platform_role = Some(PlatformRole::Staff);
        assert_eq!(
            person(staff).security_access(tenant, owned),
            Ok(SecurityAccess::See)
        );
        let key = Principal::Key {
            key_id: KeyId::new(),
            developer: DeveloperId::new(),
            kind: KeyKind::Dev,
            scopes: Scope::ALL.into_iter().collect(),
            tenants: [tenant].into(),
            connector: None,
        };
        assert_eq!(key.security_access(tenant, owned), Err(Denied::NoSecurity));
    }

    #[test]
    fn a_routine_acts_with_its_persons_household_grants_and_nothing_more() {
        let tenant = TenantId::new();
        let (owned, other) = (ClientId::new(), ClientId::new());
        let home = PropertyId::new();
        let mut c = claims();
        c.platform_role = Some(PlatformRole::Staff);
        c.tenants.insert(tenant, TenantRole::Admin);
        c.clients.insert(
            owned,
            ClientGrant {
                role: HouseholdRole::Member,
                tenant_id: tenant,
                property_id: None,
            },
        );
        let person = c.sub;
        let routine = Principal::Routine {
            claims: c,
            routine: RoutineId::new(),
        };
        assert_eq!(routine.user_id(), Some(person), "it acts for its person");
        assert_eq!(
            routine.security_access(tenant, owned),
            Ok(SecurityAccess::Control),
            "a member's routine controls the home's security"
        );
        assert_eq!(
            routine.home_access(tenant, owned, home),
            Some(HomeAccess::Control)
        );
        assert_eq!(
            routine.home_access(tenant, other, PropertyId::new()),
            None,
            "the tenant ADMIN role is not lent to a routine"
        );
        assert_eq!(routine.platform_role(), None, "nor the platform role");
        assert_eq!(routine.require_session().err(), Some(Denied::SessionOnly));
        assert!(routine.reaches_tenant(tenant));
        assert!(!routine.reaches_tenant(TenantId::new()));
    }

    #[test]
    fn claims_serialise_exactly_as_the_spec_names_them() {
        let mut c = claims();
        let tenant = TenantId::new();
        let client = ClientId::new();
        c.tenants.insert(tenant, TenantRole::Admin);
        c.clients.insert(
            client,
            ClientGrant {
                role: HouseholdRole::Guest,
                tenant_id: tenant,
                property_id: Some(PropertyId::new()),
            },
        );
        let v = serde_json::to_value(&c).unwrap();
        let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort();
        assert_eq!(
            keys,
            ["clients", "email", "exp", "iat", "jti", "sub", "tenants"]
        );
        assert_eq!(v["tenants"][tenant.to_string()], "ADMIN");
        assert_eq!(v["clients"][client.to_string()]["role"], "GUEST");
        assert!(v["clients"][client.to_string()]["propertyId"].is_string());
    }
}
