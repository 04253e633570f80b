from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.step_type_1_kind import StepType1Kind
from ..types import UNSET, Unset
from uuid import UUID






T = TypeVar("T", bound="StepType1")



@_attrs_define
class StepType1:
    """ A room action, as a room tile sends it.

        Attributes:
            action (str):
            capability (str):
            kind (StepType1Kind):
            room_id (UUID):
            value (Any | Unset):
     """

    action: str
    capability: str
    kind: StepType1Kind
    room_id: UUID
    value: Any | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        action = self.action

        capability = self.capability

        kind = self.kind.value

        room_id = str(self.room_id)

        value = self.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "action": action,
            "capability": capability,
            "kind": kind,
            "roomId": room_id,
        })
        if value is not UNSET:
            field_dict["value"] = value

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        action = d.pop("action")

        capability = d.pop("capability")

        kind = StepType1Kind(d.pop("kind"))




        room_id = UUID(d.pop("roomId"))




        value = d.pop("value", UNSET)

        step_type_1 = cls(
            action=action,
            capability=capability,
            kind=kind,
            room_id=room_id,
            value=value,
        )


        step_type_1.additional_properties = d
        return step_type_1

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
