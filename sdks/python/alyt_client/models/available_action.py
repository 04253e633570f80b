from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.room_action_primitive import RoomActionPrimitive
from ..types import UNSET, Unset






T = TypeVar("T", bound="AvailableAction")



@_attrs_define
class AvailableAction:
    """ An action the room's members offer.

        Attributes:
            action (str):
            capability (str):
            control_key (str): The control of the capability the action sets.
            icon (str):
            label (str):
            members (int): How many members offer it.
            primitive (RoomActionPrimitive): How a room tile draws a room action.
            confirm (bool | Unset):
     """

    action: str
    capability: str
    control_key: str
    icon: str
    label: str
    members: int
    primitive: RoomActionPrimitive
    confirm: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        action = self.action

        capability = self.capability

        control_key = self.control_key

        icon = self.icon

        label = self.label

        members = self.members

        primitive = self.primitive.value

        confirm = self.confirm


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "action": action,
            "capability": capability,
            "controlKey": control_key,
            "icon": icon,
            "label": label,
            "members": members,
            "primitive": primitive,
        })
        if confirm is not UNSET:
            field_dict["confirm"] = confirm

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        action = d.pop("action")

        capability = d.pop("capability")

        control_key = d.pop("controlKey")

        icon = d.pop("icon")

        label = d.pop("label")

        members = d.pop("members")

        primitive = RoomActionPrimitive(d.pop("primitive"))




        confirm = d.pop("confirm", UNSET)

        available_action = cls(
            action=action,
            capability=capability,
            control_key=control_key,
            icon=icon,
            label=label,
            members=members,
            primitive=primitive,
            confirm=confirm,
        )


        available_action.additional_properties = d
        return available_action

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
