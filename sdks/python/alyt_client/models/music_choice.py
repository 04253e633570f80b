from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.choice_kind import ChoiceKind






T = TypeVar("T", bound="MusicChoice")



@_attrs_define
class MusicChoice:
    """ A favourite, playlist or radio station saved on a speaker system: its
    uri (`FV:<id>`, `speaker:favorite:<id>`, `speaker:playlist:<id>`) is
    what a music step stores.

        Attributes:
            kind (ChoiceKind): What kind of saved choice a speaker system offers.
            name (str):
            uri (str):
     """

    kind: ChoiceKind
    name: str
    uri: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        kind = self.kind.value

        name = self.name

        uri = self.uri


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "kind": kind,
            "name": name,
            "uri": uri,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        kind = ChoiceKind(d.pop("kind"))




        name = d.pop("name")

        uri = d.pop("uri")

        music_choice = cls(
            kind=kind,
            name=name,
            uri=uri,
        )


        music_choice.additional_properties = d
        return music_choice

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
