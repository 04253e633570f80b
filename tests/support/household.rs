//! A household of a story's own, on either target (`region::Story`): the
//! sandbox household of a freshly signed-up developer, who owns it (the
//! hosted stack has no demo owner), signed in through the household
//! sign-in; its devices registered through the API and connected with
//! whatever registration answered (`device`).

use std::time::Duration;

use serde_json::{Value, json};

use crate::Target;
use crate::developers::{DeveloperSession, PASSWORD, sandbox_home, sign_up_and_verify};
use crate::device::{Credentials, PlayedDevice};

/// An address no other story (and no earlier run on a kept region) uses:
/// on the emulated region the stories share one table.
pub fn fresh_address(name: &str) -> String {
    format!("{name}-{}@example.com", uuid::Uuid::now_v7().simple())
}

/// A developer's sandbox household and its home, with the owner's
/// household session.
pub struct Household {
    pub dev: DeveloperSession,
    pub tenant: String,
    pub client: String,
    pub home: String,
    /// The owner's access token from `POST /auth/login`.
    pub token: String,
}

impl Household {
    /// Signs up a developer named after `name` (verified by the mailed
    /// link) and signs its sandbox household's owner in.
    pub async fn sign_up(t: &impl Target, name: &str) -> Self {
        let dev = sign_up_and_verify(t, &fresh_address(name)).await;
        let home = sandbox_home(t, &dev).await;
        let pair = t.household_login(&dev.email, PASSWORD).await;
        Self {
            tenant: dev.sandbox_tenant_id.clone(),
            client: home.client_id,
            home: home.property_id,
            token: pair["accessToken"].as_str().unwrap().to_owned(),
            dev,
        }
    }

    /// `/tenants/{tenant}/clients/{client}{rest}`: the people group's paths.
    pub fn people(&self, rest: &str) -> String {
        format!("/tenants/{}/clients/{}{rest}", self.tenant, self.client)
    }

    /// Registers a device in the home (`extra`, e.g. a `roomId`, merged into
    /// the body) and connects it with the credentials registration answered;
    /// the registration's answer and the connected device.
    pub async fn add_device(
        &self,
        t: &impl Target,
        name: &str,
        capabilities: &[&str],
        extra: Value,
    ) -> (Value, PlayedDevice) {
        let mut body = json!({
            "tenantId": self.tenant,
            "propertyId": self.home,
            "name": name,
            "kind": "OTHER",
            "capabilities": capabilities,
            "serial": format!("SN-{}", uuid::Uuid::now_v7().simple()),
        });
        if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
            body.extend(extra.clone());
        }
        let (status, registered) = t
            .post_json("/devices/register", Some(&self.token), body)
            .await;
        assert_eq!(status, 201, "{registered}");
        let device = PlayedDevice::connect(
            t,
            &Credentials::of(&registered),
            registered["topicPrefix"].as_str().unwrap(),
        )
        .await
        .expect("the device's credentials log in");
        (registered, device)
    }
}

/// GETs `path` with `token` until `check` holds, within `within`; the body
/// that passed. Hosted, what a device reports goes rule -> SQS -> ingest and
/// a schedule fires on its beat, so stories wait rather than read once.
pub async fn until(
    t: &impl Target,
    path: &str,
    token: &str,
    within: Duration,
    what: &str,
    check: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        let (status, body) = t.get_json(path, Some(token)).await;
        assert_eq!(status, 200, "{path}: {body}");
        if check(&body) {
            return body;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no {what} within {within:?}: {body}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
