from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.developer_type import DeveloperType






T = TypeVar("T", bound="DefinitionAuthor")



@_attrs_define
class DefinitionAuthor:
    """ The catalogue definition's author.

        Attributes:
            display_name (str):
            type_ (DeveloperType):
            verified (bool):
     """

    display_name: str
    type_: DeveloperType
    verified: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        display_name = self.display_name

        type_ = self.type_.value

        verified = self.verified


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "displayName": display_name,
            "type": type_,
            "verified": verified,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        display_name = d.pop("displayName")

        type_ = DeveloperType(d.pop("type"))




        verified = d.pop("verified")

        definition_author = cls(
            display_name=display_name,
            type_=type_,
            verified=verified,
        )


        definition_author.additional_properties = d
        return definition_author

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
