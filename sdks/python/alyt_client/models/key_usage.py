from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from uuid import UUID






T = TypeVar("T", bound="KeyUsage")



@_attrs_define
class KeyUsage:
    """ Requests one key made in the day of [`UsageResponse::day`].

        Attributes:
            key_id (UUID):
            name (str):
            requests (int):
     """

    key_id: UUID
    name: str
    requests: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        key_id = str(self.key_id)

        name = self.name

        requests = self.requests


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "keyId": key_id,
            "name": name,
            "requests": requests,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        key_id = UUID(d.pop("keyId"))




        name = d.pop("name")

        requests = d.pop("requests")

        key_usage = cls(
            key_id=key_id,
            name=name,
            requests=requests,
        )


        key_usage.additional_properties = d
        return key_usage

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
