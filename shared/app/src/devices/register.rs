//! Registering a device with a burned-in serial: the fields checked (a
//! hub's child is refused: its hub pairs it), the device, its first unit,
//! the serial guard and its broker credential written in one transaction,
//! the credential shown once. Who: [`super::may_register`] (the tenant's
//! ADMIN or INSTALLER, platform OWNER or STAFF, a key with `devices:write`
//! reaching the tenant); the simulator registers its virtual devices here
//! too, having decided itself who may make one.

use std::collections::BTreeSet;

use alyt_device::DeviceIdentity;
use alyt_device::connect::{self, Connection};
use alyt_domain::access::Principal;
use alyt_domain::device::{
    DEFAULT_HEARTBEAT_WINDOW_SECONDS, DeviceCapability, DeviceKind, DeviceStatus, FirmwareChannel,
    Lenient, Protocol, has_length,
};
use alyt_domain::ids::{DeviceId, PropertyId, RoomId, TenantId};
use alyt_store::repo::devices::{
    DeviceCredentialRecord, DeviceRecord, DeviceView, Devices, RegisterError, Registration,
    UnitRecord,
};
use alyt_store::repo::tenancy::Tenancy;
use serde::Serialize;
use uuid::Uuid;

use super::may_register;
use crate::ports::{DeviceCredentialIssuer, DeviceCredentials};
use crate::things::{Device, device_row};
use crate::{App, Error};

/// A device as its registration names it, unchecked.
#[derive(Debug, Clone)]
pub struct NewDevice {
    pub tenant_id: TenantId,
    pub property_id: PropertyId,
    /// A room of the property.
    pub room_id: Option<RoomId>,
    pub name: String,
    pub kind: DeviceKind,
    /// At least one; duplicates count once.
    pub capabilities: Vec<DeviceCapability>,
    /// The burned-in serial of the board.
    pub serial: String,
    pub model: Option<String>,
    pub firmware: Option<String>,
    /// Six octets, `AA:BB:CC:DD:EE:FF` or `AA-BB-…`.
    pub mac_address: Option<String>,
    /// What the device is beyond its capabilities, as its owner declares it.
    pub features: Option<Vec<String>>,
    /// Never accepted: a hub's radio child is not registered here.
    pub parent_device_id: Option<DeviceId>,
    /// Never accepted, as `parent_device_id`.
    pub protocol: Option<Protocol>,
    /// Never accepted, as `parent_device_id`.
    pub protocol_id: Option<String>,
}

/// The answer of `POST /v1/devices/register`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RegisteredDevice {
    pub device: Device,
    pub credentials: DeviceCredentials,
    /// `alyt/{tenantId}/{propertyId}/{deviceId}`: the device publishes on
    /// `{topicPrefix}/{channel}` and subscribes to `{topicPrefix}/commands`.
    pub topic_prefix: String,
    /// Where and how it connects, with shell examples carrying this
    /// credential; null where this platform does not know its broker's
    /// address.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub connection: Option<Connection>,
}

impl RegisteredDevice {
    /// The answer for a device given `credentials` under `topic_prefix`.
    pub(crate) fn new(
        app: &App,
        device: Device,
        credentials: DeviceCredentials,
        topic_prefix: String,
    ) -> Self {
        let connection =
            connect::connection(&credentials, app.device_broker.as_ref(), &topic_prefix);
        Self {
            device,
            credentials,
            topic_prefix,
            connection,
        }
    }
}

/// A burned-in serial: 1-64 printable ASCII characters, no outer spaces.
pub(crate) fn serial_ok(serial: &str) -> bool {
    has_length(serial, 64) && printable(serial)
}

pub(crate) fn printable(text: &str) -> bool {
    text.chars().all(|c| c.is_ascii_graphic() || c == ' ')
        && !text.starts_with(' ')
        && !text.ends_with(' ')
}

pub(crate) fn optional_text(
    field: &str,
    value: Option<String>,
    max: usize,
) -> Result<Option<String>, Error> {
    match value {
        None => Ok(None),
        Some(v) if has_length(&v, max) && printable(&v) => Ok(Some(v)),
        Some(_) => Err(Error::validation(
            field,
            format!("{field} must be 1 to {max} printable characters"),
        )),
    }
}

