from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID






T = TypeVar("T", bound="Phone")



@_attrs_define
class Phone:
    """ A phone the home network watches.

        Attributes:
            connected (bool | None): On the network at the controller's last read; null when not known.
            last_seen (None | str): When the controller last saw it; null when not known.
            name (str):
            property_id (UUID):
            thing_id (UUID):
     """

    connected: bool | None
    last_seen: None | str
    name: str
    property_id: UUID
    thing_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        connected: bool | None
        connected = self.connected

        last_seen: None | str
        last_seen = self.last_seen

        name = self.name

        property_id = str(self.property_id)

        thing_id = str(self.thing_id)


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "connected": connected,
            "lastSeen": last_seen,
            "name": name,
            "propertyId": property_id,
            "thingId": thing_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_connected(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        connected = _parse_connected(d.pop("connected"))


        def _parse_last_seen(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_seen = _parse_last_seen(d.pop("lastSeen"))


        name = d.pop("name")

        property_id = UUID(d.pop("propertyId"))




        thing_id = UUID(d.pop("thingId"))




        phone = cls(
            connected=connected,
            last_seen=last_seen,
            name=name,
            property_id=property_id,
            thing_id=thing_id,
        )


        phone.additional_properties = d
        return phone

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
