//! Typed ids: a `TenantId` can never be passed where a `ClientId` is meant.
//! All are UUIDs on the wire (spec: ids are UUID strings unless stated); new ids
//! are UUIDv7, so they sort by creation time in store keys.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

macro_rules! uuid_id {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub Uuid);

        impl $name {
            /// A fresh, time-ordered id.
            pub fn new() -> Self {
                Self(Uuid::now_v7())
            }
            pub fn as_uuid(&self) -> &Uuid {
                &self.0
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.hyphenated().fmt(f)
            }
        }

        impl FromStr for $name {
            type Err = uuid::Error;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Uuid::parse_str(s).map(Self)
            }
        }

        impl From<Uuid> for $name {
            fn from(id: Uuid) -> Self {
                Self(id)
            }
        }

        #[cfg(feature = "openapi")]
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, SchemaFormat, Type};
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .format(Some(SchemaFormat::KnownFormat(KnownFormat::Uuid)))
                    .into()
            }
        }
        #[cfg(feature = "openapi")]
        impl utoipa::ToSchema for $name {}
    )*};
}

uuid_id!(
    /// A person's account (household person, staff or developer).
    UserId,
    TenantId,
    /// A household.
    ClientId,
    /// A home.
    PropertyId,
    RoomId,
    DeviceId,
    EndpointId,
    IntegrationId,
    /// A connector (a developer's integration; once published, its catalogue
    /// definition: a LIVE key's `definitionId`).
    ConnectorId,
    DeveloperId,
    /// A developer key; also the App ID of the app it authenticates.
    KeyId,
    /// One sign-in: the family of refresh tokens rotated from one login.
    SessionId,
    WebhookId,
    RoutineId,
    InvitationId,
);