/// `AA:BB:CC:DD:EE:FF` (or with `-`, any case) -> upper case with colons.
pub(crate) fn mac_address(value: Option<String>) -> Result<Option<String>, Error> {
    let Some(raw) = value else {
        return Ok(None);
    };
    let octets: Vec<&str> = raw.split([':', '-']).collect();
    let valid = octets.len() == 6
        && octets
            .iter()
            .all(|o| o.len() == 2 && o.chars().all(|c| c.is_ascii_hexdigit()));
    if !valid {
        return Err(Error::validation(
            "macAddress",
            "macAddress must be six hex octets like AA:BB:CC:DD:EE:FF",
        ));
    }
    Ok(Some(octets.join(":").to_ascii_uppercase()))
}

/// The registration, checked and normalised.
struct CheckedRegistration {
    name: String,
    capabilities: BTreeSet<DeviceCapability>,
    serial: String,
    model: Option<String>,
    firmware: Option<String>,
    mac_address: Option<String>,
    features: Vec<String>,
}

fn check_registration(new: &NewDevice) -> Result<CheckedRegistration, Error> {
    let name = new.name.trim();
    if !has_length(name, 120) || name.chars().any(char::is_control) {
        return Err(Error::validation(
            "name",
            "name must be 1 to 120 characters (not only spaces, no control characters)",
        ));
    }
    if new.capabilities.is_empty() {
        return Err(Error::validation(
            "capabilities",
            "a device has at least one capability",
        ));
    }
    if !serial_ok(&new.serial) {
        return Err(Error::validation(
            "serial",
            "serial must be 1 to 64 printable ASCII characters without leading or trailing spaces",
        ));
    }
    // Children of a hub come through their hub, never through here.
    let named = [
        ("parentDeviceId", new.parent_device_id.is_some()),
        ("protocol", new.protocol.is_some()),
        ("protocolId", new.protocol_id.is_some()),
    ];
    if let Some((field, _)) = named.iter().find(|(_, given)| *given) {
        return Err(Error::validation(
            *field,
            "a hub's child is not registered: the hub pairs it and reports it on its events \
             channel ({\"type\": \"child.paired\", \"protocol\", \"protocolId\", \"name\", \
             \"kind\", \"capabilities\", \"features\"}; see /v1/asyncapi.json), and the child \
             speaks through its hub with no credential of its own",
        ));
    }
    Ok(CheckedRegistration {
        name: name.to_owned(),
        capabilities: new.capabilities.iter().copied().collect(),
        serial: new.serial.clone(),
        model: optional_text("model", new.model.clone(), 64)?,
        firmware: optional_text("firmware", new.firmware.clone(), 64)?,
        mac_address: mac_address(new.mac_address.clone())?,
        features: declared_features(new.features.as_deref())?,
    })
}

/// The features a registration declares: at most as many, and as long, as
/// a status report's.
fn declared_features(features: Option<&[String]>) -> Result<Vec<String>, Error> {
    let features = features.unwrap_or_default();
    use alyt_device::channels::{FEATURE_MAX_CHARS, MAX_FEATURES};
    let fits = features.len() <= MAX_FEATURES
        && features
            .iter()
            .all(|f| (1..=FEATURE_MAX_CHARS).contains(&f.chars().count()) && printable(f));
    if !fits {
        return Err(Error::validation(
            "features",
            "at most 64 features of 1 to 64 printable characters",
        ));
    }
    Ok(features.to_vec())
}

/// How a registration is made (the HTTP operation, or the simulator).
#[derive(Clone, Copy, Default)]
pub struct RegisterOptions<'a> {
    /// A simulator device; the simulator decides who may make one.
    pub is_virtual: bool,
    /// Issues the credential instead of [`App::credentials`] (virtual
    /// devices get passwords derived from the simulator key, so the runner
    /// can log in again after a restart without any stored password).
    pub issuer: Option<&'a dyn DeviceCredentialIssuer>,
    /// The heartbeat window instead of the default (a test platform's
    /// virtual devices use a short one).
    pub heartbeat_window_seconds: Option<u32>,
}

impl std::fmt::Debug for RegisterOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegisterOptions")
            .field("is_virtual", &self.is_virtual)
            .field("issuer", &self.issuer.map(|_| "custom"))
            .field("heartbeat_window_seconds", &self.heartbeat_window_seconds)
            .finish()
    }
}

/// Registers a device in `new.tenant_id` when the caller may
/// ([`may_register`]).
pub async fn register_device(
    app: &App,
    caller: &Principal,
    new: NewDevice,
) -> Result<RegisteredDevice, Error> {
    may_register(app, caller, new.tenant_id).await?;
    register(app, new, RegisterOptions::default()).await
}

