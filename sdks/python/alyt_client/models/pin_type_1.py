from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.pin_type_1_kind import PinType1Kind
from uuid import UUID






T = TypeVar("T", bound="PinType1")



@_attrs_define
class PinType1:
    """ 
        Attributes:
            kind (PinType1Kind):
            routine_id (UUID):
     """

    kind: PinType1Kind
    routine_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        kind = self.kind.value

        routine_id = str(self.routine_id)


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "kind": kind,
            "routineId": routine_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        kind = PinType1Kind(d.pop("kind"))




        routine_id = UUID(d.pop("routineId"))




        pin_type_1 = cls(
            kind=kind,
            routine_id=routine_id,
        )


        pin_type_1.additional_properties = d
        return pin_type_1

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
