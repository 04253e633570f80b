from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.action_ref import ActionRef
  from ..models.action_value import ActionValue





T = TypeVar("T", bound="House")



@_attrs_define
class House:
    """ The all-the-house tile.

        Attributes:
            action_values (list[ActionValue]):
            primary_actions (list[ActionRef]):
     """

    action_values: list[ActionValue]
    primary_actions: list[ActionRef]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.action_ref import ActionRef # noqa: PLC0415
        from ..models.action_value import ActionValue # noqa: PLC0415
        action_values = []
        for action_values_item_data in self.action_values:
            action_values_item = action_values_item_data.to_dict()
            action_values.append(action_values_item)



        primary_actions = []
        for primary_actions_item_data in self.primary_actions:
            primary_actions_item = primary_actions_item_data.to_dict()
            primary_actions.append(primary_actions_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "actionValues": action_values,
            "primaryActions": primary_actions,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.action_ref import ActionRef # noqa: PLC0415
        from ..models.action_value import ActionValue # noqa: PLC0415
        d = dict(src_dict)
        action_values = []
        _action_values = d.pop("actionValues")
        for action_values_item_data in (_action_values):
            action_values_item = ActionValue.from_dict(action_values_item_data)



            action_values.append(action_values_item)


        primary_actions = []
        _primary_actions = d.pop("primaryActions")
        for primary_actions_item_data in (_primary_actions):
            primary_actions_item = ActionRef.from_dict(primary_actions_item_data)



            primary_actions.append(primary_actions_item)


        house = cls(
            action_values=action_values,
            primary_actions=primary_actions,
        )


        house.additional_properties = d
        return house

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
