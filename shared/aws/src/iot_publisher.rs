//! Commands to devices through IoT Core's data plane (HTTPS Publish).
//!
//! A successful Publish means IoT Core took the message, not that a device
//! received it: unlike the embedded broker, the data plane does not say
//! whether anyone is subscribed. With QoS 1, IoT Core queues the message for
//! a device with a persistent session that is offline, and a device answers
//! on its `response` channel with the commandId, which is how the platform
//! learns the outcome.

use alyt_device::{Channel, DeviceIdentity, DevicePublisher, PublishError};
use async_trait::async_trait;
use aws_sdk_iotdataplane::Client;
use aws_sdk_iotdataplane::error::{DisplayErrorContext, ProvideErrorMetadata};
use aws_sdk_iotdataplane::primitives::Blob;

/// Publishes on a device's `commands` topic with IoT Core's data plane.
#[derive(Clone)]
pub struct IotDataPublisher {
    client: Client,
}

impl IotDataPublisher {
    /// `client` must talk to the account's data endpoint
    /// (`https://{prefix}-ats.iot.{region}.amazonaws.com`): the generic
    /// regional data host is meant for testing only.
    pub fn new(client: Client) -> Self {
        Self { client }
    }

    pub fn client(&self) -> &Client {
        &self.client
    }
}

#[async_trait]
impl DevicePublisher for IotDataPublisher {
    async fn publish(
        &self,
        identity: &DeviceIdentity,
        payload: Vec<u8>,
    ) -> Result<(), PublishError> {
        self.client
            .publish()
            .topic(identity.topic(Channel::Commands))
            .qos(1)
            .payload(Blob::new(payload))
            .send()
            .await
            .map(|_| ())
            .map_err(|e| PublishError::Failed(DisplayErrorContext(&e).to_string()))
    }

    /// Closes the device's MQTT connection at once (DeleteConnection; the
    /// client id is the device id), instead of waiting the few minutes IoT
    /// Core takes to drop connections of a deactivated certificate. The
    /// session is cleaned so queued commands die with it; the last will is
    /// published as for any dropped connection, so the device reads offline.
    async fn disconnect(&self, identity: &DeviceIdentity) -> Result<(), PublishError> {
        let deleted = self
            .client
            .delete_connection()
            .client_id(identity.device_id.to_string())
            .clean_session(true)
            .send()
            .await;
        match deleted {
            Ok(_) => Ok(()),
            // Not connected: nothing to close.
            Err(e)
                if e.as_service_error().and_then(|s| s.code())
                    == Some("ResourceNotFoundException") =>
            {
                Ok(())
            }
            Err(e) => Err(PublishError::Failed(DisplayErrorContext(&e).to_string())),
        }
    }
}