/// Registers a device for a caller already authorized for `new.tenant_id`:
/// checks the fields (a hub's child is refused: its hub pairs it), the
/// property (not found, the same for a foreign one) and the room (a wrong
/// `roomId`), then writes everything in one transaction. The simulator
/// registers through here too.
pub async fn register(
    app: &App,
    new: NewDevice,
    options: RegisterOptions<'_>,
) -> Result<RegisteredDevice, Error> {
    let checked = check_registration(&new)?;
    let tenant = new.tenant_id;
    let devices = Devices(&*app.store);
    let tenancy = Tenancy(&*app.store);
    let room_check = async {
        match new.room_id {
            Some(room) => devices.room_exists(new.property_id, room).await.map(Some),
            None => Ok(None),
        }
    };
    let (property, room_found) =
        tokio::try_join!(tenancy.property(tenant, new.property_id), room_check)?;
    let Some(property) = property else {
        return Err(Error::not_found("no such property in this tenant"));
    };
    if room_found == Some(false) {
        return Err(Error::validation("roomId", "no such room in this property"));
    }

    let now = app.clock.now();
    let id = DeviceId::new();
    let unit = UnitRecord {
        id: Uuid::now_v7(),
        device_id: id,
        serial: checked.serial,
        model: checked.model,
        firmware: checked.firmware,
        mac_address: checked.mac_address,
        installed_at: now,
        removed_at: None,
        removed_reason: None,
    };
    let device = DeviceRecord {
        id,
        tenant_id: tenant,
        property_id: Some(new.property_id),
        client_id: Some(property.client_id),
        room_id: new.room_id,
        name: checked.name,
        kind: new.kind.into(),
        capabilities: checked
            .capabilities
            .into_iter()
            .map(Lenient::from)
            .collect(),
        features: checked.features,
        current_unit_id: Some(unit.id),
        // Children of a hub are paired through it (alyt_device::pairing).
        parent_device_id: None,
        protocol: None,
        protocol_id: None,
        firmware_channel: FirmwareChannel::Stable.into(),
        status: DeviceStatus::Provisioning.into(),
        last_seen: None,
        reported_at: None,
        deleted_at: None,
        created_at: now,
        updated_at: now,
        settings: None,
        heartbeat_window_seconds: options
            .heartbeat_window_seconds
            .unwrap_or(DEFAULT_HEARTBEAT_WINDOW_SECONDS),
        is_virtual: options.is_virtual,
    };
    let issuer = options.issuer.unwrap_or(&*app.credentials);
    let issued = issuer
        .issue(tenant, new.property_id, id)
        .await
        .map_err(|e| Error::unavailable(e.to_string()))?;
    let username = id.to_string();
    let credential = DeviceCredentialRecord {
        username: username.clone(),
        device_id: id,
        tenant_id: tenant,
        property_id: new.property_id,
        secret_hash: issued.secret_hash.clone(),
        certificate_id: issued.certificate_id.clone(),
        created_at: now,
    };
    let written = devices
        .register(Registration {
            device: &device,
            unit: &unit,
            credential: &credential,
        })
        .await;
    if let Err(e) = written {
        // The credential was issued for a device that does not exist.
        if let Err(revoke) = issuer.retire(id, issued.certificate_id.as_deref()).await {
            tracing::warn!(device = %id, error = %revoke, "an unused device credential could not be revoked");
        }
        return Err(match e {
            RegisterError::SerialTaken => Error::conflict(
                "a device with this serial is registered already (a replacement board is a new unit of the existing device)",
            )
            .with_field("serial"),
            RegisterError::Store(e) => e.into(),
        });
    }
    let identity = DeviceIdentity::new(tenant, new.property_id, id);
    let row = device_row(
        DeviceView {
            device,
            unit: Some(unit),
            reported: None,
        },
        now,
    );
    Ok(RegisteredDevice::new(
        app,
        row,
        issued.shown,
        identity.topic_prefix(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mac_addresses_are_normalised_or_refused() {
        assert_eq!(
            mac_address(Some("aa-bb-cc-dd-ee-0f".into())).unwrap(),
            Some("AA:BB:CC:DD:EE:0F".into())
        );
        for bad in [
            "",
            "aa:bb",
            "gg:bb:cc:dd:ee:ff",
            "aabbccddeeff",
            "aa:bb:cc:dd:ee:ff:00",
        ] {
            let err = mac_address(Some(bad.into())).unwrap_err();
            assert_eq!(err.field.as_deref(), Some("macAddress"), "{bad}");
        }
    }

    #[test]
    fn serials_are_printable_ascii() {
        assert!(printable("SN-0001 A"));
        assert!(!printable(" SN"));
        assert!(!printable("SN\n"));
        assert!(!printable("SÑ"));
    }
}
