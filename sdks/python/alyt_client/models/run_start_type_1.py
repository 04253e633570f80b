from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.run_start_type_1_kind import RunStartType1Kind






T = TypeVar("T", bound="RunStartType1")



@_attrs_define
class RunStartType1:
    """ 
        Attributes:
            kind (RunStartType1Kind):
            local_date (str):
            trigger (int):
     """

    kind: RunStartType1Kind
    local_date: str
    trigger: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        kind = self.kind.value

        local_date = self.local_date

        trigger = self.trigger


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "kind": kind,
            "localDate": local_date,
            "trigger": trigger,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        kind = RunStartType1Kind(d.pop("kind"))




        local_date = d.pop("localDate")

        trigger = d.pop("trigger")

        run_start_type_1 = cls(
            kind=kind,
            local_date=local_date,
            trigger=trigger,
        )


        run_start_type_1.additional_properties = d
        return run_start_type_1

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
