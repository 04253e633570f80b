from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.selection import Selection






T = TypeVar("T", bound="SelectionBody")



@_attrs_define
class SelectionBody:
    """ A thing's selection.

        Attributes:
            selection (Selection): A household's choice for one thing.
            tenant_id (str):
     """

    selection: Selection
    tenant_id: str





    def to_dict(self) -> dict[str, Any]:
        selection = self.selection.value

        tenant_id = self.tenant_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "selection": selection,
            "tenantId": tenant_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        selection = Selection(d.pop("selection"))




        tenant_id = d.pop("tenantId")

        selection_body = cls(
            selection=selection,
            tenant_id=tenant_id,
        )

        return selection_body

