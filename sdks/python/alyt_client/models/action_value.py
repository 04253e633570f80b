from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="ActionValue")



@_attrs_define
class ActionValue:
    """ The value a tile draws for one action (computed on the server).

        Attributes:
            action (str):
            capability (str):
            members (int): How many members offer the action.
            value (Any): A boolean (toggle, lock, listening), a number (slider, stepper), or
                null when no member reports one.
     """

    action: str
    capability: str
    members: int
    value: Any
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        action = self.action

        capability = self.capability

        members = self.members

        value = self.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "action": action,
            "capability": capability,
            "members": members,
            "value": value,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        action = d.pop("action")

        capability = d.pop("capability")

        members = d.pop("members")

        value = d.pop("value")

        action_value = cls(
            action=action,
            capability=capability,
            members=members,
            value=value,
        )


        action_value.additional_properties = d
        return action_value

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
