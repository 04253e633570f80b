//! Callers of every kind for authorization tests: people with each household,
//! tenant and platform role (seeded through the repositories, then signed in
//! over HTTP), a developer (signed up over HTTP) with its session, a key with
//! every scope and a revoked key, and broken credentials (none, garbage,
//! expired, wrong kind).

use std::collections::BTreeMap;

use alyt_app::auth::passwords::hash_password;
use alyt_domain::access::{Claims, HouseholdRole, PlatformRole, Scope, TenantRole};
use alyt_domain::ids::{ConnectorId, IntegrationId, UserId};
use alyt_store::repo::config::{Config, SigningKey};
use alyt_store::repo::identity::{UserRecord, Users};
use alyt_store::repo::integrations::{IntegrationRecord, Integrations};
use alyt_store::repo::members::Members;
use alyt_store::repo::tenancy::{GrantNetwork, GrantRecord};

use crate::TestPlatform;
use crate::developers::{
    DeveloperSession, create_key, issue_live_key, jwt_payload, sign_up_and_verify,
};

/// One kind of caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Who {
    Anonymous,
    Garbage,
    ExpiredToken,
    /// A household session's token that says it is a developer's (the
    /// developer audience tokens once carried), signed with the platform's
    /// key: a token never says its own kind (its session does), and a
    /// payload with more than the spec's claims is refused.
    WrongKindToken,
    HouseholdOwner,
    HouseholdMember,
    HouseholdGuest,
    PlatformOwner,
    PlatformStaff,
    PlatformSupport,
    TenantAdmin,
    TenantInstaller,
    /// A verified developer's session (ADMIN of its own sandbox tenant).
    DeveloperSession,
    /// A DEV key of that developer with every scope.
    DevKey,
    /// A DEV key of that developer that was revoked.
    RevokedKey,
    /// A LIVE key of that developer, with every scope, for a connector of
    /// its installed in its sandbox's home: it acts only for that
    /// connector's integrations and their endpoints.
    LiveKey,
    /// A MEMBER of the demo household whose grant requires the home's
    /// network, signed in away from it (no phone signal, no home address
    /// known): their claims do not name the household.
    ConditionalMember,
    /// A widget token the [`Who::HouseholdMember`] minted for the demo
    /// home: it reads the home and controls its things, nothing else.
    WidgetToken,
}

impl Who {
    pub const ALL: [Who; 18] = [
        Who::Anonymous,
        Who::Garbage,
        Who::ExpiredToken,
        Who::WrongKindToken,
        Who::HouseholdOwner,
        Who::HouseholdMember,
        Who::HouseholdGuest,
        Who::PlatformOwner,
        Who::PlatformStaff,
        Who::PlatformSupport,
        Who::TenantAdmin,
        Who::TenantInstaller,
        Who::DeveloperSession,
        Who::DevKey,
        Who::RevokedKey,
        Who::LiveKey,
        Who::ConditionalMember,
        Who::WidgetToken,
    ];
}

/// Bearer tokens for every [`Who`] on one platform (in the demo tenant).
pub struct Principals {
    pub tokens: BTreeMap<Who, Option<String>>,
    /// The developer behind [`Who::DeveloperSession`], [`Who::DevKey`] and
    /// [`Who::RevokedKey`].
    pub developer: DeveloperSession,
}

/// The password of every account seeded here.
pub const PASSWORD: &str = "plum tractor season";

/// A verified account with [`PASSWORD`] and the given platform and tenant
/// roles (in the demo tenant), written through the repository: the platform
/// has no household sign-up (people arrive by grant or invitation).
pub async fn seed_account(
    t: &TestPlatform,
    email: &str,
    platform_role: Option<PlatformRole>,
    tenant_role: Option<TenantRole>,
) -> UserRecord {
    let first = t.platform.first_start.as_ref().expect("first start");
    let now = time::OffsetDateTime::now_utc();
    let user = UserRecord {
        name: None,
        id: UserId::new(),
        email: email.into(),
        password_hash: hash_password(PASSWORD),
        email_verified_at: Some(now),
        platform_role,
        tenants: tenant_role
            .map(|r| (first.tenant_id, r))
            .into_iter()
            .collect(),
        developer_id: None,
        mfa: None,
        units: None,
        created_at: now,
    };
    Users(&*t.platform.store())
        .create(&user)
        .await
        .expect("seed user");
    user
}

