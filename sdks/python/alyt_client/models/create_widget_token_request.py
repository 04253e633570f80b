from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.surface import Surface
from ..types import UNSET, Unset






T = TypeVar("T", bound="CreateWidgetTokenRequest")



@_attrs_define
class CreateWidgetTokenRequest:
    """ 
        Attributes:
            name (str): What the widget is called ("Kitchen phone"), 1-80 characters.
            surface (Surface | Unset): Where a widget token lives.
     """

    name: str
    surface: Surface | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        name = self.name

        surface: str | Unset = UNSET
        if not isinstance(self.surface, Unset):
            surface = self.surface.value



        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
        })
        if surface is not UNSET:
            field_dict["surface"] = surface

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        _surface = d.pop("surface", UNSET)
        surface: Surface | Unset
        if isinstance(_surface,  Unset):
            surface = UNSET
        else:
            surface = Surface(_surface)




        create_widget_token_request = cls(
            name=name,
            surface=surface,
        )

        return create_widget_token_request

