//! Device credentials on IoT Core: one X.509 certificate per device, attached
//! to a thing named after the device and to the device policy.
//!
//! The device policy (infra/template.yaml, `DevicePolicy`) grants nothing by
//! itself: it names the topic subtree with the thing-name policy variables
//! `${iot:Connection.Thing.ThingName}` and the thing attributes
//! [`TENANT_ATTRIBUTE`] and [`PROPERTY_ATTRIBUTE`], so a certificate reaches
//! only `alyt/{tenantId}/{propertyId}/{deviceId}/...` of the thing it is
//! attached to. Those attribute names are part of the policy: keep them in step.
//!
//! Revocation: IoT Core checks the certificate status at every CONNECT, and
//! the UpdateCertificate API reference says that within a few minutes of a
//! certificate leaving ACTIVE, IoT Core disconnects every device that connected
//! with it. "A few minutes" is too slow for a revoked device, so
//! `IotDataPublisher::disconnect` also closes the
//! session at once with the data plane's DeleteConnection.
//!
//! The private key is returned once in the issued credential and is never
//! logged or stored; errors name the failed step, never a response body.

use std::time::Duration;

use alyt_device::credentials::{
    CredentialError, DeviceCredentialIssuer, DeviceCredentials, IssuedCredential,
};
use alyt_domain::ids::{DeviceId, PropertyId, TenantId};
use async_trait::async_trait;
use aws_sdk_iot::Client;
use aws_sdk_iot::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_iot::types::{AttributePayload, CertificateStatus, ThingPrincipalType};

/// The thing attribute holding the device's tenant id (read by the policy).
pub const TENANT_ATTRIBUTE: &str = "tenantId";
/// The thing attribute holding the device's property id (read by the policy).
pub const PROPERTY_ATTRIBUTE: &str = "propertyId";

/// Waits between tries of a delete that IoT refuses while a detach propagates
/// (DetachThingPrincipal is asynchronous on IoT Core: "it might take several
/// seconds"). About 4 s in all, inside an API function's 10 s timeout.
const DELETE_BACKOFF: [Duration; 4] = [
    Duration::from_millis(250),
    Duration::from_millis(500),
    Duration::from_millis(1000),
    Duration::from_millis(2000),
];

/// Issues and revokes device certificates on IoT Core.
#[derive(Clone)]
pub struct IotCredentials {
    client: Client,
    policy: String,
    endpoint: Option<String>,
}

impl IotCredentials {
    /// `policy`: the IoT policy attached to every certificate; `endpoint`: the
    /// account's IoT data endpoint (host name) devices connect to, shown with
    /// the credential.
    pub fn new(client: Client, policy: impl Into<String>, endpoint: Option<String>) -> Self {
        Self {
            client,
            policy: policy.into(),
            endpoint,
        }
    }

    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Best-effort removal of what [`issue`](DeviceCredentialIssuer::issue)
    /// made before a later step failed; `thing_made` keeps a thing that was
    /// there before (CreateThing failed) from being deleted.
    async fn undo(&self, thing: &str, certificate: &Certificate, thing_made: bool) {
        let undone = async {
            self.remove_certificate(thing, certificate).await?;
            if thing_made {
                self.delete_thing(thing).await?;
            }
            Ok::<_, CredentialError>(())
        };
        if let Err(e) = undone.await {
            tracing::warn!(
                device = thing,
                certificate = %certificate.id,
                error = %e,
                "a half-issued device certificate could not be removed"
            );
        }
    }

