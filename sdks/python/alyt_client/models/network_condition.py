from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime






T = TypeVar("T", bound="NetworkCondition")



@_attrs_define
class NetworkCondition:
    """ A member's access condition on the home network.

        Attributes:
            checked_at (datetime.datetime | None):
            met (bool | None): The outcome of the last check; null before the first.
            require_network (bool): The person is in claims only while the home proves the phone is on
                its network.
     """

    checked_at: datetime.datetime | None
    met: bool | None
    require_network: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        checked_at: None | str
        if isinstance(self.checked_at, datetime.datetime):
            checked_at = self.checked_at.isoformat()
        else:
            checked_at = self.checked_at

        met: bool | None
        met = self.met

        require_network = self.require_network


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "checkedAt": checked_at,
            "met": met,
            "requireNetwork": require_network,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_checked_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                checked_at_type_0 = datetime.datetime.fromisoformat(data)



                return checked_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        checked_at = _parse_checked_at(d.pop("checkedAt"))


        def _parse_met(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        met = _parse_met(d.pop("met"))


        require_network = d.pop("requireNetwork")

        network_condition = cls(
            checked_at=checked_at,
            met=met,
            require_network=require_network,
        )


        network_condition.additional_properties = d
        return network_condition

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
