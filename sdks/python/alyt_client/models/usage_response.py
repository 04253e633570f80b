from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.key_usage import KeyUsage
  from ..models.usage_by_kind import UsageByKind





T = TypeVar("T", bound="UsageResponse")



@_attrs_define
class UsageResponse:
    """ The developer's usage now.

        Attributes:
            at (datetime.datetime): When the counts were read.
            day (str): The UTC day of the per-key counts (`2026-11-21`).
            keys (list[KeyUsage]): Every key that is not revoked, and revoked keys that made requests
                today, oldest first.
            quotas (UsageByKind): Usage per kind.
     """

    at: datetime.datetime
    day: str
    keys: list[KeyUsage]
    quotas: UsageByKind
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.key_usage import KeyUsage # noqa: PLC0415
        from ..models.usage_by_kind import UsageByKind # noqa: PLC0415
        at = self.at.isoformat()

        day = self.day

        keys = []
        for keys_item_data in self.keys:
            keys_item = keys_item_data.to_dict()
            keys.append(keys_item)



        quotas = self.quotas.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "at": at,
            "day": day,
            "keys": keys,
            "quotas": quotas,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.key_usage import KeyUsage # noqa: PLC0415
        from ..models.usage_by_kind import UsageByKind # noqa: PLC0415
        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))




        day = d.pop("day")

        keys = []
        _keys = d.pop("keys")
        for keys_item_data in (_keys):
            keys_item = KeyUsage.from_dict(keys_item_data)



            keys.append(keys_item)


        quotas = UsageByKind.from_dict(d.pop("quotas"))




        usage_response = cls(
            at=at,
            day=day,
            keys=keys,
            quotas=quotas,
        )


        usage_response.additional_properties = d
        return usage_response

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
