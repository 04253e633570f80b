from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from uuid import UUID






T = TypeVar("T", bound="CreateRoomRequest")



@_attrs_define
class CreateRoomRequest:
    """ The body of `POST /v1/rooms`.

        Attributes:
            name (str):
            property_id (UUID):
            tenant_id (UUID):
            icon (str | Unset): A token of the room-icon set; derived from the name when left out.
     """

    name: str
    property_id: UUID
    tenant_id: UUID
    icon: str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        name = self.name

        property_id = str(self.property_id)

        tenant_id = str(self.tenant_id)

        icon = self.icon


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
            "propertyId": property_id,
            "tenantId": tenant_id,
        })
        if icon is not UNSET:
            field_dict["icon"] = icon

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        property_id = UUID(d.pop("propertyId"))




        tenant_id = UUID(d.pop("tenantId"))




        icon = d.pop("icon", UNSET)

        create_room_request = cls(
            name=name,
            property_id=property_id,
            tenant_id=tenant_id,
            icon=icon,
        )

        return create_room_request