    /// Deactivates, detaches and deletes one certificate. Missing parts are
    /// fine: a revocation may be repeated or resume an interrupted one.
    async fn remove_certificate(
        &self,
        thing: &str,
        certificate: &Certificate,
    ) -> Result<(), CredentialError> {
        // Deactivate first: from here on no new connection succeeds, and IoT
        // closes open ones within minutes (see the module comment).
        let updated = self
            .client
            .update_certificate()
            .certificate_id(&certificate.id)
            .new_status(CertificateStatus::Inactive)
            .send()
            .await;
        match updated {
            Ok(_) => {}
            Err(e) if is_not_found(&e) => return Ok(()),
            Err(e) => return Err(failed(thing, "UpdateCertificate", &e)),
        }
        // Every policy attached, not only today's configured one: the policy
        // name may have changed since the certificate was issued.
        let attached = self
            .client
            .list_attached_policies()
            .target(&certificate.arn)
            .send()
            .await
            .map_err(|e| failed(thing, "ListAttachedPolicies", &e))?;
        for policy in attached.policies() {
            let Some(name) = policy.policy_name() else {
                continue;
            };
            let detached = self
                .client
                .detach_policy()
                .policy_name(name)
                .target(&certificate.arn)
                .send()
                .await;
            match detached {
                Ok(_) => {}
                Err(e) if is_not_found(&e) => {}
                Err(e) => return Err(failed(thing, "DetachPolicy", &e)),
            }
        }
        let detached = self
            .client
            .detach_thing_principal()
            .thing_name(thing)
            .principal(&certificate.arn)
            .send()
            .await;
        match detached {
            Ok(_) => {}
            Err(e) if is_not_found(&e) => {}
            Err(e) => return Err(failed(thing, "DetachThingPrincipal", &e)),
        }
        let mut waits = DELETE_BACKOFF.iter();
        loop {
            let deleted = self
                .client
                .delete_certificate()
                .certificate_id(&certificate.id)
                .send()
                .await;
            match deleted {
                Ok(_) => return Ok(()),
                Err(e) if is_not_found(&e) => return Ok(()),
                // The thing detachment has not propagated yet.
                Err(e) if code(&e) == Some("DeleteConflictException") => match waits.next() {
                    Some(wait) => tokio::time::sleep(*wait).await,
                    None => return Err(failed(thing, "DeleteCertificate", &e)),
                },
                Err(e) => return Err(failed(thing, "DeleteCertificate", &e)),
            }
        }
    }

    async fn delete_thing(&self, thing: &str) -> Result<(), CredentialError> {
        let mut waits = DELETE_BACKOFF.iter();
        loop {
            let deleted = self.client.delete_thing().thing_name(thing).send().await;
            match deleted {
                Ok(_) => return Ok(()),
                Err(e) if is_not_found(&e) => return Ok(()),
                // "still attached" while a principal detachment propagates.
                Err(e) if code(&e) == Some("InvalidRequestException") => match waits.next() {
                    Some(wait) => tokio::time::sleep(*wait).await,
                    None => return Err(failed(thing, "DeleteThing", &e)),
                },
                Err(e) => return Err(failed(thing, "DeleteThing", &e)),
            }
        }
    }

    /// The certificate with this id, `None` when it no longer exists.
    async fn certificate(
        &self,
        thing: &str,
        id: &str,
    ) -> Result<Option<Certificate>, CredentialError> {
        let described = self
            .client
            .describe_certificate()
            .certificate_id(id)
            .send()
            .await;
        match described {
            Ok(out) => Ok(out
                .certificate_description()
                .and_then(|d| d.certificate_arn())
                .map(|arn| Certificate {
                    id: id.to_owned(),
                    arn: arn.to_owned(),
                })),
            Err(e) if is_not_found(&e) => Ok(None),
            Err(e) => Err(failed(thing, "DescribeCertificate", &e)),
        }
    }

    /// Every certificate attached to the thing (none when it does not exist).
    async fn attached_certificates(
        &self,
        thing: &str,
    ) -> Result<Vec<Certificate>, CredentialError> {
        let mut certificates = Vec::new();
        let mut next = None;
        loop {
            let listed = self
                .client
                .list_thing_principals()
                .thing_name(thing)
                .set_next_token(next)
                .send()
                .await;
            let page = match listed {
                Ok(page) => page,
                Err(e) if is_not_found(&e) => return Ok(certificates),
                Err(e) => return Err(failed(thing, "ListThingPrincipals", &e)),
            };
            // Certificate ARNs end in `cert/{certificateId}`.
            certificates.extend(page.principals().iter().filter_map(|arn| {
                let (_, id) = arn.rsplit_once(":cert/")?;
                Some(Certificate {
                    id: id.to_owned(),
                    arn: arn.clone(),
                })
            }));
            match page.next_token() {
                Some(token) => next = Some(token.to_owned()),
                None => return Ok(certificates),
            }
        }
    }
}

struct Certificate {
    id: String,
    arn: String,
}