/// A verified account (see [`seed_account`]) with a role in the demo
/// tenant's household (a guest is pinned to its home for two days); its
/// household session token.
pub async fn seed_person(
    t: &TestPlatform,
    email: &str,
    platform_role: Option<PlatformRole>,
    tenant_role: Option<TenantRole>,
    household_role: Option<HouseholdRole>,
) -> String {
    seed_grant(t, email, platform_role, tenant_role, household_role, None).await
}

/// [`seed_person`], the grant with the network condition `network`.
async fn seed_grant(
    t: &TestPlatform,
    email: &str,
    platform_role: Option<PlatformRole>,
    tenant_role: Option<TenantRole>,
    household_role: Option<HouseholdRole>,
    network: Option<GrantNetwork>,
) -> String {
    let first = t.platform.first_start.as_ref().expect("first start");
    let store = t.platform.store();
    let now = time::OffsetDateTime::now_utc();
    let user = seed_account(t, email, platform_role, tenant_role).await;
    if let Some(role) = household_role {
        let guest = role == HouseholdRole::Guest;
        let grant = GrantRecord {
            reservation_key: None,
            network,
            client_id: first.client_id,
            tenant_id: first.tenant_id,
            user_id: user.id,
            role,
            property_id: guest.then_some(first.property_id),
            starts_at: guest.then(|| now - time::Duration::hours(1)),
            ends_at: guest.then(|| now + time::Duration::days(2)),
            granted_by: None,
            created_at: now,
        };
        // Through the repository, so that the household's owner count stays true.
        Members(&*store)
            .add(&grant, vec![])
            .await
            .expect("seed grant");
    }
    let pair = t.household_login(email, PASSWORD).await;
    pair["accessToken"].as_str().unwrap().to_owned()
}

