from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from uuid import UUID






T = TypeVar("T", bound="AppliedThing")



@_attrs_define
class AppliedThing:
    """ A thing the action reached.

        Attributes:
            name (str):
            thing_id (UUID):
            command_id (str | Unset): A decimal string.
     """

    name: str
    thing_id: UUID
    command_id: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        name = self.name

        thing_id = str(self.thing_id)

        command_id = self.command_id


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "name": name,
            "thingId": thing_id,
        })
        if command_id is not UNSET:
            field_dict["commandId"] = command_id

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        thing_id = UUID(d.pop("thingId"))




        command_id = d.pop("commandId", UNSET)

        applied_thing = cls(
            name=name,
            thing_id=thing_id,
            command_id=command_id,
        )


        applied_thing.additional_properties = d
        return applied_thing

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
