//! First start: the first platform OWNER and a demo household, so a newcomer
//! can sign in at once. This module holds the password policy (a generated
//! password when the operator gave none, shown once; its argon2id hash); the
//! records and their once-only rules are `alyt_store::repo::first_start`.
//! Hosted, the same function runs from the admin path.

use alyt_domain::ids::{ClientId, PropertyId, TenantId};
use alyt_store::repo::config::Config;
use alyt_store::repo::first_start::{self, Demo, FirstOwner};

use alyt_domain::secret::random_token;

use crate::auth::passwords::hash_password_blocking;
use crate::{App, Error};

/// What a first start created; the password is shown once, then only its hash exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirstStart {
    pub email: String,
    /// Set when the password was generated here (not given by the operator).
    pub generated_password: Option<String>,
    pub tenant_id: TenantId,
    pub client_id: ClientId,
    pub property_id: PropertyId,
}

/// What the first start puts in the demo household (`ALYT_DEMO`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DemoHome {
    /// Things to control in every room, driven by the simulator: the demo
    /// is the owner's own developer sandbox (what a newcomer meets).
    #[default]
    Simulated,
    /// Four empty rooms in a plain household (the test suite's fixture).
    Empty,
}

impl DemoHome {
    /// `ALYT_DEMO`: `simulated` (the default) or `empty`.
    pub fn from_setting(value: Option<&str>) -> Result<Self, String> {
        match value.map(str::trim) {
            None | Some("") | Some("simulated") => Ok(Self::Simulated),
            Some("empty") => Ok(Self::Empty),
            Some(other) => Err(format!(
                "ALYT_DEMO is {other:?}; it is `simulated` (the default) or `empty`"
            )),
        }
    }
}

/// Creates the first owner and the demo household unless that was done
/// before; a simulated demo then gets its virtual devices (never failing
/// the start: a device whose record is stored comes up with the runner).
pub async fn ensure_first_owner(
    app: &App,
    email: &str,
    password: Option<String>,
    demo: DemoHome,
) -> Result<Option<FirstStart>, Error> {
    if Config(&*app.store).bootstrapped().await? {
        return Ok(None);
    }
    let generated = password.is_none().then(random_token);
    let password = password.or_else(|| generated.clone()).unwrap_or_default();
    let owner = FirstOwner {
        email,
        password_hash: hash_password_blocking(password).await,
        now: app.clock.now(),
        demo: match demo {
            DemoHome::Simulated => Demo::Simulated {
                code: crate::developers::sandbox::sandbox_code(),
            },
            DemoHome::Empty => Demo::Empty,
        },
    };
    let created = first_start::create(&*app.store, owner).await?;
    if let Some(demo) = &created
        && let Some(developer) = &demo.developer
    {
        crate::developers::simulator::provision_demo(app, developer, demo.property_id, &demo.rooms)
            .await;
    }
    Ok(created.map(|demo| FirstStart {
        email: demo.owner_email,
        generated_password: generated,
        tenant_id: demo.tenant_id,
        client_id: demo.client_id,
        property_id: demo.property_id,
    }))
}
