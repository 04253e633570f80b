from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.profile import Profile
from ..types import UNSET, Unset
from uuid import UUID






T = TypeVar("T", bound="CreateVirtualDeviceRequest")



@_attrs_define
class CreateVirtualDeviceRequest:
    """ The body of `POST /v1/developers/simulator/devices`.

        Attributes:
            profile (Profile): A virtual-device profile: the kind of device the simulator plays, with
                its capabilities and the telemetry it reports.
            property_id (UUID):
            tenant_id (UUID):
            name (str | Unset): Default: the profile's name (`Virtual light`, ...). 1-120 characters.
            room_id (UUID | Unset):
     """

    profile: Profile
    property_id: UUID
    tenant_id: UUID
    name: str | Unset = UNSET
    room_id: UUID | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        profile = self.profile.value

        property_id = str(self.property_id)

        tenant_id = str(self.tenant_id)

        name = self.name

        room_id: str | Unset = UNSET
        if not isinstance(self.room_id, Unset):
            room_id = str(self.room_id)


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "profile": profile,
            "propertyId": property_id,
            "tenantId": tenant_id,
        })
        if name is not UNSET:
            field_dict["name"] = name
        if room_id is not UNSET:
            field_dict["roomId"] = room_id

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        profile = Profile(d.pop("profile"))




        property_id = UUID(d.pop("propertyId"))




        tenant_id = UUID(d.pop("tenantId"))




        name = d.pop("name", UNSET)

        _room_id = d.pop("roomId", UNSET)
        room_id: UUID | Unset
        if isinstance(_room_id,  Unset):
            room_id = UNSET
        else:
            room_id = UUID(_room_id)




        create_virtual_device_request = cls(
            profile=profile,
            property_id=property_id,
            tenant_id=tenant_id,
            name=name,
            room_id=room_id,
        )

        return create_virtual_device_request