#[async_trait]
impl DeviceCredentialIssuer for IotCredentials {
    async fn issue(
        &self,
        tenant: TenantId,
        property: PropertyId,
        device: DeviceId,
    ) -> Result<IssuedCredential, CredentialError> {
        let thing = device.to_string();
        let created = self
            .client
            .create_keys_and_certificate()
            .set_as_active(true)
            .send()
            .await
            .map_err(|e| failed(&thing, "CreateKeysAndCertificate", &e))?;
        let (Some(id), Some(arn), Some(pem), Some(private_key)) = (
            created.certificate_id(),
            created.certificate_arn(),
            created.certificate_pem(),
            created.key_pair().and_then(|k| k.private_key()),
        ) else {
            // Without an id there is nothing to undo; with one, undo below.
            if let (Some(id), Some(arn)) = (created.certificate_id(), created.certificate_arn()) {
                let certificate = Certificate {
                    id: id.to_owned(),
                    arn: arn.to_owned(),
                };
                self.undo(&thing, &certificate, false).await;
            }
            return Err(CredentialError(
                "IoT Core returned an incomplete certificate".into(),
            ));
        };
        let certificate = Certificate {
            id: id.to_owned(),
            arn: arn.to_owned(),
        };

        let made = self
            .client
            .create_thing()
            .thing_name(&thing)
            .attribute_payload(
                AttributePayload::builder()
                    .attributes(TENANT_ATTRIBUTE, tenant.to_string())
                    .attributes(PROPERTY_ATTRIBUTE, property.to_string())
                    .build(),
            )
            .send()
            .await;
        if let Err(e) = made {
            let error = failed(&thing, "CreateThing", &e);
            self.undo(&thing, &certificate, false).await;
            return Err(error);
        }

        let attached = self
            .client
            .attach_thing_principal()
            .thing_name(&thing)
            .principal(arn)
            // The certificate can never be attached to a second thing, so it
            // cannot borrow another device's policy variables.
            .thing_principal_type(ThingPrincipalType::ExclusiveThing)
            .send()
            .await
            .map_err(|e| failed(&thing, "AttachThingPrincipal", &e));
        let attached = match attached {
            Ok(_) => self
                .client
                .attach_policy()
                .policy_name(&self.policy)
                .target(arn)
                .send()
                .await
                .map(|_| ())
                .map_err(|e| failed(&thing, "AttachPolicy", &e)),
            Err(e) => Err(e),
        };
        if let Err(error) = attached {
            self.undo(&thing, &certificate, true).await;
            return Err(error);
        }

        tracing::info!(device = %device, certificate = id, "device certificate issued");
        Ok(IssuedCredential {
            shown: DeviceCredentials::Certificate {
                client_id: thing,
                certificate_id: id.to_owned(),
                certificate_pem: pem.to_owned(),
                private_key: private_key.to_owned(),
                endpoint: self.endpoint.clone(),
            },
            secret_hash: String::new(),
            certificate_id: Some(id.to_owned()),
        })
    }

    async fn revoke(
        &self,
        device: DeviceId,
        certificate_id: Option<&str>,
    ) -> Result<(), CredentialError> {
        let thing = device.to_string();
        // Only the named certificate: the thing keeps the one that replaced
        // it. Without a recorded id there is nothing to tell them apart, so
        // nothing is removed (the caller retires the device instead).
        let Some(id) = certificate_id else {
            return Ok(());
        };
        let certificates: Vec<_> = self.certificate(&thing, id).await?.into_iter().collect();
        for certificate in &certificates {
            self.remove_certificate(&thing, certificate).await?;
        }
        tracing::info!(device = %device, certificates = certificates.len(), "device certificate revoked");
        Ok(())
    }

    async fn retire(
        &self,
        device: DeviceId,
        certificate_id: Option<&str>,
    ) -> Result<(), CredentialError> {
        let thing = device.to_string();
        // Every certificate on the thing (and the recorded one, in case it
        // was already detached), then the thing itself.
        let mut certificates = self.attached_certificates(&thing).await?;
        if let Some(id) = certificate_id
            && let Some(recorded) = self.certificate(&thing, id).await?
            && !certificates.iter().any(|c| c.id == recorded.id)
        {
            certificates.push(recorded);
        }
        for certificate in &certificates {
            self.remove_certificate(&thing, certificate).await?;
        }
        self.delete_thing(&thing).await?;
        tracing::info!(device = %device, certificates = certificates.len(), "device retired at the broker");
        Ok(())
    }
}

fn code<E: ProvideErrorMetadata, R>(e: &SdkError<E, R>) -> Option<&str> {
    e.as_service_error().and_then(|s| s.code())
}

/// IoT answers a missing thing, certificate or attachment with
/// ResourceNotFoundException, typed or not depending on the operation.
fn is_not_found<E: ProvideErrorMetadata, R>(e: &SdkError<E, R>) -> bool {
    code(e) == Some("ResourceNotFoundException")
}

/// The step that failed, for the caller (the API shows it); the SDK's full
/// error goes to the log only.
fn failed<E, R>(device: &str, step: &str, e: &SdkError<E, R>) -> CredentialError
where
    E: std::error::Error + ProvideErrorMetadata + 'static,
    R: std::fmt::Debug,
{
    tracing::warn!(device, step, error = %DisplayErrorContext(e), "IoT Core call failed");
    CredentialError(format!("IoT Core {step} failed"))
}
