from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime






T = TypeVar("T", bound="DelegationView")



@_attrs_define
class DelegationView:
    """ A TV's delegation as stored.

        Attributes:
            token_id (str):
            until (datetime.datetime):
            user_id (str):
     """

    token_id: str
    until: datetime.datetime
    user_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        token_id = self.token_id

        until = self.until.isoformat()

        user_id = self.user_id


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "tokenId": token_id,
            "until": until,
            "userId": user_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        token_id = d.pop("tokenId")

        until = datetime.datetime.fromisoformat(d.pop("until"))




        user_id = d.pop("userId")

        delegation_view = cls(
            token_id=token_id,
            until=until,
            user_id=user_id,
        )


        delegation_view.additional_properties = d
        return delegation_view

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
