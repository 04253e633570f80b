from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.device_capability import DeviceCapability
from ..models.device_kind import DeviceKind
from ..models.protocol import Protocol
from ..types import UNSET, Unset
from typing import cast
from uuid import UUID






T = TypeVar("T", bound="RegisterDeviceRequest")



@_attrs_define
class RegisterDeviceRequest:
    """ The body of `POST /v1/devices/register`.

        Attributes:
            capabilities (list[DeviceCapability]): At least one; duplicates count once.
            kind (DeviceKind):
            name (str):
            property_id (UUID):
            serial (str): The burned-in serial of the board: 1-64 printable ASCII characters.
            tenant_id (UUID):
            features (list[str] | Unset): What the device is beyond its capabilities, as its owner declares
                it: feature aliases such as `keypad` (a lock with an external
                keypad), at most 64 of 1-64 characters. Its own status reports
                replace its features later, but never its keypad: a keypad code
                turns a home's security Off, so only this declaration gives a lock
                one.
            firmware (str | Unset):
            mac_address (str | Unset): Six octets, `AA:BB:CC:DD:EE:FF` or `AA-BB-…`; stored upper case with colons.
            model (str | Unset):
            parent_device_id (UUID | Unset):
            protocol (Protocol | Unset):
            protocol_id (str | Unset): Never accepted (400), as `parentDeviceId`.
            room_id (UUID | Unset):
     """

    capabilities: list[DeviceCapability]
    kind: DeviceKind
    name: str
    property_id: UUID
    serial: str
    tenant_id: UUID
    features: list[str] | Unset = UNSET
    firmware: str | Unset = UNSET
    mac_address: str | Unset = UNSET
    model: str | Unset = UNSET
    parent_device_id: UUID | Unset = UNSET
    protocol: Protocol | Unset = UNSET
    protocol_id: str | Unset = UNSET
    room_id: UUID | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        capabilities = []
        for capabilities_item_data in self.capabilities:
            capabilities_item = capabilities_item_data.value
            capabilities.append(capabilities_item)



        kind = self.kind.value

        name = self.name

        property_id = str(self.property_id)

        serial = self.serial

        tenant_id = str(self.tenant_id)

        features: list[str] | Unset = UNSET
        if not isinstance(self.features, Unset):
            features = self.features



        firmware = self.firmware

        mac_address = self.mac_address

        model = self.model

        parent_device_id: str | Unset = UNSET
        if not isinstance(self.parent_device_id, Unset):
            parent_device_id = str(self.parent_device_id)

        protocol: str | Unset = UNSET
        if not isinstance(self.protocol, Unset):
            protocol = self.protocol.value


        protocol_id = self.protocol_id

        room_id: str | Unset = UNSET
        if not isinstance(self.room_id, Unset):
            room_id = str(self.room_id)


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "capabilities": capabilities,
            "kind": kind,
            "name": name,
            "propertyId": property_id,
            "serial": serial,
            "tenantId": tenant_id,
        })
        if features is not UNSET:
            field_dict["features"] = features
        if firmware is not UNSET:
            field_dict["firmware"] = firmware
        if mac_address is not UNSET:
            field_dict["macAddress"] = mac_address
        if model is not UNSET:
            field_dict["model"] = model
        if parent_device_id is not UNSET:
            field_dict["parentDeviceId"] = parent_device_id
        if protocol is not UNSET:
            field_dict["protocol"] = protocol
        if protocol_id is not UNSET:
            field_dict["protocolId"] = protocol_id
        if room_id is not UNSET:
            field_dict["roomId"] = room_id

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        capabilities = []
        _capabilities = d.pop("capabilities")
        for capabilities_item_data in (_capabilities):
            capabilities_item = DeviceCapability(capabilities_item_data)



            capabilities.append(capabilities_item)


        kind = DeviceKind(d.pop("kind"))




        name = d.pop("name")

        property_id = UUID(d.pop("propertyId"))




        serial = d.pop("serial")

        tenant_id = UUID(d.pop("tenantId"))




        features = cast(list[str], d.pop("features", UNSET))


        firmware = d.pop("firmware", UNSET)

        mac_address = d.pop("macAddress", UNSET)

        model = d.pop("model", UNSET)

        _parent_device_id = d.pop("parentDeviceId", UNSET)
        parent_device_id: UUID | Unset
        if isinstance(_parent_device_id,  Unset):
            parent_device_id = UNSET
        else:
            parent_device_id = UUID(_parent_device_id)




        _protocol = d.pop("protocol", UNSET)
        protocol: Protocol | Unset
        if isinstance(_protocol,  Unset):
            protocol = UNSET
        else:
            protocol = Protocol(_protocol)




        protocol_id = d.pop("protocolId", UNSET)

        _room_id = d.pop("roomId", UNSET)
        room_id: UUID | Unset
        if isinstance(_room_id,  Unset):
            room_id = UNSET
        else:
            room_id = UUID(_room_id)




        register_device_request = cls(
            capabilities=capabilities,
            kind=kind,
            name=name,
            property_id=property_id,
            serial=serial,
            tenant_id=tenant_id,
            features=features,
            firmware=firmware,
            mac_address=mac_address,
            model=model,
            parent_device_id=parent_device_id,
            protocol=protocol,
            protocol_id=protocol_id,
            room_id=room_id,
        )

        return register_device_request

