from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.connection import Connection
  from ..models.device import Device
  from ..models.device_credentials_type_0 import DeviceCredentialsType0
  from ..models.device_credentials_type_1 import DeviceCredentialsType1





T = TypeVar("T", bound="RegisteredDevice")



@_attrs_define
class RegisteredDevice:
    """ The answer of `POST /v1/devices/register`.

        Attributes:
            connection (Connection | None):
            credentials (DeviceCredentialsType0 | DeviceCredentialsType1): What a device is given to reach the broker with,
                shown once (at
                registration, replacement and rotation).
            device (Device): A device row (spec: Resources > Device). Every field is always present.
            topic_prefix (str): `alyt/{tenantId}/{propertyId}/{deviceId}`: the device publishes on
                `{topicPrefix}/{channel}` and subscribes to `{topicPrefix}/commands`.
     """

    connection: Connection | None
    credentials: DeviceCredentialsType0 | DeviceCredentialsType1
    device: Device
    topic_prefix: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.connection import Connection # noqa: PLC0415
        from ..models.device import Device # noqa: PLC0415
        from ..models.device_credentials_type_0 import DeviceCredentialsType0 # noqa: PLC0415
        from ..models.device_credentials_type_1 import DeviceCredentialsType1 # noqa: PLC0415
        connection: dict[str, Any] | None
        if isinstance(self.connection, Connection):
            connection = self.connection.to_dict()
        else:
            connection = self.connection

        credentials: dict[str, Any]
        if isinstance(self.credentials, DeviceCredentialsType0):
            credentials = self.credentials.to_dict()
        else:
            credentials = self.credentials.to_dict()


        device = self.device.to_dict()

        topic_prefix = self.topic_prefix


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "connection": connection,
            "credentials": credentials,
            "device": device,
            "topicPrefix": topic_prefix,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.connection import Connection # noqa: PLC0415
        from ..models.device import Device # noqa: PLC0415
        from ..models.device_credentials_type_0 import DeviceCredentialsType0 # noqa: PLC0415
        from ..models.device_credentials_type_1 import DeviceCredentialsType1 # noqa: PLC0415
        d = dict(src_dict)
        def _parse_connection(data: object) -> Connection | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                connection_type_1 = Connection.from_dict(data)



                return connection_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Connection | None, data)

        connection = _parse_connection(d.pop("connection"))


        def _parse_credentials(data: object) -> DeviceCredentialsType0 | DeviceCredentialsType1:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_device_credentials_type_0 = DeviceCredentialsType0.from_dict(data)



                return componentsschemas_device_credentials_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_device_credentials_type_1 = DeviceCredentialsType1.from_dict(data)



            return componentsschemas_device_credentials_type_1

        credentials = _parse_credentials(d.pop("credentials"))


        device = Device.from_dict(d.pop("device"))




        topic_prefix = d.pop("topicPrefix")

        registered_device = cls(
            connection=connection,
            credentials=credentials,
            device=device,
            topic_prefix=topic_prefix,
        )


        registered_device.additional_properties = d
        return registered_device

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
