from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="Property")



@_attrs_define
class Property:
    """ A home (spec: Client (household) and property).

        Attributes:
            address (None | str):
            client_id (UUID):
            created_at (datetime.datetime):
            id (UUID):
            latitude (float | None):
            longitude (float | None):
            name (str):
            tenant_id (UUID):
            timezone (str):
            updated_at (datetime.datetime):
     """

    address: None | str
    client_id: UUID
    created_at: datetime.datetime
    id: UUID
    latitude: float | None
    longitude: float | None
    name: str
    tenant_id: UUID
    timezone: str
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        address: None | str
        address = self.address

        client_id = str(self.client_id)

        created_at = self.created_at.isoformat()

        id = str(self.id)

        latitude: float | None
        latitude = self.latitude

        longitude: float | None
        longitude = self.longitude

        name = self.name

        tenant_id = str(self.tenant_id)

        timezone = self.timezone

        updated_at = self.updated_at.isoformat()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "address": address,
            "clientId": client_id,
            "createdAt": created_at,
            "id": id,
            "latitude": latitude,
            "longitude": longitude,
            "name": name,
            "tenantId": tenant_id,
            "timezone": timezone,
            "updatedAt": updated_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_address(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        address = _parse_address(d.pop("address"))


        client_id = UUID(d.pop("clientId"))




        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))




        id = UUID(d.pop("id"))




        def _parse_latitude(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        latitude = _parse_latitude(d.pop("latitude"))


        def _parse_longitude(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        longitude = _parse_longitude(d.pop("longitude"))


        name = d.pop("name")

        tenant_id = UUID(d.pop("tenantId"))




        timezone = d.pop("timezone")

        updated_at = datetime.datetime.fromisoformat(d.pop("updatedAt"))




        property_ = cls(
            address=address,
            client_id=client_id,
            created_at=created_at,
            id=id,
            latitude=latitude,
            longitude=longitude,
            name=name,
            tenant_id=tenant_id,
            timezone=timezone,
            updated_at=updated_at,
        )


        property_.additional_properties = d
        return property_

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