/// A LIVE key with `scopes` for a new connector of `developer`, installed in
/// its sandbox's home. The installation is written through the repository
/// (what a connect stores), so no connector server has to run.
async fn live_key(
    t: &TestPlatform,
    developer: &DeveloperSession,
    staff: &str,
    scopes: &[&str],
) -> String {
    let (status, created) = t
        .post_json(
            "/developers/connectors",
            Some(&developer.access_token),
            serde_json::json!({
                "slug": "harness-live", "name": "Harness live", "serverUrl": "http://127.0.0.1:9/",
            }),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let connector: ConnectorId = created["connector"]["id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let home = crate::developers::sandbox_home(t, developer).await;
    Integrations(&*t.platform.store())
        .create(&IntegrationRecord {
            id: IntegrationId::new(),
            tenant_id: developer.sandbox_tenant_id.parse().unwrap(),
            property_id: home.property_id.parse().unwrap(),
            connector_id: connector,
            name: "Harness live".into(),
            config: Default::default(),
            created_at: time::OffsetDateTime::now_utc(),
            discovered_at: None,
            version_id: None,
            account: None,
        })
        .await
        .expect("seed the installation");
    crate::developers::approve_connector(t, staff, developer, &connector.to_string()).await;
    let key = issue_live_key(
        t,
        staff,
        &developer.developer_id,
        scopes,
        &connector.to_string(),
    )
    .await;
    key["secret"].as_str().unwrap().to_owned()
}

impl Principals {
    pub async fn seed(t: &TestPlatform) -> Self {
        let mut tokens = BTreeMap::new();
        tokens.insert(Who::Anonymous, None);
        tokens.insert(Who::Garbage, Some("not-a-token".to_owned()));
        let (email, password) = t.owner();
        let owner = t.household_login(&email, &password).await;
        let owner_token = owner["accessToken"].as_str().unwrap().to_owned();
        tokens.insert(Who::PlatformOwner, Some(owner_token.clone()));

        // Broken tokens signed with the platform's real key.
        let mut claims = jwt_payload(&owner_token);
        claims["exp"] = (claims["iat"].as_i64().unwrap() - 1).into();
        tokens.insert(
            Who::ExpiredToken,
            Some(signed_by_platform(t, &owner_token, &claims).await),
        );
        claims["exp"] = (claims["iat"].as_i64().unwrap() + 900).into();
        claims["aud"] = "alyt:developer".into();
        tokens.insert(
            Who::WrongKindToken,
            Some(signed_by_platform(t, &owner_token, &claims).await),
        );

        let people = [
            (Who::HouseholdOwner, None, None, Some(HouseholdRole::Owner)),
            (
                Who::HouseholdMember,
                None,
                None,
                Some(HouseholdRole::Member),
            ),
            (Who::HouseholdGuest, None, None, Some(HouseholdRole::Guest)),
            (Who::PlatformStaff, Some(PlatformRole::Staff), None, None),
            (
                Who::PlatformSupport,
                Some(PlatformRole::Support),
                None,
                None,
            ),
            (Who::TenantAdmin, None, Some(TenantRole::Admin), None),
            (
                Who::TenantInstaller,
                None,
                Some(TenantRole::Installer),
                None,
            ),
        ];
        for (who, platform, tenant, household) in people {
            let email = format!("{who:?}@example.com").to_lowercase();
            let token = seed_person(t, &email, platform, tenant, household).await;
            tokens.insert(who, Some(token));
        }

        // A member under the network condition, signed in where the home
        // sees no phone of theirs.
        let condition = GrantNetwork {
            phone_thing_id: None,
            checked_at: None,
            met: None,
            last_seen: None,
        };
        let conditional = seed_grant(
            t,
            "conditionalmember@example.com",
            None,
            None,
            Some(HouseholdRole::Member),
            Some(condition),
        )
        .await;
        tokens.insert(Who::ConditionalMember, Some(conditional));
        let first = t.platform.first_start.as_ref().expect("first start");
        let (status, minted) = t
            .post_json(
                &format!(
                    "/properties/{}/widget-tokens?tenantId={}",
                    first.property_id, first.tenant_id
                ),
                tokens[&Who::HouseholdMember].as_deref(),
                serde_json::json!({ "name": "Harness widget" }),
            )
            .await;
        assert_eq!(status, 201, "mint the harness widget: {minted}");
        tokens.insert(
            Who::WidgetToken,
            minted["token"].as_str().map(str::to_owned),
        );

        let developer = sign_up_and_verify(t, "harness-developer@example.com").await;
        tokens.insert(Who::DeveloperSession, Some(developer.access_token.clone()));
        let every_scope: Vec<&str> = Scope::ALL.iter().map(|s| s.as_str()).collect();
        let (_, key) = create_key(t, &developer, &every_scope).await;
        tokens.insert(Who::DevKey, Some(key));
        let (revoked_id, revoked) = create_key(t, &developer, &["devices:read"]).await;
        let response = t
            .http
            .delete(t.url(&format!("/developers/keys/{revoked_id}")))
            .bearer_auth(&developer.access_token)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 204, "revoke the harness key");
        tokens.insert(Who::RevokedKey, Some(revoked));
        let staff = tokens[&Who::PlatformStaff].clone().expect("staff token");
        let live = live_key(t, &developer, &staff, &every_scope).await;
        tokens.insert(Who::LiveKey, Some(live));
        Self { tokens, developer }
    }

    pub fn token(&self, who: Who) -> Option<&str> {
        self.tokens.get(&who).and_then(|t| t.as_deref())
    }
}

/// `token` (a household session's access token) signed again with the
/// platform's key to expire `seconds` from now: the same person, session
/// and claims, a shorter life.
pub async fn expiring_in(t: &TestPlatform, token: &str, seconds: i64) -> String {
    let mut claims: Claims = serde_json::from_value(jwt_payload(token)).unwrap();
    claims.exp = time::OffsetDateTime::now_utc().unix_timestamp() + seconds;
    signed_by_platform(t, token, &serde_json::to_value(&claims).unwrap()).await
}

/// `payload`, whatever it says, signed with the platform's key under the
/// header `like` (a token the platform issued) carries: a token the
/// platform could have issued.
pub async fn signed_by_platform(
    t: &TestPlatform,
    like: &str,
    payload: &serde_json::Value,
) -> String {
    // The platform stored its key when it started: the candidate is never
    // written.
    let unused = SigningKey {
        kid: String::new(),
        secret: String::new(),
        previous: None,
    };
    let key = Config(&*t.platform.store())
        .signing_key_or(unused)
        .await
        .unwrap();
    let header = jsonwebtoken::decode_header(like).unwrap();
    assert_eq!(
        header.kid.as_deref(),
        Some(key.kid.as_str()),
        "the key that signed it"
    );
    let secret = base64::Engine::decode(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD,
        &key.secret,
    )
    .unwrap();
    jsonwebtoken::encode(
        &header,
        payload,
        &jsonwebtoken::EncodingKey::from_secret(&secret),
    )
    .unwrap()
}
