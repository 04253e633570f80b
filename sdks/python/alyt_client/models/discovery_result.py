from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="DiscoveryResult")



@_attrs_define
class DiscoveryResult:
    """ What one discovery did.

        Attributes:
            created (int): New endpoints.
            discovering (bool): Always false: discovery has finished when this answers.
            rooms_created (list[str]): Rooms discovery created (the names the connector gave).
            things (int): Things the connector reported and the platform took.
            updated (int): Endpoints seen before, refreshed (kind, address, capabilities,
                features, state; never their name, room or presentation).
     """

    created: int
    discovering: bool
    rooms_created: list[str]
    things: int
    updated: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        created = self.created

        discovering = self.discovering

        rooms_created = self.rooms_created



        things = self.things

        updated = self.updated


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created": created,
            "discovering": discovering,
            "roomsCreated": rooms_created,
            "things": things,
            "updated": updated,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created = d.pop("created")

        discovering = d.pop("discovering")

        rooms_created = cast(list[str], d.pop("roomsCreated"))


        things = d.pop("things")

        updated = d.pop("updated")

        discovery_result = cls(
            created=created,
            discovering=discovering,
            rooms_created=rooms_created,
            things=things,
            updated=updated,
        )


        discovery_result.additional_properties = d
        return discovery_result

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
