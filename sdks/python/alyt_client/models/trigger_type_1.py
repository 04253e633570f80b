from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.trigger_type_1_kind import TriggerType1Kind
from ..models.weekday import Weekday
from typing import cast






T = TypeVar("T", bound="TriggerType1")



@_attrs_define
class TriggerType1:
    """ At a time of day on chosen weekdays, in the home's timezone.

        Attributes:
            at (str): `HH:MM`, 24-hour, in the home's timezone.
            days (list[Weekday]):
            kind (TriggerType1Kind):
     """

    at: str
    days: list[Weekday]
    kind: TriggerType1Kind
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        at = self.at

        days = []
        for days_item_data in self.days:
            days_item = days_item_data.value
            days.append(days_item)



        kind = self.kind.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "at": at,
            "days": days,
            "kind": kind,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        at = d.pop("at")

        days = []
        _days = d.pop("days")
        for days_item_data in (_days):
            days_item = Weekday(days_item_data)



            days.append(days_item)


        kind = TriggerType1Kind(d.pop("kind"))




        trigger_type_1 = cls(
            at=at,
            days=days,
            kind=kind,
        )


        trigger_type_1.additional_properties = d
        return trigger_type_1

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
