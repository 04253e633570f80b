from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.search_type import SearchType
from ..types import UNSET, Unset






T = TypeVar("T", bound="MusicItem")



@_attrs_define
class MusicItem:
    """ One search result: its uri is what a music step stores.

        Attributes:
            name (str):
            type_ (SearchType): What a search looks for.
            uri (str):
            subtitle (str | Unset): The artist of a track or album, the owner of a playlist.
     """

    name: str
    type_: SearchType
    uri: str
    subtitle: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        name = self.name

        type_ = self.type_.value

        uri = self.uri

        subtitle = self.subtitle


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "name": name,
            "type": type_,
            "uri": uri,
        })
        if subtitle is not UNSET:
            field_dict["subtitle"] = subtitle

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        type_ = SearchType(d.pop("type"))




        uri = d.pop("uri")

        subtitle = d.pop("subtitle", UNSET)

        music_item = cls(
            name=name,
            type_=type_,
            uri=uri,
            subtitle=subtitle,
        )


        music_item.additional_properties = d
        return music_item

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
