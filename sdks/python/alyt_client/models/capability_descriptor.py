from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.control import Control
  from ..models.room_action import RoomAction





T = TypeVar("T", bound="CapabilityDescriptor")



@_attrs_define
class CapabilityDescriptor:
    """ A capability list item: everything a client needs to draw one capability.

        Attributes:
            controls (list[Control]):
            icon (str): A kebab-case icon token.
            id (str): Lowercase letters/underscores, optionally one dot and more
                (`light`, `sensor.vibration`).
            label (str):
            room_actions (list[RoomAction]):
            version (int): Revision of this descriptor; bumped when its controls change.
     """

    controls: list[Control]
    icon: str
    id: str
    label: str
    room_actions: list[RoomAction]
    version: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.control import Control # noqa: PLC0415
        from ..models.room_action import RoomAction # noqa: PLC0415
        controls = []
        for controls_item_data in self.controls:
            controls_item = controls_item_data.to_dict()
            controls.append(controls_item)



        icon = self.icon

        id = self.id

        label = self.label

        room_actions = []
        for room_actions_item_data in self.room_actions:
            room_actions_item = room_actions_item_data.to_dict()
            room_actions.append(room_actions_item)



        version = self.version


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "controls": controls,
            "icon": icon,
            "id": id,
            "label": label,
            "roomActions": room_actions,
            "version": version,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.control import Control # noqa: PLC0415
        from ..models.room_action import RoomAction # noqa: PLC0415
        d = dict(src_dict)
        controls = []
        _controls = d.pop("controls")
        for controls_item_data in (_controls):
            controls_item = Control.from_dict(controls_item_data)



            controls.append(controls_item)


        icon = d.pop("icon")

        id = d.pop("id")

        label = d.pop("label")

        room_actions = []
        _room_actions = d.pop("roomActions")
        for room_actions_item_data in (_room_actions):
            room_actions_item = RoomAction.from_dict(room_actions_item_data)



            room_actions.append(room_actions_item)


        version = d.pop("version")

        capability_descriptor = cls(
            controls=controls,
            icon=icon,
            id=id,
            label=label,
            room_actions=room_actions,
            version=version,
        )


        capability_descriptor.additional_properties = d
        return capability_descriptor

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
